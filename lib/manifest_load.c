/*
 * manifest_load.c: reading documents and decoding them, joined: the entry
 * point the rest of the library uses so that it never sees a json-c type.
 * Every decoding error leaves here with the document's location in front.
 */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "manifest.h"

struct load {
    const struct gq_decode_options *opts;
    gq__object_cb cb;
    void *payload;
};

/* "job.yaml: document 2 (Job default/sample-job)" in front of err's message. */
static int locate(const struct gq__doc *doc, const struct gq_object *obj, gq_error *err)
{
    const char *name = obj->meta.name ? obj->meta.name : obj->meta.generate_name;
    char item[32] = "";

    if (doc->item)
        snprintf(item, sizeof(item), " item %d", doc->item);
    if (obj->kind != GQ_KIND_NONE && name)
        return gq__error_prefix(err, "%s: document %d%s (%s %s%s%s)", doc->source, doc->index,
                                item, gq__kind_name(obj->kind),
                                obj->meta.namespace ? obj->meta.namespace : "",
                                obj->meta.namespace ? "/" : "", name);
    return gq__error_prefix(err, "%s: document %d%s", doc->source, doc->index, item);
}

static int on_doc(const struct gq__doc *doc, void *payload, gq_error *err)
{
    struct load *l = payload;
    struct gq_doc_loc loc = {doc->source, doc->index, doc->item};
    struct gq_object obj;
    int rc;

    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_decode(&obj, doc->root, l->opts, err);
    if (rc == GQ_OK || rc == GQ_EUNSUPPORTED)
        rc = l->cb(&obj, &loc, rc, l->payload, err);
    if (rc != GQ_OK && rc != GQ_ENOMEM)
        locate(doc, &obj, err);
    gq__object_clear(&obj);
    return rc;
}

int gq__manifest_load(const char *path, const char *buf, size_t len, const char *source,
                      const struct gq_decode_options *opts, gq__object_cb cb, void *payload,
                      gq_error *err)
{
    struct load l = {opts, cb, payload};

    if (!buf)
        return gq__manifest_read_path(path, on_doc, &l, err);
    return gq__manifest_read(buf, len, source, on_doc, &l, err);
}
