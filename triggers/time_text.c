/*
 * time_text.c: an instant as text in a zone, and back
 * (chime_zone_format_time, chime_zone_parse_time): what the tools print
 * and read, on the zones and the calendar arithmetic the schedules use, so
 * no tool keeps a copy of either.
 */
#include "chime.h"
#include "triggers/civil.h"
#include "triggers/tz.h"

#include <inttypes.h>
#include <stdio.h>

/* The zone named zone_name, or NULL (UTC) for a NULL name. */
static int zone_of(const char *zone_name, const chime_zone **ret_zone) {
  *ret_zone = NULL;
  return zone_name == NULL ? 0 : chime_zone_get(zone_name, ret_zone);
}

/* Appends the offset off (seconds east) as +HH:MM, and :SS when with_s
 * and it has seconds. */
static int put_offset(char *buf, size_t len, int32_t off, bool with_s) {
  int32_t a = off < 0 ? -off : off;
  char sign = off < 0 ? '-' : '+';
  if (with_s && a % 60 != 0)
    return snprintf(buf, len, "%c%02d:%02d:%02d", sign, (int)(a / 3600),
                    (int)(a / 60 % 60), (int)(a % 60));
  return snprintf(buf, len, "%c%02d:%02d", sign, (int)(a / 3600),
                  (int)(a / 60 % 60));
}

int chime_zone_format_time(const char *zone_name, int64_t t_ms, unsigned flags,
                           char *buf, size_t len) {
  if (buf == NULL || len == 0 || (flags & ~CHIME_TIME_ISO) != 0)
    return CHIME_EINVAL;
  buf[0] = '\0';
  const chime_zone *zone;
  int r = zone_of(zone_name, &zone);
  if (r < 0)
    return r;
  chime_civil c;
  int32_t off = 0;
  if (zone != NULL)
    chime__zone_to_local(zone, t_ms, &c, &off);
  else
    chime__civil_from_ms(t_ms, &c);
  bool iso = (flags & CHIME_TIME_ISO) != 0;
  char text[CHIME_TIME_TEXT_LEN];
  int n = snprintf(text, sizeof text, "%04" PRId64 "-%02d-%02d%c%02d:%02d:%02d",
                   c.year, c.month, c.day, iso ? 'T' : ' ', c.hour, c.minute,
                   c.second);
  if (iso && c.millisecond != 0)
    n += snprintf(text + n, sizeof text - (size_t)n, ".%03d", c.millisecond);
  if (iso || off != 0)
    put_offset(text + n, sizeof text - (size_t)n, off, iso);
  else
    snprintf(text + n, sizeof text - (size_t)n, "Z");
  return (size_t)snprintf(buf, len, "%s", text) < len ? 0 : CHIME_ELIMIT;
}

/* Reads exactly n digits at *p into *ret. */
static bool digits(const char **p, int n, int *ret) {
  int v = 0;
  for (int i = 0; i < n; i++, (*p)++) {
    if (**p < '0' || **p > '9')
      return false;
    v = v * 10 + (**p - '0');
  }
  *ret = v;
  return true;
}

/* Reads the wall-clock fields of "YYYY-MM-DD[(T| )HH:MM[:SS[.mmm]]]" and
 * leaves *p after them; false when malformed or out of range. */
static bool read_civil(const char **p, chime_civil *c) {
  int y, mo, d, h = 0, mi = 0, s = 0, ms = 0;
  if (!digits(p, 4, &y) || *(*p)++ != '-' || !digits(p, 2, &mo) ||
      *(*p)++ != '-' || !digits(p, 2, &d))
    return false;
  if (**p == 'T' || **p == ' ') {
    (*p)++;
    if (!digits(p, 2, &h) || *(*p)++ != ':' || !digits(p, 2, &mi))
      return false;
    if (**p == ':' && ((*p)++, !digits(p, 2, &s)))
      return false;
    if (**p == '.' && ((*p)++, !digits(p, 3, &ms)))
      return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > chime__days_in_month(y, mo) || h > 23 ||
      mi > 59 || s > 59)
    return false;
  *c = (chime_civil){.year = y,
                     .month = mo,
                     .day = d,
                     .hour = h,
                     .minute = mi,
                     .second = s,
                     .millisecond = ms};
  return true;
}

/* Reads the designator at p: nothing, Z, +HH, +HHMM or +HH:MM. */
static bool read_designator(const char *p, bool *ret_has, int32_t *ret_off) {
  *ret_has = *p != '\0';
  *ret_off = 0;
  if (*p == '\0' || ((*p == 'Z' || *p == 'z') && p[1] == '\0'))
    return true;
  if (*p != '+' && *p != '-')
    return false;
  int sign = *p++ == '-' ? -1 : 1, hh, mm = 0;
  if (!digits(&p, 2, &hh))
    return false;
  if (*p == ':')
    p++;
  if (*p != '\0' && !digits(&p, 2, &mm))
    return false;
  *ret_off = sign * (hh * 3600 + mm * 60);
  return *p == '\0' && hh < 24 && mm < 60;
}

int chime_zone_parse_time(const char *zone_name, const char *text,
                          int64_t *ret_ms) {
  if (text == NULL || ret_ms == NULL)
    return CHIME_EINVAL;
  const chime_zone *zone;
  int r = zone_of(zone_name, &zone);
  if (r < 0)
    return r;
  const char *p = text;
  chime_civil c;
  bool has_off;
  int32_t off;
  if (!read_civil(&p, &c) || !read_designator(p, &has_off, &off))
    return CHIME_EINVAL;
  if (has_off || zone == NULL) {
    *ret_ms = chime__civil_to_ms(&c) - (int64_t)off * 1000;
    return 0;
  }
  int64_t at[2];
  /* A repeated hour's earlier pass; a gap's time moved forward. */
  *ret_ms = chime__zone_from_local(zone, &c, at) > 0
                ? at[0]
                : chime__zone_resolve_local(zone, &c);
  return 0;
}
