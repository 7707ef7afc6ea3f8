/*
 * store.h: the one interface between the engine and a job store (the
 * memory store, the MySQL/MariaDB store).  Both pass the same conformance
 * suite, tests/store/, which is written against this header only.
 *
 * Terms: a *claim* is a trigger a node acquired for its next fire time; a
 * *fire* (chime_fire) is one claimed fire time of one trigger, with a
 * store-wide, growing fire id.  The protocol, per fire:
 *
 *   acquire -> fire -> (job runs) -> complete      or      acquire -> release
 *
 * - acquire claims due triggers: WAITING, of a job type this node runs,
 *   next_fire_ms <= no_later_than_ms and not misfired (next_fire_ms >
 *   now_ms - misfire_threshold_ms, or an IGNORE instruction: see
 *   chime__trigger_is_misfired), ordered by next fire time then priority
 *   (higher first), at most one trigger per FORBID job per batch.  Claimed
 *   triggers become ACQUIRED by this node.
 * - fire, at fire time, checks each claim is still this node's and ACQUIRED
 *   (a claim may vanish: the trigger was removed, paused or replaced), runs
 *   the trigger's bookkeeping (chime__trigger_triggered) and stores the
 *   trigger WAITING for its next time, BLOCKED (its job is FORBID: then all
 *   the job's other triggers are BLOCKED too), or COMPLETE.  The fire becomes
 *   EXECUTING.
 * - complete ends an executing fire: it is refused with CHIME_ENOTOWNER when
 *   the fire no longer belongs to this node (fencing); otherwise it saves the
 *   job's data when the job persists data, unblocks the job's triggers,
 *   deletes a COMPLETE trigger, and a non-durable job left without
 *   triggers, and records the outcome.
 * - release returns claims that were never fired (shutdown, a batch not
 *   run) to WAITING; it is idempotent (a claim no longer this node's is
 *   left alone), so the engine calls it again for claims whose release
 *   failed with CHIME_ECONNECT or CHIME_EBUSY.
 * - scan_misfires applies each misfired WAITING trigger's misfire
 *   instruction (triggers/misfire.h), in bounded batches.
 *
 * Threads: every operation may be called from any thread; a store
 * serialises what needs it.  The store starts no thread and never sleeps
 * (but for a database's own waits).  Times are the store's clock
 * (store->ops->now): the database's for MySQL.
 */
#ifndef CHIME_JOBSTORE_STORE_H
#define CHIME_JOBSTORE_STORE_H

#include "chime-admin.h"
#include "chime.h"
#include "model/records.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct chime_store chime_store;
typedef struct chime_store_ops chime_store_ops;
/* A fire's completion transaction (fire_tx_begin), the store's own type. */
typedef struct chime_store_tx chime_store_tx;

/* One thing recover_dead_nodes did, told after its transaction committed:
 * a dead node's executing fire ended (fire_id > 0: requeued to run again,
 * or failed "node died"), or the node itself declared dead (fire_id 0, keys
 * NULL).  Strings borrowed for the call.  Thread: recover_dead_nodes's. */
typedef struct chime_recovery {
  const char *node;
  int64_t fire_id;
  const char *trigger_group;
  const char *trigger_name;
  const char *job_group;
  const char *job_name;
  bool requeued;
} chime_recovery;
typedef void (*chime_recovery_fn)(void *user_data, const chime_recovery *rec);

/* A sharded fire whose last shard completed (its history row written),
 * told after the completion committed.  Strings borrowed for the call.
 * error: 0, or CHIME_EJOBFAILED when a shard failed (message says which).
 * Thread: the completion's. */
typedef struct chime_shards_done {
  int64_t fire_id;
  int64_t scheduled_ms;
  const char *trigger_group;
  const char *trigger_name;
  const char *job_group;
  const char *job_name;
  int total;
  int failed;
  int error;
  const char *message;
} chime_shards_done;
typedef void (*chime_shards_done_fn)(void *user_data,
                                     const chime_shards_done *done);

/* Called by a clustered store each time one of its statements waited a
 * whole lock wait timeout for a row another session held (after logging
 * it at WARN with the row).  Thread: the waiting statement's. */
typedef void (*chime_lock_wait_fn)(void *user_data);

/* What a store is opened with. */
typedef struct chime_store_options {
  const char *scheduler_name;   /* cluster name */
  const char *instance_id;      /* this node */
  int64_t misfire_threshold_ms; /* > 0 */
  int64_t checkin_interval_ms;  /* clustered stores */
  unsigned connections;         /* clustered stores: pool size */
  chime_log_fn log;             /* may be NULL */
  void *log_user_data;
  chime_log_level log_level;
  int64_t test_clock_offset_ms;  /* tests only: skews this node's clock */
  chime_recovery_fn on_recovery; /* may be NULL (clustered stores) */
  void *recovery_user_data;
  const char *tags;                    /* this node's: "a,b" sorted, or NULL */
  chime_shards_done_fn on_shards_done; /* may be NULL */
  void *shards_user_data;
  chime_lock_wait_fn on_lock_wait; /* may be NULL (clustered stores) */
  void *lock_wait_user_data;
} chime_store_options;

/* The states of a claimed fire. */
typedef enum chime_fire_phase {
  CHIME_FIRE_ACQUIRED = 0,
  CHIME_FIRE_EXECUTING = 1
} chime_fire_phase;

/*
 * One claimed fire.  The store fills it; the engine owns the array and the
 * fires it receives and frees them with chime__fire_free.  job and trigger
 * are copies taken at acquire time; fire() updates trigger->state to the
 * state after this fire (prev = this fire, next = the one after).
 */
typedef struct chime_fire {
  int64_t fire_id;
  int64_t scheduled_ms;
  chime_fire_phase phase;
  bool recovering; /* re-run of a dead node's fire */
  /* The MySQL store's: its run is kept in its trigger row, not a fired
   * row (jobstore/mysql/runs.c); other stores leave it false. */
  bool in_trigger_row;
  int result;              /* fire(): 0, or why it must not run */
  int64_t claimed_mono_ms; /* the engine's: when its claim began (loop.c) */
  int64_t queued_mono_ms; /* the engine's: when it entered the workers' queue */
  chime_job *job;
  chime_trigger *trigger;
} chime_fire;

void chime__fire_free(chime_fire *fire);

/* The job types this node runs (sorted, for bsearch). */
typedef struct chime_type_set {
  const char *const *names;
  size_t count;
} chime_type_set;

bool chime__type_set_has(const chime_type_set *set, const char *type);

/* Called by scan_misfires for each trigger whose misfire was handled:
 * trigger shows the state after the instruction. */
/* Where a store's recompute_zones stopped (store.h's contract): the zone
 * or calendar it was at, and the last trigger key done there. */
typedef struct chime_zones_cursor {
  size_t zone;       /* index in the zones given */
  bool calendars;    /* past the zones: at the calendars' triggers */
  char **cals;       /* the calendars reading time in those zones */
  size_t ncals, cal; /* how many, and the index at */
  char *after_group; /* the last trigger key looked at, or NULL */
  char *after_name;
} chime_zones_cursor;

/* Frees a cursor of recompute_zones (NULL allowed).  store.c. */
void chime__zones_cursor_free(chime_zones_cursor *cursor);

typedef void (*chime_misfire_fn)(void *user_data, const chime_trigger *trigger);

/* What history_list returns runs for (NULL / 0: any). */
typedef struct chime_history_filter {
  const char *job_group, *job_name;         /* both or neither */
  const char *trigger_group, *trigger_name; /* both or neither */
  const char *outcome;                      /* "OK", "FAILED", ... */
  int64_t from_ms, to_ms;                   /* started_ms in [from, to) */
  int64_t before_id;                        /* paging: ids below it */
  size_t limit;                             /* > 0 */
} chime_history_filter;

/* One recorded run; strings and data malloc'd (chime__history_entries_free).
 * data: the run's own data (its trigger's, as chime_ctx_get_data gave it;
 * at most CHIME_MAX_DATA_LEN bytes), NULL when it used its job's. */
typedef struct chime_history_entry {
  int64_t id, fire_id, scheduled_ms, started_ms, finished_ms;
  char *job_group, *job_name, *trigger_group, *trigger_name, *node;
  char *outcome, *message; /* message may be NULL */
  void *data;
  size_t data_len;
  int error;
  bool recovering;
  /* A shard's run: its sharded fire and its index (shard_parent 0: not a
   * shard's; the operators' list reads them, history_list need not). */
  int64_t shard_parent;
  int32_t shard_index;
} chime_history_entry;

/* The data a fire's run reads as its own, recorded with it in history: its
 * trigger's when it has some (chime_ctx_get_data), else none (NULL, 0: the
 * job's); none too for more than CHIME_MAX_DATA_LEN bytes (a row written
 * around the library).  store.c. */
const void *chime__fire_own_data(const chime_fire *fire, size_t *ret_len);

/* Frees an entry's strings and zeroes it; frees an array of entries. */
void chime__history_entry_clear(chime_history_entry *e);
void chime__history_entries_free(chime_history_entry *entries, size_t count);

/* A statement a job gave to its fire's completion
 * (chime_ctx_complete_with): the store runs it in the transaction that
 * completes the fire, params bound to its ? placeholders as text (a NULL
 * entry: SQL NULL).  engine/fire_tx.c makes and frees them. */
typedef struct chime_run_write {
  struct chime_run_write *next; /* the next one the job gave, or NULL */
  char *sql;
  size_t nparams;
  char *params[]; /* nparams of them */
} chime_run_write;

/* The outcome of a run, for complete(). */
typedef struct chime_run_result {
  int error;           /* 0, or the run's error (CHIME_E* or job failure) */
  const char *status;  /* history's outcome ("TIMED_OUT", "CANCELLED"), or
                          NULL: "OK" or "FAILED" as error says */
  const char *message; /* NULL, or what went wrong */
  int64_t started_ms;
  int64_t finished_ms;
  bool set_data; /* the run set new job data */
  const void *data;
  size_t data_len;
  bool checkpointed; /* the run wrote or read a checkpoint: delete it */
  /* Written with the completion, in order, or not at all (NULL: none; a
   * store without transactions never gets any). */
  const chime_run_write *writes;
} chime_run_result;

/* Lease tokens are tied to the store's clock: an acquisition's token is
 * the greater of the name's last token + 1 and now (epoch ms) times this,
 * so that a token never goes back, even when the leases table was emptied
 * or restored from an older backup (docs/leases.md, docs/operations.md):
 * up to this many acquisitions of one name per millisecond, on average,
 * keep every token below the next millisecond's floor. */
#define CHIME__LEASE_TOKENS_PER_MS 1000

/* One acquisition of a named lease, in the store's clock. */
typedef struct chime_lease_info {
  int64_t token; /* the fencing token: grows with every acquisition */
  int64_t acquired_ms;
  int64_t expires_ms;
} chime_lease_info;

/* A job type's limit (chime_scheduler_set_limit; docs/queue.md,
 * "Limits"): each figure 0 for none. */
typedef struct chime_limit_def {
  int max_running;       /* runs of the type at a time */
  int max_per_partition; /* of them with one partition key */
  int rate_count;        /* starts per rate_period_ms, smoothed */
  int64_t rate_period_ms;
  /* chime_scheduler_set_partition_limit (migration 017): starts per
   * key_rate_period_ms of each partition key, smoothed, and the top-level
   * field of a run's JSON data its key is taken from ("" for none). */
  int key_rate_count;
  int64_t key_rate_period_ms;
  char partition_field[CHIME_MAX_NAME_LEN + 1];
  /* limit_set: which figures it writes (CHIME__LIMIT_SET_*; 0: all); the
   * others keep their stored values (0 on a new limit). */
  unsigned sets;
} chime_limit_def;

/* chime_scheduler_set_limit's figures: max_running, max_per_partition and
 * the type's rate; chime_scheduler_set_partition_limit's: max_per_partition,
 * the partition's rate and the field. */
#define CHIME__LIMIT_SET_TYPE 1u
#define CHIME__LIMIT_SET_PARTITION 2u

/* The rate rule of both stores (the generic cell rate algorithm): a
 * start is due every emission interval, and one more may come early (a
 * burst of two), so that a claim that came late catches up once.  Given
 * the type's theoretical arrival time *tat (0: none yet) and now, whether
 * a start is allowed now (then *tat moves on) or, when not, *ret_wait_ms
 * how long until it is.  Thread: any. */
static inline bool chime__gcra_take(int count, int64_t period_ms, int64_t *tat,
                                    int64_t now, int64_t *ret_wait_ms) {
  if (count <= 0)
    return true;
  int64_t t = period_ms / count > 0 ? period_ms / count : 1;
  if (*tat - t > now) {
    *ret_wait_ms = *tat - t - now;
    return false;
  }
  *tat = (*tat > now ? *tat : now) + t;
  return true;
}
static inline bool chime__limit_rate_take(const chime_limit_def *d,
                                          int64_t *tat, int64_t now,
                                          int64_t *ret_wait_ms) {
  return chime__gcra_take(d->rate_count, d->rate_period_ms, tat, now,
                          ret_wait_ms);
}
/* The same rule for one partition's rate (key_rate_*), its own *tat. */
static inline bool chime__limit_key_rate_take(const chime_limit_def *d,
                                              int64_t *tat, int64_t now,
                                              int64_t *ret_wait_ms) {
  return chime__gcra_take(d->key_rate_count, d->key_rate_period_ms, tat, now,
                          ret_wait_ms);
}

/* chime__limit_def_merge: the figures from->sets names, copied into into
 * (a stored limit), whose sets becomes 0.  Thread: any. */
void chime__limit_def_merge(chime_limit_def *into, const chime_limit_def *from);

/* chime__limit_partition_from_data: when t has no partition key and field
 * is not empty, sets it to the value of the top-level member field of the
 * run's data (t's own, else job's, when job is not NULL) read as a JSON
 * object: a string's text, or a number's digits as written.  No key (and
 * 0) when the data is not a JSON object, has no such member, or its value
 * is another kind, empty or not a valid partition key.  Returns: 0;
 * CHIME_ENOMEM.  Thread: any. */
int chime__limit_partition_from_data(chime_trigger *t, const chime_job *job,
                                     const char *field);

/* chime__limit_def_check: whether d is a limit to set: no negative
 * figure, a rate with both its count and period, and some figure set
 * (clearing is another call).  Returns: 0; CHIME_EINVAL, with a message in
 * errbuf.  Thread: any. */
int chime__limit_def_check(const chime_limit_def *d, char *errbuf,
                           size_t errbuf_len);

/* How long a loop whose claim passed fires over for their concurrency
 * limit waits before it looks again (a run on another node may end at any
 * time and no node hears of it). */
#define CHIME__LIMIT_POLL_MS 50

/* One row of limit_stats: a limited type (partition NULL) or one
 * partition of it, with its figures and what waits and runs. */
typedef struct chime_limit_stat {
  char *job_type;
  char *partition; /* NULL: the type as a whole */
  chime_limit_def def;
  int64_t waiting; /* due, unclaimed */
  int64_t running; /* claimed or executing */
} chime_limit_stat;
void chime__limit_stats_free(chime_limit_stat *stats, size_t count);

struct chime_store_ops {
  const char *name; /* "memory", "mysql" */
  void (*free)(chime_store *store);
  int64_t (*now)(chime_store *store);

  /* Jobs.  add: CHIME_EEXISTS unless replace.  remove: removes its
   * triggers too; CHIME_ENOTFOUND.  get: a copy, the caller's. */
  int (*job_add)(chime_store *store, const chime_job *job, bool replace);
  int (*job_remove)(chime_store *store, const char *group, const char *name);
  int (*job_get)(chime_store *store, const char *group, const char *name,
                 chime_job **ret_job);
  int (*job_list)(chime_store *store, chime_match match, const char *pattern,
                  chime_key **ret_keys, size_t *ret_count);

  /* Triggers.  add: the job must exist (CHIME_ENOTFOUND), so must its
   * calendar; the store resolves the calendar and runs
   * chime__trigger_prepare; a trigger added to a paused group (or while
   * all is paused, or for a paused job) starts PAUSED.  job, when not NULL,
   * is added in the same step (replace applies to both).
   * *ret_first_fire_ms may be NULL. */
  int (*trigger_add)(chime_store *store, const chime_job *job,
                     const chime_trigger *trigger, bool replace,
                     int64_t *ret_first_fire_ms, char *errbuf,
                     size_t errbuf_len);
  /* remove: a non-durable job left without triggers is removed too. */
  int (*trigger_remove)(chime_store *store, const char *group,
                        const char *name);
  /* replace: the new trigger takes the key (group, name) and must fire the
   * same job (CHIME_EINVAL otherwise); CHIME_ENOTFOUND. */
  int (*trigger_replace)(chime_store *store, const char *group,
                         const char *name, const chime_trigger *trigger,
                         int64_t *ret_first_fire_ms, char *errbuf,
                         size_t errbuf_len);
  int (*trigger_get)(chime_store *store, const char *group, const char *name,
                     chime_trigger **ret_trigger);
  int (*trigger_list)(chime_store *store, chime_match match,
                      const char *pattern, chime_key **ret_keys,
                      size_t *ret_count);
  /* The triggers of one job (sorted keys). */
  int (*trigger_list_for_job)(chime_store *store, const char *job_group,
                              const char *job_name, chime_key **ret_keys,
                              size_t *ret_count);
  /* CHIME_TRIGGER_NONE when absent (still returns 0). */
  int (*trigger_status)(chime_store *store, const char *group, const char *name,
                        chime_trigger_status *ret_status);

  /* Calendars.  The store keeps its own reference. */
  int (*calendar_add)(chime_store *store, const char *name,
                      const chime_calendar *calendar, bool replace,
                      bool update_triggers);
  int (*calendar_remove)(chime_store *store, const char *name);
  int (*calendar_get)(chime_store *store, const char *name,
                      chime_calendar **ret_calendar);

  /* Pausing (see chime.h).  Group pauses are remembered for new triggers. */
  int (*pause_trigger)(chime_store *store, const char *group, const char *name);
  int (*resume_trigger)(chime_store *store, const char *group,
                        const char *name);
  int (*pause_job)(chime_store *store, const char *group, const char *name);
  int (*resume_job)(chime_store *store, const char *group, const char *name);
  int (*pause_group)(chime_store *store, chime_match match,
                     const char *pattern);
  int (*resume_group)(chime_store *store, chime_match match,
                      const char *pattern);
  int (*pause_all)(chime_store *store);
  int (*resume_all)(chime_store *store);

  /* Firing (see the top of this file).  acquire: *ret_fires is a malloc'd
   * array of *ret_count fires, the caller's. */
  int (*acquire)(chime_store *store, int64_t now_ms, int64_t no_later_than_ms,
                 size_t max, const chime_type_set *types,
                 chime_fire ***ret_fires, size_t *ret_count);
  int (*fire)(chime_store *store, chime_fire **fires, size_t count,
              int64_t now_ms);
  /* acquire_due: acquire and fire in one step: every returned fire is
   * EXECUTING with result 0, also those due after now_ms (up to
   * no_later_than_ms: the engine starts their runs at their time).  The
   * engine uses it when it has no batch window; a store without a faster
   * way uses chime__store_acquire_due. */
  int (*acquire_due)(chime_store *store, int64_t now_ms,
                     int64_t no_later_than_ms, size_t max,
                     const chime_type_set *types, chime_fire ***ret_fires,
                     size_t *ret_count);
  int (*complete)(chime_store *store, const chime_fire *fire,
                  const chime_run_result *outcome);
  int (*release)(chime_store *store, chime_fire **fires, size_t count);
  /* complete_many (may be NULL): completes count fires at once (one
   * transaction where the store has them), ret_results[i] being what
   * complete would have returned for fires[i]; a failure of the whole
   * batch (the database down) is every fire's result.  When a store has
   * it, the engine completes off its workers (engine/completer.c): a job's
   * return frees its worker and the completions are written in batches;
   * without it, each worker completes its own fire. */
  void (*complete_many)(chime_store *store, const chime_fire *const *fires,
                        const chime_run_result *const *outcomes, size_t count,
                        int *ret_results);
  /* Whether this node still holds the executing fire (one it was handed,
   * or one with only a fire id: any other store's). */
  int (*still_owned)(chime_store *store, const chime_fire *fire,
                     bool *ret_owned);
  /* The earliest next fire later than after_ms of a WAITING trigger of
   * one of types (after_ms INT64_MIN: any, misfired ones included);
   * CHIME_ENOTFOUND when there is none.  A plain read: it never waits for
   * a row another session holds, and counts such a row too (acquire and
   * the misfire scan skip it: the engine then looks past the due ones
   * with after_ms, so that one held row delays only its own trigger). */
  int (*next_due)(chime_store *store, const chime_type_set *types,
                  int64_t after_ms, int64_t *ret_ms);

  /* Maintenance, called on the engine's timers. */
  int (*scan_misfires)(chime_store *store, int64_t now_ms, size_t max,
                       chime_misfire_fn on_misfire, void *user_data,
                       size_t *ret_handled, bool *ret_more);
  /* checkin: *ret_recover_in_ms (may be NULL) is how long until another
   * node's lease runs out if it does not check in again (then
   * recover_dead_nodes is worth calling), or -1: no other node. */
  int (*checkin)(chime_store *store, int64_t now_ms,
                 int64_t *ret_recover_in_ms);
  int (*recover_dead_nodes)(chime_store *store, int64_t now_ms,
                            size_t *ret_recovered);
  /* recompute_zones (may be NULL: no trigger kept across a reload): the
   * rules of the zones named changed (triggers/tz_load.c reloaded them):
   * each trigger in one of them, or naming a calendar that reads time in
   * one of them (rebuilt with the new rules), that is not claimed
   * (WAITING, PAUSED, BLOCKED, PAUSED_BLOCKED) gets its next fire
   * recomputed with the new rules (chime__trigger_refire_after_change),
   * under the same locks as any change of a trigger; claimed ones compute
   * their next fire with the new rules when they fire.  Rows another
   * transaction holds are skipped (SKIP LOCKED): whoever holds them
   * computes with its own rules, and every node recomputes once it
   * reloaded (engine/zones.c).  In steps: a call looks at about max
   * triggers at most (0: no limit; a store may do more at once) and keeps
   * its place in *cursor (NULL to begin).  Returns: 0, done (*cursor freed
   * and NULL); 1, more to do (call again with the same zones and cursor);
   * or an error (*cursor freed and NULL).  *ret_recomputed (may be NULL)
   * counts the triggers whose next fire moved in this call. */
  int (*recompute_zones)(chime_store *store, const char *const *zones,
                         size_t count, size_t max,
                         struct chime_zones_cursor **cursor,
                         size_t *ret_recomputed);
  /* hand_over (may be NULL: a store no other process shares): a stopping
   * node gives the cluster the fires it still holds, at once and in one
   * transaction, as recovery of a dead node would (claims returned;
   * executing fires run again elsewhere when their job requests recovery,
   * else recorded, CANCELLED "cut short by its shutdown" or RETRIED),
   * rather than leaving them until its lease runs out.  Each executing
   * fire it ended is told to each (may be NULL) after the commit.  It
   * waits for a connection and the database at most about budget_ms.
   * Its completions that come later are refused (fencing).  The node
   * leaves the cluster with it (its row removed): it is the last thing a
   * stopping node's loop does. */
  int (*hand_over)(chime_store *store, int64_t budget_ms,
                   chime_recovery_fn each, void *user_data, size_t *ret_handed);
  /* checkin_next_due (may be NULL: a store only this process changes):
   * the earliest next fire of any WAITING trigger of the scheduler (of
   * any job type) as the last successful checkin read it, INT64_MAX when
   * there was none.  When it changes, something was scheduled, fired now
   * or resumed elsewhere; the engine's idle loop looks again. */
  int64_t (*checkin_next_due)(chime_store *store);
  /* Draining (include/chime.h: chime_scheduler_drain; all NULL: a store
   * that does not drain; the memory store's cluster is its own node,
   * jobstore/memory/drain.c).  drain_set asks node (NULL: this store's)
   * to drain within timeout_ms (drain) or ends its request, and records
   * the action in the audit table with who and origin (NULL: "api" and
   * this node): CHIME_ENOTFOUND when drain names no node in the nodes
   * table (a drain request is kept for a node that left) or an undrain a
   * node not drained.  drain_get: node's state (chime_node_state).
   * checkin_drain: this node's state as the last successful checkin read
   * it, and whether its timeout has passed.  drain_report: this draining
   * node runs nothing (DRAINED; handed: the fires its timeout handed
   * over).  drain_hand_over: hand_over without leaving the cluster: the
   * node stays, its fires go. */
  int (*drain_set)(chime_store *store, const char *node, bool drain,
                   int64_t timeout_ms, const char *who, const char *origin);
  int (*drain_get)(chime_store *store, const char *node, int *ret_state);
  int (*checkin_drain)(chime_store *store, bool *ret_overdue);
  int (*drain_report)(chime_store *store, size_t handed);
  int (*drain_hand_over)(chime_store *store, int64_t budget_ms,
                         chime_recovery_fn each, void *user_data,
                         size_t *ret_handed);
  /* release_fired (may be NULL: a store no other process shares, whose
   * node has nobody to give a fire to): fires this node fired but whose
   * runs never started (its local queue: a fire no worker could start in
   * time, or a stopping node's queue) go back to the cluster in one
   * transaction: each one still EXECUTING on this node is ended in
   * history (REQUEUED) and run again at once, on whichever node claims it,
   * as a recovered fire (its original scheduled time, recovering set),
   * whatever its job says about recovery: it never ran.  A fire that is no
   * longer this node's (taken over) is left alone.  *ret_released (may be
   * NULL): how many went back.  Thread: any. */
  int (*release_fired)(chime_store *store, chime_fire *const *fires,
                       size_t count, size_t *ret_released);
  /* forget (may be NULL): the engine gave up completing fire_id (its
   * completion failed for good): the store stops reporting it as run by
   * this node, so that an operator's repair can find it
   * (jobstore/mysql/held.c). */
  int (*forget)(chime_store *store, int64_t fire_id);

  /* Transactional completion (include/chime-mysql.h): a transaction that
   * the job's own statements share with its fire's completion.
   * fire_tx_begin locks the EXECUTING fire (CHIME_ENOTOWNER when it is not
   * this node's any more); CHIME_EUNSUPPORTED from a store without
   * transactions (memory), which leaves the other fire_tx_* NULL.
   * fire_tx_commit writes complete()'s steps for outcome and the caller's
   * statements in one commit (CHIME_ENOTOWNER: fenced, nothing committed);
   * commit and rollback end the transaction and free tx whatever they
   * return.  fire_tx_handle: the store's connection (a MYSQL * for MySQL),
   * borrowed until commit or rollback.  fire_tx_execute: one statement with
   * text parameters (NULL: SQL NULL).  Messages go to errbuf (may be NULL).
   * A store with fire_tx_execute runs an outcome's writes (its job's
   * statements, chime_run_result) in the transaction that completes the
   * fire, whichever op writes it (complete, complete_many, fire_tx_commit);
   * the engine gives none to a store without it.
   * Thread: the one that began tx, alone. */
  int (*fire_tx_begin)(chime_store *store, const chime_fire *fire,
                       chime_store_tx **ret_tx, char *errbuf,
                       size_t errbuf_len);
  void *(*fire_tx_handle)(chime_store_tx *tx);
  int (*fire_tx_execute)(chime_store_tx *tx, const char *sql,
                         const char *const *params, size_t nparams,
                         uint64_t *ret_affected, char *errbuf,
                         size_t errbuf_len);
  int (*fire_tx_commit)(chime_store_tx *tx, const chime_run_result *outcome,
                        char *errbuf, size_t errbuf_len);
  void (*fire_tx_rollback)(chime_store_tx *tx);

  /* Named leases (include/chime.h: chime_lease_*), decided by the store's
   * own clock only (the database's NOW for MySQL, never a node's).  A name
   * is free when it was never taken or its expires_ms is not later than
   * now.  lease_acquire takes a free name: token = the greater of the
   * name's last token + 1 and now * CHIME__LEASE_TOKENS_PER_MS (tokens
   * only grow, also across release, expiry and a lost leases row),
   * expires_ms = now + at_most_ms, kept at least until now +
   * at_least_ms; the holder is this store's node.  CHIME_EBUSY when the
   * name is held, *ret then describing the holder's lease.
   * lease_extend: expires_ms = now + at_most_ms for (name, token) while it
   * is held and not released; CHIME_ENOTOWNER otherwise (expired,
   * released, or taken since).  lease_release: ends (name, token): it stays
   * taken until its at_least instant (or now, if later); CHIME_ENOTOWNER
   * as extend.  lease_held: whether (name, token) is held and not
   * released.  Arguments are checked by the caller (engine/lease.c). */
  int (*lease_acquire)(chime_store *store, const char *name, int64_t at_most_ms,
                       int64_t at_least_ms, chime_lease_info *ret);
  int (*lease_extend)(chime_store *store, const char *name, int64_t token,
                      int64_t at_most_ms, int64_t *ret_expires_ms);
  int (*lease_release)(chime_store *store, const char *name, int64_t token);
  int (*lease_held)(chime_store *store, const char *name, int64_t token,
                    bool *ret_held);
  /* lease_end: an operator's release (chime_admin_release_lease): a name
   * held (expires_ms later than now) ends now, released, whoever holds it
   * and whatever its at_least; CHIME_ENOTFOUND when it is not held. */
  int (*lease_end)(chime_store *store, const char *name);
  /* History (observability): the recorded runs matching f, newest (the
   * highest id) first, at most f->limit; *ret_entries the caller's. */
  int (*history_list)(chime_store *store, const chime_history_filter *f,
                      chime_history_entry **ret_entries, size_t *ret_count);
  /* Cancellation (run policies, docs/policies.md).  interrupt flags
   * EXECUTING fires to be cancelled, on whichever node runs them: every
   * fire of the job (group, name) when fire_id is 0 (group and name valid),
   * otherwise the one fire fire_id (group and name NULL); *ret_count (may
   * be NULL) is how many were flagged (0 is not an error).  interrupted
   * lists this node's EXECUTING fires that are flagged, or whose job is
   * REPLACE and has a trigger due (BLOCKED, next_fire_ms <= the store's
   * now): *ret_ids is a malloc'd array of *ret_count ids (NULL when none),
   * the caller's. */
  int (*interrupt)(chime_store *store, const char *group, const char *name,
                   int64_t fire_id, size_t *ret_count);
  int (*interrupted)(chime_store *store, int64_t **ret_ids, size_t *ret_count);

  /* Sharded fires (docs/batch.md).  shard_split turns fire, an EXECUTING
   * fire of this node whose job is sharded (fire->job->shard_count != 0)
   * and which is no shard itself, into its shards: one shard trigger per
   * shard (chime__trigger_shard_new), due now, and the fire stays until
   * its last shard completed; then the store records the fire as a whole
   * in history and calls options.on_shards_done.  The count is the job's,
   * or for CHIME_SHARDS_BROADCAST the live nodes whose tags cover the
   * job's (at least 1: this one).  *ret_total (may be NULL) is the count.
   * CHIME_ENOTOWNER: the fire is not this node's any more.
   * Completion of a shard: a shard fire (trigger->shard_parent > 0) is
   * complete()d like any fire; when it succeeded, failed for good or was
   * cancelled (not when a retry was stored) its sharded fire has one
   * shard fewer to wait for.  A shard never blocks its job (the sharded
   * fire does, for a FORBID job) and is always recovered.
   * Acquire claims only triggers whose job's required tags options.tags
   * cover, and spreads shards: see each store. */
  int (*shard_split)(chime_store *store, const chime_fire *fire,
                     int *ret_total);
  /* Checkpoints (chime_ctx_checkpoint).  A run's checkpoint is keyed by
   * its run id, chime__fire_run_id.  checkpoint_set replaces it, only
   * while fire is EXECUTING on this node (CHIME_ENOTOWNER otherwise,
   * nothing written).  checkpoint_get: *ret_data malloc'd, the caller's;
   * CHIME_ENOTFOUND when there is none.  complete() deletes the
   * checkpoint when outcome->checkpointed or fire->recovering. */
  int (*checkpoint_set)(chime_store *store, const chime_fire *fire,
                        const void *data, size_t len);
  int (*checkpoint_get)(chime_store *store, const chime_fire *fire,
                        void **ret_data, size_t *ret_len);

  /* Limits (docs/queue.md, "Limits").  limit_set: def NULL clears
   * (CHIME_ENOTFOUND when there was none); limit_get: CHIME_ENOTFOUND.
   * acquire and acquire_due respect them: a fire of a limited type over
   * its limit is passed over and stays WAITING, and the misfire scan
   * passes limited types over (a limited fire is late, not misfired).
   * limit_wait_ms: after an acquire, how long until a fire it passed over
   * for a limit may be claimed (CHIME__LIMIT_POLL_MS for a concurrency
   * limit, the time of the next start for a rate limit), or -1: none was.
   * limit_stats: every limited type and each of its partitions that has
   * fires waiting (due by now_ms) or running, sorted (a type's own row
   * first, its partitions after it). */
  int (*limit_set)(chime_store *store, const char *job_type,
                   const chime_limit_def *def);
  int (*limit_get)(chime_store *store, const char *job_type,
                   chime_limit_def *ret);
  int64_t (*limit_wait_ms)(chime_store *store);
  int (*limit_stats)(chime_store *store, int64_t now_ms,
                     chime_limit_stat **ret_stats, size_t *ret_count);
  /* Enqueued runs (docs/queue.md).  trigger_add_many adds count one-off
   * triggers ts[0 .. count) (chime__enqueue_trigger's: not prepared, no
   * calendar, all of one job, which must exist: CHIME_ENOTFOUND), as
   * trigger_add would one by one, but all in one step (one transaction
   * with one multi-row INSERT for MySQL; count <= CHIME__ENQUEUE_BATCH),
   * all or none.  A trigger whose key is stored already (or comes earlier
   * in ts) is not added and not an error: ret_existed[i] (count entries)
   * says so.  The primary key of the trigger decides, so callers racing
   * with the same key on any node store it once. */
  int (*trigger_add_many)(chime_store *store, chime_trigger *const *ts,
                          size_t count, bool *ret_existed, char *errbuf,
                          size_t errbuf_len);
  /* fire_tx_enqueue (NULL for a store without transactions):
   * trigger_add_many inside the fire transaction tx (fire_tx_begin),
   * committed or rolled back with it. */
  int (*fire_tx_enqueue)(chime_store_tx *tx, chime_trigger *const *ts,
                         size_t count, bool *ret_existed, char *errbuf,
                         size_t errbuf_len);
  /* The operators' lists (chime-admin.h, jobstore/admin.h): fills t,
   * whose columns are set, with the rows q asks for (its filters and page),
   * by this store's clock and rules.  hide_self: this store is an
   * operator's (chime_admin_open), whose own node is no node of the
   * cluster: left out of CHIME_ADMIN_NODES.  Returns: 0;
   * CHIME_EUNSUPPORTED (a list the store cannot give, errbuf says why);
   * the store's errors. */
  int (*admin_list)(chime_store *store, const chime_admin_query *q,
                    bool hide_self, chime_admin_table *t, char *errbuf,
                    size_t errbuf_len);
  /* chime_admin_repair's fix of one CHIME_ADMIN_STUCK row (NULL: a store
   * that is never left stuck, CHIME_EUNSUPPORTED).  *ret_fixed: whether it
   * was stuck and is fixed.  Returns: 0; CHIME_EINVAL; the store's
   * errors, errbuf says why. */
  /* chime_admin_audit: records an operator's action done by other means
   * (NULL: a store with no audit trail, CHIME_EUNSUPPORTED).  Returns: 0;
   * CHIME_EINVAL (no action); the store's errors, errbuf says why. */
  int (*audit_add)(chime_store *store, const char *who, const char *origin,
                   const char *action, const char *target, const char *details,
                   char *errbuf, size_t errbuf_len);
  int (*admin_repair)(chime_store *store, const char *kind, const char *group,
                      const char *name, int64_t fire_id, const char *node,
                      const char *who, const char *origin, bool *ret_fixed,
                      char *errbuf, size_t errbuf_len);
};

/* The most runs trigger_add_many takes at once, and the most data bytes
 * the engine puts in one batch (a batch of larger runs is cut shorter:
 * the MySQL store sends it as one statement, hex-encoded, which must stay
 * well within the server's max_allowed_packet, 16 MiB by default). */
#define CHIME__ENQUEUE_BATCH 1000
#define CHIME__ENQUEUE_BATCH_BYTES (4 * 1024 * 1024)

/* trigger_add_many for a store that has no faster way (the memory store):
 * trigger_add one by one (CHIME_EEXISTS being "existed"), stopping at the
 * first error, so not all or none: the memory store fails part-way only
 * when out of memory or when the job is removed meanwhile. */
int chime__store_trigger_add_many(chime_store *store, chime_trigger *const *ts,
                                  size_t count, bool *ret_existed, char *errbuf,
                                  size_t errbuf_len);

/* chime__fire_run_id: the key of a fire's checkpoint: the first fire of
 * the run it continues (a recovered run's origin), else its own id. */
static inline int64_t chime__fire_run_id(const chime_fire *fire) {
  return fire->trigger && fire->trigger->origin_fire_id > 0
             ? fire->trigger->origin_fire_id
             : fire->fire_id;
}

/* chime__fire_splits: whether running fire means splitting it into
 * shards (its job is sharded and it is no shard itself). */
static inline bool chime__fire_splits(const chime_fire *fire) {
  return fire->job && fire->job->shard_count != 0 && fire->trigger &&
         fire->trigger->shard_parent == 0;
}

/* chime__shard_triggers: the total shard triggers of sharded fire fire,
 * prepared and due at now_ms, in *ret (an array of total).
 * Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.  Ownership: the caller's, freed
 * with chime__shard_triggers_free (which takes NULL entries). */
int chime__shard_triggers(const chime_fire *fire, int total, int64_t now_ms,
                          chime_trigger ***ret);
void chime__shard_triggers_free(chime_trigger **ts, int n);

/* chime__shard_job: what a shard's fire makes of its job's copy: it
 * blocks nothing (its sharded fire does) and is always recovered. */
static inline void chime__shard_job(chime_job *job) {
  job->concurrency = CHIME_CONCURRENCY_ALLOW;
  job->requests_recovery = true;
}

/*
 * chime__shards_then_trigger: the run a sharded fire fire_id of job ends
 * with (chime_job_set_shards_then): a run of the job's then-job with the
 * unique key "shards-<fire_id>" and message (the sharded fire's history
 * message) as its data, due now; *ret NULL when the job names none.  The
 * store adds it in the transaction that completes the last shard.
 * Returns: 0; CHIME_ENOMEM; CHIME_EIO.  Ownership: *ret is the caller's.
 */
int chime__shards_then_trigger(const chime_job *job, int64_t fire_id,
                               const char *message, chime_trigger **ret);

/* chime__shards_message: the message of a sharded fire of total shards of
 * which failed failed, their indexes in the comma-separated list indexes
 * (NULL: not kept), into buf. */
void chime__shards_message(char *buf, size_t len, int total, int failed,
                           const char *indexes);

/* Whether complete() may take outcome (NULL is fine): its new job data,
 * when set, is within CHIME_MAX_DATA_LEN and present. */
bool chime__outcome_valid(const chime_run_result *outcome);

/* chime__outcome_retryable: whether outcome is a failure that may be retried
 * (an error, TIMED_OUT included, but not CANCELLED or MISSED). */
bool chime__outcome_retryable(const chime_run_result *outcome);

/* chime__retries: whether retry policy p (chime__run_retry) retries a run
 * with outcome: a retryable one, and not a timeout when p says timeouts
 * are not retried (chime_retry_set_timed_out). */
bool chime__retries(const chime_retry *p, const chime_run_result *outcome);

/*
 * chime__retry_for: the retry trigger a completion of fire with outcome
 * must store (jobstore/retry.c), firing at now_ms plus the back-off of the
 * run's policy (its own, else its job's: chime__run_retry),
 * or *ret NULL when the run succeeded, was cancelled or has no attempts
 * left.  Returns: 0; CHIME_ENOMEM.  Ownership: *ret is the caller's.
 */
int chime__retry_for(const chime_fire *fire, const chime_run_result *outcome,
                     int64_t now_ms, chime_trigger **ret);

/* chime__fire_original_ms: the time fire was first scheduled for (a
 * retry's is its first attempt's). */
int64_t chime__fire_original_ms(const chime_fire *fire);

/* Whether interrupt() may take its arguments: a valid job key and fire_id
 * 0, or NULL group and name and fire_id > 0. */
bool chime__interrupt_args_valid(const char *group, const char *name,
                                 int64_t fire_id);

/* acquire_due as acquire, then fire (the fires fire refuses are dropped). */
int chime__store_acquire_due(chime_store *store, int64_t now_ms,
                             int64_t no_later_than_ms, size_t max,
                             const chime_type_set *types,
                             chime_fire ***ret_fires, size_t *ret_count);

/* Every store begins with this header. */
struct chime_store {
  const chime_store_ops *ops;
};

/*
 * chime__store_open: opens the store a URL names: "memory:" or
 * "mysql://...".
 * Returns: 0; CHIME_EURL; CHIME_EUNSUPPORTED (not built in); the store's
 * own errors (CHIME_ECONNECT, CHIME_EAUTH, CHIME_ESCHEMA, ...), with a
 * message in errbuf.
 */
int chime__store_open(const char *url, const chime_store_options *options,
                      chime_store **ret_store, char *errbuf, size_t errbuf_len);

/* The memory store. */
int chime__memory_store_open(const chime_store_options *options,
                             chime_store **ret_store);

/* The MySQL/MariaDB store (built when CHIME_HAVE_MYSQL); url is a
 * "mysql://" URL (jobstore/mysql/url.h; parameters in jobstore/mysql/store.c).
 * Returns as chime__store_open. */
int chime__mysql_store_open(const char *url, const chime_store_options *options,
                            chime_store **ret_store, char *errbuf,
                            size_t errbuf_len);

/* chime_admin_get_schema_state's MySQL side (jobstore/mysql/admin.c). */
int chime__mysql_admin_schema_state(const char *url, long *ret_version,
                                    long *ret_latest, long *ret_compat,
                                    char *errbuf, size_t errbuf_len);

/* ------------------------------------------------------------ shared rules */

/*
 * The lease rule, written once.  A node holds its lease while its last
 * check-in is younger than CHIME__LEASE_FACTOR check-in intervals (its own
 * interval, by the database's clock).  A node that could not check in for
 * that long stops claiming (the engine fences it); once its lease ran out
 * other nodes declare it dead and recover its fires.  There is no grace
 * beyond the factor: the engine's fence and the stores' dead-node test use
 * the same figure, so a node stops before anyone takes its work.
 */
#define CHIME__LEASE_FACTOR 2

/* The length of a node's lease for its check-in interval, in ms. */
static inline int64_t chime__lease_ms(int64_t checkin_interval_ms) {
  return checkin_interval_ms * CHIME__LEASE_FACTOR;
}

/* The trigger group of one-off "fire now" triggers (Quartz's). */
#define CHIME__MANUAL_GROUP "MANUAL_TRIGGER"

/*
 * chime__store_check_trigger_add: what trigger_add needs of its arguments,
 * checked the same way by every store: the trigger's key, its job key, its
 * calendar name, and job (when not NULL: stored in the same step) valid
 * and the trigger's own job.
 * Returns: 0; CHIME_EINVAL; CHIME_ELIMIT, with a message in errbuf.
 * Thread: any.
 */
int chime__store_check_trigger_add(const chime_job *job,
                                   const chime_trigger *trigger, char *errbuf,
                                   size_t errbuf_len);

/*
 * chime__store_fire_now: Quartz's triggerJob: adds a one-off trigger in
 * CHIME__MANUAL_GROUP, due at once, for the job (group, name) with data
 * (len bytes, may be NULL when len is 0) as the fire's data.  Its name
 * ("MT_" and 64 random bits, then tag) is one no other node can pick;
 * ret_name (may be NULL; name_len bytes) receives it and ret_due_ms (may be
 * NULL) when it is due.
 * Returns: 0; CHIME_EINVAL; CHIME_ENOTFOUND (no such job); CHIME_EIO (no
 * randomness); the store's errors, with a message in errbuf.
 * Thread: any.
 */
int chime__store_fire_now(chime_store *store, const char *group,
                          const char *name, const void *data, size_t len,
                          const char *tag, char *ret_name, size_t name_len,
                          int64_t *ret_due_ms, char *errbuf, size_t errbuf_len);

#endif /* CHIME_JOBSTORE_STORE_H */
