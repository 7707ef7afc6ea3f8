/*
 * civil.h: date arithmetic for the tools (chime-cron, chimectl), which
 * print and parse wall-clock times: proleptic Gregorian dates to and from
 * day counts since 1970-01-01.  The public API converts instants between
 * zones (chime_zone_get_offset_at) but prints no dates, and the tools use the
 * public API only.
 */
#ifndef CHIME_TOOLS_CIVIL_H
#define CHIME_TOOLS_CIVIL_H

#include <stdint.h>

/* The date of day number z (days since 1970-01-01). */
void tool_civil_from_days(int64_t z, int64_t *ret_year, int *ret_month,
                          int *ret_day);

/* The day number of a date; month 1-12 and day 1-31. */
int64_t tool_days_from_civil(int64_t year, int month, int day);

/* a / b rounded towards minus infinity (b > 0). */
int64_t tool_floor_div(int64_t a, int64_t b);

#endif /* CHIME_TOOLS_CIVIL_H */
