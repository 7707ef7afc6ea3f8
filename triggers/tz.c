/*
 * tz.c: the zone object: converting instants to wall-clock time and back,
 * and parsing TZif images (RFC 8536, versions 1-4) into zones.
 *
 * A zone is a sorted table of transitions plus, for TZif v2+ files, the
 * footer's POSIX rule for instants after the table (tz_impl.h).  At load
 * time the rule's transitions up to CHIME_TZ_PRECOMPUTE_YEAR are appended to
 * the table, so converting an instant before then is one binary search;
 * later instants evaluate the rule for their year (a few dozen operations,
 * nothing cached, so zones stay immutable and lock-free).
 */
#include "triggers/tz_impl.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Local years whose instants chime__zone_from_local will look for. */
#define CHIME_TZ_MAX_LOCAL_YEAR 10000000

/* The period containing t_s: its offset and bounds [*ret_start, *ret_end). */
static void period_at(const chime_zone *z, int64_t t_s, int32_t *ret_offset,
                      int64_t *ret_start, int64_t *ret_end) {
  size_t n = z->count;
  if (z->has_rule && (n == 0 || t_s >= z->at[n - 1])) {
    chime__tz_rule_period(&z->rule, t_s, ret_offset, ret_start, ret_end);
    if (n > 0 && *ret_start < z->at[n - 1])
      *ret_start = z->at[n - 1];
    return;
  }
  if (n == 0 || t_s < z->at[0]) {
    *ret_offset = z->initial_offset;
    *ret_start = INT64_MIN;
    *ret_end = n == 0 ? INT64_MAX : z->at[0];
    return;
  }
  /* Invariant: at[lo] <= t_s < at[hi], with at[n] read as +infinity. */
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (z->at[mid] <= t_s)
      lo = mid;
    else
      hi = mid;
  }
  *ret_offset = z->offset[lo];
  *ret_start = z->at[lo];
  *ret_end = hi < n ? z->at[hi] : INT64_MAX;
}

static int64_t clamp_ms(int64_t t_ms) {
  if (t_ms > CHIME_TZ_LIMIT_MS)
    return CHIME_TZ_LIMIT_MS;
  if (t_ms < -CHIME_TZ_LIMIT_MS)
    return -CHIME_TZ_LIMIT_MS;
  return t_ms;
}

void chime__zone_to_local(const chime_zone *zone, int64_t t_ms,
                          chime_civil *ret_local, int32_t *ret_offset_s) {
  assert(zone != NULL && ret_local != NULL);
  int64_t start, end;
  int32_t off;
  t_ms = clamp_ms(t_ms);
  period_at(zone, chime__floor_div(t_ms, 1000), &off, &start, &end);
  chime__civil_from_ms(t_ms + (int64_t)off * 1000, ret_local);
  if (ret_offset_s != NULL)
    *ret_offset_s = off;
}

/*
 * Finds the instants (whole seconds) whose local time is l_s, by walking the
 * periods that overlap the window of instants any offset could map to l_s.
 * *ret_wall_offset gets the offset of the last period that starts, in its
 * own wall-clock time, at or before l_s: the offset java.util.Calendar uses.
 */
static int solve_local(const chime_zone *z, int64_t l_s, int64_t ret_s[2],
                       int32_t *ret_wall_offset) {
  int64_t t = l_s - CHIME_TZ_MAX_OFFSET_S;
  int64_t hi = l_s + CHIME_TZ_MAX_OFFSET_S;
  int found = 0;
  bool have_wall = false;
  for (;;) {
    int64_t start, end;
    int32_t off;
    period_at(z, t, &off, &start, &end);
    if (!have_wall || start == INT64_MIN || start + off <= l_s) {
      *ret_wall_offset = off;
      have_wall = true;
    }
    int64_t cand = l_s - off;
    if (cand >= start && cand < end && found < 2)
      ret_s[found++] = cand;
    /* Each step moves t forward, and the table and rule are finite. */
    if (end > hi)
      break;
    t = end;
  }
  return found;
}

static bool local_in_range(const chime_civil *local) {
  assert(local->month >= 1 && local->month <= 12);
  return local->year >= -CHIME_TZ_MAX_LOCAL_YEAR &&
         local->year <= CHIME_TZ_MAX_LOCAL_YEAR;
}

int chime__zone_from_local(const chime_zone *zone, const chime_civil *local,
                           int64_t ret_ms[2]) {
  assert(zone != NULL && local != NULL);
  if (!local_in_range(local))
    return 0;
  int64_t l_ms = chime__civil_to_ms(local);
  int64_t l_s = chime__floor_div(l_ms, 1000);
  int64_t frac = l_ms - l_s * 1000;
  int64_t s[2];
  int32_t wall_off;
  int n = solve_local(zone, l_s, s, &wall_off);
  for (int i = 0; i < n; i++)
    ret_ms[i] = s[i] * 1000 + frac;
  return n;
}

/*
 * java.util.GregorianCalendar.computeTime asks ZoneInfo.getOffsetsByWall
 * for the offset, which binary-searches the transitions by their wall-clock
 * time in the NEW offset (instant + offset after it) and takes the last one
 * at or before the wall time; past its table, SimpleTimeZone reads the wall
 * time as standard time.  Both mean: in a gap the offset from before the
 * gap applies (02:30 becomes 03:30), in an overlap the offset after the
 * transition (the later instant: standard time after a fall-back).
 */
int64_t chime__zone_resolve_local(const chime_zone *zone,
                                  const chime_civil *local) {
  assert(zone != NULL && local != NULL);
  chime_civil c = *local;
  if (c.year > CHIME_TZ_MAX_LOCAL_YEAR)
    c.year = CHIME_TZ_MAX_LOCAL_YEAR;
  if (c.year < -CHIME_TZ_MAX_LOCAL_YEAR)
    c.year = -CHIME_TZ_MAX_LOCAL_YEAR;
  int64_t l_ms = chime__civil_to_ms(&c);
  int64_t l_s = chime__floor_div(l_ms, 1000);
  int64_t frac = l_ms - l_s * 1000;
  int64_t s[2];
  int32_t wall_off;
  int n = solve_local(zone, l_s, s, &wall_off);
  if (n > 0)
    return s[n - 1] * 1000 + frac;
  return l_ms - (int64_t)wall_off * 1000;
}

int32_t chime_zone_get_offset_at(const chime_zone *zone, int64_t t_ms) {
  if (zone == NULL)
    return 0;
  int64_t start, end;
  int32_t off;
  period_at(zone, chime__floor_div(clamp_ms(t_ms), 1000), &off, &start, &end);
  return off;
}

const char *chime_zone_get_name(const chime_zone *zone) {
  return zone == NULL ? NULL : zone->name;
}

void chime__zone_free(chime_zone *zone) {
  if (zone == NULL)
    return;
  free(zone->name);
  free(zone->at);
  free(zone->offset);
  free(zone);
}

int chime__zone_new_fixed(const char *name, int32_t offset_s,
                          chime_zone **ret_zone) {
  chime_zone *z = calloc(1, sizeof *z);
  if (z == NULL || (z->name = strdup(name)) == NULL) {
    free(z);
    return CHIME_ENOMEM;
  }
  z->initial_offset = offset_s;
  *ret_zone = z;
  return 0;
}
