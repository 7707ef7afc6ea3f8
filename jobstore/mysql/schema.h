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
/* Per migration, the oldest schema version whose nodes can serve a schema
 * at that version (recorded in schema_version.compatible_with; a node
 * accepts a newer schema whose value is at most its own version). */
extern const long chime__mysql_migration_compat[];

/*
 * chime__mysql_migration_statements: the statements of migration n
 * (1-based), the table prefix substituted, in order: what the store runs
 * one by one (tests use it to build a schema at an older version, or to
 * cut a migration short).  Every statement is repeatable: a migration
 * interrupted after any of them completes when it is run again.
 * Returns: 0; CHIME_ENOMEM.  Thread: any.  Ownership: *ret_stmts is the
 * caller's (chime__mysql_migration_statements_free).
 */
int chime__mysql_migration_statements(const char *prefix, size_t n,
                                      char ***ret_stmts, size_t *ret_count);
void chime__mysql_migration_statements_free(char **stmts, size_t count);

/*
 * chime__mysql_schema_version: the version recorded in the schema_version
 * table of prefix on db, 0 when there is no such table (or it is empty).
 * Returns: 0; CHIME_ESTORE and the other mapped errors, errbuf saying why.
 * Thread: the one holding db.
 */
int chime__mysql_schema_version(MYSQL *db, const char *prefix, long *ret,
                                char *errbuf, size_t errbuf_len);

/*
 * chime__mysql_schema_compat: the compatible_with of schema version
 * version's row on db (the oldest version whose nodes can serve it), 0
 * when there is no such row or the schema predates the column.
 * Returns: 0; CHIME_ESTORE and the other mapped errors, errbuf saying why.
 * Thread: the one holding db.
 */
int chime__mysql_schema_compat(MYSQL *db, const char *prefix, long version,
                               long *ret, char *errbuf, size_t errbuf_len);

/*
 * chime__mysql_schema_settle: creates the schema (URL parameter
 * auto_create=1) when there is none, applies the newer migrations
 * (migrate=1) when it is older, accepts a newer one whose newest row says
 * it is compatible with this library's version, and refuses
 * (CHIME_ESCHEMA, errbuf saying what to do) when it is missing, older
 * without migrate, or newer and not compatible.  Creation and migration
 * run under a named lock, so nodes starting together do it once; a
 * migration statement never queues for a table's metadata lock for more
 * than a second.  db is the connection store.c opened.
 */
int chime__mysql_schema_settle(chime__mysql_store *s, MYSQL *db, char *errbuf,
                               size_t errbuf_len);

/* Deletes every row of this scheduler (URL parameter clear=1). */
int chime__mysql_schema_clear(chime__mysql_store *s, char *errbuf,
                              size_t errbuf_len);

#endif /* CHIME_JOBSTORE_MYSQL_SCHEMA_H */
