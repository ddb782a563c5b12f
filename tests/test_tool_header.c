/*
 * test_tool_header.c: the unstable <gpuqueue/tool.h> stands alone (first in
 * a translation unit, under -Wpedantic -Werror) and what it declares links
 * from the library: a program that opts in to it needs nothing else.
 */
#include <gpuqueue/tool.h>

#include <stdint.h>
#include <string.h>

#include "test.h"

static void alone(void)
{
    char buf[GQ_DURATION_SIZE];
    int64_t ms = 0;
    gq_error err;

    CHECK(gq_duration_parse("1h30m", &ms, &err) == GQ_OK);
    CHECK(ms == 5400000);
    gq_duration_format(buf, sizeof(buf), ms);
    CHECK_STR(buf, "1h30m");
    CHECK(gq_duration_parse("soon", &ms, &err) == GQ_EINVALID);
    CHECK(strstr(err.msg, "soon") != NULL);
    CHECK_STR(gq_resource_name("cq"), "clusterqueue");
    CHECK(gq_resource_name("no-such-kind") == NULL);
    CHECK(gq_report_time_parse("now", 1234, &ms, &err) == GQ_OK && ms == 1234);
}

int main(void)
{
    TEST_RUN(alone);
    return TEST_DONE();
}
