/*
 * cron.h: the private layout of a compiled cron expression (the public
 * chime_cron) and the internal steps that build and search it.
 *
 * Terms: a "field" is one of the seven space-separated parts of an
 * expression (second, minute, hour, day-of-month, month, day-of-week,
 * year); a "local time" is a wall-clock time with no zone, held as seconds
 * since 1970-01-01T00:00:00 read as if it were UTC ("local seconds").  The
 * expression matches local times; cron_next.c maps them to instants.
 */
#ifndef CHIME_TRIGGERS_CRON_H
#define CHIME_TRIGGERS_CRON_H

#include "chime.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The year field's range.  Quartz accepts any year but stops firing after
 * "the current year + 100"; chime fixes the bound so answers do not depend
 * on the date of the run (docs/cron.md).
 */
#define CHIME_CRON_YEAR_MIN 1970
#define CHIME_CRON_YEAR_MAX 2199
#define CHIME_CRON_YEAR_WORDS                                                  \
  ((CHIME_CRON_YEAR_MAX - CHIME_CRON_YEAR_MIN + 1 + 63) / 64)

/* Which of the two day fields decides the day (the other one is '?'). */
typedef enum chime_cron_day_mode {
  CHIME_CRON_BY_DOM = 0,   /* day-of-month decides */
  CHIME_CRON_BY_DOW = 1,   /* day-of-week decides */
  CHIME_CRON_BY_EITHER = 2 /* Unix: a day either field matches */
} chime_cron_day_mode;

/* Forms of the day-of-month field. */
typedef enum chime_cron_dom_kind {
  CHIME_CRON_DOM_SET =
      0, /* the days in dom (days past the month's end never match) */
  CHIME_CRON_DOM_LAST = 1,         /* L or L-n: the last day minus dom_offset */
  CHIME_CRON_DOM_LAST_WEEKDAY = 2, /* LW or L-nW: the weekday nearest L-n */
  CHIME_CRON_DOM_NEAREST_WEEKDAY = 3 /* nW: the weekday nearest day dom_day */
} chime_cron_dom_kind;

/* Forms of the day-of-week field. */
typedef enum chime_cron_dow_kind {
  CHIME_CRON_DOW_SET = 0,  /* the weekdays in dow */
  CHIME_CRON_DOW_LAST = 1, /* nL: the last weekday dow_day of the month */
  CHIME_CRON_DOW_NTH = 2   /* n#k: the dow_nth-th weekday dow_day */
} chime_cron_dow_kind;

/*
 * A compiled expression.  Bit i of a set means value i matches: seconds and
 * minutes 0-59, hours 0-23, dom 1-31, months 1-12, dow 0 (Sunday) - 6, and
 * years[w] bit b means year CHIME_CRON_YEAR_MIN + 64 * w + b.  Every field
 * after parsing is non-empty.  text is the expression as given.
 */
struct chime_cron {
  uint64_t seconds;
  uint64_t minutes;
  uint32_t hours;
  uint32_t dom;
  uint16_t months;
  uint8_t dow;
  uint8_t day_mode;   /* chime_cron_day_mode */
  uint8_t dom_kind;   /* chime_cron_dom_kind */
  uint8_t dom_offset; /* L-n: n (0-30) */
  uint8_t dom_day;    /* nW: n (1-31) */
  uint8_t dow_kind;   /* chime_cron_dow_kind */
  uint8_t dow_day;    /* nL and n#k: the weekday, 0 (Sunday) - 6 */
  uint8_t dow_nth;    /* n#k: k (1-5) */
  bool hour_all;      /* every hour matches (the DST overlap rule) */
  bool unix_dialect;  /* parsed as Unix cron (cron_unix.c) */
  uint64_t years[CHIME_CRON_YEAR_WORDS];
  char *text;
  char *zone; /* a Unix expression's CRON_TZ zone name, or NULL */
};

/* ASCII helpers both parsers share. */
static inline char chime__cron_upper(char c) {
  return (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
}
static inline bool chime__cron_is_alpha(char c) {
  c = chime__cron_upper(c);
  return c >= 'A' && c <= 'Z';
}
static inline bool chime__cron_is_digit(char c) {
  return c >= '0' && c <= '9';
}

/*
 * chime__cron_vfail: records a parse error at 1-based column col: the
 * column in *reterr_column and "<field> field, column <col>: <message>"
 * (or "column <col>: ..." when field is NULL) in errbuf, both optional.
 * Returns: CHIME_EPARSE.  Thread: any.
 */
int chime__cron_vfail(int *reterr_column, char *errbuf, size_t errbuf_len,
                      const char *field, size_t col, const char *fmt,
                      va_list ap);

/*
 * chime__cron_parse: compiles expr (NUL-terminated, at most
 * CHIME_CRON_MAX_LEN bytes) into *ret, every member but text.
 * Returns: 0; CHIME_EPARSE with *reterr_column (1-based) and a message
 * naming the field in errbuf (both optional).  Thread: any.
 */
int chime__cron_parse(const char *expr, chime_cron *ret, int *reterr_column,
                      char *errbuf, size_t errbuf_len);

/*
 * chime__cron_parse_unix: compiles a Unix expression (an optional
 * "CRON_TZ=Zone " or "TZ=Zone " prefix, then a macro or five fields) into
 * *ret, every member but text and zone; the prefix's zone name, if any, is
 * expr[*ret_zone_at ..] for *ret_zone_len bytes (0 without a prefix).
 * Returns: 0; CHIME_EPARSE with *reterr_column (1-based) and a message
 * (both optional).  Thread: any.
 */
int chime__cron_parse_unix(const char *expr, chime_cron *ret,
                           size_t *ret_zone_at, size_t *ret_zone_len,
                           int *reterr_column, char *errbuf, size_t errbuf_len);

/*
 * chime__cron_day_mask: the days of month (year, month) that the day fields
 * match, as a bit set (bit d for day d, 1-31).  Thread: any.
 */
uint32_t chime__cron_day_mask(const chime_cron *cron, int64_t year, int month);

/*
 * chime__cron_next_local: the first local time (local seconds) at or after
 * from_s that the expression matches, ignoring any zone.
 * Returns: 0; CHIME_ENEVERFIRES when there is none up to
 * CHIME_CRON_YEAR_MAX.  Thread: any.
 */
int chime__cron_next_local(const chime_cron *cron, int64_t from_s,
                           int64_t *ret_s);

/* True when year is in the year field (false outside its range). */
bool chime__cron_has_year(const chime_cron *cron, int64_t year);

#endif /* CHIME_TRIGGERS_CRON_H */
