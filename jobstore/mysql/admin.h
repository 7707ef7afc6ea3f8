/*
 * admin.h: what test fixtures and the bench need of the MySQL/MariaDB
 * store beyond the public API: a plain connection, the schema's state,
 * opening a cluster's store as an operator, the database's clock, the node
 * liveness rule as SQL, filling a schema as the scheduler would, asking
 * running fires to stop, and the repair step behind chime_admin_repair.
 * The operators' tools (chimectl, chime-web, chime-alert) use none of it:
 * they read and act through chime-admin.h, public, and link the shared
 * library.  URLs are parsed and redacted by url.h, the store's one parser.
 *
 * Every function here is implemented with the store's own pieces
 * (admin.c): a rule written here once is the store's rule.
 *
 * Terms: an *operator's store* is the store opened for a tool, as a node
 * of the cluster that never claims anything (its nodes row is removed
 * again when it is freed).
 *
 * Thread: an operator's store is used by one thread at a time.
 */
#ifndef CHIME_JOBSTORE_MYSQL_ADMIN_H
#define CHIME_JOBSTORE_MYSQL_ADMIN_H

#include "chime-admin.h"
#include "chime.h"
#include "jobstore/mysql/result.h"
#include "jobstore/mysql/url.h"

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct chime__mysql_admin chime__mysql_admin;

/* ------------------------------------------------ plain connections */

/*
 * chime__mysql_admin_connect: a plain connection to the URL's server and
 * database (autocommit, utf8mb4), as the store opens its own, for a tool's
 * own statements: connecting times out after connect_timeout_s (> 0), each
 * read and write after io_timeout_s (0: never).
 * Returns: 0; CHIME_ECONNECT; CHIME_EAUTH; CHIME_ENOTFOUND (no such
 * database); CHIME_ENOMEM; errbuf says why, the password redacted.
 * Ownership: *ret_db is the caller's, closed with mysql_close().
 */
int chime__mysql_admin_connect(const chime__mysql_url *url,
                               unsigned connect_timeout_s,
                               unsigned io_timeout_s, MYSQL **ret_db,
                               char *errbuf, size_t errbuf_len);

/*
 * chime__mysql_admin_schema_state: the schema version in the database a
 * store URL names (0: no schema), read over a plain connection (a database
 * without a schema cannot be opened as a store), the version this library
 * writes, and for a schema newer than this library the oldest version
 * whose nodes can serve it (its compatible_with: docs/operations.md,
 * "Rolling upgrades"), 0 otherwise.  Returns: 0; CHIME_EURL; the
 * connection's errors; CHIME_ESTORE; errbuf says why.
 */
int chime__mysql_admin_schema_state(const char *url, long *ret_version,
                                    long *ret_latest, long *ret_compat,
                                    char *errbuf, size_t errbuf_len);

/* ------------------------------------------------ an operator's store */

/*
 * chime__mysql_admin_open: opens the store of URL url (with extra, e.g.
 * "auto_create=1", appended to its parameters when not NULL) for
 * scheduler sched as node instance_id, with one connection and no log.
 * An operator's url may not say clear=1 (it would delete every row of the
 * cluster at open, a test's or demo's URL pasted into a tool); extra may.
 * Returns: 0; CHIME_EINVAL (clear=1 in url); chime__store_open's errors
 * (CHIME_EURL, CHIME_ECONNECT, CHIME_EAUTH, CHIME_ESCHEMA, ...), errbuf
 * says why.
 * Ownership: *ret is the caller's, freed with chime__mysql_admin_free.
 */
int chime__mysql_admin_open(const char *url, const char *extra,
                            const char *sched, const char *instance_id,
                            chime__mysql_admin **ret, char *errbuf,
                            size_t errbuf_len);

/* Closes the store (its nodes row goes too); a may be NULL. */
void chime__mysql_admin_free(chime__mysql_admin *a);

/* The check-in interval of an operator's store's nodes row: long, so that
 * a tool that checks in on its own timer is never late. */
#define CHIME__MYSQL_ADMIN_CHECKIN_MS 10000

/* The database's clock now, in epoch milliseconds. */
int64_t chime__mysql_admin_now(chime__mysql_admin *a);

/*
 * chime__mysql_admin_node_live_sql: the store's liveness rule as an SQL
 * condition on a nodes row aliased n: true while the node's lease
 * (jobstore/store.h: CHIME__LEASE_FACTOR check-in intervals, no grace)
 * has not run out by the database's clock.  The store judges nodes dead by
 * the same text.  Borrowed, static.
 */
const char *chime__mysql_admin_node_live_sql(void);

/* -------------------------------------------------- operator actions */

/* chime__mysql_admin_interrupt: asks the running fires of job (group,
 * name), or the one fire fire_id (> 0; group and name NULL), to stop, on
 * whichever node runs them (chime_scheduler_interrupt's store step: the
 * node notices at its next check-in).  *ret_count: how many were asked.
 * Returns: 0; CHIME_EINVAL; the store's errors. */
int chime__mysql_admin_interrupt(chime__mysql_admin *a, const char *group,
                                 const char *name, int64_t fire_id,
                                 size_t *ret_count);

/* Stores job (replacing one of its key) and, when trigger is not NULL,
 * trigger (replacing one of its key), as the scheduler would: for test
 * helpers that fill a schema.  Returns: 0; the store's errors. */
int chime__mysql_admin_schedule(chime__mysql_admin *a, const chime_job *job,
                                const chime_trigger *trigger, char *errbuf,
                                size_t errbuf_len);

/* -------------------------------------------------- audit and drains */

/*
 * chime__mysql_admin_repair: fixes one stuck state that `chimectl repair`
 * found, in one transaction that checks again, under the rows' locks, that
 * it is still stuck, fixes it with the store's own step and records it in
 * the audit table as who from origin (jobstore/mysql/repair.c says each
 * fix): BLOCKED names the job (group, name), LOST the fire (fire_id) and
 * the live node that has no run of it, ERROR and ORPHAN the trigger.
 * *ret_fixed: whether it was still stuck and is fixed now.
 * Returns: 0; CHIME_EINVAL; the store's errors, errbuf says why.
 */
typedef enum chime__mysql_repair_kind {
  CHIME__REPAIR_BLOCKED, /* a FORBID job's triggers blocked with no run */
  CHIME__REPAIR_LOST,    /* a fire EXECUTING on a live node without a run */
  CHIME__REPAIR_ERROR,   /* a trigger in ERROR */
  CHIME__REPAIR_ORPHAN,  /* a shard, retry or recovery trigger orphaned */
  CHIME__REPAIR_LEASE    /* a lease held by a node that is gone (name) */
} chime__mysql_repair_kind;
int chime__mysql_admin_repair(chime__mysql_admin *a,
                              chime__mysql_repair_kind kind, const char *group,
                              const char *name, int64_t fire_id,
                              const char *node, const char *who,
                              const char *origin, bool *ret_fixed, char *errbuf,
                              size_t errbuf_len);

#endif /* CHIME_JOBSTORE_MYSQL_ADMIN_H */
