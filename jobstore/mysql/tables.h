/*
 * tables.h: the small reads and writes of single rows that several of the
 * MySQL store's operations share (tables.c): loading a job, trigger or
 * calendar, writing a job, a trigger's fire state, deleting a trigger and
 * the job it leaves behind, unblocking a FORBID job, and ending a fired
 * row.  Each runs inside the caller's transaction (tx.h) and locks what
 * it is told to; none retries or commits.
 */
#ifndef CHIME_JOBSTORE_MYSQL_TABLES_H
#define CHIME_JOBSTORE_MYSQL_TABLES_H

#include "jobstore/mysql/tx.h"

#include <stdbool.h>
#include <stdint.h>

/* The arguments (scheduler, group, name) of a job or trigger key. */
void chime__mysql_key_args(const chime__mysql_tx *tx, const char *group,
                           const char *name, chime__mysql_arg a[3]);

/* Runs query id on the arguments of key (group, name); *ret says whether
 * it returned a row (locking it when the statement locks). */
int chime__mysql_key_has_row(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                             const char *group, const char *name, bool *ret);

/* Loads job (group, name), its row locked when lock; *ret_paused may be
 * NULL.  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__mysql_job_load(chime__mysql_tx *tx, const char *group,
                          const char *name, bool lock, chime_job **ret,
                          bool *ret_paused);

/* Inserts (exists false) or updates a job row; an update also sets the
 * job type its triggers carry. */
int chime__mysql_job_write(chime__mysql_tx *tx, const chime_job *job,
                           bool exists);

/* Removes a non-durable job left without triggers (its row locked). */
int chime__mysql_job_gc(chime__mysql_tx *tx, const char *job_group,
                        const char *job_name);

/* chime__mysql_job_block: a FORBID job's WAITING (PAUSED) triggers become
 * BLOCKED (PAUSED_BLOCKED) while one of its fires executes.
 * chime__mysql_job_unblock: back, when none of its fires executes.  Both
 * pass over the rows another session holds (SKIP LOCKED) rather than wait
 * for them: a held row left BLOCKED is logged at WARN and unblocked by
 * chime__mysql_unblock_orphans (the misfire scan) once it is free. */
int chime__mysql_job_block(chime__mysql_tx *tx, const char *group,
                           const char *name);
int chime__mysql_job_unblock(chime__mysql_tx *tx, const char *group,
                             const char *name);
/* Unblocks the triggers of up to max jobs that are BLOCKED with no fire of
 * their job executing (their rows were held when the run ended);
 * *ret_found: how many such jobs there were. */
int chime__mysql_unblock_orphans(chime__mysql_tx *tx, size_t max,
                                 size_t *ret_found);

/* chime__mysql_calendar_read: loads calendar name (*ret NULL when name is
 * NULL) without locking its row, for the claims, fires, misfire scans and
 * completions, whose triggers' rows are locked: a calendar row another
 * session holds must not hold them up, and a change of the calendar
 * (calendar.c) locks those triggers' rows, so it waits for them and
 * recomputes their fire times after.  Returns: 0; CHIME_ENOTFOUND;
 * errors. */
int chime__mysql_calendar_read(chime__mysql_tx *tx, const char *name,
                               chime_calendar **ret);
/* Loads calendar name (*ret NULL when name is NULL), its row locked when
 * lock, shared otherwise.  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__mysql_calendar_load(chime__mysql_tx *tx, const char *name, bool lock,
                               chime_calendar **ret);

/* Loads trigger (group, name), locked when lock; *ret NULL when absent. */
int chime__mysql_trigger_load(chime__mysql_tx *tx, const char *group,
                              const char *name, bool lock, chime_trigger **ret);

/* Recomputes an unclaimed trigger's next fire after its calendar was
 * replaced or its zone's rules were reloaded (t's schedule has the new
 * calendar and zone), and writes it when it changed (*ret_moved, may be
 * NULL, says so); claimed, complete and broken triggers are left alone.
 * The row must be locked.  calendar.c. */
int chime__mysql_trigger_recompute(chime__mysql_tx *tx, chime_trigger *t,
                                   bool *ret_moved);

/* Writes a trigger's fire state and store state, dropping any claim. */
int chime__mysql_trigger_save_state(chime__mysql_tx *tx,
                                    const chime_trigger *t);

/* Deletes a trigger; when cascade, a non-durable job (job_group,
 * job_name) left without triggers too. */
int chime__mysql_trigger_delete(chime__mysql_tx *tx, const char *group,
                                const char *name, const char *job_group,
                                const char *job_name, bool cascade);

/* Starts b on text statement id, one of _triggers_by_keys.sql's, for the
 * triggers (groups[i], names[i]), i < n (n >= 1): its rows keys, then its
 * slot sched; the caller fills what follows and runs it. */
void chime__mysql_keys_stmt(chime__mysql_sqlbuf *b, chime__mysql_tx *tx,
                            chime__mysql_stmt_id id, const char *const *groups,
                            const char *const *names, size_t n);

/* Removes the triggers (groups[i], names[i]), i < n (and a non-durable
 * job left without triggers) that, checked under their locks, are
 * COMPLETE, or EXECUTING with the run of one of runs[0 .. nruns) kept in
 * them (runs.c: fires whose completion tx writes); a keyed run with a
 * unique period (chime_enqueue_set_unique_for_ms) is kept instead,
 * COMPLETE, its held_until_ms set from now.  A batch's triggers in two
 * statements, and one lock per job. */
int chime__mysql_triggers_remove_if_complete(chime__mysql_tx *tx,
                                             const char *const *groups,
                                             const char *const *names, size_t n,
                                             const int64_t *runs, size_t nruns);

/* chime__mysql_trigger_take_over: before a keyed run's retry or recovered
 * run (chime__trigger_keyed t, the run's own trigger again) is inserted,
 * deletes the run's COMPLETE row it replaces, in the same transaction: the
 * key is never free in between.  run_id > 0: the row may also be
 * EXECUTING with the run of fire run_id kept in it (runs.c), which tx
 * completes.  Nothing for another trigger.  Returns: 0; a store error. */
int chime__mysql_trigger_take_over(chime__mysql_tx *tx, const chime_trigger *t,
                                   int64_t run_id);

/* Whether fire f is this node's and EXECUTING: its fired row, or, for a
 * run kept in its trigger row (runs.c), that row.  A plain read either
 * way, so that a job holding its run's row in its own completion
 * transaction (fire_tx.c) is not waited for. */
int chime__mysql_fire_owned(chime__mysql_tx *tx, const chime_fire *f,
                            bool *ret_owned);

/* The fired row of fire id, locked: *rows has CHIME__FIRED_COL_COUNT
 * columns and 0 or 1 row.  A run kept in its trigger row (runs.c) is
 * moved to a fired row of its own first. */
int chime__mysql_fired_get(chime__mysql_tx *tx, int64_t id,
                           chime__mysql_rows *rows);

/* Returns the claim of fire id on trigger (group, name) to WAITING (when
 * the trigger still holds it: COMPLETE when it has no next fire) and
 * deletes the fired row. */
int chime__mysql_claim_return(chime__mysql_tx *tx, const char *group,
                              const char *name, int64_t id);

/* Ends fired row i of fr (CHIME__MYSQL_FIRED_COLUMNS): deletes it,
 * unblocks its job when FORBID, removes its trigger when COMPLETE. */
int chime__mysql_fire_end(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                          size_t i);

/* Ends fired row i of fr (chime__mysql_fire_end) and writes its history
 * with outcome and text, error code CHIME_ENOTOWNER: the node that ran it
 * lost it (recovery of a dead node's fires, an operator's cancel).  A
 * shard's row carries its place (shard_parent, shard_index), as a shard's
 * completion writes it, so `chimectl shards` shows the run that died. */
int chime__mysql_fire_finish(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                             size_t i, const char *outcome, const char *text);

/* The same with the history row's error code and start time (started_ms,
 * at most now): a sharded fire's end (shards.c). */
int chime__mysql_fire_record(chime__mysql_tx *tx, const chime__mysql_rows *fr,
                             size_t i, const char *outcome, int code,
                             const char *text, int64_t started_ms);

/* Whether a remembered paused matcher (paused_groups) covers group. */
int chime__mysql_group_paused(chime__mysql_tx *tx, const char *group,
                              bool *ret);

#endif /* CHIME_JOBSTORE_MYSQL_TABLES_H */
