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
 *
 * Locks: one operation, under the store's lock (memory.h).
 */
#include "jobstore/memory/memory.h"

#include "triggers/tz.h"

#include <string.h>

typedef struct zone_arg {
  mem_store *s;
  const char *const *zones;
  size_t count;
  size_t moved;
  int rc;
} zone_arg;

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
  if (a->rc < 0 || !t->zone_name || !named(a, t->zone_name))
    return;
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
                               size_t count, size_t *ret_recomputed) {
  mem_store *s = (mem_store *)store;
  if (count > 0 && !zones)
    return CHIME_EINVAL;
  zone_arg a = {s, zones, count, 0, 0};
  chime__mem_lock(s);
  if (count > 0)
    chime__mem_map_each(&s->triggers, zone_changed, &a);
  chime__mem_unlock(s);
  if (ret_recomputed)
    *ret_recomputed = a.moved;
  return a.rc;
}
