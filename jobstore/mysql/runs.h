/*
 * runs.h: runs kept in their trigger rows (runs.c, migration 018): the
 * run of a one-shot trigger fired by a claim (acquire_due) may live in its
 * own trigger row, EXECUTING, owner and claim_fire_id naming the node and
 * the fire, instead of a fired row; docs/schema.md, "A run kept in its
 * trigger row".  Everything runs inside the caller's transaction.
 */
#ifndef CHIME_JOBSTORE_MYSQL_RUNS_H
#define CHIME_JOBSTORE_MYSQL_RUNS_H

#include "jobstore/mysql/tx.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether claimed fire f, its fire bookkeeping done (its trigger's store
 * state the one after this fire), keeps its run in its trigger row: the
 * trigger fires no more, its job's runs neither exclude each other nor
 * split into shards, it is not a shard, a retry or a recovery, every
 * other live node reads such runs (s->runs_in_triggers), and the server
 * hands out the ids of one statement in steps (s->id_step: not Galera). */
bool chime__mysql_run_keepable(const chime__mysql_tx *tx, const chime_fire *f);

/* Sets the fire ids of fires[0 .. n) (n >= 1, each without one) from ids
 * reserved in fired's AUTO_INCREMENT counter, which the rows of no other
 * fire then get: two marker rows, inserted and deleted again in tx. */
int chime__mysql_runs_reserve(chime__mysql_tx *tx, chime_fire **fires,
                              size_t n);

/* Which runs kept in trigger rows chime__mysql_runs_spill moves: those of
 * a node, of a trigger, of a job, or the one of a fire id (a field NULL
 * or 0 does not filter; at least one is set). */
typedef struct chime__mysql_runs_of {
  const char *node;
  const char *group, *name;         /* a trigger's key */
  const char *job_group, *job_name; /* a job's key */
  int64_t fire_id;
} chime__mysql_runs_of;

/* Moves the runs kept in trigger rows that of selects to fired rows of
 * their own (EXECUTING, same fire id, node and times), their trigger rows
 * left COMPLETE as a fired run leaves them: what reads or ends runs
 * through fired rows (recovery, hand-over, cancel, repair, the removal of
 * a trigger or job) then finds them there.  The rows are found without
 * locks, then locked by their primary key and checked again.  *ret_moved
 * (may be NULL) gets how many moved. */
int chime__mysql_runs_spill(chime__mysql_tx *tx, const chime__mysql_runs_of *of,
                            size_t *ret_moved);

#endif /* CHIME_JOBSTORE_MYSQL_RUNS_H */
