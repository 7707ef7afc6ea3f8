/*
 * calendar_impl.h: the layout of a calendar, shared by calendar.c (life
 * cycle, validation, chains), calendar_kinds.c (each kind's own rule) and
 * calendar_string.c and calendar_parse.c (the text form).  Nothing else
 * includes it.
 */
#ifndef CHIME_TRIGGERS_CALENDAR_IMPL_H
#define CHIME_TRIGGERS_CALENDAR_IMPL_H

#include "core/errbuf.h"
#include "triggers/calendar.h"
#include "triggers/civil.h"
#include "triggers/tz.h"

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

/*
 * The two helpers below are what every kind's rule, the cron rule
 * included, needs of the calendar's zone; they live here, not in
 * calendar_kinds.c, so calendar_cron.c and calendar_kinds.c do not call
 * each other (kinds.c asks cron.c about the cron kind; cron.c asks only
 * this header).
 */

/* chime__calendar_to_local: the wall-clock fields of t_ms in cal's zone. */
static inline void chime__calendar_to_local(const chime_calendar *cal,
                                            int64_t t_ms, chime_civil *ret) {
  if (cal->zone == NULL)
    chime__civil_from_ms(t_ms, ret);
  else
    chime__zone_to_local(cal->zone, t_ms, ret, NULL);
}

/*
 * chime__calendar_local_to_instant: the first instant after `after` whose
 * wall-clock time in cal's zone is `local`; a time a DST gap skips
 * resolves to the instant just past the gap, as java.util.Calendar does.
 * In odd zones the result may not be after `after`: callers recheck.
 */
static inline int64_t
chime__calendar_local_to_instant(const chime_calendar *cal,
                                 const chime_civil *local, int64_t after) {
  if (cal->zone == NULL)
    return chime__civil_to_ms(local);
  int64_t inst[2];
  int n = chime__zone_from_local(cal->zone, local, inst);
  for (int i = 0; i < n; i++)
    if (inst[i] > after)
      return inst[i];
  if (n == 0)
    return chime__zone_resolve_local(cal->zone, local);
  return after + 1;
}

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

/* The text form: its first line, and the names of kinds and weekdays. */
#define CHIME__CALENDAR_VERSION_LINE "chime-calendar 1"
extern const char *const chime__calendar_kind_names[7];    /* [0] is NULL */
extern const char *const chime__calendar_weekday_names[7]; /* "sun"... */

#endif /* CHIME_TRIGGERS_CALENDAR_IMPL_H */
