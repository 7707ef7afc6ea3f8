/*
 * chimectl_edit_values.c: the settings (chimectl_edit.h) and their values:
 * the names each kind of definition takes, durations, numbers, booleans,
 * intervals, daily windows, days, misfire, concurrency and history names,
 * and the messages for a value that is malformed or that the library
 * refused.  An empty value resets a setting to its default.
 */
#include "chimectl_edit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const ctl_job_setting_names[] = {"type",
                                             "description",
                                             "data",
                                             "durable",
                                             "recovery",
                                             "persist-data",
                                             "concurrency",
                                             "queue-cap",
                                             "retry",
                                             "retry-delay",
                                             "retry-multiplier",
                                             "retry-max-delay",
                                             "retry-jitter",
                                             "retry-timed-out",
                                             "timeout",
                                             "deadline",
                                             "shards",
                                             "shard-params",
                                             "history",
                                             "tags",
                                             NULL};
const char *const ctl_schedule_kinds[] = {
    "cron", "unix-cron", "rrule", "simple", "calendar-interval", "daily", NULL};
const char *const ctl_trigger_setting_names[] = {"job",
                                                 "kind",
                                                 "schedule",
                                                 "cron",
                                                 "unix-cron",
                                                 "rrule",
                                                 "simple",
                                                 "calendar-interval",
                                                 "daily",
                                                 "zone",
                                                 "repeat",
                                                 "between",
                                                 "days",
                                                 "start",
                                                 "end",
                                                 "priority",
                                                 "misfire",
                                                 "calendar",
                                                 "description",
                                                 "data",
                                                 "jitter",
                                                 "timeout",
                                                 "deadline",
                                                 "preserve-hour",
                                                 "skip-missing-hour",
                                                 NULL};

const char *ctl_setting(const ctl_settings *s, const char *key) {
  for (size_t i = s->n; i-- > 0;)
    if (strcmp(s->key[i], key) == 0)
      return s->value[i];
  return NULL;
}

int ctl_setting_add(ctl_settings *s, const char *key, const char *value) {
  if (s->n == CTL_MAX_SETTINGS)
    return ctl_usage("too many settings (at most %d)", CTL_MAX_SETTINGS);
  s->key[s->n] = key;
  s->value[s->n++] = value;
  return 0;
}

/* ------------------------------------------------------------ values */

int ctl_parse_duration(const char *text, int64_t *ret_ms) {
  char *end;
  double v = strtod(text, &end);
  if (end == text || !(v >= 0) || v > 1e15)
    return -1;
  static const struct {
    const char *suffix;
    double ms;
  } units[] = {{"", 1},        {"ms", 1},       {"s", 1000},     {"m", 60000},
               {"h", 3600000}, {"d", 86400000}, {"w", 604800000}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(end, units[i].suffix) == 0) {
      double ms = v * units[i].ms;
      if (ms > 9e15 || ms != floor(ms))
        return -1;
      *ret_ms = (int64_t)ms;
      return 0;
    }
  return -1;
}

/* A whole number in [lo, hi].  Returns: 0 or -1. */
int ctl__whole(const char *text, long long lo, long long hi, long long *ret) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end || v < lo || v > hi)
    return -1;
  *ret = v;
  return 0;
}

int ctl__boolean(const char *text, bool *ret) {
  static const char *const yes[] = {"true", "yes", "1", "on"};
  static const char *const no[] = {"false", "no", "0", "off"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(text, yes[i]) == 0)
      return *ret = true, 0;
    if (strcasecmp(text, no[i]) == 0)
      return *ret = false, 0;
  }
  return -1;
}

/* "N UNIT" ("15 minutes", "2month"): *ret_n and *ret_unit. */
int ctl__interval_of(const char *text, int32_t *ret_n,
                     chime_interval_unit *ret_unit) {
  static const char *const units[] = {"millisecond", "second", "minute",
                                      "hour",        "day",    "week",
                                      "month",       "year"};
  char *end;
  long n = strtol(text, &end, 10);
  if (end == text || n < 1 || n > INT32_MAX)
    return -1;
  while (*end == ' ')
    end++;
  size_t len = strlen(end);
  if (len && end[len - 1] == 's')
    len--;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (len && strlen(units[i]) == len &&
        strncasecmp(end, units[i], len) == 0) {
      *ret_n = (int32_t)n;
      *ret_unit = (chime_interval_unit)i;
      return 0;
    }
  return -1;
}

/* "HH:MM[:SS]" into seconds of the day. */
static const char *clock_of(const char *p, int32_t *ret_s) {
  int h = 0, m = 0, s = 0, n = 0;
  if (sscanf(p, "%2d:%2d%n", &h, &m, &n) != 2)
    return NULL;
  p += n;
  if (*p == ':' && sscanf(p, ":%2d%n", &s, &n) == 1)
    p += n;
  if (h > 23 || m > 59 || s > 59 || h < 0 || m < 0 || s < 0)
    return NULL;
  *ret_s = h * 3600 + m * 60 + s;
  return p;
}

/* "09:00-17:30[:00]" into the window's ends. */
int ctl__between_of(const char *text, int32_t *ret_from, int32_t *ret_to) {
  const char *p = clock_of(text, ret_from);
  if (!p || *p != '-' || !(p = clock_of(p + 1, ret_to)) || *p)
    return -1;
  return 0;
}

/* "mon-fri", "sat,sun", "all": bit 0 Sunday ... bit 6 Saturday. */
int ctl__days_of(const char *text, unsigned *ret) {
  static const char *const names[] = {"sun", "mon", "tue", "wed",
                                      "thu", "fri", "sat"};
  if (strcasecmp(text, "all") == 0 || strcmp(text, "*") == 0)
    return *ret = 0x7f, 0;
  unsigned bits = 0;
  const char *p = text;
  while (*p) {
    int d[2] = {-1, -1};
    for (int k = 0; k < 2; k++) {
      for (int i = 0; i < 7; i++)
        if (strncasecmp(p, names[i], 3) == 0)
          d[k] = i;
      if (d[k] < 0)
        return -1;
      p += 3;
      if (k == 0 && *p != '-') {
        d[1] = d[0];
        break;
      }
      if (k == 0)
        p++;
    }
    for (int i = d[0];; i = (i + 1) % 7) {
      bits |= 1u << i;
      if (i == d[1])
        break;
    }
    if (*p == ',')
      p++;
    else if (*p)
      return -1;
  }
  *ret = bits;
  return bits ? 0 : -1;
}

int ctl__misfire_of(const char *text, chime_misfire *ret) {
  for (int m = 0; m <= CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT; m++)
    if (strcasecmp(text, ctl_misfire_name((chime_misfire)m)) == 0)
      return *ret = (chime_misfire)m, 0;
  return -1;
}

int ctl__concurrency_of(const char *text, chime_concurrency *ret) {
  static const struct {
    const char *name;
    chime_concurrency c;
  } names[] = {{"allow", CHIME_CONCURRENCY_ALLOW},
               {"forbid", CHIME_CONCURRENCY_FORBID},
               {"forbid-queue", CHIME_CONCURRENCY_FORBID_QUEUE},
               {"forbid-skip", CHIME_CONCURRENCY_FORBID_SKIP},
               {"replace", CHIME_CONCURRENCY_REPLACE}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(text, names[i].name) == 0)
      return *ret = names[i].c, 0;
  return -1;
}

int ctl__history_of(const char *text, chime_history_level *ret) {
  static const char *const names[] = {"all", "failures", "none"};
  for (int i = 0; i < 3; i++)
    if (strcasecmp(text, names[i]) == 0)
      return *ret = (chime_history_level)i, 0;
  return -1;
}

/* A refused setter: "NAME: why" (the library's code in words). */
int ctl__refused(int r, const char *name, const char *value) {
  return ctl_fail(r, "%s '%.200s': %s", name, value, chime_strerror(r));
}

/* A malformed value: what the setting wants. */
int ctl__malformed(const char *name, const char *value, const char *want) {
  return ctl_usage("%s '%.200s' is not %s", name, value, want);
}

/* Every setting of s is one of names.  Returns: 0 or CTL_USAGE. */
int ctl__known(const ctl_settings *s, const char *const *names,
               const char *what) {
  for (size_t i = 0; i < s->n; i++) {
    const char *const *n = names;
    while (*n && strcmp(*n, s->key[i]) != 0)
      n++;
    if (!*n)
      return ctl_usage("a %s has no setting '%s'", what, s->key[i]);
  }
  return 0;
}

/* A duration setting into *ms (empty: 0). */
int ctl__duration_setting(const ctl_settings *s, const char *name,
                          int64_t *ms) {
  const char *v = ctl_setting(s, name);
  if (v && !*v)
    *ms = 0;
  else if (v && ctl_parse_duration(v, ms))
    return ctl__malformed(name, v, "a duration (500ms, 30s, 5m, 2h, 1d or ms)");
  return 0;
}
