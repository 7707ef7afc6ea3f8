/*
 * schema.h: the MySQL store's schema (schema.c): its version, creating and
 * migrating it at open per the URL, and clearing a scheduler's rows.  The
 * migrations are sql/NNN_*.sql, embedded at build time by sql/embed.py.
 */
#ifndef CHIME_JOBSTORE_MYSQL_SCHEMA_H
#define CHIME_JOBSTORE_MYSQL_SCHEMA_H

#include "jobstore/mysql/tx.h"

#include <mysql.h>
#include <stddef.h>

/* The migrations, each a NULL-terminated array of lines (generated). */
extern const char *const *const chime__mysql_migrations[];
/* Their number: the schema version this library writes. */
extern const size_t chime__mysql_migration_count;

/*
 * chime__mysql_schema_version: the version recorded in the schema_version
 * table of prefix on db, 0 when there is no such table (or it is empty).
 * Returns: 0; CHIME_ESTORE and the other mapped errors, errbuf saying why.
 * Thread: the one holding db.
 */
int chime__mysql_schema_version(MYSQL *db, const char *prefix, long *ret,
                                char *errbuf, size_t errbuf_len);

/*
 * chime__mysql_schema_settle: creates the schema (URL parameter
 * auto_create=1) when there is none, applies the newer migrations
 * (migrate=1) when it is older, and refuses (CHIME_ESCHEMA, errbuf saying
 * what to do) when it is missing, older without migrate, or newer than
 * this library.  Creation and migration run under a named lock, so nodes
 * starting together do it once.  db is the connection store.c opened.
 */
int chime__mysql_schema_settle(chime__mysql_store *s, MYSQL *db, char *errbuf,
                               size_t errbuf_len);

/* Deletes every row of this scheduler (URL parameter clear=1). */
int chime__mysql_schema_clear(chime__mysql_store *s, char *errbuf,
                              size_t errbuf_len);

#endif /* CHIME_JOBSTORE_MYSQL_SCHEMA_H */
