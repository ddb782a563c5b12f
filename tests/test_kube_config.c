/*
 * test_kube_config.c: the Kubernetes client's configuration half (kube.h):
 * kubeconfig parsing (manifest_kubeconfig.c), resolution and merge, the
 * chosen context's validation, the in-cluster service account, and
 * gq__kube_auth's token file and exec plugin (kube_exec.c).
 *
 * Every case works in a fresh directory under /tmp, and the environment
 * variables the loader reads are cleared before each case and restored at
 * the end. Files are written by the tests with explicit modes (a checkout
 * may lose them), exec plugins included: small /bin/sh scripts. Secrets in
 * these fixtures contain "s3cr3t", and every error message is checked not
 * to contain it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kube.h"
#include "kube_exec.h"
#include "manifest_kubeconfig.h"
#include "os.h"
#include "test.h"
#include "util.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static char tmp[64]; /* this run's scratch directory */

/* ------------------------------------------------------------------ fixture */

static const char *const env_names[] = {"KUBECONFIG",
                                        "HOME",
                                        "KUBERNETES_SERVICE_HOST",
                                        "KUBERNETES_SERVICE_PORT",
                                        "POD_NAMESPACE",
                                        "GQ_SERVICEACCOUNT_DIR"};
static char *env_saved[NROWS(env_names)];

static void env_save(void)
{
    size_t i;

    for (i = 0; i < NROWS(env_names); i++)
        env_saved[i] = gq__strdup(getenv(env_names[i]));
}

static void env_restore(void)
{
    size_t i;

    for (i = 0; i < NROWS(env_names); i++) {
        if (env_saved[i])
            setenv(env_names[i], env_saved[i], 1);
        else
            unsetenv(env_names[i]);
        free(env_saved[i]);
    }
}

/* tmp/name into buf. */
static const char *at(char *buf, const char *name)
{
    snprintf(buf, 512, "%s/%s", tmp, name);
    return buf;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");

    CHECKF(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

/* A fresh case: an empty scratch directory, no configuration in the environment. */
static void fresh(void)
{
    char cmd[128], home[512];
    size_t i;

    snprintf(cmd, sizeof(cmd), "rm -rf %s/* 2>/dev/null", tmp);
    CHECK(system(cmd) == 0);
    for (i = 0; i < NROWS(env_names); i++)
        unsetenv(env_names[i]);
    mkdir(at(home, "home"), 0700);
    setenv("HOME", home, 1);
}

static bool has(const gq_error *e, const char *s)
{
    return strstr(e->msg, s) != NULL;
}

/* Load with --kubeconfig path (NULL: none) and --context. */
static int load(struct gq_kube_config *cfg, const char *path, const char *context, gq_error *e)
{
    struct gq_kube_config_opts o = {path, context, NULL, false};

    memset(e, 0, sizeof(*e));
    return gq__kube_config_load(cfg, &o, e);
}

/* ------------------------------------------------------------------ parsing */

static void parse_fields(void)
{
    static const char text[] =
        "apiVersion: v1\n"
        "kind: Config\n"
        "current-context: a\n"
        "clusters:\n"
        "- name: c\n"
        "  cluster:\n"
        "    server: https://k.example:6443\n"
        "    certificate-authority: certs/ca.pem\n"
        "    certificate-authority-data: |\n      aGVs\n      bG8=\n"
        "    insecure-skip-tls-verify: false\n"
        "users:\n"
        "- name: u\n"
        "  user:\n"
        "    client-certificate: /abs/cert.pem\n"
        "    client-key-data: AAH/\n"
        "    tokenFile: tok\n"
        "    exec:\n"
        "      command: ./bin/plugin\n"
        "      args: [get-token, '--x=1']\n"
        "      env: [{name: A, value: b}, {name: EMPTY}]\n"
        "      apiVersion: client.authentication.k8s.io/v1\n"
        "      interactiveMode: Never\n"
        "      provideClusterInfo: true\n"
        "      installHint: apt install it\n"
        "- name: p\n"
        "  user: {exec: {command: gke-gcloud-auth-plugin}, auth-provider: {name: gcp}, as: x}\n"
        "contexts:\n"
        "- name: a\n"
        "  context: {cluster: c, user: u, namespace: 123}\n"
        "- name: b\n"
        "  context: null\n";
    struct gq__kubeconfig kc;
    gq_error e = {0};
    int rc;

    rc = gq__manifest_kubeconfig_parse(&kc, text, strlen(text), "/etc/kc/config", &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    if (rc != GQ_OK)
        return;
    CHECK_STR(kc.current_context, "a");
    CHECK(kc.nclusters == 1 && kc.nusers == 2 && kc.ncontexts == 2);
    CHECK_STR(kc.clusters[0].ca_file, "/etc/kc/certs/ca.pem");
    CHECK(kc.clusters[0].ca_len == 5 && memcmp(kc.clusters[0].ca_data, "hello", 6) == 0);
    CHECK(!kc.clusters[0].insecure);
    CHECK_STR(kc.users[0].cert_file, "/abs/cert.pem");
    CHECK(kc.users[0].key_len == 3 && memcmp(kc.users[0].key_data, "\x00\x01\xff", 3) == 0);
    CHECK_STR(kc.users[0].token_file, "/etc/kc/tok");
    CHECK_STR(kc.users[0].exec->command, "/etc/kc/./bin/plugin");
    CHECK(kc.users[0].exec->nargs == 2 && strcmp(kc.users[0].exec->args[1], "--x=1") == 0);
    CHECK(kc.users[0].exec->nenv == 2);
    CHECK_STR(kc.users[0].exec->env[0], "A=b");
    CHECK_STR(kc.users[0].exec->env[1], "EMPTY=");
    CHECK(kc.users[0].exec->provide_cluster_info);
    CHECK_STR(kc.users[0].exec->install_hint, "apt install it");
    /* A bare command name is looked up in PATH, not resolved. */
    CHECK_STR(kc.users[1].exec->command, "gke-gcloud-auth-plugin");
    CHECK_STR(kc.users[1].auth_provider, "gcp");
    CHECK_STR(kc.users[1].impersonate, "as");
    CHECK_STR(kc.contexts[0].namespace, "123");
    CHECK(kc.contexts[1].cluster == NULL);
    gq__manifest_kubeconfig_free(&kc);
}

/* *-data is base64 as Go's StdEncoding reads it: padding required, CR/LF skipped. */
static void parse_base64(void)
{
    static const struct {
        const char *b64;
        const char *bytes; /* NULL: an error */
        size_t len;
        const char *where;
    } rows[] = {
        {"YQ==", "a", 1, NULL},
        {"YWI=", "ab", 2, NULL},
        {"YWJj", "abc", 3, NULL},
        {"AAH/\\r\\nAA==", "\x00\x01\xff\x00", 4, NULL}, /* YAML escapes: CR LF */
        {"/+/+", "\xff\xef\xfe", 3, NULL},
        {"YWJ", NULL, 0, "byte 3"},
        {"Y!==", NULL, 0, "byte 1"},
        {"Y===", NULL, 0, "byte 1"},
        {"YW=j", NULL, 0, "byte 2"},
        {"YQ==YQ==", NULL, 0, "byte 4"},
        {"YWJj YWJj", NULL, 0, "byte 4"},
        {"-_==", NULL, 0, "byte 0"},
    };
    char text[256];
    struct gq__kubeconfig kc;
    gq_error e;
    size_t i;
    int rc;

    for (i = 0; i < NROWS(rows); i++) {
        snprintf(text, sizeof(text),
                 "clusters:\n- name: c\n  cluster: {certificate-authority-data: \"%s\"}\n",
                 rows[i].b64);
        memset(&e, 0, sizeof(e));
        rc = gq__manifest_kubeconfig_parse(&kc, text, strlen(text), "kc", &e);
        if (rows[i].bytes) {
            CHECKF(rc == GQ_OK, "row %zu: %s", i, e.msg);
            CHECKF(rc == GQ_OK && kc.clusters[0].ca_len == rows[i].len &&
                       memcmp(kc.clusters[0].ca_data, rows[i].bytes, rows[i].len) == 0,
                   "row %zu", i);
        } else {
            CHECKF(rc == GQ_EINVALID && has(&e, "certificate-authority-data: illegal base64") &&
                       has(&e, rows[i].where) && has(&e, "cluster \"c\""),
                   "row %zu: %s", i, e.msg);
        }
        gq__manifest_kubeconfig_free(&kc);
    }
}

/* Shapes the parser refuses, and the message naming the place. */
static void parse_errors(void)
{
    static const struct {
        const char *text;
        const char *want;
    } rows[] = {
        {"clusters: {c: 1}\n", "clusters: must be a list"},
        {"clusters: [x]\n", "clusters[0]: must be a mapping"},
        {"users: [{user: {}}]\n", "users[0]: name is required"},
        {"contexts: [{name: a}, {name: b}, {name: a}]\n", "duplicate name \"a\" in contexts"},
        {"clusters: [{name: c, cluster: {insecure-skip-tls-verify: \"yes\"}}]\n",
         "cluster \"c\": insecure-skip-tls-verify: must be true or false"},
        {"users: [{name: u, user: {token: [a]}}]\n", "user \"u\": token: must be a string"},
        {"users: [{name: u, user: {exec: {args: [{}]}}}]\n", "exec: args: each entry"},
        {"users: [{name: u, user: {exec: {env: [{value: x}]}}}]\n", "exec: env: a variable"},
        {"kind: Pod\n", "kind is not Config"},
        {"apiVersion: v2\n", "apiVersion is not v1"},
        {"current-context: a\n---\ncurrent-context: b\n", "more than one document"},
        {"a: &x 1\nb: *x\n", "alias"},
        {"clusters: [\n", "kubeconfig kc: "},
    };
    struct gq__kubeconfig kc;
    gq_error e;
    size_t i;
    int rc;

    for (i = 0; i < NROWS(rows); i++) {
        memset(&e, 0, sizeof(e));
        rc = gq__manifest_kubeconfig_parse(&kc, rows[i].text, strlen(rows[i].text), "kc", &e);
        CHECKF(rc == GQ_EINVALID && has(&e, rows[i].want) &&
                   strncmp(e.msg, "kubeconfig kc", 13) == 0,
               "row %zu: rc %d: %s", i, rc, e.msg);
        CHECK(kc.nclusters == 0 && kc.path == NULL);
    }
    /* An empty file is an empty configuration. */
    CHECK(gq__manifest_kubeconfig_parse(&kc, "", 0, "kc", &e) == GQ_OK && kc.ncontexts == 0);
    gq__manifest_kubeconfig_free(&kc);
}

/* ------------------------------------------------------------- resolution */

/* Two files for the merge: a.yaml and b/b.yaml (a subdirectory, for relative paths). */
static const char merge_a[] = "current-context: ctx-a\n"
                              "clusters:\n"
                              "- name: shared\n"
                              "  cluster: {server: \"https://a.example/\"}\n"
                              "users:\n"
                              "- name: ua\n"
                              "  user: {token: s3cr3t-a}\n"
                              "contexts:\n"
                              "- name: ctx-a\n"
                              "  context: {cluster: shared, user: ua}\n"
                              "- name: ctx-shared\n"
                              "  context: {cluster: shared, user: ub, namespace: from-a}\n";
static const char merge_b[] =
    "current-context: ctx-b\n"
    "clusters:\n"
    "- name: shared\n"
    "  cluster: {server: \"https://b.example\", certificate-authority: ca.pem}\n"
    "- name: only-b\n"
    "  cluster: {server: \"https://only-b.example:443//\", "
    "certificate-authority: ca.pem}\n"
    "users:\n"
    "- name: ub\n"
    "  user: {client-certificate: c.pem, client-key: k.pem}\n"
    "contexts:\n"
    "- name: ctx-b\n"
    "  context: {cluster: only-b, user: ub, namespace: team-b}\n"
    "- name: ctx-shared\n"
    "  context: {cluster: only-b, user: ua, namespace: from-b}\n";

static void write_merge_files(void)
{
    char p[512];

    mkdir(at(p, "b"), 0755);
    write_file(at(p, "a.yaml"), merge_a, 0600);
    write_file(at(p, "b/b.yaml"), merge_b, 0600);
    write_file(at(p, "b/ca.pem"), "CA", 0644);
    write_file(at(p, "b/c.pem"), "CERT", 0644);
    write_file(at(p, "b/k.pem"), "KEY", 0600);
}

static void merge_rules(void)
{
    struct gq_kube_config cfg;
    char list[2048], a[512], b[512], want[512];
    gq_error e;
    int rc;

    fresh();
    write_merge_files();
    snprintf(list, sizeof(list), "%s:%s", at(a, "a.yaml"), at(b, "b/b.yaml"));
    setenv("KUBECONFIG", list, 1);
    /* current-context: the first file that sets it. */
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    CHECK_STR(cfg.context, "ctx-a");
    CHECK_STR(cfg.server, "https://a.example");
    /* The first file's "shared" wins whole: b's certificate-authority is not merged in. */
    CHECK(cfg.ca_file == NULL && cfg.ca_pem == NULL);
    CHECK_STR(cfg.token, "s3cr3t-a");
    CHECK_STR(cfg.namespace, "default");
    gq__kube_config_free(&cfg);
    /* ctx-shared from a (user ub from b); relative paths against b's directory. */
    rc = load(&cfg, NULL, "ctx-shared", &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    CHECK_STR(cfg.namespace, "from-a");
    CHECK_STR(cfg.cert_file, at(want, "b/c.pem"));
    CHECK_STR(cfg.key_file, at(want, "b/k.pem"));
    CHECK(cfg.token == NULL);
    gq__kube_config_free(&cfg);
    rc = load(&cfg, NULL, "ctx-b", &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    CHECK_STR(cfg.server, "https://only-b.example:443");
    CHECK_STR(cfg.ca_file, at(want, "b/ca.pem"));
    CHECK_STR(cfg.namespace, "team-b");
    gq__kube_config_free(&cfg);
    /* The other order: b's current-context and b's "shared". */
    snprintf(list, sizeof(list), "%s:%s", b, a);
    setenv("KUBECONFIG", list, 1);
    rc = load(&cfg, NULL, "ctx-a", &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    CHECK_STR(cfg.server, "https://b.example");
    CHECK_STR(cfg.ca_file, at(want, "b/ca.pem"));
    gq__kube_config_free(&cfg);
}

/* KUBECONFIG: empty entries, repeats and missing files are skipped. */
static void kubeconfig_list(void)
{
    struct gq_kube_config cfg;
    char list[4096], a[512], b[512], m[512];
    struct gq_kube_config_opts o = {NULL, NULL, "override", false};
    gq_error e = {0};
    int rc;

    fresh();
    write_merge_files();
    snprintf(list, sizeof(list), ":%s::%s:%s:%s:", at(m, "missing.yaml"), at(b, "b/b.yaml"),
             at(a, "a.yaml"), b);
    setenv("KUBECONFIG", list, 1);
    rc = gq__kube_config_load(&cfg, &o, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    CHECK_STR(cfg.context, "ctx-b");
    CHECK_STR(cfg.namespace, "override");
    gq__kube_config_free(&cfg);
    /* Only missing files: no configuration at all. */
    snprintf(list, sizeof(list), "%s:%s", m, m);
    setenv("KUBECONFIG", list, 1);
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_ENOTFOUND && has(&e, "no configuration"), "%d %s", rc, e.msg);
    /* --kubeconfig is used alone, and must exist. */
    rc = load(&cfg, a, NULL, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.context, "ctx-a") == 0, "%s", e.msg);
    gq__kube_config_free(&cfg);
    rc = load(&cfg, m, NULL, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, m) && has(&e, "no such file"), "%d %s", rc, e.msg);
    CHECK(cfg.server == NULL);
    /* An unparsable file in the list is an error naming it. */
    write_file(at(m, "bad.yaml"), "clusters: [\n", 0600);
    snprintf(list, sizeof(list), "%s:%s", a, m);
    setenv("KUBECONFIG", list, 1);
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, m), "%d %s", rc, e.msg);
}

/* Without KUBECONFIG: $HOME/.kube/config when it exists. */
static void home_config(void)
{
    struct gq_kube_config cfg;
    char p[512];
    gq_error e;
    int rc;

    fresh();
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_ENOTFOUND, "%d %s", rc, e.msg);
    CHECK_STR(e.msg, "no configuration: set --kubeconfig or KUBECONFIG, or run in a cluster");
    mkdir(at(p, "home/.kube"), 0700);
    write_file(at(p, "home/.kube/config"), merge_a, 0600);
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.context, "ctx-a") == 0, "%s", e.msg);
    gq__kube_config_free(&cfg);
    /* A --context with no configuration names the context. */
    setenv("KUBECONFIG", "/nonexistent/gq", 1);
    rc = load(&cfg, NULL, "x", &e);
    CHECKF(rc == GQ_EINVALID && has(&e, "context was not found for specified context: x"), "%s",
           e.msg);
}

/* Group- or world-writable kubeconfig and token files are refused. */
static void writable_files(void)
{
    struct gq_kube_config cfg;
    struct gq_kube_auth auth;
    char p[512], text[1024];
    gq_error e;
    int rc;

    fresh();
    write_file(at(p, "kc.yaml"), merge_a, 0666);
    rc = load(&cfg, p, NULL, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, p) && has(&e, "writable by group or others"), "%s", e.msg);
    snprintf(text, sizeof(text),
             "current-context: x\nclusters: [{name: c, cluster: {server: 'https://k'}}]\n"
             "users: [{name: u, user: {tokenFile: tok}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n");
    write_file(p, text, 0600);
    write_file(at(text, "tok"), "s3cr3t-file\n", 0620);
    rc = load(&cfg, p, NULL, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    rc = gq__kube_auth(&cfg, false, 1000, &auth, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, text) && !has(&e, "s3cr3t"), "%s", e.msg);
    gq__kube_config_free(&cfg);
}

/* ------------------------------------------------------------- validation */

#define EXEC_V1 "apiVersion: client.authentication.k8s.io/v1"

/* One kubeconfig built from its parts, each a flow mapping; NULL: the default. */
struct vrow {
    const char *cluster; /* cluster "c" */
    const char *user;    /* user "u" */
    const char *context; /* context "ctx" */
    const char *current; /* current-context line, "" for none */
    const char *choose;  /* --context */
    int rc;
    const char *want; /* in the message, or on success the server */
};

static const struct vrow vrows[] = {
    /* Successes: the server as stored. */
    {NULL, NULL, NULL, NULL, NULL, GQ_OK, "https://k.example:6443"},
    /* http: a local endpoint without credentials, as `kubectl proxy` serves. */
    {"{server: 'http://127.0.0.1:8080/'}", "{}", NULL, NULL, NULL, GQ_OK, "http://127.0.0.1:8080"},
    {"{server: 'http://localhost'}", "{}", NULL, NULL, NULL, GQ_OK, "http://localhost"},
    {"{server: 'http://[::1]:1/x/'}", "{}", NULL, NULL, NULL, GQ_OK, "http://[::1]:1/x"},
    {"{server: 'http://localhost'}", NULL, "{cluster: c}", NULL, NULL, GQ_OK, "http://localhost"},
    {"{server: 'https://k/', insecure-skip-tls-verify: true}", NULL, NULL, NULL, NULL, GQ_OK,
     "https://k"},
    {NULL, "{}", NULL, NULL, NULL, GQ_OK, "https://k.example:6443"},
    {NULL, "{token: s3cr3t, client-certificate-data: QQ==, client-key-data: Qg==}", NULL, NULL,
     NULL, GQ_OK, "https://k.example:6443"},
    {NULL, "{exec: {command: p, apiVersion: client.authentication.k8s.io/v1beta1}}", NULL, NULL,
     NULL, GQ_OK, "https://k.example:6443"},
    {NULL, NULL, "{cluster: c}", NULL, NULL, GQ_OK, "https://k.example:6443"},
    /* Choosing the context. */
    {NULL, NULL, NULL, "", NULL, GQ_EINVALID, "no context chosen"},
    {NULL, NULL, NULL, "current-context: nope\n", NULL, GQ_EINVALID,
     "context was not found for specified context: nope"},
    {NULL, NULL, NULL, "", "other", GQ_EINVALID,
     "context was not found for specified context: other"},
    {NULL, NULL, "{cluster: nope, user: u}", NULL, NULL, GQ_EINVALID,
     "cluster \"nope\" was not found for context \"ctx\""},
    {NULL, NULL, "{cluster: c, user: nope}", NULL, NULL, GQ_EINVALID,
     "user \"nope\" was not found for context \"ctx\""},
    {NULL, NULL, "{user: u}", NULL, NULL, GQ_EINVALID, "context \"ctx\" names no cluster"},
    /* Clusters. */
    {"{certificate-authority-data: QQ==}", NULL, NULL, NULL, NULL, GQ_EINVALID,
     "no server found for cluster \"c\""},
    {"{server: 'http://k.example'}", NULL, NULL, NULL, NULL, GQ_EINVALID,
     "http is allowed only for localhost"},
    /* Issue 13 F10: a credential is never sent in clear text, even to localhost. */
    {"{server: 'http://127.0.0.1:8080/'}", NULL, NULL, NULL, NULL, GQ_EINVALID,
     "cluster \"c\": server http://127.0.0.1:8080/ is http: refusing to send the credentials of "
     "user \"u\" (token) in clear text; use https"},
    {"{server: 'http://localhost'}", "{tokenFile: /dev/null}", NULL, NULL, NULL, GQ_EINVALID,
     "server http://localhost is http: refusing to send the credentials of user \"u\" (tokenFile)"},
    {"{server: 'http://[::1]:1'}", "{exec: {command: p, " EXEC_V1 ", interactiveMode: Never}}",
     NULL, NULL, NULL, GQ_EINVALID, "(exec plugin) in clear text; use https"},
    /* Issue 13 F13: a NUL would cut the value short without a word. */
    {NULL, "{token: \"s3cr3t\\0tail\"}", NULL, NULL, NULL, GQ_EINVALID,
     "token: must not contain a NUL character"},
    {"{server: 'http://localhost.evil.example'}", NULL, NULL, NULL, NULL, GQ_EINVALID,
     "http is allowed only for localhost"},
    {"{server: 'k.example:6443'}", NULL, NULL, NULL, NULL, GQ_EINVALID, "must start with https://"},
    {"{server: 'https:///x'}", NULL, NULL, NULL, NULL, GQ_EINVALID, "is not a valid URL"},
    {"{server: 'http://localhost:80@evil.example'}", NULL, NULL, NULL, NULL, GQ_EINVALID,
     "is not a valid URL"},
    {"{server: 'https://k/?x=1'}", NULL, NULL, NULL, NULL, GQ_EINVALID, "is not a valid URL"},
    {NULL, NULL, "{cluster: c, namespace: ../kube-system}", NULL, NULL, GQ_EINVALID,
     "namespace: invalid value \"../kube-system\""},
    {"{server: 'https://k', insecure-skip-tls-verify: true, certificate-authority-data: QQ==}",
     NULL, NULL, NULL, NULL, GQ_EINVALID,
     "specifying a root certificates file with the insecure flag is not allowed"},
    {"{server: 'https://k', insecure-skip-tls-verify: true, certificate-authority: /etc/hosts}",
     NULL, NULL, NULL, NULL, GQ_EINVALID,
     "specifying a root certificates file with the insecure flag is not allowed"},
    {"{server: 'https://k', certificate-authority: nope.pem}", NULL, NULL, NULL, NULL, GQ_EINVALID,
     "unable to read certificate-authority"},
    {"{server: 'https://k', tls-server-name: x}", NULL, NULL, NULL, NULL, GQ_EUNSUPPORTED,
     "tls-server-name is not supported"},
    {"{server: 'https://k', proxy-url: 'http://p'}", NULL, NULL, NULL, NULL, GQ_EUNSUPPORTED,
     "proxy-url is not supported"},
    /* Users. */
    {NULL, "{token: s3cr3t, exec: {command: p, " EXEC_V1 ", interactiveMode: Never}}", NULL, NULL,
     NULL, GQ_EINVALID,
     "more than one authentication method found for u; found [token exec], only one is allowed"},
    {NULL, "{tokenFile: s3cr3t, exec: {command: p}}", NULL, NULL, NULL, GQ_EINVALID,
     "found [token exec]"},
    {NULL, "{token: s3cr3t, username: a, password: s3cr3t}", NULL, NULL, NULL, GQ_EINVALID,
     "found [token basicAuth]"},
    {NULL, "{username: a, password: s3cr3t}", NULL, NULL, NULL, GQ_EUNSUPPORTED,
     "basic authentication (username/password) is not supported"},
    {NULL, "{auth-provider: {name: gcp, config: {access-token: s3cr3t}}}", NULL, NULL, NULL,
     GQ_EUNSUPPORTED, "auth-provider \"gcp\" is not supported; use an exec plugin"},
    {NULL, "{token: s3cr3t, as: admin}", NULL, NULL, NULL, GQ_EUNSUPPORTED,
     "impersonation (as) is not supported"},
    {NULL, "{client-certificate-data: QQ==}", NULL, NULL, NULL, GQ_EINVALID,
     "client-key-data or client-key must be specified for u"},
    {NULL, "{client-key: k.pem}", NULL, NULL, NULL, GQ_EINVALID,
     "client-cert-data or client-cert must be specified for u"},
    {NULL, "{client-certificate: nope.pem, client-key-data: QQ==}", NULL, NULL, NULL, GQ_EINVALID,
     "unable to read client-cert"},
    {NULL, "{client-key-data: 'QQ=', client-certificate-data: QQ==}", NULL, NULL, NULL, GQ_EINVALID,
     "user \"u\": client-key-data: illegal base64 data at input byte 3"},
    {NULL, "{token: \"s3cr3t\\r\\nX-Evil: 1\"}", NULL, NULL, NULL, GQ_EINVALID,
     "token contains a control character"},
    {NULL, "{exec: {" EXEC_V1 "}}", NULL, NULL, NULL, GQ_EINVALID,
     "command must be specified for u to use exec authentication plugin"},
    {NULL, "{exec: {command: p}}", NULL, NULL, NULL, GQ_EINVALID,
     "apiVersion must be specified for u to use exec authentication plugin"},
    {NULL, "{exec: {command: p, apiVersion: client.authentication.k8s.io/v1alpha1}}", NULL, NULL,
     NULL, GQ_EINVALID, "invalid apiVersion"},
    {NULL, "{exec: {command: p, " EXEC_V1 "}}", NULL, NULL, NULL, GQ_EINVALID,
     "interactiveMode must be specified for u to use exec authentication plugin"},
    {NULL, "{exec: {command: p, " EXEC_V1 ", interactiveMode: Sometimes}}", NULL, NULL, NULL,
     GQ_EINVALID, "invalid interactiveMode for u: \"Sometimes\""},
};

static int vload(const struct vrow *r, struct gq_kube_config *cfg, gq_error *e)
{
    char text[2048], p[512];

    snprintf(text, sizeof(text),
             "%s"
             "clusters: [{name: c, cluster: %s}]\n"
             "users: [{name: u, user: %s}]\n"
             "contexts: [{name: ctx, context: %s}]\n",
             r->current ? r->current : "current-context: ctx\n",
             r->cluster ? r->cluster : "{server: 'https://k.example:6443'}",
             r->user ? r->user : "{token: s3cr3t}",
             r->context ? r->context : "{cluster: c, user: u, namespace: team}");
    write_file(at(p, "v.yaml"), text, 0600);
    return load(cfg, p, r->choose, e);
}

static void validation(void)
{
    struct gq_kube_config cfg;
    gq_error e;
    size_t i;
    int rc;

    fresh();
    for (i = 0; i < NROWS(vrows); i++) {
        rc = vload(&vrows[i], &cfg, &e);
        if (vrows[i].rc == GQ_OK) {
            CHECKF(rc == GQ_OK, "row %zu: %s", i, e.msg);
            CHECKF(rc == GQ_OK && strcmp(cfg.server, vrows[i].want) == 0, "row %zu: %s", i,
                   cfg.server ? cfg.server : "(null)");
            gq__kube_config_free(&cfg);
            continue;
        }
        CHECKF(rc == vrows[i].rc && has(&e, vrows[i].want), "row %zu: rc %d: %s", i, rc, e.msg);
        CHECKF(!has(&e, "s3cr3t"), "row %zu: the secret is in \"%s\"", i, e.msg);
        CHECKF(cfg.server == NULL && cfg.token == NULL, "row %zu: out not cleared", i);
    }
}

/* What a valid context resolves to, field by field. */
static void resolved_fields(void)
{
    static const struct vrow r = {"{server: 'https://k', certificate-authority-data: aGk=, "
                                  "certificate-authority: /nope}",
                                  "{token: s3cr3t, client-certificate-data: QQ==, "
                                  "client-key-data: Qg==, client-key: /nope}",
                                  NULL,
                                  NULL,
                                  NULL,
                                  GQ_OK,
                                  NULL};
    struct gq_kube_config cfg;
    struct gq_kube_config_opts o = {NULL, NULL, "mine", false};
    gq_error e;
    char p[512];
    int rc;

    fresh();
    rc = vload(&r, &cfg, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    if (rc != GQ_OK)
        return;
    /* *-data wins over the file. */
    CHECK(cfg.ca_file == NULL && cfg.ca_pem_len == 2 && memcmp(cfg.ca_pem, "hi", 2) == 0);
    CHECK(cfg.cert_pem_len == 1 && cfg.cert_pem[0] == 'A' && cfg.key_pem[0] == 'B');
    CHECK(cfg.key_file == NULL && cfg.cert_file == NULL);
    CHECK_STR(cfg.token, "s3cr3t");
    CHECK_STR(cfg.context, "ctx");
    CHECK_STR(cfg.namespace, "team");
    CHECK(!cfg.insecure && cfg.exec == NULL && cfg.token_file == NULL);
    gq__kube_config_free(&cfg);
    o.kubeconfig = at(p, "v.yaml");
    rc = gq__kube_config_load(&cfg, &o, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.namespace, "mine") == 0, "%s", e.msg);
    gq__kube_config_free(&cfg);
}

/* ------------------------------------------------------------- in-cluster */

/*
 * Whether a pod's service account directory can be faked here: it is a test
 * hook (GQ_SERVICEACCOUNT_DIR, kube_config.c), built in Debug builds only; a
 * Release build skips the cases that need it, saying so.
 */
static bool sa_hook(const char *test)
{
#ifdef GQ_TEST_HOOKS
    (void)test;
    return true;
#else
    printf("SKIP: %s: the service account's directory is a test hook (Debug builds only)\n",
           test);
    return false;
#endif
}

static void write_sa(const char *ns)
{
    char p[512];

    mkdir(at(p, "sa"), 0755);
    setenv("GQ_SERVICEACCOUNT_DIR", p, 1);
    write_file(at(p, "sa/token"), "s3cr3t-sa\n", 0644);
    write_file(at(p, "sa/ca.crt"), "-----BEGIN CERTIFICATE-----\n", 0644);
    if (ns)
        write_file(at(p, "sa/namespace"), ns, 0644);
}

static void in_cluster(void)
{
    static const struct {
        const char *host, *port, *server;
    } rows[] = {
        {"10.0.0.1", "443", "https://10.0.0.1:443"},
        {"fd00::1", "6443", "https://[fd00::1]:6443"},
        {"[fd00::2]", "443", "https://[fd00::2]:443"},
        {"kubernetes.default.svc", "443", "https://kubernetes.default.svc:443"},
    };
    struct gq_kube_config cfg;
    char p[512];
    gq_error e;
    size_t i;
    int rc;

    if (!sa_hook(__func__))
        return;
    fresh();
    write_sa("  kube-team \n");
    for (i = 0; i < NROWS(rows); i++) {
        setenv("KUBERNETES_SERVICE_HOST", rows[i].host, 1);
        setenv("KUBERNETES_SERVICE_PORT", rows[i].port, 1);
        rc = gq__kube_config_in_cluster(&cfg, &e);
        CHECKF(rc == GQ_OK && strcmp(cfg.server, rows[i].server) == 0, "row %zu: %s", i,
               rc == GQ_OK ? cfg.server : e.msg);
        gq__kube_config_free(&cfg);
    }
    /* No kubeconfig anywhere: in-cluster, with the namespace file trimmed. */
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    CHECK_STR(cfg.context, "in-cluster");
    CHECK_STR(cfg.namespace, "kube-team");
    CHECK_STR(cfg.token_file, at(p, "sa/token"));
    CHECK_STR(cfg.ca_file, at(p, "sa/ca.crt"));
    CHECK(cfg.token == NULL && cfg.cached_token == NULL);
    gq__kube_config_free(&cfg);
    setenv("POD_NAMESPACE", "from-env", 1);
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.namespace, "from-env") == 0, "%s", e.msg);
    gq__kube_config_free(&cfg);
    unsetenv("POD_NAMESPACE");
    unlink(at(p, "sa/namespace"));
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.namespace, "default") == 0, "%s", e.msg);
    gq__kube_config_free(&cfg);
    /* opts.in_cluster ignores a kubeconfig; a kubeconfig otherwise wins over in-cluster. */
    write_file(at(p, "kc.yaml"), merge_a, 0600);
    setenv("KUBECONFIG", p, 1);
    rc = load(&cfg, NULL, NULL, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.context, "ctx-a") == 0, "%s", e.msg);
    gq__kube_config_free(&cfg);
    {
        struct gq_kube_config_opts o = {NULL, NULL, "n", true};

        rc = gq__kube_config_load(&cfg, &o, &e);
        CHECKF(rc == GQ_OK && strcmp(cfg.context, "in-cluster") == 0 &&
                   strcmp(cfg.namespace, "n") == 0,
               "%s", e.msg);
        gq__kube_config_free(&cfg);
    }
}

/* In-cluster fails closed, and needs both HOST and PORT. */
static void in_cluster_errors(void)
{
    static const struct {
        const char *host, *port;
        int rc;
        const char *want;
    } rows[] = {
        {"10.0.0.1", NULL, GQ_ENOTFOUND, "KUBERNETES_SERVICE_PORT must be defined"},
        {NULL, "443", GQ_ENOTFOUND, "KUBERNETES_SERVICE_HOST and"},
        {"", "443", GQ_ENOTFOUND, "must be defined"},
        {"10.0.0.1", "https", GQ_EINVALID, "KUBERNETES_SERVICE_PORT https is not a port"},
        {"10.0.0.1", "70000", GQ_EINVALID, "is not a port"},
        {"evil/x", "443", GQ_EINVALID, "is not a host"},
    };
    struct gq_kube_config cfg;
    char p[512];
    gq_error e;
    size_t i;
    int rc;

    if (!sa_hook(__func__))
        return;
    fresh();
    write_sa(NULL);
    for (i = 0; i < NROWS(rows); i++) {
        unsetenv("KUBERNETES_SERVICE_HOST");
        unsetenv("KUBERNETES_SERVICE_PORT");
        if (rows[i].host)
            setenv("KUBERNETES_SERVICE_HOST", rows[i].host, 1);
        if (rows[i].port)
            setenv("KUBERNETES_SERVICE_PORT", rows[i].port, 1);
        rc = gq__kube_config_in_cluster(&cfg, &e);
        CHECKF(rc == rows[i].rc && has(&e, rows[i].want), "row %zu: %d %s", i, rc, e.msg);
        /* With only one of them, the loader finds no configuration at all. */
        if (rows[i].rc == GQ_ENOTFOUND) {
            rc = load(&cfg, NULL, NULL, &e);
            CHECKF(rc == GQ_ENOTFOUND && has(&e, "no configuration"), "row %zu: %s", i, e.msg);
        }
    }
    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    unlink(at(p, "sa/ca.crt"));
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_EIO && has(&e, "ca.crt"), "%d %s", rc, e.msg);
    write_file(p, "", 0644);
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_EIO && has(&e, "is empty"), "%d %s", rc, e.msg);
    write_sa(NULL);
    unlink(at(p, "sa/token"));
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_EIO && has(&e, "sa/token"), "%d %s", rc, e.msg);
    write_file(p, "s3cr3t", 0666);
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, "writable") && !has(&e, "s3cr3t"), "%d %s", rc, e.msg);
}

/* ------------------------------------------------------------ credentials */

/* The token file: re-read after a minute or after invalidate, never in between. */
static void token_file(void)
{
    struct gq_kube_config cfg;
    struct gq_kube_auth a;
    char p[512], tok[512];
    gq_error e;
    int rc;

    if (!sa_hook(__func__))
        return;
    fresh();
    write_sa(NULL);
    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    rc = gq__kube_config_in_cluster(&cfg, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    if (rc != GQ_OK)
        return;
    at(tok, "sa/token");
    write_file(tok, "  s3cr3t-1 \r\n\n", 0600);
    rc = gq__kube_auth(&cfg, false, 1000, &a, &e);
    CHECKF(rc == GQ_OK && a.token && strcmp(a.token, "s3cr3t-1") == 0, "%s", e.msg);
    CHECK(a.cert_pem == NULL && a.key_pem == NULL);
    write_file(tok, "s3cr3t-2", 0600);
    rc = gq__kube_auth(&cfg, false, 60999, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-1") == 0, "cached within a minute");
    rc = gq__kube_auth(&cfg, true, 61000, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-2") == 0, "re-read after invalidate");
    write_file(tok, "s3cr3t-3", 0600);
    rc = gq__kube_auth(&cfg, false, 120999, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-2") == 0, "cached");
    rc = gq__kube_auth(&cfg, false, 121000, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-3") == 0, "re-read after a minute");
    write_file(tok, " \n", 0600);
    rc = gq__kube_auth(&cfg, true, 121001, &a, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, "is empty") && has(&e, tok), "%d %s", rc, e.msg);
    write_file(tok, "s3cr3t\x01x", 0600);
    rc = gq__kube_auth(&cfg, true, 121002, &a, &e);
    CHECKF(rc == GQ_EINVALID && has(&e, "control character") && !has(&e, "s3cr3t"), "%s", e.msg);
    unlink(tok);
    rc = gq__kube_auth(&cfg, true, 121003, &a, &e);
    CHECKF(rc == GQ_ENOTFOUND && has(&e, tok), "%d %s", rc, e.msg);
    gq__kube_config_free(&cfg);
    /* A static token is handed out as it is. */
    fresh();
    write_file(at(p, "kc.yaml"), merge_a, 0600);
    rc = load(&cfg, p, NULL, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    rc = gq__kube_auth(&cfg, true, 5, &a, &e);
    CHECKF(rc == GQ_OK && a.token == cfg.token, "%s", e.msg);
    gq__kube_config_free(&cfg);
}

/* ------------------------------------------------------------ exec plugins */

/* A fake plugin: MODE (from the kubeconfig's exec env) picks what it does. */
static const char plugin[] =
    "#!/bin/sh\n"
    "n=$(cat \"$DIR/count\" 2>/dev/null || echo 0)\n"
    "n=$((n + 1))\n"
    "echo \"$n\" > \"$DIR/count\"\n"
    "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$DIR/info\"\n"
    "printf '%s' \"$1\" > \"$DIR/arg\"\n"
    "tok=s3cr3t-$n\n"
    "case \"$MODE\" in\n"
    "info) tok=$(printf '%s' \"$KUBERNETES_EXEC_INFO\" |"
    " sed -n 's/.*\"server\":\"\\([^\"]*\\)\".*/\\1/p') ;;\n"
    "fail) echo 'fake plugin: failing on purpose' >&2; exit 3 ;;\n"
    "garbage) echo 'not json s3cr3t-garbage'; exit 0 ;;\n"
    "hang) sleep 30 & echo $! > \"$DIR/sleep.pid\"; wait; exit 0 ;;\n"
    "big) head -c 2000000 /dev/zero | tr '\\000' a; exit 0 ;;\n"
    "cert) printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":"
    "{\"clientCertificateData\":\"CERT s3cr3t\",\"clientKeyData\":\"KEY s3cr3t\"}}' \"$API\";"
    " exit 0 ;;\n"
    "certonly) printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":"
    "{\"clientCertificateData\":\"CERT s3cr3t\"}}' \"$API\"; exit 0 ;;\n"
    "notoken) printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":{}}' \"$API\";"
    " exit 0 ;;\n"
    "nostatus) printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\"}' \"$API\"; exit 0 ;;\n"
    "deep) printf '%s' '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]"
    "]]]]]]]]]]]]]]]]]]]]]]]]'; exit 0 ;;\n"
    "trailing) printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":"
    "{\"token\":\"s3cr3t\"}} x' \"$API\"; exit 0 ;;\n"
    "esac\n"
    "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"status\":"
    "{\"token\":\"%s\",\"expirationTimestamp\":\"%s\"}}\\n' \"${RET_API:-$API}\" \"$tok\" "
    "\"$EXP\"\n";

#define V1 "client.authentication.k8s.io/v1"
#define V1BETA1 "client.authentication.k8s.io/v1beta1"

/* How one exec case is configured. */
struct xcase {
    const char *api;         /* exec apiVersion */
    const char *mode;        /* the plugin's MODE */
    const char *exp;         /* EXP: the expirationTimestamp it returns ("" none) */
    const char *ret_api;     /* RET_API: the apiVersion it returns ("" the same) */
    const char *interactive; /* interactiveMode, NULL none */
    const char *command;     /* NULL: ./plugin.sh */
};

static int exec_load(const struct xcase *x, struct gq_kube_config *cfg, gq_error *e)
{
    char text[4096], p[512], mode[64] = "";

    if (x->interactive)
        snprintf(mode, sizeof(mode), "      interactiveMode: %s\n", x->interactive);
    snprintf(text, sizeof(text),
             "current-context: x\n"
             "clusters: [{name: c, cluster: {server: 'https://k.example:6443', "
             "certificate-authority-data: aGk=}}]\n"
             "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
             "users:\n- name: u\n  user:\n    exec:\n"
             "      command: %s\n      apiVersion: %s\n%s"
             "      args: [first-arg]\n      provideClusterInfo: true\n"
             "      installHint: \"install it with:\\n apt install fake-plugin\"\n"
             "      env:\n      - {name: DIR, value: '%s'}\n      - {name: MODE, value: '%s'}\n"
             "      - {name: API, value: '%s'}\n      - {name: EXP, value: '%s'}\n"
             "      - {name: RET_API, value: '%s'}\n",
             x->command ? x->command : "./plugin.sh", x->api, mode, tmp, x->mode, x->api, x->exp,
             x->ret_api);
    write_file(at(p, "exec.yaml"), text, 0600);
    write_file(at(text, "plugin.sh"), plugin, 0755);
    return load(cfg, p, NULL, e);
}

static int64_t mono_ms(void)
{
    return gq__mono_us() / 1000;
}

/* An hour from now as RFC 3339, optionally written with a +01:00 offset and a fraction. */
static void in_an_hour(char *buf, size_t size, bool offset)
{
    char t[GQ_RFC3339_BUFSIZE];

    if (!offset) {
        snprintf(buf, size, "%s", gq__rfc3339(t, gq__now_ms() + 3600000));
        return;
    }
    gq__rfc3339(t, gq__now_ms() + 2 * 3600000);
    t[strlen(t) - 1] = '\0';
    snprintf(buf, size, "%s.250+01:00", t);
}

static int count_runs(void)
{
    char p[512];
    FILE *f = fopen(at(p, "count"), "r");
    int n = 0;

    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = -1;
        fclose(f);
    }
    return n;
}

/* What the plugin saw in KUBERNETES_EXEC_INFO. */
static void check_exec_info(const char *api)
{
    char p[512];
    json_object *info = json_object_from_file(at(p, "info")), *spec, *cl, *v;

    CHECK(info != NULL);
    if (!info)
        return;
    CHECK(json_object_object_get_ex(info, "kind", &v) &&
          strcmp(json_object_get_string(v), "ExecCredential") == 0);
    CHECK(json_object_object_get_ex(info, "apiVersion", &v) &&
          strcmp(json_object_get_string(v), api) == 0);
    CHECK(json_object_object_get_ex(info, "spec", &spec));
    CHECK(json_object_object_get_ex(spec, "interactive", &v) && !json_object_get_boolean(v));
    CHECK(json_object_object_get_ex(spec, "cluster", &cl));
    CHECK(json_object_object_get_ex(cl, "server", &v) &&
          strcmp(json_object_get_string(v), "https://k.example:6443") == 0);
    CHECK(json_object_object_get_ex(cl, "certificate-authority-data", &v) &&
          strcmp(json_object_get_string(v), "aGk=") == 0);
    CHECK(!json_object_object_get_ex(cl, "insecure-skip-tls-verify", &v));
    json_object_put(info);
}

static void exec_plugin(void)
{
    struct xcase x = {V1, "ok", "", "", "Never", NULL};
    char exp[64], p[512];
    struct gq_kube_config cfg;
    struct gq_kube_auth a;
    int64_t now = mono_ms(), left;
    gq_error e;
    int rc;

    fresh();
    in_an_hour(exp, sizeof(exp), false);
    x.exp = exp;
    rc = exec_load(&x, &cfg, &e);
    CHECKF(rc == GQ_OK, "%s", e.msg);
    if (rc != GQ_OK)
        return;
    CHECK_STR(cfg.exec->command, at(p, "./plugin.sh"));
    /* The kubeconfig's exec env wins over ours. */
    setenv("MODE", "fail", 1);
    rc = gq__kube_auth(&cfg, false, now, &a, &e);
    unsetenv("MODE");
    CHECKF(rc == GQ_OK && a.token && strcmp(a.token, "s3cr3t-1") == 0, "%s", e.msg);
    left = cfg.expires_ms - now;
    CHECKF(left > 3590000 && left <= 3600000, "expires in %lld ms", (long long)left);
    check_exec_info(V1);
    /* Cached until it expires, or until a 401 invalidates it. */
    rc = gq__kube_auth(&cfg, false, now + 1000, &a, &e);
    CHECK(rc == GQ_OK && strcmp(a.token, "s3cr3t-1") == 0 && count_runs() == 1);
    rc = gq__kube_auth(&cfg, false, cfg.expires_ms, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-2") == 0, "re-run after expiry: %s", e.msg);
    rc = gq__kube_auth(&cfg, true, now + 2000, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-3") == 0, "re-run after invalidate: %s", e.msg);
    CHECK(count_runs() == 3);
    {
        char arg[512];
        FILE *f = fopen(at(p, "arg"), "r");

        CHECK(f && fgets(arg, sizeof(arg), f) && strcmp(arg, "first-arg") == 0);
        if (f)
            fclose(f);
    }
    gq__kube_config_free(&cfg);
}

/* v1beta1 (interactiveMode defaults to IfAvailable), an offset time, no expiry, certificates. */
static void exec_variants(void)
{
    struct xcase x = {V1BETA1, "ok", "", "", NULL, NULL};
    struct gq_kube_config cfg;
    struct gq_kube_auth a;
    char exp[64];
    int64_t now = mono_ms(), left;
    gq_error e;
    int rc;

    fresh();
    in_an_hour(exp, sizeof(exp), true);
    x.exp = exp;
    rc = exec_load(&x, &cfg, &e);
    CHECKF(rc == GQ_OK && strcmp(cfg.exec->interactive_mode, "IfAvailable") == 0, "%s", e.msg);
    rc = gq__kube_auth(&cfg, false, now, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "s3cr3t-1") == 0, "%s", e.msg);
    left = cfg.expires_ms - now;
    CHECKF(left > 3590000 && left <= 3600250, "expires in %lld ms", (long long)left);
    check_exec_info(V1BETA1);
    gq__kube_config_free(&cfg);
    /* No expirationTimestamp: cached until invalidated. */
    x.exp = "";
    x.mode = "info";
    rc = exec_load(&x, &cfg, &e);
    rc = rc ? rc : gq__kube_auth(&cfg, false, now, &a, &e);
    CHECKF(rc == GQ_OK && strcmp(a.token, "https://k.example:6443") == 0, "%s", e.msg);
    CHECK(cfg.expires_ms == 0);
    rc = gq__kube_auth(&cfg, false, now + 86400000, &a, &e);
    CHECK(rc == GQ_OK && count_runs() == 2);
    gq__kube_config_free(&cfg);
    x.mode = "cert";
    rc = exec_load(&x, &cfg, &e);
    rc = rc ? rc : gq__kube_auth(&cfg, false, now, &a, &e);
    CHECKF(rc == GQ_OK && a.token == NULL && a.cert_len == 11 &&
               strcmp(a.cert_pem, "CERT s3cr3t") == 0 && strcmp(a.key_pem, "KEY s3cr3t") == 0,
           "%s", e.msg);
    gq__kube_config_free(&cfg);
}

/* True once the process the hanging plugin left behind is gone (or a zombie). */
static bool sleeper_gone(void)
{
    struct timespec nap = {0, 10000000};
    char p[512], stat[256] = "";
    int pid = 0, tries;
    FILE *f = fopen(at(p, "sleep.pid"), "r");

    if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 0) {
        if (f)
            fclose(f);
        return false;
    }
    fclose(f);
    snprintf(p, sizeof(p), "/proc/%d/stat", pid);
    for (tries = 0; tries < 100; tries++) {
        if (!(f = fopen(p, "r")))
            return true;
        stat[0] = '\0';
        if (!fgets(stat, sizeof(stat), f))
            stat[0] = '\0';
        fclose(f);
        if (strstr(stat, ") Z") || strstr(stat, ") X"))
            return true;
        nanosleep(&nap, NULL);
    }
    return false;
}

/* Plugins that fail: a clear error within the timeout, never their output. */
static void exec_failures(void)
{
    static const struct {
        const char *mode, *exp, *ret_api, *interactive, *command;
        int rc;
        const char *want;
    } rows[] = {
        {"fail", "", "", "Never", NULL, GQ_EK8S, "exited with status 3"},
        {"garbage", "", "", "Never", NULL, GQ_EK8S, "output is not valid JSON"},
        {"trailing", "", "", "Never", NULL, GQ_EK8S, "output is not valid JSON"},
        {"deep", "", "", "Never", NULL, GQ_EK8S, "output is not valid JSON"},
        {"ok", "", V1BETA1, "Never", NULL, GQ_EK8S,
         "returned an ExecCredential whose apiVersion is not the configured " V1},
        {"ok", "2000-01-01T00:00:00Z", "", "Never", NULL, GQ_EK8S,
         "returned an expired credential"},
        {"ok", "tomorrow", "", "Never", NULL, GQ_EK8S, "expirationTimestamp is not an RFC 3339"},
        {"ok", "2030-02-30T25:00:00Z", "", "Never", NULL, GQ_EK8S, "not an RFC 3339"},
        {"notoken", "", "", "Never", NULL, GQ_EK8S, "didn't return a token or cert/key pair"},
        {"nostatus", "", "", "Never", NULL, GQ_EK8S, "didn't return a status field"},
        {"certonly", "", "", "Never", NULL, GQ_EK8S, "returned only certificate or key, not both"},
        {"big", "", "", "Never", NULL, GQ_EK8S, "output is larger than 1048576 bytes"},
        {"hang", "", "", "Never", NULL, GQ_EK8S, "timed out after 300ms; killed"},
        {"ok", "", "", "Always", NULL, GQ_EUNSUPPORTED, "requires an interactive terminal"},
        {"ok", "", "", "Never", "gq-no-such-plugin-4711", GQ_EK8S,
         "executable not found (exit status 127); install it with:  apt install fake-plugin"},
        {"ok", "", "", "Never", "./missing/plugin", GQ_EK8S, "executable not found"},
    };
    struct gq_kube_config cfg;
    struct gq_kube_auth a;
    int64_t t0;
    gq_error e;
    size_t i;
    int rc;

    for (i = 0; i < NROWS(rows); i++) {
        struct xcase x = {
            V1, rows[i].mode, rows[i].exp, rows[i].ret_api, rows[i].interactive, rows[i].command};

        /* Only the hanging plugin meets the timeout: the others get a minute, so a
         * loaded machine starting a shell slowly is not taken for a hang. */
        gq__kube_exec_timeout_ms(strcmp(rows[i].mode, "hang") == 0 ? 300 : 60000);

        fresh();
        rc = exec_load(&x, &cfg, &e);
        CHECKF(rc == GQ_OK, "row %zu: %s", i, e.msg);
        t0 = mono_ms();
        rc = rc ? rc : gq__kube_auth(&cfg, false, t0, &a, &e);
        CHECKF(rc == rows[i].rc && has(&e, rows[i].want), "row %zu: rc %d: %s", i, rc, e.msg);
        CHECKF(!has(&e, "s3cr3t"), "row %zu: the secret is in \"%s\"", i, e.msg);
        CHECK(cfg.cached_token == NULL && cfg.cached_cert_pem == NULL);
        if (strcmp(rows[i].mode, "hang") == 0)
            CHECKF(sleeper_gone(), "the plugin's child outlived the timeout");
        gq__kube_config_free(&cfg);
    }
    gq__kube_exec_timeout_ms(0);
}

int main(void)
{
    char cwd[512];

    snprintf(tmp, sizeof(tmp), "/tmp/gq-kube-config-XXXXXX");
    if (!mkdtemp(tmp) || !getcwd(cwd, sizeof(cwd))) {
        perror("mkdtemp");
        return 1;
    }
    env_save();
    TEST_RUN(parse_fields);
    TEST_RUN(parse_base64);
    TEST_RUN(parse_errors);
    TEST_RUN(merge_rules);
    TEST_RUN(kubeconfig_list);
    TEST_RUN(home_config);
    TEST_RUN(writable_files);
    TEST_RUN(validation);
    TEST_RUN(resolved_fields);
    TEST_RUN(in_cluster);
    TEST_RUN(in_cluster_errors);
    TEST_RUN(token_file);
    TEST_RUN(exec_plugin);
    TEST_RUN(exec_variants);
    TEST_RUN(exec_failures);
    env_restore();
    snprintf(cwd, sizeof(cwd), "rm -rf %s", tmp);
    if (system(cwd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp);
    return TEST_DONE();
}
