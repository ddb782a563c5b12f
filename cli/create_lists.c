/*
 * create_lists.c: the list flags of `gpuq create`, read as kueuectl's
 * pflag reads them: a StringSlice ("--node-taints a:NoSchedule,b:NoSchedule",
 * repeatable) cut at its commas, and a StringToString ("--node-labels
 * k=v,k2=v2") made a map in which a later key wins. Quoting, which pflag's
 * CSV reader honours, is not: no value these flags take may hold a comma.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"

int items_split(struct items *out, const struct strlist *values)
{
    size_t size = 0, count = 0, i, at = 0;
    char *p;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < values->n; i++) {
        size += strlen(values->v[i]) + 1;
        for (p = strchr(values->v[i], ','), count++; p; p = strchr(p + 1, ','))
            count++;
    }
    if (!size)
        return EXIT_SUCCESS;
    out->buf = malloc(2 * size);
    out->v = malloc(count * sizeof(*out->v));
    out->text = malloc(count * sizeof(*out->text));
    if (!out->buf || !out->v || !out->text) {
        fputs("error: out of memory\n", stderr);
        return EXIT_FAILURE;
    }
    for (i = 0; i < values->n; i++) {
        if (!*values->v[i]) /* pflag: an empty value is an empty list */
            continue;
        memcpy(out->buf + at, values->v[i], strlen(values->v[i]) + 1);
        memcpy(out->buf + size + at, values->v[i], strlen(values->v[i]) + 1);
        for (p = out->buf + at;; p++) {
            out->v[out->n] = p;
            out->text[out->n++] = p + size;
            if (!(p = strchr(p, ',')))
                break;
            *p = p[size] = '\0';
        }
        at += strlen(values->v[i]) + 1;
    }
    return EXIT_SUCCESS;
}

void items_free(struct items *it)
{
    free(it->buf);
    free(it->v);
    free(it->text);
    memset(it, 0, sizeof(*it));
}

/* ------------------------------------------------------ KEY=VALUE maps */

static int by_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Cut "KEY=VALUE" items in place into keys; a later key wins, as in pflag's map. */
static int cut_pairs(struct items *it, const char *flag)
{
    size_t i, j, n = 0;
    char *eq;

    for (i = 0; i < it->n; i++) {
        if (!(eq = strchr(it->v[i], '=')) || eq == it->v[i])
            return cli_usage_error("invalid --%s \"%s\": want KEY=VALUE[,KEY=VALUE]", flag,
                                   it->text[i]);
        *eq = '\0';
        for (j = 0; j < n && strcmp(it->v[j], it->v[i]); j++)
            ;
        it->v[j] = it->v[i];
        n += j == n;
    }
    it->n = n;
    return EXIT_SUCCESS;
}

int create_map(FILE *out, const char *prefix, const struct strlist *values, const char *flag)
{
    gq_error err = {0, ""};
    struct items it;
    size_t i;
    int rc;

    if ((rc = items_split(&it, values)) != EXIT_SUCCESS ||
        (rc = cut_pairs(&it, flag)) != EXIT_SUCCESS || it.n == 0)
        goto out;
    qsort(it.v, it.n, sizeof(*it.v), by_key);
    for (i = 0; i < it.n; i++) {
        if (gq_validate_label_key(it.v[i], &err) != GQ_OK ||
            gq_validate_label_value(it.v[i] + strlen(it.v[i]) + 1, &err) != GQ_OK) {
            rc = cli_usage_error("--%s: %s", flag, err.msg);
            goto out;
        }
    }
    fprintf(out, "%s{", prefix);
    for (i = 0; i < it.n; i++)
        fprintf(out, "%s\"%s\": \"%s\"", i ? ", " : "", it.v[i], it.v[i] + strlen(it.v[i]) + 1);
    fputc('}', out);
out:
    items_free(&it);
    return rc;
}
