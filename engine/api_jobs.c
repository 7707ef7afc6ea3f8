/*
 * api_jobs.c: the scheduler's calls on what the store keeps: jobs,
 * triggers, calendars, listing and pausing.  Each validates its arguments,
 * refuses once the scheduler is shut down, hands the work to the store and
 * records its detail for chime_scheduler_errmsg() when it fails.  A
 * call that may make a trigger due sooner wakes the loop.
 *
 * Threads and locks: every call may run on any thread, also a worker or a
 * listener; none holds s->mu across its store call (the store has its own
 * locks, engine.h), and chime__loop_wake takes s->mu only to post.
 */
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Records a failure of fn with the store's detail err, or the code's text
 * when err is empty (or wakes the loop after a success). */
static int finish_err(chime_scheduler *s, const char *fn, int r,
                      const char *err, bool wake) {
  assert(r <= 0 && !chime__mu_held(s));
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, err[0] ? err : chime_strerror(r));
  if (wake)
    chime__loop_wake(s);
  return r;
}

/* finish_err without a detail. */
static int finish(chime_scheduler *s, const char *fn, int r, bool wake) {
  return finish_err(s, fn, r, "", wake);
}

/* The check of a (group, name) key. */
static int key_check(chime_scheduler *s, const char *fn, const char *group,
                     const char *name) {
  char err[256];
  int r = chime__name_check(group, "group", err, sizeof err);
  if (r == 0)
    r = chime__name_check(name, "name", err, sizeof err);
  return r < 0 ? chime__fail(s, r, "%s: %s", fn, err) : 0;
}

/* api_enter plus the key check. */
static int enter_key(chime_scheduler *s, const char *fn, const char *group,
                     const char *name) {
  int r = chime__api_enter(s, fn);
  return r < 0 ? r : key_check(s, fn, group, name);
}

int chime_scheduler_add_job(chime_scheduler *s, const chime_job *job,
                            bool replace) {
  static const char fn[] = "chime_scheduler_add_job";
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (!job)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL job", fn);
  /* Quartz's rule: replacing may keep a non-durable job (its triggers
   * stay); adding one without a trigger would orphan it. */
  if (!job->durable && !replace)
    return chime__fail(s, CHIME_EINVAL,
                       "%s: a job added without a trigger "
                       "must be durable",
                       fn);
  r = s->store->ops->job_add(s->store, job, replace);
  if (r == 0)
    chime__emit(s, CHIME_EVENT_JOB_ADDED, NULL, job->group, job->name, 0, NULL);
  return finish(s, fn, r, false);
}

int chime_scheduler_remove_job(chime_scheduler *s, const char *group,
                               const char *name) {
  static const char fn[] = "chime_scheduler_remove_job";
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  r = s->store->ops->job_remove(s->store, group, name);
  if (r == 0)
    chime__emit(s, CHIME_EVENT_JOB_REMOVED, NULL, group, name, 0, NULL);
  return finish(s, fn, r, false);
}

int chime_scheduler_get_job(chime_scheduler *s, const char *group,
                            const char *name, chime_job **ret_job) {
  static const char fn[] = "chime_scheduler_get_job";
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  if (!ret_job)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL ret_job", fn);
  return finish(s, fn, s->store->ops->job_get(s->store, group, name, ret_job),
                false);
}

int chime_scheduler_run_job(chime_scheduler *s, const char *group,
                            const char *name, const void *data, size_t len,
                            const char *request_key) {
  static const char fn[] = "chime_scheduler_run_job";
  if (request_key) /* the enqueued run with that unique key (enqueue.c) */
    return chime__run_job_keyed(s, fn, group, name, data, len, request_key);
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  if (!data && len > 0)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL data of length %zu", fn, len);
  /* Quartz's triggerJob; the sequence number keeps this node's own names
   * apart even if the random bits repeated. */
  char tag[24], err[256] = "";
  snprintf(tag, sizeof tag, "%" PRIu64,
           (uint64_t)atomic_fetch_add(&s->manual_seq, 1));
  r = chime__store_fire_now(s->store, group, name, data, len, tag, NULL, 0,
                            NULL, err, sizeof err);
  return finish_err(s, fn, r, err, true);
}

/* IF_ABSENT after trigger_add refused with CHIME_EEXISTS: whatever exists
 * stays as it is, and what does not is added.  Each store call is atomic,
 * so nodes racing to schedule the same job and trigger (every node of a
 * replicated server at start-up) each end with 0 and one copy stored.
 * *ret_job_added: the job was added here.  *ret_first: the trigger's next
 * fire (the existing one's when it existed). */
static int add_if_absent(chime_scheduler *s, const chime_trigger *trigger,
                         int64_t *ret_first, char *err, size_t err_len) {
  chime_store *st = s->store;
  for (int attempt = 0; attempt < 3; attempt++) {
    chime_trigger *have = NULL;
    int r = st->ops->trigger_get(st, trigger->group, trigger->name, &have);
    if (r == 0) {
      *ret_first = chime_trigger_get_next_fire_ms(have);
      chime_trigger_free(have);
      return 0;
    }
    if (r != CHIME_ENOTFOUND)
      return r;
    /* The job exists (the refusal was for it): add the trigger alone. */
    r = st->ops->trigger_add(st, NULL, trigger, false, ret_first, err, err_len);
    if (r != CHIME_EEXISTS)
      return r;
    /* The trigger appeared meanwhile (another node): read it. */
  }
  return CHIME_EBUSY;
}

/* The end of a schedule or reschedule: the failure recorded, or the
 * trigger's first fire told and the loop woken. */
static int give_first_fire(chime_scheduler *s, const char *fn, int r,
                           const char *err, int64_t first,
                           int64_t *ret_first_fire_ms) {
  if (r == 0 && ret_first_fire_ms)
    *ret_first_fire_ms = first;
  return finish_err(s, fn, r, err, true);
}

int chime_scheduler_schedule(chime_scheduler *s, const chime_job *job,
                             const chime_trigger *trigger, unsigned flags,
                             int64_t *ret_first_fire_ms) {
  static const char fn[] = "chime_scheduler_schedule";
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (!trigger)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL trigger", fn);
  const unsigned known = CHIME_SCHEDULE_REPLACE | CHIME_SCHEDULE_IF_ABSENT;
  if (flags & ~known)
    return chime__fail(s, CHIME_EINVAL, "%s: unknown flags 0x%x", fn,
                       flags & ~known);
  if ((flags & known) == known)
    return chime__fail(s, CHIME_EINVAL,
                       "%s: CHIME_SCHEDULE_REPLACE and "
                       "CHIME_SCHEDULE_IF_ABSENT exclude each other",
                       fn);
  char err[256] = "";
  int64_t first = CHIME_NO_FIRE_MS;
  bool replace = flags & CHIME_SCHEDULE_REPLACE;
  bool job_added = job != NULL;
  r = s->store->ops->trigger_add(s->store, job, trigger, replace, &first, err,
                                 sizeof err);
  if (r == CHIME_EEXISTS && (flags & CHIME_SCHEDULE_IF_ABSENT)) {
    err[0] = '\0';
    job_added = false;
    r = add_if_absent(s, trigger, &first, err, sizeof err);
  }
  if (r == 0 && job_added)
    chime__emit(s, CHIME_EVENT_JOB_ADDED, NULL, job->group, job->name, 0, NULL);
  return give_first_fire(s, fn, r, err, first, ret_first_fire_ms);
}

int chime_scheduler_unschedule(chime_scheduler *s, const char *group,
                               const char *name) {
  static const char fn[] = "chime_scheduler_unschedule";
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  return finish(s, fn, s->store->ops->trigger_remove(s->store, group, name),
                false);
}

int chime_scheduler_reschedule(chime_scheduler *s, const char *group,
                               const char *name, const chime_trigger *trigger,
                               int64_t *ret_first_fire_ms) {
  static const char fn[] = "chime_scheduler_reschedule";
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  if (!trigger)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL trigger", fn);
  char err[256] = "";
  int64_t first = CHIME_NO_FIRE_MS;
  r = s->store->ops->trigger_replace(s->store, group, name, trigger, &first,
                                     err, sizeof err);
  return give_first_fire(s, fn, r, err, first, ret_first_fire_ms);
}

int chime_scheduler_get_trigger(chime_scheduler *s, const char *group,
                                const char *name, chime_trigger **ret_trigger) {
  static const char fn[] = "chime_scheduler_get_trigger";
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  if (!ret_trigger)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL ret_trigger", fn);
  return finish(s, fn,
                s->store->ops->trigger_get(s->store, group, name, ret_trigger),
                false);
}

int chime_scheduler_get_trigger_status(chime_scheduler *s, const char *group,
                                       const char *name,
                                       chime_trigger_status *ret_status) {
  static const char fn[] = "chime_scheduler_get_trigger_status";
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  if (!ret_status)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL ret_status", fn);
  return finish(
      s, fn, s->store->ops->trigger_status(s->store, group, name, ret_status),
      false);
}

/* The checks of a list, pause or resume by group. */
static int enter_match(chime_scheduler *s, const char *fn, chime_match match,
                       const char *pattern) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (match < CHIME_MATCH_EQUALS || match > CHIME_MATCH_ANY)
    return chime__fail(s, CHIME_EINVAL, "%s: unknown match %d", fn, (int)match);
  if (match != CHIME_MATCH_ANY && !pattern)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL pattern", fn);
  if (pattern && strlen(pattern) > CHIME_MAX_NAME_LEN)
    return chime__fail(s, CHIME_ELIMIT, "%s: pattern longer than %d bytes", fn,
                       CHIME_MAX_NAME_LEN);
  return 0;
}

/* What a list, pause or resume of keys acts on. */
typedef enum { ON_JOBS, ON_TRIGGERS } key_kind;

/* A list of the job or trigger keys matching pattern. */
static int list_keys(chime_scheduler *s, const char *fn, key_kind kind,
                     chime_match match, const char *pattern,
                     chime_key **ret_keys, size_t *ret_count) {
  int r = enter_match(s, fn, match, pattern);
  if (r < 0)
    return r;
  if (!ret_keys || !ret_count)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL out-parameter", fn);
  chime_store *st = s->store;
  r = kind == ON_JOBS
          ? st->ops->job_list(st, match, pattern, ret_keys, ret_count)
          : st->ops->trigger_list(st, match, pattern, ret_keys, ret_count);
  return finish(s, fn, r, false);
}

int chime_scheduler_list_jobs(chime_scheduler *s, chime_match match,
                              const char *pattern, chime_key **ret_keys,
                              size_t *ret_count) {
  return list_keys(s, "chime_scheduler_list_jobs", ON_JOBS, match, pattern,
                   ret_keys, ret_count);
}

int chime_scheduler_list_triggers(chime_scheduler *s, chime_match match,
                                  const char *pattern, chime_key **ret_keys,
                                  size_t *ret_count) {
  return list_keys(s, "chime_scheduler_list_triggers", ON_TRIGGERS, match,
                   pattern, ret_keys, ret_count);
}

/* A pause, or a resume: that one may make a fire due at once, so it wakes
 * the loop. */
typedef enum { PAUSE, RESUME } pause_verb;

/* Pauses or resumes one job or trigger. */
static int pause_key(chime_scheduler *s, const char *fn, pause_verb verb,
                     key_kind kind, const char *group, const char *name) {
  int r = enter_key(s, fn, group, name);
  if (r < 0)
    return r;
  chime_store *st = s->store;
  if (kind == ON_JOBS)
    r = verb == PAUSE ? st->ops->pause_job(st, group, name)
                      : st->ops->resume_job(st, group, name);
  else
    r = verb == PAUSE ? st->ops->pause_trigger(st, group, name)
                      : st->ops->resume_trigger(st, group, name);
  return finish(s, fn, r, verb == RESUME);
}

int chime_scheduler_pause_trigger(chime_scheduler *s, const char *group,
                                  const char *name) {
  return pause_key(s, "chime_scheduler_pause_trigger", PAUSE, ON_TRIGGERS,
                   group, name);
}

int chime_scheduler_resume_trigger(chime_scheduler *s, const char *group,
                                   const char *name) {
  return pause_key(s, "chime_scheduler_resume_trigger", RESUME, ON_TRIGGERS,
                   group, name);
}

int chime_scheduler_pause_job(chime_scheduler *s, const char *group,
                              const char *name) {
  return pause_key(s, "chime_scheduler_pause_job", PAUSE, ON_JOBS, group, name);
}

int chime_scheduler_resume_job(chime_scheduler *s, const char *group,
                               const char *name) {
  return pause_key(s, "chime_scheduler_resume_job", RESUME, ON_JOBS, group,
                   name);
}

/* Pauses or resumes the triggers of the groups matching pattern. */
static int pause_groups(chime_scheduler *s, const char *fn, pause_verb verb,
                        chime_match match, const char *pattern) {
  int r = enter_match(s, fn, match, pattern);
  if (r < 0)
    return r;
  chime_store *st = s->store;
  r = verb == PAUSE ? st->ops->pause_group(st, match, pattern)
                    : st->ops->resume_group(st, match, pattern);
  return finish(s, fn, r, verb == RESUME);
}

int chime_scheduler_pause_triggers(chime_scheduler *s, chime_match match,
                                   const char *pattern) {
  return pause_groups(s, "chime_scheduler_pause_triggers", PAUSE, match,
                      pattern);
}

int chime_scheduler_resume_triggers(chime_scheduler *s, chime_match match,
                                    const char *pattern) {
  return pause_groups(s, "chime_scheduler_resume_triggers", RESUME, match,
                      pattern);
}

/* Pauses or resumes every trigger. */
static int pause_everything(chime_scheduler *s, const char *fn,
                            pause_verb verb) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  r = verb == PAUSE ? s->store->ops->pause_all(s->store)
                    : s->store->ops->resume_all(s->store);
  return finish(s, fn, r, verb == RESUME);
}

int chime_scheduler_pause_all(chime_scheduler *s) {
  return pause_everything(s, "chime_scheduler_pause_all", PAUSE);
}

int chime_scheduler_resume_all(chime_scheduler *s) {
  return pause_everything(s, "chime_scheduler_resume_all", RESUME);
}

/* api_enter plus the check of a calendar's name. */
static int enter_calendar(chime_scheduler *s, const char *fn,
                          const char *name) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  char err[256];
  r = chime__name_check(name, "calendar name", err, sizeof err);
  return r < 0 ? chime__fail(s, r, "%s: %s", fn, err) : 0;
}

int chime_scheduler_add_calendar(chime_scheduler *s, const char *name,
                                 const chime_calendar *calendar, bool replace,
                                 bool update_triggers) {
  static const char fn[] = "chime_scheduler_add_calendar";
  int r = enter_calendar(s, fn, name);
  if (r < 0)
    return r;
  if (!calendar)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL calendar", fn);
  return finish(s, fn,
                s->store->ops->calendar_add(s->store, name, calendar, replace,
                                            update_triggers),
                update_triggers);
}

int chime_scheduler_remove_calendar(chime_scheduler *s, const char *name) {
  static const char fn[] = "chime_scheduler_remove_calendar";
  int r = enter_calendar(s, fn, name);
  return r < 0 ? r
               : finish(s, fn, s->store->ops->calendar_remove(s->store, name),
                        false);
}
