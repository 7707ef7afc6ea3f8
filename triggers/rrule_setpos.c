/*
 * rrule_setpos.c: a rule's instances.  Without BYSETPOS every candidate is
 * one; with it, the candidates of each period (the year, month, week, day,
 * hour, minute or second FREQ names) are listed in order and BYSETPOS
 * picks among them by position, counting from the end when negative
 * (RFC 5545 3.3.10: "the last work day of the month" is
 * BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1).
 */
#include "triggers/rrule_impl.h"

#include <stdlib.h>

#define SEC_PER_DAY INT64_C(86400)
#define MAX_PERIOD_CANDIDATES 1000000 /* a bound, not a limit in practice */
/* Periods with candidates but no BYSETPOS pick before the search gives up
 * (only WEEKLY, MONTHLY and YEARLY periods hold varying numbers of
 * candidates: 100000 of them span centuries). */
#define MAX_PERIODS 100000

/* How many of a mask's values (0: every one of the range's n). */
static int64_t values(uint64_t mask, int n) {
  int64_t k = 0;
  for (int v = 0; v < 64; v++)
    k += (int64_t)(mask >> v & 1);
  return mask == 0 ? n : k;
}

/* The most candidates one period can hold. */
static int64_t most_per_period(const chime__rr_spec *r) {
  static const int64_t days[] = {366, 31, 7, 1};
  int64_t sec = values(r->seconds, 60), min = values(r->minutes, 60);
  switch (r->freq) {
  case CHIME__RR_SECONDLY:
    return 1;
  case CHIME__RR_MINUTELY:
    return sec;
  case CHIME__RR_HOURLY:
    return min * sec;
  default:
    return days[r->freq] * values(r->hours, 24) * min * sec;
  }
}

/* Whether some BYSETPOS entry can ever pick (a period never holds more
 * than most_per_period candidates: BYSETPOS=2 of a SECONDLY rule never
 * does, and must not be searched for second by second). */
static bool can_pick(const chime__rr_spec *r) {
  int64_t most = most_per_period(r);
  for (size_t i = 0; i < r->nsetpos; i++)
    if ((r->setpos[i] > 0 ? r->setpos[i] : -r->setpos[i]) <= most)
      return true;
  return false;
}

/* The period holding local second t: [*ret_start, *ret_end). */
static void period_of(const chime__rr_spec *r, int64_t t, int64_t *ret_start,
                      int64_t *ret_end) {
  int64_t day = chime__floor_div(t, SEC_PER_DAY), year;
  int month, mday;
  chime__civil_from_days(day, &year, &month, &mday);
  int64_t a = day, b = day + 1; /* in days, for DAILY and longer */
  switch (r->freq) {
  case CHIME__RR_YEARLY:
    a = chime__days_from_civil(year, 1, 1);
    b = chime__days_from_civil(year + 1, 1, 1);
    break;
  case CHIME__RR_MONTHLY:
    a = chime__days_from_civil(year, month, 1);
    b = a + chime__days_in_month(year, month);
    break;
  case CHIME__RR_WEEKLY:
    a = day - chime__floor_mod(chime__weekday_from_days(day) - r->wkst, 7);
    b = a + 7;
    break;
  case CHIME__RR_DAILY:
    break;
  default: {
    int64_t unit = r->freq == CHIME__RR_HOURLY     ? 3600
                   : r->freq == CHIME__RR_MINUTELY ? 60
                                                   : 1;
    *ret_start = chime__floor_div(t, unit) * unit;
    *ret_end = *ret_start + unit;
    return;
  }
  }
  *ret_start = a * SEC_PER_DAY;
  *ret_end = b * SEC_PER_DAY;
}

/* The first instance BYSETPOS keeps among a period's candidates c (in
 * order) at or after from. */
static bool pick(const chime__rr_spec *r, const int64_t *c, size_t n,
                 int64_t from, int64_t *ret) {
  bool found = false;
  for (size_t i = 0; i < r->nsetpos; i++) {
    int64_t pos = r->setpos[i];
    int64_t k = pos > 0 ? pos - 1 : (int64_t)n + pos;
    if (k < 0 || k >= (int64_t)n || c[k] < from)
      continue;
    if (!found || c[k] < *ret)
      *ret = c[k];
    found = true;
  }
  return found;
}

bool chime__rr_next_instance(chime__rr_search *s, int64_t from, int64_t *ret) {
  const chime__rr_spec *r = s->spec;
  if (r->nsetpos == 0)
    return chime__rr_next_candidate(s, from, INT64_MAX, ret);
  if (!can_pick(r))
    return false;
  int64_t t = from, *c = NULL;
  size_t cap = 0;
  bool found = false;
  for (int64_t first, periods = 0;
       !found && periods < MAX_PERIODS &&
       chime__rr_next_candidate(s, t, INT64_MAX, &first);
       periods++) {
    int64_t start, end;
    period_of(r, first, &start, &end);
    size_t n = 0;
    for (int64_t x = start;
         n < MAX_PERIOD_CANDIDATES && chime__rr_next_candidate(s, x, end, &x);
         x++) {
      if (n == cap) {
        size_t grown = cap ? cap * 2 : 64;
        int64_t *bigger = realloc(c, grown * sizeof *c);
        if (bigger == NULL)
          break;
        c = bigger, cap = grown;
      }
      c[n++] = x;
    }
    found = pick(r, c, n, from, ret);
    t = end;
  }
  free(c);
  return found;
}
