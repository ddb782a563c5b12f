/*
 * event.h: the words of a gq_event's enums (gpuqueue/event.h), one table
 * each, so that an emitter names what happened with an enum and the words
 * printed always agree with it; and the printer behind gq_event_format.
 */
#ifndef GQ_EVENT_H
#define GQ_EVENT_H

#include "gpuqueue/event.h"
#include "gpuqueue/schedule.h"

/* Each enum's word; NULL for GQ_EVENT_LEVEL_NONE, GQ_EVENT_WHAT_OTHER and values out of range. */
const char *gq__event_level_word(gq_event_level level);
const char *gq__event_kind_word(gq_event_kind kind);
const char *gq__event_what_word(gq_event_what what);

/* A scheduling decision's kind as the transition it reports (GQ_CHANGE_PENDING: none). */
gq_event_what gq__event_what_of_change(gq_change_kind kind);

/* e's words from its enums: kind and level always, what unless what_id is GQ_EVENT_WHAT_OTHER. */
void gq__event_words(gq_event *e);

#endif
