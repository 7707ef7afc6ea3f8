/*
 * chimectl_edit_build.c: settings (chimectl_edit.h) into the library's own
 * definitions: a chime_job, a chime_trigger of any kind, and a schedule's
 * next fire times for a preview.  Nothing here touches the store: the
 * library's constructors and setters check every value, and their message
 * is the one returned.  An empty value resets a setting to its default.
 */
#include "chimectl_edit.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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
static int whole(const char *text, long long lo, long long hi, long long *ret) {
  char *end;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end || v < lo || v > hi)
    return -1;
  *ret = v;
  return 0;
}

static int boolean(const char *text, bool *ret) {
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
static int interval_of(const char *text, int32_t *ret_n,
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
static int between_of(const char *text, int32_t *ret_from, int32_t *ret_to) {
  const char *p = clock_of(text, ret_from);
  if (!p || *p != '-' || !(p = clock_of(p + 1, ret_to)) || *p)
    return -1;
  return 0;
}

/* "mon-fri", "sat,sun", "all": bit 0 Sunday ... bit 6 Saturday. */
static int days_of(const char *text, unsigned *ret) {
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

static int misfire_of(const char *text, chime_misfire *ret) {
  for (int m = 0; m <= CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT; m++)
    if (strcasecmp(text, ctl_misfire_name((chime_misfire)m)) == 0)
      return *ret = (chime_misfire)m, 0;
  return -1;
}

static int concurrency_of(const char *text, chime_concurrency *ret) {
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

static int history_of(const char *text, chime_history_level *ret) {
  static const char *const names[] = {"all", "failures", "none"};
  for (int i = 0; i < 3; i++)
    if (strcasecmp(text, names[i]) == 0)
      return *ret = (chime_history_level)i, 0;
  return -1;
}

/* A refused setter: "NAME: why" (the library's code in words). */
static int refused(int r, const char *name, const char *value) {
  return ctl_fail(r, "%s '%.200s': %s", name, value, chime_strerror(r));
}

/* A malformed value: what the setting wants. */
static int malformed(const char *name, const char *value, const char *want) {
  return ctl_usage("%s '%.200s' is not %s", name, value, want);
}

/* Every setting of s is one of names.  Returns: 0 or CTL_USAGE. */
static int known(const ctl_settings *s, const char *const *names,
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

/* ------------------------------------------------------------ jobs */

/* A copy of old's definition under type (chime_job has no type setter). */
static int job_copy(const chime_job *old, const char *type, bool with_tags,
                    chime_job **ret) {
  char err[512] = "";
  chime_job *j = NULL;
  int r = chime_job_new(chime_job_get_group(old), chime_job_get_name(old), type,
                        &j, err, sizeof err);
  if (r < 0)
    return ctl_fail(r, "%s", err[0] ? err : chime_strerror(r));
  size_t len = 0;
  const void *data = chime_job_get_data(old, &len);
  const char *tags = with_tags ? chime_job_get_required_tags(old) : NULL;
  if (!r)
    r = chime_job_set_description(j, chime_job_get_description(old));
  if (!r && len)
    r = chime_job_set_data(j, data, len);
  if (!r)
    r = chime_job_set_durable(j, chime_job_get_durable(old));
  if (!r)
    r = chime_job_set_requests_recovery(j,
                                        chime_job_get_requests_recovery(old));
  if (!r)
    r = chime_job_set_persist_data(j, chime_job_get_persist_data(old));
  if (!r)
    r = chime_job_set_concurrency(j, chime_job_get_concurrency(old));
  if (!r)
    r = chime_job_set_queue_cap(j, chime_job_get_queue_cap(old));
  if (!r)
    r = chime_job_set_timeout_ms(j, chime_job_get_timeout_ms(old));
  if (!r)
    r = chime_job_set_starting_deadline_ms(
        j, chime_job_get_starting_deadline_ms(old));
  if (!r)
    r = chime_job_set_retry(j, chime_job_get_retry_max_attempts(old),
                            chime_job_get_retry_initial_delay_ms(old),
                            chime_job_get_retry_multiplier(old),
                            chime_job_get_retry_max_delay_ms(old),
                            chime_job_get_retry_jitter_ms(old));
  if (!r)
    r = chime_job_set_retry_timed_out(j, chime_job_get_retry_timed_out(old));
  if (!r)
    r = chime_job_set_history_level(j, chime_job_get_history_level(old));
  if (!r)
    r = chime_job_set_shards(j, chime_job_get_shard_count(old),
                             chime_job_get_shard_params(old));
  for (const char *p = tags; !r && p && *p;) {
    char tag[CHIME_MAX_TAG_LEN + 1];
    size_t n = strcspn(p, ",");
    snprintf(tag, sizeof tag, "%.*s", (int)n, p);
    r = chime_job_add_required_tag(j, tag);
    p += n + (p[n] == ',');
  }
  if (r < 0) {
    chime_job_free(j);
    return ctl_fail(r, "cannot copy job %s.%s: %s", chime_job_get_group(old),
                    chime_job_get_name(old), chime_strerror(r));
  }
  *ret = j;
  return 0;
}

/* A duration setting into *ms (empty: 0). */
static int duration_setting(const ctl_settings *s, const char *name,
                            int64_t *ms) {
  const char *v = ctl_setting(s, name);
  if (v && !*v)
    *ms = 0;
  else if (v && ctl_parse_duration(v, ms))
    return malformed(name, v, "a duration (500ms, 30s, 5m, 2h, 1d or ms)");
  return 0;
}

/* The retry policy's settings on j. */
static int job_retry(chime_job *j, const ctl_settings *s) {
  const char *att = ctl_setting(s, "retry"),
             *mul = ctl_setting(s, "retry-multiplier");
  long long attempts = chime_job_get_retry_max_attempts(j);
  int64_t delay = chime_job_get_retry_initial_delay_ms(j);
  int64_t max = chime_job_get_retry_max_delay_ms(j);
  int64_t jitter = chime_job_get_retry_jitter_ms(j);
  double m = chime_job_get_retry_multiplier(j);
  int r;
  if (att && whole(*att ? att : "0", 0, CHIME_MAX_RETRY_ATTEMPTS, &attempts))
    return malformed("retry", att, "a number of attempts (the first included)");
  if ((r = duration_setting(s, "retry-delay", &delay)) ||
      (r = duration_setting(s, "retry-max-delay", &max)) ||
      (r = duration_setting(s, "retry-jitter", &jitter)))
    return r;
  if (mul) {
    char *end;
    m = *mul ? strtod(mul, &end) : 1;
    if (*mul && (end == mul || *end))
      return malformed("retry-multiplier", mul, "a number");
  }
  if (!att && !mul && !ctl_setting(s, "retry-delay") &&
      !ctl_setting(s, "retry-max-delay") && !ctl_setting(s, "retry-jitter"))
    return 0;
  if ((r = chime_job_set_retry(j, (int)attempts, delay, m, max, jitter)) < 0)
    return ctl_fail(r,
                    "retry policy (%lld attempts, delay %" PRId64
                    " ms, multiplier %g, max %" PRId64 " ms, jitter %" PRId64
                    " ms): %s",
                    attempts, delay, m, max, jitter, chime_strerror(r));
  return 0;
}

/* The shards setting: a count, "broadcast" or empty (none). */
static int job_shards(chime_job *j, const ctl_settings *s) {
  const char *cnt = ctl_setting(s, "shards"),
             *params = ctl_setting(s, "shard-params");
  if (!cnt && !params)
    return 0;
  long long n = chime_job_get_shard_count(j);
  if (cnt && !*cnt)
    n = 0;
  else if (cnt && strcasecmp(cnt, "broadcast") == 0)
    n = CHIME_SHARDS_BROADCAST;
  else if (cnt && whole(cnt, 0, CHIME_MAX_SHARDS, &n))
    return malformed("shards", cnt, "a count or 'broadcast'");
  if (!params)
    params = chime_job_get_shard_params(j);
  int r = chime_job_set_shards(j, (int)n, params && *params ? params : NULL);
  return r < 0 ? refused(r, "shards", cnt ? cnt : params) : 0;
}

/* The other settings on j. */
static int job_apply(chime_job *j, const ctl_settings *s) {
  const char *v;
  int r = 0;
  bool b;
  if ((v = ctl_setting(s, "description")) &&
      (r = chime_job_set_description(j, *v ? v : NULL)) < 0)
    return refused(r, "description", v);
  if ((v = ctl_setting(s, "data"))) {
    if (*v && !ctl_json_is_valid(v))
      return ctl_usage("data is not valid JSON");
    if ((r = chime_job_set_data(j, v, strlen(v))) < 0)
      return refused(r, "data", v);
  }
  static const char *const flags[] = {"durable", "recovery", "persist-data",
                                      "retry-timed-out"};
  for (size_t i = 0; i < 4; i++) {
    if (!(v = ctl_setting(s, flags[i])))
      continue;
    if (boolean(*v ? v : (i == 3 ? "true" : "false"), &b))
      return malformed(flags[i], v, "true or false");
    r = i == 0   ? chime_job_set_durable(j, b)
        : i == 1 ? chime_job_set_requests_recovery(j, b)
        : i == 2 ? chime_job_set_persist_data(j, b)
                 : chime_job_set_retry_timed_out(j, b);
    if (r < 0)
      return refused(r, flags[i], v);
  }
  chime_concurrency cc;
  if ((v = ctl_setting(s, "concurrency")) &&
      concurrency_of(*v ? v : "allow", &cc))
    return malformed("concurrency", v,
                     "allow, forbid, forbid-queue, forbid-skip or replace");
  if (v && (r = chime_job_set_concurrency(j, cc)) < 0)
    return refused(r, "concurrency", v);
  long long cap;
  if ((v = ctl_setting(s, "queue-cap")) &&
      whole(*v ? v : "0", 0, CHIME_MAX_QUEUE_CAP, &cap))
    return malformed("queue-cap", v, "a number of fires");
  if (v && (r = chime_job_set_queue_cap(j, cap)) < 0)
    return refused(r, "queue-cap", v);
  int64_t ms = chime_job_get_timeout_ms(j);
  if ((r = duration_setting(s, "timeout", &ms)))
    return r;
  if ((r = chime_job_set_timeout_ms(j, ms)) < 0)
    return refused(r, "timeout", ctl_setting(s, "timeout"));
  ms = chime_job_get_starting_deadline_ms(j);
  if ((r = duration_setting(s, "deadline", &ms)))
    return r;
  if ((r = chime_job_set_starting_deadline_ms(j, ms)) < 0)
    return refused(r, "deadline", ctl_setting(s, "deadline"));
  chime_history_level h;
  if ((v = ctl_setting(s, "history")) && history_of(*v ? v : "all", &h))
    return malformed("history", v, "all, failures or none");
  if (v && (r = chime_job_set_history_level(j, h)) < 0)
    return refused(r, "history", v);
  if ((r = job_retry(j, s)) || (r = job_shards(j, s)))
    return r;
  return 0;
}

/* Adds the tags setting's tags. */
static int job_tags(chime_job *j, const char *tags) {
  for (const char *p = tags; p && *p;) {
    char tag[CHIME_MAX_TAG_LEN + 2];
    size_t n = strcspn(p, ", ");
    snprintf(tag, sizeof tag, "%.*s",
             (int)(n < sizeof tag ? n : sizeof tag - 1), p);
    int r = n ? chime_job_add_required_tag(j, tag) : 0;
    if (r < 0)
      return refused(r, "tag", tag);
    p += n;
    p += strspn(p, ", ");
  }
  return 0;
}

int ctl__job_build(const char *group, const char *name, const chime_job *old,
                   const ctl_settings *s, chime_job **ret) {
  int r = known(s, ctl_job_setting_names, "job");
  if (r)
    return r;
  const char *type = ctl_setting(s, "type");
  const char *tags = ctl_setting(s, "tags");
  chime_job *j = NULL;
  char err[512] = "";
  if (old) {
    /* Its tags are copied unless the setting gives them anew. */
    if ((r = job_copy(old, type && *type ? type : chime_job_get_type(old),
                      !tags, &j)))
      return r;
  } else {
    if (!type || !*type)
      return ctl_usage("a new job wants its type (--type NAME: what its "
                       "nodes registered)");
    if ((r = chime_job_new(group, name, type, &j, err, sizeof err)) < 0)
      return ctl_fail(r, "%s", err[0] ? err : chime_strerror(r));
    /* A job added alone must be durable: the console's default. */
    chime_job_set_durable(j, true);
  }
  if ((r = job_apply(j, s)) || (r = job_tags(j, tags))) {
    chime_job_free(j);
    return r;
  }
  *ret = j;
  return 0;
}

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
      whole(v, CHIME_REPEAT_INDEFINITELY, INT32_MAX, &n))
    return malformed("repeat", v, "a count of repeats, or -1 (forever)");
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
      return malformed("simple", text,
                       "an interval (30s, 5m, 2h, 1d or ms) or 'once'");
    if ((r = repeat_of(s, once ? 0 : CHIME_REPEAT_INDEFINITELY, &repeat)))
      return r;
    r = chime_trigger_simple_new(group, name, every, repeat, ret, err,
                                 sizeof err);
  } else if (strcmp(k, "calendar-interval") == 0) {
    if (interval_of(text, &n, &unit))
      return malformed(k, text, "an interval like '1 day' or '2 months'");
    r = chime_trigger_calendar_interval_new(group, name, n, unit, zone, ret,
                                            err, sizeof err);
  } else {
    const char *b = ctl_setting(s, "between"), *d = ctl_setting(s, "days");
    int32_t from = 0, to = 86399;
    unsigned days = 0x7f;
    if (interval_of(text, &n, &unit))
      return malformed(k, text, "an interval like '15 minutes' or '1 hour'");
    if (b && *b && between_of(b, &from, &to))
      return malformed("between", b, "a daily window like 09:00-17:30");
    if (d && *d && days_of(d, &days))
      return malformed("days", d, "days like mon-fri or sat,sun");
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
    return malformed(name, v,
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
      return refused(r, "job", v);
  }
  int64_t start = CHIME_NO_FIRE_MS, end = chime_trigger_get_end_ms(t);
  if ((r = time_setting(s, "start", now_ms, CHIME_NO_FIRE_MS, &start)) ||
      (r = time_setting(s, "end", now_ms, INT64_MAX, &end)))
    return r;
  if (start != CHIME_NO_FIRE_MS && (r = chime_trigger_set_start_ms(t, start)))
    return refused(r, "start", ctl_setting(s, "start"));
  if ((r = chime_trigger_set_end_ms(t, end)) < 0)
    return refused(r, "end", ctl_setting(s, "end"));
  long long prio;
  if ((v = ctl_setting(s, "priority")) &&
      whole(*v ? v : "5", -1000000, 1000000, &prio))
    return malformed("priority", v, "a whole number (higher first)");
  if (v && (r = chime_trigger_set_priority(t, (int)prio)) < 0)
    return refused(r, "priority", v);
  chime_misfire m;
  if ((v = ctl_setting(s, "misfire")) && misfire_of(*v ? v : "smart", &m))
    return malformed("misfire", v,
                     "smart, ignore, fire-now, do-nothing or "
                     "reschedule-{now,next}-{existing,remaining}-count");
  if (v && (r = chime_trigger_set_misfire(t, m)) < 0)
    return ctl_fail(r, "misfire '%s' is not one a %s trigger knows", v,
                    ctl_kind_name(chime_trigger_get_kind(t)));
  if ((v = ctl_setting(s, "calendar")) &&
      (r = chime_trigger_set_calendar(t, *v ? v : NULL)) < 0)
    return refused(r, "calendar", v);
  if ((v = ctl_setting(s, "description")) &&
      (r = chime_trigger_set_description(t, *v ? v : NULL)) < 0)
    return refused(r, "description", v);
  if ((v = ctl_setting(s, "data"))) {
    if (*v && !ctl_json_is_valid(v))
      return ctl_usage("data is not valid JSON");
    if ((r = chime_trigger_set_data(t, v, strlen(v))) < 0)
      return refused(r, "data", v);
  }
  int64_t ms = chime_trigger_get_jitter_ms(t);
  if ((r = duration_setting(s, "jitter", &ms)))
    return r;
  if (ctl_setting(s, "jitter") && (ms || chime_trigger_get_jitter_ms(t)) &&
      (r = chime_trigger_set_jitter_ms(t, ms)) < 0)
    return refused(r, "jitter", ctl_setting(s, "jitter"));
  ms = chime_trigger_get_timeout_ms(t);
  if ((r = duration_setting(s, "timeout", &ms)))
    return r;
  if ((r = chime_trigger_set_timeout_ms(t, ms)) < 0)
    return refused(r, "timeout", ctl_setting(s, "timeout"));
  ms = chime_trigger_get_starting_deadline_ms(t);
  if ((r = duration_setting(s, "deadline", &ms)))
    return r;
  if ((r = chime_trigger_set_starting_deadline_ms(t, ms)) < 0)
    return refused(r, "deadline", ctl_setting(s, "deadline"));
  static const char *const flags[] = {"preserve-hour", "skip-missing-hour"};
  for (int i = 0; i < 2; i++) {
    bool b;
    if (!(v = ctl_setting(s, flags[i])) || !*v)
      continue;
    if (boolean(v, &b))
      return malformed(flags[i], v, "true or false");
    r = i == 0 ? chime_trigger_set_preserve_hour_of_day(t, b)
               : chime_trigger_set_skip_day_if_hour_missing(t, b);
    if (r < 0)
      return refused(r, flags[i], v);
  }
  return 0;
}

int ctl__trigger_build(const char *group, const char *name, chime_trigger *old,
                       const ctl_settings *s, int64_t now_ms,
                       chime_trigger **ret) {
  int r = known(s, ctl_trigger_setting_names, "trigger");
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
      snprintf(zone, len, "%s", chime_zone_get_name(chime_rrule_zone(rule)));
    chime_rrule_free(rule);
  } else if (strcmp(k, "unix-cron") == 0 && !(z && *z)) {
    chime_cron *cron = NULL;
    if (chime_cron_from_unix(text, &cron, NULL, NULL, 0) == 0 &&
        chime_cron_zone_name(cron))
      snprintf(zone, len, "%s", chime_cron_zone_name(cron));
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
    r = chime_trigger_fire_time_after(t, after, &next);
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
