/*
 * log.c: gpuqd's one-line-per-event logs, text or JSON: the library's
 * gq_event_print writes the line to stdout.
 */
#include <stdio.h>

#include <gpuqueue/tool.h>

#include "daemon.h"

void gqd_log_event(const gq_event *e, bool json)
{
    gq_event_print(stdout, e, json ? GQ_EVENT_STYLE_JSON : GQ_EVENT_STYLE_TEXT);
}

void gqd_cluster_log(const gq_cluster_event *e, void *payload)
{
    gqd_log_event(e, *(const bool *)payload);
}
