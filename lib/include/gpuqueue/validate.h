/*
 * gpuqueue/validate.h: Kubernetes name and label rules, as
 * k8s.io/apimachinery/pkg/util/validation checks them.
 *
 * Each function returns GQ_OK, or GQ_EINVALID with err->msg set to one line of
 * the form: invalid value "Bad_Name": <the rule it breaks>.
 */
#ifndef GPUQUEUE_VALIDATE_H
#define GPUQUEUE_VALIDATE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters (namespaces, pod set names). */
GQ_EXTERN int gq_validate_dns1123_label(const char *s, gq_error *err);

/** DNS-1123 labels joined by '.', at most 253 characters (most object names). */
GQ_EXTERN int gq_validate_dns1123_subdomain(const char *s, gq_error *err);

/** A label or annotation key: an optional DNS-1123 subdomain prefix and '/', then a name of 1..63. */
GQ_EXTERN int gq_validate_label_key(const char *s, gq_error *err);

/** A label value: empty, or 1..63 of [A-Za-z0-9-_.] starting and ending alphanumeric. */
GQ_EXTERN int gq_validate_label_value(const char *s, gq_error *err);

/**
 * A resource name in requests and quotas ("cpu", "nvidia.com/gpu"): a
 * qualified name as label keys are (apimachinery's IsQualifiedName).
 */
GQ_EXTERN int gq_validate_resource_name(const char *s, gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
