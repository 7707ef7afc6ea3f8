/*
 * memory/lists.c: the memory store's key lists (jobs and triggers by group
 * matcher, the triggers of one job) and its calendars, which are kept by
 * name with one reference each and counted by the triggers naming them.
 */
#include "jobstore/memory/memory.h"

#include "triggers/calendar.h"

#include <stdlib.h>
#include <string.h>

/* Checks a group matcher.  Returns: 0; CHIME_EINVAL; CHIME_ELIMIT. */
static int match_check(chime_match match, const char *pattern) {
  if (match == CHIME_MATCH_ANY)
    return 0;
  if (match != CHIME_MATCH_EQUALS && match != CHIME_MATCH_STARTS_WITH &&
      match != CHIME_MATCH_ENDS_WITH && match != CHIME_MATCH_CONTAINS)
    return CHIME_EINVAL;
  return chime__name_check(pattern, "group pattern", NULL, 0);
}

int chime__mem_match_check(chime_match match, const char *pattern) {
  return match_check(match, pattern);
}

/* A growing, sortable key list. */
typedef struct key_list {
  chime_key *keys;
  size_t count, cap;
  bool failed;
} key_list;

static void key_add(key_list *l, const char *group, const char *name) {
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
  if (l->failed) {
    chime_keys_free(l->keys, l->count);
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
  if (chime__group_matches(a->match, a->pattern, mj->j->group))
    key_add(a->list, mj->j->group, mj->j->name);
}

static void add_trigger_key(void *value, void *arg) {
  const mem_trigger *mt = value;
  list_arg *a = arg;
  if (chime__group_matches(a->match, a->pattern, mt->t->group))
    key_add(a->list, mt->t->group, mt->t->name);
}

static int list(chime_store *store, bool jobs, chime_match match,
                const char *pattern, chime_key **ret_keys, size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  int r = match_check(match, pattern);
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
  for (mem_trigger *mt = mj ? mj->triggers : NULL; mt; mt = mt->next_of_job)
    key_add(&l, mt->t->group, mt->t->name);
  chime__mem_unlock(s);
  if (!mj)
    return CHIME_ENOTFOUND;
  return key_finish(&l, ret_keys, ret_count);
}

/* ------------------------------------------------------------- calendars */

/*
 * Recomputes a trigger's next fire after its calendar changed: the first
 * included time after its previous fire (after its start when it never
 * fired), as Quartz's updateWithNewCalendar; late results are left to the
 * misfire scan.  A trigger that can no longer fire becomes COMPLETE (and
 * stays, as after a misfire).  Claimed, complete and broken triggers are
 * left alone.
 */
static void recompute(mem_store *s, mem_trigger *mt) {
  chime_trigger *t = mt->t;
  chime_store_state state = t->store_state;
  if (state == CHIME_STATE_ACQUIRED || state == CHIME_STATE_COMPLETE ||
      state == CHIME_STATE_ERROR)
    return;
  int64_t after = t->state.prev_fire_ms != CHIME_NO_FIRE
                      ? t->state.prev_fire_ms
                      : t->state.start_ms - 1;
  int64_t next;
  int r = chime__trigger_fire_after(&t->schedule, &t->state, after, &next);
  chime__mem_heap_remove(mt);
  if (r == CHIME_ENEVERFIRES) {
    t->state.next_fire_ms = CHIME_NO_FIRE;
    state = CHIME_STATE_COMPLETE;
  } else if (r < 0) {
    state = CHIME_STATE_ERROR;
  } else {
    t->state.next_fire_ms = next;
  }
  (void)chime__mem_set_state(s, mt, state);
}

typedef struct cal_arg {
  mem_store *s;
  mem_calendar *mc;
  bool update;
} cal_arg;

static void calendar_changed(void *value, void *arg) {
  mem_trigger *mt = value;
  cal_arg *a = arg;
  if (mt->calendar != a->mc)
    return;
  mt->t->schedule.calendar = a->mc->cal;
  if (a->update)
    recompute(a->s, mt);
}

int chime__mem_calendar_add(chime_store *store, const char *name,
                            const chime_calendar *calendar, bool replace,
                            bool update_triggers) {
  mem_store *s = (mem_store *)store;
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0 || !calendar)
    return r < 0 ? r : CHIME_EINVAL;
  /* Calendars are immutable and reference counted: the store's reference
   * shares the caller's calendar. */
  chime_calendar *cal = chime__calendar_ref((chime_calendar *)calendar);
  chime__mem_lock(s);
  mem_calendar *mc = chime__mem_map_get(&s->calendars, name, strlen(name));
  if (mc && !replace) {
    r = CHIME_EEXISTS;
  } else if (mc) {
    chime_calendar *old = mc->cal;
    mc->cal = cal;
    cal = NULL;
    cal_arg a = {s, mc, update_triggers};
    if (mc->nusers > 0)
      chime__mem_map_each(&s->triggers, calendar_changed, &a);
    chime__calendar_unref(old);
  } else {
    mc = calloc(1, sizeof *mc);
    if (!mc || !(mc->name = strdup(name)) ||
        chime__mem_map_put(&s->calendars, name, strlen(name), mc) < 0) {
      if (mc)
        free(mc->name);
      free(mc);
      r = CHIME_ENOMEM;
    } else {
      mc->cal = cal;
      cal = NULL;
    }
  }
  chime__mem_unlock(s);
  chime__calendar_unref(cal);
  return r;
}

int chime__mem_calendar_remove(chime_store *store, const char *name) {
  mem_store *s = (mem_store *)store;
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0)
    return r;
  mem_calendar *gone = NULL;
  chime__mem_lock(s);
  mem_calendar *mc = chime__mem_map_get(&s->calendars, name, strlen(name));
  if (!mc)
    r = CHIME_ENOTFOUND;
  else if (mc->nusers > 0)
    r = CHIME_EBUSY;
  else
    gone = chime__mem_map_del(&s->calendars, name, strlen(name));
  chime__mem_unlock(s);
  if (gone) {
    chime__calendar_unref(gone->cal);
    free(gone->name);
    free(gone);
  }
  return r;
}

int chime__mem_calendar_get(chime_store *store, const char *name,
                            chime_calendar **ret_calendar) {
  mem_store *s = (mem_store *)store;
  int r = chime__name_check(name, "calendar name", NULL, 0);
  if (r < 0 || !ret_calendar)
    return r < 0 ? r : CHIME_EINVAL;
  chime__mem_lock(s);
  mem_calendar *mc = chime__mem_map_get(&s->calendars, name, strlen(name));
  chime_calendar *cal = mc ? chime__calendar_ref(mc->cal) : NULL;
  chime__mem_unlock(s);
  if (!cal)
    return CHIME_ENOTFOUND;
  *ret_calendar = cal;
  return 0;
}
