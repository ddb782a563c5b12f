/*
 * manifest_reader.h: YAML and JSON text to json-c trees, one document at a
 * time. Internal to libgpuqueue; only manifest*.c include this header (it is
 * the one place json-c and libyaml types appear).
 *
 * Both YAML and JSON go through libyaml's event parser (JSON is flow-style
 * YAML), so one code path enforces every input limit:
 *  - anchors and aliases are rejected outright (no alias bombs, no cycles);
 *  - nesting deeper than GQ_MANIFEST_MAX_DEPTH is rejected while parsing
 *    (libyaml 0.2.5 has no depth limit of its own);
 *  - a document larger than GQ_MANIFEST_MAX_DOC_BYTES is rejected;
 *  - duplicate mapping keys are rejected;
 *  - tags other than the core schema's (!!str, !!int, ...) are rejected.
 *
 * Plain scalars are typed as Kubernetes' YAML decoder (go-yaml v2, YAML 1.1)
 * types them: null/~/empty -> null; y/yes/on/true (any case listed there) ->
 * true; n/no/off/false -> false; decimal, 0x, 0o/leading-0 octal and 0b
 * integers (underscores allowed) -> int64; floats -> double that keeps its
 * original text (json_object_new_double_s), so "1.0" stays "1.0". An integer
 * that does not fit in int64 is kept as a double with its original text too,
 * so range checks downstream see the real value. Quoted scalars are strings.
 */
#ifndef GQ_MANIFEST_READER_H
#define GQ_MANIFEST_READER_H

#include <json-c/json.h>

#include "gpuqueue/common.h"

#define GQ_MANIFEST_MAX_DEPTH 64
#define GQ_MANIFEST_MAX_DOC_BYTES (4u << 20)
#define GQ_MANIFEST_MAX_INPUT_BYTES (1u << 30)

/* One document (or one item of a `kind: List` document) handed to the callback. */
struct gq__doc {
    json_object *root;  /* borrowed: valid during the callback; a JSON object */
    const char *source; /* file name as given, "-" for standard input */
    int index;          /* 1-based position of the document in its source */
    int item;           /* 1-based item number inside a List document, else 0 */
    int line;           /* 1-based line where the document starts */
};

/*
 * Called once per non-empty document, in order. A non-zero return stops the
 * read and is returned by the reader unchanged (err already filled by the
 * callback).
 */
typedef int (*gq__doc_cb)(const struct gq__doc *doc, void *payload, gq_error *err);

/*
 * Read every document of buf. Documents that are empty or null are skipped; a
 * document whose root is not a mapping is an error. A document of kind "List"
 * (or any kind ending in "List" that has an "items" array, as kubectl accepts)
 * is expanded into one callback per item.
 *
 * Errors name the source, the document number and line, e.g.
 *   job.yaml: document 2 (line 14): YAML aliases are not allowed
 *   job.yaml: line 7, column 3: mapping values are not allowed in this context
 * Returns GQ_OK, GQ_EINVALID for bad input, GQ_ENOMEM, or the callback's code.
 */
int gq__manifest_read(const char *buf, size_t len, const char *source, gq__doc_cb cb,
                      void *payload, gq_error *err);

/*
 * Read a path as kubectl's -f does: "-" is standard input; a directory means
 * its *.yaml, *.yml and *.json files in name order (not recursive); anything
 * else is one file. GQ_ENOTFOUND if the path does not exist, GQ_EIO if it
 * cannot be read, GQ_EINVALID for a directory with no manifest files.
 */
int gq__manifest_read_path(const char *path, gq__doc_cb cb, void *payload, gq_error *err);

#endif
