/*
 * jobs.c: the memory store's job entries (mem_job) and the job operations
 * add and get (remove is remove.c's).  A job entry owns its definition, lists
 * its triggers and counts their claims and, for a FORBID job, its executing
 * fires.
 *
 * Locks: the operations take the store's lock (memory.h); the
 * chime__mem_job_* helpers expect it held.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void chime__mem_job_check(const mem_job *mj) {
#ifndef NDEBUG
  assert(mj && mj->j && mj->j->group && mj->j->name && mj->j->type);
  assert((mj->ntriggers == 0) == (mj->triggers == NULL));
  assert(!mj->triggers || mj->triggers->prev_of_job == NULL);
  assert(mj->nclaims <= mj->ntriggers);
#else
  (void)mj;
#endif
}

mem_job *chime__mem_job_find(mem_store *s, const char *group,
                             const char *name) {
  MEM_ASSERT_LOCKED(s);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, group, name);
  mem_job *mj = len ? chime__mem_map_get(&s->jobs, key, len) : NULL;
  assert(!mj ||
         (strcmp(mj->j->group, group) == 0 && strcmp(mj->j->name, name) == 0));
  return mj;
}

int chime__mem_on_key(chime_store *store, mem_kind kind, const char *group,
                      const char *name,
                      int (*fn)(mem_store *s, void *entry, void *arg),
                      void *arg) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  void *entry = kind == MEM_JOB
                    ? (void *)chime__mem_job_find(s, group, name)
                    : (void *)chime__mem_trigger_find(s, group, name);
  r = entry ? fn(s, entry, arg) : CHIME_ENOTFOUND;
  chime__mem_unlock(s);
  return r;
}

mem_job *chime__mem_job_insert(mem_store *s, chime_job *j) {
  MEM_ASSERT_LOCKED(s);
  assert(j && !chime__mem_job_find(s, j->group, j->name));
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, j->group, j->name);
  assert(len > 0); /* the job was checked */
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

void chime__mem_job_replace(mem_store *s, mem_job *mj, chime_job *j) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_job_check(mj);
  assert(j && strcmp(j->group, mj->j->group) == 0 &&
         strcmp(j->name, mj->j->name) == 0);
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

void chime__mem_job_delete(mem_store *s, mem_job *mj) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_job_check(mj);
  while (mj->triggers)
    chime__mem_trigger_delete(s, mj->triggers, false);
  assert(mj->ntriggers == 0 && mj->nclaims == 0);
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mj->j->group, mj->j->name);
  void *gone = chime__mem_map_del(&s->jobs, key, len);
  assert(gone == mj);
  (void)gone;
  chime_job_free(mj->j);
  free(mj);
}

/* ------------------------------------------------------------ operations */

int chime__mem_job_add(chime_store *store, const chime_job *job, bool replace) {
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

int chime__mem_job_get(chime_store *store, const char *group, const char *name,
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
