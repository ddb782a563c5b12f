/*
 * log.c: gpuqd's one-line-per-event logs, text or JSON: the library's
 * gq_event_format writes the line, this file puts it on stdout.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gpuqueue/tool.h>

#include "daemon.h"

void gqd_log_event(const gq_event *e, bool json)
{
    gq_event_style style = json ? GQ_EVENT_STYLE_JSON : GQ_EVENT_STYLE_TEXT;
    char buf[1024], *line = buf;
    size_t n = gq_event_format(buf, sizeof(buf), e, style);

    /* A long message was cut: format it again, whole. */
    if (n >= sizeof(buf) && !(line = malloc(n + 1)))
        line = buf; /* out of memory: the line cut is better than none */
    else if (line != buf)
        gq_event_format(line, n + 1, e, style);
    puts(line);
    if (line != buf)
        free(line);
    fflush(stdout);
}

void gqd_cluster_log(const gq_cluster_event *e, void *payload)
{
    gqd_log_event(e, *(const bool *)payload);
}
