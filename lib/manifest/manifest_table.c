/*
 * manifest_table.c: the generic walk of a field table (manifest_fields.h)
 * over a JSON object: each row reads its key, checks type, limits and allowed
 * values, stores the result in the model struct, or fills the default when
 * the key is absent or null. Nested structs recurse on the same base; lists
 * allocate their elements and recurse on each.
 *
 * Invariant kept for gq__object_clear: a list's count is set as soon as its
 * zeroed elements are allocated, so an error half-way leaves nothing unowned.
 *
 * Also here: the two bits of arithmetic the tables need, Go durations and
 * quantity addition.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "error.h"
#include "manifest_fields.h"
#include "util.h"

#define MEMBER(base, off, type) ((type *)(void *)((char *)(base) + (off)))

static int
decode_value(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base);

/* ------------------------------------------------------------ enumerations */

static const char *enum_lookup(const struct gq__mf_enum *e, const char *s, unsigned version)
{
    for (; e->text; e++)
        if ((e->vers & version) && !strcmp(e->text, s))
            return e->canon ? e->canon : e->text;
    return NULL;
}

/* "must be one of ...", plus a hint when s is another version's spelling. */
static int enum_error(struct gq__mf_ctx *c, const struct gq__mf_enum *enums, const char *s)
{
    char list[256], hint[128] = "";
    const struct gq__mf_enum *e;
    size_t n = 0;

    list[0] = '\0';
    for (e = enums; e->text && n < sizeof(list); e++) {
        if (!(e->vers & c->version))
            continue;
        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s\"%s\"", n ? ", " : "", e->text);
    }
    for (e = enums; e->text; e++)
        if (!(e->vers & c->version) && e->canon && !strcmp(e->text, s))
            snprintf(hint, sizeof(hint), " (\"%s\" is the old spelling of \"%s\")", e->text,
                     e->canon);
    return gq__mf_invalid(c, s, "must be one of %s%s", list, hint);
}

/* ------------------------------------------------------------ scalar rows */

static int
decode_string(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    char **dst = MEMBER(base, f->off, char *);
    const char *s, *canon;
    int rc;

    if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
        return rc;
    if (f->max && strlen(s) > f->max)
        return gq__mf_invalid(c, s, "must be no more than %zu characters", f->max);
    if (f->type == GQ_MF_ENUM) {
        if (!(canon = enum_lookup(f->enums, s, c->version)))
            return enum_error(c, f->enums, s);
        s = canon;
    } else if (f->check && (rc = f->check(s, c->err)) != GQ_OK) {
        return gq__mf_wrap(c, rc);
    }
    free(*dst);
    if (!(*dst = strdup(s)))
        return gq__mf_nomem(c);
    return GQ_OK;
}

static int
decode_number(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    int64_t min, max, x;
    int rc;

    max = f->type == GQ_MF_INT32 ? INT32_MAX : INT64_MAX;
    min = f->type == GQ_MF_INT32 ? INT32_MIN : INT64_MIN;
    if (f->flags & GQ_MF_NONNEG)
        min = 0;
    if (f->flags & GQ_MF_POSITIVE)
        min = 1;
    if ((rc = gq__mf_int(c, v, min, max, &x)) != GQ_OK)
        return rc;
    if (f->type == GQ_MF_INT32)
        *MEMBER(base, f->off, int32_t) = (int32_t)x;
    else
        *MEMBER(base, f->off, int64_t) = x;
    if (f->flags & GQ_MF_HAS)
        *MEMBER(base, f->aux, bool) = true;
    return GQ_OK;
}

/*
 * GQ_MF_DURATION: Go text only, kept in seconds. GQ_MF_DURATION_MS: what
 * gq__parse_duration_ms reads, so also a bare number of seconds, quoted or not.
 */
static int
decode_duration(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    int64_t *dst = MEMBER(base, f->off, int64_t);
    char buf[GQ_MF_TEXT_BUFSIZE];
    const char *s;
    bool ok;
    int rc;

    if (f->type == GQ_MF_DURATION_MS && json_object_is_type(v, json_type_int))
        s = gq__mf_text(v, buf);
    else if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
        return rc;
    ok = f->type == GQ_MF_DURATION ? gq__mf_duration_parse(dst, s) == GQ_OK
                                   : gq__parse_duration_ms(s, dst) == 0;
    if (!ok)
        return gq__mf_invalid(c, s,
                              "must be a duration of h, m, s and ms such as \"30m\", "
                              "\"1h30m\" or \"90s\", not negative");
    if (*dst > (f->type == GQ_MF_DURATION ? GQ_MF_DURATION_MAX_MS / 1000 : GQ_MF_DURATION_MAX_MS))
        return gq__mf_invalid(c, s, "must be at most " GQ_MF_DURATION_MAX_TEXT);
    if (f->flags & GQ_MF_HAS)
        *MEMBER(base, f->aux, bool) = true;
    return GQ_OK;
}

static int
decode_quantity(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    int rc = gq__mf_quantity(c, v, f->flags & GQ_MF_NONNEG, MEMBER(base, f->off, gq_quantity));

    if (rc == GQ_OK && (f->flags & GQ_MF_HAS))
        *MEMBER(base, f->aux, bool) = true;
    return rc;
}

/* ------------------------------------------------------------ collections */

static int count_ok(struct gq__mf_ctx *c, const struct gq__mf_field *f, size_t n)
{
    if (f->max && n > f->max)
        return gq__mf_fail(c, "too many: %zu: must have at most %zu items", n, f->max);
    if (n < f->min)
        return gq__mf_fail(c, "must have at least %zu item%s", f->min, f->min == 1 ? "" : "s");
    return GQ_OK;
}

static int check_item(struct gq__mf_ctx *c, const struct gq__mf_field *f, const char *s)
{
    int rc;

    if (f->enums && !enum_lookup(f->enums, s, c->version))
        return enum_error(c, f->enums, s);
    if (f->check && (rc = f->check(s, c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
    return GQ_OK;
}

static int
decode_strs(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    struct gq_strs *out = MEMBER(base, f->off, struct gq_strs);
    size_t i, j, n, mark;
    const char *s;
    int rc;

    if ((rc = gq__mf_array(c, v)) != GQ_OK)
        return rc;
    n = json_object_array_length(v);
    if ((rc = count_ok(c, f, n)) != GQ_OK)
        return rc;
    if (n && !(out->v = calloc(n, sizeof(*out->v))))
        return gq__mf_nomem(c);
    for (i = 0; i < n; i++) {
        mark = gq__mf_push_index(c, i);
        if ((rc = gq__mf_string(c, json_object_array_get_idx(v, i), &s)) != GQ_OK ||
            (rc = check_item(c, f, s)) != GQ_OK)
            return rc;
        for (j = 0; (f->flags & GQ_MF_UNIQUE) && j < i; j++)
            if (!strcmp(out->v[j], s))
                return gq__mf_invalid(c, s, "duplicate value");
        if (!(out->v[i] = strdup(s)))
            return gq__mf_nomem(c);
        out->n++;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

/* Defaults of every row after `from`, as if absent (v1beta1's scalar list items). */
static int fill_rest(struct gq__mf_ctx *c, const struct gq__mf_schema *s, size_t from, void *base);

static int
decode_element(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *item, void *elem)
{
    const struct gq__mf_schema *s = f->sub;
    int rc;

    if (!(f->flags & GQ_MF_SCALAR)) {
        if ((rc = gq__mf_object(c, item)) != GQ_OK)
            return rc;
        return gq__mf_decode_fields(c, s, item, elem);
    }
    if ((rc = decode_value(c, &s->fields[0], item, elem)) != GQ_OK)
        return rc;
    if ((rc = fill_rest(c, s, 1, elem)) != GQ_OK)
        return rc;
    return s->check ? s->check(c, elem) : GQ_OK;
}

static int
decode_list(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    void **ptr = MEMBER(base, f->off, void *);
    size_t *count = MEMBER(base, f->aux, size_t);
    size_t i, n, mark;
    int rc;

    if ((rc = gq__mf_array(c, v)) != GQ_OK)
        return rc;
    n = json_object_array_length(v);
    if ((rc = count_ok(c, f, n)) != GQ_OK || !n)
        return rc;
    if (!(*ptr = calloc(n, f->sub->size)))
        return gq__mf_nomem(c);
    *count = n;
    for (i = 0; i < n; i++) {
        mark = gq__mf_push_index(c, i);
        rc = decode_element(c, f, json_object_array_get_idx(v, i), (char *)*ptr + i * f->sub->size);
        if (rc != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

/* A JSON copy with every object's keys sorted, so equal values print equally. */
json_object *gq__mf_canonical_copy(json_object *v)
{
    struct json_object_iterator it, end;
    const char **keys;
    json_object *out;
    size_t i, n;

    if (json_object_is_type(v, json_type_array)) {
        n = json_object_array_length(v);
        if (!(out = json_object_new_array_ext((int)n)))
            return NULL;
        for (i = 0; i < n; i++)
            json_object_array_add(out, gq__mf_canonical_copy(json_object_array_get_idx(v, i)));
        return out;
    }
    if (!json_object_is_type(v, json_type_object))
        return json_object_get(v);
    n = (size_t)json_object_object_length(v);
    out = json_object_new_object();
    keys = malloc((n ? n : 1) * sizeof(*keys));
    if (!out || !keys) {
        json_object_put(out);
        free(keys);
        return NULL;
    }
    it = json_object_iter_begin(v);
    end = json_object_iter_end(v);
    for (i = 0; !json_object_iter_equal(&it, &end) && i < n; json_object_iter_next(&it))
        keys[i++] = json_object_iter_peek_name(&it);
    gq__qsort(keys, n, sizeof(keys[0]), gq__mf_strcmp_ptr);
    for (i = 0; i < n; i++)
        json_object_object_add(out, keys[i], gq__mf_canonical_copy(gq__mf_get(v, keys[i])));
    free(keys);
    return out;
}

int gq__mf_strcmp_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A field kept verbatim: {"name": value} as canonical JSON text. */
static int
decode_raw(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    char **dst = MEMBER(base, f->off, char *);
    json_object *wrap = json_object_new_object(), *prev;
    const char *text;

    if (!wrap)
        return gq__mf_nomem(c);
    /* Several rows may keep their fields in one member: merged, in row order. */
    if (*dst && (prev = json_tokener_parse(*dst)) != NULL) {
        json_object_put(wrap);
        wrap = prev;
    }
    json_object_object_add(wrap, f->name, gq__mf_canonical_copy(v));
    text = json_object_to_json_string_ext(wrap,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    free(*dst);
    *dst = text ? strdup(text) : NULL;
    json_object_put(wrap);
    return *dst ? GQ_OK : gq__mf_nomem(c);
}

/* --------------------------------------------------------------- the walk */

static int
decode_value(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *v, void *base)
{
    int rc;

    switch (f->type) {
    case GQ_MF_STRING:
    case GQ_MF_ENUM:
        return decode_string(c, f, v, base);
    case GQ_MF_BOOL:
        return gq__mf_bool(c, v, MEMBER(base, f->off, bool));
    case GQ_MF_INT32:
    case GQ_MF_INT64:
        return decode_number(c, f, v, base);
    case GQ_MF_QUANTITY:
        return decode_quantity(c, f, v, base);
    case GQ_MF_DURATION:
    case GQ_MF_DURATION_MS:
        return decode_duration(c, f, v, base);
    case GQ_MF_STRS:
        return decode_strs(c, f, v, base);
    case GQ_MF_KVS:
        return gq__mf_kvs(c, v, f, MEMBER(base, f->off, struct gq_kvs));
    case GQ_MF_STRUCT:
        if ((rc = gq__mf_object(c, v)) != GQ_OK)
            return rc;
        if (f->flags & GQ_MF_PRESENCE)
            *MEMBER(base, f->aux, bool) = true;
        return gq__mf_decode_fields(c, f->sub, v, base);
    case GQ_MF_LIST:
        return decode_list(c, f, v, base);
    case GQ_MF_SELECTOR:
        return gq__mf_selector(c, v, MEMBER(base, f->off, char *));
    case GQ_MF_RAW:
        return decode_raw(c, f, v, base);
    }
    return GQ_OK;
}

/* The default of an absent field; `required` says whether its parent was given. */
static int
decode_absent(struct gq__mf_ctx *c, const struct gq__mf_field *f, void *base, bool parent_given)
{
    char **s = MEMBER(base, f->off, char *);

    if ((f->flags & GQ_MF_REQUIRED) && parent_given)
        return gq__mf_required(c);
    switch (f->type) {
    case GQ_MF_STRING:
    case GQ_MF_ENUM:
        if (f->sdef && !*s && !(*s = strdup(f->sdef)))
            return gq__mf_nomem(c);
        return GQ_OK;
    case GQ_MF_BOOL:
        *MEMBER(base, f->off, bool) = f->idef != 0;
        return GQ_OK;
    case GQ_MF_INT32:
        if (!(f->flags & GQ_MF_HAS))
            *MEMBER(base, f->off, int32_t) = (int32_t)f->idef;
        return GQ_OK;
    case GQ_MF_INT64:
    case GQ_MF_DURATION:
    case GQ_MF_DURATION_MS:
        if (!(f->flags & GQ_MF_HAS))
            *MEMBER(base, f->off, int64_t) = f->idef;
        return GQ_OK;
    case GQ_MF_QUANTITY:
        if (f->sdef && !(f->flags & GQ_MF_HAS))
            return gq_quantity_parse(MEMBER(base, f->off, gq_quantity), f->sdef, strlen(f->sdef),
                                     c->err);
        return GQ_OK;
    case GQ_MF_STRUCT:
        return gq__mf_decode_fields(c, f->sub, NULL, base);
    case GQ_MF_STRS:
    case GQ_MF_KVS:
    case GQ_MF_LIST:
    case GQ_MF_SELECTOR:
    case GQ_MF_RAW:
        return GQ_OK;
    }
    return GQ_OK;
}

/* Whether a bool given, or a block switched by its bool `enable` (v1beta1's style), is off. */
static bool switched_off(struct gq__mf_ctx *c, const struct gq__mf_field *f, void *base)
{
    size_t i;

    if (f->type == GQ_MF_BOOL)
        return !*MEMBER(base, f->off, bool);
    for (i = 0; f->type == GQ_MF_STRUCT && i < f->sub->nfields; i++) {
        const struct gq__mf_field *e = &f->sub->fields[i];

        if ((e->vers & c->version) && e->type == GQ_MF_BOOL && !strcmp(e->name, "enable"))
            return !*MEMBER(base, e->off, bool);
    }
    return false;
}

/* A field given that gpuq does not enforce: its path noted, unless it switches something off. */
static int note_not_enforced(struct gq__mf_ctx *c, const struct gq__mf_field *f, void *base)
{
    if (!c->not_enforced || switched_off(c, f, base))
        return GQ_OK;
    return gq__mf_strs_add(c, c->not_enforced, c->path);
}

static int
decode_row(struct gq__mf_ctx *c, const struct gq__mf_field *f, json_object *obj, void *base)
{
    json_object *v = gq__mf_get(obj, f->name);
    size_t mark = gq__mf_push(c, f->name);
    int rc = v ? decode_value(c, f, v, base) : decode_absent(c, f, base, obj != NULL);

    if (rc == GQ_OK && v && (f->flags & GQ_MF_NOT_ENFORCED))
        rc = note_not_enforced(c, f, base);
    if (rc == GQ_OK)
        gq__mf_pop(c, mark);
    return rc;
}

static int fill_rest(struct gq__mf_ctx *c, const struct gq__mf_schema *s, size_t from, void *base)
{
    size_t i;
    int rc;

    for (i = from; i < s->nfields; i++)
        if ((s->fields[i].vers & c->version) && (rc = decode_row(c, &s->fields[i], NULL, base)))
            return rc;
    return GQ_OK;
}

int gq__mf_decode_fields(struct gq__mf_ctx *c,
                         const struct gq__mf_schema *s,
                         json_object *obj,
                         void *base)
{
    size_t i;
    int rc;

    for (i = 0; i < s->nfields; i++) {
        if (!(s->fields[i].vers & c->version))
            continue;
        if ((rc = decode_row(c, &s->fields[i], obj, base)) != GQ_OK)
            return rc;
    }
    return s->check && obj ? s->check(c, base) : GQ_OK;
}

/* -------------------------------------------------------------- durations */

/*
 * Go's time.ParseDuration for the units a Kueue configuration uses: one or
 * more decimal numbers (with optional fraction) each followed by h, m, s or
 * ms; "0" alone is allowed. Kept in milliseconds, rounded up to seconds.
 */
int gq__mf_duration_parse(int64_t *out, const char *s)
{
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {{"ms", 1}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
    int64_t total = 0;
    size_t i;

    if (!strcmp(s, "0")) {
        *out = 0;
        return GQ_OK;
    }
    if (!*s)
        return GQ_EINVALID;
    while (*s) {
        int64_t whole = 0, frac = 0, scale = 1;
        const char *start = s;

        for (; *s >= '0' && *s <= '9'; s++)
            if ((whole = whole * 10 + (*s - '0')) > 1000000000)
                return GQ_EINVALID;
        if (*s == '.')
            for (s++; *s >= '0' && *s <= '9'; s++)
                if (scale < 1000000000) {
                    frac = frac * 10 + (*s - '0');
                    scale *= 10;
                }
        if (s == start || (s == start + 1 && *start == '.'))
            return GQ_EINVALID;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (!strncmp(s, units[i].unit, strlen(units[i].unit)))
                break;
        if (i == sizeof(units) / sizeof(units[0]))
            return GQ_EINVALID;
        total += whole * units[i].ms + (frac * units[i].ms + scale - 1) / scale;
        if (total > INT64_C(1000000000000000))
            return GQ_EINVALID;
        s += strlen(units[i].unit);
    }
    *out = (total + 999) / 1000;
    return GQ_OK;
}

/* Go's Duration.String() for whole seconds: "0s", "90s" -> "1m30s", "1h0m0s". */
void gq__mf_duration_format(char *buf, size_t size, int64_t seconds)
{
    gq__format_duration_ms(buf, size, seconds > 0 ? seconds * 1000 : 0, false);
}

/* -------------------------------------------------------------- quantities */

/* m * 10^e into *out, false on overflow. */
static bool scale_up(int64_t m, int32_t e, int64_t *out)
{
    for (; e > 0; e--)
        if (__builtin_mul_overflow(m, 10, &m))
            return false;
    *out = m;
    return true;
}

/*
 * sum += q, exactly, keeping sum's format unless sum is zero (apimachinery's
 * Add). The result keeps quantity.c's invariants: no trailing zeros in the
 * mantissa, zero is {0, 0}, and at most 2^63-1 whole units.
 */
bool gq__mf_quantity_add(gq_quantity *sum, const gq_quantity *q)
{
    int32_t e = sum->scale < q->scale ? sum->scale : q->scale;
    int64_t a, b, m, units;

    if (!scale_up(sum->mantissa, sum->scale - e, &a) || !scale_up(q->mantissa, q->scale - e, &b) ||
        __builtin_add_overflow(a, b, &m))
        return false;
    if (sum->mantissa == 0)
        sum->format = q->format;
    while (m != 0 && m % 10 == 0) {
        m /= 10;
        e++;
    }
    if (m == 0)
        e = 0;
    if (e > 0 && !scale_up(m, e, &units))
        return false;
    sum->mantissa = m;
    sum->scale = e;
    return true;
}
