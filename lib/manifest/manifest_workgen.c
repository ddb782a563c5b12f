/*
 * manifest_workgen.c: the manifest edge of workgen.c. It turns a
 * SimulationProfile document (YAML or JSON, through the manifest reader) into
 * a plain struct gq_wg_spec, and a JSON-lines trace into one list of
 * key/value texts per line, so that workgen.c stays free of json-c and
 * libyaml (house rule: one edge file per dependency).
 *
 * Only the shape is checked here: field names (an unknown one is an error,
 * since a misspelt `minWidht` silently taking a default would give another
 * day), JSON types, and the apiVersion and kind. What the values mean (ranges,
 * durations, quantities) is workgen.c's, so that the built-in profile goes
 * through the same checks. A profile is a few hundred bytes read once; a
 * trace can be 100,000 lines, so lines go straight to json-c's tokener (one,
 * reused) rather than through libyaml.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "error.h"
#include "manifest_fields.h"
#include "manifest_reader.h"
#include "util.h"
#include "workgen.h"

#define WG_API_VERSION "sim.gpuq.dev/v1alpha1"
#define WG_KIND "SimulationProfile"
#define WG_MAX_FIELDS 32 /* keys of one trace line, resources included */

/* ------------------------------------------------------------ profile */

struct pctx {
    const char *source;
    char path[160]; /* the field being decoded: "spec.phases[2].minWidth" */
    gq__wg_spec_fn cb;
    void *payload;
    int ndocs;
    gq_error *err;
};

static int fail(struct pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct pctx *c, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    return gq__error(c->err, GQ_EINVALID, "%s: %s%s%s", c->source, c->path, *c->path ? ": " : "",
                     why);
}

/*
 * Set the path to prefix + "." + key (or prefix + "[i]" when key is NULL),
 * cut to fit: it only names a place in messages. prefix never is c->path.
 */
static void at(struct pctx *c, const char *prefix, const char *key, size_t i)
{
    char idx[32];
    const char *parts[3] = {prefix, key && *prefix ? "." : "", key ? key : idx};
    size_t n = 0, k, len;

    snprintf(idx, sizeof(idx), "[%zu]", i);
    for (k = 0; k < 3; k++) {
        len = strlen(parts[k]);
        if (len > sizeof(c->path) - 1 - n)
            len = sizeof(c->path) - 1 - n;
        memcpy(c->path + n, parts[k], len);
        n += len;
    }
    c->path[n] = '\0';
}

static int wrong_type(struct pctx *c, json_object *v, const char *want)
{
    char buf[GQ_MF_TEXT_BUFSIZE], q[GQ_QUOTE_BUFSIZE];
    const char *t = gq__mf_text(v, buf);

    return fail(c, "invalid value %s: must be %s", gq__quote(q, t, strlen(t)), want);
}

/* Every key of obj (a JSON object, else an error) must be one of `known` (NULL-terminated). */
static int check_keys(struct pctx *c, json_object *obj, const char *const *known)
{
    char base[sizeof(c->path)];
    size_t i;

    if (!json_object_is_type(obj, json_type_object))
        return wrong_type(c, obj, "an object");
    memcpy(base, c->path, sizeof(base));
    json_object_object_foreach(obj, key, val)
    {
        (void)val;
        for (i = 0; known[i] && strcmp(known[i], key) != 0; i++)
            ;
        if (!known[i]) {
            at(c, base, key, 0);
            return fail(c, "unknown field");
        }
    }
    return GQ_OK;
}

static int
get_str(struct pctx *c, json_object *obj, const char *prefix, const char *key, const char **out)
{
    json_object *v = gq__mf_get(obj, key);

    *out = NULL;
    if (!v || json_object_is_type(v, json_type_null))
        return GQ_OK;
    at(c, prefix, key, 0);
    if (!json_object_is_type(v, json_type_string))
        return wrong_type(c, v, "a string");
    *out = json_object_get_string(v);
    return GQ_OK;
}

/* A quantity or a duration: a string, or a number kept as written ("1", "0.5", 30). */
static int scalar_text(struct pctx *c, json_object *v, const char **out)
{
    if (json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_int) ||
        json_object_is_type(v, json_type_double)) {
        *out = json_object_get_string(v);
        return GQ_OK;
    }
    return wrong_type(c, v, "a string or a number");
}

static int int_value(struct pctx *c, json_object *v, int64_t *out)
{
    if (!json_object_is_type(v, json_type_int))
        return wrong_type(c, v, "an integer");
    *out = json_object_get_int64(v);
    return GQ_OK;
}

static int
get_int(struct pctx *c, json_object *obj, const char *prefix, const char *key, int64_t *out)
{
    json_object *v = gq__mf_get(obj, key);

    *out = GQ_WG_UNSET;
    if (!v || json_object_is_type(v, json_type_null))
        return GQ_OK;
    at(c, prefix, key, 0);
    return int_value(c, v, out);
}

static int
decode_resources(struct pctx *c, json_object *res, const char *prefix, struct gq_wg_spec_podset *ps)
{
    int rc;

    at(c, prefix, "resources", 0);
    if (!json_object_is_type(res, json_type_object))
        return wrong_type(c, res, "an object");
    if (json_object_object_length(res) > GQ_WG_MAX_RESOURCES)
        return fail(c, "at most %d resources", GQ_WG_MAX_RESOURCES);
    json_object_object_foreach(res, key, val)
    {
        char base[sizeof(c->path)];

        snprintf(base, sizeof(base), "%s.resources", prefix);
        at(c, base, key, 0);
        ps->res[ps->nres] = key;
        if ((rc = scalar_text(c, val, &ps->qty[ps->nres])) != GQ_OK)
            return rc;
        ps->nres++;
    }
    return GQ_OK;
}

static int decode_count_range(struct pctx *c, json_object *v, struct gq_wg_spec_podset *ps)
{
    int rc;

    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 2)
        return wrong_type(c, v, "a list of two integers [min, max]");
    if ((rc = int_value(c, json_object_array_get_idx(v, 0), &ps->count_min)) != GQ_OK)
        return rc;
    return int_value(c, json_object_array_get_idx(v, 1), &ps->count_max);
}

static int
decode_podset(struct pctx *c, json_object *o, const char *prefix, struct gq_wg_spec_podset *ps)
{
    static const char *const known[] = {"name", "count", "countRange", "resources", NULL};
    json_object *v;
    int rc;

    snprintf(c->path, sizeof(c->path), "%s", prefix);
    ps->count_min = ps->count_max = GQ_WG_UNSET;
    if ((rc = check_keys(c, o, known)) != GQ_OK ||
        (rc = get_str(c, o, prefix, "name", &ps->name)) != GQ_OK ||
        (rc = get_int(c, o, prefix, "count", &ps->count)) != GQ_OK)
        return rc;
    if ((v = gq__mf_get(o, "countRange")) && !json_object_is_type(v, json_type_null)) {
        at(c, prefix, "countRange", 0);
        if ((rc = decode_count_range(c, v, ps)) != GQ_OK)
            return rc;
    }
    if ((v = gq__mf_get(o, "resources")) && !json_object_is_type(v, json_type_null))
        return decode_resources(c, v, prefix, ps);
    return GQ_OK;
}

static int decode_cluster(struct pctx *c, json_object *list, struct gq_wg_spec *s)
{
    char prefix[64];
    size_t i;
    int rc;

    snprintf(c->path, sizeof(c->path), "spec.cluster");
    if (!json_object_is_type(list, json_type_array))
        return wrong_type(c, list, "a list of pod sets");
    if (json_object_array_length(list) > GQ_WG_MAX_PODSETS)
        return fail(c, "at most %d pod sets", GQ_WG_MAX_PODSETS);
    for (i = 0; i < json_object_array_length(list); i++) {
        snprintf(prefix, sizeof(prefix), "spec.cluster[%zu]", i);
        if ((rc = decode_podset(c, json_object_array_get_idx(list, i), prefix, &s->podsets[i])) !=
            GQ_OK)
            return rc;
        s->npodsets++;
    }
    return GQ_OK;
}

static int decode_phase(struct pctx *c, json_object *o, size_t i, struct gq_wg_phase *ph)
{
    static const char *const known[] = {"name",     "stages",    "minWidth",
                                        "maxWidth", "variation", NULL};
    char prefix[64];
    int rc;

    snprintf(prefix, sizeof(prefix), "spec.phases[%zu]", i);
    snprintf(c->path, sizeof(c->path), "%s", prefix);
    if ((rc = check_keys(c, o, known)) != GQ_OK ||
        (rc = get_str(c, o, prefix, "name", &ph->name)) != GQ_OK ||
        (rc = get_int(c, o, prefix, "stages", &ph->stages)) != GQ_OK ||
        (rc = get_int(c, o, prefix, "minWidth", &ph->min_width)) != GQ_OK ||
        (rc = get_int(c, o, prefix, "maxWidth", &ph->max_width)) != GQ_OK)
        return rc;
    return get_int(c, o, prefix, "variation", &ph->variation);
}

/* spec.phases into a malloc'd array at *out (the caller frees it). */
static int
decode_phases(struct pctx *c, json_object *list, struct gq_wg_spec *s, struct gq_wg_phase **out)
{
    size_t i, n;
    int rc;

    snprintf(c->path, sizeof(c->path), "spec.phases");
    if (!json_object_is_type(list, json_type_array))
        return wrong_type(c, list, "a list of phases");
    n = json_object_array_length(list);
    if (n && !(*out = calloc(n, sizeof(**out))))
        return gq__error(c->err, GQ_ENOMEM, "out of memory");
    for (i = 0; i < n; i++)
        if ((rc = decode_phase(c, json_object_array_get_idx(list, i), i, &(*out)[i])) != GQ_OK)
            return rc;
    s->phases = *out;
    s->nphases = n;
    return GQ_OK;
}

static int decode_run_time(struct pctx *c, json_object *o, struct gq_wg_spec *s)
{
    static const char *const known[] = {"min", "max", NULL};
    json_object *v;
    int rc;

    snprintf(c->path, sizeof(c->path), "spec.runTime");
    if ((rc = check_keys(c, o, known)) != GQ_OK)
        return rc;
    if ((v = gq__mf_get(o, "min")) && !json_object_is_type(v, json_type_null)) {
        at(c, "spec.runTime", "min", 0);
        if ((rc = scalar_text(c, v, &s->run_min)) != GQ_OK)
            return rc;
    }
    if ((v = gq__mf_get(o, "max")) && !json_object_is_type(v, json_type_null)) {
        at(c, "spec.runTime", "max", 0);
        return scalar_text(c, v, &s->run_max);
    }
    return GQ_OK;
}

static int
decode_spec(struct pctx *c, json_object *spec, struct gq_wg_spec *s, struct gq_wg_phase **phases)
{
    static const char *const known[] = {"namespace", "queue",   "priorityClass", "jobName",
                                        "cluster",   "runTime", "phases",        NULL};
    json_object *v;
    int rc;

    snprintf(c->path, sizeof(c->path), "spec");
    if ((rc = check_keys(c, spec, known)) != GQ_OK ||
        (rc = get_str(c, spec, "spec", "namespace", &s->ns)) != GQ_OK ||
        (rc = get_str(c, spec, "spec", "queue", &s->queue)) != GQ_OK ||
        (rc = get_str(c, spec, "spec", "priorityClass", &s->priority_class)) != GQ_OK ||
        (rc = get_str(c, spec, "spec", "jobName", &s->job_prefix)) != GQ_OK)
        return rc;
    if ((v = gq__mf_get(spec, "cluster")) && (rc = decode_cluster(c, v, s)) != GQ_OK)
        return rc;
    if ((v = gq__mf_get(spec, "runTime")) && (rc = decode_run_time(c, v, s)) != GQ_OK)
        return rc;
    if ((v = gq__mf_get(spec, "phases")) && (rc = decode_phases(c, v, s, phases)) != GQ_OK)
        return rc;
    return GQ_OK;
}

static int check_header(struct pctx *c, json_object *root, struct gq_wg_spec *s)
{
    static const char *const known[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    static const char *const meta_known[] = {"name", NULL};
    const char *api, *kind;
    json_object *meta = gq__mf_get(root, "metadata");
    int rc;

    *c->path = '\0';
    if ((rc = check_keys(c, root, known)) != GQ_OK ||
        (rc = get_str(c, root, "", "apiVersion", &api)) != GQ_OK ||
        (rc = get_str(c, root, "", "kind", &kind)) != GQ_OK)
        return rc;
    at(c, "", "apiVersion", 0);
    if (!api || strcmp(api, WG_API_VERSION) != 0)
        return fail(c, "must be " WG_API_VERSION);
    at(c, "", "kind", 0);
    if (!kind || strcmp(kind, WG_KIND) != 0)
        return fail(c, "must be " WG_KIND);
    if (meta) {
        at(c, "", "metadata", 0);
        if ((rc = check_keys(c, meta, meta_known)) != GQ_OK ||
            (rc = get_str(c, meta, "metadata", "name", &s->name)) != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

static int on_profile(const struct gq__doc *doc, void *payload, gq_error *err)
{
    struct pctx *c = payload;
    struct gq_wg_spec s;
    struct gq_wg_phase *phases = NULL;
    json_object *spec;
    int rc;

    (void)err;
    memset(&s, 0, sizeof(s));
    if (++c->ndocs > 1) {
        *c->path = '\0';
        return fail(c, "document %d: a profile is one SimulationProfile document", doc->index);
    }
    if ((rc = check_header(c, doc->root, &s)) != GQ_OK)
        goto out;
    spec = gq__mf_get(doc->root, "spec");
    snprintf(c->path, sizeof(c->path), "spec");
    if (!spec || json_object_is_type(spec, json_type_null)) {
        rc = fail(c, "required");
        goto out;
    }
    if ((rc = decode_spec(c, spec, &s, &phases)) != GQ_OK)
        goto out;
    rc = c->cb(&s, c->payload, c->err);
out:
    free(phases);
    return rc;
}

int gq__manifest_wg_profile(const char *text,
                            size_t len,
                            const char *source,
                            gq__wg_spec_fn cb,
                            void *payload,
                            gq_error *err)
{
    struct pctx c = {
        .source = source ? source : "profile", .cb = cb, .payload = payload, .err = err};
    int rc;

    if ((rc = gq__manifest_read(text, len, c.source, on_profile, &c, err)) != GQ_OK)
        return rc;
    if (!c.ndocs)
        return gq__error(err, GQ_EINVALID, "%s: no SimulationProfile document", c.source);
    return GQ_OK;
}

/* ------------------------------------------------------------- traces */

struct lctx {
    const char *source;
    long line;
    struct gq_wg_field f[WG_MAX_FIELDS];
    size_t n;
    gq_error *err;
};

static int line_fail(struct lctx *c, const char *key, json_object *v, const char *why)
{
    char buf[GQ_MF_TEXT_BUFSIZE], q[GQ_QUOTE_BUFSIZE];
    const char *t = v ? gq__mf_text(v, buf) : NULL;

    if (!key)
        return gq__error(c->err, GQ_EINVALID, "%s:%ld: %s", c->source, c->line, why);
    if (!t)
        return gq__error(c->err, GQ_EINVALID, "%s:%ld: %s: %s", c->source, c->line, key, why);
    return gq__error(c->err, GQ_EINVALID, "%s:%ld: %s: invalid value %s: %s", c->source, c->line,
                     key, gq__quote(q, t, strlen(t)), why);
}

static bool is_scalar(json_object *v)
{
    return json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_int) ||
           json_object_is_type(v, json_type_double);
}

static int add_field(struct lctx *c, const char *key, json_object *v, int resource)
{
    if (c->n == WG_MAX_FIELDS)
        return line_fail(c, NULL, NULL, "too many keys");
    if (!is_scalar(v))
        return line_fail(c, key, v, "must be a string or a number");
    c->f[c->n].key = key;
    c->f[c->n].val = json_object_get_string(v);
    c->f[c->n].resource = resource;
    c->n++;
    return GQ_OK;
}

/* The keys of one record; `resources` flattened. Null values count as absent. */
static int collect(struct lctx *c, json_object *obj)
{
    int rc;

    c->n = 0;
    json_object_object_foreach(obj, key, val)
    {
        if (!val || json_object_is_type(val, json_type_null))
            continue;
        if (strcmp(key, "resources") != 0) {
            if ((rc = add_field(c, key, val, 0)) != GQ_OK)
                return rc;
            continue;
        }
        if (!json_object_is_type(val, json_type_object))
            return line_fail(c, key, val, "must be an object of per-pod quantities");
        json_object_object_foreach(val, rkey, rval)
        {
            if ((rc = add_field(c, rkey, rval, 1)) != GQ_OK)
                return rc;
        }
    }
    return GQ_OK;
}

static int parse_line(
    struct lctx *c, json_tokener *tok, const char *p, size_t n, gq__wg_record_fn cb, void *payload)
{
    json_object *obj;
    int rc;

    json_tokener_reset(tok);
    obj = json_tokener_parse_ex(tok, p, (int)n);
    if (!obj || json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != n) {
        enum json_tokener_error e = json_tokener_get_error(tok);
        char why[160];

        if (obj && e == json_tokener_success)
            snprintf(why, sizeof(why), "invalid JSON: more than one value on the line");
        else
            snprintf(why, sizeof(why), "invalid JSON: %s",
                     e == json_tokener_continue ? "unexpected end of line"
                                                : json_tokener_error_desc(e));
        json_object_put(obj);
        return line_fail(c, NULL, NULL, why);
    }
    if (!json_object_is_type(obj, json_type_object))
        rc = line_fail(c, NULL, NULL, "a line must be one JSON object");
    else if ((rc = collect(c, obj)) == GQ_OK)
        rc = cb(c->f, c->n, c->line, payload, c->err);
    json_object_put(obj);
    return rc;
}

/* Blank, or a '#' comment (as in CSV traces). */
static bool blank(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'); i++)
        ;
    return i == n || p[i] == '#';
}

int gq__manifest_wg_jsonl(const char *text,
                          size_t len,
                          const char *source,
                          gq__wg_record_fn cb,
                          void *payload,
                          gq_error *err)
{
    struct lctx c = {.source = source ? source : "trace", .err = err};
    json_tokener *tok = json_tokener_new();
    size_t pos = 0;
    int rc = GQ_OK;

    if (!tok)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    while (pos < len && rc == GQ_OK) {
        const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;

        pos += n + (nl ? 1 : 0);
        c.line++;
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (blank(p, n))
            continue;
        if (n > INT32_MAX) {
            rc = line_fail(&c, NULL, NULL, "line too long");
            break;
        }
        rc = parse_line(&c, tok, p, n, cb, payload);
    }
    json_tokener_free(tok);
    return rc;
}
