/*
 * manifest_kubeconfig.c: one kubeconfig file (clientcmd/api/v1 Config) to
 * the plain structs of manifest_kubeconfig.h, through the project's YAML
 * reader (no aliases, bounded depth and size, no duplicate keys).
 *
 * The shape follows client-go's v1 types: clusters, users and contexts are
 * lists of {name, cluster|user|context}; a name appearing twice in one list
 * is an error, as client-go's list-to-map conversion makes it. String fields
 * accept YAML numbers by their text, as sigs.k8s.io/yaml converts them for a
 * string target; an empty string is the same as absent (client-go tests
 * len() == 0 everywhere). Unknown fields are ignored.
 *
 * Secrets (token, client key data) are zeroed before they are freed. No
 * message ever contains a field's value, only field and entry names.
 *
 * Sizes: a kubeconfig is a few KB with a handful of entries, so lists are
 * scanned linearly.
 */
#define _DEFAULT_SOURCE /* explicit_bzero: glibc and the BSDs declare it outside POSIX */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "manifest_kubeconfig.h"
#include "manifest_reader.h"

/* The parse in progress: where messages point and where relative paths start. */
struct parse {
    struct gq__kubeconfig *kc; /* borrowed: the result being filled */
    const char *path;          /* borrowed: the file name for messages */
    char *dir;                 /* owned: the file's absolute directory */
    const char *kind;          /* "cluster", "user", "context", or NULL at the top */
    const char *name;          /* borrowed: the entry's name while inside one */
    int docs;                  /* documents seen */
    gq_error *err;
};

/* Fill err with "kubeconfig PATH: [KIND "NAME": ]message" and return code. */
static int fail(struct parse *p, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parse *p, int code, const char *fmt, ...)
{
    char msg[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (p->kind)
        return gq__error(p->err, code, "kubeconfig %s: %s \"%s\": %s", p->path, p->kind,
                         p->name ? p->name : "", msg);
    return gq__error(p->err, code, "kubeconfig %s: %s", p->path, msg);
}

static int oom(struct parse *p)
{
    return gq__error(p->err, GQ_ENOMEM, "out of memory");
}

static void burn(char *s, size_t len)
{
    if (s)
        explicit_bzero(s, len);
    free(s);
}

/* ----------------------------------------------------------------- fields */

/*
 * A string field into *out (NULL when absent, null or empty). Numbers keep
 * their text (the reader keeps a float's original spelling).
 */
static int str_field(struct parse *p, json_object *body, const char *key, char **out)
{
    json_object *v;
    const char *s;

    *out = NULL;
    if (!json_object_object_get_ex(body, key, &v) || !v)
        return GQ_OK;
    switch (json_object_get_type(v)) {
    case json_type_string:
    case json_type_int:
    case json_type_double:
        break;
    default:
        return fail(p, GQ_EINVALID, "%s: must be a string", key);
    }
    s = json_object_get_string(v);
    if (!s || !*s)
        return GQ_OK;
    /* A NUL would silently cut a token or a path short; the value may be secret, so unquoted. */
    if (json_object_is_type(v, json_type_string) &&
        strlen(s) != (size_t)json_object_get_string_len(v))
        return fail(p, GQ_EINVALID, "%s: must not contain a NUL character", key);
    *out = strdup(s);
    return *out ? GQ_OK : oom(p);
}

static int bool_field(struct parse *p, json_object *body, const char *key, bool *out)
{
    json_object *v;

    *out = false;
    if (!json_object_object_get_ex(body, key, &v) || !v)
        return GQ_OK;
    if (!json_object_is_type(v, json_type_boolean))
        return fail(p, GQ_EINVALID, "%s: must be true or false", key);
    *out = json_object_get_boolean(v);
    return GQ_OK;
}

/* A mapping field: *out borrowed, NULL when absent or null. */
static int map_field(struct parse *p, json_object *body, const char *key, json_object **out)
{
    *out = NULL;
    if (!json_object_object_get_ex(body, key, out) || !*out)
        return GQ_OK;
    if (!json_object_is_type(*out, json_type_object))
        return fail(p, GQ_EINVALID, "%s: must be a mapping", key);
    return GQ_OK;
}

/* A list field: *out borrowed, NULL when absent or null. */
static int list_field(struct parse *p, json_object *body, const char *key, json_object **out)
{
    *out = NULL;
    if (!json_object_object_get_ex(body, key, out) || !*out)
        return GQ_OK;
    if (!json_object_is_type(*out, json_type_array))
        return fail(p, GQ_EINVALID, "%s: must be a list", key);
    return GQ_OK;
}

/* A path field, made absolute against the file's directory (client-go's ResolvePaths). */
static int path_field(struct parse *p, json_object *body, const char *key, char **out)
{
    char *rel, *abs;
    size_t n;
    int rc;

    if ((rc = str_field(p, body, key, out)) != GQ_OK || !*out || (*out)[0] == '/')
        return rc;
    rel = *out;
    n = strlen(p->dir) + 1 + strlen(rel) + 1;
    abs = malloc(n);
    if (!abs)
        return oom(p);
    snprintf(abs, n, "%s/%s", p->dir, rel);
    free(rel);
    *out = abs;
    return GQ_OK;
}

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    return c == '/' ? 63 : -1;
}

/*
 * Decode one group of four characters q (positions at[]) into o; the number
 * of bytes written, 0 for a bad group with *bad set, and *done once padded.
 */
static size_t
b64_quad(const char q[4], const size_t at[4], unsigned char *o, bool *done, size_t *bad)
{
    int v[4], i, n = 4;

    for (i = 0; i < 4; i++) {
        v[i] = b64_value((unsigned char)q[i]);
        if (v[i] < 0 && !(q[i] == '=' && i >= 2 && (i == 3 || q[3] == '='))) {
            *bad = at[i];
            return 0;
        }
        if (v[i] < 0 && n == 4)
            n = i;
    }
    o[0] = (unsigned char)(v[0] << 2 | v[1] >> 4);
    if (n > 2)
        o[1] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
    if (n > 3)
        o[2] = (unsigned char)((v[2] & 3) << 6 | v[3]);
    *done = n < 4;
    return (size_t)n - 1;
}

/*
 * Standard base64 with padding, as Go's base64.StdEncoding reads a []byte
 * field: CR and LF are skipped, anything else out of place is an error at
 * its byte offset. 0, -1 (*bad set) or -2 (no memory). *out gets a NUL.
 */
static int b64_decode(const char *s, char **out, size_t *len_out, size_t *bad)
{
    size_t n = strlen(s), i, k = 0, o = 0, at[4];
    unsigned char *buf = malloc(n / 4 * 3 + 4);
    bool done = false;
    char q[4];

    if (!buf)
        return -2;
    for (i = 0; i < n; i++) {
        if (s[i] == '\r' || s[i] == '\n')
            continue;
        if (done)
            break;
        q[k] = s[i];
        at[k++] = i;
        if (k < 4)
            continue;
        k = b64_quad(q, at, buf + o, &done, bad);
        if (k == 0)
            break;
        o += k;
        k = 0;
    }
    if (i < n || k != 0) {
        *bad = i < n ? (done ? i : *bad) : n;
        burn((char *)buf, n / 4 * 3 + 4);
        return -1;
    }
    buf[o] = '\0';
    *out = (char *)buf;
    *len_out = o;
    return 0;
}

int gq__manifest_base64_decode(const char *s, char **out, size_t *len, size_t *bad)
{
    return b64_decode(s, out, len, bad);
}

/* A *-data field: base64 decoded into *out (NUL-terminated, *len_out bytes). */
static int
data_field(struct parse *p, json_object *body, const char *key, char **out, size_t *len_out)
{
    char *text;
    size_t bad = 0;
    int rc;

    *out = NULL;
    *len_out = 0;
    if ((rc = str_field(p, body, key, &text)) != GQ_OK || !text)
        return rc;
    rc = b64_decode(text, out, len_out, &bad);
    burn(text, strlen(text));
    if (rc == -2)
        return oom(p);
    if (rc < 0)
        return fail(p, GQ_EINVALID, "%s: illegal base64 data at input byte %zu", key, bad);
    return GQ_OK;
}

/* ---------------------------------------------------------------- entries */

static int parse_cluster(struct parse *p, json_object *b, struct gq__kc_cluster *c)
{
    int rc;

    if ((rc = str_field(p, b, "server", &c->server)) != GQ_OK ||
        (rc = path_field(p, b, "certificate-authority", &c->ca_file)) != GQ_OK ||
        (rc = data_field(p, b, "certificate-authority-data", &c->ca_data, &c->ca_len)) != GQ_OK ||
        (rc = bool_field(p, b, "insecure-skip-tls-verify", &c->insecure)) != GQ_OK ||
        (rc = str_field(p, b, "tls-server-name", &c->tls_server_name)) != GQ_OK ||
        (rc = str_field(p, b, "proxy-url", &c->proxy_url)) != GQ_OK)
        return rc;
    return GQ_OK;
}

/* One env entry {name, value} as "name=value"; the name must be usable in an environment. */
static int parse_env(struct parse *p, json_object *item, char **out)
{
    char *name = NULL, *value = NULL;
    size_t n;
    int rc;

    if (!json_object_is_type(item, json_type_object))
        return fail(p, GQ_EINVALID, "exec: env: each entry must be a mapping");
    if ((rc = str_field(p, item, "name", &name)) != GQ_OK ||
        (rc = str_field(p, item, "value", &value)) != GQ_OK)
        goto out;
    if (!name || strchr(name, '=')) {
        rc = fail(p, GQ_EINVALID, "exec: env: a variable needs a name without '='");
        goto out;
    }
    n = strlen(name) + 1 + (value ? strlen(value) : 0) + 1;
    if (!(*out = malloc(n))) {
        rc = oom(p);
        goto out;
    }
    snprintf(*out, n, "%s=%s", name, value ? value : "");
out:
    free(name);
    burn(value, value ? strlen(value) : 0);
    return rc;
}

/* A list of strings (args) or of env entries into an array of n strings. */
static int
parse_strings(struct parse *p, json_object *exec, const char *key, char ***out, size_t *n_out)
{
    json_object *list, *item;
    size_t i, n;
    int rc;

    if ((rc = list_field(p, exec, key, &list)) != GQ_OK || !list)
        return rc;
    n = json_object_array_length(list);
    if (!(*out = calloc(n + 1, sizeof(char *))))
        return oom(p);
    for (i = 0; i < n; i++) {
        item = json_object_array_get_idx(list, i);
        if (strcmp(key, "env") == 0) {
            rc = parse_env(p, item, &(*out)[i]);
        } else if (!json_object_is_type(item, json_type_string)) {
            rc = fail(p, GQ_EINVALID, "exec: %s: each entry must be a string", key);
        } else if (strlen(json_object_get_string(item)) !=
                   (size_t)json_object_get_string_len(item)) {
            rc = fail(p, GQ_EINVALID, "exec: %s: an entry contains a NUL character", key);
        } else if (!((*out)[i] = strdup(json_object_get_string(item)))) {
            rc = oom(p);
        }
        if (rc != GQ_OK)
            return rc;
        *n_out = i + 1;
    }
    return GQ_OK;
}

/* users[].user.exec; the command is resolved like a path when it contains '/'. */
static int parse_exec(struct parse *p, json_object *b, struct gq_kube_exec **out)
{
    struct gq_kube_exec *ex;
    json_object *e;
    int rc;

    if ((rc = map_field(p, b, "exec", &e)) != GQ_OK || !e)
        return rc;
    if (!(ex = calloc(1, sizeof(*ex))))
        return oom(p);
    *out = ex;
    if ((rc = str_field(p, e, "command", &ex->command)) != GQ_OK ||
        (rc = parse_strings(p, e, "args", &ex->args, &ex->nargs)) != GQ_OK ||
        (rc = parse_strings(p, e, "env", &ex->env, &ex->nenv)) != GQ_OK ||
        (rc = str_field(p, e, "apiVersion", &ex->api_version)) != GQ_OK ||
        (rc = str_field(p, e, "interactiveMode", &ex->interactive_mode)) != GQ_OK ||
        (rc = bool_field(p, e, "provideClusterInfo", &ex->provide_cluster_info)) != GQ_OK ||
        (rc = str_field(p, e, "installHint", &ex->install_hint)) != GQ_OK)
        return rc;
    if (ex->command && strchr(ex->command, '/')) {
        free(ex->command);
        rc = path_field(p, e, "command", &ex->command);
    }
    return rc;
}

/* A field that is there with some content (a non-empty string, list or mapping, or any scalar). */
static bool present(json_object *b, const char *key)
{
    json_object *v;

    if (!json_object_object_get_ex(b, key, &v) || !v)
        return false;
    switch (json_object_get_type(v)) {
    case json_type_string:
        return json_object_get_string_len(v) > 0;
    case json_type_array:
        return json_object_array_length(v) > 0;
    case json_type_object:
        return json_object_object_length(v) > 0;
    default:
        return true;
    }
}

/* The parts of a user that the client refuses but must notice: basic auth, auth-provider, as. */
static int parse_refused(struct parse *p, json_object *b, struct gq__kc_user *u)
{
    static const char *const imp[] = {"as", "as-uid", "as-groups", "as-user-extra"};
    json_object *ap;
    size_t i;
    int rc;

    u->basic_auth = present(b, "username") || present(b, "password");
    for (i = 0; i < sizeof(imp) / sizeof(imp[0]) && !u->impersonate; i++)
        if (present(b, imp[i]) && !(u->impersonate = strdup(imp[i])))
            return oom(p);
    if ((rc = map_field(p, b, "auth-provider", &ap)) != GQ_OK || !ap)
        return rc;
    if ((rc = str_field(p, ap, "name", &u->auth_provider)) != GQ_OK)
        return rc;
    if (!u->auth_provider && !(u->auth_provider = strdup("")))
        return oom(p);
    return GQ_OK;
}

static int parse_user(struct parse *p, json_object *b, struct gq__kc_user *u)
{
    int rc;

    if ((rc = path_field(p, b, "client-certificate", &u->cert_file)) != GQ_OK ||
        (rc = data_field(p, b, "client-certificate-data", &u->cert_data, &u->cert_len)) != GQ_OK ||
        (rc = path_field(p, b, "client-key", &u->key_file)) != GQ_OK ||
        (rc = data_field(p, b, "client-key-data", &u->key_data, &u->key_len)) != GQ_OK ||
        (rc = str_field(p, b, "token", &u->token)) != GQ_OK ||
        (rc = path_field(p, b, "tokenFile", &u->token_file)) != GQ_OK ||
        (rc = parse_refused(p, b, u)) != GQ_OK || (rc = parse_exec(p, b, &u->exec)) != GQ_OK)
        return rc;
    return GQ_OK;
}

static int parse_context(struct parse *p, json_object *b, struct gq__kc_context *c)
{
    int rc;

    if ((rc = str_field(p, b, "cluster", &c->cluster)) != GQ_OK ||
        (rc = str_field(p, b, "user", &c->user)) != GQ_OK ||
        (rc = str_field(p, b, "namespace", &c->namespace)) != GQ_OK)
        return rc;
    return GQ_OK;
}

/* ------------------------------------------------------------------ lists */

/* How one of the three lists is laid out and parsed. */
struct list_kind {
    const char *list; /* "clusters" */
    const char *kind; /* "cluster": the body's key, and the word in messages */
    size_t size;      /* sizeof one entry; every entry starts with char *name */
    int (*parse)(struct parse *p, json_object *body, void *entry);
};

static int parse_cluster_v(struct parse *p, json_object *b, void *e)
{
    return parse_cluster(p, b, e);
}

static int parse_user_v(struct parse *p, json_object *b, void *e)
{
    return parse_user(p, b, e);
}

static int parse_context_v(struct parse *p, json_object *b, void *e)
{
    return parse_context(p, b, e);
}

static const struct list_kind clusters_kind = {"clusters", "cluster", sizeof(struct gq__kc_cluster),
                                               parse_cluster_v};
static const struct list_kind users_kind = {"users", "user", sizeof(struct gq__kc_user),
                                            parse_user_v};
static const struct list_kind contexts_kind = {"contexts", "context", sizeof(struct gq__kc_context),
                                               parse_context_v};

/* The name of entry i of items (the first field of every entry struct). */
static const char *entry_name(const void *items, size_t size, size_t i)
{
    return *(char *const *)(const void *)((const char *)items + i * size);
}

/* Item i of a list: its name (checked unique among the first i) and its body. */
static int
parse_item(struct parse *p, const struct list_kind *lk, json_object *item, void *items, size_t i)
{
    char **name = (char **)(void *)((char *)items + i * lk->size);
    json_object *body;
    size_t j;
    int rc;

    if (!json_object_is_type(item, json_type_object))
        return fail(p, GQ_EINVALID, "%s[%zu]: must be a mapping", lk->list, i);
    if ((rc = str_field(p, item, "name", name)) != GQ_OK)
        return rc;
    if (!*name)
        return fail(p, GQ_EINVALID, "%s[%zu]: name is required", lk->list, i);
    for (j = 0; j < i; j++)
        if (strcmp(entry_name(items, lk->size, j), *name) == 0)
            return fail(p, GQ_EINVALID, "duplicate name \"%s\" in %s", *name, lk->list);
    p->kind = lk->kind;
    p->name = *name;
    if ((rc = map_field(p, item, lk->kind, &body)) == GQ_OK && body)
        rc = lk->parse(p, body, (char *)items + i * lk->size);
    p->kind = NULL;
    p->name = NULL;
    return rc;
}

/* One list of the root into *items_out (calloc'd) and *n_out (entries filled, even on error). */
static int parse_list(
    struct parse *p, json_object *root, const struct list_kind *lk, void **items_out, size_t *n_out)
{
    json_object *list;
    size_t i, n;
    int rc;

    if ((rc = list_field(p, root, lk->list, &list)) != GQ_OK || !list)
        return rc;
    n = json_object_array_length(list);
    if (n == 0)
        return GQ_OK;
    if (!(*items_out = calloc(n, lk->size)))
        return oom(p);
    for (i = 0; i < n; i++) {
        *n_out = i + 1;
        rc = parse_item(p, lk, json_object_array_get_idx(list, i), *items_out, i);
        if (rc != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/* ------------------------------------------------------------------- file */

static int parse_root(struct parse *p, json_object *root)
{
    struct gq__kubeconfig *kc = p->kc;
    void *items = NULL;
    char *s = NULL;
    int rc;

    if ((rc = str_field(p, root, "kind", &s)) != GQ_OK)
        return rc;
    if (s && strcmp(s, "Config") != 0)
        rc = fail(p, GQ_EINVALID, "kind is not Config");
    free(s);
    if (rc != GQ_OK || (rc = str_field(p, root, "apiVersion", &s)) != GQ_OK)
        return rc;
    if (s && strcmp(s, "v1") != 0)
        rc = fail(p, GQ_EINVALID, "apiVersion is not v1");
    free(s);
    if (rc != GQ_OK || (rc = str_field(p, root, "current-context", &kc->current_context)) != GQ_OK)
        return rc;
    /* Each list is stored before the next is read, so the free sees partial work. */
    rc = parse_list(p, root, &clusters_kind, &items, &kc->nclusters);
    kc->clusters = items;
    items = NULL;
    if (rc == GQ_OK)
        rc = parse_list(p, root, &users_kind, &items, &kc->nusers);
    kc->users = items;
    items = NULL;
    if (rc == GQ_OK)
        rc = parse_list(p, root, &contexts_kind, &items, &kc->ncontexts);
    kc->contexts = items;
    return rc;
}

static int on_doc(const struct gq__doc *doc, void *payload, gq_error *err)
{
    struct parse *p = payload;

    (void)err;
    if (++p->docs > 1)
        return fail(p, GQ_EINVALID, "more than one document (line %d)", doc->line);
    return parse_root(p, doc->root);
}

/* The absolute directory of path (client-go's filepath.Abs(filepath.Dir(path))). */
static char *abs_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char cwd[PATH_MAX], *out;
    size_t dlen = slash ? (size_t)(slash - path) : 0, n;

    if (slash && dlen == 0)
        return strdup("/");
    if (path[0] == '/')
        return strndup(path, dlen);
    if (!getcwd(cwd, sizeof(cwd)))
        return NULL;
    n = strlen(cwd) + 1 + dlen + 1;
    if (!(out = malloc(n)))
        return NULL;
    if (slash)
        snprintf(out, n, "%s/%.*s", cwd, (int)dlen, path);
    else
        snprintf(out, n, "%s", cwd);
    return out;
}

int gq__manifest_kubeconfig_parse(
    struct gq__kubeconfig *out, const char *buf, size_t len, const char *path, gq_error *err)
{
    struct parse p = {.kc = out, .path = path, .err = err};
    char source[PATH_MAX + 16];
    int rc;

    GQ_ASSERT_ARG(out && buf && path);
    memset(out, 0, sizeof(*out));
    if (!(out->path = strdup(path)))
        return oom(&p);
    if (!(p.dir = abs_dir(path))) {
        rc = errno == ENOMEM
                 ? oom(&p)
                 : fail(&p, GQ_EIO, "cannot resolve its directory: %s", strerror(errno));
        goto out;
    }
    /* The reader names its source in messages; this makes them read like fail()'s. */
    snprintf(source, sizeof(source), "kubeconfig %s", path);
    rc = gq__manifest_read(buf, len, source, on_doc, &p, err);
out:
    free(p.dir);
    if (rc != GQ_OK)
        gq__manifest_kubeconfig_free(out);
    return rc;
}

/* ------------------------------------------------------------------- free */

void gq__kube_exec_free(struct gq_kube_exec *ex)
{
    size_t i;

    if (!ex)
        return;
    free(ex->command);
    for (i = 0; i < ex->nargs; i++)
        free(ex->args[i]);
    free(ex->args);
    /* exec env values often carry credentials (tokens, keys), so they are zeroed too. */
    for (i = 0; i < ex->nenv; i++)
        burn(ex->env[i], strlen(ex->env[i]));
    free(ex->env);
    free(ex->api_version);
    free(ex->interactive_mode);
    free(ex->install_hint);
    free(ex);
}

static void free_user(struct gq__kc_user *u)
{
    free(u->name);
    free(u->cert_file);
    free(u->key_file);
    free(u->cert_data);
    burn(u->key_data, u->key_len);
    burn(u->token, u->token ? strlen(u->token) : 0);
    free(u->token_file);
    free(u->auth_provider);
    free(u->impersonate);
    gq__kube_exec_free(u->exec);
}

void gq__manifest_kubeconfig_free(struct gq__kubeconfig *kc)
{
    size_t i;

    if (!kc)
        return;
    for (i = 0; i < kc->nclusters; i++) {
        struct gq__kc_cluster *c = &kc->clusters[i];

        free(c->name);
        free(c->server);
        free(c->ca_file);
        free(c->ca_data);
        free(c->tls_server_name);
        free(c->proxy_url);
    }
    for (i = 0; i < kc->nusers; i++)
        free_user(&kc->users[i]);
    for (i = 0; i < kc->ncontexts; i++) {
        free(kc->contexts[i].name);
        free(kc->contexts[i].cluster);
        free(kc->contexts[i].user);
        free(kc->contexts[i].namespace);
    }
    free(kc->clusters);
    free(kc->users);
    free(kc->contexts);
    free(kc->current_context);
    free(kc->path);
    memset(kc, 0, sizeof(*kc));
}
