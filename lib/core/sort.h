/*
 * sort.h - qsort that accepts an empty array.
 *
 * C says qsort's base must point to an array even when nmemb is 0, so
 * qsort(NULL, 0, ...) is undefined (UBSan reports it: an empty queue's
 * pending list crashed a sanitized gpuqd). Every sort in the library goes
 * through gq__qsort, which does nothing for fewer than two elements.
 */
#ifndef GQ_SORT_H
#define GQ_SORT_H

#include <stdlib.h>

static inline void gq__qsort(void *base, size_t n, size_t size,
                             int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

#endif
