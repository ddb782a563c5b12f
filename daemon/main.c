/*
 * main.c: gpuqd. The daemon's loop (admission cycles, the simulated cluster,
 * and later the Kubernetes sync) arrives with the admission engine; what it
 * does today is the part every later mode starts with: open the database,
 * bring its schema up to date, and verify the file (--check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuqueue.h>

static void usage(FILE *out)
{
    fputs("Usage: gpuqd [--db PATH] --check\n\n"
          "  --db PATH   database file (default: $GPUQ_DB, else $XDG_STATE_HOME/gpuq/gpuq.db)\n"
          "  --check     migrate the schema, verify the file's integrity, and exit\n"
          "  --version   print the version\n\n"
          "The reconcile loop (gpuqd --sim, the Kubernetes sync) is not built yet.\n",
          out);
}

static int check(const char *path)
{
    gq_open_options o = GQ_OPEN_OPTIONS_INIT;
    gq_error err = {0, ""};
    char *def = NULL;
    gq_db *db = NULL;
    int version = 0, rc;

    if (!path && (rc = gq_db_default_path(&def, &err)) != GQ_OK)
        goto fail;
    if ((rc = gq_db_open(&db, path ? path : def, &o, &err)) != GQ_OK)
        goto fail;
    if ((rc = gq_db_check(db, &version, &err)) != GQ_OK)
        goto fail;
    printf("gpuqd: %s: ok (schema %d)\n", path ? path : def, version);
    gq_db_close(db);
    gq_free(def);
    return EXIT_SUCCESS;
fail:
    fprintf(stderr, "gpuqd: error: %s\n", err.msg);
    gq_db_close(db);
    gq_free(def);
    return EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int i, do_check = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            path = argv[++i];
        } else if (strncmp(argv[i], "--db=", 5) == 0) {
            path = argv[i] + 5;
        } else if (strcmp(argv[i], "--check") == 0) {
            do_check = 1;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("gpuqd version %s\n", gq_version());
            return EXIT_SUCCESS;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return EXIT_SUCCESS;
        } else {
            fprintf(stderr, "gpuqd: error: unknown argument \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!do_check) {
        usage(stderr);
        return 2;
    }
    return check(path);
}
