/*
 * lists.c: the memory store's key lists: jobs and triggers by group
 * matcher, and the triggers of one job, each sorted by key.  The keys are
 * copied under the store's lock and sorted after it is released.
 *
 * Locks: each list operation takes the store's lock (memory.h) once.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int chime__mem_match_check(chime_match match, const char *pattern) {
  if (match == CHIME_MATCH_ANY)
    return 0;
  if (match != CHIME_MATCH_EQUALS && match != CHIME_MATCH_STARTS_WITH &&
      match != CHIME_MATCH_ENDS_WITH && match != CHIME_MATCH_CONTAINS)
    return CHIME_EINVAL;
  return chime__name_check(pattern, "group pattern", NULL, 0);
}

/* A growing, sortable key list. */
typedef struct key_list {
  chime_key *keys;
  size_t count, cap;
  bool failed;
} key_list;

static void key_add(key_list *l, const char *group, const char *name) {
  assert(group && name);
  if (l->failed)
    return;
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    chime_key *k = realloc(l->keys, cap * sizeof *k);
    if (!k) {
      l->failed = true;
      return;
    }
    l->keys = k;
    l->cap = cap;
  }
  chime_key *k = &l->keys[l->count];
  k->group = strdup(group);
  k->name = strdup(name);
  if (!k->group || !k->name) {
    free(k->group);
    free(k->name);
    l->failed = true;
    return;
  }
  l->count++;
}

/* Sorts and hands out the list.  Returns: 0; CHIME_ENOMEM. */
static int key_finish(key_list *l, chime_key **ret_keys, size_t *ret_count) {
  assert(l->count <= l->cap);
  if (l->failed) {
    chime_key_free_array(l->keys, l->count);
    return CHIME_ENOMEM;
  }
  if (l->count > 1)
    qsort(l->keys, l->count, sizeof *l->keys, chime__key_compare);
  *ret_keys = l->keys;
  *ret_count = l->count;
  return 0;
}

typedef struct list_arg {
  key_list *list;
  chime_match match;
  const char *pattern;
} list_arg;

static void add_job_key(void *value, void *arg) {
  const mem_job *mj = value;
  list_arg *a = arg;
  chime__mem_job_check(mj);
  if (chime__group_matches(a->match, a->pattern, mj->j->group))
    key_add(a->list, mj->j->group, mj->j->name);
}

static void add_trigger_key(void *value, void *arg) {
  const mem_trigger *mt = value;
  list_arg *a = arg;
  chime__mem_trigger_check(mt);
  if (chime__group_matches(a->match, a->pattern, mt->t->group))
    key_add(a->list, mt->t->group, mt->t->name);
}

static int list(chime_store *store, bool jobs, chime_match match,
                const char *pattern, chime_key **ret_keys, size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  int r = chime__mem_match_check(match, pattern);
  if (r < 0 || !ret_keys || !ret_count)
    return r < 0 ? r : CHIME_EINVAL;
  key_list l = {0};
  list_arg a = {&l, match, pattern};
  chime__mem_lock(s);
  if (jobs)
    chime__mem_map_each(&s->jobs, add_job_key, &a);
  else
    chime__mem_map_each(&s->triggers, add_trigger_key, &a);
  chime__mem_unlock(s);
  return key_finish(&l, ret_keys, ret_count);
}

int chime__mem_job_list(chime_store *store, chime_match match,
                        const char *pattern, chime_key **ret_keys,
                        size_t *ret_count) {
  return list(store, true, match, pattern, ret_keys, ret_count);
}

int chime__mem_trigger_list(chime_store *store, chime_match match,
                            const char *pattern, chime_key **ret_keys,
                            size_t *ret_count) {
  return list(store, false, match, pattern, ret_keys, ret_count);
}

int chime__mem_trigger_list_for_job(chime_store *store, const char *job_group,
                                    const char *job_name, chime_key **ret_keys,
                                    size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(job_group, job_name);
  if (r < 0 || !ret_keys || !ret_count)
    return r < 0 ? r : CHIME_EINVAL;
  key_list l = {0};
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, job_group, job_name);
  if (mj)
    chime__mem_job_check(mj);
  size_t seen = 0;
  for (mem_trigger *mt = mj ? mj->triggers : NULL; mt; mt = mt->next_of_job) {
    assert(mt->job == mj);
    key_add(&l, mt->t->group, mt->t->name);
    seen++;
  }
  assert(!mj || seen == mj->ntriggers);
  (void)seen;
  chime__mem_unlock(s);
  if (!mj)
    return CHIME_ENOTFOUND;
  return key_finish(&l, ret_keys, ret_count);
}
