/*
 * engine.h: the private layout of the engine's objects (chime_config,
 * chime_scheduler, chime_ctx, chime_event) and the internal calls between
 * the engine's files.
 *
 * Terms:
 *   - the *loop* is the libuv loop the scheduler's handles run on: always
 *     its own, on the scheduler thread (chime_scheduler_start and
 *     chime_scheduler_attach alike: nothing of chime's runs on a host's
 *     loop).  Everything named loop_* is touched only by that thread;
 *   - a *batch* is the fires one acquire() claimed, held by the loop until
 *     their scheduled time, then fired and handed to workers;
 *   - a worker is *reserved* from the moment a fire is claimed for it until
 *     its job returned (or the claim was released or dropped), so the loop
 *     never claims more fires than it has free workers; the completion is
 *     then written by the completer (completer.c) or, for a store without
 *     complete_many, by the worker before it is free;
 *   - a *job type* is a name registered with chime_scheduler_register_job_type.
 *
 * Locks, in the order they may be taken (never the other way round):
 *   1. life_mu (scheduler.c, one for the process): serialises
 *      chime_scheduler_start and chime_scheduler_attach, which create
 *      threads and handles;
 *   2. s->mu (one per scheduler): guards the state, the loop's flags and
 *      command bits, the registry, the worker queue, the completer's queue
 *      and the counters (reserved, running, done_queued, done_writing).  It is
 * a leaf: while holding it the engine takes no other lock and calls nothing
 * that may take one or block for long: no store call, no job, no listener, no
 * log callback, no destroy function.  uv_async_send is the one libuv call made
 * under it. Take it with chime__mu_lock / chime__mu_unlock / chime__mu_wait
 * (not pthread's calls directly), so that functions which need it, or must not
 * have it, can assert so (chime__mu_held). The stores' own locks (the memory
 * store's mutex, the MySQL pool's) are taken only inside store calls, so never
 * while s->mu is held.
 *   3. s->err_mu (one per scheduler, api.c): guards the error detail
 *      (errs).  Taken with no other lock held (so never under s->mu), and
 *      nothing is called while it is held.
 *
 * Threads and what each owns:
 *   - the loop's thread (the scheduler thread; chime__on_loop): the handles
 *     and every loop_* and batch* field, without a lock;
 *   - the completer (completer.c): the completions the workers queued;
 *   - the workers (chime__on_worker): the fire each took off the queue;
 *   - any thread: the public API, which reads cfg (immutable after
 *     chime_scheduler_new) and takes s->mu for the rest.
 * Listeners form an append-only list read without the lock (listeners.c).
 */
#ifndef CHIME_ENGINE_ENGINE_H
#define CHIME_ENGINE_ENGINE_H

#include "chime.h"
#include "core/clock.h"
#include "engine/metrics.h"
#include "jobstore/store.h"

#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

/* Longest store URL accepted, in bytes. */
#define CHIME__MAX_URL_LEN 4096
/* Configuration ranges. */
#define CHIME__MAX_WORKERS 1024u
#define CHIME__MAX_BATCH 1000u
#define CHIME__MAX_WAIT_MS INT64_C(86400000)
/* Misfire scans claim this many triggers per store call. */
#define CHIME__MISFIRE_BATCH 100
/* The longest pause between two misfire scans. */
#define CHIME__MISFIRE_SCAN_MS INT64_C(5000)
/* Pause after a store error before the loop tries again. */
#define CHIME__RETRY_MS INT64_C(1000)
/* Back-off of a worker retrying a completion: first and last pause. */
#define CHIME__RETRY_FIRST_MS 100L
#define CHIME__RETRY_LAST_MS 800L
/* Dead-node recovery runs this long after another node's lease ran out
 * (the store's check-in says when that is). */
#define CHIME__RECOVER_MARGIN_MS 10
/* A fire waits in the local queue at least this long past the claim
 * horizon before it is given back (localq.c, wait_bound_ms), however short
 * the check-in interval. */
#define CHIME__LOCALQ_WAIT_MIN_MS INT64_C(250)
/* Pause when something is due but nothing could be claimed. */
#define CHIME__BACKOFF_MS INT64_C(10)

/* A cancelled run that has not returned this long after is reported
 * (CHIME_EVENT_JOB_CANCEL_IGNORED), by default. */
#define CHIME__CANCEL_GRACE_MS INT64_C(5000)

/* Without a batch window, fires due this soon are claimed (and fired in the
 * store) with those due now; a worker starts each at its time (loop.c).
 * The default covers a claim's own commit on a busy database, so that runs
 * start on time rather than a commit late. */
#define CHIME__CLAIM_AHEAD_MS INT64_C(20)
#define CHIME__MAX_CLAIM_AHEAD_MS INT64_C(1000)
/* How far past the claim-ahead time a claim reaches (chime__claim_reach_ms).
 * A busy node: as much again for a short claim-ahead time (the default's
 * 20 ms: one claim per 20 ms at a steady rate, not one per fire), at most
 * CHIME__CLAIM_BEYOND_MS.  A claimed fire holds a worker or a place in the
 * local queue until its time, so a second claim-ahead time of 1 s would
 * halve what a node of few workers can run (FORBID jobs, blocked until a
 * run ends, came late when every place was held by fires not yet due), and
 * a busy node that reached far would take fires the other nodes could
 * start sooner (3 nodes ran 7,600-9,500 of 10,000 fires/s reaching 60 or
 * 100 ms, 9,650-9,840 reaching 20).  A quiet node with room (the rule is
 * chime__claim_reach_ms's): CHIME__CLAIM_FAR_MS, so that at a moderate rate
 * one claim carries a tenth of a second of fires (at 1,000 fires/s on 3
 * nodes the database's CPU went from 44-54% of a core to 30%,
 * docs/performance.md). */
#define CHIME__CLAIM_BEYOND_MS INT64_C(20)
#define CHIME__CLAIM_FAR_MS INT64_C(100)
/* A claim that reaches CHIME__CLAIM_FAR_MS takes at most this many fires.
 * It takes them in the order they are due, so where fires are dense it
 * reaches no further than it needs: the first node to wake does not take
 * a tenth of a second of a busy cluster's fires. */
#define CHIME__CLAIM_FAR_BATCH 64u
/* A node reaches far only with this many workers and free places, so that
 * half of them is a batch worth a transaction (chime__claim_reach_ms). */
#define CHIME__CLAIM_FAR_MIN_PLACES 16u
/* How long a returned run's completion waits, at most, for the completions
 * of the node's other runs in flight, so that they share one transaction
 * (completer.c): the claim-ahead time, at most this.  At a moderate rate
 * the runs of one claim start at their own times and return one by one;
 * writing each alone cost a transaction per two or three fires at 1,000
 * fires/s on 3 nodes, waiting cost a quarter (docs/performance.md). */
#define CHIME__COMPLETE_WAIT_MAX_MS INT64_C(20)
/* The local queue (chime_config_set_local_queue): fires a node holds
 * claimed beyond its free workers, by default, and at most.  256 with the
 * default 32 workers keeps 3 nodes up with 10,000 short fires a second
 * (128 fell behind, 8,300-9,400; docs/performance.md), for under 1 MB
 * more per node at saturation; the room follows the workers' pace, so a
 * node of slow jobs holds next to none. */
#define CHIME__LOCAL_QUEUE 256u
#define CHIME__MAX_LOCAL_QUEUE 4096u

struct chime_config {
  char *store_url;
  char *scheduler_name;
  char *instance_id; /* NULL: automatic */
  unsigned workers;
  int64_t idle_wait_ms;
  unsigned local_queue; /* fires claimed beyond the workers */
  unsigned batch_size;  /* 0: the workers plus the local queue */
  int64_t batch_window_ms;
  int64_t claim_ahead_ms; /* used when batch_window_ms is 0 */
  int64_t misfire_threshold_ms;
  int64_t checkin_interval_ms;
  int64_t cancel_grace_ms;
  chime_log_fn log;
  void *log_user_data;
  chime_log_level log_level;
  chime_log_record_fn log_record; /* structured (log.c) */
  void *log_record_user_data;
  chime_log_level log_record_level;
  char *tags; /* chime_config_add_tag: sorted, comma-separated, or NULL */
};

/* A registered job type.  refs: the registry's (while current) plus one per
 * run in progress; destroy runs when the last goes. */
typedef struct chime_jobtype {
  char *name;
  chime_job_fn fn;
  void *user_data;
  chime_destroy_fn destroy;
  unsigned refs;
} chime_jobtype;

/* One listener, in an append-only list. */
typedef struct chime_listener {
  unsigned mask;
  chime_listener_fn fn;
  void *user_data;
  chime_destroy_fn destroy;
  _Atomic(struct chime_listener *) next;
} chime_listener;

/* What other threads ask of the loop (see loop.c). */
enum {
  CHIME__CMD_WAKE = 1u << 0, /* re-evaluate: schedule changed, worker free */
  CHIME__CMD_MODE = 1u << 1, /* state changed: start, standby, shutdown */
};

/* Longest message chime_scheduler_errmsg returns, with its NUL. */
#define CHIME__ERRMSG_LEN 512

/* How many threads' error detail one scheduler keeps (api.c). */
#define CHIME__ERR_THREADS 64

/* One thread's last failed call on a scheduler (api.c). */
typedef struct chime__err_entry {
  uint64_t thread; /* api.c's thread number */
  uint64_t used;   /* the scheduler's err_clock when written */
  char msg[CHIME__ERRMSG_LEN];
} chime__err_entry;

struct chime_scheduler {
  struct chime_config cfg; /* own copy; instance_id always set */
  chime_store *store;

  /* Error detail, per thread (api.c; err_mu, the innermost lock). */
  pthread_mutex_t err_mu;
  chime__err_entry *errs;
  size_t nerrs;
  uint64_t err_clock;

  pthread_mutex_t mu;
  _Atomic uintptr_t mu_owner; /* chime__thread_tag() of mu's holder, or 0 */
  pthread_cond_t cond;        /* running, handles_open, joined changed */
  chime_scheduler_state state;
  bool shutdown_emitted;

  /* Registry (mu). */
  chime_jobtype **types; /* sorted by name */
  size_t ntypes;
  size_t types_cap;
  char **type_names; /* sorted, strdup'd, only grows, freed at the end */
  unsigned types_gen;

  /* Listeners. */
  _Atomic(chime_listener *) listeners;
  chime_listener *listeners_tail; /* mu */

  /* Loop (mu for the flags, loop thread for the rest). */
  uv_loop_t own_loop;
  uv_loop_t *loop;
  bool attached;
  bool loop_inited;    /* handles initialised on loop */
  bool thread_started; /* the scheduler thread exists */
  bool joining;        /* a thread is joining it */
  bool joined;
  pthread_t thread;
  _Atomic uintptr_t loop_thread; /* chime__thread_tag() of the loop's */
  bool async_live;               /* uv_async_send allowed */
  bool handles_open;             /* not all handles closed yet */
  int handles_closing;
  unsigned cmds; /* CHIME__CMD_* waiting for the loop */
  uv_async_t async;
  uv_timer_t fire_timer;
  uv_timer_t misfire_timer;
  uv_timer_t checkin_timer;
  uv_timer_t recover_timer;
  chime_scheduler_state loop_mode; /* loop thread: the mode it acts in */
  chime_fire **batch;              /* loop thread: claimed, not fired */
  size_t batch_count;
  int64_t batch_earliest;
  /* Loop thread: claims of a batch whose release failed (the database
   * unreachable): given back after the next good check-in (loop.c). */
  chime_fire **unreleased;
  size_t unreleased_count;
  const char **loop_types; /* loop thread: snapshot of type_names */
  size_t loop_ntypes;
  unsigned loop_types_gen;
  bool loop_types_valid;
  int64_t loop_checkin_ok_ms; /* loop thread: start of the last good one */
  int64_t loop_healthy_since; /* loop thread: check-ins unbroken since */
  bool loop_fenced;           /* loop thread: lease lost, not claiming */
  int64_t loop_seen_next_due; /* loop thread: the last check-in's
                                 checkin_next_due (notice_changes) */
  int64_t loop_idle_scan_ms;  /* loop thread: monotonic time of the idle
                                 loop's last misfire scan (idle_delay) */

  /* Workers (mu). */
  bool loop_starved; /* the loop waits for a free worker to claim again */
  /* Draining (drain.c), loop thread: the node's drain state as it acts
   * (chime_node_state), whether a check-in has read it yet (a store that
   * drains claims nothing before), and whether the drain's timeout
   * handed the fires left over. */
  int loop_drain;
  bool loop_drain_known;
  bool loop_drain_handed;
  /* When (monotonic ms) the last drain hand-over began, 0: never: a
   * worker asks the store before starting a fire claimed earlier
   * (workers.c), which may have been handed over while it waited. */
  _Atomic int64_t drain_handed_mono_ms;
  /* The node's lease as its workers see it (loop.c writes both on each good
   * check-in, lease_since first; workers.c reads lease_ok first): since
   * when (monotonic ms) it has been held without a break, and when the
   * last good check-in began.  A fire claimed after lease_since while the
   * last check-in is fresh cannot have been taken over. */
  _Atomic int64_t lease_since_mono_ms;
  _Atomic int64_t lease_ok_mono_ms;
  pthread_t *workers;
  unsigned nworkers; /* threads created */
  pthread_cond_t work_cond;
  chime_fire **queue; /* ring of cfg.workers */
  unsigned q_head;
  unsigned q_len;
  bool workers_stop;
  unsigned reserved;            /* workers claimed for (see the top) */
  unsigned localq_room;         /* of the local queue, now (localq.c) */
  unsigned localq_ended_now;    /* runs ended in this window (localq.c) */
  unsigned localq_ended_before; /* ... in the window before it */
  int64_t localq_window_ms;     /* when this window began (monotonic) */
  bool localq_stopping; /* stopping: the completer gives the queue back */
  unsigned running;     /* fires handed to workers, not finished */

  /* Completer (mu; completer.c): the runs that returned, waiting for their
   * completion to be written, when the store has complete_many. */
  bool completer_started;
  bool completer_stop;
  pthread_t completer;
  pthread_cond_t done_cond; /* the completer waits for work (monotonic) */
  struct chime__done *done_head;
  struct chime__done *done_tail;
  unsigned done_queued;  /* in the list */
  int64_t done_since_ms; /* when the list's oldest was queued (monotonic) */
  bool done_urgent;      /* the list holds one that must not wait */
  unsigned done_writing; /* taken by the completer, not written yet */

  _Atomic uint64_t manual_seq; /* names of chime_scheduler_run_job */
  /* Zone reloads (zones.c): the zone cache's generation up to which this
   * scheduler's store was recomputed.  Any thread; two threads racing
   * only repeat an idempotent recompute. */
  _Atomic uint64_t zones_gen;
  /* A recompute pass under way at check-ins (zones.c; loop thread): the
   * zones, the generation they bring the store to, where the store
   * stopped, and how many next fires moved so far. */
  char **loop_zones;
  size_t loop_nzones;
  uint64_t loop_zones_gen;
  struct chime_zones_cursor *loop_zones_cursor;
  size_t loop_zones_moved;

  /* chime_scheduler_shutdown with a deadline: the jobs were told to stop
   * (chime_ctx_is_cancelled); the deadline passed, so nothing unfinished
   * is completed any more: its fires are left to recovery. */
  atomic_bool cancelled;
  atomic_bool abandoned;

  /* Stopping (mu; docs/embedding.md "Teardown"): a shut-down node's loop
   * keeps checking in, claiming nothing, until its runs returned and their
   * completions committed, or until the shutdown gives up waiting
   * (loop_close); it then hands what the node still holds to the cluster
   * (handover.c) and closes.  cut_runs: runs cut short by the shutdown,
   * left for that hand-over rather than completed.  workers_alive: worker
   * threads not yet exited; orphaned: chime_scheduler_free returned
   * leaving workers whose jobs ignored a missed deadline, and the last of
   * them to exit frees the scheduler. */
  bool loop_close;
  unsigned cut_runs;
  unsigned workers_alive;
  bool orphaned;

  /* Metrics (metrics.h): atomics, any thread, no lock. */
  chime__metrics metrics;
  /* The runs in progress (mu; runs.c), for cancellation. */
  struct chime__run *runs;
};

/* Why a run was told to stop (runs.c). */
typedef enum chime__cancel_why {
  CHIME__CANCEL_NONE = 0,
  CHIME__CANCEL_INTERRUPT = 1, /* chime_scheduler_interrupt, chimectl */
  CHIME__CANCEL_TIMEOUT = 2    /* the job's timeout passed */
} chime__cancel_why;

/* One run in progress, on its worker's stack from the job's start to its
 * return, listed in s->runs (runs.c). */
typedef struct chime__run {
  const chime_fire *fire;       /* the worker's */
  int64_t started_mono_ms;      /* immutable */
  int64_t timeout_ms;           /* immutable: the trigger's, or the job's */
  int64_t deadline_mono_ms;     /* immutable; INT64_MAX: no timeout */
  atomic_int why;               /* chime__cancel_why; set once */
  _Atomic int64_t cancelled_ms; /* monotonic, when why was set */
  atomic_bool reported;         /* JOB_CANCEL_IGNORED emitted (set under mu) */
  atomic_bool saw_stop; /* the job was told of its scheduler's shutdown */
  struct chime__run *prev, *next; /* mu: s->runs */
} chime__run;

/* The context of one run (or of a misfire event: fire->job NULL). */
struct chime_ctx {
  chime_scheduler *sched;
  const chime_fire *fire;
  int64_t fire_ms;
  bool set_data;
  void *data;
  size_t data_len;
  char *fail_message; /* NULL: not failed */
  /* Transactional completion (fire_tx.c): the run's transaction handle
   * (NULL: none yet); completed once its commit completed the fire, so the
   * worker does not complete it again; tx_over once the job returned. */
  struct chime_mysql_tx *tx;
  bool completed;
  bool tx_over;
  /* The statements the job gave to its completion
   * (chime_ctx_complete_with), in order; writes_tail: where the next
   * goes.  Freed with chime__run_writes_free. */
  chime_run_write *writes;
  chime_run_write **writes_tail;
  chime__run *run; /* NULL for a misfire event's context */
  /* Checkpoints (shards.c): the last one read or written (malloc'd), and
   * whether the run touched one (its completion then deletes it). */
  void *checkpoint;
  size_t checkpoint_len;
  bool checkpoint_loaded;
  bool checkpoint_exists;
  bool checkpointed;
};

/* What an alert event names (alerts.c); strings borrowed for the call. */
typedef struct chime__alert {
  const char *trigger_group;
  const char *trigger_name;
  const char *job_group;
  const char *job_name;
  int64_t fire_id;     /* 0: none */
  const char *node;    /* the node concerned; NULL: this one */
  int64_t lateness_ms; /* a misfire's: how late it was handled */
  int misfire_policy;  /* a misfire's chime_misfire, else -1 */
} chime__alert;

struct chime_event {
  chime_event_kind kind;
  const chime_ctx *ctx;
  const char *job_group;
  const char *job_name;
  int error;
  const char *message;
  /* Alert events (alerts.c); a ctx event takes them from its fire. */
  const chime__alert *alert;
};

/* ---- shards.c */

/* chime__shards_split: runs fire, a sharded fire (chime__fire_splits), on
 * a worker: the store splits it into its shards, which the cluster's
 * nodes claim like any fire.  Wakes the loop to claim them.  mu not
 * held. */
void chime__shards_split(chime_scheduler *s, chime_fire *fire);
/* The store's on_shards_done: emits SHARDED_FIRE_DONE. */
void chime__on_shards_done(void *user_data, const chime_shards_done *done);

/* ---- config.c */

/* chime__config_copy: a deep copy of src into dst (zeroed first).
 * Returns: 0; CHIME_ENOMEM.  chime__config_clear frees dst's strings. */
int chime__config_copy(struct chime_config *dst, const chime_config *src);
void chime__config_clear(struct chime_config *cfg);
/* The most fires a node holds claimed and not finished: its workers plus
 * its local queue (the length of the workers' ring, workers.c). */
unsigned chime__config_capacity(const struct chime_config *cfg);
/* The batch size in effect (0 means the capacity, at most CHIME__MAX_BATCH). */
unsigned chime__config_batch_size(const struct chime_config *cfg);

/* ---- instance_id.c */

/*
 * chime__instance_id_generate: "HOST-XXXXXXXXXXXXXXXX": the host name (cut
 * to fit CHIME_MAX_NAME_LEN, control characters replaced) and 64 random
 * bits from OpenSSL in hex.  Returns: 0; CHIME_EIO (no randomness);
 * CHIME_ENOMEM.  Ownership: *ret_id is the caller's (free()).  Thread: any.
 */
int chime__instance_id_generate(char **ret_id);

/* ---- api.c: threads and the scheduler's mutex */

/* chime__thread_tag: a number that names the calling thread among the live
 * threads of the process (never 0).  Thread: any. */
uintptr_t chime__thread_tag(void);

/* chime__mu_held: whether the calling thread holds s->mu.  Thread: any. */
static inline bool chime__mu_held(const chime_scheduler *s) {
  return atomic_load_explicit(&((chime_scheduler *)s)->mu_owner,
                              memory_order_relaxed) == chime__thread_tag();
}

/* chime__mu_lock, chime__mu_unlock: take and release s->mu, recording the
 * holder.  Not recursive.  Thread: any. */
static inline void chime__mu_lock(const chime_scheduler *cs) {
  chime_scheduler *s = (chime_scheduler *)cs;
  assert(!chime__mu_held(s));
  pthread_mutex_lock(&s->mu);
  atomic_store_explicit(&s->mu_owner, chime__thread_tag(),
                        memory_order_relaxed);
}

static inline void chime__mu_unlock(const chime_scheduler *cs) {
  chime_scheduler *s = (chime_scheduler *)cs;
  assert(chime__mu_held(s));
  atomic_store_explicit(&s->mu_owner, 0, memory_order_relaxed);
  pthread_mutex_unlock(&s->mu);
}

/* chime__mu_wait: pthread_cond_wait(cond, &s->mu), keeping the record of
 * the holder right.  mu held.  Thread: any. */
static inline void chime__mu_wait(chime_scheduler *s, pthread_cond_t *cond) {
  assert(chime__mu_held(s));
  atomic_store_explicit(&s->mu_owner, 0, memory_order_relaxed);
  pthread_cond_wait(cond, &s->mu);
  atomic_store_explicit(&s->mu_owner, chime__thread_tag(),
                        memory_order_relaxed);
}

/* chime__mu_wait_until: chime__mu_wait until deadline_mono_ms
 * (chime__mono_ms) at the latest; cond must wait on CLOCK_MONOTONIC.
 * Returns false once the deadline has passed.  mu held.  Thread: any. */
static inline bool chime__mu_wait_until(chime_scheduler *s,
                                        pthread_cond_t *cond,
                                        int64_t deadline_mono_ms) {
  assert(chime__mu_held(s));
  int64_t left = deadline_mono_ms - chime__mono_ms();
  if (left <= 0)
    return false;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int64_t ns = (int64_t)ts.tv_nsec + (left % 1000) * 1000000;
  ts.tv_sec += (time_t)(left / 1000 + ns / 1000000000);
  ts.tv_nsec = (long)(ns % 1000000000);
  atomic_store_explicit(&s->mu_owner, 0, memory_order_relaxed);
  pthread_cond_timedwait(cond, &s->mu, &ts);
  atomic_store_explicit(&s->mu_owner, chime__thread_tag(),
                        memory_order_relaxed);
  return true;
}

/* ---- enqueue.c */

/* chime__run_job_keyed: chime_scheduler_run_job with a request key (fn:
 * the public name, for the error detail): the enqueued run of the job
 * with that unique key.  Returns as chime_scheduler_run_job.  Thread:
 * any. */
int chime__run_job_keyed(chime_scheduler *s, const char *fn, const char *group,
                         const char *name, const void *data, size_t len,
                         const char *request_key);

/* ---- api.c: errors and logging */

/* chime__fail: records the message (printf format) as the detail of the
 * calling thread's failed call on s (chime_scheduler_errmsg) and returns
 * code (negative).  s NULL: only returns code.  Thread: any. */
int chime__fail(chime_scheduler *s, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- log.c */

/* Logs through the configured callbacks when level is enabled (the
 * structured one gets the event "LOG" and this node). */
void chime__log(const chime_scheduler *s, chime_log_level level,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* chime__log_about: a line about one fire or alert (may be NULL): the
 * structured callback gets its fields and event (a listener event's
 * name, or "RUN_FAILED"). */
void chime__log_about(const chime_scheduler *s, chime_log_level level,
                      const char *event, const chime__alert *about, int error,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* The name of an event kind ("NODE_DEAD"), for the structured log. */
const char *chime__event_name(chime_event_kind kind);

/* The store's log callback: user_data is the scheduler (both callbacks). */
void chime__log_from_store(void *user_data, chime_log_level level,
                           const char *message);
/* The most detailed level either callback wants (the store's). */
chime_log_level chime__log_level_max(const struct chime_config *cfg);

/* chime__api_enter: the check every API function on a scheduler starts
 * with: CHIME_EINVAL for NULL, CHIME_ESHUTDOWN (with its detail) once shut
 * down.  Takes and releases mu.  Thread: any. */
int chime__api_enter(chime_scheduler *s, const char *fn);

/* ---- registry.c */

/* chime__registry_acquire_locked: the current entry for type with a
 * reference added, or NULL.  chime__registry_release_locked drops one and
 * returns t when it was the last: the caller then frees it with
 * chime__registry_free (calling destroy) after unlocking.  mu held (the
 * workers take their reference with the fire off the queue). */
chime_jobtype *chime__registry_acquire_locked(chime_scheduler *s,
                                              const char *type);
chime_jobtype *chime__registry_release_locked(chime_jobtype *t);
void chime__registry_free(chime_jobtype *t);
/* Frees every entry (calling destroy functions) and the names. */
void chime__registry_clear(chime_scheduler *s);

/* ---- listeners.c */

/* chime__emit: calls the listeners of kind in order.  Returns true when
 * one vetoed (only TRIGGER_FIRED heeds it). */
bool chime__emit(chime_scheduler *s, chime_event_kind kind,
                 const chime_ctx *ctx, const char *job_group,
                 const char *job_name, int error, const char *message);
/* chime__emit_alert: logs message (at level, with the alert's fields) and
 * calls the listeners of kind with alert and error.  mu not held. */
void chime__emit_alert(chime_scheduler *s, chime_event_kind kind,
                       chime_log_level level, const chime_ctx *ctx,
                       const chime__alert *alert, int error,
                       const char *message);
/* Calls every listener's destroy function and frees the list. */
void chime__listeners_clear(chime_scheduler *s);
/* Logs and emits SCHEDULER_ERROR for a failed store call. */
void chime__report_error(chime_scheduler *s, int code, const char *what);

/* ---- alerts.c: the hooks that count and alert at once */

/* A run starts: RUNS_STARTED, its lateness, a recovered fire received. */
void chime__metrics_run_started(chime_scheduler *s, const chime_fire *fire,
                                int64_t now_ms);
/* A run failed (error, message): logged as RUN_FAILED with its fields. */
void chime__run_failed(chime_scheduler *s, const chime_fire *fire, int error,
                       const char *message);
/* The store refused fire's completion: another node took it over. */
void chime__fencing_refused(chime_scheduler *s, const chime_fire *fire);
/* The loop found the node's lease lost (fenced) or a store call failed or
 * succeeded (the outage events).  chime__store_failed returns whether the
 * failure belongs to an outage already said (the loop tries again at every
 * tick while the database is down: those failures are said at DEBUG). */
void chime__node_fenced(chime_scheduler *s, int64_t lease_ms);
bool chime__store_failed(chime_scheduler *s, int code);
/* Whether store error r is transient (the database busy with a lock wait
 * or a deadlock, or being reconnected to): the step may be tried again. */
static inline bool chime__store_transient(int r) {
  return r == CHIME_EBUSY || r == CHIME_ECONNECT;
}
/* The store's recovery callback (chime_store_options.on_recovery):
 * NODE_DEAD, and FIRE_NODE_DIED for each fire that failed with it.
 * user_data is the scheduler.  The loop thread. */
void chime__on_recovery(void *user_data, const chime_recovery *rec);
/* chime__on_lock_wait: the store's on_lock_wait (user_data the
 * scheduler): a statement waited a lock wait timeout for a row another
 * session holds; counts CHIME_METRIC_LOCK_WAITS (the store logged it).
 * Thread: the waiting statement's. */
void chime__on_lock_wait(void *user_data);
void chime__store_answered(chime_scheduler *s);

/* ---- threads.c: where the loop's thread and the workers meet */

/* Marks the calling thread as the one running s's loop (the scheduler
 * thread). */
void chime__loop_enter(chime_scheduler *s);
/* Whether the calling thread runs s's loop. */
bool chime__on_loop(const chime_scheduler *s);
/* Marks the calling thread as one of s's workers (its first act). */
void chime__worker_enter(const chime_scheduler *s);
/* Whether the calling thread is one of s's workers. */
bool chime__on_worker(const chime_scheduler *s);
/* Hands a fired fire to a worker (a reserved one).  mu held. */
void chime__workers_push(chime_scheduler *s, chime_fire *fire);
/* Takes the fire at the head of the workers' queue (not empty).  mu held. */
chime_fire *chime__workers_pop(chime_scheduler *s);
/* chime__loop_post: queues cmd for the loop and wakes it.  mu held. */
void chime__loop_post(chime_scheduler *s, unsigned cmd);
/* chime__loop_wake: chime__loop_post(CMD_WAKE) taking mu. */
void chime__loop_wake(chime_scheduler *s);
/* chime__stop_progress: called by a worker or the completer under mu when
 * a run or a completion ended: wakes whoever waits for a stopping
 * scheduler's runs, and its loop when it may close now
 * (chime__stop_settled, below). */
void chime__stop_progress(chime_scheduler *s);

/* ---- localq.c: the local queue's bound (chime_config_set_local_queue) */

/* Whether fire, taken from the workers' queue at mono (chime__mono_ms),
 * waited there too long to start: it goes back to the cluster.  Any
 * thread. */
bool chime__localq_overdue(const chime_scheduler *s, const chime_fire *fire,
                           int64_t mono);
/* A worker took first, overdue: it takes the overdue fires behind it too
 * and gives them all back to the cluster (the store's release_fired).
 * Returns true when they went back (freed, their places free again);
 * false when the store failed: then *ret_late holds the *ret_count fires
 * (first among them) for the worker to run as usual.  mu held on entry
 * and return, released across the store call. */
bool chime__localq_release_overdue(chime_scheduler *s, chime_fire *first,
                                   chime_fire **ret_late, size_t max,
                                   size_t *ret_count);
/* A run ended on a worker: counted for the local queue's room, which
 * follows the workers' pace (localq.c).  mu held. */
void chime__localq_run_ended(chime_scheduler *s);
/* The room brought up to date before a claim (runs may have stopped
 * ending).  mu held. */
void chime__localq_refresh(chime_scheduler *s);
/* The node stops: the completer gives back the fires in its workers'
 * queue at once (with a local queue and a store that takes them), so that
 * other nodes run them rather than this one before it can stop.  Off the
 * loop's thread, which goes on checking in meanwhile.  mu held. */
void chime__localq_stop(chime_scheduler *s);
/* Whether the completer has queued fires to give back.  mu held. */
bool chime__localq_to_give_back(const chime_scheduler *s);
/* The completer gives back up to CHIME__LOCALQ_RELEASE_MAX of them.  mu
 * held on entry and return, released across the store call. */
void chime__localq_give_back_queued(chime_scheduler *s);
/* The most fires one release gives back. */
#define CHIME__LOCALQ_RELEASE_MAX 32u
/* How many fires the loop may claim now, running and queued ones counted
 * (cfg.workers + localq_room: the room follows the workers' pace,
 * localq.c).  mu held. */
static inline unsigned chime__claim_capacity(const chime_scheduler *s) {
  return s->cfg.workers + s->localq_room;
}
/* How far ahead of its time a fire may be claimed, at most: the batch
 * window, or the claim-ahead time and CHIME__CLAIM_FAR_MS more (none
 * without a claim-ahead time): how long a claimed fire may wait for its
 * time.  Any thread (the configuration does not change once started). */
static inline int64_t chime__claim_horizon_ms(const chime_scheduler *s) {
  int64_t ahead = s->cfg.claim_ahead_ms;
  if (s->cfg.batch_window_ms > 0)
    return s->cfg.batch_window_ms;
  return ahead > 0 ? ahead + CHIME__CLAIM_FAR_MS : 0;
}
/* How far ahead of their time a busy node's claim takes fires: the
 * claim-ahead time and as much again, at most CHIME__CLAIM_BEYOND_MS more.
 * Any thread. */
static inline int64_t chime__claim_near_ms(const chime_scheduler *s) {
  int64_t ahead = s->cfg.claim_ahead_ms;
  return ahead +
         (ahead < CHIME__CLAIM_BEYOND_MS ? ahead : CHIME__CLAIM_BEYOND_MS);
}
/* How far ahead of their time this claim takes fires (the loop wakes a
 * claim-ahead time before the next fire and takes those due after it too,
 * loop.c), and *ret_most, the most fires it takes.  It reaches the horizon
 * while the node holds fewer than CHIME__CLAIM_FAR_BATCH fires (claimed,
 * not finished) and has CHIME__CLAIM_FAR_MIN_PLACES free places or more,
 * and then takes at most half its free places, at most
 * CHIME__CLAIM_FAR_BATCH; otherwise chime__claim_near_ms, with no limit of
 * its own (UINT_MAX).  A node of fewer than CHIME__CLAIM_FAR_MIN_PLACES
 * workers never reaches far: fires claimed early would wait behind its
 * running jobs (in the cluster test galera/member-stop, 4 workers each, a
 * FORBID job's fire held so behind jobs retrying their transactions came
 * seconds late).  mu held. */
static inline int64_t chime__claim_reach_ms(const chime_scheduler *s,
                                            unsigned *ret_most) {
  int64_t ahead = s->cfg.claim_ahead_ms;
  *ret_most = UINT_MAX;
  if (s->cfg.batch_window_ms > 0 || ahead == 0)
    return chime__claim_horizon_ms(s);
  unsigned cap = chime__claim_capacity(s);
  unsigned free_places = cap > s->reserved ? cap - s->reserved : 0;
  if (s->cfg.workers >= CHIME__CLAIM_FAR_MIN_PLACES &&
      s->reserved < CHIME__CLAIM_FAR_BATCH &&
      free_places >= CHIME__CLAIM_FAR_MIN_PLACES) {
    *ret_most = free_places / 2 < CHIME__CLAIM_FAR_BATCH
                    ? free_places / 2
                    : CHIME__CLAIM_FAR_BATCH;
    return chime__claim_horizon_ms(s);
  }
  return chime__claim_near_ms(s);
}
/* How many free places wake a loop that waits for them: a quarter of a
 * batch, of the places it may claim now (at least one).  mu held. */
static inline unsigned chime__claim_wake_at(const chime_scheduler *s) {
  unsigned batch = chime__config_batch_size(&s->cfg);
  unsigned cap = chime__claim_capacity(s);
  unsigned n = (batch < cap ? batch : cap) / 4;
  return n ? n : 1;
}

/* ---- workers.c */

/* Starts cfg.workers threads.  Returns: 0; CHIME_ENOMEM.  mu not held. */
int chime__workers_start(chime_scheduler *s);
/* Lets the workers drain their queue and exit, then joins them, and stops
 * the completer.  After a missed shutdown deadline (s->abandoned) it does
 * not wait for workers whose jobs still run: it detaches them and returns
 * false (chime_scheduler_free leaves the rest of the teardown to the last
 * of them); true when every worker was joined.  mu not held. */
bool chime__workers_stop(chime_scheduler *s);

/* ---- completer.c */

/* One returned run waiting for its completion: the outcome and what it
 * points to (message, data) are owned by it. */
typedef struct chime__done {
  chime_fire *fire;
  chime_run_result out;
  char *message;
  void *data;
  chime_run_write *writes; /* out.writes */
  bool forbid; /* its completion wakes the loop (workers.c, wakes_loop) */
  struct chime__done *next;
} chime__done;

/* At most this many completions wait for the completer; a worker whose run
 * returned waits for room (the store is far behind: back-pressure). */
#define CHIME__MAX_DONE_QUEUED 4096u
/* At most this many completions are handed to the store at once. */
#define CHIME__DONE_BATCH 1024u

/* chime__completer_async: whether completions leave the workers (the
 * store has complete_many).  Thread: any. */
bool chime__completer_async(const chime_scheduler *s);
/* Starts the completer thread when the store completes in batches.
 * Returns: 0; CHIME_ENOMEM.  mu not held. */
int chime__completer_start(chime_scheduler *s);
/* chime__completer_push: queues d (the completer's from now on) and waits
 * while the queue is full.  mu held (released while waiting). */
void chime__completer_push(chime_scheduler *s, chime__done *d);
/* chime__completer_run_ended: a run ended (s->running dropped): wakes a
 * completer waiting for company when none is left in flight.  mu held. */
void chime__completer_run_ended(chime_scheduler *s);
/* Lets the completer write everything queued, then joins it.  The workers
 * have stopped.  mu not held. */
void chime__completer_stop(chime_scheduler *s);

/* chime__recovery_alert: the alert naming what rec tells of (alerts.c). */
chime__alert chime__recovery_alert(const chime_recovery *rec);

/* ---- handover.c and the end of a shutdown */

/* The store waits for the database at most this long to take a stopping
 * node's fires (chime__hand_over): the margin a shutdown deadline
 * can run over (docs/embedding.md "Teardown"). */
#define CHIME__HAND_OVER_BUDGET_MS INT64_C(1000)

/* chime__hand_over: gives the store's cluster the fires this stopping
 * node still holds (cut runs, and after a missed deadline the runs still
 * going and the completions not written), logging each.  Loop thread, at
 * the end of a shutdown; mu not held. */
void chime__hand_over(chime_scheduler *s);

/* chime__stop_settled: whether a shut-down scheduler has no run going and
 * no completion unwritten, so its loop may close.  mu held. */
static inline bool chime__stop_settled(const chime_scheduler *s) {
  return s->running == 0 && s->done_queued == 0 && s->done_writing == 0;
}

/* chime__scheduler_release: frees what is left of a scheduler whose
 * chime_scheduler_free returned (its workers gone, every thread joined or
 * exiting).  Called by chime_scheduler_free, or by the last orphaned
 * worker. */
void chime__scheduler_release(chime_scheduler *s);

/* ---- loop.c */

/* chime__zones_sync (zones.c): checks the zone files (every one read
 * again when force, else only those whose stat changed) and recomputes
 * this scheduler's triggers in the zones whose rules changed since it last
 * did; *ret_zones (may be NULL) receives how many zones those were.
 * Returns: 0; CHIME_ENOMEM; the store's error (the zones stay pending).
 * Thread: any, mu not held. */
int chime__zones_sync(chime_scheduler *s, bool force, size_t *ret_zones);
/* chime__zones_tick: the check-in's step of the same (zones.c): a pass
 * over the changed zones in steps of about CHIME__ZONES_PER_CHECKIN
 * triggers per call.  Returns: 0; CHIME_ENOMEM; the store's error (the
 * pass starts again at the next call).  Loop thread, mu not held. */
int chime__zones_tick(chime_scheduler *s);
/* chime__zones_free: frees the pass under way (the scheduler's end). */
void chime__zones_free(chime_scheduler *s);

/* chime__loop_init: initialises the handles on loop (mu not held).
 * Returns: 0; CHIME_EINTERNAL (libuv refused). */
int chime__loop_init(chime_scheduler *s, uv_loop_t *loop);
/* Runs the own loop until its handles are closed (thread main body). */
void *chime__loop_thread(void *arg);
/* Closes the handles of a loop that never ran and closes the own loop
 * (a failed start).  Calling thread: the starter. */
void chime__loop_abort(chime_scheduler *s);

/* ---- drain.c: a node asked to drain (chime_scheduler_drain) */

/* What the loop does after chime__drain_tick. */
typedef enum chime__drain_step {
  CHIME__DRAIN_NONE = 0, /* nothing changed */
  CHIME__DRAIN_STOP = 1, /* draining began: stop claiming */
  CHIME__DRAIN_GO = 2    /* claims may (again) be made: tick */
} chime__drain_step;
/* chime__drain_tick: after each successful check-in, acts on this node's
 * drain request as the check-in read it: begins draining, hands the fires
 * left over once the timeout passed, reports DRAINED once the node runs
 * nothing, or ends draining.  Loop thread, mu not held. */
chime__drain_step chime__drain_tick(chime_scheduler *s);
/* chime__drain_holds: whether the loop must not claim (draining, or the
 * drain state of a store that drains not read yet).  Loop thread. */
bool chime__drain_holds(const chime_scheduler *s);

/* ---- runs.c: the runs in progress and their cancellation */

/* chime__run_begin lists run (for fire, just before its job starts);
 * chime__run_end takes it off once the job returned.  mu not held.
 * Thread: the worker. */
void chime__run_begin(chime_scheduler *s, chime__run *run,
                      const chime_fire *fire);
void chime__run_end(chime_scheduler *s, chime__run *run);
/* Why run was told to stop (its timeout counts once passed), or
 * CHIME__CANCEL_NONE.  Thread: any. */
chime__cancel_why chime__run_why(chime__run *run);
/* chime__runs_cancel: tells the runs of job (group, name), or the run of
 * fire fire_id (> 0), to stop; returns how many were told now.  mu not
 * held.  Thread: any. */
size_t chime__runs_cancel(chime_scheduler *s, const char *group,
                          const char *name, int64_t fire_id,
                          chime__cancel_why why);
/* chime__runs_wait: waits until run is told to stop (or the scheduler's
 * jobs are: shutdown) or timeout_ms passed.  Returns true when told.  mu
 * not held.  Thread: the worker. */
bool chime__runs_wait(chime_scheduler *s, chime__run *run, int64_t timeout_ms);
/* chime__runs_wake: wakes every waiting run (the jobs were told to stop:
 * shutdown).  mu not held.  Thread: any. */
void chime__runs_wake(chime_scheduler *s);
/* chime__runs_replacing: whether a run of a REPLACE job that was not told
 * yet is going on this node; *ret_due is then the earliest next fire time
 * (the store's clock) of the triggers that fired them, INT64_MAX when none
 * fires again.  The loop polls the store while it is true, so that a fire
 * due for such a job cancels the run at once (loop.c).  mu not held.
 * Thread: any. */
bool chime__runs_replacing(chime_scheduler *s, int64_t *ret_due);
/* chime__runs_poll: at each check-in, reads which of this node's fires
 * were interrupted elsewhere (the store's interrupted) and tells their
 * runs, then reports each run that ignored its cancellation for longer
 * than the grace (CHIME_EVENT_JOB_CANCEL_IGNORED, once).  Thread: the
 * loop's. */
void chime__runs_poll(chime_scheduler *s);

/* ---- ctx.c */

/* Frees what a run's context holds (not the context). */
void chime__ctx_clear(chime_ctx *ctx);

/* ---- fire_tx.c */

/* Called when the job function returned: rolls back the run's completion
 * transaction if the job left it open (logged), and refuses new ones.
 * Thread: the worker. */
void chime__ctx_tx_end(chime_ctx *ctx);

/* Frees a list of statements given to a completion (NULL: nothing).
 * Thread: any. */
void chime__run_writes_free(chime_run_write *w);

#endif /* CHIME_ENGINE_ENGINE_H */
