/*
 * calendar.c: the life cycle of calendars (construction with validation,
 * reference counting, accessors).  The questions asked of a whole chain
 * live in calendar_chain.c, each kind's own rule in calendar_kinds.c; the
 * text form in calendar_string.c (writing) and calendar_parse.c (reading).
 */
#include "triggers/calendar_impl.h"
#include "triggers/civil.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The error every constructor gives when ret_cal is NULL. */
#define CHECK_RET(ret_cal, errbuf, errbuf_len)                                 \
  do {                                                                         \
    if ((ret_cal) == NULL)                                                     \
      return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,                     \
                         "no place for the calendar");                         \
  } while (0)

/* Allocates a calendar of kind with opts applied, or fails with a message. */
static int calendar_alloc(const chime_calendar_opts *opts,
                          chime_calendar_kind kind, chime_calendar **ret_cal,
                          char *errbuf, size_t errbuf_len) {
  static const chime_calendar_opts none = {0};
  if (opts == NULL)
    opts = &none;
  int depth = opts->base != NULL ? opts->base->depth + 1 : 1;
  if (depth > CHIME__CALENDAR_MAX_DEPTH)
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                       "a chain of %d calendars exceeds the limit %d", depth,
                       CHIME__CALENDAR_MAX_DEPTH);
  size_t desc_len = 0;
  if (opts->description != NULL) {
    desc_len = strlen(opts->description);
    if (desc_len > CHIME__CALENDAR_MAX_DESCRIPTION)
      return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                         "description of %zu bytes exceeds the limit %d",
                         desc_len, CHIME__CALENDAR_MAX_DESCRIPTION);
  }
  chime_calendar *cal = calloc(1, sizeof *cal);
  if (cal == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  if (opts->description != NULL) {
    cal->description = malloc(desc_len + 1);
    if (cal->description == NULL) {
      free(cal);
      return chime__errf(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
    }
    memcpy(cal->description, opts->description, desc_len + 1);
  }
  atomic_init(&cal->refs, 1);
  cal->kind = kind;
  cal->depth = depth;
  cal->zone = opts->zone;
  cal->base = chime__calendar_ref(opts->base);
  *ret_cal = cal;
  return 0;
}

/*
 * Checks a date: an annual day (year ignored, February 29 allowed) or a
 * holiday date (year in range, the day within that month).
 */
static int check_date(const chime_calendar_date *d, bool annual, char *errbuf,
                      size_t errbuf_len) {
  if (d->month < 1 || d->month > 12)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL, "month %d is not 1-12",
                       d->month);
  if (!annual && (d->year < CHIME__CALENDAR_MIN_YEAR ||
                  d->year > CHIME__CALENDAR_MAX_YEAR))
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL, "year %d is not %d-%d",
                       d->year, CHIME__CALENDAR_MIN_YEAR,
                       CHIME__CALENDAR_MAX_YEAR);
  /* 2000 is a leap year: an annual day only needs to exist in some year. */
  int last = chime__days_in_month(annual ? 2000 : d->year, d->month);
  if (d->day < 1 || d->day > last)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "day %d of month %d is not a date", d->day, d->month);
  return 0;
}

/* A list of count dates (annual: no year), what naming them in messages.
 * At most CHIME__CALENDAR_MAX_HOLIDAYS: 366 distinct days exist, so more
 * annual entries can only be duplicates. */
static int check_dates(const chime_calendar_date *dates, size_t count,
                       bool annual, const char *what, char *errbuf,
                       size_t errbuf_len) {
  if (dates == NULL && count > 0)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL, "no %s given", what);
  if (count > CHIME__CALENDAR_MAX_HOLIDAYS)
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                       "%zu %s exceed the limit %d", count, what,
                       CHIME__CALENDAR_MAX_HOLIDAYS);
  for (size_t i = 0; i < count; i++) {
    int rc = check_date(&dates[i], annual, errbuf, errbuf_len);
    if (rc < 0)
      return rc;
  }
  return 0;
}

int chime__calendar_annual_new(const chime_calendar_opts *opts,
                               const chime_calendar_date *days, size_t count,
                               chime_calendar **ret_cal, char *errbuf,
                               size_t errbuf_len) {
  CHECK_RET(ret_cal, errbuf, errbuf_len);
  int rc = check_dates(days, count, true, "days", errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  chime_calendar *cal;
  rc = calendar_alloc(opts, CHIME_CALENDAR_ANNUAL, &cal, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  for (size_t i = 0; i < count; i++)
    cal->u.annual[days[i].month] |= UINT32_C(1) << days[i].day;
  *ret_cal = cal;
  return 0;
}

static int compare_days(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int chime__calendar_holiday_new(const chime_calendar_opts *opts,
                                const chime_calendar_date *dates, size_t count,
                                chime_calendar **ret_cal, char *errbuf,
                                size_t errbuf_len) {
  CHECK_RET(ret_cal, errbuf, errbuf_len);
  int rc = check_dates(dates, count, false, "dates", errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  int64_t *days = NULL;
  if (count > 0) {
    days = malloc(count * sizeof *days);
    if (days == NULL)
      return chime__errf(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < count; i++)
    days[i] =
        chime__days_from_civil(dates[i].year, dates[i].month, dates[i].day);
  size_t n = 0;
  if (count > 0) {
    qsort(days, count, sizeof *days, compare_days);
    for (size_t i = 0; i < count; i++)
      if (n == 0 || days[n - 1] != days[i])
        days[n++] = days[i];
  }
  chime_calendar *cal;
  rc = calendar_alloc(opts, CHIME_CALENDAR_HOLIDAY, &cal, errbuf, errbuf_len);
  if (rc < 0) {
    free(days);
    return rc;
  }
  cal->u.holiday.days = days;
  cal->u.holiday.count = n;
  *ret_cal = cal;
  return 0;
}

int chime__calendar_monthly_new(const chime_calendar_opts *opts,
                                uint32_t days_mask, chime_calendar **ret_cal,
                                char *errbuf, size_t errbuf_len) {
  CHECK_RET(ret_cal, errbuf, errbuf_len);
  if (days_mask & 1u)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "day 0 of the month does not exist");
  chime_calendar *cal;
  int rc =
      calendar_alloc(opts, CHIME_CALENDAR_MONTHLY, &cal, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  cal->u.monthly = days_mask;
  *ret_cal = cal;
  return 0;
}

int chime__calendar_weekly_new(const chime_calendar_opts *opts,
                               unsigned weekdays_mask, chime_calendar **ret_cal,
                               char *errbuf, size_t errbuf_len) {
  CHECK_RET(ret_cal, errbuf, errbuf_len);
  if (weekdays_mask & ~CHIME__CALENDAR_ALL_WEEK)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "weekday mask 0x%x has bits beyond Saturday",
                       weekdays_mask);
  chime_calendar *cal;
  int rc =
      calendar_alloc(opts, CHIME_CALENDAR_WEEKLY, &cal, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  cal->u.weekly = weekdays_mask;
  *ret_cal = cal;
  return 0;
}

int chime__calendar_daily_new(const chime_calendar_opts *opts, int32_t start_ms,
                              int32_t end_ms, bool invert,
                              chime_calendar **ret_cal, char *errbuf,
                              size_t errbuf_len) {
  CHECK_RET(ret_cal, errbuf, errbuf_len);
  const int32_t day = (int32_t)CHIME_MS_PER_DAY;
  if (start_ms < 0 || start_ms >= day)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "window start %" PRId32 " ms is not a time of day",
                       start_ms);
  if (end_ms < 0 || end_ms >= day)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "window end %" PRId32 " ms is not a time of day",
                       end_ms);
  if (end_ms <= start_ms)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "window end %" PRId32
                       " ms is not after its start %" PRId32 " ms",
                       end_ms, start_ms);
  chime_calendar *cal;
  int rc = calendar_alloc(opts, CHIME_CALENDAR_DAILY, &cal, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  cal->u.daily.start_ms = start_ms;
  cal->u.daily.end_ms = end_ms;
  cal->u.daily.invert = invert;
  *ret_cal = cal;
  return 0;
}

int chime__calendar_cron_new(const chime_calendar_opts *opts,
                             const char *expression, chime_calendar **ret_cal,
                             char *errbuf, size_t errbuf_len) {
  CHECK_RET(ret_cal, errbuf, errbuf_len);
  if (expression == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL, "no cron expression");
  chime_cron *cron;
  int rc = chime_cron_from_string(expression, &cron, NULL, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  chime_calendar *cal;
  rc = calendar_alloc(opts, CHIME_CALENDAR_CRON, &cal, errbuf, errbuf_len);
  if (rc < 0) {
    chime_cron_free(cron);
    return rc;
  }
  cal->u.cron = cron;
  *ret_cal = cal;
  return 0;
}

chime_calendar *chime__calendar_ref(chime_calendar *cal) {
  if (cal != NULL) {
    long before =
        atomic_fetch_add_explicit(&cal->refs, 1, memory_order_relaxed);
    assert(before > 0);
    (void)before;
  }
  return cal;
}

void chime__calendar_unref(chime_calendar *cal) {
  /* Iterative, so a long chain is not freed by recursion. */
  while (cal != NULL) {
    long before =
        atomic_fetch_sub_explicit(&cal->refs, 1, memory_order_acq_rel);
    assert(before > 0);
    if (before != 1)
      return;
    chime_calendar *base = cal->base;
    if (cal->kind == CHIME_CALENDAR_HOLIDAY)
      free(cal->u.holiday.days);
    else if (cal->kind == CHIME_CALENDAR_CRON)
      chime_cron_free(cal->u.cron);
    free(cal->description);
    free(cal);
    cal = base;
  }
}

chime_calendar_kind chime__calendar_kind(const chime_calendar *cal) {
  assert(cal != NULL);
  return cal->kind;
}

const chime_calendar *chime__calendar_base(const chime_calendar *cal) {
  assert(cal != NULL);
  return cal->base;
}

const chime_zone *chime__calendar_zone(const chime_calendar *cal) {
  assert(cal != NULL);
  return cal->zone;
}

const char *chime__calendar_description(const chime_calendar *cal) {
  assert(cal != NULL);
  return cal->description;
}
