/*
 * memory/triggers.c: the memory store's triggers: add (with its job in the
 * same step), replace, remove (a non-durable job goes with its last
 * trigger), get and state.  A trigger is stored as a prepared copy whose
 * calendar pointer is the store's calendar; its initial state follows the
 * remembered pauses and its job's blocking.
 */
#include "jobstore/memory/memory.h"

#include <stdlib.h>
#include <string.h>

/* Adds an entry owning t (prepared) for job mj with calendar mc; its state
 * follows pauses and its job's blocking.  Returns: 0; CHIME_ENOMEM (t is
 * then freed). */
static int trigger_insert(mem_store *s, mem_job *mj, chime_trigger *t,
                          mem_calendar *mc) {
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, t->group, t->name);
  mem_trigger *mt = calloc(1, sizeof *mt);
  if (!mt || chime__mem_map_put(&s->triggers, key, len, mt) < 0) {
    free(mt);
    chime_trigger_free(t);
    return CHIME_ENOMEM;
  }
  mt->t = t;
  mt->job = mj;
  mt->calendar = mc;
  if (mc)
    mc->nusers++;
  mt->next_of_job = mj->triggers;
  if (mj->triggers)
    mj->triggers->prev_of_job = mt;
  mj->triggers = mt;
  mj->ntriggers++;
  bool paused = mj->paused || chime__mem_group_paused(s, t->group);
  bool blocked = mj->nexecuting > 0;
  chime_store_state state =
      paused ? (blocked ? CHIME_STATE_PAUSED_BLOCKED : CHIME_STATE_PAUSED)
             : (blocked ? CHIME_STATE_BLOCKED : CHIME_STATE_WAITING);
  if (chime__mem_set_state(s, mt, state) < 0) {
    chime__mem_trigger_delete(s, mt, false);
    return CHIME_ENOMEM;
  }
  return 0;
}

/* Resolves t's calendar and prepares t.  Returns: 0; CHIME_ENOTFOUND;
 * chime__trigger_prepare's errors. */
static int trigger_resolve(mem_store *s, chime_trigger *t, mem_calendar **ret,
                           char *errbuf, size_t errbuf_len) {
  mem_calendar *mc = NULL;
  if (t->calendar_name) {
    mc = chime__mem_map_get(&s->calendars, t->calendar_name,
                            strlen(t->calendar_name));
    if (!mc)
      return chime__record_err(errbuf, errbuf_len, CHIME_ENOTFOUND,
                               "no calendar named '%s'", t->calendar_name);
  }
  int r = chime__trigger_prepare(
      t, mc ? mc->cal : NULL, s->base.ops->now(&s->base), errbuf, errbuf_len);
  if (r == 0)
    *ret = mc;
  return r;
}

/* Stores job (owned, may be NULL) and t (owned) once checked; old is the
 * trigger t replaces or NULL.  Called locked. */
static int trigger_store(mem_store *s, chime_job *job, mem_job *mj,
                         chime_trigger *t, mem_calendar *mc, mem_trigger *old) {
  bool fresh = false;
  if (job && mj) {
    chime__mem_job_replace(s, mj, job);
  } else if (job) {
    if (!(mj = chime__mem_job_insert(s, job))) {
      chime_job_free(job);
      chime_trigger_free(t);
      return CHIME_ENOMEM;
    }
    fresh = true;
  }
  mem_job *old_job = old ? old->job : NULL;
  if (old)
    chime__mem_trigger_delete(s, old, false);
  int r = trigger_insert(s, mj, t, mc);
  if (r < 0 && fresh)
    chime__mem_job_delete(s, mj);
  if (old_job && old_job != mj && old_job->ntriggers == 0 &&
      !old_job->j->durable)
    chime__mem_job_delete(s, old_job);
  return r;
}

int chime__mem_trigger_add(chime_store *store, const chime_job *job,
                           const chime_trigger *trigger, bool replace,
                           int64_t *ret_first_fire_ms, char *errbuf,
                           size_t errbuf_len) {
  mem_store *s = (mem_store *)store;
  int r = chime__store_check_trigger_add(job, trigger, errbuf, errbuf_len);
  if (r < 0)
    return r;
  chime_trigger *t = chime__trigger_copy(trigger);
  chime_job *j = job ? chime__job_copy(job) : NULL;
  if (!t || (job && !j)) {
    chime_trigger_free(t);
    chime_job_free(j);
    return CHIME_ENOMEM;
  }
  mem_calendar *mc = NULL;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, t->job_group, t->job_name);
  mem_trigger *old = chime__mem_trigger_find(s, t->group, t->name);
  if (job && mj && !replace)
    r = chime__record_err(errbuf, errbuf_len, CHIME_EEXISTS, "job %s.%s exists",
                          job->group, job->name);
  else if (!job && !mj)
    r = chime__record_err(errbuf, errbuf_len, CHIME_ENOTFOUND, "no job %s.%s",
                          t->job_group, t->job_name);
  else if (old && !replace)
    r = chime__record_err(errbuf, errbuf_len, CHIME_EEXISTS,
                          "trigger %s.%s exists", t->group, t->name);
  else
    r = trigger_resolve(s, t, &mc, errbuf, errbuf_len);
  int64_t first = t->state.next_fire_ms;
  if (r == 0) {
    r = trigger_store(s, j, mj, t, mc, old);
    t = NULL;
    j = NULL;
  }
  chime__mem_unlock(s);
  chime_trigger_free(t);
  chime_job_free(j);
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = first;
  return r;
}

int chime__mem_trigger_remove(chime_store *store, const char *group,
                              const char *name) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  if (mt)
    chime__mem_trigger_delete(s, mt, true);
  chime__mem_unlock(s);
  return mt ? 0 : CHIME_ENOTFOUND;
}

/* A copy of trigger under key (group, name), firing job_group.job_name
 * when it names no job.  NULL on ENOMEM. */
static chime_trigger *replacement(const chime_trigger *trigger,
                                  const char *group, const char *name) {
  chime_trigger *t = chime__trigger_copy(trigger);
  if (!t)
    return NULL;
  char *g = strdup(group), *n = strdup(name);
  if (!g || !n) {
    free(g);
    free(n);
    chime_trigger_free(t);
    return NULL;
  }
  free(t->group);
  free(t->name);
  t->group = g;
  t->name = n;
  return t;
}

int chime__mem_trigger_replace(chime_store *store, const char *group,
                               const char *name, const chime_trigger *trigger,
                               int64_t *ret_first_fire_ms, char *errbuf,
                               size_t errbuf_len) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0 || !trigger)
    return r < 0 ? r : CHIME_EINVAL;
  chime_trigger *t = replacement(trigger, group, name);
  if (!t)
    return CHIME_ENOMEM;
  mem_calendar *mc = NULL;
  chime__mem_lock(s);
  mem_trigger *old = chime__mem_trigger_find(s, group, name);
  if (!old) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_ENOTFOUND,
                          "no trigger %s.%s", group, name);
  } else if (!t->job_group) {
    free(t->job_name);
    t->job_group = strdup(old->t->job_group);
    t->job_name = strdup(old->t->job_name);
    if (!t->job_group || !t->job_name)
      r = CHIME_ENOMEM;
  } else if (strcmp(t->job_group, old->t->job_group) != 0 || !t->job_name ||
             strcmp(t->job_name, old->t->job_name) != 0) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                          "the new trigger must fire job %s.%s",
                          old->t->job_group, old->t->job_name);
  }
  if (r == 0)
    r = chime__store_check_trigger_add(NULL, t, errbuf, errbuf_len);
  if (r == 0)
    r = trigger_resolve(s, t, &mc, errbuf, errbuf_len);
  int64_t first = t->state.next_fire_ms;
  if (r == 0) {
    r = trigger_store(s, NULL, old->job, t, mc, old);
    t = NULL;
  }
  chime__mem_unlock(s);
  chime_trigger_free(t);
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = first;
  return r;
}

int chime__mem_trigger_get(chime_store *store, const char *group,
                           const char *name, chime_trigger **ret_trigger) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_trigger)
    return r < 0 ? r : CHIME_EINVAL;
  chime_trigger *copy = NULL;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  if (!mt)
    r = CHIME_ENOTFOUND;
  else if (!(copy = chime__mem_trigger_out(mt)))
    r = CHIME_ENOMEM;
  chime__mem_unlock(s);
  if (r == 0)
    *ret_trigger = copy;
  return r;
}

int chime__mem_trigger_status(chime_store *store, const char *group,
                              const char *name,
                              chime_trigger_status *ret_status) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0 || !ret_status)
    return r < 0 ? r : CHIME_EINVAL;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  *ret_status =
      mt ? chime__store_state_status(mt->t->store_state) : CHIME_TRIGGER_NONE;
  chime__mem_unlock(s);
  return 0;
}
