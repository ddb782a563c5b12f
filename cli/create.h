/*
 * create.h: what the files of `gpuq create` share. cmd_create.c has the
 * command and the objects made from a name and a few flags; create_lists.c
 * reads the list flags; create_quota.c
 * writes a ClusterQueue's resourceGroups from kueuectl's quota flags;
 * create_taints.c a ResourceFlavor's nodeTaints and tolerations.
 *
 * Each writer checks every value it is given before it writes a byte of
 * it (names, label keys and values, enums, quantities), so that what
 * reaches the manifest's JSON text needs no escaping; a bad value is a
 * one-line error naming it and EXIT_USAGE.
 */
#ifndef GQ_CLI_CREATE_H
#define GQ_CLI_CREATE_H

#include <stdio.h>

#include "cli.h"

/* The comma-separated items of a repeated flag, as pflag's StringSlice reads them. */
struct items {
    char **v;          /* the items, pointing into buf, for the parsers to cut further */
    const char **text; /* the same items as given, for messages */
    size_t n;
    char *buf; /* the flag values, copied twice and cut at the commas; owned */
};

/*
 * Split every value of a list flag at its commas ("a,b" "c" -> a b c); an
 * empty value adds nothing, as in pflag. EXIT_SUCCESS, else EXIT_FAILURE
 * (out of memory, said). Free with items_free.
 */
int items_split(struct items *out, const struct strlist *values);
void items_free(struct items *it);

/*
 * A StringToString flag as a JSON object of labels, each key and value
 * checked, the keys sorted as Go writes a map: prefix, then {"k": "v", ...};
 * nothing when it is empty, as Go's omitempty leaves it out.
 */
int create_map(FILE *out, const char *prefix, const struct strlist *values, const char *flag);

/*
 * kueuectl's --nominal-quota, --borrowing-limit and --lending-limit, each a
 * list of "FLAVOR:RESOURCE=QUANTITY;RESOURCE=QUANTITY", written to out as the
 * JSON of "resourceGroups": [...] (nothing when all three are empty).
 */
int create_resource_groups(FILE *out,
                           const struct strlist *nominal,
                           const struct strlist *borrowing,
                           const struct strlist *lending);

/* --node-taints KEY[=VALUE]:EFFECT,... as the JSON of "nodeTaints": [...] (nothing when none). */
int create_taints(FILE *out, const struct strlist *taints);

/* --tolerations KEY[=VALUE][:EFFECT],... as "tolerations": [...] (nothing when none). */
int create_tolerations(FILE *out, const struct strlist *tolerations);

#endif
