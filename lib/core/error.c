/*
 * error.c: error codes, their texts, and the helpers that fill a gq_error,
 * among them the one check of a public struct's version. The table is
 * generated from GQ_ERRNO_MAP so names, codes and texts cannot drift apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

const char *gq_strerror(int code)
{
    switch (code) {
    case GQ_OK:
        return "success";
#define GQ__ERRNO_TEXT(name, value, text)                                                          \
    case GQ_##name:                                                                                \
        return text;
        GQ_ERRNO_MAP(GQ__ERRNO_TEXT)
#undef GQ__ERRNO_TEXT
    }
    return "unknown error";
}

const char *gq_errname(int code)
{
    switch (code) {
    case GQ_OK:
        return "OK";
#define GQ__ERRNO_NAME(name, value, text)                                                          \
    case GQ_##name:                                                                                \
        return #name;
        GQ_ERRNO_MAP(GQ__ERRNO_NAME)
#undef GQ__ERRNO_NAME
    }
    return "EUNKNOWN";
}

void gq_free(void *ptr)
{
    free(ptr);
}

const char *gq_version(void)
{
    return GQ_VERSION;
}

int gq__error(gq_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (err) {
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

int gq__version_check(unsigned int version, unsigned int current, const char *name,
                      gq_error *err)
{
    if (version >= 1 && version <= current)
        return GQ_OK;
    if (current == 1)
        return gq__error(err, GQ_EINVALID, "%s version %u is not supported (only 1)", name,
                         version);
    return gq__error(err, GQ_EINVALID, "%s version %u is not supported (1 to %u)", name, version,
                     current);
}

int gq__error_prefix(gq_error *err, const char *fmt, ...)
{
    char prefix[sizeof(err->msg)];
    size_t plen, mlen, cap = sizeof(err->msg) - 1;
    va_list ap;
    int n;

    if (!err)
        return GQ_ERROR;
    va_start(ap, fmt);
    n = vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    if (n < 0)
        return err->code;
    plen = strlen(prefix);
    if (plen + 2 > cap)
        plen = cap - 2;
    mlen = strnlen(err->msg, cap);
    if (plen + 2 + mlen > cap)
        mlen = cap - plen - 2;
    /* Shift the old message right and put "prefix: " in front of it. */
    memmove(err->msg + plen + 2, err->msg, mlen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen] = ':';
    err->msg[plen + 1] = ' ';
    err->msg[plen + 2 + mlen] = '\0';
    return err->code;
}
