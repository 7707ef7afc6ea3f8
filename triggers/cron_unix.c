/*
 * cron_unix.c: the parser for Unix (crontab) cron: five fields (minute,
 * hour, day-of-month, month, day-of-week) with '*', values, ranges "a-b",
 * increments "/n", lists, month and day names, 0 or 7 for Sunday, the
 * macros @yearly/@annually, @monthly, @weekly, @daily/@midnight and
 * @hourly, and a "CRON_TZ=Zone " (or "TZ=Zone ") prefix as Kubernetes
 * CronJob accepts.  It compiles into the same struct chime_cron as
 * Quartz's dialect (second 0, every year); when both day fields are
 * restricted (neither covers all its values) a day matches when either
 * matches, as crontab(5) says (CHIME_CRON_BY_EITHER).
 */
#include "triggers/cron.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { U_MIN, U_HOUR, U_DOM, U_MONTH, U_DOW, U_COUNT };

static const struct unix_spec {
  const char *name;
  int min;
  int max;
} uspecs[U_COUNT] = {{"minute", 0, 59},
                     {"hour", 0, 23},
                     {"day-of-month", 1, 31},
                     {"month", 1, 12},
                     {"day-of-week", 0, 7}};

static const char *const unix_months[12] = {"JAN", "FEB", "MAR", "APR",
                                            "MAY", "JUN", "JUL", "AUG",
                                            "SEP", "OCT", "NOV", "DEC"};
static const char *const unix_days[7] = {"SUN", "MON", "TUE", "WED",
                                         "THU", "FRI", "SAT"};

/* The macros and the five fields each stands for. */
static const struct macro {
  const char *name;
  const char *fields;
} macros[] = {
    {"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

typedef struct uparser {
  const char *expr; /* the fields (after any prefix) */
  size_t base;      /* columns before expr in the caller's text */
  int field;
  size_t pos, end; /* cursor and end of the current element */
  uint64_t bits;   /* bit (value) of the current field */
  int *reterr_column;
  char *errbuf;
  size_t errbuf_len;
} uparser;

static int ufail(uparser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int ufail(uparser *p, size_t pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = chime__cron_vfail(p->reterr_column, p->errbuf, p->errbuf_len,
                            p->field < U_COUNT ? uspecs[p->field].name : NULL,
                            p->base + pos + 1, fmt, ap);
  va_end(ap);
  return r;
}

static char upeek(const uparser *p) {
  return p->pos < p->end ? p->expr[p->pos] : '\0';
}

/* Reads a number (at most 4 digits) or, in month and day-of-week, a name. */
static int uread_value(uparser *p, int *ret) {
  size_t start = p->pos;
  const struct unix_spec *s = &uspecs[p->field];
  if (chime__cron_is_alpha(upeek(p))) {
    size_t n = 0;
    while (chime__cron_is_alpha(upeek(p)))
      p->pos++, n++;
    const char *const *names = p->field == U_MONTH ? unix_months
                               : p->field == U_DOW ? unix_days
                                                   : NULL;
    int count = p->field == U_MONTH ? 12 : 7;
    for (int i = 0; names != NULL && n == 3 && i < count; i++)
      if (chime__cron_upper(p->expr[start]) == names[i][0] &&
          chime__cron_upper(p->expr[start + 1]) == names[i][1] &&
          chime__cron_upper(p->expr[start + 2]) == names[i][2]) {
        *ret = p->field == U_MONTH ? i + 1 : i;
        return 0;
      }
    if (names == NULL)
      return ufail(p, start, "names are not allowed here");
    return ufail(p, start, "unknown %s name '%.*s'",
                 p->field == U_MONTH ? "month" : "day", (int)(n > 16 ? 16 : n),
                 p->expr + start);
  }
  int v = 0;
  while (chime__cron_is_digit(upeek(p))) {
    if (p->pos - start >= 4)
      return ufail(p, start, "number is too long");
    v = v * 10 + (p->expr[p->pos++] - '0');
  }
  if (p->pos == start)
    return upeek(p) == '\0'
               ? ufail(p, start, "a number is missing at the end")
               : ufail(p, start, "expected a number, found '%c'", upeek(p));
  if (v < s->min || v > s->max)
    return ufail(p, start, "value %d is out of range %d-%d", v, s->min, s->max);
  *ret = v;
  return 0;
}

/* Parses one element "*", "a", "a-b", each with an optional "/n". */
static int uparse_element(uparser *p) {
  const struct unix_spec *s = &uspecs[p->field];
  size_t start = p->pos;
  int lo, hi, incr = 1, r;
  bool star = upeek(p) == '*';
  if (star) {
    p->pos++;
    lo = s->min;
    hi = p->field == U_DOW ? 6 : s->max;
  } else {
    if ((r = uread_value(p, &lo)) < 0)
      return r;
    hi = lo;
    if (upeek(p) == '-') {
      p->pos++;
      if ((r = uread_value(p, &hi)) < 0)
        return r;
      if (hi < lo)
        return ufail(p, start, "range %d-%d ends before it starts", lo, hi);
    } else if (upeek(p) == '/') {
      hi = s->max; /* "a/n": from a to the field's end, as cronie reads it */
    }
  }
  if (upeek(p) == '/') {
    p->pos++;
    size_t at = p->pos;
    incr = 0;
    while (chime__cron_is_digit(upeek(p)) && p->pos - at < 4)
      incr = incr * 10 + (p->expr[p->pos++] - '0');
    /* An increment past the field's end keeps only the start (cronie). */
    if (p->pos == at || incr < 1 || chime__cron_is_digit(upeek(p)))
      return ufail(p, at, "increment must be a number 1-9999");
  }
  if (p->pos < p->end)
    return ufail(p, p->pos, "unexpected character '%c'", p->expr[p->pos]);
  for (int v = lo; v <= hi; v += incr)
    p->bits |= UINT64_C(1) << (p->field == U_DOW && v == 7 ? 0 : v);
  return 0;
}

/* Parses the field at p->pos .. field_end, a comma-separated list. */
static int uparse_field(uparser *p, size_t field_end) {
  p->bits = 0;
  for (;;) {
    size_t e = p->pos;
    while (e < field_end && p->expr[e] != ',')
      e++;
    if (e == p->pos)
      return ufail(p, p->pos, "empty element in a list");
    p->end = e;
    int r = uparse_element(p);
    if (r < 0)
      return r;
    if (e == field_end)
      break;
    p->pos = e + 1;
  }
  p->pos = field_end;
  return 0;
}

/* True when bits holds every value lo..hi. */
static bool covers(uint64_t bits, int lo, int hi) {
  for (int v = lo; v <= hi; v++)
    if (!((bits >> v) & 1))
      return false;
  return true;
}

/* Parses the five fields of fields (no prefix, no macro) into *ret. */
static int parse_fields(uparser *p, chime_cron *ret) {
  const char *e = p->expr;
  size_t len = strlen(e), n = 0, sixth = len;
  for (size_t i = 0; i < len; i++)
    if (e[i] != ' ' && e[i] != '\t' &&
        (i == 0 || e[i - 1] == ' ' || e[i - 1] == '\t') && ++n == U_COUNT + 1)
      sixth = i;
  if (n != U_COUNT) {
    p->field = U_COUNT;
    return ufail(p, n > U_COUNT ? sixth : len,
                 "a Unix expression has 5 fields (minute hour day-of-month "
                 "month day-of-week), found %zu",
                 n);
  }
  uint64_t got[U_COUNT] = {0};
  for (p->field = 0; p->field < U_COUNT; p->field++) {
    while (p->pos < len && (e[p->pos] == ' ' || e[p->pos] == '\t'))
      p->pos++;
    size_t end = p->pos;
    while (end < len && e[end] != ' ' && e[end] != '\t')
      end++;
    int r = uparse_field(p, end);
    if (r < 0)
      return r;
    got[p->field] = p->bits;
  }
  memset(ret, 0, sizeof *ret);
  ret->seconds = 1;
  ret->minutes = got[U_MIN];
  ret->hours = (uint32_t)got[U_HOUR];
  ret->dom = (uint32_t)got[U_DOM];
  ret->months = (uint16_t)got[U_MONTH];
  ret->dow = (uint8_t)got[U_DOW];
  bool dom_all = covers(got[U_DOM], 1, 31), dow_all = covers(got[U_DOW], 0, 6);
  ret->day_mode = dom_all && !dow_all    ? CHIME_CRON_BY_DOW
                  : !dom_all && !dow_all ? CHIME_CRON_BY_EITHER
                                         : CHIME_CRON_BY_DOM;
  ret->hour_all = ret->hours == UINT32_C(0xFFFFFF);
  for (int w = 0; w < CHIME_CRON_YEAR_WORDS; w++)
    ret->years[w] = ~UINT64_C(0);
  ret->unix_dialect = true;
  return 0;
}

/* The length of the "CRON_TZ=" or "TZ=" key at the start of expr, or 0. */
static size_t prefix_key(const char *expr) {
  if (strncmp(expr, "CRON_TZ=", 8) == 0)
    return 8;
  if (strncmp(expr, "TZ=", 3) == 0)
    return 3;
  return 0;
}

/*
 * chime__cron_parse_unix (cron.h): the prefix first, then a macro or the
 * five fields.
 */
int chime__cron_parse_unix(const char *expr, chime_cron *ret,
                           size_t *ret_zone_at, size_t *ret_zone_len,
                           int *reterr_column, char *errbuf,
                           size_t errbuf_len) {
  uparser p = {.expr = expr,
               .field = U_COUNT,
               .reterr_column = reterr_column,
               .errbuf = errbuf,
               .errbuf_len = errbuf_len};
  size_t at = 0, key;
  *ret_zone_at = *ret_zone_len = 0;
  while (expr[at] == ' ' || expr[at] == '\t')
    at++;
  key = prefix_key(expr + at);
  if (key > 0) {
    size_t z = at + key, ze = z;
    while (expr[ze] != '\0' && expr[ze] != ' ' && expr[ze] != '\t')
      ze++;
    if (ze == z)
      return ufail(&p, z, "a zone name must follow '%.*s'", (int)key,
                   expr + at);
    *ret_zone_at = z;
    *ret_zone_len = ze - z;
    at = ze;
    while (expr[at] == ' ' || expr[at] == '\t')
      at++;
  }
  if (expr[at] == '@') {
    size_t e = at;
    while (expr[e] != '\0' && expr[e] != ' ' && expr[e] != '\t')
      e++;
    for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
      if (strlen(macros[i].name) == e - at &&
          strncmp(expr + at, macros[i].name, e - at) == 0) {
        size_t rest = e;
        while (expr[rest] == ' ' || expr[rest] == '\t')
          rest++;
        if (expr[rest] != '\0')
          return ufail(&p, rest, "unexpected text after %s", macros[i].name);
        p.expr = macros[i].fields;
        return parse_fields(&p, ret);
      }
    return ufail(&p, at,
                 "unknown macro '%.*s' (@yearly, @annually, "
                 "@monthly, @weekly, @daily, @midnight, @hourly)",
                 (int)(e - at > 16 ? 16 : e - at), expr + at);
  }
  p.expr = expr + at;
  p.base = at;
  return parse_fields(&p, ret);
}
