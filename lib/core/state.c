/*
 * state.c: the workload states' text table (see state.h). Pure: no I/O.
 *
 * Parsing runs once per workload row the engine's snapshot reads (100,000
 * on a large database), so it looks at the first letter before comparing.
 */
#include "state.h"

#include <stddef.h>
#include <string.h>

static const char *const names[GQ_WL_NSTATES] = {
#define NAME(up, low) [GQ_WL_##up] = #low,
    GQ_WL_STATES(NAME)
#undef NAME
};

/* Every set's mask, once: a misspelt member fails the build here. */
_Static_assert(GQ_WL_HOLDS_QUOTA && GQ_WL_ADMITTED_SET && GQ_WL_IN_ADMISSION &&
                   GQ_WL_AWAITING_ADMISSION && GQ_WL_LET_GO && GQ_WL_WAS_ADMITTED &&
                   GQ_WL_JOB_LIVE && GQ_WL_CANCELLABLE && GQ_WL_EVENT_TO,
               "every set of state.h has members");
_Static_assert(GQ_WL_NSTATES <= 32, "a set is a mask of unsigned bits");

/* The public enum (gpuqueue/db.h) is this one, value for value. */
#define SAME(up, low)                                                                              \
    _Static_assert((int)GQ_WL_##up == (int)GQ_WORKLOAD_##up, "gq_workload_state: " #low);
GQ_WL_STATES(SAME)
#undef SAME

const char *gq_workload_state_name(gq_workload_state s)
{
    return gq__wl_state_name((enum gq_wl_state)s);
}

gq_workload_state gq__wl_state_public(const char *text)
{
    enum gq_wl_state s;

    return gq__wl_state_parse(text, &s) ? (gq_workload_state)s : GQ_WORKLOAD_STATE_UNKNOWN;
}

const char *gq__wl_state_name(enum gq_wl_state s)
{
    return (unsigned)s < GQ_WL_NSTATES ? names[s] : NULL;
}

bool gq__wl_state_parse(const char *text, enum gq_wl_state *out)
{
    int i;

    if (!text)
        return false;
    for (i = 0; i < GQ_WL_NSTATES; i++) {
        if (names[i][0] == text[0] && strcmp(names[i], text) == 0) {
            *out = (enum gq_wl_state)i;
            return true;
        }
    }
    return false;
}
