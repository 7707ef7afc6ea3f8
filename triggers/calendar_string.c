/*
 * calendar_string.c: writes the text form of calendars, for the job stores
 * (calendar_parse.c reads it back).  The text is a
 * version line and then one line per calendar of a chain, outermost first
 * (calendar.h shows an example).  A line is the kind's name followed by
 * space-separated key=value fields; free text (zone names, descriptions,
 * cron expressions) is percent-encoded so it holds no space, '=', ',' or
 * newline.
 */
#include "triggers/calendar_impl.h"
#include "triggers/civil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const chime__calendar_weekday_names[7] = {
    "sun", "mon", "tue", "wed", "thu", "fri", "sat"};

const char *const chime__calendar_kind_names[7] = {
    [CHIME_CALENDAR_ANNUAL] = "annual",   [CHIME_CALENDAR_HOLIDAY] = "holiday",
    [CHIME_CALENDAR_MONTHLY] = "monthly", [CHIME_CALENDAR_WEEKLY] = "weekly",
    [CHIME_CALENDAR_DAILY] = "daily",     [CHIME_CALENDAR_CRON] = "cron",
};

/* ------------------------------------------------------------- output */

typedef struct text_buf {
  char *p;
  size_t len, cap;
  bool oom;
} text_buf;

static void buf_add(text_buf *b, const char *s, size_t n) {
  if (b->oom)
    return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (b->len + n + 1 > cap)
      cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void buf_adds(text_buf *b, const char *s) {
  buf_add(b, s, strlen(s));
}

static void buf_addf(text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void buf_addf(text_buf *b, const char *fmt, ...) {
  char tmp[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0 && (size_t)n < sizeof tmp)
    buf_add(b, tmp, (size_t)n);
}

static bool plain_char(unsigned char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || strchr("-._~/+:", ch) != NULL;
}

static void buf_add_encoded(text_buf *b, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (plain_char(*p))
      buf_add(b, (const char *)p, 1);
    else
      buf_addf(b, "%%%02X", *p);
  }
}

static void buf_add_time(text_buf *b, int32_t ms) {
  buf_addf(b, "%02" PRId32 ":%02" PRId32 ":%02" PRId32 ".%03" PRId32,
           ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
}

/* The kind-specific fields of one calendar's line. */
static void add_fields(text_buf *b, const chime_calendar *cal) {
  const char *sep = "";
  switch (cal->kind) {
  case CHIME_CALENDAR_ANNUAL:
    buf_adds(b, " days=");
    for (int m = 1; m <= 12; m++)
      for (int d = 1; d <= 31; d++)
        if ((cal->u.annual[m] >> d) & 1u) {
          buf_addf(b, "%s%02d-%02d", sep, m, d);
          sep = ",";
        }
    break;
  case CHIME_CALENDAR_HOLIDAY:
    buf_adds(b, " dates=");
    for (size_t i = 0; i < cal->u.holiday.count; i++) {
      int64_t y;
      int m, d;
      chime__civil_from_days(cal->u.holiday.days[i], &y, &m, &d);
      buf_addf(b, "%s%04" PRId64 "-%02d-%02d", sep, y, m, d);
      sep = ",";
    }
    break;
  case CHIME_CALENDAR_MONTHLY:
    buf_adds(b, " days=");
    for (int d = 1; d <= 31; d++)
      if ((cal->u.monthly >> d) & 1u) {
        buf_addf(b, "%s%d", sep, d);
        sep = ",";
      }
    break;
  case CHIME_CALENDAR_WEEKLY:
    buf_adds(b, " days=");
    for (int w = 0; w < 7; w++)
      if ((cal->u.weekly >> w) & 1u) {
        buf_addf(b, "%s%s", sep, chime__calendar_weekday_names[w]);
        sep = ",";
      }
    break;
  case CHIME_CALENDAR_DAILY:
    buf_adds(b, " start=");
    buf_add_time(b, cal->u.daily.start_ms);
    buf_adds(b, " end=");
    buf_add_time(b, cal->u.daily.end_ms);
    buf_adds(b, cal->u.daily.invert ? " invert=1" : " invert=0");
    break;
  case CHIME_CALENDAR_CRON:
    buf_adds(b, " expr=");
    buf_add_encoded(b, chime_cron_to_string(cal->u.cron));
    break;
  }
}

int chime__calendar_to_string(const chime_calendar *cal, char **ret_text) {
  if (cal == NULL || ret_text == NULL)
    return CHIME_EINVAL;
  text_buf b = {0};
  buf_adds(&b, CHIME__CALENDAR_VERSION_LINE "\n");
  for (const chime_calendar *c = cal; c != NULL; c = c->base) {
    buf_adds(&b, chime__calendar_kind_names[c->kind]);
    if (c->zone != NULL) {
      buf_adds(&b, " zone=");
      buf_add_encoded(&b, chime_zone_get_name(c->zone));
    }
    if (c->description != NULL) {
      buf_adds(&b, " desc=");
      buf_add_encoded(&b, c->description);
    }
    add_fields(&b, c);
    buf_adds(&b, "\n");
  }
  if (b.oom) {
    free(b.p);
    return CHIME_ENOMEM;
  }
  *ret_text = b.p;
  return 0;
}

/*
 * Reloaded zone rules (tz_load.c): a calendar holds the zone objects it
 * was built with, so one reading wall-clock time in a zone whose rules
 * changed is rebuilt from its text, which looks its zones up by name and
 * so finds the newest objects.
 */
bool chime__calendar_uses_zone(const chime_calendar *cal,
                               const char *const *names, size_t count) {
  for (; cal != NULL; cal = chime__calendar_base(cal)) {
    const char *zone = chime_zone_get_name(chime__calendar_zone(cal));
    for (size_t i = 0; zone != NULL && i < count; i++)
      if (strcmp(zone, names[i]) == 0)
        return true;
  }
  return false;
}

int chime__calendar_reload(const chime_calendar *cal,
                           chime_calendar **ret_cal) {
  if (cal == NULL || ret_cal == NULL)
    return CHIME_EINVAL;
  char *text = NULL;
  int rc = chime__calendar_to_string(cal, &text);
  if (rc == 0) {
    rc = chime__calendar_from_string(text, ret_cal, NULL, 0);
    chime_free(text);
  }
  return rc;
}
