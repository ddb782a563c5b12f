/*
 * wl_fixture.h: one Job workload as the store's tests insert it (a pod set
 * of 3 pods asking 2 GPUs each, optionally imported as admitted to a
 * ClusterQueue on flavor a100), for tests that include store.h.
 */
#ifndef GQ_TEST_WL_FIXTURE_H
#define GQ_TEST_WL_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "store.h"
#include "test.h"

struct wl_fixture {
    struct gq_object obj;
    struct gq_podset ps;
    struct gq_request rq;
    struct gq_podset_assignment as;
    struct gq_kv flavor, usage;
};

static void job(struct wl_fixture *f, const char *name, const char *admitted_cq)
{
    memset(f, 0, sizeof(*f));
    f->obj.kind = GQ_KIND_JOB;
    f->obj.meta.namespace = (char *)(uintptr_t) "default";
    f->obj.meta.name = (char *)(uintptr_t)name;
    f->obj.u.wl.job_kind = (char *)(uintptr_t) "Job";
    f->obj.u.wl.job_name = (char *)(uintptr_t)name;
    f->obj.u.wl.queue = (char *)(uintptr_t) "q";
    f->obj.u.wl.active = true;
    f->rq.resource = (char *)(uintptr_t) "nvidia.com/gpu";
    CHECK(gq_quantity_parse(&f->rq.per_pod, "2", 1, NULL) == GQ_OK);
    f->ps.name = (char *)(uintptr_t) "main";
    f->ps.count = 3;
    f->ps.requests = &f->rq;
    f->ps.nrequests = 1;
    f->obj.u.wl.podsets = &f->ps;
    f->obj.u.wl.npodsets = 1;
    if (admitted_cq) {
        f->obj.u.wl.admitted_cq = (char *)(uintptr_t)admitted_cq;
        f->flavor.key = f->usage.key = (char *)(uintptr_t) "nvidia.com/gpu";
        f->flavor.value = (char *)(uintptr_t) "a100";
        f->usage.value = (char *)(uintptr_t) "6";
        f->as.name = (char *)(uintptr_t) "main";
        f->as.flavors.v = &f->flavor;
        f->as.flavors.n = 1;
        f->as.usage.v = &f->usage;
        f->as.usage.n = 1;
        f->as.count = 3;
        f->obj.u.wl.assignments = &f->as;
        f->obj.u.wl.nassignments = 1;
    }
}

#endif
