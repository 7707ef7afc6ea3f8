/*
 * shards.h: what acquire, complete and recovery use of mysql/shards.c
 * (sharded fires, node tags, checkpoints).
 */
#ifndef CHIME_JOBSTORE_MYSQL_SHARDS_H
#define CHIME_JOBSTORE_MYSQL_SHARDS_H

#include "jobstore/mysql/stmt.h"
#include "jobstore/mysql/tx.h"
#include "jobstore/store.h"

#include <stdbool.h>
#include <stdint.h>

/* Fills the parts untagged and tags of claim_due.sql (job_tags covered
 * by tags: this node's, sorted and comma-separated, or NULL). */
void chime__mysql_sqlbuf_tags(chime__mysql_sqlbuf *b, const char *tags);

/* chime__mysql_shard_room: how many more shards of sharded fire parent
 * (of job) this node may claim now under the fair share (shards.c's
 * top).  Returns: 0; a statement error. */
int chime__mysql_shard_room(chime__mysql_tx *tx, const chime_job *job,
                            int64_t parent, int *ret_room);

/* A sharded fire a completion ended, kept to tell on_shards_done after the
 * commit. */
typedef struct chime__mysql_shard_end {
  chime_shards_done info; /* strings set from keys and message when told */
  char *keys[4];          /* trigger group, name, job group, name */
  char message[320];
} chime__mysql_shard_end;

typedef struct chime__mysql_shards_done {
  chime__mysql_shard_end *ended;
  size_t n;
} chime__mysql_shards_done;

/*
 * chime__mysql_shard_ended: shard index of sharded fire parent ended for
 * good (failed: with an error), in tx: counts it down under the sharded
 * fire's row lock; the last one writes the sharded fire's history and ends
 * it, noted in dl (may be NULL).  Nothing when the sharded fire is gone.
 * Returns: 0; CHIME_ENOMEM; a statement error.
 */
int chime__mysql_shard_ended(chime__mysql_tx *tx, int64_t parent, int index,
                             bool failed, chime__mysql_shards_done *dl);

/*
 * chime__mysql_shards_end_removed: in tx, ends the waiting (SHARDED)
 * sharded fires of the job (by_job) or trigger group.name being removed:
 * a CANCELLED history row each ("job removed"), then ended as a completed
 * fire (a FORBID job re-added under the key is not blocked).  Shards still
 * running find their fire gone when they complete.
 * Returns: 0; CHIME_ENOMEM; a statement error.
 */
int chime__mysql_shards_end_removed(chime__mysql_tx *tx, bool by_job,
                                    const char *group, const char *name);

/* Calls on_shards_done for each noted end (after the commit), then clears
 * dl; chime__mysql_shards_done_clear only clears it (a retry). */
void chime__mysql_shards_tell(chime__mysql_store *s,
                              chime__mysql_shards_done *dl);
void chime__mysql_shards_done_clear(chime__mysql_shards_done *dl);

/* The store ops (store.h). */
int chime__mysql_shard_split(chime_store *store, const chime_fire *fire,
                             int *ret_total);
int chime__mysql_checkpoint_set(chime_store *store, const chime_fire *fire,
                                const void *data, size_t len);
int chime__mysql_checkpoint_get(chime_store *store, const chime_fire *fire,
                                void **ret_data, size_t *ret_len);

#endif /* CHIME_JOBSTORE_MYSQL_SHARDS_H */
