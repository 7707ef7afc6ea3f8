/*
 * rrule.c: RFC 5545 recurrence rules (the public chime_rrule).  The text
 * is the lines rrulestr reads (DTSTART[;TZID=Zone]:..., RRULE:...,
 * EXDATE..., RDATE...), separated by newlines or spaces.  The rule is
 * expanded in wall-clock time by chime's own code (rrule_parse.c,
 * rrule_match.c, rrule_setpos.c); this file maps each wall-clock time to
 * an instant in the rule's zone as RFC 5545 section 3.3.5 says: a time a
 * DST gap skips takes the offset before the gap (it moves forward by the
 * gap's length), a repeated time is its first pass.  UNTIL, EXDATE and
 * RDATE are applied here, on instants.  DTSTART is always the first
 * instance (RFC 5545 3.8.5.3), and COUNT counts it.
 *
 * Why not libical: Debian's libical 3.0.16 expands BYWEEKNO, BYYEARDAY
 * with BYMONTH, BYMONTHDAY outside MONTHLY, BYMONTH with WEEKLY, HOURLY or
 * MINUTELY, and HOURLY or MINUTELY with BYHOUR or INTERVAL differently
 * from the RFC and python-dateutil, and it searches instance by instance
 * (a far-future answer of a SECONDLY rule walked every second).  chime's
 * expansion passes the whole dateutil corpus and skips whole periods
 * (docs/recurrence.md).
 */
#include "core/errbuf.h"
#include "triggers/civil.h"
#include "triggers/rrule_impl.h"
#include "triggers/tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DATES 256

struct chime_rrule {
  char *text;
  const chime_zone *zone;
  chime__rr_spec rule;
  bool has_rule;
  bool dtstart_in_rule; /* the rule's own first instance is DTSTART */
  int64_t until_ms;     /* INT64_MAX: none */
  chime_civil dtstart;
  int64_t dtstart_ms;
  int64_t exdates[MAX_DATES], rdates[MAX_DATES]; /* instants, sorted */
  size_t nex, nr;
};

/* The instant of wall-clock time civ in zone, by RFC 5545 3.3.5. */
static int64_t instant_of(const chime_zone *zone, const chime_civil *civ) {
  int64_t ms[2];
  int n = chime__zone_from_local(zone, civ, ms);
  if (n > 0)
    return ms[0]; /* one, or the first pass of a repeated time */
  /* In a gap: the offset in force before it (two days before is safely
   * before the transition: transitions are far apart). */
  int64_t local = chime__civil_to_ms(civ);
  int32_t before = chime_zone_get_offset_at(zone, local - 2 * CHIME_MS_PER_DAY);
  return local - (int64_t)before * 1000;
}

/* A line's name, parameters (";TZID=..."), and value after ':'. */
typedef struct line {
  const char *name, *params, *value;
  size_t name_len, params_len, value_len;
} line;

static bool split_line(const char *s, size_t n, line *ret) {
  const char *colon = memchr(s, ':', n);
  const char *semi = memchr(s, ';', n);
  if (colon == NULL) { /* a bare "FREQ=..." is an RRULE */
    *ret = (line){.name = "RRULE", .name_len = 5, .value = s, .value_len = n};
    return true;
  }
  if (semi != NULL && semi > colon)
    semi = NULL;
  const char *name_end = semi ? semi : colon;
  *ret = (line){.name = s,
                .name_len = (size_t)(name_end - s),
                .params = semi ? semi + 1 : "",
                .params_len = semi ? (size_t)(colon - semi - 1) : 0,
                .value = colon + 1,
                .value_len = n - (size_t)(colon + 1 - s)};
  return true;
}

static bool name_is(const line *l, const char *name) {
  return l->name_len == strlen(name) &&
         strncasecmp(l->name, name, l->name_len) == 0;
}

/* The zone a line's TZID= names; *ret_zone left alone without one. */
static int line_zone(const line *l, const chime_zone **ret_zone, char *errbuf,
                     size_t errbuf_len) {
  const char *p = l->params, *end = l->params + l->params_len;
  while (p < end) {
    const char *e = memchr(p, ';', (size_t)(end - p));
    if (e == NULL)
      e = end;
    if ((size_t)(e - p) > 5 && strncasecmp(p, "TZID=", 5) == 0) {
      char name[256];
      size_t n = (size_t)(e - p - 5);
      if (n >= sizeof name)
        n = sizeof name - 1;
      memcpy(name, p + 5, n);
      name[n] = '\0';
      int r = chime_zone_get(name, ret_zone);
      if (r < 0)
        return chime__errf(errbuf, errbuf_len, r, "unknown time zone '%s'",
                           name);
    }
    p = e + 1;
  }
  return 0;
}

/* Parses a comma-separated list of stamps into sorted instants. */
static int parse_dates(const line *l, const chime_zone *zone, int64_t *out,
                       size_t *n, char *errbuf, size_t errbuf_len) {
  const chime_zone *z = zone;
  int r = line_zone(l, &z, errbuf, errbuf_len);
  if (r < 0)
    return r;
  const char *p = l->value, *end = l->value + l->value_len;
  while (p < end) {
    const char *e = memchr(p, ',', (size_t)(end - p));
    if (e == NULL)
      e = end;
    chime_civil civ;
    bool utc;
    if (!chime__rr_parse_stamp(p, (size_t)(e - p), false, &civ, &utc))
      return chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                         "%.*s: bad date-time '%.*s' (YYYYMMDDTHHMMSS[Z])",
                         (int)l->name_len, l->name, (int)(e - p), p);
    if (*n >= MAX_DATES)
      return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT, "more than %d dates",
                         MAX_DATES);
    out[(*n)++] = utc ? chime__civil_to_ms(&civ) : instant_of(z, &civ);
    p = e + 1;
  }
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Reads RRULE's value; UNTIL is kept aside, on instants. */
static int parse_rule(chime_rrule *r, const line *l, char *errbuf,
                      size_t errbuf_len) {
  int rc = chime__rr_parse(l->value, l->value_len, &r->dtstart, &r->rule,
                           errbuf, errbuf_len);
  if (rc < 0)
    return rc;
  r->has_rule = true;
  if (r->rule.has_until)
    r->until_ms = r->rule.until_utc ? chime__civil_to_ms(&r->rule.until)
                                    : instant_of(r->zone, &r->rule.until);
  return 0;
}

/* Parses every line; DTSTART first so the others know the zone. */
static int parse_text(chime_rrule *r, const char *text, char *errbuf,
                      size_t errbuf_len) {
  line lines[64];
  size_t n = 0;
  for (const char *p = text; *p != '\0';) {
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
      p++;
    size_t len = strcspn(p, " \n\r\t");
    if (len == 0)
      break;
    if (n == sizeof lines / sizeof lines[0])
      return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT, "too many lines");
    split_line(p, len, &lines[n++]);
    p += len;
  }
  bool have_start = false;
  for (size_t i = 0; i < n; i++) {
    if (!name_is(&lines[i], "DTSTART"))
      continue;
    r->zone = NULL;
    int rc = line_zone(&lines[i], &r->zone, errbuf, errbuf_len);
    if (rc < 0)
      return rc;
    bool utc;
    if (!chime__rr_parse_stamp(lines[i].value, lines[i].value_len, false,
                               &r->dtstart, &utc))
      return chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                         "DTSTART: bad date-time '%.*s'",
                         (int)lines[i].value_len, lines[i].value);
    if (r->zone == NULL && (rc = chime_zone_get("UTC", &r->zone)) < 0)
      return rc;
    r->dtstart_ms = instant_of(r->zone, &r->dtstart);
    have_start = true;
  }
  if (!have_start)
    return chime__errf(
        errbuf, errbuf_len, CHIME_EPARSE,
        "DTSTART is required (DTSTART;TZID=Zone:YYYYMMDDTHHMMSS)");
  for (size_t i = 0; i < n; i++) {
    const line *l = &lines[i];
    int rc = 0;
    if (name_is(l, "DTSTART"))
      continue;
    if (name_is(l, "RRULE")) {
      if (r->has_rule)
        return chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                           "more than one RRULE");
      rc = parse_rule(r, l, errbuf, errbuf_len);
    } else if (name_is(l, "EXDATE")) {
      rc = parse_dates(l, r->zone, r->exdates, &r->nex, errbuf, errbuf_len);
    } else if (name_is(l, "RDATE")) {
      rc = parse_dates(l, r->zone, r->rdates, &r->nr, errbuf, errbuf_len);
    } else {
      rc = chime__errf(errbuf, errbuf_len, CHIME_EPARSE,
                       "unknown line '%.*s' (DTSTART, RRULE, EXDATE, RDATE)",
                       (int)l->name_len, l->name);
    }
    if (rc < 0)
      return rc;
  }
  qsort(r->exdates, r->nex, sizeof r->exdates[0], cmp_i64);
  qsort(r->rdates, r->nr, sizeof r->rdates[0], cmp_i64);
  return 0;
}

/* DTSTART in local seconds. */
static int64_t dtstart_local(const chime_rrule *r) {
  return chime__floor_div(chime__civil_to_ms(&r->dtstart), 1000);
}

/*
 * Whether the rule itself yields DTSTART first.  When it does not, DTSTART
 * is an extra instance (RFC 5545: always the first) that COUNT counts.
 */
static bool first_is_dtstart(const chime_rrule *r) {
  chime__rr_search s;
  int64_t start = dtstart_local(r), t;
  chime__rr_search_init(&s, &r->rule, start);
  bool yes = chime__rr_next_instance(&s, start, &t) && t == start;
  chime__rr_search_free(&s);
  return yes;
}

/* chime_rrule_from_string (chime.h). */
int chime_rrule_from_string(const char *text, chime_rrule **ret_rule,
                            char *errbuf, size_t errbuf_len) {
  if (errbuf != NULL && errbuf_len > 0)
    errbuf[0] = '\0';
  if (text == NULL || ret_rule == NULL)
    return CHIME_EINVAL;
  if (strnlen(text, CHIME_RRULE_MAX_LEN + 1) > CHIME_RRULE_MAX_LEN)
    return chime__errf(errbuf, errbuf_len, CHIME_ELIMIT, "longer than %d bytes",
                       CHIME_RRULE_MAX_LEN);
  chime_rrule *r = calloc(1, sizeof *r);
  if (r == NULL)
    return CHIME_ENOMEM;
  r->until_ms = INT64_MAX;
  int rc = parse_text(r, text, errbuf, errbuf_len);
  if (rc == 0 && r->has_rule)
    r->dtstart_in_rule = first_is_dtstart(r);
  if (rc == 0 && (r->text = strdup(text)) == NULL)
    rc = CHIME_ENOMEM;
  if (rc < 0) {
    chime_rrule_free(r);
    return rc;
  }
  *ret_rule = r;
  return 0;
}

static bool excluded(const chime_rrule *r, int64_t t) {
  return bsearch(&t, r->exdates, r->nex, sizeof t, cmp_i64) != NULL;
}

/*
 * The local second to search from for instances after instant after_ms
 * without COUNT: its wall-clock time less the largest offset change around
 * it (a wall time near a DST change may map to an instant after after_ms).
 */
static int64_t search_start(const chime_rrule *r, int64_t after_ms) {
  int32_t low = INT32_MAX;
  for (int k = -2; k <= 2; k += 2) {
    int32_t off =
        chime_zone_get_offset_at(r->zone, after_ms + k * CHIME_MS_PER_DAY);
    if (off < low)
      low = off;
  }
  int64_t from = chime__floor_div(after_ms, 1000) + low - 3600;
  int64_t start = dtstart_local(r);
  return from > start ? from : start;
}

/* The first rule instance after after_ms (DTSTART included), or none. */
static int next_of_rule(const chime_rrule *r, int64_t after_ms,
                        int64_t *ret_ms) {
  if (r->dtstart_ms > after_ms && !excluded(r, r->dtstart_ms)) {
    *ret_ms = r->dtstart_ms;
    return 0;
  }
  if (!r->has_rule)
    return CHIME_ENEVERFIRES;
  /* COUNT counts from DTSTART, and counts DTSTART where the rule does not
   * yield it; without COUNT the search starts near after_ms. */
  int64_t count = r->rule.count, limit = count;
  if (count > 0 && !r->dtstart_in_rule)
    limit = count - 1;
  int64_t from = count > 0 ? dtstart_local(r) : search_start(r, after_ms);
  chime__rr_search s;
  chime__rr_search_init(&s, &r->rule, from);
  int rc = CHIME_ENEVERFIRES;
  int64_t local;
  for (int64_t n = 0;
       (count == 0 || n < limit) && chime__rr_next_instance(&s, from, &local);
       n++) {
    chime_civil civ;
    chime__civil_from_ms(local * 1000, &civ);
    int64_t ms = instant_of(r->zone, &civ);
    if (ms > r->until_ms)
      break;
    if (ms > after_ms && !excluded(r, ms)) {
      *ret_ms = ms;
      rc = 0;
      break;
    }
    from = local + 1;
  }
  chime__rr_search_free(&s);
  return rc;
}

/* chime_rrule_next (chime.h): the earlier of the rule's and RDATE's. */
int chime_rrule_next(const chime_rrule *rule, int64_t after_ms,
                     int64_t *ret_next_ms) {
  if (rule == NULL || ret_next_ms == NULL)
    return CHIME_EINVAL;
  int64_t a = INT64_MAX, t;
  if (next_of_rule(rule, after_ms, &t) == 0)
    a = t;
  for (size_t i = 0; i < rule->nr; i++)
    if (rule->rdates[i] > after_ms && !excluded(rule, rule->rdates[i])) {
      if (rule->rdates[i] < a)
        a = rule->rdates[i];
      break;
    }
  if (a == INT64_MAX)
    return CHIME_ENEVERFIRES;
  *ret_next_ms = a;
  return 0;
}

/* chime_rrule_get_zone (chime.h): DTSTART's zone. */
const chime_zone *chime_rrule_get_zone(const chime_rrule *rule) {
  return rule != NULL ? rule->zone : NULL;
}

/* chime_rrule_to_string (chime.h): the text as given. */
const char *chime_rrule_to_string(const chime_rrule *rule) {
  return rule != NULL ? rule->text : NULL;
}

/* chime_rrule_free (chime.h): NULL is allowed. */
void chime_rrule_free(chime_rrule *rule) {
  if (rule == NULL)
    return;
  free(rule->text);
  free(rule);
}
