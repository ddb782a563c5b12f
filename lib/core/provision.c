/*
 * provision.c: the ProvisioningRequest admission check's rules (see
 * provision.h). Each function names the Kueue function it follows.
 */
#include "provision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quota.h"
#include "util.h"

#define OBJECT_NAME_MAX 253
#define OBJECT_NAME_KEEP 247

const char *gq__check_state_name(enum gq_check_state s)
{
    static const char *const names[] = {"Pending", "Ready", "Retry", "Rejected"};

    return names[s];
}

char *gq__limit_object_name(const char *name)
{
    size_t n = strlen(name);
    char hex[41], *out;

    if (n <= OBJECT_NAME_MAX)
        return strdup(name);
    if (!(out = malloc(OBJECT_NAME_MAX + 1)))
        return NULL;
    gq__sha1_hex(hex, name, n);
    memcpy(out, name, OBJECT_NAME_KEEP);
    out[OBJECT_NAME_KEEP] = '-';
    memcpy(out + OBJECT_NAME_KEEP + 1, hex, 5);
    out[OBJECT_NAME_MAX] = '\0';
    return out;
}

/* a "-" b ["-" n], through limitObjectName. */
static char *joined(const char *a, const char *b, int32_t n)
{
    size_t len = strlen(a) + strlen(b) + 16;
    char *full = malloc(len), *out;

    if (!full)
        return NULL;
    if (n > 0)
        snprintf(full, len, "%s-%s-%ld", a, b, (long)n);
    else
        snprintf(full, len, "%s-%s", a, b);
    out = gq__limit_object_name(full);
    free(full);
    return out;
}

char *gq__provreq_name(const char *workload, const char *check, int32_t attempt)
{
    return joined(workload, check, attempt);
}

char *gq__podtemplate_name(const char *request, const char *podset)
{
    size_t len = strlen(GQ_PPT_PREFIX) + strlen(request) + 2;
    char *prefix = malloc(len), *out;

    if (!prefix)
        return NULL;
    snprintf(prefix, len, GQ_PPT_PREFIX "-%s", request);
    out = joined(prefix, podset, 0);
    free(prefix);
    return out;
}

static int kvs_set(struct gq_kvs *out, size_t cap, const char *key, const char *value)
{
    size_t i;
    char *v;

    for (i = 0; i < out->n; i++) {
        if (strcmp(out->v[i].key, key) == 0) {
            if (!(v = strdup(value)))
                return -1;
            free(out->v[i].value);
            out->v[i].value = v;
            return 0;
        }
    }
    if (out->n == cap)
        return -1;
    out->v[out->n].key = strdup(key);
    out->v[out->n].value = strdup(value);
    if (!out->v[out->n].key || !out->v[out->n].value) {
        out->n++;
        return -1;
    }
    out->n++;
    return 0;
}

int gq__provreq_parameters(const struct gq_kvs *config, const struct gq_kvs *annotations,
                           struct gq_kvs *out)
{
    size_t cap = config->n + annotations->n, i, plen = strlen(GQ_PROVREQ_ANNOTATION_PREFIX);

    out->n = 0;
    if (!(out->v = calloc(cap ? cap : 1, sizeof(*out->v))))
        return -1;
    for (i = 0; i < config->n; i++)
        if (kvs_set(out, cap, config->v[i].key, config->v[i].value) < 0)
            goto fail;
    for (i = 0; i < annotations->n; i++) {
        const char *k = annotations->v[i].key;

        if (strncmp(k, GQ_PROVREQ_ANNOTATION_PREFIX, plen) == 0 && k[plen] &&
            kvs_set(out, cap, k + plen, annotations->v[i].value) < 0)
            goto fail;
    }
    return 0;
fail:
    gq__kvs_clear(out);
    return -1;
}

bool gq__provreq_needed(const struct gq_podset *ps, int32_t count, const struct gq_strs *managed)
{
    size_t i, j;

    if (count <= 0)
        return false;
    for (i = 0; i < ps->nrequests; i++) {
        if (!managed->n)
            return true;
        for (j = 0; j < managed->n; j++)
            if (strcmp(ps->requests[i].resource, managed->v[j]) == 0)
                return true;
    }
    return false;
}

int64_t gq__backoff_seconds(int32_t n, int32_t base, int32_t max)
{
    int64_t v = base;
    int32_t i;

    for (i = 1; i < n && v < max; i++)
        v = gq__sat_mul(v, 2);
    return v < max ? v : max;
}

static void set(struct gq_check_update *u, enum gq_check_state s, const char *prefix,
                const char *msg)
{
    u->state = s;
    snprintf(u->message, sizeof(u->message), "%s%s", prefix, msg ? msg : "");
}

/* A Failed or an unadmitted BookingExpired: a retry while attempts remain, else rejection. */
static void retry_or_reject(struct gq_check_update *u, int32_t attempt, int32_t retry_count,
                            const struct gq_provisioning_config *cfg, const char *prefix,
                            const char *msg)
{
    if (attempt <= cfg->backoff_limit_count) {
        if (attempt <= retry_count) { /* this attempt's failure is already a retry */
            u->unchanged = true;
            return;
        }
        set(u, GQ_CHECK_RETRY, prefix, msg);
        u->requeue_after_s =
            gq__backoff_seconds(retry_count + 1, cfg->backoff_base_seconds, cfg->backoff_max_seconds);
        return;
    }
    set(u, GQ_CHECK_REJECTED, "", msg);
}

void gq__check_from_provreq(const struct gq_provreq_status *st, int32_t attempt,
                            int32_t retry_count, const struct gq_provisioning_config *cfg,
                            bool admitted, struct gq_check_update *out)
{
    memset(out, 0, sizeof(*out));
    if (st->failed)
        retry_or_reject(out, attempt, retry_count, cfg, "Retrying after failure: ",
                        st->failed_msg);
    else if (st->capacity_revoked)
        set(out, GQ_CHECK_REJECTED, "", st->revoked_msg);
    else if (st->booking_expired && !admitted)
        retry_or_reject(out, attempt, retry_count, cfg, "Retrying after booking expired: ",
                        st->booking_msg);
    else if (st->booking_expired)
        out->unchanged = true;
    else if (st->provisioned)
        set(out, GQ_CHECK_READY, "", st->provisioned_msg);
    else if (st->accepted && st->has_provisioned)
        set(out, GQ_CHECK_PENDING, "", st->provisioned_msg);
    else
        set(out, GQ_CHECK_PENDING, "", "");
}

bool gq__provreq_attempt_failed(const struct gq_provreq_status *st, bool admitted)
{
    return st->failed || (!st->capacity_revoked && st->booking_expired && !admitted);
}

int64_t gq__provreq_timeout_at(const struct gq_provreq_status *st, int64_t created_ms,
                               const struct gq_provisioning_config *cfg)
{
    if (cfg->timeout_ms <= 0 || st->provisioned || st->failed || st->booking_expired ||
        st->capacity_revoked)
        return 0;
    return gq__sat_add(created_ms, cfg->timeout_ms);
}

void gq__check_timed_out(const char *name, int32_t attempt, int32_t retry_count,
                         const struct gq_provisioning_config *cfg, struct gq_check_update *out)
{
    char within[GQ_DURATION_BUFSIZE], msg[400];

    memset(out, 0, sizeof(*out));
    gq__format_duration_ms(within, sizeof(within), cfg->timeout_ms, true);
    snprintf(msg, sizeof(msg), "ProvisioningRequest %s not provisioned within %s", name, within);
    retry_or_reject(out, attempt, retry_count, cfg, "Retrying after timeout: ", msg);
}
