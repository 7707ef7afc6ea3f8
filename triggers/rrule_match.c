/*
 * rrule_match.c: the candidates of an RRULE: the wall-clock times in the
 * periods INTERVAL allows that pass every BY* part.  Every BY* part limits
 * the days or times (python-dateutil reads RFC 5545's "expand" parts the
 * same way: a day set filtered by each part gives the same instances).
 *
 * The search never walks second by second: it skips a month BYMONTH
 * rejects, a period INTERVAL skips, a day the day parts reject, and
 * within a day an hour or minute that cannot match; a whole day's answer
 * under a sub-daily INTERVAL depends only on the day's phase against the
 * INTERVAL, so it is worked out once per phase.  The search is bounded:
 * the Gregorian calendar repeats every 400 years, so a rule with no
 * candidate in 400 cycles of its own pattern has none at all (the
 * horizon), and nothing is looked for past the year 9999.
 */
#include "triggers/rrule_impl.h"

#include <stdlib.h>

#define SEC_PER_DAY INT64_C(86400)
#define MAX_PHASES 4096 /* whole-day answers kept per search */
#define LAST_YEAR 9999

static bool has(uint64_t mask, int v) {
  return mask == 0 || (mask >> v & 1) != 0;
}

static bool has_bit64(const uint64_t *words, int v) {
  return (words[v / 64] >> (v % 64) & 1) != 0;
}

static int64_t gcd(int64_t a, int64_t b) {
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The first day of week 1 of year (weeks start on wkst, week 1 holds at
 * least four days of the year: ISO 8601 with any first weekday). */
static int64_t week1_start(int64_t year, int wkst) {
  int64_t jan1 = chime__days_from_civil(year, 1, 1);
  int64_t to_wkst = chime__floor_mod(wkst - chime__weekday_from_days(jan1), 7);
  return to_wkst >= 4 ? jan1 + to_wkst - 7 : jan1 + to_wkst;
}

void chime__rr_weekno(int64_t day, int wkst, int *ret_weekno, int *ret_nweeks) {
  int64_t year;
  int month, mday;
  chime__civil_from_days(day, &year, &month, &mday);
  if (day < week1_start(year, wkst))
    year--;
  else if (day >= week1_start(year + 1, wkst))
    year++;
  int64_t start = week1_start(year, wkst);
  *ret_weekno = (int)((day - start) / 7 + 1);
  *ret_nweeks = (int)((week1_start(year + 1, wkst) - start) / 7);
}

/* Whether a BYDAY entry names this day: a bare weekday, or the n-th (from
 * the start) or -n-th (from the end) such weekday of the month (MONTHLY,
 * YEARLY with BYMONTH) or of the year (YEARLY). */
static bool byday_ok(const chime__rr_spec *r, int wday, int mday, int dim,
                     int yday, int ylen) {
  if (r->wdays == 0 && r->nnth == 0)
    return true;
  if (r->wdays >> wday & 1)
    return true;
  bool in_month = r->freq == CHIME__RR_MONTHLY || r->months != 0;
  int pos = in_month ? mday : yday, len = in_month ? dim : ylen;
  int from_start = (pos - 1) / 7 + 1, from_end = -((len - pos) / 7 + 1);
  for (size_t i = 0; i < r->nnth; i++)
    if (r->nth[i].wday == wday &&
        (r->nth[i].n == from_start || r->nth[i].n == from_end))
      return true;
  return false;
}

/* Whether the day parts (BYMONTH aside) allow day number day. */
static bool day_ok(const chime__rr_spec *r, int64_t day) {
  int64_t year;
  int month, mday;
  chime__civil_from_days(day, &year, &month, &mday);
  int dim = chime__days_in_month(year, month);
  int ylen = chime__is_leap_year(year) ? 366 : 365;
  int yday = (int)(day - chime__days_from_civil(year, 1, 1)) + 1;
  if ((r->mday_pos | r->mday_neg) && !(r->mday_pos >> mday & 1) &&
      !(r->mday_neg >> (dim - mday + 1) & 1))
    return false;
  if (r->has_yday && !has_bit64(r->yday_pos, yday) &&
      !has_bit64(r->yday_neg, ylen - yday + 1))
    return false;
  if (r->weekno_pos | r->weekno_neg) {
    int n, weeks;
    chime__rr_weekno(day, r->wkst, &n, &weeks);
    if (!(r->weekno_pos >> n & 1) && !(r->weekno_neg >> (weeks - n + 1) & 1))
      return false;
  }
  return byday_ok(r, chime__weekday_from_days(day), mday, dim, yday, ylen);
}

/* The smallest v >= from with v - origin a multiple of interval. */
static int64_t align(const chime__rr_spec *r, int64_t from) {
  return from + chime__floor_mod(r->origin - from, r->interval);
}

/* The next second of a set mask at or after v (0-59), or -1. */
static int next_in(uint64_t mask, int v, int top) {
  for (; v < top; v++)
    if (has(mask, v))
      return v;
  return -1;
}

/* DAILY and longer: the first time of day at or after tod, or -1. */
static int32_t coarse_time(const chime__rr_spec *r, int32_t tod) {
  for (int h = next_in(r->hours, tod / 3600, 24); h >= 0;
       h = next_in(r->hours, h + 1, 24)) {
    bool same_h = h == tod / 3600;
    for (int m = next_in(r->minutes, same_h ? tod / 60 % 60 : 0, 60); m >= 0;
         m = next_in(r->minutes, m + 1, 60)) {
      bool same_m = same_h && m == tod / 60 % 60;
      int s = next_in(r->seconds, same_m ? tod % 60 : 0, 60);
      if (s >= 0)
        return h * 3600 + m * 60 + s;
    }
  }
  return -1;
}

static int64_t unit_of(chime__rr_freq f) {
  return f == CHIME__RR_HOURLY ? 3600 : f == CHIME__RR_MINUTELY ? 60 : 1;
}

/* A sub-daily rule: the first candidate in [day + tod, day's end), or -1.
 * It walks the periods INTERVAL allows, skipping to the next hour or minute
 * when BYHOUR or BYMINUTE rejects a period's. */
static int32_t fine_time(const chime__rr_spec *r, int64_t day, int32_t tod) {
  int64_t unit = unit_of(r->freq);
  int64_t day0 = day * SEC_PER_DAY, end = day0 + SEC_PER_DAY;
  int64_t t = day0 + tod;
  int64_t p = align(r, chime__floor_div(t, unit));
  while (p * unit < end) {
    int64_t start = p * unit;
    int32_t ptod = (int32_t)(start - day0);
    int h = ptod / 3600, m = ptod / 60 % 60, s = ptod % 60;
    int64_t skip_to = 0; /* a local second to go on from */
    if (!has(r->hours, h))
      skip_to = day0 + (h + 1) * 3600;
    else if (r->freq >= CHIME__RR_MINUTELY && !has(r->minutes, m))
      skip_to = start - s + 60;
    else if (r->freq == CHIME__RR_SECONDLY && !has(r->seconds, s))
      skip_to = start + 1;
    if (skip_to != 0) {
      p = align(r, chime__floor_div(skip_to + unit - 1, unit));
      continue;
    }
    /* Inside the period: the minutes and seconds it spans. */
    int32_t from = t > start ? (int32_t)(t - day0) : ptod;
    int32_t found = -1;
    if (r->freq == CHIME__RR_SECONDLY) {
      found = from == ptod ? ptod : -1;
    } else if (r->freq == CHIME__RR_MINUTELY) {
      int sec = next_in(r->seconds, from - (ptod - s), 60);
      found = sec >= 0 ? ptod + sec : -1;
    } else {
      int from_in = from - ptod; /* seconds into the hour */
      for (int mm = next_in(r->minutes, from_in / 60, 60); mm >= 0 && found < 0;
           mm = next_in(r->minutes, mm + 1, 60)) {
        int sec =
            next_in(r->seconds, mm == from_in / 60 ? from_in % 60 : 0, 60);
        if (sec >= 0)
          found = ptod + mm * 60 + sec;
      }
    }
    if (found >= 0)
      return found;
    p += r->interval;
  }
  return -1;
}

/* A whole sub-daily day's first candidate, from the phase cache. */
static int32_t fine_whole_day(chime__rr_search *s, int64_t day) {
  const chime__rr_spec *r = s->spec;
  if (s->nphases == 0)
    return fine_time(r, day, 0);
  int64_t period = r->interval * unit_of(r->freq);
  int64_t phase =
      chime__floor_mod(day * SEC_PER_DAY - r->origin * unit_of(r->freq),
                       period) /
      (period / s->nphases);
  if (s->by_phase == NULL &&
      (s->by_phase = calloc((size_t)s->nphases, sizeof *s->by_phase)) == NULL)
    return fine_time(r, day, 0);
  if (s->by_phase[phase] == 0) {
    int32_t t = fine_time(r, day, 0);
    s->by_phase[phase] = t < 0 ? 1 : t + 2;
  }
  return s->by_phase[phase] == 1 ? -1 : s->by_phase[phase] - 2;
}

void chime__rr_search_init(chime__rr_search *s, const chime__rr_spec *spec,
                           int64_t from) {
  *s = (chime__rr_search){.spec = spec};
  /* How many days the rule's own pattern takes to repeat (a sub-daily
   * INTERVAL's phase against the day), times 400 years. */
  int64_t cycle = spec->interval;
  if (spec->freq >= CHIME__RR_HOURLY) {
    int64_t period = spec->interval * unit_of(spec->freq);
    cycle = period / gcd(period, SEC_PER_DAY);
    s->nphases = cycle <= MAX_PHASES ? cycle : 0;
  }
  int64_t year;
  int month, mday;
  chime__civil_from_days(chime__floor_div(from, SEC_PER_DAY), &year, &month,
                         &mday);
  int64_t last = year + 400 * cycle + 1;
  if (last > LAST_YEAR || cycle > LAST_YEAR)
    last = LAST_YEAR;
  s->horizon = chime__days_from_civil(last + 1, 1, 1) * SEC_PER_DAY;
}

void chime__rr_search_free(chime__rr_search *s) {
  free(s->by_phase);
  s->by_phase = NULL;
}

/* The first day of the month after day's. */
static int64_t next_month(int64_t year, int month) {
  return month == 12 ? chime__days_from_civil(year + 1, 1, 1)
                     : chime__days_from_civil(year, month + 1, 1);
}

/* Day number day, or a later day to go on from when the month or the
 * period INTERVAL allows rule out day. */
static int64_t period_day(const chime__rr_spec *r, int64_t day) {
  int64_t year;
  int month, mday;
  chime__civil_from_days(day, &year, &month, &mday);
  if (r->freq == CHIME__RR_YEARLY && align(r, year) != year)
    return chime__days_from_civil(align(r, year), 1, 1);
  if (!has(r->months, month))
    return next_month(year, month);
  if (r->freq == CHIME__RR_MONTHLY) {
    int64_t idx = year * 12 + month - 1, want = align(r, idx);
    if (want != idx)
      return chime__days_from_civil(chime__floor_div(want, 12),
                                    (int)chime__floor_mod(want, 12) + 1, 1);
  }
  if (r->freq == CHIME__RR_WEEKLY) {
    int64_t week0 = chime__floor_mod(r->wkst - 4, 7);
    int64_t w = chime__floor_div(day - week0, 7), want = align(r, w);
    if (want != w)
      return week0 + want * 7;
  }
  if (r->freq == CHIME__RR_DAILY)
    return align(r, day);
  return day;
}

bool chime__rr_next_candidate(chime__rr_search *s, int64_t from, int64_t until,
                              int64_t *ret) {
  const chime__rr_spec *r = s->spec;
  if (until > s->horizon)
    until = s->horizon;
  int64_t t = from;
  while (t < until) {
    int64_t day = chime__floor_div(t, SEC_PER_DAY);
    int64_t go = period_day(r, day);
    if (go != day) {
      t = go * SEC_PER_DAY;
      continue;
    }
    int32_t tod = (int32_t)(t - day * SEC_PER_DAY), found = -1;
    if (day_ok(r, day)) {
      if (r->freq < CHIME__RR_HOURLY)
        found = coarse_time(r, tod);
      else
        found = tod == 0 ? fine_whole_day(s, day) : fine_time(r, day, tod);
    }
    if (found >= 0) {
      int64_t c = day * SEC_PER_DAY + found;
      if (c >= until)
        return false;
      *ret = c;
      return true;
    }
    t = (day + 1) * SEC_PER_DAY;
  }
  return false;
}
