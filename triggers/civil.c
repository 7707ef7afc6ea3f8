/*
 * civil.c: Gregorian calendar arithmetic.  Day numbers use the era-based
 * method (400-year cycles of 146097 days), which is exact for any int64 year
 * a schedule can reach without tables or loops.
 */
#include "triggers/civil.h"

#include <assert.h>

int64_t chime__floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

int64_t chime__floor_mod(int64_t a, int64_t b) {
  return a - chime__floor_div(a, b) * b;
}

bool chime__is_leap_year(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int chime__days_in_month(int64_t year, int month) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  assert(month >= 1 && month <= 12);
  if (month == 2 && chime__is_leap_year(year))
    return 29;
  return days[month - 1];
}

int64_t chime__days_from_civil(int64_t year, int month, int day) {
  /* Count years from March so the leap day is the last day of a year. */
  int64_t y = month <= 2 ? year - 1 : year;
  int64_t era = chime__floor_div(y, 400);
  int64_t yoe = y - era * 400;                         /* [0, 399] */
  int64_t mp = (month + 9) % 12;                       /* March = 0 */
  int64_t doy = (153 * mp + 2) / 5 + day - 1;          /* [0, 365] */
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; /* [0, 146096] */
  return era * 146097 + doe - 719468;
}

void chime__civil_from_days(int64_t days, int64_t *ret_year, int *ret_month,
                            int *ret_day) {
  int64_t z = days + 719468;
  int64_t era = chime__floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int d = (int)(doy - (153 * mp + 2) / 5 + 1);
  int m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *ret_year = yoe + era * 400 + (m <= 2);
  *ret_month = m;
  *ret_day = d;
}

int chime__weekday_from_days(int64_t days) {
  /* 1970-01-01 was a Thursday (4). */
  return (int)chime__floor_mod(days + 4, 7);
}

int64_t chime__civil_to_ms(const chime_civil *c) {
  int64_t days = chime__days_from_civil(c->year, c->month, c->day);
  return days * CHIME_MS_PER_DAY + c->hour * CHIME_MS_PER_HOUR +
         c->minute * CHIME_MS_PER_MINUTE + c->second * CHIME_MS_PER_SECOND +
         c->millisecond;
}

void chime__civil_from_ms(int64_t ms, chime_civil *ret) {
  int64_t days = chime__floor_div(ms, CHIME_MS_PER_DAY);
  int64_t rest = ms - days * CHIME_MS_PER_DAY;
  chime__civil_from_days(days, &ret->year, &ret->month, &ret->day);
  ret->hour = (int)(rest / CHIME_MS_PER_HOUR);
  ret->minute = (int)(rest / CHIME_MS_PER_MINUTE % 60);
  ret->second = (int)(rest / CHIME_MS_PER_SECOND % 60);
  ret->millisecond = (int)(rest % 1000);
  ret->weekday = chime__weekday_from_days(days);
}
