/*
 * civil.h: proleptic Gregorian calendar arithmetic on "civil" (wall-clock)
 * fields, with no time zone involved.  A day number is the count of days
 * since 1970-01-01; a civil time read as if it were UTC gives "local
 * seconds", the common currency between time zones and schedules.
 */
#ifndef CHIME_TRIGGERS_CIVIL_H
#define CHIME_TRIGGERS_CIVIL_H

#include <stdbool.h>
#include <stdint.h>

/* Wall-clock fields.  month 1-12, day 1-31, weekday 0 (Sunday) - 6. */
typedef struct chime_civil {
  int64_t year;
  int month;
  int day;
  int hour;
  int minute;
  int second;
  int millisecond;
  int weekday; /* output only: ignored by the *_to_* functions */
} chime_civil;

#define CHIME_MS_PER_SECOND INT64_C(1000)
#define CHIME_MS_PER_MINUTE INT64_C(60000)
#define CHIME_MS_PER_HOUR INT64_C(3600000)
#define CHIME_MS_PER_DAY INT64_C(86400000)

bool chime__is_leap_year(int64_t year);
int chime__days_in_month(int64_t year, int month);

/* Days since 1970-01-01 of a date; month and day must be in range. */
int64_t chime__days_from_civil(int64_t year, int month, int day);

/* The date of a day number. */
void chime__civil_from_days(int64_t days, int64_t *ret_year, int *ret_month,
                            int *ret_day);

/* 0 = Sunday ... 6 = Saturday. */
int chime__weekday_from_days(int64_t days);

/* Floor division and its remainder, for negative times. */
int64_t chime__floor_div(int64_t a, int64_t b);
int64_t chime__floor_mod(int64_t a, int64_t b);

/*
 * Civil fields read as if UTC <-> milliseconds ("local milliseconds").
 * chime__civil_from_ms fills every field, weekday included.
 */
int64_t chime__civil_to_ms(const chime_civil *c);
void chime__civil_from_ms(int64_t ms, chime_civil *ret);

#endif /* CHIME_TRIGGERS_CIVIL_H */
