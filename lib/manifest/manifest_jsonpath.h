/*
 * manifest_jsonpath.h: kubectl's JSONPath (k8s.io/client-go/util/jsonpath)
 * over json-c trees, for -o jsonpath, -o custom-columns and --sort-by
 * (manifest_get.c). Internal to lib/manifest/.
 *
 * A template is text with actions in braces: {.a.b}, {.items[*].x},
 * {.list[0]}, {.list[-1:]}, {.list[0:4:2]}, {..name}, {.map.*},
 * {.list[?(@.type=="Ready")].status}, {.list[0,2]}, {['key']}, {"\n"},
 * {range .items[*]}...{end}; a dot inside a field name is escaped with a
 * backslash (kueue\.x-k8s\.io/queue-name), as kubectl's. Evaluation follows
 * client-go's with missing keys allowed (kubectl's default): a field that is
 * not there gives no result, while an index out of range or an index into
 * something that is not a list is an error, as it is there. Results print as
 * kubectl prints them: strings raw, numbers and booleans as Go prints them,
 * maps and lists as compact JSON with sorted keys (Go's encoding/json), the
 * results of one action separated by a space.
 */
#ifndef GQ_MANIFEST_JSONPATH_H
#define GQ_MANIFEST_JSONPATH_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "gpuqueue/common.h"
#include "util.h" /* struct gq__str, what the results print into */

struct gq__jp; /* a parsed template */

/*
 * Parse a template. GQ_EINVALID with client-go's complaint, e.g.
 * `unclosed action`, naming the template.
 */
int gq__jp_parse(struct gq__jp **out, const char *template, gq_error *err);
void gq__jp_free(struct gq__jp *jp);

/* Print the template's output for root into b. GQ_EINVALID for an evaluation error. */
int gq__jp_execute(const struct gq__jp *jp, json_object *root, struct gq__str *b,
                   gq_error *err);

/*
 * The values the template's first action finds in root (a custom column, a
 * sort key): *out gets a malloc'd array of borrowed values (NULL when none),
 * *n their count.
 */
int gq__jp_find(const struct gq__jp *jp, json_object *root, json_object ***out, size_t *n,
                gq_error *err);

/* A value as kubectl's column printer writes it (Go's fmt %v of the decoded value). */
void gq__jp_put_go(struct gq__str *b, json_object *v);

/* kubectl's relaxed path for custom columns and --sort-by: ".a.b", "a.b", "{.a.b}" -> "{.a.b}". */
int gq__jp_relaxed(char **out, const char *path, gq_error *err);

/* An object's keys in byte order, as Go sorts a map's: malloc'd (borrowed strings), *n set. */
const char **gq__jp_sorted_keys(json_object *o, size_t *n);

#endif
