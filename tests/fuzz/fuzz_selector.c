/*
 * fuzz_selector.c: label selectors, the path a ClusterQueue's
 * namespaceSelector takes from a manifest to admission. The input is the
 * selector's YAML or JSON; it is read (manifest_reader.c), put under
 * spec.namespaceSelector of a ClusterQueue and decoded, which validates it
 * and keeps its canonical JSON (manifest_rules.c); that text is read back
 * as admission reads it (gq__manifest_selector), which must succeed, and
 * matched against a few namespaces' labels (admit_match.c). The raw bytes
 * also go straight to gq__manifest_selector, as a stored column that was
 * tampered with would.
 */
#include "admit.h"
#include "fuzz.h"
#include "manifest.h"
#include "manifest_snapshot.h"

static void match_some(const struct gq_selector *sel)
{
    static char name[] = "kubernetes.io/metadata.name", dflt[] = "default", team[] = "team",
                a[] = "a", size[] = "size", ten[] = "10";
    static struct gq_kv one[] = {{name, dflt}};
    static struct gq_kv two[] = {{team, a}, {size, ten}};
    const struct gq_kvs sets[] = {{NULL, 0}, {one, 1}, {two, 2}};
    size_t i;

    for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
        (void)gq__selector_matches(sel, &sets[i]);
}

/* A ClusterQueue around the selector; the selector's reference is shared, not taken. */
static json_object *cluster_queue(json_object *selector)
{
    json_object *cq = json_object_new_object(), *meta = json_object_new_object();
    json_object *spec = json_object_new_object();

    json_object_object_add(cq, "apiVersion", json_object_new_string("kueue.x-k8s.io/v1beta1"));
    json_object_object_add(cq, "kind", json_object_new_string("ClusterQueue"));
    json_object_object_add(meta, "name", json_object_new_string("cq"));
    json_object_object_add(cq, "metadata", meta);
    json_object_object_add(spec, "namespaceSelector", json_object_get(selector));
    json_object_object_add(cq, "spec", spec);
    return cq;
}

static int on_doc(const struct gq__doc *doc, void *payload, gq_error *err)
{
    json_object *cq = cluster_queue(doc->root);
    struct gq_object obj;
    struct gq_selector sel;
    const char *text;

    (void)payload;
    memset(&obj, 0, sizeof(obj));
    if (gq__manifest_decode(&obj, cq, NULL, err) == GQ_OK && obj.kind == GQ_KIND_CLUSTER_QUEUE &&
        (text = obj.u.cq.namespace_selector) != NULL) {
        FUZZ_ASSERT(gq__manifest_selector(text, &sel, err) == GQ_OK, "canonical \"%s\": %s", text,
                    err->msg);
        match_some(&sel);
        gq__selector_clear(&sel);
    }
    gq__object_clear(&obj);
    json_object_put(cq);
    return GQ_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    struct gq_selector sel;
    gq_error err = {0, ""};

    if (!s)
        return 0;
    (void)gq__manifest_read(s, size, "selector.yaml", on_doc, NULL, &err);
    if (gq__manifest_selector(s, &sel, &err) == GQ_OK)
        match_some(&sel);
    gq__selector_clear(&sel);
    free(s);
    return 0;
}
