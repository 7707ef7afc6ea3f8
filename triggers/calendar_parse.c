/*
 * calendar_parse.c: reads the text form calendar_string.c writes (see
 * calendar.h), and Quartz's time-of-day strings ("HH:MM[:SS[:mmm]]").
 * Every line is checked in full: unknown kinds and keys, repeated keys,
 * missing fields and malformed values are errors naming the line; values
 * are then validated by the kind's constructor, as if given by a caller.
 */
#include "triggers/calendar_impl.h"
#include "triggers/civil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A piece of the text: n bytes at p, not NUL-terminated. */
typedef struct span {
  const char *p;
  size_t n;
} span;

enum { F_ZONE, F_DESC, F_DAYS, F_DATES, F_START, F_END, F_INVERT, F_EXPR, NF };

static const char *const field_names[NF] = {"zone",  "desc", "days",   "dates",
                                            "start", "end",  "invert", "expr"};

/* Fields each kind allows (zone and desc are common) and requires. */
#define COMMON ((1u << F_ZONE) | (1u << F_DESC))
static const unsigned kind_allowed[7] = {
    [CHIME_CALENDAR_ANNUAL] = COMMON | 1u << F_DAYS,
    [CHIME_CALENDAR_HOLIDAY] = COMMON | 1u << F_DATES,
    [CHIME_CALENDAR_MONTHLY] = COMMON | 1u << F_DAYS,
    [CHIME_CALENDAR_WEEKLY] = COMMON | 1u << F_DAYS,
    [CHIME_CALENDAR_DAILY] =
        COMMON | 1u << F_START | 1u << F_END | 1u << F_INVERT,
    [CHIME_CALENDAR_CRON] = COMMON | 1u << F_EXPR,
};
static const unsigned kind_required[7] = {
    [CHIME_CALENDAR_ANNUAL] = 1u << F_DAYS,
    [CHIME_CALENDAR_HOLIDAY] = 1u << F_DATES,
    [CHIME_CALENDAR_MONTHLY] = 1u << F_DAYS,
    [CHIME_CALENDAR_WEEKLY] = 1u << F_DAYS,
    [CHIME_CALENDAR_DAILY] = 1u << F_START | 1u << F_END,
    [CHIME_CALENDAR_CRON] = 1u << F_EXPR,
};

/* One line taken apart. */
typedef struct line_parts {
  int lineno;
  chime_calendar_kind kind;
  span val[NF];
  unsigned set;
} line_parts;

static bool span_is(span s, const char *word) {
  return s.n == strlen(word) && memcmp(s.p, word, s.n) == 0;
}

/* Reads 1 to max_digits decimal digits at *s; advances *s. */
static bool read_uint(const char **s, const char *end, int max_digits,
                      int *ret) {
  int v = 0, n = 0;
  while (*s < end && **s >= '0' && **s <= '9' && n < max_digits) {
    v = v * 10 + (**s - '0');
    (*s)++;
    n++;
  }
  if (n == 0 || (*s < end && **s >= '0' && **s <= '9'))
    return false;
  *ret = v;
  return true;
}

/* Parses a time of day held in s[0..n). */
static int time_of_day(span s, int32_t *ret_ms, char *errbuf,
                       size_t errbuf_len) {
  const char *p = s.p, *end = s.p + s.n;
  int f[4] = {0, 0, 0, 0};
  int nf = 0;
  bool ok = read_uint(&p, end, 4, &f[nf++]);
  while (ok && p < end && nf < 4) {
    char sep = *p++;
    const char *digits = p;
    if (sep != ':' && !(sep == '.' && nf == 3))
      ok = false;
    else
      ok = read_uint(&p, end, 4, &f[nf++]);
    /* After a '.' the milliseconds are a fraction: exactly three digits. */
    if (ok && sep == '.' && p - digits != 3)
      ok = false;
  }
  int shown = s.n > 64 ? 64 : (int)s.n;
  if (!ok || p != end || nf < 2)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "malformed time of day '%.*s': expected "
                       "HH:MM[:SS[:mmm]]",
                       shown, s.p);
  static const char *const names[4] = {"hour", "minute", "second",
                                       "millisecond"};
  static const int limits[4] = {23, 59, 59, 999};
  for (int i = 0; i < 4; i++)
    if (f[i] > limits[i])
      return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                         "%s %d is not 0-%d in '%.*s'", names[i], f[i],
                         limits[i], shown, s.p);
  *ret_ms = (int32_t)(f[0] * CHIME_MS_PER_HOUR + f[1] * CHIME_MS_PER_MINUTE +
                      f[2] * CHIME_MS_PER_SECOND + f[3]);
  return 0;
}

int chime__calendar_time_of_day_from_string(const char *text, int32_t *ret_ms,
                                            char *errbuf, size_t errbuf_len) {
  if (text == NULL || ret_ms == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL, "no time of day");
  size_t n = strnlen(text, 32);
  if (n == 32)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "time of day is too long");
  return time_of_day((span){text, n}, ret_ms, errbuf, errbuf_len);
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

/* Percent-decodes a field into a new string (NUL bytes are refused). */
static int decode(const line_parts *lp, int field, char **ret, char *errbuf,
                  size_t errbuf_len) {
  span s = lp->val[field];
  char *out = malloc(s.n + 1);
  if (out == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  size_t o = 0;
  for (size_t i = 0; i < s.n; i++) {
    if (s.p[i] != '%') {
      out[o++] = s.p[i];
      continue;
    }
    int hi = i + 2 < s.n ? hex_value(s.p[i + 1]) : -1;
    int lo = i + 2 < s.n ? hex_value(s.p[i + 2]) : -1;
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
      free(out);
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: bad escape in %s", lp->lineno,
                         field_names[field]);
    }
    out[o++] = (char)(hi * 16 + lo);
    i += 2;
  }
  out[o] = '\0';
  *ret = out;
  return 0;
}

/* Takes a line apart into its kind and fields; checks keys only. */
static int split_line(span line, line_parts *lp, char *errbuf,
                      size_t errbuf_len) {
  const char *p = line.p, *end = line.p + line.n;
  const char *word_end = memchr(p, ' ', line.n);
  span kind = {p, (size_t)((word_end ? word_end : end) - p)};
  lp->kind = 0;
  for (int k = 1; k < 7; k++)
    if (span_is(kind, chime__calendar_kind_names[k]))
      lp->kind = (chime_calendar_kind)k;
  if (lp->kind == 0)
    return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                       "line %d: unknown calendar kind '%.*s'", lp->lineno,
                       (int)(kind.n > 32 ? 32 : kind.n), kind.p);
  p += kind.n;
  while (p < end) {
    p++; /* the space */
    const char *tok_end = memchr(p, ' ', (size_t)(end - p));
    if (tok_end == NULL)
      tok_end = end;
    const char *eq = memchr(p, '=', (size_t)(tok_end - p));
    int f = -1;
    for (int i = 0; eq != NULL && i < NF; i++)
      if (span_is((span){p, (size_t)(eq - p)}, field_names[i]))
        f = i;
    if (f < 0 || !((kind_allowed[lp->kind] >> f) & 1u))
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: unexpected field '%.*s' for a %s calendar",
                         lp->lineno, (int)(tok_end - p > 32 ? 32 : tok_end - p),
                         p, chime__calendar_kind_names[lp->kind]);
    if ((lp->set >> f) & 1u)
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: field %s given twice", lp->lineno,
                         field_names[f]);
    lp->set |= 1u << f;
    lp->val[f] = (span){eq + 1, (size_t)(tok_end - eq - 1)};
    p = tok_end;
  }
  unsigned missing = kind_required[lp->kind] & ~lp->set;
  for (int f = 0; f < NF; f++)
    if ((missing >> f) & 1u)
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: a %s calendar needs field %s", lp->lineno,
                         chime__calendar_kind_names[lp->kind], field_names[f]);
  return 0;
}

/* Items of a comma-separated list; an empty value has none. */
static size_t list_count(span s) {
  if (s.n == 0)
    return 0;
  size_t n = 1;
  for (size_t i = 0; i < s.n; i++)
    n += s.p[i] == ',';
  return n;
}

/* The next item of a list, advancing *rest past it and its comma. */
static span list_next(span *rest) {
  const char *comma = memchr(rest->p, ',', rest->n);
  size_t n = comma ? (size_t)(comma - rest->p) : rest->n;
  span item = {rest->p, n};
  size_t skip = comma ? n + 1 : n;
  rest->p += skip;
  rest->n -= skip;
  return item;
}

/* Reads "MM-DD" (annual) or "YYYY-MM-DD" (holiday) dates. */
static int read_dates(const line_parts *lp, int field, bool with_year,
                      chime_calendar_date **ret, size_t *ret_count,
                      char *errbuf, size_t errbuf_len) {
  span rest = lp->val[field];
  size_t n = list_count(rest);
  if (n > CHIME__CALENDAR_MAX_HOLIDAYS)
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                       "line %d: %zu dates exceed the limit %d", lp->lineno, n,
                       CHIME__CALENDAR_MAX_HOLIDAYS);
  chime_calendar_date *dates = calloc(n ? n : 1, sizeof *dates);
  if (dates == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    span item = list_next(&rest);
    const char *p = item.p, *end = item.p + item.n;
    bool ok = true;
    if (with_year)
      ok = read_uint(&p, end, 4, &dates[i].year) && p < end && *p++ == '-';
    ok = ok && read_uint(&p, end, 2, &dates[i].month) && p < end &&
         *p++ == '-' && read_uint(&p, end, 2, &dates[i].day) && p == end;
    if (!ok) {
      free(dates);
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: malformed date '%.*s'", lp->lineno,
                         (int)(item.n > 32 ? 32 : item.n), item.p);
    }
  }
  *ret = dates;
  *ret_count = n;
  return 0;
}

/* Reads monthly days (1-31) or weekday names into a bit mask. */
static int read_day_mask(const line_parts *lp, uint32_t *ret_mask, char *errbuf,
                         size_t errbuf_len) {
  span rest = lp->val[F_DAYS];
  size_t n = list_count(rest);
  uint32_t mask = 0;
  for (size_t i = 0; i < n; i++) {
    span item = list_next(&rest);
    int bit = -1;
    if (lp->kind == CHIME_CALENDAR_WEEKLY) {
      for (int w = 0; w < 7; w++)
        if (span_is(item, chime__calendar_weekday_names[w]))
          bit = w;
    } else {
      const char *p = item.p;
      int d;
      if (read_uint(&p, item.p + item.n, 2, &d) && p == item.p + item.n) {
        if (d < 1 || d > 31)
          return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                             "line %d: day %d of the month is not "
                             "1-31",
                             lp->lineno, d);
        bit = d;
      }
    }
    if (bit < 0)
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: malformed day '%.*s'", lp->lineno,
                         (int)(item.n > 32 ? 32 : item.n), item.p);
    mask |= UINT32_C(1) << bit;
  }
  *ret_mask = mask;
  return 0;
}

/* Builds the calendar a split line describes, on top of base. */
static int build_kind(const line_parts *lp, const chime_calendar_opts *opts,
                      chime_calendar **ret_cal, char *errbuf,
                      size_t errbuf_len) {
  chime_calendar_date *dates = NULL;
  size_t count = 0;
  uint32_t mask = 0;
  int32_t start = 0, end = 0;
  char *expr = NULL;
  int rc;
  switch (lp->kind) {
  case CHIME_CALENDAR_ANNUAL:
  case CHIME_CALENDAR_HOLIDAY: {
    bool holiday = lp->kind == CHIME_CALENDAR_HOLIDAY;
    rc = read_dates(lp, holiday ? F_DATES : F_DAYS, holiday, &dates, &count,
                    errbuf, errbuf_len);
    if (rc < 0)
      return rc;
    rc = holiday ? chime__calendar_holiday_new(opts, dates, count, ret_cal,
                                               errbuf, errbuf_len)
                 : chime__calendar_annual_new(opts, dates, count, ret_cal,
                                              errbuf, errbuf_len);
    free(dates);
    return rc;
  }
  case CHIME_CALENDAR_MONTHLY:
  case CHIME_CALENDAR_WEEKLY:
    rc = read_day_mask(lp, &mask, errbuf, errbuf_len);
    if (rc < 0)
      return rc;
    if (lp->kind == CHIME_CALENDAR_MONTHLY)
      return chime__calendar_monthly_new(opts, mask, ret_cal, errbuf,
                                         errbuf_len);
    return chime__calendar_weekly_new(opts, mask, ret_cal, errbuf, errbuf_len);
  case CHIME_CALENDAR_DAILY: {
    span inv = lp->val[F_INVERT];
    bool has_inv = (lp->set >> F_INVERT) & 1u;
    if (has_inv && !span_is(inv, "0") && !span_is(inv, "1"))
      return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                         "line %d: invert must be 0 or 1", lp->lineno);
    if ((rc = time_of_day(lp->val[F_START], &start, errbuf, errbuf_len)) < 0 ||
        (rc = time_of_day(lp->val[F_END], &end, errbuf, errbuf_len)) < 0)
      return rc;
    return chime__calendar_daily_new(opts, start, end,
                                     has_inv && span_is(inv, "1"), ret_cal,
                                     errbuf, errbuf_len);
  }
  case CHIME_CALENDAR_CRON:
    if ((rc = decode(lp, F_EXPR, &expr, errbuf, errbuf_len)) < 0)
      return rc;
    rc = chime__calendar_cron_new(opts, expr, ret_cal, errbuf, errbuf_len);
    free(expr);
    return rc;
  }
  return CHIME_EINTERNAL;
}

/* Parses one calendar line (1-based lineno) built on top of base. */
static int parse_line(span line, int lineno, chime_calendar *base,
                      chime_calendar **ret_cal, char *errbuf,
                      size_t errbuf_len) {
  line_parts lp = {.lineno = lineno};
  int rc = split_line(line, &lp, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  chime_calendar_opts opts = {.base = base};
  char *zone_name = NULL, *desc = NULL;
  if ((lp.set >> F_ZONE) & 1u) {
    if ((rc = decode(&lp, F_ZONE, &zone_name, errbuf, errbuf_len)) < 0)
      return rc;
    rc = chime_zone_get(zone_name, &opts.zone);
    if (rc < 0) {
      chime__errf(errbuf, errbuf_len, rc, "line %d: zone '%.64s': %s", lineno,
                  zone_name, chime_strerror(rc));
      free(zone_name);
      return rc;
    }
    free(zone_name);
  }
  if ((lp.set >> F_DESC) & 1u) {
    if ((rc = decode(&lp, F_DESC, &desc, errbuf, errbuf_len)) < 0)
      return rc;
    opts.description = desc;
  }
  rc = build_kind(&lp, &opts, ret_cal, errbuf, errbuf_len);
  free(desc);
  return rc;
}

int chime__calendar_from_string(const char *text, chime_calendar **ret_cal,
                                char *errbuf, size_t errbuf_len) {
  if (text == NULL || ret_cal == NULL)
    return chime__errf(errbuf, errbuf_len, CHIME_EINVAL,
                       "no text or no place for the calendar");
  size_t len = strnlen(text, CHIME__CALENDAR_MAX_STRING + 1);
  if (len > CHIME__CALENDAR_MAX_STRING)
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                       "text exceeds the limit of %d bytes",
                       CHIME__CALENDAR_MAX_STRING);
  span lines[CHIME__CALENDAR_MAX_DEPTH + 1];
  int n = 0;
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (n == CHIME__CALENDAR_MAX_DEPTH + 1)
      return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT,
                         "more than %d calendars in a chain",
                         CHIME__CALENDAR_MAX_DEPTH);
    lines[n++] = (span){p, (size_t)((nl ? nl : end) - p)};
    p = nl ? nl + 1 : end;
  }
  if (n == 0 || !span_is(lines[0], CHIME__CALENDAR_VERSION_LINE))
    return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                       "line 1: expected '%s'", CHIME__CALENDAR_VERSION_LINE);
  if (n == 1)
    return chime__errf(errbuf, errbuf_len, CHIME_EFORMAT,
                       "line 2: no calendar");
  /* Bases come last: build from the innermost outwards. */
  chime_calendar *cal = NULL;
  for (int i = n - 1; i >= 1; i--) {
    chime_calendar *outer;
    int rc = parse_line(lines[i], i + 1, cal, &outer, errbuf, errbuf_len);
    chime__calendar_unref(cal);
    if (rc < 0)
      return rc;
    cal = outer;
  }
  *ret_cal = cal;
  return 0;
}
