/*
 * state.h: the workload state machine's states, named once (DESIGN.md's
 * lifecycle; schema/0001_init.sql stores them as text in workloads.state,
 * and schema/0013_state_check.sql holds the column to them).
 *
 * GQ_WL_STATES is the one list. It makes the enum, the text table of
 * state.c, the SQL literals the store writes into its statements
 * (GQ_SQL_STATE) and the named sets (a bit mask for C, an "IN (...)" list
 * for SQL, both from the same list of members), so that no other file
 * spells a state in quotes: tests/layers/check.py's state-literal rule
 * keeps it so. The text is what the database, the public structs and the
 * output carry; the enum is what the code compares.
 *
 * A set's SQL list keeps the enum's order: SQLite uses a partial index
 * (workloads_active: state IN ('admitted', 'running')) only for a query
 * whose IN list is written the same way.
 */
#ifndef GQ_STATE_H
#define GQ_STATE_H

#include <stdbool.h>

#include "gpuqueue/db.h"

/* X(NAME, text): the enum constant's suffix and the stored text. */
#define GQ_WL_STATES(X)                                                                            \
    X(PENDING, pending)                                                                            \
    X(RESERVED, reserved)                                                                          \
    X(ADMITTED, admitted)                                                                          \
    X(RUNNING, running)                                                                            \
    X(FINISHED, finished)                                                                          \
    X(EVICTED, evicted)                                                                            \
    X(DEACTIVATED, deactivated)                                                                    \
    X(CANCELLED, cancelled)

enum gq_wl_state {
#define GQ__WL_ENUM(up, low) GQ_WL_##up,
    GQ_WL_STATES(GQ__WL_ENUM)
#undef GQ__WL_ENUM
    GQ_WL_NSTATES
};

/* One bit per state, named by its text so that a set's members read as in SQL. */
enum {
#define GQ__WL_BIT_ENUM(up, low) GQ__WL_BIT_##low = 1 << GQ_WL_##up,
    GQ_WL_STATES(GQ__WL_BIT_ENUM)
#undef GQ__WL_BIT_ENUM
};

/*
 * A state as an SQL string literal, for a statement's text:
 * "WHERE state = " GQ_SQL_STATE(pending) is "WHERE state = 'pending'".
 * The layer check refuses an argument that is not one of the list's texts.
 */
#define GQ_SQL_STATE(low) "'" #low "'"
/* A state's word as a C string constant, for static tables (GQ_WL_TEXT(pending) is "pending"). */
#define GQ_WL_TEXT(low) #low

/*
 * The sets. Each is a list macro set(X, sep) of its members in the enum's
 * order; GQ_WL_SET makes its mask, GQ_SQL_SET its parenthesised SQL list.
 * A misspelt member is a compile error (GQ__WL_BIT_<text> is undeclared):
 * state.c instantiates every mask.
 */
#define GQ__WL_BIT(low) GQ__WL_BIT_##low
#define GQ_WL_SET(set) ((unsigned)(set(GQ__WL_BIT, |)))
#define GQ_SQL_SET(set) "(" set(GQ_SQL_STATE, ", ") ")"
/*
 * A set as ORed equalities on the column state (GQ_SQL_STATE_ANY) or
 * w.state, for statements run at every step of a loop that only filter rows
 * found another way: SQLite tests `state IN (...)` of more than two
 * constants, or seeks an index by one, through a temporary table built at
 * each run of the statement; ORed equalities need none.
 */
#define GQ__SQL_STATE_IS(low) "state = " GQ_SQL_STATE(low)
#define GQ__SQL_W_STATE_IS(low) "w.state = " GQ_SQL_STATE(low)
#define GQ_SQL_STATE_ANY(set) "(" set(GQ__SQL_STATE_IS, " OR ") ")"
#define GQ_SQL_W_STATE_ANY(set) "(" set(GQ__SQL_W_STATE_IS, " OR ") ")"

/*
 * Quota is held (usage rows exist): reserved, then admitted, and running is
 * admitted with its pods started. Eviction and the gauges of reserving
 * workloads count these.
 */
#define GQ__SET_HOLDS_QUOTA(X, sep) X(reserved) sep X(admitted) sep X(running)
/* Kueue's Admitted condition is true: quota reserved and every check Ready. */
#define GQ__SET_ADMITTED(X, sep) X(admitted) sep X(running)
/* What the admission engine's snapshot holds: waiting for quota or holding it. */
#define GQ__SET_IN_ADMISSION(X, sep) X(pending) sep X(reserved) sep X(admitted) sep X(running)
/* Not admitted yet: where an admission comes from (events' from_state). */
#define GQ__SET_AWAITING_ADMISSION(X, sep) X(pending) sep X(reserved)
/* Where quota taken away leaves a workload: requeued, or deactivated by a rejection. */
#define GQ__SET_LET_GO(X, sep) X(pending) sep X(deactivated)
/* Admitted at some time: admitted now, or finished (the report's admitted count). */
#define GQ__SET_WAS_ADMITTED(X, sep) X(admitted) sep X(running) sep X(finished)
/*
 * In cluster mode, a workload whose Job still matters to it: neither
 * finished, evicted nor cancelled (store_kube.c, store_sync.c).
 */
#define GQ__SET_JOB_LIVE(X, sep)                                                                   \
    X(pending) sep X(reserved) sep X(admitted) sep X(running) sep X(deactivated)
/* What `gpuq cancel` may cancel: all but finished and cancelled. */
#define GQ__SET_CANCELLABLE(X, sep)                                                                \
    X(pending) sep X(reserved) sep X(admitted) sep X(running) sep X(evicted) sep X(deactivated)
/*
 * The states a Workload event moves to: every state but evicted, which
 * names a change (an eviction moves to pending or deactivated), not where
 * it leads. Filters workload transitions from check updates, which carry
 * Kueue's capitalised check states.
 */
#define GQ__SET_EVENT_TO(X, sep)                                                                   \
    X(pending) sep X(reserved) sep X(admitted) sep X(running) sep X(finished) sep X(deactivated)  \
        sep X(cancelled)

#define GQ_WL_HOLDS_QUOTA GQ_WL_SET(GQ__SET_HOLDS_QUOTA)
#define GQ_WL_ADMITTED_SET GQ_WL_SET(GQ__SET_ADMITTED)
#define GQ_WL_IN_ADMISSION GQ_WL_SET(GQ__SET_IN_ADMISSION)
#define GQ_WL_AWAITING_ADMISSION GQ_WL_SET(GQ__SET_AWAITING_ADMISSION)
#define GQ_WL_LET_GO GQ_WL_SET(GQ__SET_LET_GO)
#define GQ_WL_WAS_ADMITTED GQ_WL_SET(GQ__SET_WAS_ADMITTED)
#define GQ_WL_JOB_LIVE GQ_WL_SET(GQ__SET_JOB_LIVE)
#define GQ_WL_CANCELLABLE GQ_WL_SET(GQ__SET_CANCELLABLE)
#define GQ_WL_EVENT_TO GQ_WL_SET(GQ__SET_EVENT_TO)

#define GQ_SQL_HOLDS_QUOTA GQ_SQL_SET(GQ__SET_HOLDS_QUOTA)
#define GQ_SQL_ADMITTED GQ_SQL_SET(GQ__SET_ADMITTED)
#define GQ_SQL_IN_ADMISSION GQ_SQL_SET(GQ__SET_IN_ADMISSION)
#define GQ_SQL_AWAITING_ADMISSION GQ_SQL_SET(GQ__SET_AWAITING_ADMISSION)
#define GQ_SQL_LET_GO GQ_SQL_SET(GQ__SET_LET_GO)
#define GQ_SQL_WAS_ADMITTED GQ_SQL_SET(GQ__SET_WAS_ADMITTED)
#define GQ_SQL_JOB_LIVE GQ_SQL_SET(GQ__SET_JOB_LIVE)
#define GQ_SQL_CANCELLABLE GQ_SQL_SET(GQ__SET_CANCELLABLE)
#define GQ_SQL_EVENT_TO GQ_SQL_SET(GQ__SET_EVENT_TO)

/* text as the public enum (gpuqueue/db.h): GQ_WORKLOAD_STATE_UNKNOWN when it is no state. */
gq_workload_state gq__wl_state_public(const char *text);

/* The state's text ("pending" ...); NULL for a value outside the enum. */
const char *gq__wl_state_name(enum gq_wl_state s);

/*
 * The state whose text is exactly text (case matters, as in the column),
 * into *out. Returns false, *out untouched, for NULL or any other text.
 */
bool gq__wl_state_parse(const char *text, enum gq_wl_state *out);

/* Whether s is a member of set, a GQ_WL_* mask above. */
static inline bool gq__wl_state_in(enum gq_wl_state s, unsigned set)
{
    return (set >> s) & 1u;
}

static inline bool gq__wl_holds_quota(enum gq_wl_state s)
{
    return gq__wl_state_in(s, GQ_WL_HOLDS_QUOTA);
}

static inline bool gq__wl_is_admitted(enum gq_wl_state s)
{
    return gq__wl_state_in(s, GQ_WL_ADMITTED_SET);
}

#endif
