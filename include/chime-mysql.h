/*
 * chime-mysql.h: exactly-once effects for jobs whose effects live in the
 * scheduler's own MySQL/MariaDB database, and (at the end, chime_mysql_url)
 * a program's own connections from a store URL.  Optional: include it only
 * where the MySQL client's types are welcome; chime.h never includes
 * <mysql.h>.
 *
 * A job begins a transaction on its fire, runs its own statements in it
 * and commits: the commit writes the fire's completion (the same steps the
 * scheduler takes after the job returns: the fired row goes (for a
 * one-shot's run, the trigger row that kept it), a FORBID job
 * is unblocked, a finished trigger removed, history and job data written)
 * and the job's statements together, so either both are written or
 * neither is.  A node that lost the fire to a recovery (it was paused past
 * its lease) is refused at begin or at commit, and then nothing of its work
 * commits: the recovered run on another node is the one that counts.
 *
 *   static void settle(chime_ctx *ctx, void *user_data) {
 *     chime_mysql_tx *tx = NULL;
 *     if (chime_mysql_tx_begin(ctx, &tx) < 0)
 *       return;                                 (not ours any more)
 *     const char *p[] = {"2026-12-01"};
 *     if (chime_mysql_tx_execute(tx, "UPDATE bills SET settled = 1 "
 *                                "WHERE day = ?", p, 1, NULL) < 0) {
 *       chime_ctx_fail(ctx, chime_mysql_tx_errmsg(tx));
 *       chime_mysql_tx_rollback(tx);
 *       return;
 *     }
 *     chime_mysql_tx_commit(tx);                (CHIME_ENOTOWNER: fenced)
 *   }
 *
 * After a successful commit the fire is complete: the scheduler does not
 * complete it again when the job returns (listeners still run), and what
 * the job does afterwards (chime_ctx_fail, chime_ctx_set_job_data) is not
 * recorded.  A job that returns with its transaction still open has it
 * rolled back, and its fire completes as usual.  docs/cluster.md compares
 * this with the other two levels of guarantee.
 *
 * A job whose work is writes alone (no reads whose answer it needs during
 * the run) gives them to its fire's completion instead, and no transaction
 * is its own:
 *
 *   static void settle(chime_ctx *ctx, void *user_data) {
 *     const char *p[] = {"2026-12-01"};
 *     chime_ctx_complete_with(ctx, "UPDATE bills SET settled = 1 "
 *                               "WHERE day = ?", p, 1);
 *   }
 *
 * The statement runs when the fire completes, in the transaction that
 * completes it: under load one transaction and one COMMIT complete many
 * fires of the node together, each with its job's statements, which makes
 * this the cheapest way to write anything from a job, and still both or
 * neither (chime_ctx_complete_with says what a refused statement does).
 */
#ifndef CHIME_MYSQL_H
#define CHIME_MYSQL_H

#include "chime.h"

#include <mysql.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A fire's completion transaction. */
typedef struct chime_mysql_tx chime_mysql_tx;

/*
 * chime_mysql_tx_begin: begins the transaction that will complete the
 * running fire of ctx: takes one of the store's connections, locks the
 * fire's row and checks that it is still executing on this node.  A job
 * has at most one such transaction at a time, and none after a commit.
 * Returns: 0; CHIME_EINVAL (NULL argument, or ctx is not a job's run);
 * CHIME_EUNSUPPORTED (the store is not MySQL/MariaDB); CHIME_ENOTOWNER (the
 * fire was taken over by another node); CHIME_ESTATE (a transaction is
 * open already, or the fire was completed by one); CHIME_ECONNECT,
 * CHIME_EBUSY, CHIME_ESTORE (the database; chime_mysql_tx_errmsg says
 * more when *ret_tx was set).
 * Ownership: *ret_tx belongs to the run: it stays valid (for
 * chime_mysql_tx_errmsg) until the job function returns, and is freed by
 * the scheduler.  On failure *ret_tx is NULL unless the message is worth
 * reading.
 * Thread: the job's worker thread, during the job function.
 */
CHIME_EXTERN int chime_mysql_tx_begin(chime_ctx *ctx, chime_mysql_tx **ret_tx);

/*
 * chime_mysql_tx_get_conn: the transaction's connection, for the job's own
 * statements with the MySQL client API.  Autocommit is off and a
 * transaction is open: never COMMIT, ROLLBACK, change the session's
 * settings or close it; read every result before the next call on tx.
 * Returns: the connection; NULL when tx is NULL or not open.
 * Ownership: borrowed from the scheduler until chime_mysql_tx_commit or
 * chime_mysql_tx_rollback.
 * Thread: the job's worker thread.
 */
CHIME_EXTERN MYSQL *chime_mysql_tx_get_conn(chime_mysql_tx *tx);

/*
 * chime_mysql_tx_execute: runs one SQL statement in the transaction, with
 * params[0 .. nparams) bound to its ? placeholders as text (a NULL
 * parameter is SQL NULL; the server converts text to the column's type).
 * A result set, if any, is read and discarded.  A failed statement dooms
 * the transaction: chime_mysql_tx_commit then rolls it back.
 * *ret_affected (may be NULL) receives the affected rows (for a statement
 * with a result set, the number of its rows).
 * Returns: 0; CHIME_EINVAL (NULL tx or sql, params NULL with nparams > 0,
 * or nparams not the statement's number of placeholders); CHIME_ESTATE (tx
 * not open, or called off the job's thread or after it returned);
 * CHIME_EEXISTS (a duplicate key); CHIME_EBUSY (a deadlock or
 * lock-wait timeout); CHIME_ECONNECT; CHIME_ESTORE (any other server
 * error).  chime_mysql_tx_errmsg says what went wrong.
 * Ownership: sql and params are only read.
 * Thread: the job's worker thread.
 */
CHIME_EXTERN int chime_mysql_tx_execute(chime_mysql_tx *tx, const char *sql,
                                        const char *const *params,
                                        size_t nparams, uint64_t *ret_affected);

/*
 * chime_mysql_tx_commit: completes the fire (with the job data set so far
 * and the failure recorded so far, if any) and commits the job's
 * statements with it, in one COMMIT.  Ends the transaction either way.
 * Returns: 0 (both are written; the fire is complete); CHIME_EINVAL (NULL);
 * CHIME_ENOTOWNER (the fire was taken over: nothing was written);
 * CHIME_ESTATE (not open, called off the job's thread or after it
 * returned, or a statement had failed: then rolled back); CHIME_ECONNECT (the
 * connection was lost: rolled back, unless the reply of a COMMIT the server
 * carried out was lost, in which case the fire's completion and the work are
 * both written); CHIME_EBUSY, CHIME_ESTORE (rolled back). Ownership: the
 * connection goes back to the scheduler; tx stays readable until the job
 * returns. Thread: the job's worker thread.
 */
CHIME_EXTERN int chime_mysql_tx_commit(chime_mysql_tx *tx);

/*
 * chime_mysql_tx_enqueue: chime_scheduler_enqueue inside the transaction:
 * the run of job (group, name) with opts (NULL: defaults) is stored when
 * the transaction commits, together with the job's statements and its
 * fire's completion, or not at all (durable chaining: "do X, then Y"
 * survives any node's death between the two; docs/queue.md).  A unique
 * key whose run waits or runs makes it store nothing and return
 * CHIME_ENQUEUE_EXISTED; ret_run (may be NULL; run_len bytes) receives the
 * run's name in CHIME_QUEUE_GROUP either way.  A failure dooms the
 * transaction as a failed statement does (but CHIME_ELIMIT: ret_run too
 * short, the run is enqueued all the same).
 * Returns: 0 (enqueued); CHIME_ENQUEUE_EXISTED; CHIME_EINVAL (NULL tx,
 * an invalid key, run_len 0 with ret_run); CHIME_ESTATE (tx not open, off
 * the job's thread or after it returned); CHIME_ENOTFOUND (no such job);
 * CHIME_ELIMIT; CHIME_EBUSY, CHIME_ECONNECT, CHIME_ESTORE (the database).
 * chime_mysql_tx_errmsg says what went wrong.
 * Ownership: opts is read for the call; ret_run is the caller's.
 * Thread: the job's worker thread.
 */
CHIME_EXTERN int chime_mysql_tx_enqueue(chime_mysql_tx *tx, const char *group,
                                        const char *name,
                                        const chime_enqueue *opts,
                                        char *ret_run, size_t run_len);

/*
 * chime_mysql_tx_rollback: rolls back the job's statements; the fire is
 * not completed (the scheduler completes it when the job returns, as for
 * any job) and a new transaction may begin.
 * Returns: 0; CHIME_EINVAL (NULL); CHIME_ESTATE (not open, or called off
 * the job's thread or after it returned).
 * Ownership: the connection goes back to the scheduler.
 * Thread: the job's worker thread.
 */
CHIME_EXTERN int chime_mysql_tx_rollback(chime_mysql_tx *tx);

/*
 * chime_mysql_tx_errmsg: what the last failed call on tx said ("" when
 * none failed).
 * Returns: a string, never NULL ("" for a NULL tx).
 * Ownership: tx's, valid until its next call or the job's return.
 * Thread: the job's worker thread.
 */
CHIME_EXTERN const char *chime_mysql_tx_errmsg(const chime_mysql_tx *tx);

/*
 * chime_ctx_complete_with: gives one SQL statement to the completion of
 * ctx's running fire.  It runs, with params[0 .. nparams) bound to its ?
 * placeholders as text (a NULL parameter is SQL NULL; the server converts
 * text to the column's type), in the transaction that completes the fire,
 * after the job returned: its writes commit with the completion, or not
 * at all.  Several calls give several statements, run in the order given.
 * The node completes the fires that end at about the same time in one
 * transaction (one COMMIT for the lot), so many fires' statements share
 * it; a fire taken over by another node meanwhile writes none of them
 * (fencing: the other node's run writes its own).  When the job also
 * commits a chime_mysql_tx, they run in that transaction, before the
 * completion's own steps.  A statement must leave the transaction and the
 * session as they are: no COMMIT, ROLLBACK, SET or statement that commits
 * implicitly (CREATE, ALTER, DROP, TRUNCATE, LOCK TABLES: MySQL's list),
 * which would commit other fires' completions half-written.
 * A statement the server refuses (a duplicate key, a syntax error, a
 * wrong number of parameters: anything but a deadlock or a lost
 * connection, which are retried with the whole completion) writes none
 * of the run's statements: the run is recorded failed
 * (CHIME_EJOBFAILED, the history's message says which statement error),
 * and retried as its job's retry policy says.  The listeners and metrics
 * see the job's own verdict, given when it returned, before the
 * statements ran.
 * Returns: 0 (given); CHIME_EINVAL (NULL ctx or sql, params NULL with
 * nparams > 0, or ctx is not a job's run, or called after the job
 * returned); CHIME_EUNSUPPORTED (the store is not MySQL/MariaDB);
 * CHIME_ESTATE (a chime_mysql_tx of the run committed: the fire is
 * complete already); CHIME_ENOMEM.
 * Ownership: sql and params are copied.
 * Thread: the job's worker thread, during the job function.
 */
CHIME_EXTERN int chime_ctx_complete_with(chime_ctx *ctx, const char *sql,
                                         const char *const *params,
                                         size_t nparams);

/* ------------------------------------ a program's own plain connection */

/*
 * A store URL (chime_config_set_store_url's form, docs/man/chime-store.7),
 * read by the store's own parser, for a program that keeps tables of its
 * own beside a scheduler's (a benchmark's results, a tool's reports): its
 * connections go where the scheduler's go, as the scheduler's are opened.
 */
typedef struct chime_mysql_url chime_mysql_url;

/* The longest table prefix a store URL may name (?prefix=). */
#define CHIME_MYSQL_MAX_PREFIX_LEN 32

/*
 * chime_mysql_url_new: reads store URL text: its members, user, password,
 * database, socket, table prefix and io_timeout_s are checked now; the
 * store's other parameters are left to the store.
 * Returns: 0; CHIME_EINVAL (NULL text or ret_url); CHIME_EURL (malformed:
 * not mysql://, a bad host, port, prefix or io_timeout_s, or too long);
 * CHIME_ENOMEM.  errbuf (may be NULL) says why, the password never shown.
 * Ownership: text is copied; *ret_url is the caller's, freed with
 * chime_mysql_url_free(); NULL on failure.
 * Thread: any.
 */
CHIME_EXTERN int chime_mysql_url_new(const char *text,
                                     chime_mysql_url **ret_url, char *errbuf,
                                     size_t errbuf_len);

/*
 * chime_mysql_url_connect: opens a plain connection to the URL's server and
 * database as the store opens its own: the members of a multi-host URL
 * tried in turn, the socket, utf8mb4, autocommit, no automatic reconnect,
 * a 5 s connect timeout, and read and write timeouts of the URL's
 * io_timeout_s (0 to 3600; by default none with one host, 10 s with
 * several).  Nothing of the store's schema is read or created.
 * Returns: 0; CHIME_EINVAL (NULL url or ret_db); CHIME_ECONNECT (no member
 * answered); CHIME_EAUTH (access denied); CHIME_ENOTFOUND (no such
 * database); CHIME_ENOMEM.  errbuf (may be NULL) says why, the password
 * never shown.
 * Ownership: *ret_db is the caller's, closed with mysql_close(); NULL on
 * failure.  url is only read.
 * Thread: any; several threads may connect from one url at once (it is
 * only read); a connection is used by one thread at a time.
 */
CHIME_EXTERN int chime_mysql_url_connect(chime_mysql_url *url, MYSQL **ret_db,
                                         char *errbuf, size_t errbuf_len);

/*
 * chime_mysql_url_get_prefix: the URL's table prefix (?prefix=, "chime_"
 * by default; at most CHIME_MYSQL_MAX_PREFIX_LEN bytes), the start of
 * every table name the store uses.
 * Returns: the prefix; "" for a NULL url.
 * Ownership: borrowed from url until chime_mysql_url_free.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_mysql_url_get_prefix(const chime_mysql_url *url);

/*
 * chime_mysql_url_free: frees url (NULL: nothing).  Connections opened
 * from it stay open.
 * Returns: nothing.
 * Ownership: url is gone.
 * Thread: any, once no other call uses url.
 */
CHIME_EXTERN void chime_mysql_url_free(chime_mysql_url *url);

#ifdef __cplusplus
}
#endif

#endif /* CHIME_MYSQL_H */
