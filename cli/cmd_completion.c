/*
 * cmd_completion.c: `gpuq completion bash|zsh|fish`, and the hidden
 * `gpuq __complete` the scripts it prints call, as cobra (kubectl's) does:
 * the script hands over the words typed so far, the last one the word being
 * completed (possibly empty), and gpuq prints the candidates that start with
 * it, one a line ("VALUE" or "VALUE<TAB>DESCRIPTION"), then ":DIRECTIVE",
 * cobra's bits: 1 an error (offer nothing), 2 no space after the word, 4 no
 * file names. The scripts are thin; everything gpuq knows is here.
 *
 * Commands come from the command table and flags from each command's own
 * flag table (cli_flags: the table its --help prints), so a command or flag
 * added anywhere is completed without a word changed here. Names of objects
 * come from where the command line points, as the command itself would read
 * them: the database (--db, GPUQ_DB) or, in cluster mode (--kubeconfig,
 * --context, KUBECONFIG), the API server; -n and -A are honoured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DIRECTIVE_ERROR 1
#define DIRECTIVE_NOSPACE 2
#define DIRECTIVE_NOFILE 4

#define MAX_FLAGS 64
#define MAX_POS 32

/* ------------------------------------------------------------- the scripts */

static const char bash_script[] =
    "# bash completion for gpuq, printed by `gpuq completion bash`.\n"
    "# Load it in this shell with: source <(gpuq completion bash)\n"
    "# The candidates come from `gpuq __complete WORD... CURRENT` (cobra's protocol).\n"
    "\n"
    "__gpuq_complete()\n"
    "{\n"
    "    local line cur out directive prefix c\n"
    "    local -a words=() cands=()\n"
    "    # The words as typed, not cut at the = and : of COMP_WORDBREAKS.\n"
    "    if [[ -n ${COMP_LINE+set} ]]; then\n"
    "        line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}\n"
    "        read -r -a words <<< \"$line\"\n"
    "        [[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]] && words+=(\"\")\n"
    "    else\n"
    "        words=(\"${COMP_WORDS[@]:0:COMP_CWORD+1}\")\n"
    "    fi\n"
    "    cur=${words[${#words[@]}-1]}\n"
    "    out=$(\"${words[0]}\" __complete \"${words[@]:1}\" 2>/dev/null) || return 0\n"
    "    directive=${out##*:}\n"
    "    out=${out%:*}\n"
    "    while IFS= read -r c; do\n"
    "        [[ -n $c ]] && cands+=(\"${c%%$'\\t'*}\")\n"
    "    done <<< \"$out\"\n"
    "    (( directive & 1 )) && return 0\n"
    "    # Readline replaces only what follows the last = or : of the word.\n"
    "    prefix=${cur%\"${cur##*[=:]}\"}\n"
    "    COMPREPLY=()\n"
    "    for c in \"${cands[@]}\"; do\n"
    "        COMPREPLY+=(\"${c#\"$prefix\"}\")\n"
    "    done\n"
    "    (( directive & 2 )) && compopt -o nospace 2>/dev/null\n"
    "    (( directive & 4 )) && compopt +o default 2>/dev/null\n"
    "    return 0\n"
    "}\n"
    "\n"
    "complete -o default -F __gpuq_complete gpuq kubectl-gpuq\n";

static const char zsh_script[] =
    "#compdef gpuq kubectl-gpuq\n"
    "# zsh completion for gpuq, printed by `gpuq completion zsh`.\n"
    "# Install it as _gpuq on $fpath, or after compinit: source <(gpuq completion zsh)\n"
    "# The candidates come from `gpuq __complete WORD... CURRENT` (cobra's protocol).\n"
    "\n"
    "_gpuq()\n"
    "{\n"
    "    local out directive line\n"
    "    local -a lines cands\n"
    "    out=$(\"${words[1]}\" __complete \"${(@)words[2,CURRENT]}\" 2>/dev/null) || "
    "return 1\n"
    "    lines=(\"${(@f)out}\")\n"
    "    directive=${lines[-1]#:}\n"
    "    lines=(\"${(@)lines[1,-2]}\")\n"
    "    for line in \"${lines[@]}\"; do\n"
    "        [[ -n $line ]] || continue\n"
    "        if [[ $line == *$'\\t'* ]]; then\n"
    "            cands+=(\"${${line%%$'\\t'*}//:/\\\\:}:${line#*$'\\t'}\")\n"
    "        else\n"
    "            cands+=(\"${line//:/\\\\:}\")\n"
    "        fi\n"
    "    done\n"
    "    (( directive & 1 )) && return 1\n"
    "    if (( ${#cands} )); then\n"
    "        if (( directive & 2 )); then\n"
    "            _describe -t gpuq gpuq cands -S ''\n"
    "        else\n"
    "            _describe -t gpuq gpuq cands\n"
    "        fi\n"
    "    elif (( ! (directive & 4) )); then\n"
    "        _files\n"
    "    fi\n"
    "}\n"
    "\n"
    "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n"
    "    _gpuq \"$@\"\n"
    "else\n"
    "    compdef _gpuq gpuq kubectl-gpuq\n"
    "fi\n";

static const char fish_script[] =
    "# fish completion for gpuq, printed by `gpuq completion fish`.\n"
    "# Load it in this shell with: gpuq completion fish | source\n"
    "# The candidates come from `gpuq __complete WORD... CURRENT` (cobra's protocol).\n"
    "\n"
    "function __gpuq_complete\n"
    "    set -l args (commandline -opc)\n"
    "    set -l cur (commandline -ct)\n"
    "    set -l out ($args[1] __complete $args[2..-1] \"$cur\" 2>/dev/null)\n"
    "    or return\n"
    "    set -l directive (string replace -r '^:' '' -- $out[-1])\n"
    "    set -e out[-1]\n"
    "    if test (math \"bitand($directive, 1)\") -ne 0\n"
    "        return\n"
    "    end\n"
    "    if test (count $out) -gt 0\n"
    "        printf '%s\\n' $out\n"
    "    else if test (math \"bitand($directive, 4)\") -eq 0\n"
    "        __fish_complete_path \"$cur\"\n"
    "    end\n"
    "end\n"
    "\n"
    "complete -c gpuq -f -a '(__gpuq_complete)'\n"
    "complete -c kubectl-gpuq -f -a '(__gpuq_complete)'\n";

static const struct {
    const char *name;
    const char *script;
} shells[] = {{"bash", bash_script}, {"zsh", zsh_script}, {"fish", fish_script}};

#define NSHELLS (sizeof(shells) / sizeof(shells[0]))

int cmd_completion(struct global *g, int argc, char **argv)
{
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    const struct command *self = cli_command("completion");
    size_t i;
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(self, flags);
        return EXIT_SUCCESS;
    }
    if (nargs != 1)
        return cli_usage_error("completion needs one shell: bash, zsh or fish");
    for (i = 0; i < NSHELLS; i++)
        if (strcmp(argv[0], shells[i].name) == 0) {
            fputs(shells[i].script, stdout);
            return EXIT_SUCCESS;
        }
    return cli_usage_error("unknown shell \"%s\": want bash, zsh or fish", argv[0]);
}

/* -------------------------------------------------------- the command line */

/* What the words before the current one say. */
struct line {
    struct global g;                /* --db, --kubeconfig, --context, -n, -A as typed */
    const struct command *cmd;      /* NULL until the command word */
    struct flag flags[MAX_FLAGS];   /* its table, copied (NULL name ends it) */
    const char *pos[MAX_POS];       /* positional words after the command */
    int npos;
    const struct flag *pending;     /* the last word was this flag, its value is due */
    bool dashdash;
    bool unknown;                   /* the command word is no command: nothing to offer */
};

static void copy_flags(const struct command *cmd, const struct flag *flags, void *payload)
{
    struct line *l = payload;
    size_t i;

    (void)cmd;
    for (i = 0; flags[i].name && i < MAX_FLAGS - 1; i++)
        l->flags[i] = flags[i];
    l->flags[i].name = NULL;
}

/* The flag a word names ("--db", "--db=x", "-n", "-nfoo"), or NULL; *value gets an attached value. */
static const struct flag *find_flag(const struct line *l, const char *w, const char **value)
{
    const struct flag *tables[2] = {l->flags, cli_global_flags()}, *f;
    const char *eq = strchr(w, '=');
    size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2), t;
    bool lng = w[1] == '-';

    *value = lng ? (eq ? eq + 1 : NULL) : (w[2] == '=' ? w + 3 : w[2] ? w + 2 : NULL);
    for (t = 0; t < 2; t++)
        for (f = tables[t]; f->name; f++)
            if (lng ? strlen(f->name) == len && strncmp(f->name, w + 2, len) == 0
                    : f->shortname == w[1])
                return f;
    return NULL;
}

/* Keep what a global flag says: the names offered are read where the command would read. */
static void keep_global(struct global *g, const struct flag *f, const char *v)
{
    if (strcmp(f->name, "db") == 0)
        g->db_path = v;
    else if (strcmp(f->name, "kubeconfig") == 0)
        g->kubeconfig = v;
    else if (strcmp(f->name, "context") == 0)
        g->context = v;
    else if (strcmp(f->name, "namespace") == 0)
        g->namespace = v;
    else if (strcmp(f->name, "all-namespaces") == 0)
        g->all_namespaces = true;
}

static void read_word(struct line *l, int argc, char **argv, int *i)
{
    const char *w = argv[*i], *v;
    const struct flag *f;

    if (l->dashdash || w[0] != '-' || w[1] == '\0') {
        if (!l->cmd && !l->unknown && (l->cmd = cli_command(w)) != NULL)
            cli_flags(l->cmd, copy_flags, l);
        else if (!l->cmd)
            l->unknown = true;
        else if (l->npos < MAX_POS)
            l->pos[l->npos++] = w;
        return;
    }
    if (strcmp(w, "--") == 0) {
        l->dashdash = true;
        return;
    }
    if (!(f = find_flag(l, w, &v)))
        return;
    if (f->type != FLAG_BOOL && !v) {
        if (*i + 1 >= argc - 1) { /* its value is the word being completed */
            l->pending = f;
            return;
        }
        v = argv[++*i];
    }
    keep_global(&l->g, f, v);
}

/* ----------------------------------------------------------- the candidates */

/* Print prefix + value as a candidate when it starts with cur, the word being completed. */
static void offer(const char *cur, const char *prefix, const char *value, const char *desc)
{
    char word[512];

    snprintf(word, sizeof(word), "%s%s", prefix, value);
    if (strncmp(word, cur, strlen(cur)) != 0)
        return;
    if (desc && *desc)
        printf("%s\t%s\n", word, desc);
    else
        printf("%s\n", word);
}

static void offer_words(const char *cur, const char *prefix, const char *const *words)
{
    for (; *words; words++)
        offer(cur, prefix, *words, NULL);
}

static void offer_flags(const struct line *l, const char *cur)
{
    const struct flag *tables[2] = {l->flags, cli_global_flags()}, *f;
    char name[80];
    size_t t;

    for (t = 0; t < 2; t++)
        for (f = tables[t]; f->name; f++) {
            snprintf(name, sizeof(name), "--%s", f->name);
            offer(cur, "", name, f->help);
            if (f->shortname && cur[1] != '-') {
                snprintf(name, sizeof(name), "-%c", f->shortname);
                offer(cur, "", name, f->help);
            }
        }
}

static void offer_commands(const char *cur)
{
    const struct command *c;

    for (c = commands; c->name; c++) {
        offer(cur, "", c->name, c->summary);
        if (c->alias)
            offer(cur, "", c->alias, c->summary);
    }
}

/* ------------------------------------------------------------- names of objects */

struct names {
    const char *cur;
    const char *prefix; /* "TYPE/" when completing TYPE/NAME */
    bool jobs;          /* cluster mode: a workload is named by its Job */
    char **seen;        /* namespaces offered so far, each once */
    size_t nseen;
};

/* A namespace, once however many objects live in it. */
static void offer_namespace(struct names *n, const char *ns)
{
    char **v;
    size_t i;

    for (i = 0; ns && i < n->nseen; i++)
        if (strcmp(n->seen[i], ns) == 0)
            return;
    if (!ns || !(v = realloc(n->seen, (n->nseen + 1) * sizeof(*v))))
        return;
    n->seen = v;
    if ((v[n->nseen] = strdup(ns)) == NULL)
        return;
    n->nseen++;
    offer(n->cur, n->prefix, ns, NULL);
}

static int namespace_of_workload(const gq_workload_info *wl, void *payload)
{
    offer_namespace(payload, wl->namespace);
    return 0;
}

static int namespace_of_object(const gq_object_info *o, void *payload)
{
    offer_namespace(payload, o->resource && strcmp(o->resource, "namespace") == 0 ? o->name
                                                                                   : o->namespace);
    return 0;
}

/*
 * A database's namespaces: those applied, and those its queues and workloads
 * live in (kubectl's "default" exists without being created; here too).
 */
static void local_namespaces(gq_db *db, struct names *n)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    gq_error err = {0, ""};
    size_t i;

    offer_namespace(n, "default");
    gq_object_list(db, "namespace", NULL, namespace_of_object, n, &err);
    gq_object_list(db, "localqueue", NULL, namespace_of_object, n, &err);
    gq_workload_list(db, &f, namespace_of_workload, n, &err);
    for (i = 0; i < n->nseen; i++)
        free(n->seen[i]);
    free(n->seen);
}

static int offer_workload(const gq_workload_info *wl, void *payload)
{
    const struct names *n = payload;
    const char *name = n->jobs && wl->job_name ? wl->job_name : wl->name;
    char desc[256];

    snprintf(desc, sizeof(desc), "%s%s%s", wl->state ? wl->state : "",
             wl->local_queue ? " in " : "", wl->local_queue ? wl->local_queue : "");
    offer(n->cur, n->prefix, name, desc);
    return 0;
}

static int offer_object(const gq_object_info *o, void *payload)
{
    const struct names *n = payload;

    offer(n->cur, n->prefix, o->name, o->cluster_queue ? o->cluster_queue : o->cohort);
    return 0;
}

static void local_names(struct line *l, const char *resource, struct names *n)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    gq_error err = {0, ""};
    gq_db *db;

    l->g.reads_only = true; /* never create a database to complete a word */
    if (!(db = cli_open(&l->g)))
        return;
    f.namespace = l->g.all_namespaces ? NULL : cli_namespace(&l->g);
    if (strcmp(resource, "namespace") == 0)
        local_namespaces(db, n);
    else if (strcmp(resource, "workload") == 0)
        gq_workload_list(db, &f, offer_workload, n, &err);
    else
        gq_object_list(db, resource, f.namespace, offer_object, n, &err);
    gq_db_close(db);
}

/*
 * The value of every "name" member of a "metadata" object in JSON text: the
 * names of a List's items (the List's own metadata has none). A small scan,
 * not a parser: the API server's answers are well-formed, and a malformed
 * one only offers fewer words.
 */
static const char *json_string(const char *p, char *buf, size_t size)
{
    size_t n = 0;

    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1])
            p++;
        if (n + 1 < size)
            buf[n++] = *p;
    }
    buf[n] = '\0';
    return *p ? p + 1 : p;
}

static void json_names(const char *p, struct names *n)
{
    char key[64] = "", s[256];
    int depth = 0, meta = -1; /* the depth inside the metadata object we are in */
    bool is_key = true;

    while (*p) {
        if (*p == '"') {
            p = json_string(p, s, sizeof(s));
            while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
                p++;
            if ((is_key = *p == ':'))
                snprintf(key, sizeof(key), "%.63s", s);
            else if (depth == meta && strcmp(key, "name") == 0)
                offer(n->cur, n->prefix, s, NULL);
            continue;
        }
        if (*p == '{' && strcmp(key, "metadata") == 0 && meta < 0)
            meta = depth + 1;
        if (*p == '{' || *p == '[')
            depth++, key[0] = '\0';
        else if (*p == '}' || *p == ']') {
            if (depth-- == meta)
                meta = -1;
            key[0] = '\0';
        } else if (*p == ',')
            key[0] = '\0';
        p++;
    }
}

/* Where the API server lists a resource: its group's path, and whether it is namespaced. */
static const struct {
    const char *resource;
    const char *group;
    const char *plural;
    bool namespaced;
} api_paths[] = {
    {"namespace", "/api/v1", "namespaces", false},
    {"clusterqueue", "/apis/kueue.x-k8s.io/v1beta1", "clusterqueues", false},
    {"localqueue", "/apis/kueue.x-k8s.io/v1beta1", "localqueues", true},
    {"resourceflavor", "/apis/kueue.x-k8s.io/v1beta1", "resourceflavors", false},
    {"cohort", "/apis/kueue.x-k8s.io/v1alpha1", "cohorts", false},
    {"workloadpriorityclass", "/apis/kueue.x-k8s.io/v1beta1", "workloadpriorityclasses", false},
    {"admissioncheck", "/apis/kueue.x-k8s.io/v1beta1", "admissionchecks", false},
    {"provisioningrequestconfig", "/apis/kueue.x-k8s.io/v1beta1", "provisioningrequestconfigs",
     false},
    {"provisioningrequest", "/apis/autoscaling.x-k8s.io/v1", "provisioningrequests", true},
    {"podtemplate", "/api/v1", "podtemplates", true},
};

static void cluster_objects(const struct line *l, const char *resource, struct names *n)
{
    gq_error err = {0, ""};
    gq_kube_target t;
    char *ns = NULL, *json = NULL, path[512];
    long status = 0;
    size_t i;

    for (i = 0; i < sizeof(api_paths) / sizeof(api_paths[0]); i++)
        if (strcmp(api_paths[i].resource, resource) == 0)
            break;
    if (i == sizeof(api_paths) / sizeof(api_paths[0]))
        return;
    cli_target(&l->g, &t);
    if (api_paths[i].namespaced && !l->g.all_namespaces &&
        gq_kube_namespace(&t, &ns, &err) != GQ_OK)
        return;
    snprintf(path, sizeof(path), "%s%s%s/%s", api_paths[i].group, ns ? "/namespaces/" : "",
             ns ? ns : "", api_paths[i].plural);
    if (gq_kube_get(&t, path, &status, &json, &err) == GQ_OK && status == 200)
        json_names(json, n);
    gq_free(json);
    gq_free(ns);
}

static void cluster_names(const struct line *l, const char *resource, struct names *n)
{
    char *json = NULL, *ns = NULL;
    bool jobs = false;
    gq_error err = {0, ""};

    if (strcmp(resource, "workload") != 0) {
        cluster_objects(l, resource, n);
        return;
    }
    if (cluster_workloads(&l->g, &json, &jobs, &ns) != EXIT_SUCCESS)
        return;
    n->jobs = true;
    gq_kube_workloads(json, NULL, offer_workload, n, &err);
    gq_free(json);
    gq_free(ns);
}

static void offer_names(struct line *l, const char *type, const char *cur, const char *prefix)
{
    const char *resource = gq_resource_name(type);
    struct names n = {cur, prefix, false, NULL, 0};

    if (!resource)
        return;
    if (cli_cluster_mode(&l->g))
        cluster_names(l, resource, &n);
    else
        local_names(l, resource, &n);
}

/* ------------------------------------------------------------ what is due */

/* The resource types offered where a command takes TYPE, as kubectl offers plurals. */
static const char *const all_types[] = {
    "workloads",      "clusterqueues",        "localqueues",
    "resourceflavors", "cohorts",             "namespaces",
    "workloadpriorityclasses", "admissionchecks", "provisioningrequestconfigs",
    "provisioningrequests", "podtemplates",   "nodepools",
    NULL};
/* list and get also take pods (list pods --for, cluster mode). */
static const char *const list_types[] = {
    "workloads",      "clusterqueues",        "localqueues",
    "resourceflavors", "cohorts",             "namespaces",
    "workloadpriorityclasses", "admissionchecks", "provisioningrequestconfigs",
    "provisioningrequests", "podtemplates",   "nodepools", "pods",
    NULL};
static const char *const queue_types[] = {"clusterqueues", "localqueues", "workloads", NULL};
static const char *const create_types[] = {"clusterqueue", "localqueue", "resourceflavor", NULL};

/* How a command's positional words are completed: TYPE then NAMEs, or NAMEs of one type. */
static const struct {
    const char *command;
    const char *const *types; /* the TYPE word's candidates; NULL: no TYPE word */
    const char *names;        /* without types: the type of every word */
    int max_names;            /* names after the TYPE; -1: any number */
} positional[] = {
    {"list", list_types, NULL, 1},        {"describe", all_types, NULL, 1},
    {"delete", all_types, NULL, -1},     {"stop", queue_types, NULL, 1},
    {"resume", queue_types, NULL, 1},    {"create", create_types, NULL, 0},
    {"cancel", NULL, "workload", -1},
};

static unsigned complete_type_name(struct line *l, size_t k, const char *cur)
{
    const char *slash = strchr(cur, '/');
    char type[128], prefix[130];

    if (l->npos == 0 && slash && positional[k].max_names != 0) { /* kubectl's TYPE/NAME */
        snprintf(type, sizeof(type), "%.*s", (int)(slash - cur), cur);
        snprintf(prefix, sizeof(prefix), "%s/", type);
        offer_names(l, type, cur, prefix);
    } else if (l->npos == 0) {
        offer_words(cur, "", positional[k].types);
    } else if (positional[k].max_names < 0 || l->npos <= positional[k].max_names) {
        offer_names(l, l->pos[0], cur, "");
    }
    return DIRECTIVE_NOFILE;
}

static unsigned complete_positional(struct line *l, const char *cur)
{
    static const char *const shell_names[] = {"bash", "zsh", "fish", NULL};
    size_t k;

    if (!l->cmd || (strcmp(l->cmd->name, "help") == 0 && l->npos == 0)) {
        offer_commands(cur);
        return DIRECTIVE_NOFILE;
    }
    if (strcmp(l->cmd->name, "completion") == 0 && l->npos == 0) {
        offer_words(cur, "", shell_names);
        return DIRECTIVE_NOFILE;
    }
    if (l->dashdash)
        return 0; /* submit's container command: anything, files too */
    for (k = 0; k < sizeof(positional) / sizeof(positional[0]); k++) {
        if (strcmp(l->cmd->name, positional[k].command) != 0)
            continue;
        if (positional[k].types)
            return complete_type_name(l, k, cur);
        offer_names(l, positional[k].names, cur, "");
    }
    return DIRECTIVE_NOFILE;
}

/* A flag's value: names, the choices its help lists ("a|b|c"), or file names. */
static unsigned complete_value(struct line *l, const struct flag *f, const char *cur,
                               const char *prefix)
{
    static const char *const types[][2] = {{"namespace", "namespace"},
                                           {"localqueue", "localqueue"},
                                           {"clusterqueue", "clusterqueue"},
                                           {"queue", "localqueue"}};
    const char *arg = f->arg ? f->arg : "", *bar, *p, *end;
    char word[64];
    size_t i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(f->name, types[i][0]) == 0) {
            offer_names(l, types[i][1], cur, prefix);
            return DIRECTIVE_NOFILE;
        }
    if (strstr(arg, "FILE") || strstr(arg, "PATH") || strstr(arg, "DIR") ||
        strstr(arg, "MANIFESTS"))
        return 0;
    /* the choices a help text spells "a|b|c" */
    if (f->help && (bar = strchr(f->help, '|')) != NULL) {
        for (p = bar; p > f->help && p[-1] != ' ' && p[-1] != ':'; p--)
            ;
        while (*p && *p != ' ' && *p != ')' && *p != ',') {
            end = p + strcspn(p, "| ),");
            snprintf(word, sizeof(word), "%.*s", (int)(end - p), p);
            offer(cur, prefix, word, NULL);
            p = *end == '|' ? end + 1 : end;
        }
    }
    return DIRECTIVE_NOFILE;
}

static unsigned complete(struct line *l, const char *cur)
{
    const struct flag *f;
    const char *v;
    char prefix[80];

    if (l->unknown)
        return DIRECTIVE_NOFILE;
    if (l->pending)
        return complete_value(l, l->pending, cur, "");
    if (cur[0] == '-' && !l->dashdash) {
        if (cur[1] == '-' && strchr(cur, '=') && (f = find_flag(l, cur, &v)) != NULL) {
            snprintf(prefix, sizeof(prefix), "--%s=", f->name);
            return complete_value(l, f, cur, prefix);
        }
        offer_flags(l, cur);
        return DIRECTIVE_NOFILE;
    }
    return complete_positional(l, cur);
}

int cli_complete(int argc, char **argv)
{
    static struct line l; /* large; one per process */
    const char *cur = argc > 0 ? argv[argc - 1] : "";
    unsigned directive;
    int i;

    memset(&l, 0, sizeof(l));
    for (i = 0; i < argc - 1; i++)
        read_word(&l, argc, argv, &i);
    directive = complete(&l, cur);
    printf(":%u\n", directive);
    return EXIT_SUCCESS;
}
