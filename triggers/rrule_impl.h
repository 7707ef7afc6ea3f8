/*
 * rrule_impl.h: chime's own RFC 5545 expansion, shared by rrule.c (the
 * recurrence's lines, DTSTART, EXDATE, RDATE and the zone math),
 * rrule_parse.c (the RRULE value), rrule_match.c (which wall-clock times a
 * rule's BY* parts and INTERVAL allow) and rrule_setpos.c (a period's
 * candidates and BYSETPOS).  Nothing else includes it.
 *
 * Terms: a "candidate" is a wall-clock time, held as local seconds (civil
 * time read as if UTC, civil.h), that lies in a period INTERVAL allows and
 * passes every BY* part; an "instance" is a candidate BYSETPOS keeps (every
 * candidate when there is no BYSETPOS).  The expansion works on wall-clock
 * time only: rrule.c maps instances to instants.
 */
#ifndef CHIME_TRIGGERS_RRULE_IMPL_H
#define CHIME_TRIGGERS_RRULE_IMPL_H

#include "triggers/civil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In python-dateutil's order: a smaller value is a longer period. */
typedef enum chime__rr_freq {
  CHIME__RR_YEARLY,
  CHIME__RR_MONTHLY,
  CHIME__RR_WEEKLY,
  CHIME__RR_DAILY,
  CHIME__RR_HOURLY,
  CHIME__RR_MINUTELY,
  CHIME__RR_SECONDLY
} chime__rr_freq;

/* Limits on what a user writes (an error beyond them, never a cut). */
#define CHIME__RR_MAX_NTH 64    /* BYDAY entries with an ordinal */
#define CHIME__RR_MAX_SETPOS 64 /* BYSETPOS entries */
#define CHIME__RR_MAX_INTERVAL 1000000

/* A parsed RRULE, its defaults from DTSTART applied.  A zero mask: any. */
typedef struct chime__rr_spec {
  chime__rr_freq freq;
  int64_t interval;
  int64_t count;        /* 0: no COUNT */
  bool has_until;       /* UNTIL as written: rrule.c maps it */
  bool until_utc;       /* ...ending in Z */
  chime_civil until;    /* a date alone: 23:59:59 */
  uint64_t seconds;     /* bit s */
  uint64_t minutes;     /* bit m */
  uint32_t hours;       /* bit h */
  uint16_t months;      /* bit m, 1-12 */
  uint32_t mday_pos;    /* bit d: day d of the month */
  uint32_t mday_neg;    /* bit d: the d-th day from the month's end */
  uint64_t yday_pos[6]; /* bit d: day d of the year, 1-366 */
  uint64_t yday_neg[6];
  bool has_yday;
  uint64_t weekno_pos; /* bit n: week n, 1-53 */
  uint64_t weekno_neg;
  uint8_t wdays; /* BYDAY without an ordinal: bit w, 0 = Sunday */
  struct {
    int8_t wday;
    int8_t n; /* +-1..53 */
  } nth[CHIME__RR_MAX_NTH];
  size_t nnth;
  int16_t setpos[CHIME__RR_MAX_SETPOS]; /* +-1..366 */
  size_t nsetpos;
  int wkst; /* 0 = Sunday; MO by default */
  /* Where INTERVAL counts from: DTSTART's period, in the freq's unit
   * (year, month index year*12+month-1, week, day, hour, minute, second). */
  int64_t origin;
} chime__rr_spec;

/*
 * chime__rr_parse: reads an RRULE value ("FREQ=...;BYDAY=...") into *ret,
 * with DTSTART's defaults (RFC 5545 3.3.10) applied.
 * Returns: 0; CHIME_EPARSE or CHIME_ELIMIT with the reason in errbuf.
 */
int chime__rr_parse(const char *value, size_t len, const chime_civil *dtstart,
                    chime__rr_spec *ret, char *errbuf, size_t errbuf_len);

/*
 * chime__rr_parse_stamp: "YYYYMMDDTHHMMSS[Z]" or a date "YYYYMMDD"
 * (midnight, or 23:59:59 when end_of_day).  False when malformed.
 */
bool chime__rr_parse_stamp(const char *s, size_t n, bool end_of_day,
                           chime_civil *ret, bool *ret_utc);

/*
 * A search's scratch: the first matching time of a whole day, by the day's
 * phase against a sub-daily INTERVAL (rrule_match.c fills it lazily).
 * Zero it before the first search; free it with chime__rr_search_free.
 */
typedef struct chime__rr_search {
  const chime__rr_spec *spec;
  int32_t *by_phase; /* 0: not known yet, 1: none, else time of day + 2 */
  int64_t nphases;   /* 0: too many to keep */
  int64_t horizon;   /* local seconds: no candidate is looked for past it */
} chime__rr_search;

void chime__rr_search_init(chime__rr_search *s, const chime__rr_spec *spec,
                           int64_t from);
void chime__rr_search_free(chime__rr_search *s);

/*
 * chime__rr_next_candidate: the first candidate at or after local second
 * from and before until (exclusive).
 * Returns: true with *ret; false when there is none in the range or before
 * the search's horizon.
 */
bool chime__rr_next_candidate(chime__rr_search *s, int64_t from, int64_t until,
                              int64_t *ret);

/*
 * chime__rr_next_instance: the first instance at or after local second
 * from: a candidate, or with BYSETPOS what its period keeps.
 * Returns: true with *ret; false when there is none before the horizon.
 */
bool chime__rr_next_instance(chime__rr_search *s, int64_t from, int64_t *ret);

/* The week number (1-53) and its year's week count, weeks from wkst. */
void chime__rr_weekno(int64_t day, int wkst, int *ret_weekno, int *ret_nweeks);

#endif /* CHIME_TRIGGERS_RRULE_IMPL_H */
