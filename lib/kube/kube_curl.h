/*
 * kube_curl.h: libcurl, loaded when first needed. Internal; included by
 * kube_stream.h right after <curl/curl.h>, so every kube*.c call to curl_*
 * goes through the table below.
 *
 * Why: linked directly, libcurl brings some thirty shared libraries (TLS,
 * Kerberos, LDAP, p11-kit...) whose loading and constructors ran at every
 * start of `gpuq`, cluster mode or not: a local `gpuq submit` went from 536
 * to about 195 a second in a shell loop. Loaded with dlopen by the first
 * gq__kube_open, they cost only the commands that talk to an API server.
 */
#ifndef GQ_KUBE_CURL_H
#define GQ_KUBE_CURL_H

#include <curl/curl.h>

#include "gpuqueue/common.h"

struct gq__curl_api {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode c);
    void (*easy_cleanup)(CURL *h);
    void (*easy_reset)(CURL *h);
    CURLcode (*easy_perform)(CURL *h);
    char *(*easy_escape)(CURL *h, const char *s, int n);
    void (*free)(void *p);
    struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
    void (*slist_free_all)(struct curl_slist *l);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_setopt)(CURLSH *sh, CURLSHoption opt, ...);
    CURLSHcode (*share_cleanup)(CURLSH *sh);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
    CURLMcode (*multi_perform)(CURLM *m, int *running);
    CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd fds[], unsigned int n, int ms,
                            int *ret);
    CURLMsg *(*multi_info_read)(CURLM *m, int *left);
    CURLMcode (*multi_cleanup)(CURLM *m);
};

extern struct gq__curl_api gq__curl;

/* Load libcurl once (thread-safe); GQ_EK8S naming the library when it is missing. */
int gq__curl_load(gq_error *err);

/* Every curl_* call of kube*.c goes through the table (curl.h's type-check macros first undone). */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_share_setopt
#define curl_global_init (*gq__curl.global_init)
#define curl_global_cleanup (*gq__curl.global_cleanup)
#define curl_easy_init (*gq__curl.easy_init)
#define curl_easy_setopt (*gq__curl.easy_setopt)
#define curl_easy_getinfo (*gq__curl.easy_getinfo)
#define curl_easy_strerror (*gq__curl.easy_strerror)
#define curl_easy_cleanup (*gq__curl.easy_cleanup)
#define curl_easy_reset (*gq__curl.easy_reset)
#define curl_easy_perform (*gq__curl.easy_perform)
#define curl_easy_escape (*gq__curl.easy_escape)
#define curl_free (*gq__curl.free)
#define curl_slist_append (*gq__curl.slist_append)
#define curl_slist_free_all (*gq__curl.slist_free_all)
#define curl_share_init (*gq__curl.share_init)
#define curl_share_setopt (*gq__curl.share_setopt)
#define curl_share_cleanup (*gq__curl.share_cleanup)
#define curl_multi_init (*gq__curl.multi_init)
#define curl_multi_add_handle (*gq__curl.multi_add_handle)
#define curl_multi_remove_handle (*gq__curl.multi_remove_handle)
#define curl_multi_perform (*gq__curl.multi_perform)
#define curl_multi_poll (*gq__curl.multi_poll)
#define curl_multi_info_read (*gq__curl.multi_info_read)
#define curl_multi_cleanup (*gq__curl.multi_cleanup)

#endif
