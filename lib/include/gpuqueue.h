/*
 * gpuqueue.h: the whole public API of libgpuqueue. gpuq, gpuqd and the
 * examples include this header and nothing else from the library.
 */
#ifndef GPUQUEUE_H
#define GPUQUEUE_H

#include "gpuqueue/common.h"
#include "gpuqueue/quantity.h"
#include "gpuqueue/validate.h"
#include "gpuqueue/db.h"
#include "gpuqueue/event.h"
#include "gpuqueue/schedule.h"
#include "gpuqueue/run.h"
#include "gpuqueue/metrics.h"
#include "gpuqueue/report.h"
#include "gpuqueue/simulate.h"
#include "gpuqueue/cluster.h"

#endif
