/*
 * batch.h: the writes of the MySQL store's firing protocol, one statement
 * per batch rather than per fire (shared by acquire, acquire_due and fire),
 * and the per-batch cache of the jobs and calendars its fires use
 * (batch.c).  Everything runs inside the caller's transaction.
 */
#ifndef CHIME_JOBSTORE_MYSQL_BATCH_H
#define CHIME_JOBSTORE_MYSQL_BATCH_H

#include "jobstore/mysql/tx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inserts the fired rows of fires[0 .. n) (ACQUIRED, or EXECUTING when
 * executing) in one statement and sets their fire ids.  Each fire has its
 * trigger and job and no fire id yet; n >= 1. */
int chime__mysql_fired_insert(chime__mysql_tx *tx, chime_fire **fires, size_t n,
                              int64_t now, bool executing);

/* Stores the fire state and store state of triggers ts[0 .. n) (locked by
 * tx; the job of ts[i] is jobs[i]), dropping their claims, in one
 * statement; n >= 1.  With fires (NULL: none), fires[i] is ts[i]'s fire,
 * and one that keeps its run in its trigger row (in_trigger_row, runs.c)
 * has its row EXECUTING, this node's, claimed at now. */
int chime__mysql_triggers_write(chime__mysql_tx *tx, chime_trigger *const *ts,
                                const chime_job *const *jobs,
                                chime_fire *const *fires, size_t n,
                                int64_t now);

/* Blocks the triggers of each FORBID job among jobs[0 .. n), once per
 * job. */
int chime__mysql_jobs_block(chime__mysql_tx *tx, const chime_job *const *jobs,
                            size_t n);

/* The jobs and calendars of one batch, each loaded once.  A zeroed cache
 * is empty; chime__mysql_cache_clear empties it again. */
typedef struct chime__mysql_cache {
  chime_job **jobs;
  size_t njobs;
  char **cal_names;
  chime_calendar **cals;
  size_t ncals;
} chime__mysql_cache;

void chime__mysql_cache_clear(chime__mysql_cache *c);

/* The job (group, name), borrowed from the cache; a FORBID job's row is
 * locked.  Returns: 0; CHIME_ENOTFOUND; errors. */
int chime__mysql_cache_job(chime__mysql_tx *tx, chime__mysql_cache *c,
                           const char *group, const char *name,
                           const chime_job **ret);

/* Quartz's triggered() on t (with its calendar, when it still exists) and
 * the store state that follows for a trigger of job. */
int chime__mysql_fire_bookkeeping(chime__mysql_tx *tx, chime__mysql_cache *c,
                                  chime_trigger *t, const chime_job *job);

#endif /* CHIME_JOBSTORE_MYSQL_BATCH_H */
