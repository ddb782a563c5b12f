/*
 * kube_config.c: where the Kubernetes client's connection comes from, as
 * kubectl (client-go's clientcmd) finds it: the kubeconfig files, their
 * merge, the chosen context's validation, or the in-cluster service
 * account; and the careful file reading that kube_exec.c (gq__kube_auth:
 * token files, exec plugins) shares.
 *
 * Merge without building a merged config: the files are kept in precedence
 * order and every lookup takes the first file that defines the name, which
 * is exactly client-go's rule (a later file's same-named entry is dropped
 * whole, and the first current-context wins). Only the chosen context, its
 * cluster and its user are validated, as client-go's ConfirmUsable does, so
 * an odd entry elsewhere never gets in the way.
 *
 * Security: kubeconfig and token files that their group or others may write
 * are refused; tokens are checked for header-breaking bytes and zeroed
 * before they are freed; no message ever contains a token or key.
 *
 * Sizes: one to a few files of a few KB, loaded once per process.
 */
#define _DEFAULT_SOURCE /* explicit_bzero: glibc and the BSDs declare it outside POSIX */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "gpuqueue/validate.h"
#include "kube.h"
#include "kube_exec.h"
#include "manifest_kubeconfig.h"

#define EXEC_V1 "client.authentication.k8s.io/v1"
#define EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/*
 * The service account's directory. GQ_SERVICEACCOUNT_DIR replaces it for
 * the tests only (a pod cannot be faked otherwise), and only in builds with
 * test hooks (Debug, as GQ_CRASH_AT): in a release binary an environment
 * variable must not be able to swap the token and CA a pod trusts.
 */
#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

static const char *sa_dir(void)
{
#ifdef GQ_TEST_HOOKS
    const char *dir = getenv("GQ_SERVICEACCOUNT_DIR");

    if (dir && *dir)
        return dir;
#endif
    return SA_DIR;
}

/* ------------------------------------------------------------------ files */

void gq__kube_burn(void *p, size_t len)
{
    if (p)
        explicit_bzero(p, len);
    free(p);
}

bool gq__kube_token_bad(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

static int open_error(const char *path, const char *what, int e, gq_error *err)
{
    if (e == ENOENT || e == ENOTDIR)
        return gq__error(err, GQ_ENOTFOUND, "%s %s: no such file or directory", what, path);
    return gq__error(err, GQ_EIO, "%s %s: %s", what, path, strerror(e));
}

/*
 * Check an open file before reading it: not too large, not writable by others.
 * Pipes pass (kubectl --kubeconfig <(...) hands over /dev/fd/N, mode 0600).
 */
static int
check_file(int fd, const char *path, const char *what, size_t cap, bool guard, gq_error *err)
{
    struct stat st;

    if (fstat(fd, &st) != 0)
        return open_error(path, what, errno, err);
    if (guard && (st.st_mode & (S_IWGRP | S_IWOTH)))
        return gq__error(err, GQ_EINVALID,
                         "%s %s is writable by group or others; refusing to use it (chmod go-w)",
                         what, path);
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > cap)
        return gq__error(err, GQ_EINVALID, "%s %s is larger than %zu bytes", what, path, cap);
    return GQ_OK;
}

/* Read fd to its end, at most cap bytes (more is an error), into *out with a NUL. */
static int read_all(int fd,
                    char **out,
                    size_t *len_out,
                    const char *path,
                    const char *what,
                    size_t cap,
                    gq_error *err)
{
    size_t len = 0, size = 4096;
    char *buf = malloc(size), *grown;
    ssize_t n;

    while (buf) {
        if (len + 1 == size) {
            size = size * 2 > cap + 2 ? cap + 2 : size * 2;
            if (!(grown = malloc(size))) {
                gq__kube_burn(buf, len);
                buf = NULL;
                break;
            }
            /* Copied rather than realloc'd so a token never lingers in freed memory. */
            memcpy(grown, buf, len);
            gq__kube_burn(buf, len);
            buf = grown;
        }
        n = read(fd, buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            gq__kube_burn(buf, len);
            return open_error(path, what, errno, err);
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > cap) {
            gq__kube_burn(buf, len);
            return gq__error(err, GQ_EINVALID, "%s %s is larger than %zu bytes", what, path, cap);
        }
    }
    if (!buf)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    buf[len] = '\0';
    *out = buf;
    *len_out = len;
    return GQ_OK;
}

int gq__kube_read_file(char **out,
                       size_t *len_out,
                       const char *path,
                       const char *what,
                       size_t cap,
                       bool guard,
                       gq_error *err)
{
    int fd, rc;

    *out = NULL;
    *len_out = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return open_error(path, what, errno, err);
    rc = check_file(fd, path, what, cap, guard, err);
    if (rc == GQ_OK)
        rc = read_all(fd, out, len_out, path, what, cap, err);
    close(fd);
    return rc;
}

/* ------------------------------------------------------------- the files */

/* The kubeconfig files that exist, in precedence order. */
struct files {
    struct gq__kubeconfig *kc; /* owned: n parsed files */
    size_t n;
};

static void files_free(struct files *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        gq__manifest_kubeconfig_free(&f->kc[i]);
    free(f->kc);
}

/* Read and parse one file; a missing one is skipped unless must_exist (--kubeconfig). */
static int load_one(struct files *f, const char *path, bool must_exist, gq_error *err)
{
    struct gq__kubeconfig kc, *grown;
    size_t len;
    char *buf;
    int rc;

    rc = gq__kube_read_file(&buf, &len, path, "kubeconfig", GQ_KUBE_CONFIG_MAX_BYTES, true, err);
    if (rc == GQ_ENOTFOUND && !must_exist)
        return GQ_OK;
    /* Not ENOTFOUND: that code means "no configuration at all", and a mistyped
       --kubeconfig must never be taken for that. */
    if (rc == GQ_ENOTFOUND)
        return gq__error(err, GQ_EINVALID, "kubeconfig %s: no such file or directory", path);
    if (rc != GQ_OK)
        return rc;
    rc = gq__manifest_kubeconfig_parse(&kc, buf, len, path, err);
    gq__kube_burn(buf, len);
    if (rc != GQ_OK)
        return rc;
    if (!(grown = realloc(f->kc, (f->n + 1) * sizeof(*grown)))) {
        gq__manifest_kubeconfig_free(&kc);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    f->kc = grown;
    f->kc[f->n++] = kc;
    return GQ_OK;
}

/* True when the NUL-separated entries of list before p include p (client-go de-duplicates). */
static bool listed_before(const char *list, const char *p)
{
    for (; list < p; list += strlen(list) + 1)
        if (strcmp(list, p) == 0)
            return true;
    return false;
}

/* KUBECONFIG: ':'-separated; empty entries and repeats skipped, missing files too. */
static int load_list(struct files *f, const char *list, gq_error *err)
{
    char *copy = strdup(list), *p, *next;
    int rc = GQ_OK;

    if (!copy)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (p = copy; p && rc == GQ_OK; p = next) {
        if ((next = strchr(p, ':')))
            *next++ = '\0';
        if (*p && !listed_before(copy, p))
            rc = load_one(f, p, false, err);
    }
    free(copy);
    return rc;
}

static int load_files(struct files *f, const struct gq_kube_config_opts *o, gq_error *err)
{
    const char *env = getenv("KUBECONFIG"), *home = getenv("HOME");
    char *path;
    size_t n;
    int rc;

    if (o && o->kubeconfig && *o->kubeconfig)
        return load_one(f, o->kubeconfig, true, err);
    if (env && *env)
        return load_list(f, env, err);
    if (!home || !*home)
        return GQ_OK;
    n = strlen(home) + sizeof("/.kube/config");
    if (!(path = malloc(n)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    snprintf(path, n, "%s/.kube/config", home);
    rc = load_one(f, path, false, err);
    free(path);
    return rc;
}

/* No file defines anything: client-go's "empty config", which lets in-cluster apply. */
static bool files_empty(const struct files *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        if (f->kc[i].nclusters || f->kc[i].nusers || f->kc[i].ncontexts || f->kc[i].current_context)
            return false;
    return true;
}

/* ---------------------------------------------------------------- lookups */

/* The merge: the first file that sets a name or the current context wins. */
static const char *current_context(const struct files *f)
{
    size_t i;

    for (i = 0; i < f->n; i++)
        if (f->kc[i].current_context)
            return f->kc[i].current_context;
    return NULL;
}

static struct gq__kc_context *find_context(const struct files *f, const char *name)
{
    size_t i, j;

    for (i = 0; i < f->n; i++)
        for (j = 0; j < f->kc[i].ncontexts; j++)
            if (strcmp(f->kc[i].contexts[j].name, name) == 0)
                return &f->kc[i].contexts[j];
    return NULL;
}

static struct gq__kc_cluster *find_cluster(const struct files *f, const char *name)
{
    size_t i, j;

    for (i = 0; i < f->n; i++)
        for (j = 0; j < f->kc[i].nclusters; j++)
            if (strcmp(f->kc[i].clusters[j].name, name) == 0)
                return &f->kc[i].clusters[j];
    return NULL;
}

static struct gq__kc_user *find_user(const struct files *f, const char *name)
{
    size_t i, j;

    for (i = 0; i < f->n; i++)
        for (j = 0; j < f->kc[i].nusers; j++)
            if (strcmp(f->kc[i].users[j].name, name) == 0)
                return &f->kc[i].users[j];
    return NULL;
}

/* ------------------------------------------------------------- validation */

/* True (and *e set) when path cannot be opened for reading, as client-go checks files. */
static bool unreadable(const char *path, int *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

    *e = errno;
    if (fd < 0)
        return true;
    close(fd);
    return false;
}

/* http:// is for a local test server only: a token must not cross a network in clear. */
static bool is_local(const char *host)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    size_t i, n;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        n = strlen(names[i]);
        if (strncmp(host, names[i], n) == 0 &&
            (host[n] == '\0' || host[n] == ':' || host[n] == '/'))
            return true;
    }
    return false;
}

/* The server URL, checked and without trailing '/', into *out. */
static int check_server(char **out, const struct gq__kc_cluster *c, gq_error *err)
{
    const char *s = c->server, *host;
    size_t n = strlen(s);

    if (strncmp(s, "https://", 8) == 0)
        host = s + 8;
    else if (strncmp(s, "http://", 7) == 0 && is_local(s + 7))
        host = s + 7;
    else if (strncmp(s, "http://", 7) == 0)
        return gq__error(err, GQ_EINVALID,
                         "cluster \"%s\": server %s: http is allowed only for localhost; use https",
                         c->name, s);
    else
        return gq__error(err, GQ_EINVALID, "cluster \"%s\": server %s must start with https://",
                         c->name, s);
    /* No userinfo, query or fragment: "http://localhost:80@evil.example" must not pass as local. */
    if (!*host || *host == '/' || strcspn(s, " @?#") != n || gq__kube_token_bad(s))
        return gq__error(err, GQ_EINVALID, "cluster \"%s\": server %s is not a valid URL", c->name,
                         s);
    while (s[n - 1] == '/')
        n--;
    if (!(*out = strndup(s, n)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

static int check_cluster(const struct gq__kc_cluster *c, gq_error *err)
{
    int e;

    if (!c->server)
        return gq__error(err, GQ_EINVALID, "no server found for cluster \"%s\"", c->name);
    if (c->tls_server_name)
        return gq__error(err, GQ_EUNSUPPORTED, "cluster \"%s\": tls-server-name is not supported",
                         c->name);
    if (c->proxy_url)
        return gq__error(err, GQ_EUNSUPPORTED, "cluster \"%s\": proxy-url is not supported",
                         c->name);
    if (c->insecure && (c->ca_file || c->ca_data))
        return gq__error(err, GQ_EINVALID,
                         "cluster \"%s\": specifying a root certificates file with the insecure "
                         "flag is not allowed",
                         c->name);
    if (c->ca_file && !c->ca_data && unreadable(c->ca_file, &e))
        return gq__error(err, GQ_EINVALID,
                         "unable to read certificate-authority %s for %s due to %s", c->ca_file,
                         c->name, strerror(e));
    return GQ_OK;
}

/* An exec plugin's settings, with v1beta1's default interactiveMode filled in. */
static int check_exec(struct gq_kube_exec *ex, const char *user, gq_error *err)
{
    const char *m = ex->interactive_mode;

    if (!ex->command)
        return gq__error(err, GQ_EINVALID,
                         "command must be specified for %s to use exec authentication plugin",
                         user);
    if (!ex->api_version)
        return gq__error(err, GQ_EINVALID,
                         "apiVersion must be specified for %s to use exec authentication plugin",
                         user);
    if (strcmp(ex->api_version, EXEC_V1) != 0 && strcmp(ex->api_version, EXEC_V1BETA1) != 0)
        return gq__error(err, GQ_EINVALID, "user \"%s\": exec plugin: invalid apiVersion \"%s\"",
                         user, ex->api_version);
    if (!m && strcmp(ex->api_version, EXEC_V1) == 0)
        return gq__error(err, GQ_EINVALID,
                         "interactiveMode must be specified for %s to use exec authentication "
                         "plugin",
                         user);
    if (!m)
        return (ex->interactive_mode = strdup("IfAvailable"))
                   ? GQ_OK
                   : gq__error(err, GQ_ENOMEM, "out of memory");
    if (strcmp(m, "Never") != 0 && strcmp(m, "IfAvailable") != 0 && strcmp(m, "Always") != 0)
        return gq__error(err, GQ_EINVALID, "invalid interactiveMode for %s: \"%s\"", user, m);
    return GQ_OK;
}

/* client-go's rule: one of token (or tokenFile), basic auth, exec, auth-provider. */
static int check_methods(const struct gq__kc_user *u, gq_error *err)
{
    static const char *const names[] = {"token", "basicAuth", "exec", "authProvider"};
    const bool on[] = {u->token || u->token_file, u->basic_auth, u->exec, u->auth_provider};
    char found[64] = "";
    size_t i, n = 0;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (on[i]) {
            n++;
            strcat(found, " ");
            strcat(found, names[i]);
        }
    }
    if (n > 1)
        return gq__error(err, GQ_EINVALID,
                         "more than one authentication method found for %s; found [%s], only one "
                         "is allowed",
                         u->name, found + 1);
    if (u->basic_auth)
        return gq__error(err, GQ_EUNSUPPORTED,
                         "user \"%s\": basic authentication (username/password) is not supported",
                         u->name);
    if (u->auth_provider)
        return gq__error(err, GQ_EUNSUPPORTED,
                         "user \"%s\": auth-provider \"%s\" is not supported; use an exec plugin "
                         "(for GKE, gke-gcloud-auth-plugin)",
                         u->name, u->auth_provider);
    if (u->impersonate)
        return gq__error(err, GQ_EUNSUPPORTED, "user \"%s\": impersonation (%s) is not supported",
                         u->name, u->impersonate);
    return GQ_OK;
}

/* A client certificate needs its key and the other way round; files must be readable. */
static int check_certs(const struct gq__kc_user *u, gq_error *err)
{
    bool cert = u->cert_file || u->cert_data, key = u->key_file || u->key_data;
    int e;

    if (cert && !key)
        return gq__error(err, GQ_EINVALID,
                         "client-key-data or client-key must be specified for %s to use the "
                         "clientCert authentication method",
                         u->name);
    if (key && !cert)
        return gq__error(err, GQ_EINVALID,
                         "client-cert-data or client-cert must be specified for %s to use the "
                         "clientCert authentication method",
                         u->name);
    if (u->cert_file && !u->cert_data && unreadable(u->cert_file, &e))
        return gq__error(err, GQ_EINVALID, "unable to read client-cert %s for %s due to %s",
                         u->cert_file, u->name, strerror(e));
    if (u->key_file && !u->key_data && unreadable(u->key_file, &e))
        return gq__error(err, GQ_EINVALID, "unable to read client-key %s for %s due to %s",
                         u->key_file, u->name, strerror(e));
    return GQ_OK;
}

static int check_user(struct gq__kc_user *u, gq_error *err)
{
    int rc;

    if ((rc = check_methods(u, err)) != GQ_OK || (rc = check_certs(u, err)) != GQ_OK)
        return rc;
    if (u->token && gq__kube_token_bad(u->token))
        return gq__error(err, GQ_EINVALID, "user \"%s\": token contains a control character",
                         u->name);
    return u->exec ? check_exec(u->exec, u->name, err) : GQ_OK;
}

/* ------------------------------------------------------------- selection */

/* Move a string out of a parsed file into the result (the files are freed next). */
static char *take(char **p)
{
    char *s = *p;

    *p = NULL;
    return s;
}

/* Fill out from the chosen entries; *-data wins over the file, as in client-go. */
static void
take_entries(struct gq_kube_config *out, struct gq__kc_cluster *c, struct gq__kc_user *u)
{
    if (c->ca_data) {
        out->ca_pem = take(&c->ca_data);
        out->ca_pem_len = c->ca_len;
    } else {
        out->ca_file = take(&c->ca_file);
    }
    out->insecure = c->insecure;
    if (!u)
        return;
    if (u->cert_data) {
        out->cert_pem = take(&u->cert_data);
        out->cert_pem_len = u->cert_len;
    } else {
        out->cert_file = take(&u->cert_file);
    }
    if (u->key_data) {
        out->key_pem = take(&u->key_data);
        out->key_pem_len = u->key_len;
    } else {
        out->key_file = take(&u->key_file);
    }
    out->token = take(&u->token);
    out->token_file = take(&u->token_file);
    out->exec = u->exec;
    u->exec = NULL;
}

/*
 * http:// is allowed for a credential-less local endpoint only, such as
 * `kubectl proxy`, which adds the credentials itself. A token (or an exec
 * plugin, which may return one) would cross in clear text: refused, naming
 * the server, rather than sent with a warning; client-go would send it
 * silently, but nothing gpuq talks to needs a token over http.
 */
static int check_clear_text(const struct gq__kc_cluster *c, const struct gq__kc_user *u,
                            gq_error *err)
{
    const char *what = NULL;

    if (u && u->token)
        what = "token";
    else if (u && u->token_file)
        what = "tokenFile";
    else if (u && u->exec)
        what = "exec plugin";
    if (!what || strncmp(c->server, "http://", 7) != 0)
        return GQ_OK;
    return gq__error(err, GQ_EINVALID,
                     "cluster \"%s\": server %s is http: refusing to send the credentials of "
                     "user \"%s\" (%s) in clear text; use https",
                     c->name, c->server, u->name, what);
}

/* The context's cluster and user, found and validated. */
static int find_entries(const struct files *f,
                        const struct gq__kc_context *ctx,
                        struct gq__kc_cluster **c_out,
                        struct gq__kc_user **u_out,
                        gq_error *err)
{
    int rc;

    *c_out = NULL;
    *u_out = NULL;
    if (!ctx->cluster)
        return gq__error(err, GQ_EINVALID, "context \"%s\" names no cluster", ctx->name);
    if (!(*c_out = find_cluster(f, ctx->cluster)))
        return gq__error(err, GQ_EINVALID, "cluster \"%s\" was not found for context \"%s\"",
                         ctx->cluster, ctx->name);
    /* A context without a user is valid: it connects anonymously (or with a client cert). */
    if (ctx->user && !(*u_out = find_user(f, ctx->user)))
        return gq__error(err, GQ_EINVALID, "user \"%s\" was not found for context \"%s\"",
                         ctx->user, ctx->name);
    if ((rc = check_cluster(*c_out, err)) != GQ_OK)
        return rc;
    return *u_out ? check_user(*u_out, err) : GQ_OK;
}

static int select_context(struct gq_kube_config *out,
                          const struct files *f,
                          const struct gq_kube_config_opts *o,
                          gq_error *err)
{
    const char *name = o && o->context && *o->context ? o->context : current_context(f);
    struct gq__kc_context *ctx;
    struct gq__kc_cluster *c = NULL;
    struct gq__kc_user *u = NULL;
    int rc;

    if (!name)
        return gq__error(err, GQ_EINVALID,
                         "no context chosen: current-context is not set (use --context)");
    if (!(ctx = find_context(f, name)))
        return gq__error(err, GQ_EINVALID, "context was not found for specified context: %s", name);
    if ((rc = find_entries(f, ctx, &c, &u, err)) != GQ_OK ||
        (rc = check_server(&out->server, c, err)) != GQ_OK ||
        (rc = check_clear_text(c, u, err)) != GQ_OK)
        return rc;
    out->context = strdup(ctx->name);
    out->namespace = ctx->namespace ? take(&ctx->namespace) : strdup("default");
    take_entries(out, c, u);
    if (!out->context || !out->namespace)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

/* ------------------------------------------------------------- in-cluster */

static bool in_cluster_env(const char **host, const char **port)
{
    *host = getenv("KUBERNETES_SERVICE_HOST");
    *port = getenv("KUBERNETES_SERVICE_PORT");
    return *host && **host && *port && **port;
}

/* https://host:port, an IPv6 literal bracketed (client-go's net.JoinHostPort). */
static int sa_server(struct gq_kube_config *out, const char *host, const char *port, gq_error *err)
{
    bool v6 = strchr(host, ':') && host[0] != '[';
    size_t n = strspn(port, "0123456789");
    long p = strtol(port, NULL, 10);

    if (strcspn(host, "/@?# ") != strlen(host) || gq__kube_token_bad(host))
        return gq__error(err, GQ_EINVALID, "KUBERNETES_SERVICE_HOST %s is not a host", host);
    if (n == 0 || n > 5 || port[n] || p < 1 || p > 65535)
        return gq__error(err, GQ_EINVALID, "KUBERNETES_SERVICE_PORT %s is not a port", port);
    n = strlen(host) + strlen(port) + sizeof("https://[]:");
    if (!(out->server = malloc(n)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    snprintf(out->server, n, v6 ? "https://[%s]:%s" : "https://%s:%s", host, port);
    return GQ_OK;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + 1 + strlen(name) + 1;
    char *s = malloc(n);

    if (s)
        snprintf(s, n, "%s/%s", dir, name);
    return s;
}

/* Read a service-account file now, so that a pod without one fails at start (fail closed). */
static int sa_check(const char *path, const char *what, bool guard, gq_error *err)
{
    size_t len;
    char *buf;
    int rc;

    rc = gq__kube_read_file(&buf, &len, path, what, GQ_KUBE_TOKEN_MAX_BYTES, guard, err);
    /* Missing here is a broken pod, not "no configuration". */
    if (rc == GQ_ENOTFOUND && err)
        err->code = rc = GQ_EIO;
    if (rc == GQ_OK && strspn(buf, " \t\r\n") == len)
        rc = gq__error(err, GQ_EIO, "%s %s is empty", what, path);
    gq__kube_burn(buf, len);
    return rc;
}

/* POD_NAMESPACE, else the namespace file trimmed, else "default". */
static char *sa_namespace(const char *dir)
{
    const char *env = getenv("POD_NAMESPACE");
    char *path, *buf = NULL, *ns = NULL, *s;
    size_t len;

    if (env && *env)
        return strdup(env);
    if ((path = join(dir, "namespace")) &&
        gq__kube_read_file(&buf, &len, path, "namespace file", 1024, false, NULL) == GQ_OK) {
        for (s = buf; *s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'; s++)
            ;
        len = strcspn(s, " \t\r\n");
        if (len)
            ns = strndup(s, len);
    }
    free(path);
    free(buf);
    return ns ? ns : strdup("default");
}

int gq__kube_config_in_cluster(struct gq_kube_config *out, gq_error *err)
{
    const char *host, *port, *dir = sa_dir();
    int rc;

    GQ_ASSERT_ARG(out);
    memset(out, 0, sizeof(*out));
    if (!in_cluster_env(&host, &port))
        return gq__error(err, GQ_ENOTFOUND,
                         "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
                         "KUBERNETES_SERVICE_PORT must be defined");
    if ((rc = sa_server(out, host, port, err)) != GQ_OK)
        goto out;
    out->context = strdup("in-cluster");
    out->token_file = join(dir, "token");
    out->ca_file = join(dir, "ca.crt");
    out->namespace = sa_namespace(dir);
    if (!out->context || !out->token_file || !out->ca_file || !out->namespace) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = sa_check(out->token_file, "service account token", true, err)) == GQ_OK)
        rc = sa_check(out->ca_file, "service account CA", false, err);
out:
    if (rc != GQ_OK)
        gq__kube_config_free(out);
    return rc;
}

/* ----------------------------------------------------------------- public */

static int
load_kubeconfig(struct gq_kube_config *out, const struct gq_kube_config_opts *o, gq_error *err)
{
    const char *host, *port;
    struct files f = {NULL, 0};
    int rc;

    if ((rc = load_files(&f, o, err)) != GQ_OK)
        goto out;
    if (!files_empty(&f) || (o && o->context && *o->context))
        rc = select_context(out, &f, o, err);
    else if (in_cluster_env(&host, &port))
        rc = gq__kube_config_in_cluster(out, err);
    else
        rc = gq__error(err, GQ_ENOTFOUND,
                       "no configuration: set --kubeconfig or KUBECONFIG, or run in a cluster");
out:
    files_free(&f);
    return rc;
}

int gq__kube_config_load(struct gq_kube_config *out,
                         const struct gq_kube_config_opts *o,
                         gq_error *err)
{
    char *ns;
    int rc;

    GQ_ASSERT_ARG(out);
    memset(out, 0, sizeof(*out));
    if (o && o->in_cluster)
        rc = gq__kube_config_in_cluster(out, err);
    else
        rc = load_kubeconfig(out, o, err);
    if (rc == GQ_OK && o && o->ns && *o->ns) {
        if ((ns = strdup(o->ns))) {
            free(out->namespace);
            out->namespace = ns;
        } else {
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
        }
    }
    /* The namespace goes into request paths: it must be a name, never "../x". */
    if (rc == GQ_OK && (rc = gq_validate_dns1123_label(out->namespace, err)) != GQ_OK)
        gq__error_prefix(err, "namespace");
    if (rc != GQ_OK)
        gq__kube_config_free(out);
    return rc;
}

int gq__kube_config_from_text(struct gq_kube_config *out, const char *text, size_t len,
                              const char *what, gq_error *err)
{
    struct files f = {NULL, 0};
    int rc;

    GQ_ASSERT_ARG(out && text && what);
    memset(out, 0, sizeof(*out));
    if (!(f.kc = calloc(1, sizeof(*f.kc))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if ((rc = gq__manifest_kubeconfig_parse(&f.kc[0], text, len, what, err)) == GQ_OK) {
        f.n = 1;
        rc = select_context(out, &f, NULL, err);
    }
    if (rc == GQ_OK && (rc = gq_validate_dns1123_label(out->namespace, err)) != GQ_OK)
        gq__error_prefix(err, "namespace");
    if (rc != GQ_OK)
        gq__kube_config_free(out);
    files_free(&f);
    return rc;
}

static size_t slen(const char *s)
{
    return s ? strlen(s) : 0;
}

void gq__kube_config_free(struct gq_kube_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->context);
    free(cfg->server);
    free(cfg->ca_file);
    free(cfg->ca_pem);
    free(cfg->cert_file);
    free(cfg->key_file);
    free(cfg->cert_pem);
    gq__kube_burn(cfg->key_pem, cfg->key_pem_len);
    gq__kube_burn(cfg->token, slen(cfg->token));
    free(cfg->token_file);
    gq__kube_exec_free(cfg->exec);
    free(cfg->namespace);
    gq__kube_burn(cfg->cached_token, slen(cfg->cached_token));
    free(cfg->cached_cert_pem);
    gq__kube_burn(cfg->cached_key_pem, cfg->cached_key_len);
    memset(cfg, 0, sizeof(*cfg));
}
