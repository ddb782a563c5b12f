/*
 * test_render.c: gq_render (-o json|yaml) and gq_describe against a fresh
 * ":memory:" database per case, loaded through gq_apply_buffer at a fixed
 * time. JSON output is parsed back with json-c and checked field by field;
 * YAML output is checked line by line, must parse with libyaml, and must
 * apply again into a second database giving the same objects; describe
 * output is compared line by line with runs of spaces collapsed, so the
 * checks state the content and the tabwriter test states the alignment.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <yaml.h>

#include "gpuqueue.h"
#include "test.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))
#define NOW_MS 1795239000000LL /* 2026-11-21T05:30:00Z */

/* A flavor, a cohort, a ClusterQueue that borrows, its LocalQueue, a priority
 * class, a pending Job of 2 pods and an imported admitted Workload using 6 GPUs. */
static const char setup_yaml[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ResourceFlavor\n"
    "metadata:\n"
    "  name: a100\n"
    "spec:\n"
    "  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}\n"
    "  nodeTaints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n"
    "  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: Cohort\n"
    "metadata: {name: team}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ClusterQueue\n"
    "metadata: {name: cq}\n"
    "spec:\n"
    "  cohort: team\n"
    "  namespaceSelector: {}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [cpu, memory, nvidia.com/gpu]\n"
    "    flavors:\n"
    "    - name: a100\n"
    "      resources:\n"
    "      - {name: cpu, nominalQuota: 10}\n"
    "      - {name: memory, nominalQuota: 64Gi}\n"
    "      - {name: nvidia.com/gpu, nominalQuota: 4, borrowingLimit: 2}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: LocalQueue\n"
    "metadata: {name: lq, namespace: default}\n"
    "spec: {clusterQueue: cq}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: WorkloadPriorityClass\n"
    "metadata: {name: high}\n"
    "value: 1000\n"
    "description: important\n"
    "---\n"
    "apiVersion: batch/v1\n"
    "kind: Job\n"
    "metadata:\n"
    "  name: train\n"
    "  namespace: default\n"
    "  uid: 11111111-2222-3333-4444-555555555555\n"
    "  labels:\n"
    "    kueue.x-k8s.io/queue-name: lq\n"
    "    kueue.x-k8s.io/priority-class: high\n"
    "    team: \"true\"\n"
    "  annotations:\n"
    "    provreq.kueue.x-k8s.io/maxRunDurationSeconds: \"600\"\n"
    "spec:\n"
    "  parallelism: 2\n"
    "  suspend: true\n"
    "  template:\n"
    "    spec:\n"
    "      containers:\n"
    "      - name: c\n"
    "        image: busybox\n"
    "        resources:\n"
    "          requests: {cpu: 1500m, memory: 1Gi, nvidia.com/gpu: 1}\n"
    "      restartPolicy: Never\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: Workload\n"
    "metadata:\n"
    "  name: imported\n"
    "  namespace: default\n"
    "  uid: 99999999-2222-3333-4444-555555555555\n"
    "spec:\n"
    "  queueName: lq\n"
    "  podSets:\n"
    "  - name: main\n"
    "    count: 3\n"
    "    template:\n"
    "      spec:\n"
    "        containers:\n"
    "        - name: c\n"
    "          resources: {requests: {cpu: 500m, nvidia.com/gpu: 2}}\n"
    "status:\n"
    "  admission:\n"
    "    clusterQueue: cq\n"
    "    podSetAssignments:\n"
    "    - name: main\n"
    "      flavors: {cpu: a100, nvidia.com/gpu: a100}\n"
    "      resourceUsage: {cpu: 1500m, nvidia.com/gpu: \"6\"}\n"
    "      count: 3\n";

/* Queues that cannot admit: a missing flavor, a stopped queue, and a LocalQueue of each. */
static const char inactive_yaml[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ClusterQueue\n"
    "metadata: {name: broken}\n"
    "spec:\n"
    "  resourceGroups:\n"
    "  - coveredResources: [cpu]\n"
    "    flavors: [{name: h100, resources: [{name: cpu, nominalQuota: 1}]}]\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ClusterQueue\n"
    "metadata: {name: held}\n"
    "spec:\n"
    "  stopPolicy: Hold\n"
    "  namespaceSelector:\n"
    "    matchLabels: {team: ml}\n"
    "    matchExpressions:\n"
    "    - {key: tier, operator: In, values: [a, b]}\n"
    "    - {key: gpu, operator: Exists}\n"
    "    - {key: spot, operator: DoesNotExist}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: LocalQueue\n"
    "metadata: {name: to-broken, namespace: ml}\n"
    "spec: {clusterQueue: broken}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: LocalQueue\n"
    "metadata: {name: orphan, namespace: ml}\n"
    "spec: {clusterQueue: missing}\n";

/* Strings that a YAML reader would take for something else, and some it would not. */
static const char quoting_yaml[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ResourceFlavor\n"
    "metadata:\n"
    "  name: quoting\n"
    "  annotations:\n"
    "    q01: \"600\"\n"
    "    q02: \"true\"\n"
    "    q03: \"1.0\"\n"
    "    q04: \"\"\n"
    "    q05: \"yes\"\n"
    "    q06: \"null\"\n"
    "    q07: \"0x1F\"\n"
    "    q08: \"2026-01-01\"\n"
    "    q09: \"1e3\"\n"
    "    q10: \"Off\"\n"
    "    q11: \"~\"\n"
    "    q12: \"-5\"\n"
    "    p01: 10Gi\n"
    "    p02: hello world\n"
    "    p03: 1.2.3\n"
    "    p04: c4abc326-869a\n"
    "    p05: \"996a4efe-13ae\"\n"
    "    p06: \"a long value that goes past eighty columns, which libyaml would fold unless "
    "told otherwise\"\n"
    "    m01: \"echo one\\nsleep 2\\n\"\n"
    "    m02: \"no trailing newline\\nhere\"\n"
    "spec: {}\n";

/* ----------------------------------------------------------------- fixtures */

static gq_db *open_with(const char *yaml)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    gq_error err = {0, ""};
    gq_db *db = NULL;
    int rc;

    o.now_ms = NOW_MS;
    if (gq_db_open(&db, ":memory:", NULL, &err) != GQ_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        return NULL;
    }
    rc = gq_apply_buffer(db, yaml, strlen(yaml), "setup.yaml", &o, NULL, NULL, &err);
    CHECKF(rc == GQ_OK, "apply: %s", err.msg);
    return db;
}

/* Output collected from the write callback. */
struct sink {
    char *buf;
    size_t len;
    int calls;
    size_t smallest; /* the shortest write but the last */
    size_t last;
    int stop_with; /* returned from every call when non-zero */
};

static int collect(const char *buf, size_t len, void *payload)
{
    struct sink *s = payload;
    char *p = realloc(s->buf, s->len + len + 1);

    if (!p)
        return -100;
    if (s->calls++ > 0 && (s->smallest == 0 || s->last < s->smallest))
        s->smallest = s->last;
    s->last = len;
    memcpy(p + s->len, buf, len);
    s->buf = p;
    s->len += len;
    s->buf[s->len] = '\0';
    return s->stop_with;
}

static int render(gq_db *db,
                  const char *resource,
                  const char *ns,
                  const char *name,
                  const gq_workload_filter *f,
                  gq_format format,
                  struct sink *s,
                  gq_error *err)
{
    memset(s, 0, sizeof(*s));
    return gq_render(db, resource, ns, name, f, format, collect, s, err);
}

/*
 * The value at a dotted path ("status.conditions.0.reason"; "\." for a dot
 * inside a key), as text; NULL if absent.
 */
static const char *at(json_object *root, const char *path)
{
    json_object *v = root;
    const char *p = path;
    char key[128];
    size_t n;

    while (v && *p) {
        for (n = 0; *p && *p != '.' && n + 1 < sizeof(key); p++)
            key[n++] = *p == '\\' && p[1] ? *++p : *p;
        key[n] = '\0';
        if (*p == '.')
            p++;
        if (json_object_is_type(v, json_type_array))
            v = json_object_array_get_idx(v, (size_t)atoi(key));
        else if (!json_object_object_get_ex(v, key, &v))
            v = NULL;
    }
    if (!v)
        return NULL;
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                    : json_object_to_json_string(v);
}

/* --------------------------------------------------------------------- JSON */

static const struct {
    const char *resource;
    const char *name; /* NULL: the List */
    const char *path;
    const char *want; /* NULL: must be absent */
} json_rows[] = {
    {"clusterqueue", "cq", "apiVersion", "kueue.x-k8s.io/v1beta2"},
    {"clusterqueue", "cq", "kind", "ClusterQueue"},
    {"clusterqueue", "cq", "metadata.name", "cq"},
    {"clusterqueue", "cq", "metadata.creationTimestamp", "2026-11-21T05:30:00Z"},
    {"clusterqueue", "cq", "spec.cohortName", "team"},
    {"clusterqueue", "cq", "status.conditions.0.type", "Active"},
    {"clusterqueue", "cq", "status.conditions.0.status", "True"},
    {"clusterqueue", "cq", "status.conditions.0.reason", "Ready"},
    {"clusterqueue", "cq", "status.conditions.0.message", "Can admit new workloads"},
    {"clusterqueue", "cq", "status.pendingWorkloads", "1"},
    {"clusterqueue", "cq", "status.reservingWorkloads", "1"},
    {"clusterqueue", "cq", "status.admittedWorkloads", "1"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.name", "a100"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.0.name", "cpu"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.0.total", "1500m"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.0.borrowed", "0"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.1.name", "memory"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.1.total", "0"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.2.name", "nvidia.com/gpu"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.2.total", "6"},
    {"clusterqueue", "cq", "status.flavorsUsage.0.resources.2.borrowed", "2"},
    {"clusterqueue", "cq", "status.flavorsReservation.0.resources.2.total", "6"},
    {"cq", NULL, "kind", "List"},
    {"cq", NULL, "apiVersion", "v1"},
    {"cq", NULL, "metadata.resourceVersion", ""},
    {"cq", NULL, "items.0.metadata.name", "cq"},
    {"cq", NULL, "items.1", NULL},
    {"localqueue", "lq", "metadata.namespace", "default"},
    {"localqueue", "lq", "spec.clusterQueue", "cq"},
    {"localqueue", "lq", "status.conditions.0.reason", "Ready"},
    {"localqueue", "lq", "status.pendingWorkloads", "1"},
    {"localqueue", "lq", "status.admittedWorkloads", "1"},
    {"localqueue", "lq", "status.flavorsUsage.0.resources.2.total", "6"},
    {"localqueue", "lq", "status.flavorsUsage.0.resources.2.borrowed", NULL},
    {"resourceflavor", "a100", "spec.nodeLabels.cloud\\.google\\.com/gke-accelerator",
     "nvidia-tesla-a100"},
    {"resourceflavor", "a100", "spec.nodeTaints.0.effect", "NoSchedule"},
    {"resourceflavor", "a100", "status", NULL},
    {"wpc", "high", "value", "1000"},
    {"workloadpriorityclass", NULL, "items.0.metadata.name", "high"},
    /* A Job's workload, found by the job's name. */
    {"workload", "train", "kind", "Workload"},
    {"workload", "train", "metadata.uid", "11111111-2222-3333-4444-555555555555"},
    {"workload", "train", "metadata.annotations.provreq\\.kueue\\.x-k8s\\.io/maxRunDurationSeconds",
     "600"},
    {"workload", "train", "metadata.ownerReferences.0.apiVersion", "batch/v1"},
    {"workload", "train", "metadata.ownerReferences.0.kind", "Job"},
    {"workload", "train", "metadata.ownerReferences.0.name", "train"},
    {"workload", "train", "metadata.ownerReferences.0.uid", "11111111-2222-3333-4444-555555555555"},
    {"workload", "train", "metadata.ownerReferences.0.controller", "true"},
    {"workload", "train", "spec.queueName", "lq"},
    {"workload", "train", "status.conditions.0.type", "QuotaReserved"},
    {"workload", "train", "status.conditions.0.status", "False"},
    {"workload", "train", "status.conditions.1", NULL},
    {"workload", "train", "status.admission", NULL},
    {"workload", "train", "status.gpuq.state", "pending"},
    {"workload", "train", "status.gpuq.localQueue", "lq"},
    {"workload", "train", "status.gpuq.clusterQueue", "cq"},
    {"workload", "train", "status.gpuq.positionInLocalQueue", "0"},
    {"workload", "train", "status.gpuq.gpus", "2"},
    {"workload", "train", "status.gpuq.pods", "2"},
    /* An imported Workload: admitted, no owner. */
    {"wl", "imported", "metadata.name", "imported"},
    {"wl", "imported", "metadata.ownerReferences", NULL},
    {"wl", "imported", "status.conditions.0.type", "QuotaReserved"},
    {"wl", "imported", "status.conditions.0.status", "True"},
    {"wl", "imported", "status.conditions.0.message", "Quota reserved in ClusterQueue cq"},
    {"wl", "imported", "status.conditions.1.type", "Admitted"},
    {"wl", "imported", "status.conditions.1.status", "True"},
    {"wl", "imported", "status.gpuq.state", "admitted"},
    {"wl", "imported", "status.gpuq.positionInLocalQueue", NULL},
    {"wl", "imported", "status.gpuq.gpus", "6"},
    {"workloads", NULL, "items.0.metadata.ownerReferences.0.name", "train"},
    {"workloads", NULL, "items.1.metadata.name", "imported"},
    {"job", NULL, "items.2", NULL},
};

static void test_json_fields(void)
{
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    struct sink s;
    size_t i;

    for (i = 0; db && i < NROWS(json_rows); i++) {
        json_object *root;
        const char *got;
        int rc = render(db, json_rows[i].resource, NULL, json_rows[i].name, NULL, GQ_FORMAT_JSON,
                        &s, &err);

        CHECKF(rc == GQ_OK, "row %zu: %d %s", i, rc, err.msg);
        root = json_tokener_parse(s.buf ? s.buf : "");
        CHECKF(root != NULL, "row %zu: output is not JSON", i);
        got = root ? at(root, json_rows[i].path) : NULL;
        if (json_rows[i].want)
            CHECKF(got && strcmp(got, json_rows[i].want) == 0, "row %zu: %s = %s, want %s", i,
                   json_rows[i].path, got ? got : "(absent)", json_rows[i].want);
        else
            CHECKF(!got, "row %zu: %s = %s, want it absent", i, json_rows[i].path, got);
        json_object_put(root);
        free(s.buf);
    }
    gq_db_close(db);
}

/* kubectl's exact framing: four-space indent, "key": value, a List footer, a newline. */
static void test_json_text(void)
{
    static const char empty_list[] = "{\n"
                                     "    \"apiVersion\": \"v1\",\n"
                                     "    \"items\": [],\n"
                                     "    \"kind\": \"List\",\n"
                                     "    \"metadata\": {\n"
                                     "        \"resourceVersion\": \"\"\n"
                                     "    }\n"
                                     "}\n";
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    struct sink s;

    if (!db)
        return;
    CHECK(render(db, "admissioncheck", NULL, NULL, NULL, GQ_FORMAT_JSON, &s, &err) == GQ_OK);
    CHECK_STR(s.buf ? s.buf : "", empty_list);
    free(s.buf);
    CHECK(render(db, "rf", NULL, "a100", NULL, GQ_FORMAT_JSON, &s, &err) == GQ_OK);
    CHECK(s.buf && strncmp(s.buf, "{\n    \"apiVersion\": \"kueue.x-k8s.io/v1beta2\",\n", 45) == 0);
    CHECK(s.buf && strstr(s.buf, "\n        \"nodeLabels\": {\n            \"cloud.google.com/"));
    CHECK(s.buf && s.len > 2 && strcmp(s.buf + s.len - 2, "}\n") == 0);
    CHECK(s.calls == 1);
    free(s.buf);
    CHECK(render(db, "cq", NULL, NULL, NULL, GQ_FORMAT_JSON, &s, &err) == GQ_OK);
    CHECK(s.buf && strstr(s.buf, "    \"items\": [\n        {\n            \"apiVersion\""));
    CHECK(s.buf && strstr(s.buf, "\n    ],\n    \"kind\": \"List\",\n"));
    free(s.buf);
    gq_db_close(db);
}

/* The workload filter selects as gq_workload_list does. */
static void test_filter(void)
{
    static const struct {
        const char *state;
        const char *cluster_queue;
        const char *first; /* the first item's metadata.name prefix, NULL: empty list */
        int count;
    } rows[] = {
        {NULL, NULL, "job-train-", 2},     {"pending", NULL, "job-train-", 1},
        {"admitted", NULL, "imported", 1}, {"finished", NULL, NULL, 0},
        {NULL, "cq", "job-train-", 2},     {NULL, "other", NULL, 0},
    };
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    struct sink s;
    size_t i;

    for (i = 0; db && i < NROWS(rows); i++) {
        gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
        json_object *root, *items = NULL;
        const char *first;

        f.state = rows[i].state;
        f.cluster_queue = rows[i].cluster_queue;
        CHECKF(render(db, "workload", "default", NULL, &f, GQ_FORMAT_JSON, &s, &err) == GQ_OK,
               "row %zu: %s", i, err.msg);
        root = json_tokener_parse(s.buf ? s.buf : "");
        if (root)
            json_object_object_get_ex(root, "items", &items);
        CHECKF(items && (int)json_object_array_length(items) == rows[i].count, "row %zu", i);
        first = root ? at(root, "items.0.metadata.name") : NULL;
        if (rows[i].first)
            CHECKF(first && strncmp(first, rows[i].first, strlen(rows[i].first)) == 0,
                   "row %zu: %s", i, first ? first : "(none)");
        json_object_put(root);
        free(s.buf);
    }
    gq_db_close(db);
}

/* --------------------------------------------------------------------- YAML */

/* Whether text is one or more well-formed YAML documents. */
static bool yaml_parses(const char *text)
{
    yaml_parser_t p;
    yaml_event_t ev;
    bool ok = true, done = false;

    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    while (ok && !done) {
        ok = yaml_parser_parse(&p, &ev) == 1;
        done = ok && ev.type == YAML_STREAM_END_EVENT;
        if (ok)
            yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return ok;
}

static bool has_line(const char *text, const char *want)
{
    size_t n = strlen(want);
    const char *p = text;

    while (p && (p = strstr(p, want)) != NULL) {
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
        p++;
    }
    return false;
}

static const struct {
    const char *resource;
    const char *name;
    const char *line; /* a whole line of the output */
} yaml_rows[] = {
    {"workload", "train", "kind: Workload"},
    {"workload", "train", "  namespace: default"},
    {"workload", "train", "    provreq.kueue.x-k8s.io/maxRunDurationSeconds: \"600\""},
    {"workload", "train", "    team: \"true\""},
    {"workload", "train", "  uid: 11111111-2222-3333-4444-555555555555"},
    {"workload", "train", "  creationTimestamp: \"2026-11-21T05:30:00Z\""},
    {"workload", "train", "  ownerReferences:"},
    {"workload", "train", "  - apiVersion: batch/v1"},
    {"workload", "train", "    controller: true"},
    {"workload", "train", "  podSets:"},
    {"workload", "train", "  - name: main"},
    {"workload", "train", "    count: 2"},
    {"workload", "train", "  - type: QuotaReserved"},
    {"workload", "train", "    status: \"False\""},
    {"workload", "train", "    positionInLocalQueue: 0"},
    {"clusterqueue", NULL, "apiVersion: v1"},
    {"clusterqueue", NULL, "items:"},
    {"clusterqueue", NULL, "- apiVersion: kueue.x-k8s.io/v1beta2"},
    {"clusterqueue", NULL, "  kind: ClusterQueue"},
    {"clusterqueue", NULL, "        total: 1500m"},
    {"clusterqueue", NULL, "        total: \"6\""},
    {"clusterqueue", NULL, "        borrowed: \"2\""},
    {"clusterqueue", NULL, "kind: List"},
    {"clusterqueue", NULL, "metadata:"},
    {"clusterqueue", NULL, "  resourceVersion: \"\""},
    {"clusterqueue", NULL, "    namespaceSelector: {}"},
    {"admissioncheck", NULL, "items: []"},
};

static void test_yaml_lines(void)
{
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    struct sink s;
    size_t i;

    for (i = 0; db && i < NROWS(yaml_rows); i++) {
        int rc = render(db, yaml_rows[i].resource, NULL, yaml_rows[i].name, NULL, GQ_FORMAT_YAML,
                        &s, &err);

        CHECKF(rc == GQ_OK, "row %zu: %d %s", i, rc, err.msg);
        CHECKF(s.buf && has_line(s.buf, yaml_rows[i].line), "row %zu: no line \"%s\" in\n%s", i,
               yaml_rows[i].line, s.buf ? s.buf : "");
        CHECKF(s.buf && yaml_parses(s.buf), "row %zu: not YAML", i);
        CHECKF(s.buf && strncmp(s.buf, "---", 3) != 0 && !strstr(s.buf, "\n..."),
               "row %zu: document markers", i);
        free(s.buf);
    }
    gq_db_close(db);
}

/* Strings that look like numbers, booleans, null or times stay strings. */
static void test_yaml_quoting(void)
{
    static const char *const lines[] = {
        "    q01: \"600\"",
        "    q02: \"true\"",
        "    q03: \"1.0\"",
        "    q04: \"\"",
        "    q05: \"yes\"",
        "    q06: \"null\"",
        "    q07: \"0x1F\"",
        "    q08: \"2026-01-01\"",
        "    q09: \"1e3\"",
        "    q10: \"Off\"",
        "    q11: \"~\"",
        "    q12: \"-5\"",
        "    p01: 10Gi",
        "    p02: hello world",
        "    p03: 1.2.3",
        "    p04: c4abc326-869a",
        "    p05: 996a4efe-13ae",
        "    p06: a long value that goes past eighty columns, which libyaml would fold unless "
        "told otherwise",
        "    m01: |",
        "      echo one",
        "      sleep 2",
        "    m02: |-",
        "      no trailing newline",
        "      here",
    };
    gq_db *db = open_with(quoting_yaml), *copy = NULL;
    gq_error err = {0, ""};
    struct sink s, a, b;
    json_object *x, *y;
    size_t i;

    if (!db)
        return;
    CHECK(render(db, "rf", NULL, "quoting", NULL, GQ_FORMAT_YAML, &s, &err) == GQ_OK);
    for (i = 0; i < NROWS(lines); i++)
        CHECKF(s.buf && has_line(s.buf, lines[i]), "row %zu: no line \"%s\"", i, lines[i]);
    /* Read back, every value is the same string again. */
    CHECK(s.buf && (copy = open_with(s.buf)) != NULL);
    free(s.buf);
    render(db, "rf", NULL, "quoting", NULL, GQ_FORMAT_JSON, &a, &err);
    render(copy, "rf", NULL, "quoting", NULL, GQ_FORMAT_JSON, &b, &err);
    x = json_tokener_parse(a.buf ? a.buf : "");
    y = json_tokener_parse(b.buf ? b.buf : "");
    CHECK(x && y && at(x, "metadata.annotations.q04") &&
          strcmp(at(x, "metadata.annotations"), at(y, "metadata.annotations")) == 0);
    json_object_put(x);
    json_object_put(y);
    free(a.buf);
    free(b.buf);
    gq_db_close(copy);
    gq_db_close(db);
}

/* YAML out of one database applies into another and means the same objects. */
static void test_yaml_round_trip(void)
{
    static const struct {
        const char *resource;
        const char *path; /* what must come back the same */
    } rows[] = {
        {"resourceflavor", "items.0.spec"}, {"cohort", "items.0.spec"},
        {"clusterqueue", "items.0.spec"},   {"localqueue", "items.0.spec"},
        {"wpc", "items.0.value"},           {"localqueue", "items.0.metadata.namespace"},
    };
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    gq_db *db = open_with(setup_yaml), *copy = open_with(quoting_yaml);
    gq_error err = {0, ""};
    struct sink s, a, b;
    size_t i;

    o.now_ms = NOW_MS;
    for (i = 0; db && copy && i < NROWS(rows); i++) {
        CHECK(render(db, rows[i].resource, NULL, NULL, NULL, GQ_FORMAT_YAML, &s, &err) == GQ_OK);
        CHECKF(gq_apply_buffer(copy, s.buf, s.len, "rendered.yaml", &o, NULL, NULL, &err) == GQ_OK,
               "row %zu: %s", i, err.msg);
        free(s.buf);
    }
    for (i = 0; db && copy && i < NROWS(rows); i++) {
        json_object *x, *y;
        const char *want, *got;

        render(db, rows[i].resource, NULL, NULL, NULL, GQ_FORMAT_JSON, &a, &err);
        render(copy, rows[i].resource, NULL, NULL, NULL, GQ_FORMAT_JSON, &b, &err);
        x = json_tokener_parse(a.buf ? a.buf : "");
        y = json_tokener_parse(b.buf ? b.buf : "");
        want = x ? at(x, rows[i].path) : NULL;
        got = y ? at(y, rows[i].path) : NULL;
        CHECKF(want && got && strcmp(want, got) == 0, "row %zu: %s: %s, want %s", i, rows[i].path,
               got ? got : "(absent)", want ? want : "(absent)");
        json_object_put(x);
        json_object_put(y);
        free(a.buf);
        free(b.buf);
    }
    gq_db_close(db);
    gq_db_close(copy);
}

/* ------------------------------------------------------------------- output */

/* Output comes in chunks of 64 KiB, not per line; a non-zero write return stops. */
static void test_sink(void)
{
    static const char job[] =
        "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j%d\n  namespace: default\n"
        "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n  template:\n    spec:\n"
        "      containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]\n"
        "      restartPolicy: Never\n";
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    char *buf = malloc(300 * sizeof(job) + 64);
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    size_t len = 0;
    struct sink s;
    int i, rc;

    o.now_ms = NOW_MS;
    for (i = 0; buf && i < 300; i++)
        len += (size_t)sprintf(buf + len, job, i);
    if (!db || !buf || gq_apply_buffer(db, buf, len, "jobs", &o, NULL, NULL, &err) != GQ_OK) {
        CHECKF(0, "setup: %s", err.msg);
        goto out;
    }
    CHECK(render(db, "workload", NULL, NULL, NULL, GQ_FORMAT_JSON, &s, &err) == GQ_OK);
    CHECKF(s.calls > 1 && s.smallest >= 65536, "%d calls, smallest %zu", s.calls, s.smallest);
    free(s.buf);
    CHECK(render(db, "workload", NULL, NULL, NULL, GQ_FORMAT_YAML, &s, &err) == GQ_OK);
    CHECKF(s.calls > 1 && s.smallest >= 65536, "%d calls, smallest %zu", s.calls, s.smallest);
    free(s.buf);
    memset(&s, 0, sizeof(s));
    s.stop_with = 7;
    rc = gq_render(db, "workload", NULL, NULL, NULL, GQ_FORMAT_YAML, collect, &s, &err);
    CHECKF(rc == 7 && s.calls == 1, "rc %d after %d calls", rc, s.calls);
    free(s.buf);
out:
    free(buf);
    gq_db_close(db);
}

/* Queues that cannot admit say why, in Kueue's words. */
static void test_inactive(void)
{
    static const struct {
        const char *resource;
        const char *ns;
        const char *name;
        const char *path;
        const char *want;
    } rows[] = {
        {"cq", NULL, "broken", "status.conditions.0.status", "False"},
        {"cq", NULL, "broken", "status.conditions.0.reason", "FlavorNotFound"},
        {"cq", NULL, "broken", "status.conditions.0.message",
         "Can't admit new workloads: references missing ResourceFlavor h100."},
        {"cq", NULL, "held", "status.conditions.0.reason", "Stopped"},
        {"lq", "ml", "to-broken", "status.conditions.0.status", "False"},
        {"lq", "ml", "to-broken", "status.conditions.0.reason", "ClusterQueueIsInactive"},
        {"lq", "ml", "orphan", "status.conditions.0.reason", "ClusterQueueDoesNotExist"},
        {"lq", NULL, "orphan", "metadata.namespace", "ml"},
    };
    gq_db *db = open_with(inactive_yaml);
    gq_error err = {0, ""};
    struct sink s;
    size_t i;

    for (i = 0; db && i < NROWS(rows); i++) {
        json_object *root;
        const char *got;

        CHECKF(render(db, rows[i].resource, rows[i].ns, rows[i].name, NULL, GQ_FORMAT_JSON, &s,
                      &err) == GQ_OK,
               "row %zu: %s", i, err.msg);
        root = json_tokener_parse(s.buf ? s.buf : "");
        got = root ? at(root, rows[i].path) : NULL;
        CHECKF(got && strcmp(got, rows[i].want) == 0, "row %zu: %s = %s", i, rows[i].path,
               got ? got : "(absent)");
        json_object_put(root);
        free(s.buf);
    }
    gq_db_close(db);
}

/* ----------------------------------------------------------------- describe */

/*
 * Whether some line of text, with runs of spaces collapsed and ends trimmed,
 * equals want word for word; "*" in want matches any one word.
 */
static bool has_words(const char *text, const char *want)
{
    const char *line = text;

    while (line && *line) {
        const char *end = strchr(line, '\n'), *p = line, *w = want;
        bool ok = true;

        if (!end)
            end = line + strlen(line);
        while (ok) {
            while (p < end && *p == ' ')
                p++;
            while (*w == ' ')
                w++;
            if (p == end || !*w) {
                ok = p == end && !*w;
                break;
            }
            if (*w == '*' && (w[1] == ' ' || !w[1])) {
                while (p < end && *p != ' ')
                    p++;
                w++;
                continue;
            }
            while (p < end && *w && *p != ' ' && *p == *w)
                p++, w++;
            ok = (p == end || *p == ' ') && (!*w || *w == ' ');
        }
        if (ok)
            return true;
        line = *end ? end + 1 : NULL;
    }
    return false;
}

static const struct {
    const char *resource;
    const char *ns;
    const char *name;
    const char *words; /* one line, spaces collapsed */
} describe_rows[] = {
    {"clusterqueue", NULL, "cq", "Name: cq"},
    {"clusterqueue", NULL, "cq", "Creation Timestamp: 2026-11-21T05:30:00Z"},
    {"clusterqueue", NULL, "cq", "Cohort: team"},
    {"clusterqueue", NULL, "cq", "Queueing Strategy: BestEffortFIFO"},
    {"clusterqueue", NULL, "cq", "Stop Policy: None"},
    {"clusterqueue", NULL, "cq", "Namespace Selector: <all namespaces>"},
    {"clusterqueue", NULL, "cq", "Within Cluster Queue: Never"},
    {"clusterqueue", NULL, "cq", "Resource Groups:"},
    {"clusterqueue", NULL, "cq", "Flavor Resource Nominal Borrowing Limit Lending Limit Usage"},
    {"clusterqueue", NULL, "cq", "a100 cpu 10 <none> <none> 1500m"},
    {"clusterqueue", NULL, "cq", "a100 memory 64Gi <none> <none> 0"},
    {"clusterqueue", NULL, "cq", "a100 nvidia.com/gpu 4 2 <none> 6"},
    {"clusterqueue", NULL, "cq", "Admission Checks: <none>"},
    {"clusterqueue", NULL, "cq", "Active: True"},
    {"clusterqueue", NULL, "cq", "Reason: Ready"},
    {"clusterqueue", NULL, "cq", "Message: Can admit new workloads"},
    {"clusterqueue", NULL, "cq", "Pending Workloads: 1"},
    {"clusterqueue", NULL, "cq", "Reserving Workloads: 1"},
    {"clusterqueue", NULL, "cq", "Admitted Workloads: 1"},
    {"clusterqueue", NULL, "cq", "Events:"},
    {"clusterqueue", NULL, "cq", "Type Reason Age From Message"},
    {"clusterqueue", NULL, "cq", "Normal Created * gpuq"},
    {"cq", "ignored", "cq", "Name: cq"},
    {"localqueue", "default", "lq", "Namespace: default"},
    {"localqueue", NULL, "lq", "Cluster Queue: cq"},
    {"localqueue", NULL, "lq", "Message: Can submit new workloads to localQueue"},
    {"localqueue", NULL, "lq", "Pending Workloads: 1"},
    {"localqueue", NULL, "lq", "Admitted Workloads: 1"},
    {"resourceflavor", NULL, "a100",
     "Node Labels: cloud.google.com/gke-accelerator=nvidia-tesla-a100"},
    {"resourceflavor", NULL, "a100", "Node Taints: nvidia.com/gpu=present:NoSchedule"},
    {"resourceflavor", NULL, "a100", "Tolerations: nvidia.com/gpu:NoSchedule op=Exists"},
    {"resourceflavor", NULL, "a100", "Topology Name: <none>"},
    {"resourceflavor", NULL, "a100", "Cluster Queues: cq"},
    {"cohort", NULL, "team", "Parent: <none>"},
    {"cohort", NULL, "team", "Resource Groups: <none>"},
    {"cohort", NULL, "team", "Cluster Queues: cq"},
    {"workloadpriorityclass", NULL, "high", "Kind: WorkloadPriorityClass"},
    {"wpc", NULL, "high", "Value: 1000"},
    {"wpc", NULL, "high", "Description: important"},
    /* A Job's workload, by job name. */
    {"workload", "default", "train", "Namespace: default"},
    {"workload", NULL, "train", "UID: 11111111-2222-3333-4444-555555555555"},
    {"workload", NULL, "train", "Labels: kueue.x-k8s.io/priority-class=high"},
    {"workload", NULL, "train", "kueue.x-k8s.io/queue-name=lq"},
    {"workload", NULL, "train", "Annotations: provreq.kueue.x-k8s.io/maxRunDurationSeconds: 600"},
    {"workload", NULL, "train", "Job: Job/train"},
    {"workload", NULL, "train", "Local Queue: lq"},
    {"workload", NULL, "train", "Cluster Queue: cq"},
    {"workload", NULL, "train", "Priority Class: high"},
    {"workload", NULL, "train", "Priority: 1000"},
    {"workload", NULL, "train", "State: pending"},
    {"workload", NULL, "train", "Position in LocalQueue: 0"},
    {"workload", NULL, "train", "Pods: 2"},
    {"workload", NULL, "train", "GPUs: 2"},
    {"workload", NULL, "train", "Created: 2026-11-21T05:30:00Z"},
    {"workload", NULL, "train", "Admitted: <none>"},
    {"workload", NULL, "train", "Pod Sets:"},
    {"workload", NULL, "train", "Name Count Resource Per Pod Total"},
    {"workload", NULL, "train", "main 2 cpu 1500m 3"},
    {"workload", NULL, "train", "memory 1Gi 2Gi"},
    {"workload", NULL, "train", "nvidia.com/gpu 1 2"},
    {"workload", NULL, "train", "Normal Submitted * gpuq"},
    {"job", NULL, "train", "Job: Job/train"},
    {"workload", NULL, "imported", "Job: Workload/imported"},
    {"workload", NULL, "imported", "State: admitted"},
    {"workload", NULL, "imported", "Admitted: 2026-11-21T05:30:00Z"},
    {"workload", NULL, "imported", "main 3 cpu 500m 1500m"},
    {"workload", NULL, "imported", "Normal Imported * gpuq"},
};

static void test_describe(void)
{
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    size_t i;

    for (i = 0; db && i < NROWS(describe_rows); i++) {
        char *text = NULL;
        int rc = gq_describe(db, describe_rows[i].resource, describe_rows[i].ns,
                             describe_rows[i].name, &text, &err);

        CHECKF(rc == GQ_OK, "row %zu: %d %s", i, rc, err.msg);
        CHECKF(text && has_words(text, describe_rows[i].words), "row %zu: no line \"%s\" in\n%s", i,
               describe_rows[i].words, text ? text : "");
        gq_free(text);
    }
    gq_db_close(db);
}

/* Alignment as kubectl's tabwriter gives it: one value column per block, tables apart. */
static void test_describe_layout(void)
{
    static const char *const lines[] = {
        "Name:                cq\n",
        "Namespace Selector:  <all namespaces>\n",
        "Preemption:\n  Within Cluster Queue:   Never\n  Reclaim Within Cohort:  Never\n",
        "Resource Groups:\n  Flavor  Resource        Nominal  Borrowing Limit  Lending Limit  "
        "Usage\n  ------  --------        -------  ---------------  -------------  -----\n",
        "\nAdmission Checks:  <none>\n",
        "\nStatus:\n  Active:               True\n",
        "\nEvents:\n  Type    Reason   Age",
    };
    gq_db *db = open_with(setup_yaml);
    gq_error err = {0, ""};
    char *text = NULL;
    size_t i;

    if (!db)
        return;
    CHECK(gq_describe(db, "cq", NULL, "cq", &text, &err) == GQ_OK);
    for (i = 0; i < NROWS(lines); i++)
        CHECKF(text && strstr(text, lines[i]), "row %zu: no \"%s\" in\n%s", i, lines[i],
               text ? text : "");
    CHECK(text && text[strlen(text) - 1] == '\n');
    gq_free(text);
    gq_db_close(db);
}

static void test_describe_inactive(void)
{
    static const struct {
        const char *resource;
        const char *name;
        const char *words;
    } rows[] = {
        {"cq", "broken", "Active: False"},
        {"cq", "broken", "Reason: FlavorNotFound"},
        {"cq", "broken", "Namespace Selector: <none>"},
        {"cq", "held", "Reason: Stopped"},
        {"cq", "held", "Stop Policy: Hold"},
        {"cq", "held", "Namespace Selector: team=ml,tier in (a,b),gpu,!spot"},
        {"cq", "held", "Resource Groups: <none>"},
        {"lq", "to-broken", "Reason: ClusterQueueIsInactive"},
        {"lq", "orphan", "Reason: ClusterQueueDoesNotExist"},
    };
    gq_db *db = open_with(inactive_yaml);
    gq_error err = {0, ""};
    size_t i;

    for (i = 0; db && i < NROWS(rows); i++) {
        char *text = NULL;

        CHECKF(gq_describe(db, rows[i].resource, "ml", rows[i].name, &text, &err) == GQ_OK,
               "row %zu: %s", i, err.msg);
        CHECKF(text && has_words(text, rows[i].words), "row %zu: no line \"%s\" in\n%s", i,
               rows[i].words, text ? text : "");
        gq_free(text);
    }
    gq_db_close(db);
}

/* Values with newlines or tabs stay on their line, so the columns hold. */
static void test_describe_one_line(void)
{
    static const char *const rows[] = {
        "Annotations: m01: echo one\\nsleep 2\\n",
        "m02: no trailing newline\\nhere",
        "q04:",
        "Node Labels: <none>",
    };
    gq_db *db = open_with(quoting_yaml);
    gq_error err = {0, ""};
    char *text = NULL;
    size_t i;

    if (!db)
        return;
    CHECK(gq_describe(db, "resourceflavor", NULL, "quoting", &text, &err) == GQ_OK);
    for (i = 0; i < NROWS(rows); i++)
        CHECKF(text && has_words(text, rows[i]), "row %zu: no line \"%s\" in\n%s", i, rows[i],
               text ? text : "");
    gq_free(text);
    gq_db_close(db);
}

/* ------------------------------------------------------------------- errors */

static void test_errors(void)
{
    static const struct {
        bool describe;
        const char *resource;
        const char *ns;
        const char *name;
        int code;
        const char *msg;
    } rows[] = {
        {false, "clusterqueue", NULL, "nope", GQ_ENOTFOUND, "clusterqueue \"nope\" not found"},
        {false, "lq", "other", "lq", GQ_ENOTFOUND, "localqueue \"lq\" not found"},
        {false, "workload", NULL, "nope", GQ_ENOTFOUND, "workload \"nope\" not found"},
        {false, "workload", "other", "train", GQ_ENOTFOUND, "workload \"train\" not found"},
        {false, "bogus", NULL, NULL, GQ_EINVALID,
         "the server doesn't have a resource type \"bogus\""},
        {true, "clusterqueue", NULL, "nope", GQ_ENOTFOUND, "clusterqueue \"nope\" not found"},
        {true, "rf", NULL, "nope", GQ_ENOTFOUND, "resourceflavor \"nope\" not found"},
        {true, "wpc", NULL, "nope", GQ_ENOTFOUND, "workloadpriorityclass \"nope\" not found"},
        {true, "localqueue", "other", "lq", GQ_ENOTFOUND, "localqueue \"lq\" not found"},
        {true, "workload", NULL, "nope", GQ_ENOTFOUND,
         "workload \"nope\" not found in namespace \"default\""},
        {true, "bogus", NULL, "x", GQ_EINVALID,
         "the server doesn't have a resource type \"bogus\""},
    };
    gq_db *db = open_with(setup_yaml);
    size_t i;

    for (i = 0; db && i < NROWS(rows); i++) {
        gq_error err = {0, ""};
        struct sink s;
        char *text = NULL;
        int rc;

        if (rows[i].describe)
            rc = gq_describe(db, rows[i].resource, rows[i].ns, rows[i].name, &text, &err);
        else
            rc = render(db, rows[i].resource, rows[i].ns, rows[i].name, NULL, GQ_FORMAT_JSON, &s,
                        &err);
        CHECKF(rc == rows[i].code, "row %zu: rc %d, want %d", i, rc, rows[i].code);
        CHECK_STR(err.msg, rows[i].msg);
        CHECKF(rows[i].describe ? text == NULL : s.len == 0, "row %zu: output on error", i);
        if (!rows[i].describe)
            free(s.buf);
    }
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(test_json_fields);
    TEST_RUN(test_json_text);
    TEST_RUN(test_filter);
    TEST_RUN(test_yaml_lines);
    TEST_RUN(test_yaml_quoting);
    TEST_RUN(test_yaml_round_trip);
    TEST_RUN(test_sink);
    TEST_RUN(test_inactive);
    TEST_RUN(test_describe);
    TEST_RUN(test_describe_layout);
    TEST_RUN(test_describe_inactive);
    TEST_RUN(test_describe_one_line);
    TEST_RUN(test_errors);
    return TEST_DONE();
}
