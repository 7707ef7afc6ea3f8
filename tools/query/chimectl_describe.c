/*
 * chimectl_describe.c: a trigger's schedule in words for chimectl's
 * tables: chime_cron_describe for cron triggers, a sentence built here for
 * the other kinds; and the names of kinds and misfire instructions.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ctl_kind_name(chime_trigger_kind k) {
  const char *name = chime_trigger_kind_to_string(k);
  return name ? name : "unknown";
}

const char *ctl_misfire_name(chime_misfire m) {
  const char *name = chime_misfire_to_string(m);
  return name ? name : "unknown";
}

const char *ctl_unit_name(chime_interval_unit u) {
  static const char *const names[] = {"millisecond", "second", "minute",
                                      "hour",        "day",    "week",
                                      "month",       "year"};
  return (unsigned)u < sizeof names / sizeof names[0] ? names[u] : "unit";
}

/* "every 5 minutes" / "every minute". */
static void every(char *buf, size_t len, int64_t n, const char *unit) {
  if (n == 1)
    snprintf(buf, len, "every %s", unit);
  else
    snprintf(buf, len, "every %" PRId64 " %ss", n, unit);
}

/* An interval in ms in the largest whole unit. */
static void every_ms(char *buf, size_t len, int64_t ms) {
  static const struct {
    int64_t ms;
    const char *name;
  } units[] = {{86400000, "day"},
               {3600000, "hour"},
               {60000, "minute"},
               {1000, "second"},
               {1, "millisecond"}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (ms % units[i].ms == 0) {
      every(buf, len, ms / units[i].ms, units[i].name);
      return;
    }
}

static void repeats(char *buf, size_t len, int32_t count) {
  if (count == CHIME_REPEAT_INDEFINITELY)
    snprintf(buf, len, ", forever");
  else
    snprintf(buf, len, ", %" PRId32 " time%s in all", count + 1,
             count == 0 ? "" : "s");
}

char *ctl_describe_trigger(const ctl_trigger *t) {
  char buf[512], a[128], b[64];
  switch (t->kind) {
  case CHIME_TRIGGER_CRON: {
    char *text = NULL;
    chime_cron *cron = NULL;
    if (t->cron_text &&
        chime_cron_from_string(t->cron_text, &cron, NULL, NULL, 0) == 0 &&
        chime_cron_describe(cron, &text) == 0) {
      snprintf(buf, sizeof buf, "%s", text);
      chime_free(text);
    } else {
      snprintf(buf, sizeof buf, "cron %s", t->cron_text ? t->cron_text : "?");
    }
    chime_cron_free(cron);
    break;
  }
  case CHIME_TRIGGER_RECURRENCE:
    snprintf(buf, sizeof buf, "recurrence %s",
             t->cron_text ? t->cron_text : "?");
    break;
  case CHIME_TRIGGER_SIMPLE:
    if (t->repeat_count == 0) {
      snprintf(buf, sizeof buf, "once");
    } else {
      every_ms(a, sizeof a, t->interval_ms);
      repeats(b, sizeof b, t->state_repeat_count);
      snprintf(buf, sizeof buf, "%s%s", a, b);
    }
    break;
  case CHIME_TRIGGER_CALENDAR_INTERVAL:
    every(a, sizeof a, t->interval, ctl_unit_name(t->unit));
    snprintf(buf, sizeof buf, "%s of the calendar%s", a,
             t->preserve_hour_of_day ? ", keeping the hour of day" : "");
    break;
  case CHIME_TRIGGER_DAILY_TIME_INTERVAL: {
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed",
                                       "Thu", "Fri", "Sat"};
    char d[40] = "";
    size_t k = 0;
    for (int i = 0; i < 7; i++)
      if (t->days_of_week & (1u << i))
        k += (size_t)snprintf(d + k, sizeof d - k, "%s%s", k ? "," : "",
                              days[i]);
    if (t->days_of_week == 0x7f)
      snprintf(d, sizeof d, "every day");
    every(a, sizeof a, t->interval, ctl_unit_name(t->unit));
    int32_t st = t->day_start_s, en = t->day_end_s;
    snprintf(buf, sizeof buf, "%s from %02d:%02d:%02d to %02d:%02d:%02d, %s", a,
             (int)(st / 3600), (int)(st % 3600 / 60), (int)(st % 60),
             (int)(en / 3600), (int)(en % 3600 / 60), (int)(en % 60), d);
    if (t->repeat_count != CHIME_REPEAT_INDEFINITELY) {
      repeats(b, sizeof b, t->repeat_count);
      size_t l = strlen(buf);
      snprintf(buf + l, sizeof buf - l, "%s", b);
    }
    break;
  }
  default:
    snprintf(buf, sizeof buf, "unknown kind");
  }
  if (t->calendar_name) {
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l, ", except calendar %s", t->calendar_name);
  }
  if (t->jitter_ms > 0) {
    /* The fire times shown (next, prev) are already the moved ones. */
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l,
             ", jittered +%" PRId64 ".%03ds (window %" PRId64 ".%03ds)",
             t->jitter_offset_ms / 1000, (int)(t->jitter_offset_ms % 1000),
             t->jitter_ms / 1000, (int)(t->jitter_ms % 1000));
  }
  return strdup(buf);
}

void ctl_next_times(const ctl_trigger *t, const char *zone, int n, char *buf,
                    size_t len) {
  int64_t at = t->next_fire_ms;
  /* Cron and recurrence times (jitter applied, as the trigger fires) and
   * simple steps are listed; a calendar's exclusions would need the
   * calendar: such a trigger shows its next. */
  bool step = !t->calendar_name &&
              (((t->kind == CHIME_TRIGGER_CRON ||
                 t->kind == CHIME_TRIGGER_RECURRENCE) &&
                t->record) ||
               (t->kind == CHIME_TRIGGER_SIMPLE && t->interval_ms > 0));
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0;
       i < n && at != CHIME_NO_FIRE_MS && at <= t->end_ms && k + 1 < len; i++) {
    char when[48];
    ctl_format_time(at, zone, when, sizeof when);
    k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", when);
    if (!step)
      break;
    if (t->kind == CHIME_TRIGGER_SIMPLE) {
      at += t->interval_ms;
      if (t->repeat_count >= 0 &&
          t->state_repeat_count + i + 1 > t->repeat_count)
        break;
    } else if (chime_trigger_get_fire_time_after(t->record, at, &at) < 0) {
      break;
    }
  }
}
