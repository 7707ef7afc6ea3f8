/*
 * registry.c: the job types this node runs (chime_scheduler_register_job_type).
 * Entries are kept sorted by name; a replaced entry lives on until its last run
 * returned, then its destroy function runs, exactly once.  The sorted list
 * of names (which only grows) is what the loop passes to acquire(), so a
 * node claims only fires it can run.
 *
 * Threads and locks (engine.h): the entries, the names, types_gen and
 * every reference count are guarded by s->mu; any thread registers, the
 * workers take and drop references.  A destroy function is the
 * application's code: it runs after s->mu was released, on the thread that
 * dropped the last reference.
 *
 * Invariants (asserted): entries and names are sorted and unique, as many
 * as ntypes <= types_cap; an entry in the registry holds one reference of
 * its own, so its count is at least 1 while it is current.
 */
#include "engine/engine.h"
#include "model/records.h"

#include <stdlib.h>
#include <string.h>

/* Index of the first entry whose name is >= type, and whether it is equal. */
static size_t find_type(const chime_scheduler *s, const char *type,
                        bool *ret_found) {
  assert(chime__mu_held(s) && type);
  assert(s->ntypes <= s->types_cap);
  size_t lo = 0, hi = s->ntypes;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(s->types[mid]->name, type) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *ret_found = lo < s->ntypes && strcmp(s->types[lo]->name, type) == 0;
  assert(lo == 0 || strcmp(s->types[lo - 1]->name, type) < 0);
  assert(!*ret_found || s->types[lo]->refs >= 1);
  return lo;
}

/* Grows types and type_names for one more entry.  mu held. */
static int reserve_type(chime_scheduler *s) {
  assert(chime__mu_held(s));
  if (s->ntypes < s->types_cap)
    return 0;
  size_t cap = s->types_cap ? s->types_cap * 2 : 8;
  chime_jobtype **t = realloc(s->types, cap * sizeof *t);
  if (!t)
    return CHIME_ENOMEM;
  s->types = t;
  char **n = realloc(s->type_names, cap * sizeof *n);
  if (!n)
    return CHIME_ENOMEM;
  s->type_names = n;
  s->types_cap = cap;
  return 0;
}

static void type_free(chime_jobtype *t) {
  assert(t && t->refs == 0);
  if (t->destroy)
    t->destroy(t->user_data);
  free(t->name);
  free(t);
}

static chime_jobtype *type_new(const char *type, chime_job_fn fn,
                               void *user_data, chime_destroy_fn destroy) {
  chime_jobtype *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  size_t n = strlen(type);
  t->name = malloc(n + 1);
  if (!t->name) {
    free(t);
    return NULL;
  }
  memcpy(t->name, type, n + 1);
  t->fn = fn;
  t->user_data = user_data;
  t->destroy = destroy;
  t->refs = 1;
  return t;
}

int chime_scheduler_register_job_type(chime_scheduler *scheduler,
                                      const char *type, chime_job_fn fn,
                                      void *user_data,
                                      chime_destroy_fn destroy) {
  chime_scheduler *s = scheduler;
  int r = chime__api_enter(s, "chime_scheduler_register_job_type");
  if (r < 0)
    return r;
  char err[256];
  r = chime__name_check(type, "job type", err, sizeof err);
  if (r < 0)
    return chime__fail(s, r, "chime_scheduler_register_job_type: %s", err);
  if (!fn)
    return chime__fail(s, CHIME_EINVAL,
                       "chime_scheduler_register_job_type: NULL function");
  chime_jobtype *t = type_new(type, fn, user_data, destroy);
  if (!t)
    return chime__fail(s, CHIME_ENOMEM, "out of memory");
  chime_jobtype *old = NULL;
  chime__mu_lock(s);
  bool found;
  size_t i = find_type(s, type, &found);
  if (found) {
    old = s->types[i];
    assert(old != t && old->refs >= 1);
    s->types[i] = t;
    if (--old->refs > 0)
      old = NULL; /* a run still uses it: its end destroys it */
  } else {
    r = reserve_type(s);
    char *name = r == 0 ? malloc(strlen(type) + 1) : NULL;
    if (!name) {
      chime__mu_unlock(s);
      t->destroy = NULL; /* the caller keeps user_data on failure */
      t->refs = 0;
      type_free(t);
      return chime__fail(s, CHIME_ENOMEM, "out of memory");
    }
    memcpy(name, type, strlen(type) + 1);
    memmove(s->types + i + 1, s->types + i, (s->ntypes - i) * sizeof *s->types);
    memmove(s->type_names + i + 1, s->type_names + i,
            (s->ntypes - i) * sizeof *s->type_names);
    s->types[i] = t;
    s->type_names[i] = name;
    s->ntypes++;
    s->types_gen++;
    assert(s->ntypes <= s->types_cap);
    assert(i + 1 == s->ntypes || strcmp(name, s->type_names[i + 1]) < 0);
    chime__loop_post(s, CHIME__CMD_WAKE);
  }
  chime__mu_unlock(s);
  if (old)
    type_free(old);
  return 0;
}

chime_jobtype *chime__registry_acquire_locked(chime_scheduler *s,
                                              const char *type) {
  assert(chime__mu_held(s));
  bool found;
  size_t i = find_type(s, type, &found);
  if (!found)
    return NULL;
  s->types[i]->refs++;
  return s->types[i];
}

chime_jobtype *chime__registry_release_locked(chime_jobtype *t) {
  assert(!t || t->refs >= 1);
  return t && --t->refs == 0 ? t : NULL;
}

void chime__registry_free(chime_jobtype *t) {
  if (t)
    type_free(t);
}

void chime__registry_clear(chime_scheduler *s) {
  /* The workers are gone: nothing else can reach the registry. */
  assert(!chime__mu_held(s) && s->nworkers == 0 && s->running == 0);
  for (size_t i = 0; i < s->ntypes; i++) {
    /* Every run has returned by now, so the registry holds the last
     * reference. */
    assert(s->types[i]->refs == 1);
    if (--s->types[i]->refs == 0)
      type_free(s->types[i]);
    free(s->type_names[i]);
  }
  free(s->types);
  free(s->type_names);
  s->types = NULL;
  s->type_names = NULL;
  s->ntypes = s->types_cap = 0;
}
