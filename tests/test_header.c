/*
 * test_header.c: <gpuqueue.h> stands alone: it compiles first in a
 * translation unit under -Wpedantic -Werror, and its tables agree with
 * themselves (every error code has a name and a text); it does not bring in
 * the unstable <gpuqueue/tool.h> (test_tool_header.c has that one alone).
 */
#include <gpuqueue.h>

/* The unstable helpers stay out of the stable header (lib/README.md, "API stability"). */
#ifdef GPUQUEUE_TOOL_H
#error "<gpuqueue.h> includes the unstable <gpuqueue/tool.h>"
#endif

#include <string.h>

#include "test.h"

static void error_table(void)
{
    static const int codes[] = {GQ_ERROR,   GQ_EBUSY,   GQ_ENOTFOUND, GQ_EEXISTS, GQ_EINVALID,
                                GQ_ECONFLICT, GQ_EQUOTA, GQ_ENOMEM,  GQ_EIO,     GQ_EK8S,
                                GQ_ERANGE,  GQ_ESCHEMA, GQ_EUNSUPPORTED};
    size_t i;

    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECKF(codes[i] < 0, "code %d", codes[i]);
        CHECKF(strcmp(gq_strerror(codes[i]), "unknown error") != 0, "text of %d", codes[i]);
        CHECKF(strcmp(gq_errname(codes[i]), "EUNKNOWN") != 0, "name of %d", codes[i]);
    }
    CHECK_STR(gq_errname(GQ_ENOTFOUND), "ENOTFOUND");
    CHECK_STR(gq_strerror(GQ_OK), "success");
    CHECK_STR(gq_strerror(-999), "unknown error");
    CHECK_STR(gq_version(), GQ_VERSION);
}

int main(void)
{
    TEST_RUN(error_table);
    return TEST_DONE();
}
