/*
 * store.c: the memory store (store.h), a store for one process that keeps
 * jobs, triggers and calendars in hash maps under one mutex: the store
 * object, opening and freeing, the clock, and the table of operations,
 * each of which lives in the file memory.h names.
 *
 * Locks: mem_store.lock is taken and released only by chime__mem_lock and
 * chime__mem_unlock (lock.c); open initialises it and free destroys it
 * after a last lock and unlock, when no other thread may hold it.
 */
#include "core/clock.h"
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Quartz's default misfire threshold, for a store opened without one. */
#define DEFAULT_MISFIRE_THRESHOLD_MS 60000

/* ------------------------------------------------------------ open, free */

static void free_trigger_entry(void *value, void *unused) {
  mem_trigger *mt = value;
  (void)unused;
  chime_trigger_free(mt->t);
  free(mt);
}

static void free_job_entry(void *value, void *unused) {
  mem_job *mj = value;
  (void)unused;
  chime_job_free(mj->j);
  free(mj);
}

/* Frees every entry at once, without unlinking them one by one. */
static void mem_free(chime_store *store) {
  mem_store *s = (mem_store *)store;
  if (!s)
    return;
  chime__mem_lock(s);
  chime__mem_map_each(&s->fires, chime__mem_fire_record_free, NULL);
  chime__mem_map_each(&s->triggers, free_trigger_entry, NULL);
  chime__mem_map_each(&s->jobs, free_job_entry, NULL);
  chime__mem_map_each(&s->calendars, chime__mem_calendar_free, NULL);
  chime__mem_map_each(&s->heaps, chime__mem_heap_free, NULL);
  chime__mem_map_clear(&s->fires);
  chime__mem_map_clear(&s->triggers);
  chime__mem_map_clear(&s->jobs);
  chime__mem_map_clear(&s->calendars);
  chime__mem_map_clear(&s->heaps);
  chime__mem_paused_free(s);
  chime__mem_leases_free(s);
  chime__mem_history_free(s);
  chime__mem_limits_free(s);
  chime__mem_checkpoints_free(s);
  chime__mem_unlock(s);
  pthread_mutex_destroy(&s->lock);
  free(s->node);
  free(s->tags);
  free(s);
}

/* The store's clock: the wall clock, skewed by the test offset.  Takes no
 * lock: it reads only what open set. */
static int64_t mem_now(chime_store *store) {
  mem_store *s = (mem_store *)store;
  return chime__wall_ms() + s->clock_offset_ms;
}

static int mem_checkin(chime_store *store, int64_t now_ms,
                       int64_t *ret_recover_in_ms) {
  mem_store *s = (mem_store *)store;
  /* Lease names no longer used are dropped, once a minute: the store's
   * memory stays bounded (DESIGN.md promise 11). */
  chime__mem_lock(s);
  if (now_ms - s->leases_swept_ms >= 60000) {
    s->leases_swept_ms = now_ms;
    (void)chime__mem_leases_sweep(s, now_ms);
  }
  chime__mem_unlock(s);
  if (ret_recover_in_ms)
    *ret_recover_in_ms = -1; /* one process: no other node */
  return 0;
}

static int mem_recover(chime_store *store, int64_t now_ms,
                       size_t *ret_recovered) {
  (void)store;
  (void)now_ms;
  if (ret_recovered)
    *ret_recovered = 0;
  return 0;
}

/* Nothing the job writes can share the memory store's completion. */
static int mem_fire_tx_begin(chime_store *store, const chime_fire *fire,
                             chime_store_tx **ret_tx, char *errbuf,
                             size_t errbuf_len) {
  (void)store;
  (void)fire;
  *ret_tx = NULL;
  return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                           "the memory store has no transactions to share "
                           "with a job");
}

static const chime_store_ops memory_ops = {
    .name = "memory",
    .free = mem_free,
    .now = mem_now,
    .job_add = chime__mem_job_add,
    .job_remove = chime__mem_job_remove,
    .job_get = chime__mem_job_get,
    .job_list = chime__mem_job_list,
    .trigger_add = chime__mem_trigger_add,
    .trigger_remove = chime__mem_trigger_remove,
    .trigger_replace = chime__mem_trigger_replace,
    .trigger_get = chime__mem_trigger_get,
    .trigger_list = chime__mem_trigger_list,
    .trigger_list_for_job = chime__mem_trigger_list_for_job,
    .trigger_status = chime__mem_trigger_status,
    .calendar_add = chime__mem_calendar_add,
    .calendar_remove = chime__mem_calendar_remove,
    .calendar_get = chime__mem_calendar_get,
    .pause_trigger = chime__mem_pause_trigger,
    .resume_trigger = chime__mem_resume_trigger,
    .pause_job = chime__mem_pause_job,
    .resume_job = chime__mem_resume_job,
    .pause_group = chime__mem_pause_group,
    .resume_group = chime__mem_resume_group,
    .pause_all = chime__mem_pause_all,
    .resume_all = chime__mem_resume_all,
    .acquire = chime__mem_acquire,
    .fire = chime__mem_fire,
    .acquire_due = chime__store_acquire_due,
    .complete = chime__mem_complete,
    .release = chime__mem_release,
    .still_owned = chime__mem_still_owned,
    .next_due = chime__mem_next_due,
    .scan_misfires = chime__mem_scan_misfires,
    .checkin = mem_checkin,
    .recover_dead_nodes = mem_recover,
    .recompute_zones = chime__mem_recompute_zones,
    .fire_tx_begin = mem_fire_tx_begin,
    .lease_acquire = chime__mem_lease_acquire,
    .lease_extend = chime__mem_lease_extend,
    .lease_release = chime__mem_lease_release,
    .lease_end = chime__mem_lease_end,
    .lease_held = chime__mem_lease_held,
    .history_list = chime__mem_history_list,
    .admin_list = chime__mem_admin_list,
    .interrupt = chime__mem_interrupt,
    .interrupted = chime__mem_interrupted,
    .shard_split = chime__mem_shard_split,
    .checkpoint_set = chime__mem_checkpoint_set,
    .checkpoint_get = chime__mem_checkpoint_get,
    .limit_set = chime__mem_limit_set,
    .limit_get = chime__mem_limit_get,
    .limit_wait_ms = chime__mem_limit_wait_ms,
    .limit_stats = chime__mem_limit_stats,
    .trigger_add_many = chime__store_trigger_add_many,
    .drain_set = chime__mem_drain_set,
    .drain_get = chime__mem_drain_get,
    .checkin_drain = chime__mem_checkin_drain,
    .drain_report = chime__mem_drain_report,
    .drain_hand_over = chime__mem_drain_hand_over,
};

int chime__memory_store_open(const chime_store_options *options,
                             chime_store **ret_store) {
  if (!ret_store || (options && options->misfire_threshold_ms < 0))
    return CHIME_EINVAL;
  mem_store *s = calloc(1, sizeof *s);
  if (!s)
    return CHIME_ENOMEM;
  s->limit_wait_ms = -1;
  if (pthread_mutex_init(&s->lock, NULL) != 0) {
    free(s);
    return CHIME_ENOMEM;
  }
  s->base.ops = &memory_ops;
  s->misfire_threshold_ms = DEFAULT_MISFIRE_THRESHOLD_MS;
  if (options) {
    s->clock_offset_ms = options->test_clock_offset_ms;
    if (options->misfire_threshold_ms > 0)
      s->misfire_threshold_ms = options->misfire_threshold_ms;
    if ((options->instance_id && !(s->node = strdup(options->instance_id))) ||
        (options->tags && !(s->tags = strdup(options->tags)))) {
      mem_free(&s->base);
      return CHIME_ENOMEM;
    }
    s->on_shards_done = options->on_shards_done;
    s->shards_user_data = options->shards_user_data;
  }
  *ret_store = &s->base;
  return 0;
}
