/*
 * handle.h: what a gq_db handle holds, for the engine and the API files
 * behind the public header. Internal.
 */
#ifndef GQ_HANDLE_H
#define GQ_HANDLE_H

#include <stdbool.h>

#include "gpuqueue/db.h"

/*
 * The last LocalQueue an apply checked: a bulk submit names the same queue
 * 100,000 times, and the answer cannot change inside the transaction.
 */
struct lq_seen {
    char *ns;
    char *name;
    bool exists;
};

struct gq_adjust;

struct gq_db {
    struct gq_store *st;     /* the database */
    struct lq_seen lq;       /* valid only during one apply transaction */
    /*
     * What adjusts a workload's requests (LimitRanges, RuntimeClasses, the
     * Configuration's resources), read once per apply transaction and again
     * after one of those objects is applied; NULL when none does.
     */
    struct gq_adjust *adjust;
    bool adjust_loaded;
};

#endif
