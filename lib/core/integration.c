/*
 * integration.c: the built-in rows of the integration table and its count
 * expressions (integration.h). Each row follows the Kueue integration that
 * handles the kind (compat/integrations/README.md names the files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integration.h"

/* Kueue's Job: parallelism (default 1) capped by completions (default parallelism). */
#define JOB_PODS "min(parallelism?1, completions?parallelism?1)"
/* A JobSet replicated job: replicas Jobs of that many pods each (podsCount). */
#define JOBSET_PODS \
    "replicas?1 * min(template.spec.parallelism?1, template.spec.completions?template.spec.parallelism?1)"
/* A Ray worker group: replicas (1 if unset) times numOfHosts when above 1 (effectiveWorkerCount). */
#define RAY_WORKERS "replicas?1 * max(numOfHosts?1, 1)"

#define KUBEFLOW(kind_, plural_, field_, keys_)                                                    \
    {"kubeflow.org", kind_, {"v1"}, plural_, "spec.runPolicy.suspend",                            \
     {{GQ_INTEG_MAP, "spec." field_, NULL, NULL, keys_, "template", "replicas?1", NULL, false,     \
       NULL, GQ_INTEG_HOOK_NONE}},                                                                 \
     1, "Succeeded|Failed", NULL}

#define RAY_HEAD(at_)                                                                              \
    {GQ_INTEG_ONE, at_, "head", NULL, NULL, "template", NULL, NULL, false, NULL,                   \
     GQ_INTEG_HOOK_RAY_HEAD}
#define RAY_WORKER_GROUPS(at_)                                                                     \
    {GQ_INTEG_LIST, at_, NULL, "groupName", NULL, "template", RAY_WORKERS, NULL, true, NULL,       \
     GQ_INTEG_HOOK_NONE}

#define NO_SWITCH(group_, kind_, plural_, why_)                                                   \
    {group_, kind_, {"v1"}, plural_, NULL, {{0}}, 0, NULL, why_}

#define DASK_WHY                                                                                   \
    "it has no suspend switch (the Dask operator's CRDs have none), so nothing can hold it "      \
    "until admission; Kueue does not integrate it either"

static const struct gq_integration builtin[] = {
    {"batch", "Job", {"v1"}, "jobs", "spec.suspend",
     {{GQ_INTEG_ONE, "spec", "main", NULL, NULL, "template", JOB_PODS, NULL, false, NULL,
       GQ_INTEG_HOOK_NONE}},
     1, "Complete|Failed", NULL},
    {"jobset.x-k8s.io", "JobSet", {"v1alpha2"}, "jobsets", "spec.suspend",
     {{GQ_INTEG_LIST, "spec.replicatedJobs", NULL, "name", NULL, "template.spec.template",
       JOBSET_PODS, NULL, false, NULL, GQ_INTEG_HOOK_NONE}},
     1, "Completed|Failed", NULL},
    {"ray.io", "RayJob", {"v1"}, "rayjobs", "spec.suspend",
     {RAY_HEAD("spec.rayClusterSpec.headGroupSpec"),
      RAY_WORKER_GROUPS("spec.rayClusterSpec.workerGroupSpecs"),
      /* Only in K8sJobMode (the default): the submitter Job's pod. */
      {GQ_INTEG_ONE, "spec", "submitter", NULL, NULL, "submitterPodTemplate", NULL, NULL, false,
       "spec.submissionMode=K8sJobMode|", GQ_INTEG_HOOK_RAY_SUBMITTER}},
     3, "status.jobDeploymentStatus=Complete|Failed", NULL},
    {"ray.io", "RayCluster", {"v1"}, "rayclusters", "spec.suspend",
     {RAY_HEAD("spec.headGroupSpec"), RAY_WORKER_GROUPS("spec.workerGroupSpecs")}, 2, NULL, NULL},
    KUBEFLOW("PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs", "Master,Worker"),
    KUBEFLOW("TFJob", "tfjobs", "tfReplicaSpecs", "Chief,Master,PS,Worker,Evaluator"),
    KUBEFLOW("PaddleJob", "paddlejobs", "paddleReplicaSpecs", "Master,Worker"),
    KUBEFLOW("XGBoostJob", "xgboostjobs", "xgbReplicaSpecs", "Master,Worker"),
    KUBEFLOW("JAXJob", "jaxjobs", "jaxReplicaSpecs", "Worker"),
    {"kubeflow.org", "MPIJob", {"v2beta1"}, "mpijobs", "spec.runPolicy.suspend",
     {{GQ_INTEG_MAP, "spec.mpiReplicaSpecs", NULL, NULL, "Launcher,Worker", "template",
       "replicas?1", NULL, false, NULL, GQ_INTEG_HOOK_NONE}},
     1, "Succeeded|Failed", NULL},
    /* Its pod sets are the replicated jobs of the runtime it names (Kueue's getChildJobSet). */
    {"trainer.kubeflow.org", "TrainJob", {"v1alpha1"}, "trainjobs", "spec.suspend",
     {{GQ_INTEG_ONE, "spec", NULL, NULL, NULL, NULL, NULL, NULL, false, NULL,
       GQ_INTEG_HOOK_TRAINJOB}},
     1, "Complete|Failed", NULL},
    NO_SWITCH("kubernetes.dask.org", "DaskCluster", "daskclusters", DASK_WHY),
    NO_SWITCH("kubernetes.dask.org", "DaskJob", "daskjobs", DASK_WHY),
    NO_SWITCH("kubernetes.dask.org", "DaskWorkerGroup", "daskworkergroups", DASK_WHY),
    NO_SWITCH("", "Pod", "pods",
              "a Pod has no suspend switch: Kueue holds pods with a scheduling gate set by its "
              "admission webhook, which gpuq does not do yet"),
};

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

const struct gq_integration *gq__integration_job(void)
{
    return &builtin[0];
}

const struct gq_integration *gq__integration_builtin(size_t i)
{
    return i < NBUILTIN ? &builtin[i] : NULL;
}

/*
 * Kueue's PodsReady per kind (pkg/controller/jobs, each kind's controller):
 * JobSet's replicated jobs' ready + succeeded against their replicas; a
 * Kubeflow job (and an MPIJob) once its Running condition is True; a
 * RayCluster once its state is ready, a RayJob once its cluster's is.
 */
static const struct {
    const char *group, *kind, *rule;
} ready_rules[] = {
    {"jobset.x-k8s.io", "JobSet", GQ_INTEG_READY_REPLICATED_JOBS},
    {"kubeflow.org", NULL, "Running"},
    {"ray.io", "RayCluster", "status.state=ready"},
    {"ray.io", "RayJob", "status.rayClusterStatus.state=ready"},
};

const char *gq__integration_ready(const struct gq_integration *row)
{
    size_t i, b;

    for (b = 0; b < NBUILTIN && row != &builtin[b]; b++)
        ;
    if (b == NBUILTIN)
        return NULL; /* a user's row */
    for (i = 0; i < sizeof(ready_rules) / sizeof(ready_rules[0]); i++)
        if (!strcmp(ready_rules[i].group, row->group) &&
            (!ready_rules[i].kind || !strcmp(ready_rules[i].kind, row->kind)))
            return ready_rules[i].rule;
    return NULL;
}

const struct gq_integration *gq__integration_find(const char *group, const char *kind,
                                                  const struct gq_integrations *user)
{
    size_t i;

    for (i = 0; i < NBUILTIN; i++)
        if (!strcmp(builtin[i].group, group) && !strcmp(builtin[i].kind, kind))
            return &builtin[i];
    for (i = 0; user && i < user->n; i++)
        if (!strcmp(user->v[i]->group, group) && !strcmp(user->v[i]->kind, kind))
            return user->v[i];
    return NULL;
}

const struct gq_integration *gq__integration_by_kind(const char *kind,
                                                     const struct gq_integrations *user)
{
    size_t i;

    for (i = 0; i < NBUILTIN; i++)
        if (!strcmp(builtin[i].kind, kind))
            return &builtin[i];
    for (i = 0; user && i < user->n; i++)
        if (!strcmp(user->v[i]->kind, kind))
            return user->v[i];
    return NULL;
}

int gq__integration_user_init(struct gq_integ_user *u, const struct gq_integration_spec *s)
{
    size_t i, k;

    memset(u, 0, sizeof(*u));
    u->row.group = s->group;
    u->row.kind = s->kind;
    for (i = 0; i < s->versions.n && i + 1 < GQ_INTEG_MAX_VERSIONS; i++)
        u->row.versions[i] = s->versions.v[i];
    u->row.plural = s->plural;
    u->row.suspend = s->suspend;
    u->row.finished = s->finished ? s->finished : GQ_INTEG_FINISHED_DEFAULT;
    for (i = 0; i < s->npodsets && i < GQ_INTEG_MAX_PODSET_ENTRIES; i++) {
        const struct gq_integ_podset_spec *p = &s->podsets[i];
        struct gq_integ_podset *e = &u->row.podsets[i];

        e->at = p->path;
        e->template = p->template;
        e->count = p->count;
        e->min_count = p->min_count;
        e->optional = p->optional;
        if (p->name) {
            e->shape = GQ_INTEG_ONE;
            e->name = p->name;
        } else if (p->name_from) {
            e->shape = GQ_INTEG_LIST;
            e->name_from = p->name_from;
        } else {
            size_t len = 0, at = 0;

            e->shape = GQ_INTEG_MAP;
            for (k = 0; k < p->keys.n; k++)
                len += strlen(p->keys.v[k]) + 1;
            if (!(u->keys[i] = malloc(len + 1))) {
                gq__integration_user_clear(u);
                return -1;
            }
            u->keys[i][0] = '\0';
            for (k = 0; k < p->keys.n; k++) {
                size_t n = strlen(p->keys.v[k]);

                if (k)
                    u->keys[i][at++] = ',';
                memcpy(u->keys[i] + at, p->keys.v[k], n);
                at += n;
                u->keys[i][at] = '\0';
            }
            e->keys = u->keys[i];
        }
    }
    u->row.npodsets = i;
    return 0;
}

void gq__integration_user_clear(struct gq_integ_user *u)
{
    size_t i;

    for (i = 0; i < GQ_INTEG_MAX_PODSET_ENTRIES; i++)
        free(u->keys[i]);
    memset(u, 0, sizeof(*u));
}

bool gq__integration_next(const char **list, char sep, char *buf, size_t size)
{
    const char *p = *list, *end;

    if (!p)
        return false;
    end = strchr(p, sep);
    snprintf(buf, size, "%.*s", (int)(end ? (size_t)(end - p) : strlen(p)), p);
    *list = end ? end + 1 : NULL;
    return true;
}

bool gq__integration_accepts(const struct gq_integration *row, const char *version)
{
    size_t i;

    for (i = 0; i < GQ_INTEG_MAX_VERSIONS && row->versions[i]; i++)
        if (!strcmp(row->versions[i], version))
            return true;
    return false;
}

/* ---------------------------------------------------------- expressions */

struct parser {
    const char *p;
    gq_integ_lookup_fn lookup; /* NULL: only check the syntax */
    void *ctx;
    int rc;        /* 0, or the first failure's code */
    char *why;     /* syntax errors, when checking */
    size_t size;
};

#define I32_MAX 2147483647LL

static void skip_space(struct parser *ps)
{
    while (*ps->p == ' ')
        ps->p++;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

static int64_t fail(struct parser *ps, int rc, const char *what)
{
    if (!ps->rc) {
        ps->rc = rc;
        if (ps->why)
            snprintf(ps->why, ps->size, "%s at \"%.20s\"", what, ps->p);
    }
    return 0;
}

static int64_t expr(struct parser *ps);

/* A dotted path at ps->p; its length, 0 when there is none. */
static size_t path_len(const char *p)
{
    size_t n = 0;

    for (;;) {
        size_t seg = 0;

        while (name_char(p[n + seg]))
            seg++;
        if (!seg)
            return 0;
        n += seg;
        if (p[n] != '.' || !name_char(p[n + 1]))
            return n;
        n++;
    }
}

static int64_t atom(struct parser *ps)
{
    int64_t v = 0, a, b;
    size_t n;

    skip_space(ps);
    if (*ps->p >= '0' && *ps->p <= '9') {
        while (*ps->p >= '0' && *ps->p <= '9') {
            v = v * 10 + (*ps->p++ - '0');
            if (v > I32_MAX)
                return fail(ps, -3, "a number past 2147483647");
        }
        return v;
    }
    if (!strncmp(ps->p, "min(", 4) || !strncmp(ps->p, "max(", 4)) {
        bool is_min = ps->p[1] == 'i';

        ps->p += 4;
        a = expr(ps);
        skip_space(ps);
        if (*ps->p != ',')
            return fail(ps, -2, "expected \",\"");
        ps->p++;
        b = expr(ps);
        skip_space(ps);
        if (*ps->p != ')')
            return fail(ps, -2, "expected \")\"");
        ps->p++;
        return is_min ? (a < b ? a : b) : (a > b ? a : b);
    }
    if (!(n = path_len(ps->p)))
        return fail(ps, -2, "expected a number, min(, max( or a path");
    {
        const char *path = ps->p;
        int got = 0;

        ps->p += n;
        if (ps->lookup && !ps->rc) {
            got = ps->lookup(ps->ctx, path, n, &v);
            if (got < 0)
                return fail(ps, -1, "lookup");
        }
        skip_space(ps);
        if (*ps->p == '?') {
            ps->p++;
            a = atom(ps);
            if (!got)
                v = a;
        } else if (ps->lookup && !got) {
            v = 0; /* absent without a default: nothing of it */
        }
        return v;
    }
}

static int64_t expr(struct parser *ps)
{
    int64_t v = atom(ps);

    for (;;) {
        skip_space(ps);
        if (*ps->p != '*')
            return v;
        ps->p++;
        v *= atom(ps);
        if (v > I32_MAX)
            return fail(ps, -3, "a count past 2147483647");
    }
}

static int run(struct parser *ps, int64_t *out)
{
    int64_t v = expr(ps);

    skip_space(ps);
    if (!ps->rc && *ps->p)
        fail(ps, -2, "unexpected text");
    if (ps->rc)
        return ps->rc;
    if (out)
        *out = v;
    return 0;
}

int gq__integration_eval(const char *e, gq_integ_lookup_fn lookup, void *ctx, int64_t *out)
{
    struct parser ps = {e, lookup, ctx, 0, NULL, 0};

    return run(&ps, out);
}

bool gq__integration_expr_ok(const char *e, char *why, size_t size)
{
    struct parser ps = {e, NULL, NULL, 0, why, size};

    if (!*e) {
        snprintf(why, size, "empty");
        return false;
    }
    return run(&ps, NULL) == 0;
}

bool gq__integration_path_ok(const char *path, char *why, size_t size)
{
    size_t n = path_len(path);

    if (n && !path[n])
        return true;
    snprintf(why, size, "must be member names of letters, digits, '_' or '-' joined by dots");
    return false;
}
