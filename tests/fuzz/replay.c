/*
 * replay.c: the driver that stands in for libFuzzer in ordinary builds
 * (gcc, ASan+UBSan): every file named on the command line, or found in a
 * directory named there, is run once through LLVMFuzzerTestOneInput. The
 * ctest fuzz_<parser> replays the harness's corpus and its saved crash
 * inputs this way, so each is a regression case. A crash or a sanitizer
 * report ends the run with the input's name printed just before.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Read all of path into a buffer of exactly its size; -1 when it cannot be read. */
static int read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL, *grown;
    size_t n = 0, cap = 0, got;

    if (!f)
        return -1;
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            if (!(grown = realloc(buf, cap))) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = grown;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    /* Shrink to size so that a read past the input is past the allocation. */
    *out = n ? realloc(buf, n) : buf;
    *len = n;
    return *out || !n ? 0 : -1;
}

static int run_file(const char *path)
{
    uint8_t *data = NULL;
    size_t len;

    if (read_file(path, &data, &len) != 0) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order; *count gets how many ran. */
static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL, path[4096];
    size_t n = 0, i;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "replay: cannot read %s\n", dir);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        char **grown;

        if (e->d_name[0] == '.' || !(grown = realloc(names, (n + 1) * sizeof(*names))))
            continue;
        names = grown;
        if ((names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), compare);
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (rc == 0 && (rc = run_file(path)) == 0)
            (*count)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    struct stat st;
    int i;

    for (i = 1; i < argc; i++) {
        if (stat(argv[i], &st) != 0 && errno == ENOENT)
            continue; /* a harness without saved crashes has no crashes/ directory */
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            if (run_dir(argv[i], &count) != 0)
                return 1;
        } else if (run_file(argv[i]) != 0) {
            return 1;
        } else {
            count++;
        }
    }
    /* Nothing to run means a corpus went missing: that must not pass quietly. */
    if (count == 0) {
        fprintf(stderr, "replay: no inputs\n");
        return 1;
    }
    printf("replay: %zu inputs ran clean\n", count);
    return 0;
}
