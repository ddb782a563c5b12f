/*
 * api_workload.c: gq_job_submit, gq_workload_cancel and gq_workload_resume,
 * and the database directory's creation. Turning a decoded Job or Workload
 * into its record is engine/apply.c's, shared with cluster mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "error.h"
#include "store.h"

/* ----------------------------------------------------------------- submit */

struct submitted {
    char *name;
};

static void on_submitted(const gq_apply_item *item, void *payload)
{
    struct submitted *s = payload;

    if (item->workload && !s->name)
        s->name = strdup(item->workload);
}

int gq_job_submit(gq_db *db, const gq_job_spec *spec, const gq_apply_options *opts,
                  char **name_out, gq_error *err)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    struct submitted s = {NULL};
    char *json = NULL;
    int rc;

    if (name_out)
        *name_out = NULL;
    if ((rc = gq_job_build(&json, spec, err)) != GQ_OK)
        return rc;
    if (opts)
        o = *opts;
    o.mode = GQ_MODE_SUBMIT;
    rc = gq_apply_buffer(db, json, strlen(json), "gpuq submit", &o, on_submitted, &s, err);
    free(json);
    if (rc == GQ_OK && name_out)
        *name_out = s.name;
    else
        free(s.name);
    return rc;
}

/* ----------------------------------------------------------------- cancel */

enum workload_act { ACT_CANCEL, ACT_RESUME, ACT_STOP };

struct cancel {
    const char *ns;
    const char *name;
    int64_t now_ms;
    char *cancelled;
    enum workload_act act;
};

static int cancel_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct cancel *c = payload;
    char *from = NULL;
    int rc;

    free(c->cancelled);
    c->cancelled = NULL;
    if (c->act == ACT_RESUME)
        return gq__store_reactivate_workload(st, c->ns, c->name, c->now_ms, &c->cancelled, err);
    if (c->act == ACT_STOP)
        return gq__store_stop_workload(st, c->ns, c->name, c->now_ms, &c->cancelled, err);
    rc = gq__store_cancel_workload(st, c->ns, c->name, c->now_ms, &c->cancelled, &from, err);
    free(from);
    return rc;
}

static int cancel_or_resume(gq_db *db, const char *namespace, const char *name,
                            enum workload_act act, char **name_out, gq_error *err)
{
    struct cancel c = {namespace ? namespace : "default", name, gq__store_now(db->st), NULL,
                       act};
    int rc = gq__store_write(db->st, cancel_txn, &c, err);

    if (rc == GQ_OK && name_out)
        *name_out = c.cancelled;
    else
        free(c.cancelled);
    return rc;
}

int gq_workload_cancel(gq_db *db, const char *namespace, const char *name, char **name_out,
                       gq_error *err)
{
    return cancel_or_resume(db, namespace, name, ACT_CANCEL, name_out, err);
}

int gq_workload_resume(gq_db *db, const char *namespace, const char *name, char **name_out,
                       gq_error *err)
{
    return cancel_or_resume(db, namespace, name, ACT_RESUME, name_out, err);
}

int gq_workload_stop(gq_db *db, const char *namespace, const char *name, char **name_out,
                     gq_error *err)
{
    return cancel_or_resume(db, namespace, name, ACT_STOP, name_out, err);
}

/* ------------------------------------------------------------------ paths */

int gq__mkdir_p(const char *path, unsigned int mode)
{
    char buf[4096], *p;
    size_t n = strlen(path);
    struct stat sb;

    if (n == 0 || n >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST)
        return -1;
    /* EEXIST also means a file of that name: say so now, not as "unable to open" later. */
    if (stat(buf, &sb) != 0)
        return -1;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}
