/*
 * manifest_tree.h: the -o json|yaml printer (manifest_print.h) handed a
 * json-c tree already built, for what prints objects it has parsed rather
 * than built (manifest_get.c). Internal to lib/manifest/: json-c types
 * appear here, so nothing outside the layer includes it.
 */
#ifndef GQ_MANIFEST_TREE_H
#define GQ_MANIFEST_TREE_H

#include <json-c/json.h>

#include "manifest_print.h"

/* Write obj as the printer's one object or next List item. */
int gq__mf_printer_tree(struct gq__mf_printer *p, json_object *obj);

#endif
