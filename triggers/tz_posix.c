/*
 * tz_posix.c: the POSIX TZ rule of a TZif footer (RFC 8536 section 3.3),
 * e.g. "EST5EDT,M3.2.0,M11.1.0" or "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0":
 * parsing it, and the transitions and periods it implies for any year.
 *
 * A rule names a standard offset, optionally a daylight offset and the two
 * days (with local times) that start and end daylight time each year.  The
 * start time is read in standard time and the end time in daylight time,
 * as POSIX says.  Rule times may be negative or exceed 24 hours (RFC 8536's
 * extension), so a year's transitions may fall in a neighbouring year.
 */
#include "triggers/tz_impl.h"

#include <assert.h>

typedef struct cursor {
  const char *p;
  const char *end;
} cursor;

static bool at_char(const cursor *c, char ch) {
  return c->p < c->end && *c->p == ch;
}

static bool is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}

static bool is_alpha(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* A zone abbreviation: three or more letters, or <...> of [A-Za-z0-9+-]. */
static bool parse_name(cursor *c) {
  size_t n = 0;
  if (at_char(c, '<')) {
    c->p++;
    while (c->p < c->end && *c->p != '>') {
      char ch = *c->p;
      if (!is_alpha(ch) && !is_digit(ch) && ch != '+' && ch != '-')
        return false;
      c->p++;
      n++;
    }
    if (!at_char(c, '>'))
      return false;
    c->p++;
    return n >= 3;
  }
  while (c->p < c->end && is_alpha(*c->p)) {
    c->p++;
    n++;
  }
  return n >= 3;
}

/* An unsigned decimal of at most three digits, at most max. */
static bool parse_number(cursor *c, int max, int *ret) {
  int v = 0, digits = 0;
  while (c->p < c->end && is_digit(*c->p) && digits < 3) {
    v = v * 10 + (*c->p - '0');
    c->p++;
    digits++;
  }
  if (digits == 0 || v > max || (c->p < c->end && is_digit(*c->p)))
    return false;
  *ret = v;
  return true;
}

/* [+-]hh[:mm[:ss]], hours at most max_hours; seconds in *ret. */
static bool parse_hms(cursor *c, int max_hours, int32_t *ret) {
  int sign = 1, h, m = 0, s = 0;
  if (at_char(c, '+') || at_char(c, '-')) {
    sign = *c->p == '-' ? -1 : 1;
    c->p++;
  }
  if (!parse_number(c, max_hours, &h))
    return false;
  if (at_char(c, ':')) {
    c->p++;
    if (!parse_number(c, 59, &m))
      return false;
    if (at_char(c, ':')) {
      c->p++;
      if (!parse_number(c, 59, &s))
        return false;
    }
  }
  *ret = sign * (h * 3600 + m * 60 + s);
  return true;
}

/* Jn, n or Mm.w.d, then an optional /time (default 02:00). */
static bool parse_date(cursor *c, chime_tz_rule_date *d) {
  if (at_char(c, 'J')) {
    c->p++;
    d->kind = 'J';
    if (!parse_number(c, 365, &d->day) || d->day < 1)
      return false;
  } else if (at_char(c, 'M')) {
    c->p++;
    d->kind = 'M';
    if (!parse_number(c, 12, &d->month) || d->month < 1 || !at_char(c, '.'))
      return false;
    c->p++;
    if (!parse_number(c, 5, &d->week) || d->week < 1 || !at_char(c, '.'))
      return false;
    c->p++;
    if (!parse_number(c, 6, &d->wday))
      return false;
  } else {
    d->kind = 'D';
    if (!parse_number(c, 365, &d->day))
      return false;
  }
  d->time_s = 7200;
  if (at_char(c, '/')) {
    c->p++;
    return parse_hms(c, 167, &d->time_s);
  }
  return true;
}

int chime__tz_rule_parse(const char *text, size_t len,
                         chime_tz_rule *ret_rule) {
  cursor c = {text, text + len};
  chime_tz_rule r = {0};
  int32_t west;
  if (!parse_name(&c) || !parse_hms(&c, 25, &west))
    return CHIME_EFORMAT;
  r.std_offset = -west;
  r.dst_offset = r.std_offset;
  if (c.p < c.end) {
    if (!parse_name(&c))
      return CHIME_EFORMAT;
    r.has_dst = true;
    r.dst_offset = r.std_offset + 3600;
    if (c.p < c.end && !at_char(&c, ',')) {
      if (!parse_hms(&c, 25, &west))
        return CHIME_EFORMAT;
      r.dst_offset = -west;
    }
    if (at_char(&c, ',')) {
      c.p++;
      if (!parse_date(&c, &r.start) || !at_char(&c, ','))
        return CHIME_EFORMAT;
      c.p++;
      if (!parse_date(&c, &r.end))
        return CHIME_EFORMAT;
    } else {
      /* No dates: the United States rule, as glibc and tzcode assume. */
      r.start = (chime_tz_rule_date){
          .kind = 'M', .month = 3, .week = 2, .time_s = 7200};
      r.end = (chime_tz_rule_date){
          .kind = 'M', .month = 11, .week = 1, .time_s = 7200};
    }
  }
  if (c.p != c.end)
    return CHIME_EFORMAT;
  *ret_rule = r;
  return 0;
}

/* Local seconds (local time read as if UTC) of a rule date in a year. */
static int64_t rule_date_local_s(const chime_tz_rule_date *d, int64_t year) {
  int64_t days;
  switch (d->kind) {
  case 'J':
    /* Jn never counts February 29, so days after it shift in leap years. */
    days = chime__days_from_civil(year, 1, 1) + d->day - 1;
    if (d->day >= 60 && chime__is_leap_year(year))
      days++;
    break;
  case 'D':
    days = chime__days_from_civil(year, 1, 1) + d->day;
    break;
  default: {
    int64_t first = chime__days_from_civil(year, d->month, 1);
    int dim = chime__days_in_month(year, d->month);
    int wd = chime__weekday_from_days(first);
    days = first + (d->wday - wd + 7) % 7 + (int64_t)(d->week - 1) * 7;
    if (days - first >= dim)
      days -= 7;
    break;
  }
  }
  return days * 86400 + d->time_s;
}

void chime__tz_rule_transitions(const chime_tz_rule *rule, int64_t year,
                                int64_t ret_at[2]) {
  assert(rule->has_dst);
  ret_at[0] = rule_date_local_s(&rule->start, year) - rule->std_offset;
  ret_at[1] = rule_date_local_s(&rule->end, year) - rule->dst_offset;
}

typedef struct rule_edge {
  int64_t at;
  bool to_dst;
} rule_edge;

/* Sorts by instant; at equal instants leaving DST comes first, so an
 * all-year DST rule ("0/0,J365/25") stays in DST across New Year. */
static void sort_edges(rule_edge *e, int n) {
  for (int i = 1; i < n; i++) {
    rule_edge x = e[i];
    int j = i - 1;
    while (j >= 0 &&
           (e[j].at > x.at || (e[j].at == x.at && e[j].to_dst && !x.to_dst))) {
      e[j + 1] = e[j];
      j--;
    }
    e[j + 1] = x;
  }
}

void chime__tz_rule_period(const chime_tz_rule *rule, int64_t t_s,
                           int32_t *ret_offset, int64_t *ret_start,
                           int64_t *ret_end) {
  if (!rule->has_dst) {
    *ret_offset = rule->std_offset;
    *ret_start = INT64_MIN;
    *ret_end = INT64_MAX;
    return;
  }
  assert(t_s >= -CHIME_TZ_LIMIT_S && t_s <= CHIME_TZ_LIMIT_S);
  int64_t y;
  int month, day;
  chime__civil_from_days(chime__floor_div(t_s + rule->std_offset, 86400), &y,
                         &month, &day);
  /* Rule times reach a week into neighbouring years: look two years around. */
  rule_edge e[10];
  int n = 0;
  for (int64_t yy = y - 2; yy <= y + 2; yy++) {
    int64_t at[2];
    chime__tz_rule_transitions(rule, yy, at);
    e[n++] = (rule_edge){at[0], true};
    e[n++] = (rule_edge){at[1], false};
  }
  sort_edges(e, n);
  int last = -1;
  while (last + 1 < n && e[last + 1].at <= t_s)
    last++;
  if (last < 0) {
    *ret_offset = e[0].to_dst ? rule->std_offset : rule->dst_offset;
    *ret_start = INT64_MIN;
    *ret_end = e[0].at;
    return;
  }
  *ret_offset = e[last].to_dst ? rule->dst_offset : rule->std_offset;
  *ret_start = e[last].at;
  *ret_end = last + 1 < n ? e[last + 1].at : INT64_MAX;
}
