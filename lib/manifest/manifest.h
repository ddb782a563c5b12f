/*
 * manifest.h: decoding documents into the core's structs and encoding them
 * back to canonical JSON. Internal to libgpuqueue; the json-c side of the
 * manifest module (manifest_decode.c, manifest_encode.c).
 */
#ifndef GQ_MANIFEST_H
#define GQ_MANIFEST_H

#include <json-c/json.h>

#include "manifest_load.h"
#include "manifest_reader.h"
#include "model.h"

/*
 * Decode one document into obj (which the caller zeroes first and clears with
 * gq__object_clear afterwards, whatever the result).
 *
 * Returns GQ_OK; GQ_EUNSUPPORTED for a kind gpuq does not model, with a
 * message naming kind and apiVersion (the caller decides whether that is a
 * skip or, with --strict, an error); GQ_EINVALID when a field is wrong, with
 * a message "FIELD.PATH: invalid value \"V\": WHY" or "FIELD.PATH: required".
 * The message does not name the source or document; the caller prefixes it.
 */
int gq__manifest_decode(struct gq_object *obj, json_object *root,
                        const struct gq_decode_options *opts, gq_error *err);

/*
 * gq__manifest_encode (declared in manifest_load.h) gives the canonical JSON
 * text of an object: the v1beta2 (or batch/v1, v1) form with Kueue's
 * defaults filled, keys in a fixed order, so that two documents meaning the
 * same thing encode to the same bytes ("unchanged" on apply). It includes
 * apiVersion, kind, metadata (name, namespace, labels, annotations; no uid or
 * timestamps) and spec; for workloads a Kueue Workload (podSets with
 * templates, queueName, priority...). Caller frees *out with free().
 */

#endif
