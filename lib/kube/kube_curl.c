/*
 * kube_curl.c: libcurl loaded with dlopen on first use (see kube_curl.h for
 * why). The soname is libcurl's ABI 4, the one Debian's libcurl4 provides.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "kube_curl.h"

#define LIBCURL "libcurl.so.4"

struct gq__curl_api gq__curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

struct sym {
    const char *name;
    void **slot;
};

static void load(void)
{
    const struct sym syms[] = {
        {"curl_global_init", (void **)&gq__curl.global_init},
        {"curl_global_cleanup", (void **)&gq__curl.global_cleanup},
        {"curl_easy_init", (void **)&gq__curl.easy_init},
        {"curl_easy_setopt", (void **)&gq__curl.easy_setopt},
        {"curl_easy_getinfo", (void **)&gq__curl.easy_getinfo},
        {"curl_easy_strerror", (void **)&gq__curl.easy_strerror},
        {"curl_easy_cleanup", (void **)&gq__curl.easy_cleanup},
        {"curl_easy_reset", (void **)&gq__curl.easy_reset},
        {"curl_easy_perform", (void **)&gq__curl.easy_perform},
        {"curl_easy_escape", (void **)&gq__curl.easy_escape},
        {"curl_free", (void **)&gq__curl.free},
        {"curl_slist_append", (void **)&gq__curl.slist_append},
        {"curl_slist_free_all", (void **)&gq__curl.slist_free_all},
        {"curl_share_init", (void **)&gq__curl.share_init},
        {"curl_share_setopt", (void **)&gq__curl.share_setopt},
        {"curl_share_cleanup", (void **)&gq__curl.share_cleanup},
        {"curl_multi_init", (void **)&gq__curl.multi_init},
        {"curl_multi_add_handle", (void **)&gq__curl.multi_add_handle},
        {"curl_multi_remove_handle", (void **)&gq__curl.multi_remove_handle},
        {"curl_multi_perform", (void **)&gq__curl.multi_perform},
        {"curl_multi_poll", (void **)&gq__curl.multi_poll},
        {"curl_multi_info_read", (void **)&gq__curl.multi_info_read},
        {"curl_multi_cleanup", (void **)&gq__curl.multi_cleanup},
    };
    void *lib = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);
    size_t i;

    if (!lib) {
        snprintf(failure, sizeof(failure), "cannot load %s (install libcurl4): %s", LIBCURL,
                 dlerror());
        return;
    }
    for (i = 0; i < sizeof(syms) / sizeof(*syms); i++) {
        /* POSIX: a function pointer may be read from dlsym's object pointer this way. */
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(failure, sizeof(failure), "%s has no %s", LIBCURL, syms[i].name);
            return;
        }
    }
}

int gq__curl_load(gq_error *err)
{
    pthread_once(&once, load);
    if (failure[0])
        return gq__error(err, GQ_EK8S, "%s", failure);
    return GQ_OK;
}
