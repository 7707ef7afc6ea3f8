/*
 * calendars.c: the memory store's calendars (mem_calendar), kept by name
 * with one reference each (calendars are immutable and reference counted)
 * and counted by the triggers naming them; and what a replaced calendar
 * does to those triggers (Quartz's updateWithNewCalendar).
 *
 * Locks: each operation takes the store's lock (memory.h) once; the
 * references a calendar holds are taken and dropped outside it.
 */
#include "jobstore/memory/memory.h"

#include "triggers/calendar.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void chime__mem_calendar_free(void *calendar, void *unused) {
  mem_calendar *mc = calendar;
  (void)unused;
  chime__calendar_unref(mc->cal);
  free(mc->name);
  free(mc);
}

/*
 * Recomputes a trigger's next fire after its calendar changed or its
 * zone's rules were reloaded (chime__trigger_refire_after_change: after
 * its previous fire, as Quartz's updateWithNewCalendar); late results are
 * left to the misfire scan.  A trigger that can no longer fire becomes
 * COMPLETE (and stays, as after a misfire).  Claimed, complete and broken
 * triggers are left alone.  Returns whether the next fire moved.
 */
bool chime__mem_recompute(mem_store *s, mem_trigger *mt) {
  MEM_ASSERT_LOCKED(s);
  chime_trigger *t = mt->t;
  chime_store_state state = t->store_state;
  if (state == CHIME_STATE_ACQUIRED || state == CHIME_STATE_COMPLETE ||
      state == CHIME_STATE_ERROR)
    return false;
  int64_t before = t->state.next_fire_ms, next;
  int r = chime__trigger_refire_after_change(&t->schedule, &t->state, &next);
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
  return t->state.next_fire_ms != before;
}

typedef struct cal_arg {
  mem_store *s;
  mem_calendar *mc;
  bool update;
  size_t users; /* triggers found naming mc */
} cal_arg;

static void calendar_changed(void *value, void *arg) {
  mem_trigger *mt = value;
  cal_arg *a = arg;
  if (mt->calendar != a->mc)
    return;
  a->users++;
  mt->t->schedule.calendar = a->mc->cal;
  if (a->update)
    (void)chime__mem_recompute(a->s, mt);
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
    assert(strcmp(mc->name, name) == 0);
    chime_calendar *old = mc->cal;
    mc->cal = cal;
    cal = old; /* unreferenced after unlocking */
    cal_arg a = {s, mc, update_triggers, 0};
    if (mc->nusers > 0)
      chime__mem_map_each(&s->triggers, calendar_changed, &a);
    assert(a.users == mc->nusers);
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
  assert(gone == NULL || gone == mc);
  chime__mem_unlock(s);
  if (gone)
    chime__mem_calendar_free(gone, NULL);
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
