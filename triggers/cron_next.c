/*
 * cron_next.c: the search for a cron expression's next fire time.  It runs
 * in two layers: chime__cron_next_local finds the next matching local time
 * with no zone involved, jumping whole fields at a time (the next month in
 * the month set, the next matching day from a per-month day mask, and so
 * on); chime_cron_next maps local times to instants in a zone and applies
 * the DST rule of docs/cron.md: a local time a spring-forward gap skips
 * never fires; in the repeated hour of a fall-back an expression whose hour
 * field matches every hour fires in both passes, any other only in the
 * first.
 */
#include "triggers/civil.h"
#include "triggers/cron.h"
#include "triggers/tz.h"

#include <assert.h>

#define SECONDS_PER_DAY INT64_C(86400)
/* Safety net for the local search: far more steps than any real search. */
#define MAX_STEPS 4000000

/* chime__cron_has_year (cron.h): one bit test. */
bool chime__cron_has_year(const chime_cron *cron, int64_t year) {
  if (year < CHIME_CRON_YEAR_MIN || year > CHIME_CRON_YEAR_MAX)
    return false;
  int64_t b = year - CHIME_CRON_YEAR_MIN;
  return (cron->years[b / 64] >> (b % 64)) & 1;
}

/* The first year >= year in the year field, or 0 when there is none. */
static int64_t next_year(const chime_cron *cron, int64_t year) {
  if (year < CHIME_CRON_YEAR_MIN)
    year = CHIME_CRON_YEAR_MIN;
  for (int64_t b = year - CHIME_CRON_YEAR_MIN;
       b <= CHIME_CRON_YEAR_MAX - CHIME_CRON_YEAR_MIN;) {
    uint64_t w = cron->years[b / 64] >> (b % 64);
    if (w != 0)
      return CHIME_CRON_YEAR_MIN + b + __builtin_ctzll(w);
    b = (b / 64 + 1) * 64;
  }
  return 0;
}

/*
 * The weekday nearest day d of a month of nd days, the way Quartz computes
 * it: the weekday of d is taken leniently (day 31 of a 30-day month is the
 * 1st of the next), a Saturday moves back a day (forward two on the 1st), a
 * Sunday forward a day (back two on the last day).  Returns 0 when the
 * result falls outside the month: then the month has no such day.  So
 * "31W" fires on the 30th of a 30-day month when the 30th is a Friday.
 */
static int nearest_weekday(int64_t year, int month, int d, int nd) {
  int64_t days = chime__days_from_civil(year, month, 1) + d - 1;
  int w = chime__weekday_from_days(days);
  if (w == 6)
    d = d == 1 ? 3 : d - 1;
  else if (w == 0)
    d = d == nd ? d - 2 : d + 1;
  return d >= 1 && d <= nd ? d : 0;
}

/* The day mask when the day-of-week field decides; w1 is day 1's weekday. */
static uint32_t dow_mask(const chime_cron *cron, int w1, int nd) {
  uint32_t mask = 0;
  if (cron->dow_kind != CHIME_CRON_DOW_SET) {
    int first = 1 + (cron->dow_day - w1 + 7) % 7;
    int d = cron->dow_kind == CHIME_CRON_DOW_LAST
                ? first + 7 * ((nd - first) / 7)
                : first + 7 * (cron->dow_nth - 1);
    return d <= nd ? UINT32_C(1) << d : 0;
  }
  for (int w = 0; w < 7; w++) {
    if (!((cron->dow >> w) & 1))
      continue;
    for (int d = 1 + (w - w1 + 7) % 7; d <= nd; d += 7)
      mask |= UINT32_C(1) << d;
  }
  return mask;
}

/*
 * chime__cron_day_mask (cron.h): only the day field that is not '?' is
 * consulted.  Thread: any.
 */
uint32_t chime__cron_day_mask(const chime_cron *cron, int64_t year, int month) {
  int nd = chime__days_in_month(year, month);
  if (cron->day_mode == CHIME_CRON_BY_EITHER) {
    int w1 = chime__weekday_from_days(chime__days_from_civil(year, month, 1));
    return dow_mask(cron, w1, nd) |
           (cron->dom & (((UINT32_C(1) << nd) - 1) << 1));
  }
  if (cron->day_mode == CHIME_CRON_BY_DOW) {
    int w1 = chime__weekday_from_days(chime__days_from_civil(year, month, 1));
    return dow_mask(cron, w1, nd);
  }
  int d;
  switch (cron->dom_kind) {
  case CHIME_CRON_DOM_LAST:
    d = nd - cron->dom_offset;
    return d >= 1 ? UINT32_C(1) << d : 0;
  case CHIME_CRON_DOM_LAST_WEEKDAY:
  case CHIME_CRON_DOM_NEAREST_WEEKDAY:
    d = cron->dom_kind == CHIME_CRON_DOM_NEAREST_WEEKDAY
            ? cron->dom_day
            : nd - cron->dom_offset;
    d = nearest_weekday(year, month, d, nd);
    return d != 0 ? UINT32_C(1) << d : 0;
  default:
    return cron->dom & (((UINT32_C(1) << nd) - 1) << 1);
  }
}

/* A local time being searched, field by field. */
typedef struct cursor {
  int64_t year;
  int month, day, hour, minute, second;
  int64_t mask_year; /* the month day_mask was computed for */
  int mask_month;
  uint32_t day_mask;
} cursor;

/* Moves to the first second of the next month. */
static void next_month(cursor *c) {
  if (++c->month > 12) {
    c->month = 1;
    c->year++;
  }
  c->day = 1;
  c->hour = c->minute = c->second = 0;
}

/* Moves to the first second of the next day. */
static void next_day(cursor *c) {
  if (c->day >= chime__days_in_month(c->year, c->month)) {
    next_month(c);
    return;
  }
  c->day++;
  c->hour = c->minute = c->second = 0;
}

/*
 * One step of the search on the date fields: returns 1 when year, month
 * and day match, 0 after moving the cursor forward (try again), or
 * CHIME_ENEVERFIRES.
 */
static int step_date(const chime_cron *cron, cursor *c) {
  if (!chime__cron_has_year(cron, c->year)) {
    int64_t y = next_year(cron, c->year + (c->year >= CHIME_CRON_YEAR_MIN));
    if (y == 0 || c->year > CHIME_CRON_YEAR_MAX)
      return CHIME_ENEVERFIRES;
    *c = (cursor){.year = y, .month = 1, .day = 1, .mask_month = 0};
    return 0;
  }
  uint32_t months = cron->months & ~((UINT32_C(1) << c->month) - 1);
  if (months == 0) {
    *c = (cursor){.year = c->year + 1, .month = 1, .day = 1, .mask_month = 0};
    return 0;
  }
  int m = __builtin_ctz(months);
  if (m != c->month) {
    c->month = m;
    c->day = 1;
    c->hour = c->minute = c->second = 0;
  }
  if (c->mask_year != c->year || c->mask_month != c->month) {
    c->day_mask = chime__cron_day_mask(cron, c->year, c->month);
    c->mask_year = c->year;
    c->mask_month = c->month;
  }
  uint32_t days = c->day_mask & ~((UINT32_C(1) << c->day) - 1);
  if (days == 0) {
    next_month(c);
    return 0;
  }
  int d = __builtin_ctz(days);
  if (d != c->day) {
    c->day = d;
    c->hour = c->minute = c->second = 0;
  }
  return 1;
}

/*
 * One step on the time-of-day fields: returns 1 when hour, minute and
 * second match, 0 after moving the cursor forward.
 */
static int step_time(const chime_cron *cron, cursor *c) {
  uint32_t hours = cron->hours & ~((UINT32_C(1) << c->hour) - 1);
  if (hours == 0) {
    next_day(c);
    return 0;
  }
  int h = __builtin_ctz(hours);
  if (h != c->hour) {
    c->hour = h;
    c->minute = c->second = 0;
  }
  uint64_t minutes = cron->minutes & ~((UINT64_C(1) << c->minute) - 1);
  if (minutes == 0) {
    c->minute = c->second = 0;
    if (++c->hour > 23)
      next_day(c);
    return 0;
  }
  int mi = __builtin_ctzll(minutes);
  if (mi != c->minute) {
    c->minute = mi;
    c->second = 0;
  }
  uint64_t seconds = cron->seconds & ~((UINT64_C(1) << c->second) - 1);
  if (seconds == 0) {
    c->second = 0;
    if (++c->minute > 59) {
      c->minute = 0;
      if (++c->hour > 23)
        next_day(c);
    }
    return 0;
  }
  c->second = __builtin_ctzll(seconds);
  return 1;
}

/*
 * chime__cron_next_local (cron.h): alternates date and time steps until
 * both match; each step moves the cursor forward, and step_date gives up
 * past the year field's last year.
 */
int chime__cron_next_local(const chime_cron *cron, int64_t from_s,
                           int64_t *ret_s) {
  int64_t days = chime__floor_div(from_s, SECONDS_PER_DAY);
  int64_t sod = from_s - days * SECONDS_PER_DAY;
  cursor c = {.hour = (int)(sod / 3600),
              .minute = (int)(sod / 60 % 60),
              .second = (int)(sod % 60),
              .mask_month = 0};
  chime__civil_from_days(days, &c.year, &c.month, &c.day);
  for (int steps = 0; steps < MAX_STEPS; steps++) {
    int r = step_date(cron, &c);
    if (r < 0)
      return r;
    if (r == 0 || step_time(cron, &c) == 0)
      continue;
    *ret_s = chime__days_from_civil(c.year, c.month, c.day) * SECONDS_PER_DAY +
             c.hour * 3600 + c.minute * 60 + c.second;
    return 0;
  }
  return CHIME_ENEVERFIRES;
}

/* The instants of local time local_s in zone (0, 1 or 2, ascending). */
static int instants_of(const chime_zone *zone, int64_t local_s,
                       int64_t ret_ms[2]) {
  chime_civil civ;
  chime__civil_from_ms(local_s * CHIME_MS_PER_SECOND, &civ);
  return chime__zone_from_local(zone, &civ, ret_ms);
}

/*
 * The first local time after local_s (which a DST gap skips) that exists,
 * found by bisection over the next day; gaps are contiguous and far apart.
 */
static int64_t gap_end(const chime_zone *zone, int64_t local_s) {
  int64_t ms[2];
  int64_t lo = local_s, hi = local_s + SECONDS_PER_DAY;
  if (instants_of(zone, hi, ms) == 0)
    return local_s + 1;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (instants_of(zone, mid, ms) == 0)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/*
 * The instant (seconds) at which offset o1 gives way to o2, searched in
 * (lo, lo + o1 - o2]: the fall-back whose repeated hour holds lo's local
 * time.
 */
static int64_t fall_back_instant(const chime_zone *zone, int64_t lo, int32_t o1,
                                 int32_t o2) {
  int64_t hi = lo + (o1 - o2);
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (chime_zone_get_offset_at(zone, mid * CHIME_MS_PER_SECOND) == o1)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/*
 * The next fire when after_ms lies in the first pass of a repeated hour
 * and the expression fires in both passes: the rest of the first pass,
 * then the second pass from its start.  Returns 1 with *ret_ms, 0 when
 * neither pass holds a fire (*ret_from_s then says where to go on), or an
 * error.
 */
static int next_in_overlap(const chime_cron *cron, const chime_zone *zone,
                           int64_t local0, const int64_t inst[2],
                           int64_t *ret_ms, int64_t *ret_from_s) {
  int32_t o1 = (int32_t)(local0 - inst[0] / CHIME_MS_PER_SECOND);
  int32_t o2 = (int32_t)(local0 - inst[1] / CHIME_MS_PER_SECOND);
  int64_t t = fall_back_instant(zone, inst[0] / CHIME_MS_PER_SECOND, o1, o2);
  int64_t first_end = t + o1, second_start = t + o2, l;
  int r = chime__cron_next_local(cron, local0 + 1, &l);
  if (r < 0)
    return r;
  if (l < first_end) {
    *ret_ms = (l - o1) * CHIME_MS_PER_SECOND;
    return 1;
  }
  r = chime__cron_next_local(cron, second_start, &l);
  if (r < 0)
    return r;
  if (l < first_end) {
    *ret_ms = (l - o2) * CHIME_MS_PER_SECOND;
    return 1;
  }
  *ret_from_s = first_end;
  return 0;
}

/* Instants far outside the year field's range are clamped or rejected. */
#define EARLIEST_MS (-2 * CHIME_MS_PER_DAY)
#define LATEST_MS                                                              \
  ((INT64_C(365) * (CHIME_CRON_YEAR_MAX + 1 - 1970) + 60) * CHIME_MS_PER_DAY)

/*
 * chime_cron_next (chime.h): the next matching local time is mapped to its
 * instants; gap times are jumped over, and in a repeated hour the DST rule
 * above picks the pass.  Thread: any.
 */
int chime_cron_next(const chime_cron *cron, const chime_zone *zone,
                    int64_t after_ms, int64_t *ret_next_ms) {
  if (cron == NULL || zone == NULL || ret_next_ms == NULL)
    return CHIME_EINVAL;
  if (after_ms > LATEST_MS)
    return CHIME_ENEVERFIRES;
  if (after_ms < EARLIEST_MS)
    after_ms = EARLIEST_MS;
  chime_civil civ;
  chime__zone_to_local(zone, after_ms, &civ, NULL);
  civ.millisecond = 0;
  int64_t local0 = chime__civil_to_ms(&civ) / CHIME_MS_PER_SECOND;
  int64_t from = local0 + 1, inst[2], l;
  int r;
  if (cron->hour_all && instants_of(zone, local0, inst) == 2 &&
      after_ms - inst[0] < CHIME_MS_PER_SECOND) {
    r = next_in_overlap(cron, zone, local0, inst, ret_next_ms, &from);
    if (r != 0)
      return r < 0 ? r : 0;
  }
  for (int steps = 0; steps < MAX_STEPS; steps++) {
    if ((r = chime__cron_next_local(cron, from, &l)) < 0)
      return r;
    int n = instants_of(zone, l, inst);
    if (n == 0) {
      from = gap_end(zone, l);
      continue;
    }
    if (inst[0] > after_ms) {
      *ret_next_ms = inst[0];
      return 0;
    }
    if (n == 2 && cron->hour_all && inst[1] > after_ms) {
      *ret_next_ms = inst[1];
      return 0;
    }
    from = l + 1;
  }
  return CHIME_ENEVERFIRES;
}
