/*
 * create_taints.c: `gpuq create resourceflavor`'s --node-taints and
 * --tolerations, read as kueuectl reads them (create_resourceflavor.go's
 * parseTaint and parseToleration), with its error texts:
 *
 *   taint       KEY=VALUE:EFFECT or KEY:EFFECT, effect required, one taint
 *               per key and effect;
 *   toleration  KEY=VALUE:EFFECT, KEY:EFFECT, KEY=VALUE, KEY or :EFFECT;
 *               operator Equal when both key and value are given, else
 *               Exists (":EFFECT" tolerates every taint of that effect).
 *
 * Keys are label keys and values label values, checked here, so that the
 * JSON written needs no escaping. Kueue allows 8 of each; the decoder that
 * applies the manifest counts them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"

/* One KEY[=VALUE][:EFFECT], cut in place (kueuectl's splitSpecItem). */
struct spec_item {
    const char *key;
    const char *value;  /* "" when none */
    const char *effect; /* "" when none */
};

static bool split_item(char *s, struct spec_item *out)
{
    char *colon = strchr(s, ':'), *eq;

    if (colon && strchr(colon + 1, ':'))
        return false;
    if (colon)
        *colon = '\0';
    if ((eq = strchr(s, '=')) != NULL && strchr(eq + 1, '='))
        return false;
    if (eq)
        *eq = '\0';
    out->key = s;
    out->value = eq ? eq + 1 : "";
    out->effect = colon ? colon + 1 : "";
    return true;
}

static bool effect_valid(const char *e)
{
    return !strcmp(e, "NoSchedule") || !strcmp(e, "PreferNoSchedule") || !strcmp(e, "NoExecute");
}

/* The key and value rules both parsers share; what names the spec is kueuectl's prefix. */
static int check_key_value(const char *what, const char *spec, const struct spec_item *it)
{
    gq_error err = {0, ""};

    if ((*it->key || !strcmp(what, "taint")) && gq_validate_label_key(it->key, &err) != GQ_OK)
        return cli_usage_error("invalid %s spec: %s, %s", what, spec, err.msg);
    if (*it->value && gq_validate_label_value(it->value, &err) != GQ_OK)
        return cli_usage_error("invalid %s spec: %s, %s", what, spec, err.msg);
    return EXIT_SUCCESS;
}

/* Parse one taint; spec is the text as given, for messages. */
static int parse_taint(char *s, const char *spec, struct spec_item *out)
{
    if (!*spec)
        return cli_usage_error("invalid taint spec");
    if (!split_item(s, out) || !*out->effect)
        return cli_usage_error("invalid taint spec: %s", spec);
    if (!effect_valid(out->effect))
        return cli_usage_error("invalid taint effect: %s, unsupported taint effect", out->effect);
    return check_key_value("taint", spec, out);
}

static int parse_toleration(char *s, const char *spec, struct spec_item *out)
{
    if (!*spec)
        return cli_usage_error("invalid toleration spec");
    if (!split_item(s, out) || (!*out->key && *out->value))
        return cli_usage_error("invalid toleration spec: %s", spec);
    if (*out->effect && !effect_valid(out->effect))
        return cli_usage_error("invalid taint effect: %s, unsupported taint effect", out->effect);
    return check_key_value("toleration", spec, out);
}

/* Whether an earlier taint has the same key and effect. */
static bool duplicate(const struct spec_item *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(t[i].key, t[n].key) && !strcmp(t[i].effect, t[n].effect))
            return true;
    return false;
}

/* A field of a taint or toleration, left out when empty as Go's omitempty does. */
static void field(FILE *out, const char *name, const char *value, bool *first)
{
    if (!*value)
        return;
    fprintf(out, "%s\"%s\": \"%s\"", *first ? "" : ", ", name, value);
    *first = false;
}

/* One taint, or a toleration: operator Equal when it has a key and a value, else Exists. */
static void write_item(FILE *out, const struct spec_item *it, bool toleration)
{
    const char *op = !toleration ? "" : *it->key && *it->value ? "Equal" : "Exists";
    bool first = true;

    fputc('{', out);
    field(out, "key", it->key, &first);
    field(out, "operator", op, &first);
    field(out, "value", it->value, &first);
    field(out, "effect", it->effect, &first);
    fputc('}', out);
}

/* Either flag: split, parse each item (its text as given names it in messages), write. */
static int write_list(FILE *out, const struct strlist *values, bool taints)
{
    struct items it;
    struct spec_item *parsed = NULL;
    size_t i;
    int rc;

    if ((rc = items_split(&it, values)) != EXIT_SUCCESS || it.n == 0)
        goto out;
    if (!(parsed = calloc(it.n, sizeof(*parsed)))) {
        fputs("error: out of memory\n", stderr);
        rc = EXIT_FAILURE;
        goto out;
    }
    for (i = 0; i < it.n; i++) {
        rc = taints ? parse_taint(it.v[i], it.text[i], &parsed[i])
                    : parse_toleration(it.v[i], it.text[i], &parsed[i]);
        if (rc != EXIT_SUCCESS)
            goto out;
        if (taints && duplicate(parsed, i)) {
            rc = cli_usage_error("duplicated taints with the same key and effect: %s", it.text[i]);
            goto out;
        }
    }
    fprintf(out, ", \"%s\": [", taints ? "nodeTaints" : "tolerations");
    for (i = 0; i < it.n; i++) {
        fputs(i ? ", " : "", out);
        write_item(out, &parsed[i], !taints);
    }
    fputc(']', out);
out:
    free(parsed);
    items_free(&it);
    return rc;
}

int create_taints(FILE *out, const struct strlist *taints)
{
    return write_list(out, taints, true);
}

int create_tolerations(FILE *out, const struct strlist *tolerations)
{
    return write_list(out, tolerations, false);
}
