/*
 * store.h: gpuq's SQLite database. Internal to libgpuqueue; store*.c are the
 * only files that include <sqlite3.h>, and no SQLite type crosses this header.
 *
 * Durability and concurrency rules, from k8s-client-and-reliability.md §3:
 * WAL, synchronous=FULL on every connection, busy_timeout, BEGIN IMMEDIATE
 * for every transaction that may write (SQLite honours busy_timeout only when
 * the write lock is taken up front), the whole transaction retried on
 * SQLITE_BUSY, bound parameters only, and no transaction held across I/O
 * that is not the database's.
 */
#ifndef GQ_STORE_H
#define GQ_STORE_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>

#include "gpuqueue/common.h"
#include "model.h"

struct gq_store;

struct gq_store_options {
    int busy_timeout_ms; /* 0: 10000 */
    bool readonly;       /* open SQLITE_OPEN_READONLY; never migrates */
};

/*
 * Open (creating when allowed) and migrate the database at path; ":memory:"
 * works. A new file is made 0600 (its -wal and -shm follow its mode).
 * GQ_EINVALID for an empty path or a dangling symbolic link (never followed
 * to create its target); GQ_ENOTFOUND when a read-only open finds no file (a
 * read-only WAL database whose -shm cannot be made is read immutable when its
 * log is empty); GQ_ESCHEMA when the file's user_version is newer than this
 * program's schema; GQ_EIO for anything SQLite refuses, with its message and
 * the path, or gq__store_damaged's message for a damaged file.
 */
int gq__store_open(struct gq_store **out, const char *path, const struct gq_store_options *opts,
                   gq_error *err);
void gq__store_close(struct gq_store *st);

/* The path the store was opened with (":memory:" for a private one). */
const char *gq__store_path(const struct gq_store *st);

/* PRAGMA quick_check: GQ_OK, or GQ_EIO with the first problem it reports. */
int gq__store_check(struct gq_store *st, gq_error *err);

/* The schema version this program writes, and the one the file has. */
int gq__store_schema_latest(void);
int gq__store_schema_version(struct gq_store *st);

/*
 * Run fn inside BEGIN IMMEDIATE ... COMMIT. If fn returns non-zero the
 * transaction is rolled back and that code returned. If SQLite reports BUSY
 * (after busy_timeout) anywhere, the whole transaction is rolled back and fn
 * is run again, a bounded number of times with jittered backoff, then
 * GQ_EBUSY. fn must therefore be safe to re-run: it may not keep state from
 * a rolled-back attempt.
 */
typedef int (*gq__txn_fn)(struct gq_store *st, void *payload, gq_error *err);
int gq__store_write(struct gq_store *st, gq__txn_fn fn, void *payload, gq_error *err);

/*
 * The same for read-only work, in one consistent snapshot (BEGIN DEFERRED);
 * inside a transaction already open, fn simply runs in it.
 */
int gq__store_read(struct gq_store *st, gq__txn_fn fn, void *payload, gq_error *err);

/*
 * The engine's journal (store_journal.c, schema/0012_journal.sql). Both
 * functions above first fold the journal into the tables; the engine's own
 * transactions use gq__store_write_journaled, which does not, and append
 * their decisions with the three functions below (same guards and effects as
 * gq__store_reserve, gq__store_evict and gq__store_set_reason, applied when
 * folded: a reserve must be without admission checks, an eviction of a
 * workload that never had any). gq__store_journal_fold folds inside the
 * caller's transaction; gq__store_journal_flush in one of its own, when
 * there is anything to fold.
 */
struct gq_reserve;
int gq__store_write_journaled(struct gq_store *st, gq__txn_fn fn, void *payload, gq_error *err);
int gq__store_journal_reserve(struct gq_store *st, const struct gq_reserve *r, gq_error *err);
int gq__store_journal_evict(struct gq_store *st, int64_t id, const char *reason,
                            const char *message, const char *preempted_reason,
                            int64_t requeue_at, int64_t now_ms, gq_error *err);
int gq__store_journal_reason(struct gq_store *st, int64_t id, const char *reason,
                             const char *message, int64_t now_ms, gq_error *err);
int gq__store_journal_fold(struct gq_store *st, gq_error *err);
int gq__store_journal_flush(struct gq_store *st, gq_error *err);
/* Rows this connection appended and has not folded since (0: none to fold of its own). */
int64_t gq__store_journal_rows(struct gq_store *st);

/* ---------------------------------------------------------------- objects */

/* What put did, for apply's "created | configured | unchanged" line. */
enum gq_put_result { GQ_PUT_CREATED, GQ_PUT_CONFIGURED, GQ_PUT_UNCHANGED };

/*
 * Create or update a queue object (any kind but Job and Workload) whose
 * canonical JSON is spec. Unchanged when the stored spec is byte-identical.
 * Derived rows (quotas) are rewritten with it. Records an event.
 */
int gq__store_put_object(struct gq_store *st, const struct gq_object *obj, const char *spec,
                         int64_t now_ms, enum gq_put_result *result, gq_error *err);

/* Delete a queue object; GQ_ENOTFOUND if absent. Records an event. */
int gq__store_delete_object(struct gq_store *st, enum gq_kind kind, const char *ns,
                            const char *name, int64_t now_ms, gq_error *err);

/* Whether a queue object exists. */
bool gq__store_object_exists(struct gq_store *st, enum gq_kind kind, const char *ns,
                             const char *name);

/* The value of a WorkloadPriorityClass; GQ_ENOTFOUND if there is none of that name. */
int gq__store_priority_value(struct gq_store *st, const char *name, int32_t *out, gq_error *err);

/* -------------------------------------------------------------- workloads */

/* A workload as the store writes it: the decoded job plus what the store needs. */
struct gq_wl_write {
    const struct gq_object *obj; /* kind Job or Workload; meta.name is the job's name */
    const char *uid;             /* the job's UID */
    const char *name;            /* Kueue's workload name */
    const char *spec;            /* canonical Workload JSON */
    const char *admission;       /* JSON of status.admission, or NULL */
    const char *state;           /* initial state: pending, admitted or finished */
    const char *reason;          /* may be NULL */
    const char *message;         /* may be NULL */
    int32_t priority;            /* resolved priority */
    int64_t now_ms;
};

/*
 * Insert a workload. GQ_EEXISTS when a live workload has the same name or the
 * same job (kind, namespace, name). Records an event.
 */
int gq__store_insert_workload(struct gq_store *st, const struct gq_wl_write *w, gq_error *err);

/*
 * The pending workloads (of namespace ns; NULL: all) as (id, spec), by id;
 * fn's non-zero return stops the walk and is returned. Then one's pod set
 * requests and inadmissible message written again from wl (the stored spec
 * decoded and adjusted anew: its requests, pods, gpus), when they changed
 * and it is still pending; *changed says whether they did.
 */
typedef int (*gq__pending_spec_fn)(int64_t id, const char *spec, void *payload);
int gq__store_pending_specs(struct gq_store *st, const char *ns, gq__pending_spec_fn fn,
                            void *payload, gq_error *err);
int gq__store_set_requests(struct gq_store *st, int64_t id, const struct gq_workload *wl,
                           bool *changed, gq_error *err);

/*
 * Replace a live workload's spec for apply: unchanged when spec is identical;
 * configured (spec, requests, queue and priority rewritten) when the workload
 * is still pending; GQ_ECONFLICT when it holds quota or has ended.
 */
int gq__store_update_workload(struct gq_store *st, const struct gq_wl_write *w,
                              enum gq_put_result *result, gq_error *err);

/*
 * Find the live workload of a job (kind, namespace, job name); fills uid_out
 * and spec_out (malloc'd, may be NULL to skip). GQ_ENOTFOUND if none.
 */
int gq__store_find_job(struct gq_store *st, const char *kind, const char *ns,
                       const char *job_name, char **name_out, char **spec_out, gq_error *err);

/*
 * Cancel a live workload named by its workload name or its job name in ns:
 * pending, reserved or admitted ones become cancelled and their quota rows go,
 * in one statement guarded by the state, so quota is released exactly once.
 * *name_out gets the workload name (malloc'd), *from_state the state it left.
 * GQ_ENOTFOUND if no live workload matches; GQ_ECONFLICT if it already ended.
 */
int gq__store_cancel_workload(struct gq_store *st, const char *ns, const char *name,
                              int64_t now_ms, char **name_out, char **from_state,
                              gq_error *err);

/*
 * Deactivate a live workload (Kueue's spec.active false, kueuectl's stop
 * workload): a pending one stops waiting; one holding quota is evicted and
 * its quota, checks and requests released. GQ_ENOTFOUND; GQ_ECONFLICT when
 * it has ended or is deactivated already.
 */
int gq__store_stop_workload(struct gq_store *st, const char *ns, const char *name,
                            int64_t now_ms, char **name_out, gq_error *err);

/*
 * Reactivate a deactivated workload (Kueue's spec.active back to true): it
 * queues again from scratch. GQ_ENOTFOUND; GQ_ECONFLICT if not deactivated.
 */
int gq__store_reactivate_workload(struct gq_store *st, const char *ns, const char *name,
                                  int64_t now_ms, char **name_out, gq_error *err);

/* Record an event (append-only history). */
int gq__store_event(struct gq_store *st, const char *kind, const char *ns, const char *name,
                    const char *uid, const char *type, const char *reason, const char *message,
                    const char *from_state, const char *to_state, int64_t now_ms,
                    gq_error *err);

/*
 * A long-running writer (the engine) commits far more than a gpuq command:
 * truncating the WAL after every few commits would copy each page twice.
 * It raises the limit (frames; 0 restores the default) and truncates once
 * when it is done, so the next short-lived process opens a small WAL.
 */
void gq__store_set_wal_limit(struct gq_store *st, int frames);
void gq__store_checkpoint(struct gq_store *st);
/*
 * What another layer keeps for this connection (the engine's decoded specs,
 * engine_specs.c), freed with kept_free when the store closes. NULL: none.
 */
void *gq__store_kept(struct gq_store *st);
void gq__store_keep(struct gq_store *st, void *kept, void (*kept_free)(void *kept));

/*
 * The page cache, in KiB (0: the default 64 MiB). The engine keeps its own
 * snapshot and touches pages at random, so the OS page cache serves it as
 * well as SQLite's would: it runs with a small one and keeps its peak memory
 * down (the admission benchmark: 150 -> 89 MB, no slower).
 */
void gq__store_set_cache_kib(struct gq_store *st, int kib);

/* ----------------------------------------------------------------- clock */

/*
 * The database's clock (store_sim.c). Without a row time is the wall
 * clock; a simulation makes it virtual: now = virtual_ms + (wall now -
 * wall_ms) x speed, speed 0 while the runner steps it.
 */
struct gq_clock {
    int64_t wall_ms, virtual_ms;
    double speed;
    uint64_t rng;       /* the simulator's random state */
    int64_t runner_pid; /* 0: no runner */
};

/* The clock row; false (c zeroed) when there is none. */
bool gq__store_clock_get(struct gq_store *st, struct gq_clock *c);
int gq__store_clock_set(struct gq_store *st, const struct gq_clock *c, gq_error *err);

/* Now on the database's clock, in ms since the epoch. */
int64_t gq__store_now(struct gq_store *st);

/*
 * An admitted workload's pods run (the simulated kubelet, gpuqd's patch, or
 * a watch that saw the Job running): running from now, with its Started
 * event, the one record every path writes. GQ_ECONFLICT if not admitted.
 */
struct gq_started {
    int64_t id;
    const char *ns, *name, *uid;
    const char *message;  /* how it is known to run */
};
int gq__store_start(struct gq_store *st, const struct gq_started *w, int64_t now_ms,
                    gq_error *err);

/*
 * A running workload's job completed: finished, its quota released, its
 * requests deleted, its checks kept. GQ_ECONFLICT if it was not running.
 */
int gq__store_finish(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err);

/*
 * The simulated cluster's books (nodes.h, schema 0008): a node or a pod
 * written (inserted the first time, its id set; then its end and place
 * updated), and the live ones read back by a restarted runner.
 */
struct gq_node;
struct gq_pod;
struct gq_books;
int gq__store_node_save(struct gq_store *st, struct gq_node *n, const char *pool,
                        const char *flavor, gq_error *err);
int gq__store_pod_save(struct gq_store *st, struct gq_pod *p, int64_t node_id, gq_error *err);
int gq__store_books_load(struct gq_store *st, struct gq_books *b, gq_error *err);

/*
 * A simulation on a scratch database syncs only at the end (synchronous
 * OFF): a crash loses a run that can be run again, and a week of arrivals
 * takes seconds instead of minutes of fsync. FULL again before it returns.
 */
int gq__store_durable(struct gq_store *st, bool durable, gq_error *err);

/*
 * A simulation on a scratch database also commits its write transactions
 * in groups of txns (0: each alone again, the open group committed): each
 * is a savepoint inside the group's one BEGIN IMMEDIATE, so one that fails
 * still rolls back alone, and a crash leaves the database as the last
 * group's commit left it, consistent, only some steps shorter. Between
 * groups the lock is free for other writers.
 */
int gq__store_group(struct gq_store *st, int txns, gq_error *err);

/* No workloads, no clock, no books: a simulation may set the clock's start. */
bool gq__store_sim_fresh(struct gq_store *st);

/* What the provider says of a request: its status JSON and its own record. */
int gq__store_provreq_status(struct gq_store *st, int64_t id, const char *status,
                             const char *record, gq_error *err);

/* ---------------------------------------------------------------- engine */

/* PRAGMA data_version: changes when another connection commits. -1 on error. */
int64_t gq__store_data_version(struct gq_store *st);

struct gq_reserve_use {
    const char *flavor, *resource;
    int64_t amount;
};

/* Quota reserved for a pending workload (store_engine.c). */
struct gq_reserve {
    int64_t id;
    const char *state;           /* reserved | admitted */
    const char *cluster_queue;
    const char *admission;       /* JSON of status.admission */
    const struct gq_reserve_use *use;
    size_t nuse;
    int64_t now_ms;
};

/*
 * Reserve quota for a pending workload: state, admission and usage rows.
 * GQ_ECONFLICT when the workload is no longer pending.
 */
int gq__store_reserve(struct gq_store *st, const struct gq_reserve *r, gq_error *err);

/*
 * Take a workload's quota back and make it pending again, recording the
 * eviction. GQ_ECONFLICT when it holds no quota any more.
 */
int gq__store_evict(struct gq_store *st, int64_t id, const char *reason, const char *message,
                    const char *preempted_reason, int64_t requeue_at, int64_t now_ms,
                    gq_error *err);

/*
 * An admission check rejected a workload holding quota: deactivated (spec
 * active false), quota and requests released, the check states kept.
 * GQ_ECONFLICT when it holds no quota.
 */
int gq__store_deactivate(struct gq_store *st, int64_t id, const char *reason, const char *message,
                         int64_t now_ms, gq_error *err);

/*
 * waitForPodsReady (store_engine.c, schema/0015_pods_ready.sql). A workload
 * admitted or running has its pods all ready or not: its PodsReady
 * condition moves as Kueue's job reconciler moves it (*changed says
 * whether it did). Other states: nothing.
 */
int gq__store_pods_ready(struct gq_store *st, int64_t id, bool ready, int64_t now_ms,
                         bool *changed, gq_error *err);

/*
 * The simulated cluster, where running means every pod ready: a running
 * workload with no PodsReady condition (it started before waitForPodsReady
 * was on) gets Started, at its start.
 */
int gq__store_pods_ready_running(struct gq_store *st, gq_error *err);

/* status.requeueState.count and the queue-order time after a PodsReady timeout. */
int gq__store_requeue_state(struct gq_store *st, int64_t id, int32_t count, int64_t queued_at,
                            gq_error *err);

/*
 * The earliest PodsReady deadline of the admitted workloads whose pods are
 * not ready: admitted_at + timeout_ms, or, waiting for recovery, the
 * condition's time + recovery_ms (0: none). *next 0 when there is none.
 */
int gq__store_pods_ready_due(struct gq_store *st, int64_t timeout_ms, int64_t recovery_ms,
                             int64_t *next, gq_error *err);

/*
 * Flavor fallback: a workload's failed provisioning attempts per flavor,
 * JSON {"flavor": attempts}, or NULL when there are none (any state).
 */
int gq__store_set_failed_flavors(struct gq_store *st, int64_t id, const char *json,
                                 gq_error *err);

/* The request's current status has been turned into its check's state. */
int gq__store_provreq_synced(struct gq_store *st, int64_t id, gq_error *err);

/* A check's retryCount (0 when the workload has no such check). */
int gq__store_check_retries(struct gq_store *st, int64_t workload_id, const char *name,
                            int32_t *out, gq_error *err);

/* Why a pending workload waits. GQ_ECONFLICT when it is no longer pending. */
int gq__store_set_reason(struct gq_store *st, int64_t id, const char *reason, const char *message,
                         gq_error *err);

/* What becomes of a workload's checks when it lets go of its quota. */
enum gq_checks_after {
    GQ_CHECKS_RESET, /* an eviction: back to Pending (Retry counts one more retry) */
    GQ_CHECKS_DROP,  /* it ended */
    GQ_CHECKS_KEEP,  /* deactivated: the rejection stays visible */
};

/* A workload let go of its quota: its live ProvisioningRequests are marked deleted. */
int gq__store_release_checks(struct gq_store *st, int64_t workload_id,
                             enum gq_checks_after after, int64_t now_ms, gq_error *err);

/* Reserved -> admitted, every check Ready. GQ_ECONFLICT if it is not reserved. */
int gq__store_checks_ready(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err);

/* Why a workload that holds quota is not admitted yet (any state). */
int gq__store_set_note(struct gq_store *st, int64_t id, const char *reason, const char *message,
                       gq_error *err);

/* A workload's admission check state (status.admissionChecks[]), created or updated. */
int gq__store_set_check(struct gq_store *st, int64_t workload_id, const char *name,
                        const char *state, const char *message, int64_t now_ms, gq_error *err);

struct gq_provreq_row {
    const char *uid, *namespace, *name;
    int64_t workload_id;
    const char *check;
    int32_t attempt;
    const char *class_name;
    const char *spec;      /* the ProvisioningRequest's JSON */
    const char *templates; /* its PodTemplates' JSON array */
    int64_t now_ms;
};

/* Record a new ProvisioningRequest. GQ_EIO (a constraint) if one of that name is live. */
int gq__store_insert_provreq(struct gq_store *st, const struct gq_provreq_row *r, gq_error *err);

/* ------------------------------------------------------------------ reads */

/* ------------------------------------------------------------ cluster mode */

/* The Job of workload id as last observed: its resourceVersion, whether suspended. */
int gq__store_kube_seen(struct gq_store *st, int64_t id, const char *rv, bool suspended,
                        gq_error *err);

/* A watch says the Job is gone: the next step confirms it with a GET. */
int gq__store_kube_gone(struct gq_store *st, int64_t id, gq_error *err);

/*
 * End a live workload whose Job finished, was deleted or left its queue:
 * state `to` (finished or cancelled), quota and checks released, its
 * requests marked deleted; all in one transition guarded by the state, so
 * *closed is true exactly once.
 */
int gq__store_kube_close(struct gq_store *st, int64_t id, const char *to, const char *reason,
                         const char *message, int64_t now_ms, bool *closed, gq_error *err);

/* A request's life in the cluster: kube "created" (with its uid) or "gone". */
int gq__store_kube_provreq(struct gq_store *st, int64_t id, const char *kube, const char *uid,
                           gq_error *err);

/* A side effect the API server refused (a 4xx other than 409 and 429). */
struct gq_kube_refusal {
    const char *reason;     /* ReleaseRefused, SuspendRefused, CreateRefused */
    const char *message;    /* the call and the server's answer */
    int64_t now_ms;
    int tries;              /* out: refusals in a row, this one included */
    int64_t retry_at;       /* out: when the outbox may try again (store ms) */
};

/*
 * Record a refusal for workload id with the Job's current resourceVersion:
 * the outbox tries again at f->retry_at (1 s doubling to 5 min), or at once
 * when the Job changes; the first refusal of a run stays as its start.
 */
int gq__store_kube_refused(struct gq_store *st, int64_t id, struct gq_kube_refusal *f,
                           gq_error *err);

/* A side effect for workload id went through: its refusals are forgotten. */
int gq__store_kube_cleared(struct gq_store *st, int64_t id, gq_error *err);

/* A live request's status as the API server has it (the engine's check sync reads it). */
int gq__store_kube_provreq_status(struct gq_store *st, const char *ns, const char *name,
                                  const char *uid, const char *status, gq_error *err);

/*
 * The one error for a file whose contents are not what gpuq wrote (SQLite's
 * corruption codes, a NULL or a type where the schema allows none, stored
 * JSON that does not parse): GQ_EIO, "database PATH is damaged (DETAIL); run
 * gpuqd --check". DETAIL names the table, row and column where known.
 */
int gq__store_damaged(struct gq_store *st, gq_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * While stop is not NULL, any statement on st is interrupted (SQLITE_INTERRUPT,
 * GQ_EIO) once *stop is non-zero; NULL removes the watch (store_sim.c).
 */
void gq__store_watch_stop(struct gq_store *st, volatile sig_atomic_t *stop);

#endif
