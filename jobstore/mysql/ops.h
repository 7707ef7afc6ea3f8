/*
 * ops.h: the MySQL store's operations (jobstore/store.h's ops table),
 * each implemented in the file that owns its part of the protocol and
 * assembled by store.c; and the store's node identity (node.c).  The
 * contracts are store.h's; every op runs its own transactions (tx.h).
 * Thread: any, as store.h says.
 */
#ifndef CHIME_JOBSTORE_MYSQL_OPS_H
#define CHIME_JOBSTORE_MYSQL_OPS_H

#include "jobstore/mysql/tx.h"
#include "jobstore/store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* defs.c: jobs and triggers (get, remove, lists, status). */
int chime__mysql_job_add(chime_store *store, const chime_job *job,
                         bool replace);
int chime__mysql_job_remove(chime_store *store, const char *group,
                            const char *name);
int chime__mysql_job_get(chime_store *store, const char *group,
                         const char *name, chime_job **ret_job);
int chime__mysql_job_list(chime_store *store, chime_match match,
                          const char *pattern, chime_key **ret_keys,
                          size_t *ret_count);
int chime__mysql_trigger_remove(chime_store *store, const char *group,
                                const char *name);
int chime__mysql_trigger_get(chime_store *store, const char *group,
                             const char *name, chime_trigger **ret_trigger);
int chime__mysql_trigger_list(chime_store *store, chime_match match,
                              const char *pattern, chime_key **ret_keys,
                              size_t *ret_count);
int chime__mysql_trigger_list_for_job(chime_store *store, const char *job_group,
                                      const char *job_name,
                                      chime_key **ret_keys, size_t *ret_count);
int chime__mysql_trigger_status(chime_store *store, const char *group,
                                const char *name,
                                chime_trigger_status *ret_status);

/* trig.c: adding and replacing triggers. */
int chime__mysql_trigger_add(chime_store *store, const chime_job *job,
                             const chime_trigger *trigger, bool replace,
                             int64_t *ret_first_fire_ms, char *errbuf,
                             size_t errbuf_len);
int chime__mysql_trigger_replace(chime_store *store, const char *group,
                                 const char *name, const chime_trigger *trigger,
                                 int64_t *ret_first_fire_ms, char *errbuf,
                                 size_t errbuf_len);

/* zones.c: reloaded zone rules. */
int chime__mysql_recompute_zones(chime_store *store, const char *const *zones,
                                 size_t count, size_t max,
                                 chime_zones_cursor **cursor,
                                 size_t *ret_recomputed);

/* calendar.c: calendars. */
int chime__mysql_calendar_add(chime_store *store, const char *name,
                              const chime_calendar *calendar, bool replace,
                              bool update_triggers);
int chime__mysql_calendar_remove(chime_store *store, const char *name);
int chime__mysql_calendar_get(chime_store *store, const char *name,
                              chime_calendar **ret_calendar);

/* pause.c: pausing and resuming. */
int chime__mysql_pause_trigger(chime_store *store, const char *group,
                               const char *name);
int chime__mysql_resume_trigger(chime_store *store, const char *group,
                                const char *name);
int chime__mysql_pause_job(chime_store *store, const char *group,
                           const char *name);
int chime__mysql_resume_job(chime_store *store, const char *group,
                            const char *name);
int chime__mysql_pause_group(chime_store *store, chime_match match,
                             const char *pattern);
int chime__mysql_resume_group(chime_store *store, chime_match match,
                              const char *pattern);
int chime__mysql_pause_all(chime_store *store);
int chime__mysql_resume_all(chime_store *store);

/* acquire.c: claiming and releasing. */
int chime__mysql_acquire(chime_store *store, int64_t now_ms,
                         int64_t no_later_than_ms, size_t max,
                         const chime_type_set *types, chime_fire ***ret_fires,
                         size_t *ret_count);
int chime__mysql_acquire_due(chime_store *store, int64_t now_ms,
                             int64_t no_later_than_ms, size_t max,
                             const chime_type_set *types,
                             chime_fire ***ret_fires, size_t *ret_count);
int chime__mysql_release(chime_store *store, chime_fire **fires, size_t count);

/* chime__mysql_trigger_start_state: the state a new trigger t (prepared)
 * starts in, following its job's pause and block and the paused groups,
 * as trigger_add's (the job row locked); *ret_job whether its job exists.
 * Returns: 0; a statement's error.  Thread: tx's. */
int chime__mysql_trigger_start_state(chime__mysql_tx *tx,
                                     const chime_trigger *t, bool *ret_job,
                                     chime_store_state *ret_state);

/* fire.c, complete.c. */
int chime__mysql_fire(chime_store *store, chime_fire **fires, size_t count,
                      int64_t now_ms);
int chime__mysql_complete(chime_store *store, const chime_fire *fire,
                          const chime_run_result *outcome);
void chime__mysql_complete_many(chime_store *store,
                                const chime_fire *const *fires,
                                const chime_run_result *const *outcomes,
                                size_t count, int *ret_results);
/* complete.c: complete's steps for one fire inside the caller's
 * transaction tx (the job's own, fire_tx.c), without committing.  A
 * sharded fire its shard's completion ended is noted in ended (shards.h),
 * for the caller to tell after its COMMIT (chime__mysql_shards_tell).
 * Returns: 0; CHIME_ENOTOWNER (nothing written); a statement's error. */
struct chime__mysql_shards_done;
int chime__mysql_complete_in(chime__mysql_tx *tx, const chime_fire *fire,
                             const chime_run_result *outcome,
                             struct chime__mysql_shards_done *ended);

/* job_stmt.c: a job's own statement (chime-mysql.h), prepared on tx's
 * connection with params bound as text (NULL: SQL NULL).  js keeps the
 * last statement prepared (its sql borrowed): a run with the same text
 * executes it again.  A js serves one attempt of one transaction (one
 * connection); chime__mysql_job_stmt_close frees it (a zeroed js is
 * empty).  Returns: 0; CHIME_EINVAL (not
 * nparams placeholders); CHIME_ENOMEM; the server's error
 * (chime__mysql_fail: tx->errbuf says it).  *ret_affected (may be NULL):
 * the affected rows, or a result set's rows (read and dropped). */
typedef struct chime__mysql_job_stmt {
  MYSQL_STMT *st;
  const char *sql;
} chime__mysql_job_stmt;
int chime__mysql_job_stmt_run(chime__mysql_tx *tx, chime__mysql_job_stmt *js,
                              const char *sql, const char *const *params,
                              size_t nparams, uint64_t *ret_affected);
/* The same statement for nrows (> 0) rows of nparams parameters each,
 * rows[i][p], executed as one where the server can (MariaDB's bulk
 * execution, for a statement without a result set): all or none. */
int chime__mysql_job_stmt_run_many(chime__mysql_tx *tx,
                                   chime__mysql_job_stmt *js, const char *sql,
                                   const char *const *const *rows, size_t nrows,
                                   size_t nparams, uint64_t *ret_affected);
void chime__mysql_job_stmt_close(chime__mysql_job_stmt *js);

/* fire_tx.c: transactional completion (store.h's fire_tx_*). */
int chime__mysql_fire_tx_begin(chime_store *store, const chime_fire *fire,
                               chime_store_tx **ret_tx, char *errbuf,
                               size_t errbuf_len);
void *chime__mysql_fire_tx_handle(chime_store_tx *tx);
int chime__mysql_fire_tx_execute(chime_store_tx *tx, const char *sql,
                                 const char *const *params, size_t nparams,
                                 uint64_t *ret_affected, char *errbuf,
                                 size_t errbuf_len);
int chime__mysql_fire_tx_commit(chime_store_tx *tx,
                                const chime_run_result *outcome, char *errbuf,
                                size_t errbuf_len);
void chime__mysql_fire_tx_rollback(chime_store_tx *tx);

/* Enqueued runs (enqueue.c): store.h's trigger_add_many and
 * fire_tx_enqueue.  chime__mysql_add_many_in does the work inside tx. */
int chime__mysql_trigger_add_many(chime_store *store, chime_trigger *const *ts,
                                  size_t count, bool *ret_existed, char *errbuf,
                                  size_t errbuf_len);
int chime__mysql_fire_tx_enqueue(chime_store_tx *tx, chime_trigger *const *ts,
                                 size_t count, bool *ret_existed, char *errbuf,
                                 size_t errbuf_len);
int chime__mysql_add_many_in(chime__mysql_tx *tx, chime_trigger *const *ts,
                             size_t count, bool *ret_existed);

/* chime__mysql_trigger_add_facts: what adding t needs of its job: the job
 * (locked; *ret_job NULL when it does not exist, else the caller's) and
 * the state t starts in (t prepared), as trigger_add's.  Thread: tx's. */
int chime__mysql_trigger_add_facts(chime__mysql_tx *tx, const chime_trigger *t,
                                   chime_job **ret_job,
                                   chime_store_state *ret_state);

/* maint.c: still_owned, next_due, misfires, check-in. */
int chime__mysql_still_owned(chime_store *store, const chime_fire *fire,
                             bool *ret_owned);
int chime__mysql_next_due(chime_store *store, const chime_type_set *types,
                          int64_t after_ms, int64_t *ret_ms);
int chime__mysql_scan_misfires(chime_store *store, int64_t now_ms, size_t max,
                               chime_misfire_fn on_misfire, void *user_data,
                               size_t *ret_handled, bool *ret_more);
int chime__mysql_checkin(chime_store *store, int64_t now_ms,
                         int64_t *ret_recover_in_ms);
int64_t chime__mysql_checkin_next_due(chime_store *store);

/* skip.c: drops and records (SKIPPED) the fire times a FORBID_SKIP job's
 * triggers missed while its run went on, after its triggers were unblocked
 * in tx; nothing for a job of another policy.  Returns: 0; errors. */
int chime__mysql_skip_missed(chime__mysql_tx *tx, const char *group,
                             const char *name, int64_t now);

/* interrupt.c: cancellation (store.h's interrupt, interrupted). */
int chime__mysql_interrupt(chime_store *store, const char *group,
                           const char *name, int64_t fire_id,
                           size_t *ret_count);
int chime__mysql_interrupted(chime_store *store, int64_t **ret_ids,
                             size_t *ret_count);

/* tx.c: chime__mysql_session_register records db's connection id as
 * one of this node's sessions (best effort: a failure is logged; autocommit
 * says whether db commits by itself).  sessions.c:
 * chime__mysql_sessions_end KILLs the
 * live sessions of dead node node, so that its open transactions release
 * their locks before its recovery.  Returns: 0; a transaction error. */
void chime__mysql_session_register(chime__mysql_store *s, MYSQL *db,
                                   bool autocommit);
int chime__mysql_sessions_end(chime__mysql_store *s, const char *node);
/* sessions.c: KILLs session conn_id of the server from tx's connection.
 * Returns: 0; 1 when the session was gone already (nothing to end); the
 * transaction's error (recorded in tx). */
int chime__mysql_kill(chime__mysql_tx *tx, int64_t conn_id);

/* recover.c: recovery of dead nodes. */
int chime__mysql_recover_dead_nodes(chime_store *store, int64_t now_ms,
                                    size_t *ret_recovered);
/* Recovers the fires a dead earlier run of this very instance id left
 * (the fired rows of this node), as a survivor would, in tx: called when
 * the id is claimed with no live node holding it.  Sets *ret_fires to how
 * many there were. */
int chime__mysql_hand_over(chime_store *store, int64_t budget_ms,
                           chime_recovery_fn each, void *user_data,
                           size_t *ret_handed);
int chime__mysql_recover_own(chime__mysql_tx *tx, size_t *ret_fires);
/* Ends EXECUTING fired row i of fr (locked) whose live node has no run of
 * it, as a dead node's fire is ended (run again when its job requests
 * recovery, else FAILED): chimectl repair's fix (repair.c). */
int chime__mysql_recover_forgotten(chime__mysql_tx *tx,
                                   const chime__mysql_rows *fr, size_t i);
/* store.h's release_fired: fires of this node's local queue that never
 * started, run again elsewhere (recover.c). */
int chime__mysql_release_fired(chime_store *store, chime_fire *const *fires,
                               size_t count, size_t *ret_released);
/* hand_over without leaving the cluster: a draining node past its
 * timeout (drain.c, store.h's drain_hand_over). */
int chime__mysql_drain_hand_over(chime_store *store, int64_t budget_ms,
                                 chime_recovery_fn each, void *user_data,
                                 size_t *ret_handed);

/* drain.c: drain requests (store.h's drain_* ops).  drain_read, in the
 * check-in's transaction: this node's state (chime_node_state) and
 * whether its timeout passed. */
int chime__mysql_drain_set(chime_store *store, const char *node, bool drain,
                           int64_t timeout_ms, const char *who,
                           const char *origin);
int chime__mysql_drain_get(chime_store *store, const char *node,
                           int *ret_state);
int chime__mysql_checkin_drain(chime_store *store, bool *ret_overdue);
int chime__mysql_drain_report(chime_store *store, size_t handed);
/* This node's drain request from the check-in's row (nodes_lease.sql):
 * its state in column col (NULL: none, CHIME_NODE_ACTIVE), whether its
 * timeout ran out in col + 1. */
void chime__mysql_drain_of_row(const chime__mysql_rows *rows, size_t col,
                               int *ret_state, bool *ret_overdue);

/* held.c: the fires this node holds EXECUTING, reported at check-in
 * (nodes.held_ids): added once committed, dropped once done with; text:
 * "id,id,..." (malloc'd; NULL: no memory).  forget: store.h's op. */
void chime__mysql_held_add(chime__mysql_store *s, int64_t id);
void chime__mysql_held_drop(chime__mysql_store *s, int64_t id);
void chime__mysql_held_clear(chime__mysql_store *s);
char *chime__mysql_held_text(chime__mysql_store *s);
int chime__mysql_forget(chime_store *store, int64_t fire_id);

/* admin.c: the store of an operator's store (repair.c). */
struct chime__mysql_admin;
chime__mysql_store *chime__mysql_admin_store(struct chime__mysql_admin *a);

/* audit.c: records an operator's action (who, from origin, action on
 * target, details may be NULL) in tx, at the database's now.  Texts too
 * long for their columns are cut.  Returns: 0; the statement's error. */
int chime__mysql_audit_tx(chime__mysql_tx *tx, const char *who,
                          const char *origin, const char *action,
                          const char *target, const char *details);
/* The same in a transaction of its own (store.h's audit_add).  Returns:
 * 0; CHIME_EINVAL (no action); the store's errors, errbuf says why. */
int chime__mysql_audit_add(chime_store *store, const char *who,
                           const char *origin, const char *action,
                           const char *target, const char *details,
                           char *errbuf, size_t errbuf_len);

/* node.c: chime__mysql_node_claim claims this store's instance id in the
 * nodes table.  Returns: 0; CHIME_EDUPNODE (a live node of another process
 * has it, errbuf says which); a transaction error. */
int chime__mysql_node_claim(chime__mysql_store *s, char *errbuf,
                            size_t errbuf_len);
/* Stamps this node's check-in time (the database's now) and the fires
 * it holds (held.c, read after the clock: now_ms) in tx, only on a
 * row that still names this process; puts the row back when a survivor
 * removed it (this node was found dead).  Returns: 0; CHIME_EDUPNODE
 * (another process holds the id now: logged at ERROR once, and this store
 * must claim nothing until a check-in succeeds again); a statement's
 * error. */
int chime__mysql_node_checkin(chime__mysql_tx *tx, int64_t now_ms);
/* Removes this node's row when it holds no fires (a clean close);
 * failures are logged. */
void chime__mysql_node_leave(chime__mysql_store *s);
/* The same step inside tx (the hand-over of a stopping node, recover.c):
 * removes this process's row of its id when it holds no fires. */
int chime__mysql_node_leave_tx(chime__mysql_tx *tx);
/* This machine's name (len bytes, NUL-terminated), or "unknown". */
void chime__mysql_host_name(char *buf, size_t len);

/* retain.c: keeping the growing tables bounded.  retain_step runs one
 * step (a batch of history deletions; the sweep of the other tables when
 * sweep is set or it is due) unless another thread runs one (CHIME_EBUSY);
 * *ret_deleted (may be NULL) counts the rows deleted.  after_complete: the
 * completing thread's step, when due; checkin: an idle node's step, when
 * no completion stepped lately (both log their failures).  Returns: 0; a
 * transaction's error.  Thread: any. */
int chime__mysql_retain_step(chime__mysql_store *s, bool sweep,
                             size_t *ret_deleted);
void chime__mysql_retain_after_complete(chime__mysql_store *s);
void chime__mysql_retain_checkin(chime__mysql_store *s);

/* lease.c: named leases (store.h's lease_*). */
int chime__mysql_lease_acquire(chime_store *store, const char *name,
                               int64_t at_most_ms, int64_t at_least_ms,
                               chime_lease_info *ret);
int chime__mysql_lease_extend(chime_store *store, const char *name,
                              int64_t token, int64_t at_most_ms,
                              int64_t *ret_expires_ms);
int chime__mysql_lease_release(chime_store *store, const char *name,
                               int64_t token);
int chime__mysql_lease_held(chime_store *store, const char *name, int64_t token,
                            bool *ret_held);
/* An operator's release of lease name (store.h's lease_end): it ends now,
 * whoever holds it.  Returns: 0; CHIME_ENOTFOUND (not held); the store's
 * errors. */
int chime__mysql_lease_end(chime_store *store, const char *name);

/* history.c */
int chime__mysql_history_list(chime_store *store, const chime_history_filter *f,
                              chime_history_entry **ret_entries,
                              size_t *ret_count);
/* The operators' lists (admin_list.c; store.h's admin_list). */
int chime__mysql_admin_list(chime_store *store, const chime_admin_query *q,
                            bool hide_self, chime_admin_table *t, char *errbuf,
                            size_t errbuf_len);
/* CHIME_ADMIN_STUCK (admin_repair.c) and its fixes (repair.c; store.h's
 * admin_repair). */
int chime__mysql_admin_stuck(chime_store *store, const chime_admin_query *q,
                             chime_admin_table *t, char *errbuf,
                             size_t errbuf_len);
int chime__mysql_repair(chime_store *store, const char *kind, const char *group,
                        const char *name, int64_t fire_id, const char *node,
                        const char *who, const char *origin, bool *ret_fixed,
                        char *errbuf, size_t errbuf_len);
/* Its lists of the cluster's figures, group pauses and activity
 * (admin_stats.c): CHIME_ADMIN_RUN_COUNTS to CHIME_ADMIN_EVENTS. */
int chime__mysql_admin_stats(chime_store *store, const chime_admin_query *q,
                             bool hide_self, chime_admin_table *t, char *errbuf,
                             size_t errbuf_len);

#endif /* CHIME_JOBSTORE_MYSQL_OPS_H */
