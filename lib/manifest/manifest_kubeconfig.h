/*
 * manifest_kubeconfig.h: one kubeconfig file's text to plain C structs.
 * Internal to libgpuqueue, used by kube_config.c, which does the file I/O,
 * the merge across files and the validation of the chosen context: this
 * parser only checks shapes and types, so that an odd entry nobody selects
 * never stops kubectl-compatible use (client-go validates only what it uses).
 *
 * Every string is malloc'd and owned by its struct; NULL when absent. Paths
 * (certificate-authority, client-certificate, client-key, tokenFile, and an
 * exec command containing '/') are already resolved against the directory
 * of the file, and *-data fields are already base64-decoded (client-go
 * decodes them while loading, so bad base64 anywhere is an error).
 */
#ifndef GQ_MANIFEST_KUBECONFIG_H
#define GQ_MANIFEST_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuqueue/common.h"

/*
 * An exec credential plugin (kubeconfig users[].user.exec). Declared here,
 * not in kube.h, because this decoder fills it and manifest/ sits below
 * kube/; the client keeps the same struct in struct gq_kube_config.
 */
struct gq_kube_exec {
    char *command;          /* resolved against the kubeconfig's directory when it has a '/' */
    char **args;            /* nargs strings */
    size_t nargs;
    char **env;             /* "NAME=value", nenv strings, added to the environment */
    size_t nenv;
    char *api_version;      /* client.authentication.k8s.io/v1 or /v1beta1 */
    char *interactive_mode; /* Never, IfAvailable, Always (v1 requires it) */
    bool provide_cluster_info;
    char *install_hint;
};

/* clusters[].cluster */
struct gq__kc_cluster {
    char *name;
    char *server;  /* as written; checked by kube_config.c */
    char *ca_file; /* certificate-authority, absolute */
    char *ca_data; /* certificate-authority-data, decoded, ca_len bytes + NUL */
    size_t ca_len;
    bool insecure;         /* insecure-skip-tls-verify */
    char *tls_server_name; /* tls-server-name (not supported by the client) */
    char *proxy_url;       /* proxy-url (not supported by the client) */
};

/* users[].user */
struct gq__kc_user {
    char *name;
    char *cert_file, *key_file; /* client-certificate, client-key, absolute */
    char *cert_data, *key_data; /* *-data, decoded, NUL-terminated */
    size_t cert_len, key_len;
    char *token;               /* secret: zeroed before it is freed */
    char *token_file;          /* tokenFile, absolute */
    bool basic_auth;           /* username or password present (not supported) */
    char *auth_provider;       /* auth-provider's name ("" when unnamed), or NULL */
    char *impersonate;         /* the first impersonation field present ("as", ...), or NULL */
    struct gq_kube_exec *exec; /* owned, or NULL */
};

/* contexts[].context */
struct gq__kc_context {
    char *name;
    char *cluster;
    char *user;
    char *namespace;
};

/* One file. */
struct gq__kubeconfig {
    char *path; /* the file name as given */
    struct gq__kc_cluster *clusters;
    size_t nclusters;
    struct gq__kc_user *users;
    size_t nusers;
    struct gq__kc_context *contexts;
    size_t ncontexts;
    char *current_context; /* NULL when unset or "" */
};

/*
 * Parse len bytes of buf, the text of the kubeconfig at path (used to
 * resolve relative paths, made absolute with the working directory, and to
 * name the file in messages). An empty file is an empty configuration.
 * Unknown fields are ignored, as client-go ignores them. Returns GQ_OK,
 * GQ_EINVALID (wrong shape or type, bad base64, a name defined twice in one
 * list, more than one document) or GQ_ENOMEM; *out is zeroed on error.
 */
int gq__manifest_kubeconfig_parse(
    struct gq__kubeconfig *out, const char *buf, size_t len, const char *path, gq_error *err);

void gq__manifest_kubeconfig_free(struct gq__kubeconfig *kc);

/*
 * Standard base64 (a Secret's data, a *-data field): 0, -1 with *bad the
 * offending byte's offset, or -2 out of memory. *out malloc'd with a NUL.
 */
int gq__manifest_base64_decode(const char *s, char **out, size_t *len, size_t *bad);

/* Free an exec plugin description; NULL is a no-op. */
void gq__kube_exec_free(struct gq_kube_exec *ex);

#endif
