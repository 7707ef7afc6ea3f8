/*
 * interrupt.c: the memory store's side of cancellation (store.h's
 * interrupt and interrupted): a flag on EXECUTING fire records.  The store
 * serves one process, so every fire is this node's; the engine also tells
 * its own runs at once, and interrupted() is what a clustered store's
 * nodes would poll.  interrupted() also lists the runs of REPLACE jobs
 * whose blocked triggers came due (chime_concurrency).
 *
 * Locks: each operation takes the store's lock once (memory.h).
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* What one walk over the fire records looks for and found. */
typedef struct walk {
  const char *job_key; /* flag the fires of this job, or NULL */
  size_t job_key_len;
  size_t count;
  int64_t *ids; /* interrupted: the flagged ids (count of them) */
  bool collect;
  bool failed;
  mem_store *s;
  int64_t now; /* interrupted: the store's clock */
} walk;

/* Whether executing fire f's job is REPLACE and one of its triggers, held
 * BLOCKED by the run, came due by now. */
static bool replaced(mem_store *s, const mem_fire *f, int64_t now) {
  mem_job *mj = chime__mem_map_get(&s->jobs, f->job_key, f->job_key_len);
  if (!mj || mj->j->concurrency != CHIME_CONCURRENCY_REPLACE)
    return false;
  for (mem_trigger *mt = mj->triggers; mt; mt = mt->next_of_job)
    if (mt->t->store_state == CHIME_STATE_BLOCKED &&
        mt->t->state.next_fire_ms != CHIME_NO_FIRE &&
        mt->t->state.next_fire_ms <= now)
      return true;
  return false;
}

static void flag_one(void *value, void *arg) {
  mem_fire *f = value;
  walk *w = arg;
  if (f->phase != CHIME_FIRE_EXECUTING)
    return;
  if (w->collect) {
    if (!f->cancel && !replaced(w->s, f, w->now))
      return;
    int64_t *ids = realloc(w->ids, (w->count + 1) * sizeof *ids);
    if (!ids) {
      w->failed = true;
      return;
    }
    w->ids = ids;
    w->ids[w->count++] = f->id;
    return;
  }
  if (f->job_key_len == w->job_key_len &&
      memcmp(f->job_key, w->job_key, w->job_key_len) == 0) {
    f->cancel = true;
    w->count++;
  }
}

int chime__mem_interrupt(chime_store *store, const char *group,
                         const char *name, int64_t fire_id, size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  if (!chime__interrupt_args_valid(group, name, fire_id))
    return CHIME_EINVAL;
  char key[MEM_KEY_MAX];
  walk w = {0};
  if (fire_id == 0) {
    w.job_key = key;
    w.job_key_len = chime__mem_key(key, sizeof key, group, name);
    assert(w.job_key_len > 0);
  }
  chime__mem_lock(s);
  if (fire_id > 0) {
    mem_fire *f = chime__mem_map_get(&s->fires, &fire_id, sizeof fire_id);
    if (f && f->phase == CHIME_FIRE_EXECUTING) {
      f->cancel = true;
      w.count = 1;
    }
  } else {
    chime__mem_map_each(&s->fires, flag_one, &w);
  }
  chime__mem_unlock(s);
  if (ret_count)
    *ret_count = w.count;
  return 0;
}

int chime__mem_interrupted(chime_store *store, int64_t **ret_ids,
                           size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  if (!ret_ids || !ret_count)
    return CHIME_EINVAL;
  walk w = {.collect = true, .s = s, .now = store->ops->now(store)};
  chime__mem_lock(s);
  chime__mem_map_each(&s->fires, flag_one, &w);
  chime__mem_unlock(s);
  if (w.failed) {
    free(w.ids);
    return CHIME_ENOMEM;
  }
  *ret_ids = w.ids;
  *ret_count = w.count;
  return 0;
}
