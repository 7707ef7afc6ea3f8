/*
 * calendar.h: calendars exclude time from schedules (Quartz's Calendar):
 * annual (days of the year), holiday (dates), monthly (days of the month),
 * weekly (days of the week), daily (a window of the day, or everything
 * outside it when inverted) and cron (the instants a cron expression
 * matches).  A calendar may have a base calendar: a time is included only
 * when it and every base include it.  Calendars are immutable once built
 * and may be shared by threads.
 *
 * Terms: a calendar "excludes" an instant its own rule rejects; it
 * "includes" an instant that neither its rule nor any base excludes.  Every
 * rule reads the instant as wall-clock time in the calendar's zone: day
 * rules (annual, holiday, monthly, weekly) its date, the daily window its
 * time of day, the cron rule its second.
 *
 * Differences from Quartz 2.3.2:
 *   - A calendar without a zone uses UTC, never the process's zone (Quartz
 *     uses the JVM default).
 *   - Calendars are built by one constructor per kind and never change
 *     afterwards; there are no setters.  The weekly constructor takes the
 *     excluded days explicitly (Quartz's default excludes Saturday and
 *     Sunday: pass CHIME__CALENDAR_WEEKEND for that).
 *   - The daily window [start, end] is excluded with both ends inclusive,
 *     as in Quartz, but midnight and 23:59:59.999 are not excluded as well
 *     (Quartz's non-inverted DailyCalendar also rejects those two instants
 *     of every day, which stops a midnight trigger from ever firing).  The
 *     window is compared with the wall-clock time of day, so on a DST day a
 *     window inside the skipped hour excludes nothing and one inside the
 *     repeated hour excludes both passes (Quartz resolves the window's ends
 *     to single instants instead).
 *   - chime__calendar_next_included answers "the first included instant at
 *     or after t" for every kind (Quartz's kinds disagree: some return t,
 *     some t + 1 ms, the holiday calendar the start of t's day), and fails
 *     with CHIME_ENEVERFIRES instead of returning 0 or looping.
 *   - A cron calendar matches wall-clock seconds directly, so it excludes
 *     both passes of a repeated hour (Quartz's isSatisfiedBy goes through
 *     getTimeAfter, whose handling of that hour differs).
 *   - Serialisation embeds the base chain in the text, as Quartz's
 *     serialised calendars embed their base objects; there is no lookup of
 *     bases by name.
 *
 * Ownership: calendars are reference counted (atomically).  A constructor
 * returns a calendar holding one reference; chime__calendar_ref adds one,
 * chime__calendar_unref drops one and frees the calendar with the last.  A
 * calendar holds a reference to its base, so a base outlives every calendar
 * built on it even when the engine replaces or drops the base by name (the
 * child keeps the old base, as in Quartz).  Since a base must exist before
 * the calendars built on it and nothing changes afterwards, chains cannot
 * form cycles.
 */
#ifndef CHIME_TRIGGERS_CALENDAR_H
#define CHIME_TRIGGERS_CALENDAR_H

#include "chime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct chime_calendar chime_calendar;

/* The kinds; the numbers are stable (they may be stored). */
typedef enum chime_calendar_kind {
  CHIME_CALENDAR_ANNUAL = 1,  /* days of the year (month, day) */
  CHIME_CALENDAR_HOLIDAY = 2, /* dates (year, month, day) */
  CHIME_CALENDAR_MONTHLY = 3, /* days of the month 1-31 */
  CHIME_CALENDAR_WEEKLY = 4,  /* days of the week */
  CHIME_CALENDAR_DAILY = 5,   /* a window of the day, or its complement */
  CHIME_CALENDAR_CRON = 6     /* the seconds a cron expression matches */
} chime_calendar_kind;

/* Longest chain: a calendar and its bases, at most this many. */
#define CHIME__CALENDAR_MAX_DEPTH 16
/* Most dates one holiday calendar may list. */
#define CHIME__CALENDAR_MAX_HOLIDAYS 10000
/* Longest description, in bytes. */
#define CHIME__CALENDAR_MAX_DESCRIPTION 1024
/* Longest serialised form accepted by chime__calendar_from_string. */
#define CHIME__CALENDAR_MAX_STRING (1024 * 1024)
/* Holiday years and the instants next_included searches: years 1-9999. */
#define CHIME__CALENDAR_MIN_YEAR 1
#define CHIME__CALENDAR_MAX_YEAR 9999
/* 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
#define CHIME__CALENDAR_MIN_MS INT64_C(-62135596800000)
#define CHIME__CALENDAR_MAX_MS INT64_C(253402300799999)

/* Weekday bits for the weekly calendar: bit 0 Sunday ... bit 6 Saturday. */
#define CHIME__CALENDAR_SUNDAY (1u << 0)
#define CHIME__CALENDAR_SATURDAY (1u << 6)
#define CHIME__CALENDAR_WEEKEND                                                \
  (CHIME__CALENDAR_SUNDAY | CHIME__CALENDAR_SATURDAY)
#define CHIME__CALENDAR_ALL_WEEK 0x7Fu

/* Options every kind shares.  A NULL options pointer means all defaults. */
typedef struct chime_calendar_opts {
  /* Base calendar, or NULL.  The new calendar takes its own reference. */
  chime_calendar *base;
  /*
   * Zone the rules read wall-clock time in; NULL means UTC.  Borrowed: it
   * must outlive the calendar (chime_zone_get's zones live forever).
   */
  const chime_zone *zone;
  /* Free text, copied; NULL for none.  At most MAX_DESCRIPTION bytes. */
  const char *description;
} chime_calendar_opts;

/* A date for the annual (year ignored) and holiday calendars. */
typedef struct chime_calendar_date {
  int year;
  int month; /* 1-12 */
  int day;   /* 1-31, and within the month */
} chime_calendar_date;

/*
 * Constructors.  Each validates its arguments and, on success, stores a new
 * calendar with one reference in *ret_cal.  On failure nothing is left to
 * free and errbuf (if not NULL and errbuf_len > 0) receives a sentence
 * naming the bad value, e.g. "day 32 of month 1 is not a date".
 * Common errors: CHIME_EINVAL (NULL ret_cal, bad value);
 * CHIME_ELIMIT (description too long, chain deeper than MAX_DEPTH, too many
 * holidays); CHIME_ENOMEM.  Thread: any.
 */

/*
 * chime__calendar_annual_new: excludes every day whose month and day are in
 * days[0..count) (year ignored), every year; February 29 is allowed.  At
 * most MAX_HOLIDAYS entries (duplicates allowed).
 */
int chime__calendar_annual_new(const chime_calendar_opts *opts,
                               const chime_calendar_date *days, size_t count,
                               chime_calendar **ret_cal, char *errbuf,
                               size_t errbuf_len);

/*
 * chime__calendar_holiday_new: excludes the dates in dates[0..count) (years
 * MIN_YEAR-MAX_YEAR; duplicates allowed; at most MAX_HOLIDAYS entries).
 */
int chime__calendar_holiday_new(const chime_calendar_opts *opts,
                                const chime_calendar_date *dates, size_t count,
                                chime_calendar **ret_cal, char *errbuf,
                                size_t errbuf_len);

/*
 * chime__calendar_monthly_new: excludes day d of every month for each bit
 * d (1-31) set in days_mask; bit 0 must be clear.  A day a month lacks
 * (the 31st of April) excludes nothing that month.
 */
int chime__calendar_monthly_new(const chime_calendar_opts *opts,
                                uint32_t days_mask, chime_calendar **ret_cal,
                                char *errbuf, size_t errbuf_len);

/*
 * chime__calendar_weekly_new: excludes the weekdays whose bits are set in
 * weekdays_mask (bit 0 Sunday ... bit 6 Saturday; higher bits are errors).
 */
int chime__calendar_weekly_new(const chime_calendar_opts *opts,
                               unsigned weekdays_mask, chime_calendar **ret_cal,
                               char *errbuf, size_t errbuf_len);

/*
 * chime__calendar_daily_new: excludes the wall-clock times of day from
 * start_ms to end_ms inclusive (milliseconds since midnight, 0-86399999,
 * start < end), or, when invert is true, every time of day outside that
 * window.
 */
int chime__calendar_daily_new(const chime_calendar_opts *opts, int32_t start_ms,
                              int32_t end_ms, bool invert,
                              chime_calendar **ret_cal, char *errbuf,
                              size_t errbuf_len);

/*
 * chime__calendar_cron_new: excludes every wall-clock second (in the
 * calendar's zone) the cron expression matches, i.e. every millisecond of
 * it; in a repeated hour, both passes.  Cron years end with
 * CHIME_CRON_YEAR_MAX (triggers/cron.h), so later instants are included.
 * Returns also CHIME_EPARSE (the cron parser's message goes to errbuf).
 */
int chime__calendar_cron_new(const chime_calendar_opts *opts,
                             const char *expression, chime_calendar **ret_cal,
                             char *errbuf, size_t errbuf_len);

/*
 * chime__calendar_time_of_day_from_string: parses Quartz's DailyCalendar
 * time "HH:MM[:SS[:mmm]]" (a '.' may also separate the milliseconds) into
 * milliseconds since midnight.
 * Returns: 0; CHIME_EINVAL (NULL argument, or a field out of range: the
 * message names it).  Thread: any.
 */
int chime__calendar_time_of_day_from_string(const char *text, int32_t *ret_ms,
                                            char *errbuf, size_t errbuf_len);

/*
 * chime__calendar_ref: adds a reference; returns cal.  NULL is allowed.
 * Thread: any (the count is atomic).
 */
chime_calendar *chime__calendar_ref(chime_calendar *cal);

/*
 * chime__calendar_unref: drops a reference, freeing the calendar (and
 * dropping its reference to its base) with the last.  NULL is allowed.
 * Thread: any.
 */
void chime__calendar_unref(chime_calendar *cal);

/* Accessors.  Borrowed results live as long as the calendar.  Thread: any. */
chime_calendar_kind chime__calendar_kind(const chime_calendar *cal);
const chime_calendar *chime__calendar_base(const chime_calendar *cal);
const chime_zone *chime__calendar_zone(const chime_calendar *cal);
const char *chime__calendar_description(const chime_calendar *cal);

/*
 * chime__calendar_includes: whether instant t_ms is included by cal and by
 * each of its bases.  A NULL calendar includes every time; any other
 * excludes the instants outside MIN_MS-MAX_MS (years 1-9999 UTC).
 * Thread: any.
 */
bool chime__calendar_includes(const chime_calendar *cal, int64_t t_ms);

/*
 * chime__calendar_next_included: the first instant at or after t_ms that
 * cal and every base include (t_ms itself when it is included).  A NULL
 * calendar includes everything.
 * Returns: 0; CHIME_EINVAL (NULL ret_ms, t_ms outside MIN_MS-MAX_MS);
 * CHIME_ENEVERFIRES (nothing is included before MAX_MS, or the bounded
 * search gave up: e.g. a cron calendar excluding every second).
 * Thread: any.
 */
int chime__calendar_next_included(const chime_calendar *cal, int64_t t_ms,
                                  int64_t *ret_ms);

/*
 * chime__calendar_to_string: a compact text form of the calendar and its
 * bases, one line per calendar, outermost first, after a version line:
 *   chime-calendar 1
 *   weekly zone=Europe/Berlin desc=Office%20days days=sun,sat
 *   annual days=01-01,12-25
 * Kinds and their fields: annual days=MM-DD,...; holiday
 * dates=YYYY-MM-DD,...; monthly days=1,15,31; weekly days=sun,...,sat;
 * daily start=HH:MM:SS.mmm end=HH:MM:SS.mmm invert=0|1; cron expr=...
 * Free text is percent-encoded.
 * Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.
 * Ownership: *ret_text is the caller's, freed with chime_free().
 * Thread: any.
 */
int chime__calendar_to_string(const chime_calendar *cal, char **ret_text);

/*
 * chime__calendar_from_string: rebuilds a calendar (with its bases) from
 * chime__calendar_to_string's text.  Zones are looked up by name.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_EFORMAT (malformed text:
 * errbuf says which line and why); CHIME_EUNKNOWNZONE; CHIME_ELIMIT
 * (longer than MAX_STRING, or a kind's limit); CHIME_EPARSE (a bad cron
 * expression); CHIME_ENOMEM.  Validation errors of the kinds keep their
 * codes (CHIME_EINVAL for day 32 and so on).
 * Ownership: *ret_cal holds one reference.  Thread: any.
 */
int chime__calendar_from_string(const char *text, chime_calendar **ret_cal,
                                char *errbuf, size_t errbuf_len);

/*
 * chime__calendar_uses_zone: whether cal or one of its bases reads
 * wall-clock time in a zone named in names[0..count).  Thread: any.
 */
bool chime__calendar_uses_zone(const chime_calendar *cal,
                               const char *const *names, size_t count);

/*
 * chime__calendar_reload: cal rebuilt from its text, with the newest
 * objects of its zones (after their rules were reloaded: tz.h).
 * Returns: chime__calendar_from_string's codes.
 * Ownership: *ret_cal holds one reference.  Thread: any.
 */
int chime__calendar_reload(const chime_calendar *cal, chime_calendar **ret_cal);

#endif /* CHIME_TRIGGERS_CALENDAR_H */
