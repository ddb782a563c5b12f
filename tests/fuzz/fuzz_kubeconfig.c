/*
 * fuzz_kubeconfig.c: a kubeconfig, as kubectl reads it. The bytes go first
 * to the parser alone (gq__manifest_kubeconfig_parse, in a buffer of
 * exactly their length), then through the whole loader as --kubeconfig
 * names a file (gq__kube_config_load: read, parse, choose the context,
 * check server, user and credentials). Nothing is executed: exec plugins
 * run only when a credential is asked for.
 */
#include <stdbool.h>
#include <fcntl.h>
#include <unistd.h>

#include "fuzz.h"
#include "kube.h"
#include "manifest_kubeconfig.h"

static char path[64]; /* the file the loader reads; set up on the first input */

static void remove_file(void)
{
    unlink(path);
    *strrchr(path, '/') = '\0';
    rmdir(path);
}

static bool set_up(void)
{
    static const char *const env[] = {"KUBECONFIG", "KUBERNETES_SERVICE_HOST",
                                      "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE"};
    size_t i;

    if (path[0])
        return true;
    for (i = 0; i < sizeof(env) / sizeof(env[0]); i++)
        unsetenv(env[i]);
    snprintf(path, sizeof(path), "/tmp/gq-fuzz-kc.XXXXXX");
    if (!mkdtemp(path))
        return false;
    strcat(path, "/config");
    atexit(remove_file);
    return true;
}

static bool write_all(const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    ssize_t n;

    while (ok && size > 0) {
        n = write(fd, data, size);
        ok = n > 0;
        data += ok ? n : 0;
        size -= ok ? (size_t)n : 0;
    }
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gq_kube_config_opts o = {path, NULL, NULL, false};
    struct gq__kubeconfig kc;
    struct gq_kube_config cfg;
    gq_error err = {0, ""};
    char *buf = malloc(size ? size : 1);

    if (!buf || !set_up()) {
        free(buf);
        return 0;
    }
    if (size)
        memcpy(buf, data, size);
    if (gq__manifest_kubeconfig_parse(&kc, buf, size, "/fuzz/config", &err) == GQ_OK)
        gq__manifest_kubeconfig_free(&kc);
    free(buf);
    if (write_all(data, size) && gq__kube_config_load(&cfg, &o, &err) == GQ_OK)
        gq__kube_config_free(&cfg);
    return 0;
}
