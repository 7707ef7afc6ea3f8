/*
 * trigger.h: the pure trigger model shared by the engine and both job
 * stores.  Nothing here does I/O, takes a lock or allocates.
 *
 * Terms:
 *   - a *schedule* (chime_schedule) is a trigger's immutable definition:
 *     its kind, start and end, misfire instruction, priority, calendar,
 *     zone and the kind's own fields;
 *   - a *fire state* (chime_fire_state; chime.h already uses the name
 *     chime_trigger_state for a getter) is what changes as the trigger
 *     fires: the next and previous fire times, how many times it fired,
 *     and, for a simple trigger, the start and repeat count that Quartz
 *     rewrites when a "reschedule now" misfire instruction applies.  The
 *     stores persist every field of the state;
 *   - a *fire time* is an instant (int64_t epoch milliseconds, UTC).
 *
 * Semantics follow Quartz 2.3.2 (SimpleTriggerImpl, CronTriggerImpl,
 * CalendarIntervalTriggerImpl, DailyTimeIntervalTriggerImpl): first fire
 * (computeFirstFireTime), fire after (getFireTimeAfter), bookkeeping after a
 * fire (triggered), final fire (getFinalFireTime) and misfire handling
 * (updateAfterMisfire, in misfire.h).  The differences, all deliberate:
 *   - Quartz stops skipping calendar-excluded times in "the current year +
 *     100"; chime stops 100 years after the first candidate of a search or
 *     after CHIME__TRIGGER_MAX_SKIPS candidates, whichever comes first, and
 *     answers CHIME_ENEVERFIRES, so results never depend on the clock and
 *     an all-excluding calendar never loops.  The bound applies to every
 *     kind (Quartz's cron trigger has none).
 *   - Arithmetic is 64-bit on bounded inputs (the limits below), so
 *     Quartz's int overflows (a seconds interval more than 68 years after
 *     the start) cannot happen.
 *   - A daily-time-interval trigger never fires after its end time (Quartz
 *     2.3.2 can, within the end time's day).
 *   - A cron trigger's final fire time is computed (Quartz's
 *     CronExpression.getTimeBefore is unimplemented and answers null).
 *   - A calendar-interval trigger also accepts CHIME_UNIT_MILLISECOND
 *     (Quartz throws a NullPointerException on it).
 *   - Instants are limited to years 1-9999 (CHIME__TRIGGER_MIN_MS and
 *     CHIME__TRIGGER_MAX_MS).
 *
 * Jitter: a schedule with jitter_offset_ms d fires at every time its kind
 * gives, moved d later; the kind and the calendar see the unmoved times
 * (fire_after(x) is the kind's first time after x - d, plus d), and the
 * fire state holds the moved ones.  The end time bounds the unmoved times.
 * A simple trigger has no jitter (its times are its own start's).
 *
 * End times: a simple and a calendar-interval trigger never fire at or
 * after end_ms (except at the start itself when start_ms == end_ms); a cron
 * and a daily-time-interval trigger may fire at end_ms exactly (as in
 * Quartz).
 *
 * Quartz behaviours kept on purpose, because stored schedules must fire as
 * they did there: a cron trigger drops its start's milliseconds; a daily
 * trigger's search starts one second after the time it is given; day and
 * week calendar intervals add days the way java.util.Calendar does (a time
 * inside a spring-forward gap lands an hour earlier and later steps keep
 * the shifted hour, unless preserve_hour_of_day), and for searches more
 * than 20 intervals past the start leap most of the way in one add (so the
 * shifted hour can come back); month and year intervals pin the day of
 * month (Jan 31, Feb 29, Mar 29, ...).  A simple trigger that does not
 * repeat may have interval 0 (Quartz's default one-shot).
 */
#ifndef CHIME_TRIGGERS_TRIGGER_H
#define CHIME_TRIGGERS_TRIGGER_H

#include "chime.h"
#include "triggers/calendar.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A next or previous fire time that does not exist (chime.h's). */
#define CHIME_NO_FIRE CHIME_NO_FIRE_MS
/* end_ms of a schedule that never ends. */
#define CHIME_END_NONE INT64_MAX

/* Instants a schedule may name: 0001-01-01T00:00Z .. 9999-12-31T23:59:59.999Z.
 */
#define CHIME__TRIGGER_MIN_MS INT64_C(-62135596800000)
#define CHIME__TRIGGER_MAX_MS INT64_C(253402300799999)
/* Searches give up this many years (of 366 days) after their first candidate.
 */
#define CHIME__TRIGGER_GIVEUP_YEARS 100
#define CHIME__TRIGGER_GIVEUP_MS                                               \
  ((int64_t)CHIME__TRIGGER_GIVEUP_YEARS * 366 * INT64_C(86400000))
/* ... or after examining this many calendar-excluded candidates. */
#define CHIME__TRIGGER_MAX_SKIPS 1000000
/* Largest calendar-interval interval, in units. */
#define CHIME__CALINT_MAX_INTERVAL 1000000
/* Largest simple-trigger interval: the whole range of instants. */
#define CHIME__SIMPLE_MAX_INTERVAL_MS                                          \
  (CHIME__TRIGGER_MAX_MS - CHIME__TRIGGER_MIN_MS)
/* Daily-time-interval: the largest interval is 24 hours (as in Quartz). */
#define CHIME__DAILY_MAX_INTERVAL_S 86400
/* Daily-time-interval days: bit 0 Sunday ... bit 6 Saturday. */
#define CHIME__DAILY_ALL_DAYS 0x7Fu

/*
 * The immutable definition of a trigger.  Which union member is read
 * depends on kind.  calendar and zone are borrowed: they must outlive every
 * call that is given the schedule.
 */
typedef struct chime_schedule {
  chime_trigger_kind kind;
  int64_t start_ms;               /* first possible fire */
  int64_t end_ms;                 /* CHIME_END_NONE for none; >= start_ms */
  chime_misfire misfire;          /* must be valid for kind */
  int priority;                   /* carried, never interpreted here */
  const chime_calendar *calendar; /* excluded times are skipped; may be NULL */
  const chime_zone *zone;         /* required for cron, calint, daily */
  int64_t jitter_ms;              /* J: 0 (none) .. CHIME_JITTER_MAX_MS */
  int64_t jitter_offset_ms; /* in [0, J): chime_key_get_jitter_offset_ms(key) */
  union {
    struct {
      int64_t interval_ms;  /* >= 1; 0 allowed when repeat_count == 0 */
      int32_t repeat_count; /* fires 1 + repeat_count times, or
                               CHIME_REPEAT_INDEFINITELY */
    } simple;
    struct {
      const chime_cron *cron; /* borrowed, required */
    } cron;
    struct {
      const chime_rrule *rule; /* borrowed, required */
    } rrule;
    struct {
      int32_t interval;              /* 1 .. CHIME__CALINT_MAX_INTERVAL */
      chime_interval_unit unit;      /* MILLISECOND .. YEAR */
      bool preserve_hour_of_day;     /* Quartz's
                                        preserveHourOfDayAcrossDaylightSavings */
      bool skip_day_if_hour_missing; /* Quartz's skipDayIfHourDoesNotExist */
    } calint;
    struct {
      int32_t start_sec_of_day; /* window start, 0 .. 86399, wall clock */
      int32_t end_sec_of_day;   /* window end (inclusive), >= start */
      unsigned days_of_week;    /* bit 0 Sunday .. bit 6 Saturday, non-zero */
      int32_t interval;         /* >= 1, at most 24 hours */
      chime_interval_unit unit; /* SECOND, MINUTE or HOUR */
      int32_t repeat_count;     /* fires 1 + repeat_count times in all, or
                                   CHIME_REPEAT_INDEFINITELY */
    } daily;
  } u;
} chime_schedule;

/*
 * What changes as a trigger fires; the stores persist all of it.
 * start_ms and repeat_count start as the schedule's (repeat_count is
 * meaningful for simple triggers only) and change only when a simple
 * trigger's RESCHEDULE_NOW_* misfire instruction applies, exactly where
 * Quartz rewrites its startTime and repeatCount.  A daily-time-interval
 * state that has fired and has no next fire is finished for good (Quartz's
 * "complete" flag): fire_after answers CHIME_ENEVERFIRES for it.
 */
typedef struct chime_fire_state {
  int64_t next_fire_ms;    /* CHIME_NO_FIRE once the trigger is finished */
  int64_t prev_fire_ms;    /* CHIME_NO_FIRE before the first fire */
  int64_t times_triggered; /* fires so far (Quartz's timesTriggered) */
  int64_t start_ms;        /* the effective start */
  int32_t repeat_count;    /* the effective repeat count (simple) */
} chime_fire_state;

/*
 * chime__schedule_validate: checks a schedule: kind, instants in range,
 * end not before start, misfire instruction valid for the kind, zone,
 * calendar-free fields of the kind (intervals, units, repeat counts,
 * windows, days).  Returns: 0; CHIME_EINVAL (NULL, or a bad field: errbuf
 * names it, e.g. "end time is before start time"); CHIME_ELIMIT (a value
 * past a limit of this header).  errbuf may be NULL; when errbuf_len > 0 it
 * is always NUL-terminated.  Thread: any.
 */
int chime__schedule_validate(const chime_schedule *s, char *errbuf,
                             size_t errbuf_len);

/*
 * chime__trigger_state_init: the state of a trigger that has not been
 * scheduled yet (no next or previous fire, no fires, the schedule's start
 * and repeat count).  s must be valid.  Thread: any.
 */
void chime__trigger_state_init(const chime_schedule *s, chime_fire_state *ret);

/*
 * chime__trigger_first_fire: Quartz's computeFirstFireTime: the initial
 * state with next_fire_ms set to the first fire time that the calendar
 * includes.  Returns: 0; CHIME_EINVAL (invalid schedule);
 * CHIME_ENEVERFIRES (it would never fire: Quartz's "will never fire").
 * Thread: any.
 */
int chime__trigger_first_fire(const chime_schedule *s, chime_fire_state *ret);

/*
 * chime__trigger_fire_after: the first fire time strictly after after_ms
 * (getFireTimeAfter) that the calendar includes, honouring the end time and
 * the repeat count.  st may be NULL for the initial state.
 * Returns: 0; CHIME_EINVAL; CHIME_ENEVERFIRES (no such time, or the search
 * bound was reached).  Thread: any.
 */
int chime__trigger_fire_after(const chime_schedule *s,
                              const chime_fire_state *st, int64_t after_ms,
                              int64_t *ret_ms);

/*
 * chime__trigger_final_fire: Quartz's getFinalFireTime (the calendar is not
 * consulted, as in Quartz).  *ret_ms is CHIME_NO_FIRE when there is none
 * (no end time and, for simple triggers, no repeat limit).  st may be
 * NULL.  Simple: Quartz's value (the last repeat, or the last grid time at
 * or before the end).  Calendar-interval: Quartz's rule, one interval back
 * from the first fire at or after the end (the end itself when it is a
 * fire time), never before the start.  Cron and daily: the last fire at or
 * before the end, found by bisection over fire_after (Quartz answers null
 * for cron, and for daily the end time or its day's window end, neither of
 * which need be a fire time).
 * Returns: 0; CHIME_EINVAL.  Thread: any.
 */
int chime__trigger_final_fire(const chime_schedule *s,
                              const chime_fire_state *st, int64_t *ret_ms);

/*
 * chime__trigger_triggered: Quartz's triggered(): the bookkeeping once the
 * fire at st->next_fire_ms happened: times_triggered + 1 (for cron too,
 * which Quartz does not count), prev = next, next = the next included fire
 * time after it, or CHIME_NO_FIRE.  s must be valid.  Thread: any.
 */
void chime__trigger_triggered(const chime_schedule *s, chime_fire_state *st);

/*
 * chime__trigger_skip_before: the fires a FORBID_SKIP job's trigger missed
 * while the job ran: each fire time before now_ms counts as triggered
 * (chime__trigger_triggered), at most max of them; *ret_skipped (may be
 * NULL) receives how many, and *ret_first_ms (may be NULL) the first
 * skipped time (unchanged when none).  s must be valid.  Thread: any.
 */
void chime__trigger_skip_before(const chime_schedule *s, chime_fire_state *st,
                                int64_t now_ms, int64_t max,
                                int64_t *ret_skipped, int64_t *ret_first_ms);

/*
 * chime__trigger_queue_excess: how many of the fire times before now_ms
 * (at most max counted) exceed keep: the ones a job's queue drops
 * (chime__queue_keep) so that at most keep stay due.  st is not changed.
 * Thread: any.
 */
int64_t chime__trigger_queue_excess(const chime_schedule *s,
                                    const chime_fire_state *st, int64_t now_ms,
                                    int64_t keep, int64_t max);

/*
 * chime__trigger_refire_after_change: the next fire of a trigger whose
 * definition changed under it (its calendar was replaced, its zone's rules
 * were reloaded): the first included fire time after its previous fire, or
 * from its start when it never fired (Quartz's updateWithNewCalendar).
 * Why from the previous fire and not from now: a fire the new rules move
 * into the past is not lost but due at once, and the misfire policy
 * decides (the stores' misfire scan); and the answer does not depend on
 * when or how often it is asked, so every node that recomputes agrees.
 * Returns: as chime__trigger_fire_after.  Thread: any.
 */
int chime__trigger_refire_after_change(const chime_schedule *s,
                                       const chime_fire_state *st,
                                       int64_t *ret_ms);

/* chime__trigger_may_fire_again: whether st has a next fire time. */
bool chime__trigger_may_fire_again(const chime_fire_state *st);

/* ------------------------------------------------------------------------
 * Inside the trigger layer: each kind's raw getFireTimeAfter (no calendar),
 * its checks and its final fire, and java.util.Calendar arithmetic.  Each
 * *_after returns 0 with a time strictly after after_ms, or
 * CHIME_ENEVERFIRES.
 */
int chime__simple_check(const chime_schedule *s, char *errbuf, size_t len);
int chime__simple_after(const chime_schedule *s, const chime_fire_state *st,
                        int64_t after_ms, int64_t *ret_ms);
int64_t chime__simple_final(const chime_schedule *s,
                            const chime_fire_state *st);
/* Quartz's computeNumTimesFiredBetween: whole intervals in [from, to]. */
int64_t chime__simple_times_between(const chime_schedule *s, int64_t from_ms,
                                    int64_t to_ms);

int chime__cron_check(const chime_schedule *s, char *errbuf, size_t len);
int chime__cron_after(const chime_schedule *s, int64_t after_ms,
                      int64_t *ret_ms);
int64_t chime__cron_final(const chime_schedule *s);

int chime__rrule_check(const chime_schedule *s, char *errbuf, size_t len);
int chime__rrule_after(const chime_schedule *s, int64_t after_ms,
                       int64_t *ret_ms);
int64_t chime__rrule_final(const chime_schedule *s);

int chime__calint_check(const chime_schedule *s, char *errbuf, size_t len);
/* ignore_end: Quartz's getFireTimeAfter(after, ignoreEndTime). */
int chime__calint_after(const chime_schedule *s, int64_t after_ms,
                        bool ignore_end, int64_t *ret_ms);
int64_t chime__calint_final(const chime_schedule *s);

int chime__daily_check(const chime_schedule *s, char *errbuf, size_t len);
int chime__daily_after(const chime_schedule *s, const chime_fire_state *st,
                       int64_t after_ms, int64_t *ret_ms);
int64_t chime__daily_final(const chime_schedule *s);

/*
 * java.util.GregorianCalendar (lenient) arithmetic in a zone, which Quartz's
 * calendar-based triggers are defined by:
 *   - add_days: add(DAY_OF_YEAR, n): same wall-clock time n days later,
 *     adjusted by the change of UTC offset, keeping the date (so a time in a
 *     spring-forward gap lands an hour earlier, before the gap);
 *   - add_months: add(MONTH, n): the day of month pinned to the new month's
 *     length (Jan 31 + 1 month = Feb 28 or 29), the wall-clock time resolved
 *     again (a gap moves it forward);
 *   - set_time_of_day: set(HOUR_OF_DAY..MILLISECOND) on t's local date;
 *   - hour: get(HOUR_OF_DAY).
 */
int64_t chime__jcal_add_days(const chime_zone *zone, int64_t t_ms,
                             int64_t days);
int64_t chime__jcal_add_months(const chime_zone *zone, int64_t t_ms,
                               int64_t months);
int64_t chime__jcal_set_time_of_day(const chime_zone *zone, int64_t t_ms,
                                    int hour, int minute, int second,
                                    int millisecond);
int chime__jcal_hour(const chime_zone *zone, int64_t t_ms);

#endif /* CHIME_TRIGGERS_TRIGGER_H */
