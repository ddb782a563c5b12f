/*
 * manifest_job.c: the batch/v1 Job that `gpuq submit --queue Q ...` means,
 * built as JSON so that it goes through exactly the decoder a Job file goes
 * through. Flag values are checked here first, so that a bad one is named by
 * its flag ("--gpus: ...") rather than by a field path the user never wrote.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpuqueue/db.h"
#include "gpuqueue/quantity.h"
#include "gpuqueue/validate.h"
#include "manifest_fields.h"
#include "quota.h"
#include "util.h"

#define DEFAULT_IMAGE "busybox"
#define DEFAULT_GPU_RESOURCE "nvidia.com/gpu"

/*
 * A per-pod quantity flag for resource: valid, between 0 and the largest
 * amount gpuq accounts (int64 units, milli-units for cpu), and whole for
 * extended resources. A parsed quantity keeps no trailing zeros in its
 * mantissa, so it is whole exactly when its scale is not negative.
 */
static int check_quantity(const char *flag, const char *resource, const char *value, bool whole,
                          gq_error *err)
{
    char max[GQ_QUANTITY_BUFSIZE];
    gq_quantity q;
    int64_t v;
    int rc;

    if ((rc = gq_quantity_parse(&q, value, strlen(value), err)) != GQ_OK && rc != GQ_ERANGE)
        return gq__error_prefix(err, "%s", flag);
    if (rc == GQ_OK && gq_quantity_sign(&q) < 0)
        return gq__error(err, GQ_EINVALID,
                         "%s: invalid value \"%s\": must be greater than or equal to 0", flag,
                         value);
    if (rc == GQ_OK && whole && q.mantissa != 0 && q.scale < 0)
        return gq__error(err, GQ_EINVALID, "%s: invalid value \"%s\": must be an integer", flag,
                         value);
    if (rc == GQ_OK && gq_quantity_resource_value(&v, resource, &q) == GQ_OK)
        return GQ_OK;
    gq__amount_format(max, sizeof(max), resource, INT64_MAX);
    return gq__error(err, GQ_EINVALID, "%s: invalid value \"%s\": must be between 0 and %s", flag,
                     value, max);
}

static const char *gpu_resource(const gq_job_spec *s)
{
    return s->gpu_resource ? s->gpu_resource : DEFAULT_GPU_RESOURCE;
}

/* The duration of a version 2 spec; a version 1 spec has none (nor the member). */
static const char *duration(const gq_job_spec *s)
{
    return s->version >= 2 ? s->duration : NULL;
}

static int check_spec(const gq_job_spec *s, gq_error *err)
{
    int64_t ms;
    int rc;

    if ((rc = gq__version_check(s->version, GQ_JOB_SPEC_VERSION, "gq_job_spec", err)) != GQ_OK)
        return rc;
    if (!s->queue || !*s->queue)
        return gq__error(err, GQ_EINVALID, "--queue: required");
    if ((rc = gq_validate_dns1123_subdomain(s->queue, err)) != GQ_OK)
        return gq__error_prefix(err, "--queue");
    if (s->name && (rc = gq_validate_dns1123_subdomain(s->name, err)) != GQ_OK)
        return gq__error_prefix(err, "--name");
    if (s->namespace && (rc = gq_validate_dns1123_label(s->namespace, err)) != GQ_OK)
        return gq__error_prefix(err, "--namespace");
    if (s->priority_class && (rc = gq_validate_dns1123_subdomain(s->priority_class, err)))
        return gq__error_prefix(err, "--priority-class");
    if (s->gpu_resource && (rc = gq_validate_resource_name(s->gpu_resource, err)) != GQ_OK)
        return gq__error_prefix(err, "--gpu-resource");
    if (s->count < 0)
        return gq__error(err, GQ_EINVALID,
                         "--count: invalid value \"%d\": must be greater than or equal to 1",
                         s->count);
    if (s->gpus && (rc = check_quantity("--gpus", gpu_resource(s), s->gpus, true, err)))
        return rc;
    if (s->cpu && (rc = check_quantity("--cpu", "cpu", s->cpu, false, err)) != GQ_OK)
        return rc;
    if (s->memory && (rc = check_quantity("--memory", "memory", s->memory, false, err)))
        return rc;
    if (duration(s) && gq__parse_duration_ms(duration(s), &ms) != 0)
        return gq__error(err, GQ_EINVALID,
                         "--duration: invalid value \"%s\": must be a duration such as \"45m\", "
                         "\"1h30m\" or \"90s\"",
                         duration(s));
    if (duration(s) && ms > GQ_MF_DURATION_MAX_MS)
        return gq__error(err, GQ_EINVALID,
                         "--duration: invalid value \"%s\": must be at most "
                         GQ_MF_DURATION_MAX_TEXT, duration(s));
    return GQ_OK;
}

static json_object *container(const gq_job_spec *s)
{
    json_object *c = json_object_new_object(), *res = json_object_new_object();
    json_object *req = json_object_new_object(), *cmd;
    const char *gpu = s->gpu_resource ? s->gpu_resource : DEFAULT_GPU_RESOURCE;
    size_t i;

    json_object_object_add(c, "name", json_object_new_string("main"));
    json_object_object_add(c, "image", json_object_new_string(s->image ? s->image
                                                                        : DEFAULT_IMAGE));
    if (s->ncommand > 0) {
        cmd = json_object_new_array();
        for (i = 0; i < s->ncommand; i++)
            json_object_array_add(cmd, json_object_new_string(s->command[i]));
        json_object_object_add(c, "command", cmd);
    }
    if (s->cpu)
        json_object_object_add(req, "cpu", json_object_new_string(s->cpu));
    if (s->memory)
        json_object_object_add(req, "memory", json_object_new_string(s->memory));
    if (s->gpus) {
        json_object *lim = json_object_new_object();

        /* Extended resources need limits equal to requests. */
        json_object_object_add(req, gpu, json_object_new_string(s->gpus));
        json_object_object_add(lim, gpu, json_object_new_string(s->gpus));
        json_object_object_add(res, "limits", lim);
    }
    json_object_object_add(res, "requests", req);
    json_object_object_add(c, "resources", res);
    return c;
}

/*
 * A job without --name gets generateName from its command's first word
 * ("python-", "sleep-"), else "gpuq-": Kueue's workload name puts "job-" in
 * front of the Job's, and "job-" twice ("job-job-x7k2p-1a2b3") told nothing.
 */
static void generate_prefix(const gq_job_spec *s, char *out, size_t size)
{
    const char *w = s->ncommand && s->command && s->command[0] ? s->command[0] : "", *slash;
    size_t n = 0;

    if ((slash = strrchr(w, '/')) != NULL)
        w = slash + 1;
    for (; *w && n + 2 < size && n < 20; w++) {
        char ch = *w >= 'A' && *w <= 'Z' ? (char)(*w - 'A' + 'a') : *w;

        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
            out[n++] = ch;
        else if (n && out[n - 1] != '-')
            out[n++] = '-';
    }
    while (n && out[n - 1] == '-')
        n--;
    if (!n || !(out[0] >= 'a' && out[0] <= 'z'))
        n = (size_t)snprintf(out, size, "gpuq");
    snprintf(out + n, size - n, "-");
}

static json_object *job(const gq_job_spec *s)
{
    char prefix[32];
    json_object *root = json_object_new_object(), *meta = json_object_new_object();
    json_object *labels = json_object_new_object(), *spec = json_object_new_object();
    json_object *tmpl = json_object_new_object(), *pod = json_object_new_object();
    json_object *containers = json_object_new_array();
    int count = s->count > 0 ? s->count : 1;

    json_object_object_add(root, "apiVersion", json_object_new_string("batch/v1"));
    json_object_object_add(root, "kind", json_object_new_string("Job"));
    if (s->name)
        json_object_object_add(meta, "name", json_object_new_string(s->name));
    else {
        generate_prefix(s, prefix, sizeof(prefix));
        json_object_object_add(meta, "generateName", json_object_new_string(prefix));
    }
    json_object_object_add(meta, "namespace",
                           json_object_new_string(s->namespace ? s->namespace : "default"));
    json_object_object_add(labels, "kueue.x-k8s.io/queue-name", json_object_new_string(s->queue));
    if (s->priority_class)
        json_object_object_add(labels, "kueue.x-k8s.io/priority-class",
                               json_object_new_string(s->priority_class));
    json_object_object_add(meta, "labels", labels);
    if (duration(s)) {
        json_object *ann = json_object_new_object();

        json_object_object_add(ann, "gpuq.dev/duration", json_object_new_string(duration(s)));
        json_object_object_add(meta, "annotations", ann);
    }
    json_object_object_add(root, "metadata", meta);
    json_object_object_add(spec, "parallelism", json_object_new_int(count));
    json_object_object_add(spec, "completions", json_object_new_int(count));
    json_object_object_add(spec, "suspend", json_object_new_boolean(1));
    json_object_array_add(containers, container(s));
    json_object_object_add(pod, "containers", containers);
    json_object_object_add(pod, "restartPolicy", json_object_new_string("Never"));
    json_object_object_add(tmpl, "spec", pod);
    json_object_object_add(spec, "template", tmpl);
    json_object_object_add(root, "spec", spec);
    return root;
}

int gq_job_build(char **out, const gq_job_spec *spec, gq_error *err)
{
    json_object *root;
    int rc;

    *out = NULL;
    if ((rc = check_spec(spec, err)) != GQ_OK)
        return rc;
    if (!(root = job(spec)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    *out = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
    return *out ? GQ_OK : gq__error(err, GQ_ENOMEM, "out of memory");
}
