/*
 * records.h: the layout of job and trigger definitions (the public
 * chime_job and chime_trigger), shared by the public builders, both stores
 * and the engine.  A record is a plain value: the stores keep copies, and
 * what they hand out are copies again.
 *
 * A trigger record holds its definition as given (kind fields, zone name,
 * cron text, calendar name) plus the resolved chime_schedule (zone and cron
 * compiled, owned by the record; the calendar pointer is borrowed from the
 * store that resolves the name, NULL elsewhere) and its chime_fire_state
 * (triggers/trigger.h).
 */
#ifndef CHIME_MODEL_RECORDS_H
#define CHIME_MODEL_RECORDS_H

#include "chime.h"
#include "triggers/trigger.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A retry policy (chime_retry_new); max_attempts 0 or 1: none.  The
 * multiplier is kept in thousandths so both stores hold it exactly (0
 * reads as 1000). */
struct chime_retry {
  int64_t max_attempts;
  int64_t initial_delay_ms;
  int64_t multiplier_milli;
  int64_t max_delay_ms;
  int64_t jitter_ms;
  bool timed_out; /* a TIMED_OUT run is retried (default true) */
};

struct chime_job {
  char *group;
  char *name;
  char *type;
  char *description; /* NULL for none */
  void *data;        /* NULL when data_len == 0 */
  size_t data_len;
  bool durable;
  bool requests_recovery;
  chime_concurrency concurrency;
  bool persist_data;
  int64_t timeout_ms;                /* run policies: 0 for none */
  int64_t starting_deadline_ms;      /* run policies: 0 for none */
  int64_t queue_cap;                 /* FORBID_QUEUE: 0 for none */
  chime_retry retry;                 /* chime_job_set_retry */
  chime_history_level history_level; /* which runs history records */
  /* Sharding (chime_job_set_shards): 0 for none, CHIME_SHARDS_BROADCAST,
   * or the shard count; shard_params "0=a,1=b" or NULL.  required_tags
   * (chime_job_add_required_tag): sorted, comma-separated, or NULL. */
  int32_t shard_count;
  char *shard_params;
  char *required_tags;
  /* chime_job_set_shards_then: the job a run of which is enqueued when a
   * sharded fire's last shard finished; both NULL for none. */
  char *then_group;
  char *then_name;
};

/* Where a trigger is in the store's state machine (docs/schema.md). */
typedef enum chime_store_state {
  CHIME_STATE_WAITING = 0,        /* due at state.next_fire_ms */
  CHIME_STATE_ACQUIRED = 1,       /* claimed by a node, not fired yet */
  CHIME_STATE_EXECUTING = 2,      /* fired; its run has not completed */
  CHIME_STATE_BLOCKED = 3,        /* its FORBID job is running */
  CHIME_STATE_PAUSED = 4,         /* paused */
  CHIME_STATE_PAUSED_BLOCKED = 5, /* paused while blocked */
  CHIME_STATE_COMPLETE = 6,       /* will not fire again */
  CHIME_STATE_ERROR = 7           /* could not compute its schedule */
} chime_store_state;

struct chime_trigger {
  char *group;
  char *name;
  char *job_group; /* NULL until chime_trigger_set_job */
  char *job_name;
  char *description;
  char *calendar_name; /* NULL for none */
  void *data;
  size_t data_len;
  char *zone_name;         /* cron, calendar-interval, daily */
  char *cron_text;         /* cron: the expression; recurrence: its text */
  chime_cron *cron;        /* owned, compiled from cron_text */
  chime_rrule *rrule;      /* recurrence: owned, compiled from cron_text */
  bool start_set;          /* start_ms given; otherwise "now" when scheduled */
  chime_schedule schedule; /* zone and cron point into this record */
  chime_fire_state state;
  chime_store_state store_state;
  /* Not stored: the fire time a store's misfire scan found missed, set on
   * the copy it hands to the engine (0: none). */
  int64_t misfired_ms;
  int64_t timeout_ms;           /* run policies: 0 for the job's */
  int64_t starting_deadline_ms; /* run policies: 0 for the job's */
  /* A retry's trigger (chime__trigger_retry_new): the attempt it runs and
   * the failed run's original scheduled time; 0 for any other trigger. */
  int64_t retry_attempt;
  int64_t retry_scheduled_ms;
  /* A shard's trigger (chime__trigger_shard_new): the sharded fire it
   * belongs to (0 for any other trigger), its index, the count and its
   * parameter (NULL: none).  origin_fire_id: the first fire of the run a
   * recovered run continues (its checkpoint's key), 0 when it is the
   * fire's own. */
  int64_t shard_parent;
  int32_t shard_index;
  int32_t shard_total;
  char *shard_param;
  int64_t origin_fire_id;
  /* chime_trigger_set_partition_key: the key its job type's per-partition
   * limit counts its runs under (docs/queue.md, "Limits"), or NULL. */
  char *partition_key;
  /* A keyed run's (chime__trigger_keyed) hold after its final outcome
   * (chime_enqueue_set_unique_for_ms), and once it ended, the store's time
   * until which its COMPLETE trigger keeps the key (0: not held). */
  int64_t unique_for_ms;
  int64_t held_until_ms;
  /* An enqueued run's own retry policy (chime_enqueue_set_retry), carried
   * by its retries; retry.max_attempts 0: its job's. */
  chime_retry retry;
};

/* chime__trigger_keyed: whether t is an enqueued run with a unique key
 * (CHIME_QUEUE_GROUP, "K_" key): its retries and its recovered run are
 * the same trigger again, so the key stays taken (docs/queue.md).
 * chime__trigger_hold_over: whether t is such a run's COMPLETE trigger
 * whose hold ended by now_ms (an enqueue may take the key). */
bool chime__trigger_keyed(const chime_trigger *t);
bool chime__trigger_hold_over(const chime_trigger *t, int64_t now_ms);

/*
 * chime__name_check: validates a key part, job type or calendar name:
 * 1-CHIME_MAX_NAME_LEN bytes of valid UTF-8 without control characters.
 * what names the argument in the message ("trigger group").
 * Returns: 0; CHIME_EINVAL; CHIME_ELIMIT.
 */
int chime__name_check(const char *value, const char *what, char *errbuf,
                      size_t errbuf_len);

/* chime__key_check: a job or trigger key as the stores accept it.
 * Returns: 0; CHIME_EINVAL; CHIME_ELIMIT. */
int chime__key_check(const char *group, const char *name);

/* chime__concurrency_valid: a value of chime_concurrency.
 * chime__concurrency_exclusive: whether runs of a job with it never
 * overlap (its triggers are BLOCKED while one runs). */
static inline bool chime__concurrency_valid(chime_concurrency c) {
  return c == CHIME_CONCURRENCY_ALLOW || c == CHIME_CONCURRENCY_FORBID ||
         c == CHIME_CONCURRENCY_FORBID_SKIP || c == CHIME_CONCURRENCY_REPLACE;
}
/* chime__queue_keep: how many due fire times of each trigger a job keeps
 * when its run ends: 0 under FORBID_SKIP (all missed ones are dropped), 1
 * under REPLACE (the newest replaces the run that held them all up: the
 * older ones are dropped, not replayed), the cap of a capped FORBID_QUEUE,
 * or -1: all (nothing is dropped). */
static inline int64_t chime__queue_keep(const chime_job *job) {
  if (job->concurrency == CHIME_CONCURRENCY_FORBID_SKIP)
    return 0;
  if (job->concurrency == CHIME_CONCURRENCY_REPLACE)
    return 1;
  if (job->concurrency == CHIME_CONCURRENCY_FORBID_QUEUE && job->queue_cap > 0)
    return job->queue_cap;
  return -1;
}
static inline bool chime__concurrency_exclusive(chime_concurrency c) {
  return c == CHIME_CONCURRENCY_FORBID || c == CHIME_CONCURRENCY_FORBID_SKIP ||
         c == CHIME_CONCURRENCY_REPLACE;
}

/* chime__backfill_prefix: "bf-<FNV-1a 64 of group 0x00 name, hex>-", the
 * start of every backfill trigger name of trigger (group, name). */
void chime__backfill_prefix(const char *group, const char *name, char *buf,
                            size_t len);

/*
 * chime__trigger_one_shot_new: a trigger of group/name firing once at
 * start_ms for t's job, with t's data, misfire policy and priority as
 * given: the shape shared by backfill and retry triggers.
 * Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.  Ownership: *ret is the caller's.
 */
int chime__trigger_one_shot_new(const chime_trigger *t, const char *group,
                                const char *name, int64_t start_ms,
                                chime_misfire misfire, int priority,
                                const char *description, chime_trigger **ret);

/* chime__history_wanted: whether a run of job whose outcome is OK (ok) or
 * not is recorded in the history under the job's history level (NULL job:
 * every run).  Both stores ask it before they write a run's row. */
bool chime__history_wanted(const chime_job *job, bool ok);

/* The group of the one-shot triggers that run retries. */
#define CHIME__RETRY_GROUP "CHIME_RETRY"

/*
 * chime__trigger_retry_new: the durable retry of fire fire_id of trigger t
 * (which ran attempt `attempt`, originally scheduled at scheduled_ms): in
 * group CHIME__RETRY_GROUP, named from the fire id (so it is created once),
 * firing at at_ms with misfire FIRE_NOW, carrying t's data, and
 * retry_attempt attempt + 1.  Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.
 */
int chime__trigger_retry_new(const chime_trigger *t, int64_t fire_id,
                             int attempt, int64_t scheduled_ms, int64_t at_ms,
                             chime_trigger **ret);

/* chime__run_attempt: the attempt a fire of trigger t runs (1, or a
 * retry's number). */
static inline int chime__run_attempt(const chime_trigger *t) {
  return t && t->retry_attempt > 1 ? (int)t->retry_attempt : 1;
}

/* The group of the one-shot triggers of the shards of sharded fires. */
#define CHIME__SHARD_GROUP "CHIME_SHARD"

/*
 * chime__trigger_shard_new: shard index of total of the sharded fire
 * fire_id of trigger t (scheduled at scheduled_ms): in group
 * CHIME__SHARD_GROUP, named "<fire id>.<index>", due at at_ms with misfire
 * IGNORE (a shard is never skipped), carrying t's data, priority and
 * timeout, and the parameter param (NULL: none).
 * Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.  Ownership: *ret is the caller's.
 */
int chime__trigger_shard_new(const chime_trigger *t, int64_t fire_id,
                             int64_t scheduled_ms, int index, int total,
                             const char *param, int64_t at_ms,
                             chime_trigger **ret);

/* chime__shard_param: the parameter of shard index in params ("0=a,1=b",
 * may be NULL), copied into buf (len bytes); false when it has none. */
bool chime__shard_param(const char *params, int index, char *buf, size_t len);

/* chime__tags_cover: whether every tag of required (a sorted,
 * comma-separated list, NULL or "" for none) is in have (the same form). */
bool chime__tags_cover(const char *have, const char *required);

/* chime__tags_add: adds tag (checked: 1 to CHIME_MAX_TAG_LEN of
 * [A-Za-z0-9_.:-]) to the sorted list *list, at most CHIME_MAX_TAGS.
 * Returns: 0; CHIME_EINVAL; CHIME_ELIMIT; CHIME_ENOMEM. */
int chime__tags_add(char **list, const char *tag);

/* chime__job_check: a job definition as the stores accept it (key, type,
 * concurrency, data size, run policies).  Returns: 0; CHIME_EINVAL;
 * CHIME_ELIMIT. */
int chime__job_check(const chime_job *job);

/* chime__retry_defaults: p as chime_retry_new leaves it (no retries). */
void chime__retry_defaults(chime_retry *p);

/* chime__retry_check: p is within the limits of the chime_retry setters
 * (a stored row may hold anything).  chime__job_retry_check: the job's.
 * Returns: 0; CHIME_EINVAL. */
int chime__retry_check(const chime_retry *p);
int chime__job_retry_check(const chime_job *job);

/* chime__run_retry: the policy a run of job fired by t follows: t's own
 * (an enqueued run's, chime_enqueue_set_retry, and its retries') when it
 * has one, else the job's; NULL when job is NULL and t has none. */
const chime_retry *chime__run_retry(const chime_job *job,
                                    const chime_trigger *t);

/* chime__retry_wanted: a failed attempt (1 for the first run) under
 * policy p is followed by another one. */
bool chime__retry_wanted(const chime_retry *p, int attempt);

/* chime__retry_delay_ms: how long after attempt (>= 1) failed the next
 * one is due: the back-off of policy p plus the jitter derived from seed
 * (the failed fire's id: the same on every node). */
int64_t chime__retry_delay_ms(const chime_retry *p, int attempt, uint64_t seed);

/* Deep copies; NULL on allocation failure.  The copy's calendar pointer is
 * the original's (borrowed). */
chime_job *chime__job_copy(const chime_job *job);
chime_trigger *chime__trigger_copy(const chime_trigger *trigger);

/* The public status for a store state. */
chime_trigger_status chime__store_state_status(chime_store_state state);

/*
 * chime__trigger_prepare: makes a trigger ready to store: sets start_ms to
 * now_ms when it was not set, attaches calendar (borrowed; may be NULL),
 * validates the schedule and computes the first fire.
 * Returns: 0; CHIME_EINVAL (no job named, invalid schedule: errbuf says
 * why); CHIME_ENEVERFIRES.
 */
int chime__trigger_prepare(chime_trigger *trigger,
                           const chime_calendar *calendar, int64_t now_ms,
                           char *errbuf, size_t errbuf_len);

/* Helpers for builders: replace *slot with a copy (NULL text clears);
 * CHIME_ELIMIT past max / CHIME_MAX_DATA_LEN; CHIME_ENOMEM. */
int chime__set_text(char **slot, const char *text, size_t max);
int chime__set_bytes(void **slot, size_t *slot_len, const void *data,
                     size_t len);
/* Copies for deep copies: clear *ok on allocation failure. */
char *chime__dup_text(const char *s, bool *ok);
void *chime__dup_bytes(const void *data, size_t len, bool *ok);
/* Formats a message into errbuf (if any) and returns code. */
int chime__record_err(char *errbuf, size_t errbuf_len, int code,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* True when group matches pattern under match. */
bool chime__group_matches(chime_match match, const char *pattern,
                          const char *group);

/* Compares keys (group, then name) for sorting lists. */
int chime__key_compare(const void *a, const void *b);

/* Options of one enqueued run (chime_enqueue_new; docs/queue.md). */
struct chime_enqueue {
  void *data; /* NULL when data_len == 0: the job's data */
  size_t data_len;
  int64_t run_at_ms; /* 0: now */
  int priority;
  int64_t timeout_ms;
  char *unique_key;      /* NULL: none */
  char *partition_key;   /* NULL: none (chime_trigger_set_partition_key) */
  int64_t unique_for_ms; /* chime_enqueue_set_unique_for_ms; 0: none */
  bool has_retry;        /* chime_enqueue_set_retry; false: the job's */
  chime_retry retry;
};

/*
 * chime__enqueue_trigger: the one-off trigger of a run of job (group,
 * name) enqueued with opts (NULL: the defaults): in CHIME_QUEUE_GROUP,
 * named "K_" and the unique key when there is one, else "Q_", 64 random
 * bits and tag (a sequence number of the caller's, keeping its own names
 * apart even if the random bits repeated); misfire FIRE_NOW (a run handed
 * in is never dropped for being late).
 * Returns: 0; CHIME_EINVAL, CHIME_ELIMIT (an invalid key); CHIME_EIO (no
 * randomness); CHIME_ENOMEM, with a message in errbuf.
 * Ownership: *ret is the caller's.
 */
int chime__enqueue_trigger(const char *group, const char *name,
                           const chime_enqueue *opts, uint64_t tag,
                           chime_trigger **ret, char *errbuf,
                           size_t errbuf_len);

#endif /* CHIME_MODEL_RECORDS_H */
