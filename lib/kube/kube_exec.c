/*
 * kube_exec.c: the credential for the next request (gq__kube_auth): a static
 * token; a token file, re-read once its copy is a minute old or after a 401
 * (kubelet rotates projected tokens; client-go's cached file token source);
 * or an exec credential plugin (client-go's plugin/pkg/client/auth/exec),
 * run when nothing is cached, when its credential expired, or after a 401.
 *
 * The plugin runs as client-go runs it, minus the terminal: fork and execvp
 * (a PATH lookup), standard input /dev/null, standard output a pipe read up
 * to 1 MiB, standard error passed through for the plugin's own messages, the
 * environment ours plus the kubeconfig's exec env plus KUBERNETES_EXEC_INFO.
 * It gets its own process group so that a timeout kills whatever it started
 * too (a shell script's `sleep` would otherwise outlive it).
 *
 * Two consequences of running it this way: the exec env may set PATH for the
 * lookup (as `env PATH=... cmd` would; client-go looks up in its own PATH),
 * and a process that sets SIGCHLD to SIG_IGN cannot run plugins (their exit
 * status is lost; the run fails with waitpid's ECHILD).
 *
 * The plugin's output is a secret (it carries the token): it is never put in
 * a message, and every buffer that held it is zeroed before it is freed.
 * Times: now_ms is the caller's monotonic clock; an expirationTimestamp is
 * wall-clock time, turned into a monotonic deadline with the wall clock read
 * once, right after the plugin answers.
 *
 * Frequency: a token file is read at most once a minute; a plugin runs about
 * once an hour (GKE's tokens live an hour), each run a few hundred ms.
 */
#define _DEFAULT_SOURCE /* explicit_bzero (via gq__kube_burn) and setpgid in older glibc */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "kube.h"
#include "kube_exec.h"
#include "os.h"
#include "util.h"

extern char **environ;

#define TOKEN_FILE_TTL_MS 60000    /* client-go re-reads a token file every minute */
#define EXEC_TIMEOUT_MS 30000      /* a plugin that takes longer is killed */
#define EXEC_OUTPUT_MAX (1u << 20) /* an ExecCredential is a few KB */
#define EXEC_JSON_DEPTH 32         /* an ExecCredential nests three levels */

static int64_t exec_timeout_ms = EXEC_TIMEOUT_MS;

void gq__kube_exec_timeout_ms(int64_t ms)
{
    exec_timeout_ms = ms > 0 ? ms : EXEC_TIMEOUT_MS;
}

static size_t slen(const char *s)
{
    return s ? strlen(s) : 0;
}

static int oom(gq_error *err)
{
    return gq__error(err, GQ_ENOMEM, "out of memory");
}

/* Forget the cached credential (zeroed), so that the next use fetches a new one. */
static void drop_cache(struct gq_kube_config *cfg)
{
    gq__kube_burn(cfg->cached_token, slen(cfg->cached_token));
    free(cfg->cached_cert_pem);
    gq__kube_burn(cfg->cached_key_pem, cfg->cached_key_len);
    cfg->cached_token = NULL;
    cfg->cached_cert_pem = NULL;
    cfg->cached_key_pem = NULL;
    cfg->cached_cert_len = 0;
    cfg->cached_key_len = 0;
    cfg->cached_at_ms = 0;
    cfg->expires_ms = 0;
}

/* ------------------------------------------------------------- token file */

/* The token file's content, trimmed as client-go trims it, when the copy is stale. */
static int read_token_file(struct gq_kube_config *cfg, int64_t now_ms, gq_error *err)
{
    char *buf, *tok = NULL;
    size_t len, start, end;
    int rc;

    if (cfg->cached_token && now_ms - cfg->cached_at_ms < TOKEN_FILE_TTL_MS)
        return GQ_OK;
    rc = gq__kube_read_file(&buf, &len, cfg->token_file, "token file", GQ_KUBE_TOKEN_MAX_BYTES,
                            true, err);
    if (rc != GQ_OK)
        return rc;
    start = strspn(buf, " \t\r\n");
    for (end = len; end > start && isspace((unsigned char)buf[end - 1]); end--)
        ;
    buf[end] = '\0';
    if (end == start)
        rc = gq__error(err, GQ_EINVALID, "token file %s is empty", cfg->token_file);
    else if (memchr(buf + start, '\0', end - start) || gq__kube_token_bad(buf + start))
        rc = gq__error(err, GQ_EINVALID, "token file %s: token contains a control character",
                       cfg->token_file);
    else if (!(tok = strdup(buf + start)))
        rc = oom(err);
    gq__kube_burn(buf, len);
    if (rc != GQ_OK)
        return rc;
    drop_cache(cfg);
    cfg->cached_token = tok;
    cfg->cached_at_ms = now_ms;
    return GQ_OK;
}

/* ------------------------------------------------------ KUBERNETES_EXEC_INFO */

/* Standard base64 with padding, as Go writes a []byte field. */
static char *b64_encode(const char *data, size_t len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = (const unsigned char *)data;
    char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
    size_t i;
    unsigned v;

    if (!out)
        return NULL;
    for (i = 0; i < len; i += 3) {
        v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0) |
            (i + 2 < len ? p[i + 2] : 0);
        *o++ = abc[v >> 18 & 63];
        *o++ = abc[v >> 12 & 63];
        *o++ = i + 1 < len ? abc[v >> 6 & 63] : '=';
        *o++ = i + 2 < len ? abc[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* Add key: a new string (NULL s: nothing); false when json-c ran out of memory. */
static bool add_str(json_object *obj, const char *key, const char *s)
{
    json_object *v;

    if (!s)
        return true;
    if (!(v = json_object_new_string(s)))
        return false;
    return json_object_object_add(obj, key, v) == 0;
}

/* spec.cluster for provideClusterInfo: the server, its CA (file read now), insecure. */
static int exec_cluster(json_object *spec, const struct gq_kube_config *cfg, gq_error *err)
{
    json_object *cl = json_object_new_object();
    char *file = NULL, *b64 = NULL;
    size_t len = 0;
    int rc = GQ_OK;

    if (!cl || json_object_object_add(spec, "cluster", cl) != 0) {
        json_object_put(cl);
        return oom(err);
    }
    if (!cfg->ca_pem && cfg->ca_file)
        rc = gq__kube_read_file(&file, &len, cfg->ca_file, "certificate-authority",
                                GQ_KUBE_CONFIG_MAX_BYTES, false, err);
    if (rc == GQ_OK && (cfg->ca_pem || file) &&
        !(b64 = b64_encode(cfg->ca_pem ? cfg->ca_pem : file, cfg->ca_pem ? cfg->ca_pem_len : len)))
        rc = oom(err);
    if (rc == GQ_OK &&
        (!add_str(cl, "server", cfg->server) || !add_str(cl, "certificate-authority-data", b64) ||
         (cfg->insecure &&
          json_object_object_add(cl, "insecure-skip-tls-verify", json_object_new_boolean(1)))))
        rc = oom(err);
    free(file);
    free(b64);
    return rc;
}

/* "KUBERNETES_EXEC_INFO=<ExecCredential JSON>" into *out, malloc'd. */
static int exec_info(char **out, const struct gq_kube_config *cfg, gq_error *err)
{
    json_object *root = json_object_new_object(), *spec = json_object_new_object();
    const char *text = NULL;
    int rc = GQ_OK;
    size_t n;

    *out = NULL;
    if (!root || !spec || !add_str(root, "kind", "ExecCredential") ||
        !add_str(root, "apiVersion", cfg->exec->api_version) ||
        json_object_object_add(root, "spec", spec) != 0) {
        json_object_put(spec);
        spec = NULL;
        rc = oom(err);
    }
    /* From here root owns spec: one put frees everything. */
    if (rc == GQ_OK && json_object_object_add(spec, "interactive", json_object_new_boolean(0)))
        rc = oom(err);
    if (rc == GQ_OK && cfg->exec->provide_cluster_info)
        rc = exec_cluster(spec, cfg, err);
    if (rc == GQ_OK && !(text = json_object_to_json_string_ext(
                             root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)))
        rc = oom(err);
    n = sizeof("KUBERNETES_EXEC_INFO=") + slen(text);
    if (rc == GQ_OK && !(*out = malloc(n)))
        rc = oom(err);
    if (rc == GQ_OK)
        snprintf(*out, n, "KUBERNETES_EXEC_INFO=%s", text);
    json_object_put(root);
    return rc;
}

/* ------------------------------------------------------------ the process */

/* True when two "NAME=value" entries (or a name and an entry) name the same variable. */
static bool same_name(const char *a, const char *b)
{
    size_t n = strcspn(a, "=");

    return strncmp(a, b, n) == 0 && (b[n] == '=' || b[n] == '\0');
}

static bool overridden(const char *e, char *const *env, size_t n, const char *info)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (same_name(env[i], e))
            return true;
    return same_name(info, e);
}

/*
 * The plugin's environment: ours, then the exec env, then the info, each
 * name once with the last setting winning (as Go's exec.Cmd dedups Env).
 * The array is malloc'd; its strings are borrowed.
 */
static char **exec_env(const struct gq_kube_exec *ex, char *info)
{
    size_t n = 0, i, k = 0;
    char **env;

    while (environ && environ[n])
        n++;
    if (!(env = malloc((n + ex->nenv + 2) * sizeof(*env))))
        return NULL;
    for (i = 0; i < n; i++)
        if (!overridden(environ[i], ex->env, ex->nenv, info))
            env[k++] = environ[i];
    for (i = 0; i < ex->nenv; i++)
        if (!overridden(ex->env[i], ex->env + i + 1, ex->nenv - i - 1, info))
            env[k++] = ex->env[i];
    env[k++] = info;
    env[k] = NULL;
    return env;
}

/* The command and its args, borrowed, NULL-terminated. */
static char **exec_argv(const struct gq_kube_exec *ex)
{
    char **argv = malloc((ex->nargs + 2) * sizeof(*argv));
    size_t i;

    if (!argv)
        return NULL;
    argv[0] = ex->command;
    for (i = 0; i < ex->nargs; i++)
        argv[i + 1] = ex->args[i];
    argv[ex->nargs + 1] = NULL;
    return argv;
}

/* fd moved above the standard descriptors (a daemon may have closed them), close-on-exec. */
static int lift(int fd)
{
    int hi;

    if (fd < 0)
        return fd;
    if (fd > 2) {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        return fd;
    }
    hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return hi;
}

/* In the child: only async-signal-safe calls from here to exec. */
static void child(char **argv, char **env, int in, int out)
{
    sigset_t none;

    setpgid(0, 0);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
        _exit(126);
    environ = env;
    execvp(argv[0], argv);
    _exit(errno == ENOENT ? 127 : 126);
}

/* A running plugin. */
struct run {
    const char *cmd;     /* borrowed: the command, for messages */
    pid_t pid;           /* the child, also its process group; 0 when none */
    int fd;              /* read end of its standard output, -1 when closed */
    int64_t deadline_us; /* monotonic */
    char *out;           /* owned: what it printed so far (a secret) */
    size_t len, size;
};

static int spawn(struct run *r, char **argv, char **env, gq_error *err)
{
    int in = lift(open("/dev/null", O_RDONLY | O_CLOEXEC)), fds[2] = {-1, -1};
    int rc = GQ_OK;

    if (in < 0 || pipe(fds) != 0 || (fds[0] = lift(fds[0])) < 0 || (fds[1] = lift(fds[1])) < 0) {
        rc = gq__error(err, GQ_EIO, "exec plugin \"%s\": %s", r->cmd, strerror(errno));
        goto out;
    }
    r->pid = fork();
    if (r->pid == 0)
        child(argv, env, in, fds[1]);
    if (r->pid < 0) {
        r->pid = 0;
        rc = gq__error(err, GQ_EIO, "exec plugin \"%s\": fork: %s", r->cmd, strerror(errno));
        goto out;
    }
    /* Also here, so that a kill of the group cannot race the child's own setpgid. */
    setpgid(r->pid, r->pid);
    r->fd = fds[0];
    fds[0] = -1;
out:
    if (in >= 0)
        close(in);
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    return rc;
}

/* Room for one more read in r->out, copying (not realloc) so no secret is left behind. */
static bool grow(struct run *r)
{
    size_t size = r->size ? r->size * 2 : 4096;
    char *p;

    if (size > EXEC_OUTPUT_MAX + 2)
        size = EXEC_OUTPUT_MAX + 2;
    if (!(p = malloc(size)))
        return false;
    if (r->len)
        memcpy(p, r->out, r->len);
    gq__kube_burn(r->out, r->size);
    r->out = p;
    r->size = size;
    return true;
}

/* Read the plugin's standard output to its end, within the deadline and the cap. */
static int collect(struct run *r, gq_error *err)
{
    struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
    int64_t left;
    ssize_t n;

    for (;;) {
        if ((left = r->deadline_us - gq__mono_us()) <= 0)
            return GQ_ERROR; /* the caller reports the timeout */
        if (r->len + 1 >= r->size && !grow(r))
            return oom(err);
        if (poll(&pfd, 1, (int)(left / 1000) + 1) <= 0)
            continue; /* EINTR or no data yet: the deadline is checked above */
        n = read(r->fd, r->out + r->len, r->size - 1 - r->len);
        if (n == 0)
            return GQ_OK;
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return gq__error(err, GQ_EIO, "exec plugin \"%s\": %s", r->cmd, strerror(errno));
        r->len += (size_t)n;
        if (r->len > EXEC_OUTPUT_MAX)
            return gq__error(err, GQ_EK8S, "exec plugin \"%s\": output is larger than %u bytes",
                             r->cmd, EXEC_OUTPUT_MAX);
    }
}

/* Wait for the plugin to exit, within the deadline: 0 and *status, 1 on timeout, -1 on error. */
static int reap(struct run *r, int *status)
{
    struct timespec nap = {0, 2000000};
    pid_t w;

    for (;;) {
        w = waitpid(r->pid, status, WNOHANG);
        if (w == r->pid) {
            r->pid = 0;
            return 0;
        }
        if (w < 0 && errno != EINTR)
            return -1;
        if (gq__mono_us() >= r->deadline_us)
            return 1;
        nanosleep(&nap, NULL);
    }
}

/* Kill the plugin's whole process group and reap it. */
static void kill_run(struct run *r)
{
    if (r->pid <= 0)
        return;
    kill(-r->pid, SIGKILL);
    kill(r->pid, SIGKILL);
    while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    r->pid = 0;
}

/* ------------------------------------------------------- the credential */

/* A string member of obj: *out borrowed, NULL when absent or null; false for another type. */
static bool get_str(json_object *obj, const char *key, const char **out)
{
    json_object *v;

    *out = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !v)
        return true;
    if (!json_object_is_type(v, json_type_string))
        return false;
    *out = json_object_get_string(v);
    if (!**out)
        *out = NULL;
    return true;
}

/* The plugin's ExecCredential, checked as client-go checks it; nothing of it is echoed. */
static int check_credential(json_object *root,
                            const struct gq_kube_exec *ex,
                            const char *cmd,
                            json_object **status,
                            gq_error *err)
{
    const char *kind, *version;

    if (!json_object_is_type(root, json_type_object) || !get_str(root, "kind", &kind) || !kind ||
        strcmp(kind, "ExecCredential") != 0)
        return gq__error(err, GQ_EK8S, "exec plugin \"%s\": output is not an ExecCredential", cmd);
    if (!get_str(root, "apiVersion", &version) || !version || strcmp(version, ex->api_version) != 0)
        return gq__error(err, GQ_EK8S,
                         "exec plugin \"%s\": returned an ExecCredential whose apiVersion is not "
                         "the configured %s",
                         cmd, ex->api_version);
    if (!json_object_object_get_ex(root, "status", status) ||
        !json_object_is_type(*status, json_type_object))
        return gq__error(err, GQ_EK8S, "exec plugin \"%s\": didn't return a status field", cmd);
    return GQ_OK;
}

/* status.expirationTimestamp as a monotonic deadline (0: none); an expired one is an error. */
static int expiry(json_object *status, int64_t now_ms, const char *cmd, int64_t *out, gq_error *err)
{
    const char *ts;
    int64_t wall, wall_now = gq__now_ms();

    *out = 0;
    if (!get_str(status, "expirationTimestamp", &ts) || (ts && !gq__parse_rfc3339(ts, &wall)))
        return gq__error(err, GQ_EK8S,
                         "exec plugin \"%s\": status.expirationTimestamp is not an RFC 3339 time",
                         cmd);
    if (!ts)
        return GQ_OK;
    if (wall <= wall_now)
        return gq__error(err, GQ_EK8S, "exec plugin \"%s\": returned an expired credential", cmd);
    *out = now_ms + (wall - wall_now);
    if (*out == 0)
        *out = 1;
    return GQ_OK;
}

/* status into cfg's cache: a token and/or a certificate with its key. */
static int cache_status(
    struct gq_kube_config *cfg, json_object *status, int64_t now_ms, const char *cmd, gq_error *err)
{
    const char *tok, *cert, *key;
    int64_t exp;
    int rc;

    if (!get_str(status, "token", &tok) || !get_str(status, "clientCertificateData", &cert) ||
        !get_str(status, "clientKeyData", &key))
        return gq__error(err, GQ_EK8S, "exec plugin \"%s\": status fields must be strings", cmd);
    if (!tok && !cert && !key)
        return gq__error(err, GQ_EK8S, "exec plugin \"%s\": didn't return a token or cert/key pair",
                         cmd);
    if (!cert != !key)
        return gq__error(err, GQ_EK8S,
                         "exec plugin \"%s\": returned only certificate or key, not both", cmd);
    if (tok && gq__kube_token_bad(tok))
        return gq__error(err, GQ_EK8S,
                         "exec plugin \"%s\": returned a token with a control character", cmd);
    if ((rc = expiry(status, now_ms, cmd, &exp, err)) != GQ_OK)
        return rc;
    drop_cache(cfg);
    cfg->cached_token = gq__strdup(tok);
    cfg->cached_cert_pem = gq__strdup(cert);
    cfg->cached_key_pem = gq__strdup(key);
    cfg->cached_cert_len = slen(cert);
    cfg->cached_key_len = slen(key);
    if ((tok && !cfg->cached_token) || (cert && !cfg->cached_cert_pem) ||
        (key && !cfg->cached_key_pem)) {
        drop_cache(cfg);
        return oom(err);
    }
    cfg->cached_at_ms = now_ms;
    cfg->expires_ms = exp;
    return GQ_OK;
}

/* Parse the plugin's output (len bytes) with a depth limit, one JSON value and nothing after. */
static int
parse_output(struct gq_kube_config *cfg, const struct run *r, int64_t now_ms, gq_error *err)
{
    struct json_tokener *tok = json_tokener_new_ex(EXEC_JSON_DEPTH);
    json_object *root = NULL, *status;
    int rc;

    if (!tok)
        return oom(err);
    root = json_tokener_parse_ex(tok, r->out, (int)r->len);
    if (!root || json_tokener_get_error(tok) != json_tokener_success ||
        strspn(r->out + json_tokener_get_parse_end(tok), " \t\r\n") !=
            r->len - json_tokener_get_parse_end(tok))
        rc = gq__error(err, GQ_EK8S, "exec plugin \"%s\": output is not valid JSON", r->cmd);
    else if ((rc = check_credential(root, cfg->exec, r->cmd, &status, err)) == GQ_OK)
        rc = cache_status(cfg, status, now_ms, r->cmd, err);
    json_object_put(root);
    json_tokener_free(tok);
    return rc;
}

/* ----------------------------------------------------------------- a run */

/* s as one line (the installHint is often several) into buf. */
static const char *one_line(char *buf, size_t size, const char *s)
{
    size_t i;

    snprintf(buf, size, "%s", s);
    for (i = 0; buf[i]; i++)
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
            buf[i] = ' ';
    return buf;
}

/* The wait status as a message: exit 127 (or an exec failure) means the command is missing. */
static int exit_error(const struct gq_kube_exec *ex, const char *cmd, int status, gq_error *err)
{
    char hint[256];

    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return gq__error(err, GQ_EK8S,
                         "exec plugin \"%s\": executable not found (exit status 127)%s%s", cmd,
                         ex->install_hint ? "; " : "",
                         ex->install_hint ? one_line(hint, sizeof(hint), ex->install_hint) : "");
    if (WIFEXITED(status))
        return gq__error(err, GQ_EK8S, "exec plugin \"%s\": exited with status %d", cmd,
                         WEXITSTATUS(status));
    return gq__error(err, GQ_EK8S, "exec plugin \"%s\": killed by signal %d", cmd,
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Start the plugin, read its output, wait for it; the output stays in r->out. */
static int
run_plugin(struct run *r, const struct gq_kube_exec *ex, char **argv, char **env, gq_error *err)
{
    char took[GQ_DURATION_BUFSIZE];
    int rc, status = 0, w;

    r->deadline_us = gq__mono_us() + exec_timeout_ms * 1000;
    if ((rc = spawn(r, argv, env, err)) != GQ_OK)
        return rc;
    rc = collect(r, err);
    if (rc == GQ_OK) {
        r->out[r->len] = '\0';
        w = reap(r, &status);
        rc = w == 0 ? GQ_OK : w == 1 ? GQ_ERROR : GQ_EIO;
        if (rc == GQ_EIO)
            gq__error(err, rc, "exec plugin \"%s\": waitpid: %s", r->cmd, strerror(errno));
    }
    if (rc == GQ_ERROR) {
        gq__format_duration_ms(took, sizeof(took), exec_timeout_ms, true);
        gq__error(err, GQ_EK8S, "exec plugin \"%s\": timed out after %s; killed", r->cmd, took);
        rc = GQ_EK8S;
    }
    kill_run(r);
    if (rc == GQ_OK && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
        rc = exit_error(ex, r->cmd, status, err);
    return rc;
}

static int exec_run(struct gq_kube_config *cfg, int64_t now_ms, gq_error *err)
{
    const struct gq_kube_exec *ex = cfg->exec;
    struct run r = {.cmd = ex->command, .fd = -1};
    char *info = NULL, **env = NULL, **argv = NULL;
    int rc;

    if (strcmp(ex->interactive_mode ? ex->interactive_mode : "", "Always") == 0)
        return gq__error(err, GQ_EUNSUPPORTED,
                         "exec plugin \"%s\" requires an interactive terminal (interactiveMode: "
                         "Always), and gpuq runs it without one",
                         ex->command);
    if ((rc = exec_info(&info, cfg, err)) != GQ_OK)
        goto out;
    if (!(env = exec_env(ex, info)) || !(argv = exec_argv(ex))) {
        rc = oom(err);
        goto out;
    }
    if ((rc = run_plugin(&r, ex, argv, env, err)) == GQ_OK)
        rc = parse_output(cfg, &r, now_ms, err);
out:
    if (r.fd >= 0)
        close(r.fd);
    gq__kube_burn(r.out, r.size);
    free(argv);
    free(env);
    free(info);
    return rc;
}

/* ----------------------------------------------------------------- public */

int gq__kube_auth(struct gq_kube_config *cfg,
                  bool invalidate,
                  int64_t now_ms,
                  struct gq_kube_auth *out,
                  gq_error *err)
{
    bool fresh;
    int rc = GQ_OK;

    GQ_ASSERT_ARG(cfg && out);
    memset(out, 0, sizeof(*out));
    if (invalidate)
        drop_cache(cfg);
    if (cfg->exec) {
        fresh = (cfg->cached_token || cfg->cached_cert_pem) &&
                (cfg->expires_ms == 0 || now_ms < cfg->expires_ms);
        if (!fresh)
            rc = exec_run(cfg, now_ms, err);
    } else if (cfg->token_file) {
        rc = read_token_file(cfg, now_ms, err);
    }
    if (rc != GQ_OK)
        return rc;
    out->token = cfg->cached_token ? cfg->cached_token : cfg->token;
    out->cert_pem = cfg->cached_cert_pem;
    out->key_pem = cfg->cached_key_pem;
    out->cert_len = cfg->cached_cert_len;
    out->key_len = cfg->cached_key_len;
    return GQ_OK;
}
