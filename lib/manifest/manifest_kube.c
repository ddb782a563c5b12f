/*
 * manifest_kube.c: a Job manifest made ready for the API server, for
 * `gpuq submit` in cluster mode: exactly one batch/v1 Job, checked by the
 * same decoder `gpuq submit` uses locally (so a bad quantity or name is
 * refused before any call), its namespace filled in, and spec.suspend
 * forced true (gpuq has no webhook: the CLI suspends, as Kueue's webhook
 * would; Kueue #412).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "manifest_load.h"
#include "manifest_reader.h"
#include "util.h"

struct one_job {
    json_object *job;
    int docs;
};

static int take_doc(const struct gq__doc *doc, void *payload, gq_error *err)
{
    struct one_job *o = payload;
    json_object *kind = NULL;

    (void)err;
    /*
     * A copy through text: the reader's scalars carry their original text as
     * user data, which json_object_deep_copy refuses to copy.
     */
    if (++o->docs == 1 && json_object_object_get_ex(doc->root, "kind", &kind) &&
        json_object_is_type(kind, json_type_string) &&
        strcmp(json_object_get_string(kind), "Job") == 0 &&
        !(o->job = json_tokener_parse(
              json_object_to_json_string_ext(doc->root, JSON_C_TO_STRING_PLAIN))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

static json_object *child(json_object *o, const char *key)
{
    json_object *v = NULL;

    if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_object)) {
        v = json_object_new_object();
        json_object_object_add(o, key, v);
    }
    return v;
}

int gq__manifest_kube_job(const char *buf, size_t len, const char *ns, char **json_out,
                          char **ns_out, gq_error *err)
{
    struct one_job o = {NULL, 0};
    struct gq_object obj;
    json_object *meta, *v = NULL;
    int rc;

    *json_out = *ns_out = NULL;
    if ((rc = gq__manifest_read(buf, len, "manifest", take_doc, &o, err)) != GQ_OK)
        return rc;
    if (o.docs != 1 || !o.job) {
        json_object_put(o.job);
        return gq__error(err, GQ_EINVALID, "want exactly one batch/v1 Job, got %d document%s",
                         o.docs, o.docs == 1 ? " of another kind" : "s");
    }
    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_load(NULL, buf, len, "manifest", NULL, NULL, gq__take_object, &obj, err);
    gq__object_clear(&obj);
    if (rc == GQ_OK) {
        meta = child(o.job, "metadata");
        if (!json_object_object_get_ex(meta, "namespace", &v) && ns)
            json_object_object_add(meta, "namespace", json_object_new_string(ns));
        json_object_object_add(child(o.job, "spec"), "suspend", json_object_new_boolean(1));
        json_object_object_get_ex(meta, "namespace", &v);
        *ns_out = gq__strdup(v ? json_object_get_string(v) : "default");
        *json_out = gq__strdup(json_object_to_json_string_ext(o.job, JSON_C_TO_STRING_PLAIN));
        if (!*ns_out || !*json_out)
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
    }
    json_object_put(o.job);
    return rc;
}
