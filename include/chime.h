/*
 * chime.h: the public interface of chime, a persistent, clustered job
 * scheduler for long-running C servers.
 *
 * Terms used throughout:
 *   - a *job* is a named unit of work with a type; the type names a C function
 *     registered on every node that may run it;
 *   - a *trigger* says when a job runs (simple, cron, calendar-interval,
 *     daily-time-interval); one *fire* is one scheduled run of a trigger;
 *   - a *store* keeps jobs and triggers: in memory, or in MySQL/MariaDB where
 *     many processes form one cluster in which each fire runs on one node.
 *
 * Conventions every function follows:
 *   - Instants are int64_t milliseconds since the Unix epoch, UTC.
 *   - Functions return 0 or a negative CHIME_E* code; chime_strerror() turns a
 *     code into a sentence.  Out-parameters are named ret_* and are written
 *     only on success.
 *   - Detail: a constructor that has no handle yet (chime_scheduler_new,
 *     chime_job_new, chime_trigger_*_new, chime_cron_from_string,
 *     chime_calendar_from_string) writes it to the caller's errbuf; a call
 *     on a scheduler keeps it with the scheduler, for the calling thread
 *     (chime_scheduler_errmsg).
 *   - Strings passed in are copied.  A string handed back through ret_*
 *     belongs to the caller and is released with chime_free().  A string a
 *     getter returns is borrowed from the object it was read from.
 *   - Destructors accept NULL.
 *   - Every function says what it returns (Returns:), what is borrowed or
 *     handed over (Ownership:) and which threads may call it (Thread:).
 *
 * Names (one rule, so that a name says what a call does):
 *   - Functions are chime_<object>_<verb>, with the verbs new/free,
 *     start/standby/shutdown, add/remove/get/list (what a scheduler keeps in
 *     its store), from_string/to_string, format_time/parse_time (an instant
 *     as text in a zone, and back), set_<attribute>, and register (a job
 *     type: this node's own code, which is never stored; compare
 *     chime_scheduler_add_job, which stores a job for the whole cluster).
 *   - Reading an attribute is always chime_<object>_get_<attribute>, whatever
 *     its type, with the word its setter uses (chime_job_set_durable,
 *     chime_job_get_durable), as libuv does (uv_timer_get_repeat).  The bare
 *     form could not be used everywhere anyway: chime_trigger_kind and
 *     chime_scheduler_state are type names.  A get_ with a ret_ out-parameter
 *     looks something up (chime_scheduler_get_job, chime_zone_get).
 *   - A yes/no question that no setter sets reads chime_<object>_is_<...>
 *     (chime_calendar_is_included, chime_ctx_is_recovering).
 *   - A function reading its object that is not a getter or a question is
 *     to_string, describe, next (a recurrence's next instant) or
 *     errmsg (after SQLite's sqlite3_errmsg); one making a new object from
 *     another ends in _new (chime_trigger_backfill_new).
 *   - The library's own few have no object: chime_version,
 *     chime_version_hex, chime_strerror, chime_err_name, chime_free.
 *   - ./dev lint checks every name against these rules
 *     (tests/lint/names.py): there is no exception.
 *
 * This header includes only <stddef.h>, <stdint.h>, <stdbool.h> and the
 * generated "chime-version.h": no libuv, MariaDB or OpenSSL type appears in
 * it.
 */
#ifndef CHIME_H
#define CHIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CHIME_BUILDING_LIBRARY) && defined(__GNUC__)
#define CHIME_EXTERN __attribute__((visibility("default")))
#else
#define CHIME_EXTERN
#endif

/* ---------------------------------------------------------------- version */

/* CHIME_VERSION_MAJOR, _MINOR, _PATCH and CHIME_VERSION ("0.1.0"): meson
 * writes them from its project version, the one place the version is kept. */
#include "chime-version.h"

/* One integer that grows with every release: 0xMMmmpp. */
#define CHIME_VERSION_HEX                                                      \
  ((CHIME_VERSION_MAJOR << 16) | (CHIME_VERSION_MINOR << 8) |                  \
   CHIME_VERSION_PATCH)

/*
 * chime_version: the library's version as "MAJOR.MINOR.PATCH".
 * Returns: a static string.
 * Ownership: static; never free it.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_version(void);

/*
 * chime_version_hex: the library's version as CHIME_VERSION_HEX computes it,
 * so a program can compare the header it was built with to the library it
 * runs with.
 * Returns: the version number.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN unsigned chime_version_hex(void);

/* ----------------------------------------------------------------- errors */

/*
 * Every error code, with its sentence.  Numbers are never renumbered or
 * reused; new codes are added at the end.
 */
#define CHIME_ERRNO_MAP(XX)                                                    \
  XX(EINVAL, -1, "invalid argument")                                           \
  XX(ENOMEM, -2, "out of memory")                                              \
  XX(ENOTFOUND, -3, "no such object")                                          \
  XX(EEXISTS, -4, "object already exists")                                     \
  XX(EPARSE, -5, "malformed expression")                                       \
  XX(EUNKNOWNZONE, -6, "unknown time zone")                                    \
  XX(ENEVERFIRES, -7, "schedule never fires")                                  \
  XX(ELIMIT, -8, "value exceeds a limit")                                      \
  XX(ESTATE, -9, "operation not valid in the current state")                   \
  XX(ESTORE, -10, "job store error")                                           \
  XX(ECONNECT, -11, "cannot connect to the database")                          \
  XX(EAUTH, -12, "database access denied")                                     \
  XX(ESCHEMA, -13, "database schema version not supported")                    \
  XX(ENOTOWNER, -14, "fire is no longer owned by this node")                   \
  XX(EDUPNODE, -15, "another live node has the same instance id")              \
  XX(EUNSUPPORTED, -16, "not supported by this build")                         \
  XX(EIO, -17, "input/output error")                                           \
  XX(EFORMAT, -18, "malformed data")                                           \
  XX(ESHUTDOWN, -19, "scheduler is shut down")                                 \
  XX(EURL, -20, "malformed store URL")                                         \
  XX(EBUSY, -21, "resource busy, try again")                                   \
  XX(EINTERNAL, -22, "internal error")                                         \
  XX(EJOBFAILED, -23, "the job reported a failure")                            \
  XX(ETIMEDOUT, -24, "the deadline passed first")                              \
  XX(ECANCELLED, -25, "the run was cancelled")                                 \
  XX(EMISSED, -26, "the fire could not start within its starting deadline")

typedef enum chime_error {
  CHIME_OK = 0,
#define CHIME_XX_ENUM(name, code, text) CHIME_##name = (code),
  CHIME_ERRNO_MAP(CHIME_XX_ENUM)
#undef CHIME_XX_ENUM
} chime_error;

/*
 * chime_strerror: a sentence for an error code, e.g. "unknown time zone".
 * Returns: the sentence; "success" for 0; for a code this library does not
 * know, "unknown error".
 * Ownership: static; never free it.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_strerror(int code);

/*
 * chime_err_name: the code's name, e.g. "CHIME_EUNKNOWNZONE".
 * Returns: the name; "CHIME_UNKNOWN" for an unknown code and "CHIME_OK" for
 * 0.
 * Ownership: static; never free it.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_err_name(int code);

/* ----------------------------------------------------------------- memory */

/*
 * chime_free: releases memory that a chime function handed to the caller
 * through a ret_* pointer (strings, arrays).  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes ptr back from the caller.
 * Thread: any.
 */
CHIME_EXTERN void chime_free(void *ptr);

/* ------------------------------------------------------------ time zones */

/*
 * A time zone: an IANA zone read from the system's zoneinfo ("Europe/Berlin",
 * "America/New_York"), "UTC", or a fixed offset written "GMT+8", "UTC-03:30"
 * or "+05:30" (Java's custom zone ids: "GMT+8" is eight hours EAST of
 * Greenwich, unlike the POSIX-style "Etc/GMT+8" zone file, which is west).
 * Zones are immutable and shared by all threads.
 */
typedef struct chime_zone chime_zone;

/*
 * chime_zone_get: finds a time zone by name, loading and caching it on first
 * use.  When the zone's file changed since (a tzdata update, noticed by
 * chime_scheduler_reload_zones or a running scheduler's check-in), a later
 * call returns a new zone with the new rules; a zone returned before keeps
 * its old rules and stays valid.
 * Returns: 0; CHIME_EINVAL (NULL or empty name); CHIME_EUNKNOWNZONE (no such
 * zone: never a silent UTC); CHIME_EFORMAT (the zone file is damaged);
 * CHIME_EIO (the zone file could not be read); CHIME_ENOMEM.
 * Ownership: *ret_zone is borrowed and lives until the process exits.
 * Thread: any.
 */
CHIME_EXTERN int chime_zone_get(const char *name, const chime_zone **ret_zone);

/*
 * chime_zone_get_name: the name the zone was asked for with.
 * Returns: the name; NULL for a NULL zone.
 * Ownership: borrowed, lives as long as the zone (the process).
 * Thread: any.
 */
CHIME_EXTERN const char *chime_zone_get_name(const chime_zone *zone);

/*
 * chime_zone_get_offset_at: the zone's offset from UTC at instant t_ms.
 * Returns: seconds east of Greenwich (Berlin in winter: 3600); 0 for a NULL
 * zone.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int32_t chime_zone_get_offset_at(const chime_zone *zone,
                                              int64_t t_ms);

/* chime_zone_format_time's flags: the ISO 8601 form
 * "2026-03-29T03:30:00+02:00" ('T', milliseconds when not zero, the offset
 * always written, with its seconds when it has some) instead of the
 * default "2026-03-29 03:30:00+02:00" (a space, whole seconds, "Z" for
 * offset 0, the offset's seconds dropped). */
#define CHIME_TIME_ISO 1u
/* Room for any time chime_zone_format_time writes, its NUL included. */
#define CHIME_TIME_TEXT_LEN 48

/*
 * chime_zone_format_time: writes instant t_ms (epoch milliseconds) as the
 * wall-clock time in zone zone_name with the offset in force then
 * (the later pass of a repeated hour shows its own offset); zone_name NULL:
 * UTC.  flags 0 or CHIME_TIME_ISO (above).  What chimectl, chime-web and
 * chime-cron print.
 * Returns: 0; CHIME_EINVAL (NULL buf, len 0, unknown flags; an empty
 * zone_name); CHIME_ELIMIT (len too small: buf holds as much as fits);
 * chime_zone_get's errors (CHIME_EUNKNOWNZONE, ...).
 * Ownership: zone_name is borrowed for the call; buf is the caller's.
 * Thread: any.
 */
CHIME_EXTERN int chime_zone_format_time(const char *zone_name, int64_t t_ms,
                                        unsigned flags, char *buf, size_t len);

/*
 * chime_zone_parse_time: the instant of text, a date "YYYY-MM-DD" (its
 * midnight) or a date and time "YYYY-MM-DD[T or space]HH:MM[:SS[.mmm]]",
 * followed by an optional designator: "Z", or an offset "+HH", "+HHMM",
 * "+HH:MM" (or '-').  Without a designator the time is the wall-clock time
 * in zone zone_name (NULL: UTC): in a repeated hour the earlier instant, in
 * a DST gap the time moved forward by the gap's length (02:30 on a
 * spring-forward day is 03:30).
 * Returns: 0; CHIME_EINVAL (NULL text or ret_ms; text malformed or a date
 * that does not exist; an empty zone_name); chime_zone_get's errors
 * (CHIME_EUNKNOWNZONE, ...).
 * Ownership: zone_name and text are borrowed for the call.
 * Thread: any.
 */
CHIME_EXTERN int chime_zone_parse_time(const char *zone_name, const char *text,
                                       int64_t *ret_ms);

/* ------------------------------------------------------------------- cron */

/*
 * A compiled cron expression in Quartz's dialect:
 *   "sec min hour day-of-month month day-of-week [year]"
 * with * ? , - / names (JAN-DEC, SUN-SAT), L, L-n, W, LW, nL and n#k; exactly
 * one of day-of-month and day-of-week is '?'.  Immutable once compiled:
 * several threads may use one at the same time.
 */
typedef struct chime_cron chime_cron;

/* Longest cron expression accepted, in bytes. */
#define CHIME_CRON_MAX_LEN 1024

/*
 * chime_cron_from_string: parses and compiles a cron expression.
 * On a parse error, *reterr_column (if not NULL) receives the 1-based column
 * of the offending character and errbuf (if not NULL) a message naming the
 * field, e.g. "day-of-week field, column 13: unknown day name 'FOO'".
 * Returns: 0; CHIME_EINVAL (NULL expression or ret_cron); CHIME_EPARSE;
 * CHIME_ELIMIT (longer than CHIME_CRON_MAX_LEN); CHIME_ENOMEM.
 * Ownership: *ret_cron belongs to the caller, freed with chime_cron_free().
 * errbuf is the caller's; it is always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_cron_from_string(const char *expr, chime_cron **ret_cron,
                                        int *reterr_column, char *errbuf,
                                        size_t errbuf_len);

/*
 * chime_cron_from_unix: parses and compiles a Unix (crontab) expression:
 * "min hour day-of-month month day-of-week" with * , - / names (JAN-DEC,
 * SUN-SAT), 0 or 7 for Sunday, or one of @yearly, @annually, @monthly,
 * @weekly, @daily, @midnight, @hourly; an optional "CRON_TZ=Zone " (or
 * "TZ=Zone ") prefix names the zone (chime_cron_get_zone_name).  It fires at
 * second 0; when both day fields are restricted (neither is every value) a
 * day matches when either field matches, as crontab(5) says.  The dialect
 * is never guessed from the field count: chime_cron_from_string reads
 * Quartz's dialect unless the text starts with a CRON_TZ= or TZ= prefix.
 * Returns: 0; CHIME_EINVAL (NULL expression or ret_cron); CHIME_EPARSE
 * (*reterr_column and errbuf as for chime_cron_from_string); CHIME_ELIMIT
 * (longer than CHIME_CRON_MAX_LEN); CHIME_ENOMEM.
 * Ownership: *ret_cron belongs to the caller, freed with chime_cron_free().
 * errbuf is the caller's; it is always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_cron_from_unix(const char *expr, chime_cron **ret_cron,
                                      int *reterr_column, char *errbuf,
                                      size_t errbuf_len);

/*
 * chime_cron_is_unix: whether cron was compiled in the Unix dialect.
 * Returns: true for a Unix expression; false otherwise or for NULL.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN bool chime_cron_is_unix(const chime_cron *cron);

/*
 * chime_cron_get_zone_name: the zone a Unix expression's CRON_TZ= (or TZ=)
 * prefix names, unchecked.
 * Returns: the name; NULL without a prefix or for a NULL cron.
 * Ownership: borrowed, lives as long as cron.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_cron_get_zone_name(const chime_cron *cron);

/*
 * chime_cron_next: the first fire time strictly after after_ms, with the
 * expression's fields read as wall-clock time in zone.  Wall-clock times a
 * DST gap skips do not fire.  In the repeated hour of a DST fall-back an
 * expression whose hour field is '*' fires at every instant that matches
 * (both passes); any other fires once, in the first pass.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENEVERFIRES (no fire time
 * after after_ms, e.g. a past year or February 30th).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_cron_next(const chime_cron *cron, const chime_zone *zone,
                                 int64_t after_ms, int64_t *ret_next_ms);

/*
 * chime_cron_describe: an English description of the expression, e.g.
 * "at 10:15:00, every day".
 * Returns: 0; CHIME_EINVAL; CHIME_ENOMEM.
 * Ownership: *ret_text belongs to the caller, freed with chime_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_cron_describe(const chime_cron *cron, char **ret_text);

/*
 * chime_cron_to_string: the expression as it was given.
 * Returns: the text; NULL for a NULL cron.
 * Ownership: borrowed, lives as long as cron.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_cron_to_string(const chime_cron *cron);

/*
 * chime_cron_free: releases a compiled expression.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes cron back from the caller.
 * Thread: any, once no other thread uses it.
 */
CHIME_EXTERN void chime_cron_free(chime_cron *cron);

/* ------------------------------------------------------ recurrence rules */

/*
 * An RFC 5545 recurrence: DTSTART (with a TZID zone, a Z for UTC, or
 * neither: UTC), an RRULE (FREQ SECONDLY..YEARLY, INTERVAL, COUNT or
 * UNTIL, BYSECOND..BYMONTH, BYDAY with ordinals, BYMONTHDAY, BYYEARDAY,
 * BYWEEKNO, BYSETPOS, WKST), EXDATE and RDATE lines, separated by newlines
 * or spaces as python-dateutil's rrulestr reads them.  DTSTART is the first
 * instance.  A wall time a DST gap skips takes the offset before the gap
 * (it moves forward by the gap); a repeated wall time is its first pass
 * (RFC 5545 3.3.5).  Immutable once compiled.
 */
typedef struct chime_rrule chime_rrule;

/* Longest recurrence text accepted, in bytes. */
#define CHIME_RRULE_MAX_LEN 4096

/*
 * chime_rrule_from_string: parses a recurrence, e.g.
 * "DTSTART;TZID=Europe/Paris:20260105T090000 RRULE:FREQ=MONTHLY;BYDAY=-1FR".
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_EPARSE (errbuf says
 * which line and why); CHIME_EUNKNOWNZONE; CHIME_ELIMIT (too long, too
 * many dates); CHIME_ENOMEM.
 * Ownership: *ret_rule belongs to the caller, freed with chime_rrule_free().
 * errbuf is the caller's; always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_rrule_from_string(const char *text,
                                         chime_rrule **ret_rule, char *errbuf,
                                         size_t errbuf_len);

/*
 * chime_rrule_next: the first instance strictly after after_ms.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENEVERFIRES (none: COUNT
 * or UNTIL reached, every date excluded).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_rrule_next(const chime_rrule *rule, int64_t after_ms,
                                  int64_t *ret_next_ms);

/*
 * chime_rrule_get_zone: DTSTART's zone (UTC when it names none).
 * Returns: the zone; NULL for a NULL rule.
 * Ownership: borrowed, lives until the process exits.
 * Thread: any.
 */
CHIME_EXTERN const chime_zone *chime_rrule_get_zone(const chime_rrule *rule);

/*
 * chime_rrule_to_string: the text as it was given.
 * Returns: the text; NULL for a NULL rule.
 * Ownership: borrowed, lives as long as rule.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_rrule_to_string(const chime_rrule *rule);

/*
 * chime_rrule_free: releases a recurrence.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes rule back from the caller.
 * Thread: any, once no other thread uses it.
 */
CHIME_EXTERN void chime_rrule_free(chime_rrule *rule);

/* --------------------------------------------------------------- triggers */

/* The four kinds of trigger, as in Quartz. */
typedef enum chime_trigger_kind {
  CHIME_TRIGGER_SIMPLE = 1,              /* start, interval, repeat count */
  CHIME_TRIGGER_CRON = 2,                /* a cron expression in a zone */
  CHIME_TRIGGER_CALENDAR_INTERVAL = 3,   /* every N units of the calendar */
  CHIME_TRIGGER_DAILY_TIME_INTERVAL = 4, /* an interval inside a daily window */
  CHIME_TRIGGER_RECURRENCE = 5           /* an RFC 5545 recurrence (RRULE) */
} chime_trigger_kind;

/*
 * What a trigger does when it missed its fire time by more than the misfire
 * threshold (the scheduler was down, or every worker was busy).  Which
 * instructions each kind accepts, and what they do, follows Quartz:
 *   all kinds: SMART (the kind's default), IGNORE (fire every missed time
 *   at once, then go on as scheduled);
 *   simple: FIRE_NOW, RESCHEDULE_NOW_EXISTING_COUNT,
 *     RESCHEDULE_NOW_REMAINING_COUNT, RESCHEDULE_NEXT_REMAINING_COUNT,
 *     RESCHEDULE_NEXT_EXISTING_COUNT;
 *   cron, calendar-interval, daily-time-interval: FIRE_NOW (fire once now),
 *     DO_NOTHING (skip to the next time after now).
 */
typedef enum chime_misfire {
  CHIME_MISFIRE_SMART = 0,
  CHIME_MISFIRE_IGNORE = 1,
  CHIME_MISFIRE_FIRE_NOW = 2,
  CHIME_MISFIRE_DO_NOTHING = 3,
  CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT = 4,
  CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT = 5,
  CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT = 6,
  CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT = 7
} chime_misfire;

/* Units of a calendar-interval trigger. */
typedef enum chime_interval_unit {
  CHIME_UNIT_MILLISECOND = 0,
  CHIME_UNIT_SECOND = 1,
  CHIME_UNIT_MINUTE = 2,
  CHIME_UNIT_HOUR = 3,
  CHIME_UNIT_DAY = 4,
  CHIME_UNIT_WEEK = 5,
  CHIME_UNIT_MONTH = 6,
  CHIME_UNIT_YEAR = 7
} chime_interval_unit;

/* A simple trigger's repeat count that never runs out. */
#define CHIME_REPEAT_INDEFINITELY (-1)

/* ------------------------------------------------------------ calendars */

/*
 * A calendar excludes time from the triggers that name it (Quartz's
 * calendars): annual days, holiday dates, days of the month, days of the
 * week, a window of the day, or the seconds a cron expression matches.  A
 * calendar may be built on a base calendar, whose exclusions it adds to.
 * Calendars are immutable and shared; the scheduler keeps them by name.
 * Day rules read instants as wall-clock time in the calendar's zone (NULL
 * zone name: UTC).
 */
typedef struct chime_calendar chime_calendar;

/*
 * chime_calendar_from_string: builds a calendar from its text form, one
 * line per calendar after the line "chime-calendar 1", outermost first, the
 * following lines its bases:
 *   chime-calendar 1
 *   weekly zone=Europe/Berlin days=sat,sun
 *   holiday dates=2026-12-25,2027-01-01
 * Kinds and fields: annual days=MM-DD,...; holiday dates=YYYY-MM-DD,...;
 * monthly days=1,15,31; weekly days=sun,...,sat; daily start=HH:MM[:SS[.mmm]]
 * end=HH:MM[:SS[.mmm]] invert=0|1 (the window [start, end] is excluded, or
 * everything outside it when inverted); cron expr=EXPRESSION (percent-encode
 * spaces as %20).  Every line may add zone=NAME and desc=TEXT.
 * Returns: 0; CHIME_EINVAL (NULL argument, a value out of range);
 * CHIME_EFORMAT (malformed text); CHIME_EUNKNOWNZONE; CHIME_EPARSE (bad cron
 * expression); CHIME_ELIMIT; CHIME_ENOMEM.  errbuf says what is wrong.
 * Ownership: *ret_calendar is the caller's, freed with chime_calendar_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_calendar_from_string(const char *text,
                                            chime_calendar **ret_calendar,
                                            char *errbuf, size_t errbuf_len);

/*
 * chime_calendar_to_string: the text form chime_calendar_from_string reads.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENOMEM.
 * Ownership: *ret_text is the caller's, freed with chime_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_calendar_to_string(const chime_calendar *calendar,
                                          char **ret_text);

/*
 * chime_calendar_is_included: whether the calendar (and its bases) include
 * instant t_ms.
 * Returns: true when no rule excludes t_ms (always, for a NULL calendar).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN bool chime_calendar_is_included(const chime_calendar *calendar,
                                             int64_t t_ms);

/*
 * chime_calendar_free: releases the caller's calendar.  NULL is allowed.  A
 * scheduler the calendar was added to keeps its own reference.
 * Returns: nothing.
 * Ownership: takes the caller's reference back.
 * Thread: any, once the caller no longer uses it.
 */
CHIME_EXTERN void chime_calendar_free(chime_calendar *calendar);

/* ------------------------------------------------------------------- jobs */

/* Limits on names and data, in bytes. */
#define CHIME_MAX_NAME_LEN 190 /* group, name, job type, calendar */
#define CHIME_MAX_DESCRIPTION_LEN 4096
#define CHIME_MAX_DATA_LEN (1024 * 1024)

/* Whether two runs of one job may overlap, across the cluster (Quartz's
 * @DisallowConcurrentExecution is FORBID; docs/policies.md).  FORBID
 * (FORBID_QUEUE): a fire due while a run is going waits for it and runs
 * after it.  FORBID_SKIP: a fire due while a run is going is dropped and
 * recorded SKIPPED in the history; the trigger goes on from its next time
 * after the run.  REPLACE: a fire due while a run is going cancels that
 * run (chime_ctx_is_cancelled(), within a check-in interval; recorded
 * CANCELLED) and starts when it returns; of the fires that came due while
 * the run went on (it ignored its cancellation), only the newest starts,
 * the older ones are dropped and recorded SKIPPED in the history. */
typedef enum chime_concurrency {
  CHIME_CONCURRENCY_ALLOW = 0,
  CHIME_CONCURRENCY_FORBID = 1,
  CHIME_CONCURRENCY_FORBID_QUEUE = 1,
  CHIME_CONCURRENCY_FORBID_SKIP = 2,
  CHIME_CONCURRENCY_REPLACE = 3
} chime_concurrency;

/* Which runs of a job the store records in its history
 * (chime_job_set_history_level).  ALL (the default): every run.
 * FAILURES: every run whose outcome is not OK (FAILED, RETRIED, TIMED_OUT,
 * CANCELLED, MISSED, SKIPPED, ...).  NONE: no run.  Whatever the level, a
 * fire that another node ended (its node died, it was handed over by a
 * stopping node, an operator cancelled it) is recorded (DESIGN.md
 * promise 2), and so is every run of a sharded job (the spread of its
 * shards over the nodes counts them). */
typedef enum chime_history_level {
  CHIME_HISTORY_ALL = 0,
  CHIME_HISTORY_FAILURES = 1,
  CHIME_HISTORY_NONE = 2
} chime_history_level;

/*
 * A job definition (Quartz's JobDetail): a key (group + name), the job type
 * (the name a node registered a function under), a description, data bytes
 * handed to every run, and flags.  Build one with chime_job_new and the
 * setters, add it with chime_scheduler_add_job; the scheduler copies it.
 * Keys and type names are 1 to CHIME_MAX_NAME_LEN bytes of UTF-8 with no
 * control characters.  A job object is plain data: one thread at a time may
 * use it (several may read one nobody changes).
 */
typedef struct chime_job chime_job;

/*
 * chime_job_new: a job definition with defaults: no description, no data,
 * not durable, no recovery, concurrency ALLOW, data not persisted.  errbuf
 * (may be NULL) receives what is wrong, e.g. "job group is empty"; it is
 * emptied on success.
 * Returns: 0; CHIME_EINVAL (NULL ret_job, a missing or invalid key part or
 * type); CHIME_ELIMIT (longer than CHIME_MAX_NAME_LEN); CHIME_ENOMEM.
 * Ownership: *ret_job is the caller's, freed with chime_job_free().  errbuf
 * is the caller's; it is always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_job_new(const char *group, const char *name,
                               const char *type, chime_job **ret_job,
                               char *errbuf, size_t errbuf_len);

/*
 * chime_job_free: releases a job definition.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes job back from the caller.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN void chime_job_free(chime_job *job);

/*
 * chime_job_set_description: a text for people (NULL: none), in UTF-8.
 * Returns: 0; CHIME_EINVAL (NULL job, text not valid UTF-8); CHIME_ELIMIT
 * (over CHIME_MAX_DESCRIPTION_LEN); CHIME_ENOMEM.
 * Ownership: text is copied.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_description(chime_job *job, const char *text);

/*
 * chime_job_set_data: the bytes every run of the job sees (usually JSON);
 * len 0 clears them.
 * Returns: 0; CHIME_EINVAL (NULL job, NULL data with len > 0); CHIME_ELIMIT
 * (over CHIME_MAX_DATA_LEN); CHIME_ENOMEM.
 * Ownership: data is copied.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_data(chime_job *job, const void *data,
                                    size_t len);

/*
 * chime_job_set_durable: whether the job stays when no trigger refers to it
 * any more (a job added without a trigger must be durable).
 * Returns: 0; CHIME_EINVAL (NULL job).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_durable(chime_job *job, bool durable);

/*
 * chime_job_set_requests_recovery: whether, when the node running a fire of
 * the job dies, a survivor runs the fire again (the run sees
 * chime_ctx_is_recovering()); otherwise the fire is recorded as failed.
 * Returns: 0; CHIME_EINVAL (NULL job).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_requests_recovery(chime_job *job, bool yes);

/*
 * chime_job_set_concurrency: whether two runs of the job may overlap,
 * across the whole cluster.
 * Returns: 0; CHIME_EINVAL (NULL job, an unknown value).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_concurrency(chime_job *job,
                                           chime_concurrency concurrency);

/* The largest cap chime_job_set_queue_cap takes. */
#define CHIME_MAX_QUEUE_CAP 1000000

/*
 * chime_job_set_queue_cap: the cap on the queue of a FORBID_QUEUE job: at
 * most cap fires of each of its triggers wait, in order, behind a run
 * (0, the default: no cap, as Quartz).  When a run ends and a trigger has
 * more fire times due than the cap, the oldest beyond it are dropped and
 * recorded SKIPPED in the history (as FORBID_SKIP records its drops), so
 * the job works through at most cap fires late.  Ignored under another
 * concurrency policy.
 * Returns: 0; CHIME_EINVAL (NULL job, cap negative or over
 * CHIME_MAX_QUEUE_CAP).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_queue_cap(chime_job *job, int64_t cap);

/*
 * chime_job_get_queue_cap: the cap chime_job_set_queue_cap left.
 * Returns: the cap; 0 (none) for a NULL job.
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int64_t chime_job_get_queue_cap(const chime_job *job);

/*
 * chime_job_set_persist_data: whether data a run sets with
 * chime_ctx_set_job_data() is saved after the run (Quartz's
 * @PersistJobDataAfterExecution).
 * Returns: 0; CHIME_EINVAL (NULL job).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_persist_data(chime_job *job, bool yes);

/*
 * chime_job_get_group, chime_job_get_name, chime_job_get_type: the key and
 * the job type.
 * Returns: the string; NULL for a NULL job.
 * Ownership: borrowed until the job is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN const char *chime_job_get_group(const chime_job *job);
CHIME_EXTERN const char *chime_job_get_name(const chime_job *job);
CHIME_EXTERN const char *chime_job_get_type(const chime_job *job);

/*
 * chime_job_get_description: the description.
 * Returns: the text; NULL when there is none or job is NULL.
 * Ownership: borrowed until the description changes or the job is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN const char *chime_job_get_description(const chime_job *job);

/*
 * chime_job_get_data: the job's data; *ret_len (may be NULL) receives its
 * length.
 * Returns: the bytes; NULL (and length 0) when there are none or job is
 * NULL.
 * Ownership: borrowed until the data changes or the job is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN const void *chime_job_get_data(const chime_job *job,
                                            size_t *ret_len);

/*
 * chime_job_get_durable, chime_job_get_requests_recovery,
 * chime_job_get_persist_data, chime_job_get_concurrency: the flags as their
 * setters left them.
 * Returns: the flag; false (ALLOW) for a NULL job.
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN bool chime_job_get_durable(const chime_job *job);
CHIME_EXTERN bool chime_job_get_requests_recovery(const chime_job *job);
CHIME_EXTERN bool chime_job_get_persist_data(const chime_job *job);
CHIME_EXTERN chime_concurrency chime_job_get_concurrency(const chime_job *job);

/* The longest job timeout: 7 days. */
#define CHIME_MAX_TIMEOUT_MS (INT64_C(7) * 86400000)

/*
 * chime_job_set_timeout_ms: how long a run of the job may take (0: no
 * limit, the default).  At the deadline the run is cancelled
 * (chime_ctx_is_cancelled() turns true, chime_ctx_wait_cancelled()
 * returns) and, when the job returns, it is recorded TIMED_OUT with the
 * error CHIME_ETIMEDOUT.  Nothing stops a job that does not look: it keeps
 * its worker and is reported (CHIME_EVENT_JOB_CANCEL_IGNORED).
 * Returns: 0; CHIME_EINVAL (NULL job, ms negative or over
 * CHIME_MAX_TIMEOUT_MS).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_timeout_ms(chime_job *job, int64_t ms);

/*
 * chime_job_get_timeout_ms: the timeout as chime_job_set_timeout_ms left it.
 * Returns: the timeout in ms; 0 (none) for a NULL job.
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int64_t chime_job_get_timeout_ms(const chime_job *job);

/*
 * chime_job_set_starting_deadline_ms: how late a fire of the job may start
 * (0: any time, the default; Kubernetes' startingDeadlineSeconds).  A fire
 * that cannot start within ms of its scheduled time (its nodes were down,
 * the workers busy, it waited behind a FORBID run) is not run: it is
 * recorded MISSED in the history with the error CHIME_EMISSED and
 * CHIME_EVENT_JOB_MISSED is emitted.  Independent of the misfire threshold,
 * which keeps Quartz's meaning.
 * Returns: 0; CHIME_EINVAL (NULL job, ms negative or over
 * CHIME_MAX_TIMEOUT_MS).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_starting_deadline_ms(chime_job *job, int64_t ms);

/*
 * chime_job_get_starting_deadline_ms: the starting deadline as
 * chime_job_set_starting_deadline_ms left it.
 * Returns: the deadline in ms; 0 (none) for a NULL job.
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int64_t chime_job_get_starting_deadline_ms(const chime_job *job);

/* The most attempts a retry policy allows (the first run included). */
#define CHIME_MAX_RETRY_ATTEMPTS 1000

/*
 * chime_retry: a retry policy (XXL-JOB's executorFailRetryCount,
 * Kubernetes' backoffLimit, with back-off), the one object a job's
 * (chime_job_set_retry) and an enqueued run's (chime_enqueue_set_retry)
 * retries are described by.  A run that fails (an error, or TIMED_OUT
 * unless chime_retry_set_timed_out said no; not one cancelled by an
 * operator, not a MISSED fire) is run again until max_attempts runs were
 * made (the first included: 0 or 1 for no retries).  Attempt n + 1 is due
 * initial_delay_ms * multiplier^(n - 1) after attempt n failed, at most
 * max_delay_ms (0: no cap but CHIME_MAX_TIMEOUT_MS), plus a jitter in
 * [0, jitter_ms) the same on every node.  The multiplier is kept to a
 * thousandth.  Created by chime_retry_new (1 attempt: no retries, no
 * delay, a multiplier of 1, TIMED_OUT runs retried); whoever takes a
 * policy copies it.
 */
typedef struct chime_retry chime_retry;

/*
 * chime_retry_new: a retry policy with the defaults above.
 * Returns: 0; CHIME_EINVAL (NULL ret); CHIME_ENOMEM.
 * Ownership: *ret is the caller's, freed with chime_retry_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_retry_new(chime_retry **ret);

/*
 * chime_retry_free: releases a retry policy.  NULL is allowed.
 * Returns: nothing.
 * Ownership: policy is freed.
 * Thread: any, not while another thread uses policy.
 */
CHIME_EXTERN void chime_retry_free(chime_retry *policy);

/*
 * chime_retry_set_max_attempts, chime_retry_set_initial_delay_ms,
 * chime_retry_set_multiplier, chime_retry_set_max_delay_ms,
 * chime_retry_set_jitter_ms: the parts of the policy (above).
 * chime_retry_set_timed_out: whether a run that timed out (TIMED_OUT,
 * chime_job_set_timeout_ms) is retried like any failed run (true, the
 * default) or not (false: it is recorded TIMED_OUT and not retried).
 * Returns: 0; CHIME_EINVAL (NULL policy, max_attempts negative or over
 * CHIME_MAX_RETRY_ATTEMPTS, a delay or jitter negative or over
 * CHIME_MAX_TIMEOUT_MS, multiplier not finite or outside [1, 1000]); the
 * policy is unchanged on error.
 * Ownership: none.
 * Thread: any, one thread per policy object.
 */
CHIME_EXTERN int chime_retry_set_max_attempts(chime_retry *policy,
                                              int max_attempts);
CHIME_EXTERN int chime_retry_set_initial_delay_ms(chime_retry *policy,
                                                  int64_t ms);
CHIME_EXTERN int chime_retry_set_multiplier(chime_retry *policy,
                                            double multiplier);
CHIME_EXTERN int chime_retry_set_max_delay_ms(chime_retry *policy, int64_t ms);
CHIME_EXTERN int chime_retry_set_jitter_ms(chime_retry *policy, int64_t ms);
CHIME_EXTERN int chime_retry_set_timed_out(chime_retry *policy, bool yes);

/*
 * chime_retry_get_max_attempts, chime_retry_get_initial_delay_ms,
 * chime_retry_get_multiplier, chime_retry_get_max_delay_ms,
 * chime_retry_get_jitter_ms, chime_retry_get_timed_out: the policy as the
 * setters left it.
 * Returns: the value; for a NULL policy, no retries: 0 attempts, 0 ms, a
 * multiplier of 1, true.
 * Ownership: none.
 * Thread: any, one thread per policy object.
 */
CHIME_EXTERN int chime_retry_get_max_attempts(const chime_retry *policy);
CHIME_EXTERN int64_t
chime_retry_get_initial_delay_ms(const chime_retry *policy);
CHIME_EXTERN double chime_retry_get_multiplier(const chime_retry *policy);
CHIME_EXTERN int64_t chime_retry_get_max_delay_ms(const chime_retry *policy);
CHIME_EXTERN int64_t chime_retry_get_jitter_ms(const chime_retry *policy);
CHIME_EXTERN bool chime_retry_get_timed_out(const chime_retry *policy);

/*
 * chime_job_set_retry: the job's retry policy (chime_retry), stored with
 * the job so every node applies it to the job's runs (an enqueued run
 * with a policy of its own, chime_enqueue_set_retry, follows that one).
 * NULL: no retries (the default).
 * Returns: 0; CHIME_EINVAL (NULL job).
 * Ownership: policy is copied.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_retry(chime_job *job, const chime_retry *policy);

/*
 * chime_job_get_retry: the job's retry policy as chime_job_set_retry left
 * it (1 attempt when none was set).
 * Returns: the policy; NULL for a NULL job.
 * Ownership: borrowed from job until it changes or is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN const chime_retry *chime_job_get_retry(const chime_job *job);

/*
 * chime_job_set_history_level: which of the job's runs are recorded in the
 * store's history (chime_history_level: CHIME_HISTORY_ALL, the default;
 * CHIME_HISTORY_FAILURES; CHIME_HISTORY_NONE), so that a frequent job
 * whose runs need no record costs no history rows (docs/schema.md,
 * "Bounded tables").  Stored with the job: every node honours it.
 * Returns: 0; CHIME_EINVAL (NULL job, a level outside the enum).
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_history_level(chime_job *job,
                                             chime_history_level level);

/*
 * chime_job_get_history_level: the level chime_job_set_history_level left.
 * Returns: the level; CHIME_HISTORY_ALL (the default) for a NULL job.
 * Ownership: none.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN chime_history_level
chime_job_get_history_level(const chime_job *job);

/* Sharded jobs (docs/batch.md). */
#define CHIME_SHARDS_BROADCAST (-1) /* one shard per live capable node */
#define CHIME_MAX_SHARDS 10000
#define CHIME_MAX_TAGS 16
#define CHIME_MAX_TAG_LEN 64

/*
 * chime_job_set_shards: makes every fire of the job a sharded fire
 * (XXL-JOB's sharding broadcast, ElasticJob's sharding items): when it
 * fires, it is split into count shards, each a fire of its own (own fire
 * id, fenced, retried per the job's retry policy, recovered on a survivor
 * when its node dies: always, whatever chime_job_set_requests_recovery
 * says), spread over the live nodes that can run the job; the fire as a
 * whole completes when every shard has.  count 0 (the default) turns
 * sharding off; CHIME_SHARDS_BROADCAST makes one shard per live node that
 * has the job's required tags, counted when the fire runs.  params (NULL
 * for none) gives shards a parameter each, as "0=Beijing,1=Shanghai": an
 * index below count, '=', a text without ',' or '='; a shard without one
 * has none (chime_ctx_get_shard_param).
 * Returns: 0; CHIME_EINVAL (NULL job, count below CHIME_SHARDS_BROADCAST
 * or over CHIME_MAX_SHARDS, params malformed, given with count 0, or
 * longer than CHIME_MAX_DESCRIPTION_LEN); CHIME_ENOMEM.  The job is
 * unchanged on error.
 * Ownership: params is copied.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_shards(chime_job *job, int count,
                                      const char *params);

/*
 * chime_job_get_shard_count, chime_job_get_shard_params: the sharding as
 * chime_job_set_shards left it.
 * Returns: the count (0: not sharded; CHIME_SHARDS_BROADCAST) and the
 * parameter list (NULL when none); 0 and NULL for a NULL job.
 * Ownership: the string is borrowed until the job changes or is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_get_shard_count(const chime_job *job);
CHIME_EXTERN const char *chime_job_get_shard_params(const chime_job *job);

/*
 * chime_job_set_shards_then: the step that runs once after the last shard
 * of each sharded fire of this job finished (docs/batch.md): a run of the
 * stored job (group, name) is enqueued (chime_scheduler_enqueue) in the
 * same transaction as that last shard's completion, so it is stored
 * exactly once whichever node completes the last shard and whichever node
 * dies, with the unique key "shards-" and the sharded fire's id, and
 * with the sharded fire's history message ("8 shard(s) completed", "3 of
 * 8 shard(s) failed: 1,4,6") as its data.  NULL group and name clear it.
 * A then-job that does not exist when the fire ends is skipped with a
 * warning in the log.
 * Returns: 0; CHIME_EINVAL (NULL job, one of group and name NULL, an
 * invalid key); CHIME_ELIMIT; CHIME_ENOMEM.
 * Ownership: group and name are copied.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_set_shards_then(chime_job *job, const char *group,
                                           const char *name);

/*
 * chime_job_get_shards_then_group, chime_job_get_shards_then_name: the key
 * chime_job_set_shards_then left.
 * Returns: the group and the name, or NULL (none; a NULL job).
 * Ownership: borrowed until the job changes or is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN const char *chime_job_get_shards_then_group(const chime_job *job);
CHIME_EXTERN const char *chime_job_get_shards_then_name(const chime_job *job);

/*
 * chime_job_add_required_tag: only nodes that declared tag
 * (chime_config_add_tag) claim the job's fires and shards (Quartz.NET's
 * node affinity).  A tag is 1 to CHIME_MAX_TAG_LEN characters of
 * [A-Za-z0-9_.:-]; a job requires at most CHIME_MAX_TAGS; adding a tag
 * twice is a no-op.  With no live node having them, its fires wait
 * (`chimectl explain` says so).
 * Returns: 0; CHIME_EINVAL (NULL job, a bad tag); CHIME_ELIMIT (too many
 * tags); CHIME_ENOMEM.
 * Ownership: tag is copied.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN int chime_job_add_required_tag(chime_job *job, const char *tag);

/*
 * chime_job_get_required_tags: the job's required tags, sorted and
 * comma-separated ("gpu,ssd").
 * Returns: the list; NULL when there are none or for a NULL job.
 * Ownership: borrowed until the job changes or is freed.
 * Thread: any, one thread per job object.
 */
CHIME_EXTERN const char *chime_job_get_required_tags(const chime_job *job);

/* --------------------------------------------------------------- triggers */

/*
 * A trigger definition: key (group + name), the job it fires, the schedule
 * of its kind, start and end, priority (higher first among triggers due at
 * the same time; default 5), an optional calendar name, a misfire
 * instruction (default SMART), and data bytes (handed to the run, taking
 * precedence over the job's).  Build one with a chime_trigger_*_new
 * constructor and the setters; the scheduler copies it.  Triggers returned
 * by chime_scheduler_get_trigger() also carry their state.  A trigger object
 * is plain data: one thread at a time may use it.
 */
typedef struct chime_trigger chime_trigger;

/*
 * chime_trigger_simple_new: fires at start, then every interval_ms,
 * repeat_count more times (CHIME_REPEAT_INDEFINITELY: forever).  Start
 * defaults to the time it is scheduled.
 * Returns: 0; CHIME_EINVAL (NULL ret_trigger, an invalid key, a negative
 * interval, a zero interval that repeats, a repeat count below -1);
 * CHIME_ELIMIT; CHIME_ENOMEM.  errbuf (may be NULL) says which argument is
 * wrong; it is emptied on success.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * errbuf is the caller's; always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_trigger_simple_new(const char *group, const char *name,
                                          int64_t interval_ms,
                                          int32_t repeat_count,
                                          chime_trigger **ret_trigger,
                                          char *errbuf, size_t errbuf_len);

/*
 * chime_trigger_cron_new: fires when the cron expression matches, read as
 * wall-clock time in zone (NULL: "UTC"); see chime_cron_next for DST.
 * Returns: 0; CHIME_EINVAL (NULL argument, invalid key); CHIME_EPARSE (the
 * expression; errbuf names the field and column); CHIME_EUNKNOWNZONE;
 * CHIME_ELIMIT; CHIME_ENOMEM.  errbuf (may be NULL) says what is wrong.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * errbuf is the caller's; always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_trigger_cron_new(const char *group, const char *name,
                                        const char *expression,
                                        const char *zone,
                                        chime_trigger **ret_trigger,
                                        char *errbuf, size_t errbuf_len);

/*
 * chime_trigger_unix_cron_new: fires when the Unix (crontab) expression
 * matches (chime_cron_from_unix), read as wall-clock time in zone; zone
 * NULL takes the expression's CRON_TZ= zone, else "UTC".  The trigger keeps
 * the expression with a "CRON_TZ=<zone> " prefix, which marks it as Unix
 * wherever it is read back (stores, chimectl).  chime_trigger_cron_new also
 * takes a text with a CRON_TZ= prefix, as a Unix expression. Returns: 0;
 * CHIME_EINVAL (NULL argument, invalid key, zone and CRON_TZ= disagree);
 * CHIME_EPARSE; CHIME_EUNKNOWNZONE; CHIME_ELIMIT; CHIME_ENOMEM. errbuf (may be
 * NULL) says what is wrong. Ownership: *ret_trigger is the caller's, freed with
 * chime_trigger_free(). errbuf is the caller's; always NUL-terminated when
 * errbuf_len > 0. Thread: any.
 */
CHIME_EXTERN int chime_trigger_unix_cron_new(const char *group,
                                             const char *name,
                                             const char *expression,
                                             const char *zone,
                                             chime_trigger **ret_trigger,
                                             char *errbuf, size_t errbuf_len);

/*
 * chime_trigger_recurrence_new: fires at the instances of an RFC 5545
 * recurrence (chime_rrule_from_string: DTSTART;TZID=..., RRULE:...,
 * EXDATE, RDATE), in DTSTART's zone, from the trigger's start time on (by
 * default the time it is added) up to its end time.  Misfire instructions
 * as for calendar-interval triggers (SMART, IGNORE, FIRE_NOW, DO_NOTHING).
 * Returns: 0; CHIME_EINVAL (NULL argument, invalid key); CHIME_EPARSE
 * (errbuf says why); CHIME_EUNKNOWNZONE; CHIME_ELIMIT; CHIME_ENOMEM.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * errbuf is the caller's; always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_trigger_recurrence_new(const char *group,
                                              const char *name,
                                              const char *recurrence,
                                              chime_trigger **ret_trigger,
                                              char *errbuf, size_t errbuf_len);

/*
 * chime_trigger_calendar_interval_new: fires at start, then every interval
 * units of the calendar in zone (NULL: "UTC"): a month later is the same
 * day of the month, a day later the same wall-clock time.
 * Returns: 0; CHIME_EINVAL (NULL ret_trigger, invalid key, interval not
 * positive, unknown unit); CHIME_EUNKNOWNZONE; CHIME_ELIMIT; CHIME_ENOMEM.
 * errbuf (may be NULL) says what is wrong; it is emptied on success.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * errbuf is the caller's; always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_trigger_calendar_interval_new(
    const char *group, const char *name, int32_t interval,
    chime_interval_unit unit, const char *zone, chime_trigger **ret_trigger,
    char *errbuf, size_t errbuf_len);

/*
 * chime_trigger_daily_new: fires every interval units (SECOND, MINUTE,
 * HOUR) from start_sec_of_day to end_sec_of_day (seconds after local
 * midnight, inclusive) on the days in days_of_week (bit 0 Sunday ... bit 6
 * Saturday), in zone (NULL: "UTC"); repeat_count as for simple triggers.
 * Returns: 0; CHIME_EINVAL (NULL ret_trigger, invalid key, a value out of
 * range, a unit other than SECOND, MINUTE, HOUR); CHIME_EUNKNOWNZONE;
 * CHIME_ELIMIT; CHIME_ENOMEM.  errbuf (may be NULL) says what is wrong; it
 * is emptied on success.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * errbuf is the caller's; always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_trigger_daily_new(
    const char *group, const char *name, int32_t start_sec_of_day,
    int32_t end_sec_of_day, unsigned days_of_week, int32_t interval,
    chime_interval_unit unit, int32_t repeat_count, const char *zone,
    chime_trigger **ret_trigger, char *errbuf, size_t errbuf_len);

/*
 * chime_trigger_free: releases a trigger definition.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes trigger back from the caller.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN void chime_trigger_free(chime_trigger *trigger);

/*
 * Trigger setters.  The schedule as a whole (end after start, ...) is
 * checked when the trigger is scheduled, not by the setters.
 */

/*
 * chime_trigger_set_job: the job the trigger fires (required before it is
 * scheduled).
 * Returns: 0; CHIME_EINVAL (NULL trigger, invalid key); CHIME_ELIMIT;
 * CHIME_ENOMEM.
 * Ownership: the strings are copied.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_job(chime_trigger *trigger,
                                       const char *job_group,
                                       const char *job_name);

/*
 * chime_trigger_set_start_ms: the first instant the trigger may fire at
 * (default: when it is scheduled).
 * Returns: 0; CHIME_EINVAL (NULL trigger, an instant outside years 1 to
 * 9999).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_start_ms(chime_trigger *trigger,
                                            int64_t start_ms);

/*
 * chime_trigger_set_end_ms: the trigger stops firing there; INT64_MAX:
 * never (the default).
 * Returns: 0; CHIME_EINVAL (NULL trigger, an instant outside years 1 to
 * 9999).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_end_ms(chime_trigger *trigger,
                                          int64_t end_ms);

/* Largest jitter window: one week. */
#define CHIME_JITTER_MAX_MS INT64_C(604800000)

/*
 * chime_trigger_set_jitter_ms: spreads the trigger's fires over a window
 * of jitter_ms: every fire moves by the same offset in [0, jitter_ms),
 * derived from the trigger's key alone (chime_key_get_jitter_offset_ms), so it
 * is the same on every node and after every restart (systemd's
 * FixedRandomDelay) and a schedule stays predictable.  The schedule and
 * its calendar see the unmoved times; the trigger's next and previous fire
 * times, and its fires are the moved ones.  0
 * (the default) turns it off.  Not for simple triggers (move their start).
 * Returns: 0; CHIME_EINVAL (NULL trigger, a simple trigger, jitter_ms
 * negative or above CHIME_JITTER_MAX_MS).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_jitter_ms(chime_trigger *trigger,
                                             int64_t jitter_ms);

/*
 * chime_trigger_get_jitter_ms: the jitter window as set.
 * Returns: the window in ms; 0 for none or a NULL trigger.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int64_t chime_trigger_get_jitter_ms(const chime_trigger *trigger);

/*
 * chime_key_get_jitter_offset_ms: the offset a trigger with key (group, name)
 * and jitter window jitter_ms moves its fires by: FNV-1a 64 over the bytes of
 * group, one 0x00 byte and the bytes of name, modulo jitter_ms.
 * Returns: the offset in [0, jitter_ms); 0 when jitter_ms <= 0 or a name
 * is NULL.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int64_t chime_key_get_jitter_offset_ms(const char *group,
                                                    const char *name,
                                                    int64_t jitter_ms);

/*
 * chime_trigger_set_priority: among triggers due at the same time, higher
 * priorities are claimed first (default 5).
 * Returns: 0; CHIME_EINVAL (NULL trigger).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_priority(chime_trigger *trigger,
                                            int priority);

/*
 * chime_trigger_set_misfire: the misfire instruction (see chime_misfire).
 * Returns: 0; CHIME_EINVAL (NULL trigger, an instruction the kind does not
 * know).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_misfire(chime_trigger *trigger,
                                           chime_misfire misfire);

/*
 * chime_trigger_set_calendar: the name of a calendar added with
 * chime_scheduler_add_calendar whose excluded times the trigger skips;
 * NULL: none.
 * Returns: 0; CHIME_EINVAL (NULL trigger, invalid name); CHIME_ELIMIT;
 * CHIME_ENOMEM.
 * Ownership: name is copied.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_calendar(chime_trigger *trigger,
                                            const char *name);

/*
 * chime_trigger_set_description: a text for people (NULL: none), in UTF-8.
 * Returns: 0; CHIME_EINVAL (NULL trigger, text not valid UTF-8);
 * CHIME_ELIMIT (over CHIME_MAX_DESCRIPTION_LEN); CHIME_ENOMEM.
 * Ownership: text is copied.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_description(chime_trigger *trigger,
                                               const char *text);

/*
 * chime_trigger_set_partition_key: the partition its runs count under in
 * their job type's per-partition concurrency limit (a tenant, a customer:
 * chime_scheduler_set_limit's max_per_partition; docs/queue.md, "Limits");
 * NULL clears it.  A run without one counts only towards the type's limit.
 * Returns: 0; CHIME_EINVAL (NULL trigger, key empty, not valid UTF-8 or
 * with control characters); CHIME_ELIMIT (over CHIME_MAX_NAME_LEN);
 * CHIME_ENOMEM.
 * Ownership: key is copied.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_partition_key(chime_trigger *trigger,
                                                 const char *key);

/*
 * chime_trigger_get_partition_key: as set (NULL: none).
 * Returns: the key; NULL for a NULL trigger or none.
 * Ownership: borrowed until the key changes or the trigger is freed.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN const char *
chime_trigger_get_partition_key(const chime_trigger *trigger);

/*
 * chime_trigger_set_data: bytes the trigger's runs see instead of the job's
 * data; len 0 clears them.
 * Returns: 0; CHIME_EINVAL (NULL trigger, NULL data with len > 0);
 * CHIME_ELIMIT (over CHIME_MAX_DATA_LEN); CHIME_ENOMEM.
 * Ownership: data is copied.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_data(chime_trigger *trigger,
                                        const void *data, size_t len);

/*
 * chime_trigger_set_preserve_hour_of_day,
 * chime_trigger_set_skip_day_if_hour_missing: calendar-interval triggers
 * only (Quartz's preserveHourOfDayAcrossDaylightSavings and
 * skipDayIfHourDoesNotExist).
 * Returns: 0; CHIME_EINVAL (NULL trigger, another kind).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_preserve_hour_of_day(chime_trigger *trigger,
                                                        bool yes);
CHIME_EXTERN int
chime_trigger_set_skip_day_if_hour_missing(chime_trigger *trigger, bool yes);

/* The states a trigger is in, as chime_scheduler_get_trigger_status and
 * chime_trigger_get_status report them. */
typedef enum chime_trigger_status {
  CHIME_TRIGGER_NONE = 0,     /* no such trigger */
  CHIME_TRIGGER_NORMAL = 1,   /* waiting for its next fire, or firing */
  CHIME_TRIGGER_PAUSED = 2,   /* paused (by key, job, group or all) */
  CHIME_TRIGGER_COMPLETE = 3, /* will not fire again */
  CHIME_TRIGGER_ERROR = 4,    /* its job type failed in a way that stops it */
  CHIME_TRIGGER_BLOCKED = 5   /* its FORBID job is running elsewhere */
} chime_trigger_status;

/* A time a trigger does not have (no previous or next fire, no start set). */
#define CHIME_NO_FIRE_MS INT64_MIN

/*
 * chime_trigger_set_timeout_ms: the timeout of the runs this trigger fires,
 * overriding their job's (chime_job_set_timeout_ms); 0 (the default): the
 * job's.
 * Returns: 0; CHIME_EINVAL (NULL trigger, ms negative or over
 * CHIME_MAX_TIMEOUT_MS).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_timeout_ms(chime_trigger *trigger,
                                              int64_t ms);

/*
 * chime_trigger_get_timeout_ms: the timeout chime_trigger_set_timeout_ms
 * left.
 * Returns: the timeout in ms; 0 (the job's) for a NULL trigger.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int64_t chime_trigger_get_timeout_ms(const chime_trigger *trigger);

/*
 * chime_trigger_set_starting_deadline_ms: how late a fire of this trigger
 * may start, overriding its job's (chime_job_set_starting_deadline_ms); 0
 * (the default): the job's.  A fire that cannot start within ms of its
 * scheduled time is not run: it is recorded MISSED (CHIME_EMISSED).
 * Returns: 0; CHIME_EINVAL (NULL trigger, ms negative or over
 * CHIME_MAX_TIMEOUT_MS).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_set_starting_deadline_ms(chime_trigger *trigger,
                                                        int64_t ms);

/*
 * chime_trigger_get_starting_deadline_ms: the starting deadline
 * chime_trigger_set_starting_deadline_ms left.
 * Returns: the deadline in ms; 0 (the job's) for a NULL trigger.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int64_t
chime_trigger_get_starting_deadline_ms(const chime_trigger *trigger);

/*
 * chime_trigger_get_kind: the kind the constructor made.
 * Returns: the kind; 0 for a NULL trigger.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN chime_trigger_kind
chime_trigger_get_kind(const chime_trigger *trigger);

/*
 * chime_trigger_kind_to_string: the kind's name, as chime-admin(3)'s
 * triggers list and chimectl write it: "simple", "cron",
 * "calendar-interval", "daily-time-interval" or "recurrence".
 * chime_misfire_to_string: the misfire instruction's name, as they write
 * it: "smart", "ignore", "fire-now", "do-nothing",
 * "reschedule-now-existing-count", "reschedule-now-remaining-count",
 * "reschedule-next-remaining-count" or "reschedule-next-existing-count".
 * Returns: the name; NULL for a value outside the enum.
 * Ownership: static storage.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_trigger_kind_to_string(chime_trigger_kind kind);
CHIME_EXTERN const char *chime_misfire_to_string(chime_misfire misfire);

/*
 * chime_trigger_get_group, chime_trigger_get_name: the trigger's key;
 * chime_trigger_get_job_group, chime_trigger_get_job_name: the job's (NULL
 * until chime_trigger_set_job); chime_trigger_get_calendar,
 * chime_trigger_get_description: as set (NULL: none).
 * Returns: the string; NULL for a NULL trigger.
 * Ownership: borrowed until the attribute changes or the trigger is freed.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN const char *chime_trigger_get_group(const chime_trigger *trigger);
CHIME_EXTERN const char *chime_trigger_get_name(const chime_trigger *trigger);
CHIME_EXTERN const char *
chime_trigger_get_job_group(const chime_trigger *trigger);
CHIME_EXTERN const char *
chime_trigger_get_job_name(const chime_trigger *trigger);
CHIME_EXTERN const char *
chime_trigger_get_calendar(const chime_trigger *trigger);
CHIME_EXTERN const char *
chime_trigger_get_description(const chime_trigger *trigger);

/*
 * chime_trigger_get_data: the trigger's data; *ret_len (may be NULL)
 * receives its length.
 * Returns: the bytes; NULL (and length 0) when there are none.
 * Ownership: borrowed until the data changes or the trigger is freed.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN const void *chime_trigger_get_data(const chime_trigger *trigger,
                                                size_t *ret_len);

/*
 * chime_trigger_get_priority, chime_trigger_get_misfire: as set.
 * Returns: the value; 0 (SMART) for a NULL trigger.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_get_priority(const chime_trigger *trigger);
CHIME_EXTERN chime_misfire
chime_trigger_get_misfire(const chime_trigger *trigger);

/*
 * chime_trigger_get_start_ms, chime_trigger_get_end_ms: as set (a trigger
 * the store returned: as scheduled).
 * Returns: the instant; start: CHIME_NO_FIRE_MS when not set; end: INT64_MAX
 * when it never ends.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int64_t chime_trigger_get_start_ms(const chime_trigger *trigger);
CHIME_EXTERN int64_t chime_trigger_get_end_ms(const chime_trigger *trigger);

/*
 * chime_trigger_get_next_fire_ms, chime_trigger_get_prev_fire_ms,
 * chime_trigger_get_times_triggered, chime_trigger_get_status: the state of
 * a trigger chime_scheduler_get_trigger() returned (a trigger that was
 * never stored: no fires, NORMAL).
 * Returns: the value; CHIME_NO_FIRE_MS for no such fire.
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int64_t
chime_trigger_get_next_fire_ms(const chime_trigger *trigger);
CHIME_EXTERN int64_t
chime_trigger_get_prev_fire_ms(const chime_trigger *trigger);
CHIME_EXTERN int64_t
chime_trigger_get_times_triggered(const chime_trigger *trigger);
CHIME_EXTERN chime_trigger_status
chime_trigger_get_status(const chime_trigger *trigger);

/* ---------------------------------------------------------------- enqueue */

/*
 * Options of one enqueued run (chime_scheduler_enqueue; docs/queue.md):
 * its data, when it runs, its priority, its timeout, its unique key (and
 * how long it is kept), its partition key and its own retry policy.
 * An enqueued run is a one-off trigger of the job in the trigger group
 * CHIME_QUEUE_GROUP, fired, fenced, retried (by its own retry policy or
 * its job's),
 * recovered and recorded like any fire.  Build one with
 * chime_enqueue_new and the setters; the scheduler copies what it needs.
 * An options object is plain data: one thread at a time may use it
 * (several may read one nobody changes).
 */
typedef struct chime_enqueue chime_enqueue;

/* The trigger group of every enqueued run. */
#define CHIME_QUEUE_GROUP "CHIME_QUEUE"
/* The longest unique key, in bytes (a run's trigger name is "K_" and it). */
#define CHIME_MAX_UNIQUE_KEY_LEN (CHIME_MAX_NAME_LEN - 2)
/* A buffer that holds any run's name (its trigger name) and its NUL. */
#define CHIME_RUN_NAME_LEN (CHIME_MAX_NAME_LEN + 1)
/* What an enqueue returns when a run with its unique key existed. */
#define CHIME_ENQUEUE_EXISTED 1

/*
 * chime_enqueue_new: run options with defaults: no data (the job's data
 * is handed to the run), due now, priority 5, the job's timeout, no
 * unique key.
 * Returns: 0; CHIME_EINVAL (NULL ret); CHIME_ENOMEM.
 * Ownership: *ret is the caller's, freed with chime_enqueue_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_enqueue_new(chime_enqueue **ret);

/*
 * chime_enqueue_free: releases run options.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes opts back from the caller.
 * Thread: any, once no other thread uses opts.
 */
CHIME_EXTERN void chime_enqueue_free(chime_enqueue *opts);

/*
 * chime_enqueue_set_data: the bytes handed to the run
 * (chime_ctx_get_data), instead of its job's data; NULL data with len 0
 * clears them (the job's data again).
 * Returns: 0; CHIME_EINVAL (NULL opts, NULL data with len > 0);
 * CHIME_ELIMIT (over CHIME_MAX_DATA_LEN); CHIME_ENOMEM.
 * Ownership: data is copied.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_data(chime_enqueue *opts, const void *data,
                                        size_t len);

/*
 * chime_enqueue_get_data: the bytes chime_enqueue_set_data left; *ret_len
 * (may be NULL) receives their length.
 * Returns: the bytes, or NULL when there are none (or opts is NULL).
 * Ownership: borrowed from opts until it changes or is freed.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN const void *chime_enqueue_get_data(const chime_enqueue *opts,
                                                size_t *ret_len);

/*
 * chime_enqueue_set_run_at_ms: when the run is due, in ms since the Unix
 * epoch by the store's clock (the database's for MySQL); 0 (the default):
 * now.  A time in the past runs at once.
 * Returns: 0; CHIME_EINVAL (NULL opts, a negative time).
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_run_at_ms(chime_enqueue *opts,
                                             int64_t epoch_ms);

/*
 * chime_enqueue_get_run_at_ms: the time chime_enqueue_set_run_at_ms left.
 * Returns: the time in ms; 0 (now) for a NULL opts.
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int64_t chime_enqueue_get_run_at_ms(const chime_enqueue *opts);

/*
 * chime_enqueue_set_priority: among runs and fires due at the same time,
 * higher priorities are claimed first (chime_trigger_set_priority;
 * default 5).
 * Returns: 0; CHIME_EINVAL (NULL opts).
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_priority(chime_enqueue *opts, int priority);

/*
 * chime_enqueue_get_priority: the priority chime_enqueue_set_priority left.
 * Returns: the priority; 5 for a NULL opts.
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_get_priority(const chime_enqueue *opts);

/*
 * chime_enqueue_set_timeout_ms: how long the run may take before it is
 * cancelled and recorded TIMED_OUT (chime_trigger_set_timeout_ms); 0 (the
 * default): its job's timeout.
 * Returns: 0; CHIME_EINVAL (NULL opts, negative or over
 * CHIME_MAX_TIMEOUT_MS).
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_timeout_ms(chime_enqueue *opts, int64_t ms);

/*
 * chime_enqueue_get_timeout_ms: the timeout chime_enqueue_set_timeout_ms
 * left.
 * Returns: the timeout in ms; 0 (the job's) for a NULL opts.
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int64_t chime_enqueue_get_timeout_ms(const chime_enqueue *opts);

/*
 * chime_enqueue_set_unique_key: the run's unique key (NULL clears it):
 * while a run enqueued with the key waits or runs, anywhere in the
 * cluster, an enqueue with the same key stores nothing and returns
 * CHIME_ENQUEUE_EXISTED with that run's name.  The key names the run
 * across the scheduler (its trigger is (CHIME_QUEUE_GROUP, "K_" key)), so
 * keys of different jobs must differ: put the job in the key.  The key is
 * held for the run's whole life: its retries (chime_job_set_retry) and,
 * with the MySQL store, its run again on a survivor after its node died
 * are the same run (CHIME_QUEUE_GROUP, "K_" key) again.  It is free again
 * once the run's final outcome is stored (after the period
 * chime_enqueue_set_unique_for_ms asks for) or the run was unscheduled.
 * Returns: 0; CHIME_EINVAL (NULL opts, an empty key, bad UTF-8 or a
 * control character); CHIME_ELIMIT (over CHIME_MAX_UNIQUE_KEY_LEN);
 * CHIME_ENOMEM.
 * Ownership: key is copied.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_unique_key(chime_enqueue *opts,
                                              const char *key);

/*
 * chime_enqueue_get_unique_key: the key chime_enqueue_set_unique_key left.
 * Returns: the key, or NULL when there is none (or opts is NULL).
 * Ownership: borrowed from opts until it changes or is freed.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN const char *
chime_enqueue_get_unique_key(const chime_enqueue *opts);

/*
 * chime_enqueue_set_unique_for_ms: how long the unique key stays taken
 * after its run's final outcome (success or its last failed attempt):
 * for that long, by the store's clock (the database's with MySQL), an
 * enqueue with the key stores nothing and returns CHIME_ENQUEUE_EXISTED
 * with the run's name, whose trigger stays in the store in state COMPLETE
 * (unscheduling it frees the key at once).  0, the default: only while
 * the run waits, runs or waits for a retry.  Needs a unique key:
 * chime_scheduler_enqueue refuses a period without one (CHIME_EINVAL).
 * Returns: 0; CHIME_EINVAL (NULL opts, ms < 0 or over
 * CHIME_MAX_TIMEOUT_MS).
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_unique_for_ms(chime_enqueue *opts,
                                                 int64_t ms);

/*
 * chime_enqueue_get_unique_for_ms: the period chime_enqueue_set_unique_for_ms
 * left.
 * Returns: the period in ms; 0 when none (or opts is NULL).
 * Ownership: none.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int64_t chime_enqueue_get_unique_for_ms(const chime_enqueue *opts);

/*
 * chime_enqueue_set_retry: the run's own retry policy (chime_retry; NULL,
 * the default: its job's, chime_job_set_retry), stored with the run, so
 * that its retries follow it on whichever node its attempts fail.  A
 * policy of 0 or 1 attempts: this run is not retried, whatever its job's.
 * Returns: 0; CHIME_EINVAL (NULL opts); CHIME_ENOMEM.
 * Ownership: policy is copied.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_retry(chime_enqueue *opts,
                                         const chime_retry *policy);

/*
 * chime_enqueue_get_retry: the policy chime_enqueue_set_retry left.
 * Returns: the policy, or NULL when the run follows its job's (or opts
 * is NULL).
 * Ownership: borrowed from opts until it changes or is freed.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN const chime_retry *
chime_enqueue_get_retry(const chime_enqueue *opts);

/*
 * chime_enqueue_set_partition_key: the run's partition key (NULL clears
 * it), counted by its job type's per-partition concurrency limit (a
 * tenant, a customer: chime_trigger_set_partition_key,
 * chime_scheduler_set_limit; docs/queue.md, "Limits").
 * Returns: 0; CHIME_EINVAL (NULL opts, an empty key, bad UTF-8 or a
 * control character); CHIME_ELIMIT (over CHIME_MAX_NAME_LEN);
 * CHIME_ENOMEM.
 * Ownership: key is copied.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN int chime_enqueue_set_partition_key(chime_enqueue *opts,
                                                 const char *key);

/*
 * chime_enqueue_get_partition_key: the key chime_enqueue_set_partition_key
 * left.
 * Returns: the key, or NULL when there is none (or opts is NULL).
 * Ownership: borrowed from opts until it changes or is freed.
 * Thread: any, one thread per options object.
 */
CHIME_EXTERN const char *
chime_enqueue_get_partition_key(const chime_enqueue *opts);

/* ---------------------------------------------------------- configuration */

/* Log levels; a log callback receives messages at or above its level. */
typedef enum chime_log_level {
  CHIME_LOG_ERROR = 0,
  CHIME_LOG_WARN = 1,
  CHIME_LOG_INFO = 2,
  CHIME_LOG_DEBUG = 3
} chime_log_level;

/*
 * A log callback.  message is borrowed for the call.  Thread: whichever
 * thread logs (the scheduler thread, a worker, or the caller of an API
 * function); it must be thread-safe.  The library never prints by itself.
 */
typedef void (*chime_log_fn)(void *user_data, chime_log_level level,
                             const char *message);

/*
 * A scheduler's configuration, with typed setters.  Defaults:
 *   store URL "memory:" (one process, nothing persisted), or
 *     "mysql://USER:PASSWORD@HOST:PORT/DATABASE[?options]";
 *   scheduler name "chime" (nodes with one name on one database form one
 *     cluster);
 *   instance id: host name + 64 random bits (OpenSSL), unless set;
 *   workers 32 (1 to 1024; with the MySQL store a node opens, as it needs
 *     them, up to workers + 4 database connections (a pool of workers + 3,
 *     at most 64, and one for check-ins), 36 by default: count them
 *     against the server's max_connections);
 *   idle wait 30 000 ms (the longest the loop sleeps with nothing due);
 *   local queue 256 (fires claimed beyond the free workers, 0 to 4096);
 *   batch size: the workers plus the local queue (1 to 1000 triggers
 *     claimed at once);
 *   batch window 0 ms (how early triggers due soon may be claimed);
 *   misfire threshold 60 000 ms (later than this is a misfire);
 *   check-in interval 1 000 ms (clustered stores);
 *   no log callback, level WARN.
 * A configuration is plain data: one thread at a time may use it.
 */
typedef struct chime_config chime_config;

/*
 * chime_config_new: a configuration with the defaults above.
 * Returns: 0; CHIME_EINVAL (NULL ret_config); CHIME_ENOMEM.
 * Ownership: *ret_config is the caller's, freed with chime_config_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_config_new(chime_config **ret_config);

/*
 * chime_config_free: releases a configuration.  NULL is allowed.  A
 * scheduler created from it keeps its own copy.
 * Returns: nothing.
 * Ownership: takes config back from the caller.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN void chime_config_free(chime_config *config);

/*
 * chime_config_set_store_url: where jobs and triggers are kept.  The URL is
 * checked when the scheduler is created (chime_scheduler_new).
 * Returns: 0; CHIME_EINVAL (NULL config, NULL or empty url); CHIME_ELIMIT
 * (longer than 4096 bytes); CHIME_ENOMEM.
 * Ownership: url is copied.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_store_url(chime_config *config,
                                            const char *url);

/*
 * chime_config_set_scheduler_name: the cluster's name: nodes with one name
 * on one database share their jobs and triggers.
 * Returns: 0; CHIME_EINVAL (NULL config, invalid name); CHIME_ELIMIT (over
 * CHIME_MAX_NAME_LEN); CHIME_ENOMEM.
 * Ownership: name is copied.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_scheduler_name(chime_config *config,
                                                 const char *name);

/*
 * chime_config_set_instance_id: this node's id in the cluster, unique among
 * live nodes; NULL restores the automatic id.
 * Returns: 0; CHIME_EINVAL (NULL config, invalid id); CHIME_ELIMIT;
 * CHIME_ENOMEM.
 * Ownership: id is copied.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_instance_id(chime_config *config,
                                              const char *id);

/*
 * chime_config_set_workers: the number of worker threads that run jobs (1
 * to 1024; default 32).  With the MySQL store each node opens, as it needs
 * them, up to this many database connections plus 4 (the loop, callers,
 * the completer, check-ins; the pool of workers + 3 is capped at 64).
 * Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_workers(chime_config *config,
                                          unsigned workers);

/*
 * chime_config_set_local_queue: how many fires a node may claim beyond its
 * free workers, to wait in its local queue for the next free worker (0 to
 * 4096; default 256: claim only for free workers with 0).  A claim then
 * carries up to workers + local queue fires (chime_config_set_batch_size),
 * so a node claims, fires and completes in large batches without as many
 * threads.  The queue's room follows the workers' pace: as many fires as
 * they finished in the last half of the bound below, at most this
 * setting, so jobs slower than the bound keep it near empty.  A queued
 * fire is the node's (claimed and fired): a node that dies with it leaves
 * it to recovery, and cancelling, pausing or FORBID treat it as started.
 * Its wait is bounded: a fire that no worker could start within a
 * check-in interval (at least 250 ms) of entering the queue, past the
 * claim-ahead time and up to 100 ms more, is released to the cluster,
 * which runs it at once on whichever node claims it, as a recovered fire
 * (chime_ctx_is_recovering, its original scheduled time), and the queue
 * has no room until runs end again; a graceful shutdown releases the
 * queued fires at once.  A store no other process shares (memory:) has
 * nobody to release to: it claims for free workers only.
 * Returns: 0; CHIME_EINVAL (NULL config, over 4096).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_local_queue(chime_config *config,
                                              unsigned fires);

/*
 * chime_config_set_idle_wait_ms: the longest the loop sleeps when nothing
 * is due (1 ms to a day).
 * Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_idle_wait_ms(chime_config *config,
                                               int64_t ms);

/*
 * chime_config_set_batch_size: the most triggers claimed at once (1 to
 * 1000); 0 restores the default (the worker count plus the local queue,
 * chime_config_set_local_queue, at most 1000).
 * Returns: 0; CHIME_EINVAL (NULL config, over 1000).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_batch_size(chime_config *config,
                                             unsigned size);

/*
 * chime_config_set_batch_window_ms: how early triggers due soon may be
 * claimed with the ones due now (0 to a day).
 * Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_batch_window_ms(chime_config *config,
                                                  int64_t ms);

/*
 * chime_config_set_claim_ahead_ms: with no batch window, how long before
 * their time fires are claimed and fired (0 to 1000, default 20): the claim
 * commits ahead, and a worker starts each run at its scheduled time, so
 * that runs start on time rather than one claim transaction late.  The
 * node claims when the next fire is this time away and takes the fires due
 * within this time and up to 100 ms more, half its free places (workers
 * and local queue) and 64 fires at most, while it has 16 workers or more,
 * holds fewer than 64 fires and has 16 free places or more (otherwise as
 * much again, at most 20 ms more: a far claim would take fires the other
 * nodes, or its own busy workers, could not start sooner), so
 * that at a moderate rate one claim carries a tenth of a second of fires;
 * a fire is therefore claimed up to this time and 100 ms before it is due
 * (none ahead with 0).  A fire claimed ahead is the
 * node's from its claim: pausing its trigger or job in those milliseconds does
 * not stop it, and a node that dies before the run starts leaves it to recovery
 * like a running fire.  0: claim fires only once they are due.  Ignored while a
 * batch window is set (claims are then fired at their time by a second
 * transaction). Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none. Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_claim_ahead_ms(chime_config *config,
                                                 int64_t ms);

/*
 * chime_config_set_misfire_threshold_ms: a fire later than this is a
 * misfire, handled by its trigger's misfire instruction (1 ms to a day).
 * Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_misfire_threshold_ms(chime_config *config,
                                                       int64_t ms);

/*
 * chime_config_set_checkin_interval_ms: how often a node of a clustered
 * store checks in (1 ms to a day); a node is dead after two intervals
 * without one.
 * Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_checkin_interval_ms(chime_config *config,
                                                      int64_t ms);

/*
 * chime_config_add_tag: a tag this node declares (for instance "gpu" or
 * "zone:eu"): it claims the fires and shards of jobs that require it
 * (chime_job_add_required_tag), and the others' whose tags it all has.  A
 * tag is 1 to CHIME_MAX_TAG_LEN characters of [A-Za-z0-9_.:-]; at most
 * CHIME_MAX_TAGS per node; adding one twice is a no-op.  A clustered store
 * records a node's tags with its check-in (chimectl nodes, explain).
 * Returns: 0; CHIME_EINVAL (NULL config, a bad tag); CHIME_ELIMIT (too
 * many tags); CHIME_ENOMEM.
 * Ownership: tag is copied.
 * Thread: any, one thread per config object.
 */
CHIME_EXTERN int chime_config_add_tag(chime_config *config, const char *tag);

/*
 * chime_config_set_cancel_grace_ms: how long a run told to stop (an
 * interrupt, a timeout) may go on before it is reported with
 * CHIME_EVENT_JOB_CANCEL_IGNORED and a warning (0 to a day; default 5000).
 * The report comes at the first check-in after the grace.
 * Returns: 0; CHIME_EINVAL (NULL config, out of range).
 * Ownership: none.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_cancel_grace_ms(chime_config *config,
                                                  int64_t ms);

/*
 * chime_config_set_log: the log callback and the most detailed level it
 * receives; fn NULL: no logging.
 * Returns: 0; CHIME_EINVAL (NULL config, unknown level).
 * Ownership: user_data stays the caller's and is passed back to fn; it must
 * outlive every scheduler created from the configuration.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_log(chime_config *config, chime_log_fn fn,
                                      void *user_data, chime_log_level level);

/*
 * One structured log record: the text and the fields a log pipeline
 * indexes.  Borrowed for the callback's call; read it with the
 * chime_log_record_get_* functions.
 */
typedef struct chime_log_record chime_log_record;

/*
 * A structured log callback: record holds the level, the event, the
 * trigger, job, fire id, node and error code the line is about, and the
 * text (the same text a chime_log_fn receives).  Thread: as chime_log_fn.
 */
typedef void (*chime_log_record_fn)(void *user_data,
                                    const chime_log_record *record);

/*
 * chime_config_set_log_record: the structured log callback and the most
 * detailed level it receives; fn NULL: none.  It is independent of
 * chime_config_set_log: with both set, each line goes to both.
 * Returns: 0; CHIME_EINVAL (NULL config, unknown level).
 * Ownership: user_data stays the caller's and is passed back to fn; it must
 * outlive every scheduler created from the configuration.
 * Thread: any, one thread per configuration.
 */
CHIME_EXTERN int chime_config_set_log_record(chime_config *config,
                                             chime_log_record_fn fn,
                                             void *user_data,
                                             chime_log_level level);

/*
 * chime_log_record_get_level, chime_log_record_get_message,
 * chime_log_record_get_event, chime_log_record_get_trigger_group,
 * chime_log_record_get_trigger_name, chime_log_record_get_job_group,
 * chime_log_record_get_job_name, chime_log_record_get_fire_id,
 * chime_log_record_get_node, chime_log_record_get_error: the record's
 * fields.  event names what happened
 * in upper case ("NODE_DEAD", "STORE_OUTAGE_BEGAN", "TRIGGER_MISFIRED",
 * ... as the listener events are named, "RUN_FAILED" for a failed run,
 * "LOG" for other lines); node is this node's instance id unless the line
 * is about another node (NODE_DEAD).
 * Returns: the field; NULL (strings), 0 (fire id, error) when the line has
 * none or record is NULL; CHIME_LOG_ERROR for a NULL record's level.
 * Ownership: strings borrowed for the callback's call.
 * Thread: the callback's, during the call.
 */
CHIME_EXTERN chime_log_level
chime_log_record_get_level(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_message(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_event(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_trigger_group(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_trigger_name(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_job_group(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_job_name(const chime_log_record *record);
CHIME_EXTERN int64_t
chime_log_record_get_fire_id(const chime_log_record *record);
CHIME_EXTERN const char *
chime_log_record_get_node(const chime_log_record *record);
CHIME_EXTERN int chime_log_record_get_error(const chime_log_record *record);

/* -------------------------------------------------------------- scheduler */

/*
 * A scheduler: one node of a cluster (or all of it, with the memory store).
 * Every chime_scheduler_* function may be called from any thread, also from
 * jobs and listeners, unless its Thread: line says otherwise; calls from
 * several threads at once are safe.
 */
typedef struct chime_scheduler chime_scheduler;
/* The context of one run of a job, handed to the job function. */
typedef struct chime_ctx chime_ctx;

/*
 * A job function.  It runs on one of the scheduler's worker threads, once
 * per fire.  ctx is borrowed for the call.  To report failure, call
 * chime_ctx_fail() before returning.
 */
typedef void (*chime_job_fn)(chime_ctx *ctx, void *user_data);

/* Called once when what it belongs to no longer needs user_data. */
typedef void (*chime_destroy_fn)(void *user_data);

/* Where a scheduler is in its life. */
typedef enum chime_scheduler_state {
  CHIME_SCHEDULER_STANDBY = 0, /* created, or put in standby: not firing */
  CHIME_SCHEDULER_STARTED = 1, /* firing */
  CHIME_SCHEDULER_SHUTDOWN = 2 /* shut down: only chime_scheduler_free */
} chime_scheduler_state;

/*
 * chime_scheduler_new: creates a scheduler in standby: it opens the store
 * (for MySQL: connects, checks the schema) but fires nothing until
 * chime_scheduler_start().  errbuf (may be NULL) receives why it failed; it
 * is emptied on success.
 * Returns: 0; CHIME_EINVAL (NULL config or ret_scheduler; a store URL
 * parameter unknown or of the wrong form, errbuf naming the key: see
 * docs/schema.md); CHIME_EURL (malformed store URL); CHIME_ECONNECT;
 * CHIME_EAUTH; CHIME_ESCHEMA; CHIME_EDUPNODE (a live node has the
 * instance id); CHIME_EUNSUPPORTED (a store this build lacks); CHIME_EIO
 * (no randomness for the instance id); CHIME_ENOMEM.
 * Ownership: config is read and may be freed at once; *ret_scheduler is the
 * caller's, freed with chime_scheduler_free().  errbuf is the caller's;
 * always NUL-terminated when errbuf_len > 0.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_new(const chime_config *config,
                                     chime_scheduler **ret_scheduler,
                                     char *errbuf, size_t errbuf_len);

/*
 * chime_scheduler_errmsg: the detail of the calling thread's last failed
 * call on scheduler, e.g. "chime_scheduler_add_job: a job added without a
 * trigger must be durable", or "" when no call of this thread on it has
 * failed.  A call that succeeds leaves the detail of the last failure.
 * The detail is kept with the scheduler, per thread: calls other threads
 * make on scheduler, failed or not, never change what this thread reads,
 * and a failure on another scheduler does not replace it, however many
 * schedulers the thread uses (a scheduler keeps the detail of the last 64
 * threads that failed a call on it).  A failure
 * before there is a handle (chime_scheduler_new) reports through errbuf
 * instead.
 * Returns: the message; "" for a NULL scheduler.
 * Ownership: borrowed, valid until the calling thread's next call on a
 * chime_scheduler.  Never free it.
 * Thread: any.
 */
CHIME_EXTERN const char *
chime_scheduler_errmsg(const chime_scheduler *scheduler);

/*
 * chime_scheduler_register_job_type: on this node, runs fn for every fire
 * of a job whose type is `type`.  A node claims only fires of the types it
 * registered, so nodes may differ in what they run.  This registers code,
 * in this process only: nothing is stored (compare chime_scheduler_add_job,
 * which stores a job for the whole cluster).  Registering a type again
 * replaces its function (the old destroy function runs once no run of it is
 * left).  Works in standby and while started.
 * Returns: 0; CHIME_EINVAL (NULL scheduler or fn, invalid type);
 * CHIME_ELIMIT; CHIME_ESHUTDOWN; CHIME_ENOMEM.
 * Ownership: type is copied; user_data stays the caller's; destroy (may be
 * NULL) is called with it exactly once: when replaced, or at
 * chime_scheduler_free(); not when this call fails.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_register_job_type(chime_scheduler *scheduler,
                                                   const char *type,
                                                   chime_job_fn fn,
                                                   void *user_data,
                                                   chime_destroy_fn destroy);

/*
 * chime_scheduler_start: starts (or resumes from standby) firing, on the
 * scheduler's own thread and worker pool.  Triggers whose time passed while
 * in standby are handled by their misfire instruction.  Starting a started
 * scheduler does nothing.
 * Returns: 0; CHIME_EINVAL (NULL); CHIME_ESHUTDOWN; CHIME_ESTATE (attached
 * and already started: see chime-uv.h); CHIME_ENOMEM (no threads);
 * CHIME_EINTERNAL (libuv refused).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_start(chime_scheduler *scheduler);

/*
 * chime_scheduler_standby: stops firing; runs in progress go on and claims
 * not yet fired are given back.  Start again with chime_scheduler_start().
 * Returns: 0; CHIME_EINVAL (NULL); CHIME_ESHUTDOWN.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_standby(chime_scheduler *scheduler);

/* chime_scheduler_shutdown's deadline_ms that returns at once, the running
 * jobs finishing in the background (not told to stop). */
#define CHIME_SHUTDOWN_NO_WAIT INT64_C(-2)
/* chime_scheduler_shutdown's deadline_ms that waits for every running job
 * however long it runs (not told to stop). */
#define CHIME_SHUTDOWN_WAIT_FOREVER INT64_C(-1)

/*
 * chime_scheduler_shutdown: stops claiming for good and releases the claims
 * of fires that have not started (a fire claimed ahead of its time is not
 * started either).  A stopping node is not a dead one: until its last
 * run's completion is written it goes on checking in, so no other node of
 * a cluster takes over a fire it still runs (docs/cluster.md).
 * Idempotent.  What it does with the running jobs, by deadline_ms:
 * - CHIME_SHUTDOWN_WAIT_FOREVER: returns only after every running job
 *   returned and its completion was written.
 * - CHIME_SHUTDOWN_NO_WAIT: returns at once; those runs finish in the
 *   background and chime_scheduler_free waits for them.
 * - 0 to 86 400 000 (a day): tells the running jobs to stop
 *   (chime_ctx_is_cancelled() turns true for them) and waits at most
 *   deadline_ms for them to return and for their completions to be
 *   written, checking in meanwhile (its fires stay its own).  A run that
 *   returns after it was told (chime_ctx_is_cancelled() or
 *   chime_ctx_wait_cancelled() said so) was cut short: it is not recorded
 *   OK but handed to the cluster, which runs it again on another node when
 *   its job requests recovery, or records it CANCELLED ("cut short by the
 *   shutdown").  A job that never asked ran to its end and is completed as
 *   usual.  When the deadline passes first, the node hands every fire it
 *   still holds to the cluster at once, in one transaction (the same way:
 *   run again elsewhere, or recorded), logs each, leaves the cluster, and
 *   never completes them, even when a job returns later.  This call and
 *   chime_scheduler_free() then return within deadline_ms plus about a
 *   second (the hand-over waits for the database at most 1 s), also when
 *   a job ignores the cancellation: its thread is left running until the
 *   job returns (chime then frees what is left) or the process exits.  The
 *   host must then not free or unload anything such a job still uses (its
 *   user_data, the log callback's, the library), and should exit the
 *   process soon; see docs/embedding.md "Teardown".  deadline_ms 0 waits
 *   for nothing.  Without a clustered store (memory) a cut run is recorded
 *   CANCELLED.
 * Returns: 0 (everything finished in time; always with
 * CHIME_SHUTDOWN_WAIT_FOREVER and CHIME_SHUTDOWN_NO_WAIT); CHIME_ETIMEDOUT
 * (the deadline passed; fires handed to the cluster); CHIME_EINVAL (NULL,
 * deadline_ms another negative value or over 86 400 000); CHIME_ESTATE (a
 * deadline given by a job of this scheduler: it cannot wait for itself;
 * the shutdown is done all the same, and the node checks in until its last
 * run returned).
 * Ownership: none.
 * Thread: any; a job may shut down its own scheduler, but does not wait
 * for running jobs (itself among them): with CHIME_SHUTDOWN_WAIT_FOREVER it
 * returns 0 without waiting, with a deadline CHIME_ESTATE.
 */
CHIME_EXTERN int chime_scheduler_shutdown(chime_scheduler *scheduler,
                                          int64_t deadline_ms);

/*
 * chime_scheduler_free: shuts down (waiting for running jobs) if needed and
 * frees everything; calls the destroy functions of job types and listeners.
 * After a chime_scheduler_shutdown() whose deadline passed, it does not
 * wait for jobs that ignore the cancellation: it returns, and the last of
 * them to return frees the rest (see chime_scheduler_shutdown).
 * NULL is allowed.
 * Returns: nothing.
 * Ownership: takes scheduler back from the caller; every pointer borrowed
 * from it (names, errmsg) dies with it.
 * Thread: not a worker and not a listener of this scheduler.
 */
CHIME_EXTERN void chime_scheduler_free(chime_scheduler *scheduler);

/*
 * chime_scheduler_get_state: where the scheduler is in its life.
 * Returns: the state; CHIME_SCHEDULER_SHUTDOWN for NULL.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN chime_scheduler_state
chime_scheduler_get_state(const chime_scheduler *scheduler);

/*
 * chime_scheduler_get_name, chime_scheduler_get_instance_id: the cluster's
 * name and this node's id (the configured one, or the automatic
 * "HOST-XXXXXXXXXXXXXXXX").
 * Returns: the string; NULL for NULL.
 * Ownership: borrowed, lives as long as the scheduler.
 * Thread: any.
 */
CHIME_EXTERN const char *
chime_scheduler_get_name(const chime_scheduler *scheduler);
CHIME_EXTERN const char *
chime_scheduler_get_instance_id(const chime_scheduler *scheduler);

/*
 * chime_scheduler_get_running_jobs: how many job runs are in progress on
 * this node.
 * Returns: the count; 0 for NULL.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN unsigned
chime_scheduler_get_running_jobs(const chime_scheduler *scheduler);

/*
 * Jobs and triggers in the store.  Keys are (group, name).  Every call
 * below may also return CHIME_EINVAL for a NULL scheduler or an invalid
 * key, CHIME_ESHUTDOWN once shut down, and a store error (CHIME_ESTORE,
 * CHIME_ECONNECT, CHIME_EBUSY, ...); the detail of a failure is
 * chime_scheduler_errmsg(scheduler).  They may block on the store's
 * database, and are not meant for a host's loop thread.
 */

/*
 * chime_scheduler_add_job: stores a job definition for the cluster
 * (replace: overwrite one with the same key, keeping its triggers).  A job
 * added without a trigger must be durable, as in Quartz.
 * Returns: 0; CHIME_EEXISTS (the key is taken and not replace);
 * CHIME_EINVAL (NULL job, not durable without replace).
 * Ownership: job is copied.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_add_job(chime_scheduler *scheduler,
                                         const chime_job *job, bool replace);

/*
 * chime_scheduler_remove_job: removes the job and all its triggers.
 * Returns: 0; CHIME_ENOTFOUND (no such job).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_remove_job(chime_scheduler *scheduler,
                                            const char *group,
                                            const char *name);

/*
 * chime_scheduler_get_job: a copy of the stored job.
 * Returns: 0; CHIME_ENOTFOUND; CHIME_EINVAL (NULL ret_job); CHIME_ENOMEM.
 * Ownership: *ret_job is the caller's, freed with chime_job_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_get_job(chime_scheduler *scheduler,
                                         const char *group, const char *name,
                                         chime_job **ret_job);

/*
 * chime_scheduler_run_job: runs the job once now, on whichever node claims
 * it (Quartz's triggerJob); data (may be NULL) overrides the job's data
 * for that run.  Without a request key (NULL) the run is a one-off
 * trigger in the group "MANUAL_TRIGGER" under a random name, and the call
 * is not idempotent: retried after an error whose effect is unknown (a
 * lost connection, the reply of its COMMIT lost, a timeout) it may run the
 * job twice.  With request_key the run is the enqueued run of the job
 * with that unique key (chime_scheduler_enqueue), and while a run with the
 * key waits or runs nothing new is stored: generate the key once per
 * intended run (a UUID, the id of the request that asked for it) and
 * reuse it for every retry of that call.
 * Returns: 0 (the run was stored); CHIME_ENQUEUE_EXISTED (request_key's
 * run waits or runs: nothing was stored); CHIME_ENOTFOUND (no such job);
 * CHIME_EINVAL (an invalid key or request key, NULL data with len > 0);
 * CHIME_ELIMIT (data over CHIME_MAX_DATA_LEN, a request key over
 * CHIME_MAX_UNIQUE_KEY_LEN); CHIME_ESHUTDOWN; the store's errors.
 * Ownership: data and the strings are copied.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_run_job(chime_scheduler *scheduler,
                                         const char *group, const char *name,
                                         const void *data, size_t len,
                                         const char *request_key);

/*
 * chime_scheduler_enqueue: hands in one run of the stored job (group,
 * name) with the options opts (NULL: the defaults of chime_enqueue_new):
 * a one-off trigger in CHIME_QUEUE_GROUP, due at the options' time, that
 * whichever node runs the job's type claims; docs/queue.md.  Its name
 * goes to ret_run (may be NULL; run_len bytes, CHIME_RUN_NAME_LEN holds
 * any): with CHIME_QUEUE_GROUP it is the trigger key to look the run up
 * (chime_scheduler_get_trigger, history) or cancel it
 * (chime_scheduler_unschedule while it waits, chime_scheduler_interrupt
 * of the job while it runs).  With a unique key and a run with that key
 * waiting or running, nothing is stored and ret_run names that run.
 * Returns: 0 (stored); CHIME_ENQUEUE_EXISTED (the key's run existed);
 * CHIME_ENOTFOUND (no such job); CHIME_EINVAL (an invalid key, run_len 0
 * with ret_run); CHIME_ELIMIT (run_len too short for the name: the run was
 * stored or existed all the same); CHIME_ESHUTDOWN; the store's errors.
 * Ownership: opts is read for the call.  ret_run is the caller's.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_enqueue(chime_scheduler *scheduler,
                                         const char *group, const char *name,
                                         const chime_enqueue *opts,
                                         char *ret_run, size_t run_len);

/*
 * chime_scheduler_enqueue_many: chime_scheduler_enqueue of count runs of
 * the job (group, name), opts[i] the options of run i (NULL entries: the
 * defaults), in one step: one transaction and one multi-row INSERT per
 * batch with the MySQL store (a batch is at most 1000 runs, and 4 MiB of
 * run data; more are handed in batch after batch), all of a batch or none.
 * ret_results (may be NULL; count entries) receives 0 (stored) or
 * CHIME_ENQUEUE_EXISTED per run (a key given twice in one call: the later ones
 * existed); ret_runs (may be NULL; count * run_len bytes) the name of run i at
 * ret_runs + i * run_len.
 * Returns: the number of runs stored (0 to count); CHIME_EINVAL (NULL
 * opts with count > 0, an invalid key, options that enqueue refuses);
 * CHIME_ENOTFOUND (no such job); CHIME_ELIMIT (run_len too short);
 * CHIME_ESHUTDOWN; the store's errors: the runs of the earlier batches
 * stay stored, and ret_results tells which.
 * Ownership: opts are read for the call.  The buffers are the caller's.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_enqueue_many(chime_scheduler *scheduler,
                                              const char *group,
                                              const char *name,
                                              const chime_enqueue *const *opts,
                                              size_t count, int *ret_results,
                                              char *ret_runs, size_t run_len);

/*
 * chime_scheduler_interrupt: asks every running fire of the job (group,
 * name) to stop, on whichever node of the cluster runs it (Quartz's
 * interrupt(JobKey)).  A run on this node is told at once; one on another
 * node at that node's next check-in (chime_config_set_checkin_interval_ms).
 * The job sees it with chime_ctx_is_cancelled() or
 * chime_ctx_wait_cancelled(); when it returns, the run is recorded
 * CANCELLED with the error CHIME_ECANCELLED.  *ret_count (may be NULL)
 * receives how many running fires were asked (0 when none runs).
 * Returns: 0; CHIME_EINVAL (an invalid key); CHIME_ESHUTDOWN; the store's
 * errors.
 * Ownership: group and name are borrowed for the call.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_interrupt(chime_scheduler *scheduler,
                                           const char *group, const char *name,
                                           size_t *ret_count);

/*
 * chime_scheduler_interrupt_fire: chime_scheduler_interrupt for the one
 * fire fire_id (chime_ctx_get_fire_id(); Quartz's
 * interrupt(fireInstanceId)), on whichever node runs it.
 * Returns: 0; CHIME_ENOTFOUND (no such fire is running); CHIME_EINVAL
 * (fire_id not positive); CHIME_ESHUTDOWN; the store's errors.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_interrupt_fire(chime_scheduler *scheduler,
                                                int64_t fire_id);

/*
 * Draining a node (docs/operations.md, "A maintenance window"): a node
 * asked to drain stops claiming fires (those due within the claim-ahead
 * time too), lets its runs finish and, once it runs nothing, says so: its
 * state becomes CHIME_NODE_DRAINED.  With a timeout, the runs still going
 * when it passes are handed to the cluster as a stopping node hands them
 * over (run again elsewhere when the job requests recovery, else recorded
 * CANCELLED; the run here is asked to stop and its completion refused).
 * The node learns of a request at its next check-in
 * (chime_config_set_checkin_interval_ms).  The request is kept apart from
 * the node's own row: a node restarted under the same instance id stays
 * drained until it is undrained.  A clustered store (MySQL) is drained
 * from outside too (chimectl, chime-web, another node), and records every
 * request in its audit table.  A memory store's cluster is its one
 * scheduler: it drains through these calls alone, records nothing, keeps
 * no request past the process, and a fire its timeout hands over runs
 * nowhere else (recorded CANCELLED).
 */
typedef enum chime_node_state {
  CHIME_NODE_ACTIVE = 0,   /* claims fires */
  CHIME_NODE_DRAINING = 1, /* claims nothing; runs still going */
  CHIME_NODE_DRAINED = 2   /* claims nothing and runs nothing */
} chime_node_state;

/*
 * chime_scheduler_drain: asks node instance_id of the cluster (NULL: this
 * scheduler's own) to drain; timeout_ms (0: none) is how long it may
 * finish its runs before it hands the rest over.  Asking again sets a new
 * timeout from now.
 * Returns: 0; CHIME_ENOTFOUND (no such node is in the cluster; on the
 * memory store, an id not this scheduler's); CHIME_EINVAL (a negative
 * timeout, an invalid id); CHIME_ESHUTDOWN; the store's errors.
 * Ownership: instance_id is borrowed for the call.
 * Thread: any (one round trip to the database).
 */
CHIME_EXTERN int chime_scheduler_drain(chime_scheduler *scheduler,
                                       const char *instance_id,
                                       int64_t timeout_ms);

/*
 * chime_scheduler_undrain: ends the drain of node instance_id (NULL: this
 * scheduler's own): it claims fires again from its next check-in.
 * Returns: 0; CHIME_ENOTFOUND (the node is not drained); CHIME_EINVAL;
 * CHIME_ESHUTDOWN; the store's errors.
 * Ownership: instance_id is borrowed for the call.
 * Thread: any (one round trip to the database).
 */
CHIME_EXTERN int chime_scheduler_undrain(chime_scheduler *scheduler,
                                         const char *instance_id);

/*
 * chime_scheduler_node_state: *ret_state gets node instance_id's (NULL:
 * this scheduler's own) drain state as the store has it:
 * CHIME_NODE_ACTIVE when no drain was asked, CHIME_NODE_DRAINING until
 * the node said it runs nothing, then CHIME_NODE_DRAINED.
 * Returns: 0; CHIME_EINVAL (NULL ret_state, an invalid id);
 * CHIME_ESHUTDOWN; the store's errors.
 * Ownership: instance_id is borrowed for the call.
 * Thread: any (one round trip to the database).
 */
CHIME_EXTERN int chime_scheduler_node_state(chime_scheduler *scheduler,
                                            const char *instance_id,
                                            chime_node_state *ret_state);

/* Flags of chime_scheduler_schedule (Quartz's replace, APScheduler's
 * replace_existing). */
typedef enum chime_schedule_flags {
  /* A job or trigger with the same key is replaced (one step). */
  CHIME_SCHEDULE_REPLACE = 1u << 0,
  /* What exists is kept as it is and only what is missing is added: the
   * start-up pattern of a replicated server, where every node schedules
   * the same jobs, each getting 0. */
  CHIME_SCHEDULE_IF_ABSENT = 1u << 1,
} chime_schedule_flags;

/*
 * chime_scheduler_schedule: adds a trigger for an existing job (named with
 * chime_trigger_set_job); job may be non-NULL to add the job in the same
 * step (Quartz's scheduleJob(job, trigger)).  *ret_first_fire_ms (may be
 * NULL) receives the first fire time.  flags (0: none):
 * CHIME_SCHEDULE_REPLACE replaces a stored job and trigger of the same
 * keys in one step (the trigger must fire that job);
 * CHIME_SCHEDULE_IF_ABSENT adds the job when no job has its key and the
 * trigger when no trigger has its key, keeping whatever is stored
 * unchanged; *ret_first_fire_ms is then the stored trigger's next fire
 * time when it existed.  Concurrent callers (other threads or nodes) with
 * the same job and trigger each get 0, one copy is stored.
 * Returns: 0; CHIME_EEXISTS (without a flag: the trigger's key, or the
 * job's, is taken); CHIME_ENOTFOUND (an unknown job or calendar);
 * CHIME_ENEVERFIRES (the trigger would never fire); CHIME_EINVAL (NULL
 * trigger, no job named, an invalid schedule: chime_scheduler_errmsg says
 * which part; unknown flags or both flags together).
 * Ownership: job and trigger are copied.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_schedule(chime_scheduler *scheduler,
                                          const chime_job *job,
                                          const chime_trigger *trigger,
                                          unsigned flags,
                                          int64_t *ret_first_fire_ms);

/*
 * chime_scheduler_unschedule: removes a trigger; a non-durable job left
 * without triggers goes too.
 * Returns: 0; CHIME_ENOTFOUND (no such trigger).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_unschedule(chime_scheduler *scheduler,
                                            const char *group,
                                            const char *name);

/*
 * chime_scheduler_reschedule: replaces the trigger with key (group, name)
 * by a new definition for the same job; *ret_first_fire_ms (may be NULL)
 * receives its first fire time.
 * Returns: 0; CHIME_ENOTFOUND (no such trigger, an unknown calendar);
 * CHIME_ENEVERFIRES; CHIME_EINVAL (NULL trigger, an invalid schedule).
 * Ownership: trigger is copied.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_reschedule(chime_scheduler *scheduler,
                                            const char *group, const char *name,
                                            const chime_trigger *trigger,
                                            int64_t *ret_first_fire_ms);

/* The group of the one-shot triggers a backfill creates, and their
 * priority (below the default 5, so live fires due with them go first). */
#define CHIME_BACKFILL_GROUP "CHIME_BACKFILL"
#define CHIME_BACKFILL_PRIORITY 1

/*
 * chime_trigger_get_fire_time_after: the first fire time of trigger's schedule
 * strictly after after_ms (its jitter applied, its calendar not consulted;
 * cron and recurrence triggers, and triggers without a start time, are
 * not bounded by their start: what a backfill needs).
 * Returns: 0; CHIME_EINVAL (NULL argument, an invalid schedule);
 * CHIME_ENEVERFIRES (none).
 * Ownership: none.
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_get_fire_time_after(const chime_trigger *trigger,
                                                   int64_t after_ms,
                                                   int64_t *ret_ms);

/*
 * chime_trigger_backfill_new: the one-shot trigger that runs trigger's fire
 * at scheduled_ms again (what chime_scheduler_backfill stores): in group
 * CHIME_BACKFILL_GROUP, named "bf-<hash of trigger's key>-<scheduled_ms>"
 * (the same name on every node), for trigger's job and with its data,
 * starting at scheduled_ms with misfire IGNORE and priority
 * CHIME_BACKFILL_PRIORITY.  release_ms later than scheduled_ms releases
 * (fires) it then instead, the fire still reporting scheduled_ms as its
 * scheduled time (context, history): what a paced backfill stores, and
 * chimectl backfill --pace; 0 (or any time up to scheduled_ms): at once.
 * Returns: 0; CHIME_EINVAL (NULL argument, no job named); CHIME_ENOMEM.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * Thread: any, one thread per trigger object.
 */
CHIME_EXTERN int chime_trigger_backfill_new(const chime_trigger *trigger,
                                            int64_t scheduled_ms,
                                            int64_t release_ms,
                                            chime_trigger **ret_trigger);

/* The longest pace between a paced backfill's fires (a day). */
#define CHIME_BACKFILL_MAX_PACE_MS INT64_C(86400000)

/*
 * chime_scheduler_backfill: runs the fires of the trigger (group, name) in
 * [from_ms, to_ms] again, each as a durable one-shot trigger in group
 * CHIME_BACKFILL_GROUP with its original scheduled time (misfire IGNORE:
 * it fires at once, on exactly one node of the cluster, and the job's
 * context says chime_ctx_is_backfill; history shows the group).  They are
 * throttled by taking priority CHIME_BACKFILL_PRIORITY and at most one
 * worker each.  Concurrent backfills of the same range (threads, nodes)
 * create each fire once; a backfill asked again after its fires ran runs
 * them again.  The trigger's calendar is not consulted.  At most
 * max_fires are created; *ret_created (may be NULL) says how many.
 * pace_ms > 0 throttles them to a pace: the k-th fire of the range (k = 0,
 * 1, ...) is released no earlier than now + k * pace_ms, so at most one
 * fire per pace_ms starts, across the whole cluster (the release times are
 * the stored triggers' own, so the pace survives restarts), and
 * chime_scheduler_backfill_cancel stops the rest; each fire still reports
 * its original scheduled time (chime_ctx_get_scheduled_ms, the history).
 * pace_ms 0: no pace.
 * Returns: 0; CHIME_ENOTFOUND (no such trigger); CHIME_ELIMIT (more than
 * max_fires in the range: the first max_fires are created); CHIME_EINVAL
 * (NULL argument, from_ms > to_ms, max_fires 0, pace_ms outside
 * 0..CHIME_BACKFILL_MAX_PACE_MS).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_backfill(chime_scheduler *scheduler,
                                          const char *group, const char *name,
                                          int64_t from_ms, int64_t to_ms,
                                          size_t max_fires, int64_t pace_ms,
                                          size_t *ret_created);

/*
 * chime_scheduler_backfill_cancel: removes the backfill fires of trigger
 * (group, name) that have not fired yet (a running one finishes).
 * Returns: 0; CHIME_EINVAL (NULL argument); a store error.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_backfill_cancel(chime_scheduler *scheduler,
                                                 const char *group,
                                                 const char *name,
                                                 size_t *ret_removed);

/*
 * chime_scheduler_set_limit: limits the runs of job type job_type across
 * the cluster (docs/queue.md, "Limits"), kept in the store so that every
 * node applies the same figures: at most max_running runs at a time (0:
 * no limit), at most max_per_partition of them with the same partition key
 * (chime_trigger_set_partition_key; 0: no limit), and at most rate_count
 * starts per rate_period_ms, smoothed (one start every
 * rate_period_ms / rate_count, a burst of one more; 0 and 0: no rate
 * limit).  A fire over a limit is not claimed: it waits, oldest first, and
 * is late, never misfired.  Setting replaces these figures of the type's
 * earlier limit (the per-partition rate and data field of
 * chime_scheduler_set_partition_limit stay); every node applies a change
 * within a second.
 * Returns: 0; CHIME_EINVAL (NULL scheduler, bad job type, a negative
 * figure, only one of rate_count and rate_period_ms, all figures 0);
 * CHIME_ESHUTDOWN; the store's errors.
 * Ownership: job_type is copied.
 * Thread: any.
 */
CHIME_EXTERN int
chime_scheduler_set_limit(chime_scheduler *scheduler, const char *job_type,
                          int max_running, int max_per_partition,
                          int rate_count, int64_t rate_period_ms);

/*
 * chime_scheduler_get_limit: the limit of job_type as set; each ret_ may
 * be NULL.
 * Returns: 0; CHIME_ENOTFOUND (the type has none); CHIME_EINVAL;
 * CHIME_ESHUTDOWN; the store's errors.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int
chime_scheduler_get_limit(chime_scheduler *scheduler, const char *job_type,
                          int *ret_max_running, int *ret_max_per_partition,
                          int *ret_rate_count, int64_t *ret_rate_period_ms);

/*
 * chime_scheduler_set_partition_limit: the per-partition half of job_type's
 * limit (docs/queue.md, "Limits"), beside the type's own figures that
 * chime_scheduler_set_limit sets (it creates the limit when the type has
 * none): at most max_per_partition runs at a time with one partition key
 * (the same figure as set_limit's; 0: no limit), at most rate_count
 * starts per rate_period_ms of each partition key, smoothed like the
 * type's rate and judged by the database's clock (0 and 0: none), and
 * data_field: the top-level member of a run's JSON data its partition key
 * is taken from when it is stored (enqueued, run by
 * chime_scheduler_run_job, scheduled) without one (NULL: none).  Data that
 * is not a JSON object, has no such member, or whose member is not a
 * string or a number: the run has no partition key.  Setting replaces the
 * earlier per-partition half (a changed rate starts afresh) and leaves the
 * type's own figures; every node applies it within a second; a key is
 * taken from the data of runs stored after it.
 * Returns: 0; CHIME_EINVAL (NULL scheduler, bad job type or field, a
 * negative figure, only one of rate_count and rate_period_ms);
 * CHIME_ESHUTDOWN; the store's errors.
 * Ownership: job_type and data_field are copied.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_set_partition_limit(
    chime_scheduler *scheduler, const char *job_type, const char *data_field,
    int max_per_partition, int rate_count, int64_t rate_period_ms);

/*
 * chime_scheduler_get_partition_limit: the per-partition half of job_type's
 * limit as set: the data field into ret_field ("" for none; field_len
 * bytes, CHIME_MAX_NAME_LEN + 1 always suffice), max_per_partition and the
 * partition's rate (0 and 0: none); each ret_ may be NULL (ret_field with
 * field_len 0).
 * Returns: 0; CHIME_ENOTFOUND (the type has no limit); CHIME_EINVAL;
 * CHIME_ELIMIT (field_len too short); CHIME_ESHUTDOWN; the store's errors.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_get_partition_limit(
    chime_scheduler *scheduler, const char *job_type, char *ret_field,
    size_t field_len, int *ret_max_per_partition, int *ret_rate_count,
    int64_t *ret_rate_period_ms);

/*
 * chime_scheduler_clear_limit: removes the limit of job_type (both halves);
 * its waiting fires are claimed as any other.
 * Returns: 0; CHIME_ENOTFOUND (the type had none); CHIME_EINVAL;
 * CHIME_ESHUTDOWN; the store's errors.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_clear_limit(chime_scheduler *scheduler,
                                             const char *job_type);

/*
 * chime_scheduler_get_trigger: a copy of the stored trigger with its state
 * (next and previous fire, times triggered, status).
 * Returns: 0; CHIME_ENOTFOUND; CHIME_EINVAL (NULL ret_trigger);
 * CHIME_ENOMEM.
 * Ownership: *ret_trigger is the caller's, freed with chime_trigger_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_get_trigger(chime_scheduler *scheduler,
                                             const char *group,
                                             const char *name,
                                             chime_trigger **ret_trigger);

/*
 * chime_scheduler_get_trigger_status: the trigger's status;
 * CHIME_TRIGGER_NONE when there is no such trigger.
 * Returns: 0; CHIME_EINVAL (NULL ret_status).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int
chime_scheduler_get_trigger_status(chime_scheduler *scheduler,
                                   const char *group, const char *name,
                                   chime_trigger_status *ret_status);

/* How a group name is matched when listing, pausing or resuming. */
typedef enum chime_match {
  CHIME_MATCH_EQUALS = 0,
  CHIME_MATCH_STARTS_WITH = 1,
  CHIME_MATCH_ENDS_WITH = 2,
  CHIME_MATCH_CONTAINS = 3,
  CHIME_MATCH_ANY = 4 /* every group; the pattern is ignored */
} chime_match;

/* A job or trigger key in a list. */
typedef struct chime_key {
  char *group;
  char *name;
} chime_key;

/*
 * chime_scheduler_list_jobs, chime_scheduler_list_triggers: the keys whose
 * group matches pattern under match, sorted by group then name.
 * Returns: 0; CHIME_EINVAL (an unknown match, NULL pattern for another
 * match than ANY, NULL out-parameter); CHIME_ELIMIT (pattern over
 * CHIME_MAX_NAME_LEN); CHIME_ENOMEM.
 * Ownership: *ret_keys is the caller's, freed with chime_key_free_array(keys,
 * count).
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_list_jobs(chime_scheduler *scheduler,
                                           chime_match match,
                                           const char *pattern,
                                           chime_key **ret_keys,
                                           size_t *ret_count);
CHIME_EXTERN int chime_scheduler_list_triggers(chime_scheduler *scheduler,
                                               chime_match match,
                                               const char *pattern,
                                               chime_key **ret_keys,
                                               size_t *ret_count);

/*
 * chime_key_free_array: releases a list of count keys.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes keys back from the caller.
 * Thread: any.
 */
CHIME_EXTERN void chime_key_free_array(chime_key *keys, size_t count);

/*
 * Pausing.  A paused trigger does not fire; when resumed, a time it missed
 * is handled by its misfire instruction.  Pausing a job pauses its
 * triggers; pausing a group of triggers also pauses triggers added to a
 * matching group later, until the group is resumed (Quartz's rule); pause
 * all pauses every group.
 */

/*
 * chime_scheduler_pause_trigger, chime_scheduler_resume_trigger: one
 * trigger; chime_scheduler_pause_job, chime_scheduler_resume_job: every
 * trigger of one job.
 * Returns: 0; CHIME_ENOTFOUND (no such trigger or job).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_pause_trigger(chime_scheduler *scheduler,
                                               const char *group,
                                               const char *name);
CHIME_EXTERN int chime_scheduler_resume_trigger(chime_scheduler *scheduler,
                                                const char *group,
                                                const char *name);
CHIME_EXTERN int chime_scheduler_pause_job(chime_scheduler *scheduler,
                                           const char *group, const char *name);
CHIME_EXTERN int chime_scheduler_resume_job(chime_scheduler *scheduler,
                                            const char *group,
                                            const char *name);

/*
 * chime_scheduler_pause_triggers, chime_scheduler_resume_triggers: the
 * trigger groups matching pattern under match, now and (pause) later.
 * Returns: 0 (also when nothing matches); CHIME_EINVAL (an unknown match,
 * NULL pattern for another match than ANY); CHIME_ELIMIT.
 * Ownership: pattern is copied where it is kept.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_pause_triggers(chime_scheduler *scheduler,
                                                chime_match match,
                                                const char *pattern);
CHIME_EXTERN int chime_scheduler_resume_triggers(chime_scheduler *scheduler,
                                                 chime_match match,
                                                 const char *pattern);

/*
 * chime_scheduler_pause_all, chime_scheduler_resume_all: every trigger
 * group.
 * Returns: 0.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_pause_all(chime_scheduler *scheduler);
CHIME_EXTERN int chime_scheduler_resume_all(chime_scheduler *scheduler);

/*
 * chime_scheduler_reload_zones: reads again the zoneinfo file of every
 * time zone the process has loaded and, for each zone whose rules changed
 * (a tzdata update), recomputes the next fire of this scheduler's triggers
 * in that zone (cron, calendar-interval, daily-time-interval, recurrence)
 * or naming a calendar that reads time in it, from their previous fire
 * with the new rules; a fire the new rules put in
 * the past is due at once and its misfire instruction applies.  A trigger
 * claimed or firing right now computes its next fire with the new rules
 * when it fires.  Without this call a running scheduler notices a changed
 * file at its check-ins (the file's inode, size and modification time are
 * compared every check-in interval, at most once a second); every node of
 * a cluster does so on its own, and the recompute is idempotent, so nodes
 * agree once each has read the same file (docs/operations.md, "tzdata
 * updates").
 * Returns: how many zones' rules changed since this scheduler last
 * recomputed (0: none); CHIME_ESHUTDOWN; CHIME_ENOMEM; a store error
 * (then the next check-in tries again).
 * Ownership: none.
 * Thread: any but a job's or a listener's (it waits for the store).
 */
CHIME_EXTERN int chime_scheduler_reload_zones(chime_scheduler *scheduler);

/*
 * chime_scheduler_add_calendar: keeps calendar under name for the triggers
 * that name it.  replace: overwrite an existing one; update_triggers: also
 * recompute the next fire of the triggers that use it.
 * Returns: 0; CHIME_EEXISTS (the name is taken and not replace);
 * CHIME_EINVAL (invalid name, NULL calendar); CHIME_ENOMEM.
 * Ownership: the scheduler keeps its own reference; the caller keeps, and
 * frees, its calendar.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_add_calendar(chime_scheduler *scheduler,
                                              const char *name,
                                              const chime_calendar *calendar,
                                              bool replace,
                                              bool update_triggers);

/*
 * chime_scheduler_remove_calendar: forgets a calendar.
 * Returns: 0; CHIME_ENOTFOUND; CHIME_EBUSY (a trigger uses it);
 * CHIME_EINVAL (invalid name).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_remove_calendar(chime_scheduler *scheduler,
                                                 const char *name);

/* ----------------------------------------------------------------- leases */

/*
 * A named lease: ShedLock's lock with database time and fencing.  At most
 * one holder in the whole cluster holds a lease name at a time (in the
 * memory store: in the process).  A lease ends by itself after at_most_ms
 * unless extended, so a holder that dies or stalls never keeps it; it is
 * released early with chime_lease_release, but never before at_least_ms
 * after it was taken (a quick task on several nodes runs once per
 * at_least_ms).  Every instant is the store's clock: the database server's
 * for MySQL (a node whose own clock is wrong, by minutes, decides
 * nothing), the process's for the memory store.
 *
 * Each acquisition has a fencing token (chime_lease_get_token), strictly
 * greater than every earlier token of that name across the cluster, also
 * after release or expiry, and also after the leases table was emptied or
 * restored from an older backup (a token is at least the store's clock in
 * milliseconds times 1000, so tokens are large numbers): pass it to what the
 * holder writes, which then refuses a write carrying a smaller token than one
 * it has seen (a holder paused past at_most_ms and come back is stale).
 *
 * Leases need no trigger, no job type and no started scheduler: a
 * scheduler that was only created (chime_scheduler_new) and never started
 * acquires them, from any thread.  A lease handle is used by one thread
 * at a time (its keep-alive, when on, runs on a thread of its own and is
 * synchronised with it).  Every handle is freed before its scheduler.
 */
typedef struct chime_lease chime_lease;

/* Longest lease accepted (at_most_ms), in milliseconds: 366 days. */
#define CHIME_LEASE_MAX_MS (366 * INT64_C(86400000))

/*
 * chime_lease_acquire: takes lease name when nobody holds it, for at most
 * at_most_ms (> 0) and, once released, at least at_least_ms (0 to
 * at_most_ms) after it was taken.  With wait_ms 0 it returns at once:
 * when the lease is held (elsewhere, or by another handle of this process)
 * it fails with CHIME_EBUSY, and the caller skips its task, as ShedLock
 * does.  With wait_ms > 0, while the lease is held it tries again until it
 * gets it or wait_ms have passed on the monotonic clock.  Names are 1 to
 * CHIME_MAX_NAME_LEN bytes of UTF-8 with no control characters.
 * Returns: 0; CHIME_EBUSY (held, still held once wait_ms passed);
 * CHIME_EINVAL (NULL scheduler, name or ret_lease; an invalid name;
 * at_most_ms <= 0; at_least_ms < 0 or > at_most_ms; wait_ms < 0);
 * CHIME_ELIMIT (at_most_ms or wait_ms > CHIME_LEASE_MAX_MS, a name over
 * CHIME_MAX_NAME_LEN); CHIME_ESHUTDOWN; CHIME_ENOMEM; the store's errors
 * (CHIME_ECONNECT once it reconnected for a check-in interval,
 * CHIME_ESTORE).  chime_scheduler_errmsg says why.
 * Ownership: name is copied; *ret_lease is the caller's, freed with
 * chime_lease_free() before the scheduler is freed.
 * Thread: any, also a worker running a job; it waits for the store (a
 * database round trip) and sleeps on the caller's thread while it waits,
 * so not a host's event-loop thread.
 */
CHIME_EXTERN int chime_lease_acquire(chime_scheduler *scheduler,
                                     const char *name, int64_t at_most_ms,
                                     int64_t at_least_ms, int64_t wait_ms,
                                     chime_lease **ret_lease);

/*
 * chime_lease_get_token: the fencing token of this acquisition: >= 1, strictly
 * greater than the token of every earlier acquisition of the same name in
 * the same store (cluster), whatever the leases table holds: at least the
 * store's clock (epoch milliseconds) times 1000 at the acquisition.
 * Returns: the token; 0 for a NULL lease.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int64_t chime_lease_get_token(const chime_lease *lease);

/*
 * chime_lease_get_name: the lease's name.
 * Returns: the name; NULL for a NULL lease.
 * Ownership: borrowed until the lease is freed.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_lease_get_name(const chime_lease *lease);

/*
 * chime_lease_get_expires_ms: when the lease runs out unless extended (the
 * store's clock: the database's for MySQL), as the last acquisition or
 * extension set it.  Informational: the store alone decides.
 * Returns: epoch milliseconds; 0 for a NULL lease.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int64_t chime_lease_get_expires_ms(const chime_lease *lease);

/*
 * chime_lease_extend: the lease now runs out at_most_ms (> 0) after the
 * store's now, if this holder still holds it.
 * Returns: 0; CHIME_ENOTOWNER (the lease expired, was released, or was
 * taken by another holder since: the holder must stop); CHIME_EINVAL (NULL
 * lease, at_most_ms <= 0); CHIME_ELIMIT (at_most_ms > CHIME_LEASE_MAX_MS);
 * the store's errors (the lease may still be held: try again).
 * Ownership: none.
 * Thread: any, one thread at a time per lease.
 */
CHIME_EXTERN int chime_lease_extend(chime_lease *lease, int64_t at_most_ms);

/*
 * chime_lease_release: gives the lease up.  It stays taken until
 * at_least_ms after its acquisition when that is later (ShedLock's
 * lockAtLeastFor), then anyone may take it.  The handle stays valid (for
 * chime_lease_get_token) until chime_lease_free(); a second release, or
 * chime_lease_extend after release, fails with CHIME_ENOTOWNER.  Stops the
 * keep-alive.
 * Returns: 0; CHIME_ENOTOWNER (the lease had already expired, been
 * released, or been taken by another holder: a section that ran past
 * at_most_ms may have overlapped the next holder's); CHIME_EINVAL (NULL
 * lease); the store's errors.
 * Ownership: lease stays the caller's.
 * Thread: any, one thread at a time per lease.
 */
CHIME_EXTERN int chime_lease_release(chime_lease *lease);

/*
 * chime_lease_is_held: asks the store whether this holder still holds
 * the lease (not expired by the store's clock, not released, not taken
 * over): worth asking before an irreversible step.
 * Returns: true when held; false when not, for a NULL lease, and when the
 * store cannot be asked (the database unreachable: act as if lost).
 * Ownership: none.
 * Thread: any, one thread at a time per lease.
 */
CHIME_EXTERN bool chime_lease_is_held(chime_lease *lease);

/*
 * chime_lease_set_keep_alive: with on, a thread of the lease extends it by
 * its at_most_ms every third of at_most_ms while the handle lives, until
 * it is released or freed, or an extension is refused (CHIME_ENOTOWNER:
 * chime_lease_is_held then says false).  The thread dies with the
 * process, so a dead holder's lease still runs out by itself, at most
 * at_most_ms after its last extension.  off stops it.
 * Returns: 0; CHIME_EINVAL (NULL lease); CHIME_ENOTOWNER (on, for a lease
 * released or lost); CHIME_ENOMEM (no thread).
 * Ownership: none.
 * Thread: any, one thread at a time per lease.
 */
CHIME_EXTERN int chime_lease_set_keep_alive(chime_lease *lease, bool on);

/*
 * chime_lease_free: releases the lease if it is still held (as
 * chime_lease_release, errors ignored), stops its keep-alive and frees
 * the handle.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes lease back from the caller.
 * Thread: any, once no other thread uses the lease.
 */
CHIME_EXTERN void chime_lease_free(chime_lease *lease);

/* What chime_lease_run runs while it holds the lease. */
typedef void (*chime_lease_fn)(chime_lease *lease, void *user_data);

/*
 * chime_lease_run: ShedLock's pattern in one call: acquires lease name as
 * chime_lease_acquire does with wait_ms 0, runs fn(lease, user_data) only
 * if it got it, then releases it (honouring at_least_ms) and frees the
 * handle.  fn may
 * read the token and ask chime_lease_is_held; it must not free or
 * release the lease.
 * Returns: 0 (fn ran and the release succeeded); CHIME_EBUSY (held: fn did
 * not run); CHIME_ENOTOWNER (fn ran, but the lease had run out before the
 * release: fn's section may have overlapped another holder's); CHIME_EINVAL
 * (also a NULL fn); chime_lease_acquire's other errors (fn did not run).
 * Ownership: name is copied; the lease handed to fn is borrowed for the
 * call.
 * Thread: any, fn runs on the calling thread.
 */
CHIME_EXTERN int chime_lease_run(chime_scheduler *scheduler, const char *name,
                                 int64_t at_most_ms, int64_t at_least_ms,
                                 chime_lease_fn fn, void *user_data);

/* -------------------------------------------------------------- listeners */

/*
 * Every event kind, its bit and the thread a listener hears it on.  One
 * list generates chime_event_kind and CHIME_EVENT_ALL.
 */
#define CHIME_EVENT_MAP(XX)                                                    \
  XX(TRIGGER_FIRED, 0, "a worker, before the job; the listener may veto")      \
  XX(JOB_TO_BE_EXECUTED, 1, "a worker, before the job")                        \
  XX(JOB_VETOED, 2, "a worker, instead of the job")                            \
  XX(JOB_WAS_EXECUTED, 3, "a worker, after the job (error if it failed)")      \
  XX(TRIGGER_COMPLETED, 4, "a worker, after the job")                          \
  XX(TRIGGER_MISFIRED, 5, "the loop thread (chime's own, attached or not)")    \
  XX(SCHEDULER_STARTED, 6, "the caller of chime_scheduler_start or attach")    \
  XX(SCHEDULER_STANDBY, 7, "the caller of chime_scheduler_standby")            \
  XX(SCHEDULER_SHUTDOWN, 8, "the caller of chime_scheduler_shutdown")          \
  XX(JOB_ADDED, 9, "the caller of chime_scheduler_add_job or schedule")        \
  XX(JOB_REMOVED, 10, "the caller of chime_scheduler_remove_job")              \
  XX(SCHEDULER_ERROR, 11, "the thread whose store call failed")                \
  XX(JOB_CANCEL_IGNORED, 12, "the loop thread: a cancelled run goes on")       \
  XX(JOB_MISSED, 13, "a worker, instead of a job past its starting deadline")  \
  XX(JOB_RETRIES_EXHAUSTED, 14, "a worker, after the last attempt failed")     \
  XX(FIRE_NODE_DIED, 16, "the loop thread of the node that recovered it")      \
  XX(NODE_DEAD, 17, "the loop thread of the node that declared it dead")       \
  XX(NODE_FENCED, 18, "the loop thread of the node that fenced itself")        \
  XX(STORE_OUTAGE_BEGAN, 19, "the thread whose store call found it down")      \
  XX(STORE_OUTAGE_ENDED, 20, "the loop thread, at the first good check-in")    \
  XX(COMPLETION_REFUSED, 21, "the thread whose completion was refused")        \
  XX(SHARDED_FIRE_DONE, 22, "the thread that completed its last shard")

/* What a listener hears about: one bit per kind. */
typedef enum chime_event_kind {
#define CHIME_XX_EVENT(name, bit, thread) CHIME_EVENT_##name = 1 << (bit),
  CHIME_EVENT_MAP(CHIME_XX_EVENT)
#undef CHIME_XX_EVENT
} chime_event_kind;

/* Every event kind's bit: listen to everything. */
enum {
#define CHIME_XX_EVENT_BIT(name, bit, thread) | CHIME_EVENT_##name
  CHIME_EVENT_ALL = 0 CHIME_EVENT_MAP(CHIME_XX_EVENT_BIT)
#undef CHIME_XX_EVENT_BIT
};

/* One event, borrowed for the listener call. */
typedef struct chime_event chime_event;

/*
 * A listener.  Returns true to veto the run, which only
 * CHIME_EVENT_TRIGGER_FIRED heeds (Quartz's vetoJobExecution); the return
 * value of other events is ignored.  Runs on the thread its event names
 * (CHIME_EVENT_MAP); it must not block for long and must be thread-safe.
 */
typedef bool (*chime_listener_fn)(const chime_event *event, void *user_data);

/*
 * chime_scheduler_add_listener: calls fn for the events in event_mask (an
 * OR of chime_event_kind).  Listeners run in the order they were added.  A
 * listener may be added at any time, before or after
 * chime_scheduler_start(): it hears every event that begins after this call
 * returned (an event being delivered meanwhile may or may not reach it).
 * Listeners cannot be removed; they live until chime_scheduler_free().
 * Returns: 0; CHIME_EINVAL (NULL scheduler or fn, event_mask 0 or with bits
 * outside CHIME_EVENT_ALL); CHIME_ESHUTDOWN; CHIME_ENOMEM.
 * Ownership: user_data stays the caller's; destroy (may be NULL) is called
 * with it exactly once, at chime_scheduler_free(); not when this call
 * fails.
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_add_listener(chime_scheduler *scheduler,
                                              unsigned event_mask,
                                              chime_listener_fn fn,
                                              void *user_data,
                                              chime_destroy_fn destroy);

/*
 * chime_event_get_kind: which event this is.
 * Returns: the kind; 0 for NULL.
 * Ownership: none.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN chime_event_kind chime_event_get_kind(const chime_event *event);

/*
 * chime_event_get_ctx: the run the event is about: job and trigger events,
 * and TRIGGER_MISFIRED (a context with the trigger's keys, times and data
 * but no job type and no fire id).
 * Returns: the context; NULL for other events.
 * Ownership: borrowed for the listener call.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN const chime_ctx *chime_event_get_ctx(const chime_event *event);

/*
 * chime_event_get_job_group, chime_event_get_job_name: the job's key of
 * JOB_ADDED and JOB_REMOVED, of the job and trigger events (its run's job),
 * TRIGGER_MISFIRED and the alert events about a fire.
 * Returns: the string; NULL for other events.
 * Ownership: borrowed for the listener call.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN const char *chime_event_get_job_group(const chime_event *event);
CHIME_EXTERN const char *chime_event_get_job_name(const chime_event *event);

/*
 * chime_event_get_trigger_group, chime_event_get_trigger_name: the trigger
 * the event is about: job and trigger events, TRIGGER_MISFIRED,
 * FIRE_NODE_DIED and COMPLETION_REFUSED.
 * Returns: the string; NULL for other events.
 * Ownership: borrowed for the listener call.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN const char *
chime_event_get_trigger_group(const chime_event *event);
CHIME_EXTERN const char *chime_event_get_trigger_name(const chime_event *event);

/*
 * chime_event_get_fire_id: the fire the event is about (job and trigger
 * events, FIRE_NODE_DIED, COMPLETION_REFUSED).
 * Returns: the fire id; 0 when the event names none.
 * Ownership: none.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN int64_t chime_event_get_fire_id(const chime_event *event);

/*
 * chime_event_get_node: the node the event is about: the dead node of
 * NODE_DEAD and FIRE_NODE_DIED, otherwise the node raising it (this one).
 * Returns: the instance id; NULL for the life-cycle and job events.
 * Ownership: borrowed for the listener call.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN const char *chime_event_get_node(const chime_event *event);

/*
 * chime_event_get_lateness_ms: how late: for TRIGGER_MISFIRED, the time
 * between the missed fire time and its handling; for the job and trigger
 * events, how late the run started after its scheduled time.
 * Returns: milliseconds (>= 0); 0 for other events.
 * Ownership: none.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN int64_t chime_event_get_lateness_ms(const chime_event *event);

/*
 * chime_event_get_misfire_policy: what TRIGGER_MISFIRED's trigger did: its
 * misfire instruction (a chime_misfire; the trigger's next fire time, from
 * chime_ctx_get_next_fire_ms on the event's ctx, says where it went).
 * Returns: the chime_misfire value; -1 for other events.
 * Ownership: none.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN int chime_event_get_misfire_policy(const chime_event *event);

/*
 * chime_event_get_error: the error code of JOB_WAS_EXECUTED and
 * TRIGGER_COMPLETED after a failed run (CHIME_EJOBFAILED), and of
 * SCHEDULER_ERROR.
 * Returns: the code; 0 otherwise.
 * Ownership: none.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN int chime_event_get_error(const chime_event *event);

/*
 * chime_event_get_message: the message of a failed run (chime_ctx_fail) in
 * JOB_WAS_EXECUTED and TRIGGER_COMPLETED, or what the scheduler was doing
 * in SCHEDULER_ERROR.
 * Returns: the message; NULL when there is none.
 * Ownership: borrowed for the listener call.
 * Thread: the listener's, during the call.
 */
CHIME_EXTERN const char *chime_event_get_message(const chime_event *event);

/* ------------------------------------------------------------ job context */

/*
 * The context of one run.  Every function below is for the job function
 * (and the listener calls of the run) while it runs: the context, and every
 * string and byte it hands out, is borrowed until the job function (or the
 * listener call) returns.  Called with NULL, a getter returns NULL, 0 or
 * CHIME_NO_FIRE_MS.
 */

/*
 * chime_ctx_get_scheduler: the scheduler running the job; a job may call
 * it (add jobs, trigger others, shut it down without waiting).
 * Returns: the scheduler.
 * Ownership: borrowed; never free it.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN chime_scheduler *chime_ctx_get_scheduler(const chime_ctx *ctx);

/*
 * chime_ctx_get_job_group, chime_ctx_get_job_name, chime_ctx_get_job_type,
 * chime_ctx_get_trigger_group, chime_ctx_get_trigger_name: the keys of the
 * run (the job type is NULL for a misfire event).
 * Returns: the string.
 * Ownership: borrowed for the run.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN const char *chime_ctx_get_job_group(const chime_ctx *ctx);
CHIME_EXTERN const char *chime_ctx_get_job_name(const chime_ctx *ctx);
CHIME_EXTERN const char *chime_ctx_get_job_type(const chime_ctx *ctx);
CHIME_EXTERN const char *chime_ctx_get_trigger_group(const chime_ctx *ctx);
CHIME_EXTERN const char *chime_ctx_get_trigger_name(const chime_ctx *ctx);

/*
 * chime_ctx_get_attempt: which attempt of its fire this run is: 1 for a
 * normal run, n for the (n - 1)th retry of a failed run
 * (chime_job_set_retry).
 * Returns: the attempt (>= 1); 0 for a NULL ctx.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int chime_ctx_get_attempt(const chime_ctx *ctx);

/*
 * chime_ctx_get_scheduled_ms: the time the fire was scheduled for (for a
 * recovered fire or a retry: the original); chime_ctx_get_fire_ms: the time the
 * run started, by the store's clock; chime_ctx_get_prev_fire_ms,
 * chime_ctx_get_next_fire_ms: the trigger's previous and next fire times.
 * Returns: the instant; CHIME_NO_FIRE_MS when there is none.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int64_t chime_ctx_get_scheduled_ms(const chime_ctx *ctx);
CHIME_EXTERN int64_t chime_ctx_get_fire_ms(const chime_ctx *ctx);
CHIME_EXTERN int64_t chime_ctx_get_prev_fire_ms(const chime_ctx *ctx);
CHIME_EXTERN int64_t chime_ctx_get_next_fire_ms(const chime_ctx *ctx);

/*
 * chime_ctx_get_fire_id: the fire's id: unique in the store, growing.
 * Returns: the id; 0 for a misfire event.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int64_t chime_ctx_get_fire_id(const chime_ctx *ctx);

/*
 * chime_ctx_get_shard: which shard of a sharded fire this run is
 * (chime_job_set_shards): *ret_index (may be NULL) in [0, total) and
 * *ret_total (may be NULL); 0 and 1 for a run that is not a shard.
 * Returns: 1 for a shard; 0 otherwise; CHIME_EINVAL for NULL ctx.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int chime_ctx_get_shard(const chime_ctx *ctx, int *ret_index,
                                     int *ret_total);

/*
 * chime_ctx_get_shard_param: this shard's parameter ("Beijing" for shard 0
 * of a job sharded with "0=Beijing,1=Shanghai").
 * Returns: the text; NULL when the shard has none, or the run is no shard.
 * Ownership: borrowed for the run.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN const char *chime_ctx_get_shard_param(const chime_ctx *ctx);

/*
 * chime_ctx_get_shard_fire_id: the id of the sharded fire this shard is
 * part of, the same for all its shards (chime_ctx_get_fire_id is the
 * shard's own, which fences it); for a run that is not a shard, its own
 * fire id.  All shards also share chime_ctx_get_scheduled_ms.
 * Returns: the id; 0 for NULL ctx.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int64_t chime_ctx_get_shard_fire_id(const chime_ctx *ctx);

/*
 * chime_ctx_checkpoint: records durably how far this run (or shard) got
 * (len bytes, at most CHIME_MAX_DATA_LEN; the last call wins).  When the
 * run's node dies and a survivor runs it again, that run starts with the
 * last checkpoint (chime_ctx_checkpoint_get), so a batch resumes instead of
 * restarting.  Fenced: once another node took the fire over, nothing is
 * written.  A checkpoint ends with its run (it is deleted when the run
 * completes, whatever its outcome; a retry starts afresh).  Writes to the
 * store: call it every few thousand rows, not every row.
 * Returns: 0; CHIME_EINVAL (NULL ctx, a listener's ctx, NULL data with
 * len > 0); CHIME_ELIMIT (len over CHIME_MAX_DATA_LEN); CHIME_ENOTOWNER
 * (the fire is no longer this node's: stop); the store's errors
 * (CHIME_ECONNECT, ...).
 * Ownership: data is copied.
 * Thread: the worker running the job.
 */
CHIME_EXTERN int chime_ctx_checkpoint(chime_ctx *ctx, const void *data,
                                      size_t len);

/*
 * chime_ctx_checkpoint_get: the last checkpoint of this run: what
 * chime_ctx_checkpoint last wrote in this run or, for a run recovered after
 * its node died, in the run it continues.
 * Returns: 1 with *ret_data and *ret_len set; 0 when there is none
 * (*ret_data NULL, *ret_len 0); CHIME_EINVAL (NULL argument, a listener's
 * ctx); the store's errors.
 * Ownership: *ret_data is borrowed for the run (until the next
 * chime_ctx_checkpoint).
 * Thread: the worker running the job.
 */
CHIME_EXTERN int chime_ctx_checkpoint_get(chime_ctx *ctx, const void **ret_data,
                                          size_t *ret_len);

/*
 * chime_ctx_is_recovering: whether this run re-runs a fire whose node died.
 * Returns: true for a recovered run.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN bool chime_ctx_is_recovering(const chime_ctx *ctx);

/*
 * chime_ctx_get_times_triggered: how many times the trigger fired, this
 * fire included.
 * Returns: the count.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int64_t chime_ctx_get_times_triggered(const chime_ctx *ctx);

/*
 * chime_ctx_is_backfill: whether this fire is one of a backfill
 * (chime_scheduler_backfill): its scheduled time is the original one.
 * Returns: true for a backfill fire; false otherwise or for NULL.
 * Ownership: none.
 * Thread: the job's worker, during the job.
 */
CHIME_EXTERN bool chime_ctx_is_backfill(const chime_ctx *ctx);

/*
 * chime_ctx_get_data: the run's data: the trigger's when it has some (or the
 * data given to chime_scheduler_run_job), else the job's; *ret_len (may
 * be NULL) receives its length.  The trigger's data is recorded with the
 * run in history (chime_history_get_data), for a retry of the run.
 * Returns: the bytes; NULL (length 0) when there are none.
 * Ownership: borrowed for the run.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN const void *chime_ctx_get_data(const chime_ctx *ctx,
                                            size_t *ret_len);

/*
 * chime_ctx_get_job_data: the job's own data as the run started (not what
 * chime_ctx_set_job_data set since); *ret_len (may be NULL) receives its
 * length.
 * Returns: the bytes; NULL (length 0) when there are none.
 * Ownership: borrowed for the run.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN const void *chime_ctx_get_job_data(const chime_ctx *ctx,
                                                size_t *ret_len);

/*
 * chime_ctx_set_job_data: new data for the job, saved after the run when
 * the job persists data (chime_job_set_persist_data); the next run sees it.
 * Returns: 0; CHIME_EINVAL (NULL ctx, a misfire event's ctx, NULL data with
 * len > 0); CHIME_ELIMIT (over CHIME_MAX_DATA_LEN); CHIME_ENOMEM.
 * Ownership: data is copied.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int chime_ctx_set_job_data(chime_ctx *ctx, const void *data,
                                        size_t len);

/*
 * chime_ctx_is_still_owned: whether the store confirms that this node
 * still holds the fire.  Conservative: false once another node took it
 * over (this node's lease lapsed and a survivor recovered the fire), and
 * false too when the store cannot tell (the database is unreachable or
 * busy; a warning is logged).  Before an irreversible step prefer
 * chime_ctx_check_owned, whose three answers let the job decide what an
 * outage means for it.  Queries the store, for at most about one check-in
 * interval.
 * Returns: true when the store confirmed the fire is this node's; false
 * when it was taken over, when the store cannot tell, or for a NULL or
 * misfire event's ctx.
 * Ownership: none.
 * Thread: the worker running the job.
 */
CHIME_EXTERN bool chime_ctx_is_still_owned(chime_ctx *ctx);

/*
 * chime_ctx_check_owned: whether this node still holds the fire, with
 * "cannot tell" as an answer of its own: ask before an irreversible step,
 * and decide what an outage means for it.  Queries the store; during an
 * outage it answers within about one check-in interval (a connection
 * attempt under way may add the connect timeout), never after the
 * store's whole reconnect budget.
 * Returns: 1 while the fire is this node's; 0 once another node took it
 * over; CHIME_ECONNECT (the database cannot be reached now); CHIME_EBUSY
 * (no store connection came free in time); CHIME_EINVAL (NULL ctx, a
 * misfire event's ctx).
 * Ownership: none.
 * Thread: the worker running the job.
 */
CHIME_EXTERN int chime_ctx_check_owned(chime_ctx *ctx);

/*
 * chime_ctx_is_cancelled: whether the job has been told to stop: the run
 * was interrupted (chime_scheduler_interrupt, `chimectl cancel`, from any
 * node), its timeout passed (chime_job_set_timeout_ms), or its scheduler
 * is shutting down with a deadline (chime_scheduler_shutdown).  A
 * long job polls it and returns early; nothing stops a job that does not.
 * Never blocks.
 * Returns: true once cancelled; false otherwise, and for NULL or a misfire
 * event's ctx.
 * Ownership: none.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN bool chime_ctx_is_cancelled(const chime_ctx *ctx);

/*
 * chime_ctx_wait_cancelled: waits until the job is told to stop (as
 * chime_ctx_is_cancelled() says) or timeout_ms passed, whichever comes
 * first: a job that sleeps between steps sleeps here instead, and wakes at
 * once when cancelled (at the latest at its own timeout).
 * Returns: 1 when cancelled; 0 when timeout_ms passed first; CHIME_EINVAL
 * (NULL ctx, a listener's or misfire event's ctx, timeout_ms negative or
 * over a day).
 * Ownership: none.
 * Thread: the worker running the job (it blocks it).
 */
CHIME_EXTERN int chime_ctx_wait_cancelled(chime_ctx *ctx, int64_t timeout_ms);

/*
 * chime_ctx_fail: marks the run failed with a message (NULL: "job failed";
 * cut on a UTF-8 character boundary to at most CHIME_MAX_DESCRIPTION_LEN
 * bytes, each byte that is not valid UTF-8 replaced by U+FFFD, so that any
 * bytes can be recorded), recorded in the history and
 * passed to JOB_WAS_EXECUTED listeners; the trigger goes on as scheduled.
 * Returns: 0; CHIME_EINVAL (NULL ctx, a misfire event's ctx); CHIME_ENOMEM.
 * Ownership: message is copied.
 * Thread: the worker running the job, or the listener's.
 */
CHIME_EXTERN int chime_ctx_fail(chime_ctx *ctx, const char *message);

/* ---------------------------------------------------------- observability */

/*
 * How a run ended, as the history and the metrics name it (the text is the
 * history table's outcome column).  One list generates chime_outcome and
 * chime_outcome_to_string.  SKIPPED, a fire that never ran, is recorded in
 * the history (fire id 0) for a fire time a FORBID_SKIP job dropped while
 * a run was going and for one beyond a FORBID_QUEUE job's queue cap; the
 * metrics count as SKIPPED a fire a TRIGGER_FIRED listener vetoed (whose
 * history row says OK, with the text "vetoed by a listener").
 */
#define CHIME_OUTCOME_MAP(XX)                                                  \
  XX(OK, 0, "the job returned without failing")                                \
  XX(FAILED, 1, "the job failed, or could not run, or its node died")          \
  XX(TIMED_OUT, 2, "the run passed its time limit")                            \
  XX(CANCELLED, 3, "the run was cancelled")                                    \
  XX(SKIPPED, 4, "not run: vetoed, FORBID_SKIP, or over the queue cap")        \
  XX(MISSED, 5, "the fire time was missed and not made up")                    \
  XX(RECOVERED, 6, "a dead node's fire, run again by a survivor")              \
  XX(REQUEUED, 7, "a dead node's fire, put back to run again")                 \
  XX(RETRIED, 8, "a failed run that is tried again")

typedef enum chime_outcome {
#define CHIME_XX_OUTCOME(name, value, text) CHIME_OUTCOME_##name = value,
  CHIME_OUTCOME_MAP(CHIME_XX_OUTCOME)
#undef CHIME_XX_OUTCOME
} chime_outcome;

/* How many outcomes there are (they number 0 to CHIME_OUTCOME_COUNT - 1). */
#define CHIME_OUTCOME_COUNT 9

/*
 * chime_outcome_to_string: the outcome's name: "OK", "FAILED", "TIMED_OUT",
 * ... (the history's text).
 * Returns: the name (static); NULL for a value outside chime_outcome.
 * Ownership: static storage.
 * Thread: any.
 */
CHIME_EXTERN const char *chime_outcome_to_string(chime_outcome outcome);

/*
 * chime_outcome_from_string: the outcome a name (as chime_outcome_to_string
 * writes it, case-sensitive) stands for.
 * Returns: 0; CHIME_EINVAL (NULL argument, unknown name).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_outcome_from_string(const char *text,
                                           chime_outcome *ret_outcome);

/*
 * The counters a scheduler keeps from its creation (never reset), with the
 * name and help text of their Prometheus series.  The runs by outcome
 * (succeeded, failed, timed out, retried, skipped, cancelled) are
 * chime_runs_total{job,outcome}: chime_metrics_get_runs.
 */
#define CHIME_METRIC_MAP(XX)                                                   \
  XX(FIRES_CLAIMED, 0, "chime_fires_claimed_total",                            \
     "Fires this node claimed to run.")                                        \
  XX(RUNS_STARTED, 1, "chime_runs_started_total", "Runs this node started.")   \
  XX(MISFIRES, 2, "chime_misfires_total",                                      \
     "Misfires handled by their trigger's misfire instruction (policy).")      \
  XX(RECOVERIES_DONE, 3, "chime_recoveries_done_total",                        \
     "Fires of dead nodes this node recovered (ran again or failed).")         \
  XX(RECOVERIES_RECEIVED, 4, "chime_recoveries_received_total",                \
     "Recovered fires of dead nodes this node ran.")                           \
  XX(FENCING_REFUSALS, 5, "chime_fencing_refusals_total",                      \
     "Completions refused: another node had taken the fire over.")             \
  XX(SELF_FENCES, 6, "chime_self_fences_total",                                \
     "Times this node fenced itself: no check-in for a lease.")                \
  XX(STORE_ERRORS, 7, "chime_store_errors_total",                              \
     "Store calls of the engine that failed.")                                 \
  XX(STORE_OUTAGES, 8, "chime_store_outages_total",                            \
     "Store outages that began (the store unreachable).")                      \
  XX(RECONNECTS, 9, "chime_store_reconnects_total",                            \
     "Store outages that ended: the store answered again.")                    \
  XX(NODES_DEAD, 10, "chime_nodes_declared_dead_total",                        \
     "Other nodes this node declared dead and recovered.")                     \
  XX(LOCK_WAITS, 11, "chime_store_lock_waits_total",                           \
     "Store statements that waited out the lock wait timeout for a row "       \
     "another session held (each logged at WARN with the row).")               \
  XX(LIMIT_WAITS, 12, "chime_limit_waits_total",                               \
     "Claims that passed fires over for their job type's limit (they "         \
     "wait, docs/queue.md).")

typedef enum chime_metric {
#define CHIME_XX_METRIC(name, value, prom, help) CHIME_METRIC_##name = value,
  CHIME_METRIC_MAP(CHIME_XX_METRIC)
#undef CHIME_XX_METRIC
} chime_metric;
#define CHIME_METRIC_COUNT 13

/*
 * CHIME_METRIC_LOCK_WAITS (chime_store_lock_waits_total): how many times a
 * statement of this node's store waited a whole lock wait timeout (the
 * MySQL URL's lock_wait_timeout_s, 1 s by default) for a row another
 * session held: a DBA's SELECT ... FOR UPDATE, a stuck client.  Each wait
 * is also logged at WARN naming the table and the row's key ("waited 1 s
 * for a row another session holds (MySQL error 1205): chime_triggers where
 * sched_name = ? AND trigger_group = ? AND trigger_name = ? with ('s',
 * 'g', 'n'); trying again").  The claim, the
 * misfire scan and the other statements of the scheduler loop never wait
 * for such a row: they skip it (SKIP LOCKED), so one held row delays only
 * its own trigger; what does wait is a call that needs that very row
 * (pausing or changing that trigger, completing a run of its job).  Always
 * 0 on the memory store.
 * Returns: (a counter of chime_metrics_get_counter) the count since
 * chime_scheduler_new.
 * Ownership: none (read from a snapshot).
 * Thread: counted on the thread that waited; read on any.
 */

/* The gauges: what is true at the moment of the snapshot. */
#define CHIME_GAUGE_MAP(XX)                                                    \
  XX(WORKERS, 0, "chime_workers", "Worker threads configured.")                \
  XX(WORKERS_BUSY, 1, "chime_workers_busy", "Workers running a job.")          \
  XX(FIRES_QUEUED, 2, "chime_fires_queued",                                    \
     "Fires claimed and not running yet (waiting for their time or a "         \
     "worker).")                                                               \
  XX(LAST_CHECKIN_AGE, 3, "chime_last_checkin_age_seconds",                    \
     "Seconds since the last successful check-in began (-1: none yet).")       \
  XX(STORE_DOWN, 4, "chime_store_down",                                        \
     "1 while a store outage lasts, else 0.")                                  \
  XX(DRAIN_STATE, 5, "chime_node_drain_state",                                 \
     "This node's drain state: 0 active, 1 draining, 2 drained.")

typedef enum chime_gauge {
#define CHIME_XX_GAUGE(name, value, prom, help) CHIME_GAUGE_##name = value,
  CHIME_GAUGE_MAP(CHIME_XX_GAUGE)
#undef CHIME_XX_GAUGE
} chime_gauge;
#define CHIME_GAUGE_COUNT 6

/* The histograms, in seconds, with fixed buckets (1 ms to 300 s). */
#define CHIME_HISTOGRAM_MAP(XX)                                                \
  XX(FIRE_LATENESS, 0, "chime_fire_lateness_seconds",                          \
     "How late runs started after their scheduled time.")                      \
  XX(RUN_DURATION, 1, "chime_run_duration_seconds",                            \
     "How long job functions ran.")                                            \
  XX(STORE_LATENCY, 2, "chime_store_call_seconds",                             \
     "How long the engine's store calls took (claim, fire, complete, "         \
     "check-in).")

typedef enum chime_histogram {
#define CHIME_XX_HISTOGRAM(name, value, prom, help)                            \
  CHIME_HISTOGRAM_##name = value,
  CHIME_HISTOGRAM_MAP(CHIME_XX_HISTOGRAM)
#undef CHIME_XX_HISTOGRAM
} chime_histogram;
#define CHIME_HISTOGRAM_COUNT 3

/* A snapshot of a scheduler's metrics: immutable, the caller's. */
typedef struct chime_metrics chime_metrics;

/*
 * chime_scheduler_metrics: a snapshot of the scheduler's metrics (this
 * node's: counters since chime_scheduler_new, gauges now).  Counting is
 * always on and lock-free; taking a snapshot takes the scheduler's lock
 * briefly for the gauges.  Works in every state, shut down too.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENOMEM.
 * Ownership: *ret_metrics is the caller's, freed with chime_metrics_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_scheduler_metrics(chime_scheduler *scheduler,
                                         chime_metrics **ret_metrics);

/*
 * chime_metrics_free: frees a snapshot.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes metrics.
 * Thread: any.
 */
CHIME_EXTERN void chime_metrics_free(chime_metrics *metrics);

/*
 * chime_metrics_get_counter, chime_metrics_get_gauge: one counter or gauge
 * of the snapshot.
 * Returns: the value; 0 for NULL metrics or a value outside the enum.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN uint64_t chime_metrics_get_counter(const chime_metrics *metrics,
                                                chime_metric which);
CHIME_EXTERN double chime_metrics_get_gauge(const chime_metrics *metrics,
                                            chime_gauge which);

/*
 * chime_metrics_get_misfires: the misfires handled by one misfire
 * instruction (the policy; CHIME_METRIC_MISFIRES is their sum).
 * Returns: the count; 0 for NULL metrics or an unknown policy.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN uint64_t chime_metrics_get_misfires(const chime_metrics *metrics,
                                                 chime_misfire policy);

/*
 * chime_metrics_get_runs: the runs of one job (job_group and job_name) that
 * ended with outcome, or of every job (both NULL).
 * Returns: the count; 0 for NULL metrics, an unknown job or outcome.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN uint64_t chime_metrics_get_runs(const chime_metrics *metrics,
                                             const char *job_group,
                                             const char *job_name,
                                             chime_outcome outcome);

/*
 * chime_metrics_get_histogram: how many values a histogram recorded and
 * their sum in seconds (either out-parameter may be NULL).
 * Returns: 0; CHIME_EINVAL (NULL metrics, unknown histogram).
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN int chime_metrics_get_histogram(const chime_metrics *metrics,
                                             chime_histogram which,
                                             uint64_t *ret_count,
                                             double *ret_sum_seconds);

/*
 * chime_metrics_to_prometheus: the snapshot in the Prometheus text
 * exposition format (version 0.0.4): # HELP and # TYPE lines, then
 * chime_runs_total{job="GROUP.NAME",outcome="OK"},
 * chime_fire_lateness_seconds_bucket{le="0.005"}, ... (docs/observability.md
 * lists every series).  Every series carries the labels
 * scheduler="NAME",node="INSTANCE".
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENOMEM.
 * Ownership: *ret_text is the caller's, freed with chime_free().
 * Thread: any.
 */
CHIME_EXTERN int chime_metrics_to_prometheus(const chime_metrics *metrics,
                                             char **ret_text);

/*
 * The recorded runs of a scheduler's cluster: the MySQL store's history
 * table (kept for its history_retention_ms; node deaths appear as FAILED
 * or REQUEUED runs of the dead node), the memory store's last 1,000 runs.
 * A chime_history is one page of them, newest first: immutable, the
 * caller's.
 */
typedef struct chime_history chime_history;

/* The most runs one chime_scheduler_history call returns. */
#define CHIME_HISTORY_MAX_LIMIT 1000

/*
 * chime_scheduler_history: one page of recorded runs, newest first,
 * filtered by job (job_group and job_name, or both NULL), trigger
 * (trigger_group and trigger_name, or both NULL), outcome (a chime_outcome,
 * or -1 for any), start time (started in [from_ms, to_ms); 0: unbounded),
 * and paged: before_id 0 for the newest page, then the last run's
 * chime_history_get_id for the next one.  Works in every state.
 * Returns: 0; CHIME_EINVAL (NULL scheduler or ret_history, a half key, an
 * unknown outcome, limit 0 or above CHIME_HISTORY_MAX_LIMIT);
 * CHIME_EUNSUPPORTED (a store without history); the store's errors
 * (CHIME_ECONNECT, ...); CHIME_ENOMEM.
 * Ownership: *ret_history is the caller's, freed with chime_history_free().
 * Thread: any.
 */
CHIME_EXTERN int
chime_scheduler_history(chime_scheduler *scheduler, const char *job_group,
                        const char *job_name, const char *trigger_group,
                        const char *trigger_name, int outcome, int64_t from_ms,
                        int64_t to_ms, int64_t before_id, size_t limit,
                        chime_history **ret_history);

/*
 * chime_history_get_count: how many runs the page holds.
 * Returns: the count; 0 for NULL.
 * Ownership: none.
 * Thread: any.
 */
CHIME_EXTERN size_t chime_history_get_count(const chime_history *history);

/*
 * chime_history_get_id, chime_history_get_fire_id,
 * chime_history_get_job_group, chime_history_get_job_name,
 * chime_history_get_trigger_group, chime_history_get_trigger_name,
 * chime_history_get_node, chime_history_get_outcome,
 * chime_history_get_scheduled_ms, chime_history_get_started_ms,
 * chime_history_get_finished_ms, chime_history_get_error,
 * chime_history_get_message, chime_history_is_recovering: run i of the page
 * (0 the newest): its record id (the paging cursor), fire id, job, trigger,
 * the node that ran it (or died running it), outcome (an outcome newer
 * than this library reads as CHIME_OUTCOME_FAILED), times, error code, the
 * failure's message, and whether it was a recovered fire's re-run.
 * Returns: the field; 0, NULL, CHIME_OUTCOME_OK or false for NULL history
 * or i out of range.
 * Ownership: strings borrowed until chime_history_free.
 * Thread: any.
 */
CHIME_EXTERN int64_t chime_history_get_id(const chime_history *history,
                                          size_t i);
CHIME_EXTERN int64_t chime_history_get_fire_id(const chime_history *history,
                                               size_t i);
CHIME_EXTERN const char *
chime_history_get_job_group(const chime_history *history, size_t i);
CHIME_EXTERN const char *
chime_history_get_job_name(const chime_history *history, size_t i);
CHIME_EXTERN const char *
chime_history_get_trigger_group(const chime_history *history, size_t i);
CHIME_EXTERN const char *
chime_history_get_trigger_name(const chime_history *history, size_t i);
CHIME_EXTERN const char *chime_history_get_node(const chime_history *history,
                                                size_t i);
CHIME_EXTERN chime_outcome
chime_history_get_outcome(const chime_history *history, size_t i);
CHIME_EXTERN int64_t
chime_history_get_scheduled_ms(const chime_history *history, size_t i);
CHIME_EXTERN int64_t chime_history_get_started_ms(const chime_history *history,
                                                  size_t i);
CHIME_EXTERN int64_t chime_history_get_finished_ms(const chime_history *history,
                                                   size_t i);
CHIME_EXTERN int chime_history_get_error(const chime_history *history,
                                         size_t i);
CHIME_EXTERN const char *chime_history_get_message(const chime_history *history,
                                                   size_t i);
CHIME_EXTERN bool chime_history_is_recovering(const chime_history *history,
                                              size_t i);

/*
 * chime_history_get_data: the data run i of the page ran with when it was
 * its own: its trigger's, as chime_ctx_get_data gave it to the job (the
 * data of chime_scheduler_run_job, of a one-off or retry trigger, of
 * a trigger that carries data); *ret_len (may be NULL) receives its
 * length.  A run that read its job's data records none (NULL): the job
 * holds it.  `chimectl retry` and chime-web's retry run the job again with
 * these bytes.  The MySQL store records them from schema migration 015
 * on (runs recorded before read NULL); a run another node ended (its node
 * died, it was cancelled there) records its trigger's data as it was then.
 * Returns: the bytes (at most CHIME_MAX_DATA_LEN); NULL (length 0) when
 * the run had none of its own, for NULL history or i out of range.
 * Ownership: borrowed until chime_history_free.
 * Thread: any.
 */
CHIME_EXTERN const void *chime_history_get_data(const chime_history *history,
                                                size_t i, size_t *ret_len);

/*
 * chime_history_free: frees a page.  NULL is allowed.
 * Returns: nothing.
 * Ownership: takes history.
 * Thread: any.
 */
CHIME_EXTERN void chime_history_free(chime_history *history);

#ifdef __cplusplus
}
#endif

#endif /* CHIME_H */
