/*
 * gpuqueue/quantity.h: Kubernetes resource quantities ("100m", "1.5Gi", "1e3"),
 * parsed and printed exactly as k8s.io/apimachinery does, with one deliberate
 * difference: a value that does not fit in 64 bits is rejected instead of
 * being carried in arbitrary precision (BinarySI values above 2^63-1 are
 * capped, as apimachinery caps them).
 */
#ifndef GPUQUEUE_QUANTITY_H
#define GPUQUEUE_QUANTITY_H

#include <stdbool.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a quantity was written; it decides how the canonical form is printed. */
typedef enum gq_quantity_form {
    GQ_QTY_DECIMAL_SI = 0,   /* "", m, k, M, G, ... (also n, u) */
    GQ_QTY_BINARY_SI = 1,    /* Ki, Mi, Gi, Ti, Pi, Ei */
    GQ_QTY_DECIMAL_EXPONENT, /* 1e3, 12E6 */
} gq_quantity_form;

/*
 * An exact quantity: mantissa x 10^scale. After parsing the value is rounded
 * up (away from zero) to a multiple of 10^-9, so scale >= -9, and the
 * mantissa carries no trailing zeros unless it is 0.
 */
typedef struct gq_quantity {
    int64_t mantissa;          /* signed digits */
    int32_t scale;             /* power of ten applied to mantissa, >= -9 */
    gq_quantity_form format;   /* the suffix family it was written in */
} gq_quantity;

/* Room for any canonical quantity text, including the NUL. */
#define GQ_QUANTITY_BUFSIZE 48

/**
 * Parse `len` bytes of `s` as a quantity.
 *
 * @param[out] out the quantity
 * @return GQ_OK; GQ_EINVALID for text outside the grammar ("1.1.M", " 1",
 *         ""); GQ_ERANGE when the value does not fit in 64 bits.
 */
GQ_EXTERN int gq_quantity_parse(gq_quantity *out, const char *s, size_t len, gq_error *err);

/**
 * Print the canonical form ("1500m", "1536Mi", "0") into buf.
 * @return the length written, excluding the NUL; buf is always terminated
 *         when size > 0 (GQ_QUANTITY_BUFSIZE always suffices).
 */
GQ_EXTERN size_t gq_quantity_format(char *buf, size_t size, const gq_quantity *q);

/** Whole units, rounded up (apimachinery's Value()). GQ_ERANGE on overflow. */
GQ_EXTERN int gq_quantity_value(int64_t *out, const gq_quantity *q);

/** Thousandths, rounded up (apimachinery's MilliValue()). GQ_ERANGE on overflow. */
GQ_EXTERN int gq_quantity_milli_value(int64_t *out, const gq_quantity *q);

/**
 * The amount Kueue accounts for a resource: milli-units for "cpu", whole
 * units for everything else. GQ_ERANGE on overflow.
 */
GQ_EXTERN int gq_quantity_resource_value(int64_t *out, const char *resource, const gq_quantity *q);

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
GQ_EXTERN int gq_quantity_cmp(const gq_quantity *a, const gq_quantity *b);

/** -1, 0 or 1 for the sign of q. */
GQ_EXTERN int gq_quantity_sign(const gq_quantity *q);

#ifdef __cplusplus
}
#endif

#endif
