/*
 * zones.c: the memory store's answer to reloaded zone rules (store.h's
 * recompute_zones).  Each trigger keeps its zone's name (and a recurrence
 * its text) beside the resolved zone object; when the zone's rules were
 * reloaded (triggers/tz_load.c), the trigger's schedule takes the newest
 * zone object of that name (a recurrence is compiled again, as its TZID
 * resolves the zone) and its next fire is recomputed with the new rules
 * (chime__mem_recompute, as for a replaced calendar).  A claimed trigger
 * takes the new zone too, and so computes its next fire with the new rules
 * when it fires.  The old zone objects stay valid (tz_load.c never frees
 * one), so a copy handed out earlier still computes, with the old rules.
 * A calendar reading wall-clock time in such a zone is rebuilt with the
 * new objects (chime__calendar_reload), and the triggers naming it are
 * recomputed too, as for a replaced calendar.
 *
 * Locks: one operation, under the store's lock (memory.h); the calendars
 * replaced are unreferenced after unlocking (calendars.c's rule).
 */
#include "jobstore/memory/memory.h"

#include "triggers/calendar.h"
#include "triggers/tz.h"

#include <stdlib.h>
#include <string.h>

typedef struct zone_arg {
  mem_store *s;
  const char *const *zones;
  size_t count;
  size_t moved;
  int rc;
  /* Calendars rebuilt: their entries, and the old calendars to unref. */
  mem_calendar **cals;
  chime_calendar **olds;
  size_t ncals, cals_cap;
} zone_arg;

static bool cal_rebuilt(const zone_arg *a, const mem_calendar *mc) {
  for (size_t i = 0; mc != NULL && i < a->ncals; i++)
    if (a->cals[i] == mc)
      return true;
  return false;
}

/* Rebuilds a calendar that reads time in a changed zone. */
static void calendar_rebuild(void *value, void *arg) {
  mem_calendar *mc = value;
  zone_arg *a = arg;
  MEM_ASSERT_LOCKED(a->s);
  if (a->rc < 0 || !chime__calendar_uses_zone(mc->cal, a->zones, a->count))
    return;
  if (a->ncals == a->cals_cap) {
    size_t cap = a->cals_cap ? 2 * a->cals_cap : 8;
    mem_calendar **cals = realloc(a->cals, cap * sizeof *cals);
    if (cals)
      a->cals = cals;
    chime_calendar **olds = realloc(a->olds, cap * sizeof *olds);
    if (olds)
      a->olds = olds;
    if (!cals || !olds) {
      a->rc = CHIME_ENOMEM;
      return;
    }
    a->cals_cap = cap;
  }
  chime_calendar *fresh = NULL;
  int r = chime__calendar_reload(mc->cal, &fresh);
  if (r < 0) {
    a->rc = r;
    return;
  }
  a->olds[a->ncals] = mc->cal;
  a->cals[a->ncals++] = mc;
  mc->cal = fresh;
}

static bool named(const zone_arg *a, const char *zone) {
  for (size_t i = 0; i < a->count; i++)
    if (strcmp(a->zones[i], zone) == 0)
      return true;
  return false;
}

static void zone_changed(void *value, void *arg) {
  mem_trigger *mt = value;
  zone_arg *a = arg;
  chime_trigger *t = mt->t;
  MEM_ASSERT_LOCKED(a->s);
  bool by_zone = t->zone_name && named(a, t->zone_name);
  bool by_calendar = cal_rebuilt(a, mt->calendar);
  /* Even after a failure: the calendar's old object is released. */
  if (by_calendar)
    t->schedule.calendar = mt->calendar->cal;
  if (a->rc < 0 || (!by_zone && !by_calendar))
    return;
  if (!by_zone) {
    if (chime__mem_recompute(a->s, mt))
      a->moved++;
    chime__mem_trigger_check(mt);
    return;
  }
  const chime_zone *zone;
  int r = chime_zone_get(t->zone_name, &zone);
  if (r == 0 && t->schedule.kind == CHIME_TRIGGER_RECURRENCE) {
    chime_rrule *rule = NULL;
    r = t->cron_text ? chime_rrule_from_string(t->cron_text, &rule, NULL, 0)
                     : CHIME_EFORMAT;
    if (r == 0) {
      chime_rrule_free(t->rrule);
      t->rrule = rule;
      t->schedule.u.rrule.rule = rule;
    }
  }
  /* The zone was cached (the trigger resolved it), so only ENOMEM fails. */
  if (r < 0) {
    a->rc = r;
    return;
  }
  t->schedule.zone = zone;
  if (chime__mem_recompute(a->s, mt))
    a->moved++;
  chime__mem_trigger_check(mt);
}

int chime__mem_recompute_zones(chime_store *store, const char *const *zones,
                               size_t count, size_t max,
                               chime_zones_cursor **cursor,
                               size_t *ret_recomputed) {
  mem_store *s = (mem_store *)store;
  (void)max; /* one pass under the lock: no step to stop at */
  if (cursor) {
    chime__zones_cursor_free(*cursor);
    *cursor = NULL;
  }
  if (count > 0 && !zones)
    return CHIME_EINVAL;
  zone_arg a = {.s = s, .zones = zones, .count = count};
  chime__mem_lock(s);
  if (count > 0)
    chime__mem_map_each(&s->calendars, calendar_rebuild, &a);
  /* Also after a failure: triggers of a rebuilt calendar take its new
   * object, as its old one is released below. */
  if (count > 0)
    chime__mem_map_each(&s->triggers, zone_changed, &a);
  chime__mem_unlock(s);
  for (size_t i = 0; i < a.ncals; i++)
    chime__calendar_unref(a.olds[i]);
  free(a.cals);
  free(a.olds);
  if (ret_recomputed)
    *ret_recomputed = a.moved;
  return a.rc;
}
