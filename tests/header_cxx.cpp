// The public header compiles as C++ (issue 16): extern "C" everywhere, and
// the members C calls "namespace" read as "namespace_" (GQ_NAMESPACE).
#include <gpuqueue.h>
#include <gpuqueue/tool.h>

#include <cstdio>

static int row(const gq_workload_info *wl, void *)
{
    std::printf("%s/%s\n", wl->namespace_ ? wl->namespace_ : "", wl->name);
    return 0;
}

int main()
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    gq_apply_item item = {};

    f.namespace_ = "default";
    item.namespace_ = "default";
    (void)row;
    return gq_version() && f.namespace_ == item.namespace_ ? 0 : 1;
}
