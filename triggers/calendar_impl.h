/*
 * calendar_impl.h: the layout of a calendar, shared by calendar.c (life
 * cycle, validation, chains), calendar_kinds.c (each kind's own rule) and
 * calendar_string.c and calendar_parse.c (the text form).  Nothing else
 * includes it.
 */
#ifndef CHIME_TRIGGERS_CALENDAR_IMPL_H
#define CHIME_TRIGGERS_CALENDAR_IMPL_H

#include "triggers/calendar.h"
#include "triggers/civil.h"

#include <stdarg.h>
#include <stdatomic.h>

struct chime_calendar {
  atomic_long refs;
  chime_calendar_kind kind;
  int depth; /* 1 without a base, base's depth + 1 with one */
  chime_calendar *base;
  const chime_zone *zone; /* NULL: UTC */
  char *description;      /* NULL: none */
  union {
    uint32_t annual[13]; /* bit d of annual[m]: day d of month m excluded */
    struct {
      int64_t *days; /* sorted, distinct day numbers (days since 1970) */
      size_t count;
    } holiday;
    uint32_t monthly; /* bit d: day d excluded */
    unsigned weekly;  /* bit w: weekday w (0 Sunday) excluded */
    struct {
      int32_t start_ms; /* window, both ends inclusive */
      int32_t end_ms;
      bool invert;
    } daily;
    chime_cron *cron;
  } u;
};

/*
 * chime__calendar_own_includes: whether cal's own rule (its bases ignored)
 * includes t_ms.
 */
bool chime__calendar_own_includes(const chime_calendar *cal, int64_t t_ms);

/*
 * chime__calendar_own_next: the first instant at or after t_ms that cal's
 * own rule includes, bases ignored.  The result may lie past MAX_MS; the
 * caller checks.
 * Returns: 0; CHIME_ENEVERFIRES (the rule excludes everything, or its
 * bounded search gave up).
 */
int chime__calendar_own_next(const chime_calendar *cal, int64_t t_ms,
                             int64_t *ret_ms);

/* chime__calendar_to_local: the wall-clock fields of t_ms in cal's zone. */
void chime__calendar_to_local(const chime_calendar *cal, int64_t t_ms,
                              chime_civil *ret);

/*
 * chime__calendar_local_to_instant: the first instant after `after` whose
 * wall-clock time in cal's zone is `local`; a time a DST gap skips
 * resolves to the instant just past the gap, as java.util.Calendar does.
 * In odd zones the result may not be after `after`: callers recheck.
 */
int64_t chime__calendar_local_to_instant(const chime_calendar *cal,
                                         const chime_civil *local,
                                         int64_t after);

/*
 * chime__calendar_cron_matches: whether the wall-clock second holding t_ms
 * matches cal's cron expression (cal is a cron calendar).
 */
bool chime__calendar_cron_matches(const chime_calendar *cal, int64_t t_ms);

/*
 * chime__calendar_cron_skip: for an instant the cron rule excludes, the
 * first instant after it whose wall-clock second does not match (a whole
 * run of matching seconds, minutes, hours or days is skipped at once).
 * Returns: 0 (the result may lie past MAX_MS).
 */
int chime__calendar_cron_skip(const chime_calendar *cal, int64_t t_ms,
                              int64_t *ret_ms);

/*
 * chime__calendar_errf: formats a message into errbuf (when not NULL and
 * errbuf_len > 0, always NUL-terminated, truncated if long) and returns
 * code, so validation can say `return chime__calendar_errf(...)`.
 */
int chime__calendar_errf(char *errbuf, size_t errbuf_len, int code,
                         const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The text form: its first line, and the names of kinds and weekdays. */
#define CHIME__CALENDAR_VERSION_LINE "chime-calendar 1"
extern const char *const chime__calendar_kind_names[7];    /* [0] is NULL */
extern const char *const chime__calendar_weekday_names[7]; /* "sun"... */

#endif /* CHIME_TRIGGERS_CALENDAR_IMPL_H */
