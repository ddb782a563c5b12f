/*
 * afs.h: admission fair sharing (Kueue's AdmissionFairSharing; kueue-semantics.md
 * §2.1): within a ClusterQueue whose admissionScope.admissionMode is
 * UsageBasedAdmissionFairSharing, the heads of the LocalQueue with the lowest
 * weighted decayed usage go first. Pure: time is an argument.
 *
 * Kueue's pieces, and where gpuq keeps them:
 *   - a LocalQueue's consumedResources, decayed towards its admitted usage
 *     every usageSamplingInterval with usageHalfLifeTime
 *     (pkg/util/admissionfairsharing CalculateDecayedConsumed, the
 *     LocalQueue controller's reconcileConsumedUsage): gq_snap_lq.consumed,
 *     kept in the database (migration 0016) with its lastUpdate;
 *   - the entry penalty a quota reservation costs its LocalQueue until the
 *     workload is admitted (scheduler.go updateEntryPenalty, settled by the
 *     workload controller's updateAfsConsumedUsage): gq_snap_lq.penalty, which
 *     a rebuilt snapshot derives from the workloads still reserved;
 *   - the ordering (cluster_queue.go queueOrderingFunc): usage / weight first,
 *     then Kueue's usual order.
 * Values are in Kueue's float units (cores for cpu, whole units otherwise),
 * rounded down to 10^-9 after each scaling, as resource.MulByFloat does.
 */
#ifndef GQ_AFS_H
#define GQ_AFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/quantity.h"

struct gq_snapshot;

/* 1 - 0.5^(elapsed / halfLife); 0 when halfLife is 0 (calculateAlphaRate). */
double gq__afs_alpha(int64_t elapsed_ms, int64_t half_life_ms);

/* v scaled by f and rounded down to 10^-9 (resource.MulByFloat). */
double gq__afs_scale(double v, double f);

/*
 * Decay n consumed amounts towards current over elapsed_ms:
 * consumed * (1 - alpha) + current * alpha, each part rounded down.
 */
void gq__afs_decay(double *consumed, const double *current, size_t n, int64_t elapsed_ms,
                   int64_t half_life_ms);

/*
 * Kueue's CalculateUsage: sum of weight[r] * (consumed[r] + penalty[r]), over
 * the LocalQueue's weight; +infinity for a weight of 0 or less.
 */
double gq__afs_usage(const double *consumed, const double *penalty, const double *weight,
                     size_t n, double lq_weight);

/* An amount in gpuq's accounting units (milli for cpu) as Kueue's float. */
double gq__afs_units(const char *resource, int64_t amount);

/* A consumed amount as the Quantity Kueue's status shows (down to 10^-9). */
gq_quantity gq__afs_quantity(double v);

/* ------------------------------------------------ on the admission snapshot */

/*
 * At snapshot build, once its LocalQueues' weight, consumed (nres each, or
 * NULL), afs_known and afs_last are set: the penalties of the workloads still
 * reserved and every queue's usage. -1 on ENOMEM.
 */
int gq__afs_prepare(struct gq_snapshot *s);

/*
 * The LocalQueue controller's tick: every LocalQueue whose sampling interval
 * has passed decays its consumed usage towards its admitted usage (one with
 * no status yet starts one at now). Called at the start of each cycle.
 */
void gq__afs_sample(struct gq_snapshot *s, int64_t now);

/* Workload w reserved quota: its entry penalty, settled at once if it is admitted. */
void gq__afs_reserved(struct gq_snapshot *s, int w, int64_t now);

/* Workload w became admitted: its penalty settles into consumed (decayed to now). */
void gq__afs_admitted(struct gq_snapshot *s, int w, int64_t now);

/* Workload w, reserved but not admitted, lost its reservation: its penalty goes. */
void gq__afs_unreserved(struct gq_snapshot *s, int w);

#endif
