/*
 * sim.c: the simulated cluster's provisioning (see sim.h). Pure.
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "util.h"

/* xorshift64*: small, fast, and the same sequence for the same seed everywhere. */
static uint64_t next(struct gq_sim *s)
{
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return s->rng * 2685821657736338717ull;
}

/* A delay around mean: uniform in [mean/2, 3 mean/2]. */
static int64_t jitter(struct gq_sim *s, int64_t mean)
{
    if (mean <= 1)
        return mean;
    return mean / 2 + (int64_t)(next(s) % (uint64_t)mean);
}

static int copy_kvs(struct gq_kvs *dst, const struct gq_kvs *src)
{
    size_t i;

    dst->n = 0;
    if (!(dst->v = calloc(src->n + 1, sizeof(*dst->v))))
        return -1;
    for (i = 0; i < src->n; i++) {
        dst->v[i].key = strdup(src->v[i].key);
        dst->v[i].value = strdup(src->v[i].value);
        dst->n++;
        if (!dst->v[i].key || !dst->v[i].value)
            return -1;
    }
    return 0;
}

int gq__sim_init(struct gq_sim *s, const struct gq_sim_pool *pools, size_t npools, uint64_t seed)
{
    size_t i;

    memset(s, 0, sizeof(*s));
    s->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
    s->pools = calloc(npools + 1, sizeof(*s->pools));
    s->used = calloc(npools + 1, sizeof(*s->used));
    s->idle = calloc(npools + 1, sizeof(*s->idle));
    s->idle_until = calloc(npools + 1, sizeof(*s->idle_until));
    if (!s->pools || !s->used || !s->idle || !s->idle_until)
        return -1;
    for (i = 0; i < npools; i++) {
        s->pools[i] = pools[i];
        s->pools[i].labels.v = NULL;
        s->npools++;
        if (!(s->pools[i].name = strdup(pools[i].name)) ||
            copy_kvs(&s->pools[i].labels, &pools[i].labels) < 0)
            return -1;
        /* minNodes are up from the start, and stay */
        s->idle[i] = pools[i].min_nodes < pools[i].max_nodes ? pools[i].min_nodes : pools[i].max_nodes;
    }
    return 0;
}

void gq__sim_pools_free(struct gq_sim_pool *pools, size_t n)
{
    size_t i;

    for (i = 0; pools && i < n; i++) {
        free(pools[i].name);
        gq__kvs_clear(&pools[i].labels);
    }
    free(pools);
}

void gq__sim_free(struct gq_sim *s)
{
    size_t i;

    gq__sim_pools_free(s->pools, s->npools);
    for (i = 0; i < s->nreqs; i++)
        free(s->reqs[i].name);
    free(s->idle);
    free(s->idle_until);
    free(s->used);
    free(s->reqs);
    memset(s, 0, sizeof(*s));
}

static const char *label(const struct gq_kvs *m, const char *key)
{
    size_t i;

    for (i = 0; i < m->n; i++)
        if (strcmp(m->v[i].key, key) == 0)
            return m->v[i].value;
    return NULL;
}

/* Every key the pods select is a label of the pool, with that value. */
bool gq__sim_selects(const struct gq_sim_pool *p, const struct gq_kvs *selector)
{
    size_t i;

    for (i = 0; selector && i < selector->n; i++) {
        const char *have = label(&p->labels, selector->v[i].key);

        if (!have || strcmp(have, selector->v[i].value) != 0)
            return false;
    }
    return true;
}

int gq__sim_find(const struct gq_sim *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->nreqs; i++)
        if (strcmp(s->reqs[i].name, name) == 0)
            return (int)i;
    return -1;
}

int gq__sim_request(struct gq_sim *s, const char *name, const struct gq_kvs *selector,
                    int32_t gpus, int64_t max_run_ms, int64_t now)
{
    struct gq_sim_request *r;
    size_t i;

    if (gq__grow(&s->reqs, &s->capreqs, s->nreqs, sizeof(*s->reqs)) < 0)
        return -1;
    r = &s->reqs[s->nreqs];
    memset(r, 0, sizeof(*r));
    if (!(r->name = strdup(name)))
        return -1;
    r->pool = -1;
    r->created_ms = now;
    r->max_run_ms = max_run_ms;
    for (i = 0; i < s->npools && r->pool < 0; i++)
        if (!s->pools[i].autoscaling && gq__sim_selects(&s->pools[i], selector))
            r->pool = (int)i;
    if (r->pool < 0) {
        r->state = GQ_SIM_FAILED;
        r->ended_ms = now;
        snprintf(r->message, sizeof(r->message), "no node pool matches the pods' nodeSelector");
    } else {
        int32_t per = s->pools[r->pool].gpus_per_node > 0 ? s->pools[r->pool].gpus_per_node : 1;

        r->nodes = gpus > 0 ? (gpus + per - 1) / per : 1;
        r->state = GQ_SIM_ACCEPTED;
        snprintf(r->message, sizeof(r->message),
                 "Waiting for resources. Currently there are not enough resources available "
                 "to fulfill the request.");
    }
    return (int)s->nreqs++;
}

void gq__sim_consume(struct gq_sim *s, int req)
{
    if (req >= 0)
        s->reqs[req].consumed = true;
}

void gq__sim_adopt(struct gq_sim *s, int req, int64_t provisioned_ms)
{
    struct gq_sim_request *r = req >= 0 ? &s->reqs[req] : NULL;

    if (!r || r->pool < 0 || r->state != GQ_SIM_ACCEPTED || r->holds)
        return;
    s->used[r->pool] += r->nodes;
    r->holds = true;
    r->state = GQ_SIM_PROVISIONED;
    r->ready_ms = r->provisioned_ms = provisioned_ms;
    snprintf(r->message, sizeof(r->message), "Provisioning Request was successfully provisioned.");
}

/* Give back what a request holds: its nodes idle until the pool scales them down. */
static void release(struct gq_sim *s, struct gq_sim_request *r, int64_t now)
{
    if (r->pool >= 0 && r->holds) {
        s->used[r->pool] -= r->nodes;
        s->idle[r->pool] += r->nodes;
        s->idle_until[r->pool] = now + s->pools[r->pool].scale_down_ms;
        r->holds = false;
    }
}

void gq__sim_delete(struct gq_sim *s, int req, int64_t now)
{
    struct gq_sim_request *r;

    if (req < 0)
        return;
    r = &s->reqs[req];
    if (r->gone)
        return;
    if (r->state == GQ_SIM_ACCEPTED && r->holds && now < r->ready_ms) {
        /* Its nodes are being created: they come up all the same, idle then (step). */
        r->gone = true;
        r->state = GQ_SIM_FAILED;
        return;
    }
    if (r->state == GQ_SIM_ACCEPTED || r->state == GQ_SIM_PROVISIONED)
        release(s, r, now);
    r->state = GQ_SIM_FAILED; /* gone: no further transitions */
    r->pool = -1;
}

static bool step(struct gq_sim *s, struct gq_sim_request *r, int64_t now)
{
    const struct gq_sim_pool *p = r->pool >= 0 ? &s->pools[r->pool] : NULL;
    char eta[32];

    if (!p)
        return false;
    if (r->gone) {
        if (now < r->ready_ms)
            return false;
        release(s, r, r->ready_ms);
        r->gone = false;
        r->pool = -1;
        return true;
    }
    if (r->state == GQ_SIM_ACCEPTED && !r->holds) {
        /* idle nodes first; the rest are created, all at once, if the pool may grow */
        int32_t reuse = s->idle[r->pool] < r->nodes ? s->idle[r->pool] : r->nodes;
        int32_t create = r->nodes - reuse;

        if ((create && (p->stockout || r->check_capacity)) ||
            s->used[r->pool] + s->idle[r->pool] + create > p->max_nodes)
            goto waiting;
        s->idle[r->pool] -= reuse;
        s->used[r->pool] += r->nodes;
        r->holds = true;
        /* check-capacity books what is up and creates nothing: no delay */
        r->ready_ms = create ? now + jitter(s, p->provision_ms) : now;
        snprintf(r->message, sizeof(r->message),
                 "Capacity found in node pool %s: %d node%s, ETA %s", p->name, (int)r->nodes,
                 r->nodes == 1 ? "" : "s", gq__rfc3339(eta, r->ready_ms));
    }
waiting:
    if (r->state == GQ_SIM_ACCEPTED && r->holds && now >= r->ready_ms) {
        r->state = GQ_SIM_PROVISIONED;
        r->provisioned_ms = r->ready_ms;
        snprintf(r->message, sizeof(r->message),
                 "Provisioning Request was successfully provisioned.");
        return true;
    }
    if (r->state == GQ_SIM_ACCEPTED && !r->holds && p->fail_after_ms &&
        now - r->created_ms >= p->fail_after_ms) {
        r->state = GQ_SIM_FAILED;
        r->ended_ms = now;
        snprintf(r->message, sizeof(r->message),
                 "max cluster limit reached, nodepools out of resources: %s", p->name);
        return true;
    }
    if (r->state == GQ_SIM_PROVISIONED && !r->consumed &&
        now - r->provisioned_ms >= GQ_SIM_BOOKING_MS) {
        release(s, r, now);
        r->state = GQ_SIM_BOOKING_EXPIRED;
        r->ended_ms = r->provisioned_ms + GQ_SIM_BOOKING_MS;
        snprintf(r->message, sizeof(r->message), "Capacity booking for the Provisioning Request "
                                                 "has expired and the nodes are now candidates "
                                                 "for scale down when underutilized.");
        return true;
    }
    if (r->state == GQ_SIM_PROVISIONED && r->max_run_ms &&
        now - r->provisioned_ms >= r->max_run_ms) {
        release(s, r, now);
        r->ended_ms = r->provisioned_ms + r->max_run_ms;
        r->state = GQ_SIM_REVOKED;
        snprintf(r->message, sizeof(r->message), "Max run duration of %lld s was reached",
                 (long long)(r->max_run_ms / 1000));
        return true;
    }
    return false;
}

size_t gq__sim_advance(struct gq_sim *s, int64_t now)
{
    size_t i, changed = 0;

    for (i = 0; i < s->npools; i++) /* idle nodes past scaleDownAfter go, down to minNodes */
        if (s->idle[i] > s->pools[i].min_nodes && now >= s->idle_until[i]) {
            s->idle[i] = s->pools[i].min_nodes < s->idle[i] ? s->pools[i].min_nodes : s->idle[i];
            changed++;
        }

    for (i = 0; i < s->nreqs; i++) /* creation order: first come, first provisioned */
        changed += step(s, &s->reqs[i], now);
    return changed;
}

static void soonest(int64_t *best, int64_t t, int64_t now)
{
    if (t > now && (!*best || t < *best))
        *best = t;
}

int64_t gq__sim_next(const struct gq_sim *s, int64_t now)
{
    int64_t best = 0;
    size_t i;

    for (i = 0; i < s->npools; i++)
        if (s->idle[i] > s->pools[i].min_nodes)
            soonest(&best, s->idle_until[i], now);
    for (i = 0; i < s->nreqs; i++) {
        const struct gq_sim_request *r = &s->reqs[i];
        const struct gq_sim_pool *p = r->pool >= 0 ? &s->pools[r->pool] : NULL;

        if (!p)
            continue;
        if ((r->state == GQ_SIM_ACCEPTED && r->holds) || r->gone)
            soonest(&best, r->ready_ms, now);
        else if (r->state == GQ_SIM_ACCEPTED && p->fail_after_ms)
            soonest(&best, r->created_ms + p->fail_after_ms, now);
        if (r->state == GQ_SIM_PROVISIONED && !r->consumed)
            soonest(&best, r->provisioned_ms + GQ_SIM_BOOKING_MS, now);
        if (r->state == GQ_SIM_PROVISIONED && r->max_run_ms)
            soonest(&best, r->provisioned_ms + r->max_run_ms, now);
    }
    return best;
}

/*
 * "v1 <state> <nodes> <created> <ready> <provisioned> <ended> <max_run>
 * <consumed> <check_capacity> <pool>|<message>": the pool by name, since
 * pools may be re-declared between runs.
 */
void gq__sim_record(const struct gq_sim *s, int req, char out[GQ_SIM_RECORD_SIZE])
{
    const struct gq_sim_request *r = &s->reqs[req];

    snprintf(out, GQ_SIM_RECORD_SIZE, "v1 %d %d %lld %lld %lld %lld %lld %d %d %d %s|%s",
             (int)r->state, (int)r->nodes, (long long)r->created_ms, (long long)r->ready_ms,
             (long long)r->provisioned_ms, (long long)r->ended_ms, (long long)r->max_run_ms,
             (int)r->consumed, (int)r->holds, (int)r->check_capacity,
             r->pool >= 0 ? s->pools[r->pool].name : "-", r->message);
}

int gq__sim_restore(struct gq_sim *s, const char *name, const char *record)
{
    struct gq_sim_request r;
    long long created, ready, provisioned, ended, max_run;
    int state, nodes, consumed, holds, check, used = 0;
    char pool[254];
    const char *msg;
    size_t i;

    memset(&r, 0, sizeof(r));
    if (!record ||
        sscanf(record, "v1 %d %d %lld %lld %lld %lld %lld %d %d %d %253[^|]%n", &state, &nodes,
               &created, &ready, &provisioned, &ended, &max_run, &consumed, &holds, &check, pool,
               &used) != 11 ||
        record[used] != '|' || state < GQ_SIM_ACCEPTED || state > GQ_SIM_REVOKED || nodes < 0)
        return -1;
    msg = record + used + 1;
    if (gq__grow(&s->reqs, &s->capreqs, s->nreqs, sizeof(*s->reqs)) < 0 || !(r.name = strdup(name)))
        return -1;
    r.pool = -1;
    for (i = 0; i < s->npools && r.pool < 0; i++)
        if (strcmp(s->pools[i].name, pool) == 0)
            r.pool = (int)i;
    r.state = (enum gq_sim_state)state;
    r.nodes = nodes;
    r.created_ms = created;
    r.ready_ms = ready;
    r.provisioned_ms = provisioned;
    r.ended_ms = ended;
    r.max_run_ms = max_run;
    r.consumed = consumed != 0;
    r.holds = holds != 0 && r.pool >= 0;
    r.check_capacity = check != 0;
    snprintf(r.message, sizeof(r.message), "%s", msg);
    if (r.holds)
        s->used[r.pool] += r.nodes; /* it holds them again */
    s->reqs[s->nreqs] = r;
    return (int)s->nreqs++;
}
