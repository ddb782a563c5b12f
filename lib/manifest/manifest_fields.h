/*
 * manifest_fields.h: the one description of every kind's fields that the
 * manifest decoder, the encoder and the defaults share. Private to the
 * manifest_*.c files.
 *
 * A kind is a table of fields (struct gq__mf_field), each naming its JSON key,
 * the API versions that spell it so, its type, where it lives in the kind's
 * model struct, and its default, limits and allowed values. Nested JSON
 * objects that the model flattens (flavorFungibility, preemption, ...) are
 * sub-tables on the same base; lists of structs are sub-tables on each
 * element. A field spelt differently in v1beta1 is two rows writing the same
 * member, one per version; the encoder writes only the v1beta2 rows, which is
 * how "two spellings, one encoding" holds by construction. Cross-field rules
 * that a table cannot say live in per-table and per-kind hooks.
 */
#ifndef GQ_MANIFEST_FIELDS_H
#define GQ_MANIFEST_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "model.h"

/* The API versions a document may be written in, one bit each. */
enum {
    GQ_MF_V1 = 1u << 0, /* v1: core Namespace, batch Job */
    GQ_MF_V1ALPHA1 = 1u << 1,
    GQ_MF_V1BETA1 = 1u << 2,
    GQ_MF_V1BETA2 = 1u << 3,
};
#define GQ_MF_B1 GQ_MF_V1BETA1
#define GQ_MF_B2 GQ_MF_V1BETA2
#define GQ_MF_ANY 0xffu

/* Field types: how the JSON value maps onto the member at `off`. */
enum gq_mf_type {
    GQ_MF_STRING,   /* char *, optionally checked by `check` */
    GQ_MF_ENUM,     /* char *, the canonical spelling from `enums` */
    GQ_MF_BOOL,     /* bool */
    GQ_MF_INT32,    /* int32_t; `aux` is a bool has_ member if GQ_MF_HAS */
    GQ_MF_INT64,    /* int64_t; likewise */
    GQ_MF_QUANTITY, /* gq_quantity; likewise */
    GQ_MF_DURATION, /* int64_t seconds, from Go duration text ("5m0s") */
    GQ_MF_DURATION_MS, /* int64_t ms (gq__parse_duration_ms), written as Go text; HAS allowed */
    GQ_MF_STRS,     /* struct gq_strs; items checked by `check` or `enums` */
    GQ_MF_KVS,      /* struct gq_kvs; keys by `check`, values by `check_value` */
    GQ_MF_STRUCT,   /* a nested JSON object whose fields `sub` maps onto the same base */
    GQ_MF_LIST,     /* array of `sub` elements: pointer at `off`, size_t count at `aux` */
    GQ_MF_SELECTOR, /* metav1.LabelSelector kept as canonical JSON text (char *) */
    GQ_MF_RAW,      /* any JSON kept verbatim as canonical text {"name": value} (char *) */
};

/* Field flags. */
enum {
    GQ_MF_REQUIRED = 1u << 0, /* absent => "PATH: required" */
    GQ_MF_NONNEG = 1u << 1,   /* numbers and quantities must be >= 0 */
    GQ_MF_HAS = 1u << 2,      /* optional scalar: `aux` is its bool has_ member */
    GQ_MF_SCALAR = 1u << 3,   /* list items are scalars decoded into the element's first field */
    GQ_MF_PRESENCE = 1u << 4, /* struct: its presence sets the bool at `aux`; encode only if set */
    GQ_MF_UNIQUE = 1u << 5,   /* strs: a repeated item is an error */
    GQ_MF_POSITIVE = 1u << 6, /* numbers must be >= 1 */
    /*
     * Accepted and kept, but gpuq does not act on it (yet): given in a
     * document (a bool: given true; a block with an `enable` bool: enabled),
     * its path is noted as not enforced, for apply's warning and describe's
     * "Not enforced:" line.
     */
    GQ_MF_NOT_ENFORCED = 1u << 7,
};

/* One allowed spelling of an enumeration and what it means. */
struct gq__mf_enum {
    const char *text;  /* as written; NULL ends the table */
    const char *canon; /* the value stored (NULL: same as text) */
    unsigned vers;     /* versions that accept this spelling */
};

/* A string rule with the signature of the gpuqueue/validate.h checks. */
typedef int (*gq__mf_check_fn)(const char *s, gq_error *err);

struct gq__mf_schema;

struct gq__mf_field {
    const char *name; /* JSON key */
    unsigned vers;    /* versions that spell the field this way */
    enum gq_mf_type type;
    unsigned flags;
    size_t off;                  /* member in the base struct (unused for GQ_MF_STRUCT) */
    size_t aux;                  /* has_ flag, list count, or presence flag, per type and flags */
    size_t min, max;             /* item counts for lists, strs and kvs; max length for strings */
    int64_t idef;                /* default of bools, integers and durations */
    const char *sdef;            /* default of strings, enums and quantities (NULL: none) */
    gq__mf_check_fn check;       /* string, item or key rule */
    gq__mf_check_fn check_value; /* kvs value rule */
    const struct gq__mf_enum *enums;
    const struct gq__mf_schema *sub;
};

struct gq__mf_ctx;

/* A table of fields, for one struct or one list element. */
struct gq__mf_schema {
    const struct gq__mf_field *fields;
    size_t nfields;
    size_t size; /* of one element when used by a list */
    /* Cross-field rules for one decoded element (may be NULL). */
    int (*check)(struct gq__mf_ctx *c, void *base);
};

/* Kind flags. */
enum {
    GQ_MF_NAMESPACED = 1u << 0,
    GQ_MF_NAME_OPTIONAL = 1u << 1, /* Configuration: metadata.name may be absent */
    GQ_MF_NAME_LABEL = 1u << 2,    /* Namespace: the name is a DNS-1123 label */
};

/* One kind gpuq models. */
struct gq__mf_kind {
    enum gq_kind kind;
    const char *group; /* "" for the core group */
    const char *name;  /* Kind */
    unsigned vers;     /* versions gpuq reads */
    unsigned flags;
    const char *spec; /* "spec", or NULL when the fields sit at the document root */
    const char *encode_api_version;
    const struct gq__mf_schema *schema; /* NULL: decode and encode are custom */
    /* Rules that need the JSON (pre) or the decoded struct (post); may be NULL. */
    int (*pre)(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
    int (*post)(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
    /* Custom decoding of the whole body (Job, Workload); may be NULL. */
    int (*decode)(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj);
};

struct gq_integration;

/* Decoding state: the document's version, the error, and the current field path. */
struct gq__mf_ctx {
    unsigned version; /* one GQ_MF_V* bit */
    const struct gq_integration *integ; /* the row of a kind of the integration table */
    const struct gq_object *runtimes;   /* the ClusterTrainingRuntimes a TrainJob may name */
    size_t nruntimes;
    gq_error *err;
    struct gq_strs *not_enforced; /* where GQ_MF_NOT_ENFORCED fields given are noted; NULL: not */
    size_t len;     /* strlen(path) */
    char path[384]; /* "spec.resourceGroups[0].flavors[1]", cut short if longer */
};

#define GQ_MF_TEXT_BUFSIZE 80

/* The kinds table and lookup by group and Kind (NULL if gpuq does not model it). */
const struct gq__mf_kind *gq__mf_kind_find(const char *group, const char *kind);
const struct gq__mf_kind *gq__mf_kind_of(enum gq_kind kind);

/* Field path: push returns a mark that pop restores. */
size_t gq__mf_push(struct gq__mf_ctx *c, const char *name);
size_t gq__mf_push_index(struct gq__mf_ctx *c, size_t i);
void gq__mf_pop(struct gq__mf_ctx *c, size_t mark);

/* Errors at the current path; all return the code they set. */
int gq__mf_fail(struct gq__mf_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gq__mf_invalid(struct gq__mf_ctx *c, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gq__mf_required(struct gq__mf_ctx *c);
int gq__mf_nomem(struct gq__mf_ctx *c);
/* Put the path in front of a message a validator or the quantity parser wrote. */
int gq__mf_wrap(struct gq__mf_ctx *c, int rc);

/* A short text for a JSON value in a message (a scalar's original text). */
const char *gq__mf_text(json_object *v, char buf[GQ_MF_TEXT_BUFSIZE]);

/* Typed reads of one JSON value at the current path. */
int gq__mf_object(struct gq__mf_ctx *c, json_object *v);
int gq__mf_array(struct gq__mf_ctx *c, json_object *v);
int gq__mf_string(struct gq__mf_ctx *c, json_object *v, const char **out);
int gq__mf_strdup(struct gq__mf_ctx *c, json_object *v, gq__mf_check_fn check, char **out);
int gq__mf_int(struct gq__mf_ctx *c, json_object *v, int64_t min, int64_t max, int64_t *out);
int gq__mf_bool(struct gq__mf_ctx *c, json_object *v, bool *out);
int gq__mf_quantity(struct gq__mf_ctx *c, json_object *v, bool nonneg, gq_quantity *out);
int gq__mf_kvs(struct gq__mf_ctx *c,
               json_object *v,
               const struct gq__mf_field *f,
               struct gq_kvs *out);
/* The member of obj at key, or NULL when absent or null. */
json_object *gq__mf_get(json_object *obj, const char *key);
/*
 * The member at a dotted path (len bytes of it) below v, or NULL when any
 * step is absent; with create, the absent steps are made (objects).
 */
json_object *gq__mf_path(json_object *v, const char *path, size_t len, bool create);

/* Append a copy of text to s (manifest_unknown.c). */
int gq__mf_strs_add(struct gq__mf_ctx *c, struct gq_strs *s, const char *text);

/*
 * Append to out the path of every key of the document root that the API of
 * its kind does not know (manifest_known.h), as the API server names them
 * ("spec.resourceGroups[0].bogus"); kinds no schema here describes are not
 * checked. Runs with an empty path in c. GQ_OK or GQ_ENOMEM.
 */
int gq__mf_unknown_fields(struct gq__mf_ctx *c, json_object *root, const struct gq__mf_kind *k,
                          const char *api_version, struct gq_strs *out);

/* strcmp for qsort over an array of const char *. */
int gq__mf_strcmp_ptr(const void *a, const void *b);

/* A copy of v with every object's keys sorted (NULL on ENOMEM); caller puts it. */
json_object *gq__mf_canonical_copy(json_object *v);

/* Decode obj (NULL when absent) onto base with a table, filling defaults. */
int gq__mf_decode_fields(struct gq__mf_ctx *c,
                         const struct gq__mf_schema *s,
                         json_object *obj,
                         void *base);

/* Quantity arithmetic that quantity.h does not offer; false on overflow. */
bool gq__mf_quantity_add(gq_quantity *sum, const gq_quantity *q);

/*
 * The longest duration a manifest field, an annotation or a flag may give:
 * 100 years (36525 days, "876600h"). Longer than anything a job or a queue
 * means, and far enough below INT64_MAX milliseconds that a time plus a
 * duration always fits: "9223372036854775s" used to be accepted and then
 * overflowed the clock that adds it.
 */
#define GQ_MF_DURATION_MAX_MS (INT64_C(36525) * 24 * 3600 * 1000)
#define GQ_MF_DURATION_MAX_TEXT "876600h (100 years)"

/* Durations: Go text ("1h30m", "90s", "500ms") to seconds (rounded up), and back ("1h30m0s"). */
int gq__mf_duration_parse(int64_t *out, const char *s);
void gq__mf_duration_format(char *buf, size_t size, int64_t seconds);

/* The per-kind rules and custom decoders (manifest_rules.c, manifest_workload.c). */
int gq__mf_cq_pre(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_cq_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_cohort_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_flavor_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_node_pool_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_config_post(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj);
int gq__mf_prc_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_mk_cluster_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_toleration_check(struct gq__mf_ctx *c, void *base);
int gq__mf_selector(struct gq__mf_ctx *c, json_object *v, char **out);
int gq__mf_check_param_value(const char *s, gq_error *err);
int gq__mf_decode_job(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj);
/* LimitRange, RuntimeClass, resources.transformations; requests adjusted (manifest_adjust.c). */
int gq__mf_limit_range_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
int gq__mf_runtime_class_post(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj);
int gq__mf_transformations_check(struct gq__mf_ctx *c, json_object *root);
int gq__mf_pod_requests(struct gq__mf_ctx *c, json_object *pspec, struct gq_podset *ps);
/* The Integration kind's rules (manifest_integration.c). */
int gq__mf_check_integ_path(const char *s, gq_error *err);
int gq__mf_check_integ_expr(const char *s, gq_error *err);
int gq__mf_check_integ_key(const char *s, gq_error *err);
int gq__mf_check_integ_kind(const char *s, gq_error *err);
int gq__mf_check_integ_finished(const char *s, gq_error *err);
int gq__mf_integ_podset_check(struct gq__mf_ctx *c, void *base);
int gq__mf_integration_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj);
/* A kind of the integration table (c->integ), manifest_integration.c. */
int gq__mf_decode_integration(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj);
/* The parts every kind of job shares (manifest_workload.c). */
int gq__mf_job_meta(struct gq__mf_ctx *c, const char *kind, struct gq_object *obj);
int gq__mf_job_finish(struct gq__mf_ctx *c, struct gq_object *obj);
int gq__mf_pod_template(struct gq__mf_ctx *c, json_object *tmpl, struct gq_podset *ps);
int gq__mf_decode_workload(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj);

/* Encoding a table's fields into out, and the custom workload encoder. */
json_object *gq__mf_encode_kvs(const struct gq_kvs *kvs); /* keys sorted */
int gq__mf_encode_fields(json_object *out, const struct gq__mf_schema *s, const void *base);

#endif
