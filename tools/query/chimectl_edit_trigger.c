/*
 * chimectl_edit_trigger.c: a trigger's settings into the library's own
 * chime_trigger of any kind (cron, Unix cron, RRULE, simple,
 * calendar-interval, daily-time-interval), a new one or the stored one
 * changed; and a schedule's next fire times and words for a preview.
 * Nothing here touches the store: the library's constructors and setters
 * check every value, and their message is the one returned.
 */
#include "chimectl_edit.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ------------------------------------------------------------ triggers */

/* The schedule kind the settings give (index into ctl_schedule_kinds) and
 * its text; -1 none.  Returns: 0 or CTL_USAGE. */
static int schedule_of(const ctl_settings *s, int *ret_kind,
                       const char **ret_text) {
  *ret_kind = -1;
  const char *kind = ctl_setting(s, "kind");
  if (kind && *kind) {
    for (int i = 0; ctl_schedule_kinds[i]; i++)
      if (strcmp(kind, ctl_schedule_kinds[i]) == 0)
        *ret_kind = i;
    if (*ret_kind < 0)
      return ctl_usage("kind '%.40s' is not one of cron, unix-cron, rrule, "
                       "simple, calendar-interval, daily",
                       kind);
    const char *text = ctl_setting(s, "schedule");
    *ret_text = text ? text : "";
    return 0;
  }
  for (int i = 0; ctl_schedule_kinds[i]; i++) {
    const char *v = ctl_setting(s, ctl_schedule_kinds[i]);
    if (!v)
      continue;
    if (*ret_kind >= 0)
      return ctl_usage("a trigger has one schedule: --%s and --%s both given",
                       ctl_schedule_kinds[*ret_kind], ctl_schedule_kinds[i]);
    *ret_kind = i;
    *ret_text = v;
  }
  return 0;
}

/* The repeat setting (empty: dflt; "forever" or -1: forever). */
static int repeat_of(const ctl_settings *s, int32_t dflt, int32_t *ret) {
  const char *v = ctl_setting(s, "repeat");
  long long n = dflt;
  if (v && *v && strcasecmp(v, "forever") != 0 &&
      ctl__whole(v, CHIME_REPEAT_INDEFINITELY, INT32_MAX, &n))
    return ctl__malformed("repeat", v, "a count of repeats, or -1 (forever)");
  if (v && strcasecmp(v, "forever") == 0)
    n = CHIME_REPEAT_INDEFINITELY;
  *ret = (int32_t)n;
  return 0;
}

/* A new trigger of schedule kind (index) with text. */
static int trigger_new(const char *group, const char *name, int kind,
                       const char *text, const ctl_settings *s,
                       chime_trigger **ret) {
  const char *zone = ctl_setting(s, "zone");
  if (zone && !*zone)
    zone = NULL;
  char err[512] = "";
  int r = 0;
  const char *k = ctl_schedule_kinds[kind];
  /* Settings of other kinds are refused, not ignored. */
  static const struct {
    const char *setting, *kinds;
  } only[] = {{"repeat", " simple daily "},
              {"between", " daily "},
              {"days", " daily "},
              {"zone", " cron unix-cron calendar-interval daily "},
              {"preserve-hour", " calendar-interval "},
              {"skip-missing-hour", " calendar-interval "}};
  for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) {
    const char *v = ctl_setting(s, only[i].setting);
    char word[40];
    snprintf(word, sizeof word, " %s ", k);
    if (v && *v && !strstr(only[i].kinds, word))
      return ctl_usage("%s is not a setting of a %s trigger", only[i].setting,
                       k);
  }
  int32_t n, repeat;
  chime_interval_unit unit;
  if (strcmp(k, "cron") == 0) {
    r = chime_trigger_cron_new(group, name, text, zone, ret, err, sizeof err);
  } else if (strcmp(k, "unix-cron") == 0) {
    r = chime_trigger_unix_cron_new(group, name, text, zone, ret, err,
                                    sizeof err);
  } else if (strcmp(k, "rrule") == 0) {
    r = chime_trigger_recurrence_new(group, name, text, ret, err, sizeof err);
  } else if (strcmp(k, "simple") == 0) {
    int64_t every = 0;
    bool once = strcasecmp(text, "once") == 0;
    if (!once && ctl_parse_duration(text, &every))
      return ctl__malformed("simple", text,
                            "an interval (30s, 5m, 2h, 1d or ms) or 'once'");
    if ((r = repeat_of(s, once ? 0 : CHIME_REPEAT_INDEFINITELY, &repeat)))
      return r;
    r = chime_trigger_simple_new(group, name, every, repeat, ret, err,
                                 sizeof err);
  } else if (strcmp(k, "calendar-interval") == 0) {
    if (ctl__interval_of(text, &n, &unit))
      return ctl__malformed(k, text, "an interval like '1 day' or '2 months'");
    r = chime_trigger_calendar_interval_new(group, name, n, unit, zone, ret,
                                            err, sizeof err);
  } else {
    const char *b = ctl_setting(s, "between"), *d = ctl_setting(s, "days");
    int32_t from = 0, to = 86399;
    unsigned days = 0x7f;
    if (ctl__interval_of(text, &n, &unit))
      return ctl__malformed(k, text,
                            "an interval like '15 minutes' or '1 hour'");
    if (b && *b && ctl__between_of(b, &from, &to))
      return ctl__malformed("between", b, "a daily window like 09:00-17:30");
    if (d && *d && ctl__days_of(d, &days))
      return ctl__malformed("days", d, "days like mon-fri or sat,sun");
    if ((r = repeat_of(s, CHIME_REPEAT_INDEFINITELY, &repeat)))
      return r;
    r = chime_trigger_daily_new(group, name, from, to, days, n, unit, repeat,
                                zone, ret, err, sizeof err);
  }
  if (r < 0)
    return ctl_fail(r, "%s", err[0] ? err : chime_strerror(r));
  return 0;
}

/* What of old a new schedule keeps: the job, calendar, description, data,
 * priority, end, timeouts and (same kind) misfire and jitter. */
static int trigger_keep(chime_trigger *t, const chime_trigger *old) {
  size_t len = 0;
  const void *data = chime_trigger_get_data(old, &len);
  int r = chime_trigger_set_job(t, chime_trigger_get_job_group(old),
                                chime_trigger_get_job_name(old));
  if (!r)
    r = chime_trigger_set_calendar(t, chime_trigger_get_calendar(old));
  if (!r)
    r = chime_trigger_set_description(t, chime_trigger_get_description(old));
  if (!r && len)
    r = chime_trigger_set_data(t, data, len);
  if (!r)
    r = chime_trigger_set_priority(t, chime_trigger_get_priority(old));
  if (!r)
    r = chime_trigger_set_end_ms(t, chime_trigger_get_end_ms(old));
  if (!r)
    r = chime_trigger_set_timeout_ms(t, chime_trigger_get_timeout_ms(old));
  if (!r)
    r = chime_trigger_set_starting_deadline_ms(
        t, chime_trigger_get_starting_deadline_ms(old));
  if (!r && chime_trigger_get_kind(old) == chime_trigger_get_kind(t)) {
    r = chime_trigger_set_misfire(t, chime_trigger_get_misfire(old));
    if (!r && chime_trigger_get_jitter_ms(old))
      r = chime_trigger_set_jitter_ms(t, chime_trigger_get_jitter_ms(old));
  }
  return r < 0 ? ctl_fail(r, "cannot keep the trigger's settings: %s",
                          chime_strerror(r))
               : 0;
}

/* A time setting (empty: none) into *ret, now_ms for relative times. */
static int time_setting(const ctl_settings *s, const char *name, int64_t now_ms,
                        int64_t none, int64_t *ret) {
  const char *v = ctl_setting(s, name);
  if (v && !*v)
    *ret = none;
  else if (v && ctl_parse_time(v, now_ms, ret) < 0)
    return ctl__malformed(name, v,
                          "a time (epoch ms, 2026-03-08T01:30:00Z, -30m, -2h)");
  return 0;
}

/* The settings every kind has, on t. */
static int trigger_apply(chime_trigger *t, const ctl_settings *s,
                         int64_t now_ms) {
  const char *v;
  int r = 0;
  if ((v = ctl_setting(s, "job")) && *v) {
    char g[256], n[256];
    if ((r = ctl_split_key(v, g, n, sizeof g)))
      return r;
    if ((r = chime_trigger_set_job(t, g, n)) < 0)
      return ctl__refused(r, "job", v);
  }
  int64_t start = CHIME_NO_FIRE_MS, end = chime_trigger_get_end_ms(t);
  if ((r = time_setting(s, "start", now_ms, CHIME_NO_FIRE_MS, &start)) ||
      (r = time_setting(s, "end", now_ms, INT64_MAX, &end)))
    return r;
  if (start != CHIME_NO_FIRE_MS && (r = chime_trigger_set_start_ms(t, start)))
    return ctl__refused(r, "start", ctl_setting(s, "start"));
  if ((r = chime_trigger_set_end_ms(t, end)) < 0)
    return ctl__refused(r, "end", ctl_setting(s, "end"));
  long long prio;
  if ((v = ctl_setting(s, "priority")) &&
      ctl__whole(*v ? v : "5", -1000000, 1000000, &prio))
    return ctl__malformed("priority", v, "a whole number (higher first)");
  if (v && (r = chime_trigger_set_priority(t, (int)prio)) < 0)
    return ctl__refused(r, "priority", v);
  chime_misfire m;
  if ((v = ctl_setting(s, "misfire")) && ctl__misfire_of(*v ? v : "smart", &m))
    return ctl__malformed("misfire", v,
                          "smart, ignore, fire-now, do-nothing or "
                          "reschedule-{now,next}-{existing,remaining}-count");
  if (v && (r = chime_trigger_set_misfire(t, m)) < 0)
    return ctl_fail(r, "misfire '%s' is not one a %s trigger knows", v,
                    ctl_kind_name(chime_trigger_get_kind(t)));
  if ((v = ctl_setting(s, "calendar")) &&
      (r = chime_trigger_set_calendar(t, *v ? v : NULL)) < 0)
    return ctl__refused(r, "calendar", v);
  if ((v = ctl_setting(s, "description")) &&
      (r = chime_trigger_set_description(t, *v ? v : NULL)) < 0)
    return ctl__refused(r, "description", v);
  if ((v = ctl_setting(s, "data"))) {
    if (*v && !ctl_json_is_valid(v))
      return ctl_usage("data is not valid JSON");
    if ((r = chime_trigger_set_data(t, v, strlen(v))) < 0)
      return ctl__refused(r, "data", v);
  }
  int64_t ms = chime_trigger_get_jitter_ms(t);
  if ((r = ctl__duration_setting(s, "jitter", &ms)))
    return r;
  if (ctl_setting(s, "jitter") && (ms || chime_trigger_get_jitter_ms(t)) &&
      (r = chime_trigger_set_jitter_ms(t, ms)) < 0)
    return ctl__refused(r, "jitter", ctl_setting(s, "jitter"));
  ms = chime_trigger_get_timeout_ms(t);
  if ((r = ctl__duration_setting(s, "timeout", &ms)))
    return r;
  if ((r = chime_trigger_set_timeout_ms(t, ms)) < 0)
    return ctl__refused(r, "timeout", ctl_setting(s, "timeout"));
  ms = chime_trigger_get_starting_deadline_ms(t);
  if ((r = ctl__duration_setting(s, "deadline", &ms)))
    return r;
  if ((r = chime_trigger_set_starting_deadline_ms(t, ms)) < 0)
    return ctl__refused(r, "deadline", ctl_setting(s, "deadline"));
  static const char *const flags[] = {"preserve-hour", "skip-missing-hour"};
  for (int i = 0; i < 2; i++) {
    bool b;
    if (!(v = ctl_setting(s, flags[i])) || !*v)
      continue;
    if (ctl__boolean(v, &b))
      return ctl__malformed(flags[i], v, "true or false");
    r = i == 0 ? chime_trigger_set_preserve_hour_of_day(t, b)
               : chime_trigger_set_skip_day_if_hour_missing(t, b);
    if (r < 0)
      return ctl__refused(r, flags[i], v);
  }
  return 0;
}

int ctl__trigger_build(const char *group, const char *name, chime_trigger *old,
                       const ctl_settings *s, int64_t now_ms,
                       chime_trigger **ret) {
  int r = ctl__known(s, ctl_trigger_setting_names, "trigger");
  int kind;
  const char *text = NULL;
  if (r || (r = schedule_of(s, &kind, &text)))
    return r;
  chime_trigger *t = NULL;
  if (kind < 0 && !old)
    return ctl_usage("a new trigger wants a schedule: --cron EXPR, "
                     "--unix-cron EXPR, --rrule TEXT, --simple EVERY, "
                     "--calendar-interval 'N UNIT' or --daily 'N UNIT'");
  if (kind < 0) {
    static const char *const need[] = {"zone", "repeat", "between", "days"};
    for (size_t i = 0; i < 4; i++)
      if (ctl_setting(s, need[i]) && *ctl_setting(s, need[i]))
        return ctl_usage("%s is part of the schedule: give the schedule "
                         "again with it",
                         need[i]);
    t = old; /* its own schedule, changed in place */
  } else if ((r = trigger_new(group, name, kind, text, s, &t)) ||
             (old && (r = trigger_keep(t, old)))) {
    chime_trigger_free(t);
    return r;
  }
  if ((r = trigger_apply(t, s, now_ms))) {
    if (t != old)
      chime_trigger_free(t);
    return r;
  }
  *ret = t;
  return 0;
}

/* ------------------------------------------------------------ preview */

int ctl_schedule_preview(const ctl_settings *s, int64_t now_ms, int n,
                         int64_t *times, int *ret_n, char *zone, size_t len) {
  chime_trigger *t = NULL;
  *ret_n = 0;
  int r = ctl__trigger_build("preview", "preview", NULL, s, now_ms, &t);
  if (r)
    return r;
  int kind;
  const char *text = NULL;
  schedule_of(s, &kind, &text);
  const char *z = ctl_setting(s, "zone");
  snprintf(zone, len, "%s", z && *z ? z : "UTC");
  const char *k = ctl_schedule_kinds[kind];
  if (strcmp(k, "rrule") == 0) {
    chime_rrule *rule = NULL;
    if (chime_rrule_from_string(text, &rule, NULL, 0) == 0)
      snprintf(zone, len, "%s",
               chime_zone_get_name(chime_rrule_get_zone(rule)));
    chime_rrule_free(rule);
  } else if (strcmp(k, "unix-cron") == 0 && !(z && *z)) {
    chime_cron *cron = NULL;
    if (chime_cron_from_unix(text, &cron, NULL, NULL, 0) == 0 &&
        chime_cron_get_zone_name(cron))
      snprintf(zone, len, "%s", chime_cron_get_zone_name(cron));
    chime_cron_free(cron);
  }
  /* Kinds that count from their start begin now unless one is set. */
  bool from_start = strcmp(k, "simple") == 0 ||
                    strcmp(k, "calendar-interval") == 0 ||
                    strcmp(k, "daily") == 0;
  const char *st = ctl_setting(s, "start");
  if (from_start && !(st && *st))
    chime_trigger_set_start_ms(t, now_ms);
  int64_t after = now_ms - 1, end = chime_trigger_get_end_ms(t);
  for (int i = 0; i < n; i++) {
    int64_t next;
    r = chime_trigger_get_fire_time_after(t, after, &next);
    if (r == CHIME_ENEVERFIRES || (r == 0 && next > end))
      break;
    if (r < 0) {
      chime_trigger_free(t);
      return ctl_fail(r, "%s", chime_strerror(r));
    }
    times[(*ret_n)++] = after = next;
  }
  chime_trigger_free(t);
  return 0;
}

void ctl_schedule_words(const ctl_settings *s, char *buf, size_t len) {
  int kind;
  const char *text = NULL;
  buf[0] = '\0';
  bool quiet = ctl_quiet;
  ctl_quiet = true;
  int r = schedule_of(s, &kind, &text);
  ctl_quiet = quiet;
  if (r || kind < 0 || kind > 1) /* cron and unix-cron only */
    return;
  chime_cron *cron = NULL;
  char *words = NULL;
  r = kind == 0 ? chime_cron_from_string(text, &cron, NULL, NULL, 0)
                : chime_cron_from_unix(text, &cron, NULL, NULL, 0);
  if (r == 0 && chime_cron_describe(cron, &words) == 0)
    snprintf(buf, len, "%s", words);
  chime_free(words);
  chime_cron_free(cron);
}
