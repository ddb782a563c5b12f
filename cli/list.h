/*
 * list.h: what `gpuq list`'s files share (cmd_list.c builds and prints a
 * listing; list_watch.c prints its changes for -w): the lister, which
 * holds one listing being built, and the selection kubectl's flags keep.
 */
#ifndef GQ_CLI_LIST_H
#define GQ_CLI_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

struct table;

#define MAX_COLS 18

struct lister {
    const struct global *g;
    gq_db *db;        /* local mode: where the rows come from */
    char *json;       /* cluster mode: the List the cluster answered (gq_free) */
    bool jobs;        /* cluster mode: json holds Jobs, not gpuqd's Workloads */
    char *ns;         /* cluster mode: the namespace listed (gq_free) */
    struct table *t;
    int64_t now_ms;
    bool wide;
    bool all_ns;
    bool names_only;
    const char *group; /* API group for -o name */
    const char *name;  /* the NAME argument (ProvisioningRequests, PodTemplates), or NULL */
    int rows;
    int failed;
    struct picks *pk; /* -l, --field-selector, --sort-by, -L, --show-labels: else NULL */
    bool watch;       /* -w: the listing, then a line per change */
    bool watch_only;  /* --watch-only: the changes alone */
    bool clusters;    /* a MultiKueue manager's database: workloads get a CLUSTER column */
};

/*
 * What kubectl's selection flags keep, in the order they print: the objects
 * are rendered as JSON and selected by the library (gq_get_items); a table's
 * rows, built as ever, are then kept in that order, with the label columns
 * added. Without those flags none of this runs.
 */
struct pick {
    char *key;       /* "namespace/name" ("/name" cluster-scoped) */
    char *labels;    /* "k=v,k=v" */
    size_t index;    /* the order to print in */
    char **cells;    /* the row, once built; NULL until then */
};

struct picks {
    gq_get_options o;
    const struct strlist *label_cols; /* -L keys (each may hold several, comma-separated) */
    bool show_labels;
    struct pick *v; /* in print order */
    struct pick **by_key;
    size_t n;
    int ncells; /* cells of a stored row */
};

/* list_build's return when it has printed the output itself (-o json, jsonpath, name ...). */
#define LIST_PRINTED 100

/*
 * One listing into l->t (a table of l->rows rows), from the database or
 * the List list_fetch got; LIST_PRINTED when the output format printed
 * it instead; else a failure, said. *namespaced_out: whether the resource
 * is namespaced.
 */
int list_build(struct lister *l, const char *resource, const gq_workload_filter *f,
               bool *namespaced_out);

/* Cluster mode: read the workloads afresh into l (f's namespace with them). */
int list_fetch(struct lister *l, gq_workload_filter *f);

/* -w: the listing (unless --watch-only), then the rows that change, until killed. */
int list_watch(struct lister *l, const char *resource, gq_workload_filter *f);

/*
 * Objects some other way got (list pods): printed here for -o json, yaml,
 * jsonpath and custom-columns (*kept_out NULL), else *kept_out the List of
 * those pk selects, in its order (free it), for the caller's own table.
 */
int list_pick_print(const struct global *g, const char *json, struct picks *pk, char **kept_out);

/* list pods --for TYPE/NAME (list_pods.c); pk NULL when no selection flag or printer needs it. */
int list_pods(const struct global *g, const char *for_spec, struct picks *pk);

/* Forget a listing's selection, for the next one (-w). */
void list_picks_reset(struct picks *pk);

/* "No resources found ..." on stderr, as kubectl says it. */
void list_no_resources(const struct lister *l, bool namespaced);

#endif
