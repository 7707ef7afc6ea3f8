/*
 * rrule_parse.c: an RRULE value (RFC 5545 3.3.10) into a chime__rr_spec.
 * Every part is checked against the RFC's ranges and combinations; a rule
 * the RFC forbids (BYWEEKNO outside YEARLY, an ordinal BYDAY outside
 * MONTHLY and YEARLY, COUNT with UNTIL, ...) is an error with its reason,
 * never read some other way.  DTSTART fills what the rule leaves open, as
 * the RFC and python-dateutil do: the time of day, and the day (YEARLY,
 * MONTHLY) or weekday (WEEKLY) when no BY* part names days.
 */
#include "chime.h"
#include "core/errbuf.h"
#include "triggers/rrule_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_VALUES 400 /* entries in one BY* list */
/* COUNT counts from DTSTART: every answer walks the instances before it,
 * so COUNT is bounded to keep an answer fast. */
#define MAX_COUNT 100000

static const char *const freq_names[] = {
    "YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY", "SECONDLY"};
static const char *const day_names[] = {"SU", "MO", "TU", "WE",
                                        "TH", "FR", "SA"};

bool chime__rr_parse_stamp(const char *s, size_t n, bool end_of_day,
                           chime_civil *ret, bool *ret_utc) {
  int v[6] = {0};
  static const int width[6] = {4, 2, 2, 2, 2, 2};
  size_t p = 0;
  bool date_only = false;
  *ret_utc = false;
  for (int f = 0; f < 6; f++) {
    if (f == 3) {
      if (p == n) {
        date_only = true;
        break;
      }
      if (s[p] != 'T')
        return false;
      p++;
    }
    for (int k = 0; k < width[f]; k++, p++) {
      if (p >= n || s[p] < '0' || s[p] > '9')
        return false;
      v[f] = v[f] * 10 + (s[p] - '0');
    }
  }
  if (p < n && s[p] == 'Z')
    *ret_utc = true, p++;
  if (p != n || v[1] < 1 || v[1] > 12 || v[2] < 1 ||
      v[2] > chime__days_in_month(v[0], v[1]) || v[3] > 23 || v[4] > 59 ||
      v[5] > 60)
    return false;
  if (date_only && end_of_day)
    v[3] = 23, v[4] = 59, v[5] = 59;
  *ret = (chime_civil){.year = v[0],
                       .month = v[1],
                       .day = v[2],
                       .hour = v[3],
                       .minute = v[4],
                       .second = v[5] > 59 ? 59 : v[5]};
  return true;
}

/* One "NAME=value" part of the rule. */
typedef struct part {
  const char *name, *value;
  size_t name_len, value_len;
} part;

static bool part_is(const part *p, const char *name) {
  return p->name_len == strlen(name) &&
         strncasecmp(p->name, name, p->name_len) == 0;
}

static int bad(const part *p, char *errbuf, size_t len, const char *why) {
  return chime__errf(errbuf, len, CHIME_EPARSE, "RRULE: %.*s=%.*s: %s",
                     (int)p->name_len, p->name, (int)p->value_len, p->value,
                     why);
}

/* A decimal in [lo, hi], optionally signed; *ret_end past it. */
static bool read_int(const char *s, const char *end, long lo, long hi,
                     long *ret, const char **ret_end) {
  int sign = 1;
  if (s < end && (*s == '+' || *s == '-'))
    sign = *s == '-' ? -1 : 1, s++;
  if (s == end || *s < '0' || *s > '9')
    return false;
  long v = 0;
  for (; s < end && *s >= '0' && *s <= '9'; s++)
    if ((v = v * 10 + (*s - '0')) > 100000000)
      return false;
  v *= sign;
  if (v < lo || v > hi)
    return false;
  *ret = v;
  *ret_end = s;
  return true;
}

/*
 * A comma-separated list of integers in [lo, hi]; zero is never allowed
 * and negatives only when lo < 0 (a count from the end).
 */
static int read_list(const part *p, long lo, long hi, long *out, size_t *ret_n,
                     char *errbuf, size_t len) {
  const char *s = p->value, *end = p->value + p->value_len;
  size_t n = 0;
  char why[96];
  snprintf(why, sizeof why, "each value must be in %ld..%ld%s", lo, hi,
           lo < 0 ? ", not 0" : "");
  while (s <= end) {
    long v;
    const char *e;
    if (!read_int(s, end, lo, hi, &v, &e) || (v == 0 && lo < 0) ||
        (e != end && *e != ','))
      return bad(p, errbuf, len, why);
    if (n == MAX_VALUES)
      return chime__errf(errbuf, len, CHIME_ELIMIT,
                         "RRULE: %.*s: more than %d values", (int)p->name_len,
                         p->name, MAX_VALUES);
    out[n++] = v;
    s = e + 1;
  }
  *ret_n = n;
  return 0;
}

static int weekday_of(const char *s, size_t n) {
  for (int w = 0; w < 7; w++)
    if (n == 2 && strncasecmp(s, day_names[w], 2) == 0)
      return w;
  return -1;
}

/* BYDAY: [+-n]XX,...; an ordinal goes to nth, a bare day to wdays. */
static int read_byday(const part *p, chime__rr_spec *r, char *errbuf,
                      size_t len) {
  const char *s = p->value, *end = p->value + p->value_len;
  while (s <= end) {
    const char *e = memchr(s, ',', (size_t)(end - s));
    if (e == NULL)
      e = end;
    if (e - s < 2)
      return bad(p, errbuf, len, "a day is [+-n]MO..SU");
    int w = weekday_of(e - 2, 2);
    long n = 0;
    const char *num_end = s;
    if (w < 0 || (e - 2 > s && (!read_int(s, e - 2, -53, 53, &n, &num_end) ||
                                num_end != e - 2 || n == 0)))
      return bad(p, errbuf, len, "a day is [+-n]MO..SU, n in 1..53");
    if (n == 0) {
      r->wdays |= (uint8_t)(1u << w);
    } else {
      if (r->nnth == CHIME__RR_MAX_NTH)
        return chime__errf(errbuf, len, CHIME_ELIMIT,
                           "RRULE: BYDAY: more than %d ordinal days",
                           CHIME__RR_MAX_NTH);
      r->nth[r->nnth].wday = (int8_t)w;
      r->nth[r->nnth++].n = (int8_t)n;
    }
    s = e + 1;
  }
  return 0;
}

static void set_bit64(uint64_t *words, long v) {
  words[v / 64] |= UINT64_C(1) << (v % 64);
}

/* One BY* list into its masks. */
static int read_by(const part *p, chime__rr_spec *r, char *errbuf, size_t len) {
  long v[MAX_VALUES];
  size_t n = 0;
  int rc;
  if (part_is(p, "BYDAY"))
    return read_byday(p, r, errbuf, len);
  if (part_is(p, "BYSECOND") || part_is(p, "BYMINUTE")) {
    if ((rc = read_list(p, 0, 59, v, &n, errbuf, len)) < 0)
      return rc;
    uint64_t *mask = part_is(p, "BYSECOND") ? &r->seconds : &r->minutes;
    for (size_t i = 0; i < n; i++)
      *mask |= UINT64_C(1) << v[i];
  } else if (part_is(p, "BYHOUR")) {
    if ((rc = read_list(p, 0, 23, v, &n, errbuf, len)) < 0)
      return rc;
    for (size_t i = 0; i < n; i++)
      r->hours |= UINT32_C(1) << v[i];
  } else if (part_is(p, "BYMONTH")) {
    if ((rc = read_list(p, 1, 12, v, &n, errbuf, len)) < 0)
      return rc;
    for (size_t i = 0; i < n; i++)
      r->months |= (uint16_t)(1u << v[i]);
  } else if (part_is(p, "BYMONTHDAY")) {
    if ((rc = read_list(p, -31, 31, v, &n, errbuf, len)) < 0)
      return rc;
    for (size_t i = 0; i < n; i++)
      *(v[i] > 0 ? &r->mday_pos : &r->mday_neg) |= UINT32_C(1) << labs(v[i]);
  } else if (part_is(p, "BYYEARDAY")) {
    if ((rc = read_list(p, -366, 366, v, &n, errbuf, len)) < 0)
      return rc;
    for (size_t i = 0; i < n; i++)
      set_bit64(v[i] > 0 ? r->yday_pos : r->yday_neg, labs(v[i]));
    r->has_yday = true;
  } else if (part_is(p, "BYWEEKNO")) {
    if ((rc = read_list(p, -53, 53, v, &n, errbuf, len)) < 0)
      return rc;
    for (size_t i = 0; i < n; i++)
      *(v[i] > 0 ? &r->weekno_pos : &r->weekno_neg) |= UINT64_C(1)
                                                       << labs(v[i]);
  } else if (part_is(p, "BYSETPOS")) {
    if ((rc = read_list(p, -366, 366, v, &n, errbuf, len)) < 0)
      return rc;
    if (n > CHIME__RR_MAX_SETPOS)
      return chime__errf(errbuf, len, CHIME_ELIMIT,
                         "RRULE: BYSETPOS: more than %d values",
                         CHIME__RR_MAX_SETPOS);
    for (size_t i = 0; i < n; i++)
      r->setpos[r->nsetpos++] = (int16_t)v[i];
  } else {
    return chime__errf(errbuf, len, CHIME_EPARSE, "RRULE: unknown part '%.*s'",
                       (int)p->name_len, p->name);
  }
  return 0;
}

/* FREQ, INTERVAL, COUNT, UNTIL, WKST; the BY* lists go to read_by. */
static int read_part(const part *p, chime__rr_spec *r, bool *has_freq,
                     char *errbuf, size_t len) {
  long v;
  const char *e;
  const char *end = p->value + p->value_len;
  if (part_is(p, "FREQ")) {
    for (int f = 0; f <= CHIME__RR_SECONDLY; f++)
      if (p->value_len == strlen(freq_names[f]) &&
          strncasecmp(p->value, freq_names[f], p->value_len) == 0) {
        r->freq = (chime__rr_freq)f;
        *has_freq = true;
        return 0;
      }
    return bad(p, errbuf, len, "SECONDLY, MINUTELY, ..., YEARLY");
  }
  if (part_is(p, "INTERVAL") || part_is(p, "COUNT")) {
    long hi = part_is(p, "COUNT") ? MAX_COUNT : CHIME__RR_MAX_INTERVAL;
    if (!read_int(p->value, end, 1, hi, &v, &e) || e != end) {
      char why[64];
      snprintf(why, sizeof why, "a number in 1..%ld", hi);
      return bad(p, errbuf, len, why);
    }
    *(part_is(p, "COUNT") ? &r->count : &r->interval) = v;
    return 0;
  }
  if (part_is(p, "UNTIL")) {
    if (!chime__rr_parse_stamp(p->value, p->value_len, true, &r->until,
                               &r->until_utc))
      return bad(p, errbuf, len, "YYYYMMDD[THHMMSS[Z]]");
    r->has_until = true;
    return 0;
  }
  if (part_is(p, "WKST")) {
    if ((r->wkst = weekday_of(p->value, p->value_len)) < 0)
      return bad(p, errbuf, len, "MO..SU");
    return 0;
  }
  return read_by(p, r, errbuf, len);
}

/* The combinations RFC 5545 3.3.10 forbids. */
static int check_combination(const chime__rr_spec *r, char *errbuf,
                             size_t len) {
  const char *why = NULL;
  if (r->count > 0 && r->has_until)
    why = "COUNT and UNTIL cannot both be given";
  else if ((r->weekno_pos | r->weekno_neg) && r->freq != CHIME__RR_YEARLY)
    why = "BYWEEKNO is only for FREQ=YEARLY";
  else if (r->has_yday &&
           (r->freq == CHIME__RR_MONTHLY || r->freq == CHIME__RR_WEEKLY ||
            r->freq == CHIME__RR_DAILY))
    why = "BYYEARDAY is not for FREQ=DAILY, WEEKLY or MONTHLY";
  else if ((r->mday_pos | r->mday_neg) && r->freq == CHIME__RR_WEEKLY)
    why = "BYMONTHDAY is not for FREQ=WEEKLY";
  else if (r->nnth > 0 && r->freq != CHIME__RR_MONTHLY &&
           r->freq != CHIME__RR_YEARLY)
    why = "a BYDAY ordinal (2MO, -1FR) needs FREQ=MONTHLY or YEARLY";
  else if (r->nnth > 0 && (r->weekno_pos | r->weekno_neg))
    why = "a BYDAY ordinal cannot be used with BYWEEKNO";
  if (why == NULL)
    return 0;
  return chime__errf(errbuf, len, CHIME_EPARSE, "RRULE: %s", why);
}

/* What DTSTART fills in, and where INTERVAL counts from. */
static void apply_defaults(chime__rr_spec *r, const chime_civil *dt) {
  int64_t day = chime__days_from_civil(dt->year, dt->month, dt->day);
  bool names_days = r->wdays || r->nnth || (r->mday_pos | r->mday_neg) ||
                    r->has_yday || (r->weekno_pos | r->weekno_neg);
  if (!names_days) {
    if (r->freq == CHIME__RR_YEARLY && r->months == 0)
      r->months = (uint16_t)(1u << dt->month);
    if (r->freq == CHIME__RR_YEARLY || r->freq == CHIME__RR_MONTHLY)
      r->mday_pos = UINT32_C(1) << dt->day;
    if (r->freq == CHIME__RR_WEEKLY)
      r->wdays = (uint8_t)(1u << chime__weekday_from_days(day));
  }
  if (r->hours == 0 && r->freq < CHIME__RR_HOURLY)
    r->hours = UINT32_C(1) << dt->hour;
  if (r->minutes == 0 && r->freq < CHIME__RR_MINUTELY)
    r->minutes = UINT64_C(1) << dt->minute;
  if (r->seconds == 0 && r->freq < CHIME__RR_SECONDLY)
    r->seconds = UINT64_C(1) << dt->second;
  /* Day 0 (1970-01-01) is a Thursday: the first day numbered from WKST. */
  int64_t week0 = chime__floor_mod(r->wkst - 4, 7);
  int64_t sec = day * 86400 + dt->hour * 3600 + dt->minute * 60 + dt->second;
  switch (r->freq) {
  case CHIME__RR_YEARLY:
    r->origin = dt->year;
    break;
  case CHIME__RR_MONTHLY:
    r->origin = dt->year * 12 + dt->month - 1;
    break;
  case CHIME__RR_WEEKLY:
    r->origin = chime__floor_div(day - week0, 7);
    break;
  case CHIME__RR_DAILY:
    r->origin = day;
    break;
  case CHIME__RR_HOURLY:
    r->origin = chime__floor_div(sec, 3600);
    break;
  case CHIME__RR_MINUTELY:
    r->origin = chime__floor_div(sec, 60);
    break;
  case CHIME__RR_SECONDLY:
    r->origin = sec;
    break;
  }
}

int chime__rr_parse(const char *value, size_t len, const chime_civil *dtstart,
                    chime__rr_spec *ret, char *errbuf, size_t errbuf_len) {
  chime__rr_spec r = {.interval = 1, .wkst = 1};
  bool has_freq = false;
  uint32_t seen = 0; /* a part named twice is an error */
  static const char *const names[] = {
      "FREQ",      "INTERVAL", "COUNT",   "UNTIL",   "WKST",
      "BYSECOND",  "BYMINUTE", "BYHOUR",  "BYDAY",   "BYMONTHDAY",
      "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS"};
  const char *s = value, *end = value + len;
  while (s < end) {
    const char *e = memchr(s, ';', (size_t)(end - s));
    if (e == NULL)
      e = end;
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (eq == NULL || eq == s || eq + 1 == e)
      return chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                         "RRULE: '%.*s' is not NAME=value", (int)(e - s), s);
    part p = {.name = s,
              .name_len = (size_t)(eq - s),
              .value = eq + 1,
              .value_len = (size_t)(e - eq - 1)};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (part_is(&p, names[i])) {
        if (seen & (1u << i))
          return chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                             "RRULE: %s given twice", names[i]);
        seen |= 1u << i;
      }
    int rc = read_part(&p, &r, &has_freq, errbuf, errbuf_len);
    if (rc < 0)
      return rc;
    s = e + 1;
  }
  if (!has_freq)
    return chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                       "RRULE: FREQ is required");
  int rc = check_combination(&r, errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  apply_defaults(&r, dtstart);
  *ret = r;
  return 0;
}
