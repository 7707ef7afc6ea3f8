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
 *   - Strings passed in are copied.  A string handed back through ret_*
 *     belongs to the caller and is released with chime_free().
 *   - Destructors accept NULL.
 *
 * This header includes only <stddef.h>, <stdint.h> and <stdbool.h>: no libuv,
 * MariaDB or OpenSSL type appears in it.
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

#define CHIME_VERSION_MAJOR 0
#define CHIME_VERSION_MINOR 1
#define CHIME_VERSION_PATCH 0
/* One integer that grows with every release: 0xMMmmpp. */
#define CHIME_VERSION_HEX                                                      \
  ((CHIME_VERSION_MAJOR << 16) | (CHIME_VERSION_MINOR << 8) | CHIME_VERSION_PATCH)

/*
 * chime_version: the library's version as "MAJOR.MINOR.PATCH".
 * Returns: a static string.  Ownership: never free it.  Thread: any.
 */
CHIME_EXTERN const char *chime_version(void);

/*
 * chime_version_hex: the library's version as CHIME_VERSION_HEX computes it,
 * so a program can compare the header it was built with to the library it
 * runs with.  Thread: any.
 */
CHIME_EXTERN unsigned chime_version_hex(void);

/* ----------------------------------------------------------------- errors */

/*
 * Every error code, with its sentence.  Numbers are never renumbered or
 * reused; new codes are added at the end.
 */
#define CHIME_ERRNO_MAP(XX)                                                    \
  XX(EINVAL, -1, "invalid argument")                                          \
  XX(ENOMEM, -2, "out of memory")                                             \
  XX(ENOTFOUND, -3, "no such object")                                         \
  XX(EEXISTS, -4, "object already exists")                                    \
  XX(EPARSE, -5, "malformed expression")                                      \
  XX(EUNKNOWNZONE, -6, "unknown time zone")                                   \
  XX(ENEVERFIRES, -7, "schedule never fires")                                 \
  XX(ELIMIT, -8, "value exceeds a limit")                                     \
  XX(ESTATE, -9, "operation not valid in the current state")                  \
  XX(ESTORE, -10, "job store error")                                          \
  XX(ECONNECT, -11, "cannot connect to the database")                         \
  XX(EAUTH, -12, "database access denied")                                    \
  XX(ESCHEMA, -13, "database schema version not supported")                   \
  XX(ENOTOWNER, -14, "fire is no longer owned by this node")                  \
  XX(EDUPNODE, -15, "another live node has the same instance id")             \
  XX(EUNSUPPORTED, -16, "not supported by this build")                        \
  XX(EIO, -17, "input/output error")                                          \
  XX(EFORMAT, -18, "malformed data")                                          \
  XX(ESHUTDOWN, -19, "scheduler is shut down")                                \
  XX(EURL, -20, "malformed store URL")                                        \
  XX(EBUSY, -21, "resource busy, try again")                                  \
  XX(EINTERNAL, -22, "internal error")

typedef enum chime_error {
#define CHIME_XX_ENUM(name, code, text) CHIME_##name = (code),
  CHIME_ERRNO_MAP(CHIME_XX_ENUM)
#undef CHIME_XX_ENUM
  CHIME_OK = 0
} chime_error;

/*
 * chime_strerror: a sentence for an error code, e.g. "unknown time zone".
 * Returns: a static string; for a code this library does not know,
 * "unknown error".  Ownership: never free it.  Thread: any.
 */
CHIME_EXTERN const char *chime_strerror(int code);

/*
 * chime_err_name: the code's name, e.g. "CHIME_EUNKNOWNZONE".
 * Returns: a static string; "CHIME_UNKNOWN" for an unknown code and
 * "CHIME_OK" for 0.  Ownership: never free it.  Thread: any.
 */
CHIME_EXTERN const char *chime_err_name(int code);

/* ----------------------------------------------------------------- memory */

/*
 * chime_free: releases memory that a chime function handed to the caller
 * through a ret_* pointer (strings, arrays).  NULL is allowed.  Thread: any.
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
 * use.
 * Returns: 0; CHIME_EINVAL (NULL or empty name); CHIME_EUNKNOWNZONE (no such
 * zone: never a silent UTC); CHIME_EFORMAT (the zone file is damaged);
 * CHIME_ENOMEM.
 * Ownership: *ret_zone is borrowed and lives until the process exits.
 * Thread: any.
 */
CHIME_EXTERN int chime_zone_get(const char *name, const chime_zone **ret_zone);

/*
 * chime_zone_name: the name the zone was asked for with.
 * Ownership: borrowed, lives as long as the zone.  Thread: any.
 */
CHIME_EXTERN const char *chime_zone_name(const chime_zone *zone);

/*
 * chime_zone_offset_at: the zone's offset from UTC at instant t_ms, in
 * seconds east of Greenwich (Berlin in winter: 3600).  Thread: any.
 */
CHIME_EXTERN int32_t chime_zone_offset_at(const chime_zone *zone, int64_t t_ms);

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
 * chime_cron_next: the first fire time strictly after after_ms, with the
 * expression's fields read as wall-clock time in zone.  Wall-clock times a
 * DST gap skips do not fire.  In the repeated hour of a DST fall-back an
 * expression whose hour field is '*' fires at every instant that matches
 * (both passes); any other fires once, in the first pass.
 * Returns: 0; CHIME_EINVAL (NULL argument); CHIME_ENEVERFIRES (no fire time
 * after after_ms, e.g. a past year or February 30th).  Thread: any.
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
 * Ownership: borrowed, lives as long as cron.  Thread: any.
 */
CHIME_EXTERN const char *chime_cron_to_string(const chime_cron *cron);

/*
 * chime_cron_free: releases a compiled expression.  NULL is allowed.
 * Thread: any, once no other thread uses it.
 */
CHIME_EXTERN void chime_cron_free(chime_cron *cron);

/* --------------------------------------------------------------- triggers */

/* The four kinds of trigger, as in Quartz. */
typedef enum chime_trigger_kind {
  CHIME_TRIGGER_SIMPLE = 1,              /* start, interval, repeat count */
  CHIME_TRIGGER_CRON = 2,                /* a cron expression in a zone */
  CHIME_TRIGGER_CALENDAR_INTERVAL = 3,   /* every N units of the calendar */
  CHIME_TRIGGER_DAILY_TIME_INTERVAL = 4  /* an interval inside a daily window */
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

#ifdef __cplusplus
}
#endif

#endif /* CHIME_H */
