/*
 * kube_exec.h: what kube_config.c and kube_exec.c share, and the knobs the
 * tests turn. Internal to libgpuqueue.
 */
#ifndef GQ_KUBE_EXEC_H
#define GQ_KUBE_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/common.h"
#include "kube.h"

/* Largest kubeconfig file read, and largest token file. */
#define GQ_KUBE_CONFIG_MAX_BYTES (4u << 20)
#define GQ_KUBE_TOKEN_MAX_BYTES (64u << 10)

/*
 * Read the whole file at path into *out (NUL-terminated, *len_out bytes).
 * what names the file in messages ("kubeconfig", "token file"). When guard
 * is set, a file that its group or others may write is refused (someone
 * else could swap its credentials). Returns
 * GQ_OK, GQ_ENOTFOUND (no such file), GQ_EINVALID (refused, or larger than
 * cap), GQ_EIO (cannot be read) or GQ_ENOMEM.
 */
int gq__kube_read_file(char **out,
                       size_t *len_out,
                       const char *path,
                       const char *what,
                       size_t cap,
                       bool guard,
                       gq_error *err);

/* Zero len bytes of p, then free it (for tokens and keys); NULL is a no-op. */
void gq__kube_burn(void *p, size_t len);

/* True when s has a byte a header must not carry (control characters, DEL). */
bool gq__kube_token_bad(const char *s);

/*
 * Run cfg->exec's plugin and put its credential into cfg's cache
 * (cached_token and/or cached_cert_pem + cached_key_pem, cached_at_ms =
 * now_ms, expires_ms from expirationTimestamp). Returns GQ_OK, GQ_EK8S for a
 * plugin that fails, hangs or answers badly, GQ_EUNSUPPORTED for
 * interactiveMode Always, GQ_EIO or GQ_ENOMEM. Messages never contain the
 * plugin's output.
 */
int gq__kube_exec_run(struct gq_kube_config *cfg, int64_t now_ms, gq_error *err);

/* Test hook: the plugin timeout in ms (default 30000); <= 0 restores the default. */
void gq__kube_exec_timeout_ms(int64_t ms);

#endif
