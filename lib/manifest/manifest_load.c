/*
 * manifest_load.c: reading documents and decoding them, joined: the entry
 * point the rest of the library uses so that it never sees a json-c type.
 * Every decoding error leaves here with the document's location in front.
 *
 * A large file is loaded as a two-stage pipeline: a worker thread reads,
 * decodes and prepares each document (everything that needs no database:
 * parsing is most of a bulk submit's time) and hands finished objects,
 * in document order, through a bounded queue to the calling thread, which
 * runs the callback (the database writes). On two cores this takes 100,000
 * Jobs from 3.7 s to the longer of the two stages. Small inputs, like the
 * one Job of a `gpuq submit --queue`, are loaded on the calling thread:
 * starting a thread would cost more than it saves.
 *
 * Invariants: callbacks run only on the calling thread, in document order;
 * the worker never touches the database; on any error or early stop the
 * worker is stopped and joined and every queued object freed before
 * gq__manifest_load returns.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "manifest.h"
#include "util.h"

#define PIPELINE_MIN_BYTES (256u << 10) /* smaller files are loaded on one thread */
#define QUEUE_SIZE 256                   /* objects in flight between the stages */
#define GQ__STOPPED 1                    /* the worker's "told to stop" code */
#define WAKE_BATCH 64                    /* queued objects that wake the consumer */

struct load {
    const struct gq_decode_options *opts;
    gq__prepare_fn prepare;
    gq__object_cb cb;
    void *payload;
};

/*
 * s as written, or quoted and escaped when it holds a control character: a
 * name is shown before it is validated, and "a\nb" must not split the
 * message's line (found by tests/fuzz/fuzz_manifest.c).
 */
static const char *shown(char buf[GQ_QUOTE_BUFSIZE], const char *s)
{
    const char *p;

    for (p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return gq__quote(buf, s, strlen(s));
    return s;
}

/* "job.yaml: document 2 (Job default/sample-job)" in front of err's message. */
static int locate(const struct gq_doc_loc *loc, const struct gq_object *obj, gq_error *err)
{
    const char *name = obj->meta.name ? obj->meta.name : obj->meta.generate_name;
    char item[32] = "", qns[GQ_QUOTE_BUFSIZE], qname[GQ_QUOTE_BUFSIZE];

    if (loc->item)
        snprintf(item, sizeof(item), " item %d", loc->item);
    if (obj->kind != GQ_KIND_NONE && name)
        return gq__error_prefix(err, "%s: document %d%s (%s %s%s%s)", loc->source, loc->index,
                                item,
                                obj->kind == GQ_KIND_JOB && obj->u.wl.job_kind
                                    ? obj->u.wl.job_kind
                                    : gq__kind_name(obj->kind),
                                obj->meta.namespace ? shown(qns, obj->meta.namespace) : "",
                                obj->meta.namespace ? "/" : "", shown(qname, name));
    return gq__error_prefix(err, "%s: document %d%s", loc->source, loc->index, item);
}

/* Decode (and prepare) one document; GQ_OK or GQ_EUNSUPPORTED leave obj usable. */
static int decode(const struct load *l, const struct gq__doc *doc, struct gq_object *obj,
                  gq_error *err)
{
    int rc;

    memset(obj, 0, sizeof(*obj));
    rc = gq__manifest_decode(obj, doc->root, l->opts, err);
    if (rc == GQ_OK && l->prepare)
        rc = l->prepare(obj, err);
    return rc;
}

/* ----------------------------------------------------------- one thread */

static int on_doc(const struct gq__doc *doc, void *payload, gq_error *err)
{
    struct load *l = payload;
    struct gq_doc_loc loc = {doc->source, doc->index, doc->item};
    struct gq_object obj;
    int rc;

    rc = decode(l, doc, &obj, err);
    if (rc == GQ_OK || rc == GQ_EUNSUPPORTED)
        rc = l->cb(&obj, &loc, rc, l->payload, err);
    if (rc != GQ_OK && rc != GQ_ENOMEM)
        locate(&loc, &obj, err);
    gq__object_clear(&obj);
    return rc;
}

/* ------------------------------------------------------------- pipeline */

struct item {
    struct gq_object obj;
    struct gq_doc_loc loc;
    int rc;      /* decode's result: GQ_OK or GQ_EUNSUPPORTED */
    gq_error err; /* its message, for GQ_EUNSUPPORTED */
};

struct pipe {
    struct load *l;
    const char *path;
    pthread_mutex_t mu;
    pthread_cond_t not_empty;   /* the consumer waits here */
    pthread_cond_t not_full;    /* the worker waits here */
    struct item items[QUEUE_SIZE]; /* ring: head is the next to consume */
    size_t head, count;
    /*
     * Objects the consumer is done with, handed back for the worker to free:
     * they were allocated in the worker's malloc arena, and freeing them from
     * the other thread made the two threads fight over that arena's lock
     * (measured: slower than one thread).
     */
    struct gq_object used[QUEUE_SIZE];
    size_t nused;
    struct gq_object freeing[QUEUE_SIZE]; /* the worker's copy of used, outside the lock */
    struct item batch[QUEUE_SIZE];        /* the consumer's current batch */
    bool done;       /* the worker has finished (read_rc and read_err final) */
    bool stop;       /* the consumer wants the worker to stop */
    int read_rc;     /* the worker's result */
    gq_error read_err;
};

/* Worker side: decode a document and queue it, waiting while the queue is full. */
static int worker_doc(const struct gq__doc *doc, void *payload, gq_error *err)
{
    struct pipe *p = payload;
    struct item it;
    size_t n;
    int rc;

    it.loc.source = doc->source;
    it.loc.index = doc->index;
    it.loc.item = doc->item;
    it.err.code = 0;
    it.err.msg[0] = '\0';
    it.rc = decode(p->l, doc, &it.obj, &it.err);
    if (it.rc != GQ_OK && it.rc != GQ_EUNSUPPORTED) {
        rc = it.rc;
        *err = it.err;
        if (rc != GQ_ENOMEM)
            locate(&it.loc, &it.obj, err);
        gq__object_clear(&it.obj);
        return rc;
    }
    pthread_mutex_lock(&p->mu);
    while (p->count == QUEUE_SIZE && !p->stop)
        pthread_cond_wait(&p->not_full, &p->mu);
    if (p->stop) {
        pthread_mutex_unlock(&p->mu);
        gq__object_clear(&it.obj);
        return GQ__STOPPED;
    }
    p->items[(p->head + p->count) % QUEUE_SIZE] = it;
    /*
     * Wake the consumer in batches: it waits only on an empty queue, and a
     * wake-up per document cost 5% of a bulk submit. The last few documents
     * are announced by `done`.
     */
    if (++p->count == WAKE_BATCH)
        pthread_cond_signal(&p->not_empty);
    n = p->nused;
    memcpy(p->freeing, p->used, n * sizeof(p->used[0]));
    p->nused = 0;
    pthread_mutex_unlock(&p->mu);
    while (n > 0)
        gq__object_clear(&p->freeing[--n]);
    return GQ_OK;
}

static void *worker(void *arg)
{
    struct pipe *p = arg;
    gq_error err = {0, ""};
    int rc = gq__manifest_read_path(p->path, worker_doc, p, &err);

    pthread_mutex_lock(&p->mu);
    p->read_rc = rc;
    p->read_err = err;
    p->done = true;
    pthread_cond_signal(&p->not_empty);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/*
 * Consumer side: take every queued item at once into batch (one lock and at
 * most one wake-up per batch, not per document); 0 when the worker is done
 * and the queue is empty.
 */
static size_t next_batch(struct pipe *p, struct item *batch)
{
    size_t n = 0;

    pthread_mutex_lock(&p->mu);
    while (p->count == 0 && !p->done)
        pthread_cond_wait(&p->not_empty, &p->mu);
    if (p->count == QUEUE_SIZE)
        pthread_cond_signal(&p->not_full);
    while (p->count > 0) {
        batch[n++] = p->items[p->head];
        p->head = (p->head + 1) % QUEUE_SIZE;
        p->count--;
    }
    pthread_mutex_unlock(&p->mu);
    return n;
}

/* Stop the worker, wait for it, and free whatever it had queued. */
static void drain(struct pipe *p, pthread_t tid)
{
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->not_full);
    pthread_mutex_unlock(&p->mu);
    pthread_join(tid, NULL);
    while (p->nused > 0)
        gq__object_clear(&p->used[--p->nused]);
    while (p->count > 0) {
        gq__object_clear(&p->items[p->head].obj);
        p->head = (p->head + 1) % QUEUE_SIZE;
        p->count--;
    }
}

/* Hand consumed objects back to the worker to free (see pipe.used). */
static void give_back(struct pipe *p, struct item *batch, size_t n)
{
    size_t i = 0;

    pthread_mutex_lock(&p->mu);
    for (; i < n && p->nused < QUEUE_SIZE && !p->done; i++)
        p->used[p->nused++] = batch[i].obj;
    pthread_mutex_unlock(&p->mu);
    for (; i < n; i++)
        gq__object_clear(&batch[i].obj);
}

static int consume(struct pipe *p, gq_error *err)
{
    size_t i, n;
    int rc = GQ_OK;

    while (rc == GQ_OK && (n = next_batch(p, p->batch)) > 0) {
        for (i = 0; i < n; i++) {
            struct item *it = &p->batch[i];

            if (rc != GQ_OK)
                continue; /* freed below with the rest of the batch */
            if (it->rc == GQ_EUNSUPPORTED && err)
                *err = it->err;
            rc = p->l->cb(&it->obj, &it->loc, it->rc, p->l->payload, err);
            if (rc != GQ_OK && rc != GQ_ENOMEM)
                locate(&it->loc, &it->obj, err);
        }
        give_back(p, p->batch, n);
    }
    return rc;
}

static int load_pipelined(struct load *l, const char *path, gq_error *err)
{
    struct pipe *p = calloc(1, sizeof(*p));
    pthread_t tid;
    int rc;

    if (!p)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    p->l = l;
    p->path = path;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->not_empty, NULL);
    pthread_cond_init(&p->not_full, NULL);
    if (pthread_create(&tid, NULL, worker, p) != 0) {
        free(p);
        return gq__manifest_read_path(path, on_doc, l, err);
    }
    rc = consume(p, err);
    drain(p, tid);
    if (rc == GQ_OK && p->read_rc != GQ_OK) {
        rc = p->read_rc;
        if (err)
            *err = p->read_err;
    }
    pthread_cond_destroy(&p->not_empty);
    pthread_cond_destroy(&p->not_full);
    pthread_mutex_destroy(&p->mu);
    free(p);
    return rc;
}

static bool large_file(const char *path)
{
    struct stat sb;

    return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
           (size_t)sb.st_size >= PIPELINE_MIN_BYTES;
}

int gq__manifest_load(const char *path, const char *buf, size_t len, const char *source,
                      const struct gq_decode_options *opts, gq__prepare_fn prepare,
                      gq__object_cb cb, void *payload, gq_error *err)
{
    struct load l = {opts, prepare, cb, payload};

    if (buf)
        return gq__manifest_read(buf, len, source, on_doc, &l, err);
    if (large_file(path))
        return load_pipelined(&l, path, err);
    return gq__manifest_read_path(path, on_doc, &l, err);
}

int gq__take_object(struct gq_object *obj, const struct gq_doc_loc *loc, int rc, void *payload,
                    gq_error *err)
{
    (void)loc;
    (void)err;
    if (rc != GQ_OK)
        return rc;
    *(struct gq_object *)payload = *obj;
    memset(obj, 0, sizeof(*obj));
    return GQ_OK;
}
