/*
 * cron_describe.c: an English description of a compiled cron expression,
 * e.g. "at 10:15:00, every day" or "every 5 minutes, second 0, hours 9-17,
 * on Monday-Friday".  A "set" is one field's values as a bit set; a set
 * is described as every value, one value, an increment ("every 5 minutes")
 * or a list in which runs of three or more values become ranges.
 */
#include "triggers/cron.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far more than the longest description (every year listed is ~1,200). */
#define DESCRIBE_MAX 4096

static const char *const month_words[13] = {
    "",     "January", "February",  "March",   "April",    "May",     "June",
    "July", "August",  "September", "October", "November", "December"};
static const char *const day_words[7] = {"Sunday",    "Monday",   "Tuesday",
                                         "Wednesday", "Thursday", "Friday",
                                         "Saturday"};

/* A bounded text builder; ok turns false if the text would not fit. */
typedef struct text {
  char buf[DESCRIBE_MAX];
  size_t len;
  bool ok;
} text;

static void add(text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...) {
  if (!t->ok)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof t->buf - t->len)
    t->ok = false;
  else
    t->len += (size_t)n;
}

/* A set of values lo..hi (at most 256 of them) as a sorted array. */
typedef struct values {
  int v[256];
  int n;
} values;

static void values_from_bits(values *vs, const uint64_t *words, int lo, int hi,
                             int offset) {
  vs->n = 0;
  for (int i = lo; i <= hi; i++)
    if ((words[(i - offset) / 64] >> ((i - offset) % 64)) & 1)
      vs->v[vs->n++] = i;
}

/* Appends one value: a number, or a month or day name. */
static void add_value(text *t, int v, const char *const *names) {
  if (names != NULL)
    add(t, "%s", names[v]);
  else
    add(t, "%d", v);
}

/* Appends the values as a list; runs of three or more become ranges. */
static void add_list(text *t, const values *vs, const char *const *names) {
  for (int i = 0; i < vs->n;) {
    int j = i;
    while (j + 1 < vs->n && vs->v[j + 1] == vs->v[j] + 1)
      j++;
    if (i > 0)
      add(t, ",");
    add_value(t, vs->v[i], names);
    if (j - i >= 2) {
      add(t, "-");
      add_value(t, vs->v[j], names);
      i = j + 1;
    } else {
      i++;
    }
  }
}

/* The increment k when the set is exactly "first/k" up to hi, else 0. */
static int increment_of(const values *vs, int hi) {
  if (vs->n < 2)
    return 0;
  int k = vs->v[1] - vs->v[0];
  for (int i = 2; i < vs->n; i++)
    if (vs->v[i] - vs->v[i - 1] != k)
      return 0;
  return vs->v[vs->n - 1] + k > hi ? k : 0;
}

/* Describes a time-of-day field: unit is "second", "minute" or "hour". */
static void add_time_field(text *t, uint64_t bits, int hi, const char *unit) {
  values vs;
  values_from_bits(&vs, &bits, 0, hi, 0);
  int k = increment_of(&vs, hi);
  if (vs.n == hi + 1)
    add(t, "every %s", unit);
  else if (vs.n == 1)
    add(t, "%s %d", unit, vs.v[0]);
  else if (k > 1 && vs.v[0] == 0)
    add(t, "every %d %ss", k, unit);
  else if (k > 1)
    add(t, "every %d %ss from %s %d", k, unit, unit, vs.v[0]);
  else {
    add(t, "%ss ", unit);
    add_list(t, &vs, NULL);
  }
}

/* "1st", "2nd", "3rd", "4th", "5th". */
static const char *ordinal(int n) {
  static const char *const words[6] = {"", "1st", "2nd", "3rd", "4th", "5th"};
  return n >= 1 && n <= 5 ? words[n] : "nth";
}

/* Describes the day-of-month form. */
static void add_dom(text *t, const chime_cron *c) {
  uint64_t bits = c->dom;
  values vs;
  switch (c->dom_kind) {
  case CHIME_CRON_DOM_LAST:
  case CHIME_CRON_DOM_LAST_WEEKDAY:
    add(t, "on the %slast day of the month",
        c->dom_kind == CHIME_CRON_DOM_LAST ? "" : "weekday nearest the ");
    if (c->dom_offset > 0)
      add(t, " minus %d day%s", c->dom_offset, c->dom_offset == 1 ? "" : "s");
    return;
  case CHIME_CRON_DOM_NEAREST_WEEKDAY:
    add(t, "on the weekday nearest day %d of the month", c->dom_day);
    return;
  default:
    values_from_bits(&vs, &bits, 1, 31, 0);
    if (vs.n == 31) {
      add(t, "every day");
      return;
    }
    add(t, vs.n == 1 ? "on day " : "on days ");
    add_list(t, &vs, NULL);
    add(t, " of the month");
  }
}

/* Describes the day-of-week form. */
static void add_dow(text *t, const chime_cron *c) {
  uint64_t bits = c->dow;
  values vs;
  if (c->dow_kind == CHIME_CRON_DOW_LAST) {
    add(t, "on the last %s of the month", day_words[c->dow_day]);
    return;
  }
  if (c->dow_kind == CHIME_CRON_DOW_NTH) {
    add(t, "on the %s %s of the month", ordinal(c->dow_nth),
        day_words[c->dow_day]);
    return;
  }
  values_from_bits(&vs, &bits, 0, 6, 0);
  if (vs.n == 7) {
    add(t, "every day");
    return;
  }
  add(t, "on ");
  add_list(t, &vs, day_words);
}

/* Describes the time of day: "at 10:15:00", or field by field. */
static void add_time(text *t, const chime_cron *c) {
  bool one = __builtin_popcountll(c->seconds) == 1 &&
             __builtin_popcountll(c->minutes) == 1 &&
             __builtin_popcount(c->hours) == 1;
  if (one) {
    add(t, "at %02d:%02d:%02d", __builtin_ctz(c->hours),
        __builtin_ctzll(c->minutes), __builtin_ctzll(c->seconds));
    return;
  }
  add_time_field(t, c->seconds, 59, "second");
  add(t, ", ");
  add_time_field(t, c->minutes, 59, "minute");
  add(t, ", ");
  add_time_field(t, c->hours, 23, "hour");
}

/*
 * chime_cron_describe (chime.h): "<time of day>, <days>[, in <months>]
 * [, in <years>]".  Thread: any.
 */
int chime_cron_describe(const chime_cron *cron, char **ret_text) {
  if (cron == NULL || ret_text == NULL)
    return CHIME_EINVAL;
  text *t = malloc(sizeof *t);
  if (t == NULL)
    return CHIME_ENOMEM;
  t->len = 0;
  t->ok = true;
  t->buf[0] = '\0';
  add_time(t, cron);
  add(t, ", ");
  if (cron->day_mode != CHIME_CRON_BY_DOW)
    add_dom(t, cron);
  if (cron->day_mode == CHIME_CRON_BY_EITHER)
    add(t, " or ");
  if (cron->day_mode != CHIME_CRON_BY_DOM)
    add_dow(t, cron);
  uint64_t months = cron->months;
  values vs;
  values_from_bits(&vs, &months, 1, 12, 0);
  if (vs.n < 12) {
    add(t, ", in ");
    add_list(t, &vs, month_words);
  }
  values_from_bits(&vs, cron->years, CHIME_CRON_YEAR_MIN, CHIME_CRON_YEAR_MAX,
                   CHIME_CRON_YEAR_MIN);
  if (vs.n < CHIME_CRON_YEAR_MAX - CHIME_CRON_YEAR_MIN + 1) {
    add(t, vs.n == 1 ? ", in " : ", in years ");
    add_list(t, &vs, NULL);
  }
  char *out = t->ok ? strdup(t->buf) : NULL;
  int r = !t->ok ? CHIME_EINTERNAL : out == NULL ? CHIME_ENOMEM : 0;
  free(t);
  if (r == 0)
    *ret_text = out;
  return r;
}
