/*
 * registry.c: the job types this node runs (chime_scheduler_register_job_type).  Entries
 * are kept sorted by name; a replaced entry lives on until its last run
 * returned, then its destroy function runs, exactly once.  The sorted list
 * of names (which only grows) is what the loop passes to acquire(), so a
 * node claims only fires it can run.
 */
#include "engine/engine.h"
#include "model/records.h"

#include <stdlib.h>
#include <string.h>

/* Index of the first entry whose name is >= type, and whether it is equal. */
static size_t find_type(const chime_scheduler *s, const char *type,
                        bool *ret_found) {
  size_t lo = 0, hi = s->ntypes;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(s->types[mid]->name, type) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *ret_found = lo < s->ntypes && strcmp(s->types[lo]->name, type) == 0;
  return lo;
}

/* Grows types and type_names for one more entry.  mu held. */
static int reserve_type(chime_scheduler *s) {
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

int chime_scheduler_register_job_type(chime_scheduler *scheduler, const char *type,
                       chime_job_fn fn, void *user_data,
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
    return chime__fail(s, CHIME_EINVAL, "chime_scheduler_register_job_type: NULL function");
  chime_jobtype *t = type_new(type, fn, user_data, destroy);
  if (!t)
    return chime__fail(s, CHIME_ENOMEM, "out of memory");
  chime_jobtype *old = NULL;
  pthread_mutex_lock(&s->mu);
  bool found;
  size_t i = find_type(s, type, &found);
  if (found) {
    old = s->types[i];
    s->types[i] = t;
    if (--old->refs > 0)
      old = NULL; /* a run still uses it: its end destroys it */
  } else {
    r = reserve_type(s);
    char *name = r == 0 ? malloc(strlen(type) + 1) : NULL;
    if (!name) {
      pthread_mutex_unlock(&s->mu);
      t->destroy = NULL; /* the caller keeps user_data on failure */
      type_free(t);
      return chime__fail(s, CHIME_ENOMEM, "out of memory");
    }
    memcpy(name, type, strlen(type) + 1);
    memmove(s->types + i + 1, s->types + i,
            (s->ntypes - i) * sizeof *s->types);
    memmove(s->type_names + i + 1, s->type_names + i,
            (s->ntypes - i) * sizeof *s->type_names);
    s->types[i] = t;
    s->type_names[i] = name;
    s->ntypes++;
    s->types_gen++;
    chime__loop_post(s, CHIME__CMD_WAKE);
  }
  pthread_mutex_unlock(&s->mu);
  if (old)
    type_free(old);
  return 0;
}

chime_jobtype *chime__registry_acquire_locked(chime_scheduler *s,
                                             const char *type) {
  bool found;
  size_t i = find_type(s, type, &found);
  if (!found)
    return NULL;
  s->types[i]->refs++;
  return s->types[i];
}

chime_jobtype *chime__registry_release_locked(chime_jobtype *t) {
  return t && --t->refs == 0 ? t : NULL;
}

void chime__registry_free(chime_jobtype *t) {
  if (t)
    type_free(t);
}

void chime__registry_clear(chime_scheduler *s) {
  for (size_t i = 0; i < s->ntypes; i++) {
    /* Every run has returned by now, so the registry holds the last
     * reference. */
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
