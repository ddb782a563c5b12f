/*
 * sync_lease.c: leader election with a coordination.k8s.io/v1 Lease, as
 * client-go's leaderelection does it (reference §1.12): GET; CREATE when
 * absent; renew our own record; take over another's only once it has not
 * changed for leaseDurationSeconds on OUR monotonic clock (the holder's
 * timestamps are never trusted, so wall-clock jumps and skew do not matter);
 * every write a PUT carrying the resourceVersion just read, so two
 * contenders race safely through 409. A leader that has not renewed within
 * the renew deadline stops writing (the loop then exits).
 *
 * client-go's election has no fencing, so the deadline is enforced where
 * the writes leave: the kube client asks gq__sync_lease_gate before every
 * request but a GET, and the gate refuses once the deadline may have
 * passed. "May have": the deadline runs from the moment the successful
 * renewal was started, which is no later than when the server recorded it,
 * and so no later than when a contender saw it change and began counting
 * leaseDurationSeconds (longer than the renew deadline) towards a takeover.
 * A process stopped (SIGSTOP, a long GC-like stall, a slow call) past the
 * deadline thus finds every write refused when it resumes, wherever in the
 * loop it was. Writes that matter are conditional too (Job patches carry
 * the resourceVersion read), for the one that left just before the stall.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "os.h"
#include "sync.h"
#include "util.h"

static int64_t mono_ms(void)
{
    return gq__mono_us() / 1000;
}

/* MicroTime: RFC 3339 with six fractional digits. */
static void micro_time(char buf[40])
{
    struct timespec ts;
    struct tm tm;
    char date[24];

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, 40, "%s.%06dZ", date, (int)(ts.tv_nsec / 1000 % 1000000));
}

void gq__sync_lease_free(struct gq_lease *l)
{
    free(l->holder);
    free(l->rv);
    free(l->acquire_time);
    memset(l, 0, sizeof(*l));
}

static void path_of(struct gq_sync *s, char *buf, size_t size, bool item)
{
    snprintf(buf, size, "/apis/coordination.k8s.io/v1/namespaces/%s/leases%s%s", s->lease_ns,
             item ? "/" : "", item ? s->o.lease_name : "");
}

/* The record read: the moment it changed is when we saw it change. */
static void observe(struct gq_sync *s, json_object *lease)
{
    struct gq_lease *l = &s->lease;
    const char *holder = gq__js_str(lease, "spec.holderIdentity");
    const char *rv = gq__js_str(lease, "metadata.resourceVersion");
    json_object *d = gq__js_get(lease, "spec.leaseDurationSeconds");
    json_object *tr = gq__js_get(lease, "spec.leaseTransitions");

    if (!l->rv || !rv || strcmp(l->rv, rv) != 0)
        l->observed_mono = mono_ms();
    free(l->holder);
    free(l->rv);
    free(l->acquire_time);
    l->holder = gq__strdup(holder ? holder : "");
    l->rv = gq__strdup(rv ? rv : "");
    l->acquire_time = gq__strdup(gq__js_str(lease, "spec.acquireTime"));
    l->duration_ms = d ? json_object_get_int64(d) * 1000 : s->o.lease_duration_ms;
    if (l->duration_ms <= 0 || l->duration_ms > 3600 * 1000)
        l->duration_ms = s->o.lease_duration_ms;
    l->transitions = tr ? json_object_get_int64(tr) : 0;
}

static json_object *record(struct gq_sync *s, bool takeover, const char *holder)
{
    json_object *o = json_object_new_object(), *meta = json_object_new_object();
    json_object *spec = json_object_new_object();
    char now[40];

    micro_time(now);
    json_object_object_add(o, "apiVersion", json_object_new_string("coordination.k8s.io/v1"));
    json_object_object_add(o, "kind", json_object_new_string("Lease"));
    json_object_object_add(meta, "name", json_object_new_string(s->o.lease_name));
    json_object_object_add(meta, "namespace", json_object_new_string(s->lease_ns));
    if (s->lease.rv && *s->lease.rv)
        json_object_object_add(meta, "resourceVersion", json_object_new_string(s->lease.rv));
    json_object_object_add(spec, "holderIdentity", json_object_new_string(holder));
    json_object_object_add(spec, "leaseDurationSeconds",
                           json_object_new_int64(s->o.lease_duration_ms / 1000));
    json_object_object_add(spec, "acquireTime",
                           json_object_new_string(!takeover && s->lease.acquire_time
                                                      ? s->lease.acquire_time
                                                      : now));
    json_object_object_add(spec, "renewTime", json_object_new_string(now));
    json_object_object_add(spec, "leaseTransitions",
                           json_object_new_int64(s->lease.transitions + (takeover ? 1 : 0)));
    json_object_object_add(o, "metadata", meta);
    json_object_object_add(o, "spec", spec);
    return o;
}

/* POST (create) or PUT (update) our record; true when the server took it. */
static int write_record(struct gq_sync *s, bool create, bool takeover, const char *holder,
                        bool *ok, gq_error *err)
{
    json_object *o = record(s, takeover, holder);
    struct gq_kube_resp r;
    char path[512];
    int rc;

    path_of(s, path, sizeof(path), !create);
    s->lease_call = true; /* how a leader learns it lost the Lease, so never gated */
    rc = gq__kube_call(s->k, create ? "POST" : "PUT", path, NULL,
                       json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), &r, err);
    s->lease_call = false;
    json_object_put(o);
    *ok = rc == GQ_OK && (r.status == 200 || r.status == 201);
    if (*ok)
        observe(s, r.json);
    gq__kube_resp_free(&r);
    return rc;
}

static int try_acquire_or_renew(struct gq_sync *s, bool *ok, gq_error *err)
{
    struct gq_kube_resp r;
    char path[512];
    bool mine, expired;
    int rc;

    *ok = false;
    path_of(s, path, sizeof(path), true);
    if ((rc = gq__kube_call(s->k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        return rc;
    if (r.status == 404) {
        gq__kube_resp_free(&r);
        gq__sync_lease_free(&s->lease);
        return write_record(s, true, true, s->identity, ok, err);
    }
    if (r.status != 200) {
        char line[GQ_KUBE_STATUS_LINE];

        gq__kube_status_line(line, sizeof(line), &r);
        rc = gq__error(err, GQ_EK8S, "GET %s: %s", path, line);
        gq__kube_resp_free(&r);
        return rc;
    }
    observe(s, r.json);
    gq__kube_resp_free(&r);
    mine = strcmp(s->lease.holder, s->identity) == 0;
    expired = !*s->lease.holder || mono_ms() - s->lease.observed_mono > s->lease.duration_ms;
    if (!mine && !expired)
        return GQ_OK;
    return write_record(s, false, !mine, s->identity, ok, err);
}

int gq__sync_lease(struct gq_sync *s, gq_error *err)
{
    struct gq_lease *l = &s->lease;
    gq_error ignored;
    bool ok = false;
    int64_t now = mono_ms();

    if (now < l->next_mono)
        goto deadline;
    l->next_mono = now + s->o.retry_period_ms;
    if (try_acquire_or_renew(s, &ok, &ignored) != GQ_OK)
        gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_LEASE, s->lease_ns, s->o.lease_name,
                     "renew-failed", "%s", ignored.msg);
    if (ok) {
        /* When the attempt began, not when it ended: the deadline must not start late. */
        l->renewed_mono = now;
        if (!s->leader)
            gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_LEASE, s->lease_ns, s->o.lease_name,
                         "acquired", "%s leads", s->identity);
        s->leader = true;
    } else if (s->leader && l->holder && *l->holder && strcmp(l->holder, s->identity) != 0) {
        s->leader = false; /* someone else holds it now */
    }
deadline:
    if (s->leader && !gq__sync_lease_valid(s, mono_ms()))
        s->leader = false; /* could not renew in time: stop writing */
    (void)err;
    return GQ_OK;
}

bool gq__sync_lease_valid(const struct gq_sync *s, int64_t now_ms)
{
    if (!s->o.leader_elect)
        return true;
    return s->leader && now_ms - s->lease.renewed_mono < s->o.renew_deadline_ms;
}

int gq__sync_lease_gate(const char *method, const char *path, void *payload, gq_error *err)
{
    struct gq_sync *s = payload;
    int64_t now = mono_ms();

    if (s->lease_call || gq__sync_lease_valid(s, now))
        return GQ_OK;
    if (!s->leader)
        return gq__error(err, GQ_ENOTLEADER, "%s %s not sent: %s does not lead", method, path,
                         s->identity);
    s->deposed = true;
    return gq__error(err, GQ_ENOTLEADER,
                     "%s %s not sent: %s has not renewed its lease for %lld ms (deadline %lld ms)",
                     method, path, s->identity, (long long)(now - s->lease.renewed_mono),
                     (long long)s->o.renew_deadline_ms);
}

void gq__sync_lease_release(struct gq_sync *s)
{
    gq_error ignored;
    bool ok;

    /* Hand over at once (client-go's ReleaseOnCancel): an empty holder is free to take. */
    if (write_record(s, false, false, "", &ok, &ignored) == GQ_OK && ok)
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_LEASE, s->lease_ns, s->o.lease_name,
                     "released", "%s", "");
}
