/*
 * store_migrations.h: the schema migrations, generated at build time from
 * schema/NNNN_name.sql (see cmake/EmbedSchema.cmake).
 */
#ifndef GQ_STORE_MIGRATIONS_H
#define GQ_STORE_MIGRATIONS_H

struct gq__migration {
    int version;      /* the user_version this migration leads to */
    const char *name; /* e.g. "0001_init" */
    const char *sql;  /* the statements, run in one transaction */
};

extern const struct gq__migration gq__migrations[];
extern const int gq__migration_count;

#endif
