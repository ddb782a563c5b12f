/*
 * gpuqueue/metrics.h: what a monitoring system reads from the database:
 * Kueue's Prometheus metrics (kueue-semantics.md §5.3) and Kueue's visibility
 * API answer, the pending workloads of a queue in queue order (§5.2). Both
 * are computed from the tables in one read transaction; neither writes.
 */
#ifndef GPUQUEUE_METRICS_H
#define GPUQUEUE_METRICS_H

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
 * kueue_cluster_queue_status{cluster_queue,status}, the resource gauges
 * kueue_cluster_queue_{resource_reservation,resource_usage,nominal_quota,
 * borrowing_limit,lending_limit}{cohort,cluster_queue,flavor,resource}, and
 * gpuq_provisioning_requests{cluster_queue,state}. Counters and histograms
 * are read off the events table, so they survive restarts.
 * @param[out] out the text, NUL-terminated; free with gq_free()
 * @return GQ_OK; GQ_ENOMEM; GQ_EIO or GQ_EBUSY from the database.
 */
GQ_EXTERN int gq_metrics_text(char **out, gq_db *db, gq_error *err);

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
