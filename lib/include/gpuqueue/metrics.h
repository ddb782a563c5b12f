/*
 * gpuqueue/metrics.h: what a monitoring system reads from the database:
 * Kueue's Prometheus metrics (kueue-semantics.md §5.3) and Kueue's visibility
 * API answer, the pending workloads of a queue in queue order (§5.2). Both
 * are computed from the tables in one read transaction; neither writes.
 */
#ifndef GPUQUEUE_METRICS_H
#define GPUQUEUE_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "db.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The queue metrics in Prometheus' text exposition format 0.0.4, with
 * Kueue's names and labels: kueue_pending_workloads{cluster_queue,status},
 * kueue_reserving_active_workloads, kueue_admitted_active_workloads,
 * kueue_quota_reserved_workloads_total, kueue_admitted_workloads_total,
 * kueue_evicted_workloads_total{cluster_queue,reason}, the histograms
 * kueue_quota_reserved_wait_time_seconds and kueue_admission_wait_time_seconds,
 * kueue_admission_checks_wait_time_seconds (quota reserved until every
 * admission check Ready: the wait for DWS capacity),
 * kueue_cluster_queue_status{cluster_queue,status}, the resource gauges
 * kueue_cluster_queue_{resource_reservation,resource_usage,nominal_quota,
 * borrowing_limit,lending_limit}{cohort,cluster_queue,flavor,resource},
 * kueue_cluster_queue_resource_pending{cluster_queue,resource} (the requests
 * of the pending workloads, which have no flavor yet), and
 * gpuq_provisioning_requests{cluster_queue,state}. Counters and histograms
 * are read off the events table, so they survive restarts. The same as
 * gq_metrics_text_ext with default options: no LocalQueue metrics.
 * @param[out] out the text, NUL-terminated; free with gq_free()
 * @return GQ_OK; GQ_ENOMEM; GQ_EIO or GQ_EBUSY from the database.
 */
GQ_EXTERN int gq_metrics_text(char **out, gq_db *db, gq_error *err);

typedef struct gq_metrics_options {
    unsigned int version;     /* GQ_METRICS_OPTIONS_VERSION */
    bool local_queue_metrics; /* also Kueue's kueue_local_queue_* families (its LocalQueueMetrics) */
} gq_metrics_options;

/*
 * Version rule: a struct whose version is 1 to GQ_METRICS_OPTIONS_VERSION is accepted, an
 * older version's read only up to the members it had (the rest take their defaults); any
 * other version is GQ_EINVALID.
 */
#define GQ_METRICS_OPTIONS_VERSION 1
#define GQ_METRICS_OPTIONS_INIT {GQ_METRICS_OPTIONS_VERSION, false}

/**
 * gq_metrics_text's families, then, with opts->local_queue_metrics, Kueue's
 * LocalQueue families labelled {name,namespace}:
 * kueue_local_queue_pending_workloads{status}, ..._reserving_active_workloads,
 * ..._admitted_active_workloads, ..._quota_reserved_workloads_total,
 * ..._admitted_workloads_total, ..._evicted_workloads_total{reason}, the
 * histograms ..._quota_reserved_wait_time_seconds,
 * ..._admission_wait_time_seconds and ..._admission_checks_wait_time_seconds,
 * ..._status{active}, ..._resource_reservation{flavor,resource} and
 * ..._resource_usage{flavor,resource}.
 * @param opts (may be NULL) defaults: GQ_METRICS_OPTIONS_INIT
 * @param[out] out the text, NUL-terminated; free with gq_free()
 * @return GQ_OK; GQ_EINVALID for an unsupported opts->version; GQ_ENOMEM;
 *         GQ_EIO or GQ_EBUSY from the database.
 */
GQ_EXTERN int gq_metrics_text_ext(char **out, gq_db *db, const gq_metrics_options *opts,
                                  gq_error *err);

/** Kueue's default and largest page of the visibility API. */
#define GQ_PENDING_LIMIT_DEFAULT 1000

/**
 * Kueue's visibility API answer (visibility.kueue.x-k8s.io/v1beta1
 * PendingWorkloadsSummary, JSON) for the pending workloads of a ClusterQueue
 * (cluster_queue set, namespace and local_queue NULL) or of a LocalQueue
 * (namespace and local_queue set, cluster_queue NULL), in queue order, each
 * with its 0-based positionInClusterQueue and positionInLocalQueue: the
 * positions `gpuq list` shows. offset and limit select a page of that order;
 * limit 0 means GQ_PENDING_LIMIT_DEFAULT.
 * @param[out] out the JSON document, NUL-terminated; free with gq_free()
 * @return GQ_OK; GQ_ENOTFOUND when the queue does not exist; GQ_EINVALID for
 *         another combination of queue arguments or a negative offset or
 *         limit; GQ_ENOMEM; GQ_EIO.
 */
GQ_EXTERN int gq_pending_json(char **out,
                              gq_db *db,
                              const char *cluster_queue,
                              const char *ns,
                              const char *local_queue,
                              int64_t offset,
                              int64_t limit,
                              gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
