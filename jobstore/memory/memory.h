/*
 * memory.h: the inside of the memory store, private to jobstore/memory/:
 * the entries, the indexes, and the calls between its files:
 *   store.c      the store object: open and free, the clock, the table of
 *                operations;
 *   lock.c       the store's one mutex, and the only calls that take it;
 *   index.c      the indexes: hash maps, the heaps of WAITING triggers,
 *                and the walk over due triggers in order;
 *   jobs.c       job entries and the job operations add and get;
 *   triggers.c   trigger entries, their state changes, and the trigger
 *                operations add, replace, get and status;
 *   remove.c     removing a job or a trigger, and the sharded fires that
 *                end with them (above the entries and the shards);
 *   calendars.c  calendars and what a changed calendar does to triggers;
 *   zones.c      what reloaded zone rules do to triggers;
 *   lists.c      key lists (jobs, triggers, the triggers of a job);
 *   pause.c      pausing and resuming, and the remembered paused groups;
 *   fire_record.c  fire records: found by id, deleted, an executing one
 *                ended (below fire.c and shards.c, which both end fires);
 *   fire.c       the firing protocol (acquire, fire, complete, release);
 *   misfires.c   the misfire scan;
 *   leases.c     named leases (store.h's lease_*).
 *   interrupt.c  flagging executing fires to be cancelled.
 *   shards.c     sharded fires (split, a shard's end) and checkpoints.
 *   limits.c     the limits of job types (docs/queue.md, "Limits").
 *   drain.c      draining the node (store.h's drain_* ops).
 *
 * Terms: an *entry* (mem_trigger, mem_job, mem_calendar) is the store's own
 * record of a trigger, job or calendar; a *claim* is a fire record
 * (mem_fire) in phase ACQUIRED, attached to the trigger it claims; a fire
 * record in phase EXECUTING only remembers keys, since its trigger may be
 * removed while the job runs.
 *
 * Indexes: hash maps keyed by "group\0name" bytes (jobs, triggers), by name
 * (calendars, job types) and by the 8 bytes of a fire id (fires); and one
 * binary heap of WAITING triggers per job type, ordered by next fire time,
 * then priority (higher first), then key, so that acquire looks only at the
 * triggers of the types a node runs and never scans the others.
 *
 * Invariants (chime__mem_trigger_check and chime__mem_fire_check assert
 * them wherever an entry settles):
 *   - a trigger is in a heap, the one of its job's type, exactly when it is
 *     WAITING, except while an operation holds it out (mem_held) and puts
 *     it back before unlocking;
 *   - a trigger has a claim exactly when it is ACQUIRED, and that claim's
 *     record points back at it; an EXECUTING fire record points at no
 *     trigger;
 *   - a job's nclaims counts its triggers' claims, ntriggers its list;
 *   - a trigger naming a calendar holds one of its nusers, and its
 *     schedule uses the calendar's current definition.
 *
 * Locks and threads: one mutex, mem_store.lock, guards everything above:
 * every map, heap, entry, fire record, the paused matchers and the
 * counters.  Each operation of the table in store.c takes it once
 * (chime__mem_lock, lock.c), does its work and releases it before it returns;
 * no operation calls another, and none sleeps, blocks or calls out of the store
 * while holding it (scan_misfires calls its on_misfire callback after
 * unlocking).  Copies handed out are made under the lock and belong to the
 * caller.  Every chime__mem_* helper that is handed the mem_store, and every
 * static helper that touches entries, expects the lock held and asserts it
 * (MEM_ASSERT_LOCKED).  The lock is not recursive, and a thread holds at most
 * one memory store's lock.  The exceptions: now() reads only what open() set;
 * free() runs when no other thread can use the store (it takes the lock anyway,
 * so the helpers' assertions hold). Any thread may call any operation.  The
 * engine calls acquire, acquire_due, fire, release, next_due and scan_misfires
 * on its loop thread, complete and still_owned on worker threads, and the job,
 * trigger, calendar, list and pause operations on the threads of the API's
 * callers.
 */
#ifndef CHIME_JOBSTORE_MEMORY_MEMORY_H
#define CHIME_JOBSTORE_MEMORY_MEMORY_H

#include "jobstore/store.h"

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------ index.c: maps */

typedef struct mem_map_node mem_map_node;

/* A chained hash map from byte strings to pointers. */
typedef struct mem_map {
  mem_map_node **buckets;
  size_t nbuckets; /* a power of two, or 0 before the first insert */
  size_t count;
} mem_map;

/* The value stored under key, or NULL. */
void *chime__mem_map_get(const mem_map *map, const void *key, size_t len);
/* Stores value under key (which must be absent).  Returns: 0; CHIME_ENOMEM. */
int chime__mem_map_put(mem_map *map, const void *key, size_t len, void *value);
/* Removes key; returns its value or NULL. */
void *chime__mem_map_del(mem_map *map, const void *key, size_t len);
/* Calls fn on every value; fn must not change the map. */
void chime__mem_map_each(const mem_map *map, void (*fn)(void *value, void *arg),
                         void *arg);
/* The values in an array of map->count pointers (malloc'd); NULL on an
 * empty map, or on allocation failure (then *ok is false). */
void **chime__mem_map_values(const mem_map *map, bool *ok);
/* Frees the nodes (not the values). */
void chime__mem_map_clear(mem_map *map);

/* A key "group\0name" in buf; returns its length or 0 when too long. */
size_t chime__mem_key(char *buf, size_t buf_len, const char *group,
                      const char *name);
/* Room for any valid key. */
#define MEM_KEY_MAX (2 * CHIME_MAX_NAME_LEN + 2)

/* --------------------------------------------------------------- entries */

typedef struct mem_job mem_job;
typedef struct mem_fire mem_fire;
typedef struct mem_heap mem_heap;

typedef struct mem_trigger {
  chime_trigger *t; /* owned; t->store_state is the state */
  mem_job *job;     /* the job it fires */
  struct mem_trigger *prev_of_job, *next_of_job; /* the job's triggers */
  mem_heap *heap; /* the heap it is in (WAITING only), or NULL */
  size_t heap_index;
  mem_fire *claim;               /* its ACQUIRED fire, or NULL */
  struct mem_calendar *calendar; /* the calendar it names, or NULL */
} mem_trigger;

struct mem_job {
  chime_job *j;          /* owned */
  mem_trigger *triggers; /* list head */
  size_t ntriggers;
  size_t nclaims;    /* ACQUIRED fires of its triggers */
  size_t nexecuting; /* EXECUTING fires of a FORBID job */
  bool paused;       /* pause_job: its new triggers start PAUSED */
};

typedef struct mem_calendar {
  char *name;
  chime_calendar *cal; /* one reference, the store's */
  size_t nusers;       /* triggers naming it */
} mem_calendar;

struct mem_fire {
  int64_t id;
  chime_fire_phase phase;
  mem_trigger *trig; /* ACQUIRED: the trigger claimed, NULL once lost */
  char *key;         /* EXECUTING: the trigger's key bytes */
  size_t key_len;
  char *job_key; /* the job's key bytes */
  size_t job_key_len;
  bool forbid; /* EXECUTING: it blocks its job */
  bool cancel; /* EXECUTING: interrupt() asked its run to stop */
  /* A sharded fire split into shards (shards.c): a copy of the fire for
   * its history row, the shards not finished yet, those that failed. */
  chime_fire *whole;
  int64_t split_ms;
  int shards_total, shards_left, shards_failed;
  char *failed_list; /* "3,7": the failed indexes, as far as they fit */
  /* What the limits count it under (limits.c): its job's type, its
   * trigger's partition key (or NULL), and whether it is a shard (counted
   * as part of its sharded fire). */
  char *type;
  char *partition;
  bool shard;
  int64_t scheduled_ms; /* the fire time claimed, for a lost run's history */
};

/* A binary min-heap of WAITING triggers of one job type. */
struct mem_heap {
  char *type;
  mem_trigger **items;
  size_t count, cap;
};

/* A remembered paused group pattern. */
typedef struct mem_paused_group {
  chime_match match;
  char *pattern; /* NULL for CHIME_MATCH_ANY */
} mem_paused_group;

typedef struct mem_store {
  chime_store base;
  pthread_mutex_t lock;
  int64_t clock_offset_ms;
  int64_t misfire_threshold_ms;
  mem_map jobs, triggers, calendars, heaps, fires;
  mem_paused_group *paused;
  size_t npaused, paused_cap;
  bool all_paused;
  int64_t last_fire_id;         /* fire ids only grow */
  char *node;                   /* the instance id, for the history */
  chime_history_entry *history; /* history.c: ring of CHIME__MEM_HISTORY_CAP */
  int64_t history_next_id;      /* the last id written */
  mem_map leases;               /* lease name -> mem_lease (leases.c) */
  int64_t leases_swept_ms;      /* the check-in's last sweep (store time) */
  char *tags;                   /* this node's tags (options.tags) */
  mem_map checkpoints;          /* run id -> mem_checkpoint (shards.c) */
  chime_shards_done_fn on_shards_done;
  void *shards_user_data;
  mem_map limits;        /* job type -> mem_limit (limits.c) */
  int64_t limit_wait_ms; /* store.h's limit_wait_ms after the last acquire */
  /* drain.c: the node's drain request (asked, when, its timeout or 0)
   * and its chime_node_state. */
  bool drain_asked;
  int drain_state;
  int64_t drain_requested_ms, drain_timeout_ms;
} mem_store;

/* ------------------------------------------------------------- drain.c */

int chime__mem_drain_set(chime_store *store, const char *node, bool drain,
                         int64_t timeout_ms, const char *who,
                         const char *origin);
int chime__mem_drain_get(chime_store *store, const char *node, int *ret_state);
int chime__mem_checkin_drain(chime_store *store, bool *ret_overdue);
int chime__mem_drain_report(chime_store *store, size_t handed);
int chime__mem_drain_hand_over(chime_store *store, int64_t budget_ms,
                               chime_recovery_fn each, void *user_data,
                               size_t *ret_handed);

/* ------------------------------------------------------------ limits.c */

/* Before an acquire: counts the running fires of each limited type (and
 * of its partitions) from the fire records, and forgets the last wait. */
int chime__mem_limits_count(mem_store *s);
/* Whether acquire may claim mt now (counting it when so): always for an
 * unlimited type or a shard, else when its type, partition and rate have
 * room; when not, limit_wait_ms is lowered to when it may. */
bool chime__mem_limit_admit(mem_store *s, const mem_trigger *mt,
                            int64_t now_ms);
/* Whether the job type has a limit. */
bool chime__mem_limited(const mem_store *s, const char *type);
void chime__mem_limits_free(mem_store *s);
int chime__mem_limit_set(chime_store *store, const char *job_type,
                         const chime_limit_def *def);
int chime__mem_limit_get(chime_store *store, const char *job_type,
                         chime_limit_def *ret);
/* Gives t (stored for job) the partition key its data names when its
 * type's limit has a partition field (chime__limit_partition_from_data).
 * Returns: 0; CHIME_ENOMEM. */
int chime__mem_limit_partition(mem_store *s, chime_trigger *t,
                               const chime_job *job);
int64_t chime__mem_limit_wait_ms(chime_store *store);
int chime__mem_limit_stats(chime_store *store, int64_t now_ms,
                           chime_limit_stat **ret_stats, size_t *ret_count);

/* ------------------------------------------------------------ shards.c */

/* A sharded fire that finished, to tell on_shards_done after unlocking. */
typedef struct mem_shards_done {
  chime_fire *whole; /* owned; NULL: none */
  chime_shards_done info;
  char message[160];
} mem_shards_done;

/* A completion of shard fire (not retried: retried false) under the lock:
 * its sharded fire has one shard fewer; when that was the last, the
 * sharded fire is recorded and ended, and *done says so.  Lock held. */
void chime__mem_shard_end(mem_store *s, const chime_fire *fire,
                          const chime_run_result *outcome,
                          mem_shards_done *done);
/* Ends the waiting sharded fires of a removed job (by_job: key is the
 * job's key bytes) or trigger (its key bytes): a CANCELLED history row
 * each ("job removed"), then ended as a completed fire, so a FORBID job
 * re-added under the key is not blocked.  Their shards still out find the
 * fire gone.  Lock held. */
void chime__mem_shards_end_removed(mem_store *s, const char *key,
                                   size_t key_len, bool by_job);
/* Tells on_shards_done, then frees done's copy.  Lock not held. */
void chime__mem_shards_tell(mem_store *s, mem_shards_done *done);
/* Deletes the checkpoint of run id run_id, if any.  Lock held. */
void chime__mem_checkpoint_drop(mem_store *s, int64_t run_id);
/* The checkpoint of run run_id (NULL: none), *ret_len its length; borrowed
 * while the lock is held.  Lock held. */
const void *chime__mem_checkpoint_peek(const mem_store *s, int64_t run_id,
                                       size_t *ret_len);
/* Frees every checkpoint (the store is being freed).  Lock held. */
void chime__mem_checkpoints_free(mem_store *s);
int chime__mem_shard_split(chime_store *store, const chime_fire *fire,
                           int *ret_total);
int chime__mem_checkpoint_set(chime_store *store, const chime_fire *fire,
                              const void *data, size_t len);
int chime__mem_checkpoint_get(chime_store *store, const chime_fire *fire,
                              void **ret_data, size_t *ret_len);

/* ----------------------------------------------------------- history.c */

/* The runs the memory store keeps (its retention): the newest ones. */
#define CHIME__MEM_HISTORY_CAP 1000u

/* Records a completed run.  Lock held. */
void chime__mem_history_record(mem_store *s, const chime_fire *fire,
                               const chime_run_result *outcome, bool retried);
/* Records the end of an executing fire whose run did not end it (rec,
 * not yet deleted): outcome and message, at now.  Lock held. */
void chime__mem_history_lost(mem_store *s, const mem_fire *rec, int64_t now,
                             const char *outcome, const char *message);
/* The history_list op. */
int chime__mem_history_list(chime_store *store, const chime_history_filter *f,
                            chime_history_entry **ret_entries,
                            size_t *ret_count);

/* ----------------------------------------------------------- admin.c */

/* The admin_list op (store.h): the operators' lists. */
int chime__mem_admin_list(chime_store *store, const chime_admin_query *q,
                          bool hide_self, chime_admin_table *t, char *errbuf,
                          size_t errbuf_len);
/* CHIME_ADMIN_JOB_STATS from the runs kept (admin_job_stats.c).  Lock held.
 * Returns: 0; CHIME_ENOMEM. */
int chime__mem_admin_job_stats(mem_store *s, const chime_admin_query *q,
                               chime_admin_table *t);
/* Its lists of the cluster's figures, group pauses and activity
 * (admin_stats.c), CHIME_ADMIN_RUN_COUNTS to CHIME_ADMIN_EVENTS but the
 * limits.  Lock held.  Returns: 0; CHIME_ENOMEM. */
int chime__mem_admin_stats(mem_store *s, const chime_admin_query *q,
                           chime_admin_table *t);
/* Frees the ring (the store is being freed). */
void chime__mem_history_free(mem_store *s);

/* ----------------------------------------------------- index.c: heaps */

/* Orders heap entries: next fire, priority (higher first), group, name. */
int chime__mem_trigger_order(const mem_trigger *a, const mem_trigger *b);
/* The heap of a job type, created on first use; NULL on ENOMEM. */
mem_heap *chime__mem_heap_for(mem_store *s, const char *type);
/* Adds a WAITING trigger that is in no heap to h, the heap of its job's
 * type.  Returns: 0; CHIME_ENOMEM. */
int chime__mem_heap_push(mem_heap *h, mem_trigger *mt);
/* Removes a trigger from its heap, if it is in one. */
void chime__mem_heap_remove(mem_trigger *mt);
/* The first entry, or NULL. */
mem_trigger *chime__mem_heap_top(const mem_heap *h);
void chime__mem_heap_free(void *heap, void *unused);

/* ------------------------------------------------- index.c: due order */

/* The heaps of the job types in types, or of all types (types NULL).
 * Returns: a malloc'd array of *ret_n heaps (NULL when there are none), or
 * NULL with *ok false on ENOMEM. */
mem_heap **chime__mem_heaps_of(mem_store *s, const chime_type_set *types,
                               size_t *ret_n, bool *ok);
/* The first trigger due across n heaps (chime__mem_trigger_order), or
 * NULL. */
mem_trigger *chime__mem_first_due(mem_heap **hs, size_t n);

/* Triggers an operation took out of their heaps to look past them; it
 * puts them back (chime__mem_unhold) before it unlocks. */
typedef struct mem_held {
  mem_trigger **items;
  size_t count, cap;
} mem_held;
/* Takes WAITING mt out of its heap into h.  Returns false on ENOMEM (then
 * mt stays in its heap). */
bool chime__mem_hold(mem_held *h, mem_trigger *mt);
/* Puts the held triggers that are still WAITING back into their heaps and
 * frees h's array (triggers.c: through chime__mem_set_state). */
void chime__mem_unhold(mem_store *s, mem_held *h);

/* --------------------------------------------------------------- lock.c */

/* Lock and unlock the store (not recursive). */
void chime__mem_lock(mem_store *s);
void chime__mem_unlock(mem_store *s);
/* Whether the calling thread holds s's lock. */
bool chime__mem_locked(const mem_store *s);
#define MEM_ASSERT_LOCKED(s) assert(chime__mem_locked(s))

/* Whether state is one of chime_store_state's values. */
static inline bool chime__mem_state_valid(chime_store_state state) {
  return state >= CHIME_STATE_WAITING && state <= CHIME_STATE_ERROR;
}

/* --------------------------------------------------------------- jobs.c */

/* The job entry of (group, name), or NULL. */
mem_job *chime__mem_job_find(mem_store *s, const char *group, const char *name);
/* An operation on the job (MEM_JOB) or trigger (MEM_TRIGGER) of key
 * (group, name): checks the key, takes the store's lock and calls fn(s,
 * its entry: a mem_job or mem_trigger, arg) with it held.  Returns: fn's
 * result; the key check's error; CHIME_ENOTFOUND (fn not called). */
typedef enum { MEM_JOB, MEM_TRIGGER } mem_kind;
int chime__mem_on_key(chime_store *store, mem_kind kind, const char *group,
                      const char *name,
                      int (*fn)(mem_store *s, void *entry, void *arg),
                      void *arg);
/* A new job entry owning j.  Returns: the entry; NULL on ENOMEM (j is
 * still the caller's). */
mem_job *chime__mem_job_insert(mem_store *s, chime_job *j);
/* Swaps a job's definition for j (owned); its WAITING triggers move to the
 * heap of the new type. */
void chime__mem_job_replace(mem_store *s, mem_job *mj, chime_job *j);
/* Removes a job entry with its triggers. */
void chime__mem_job_delete(mem_store *s, mem_job *mj);
/* Asserts the invariants of a job entry; nothing when NDEBUG is defined. */
void chime__mem_job_check(const mem_job *mj);

int chime__mem_job_add(chime_store *store, const chime_job *job, bool replace);
int chime__mem_job_get(chime_store *store, const char *group, const char *name,
                       chime_job **ret_job);

/* ----------------------------------------------------------- triggers.c */

/* The trigger entry of (group, name), or NULL. */
mem_trigger *chime__mem_trigger_find(mem_store *s, const char *group,
                                     const char *name);

/*
 * chime__mem_set_state: moves a trigger to state: into its type's heap for
 * WAITING (COMPLETE instead when it cannot fire again), out of it
 * otherwise; a claim it held is dropped (the fire record stays, detached).
 * Returns: 0; CHIME_ENOMEM (the heap could not grow: the trigger is left in
 * CHIME_STATE_ERROR).
 */
int chime__mem_set_state(mem_store *s, mem_trigger *mt,
                         chime_store_state state);

/* Detaches a trigger's claim, if any. */
void chime__mem_drop_claim(mem_trigger *mt);

/*
 * chime__mem_trigger_delete: removes a trigger entry; when cascade and its
 * job is left without triggers and is not durable, the job goes too.
 */
void chime__mem_trigger_delete(mem_store *s, mem_trigger *mt, bool cascade);

/* A copy of a trigger to hand out (calendar pointer cleared); NULL on
 * ENOMEM. */
chime_trigger *chime__mem_trigger_out(const mem_trigger *mt);

/* Whether mt's fire time is a misfire at now (the store's threshold). */
bool chime__mem_misfired(const mem_store *s, const mem_trigger *mt,
                         int64_t now_ms);

/* Asserts the invariants (the top of this file) of a settled trigger
 * entry; nothing when NDEBUG is defined. */
void chime__mem_trigger_check(const mem_trigger *mt);

/* chime__mem_retry_insert: stores retry trigger t (owned) under the lock
 * a completion holds; nothing when its job is gone or it exists already.
 * Returns: 0; CHIME_ENOMEM. */
int chime__mem_retry_insert(mem_store *s, chime_trigger *t);

int chime__mem_trigger_add(chime_store *store, const chime_job *job,
                           const chime_trigger *trigger, bool replace,
                           int64_t *ret_first_fire_ms, char *errbuf,
                           size_t errbuf_len);
int chime__mem_trigger_replace(chime_store *store, const char *group,
                               const char *name, const chime_trigger *trigger,
                               int64_t *ret_first_fire_ms, char *errbuf,
                               size_t errbuf_len);
int chime__mem_trigger_get(chime_store *store, const char *group,
                           const char *name, chime_trigger **ret_trigger);
int chime__mem_trigger_status(chime_store *store, const char *group,
                              const char *name,
                              chime_trigger_status *ret_status);

/* ------------------------------------------------------------- remove.c */

int chime__mem_job_remove(chime_store *store, const char *group,
                          const char *name);
int chime__mem_trigger_remove(chime_store *store, const char *group,
                              const char *name);

/* ---------------------------------------------------------- calendars.c */

int chime__mem_calendar_add(chime_store *store, const char *name,
                            const chime_calendar *calendar, bool replace,
                            bool update_triggers);
int chime__mem_calendar_remove(chime_store *store, const char *name);
int chime__mem_calendar_get(chime_store *store, const char *name,
                            chime_calendar **ret_calendar);
void chime__mem_calendar_free(void *calendar, void *unused);
/* Recomputes an unclaimed trigger's next fire after its calendar or its
 * zone's rules changed; returns whether it moved.  Lock held. */
bool chime__mem_recompute(mem_store *s, mem_trigger *mt);

/* ------------------------------------------------------------- zones.c */

int chime__mem_recompute_zones(chime_store *store, const char *const *zones,
                               size_t count, size_t max,
                               chime_zones_cursor **cursor,
                               size_t *ret_recomputed);

/* -------------------------------------------------------------- lists.c */

/* Validates a group matcher (the pattern unless ANY).  Returns: 0;
 * CHIME_EINVAL; CHIME_ELIMIT. */
int chime__mem_match_check(chime_match match, const char *pattern);

int chime__mem_job_list(chime_store *store, chime_match match,
                        const char *pattern, chime_key **ret_keys,
                        size_t *ret_count);
int chime__mem_trigger_list(chime_store *store, chime_match match,
                            const char *pattern, chime_key **ret_keys,
                            size_t *ret_count);
int chime__mem_trigger_list_for_job(chime_store *store, const char *job_group,
                                    const char *job_name, chime_key **ret_keys,
                                    size_t *ret_count);

/* -------------------------------------------------------------- pause.c */

/* Forgets every paused matcher (free). */
void chime__mem_paused_free(mem_store *s);

int chime__mem_pause_trigger(chime_store *store, const char *group,
                             const char *name);
int chime__mem_resume_trigger(chime_store *store, const char *group,
                              const char *name);
int chime__mem_pause_job(chime_store *store, const char *group,
                         const char *name);
int chime__mem_resume_job(chime_store *store, const char *group,
                          const char *name);
int chime__mem_pause_group(chime_store *store, chime_match match,
                           const char *pattern);
int chime__mem_resume_group(chime_store *store, chime_match match,
                            const char *pattern);
int chime__mem_pause_all(chime_store *store);
int chime__mem_resume_all(chime_store *store);

/* --------------------------------------------------------------- fire.c */

int chime__mem_acquire(chime_store *store, int64_t now_ms,
                       int64_t no_later_than_ms, size_t max,
                       const chime_type_set *types, chime_fire ***ret_fires,
                       size_t *ret_count);
int chime__mem_fire(chime_store *store, chime_fire **fires, size_t count,
                    int64_t now_ms);
int chime__mem_complete(chime_store *store, const chime_fire *fire,
                        const chime_run_result *outcome);
int chime__mem_release(chime_store *store, chime_fire **fires, size_t count);
/* interrupt.c */
int chime__mem_interrupt(chime_store *store, const char *group,
                         const char *name, int64_t fire_id, size_t *ret_count);
int chime__mem_interrupted(chime_store *store, int64_t **ret_ids,
                           size_t *ret_count);
int chime__mem_still_owned(chime_store *store, const chime_fire *fire,
                           bool *ret_owned);
int chime__mem_next_due(chime_store *store, const chime_type_set *types,
                        int64_t after_ms, int64_t *ret_ms);

/* -------------------------------------------------------- fire_record.c */

/* Frees a fire record (also a map's free function). */
void chime__mem_fire_record_free(void *fire, void *unused);
/* Asserts the invariants of a fire record; nothing when NDEBUG is
 * defined. */
void chime__mem_fire_check(const mem_fire *f);
/* The fire record of id, or NULL.  Lock held. */
mem_fire *chime__mem_fire_find(mem_store *s, int64_t id);
/* Deletes a fire record that holds no claim.  Lock held. */
void chime__mem_fire_delete(mem_store *s, mem_fire *f);
/* Ends an EXECUTING fire record: unblocks its FORBID job, deletes its
 * trigger when COMPLETE.  Lock held. */
void chime__mem_fire_end(mem_store *s, mem_fire *rec);

/* ----------------------------------------------------------- misfires.c */

int chime__mem_scan_misfires(chime_store *store, int64_t now_ms, size_t max,
                             chime_misfire_fn on_misfire, void *user_data,
                             size_t *ret_handled, bool *ret_more);

/* ------------------------------------------------------------ leases.c */

int chime__mem_lease_acquire(chime_store *store, const char *name,
                             int64_t at_most_ms, int64_t at_least_ms,
                             chime_lease_info *ret);
int chime__mem_lease_extend(chime_store *store, const char *name, int64_t token,
                            int64_t at_most_ms, int64_t *ret_expires_ms);
int chime__mem_lease_release(chime_store *store, const char *name,
                             int64_t token);
int chime__mem_lease_held(chime_store *store, const char *name, int64_t token,
                          bool *ret_held);
int chime__mem_lease_end(chime_store *store, const char *name);
/* The leases as chime-admin.h's CHIME_ADMIN_LEASES rows, by name, into t
 * (its lock held; expired by now).  Returns: 0; CHIME_ENOMEM. */
int chime__mem_admin_leases(mem_store *s, int64_t now, chime_admin_table *t);
/* Frees every lease entry (the store is being freed, its lock held). */
void chime__mem_leases_free(mem_store *s);
/* A lease entry is kept this long after its lease ran out (as the MySQL
 * store's rows: docs/schema.md, "Bounded tables"). */
#define CHIME__MEM_LEASE_KEEP_MS INT64_C(86400000)
/* Drops the entries whose lease ran out before now -
 * CHIME__MEM_LEASE_KEEP_MS; returns how many.  The store's lock held. */
size_t chime__mem_leases_sweep(mem_store *s, int64_t now);

#endif /* CHIME_JOBSTORE_MEMORY_MEMORY_H */
