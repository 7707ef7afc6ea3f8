/*
 * memory/history.c: the memory store's history: the last
 * CHIME__MEM_HISTORY_CAP completed runs in a ring (the oldest is dropped
 * when it is full: the memory store's retention), the runs each job's
 * history level records, listed newest first with the MySQL store's
 * filters; a run's own data (its trigger's) is kept with it, so the ring
 * holds at most CHIME__MEM_HISTORY_CAP times CHIME_MAX_DATA_LEN bytes of
 * data (docs/schema.md, "Bounded tables").  Guarded by the store's lock.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s) {
  return s ? strdup(s) : NULL;
}

/* A copy of len bytes at data into *ret (NULL for none).  Returns: 0;
 * CHIME_ENOMEM. */
static int dup_data(const void *data, size_t len, void **ret) {
  *ret = NULL;
  if (!data || len == 0)
    return 0;
  if (!(*ret = malloc(len)))
    return CHIME_ENOMEM;
  memcpy(*ret, data, len);
  return 0;
}

/* The entry the next record overwrites, cleared; NULL when the ring
 * cannot be allocated. */
static chime_history_entry *next_entry(mem_store *s) {
  if (!s->history) {
    s->history = calloc(CHIME__MEM_HISTORY_CAP, sizeof *s->history);
    if (!s->history)
      return NULL; /* not recorded; the caller goes on */
  }
  chime_history_entry *e =
      &s->history[(size_t)(s->history_next_id % CHIME__MEM_HISTORY_CAP)];
  chime__history_entry_clear(e);
  e->id = ++s->history_next_id;
  return e;
}

void chime__mem_history_free(mem_store *s) {
  for (size_t i = 0; s->history && i < CHIME__MEM_HISTORY_CAP; i++)
    chime__history_entry_clear(&s->history[i]);
  free(s->history);
  s->history = NULL;
}

void chime__mem_history_record(mem_store *s, const chime_fire *fire,
                               const chime_run_result *outcome, bool retried) {
  assert(fire && fire->trigger && fire->job);
  /* The job's history level (as the MySQL store's completion; a sharded
   * job's runs always). */
  bool ok = !retried && !(outcome && outcome->error) &&
            !(outcome && outcome->status && strcmp(outcome->status, "OK") != 0);
  if (fire->trigger->shard_parent == 0 && fire->job->shard_count == 0 &&
      !chime__history_wanted(fire->job, ok))
    return;
  chime_history_entry *e = next_entry(s);
  if (!e)
    return; /* not recorded; the completion goes on */
  e->fire_id = fire->fire_id;
  e->scheduled_ms = chime__fire_original_ms(fire);
  e->started_ms = outcome ? outcome->started_ms : 0;
  e->finished_ms = outcome ? outcome->finished_ms : 0;
  e->error = outcome ? outcome->error : 0;
  e->recovering = fire->recovering;
  e->shard_parent = fire->trigger->shard_parent;
  e->shard_index = fire->trigger->shard_index;
  e->job_group = dup_or_null(fire->job->group);
  e->job_name = dup_or_null(fire->job->name);
  e->trigger_group = dup_or_null(fire->trigger->group);
  e->trigger_name = dup_or_null(fire->trigger->name);
  e->node = dup_or_null(s->node ? s->node : "");
  /* The outcome's status when it names one (store.h), as MySQL's. */
  e->outcome = dup_or_null(retried                      ? "RETRIED"
                           : outcome && outcome->status ? outcome->status
                           : e->error                   ? "FAILED"
                                                        : "OK");
  e->message = outcome ? dup_or_null(outcome->message) : NULL;
  /* The run's own data (its trigger's), for a retry and the run's page. */
  size_t len = 0;
  const void *data = chime__fire_own_data(fire, &len);
  if (dup_data(data, len, &e->data) == 0)
    e->data_len = e->data ? len : 0;
}

void chime__mem_history_lost(mem_store *s, const mem_fire *rec, int64_t now,
                             const char *outcome, const char *message) {
  MEM_ASSERT_LOCKED(s);
  chime_history_entry *e = next_entry(s);
  if (!e)
    return;
  e->fire_id = rec->id;
  e->scheduled_ms = rec->scheduled_ms;
  e->finished_ms = now;
  e->error = CHIME_ENOTOWNER;
  e->job_group = dup_or_null(rec->job_key);
  e->job_name = dup_or_null(rec->job_key + strlen(rec->job_key) + 1);
  e->trigger_group = dup_or_null(rec->key);
  e->trigger_name = dup_or_null(rec->key + strlen(rec->key) + 1);
  e->node = dup_or_null(s->node ? s->node : "");
  e->outcome = dup_or_null(outcome);
  e->message = dup_or_null(message);
}

static bool str_is(const char *want, const char *have) {
  return !want || (have && strcmp(want, have) == 0);
}

static bool matches(const chime_history_filter *f,
                    const chime_history_entry *e) {
  return e->id > 0 && str_is(f->job_group, e->job_group) &&
         str_is(f->job_name, e->job_name) &&
         str_is(f->trigger_group, e->trigger_group) &&
         str_is(f->trigger_name, e->trigger_name) &&
         str_is(f->outcome, e->outcome) &&
         (f->from_ms == 0 || e->started_ms >= f->from_ms) &&
         (f->to_ms == 0 || e->started_ms < f->to_ms) &&
         (f->before_id == 0 || e->id < f->before_id);
}

static int copy_entry(chime_history_entry *dst,
                      const chime_history_entry *src) {
  *dst = *src;
  dst->job_group = dup_or_null(src->job_group);
  dst->job_name = dup_or_null(src->job_name);
  dst->trigger_group = dup_or_null(src->trigger_group);
  dst->trigger_name = dup_or_null(src->trigger_name);
  dst->node = dup_or_null(src->node);
  dst->outcome = dup_or_null(src->outcome);
  dst->message = dup_or_null(src->message);
  int r = dup_data(src->data, src->data_len, &dst->data);
  dst->data_len = dst->data ? src->data_len : 0;
  return r == 0 && dst->job_group && dst->job_name && dst->trigger_group &&
                 dst->trigger_name && dst->node && dst->outcome &&
                 (!src->message || dst->message)
             ? 0
             : CHIME_ENOMEM;
}

int chime__mem_history_list(chime_store *store, const chime_history_filter *f,
                            chime_history_entry **ret_entries,
                            size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  if (!f || f->limit == 0 || !ret_entries || !ret_count)
    return CHIME_EINVAL;
  size_t cap =
      f->limit < CHIME__MEM_HISTORY_CAP ? f->limit : CHIME__MEM_HISTORY_CAP;
  chime_history_entry *out = calloc(cap, sizeof *out);
  if (!out)
    return CHIME_ENOMEM;
  size_t n = 0;
  int r = 0;
  chime__mem_lock(s);
  /* Newest first: from the last id written back to the oldest kept. */
  for (int64_t id = s->history_next_id;
       r == 0 && s->history && id > 0 && n < cap &&
       id > s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP;
       id--) {
    const chime_history_entry *e =
        &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)];
    assert(e->id == id);
    if (matches(f, e))
      r = copy_entry(&out[n++], e); /* freed with the rest on failure */
  }
  chime__mem_unlock(s);
  if (r < 0) {
    chime__history_entries_free(out, n);
    return r;
  }
  *ret_entries = out;
  *ret_count = n;
  return 0;
}
