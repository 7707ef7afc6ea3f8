/*
 * civil.c: the tools' date arithmetic (civil.h): day counts by 400-year
 * eras of 146097 days, years counted from March so leap days come last.
 */
#include "civil.h"

void tool_civil_from_days(int64_t z, int64_t *ret_year, int *ret_month,
                          int *ret_day) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *ret_day = (int)(doy - (153 * mp + 2) / 5 + 1);
  *ret_month = (int)(mp < 10 ? mp + 3 : mp - 9);
  *ret_year = yoe + era * 400 + (*ret_month <= 2);
}

int64_t tool_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int64_t tool_floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
