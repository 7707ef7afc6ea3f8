/*
 * store.c: the memory store (store.h), a store for one process that keeps
 * jobs, triggers and calendars in hash maps under one mutex: opening and
 * freeing, the clock, jobs, the state changes every part shares, and the
 * table of operations.  Triggers are in memory/triggers.c, lists and
 * calendars in memory/lists.c, pausing in memory/pause.c, firing and
 * misfires in memory/fire.c; memory/memory.h describes the indexes.
 */
#include "core/clock.h"
#include "jobstore/memory/memory.h"

#include "triggers/calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Quartz's default misfire threshold, for a store opened without one. */
#define DEFAULT_MISFIRE_THRESHOLD_MS 60000

void chime__mem_lock(mem_store *s) {
  int r = pthread_mutex_lock(&s->lock);
  assert(r == 0);
  (void)r;
}

void chime__mem_unlock(mem_store *s) {
  int r = pthread_mutex_unlock(&s->lock);
  assert(r == 0);
  (void)r;
}

mem_trigger *chime__mem_trigger_find(mem_store *s, const char *group,
                                     const char *name) {
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, group, name);
  return len ? chime__mem_map_get(&s->triggers, key, len) : NULL;
}

mem_job *chime__mem_job_find(mem_store *s, const char *group,
                             const char *name) {
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, group, name);
  return len ? chime__mem_map_get(&s->jobs, key, len) : NULL;
}

void chime__mem_drop_claim(mem_trigger *mt) {
  if (!mt->claim)
    return;
  assert(mt->job->nclaims > 0);
  mt->claim->trig = NULL;
  mt->claim = NULL;
  mt->job->nclaims--;
}

int chime__mem_set_state(mem_store *s, mem_trigger *mt,
                         chime_store_state state) {
  chime__mem_drop_claim(mt);
  chime__mem_heap_remove(mt);
  if (state == CHIME_STATE_WAITING &&
      !chime__trigger_may_fire_again(&mt->t->state))
    state = CHIME_STATE_COMPLETE;
  mt->t->store_state = state;
  if (state != CHIME_STATE_WAITING)
    return 0;
  mem_heap *h = chime__mem_heap_for(s, mt->job->j->type);
  if (!h || chime__mem_heap_push(h, mt) < 0) {
    mt->t->store_state = CHIME_STATE_ERROR;
    return CHIME_ENOMEM;
  }
  return 0;
}

chime_trigger *chime__mem_trigger_out(const mem_trigger *mt) {
  chime_trigger *c = chime__trigger_copy(mt->t);
  /* The store may drop its calendar while the copy lives. */
  if (c)
    c->schedule.calendar = NULL;
  return c;
}

/* Removes a job entry and its triggers. */
void chime__mem_job_delete(mem_store *s, mem_job *mj) {
  while (mj->triggers)
    chime__mem_trigger_delete(s, mj->triggers, false);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mj->j->group, mj->j->name);
  void *gone = chime__mem_map_del(&s->jobs, key, len);
  assert(gone == mj);
  (void)gone;
  chime_job_free(mj->j);
  free(mj);
}

void chime__mem_trigger_delete(mem_store *s, mem_trigger *mt, bool cascade) {
  mem_job *mj = mt->job;
  chime__mem_drop_claim(mt);
  chime__mem_heap_remove(mt);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mt->t->group, mt->t->name);
  void *gone = chime__mem_map_del(&s->triggers, key, len);
  assert(gone == mt);
  (void)gone;
  if (mt->prev_of_job)
    mt->prev_of_job->next_of_job = mt->next_of_job;
  else
    mj->triggers = mt->next_of_job;
  if (mt->next_of_job)
    mt->next_of_job->prev_of_job = mt->prev_of_job;
  mj->ntriggers--;
  if (mt->calendar)
    mt->calendar->nusers--;
  chime_trigger_free(mt->t);
  free(mt);
  if (cascade && mj->ntriggers == 0 && !mj->j->durable)
    chime__mem_job_delete(s, mj);
}

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

static void free_calendar_entry(void *value, void *unused) {
  mem_calendar *mc = value;
  (void)unused;
  chime__calendar_unref(mc->cal);
  free(mc->name);
  free(mc);
}

static void mem_free(chime_store *store) {
  mem_store *s = (mem_store *)store;
  if (!s)
    return;
  chime__mem_map_each(&s->fires, chime__mem_fire_record_free, NULL);
  chime__mem_map_each(&s->triggers, free_trigger_entry, NULL);
  chime__mem_map_each(&s->jobs, free_job_entry, NULL);
  chime__mem_map_each(&s->calendars, free_calendar_entry, NULL);
  chime__mem_map_each(&s->heaps, chime__mem_heap_free, NULL);
  chime__mem_map_clear(&s->fires);
  chime__mem_map_clear(&s->triggers);
  chime__mem_map_clear(&s->jobs);
  chime__mem_map_clear(&s->calendars);
  chime__mem_map_clear(&s->heaps);
  chime__mem_paused_free(s);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static int64_t mem_now(chime_store *store) {
  mem_store *s = (mem_store *)store;
  return chime__wall_ms() + s->clock_offset_ms;
}

/* ------------------------------------------------------------------ jobs */

/* A new job entry owning j.  Returns: the entry; NULL on ENOMEM. */
mem_job *chime__mem_job_insert(mem_store *s, chime_job *j) {
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, j->group, j->name);
  mem_job *mj = calloc(1, sizeof *mj);
  if (!mj)
    return NULL;
  mj->j = j;
  if (chime__mem_map_put(&s->jobs, key, len, mj) < 0) {
    free(mj);
    return NULL;
  }
  return mj;
}

/* Replaces a job's definition by j; its WAITING triggers move to the heap
 * of the new type. */
void chime__mem_job_replace(mem_store *s, mem_job *mj, chime_job *j) {
  bool moved = strcmp(mj->j->type, j->type) != 0;
  if (moved)
    for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job)
      chime__mem_heap_remove(mt);
  chime_job_free(mj->j);
  mj->j = j;
  if (moved)
    for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job)
      if (mt->t->store_state == CHIME_STATE_WAITING)
        (void)chime__mem_set_state(s, mt, CHIME_STATE_WAITING);
}

static int mem_job_add(chime_store *store, const chime_job *job, bool replace) {
  mem_store *s = (mem_store *)store;
  int r = chime__job_check(job);
  if (r < 0)
    return r;
  chime_job *copy = chime__job_copy(job);
  if (!copy)
    return CHIME_ENOMEM;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, job->group, job->name);
  if (mj && !replace)
    r = CHIME_EEXISTS;
  else if (mj)
    chime__mem_job_replace(s, mj, copy);
  else if (!chime__mem_job_insert(s, copy))
    r = CHIME_ENOMEM;
  chime__mem_unlock(s);
  if (r < 0)
    chime_job_free(copy);
  return r;
}

static int mem_job_remove(chime_store *store, const char *group,
                          const char *name) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, group, name);
  if (mj)
    chime__mem_job_delete(s, mj);
  chime__mem_unlock(s);
  return mj ? 0 : CHIME_ENOTFOUND;
}

static int mem_job_get(chime_store *store, const char *group, const char *name,
                       chime_job **ret_job) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  if (!ret_job)
    return CHIME_EINVAL;
  chime_job *copy = NULL;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, group, name);
  if (!mj)
    r = CHIME_ENOTFOUND;
  else if (!(copy = chime__job_copy(mj->j)))
    r = CHIME_ENOMEM;
  chime__mem_unlock(s);
  if (r == 0)
    *ret_job = copy;
  return r;
}

static int mem_checkin(chime_store *store, int64_t now_ms,
                       int64_t *ret_recover_in_ms) {
  (void)store;
  (void)now_ms;
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

static const chime_store_ops memory_ops = {
    .name = "memory",
    .free = mem_free,
    .now = mem_now,
    .job_add = mem_job_add,
    .job_remove = mem_job_remove,
    .job_get = mem_job_get,
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
};

int chime__memory_store_open(const chime_store_options *options,
                             chime_store **ret_store) {
  if (!ret_store || (options && options->misfire_threshold_ms < 0))
    return CHIME_EINVAL;
  mem_store *s = calloc(1, sizeof *s);
  if (!s)
    return CHIME_ENOMEM;
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
  }
  *ret_store = &s->base;
  return 0;
}
