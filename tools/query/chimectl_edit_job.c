/*
 * chimectl_edit_job.c: a job's settings into the library's own chime_job
 * (a new one, or a copy of the stored one with the settings applied):
 * data, flags, concurrency, queue cap, timeout, starting deadline, retry
 * policy, shards, history level, required tags.  The library's setters
 * check every value.
 */
#include "chimectl_edit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    r = chime_job_set_retry(j, chime_job_get_retry(old));
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

/* Sets j's retry policy: attempts, delay, multiplier, max delay, jitter
 * and whether a timed-out run is retried. */
static int set_retry(chime_job *j, long long attempts, int64_t delay, double m,
                     int64_t max, int64_t jitter, bool timed_out) {
  chime_retry *p = NULL;
  int r = chime_retry_new(&p);
  if (r == 0 && ((r = chime_retry_set_max_attempts(p, (int)attempts)) < 0 ||
                 (r = chime_retry_set_initial_delay_ms(p, delay)) < 0 ||
                 (r = chime_retry_set_multiplier(p, m)) < 0 ||
                 (r = chime_retry_set_max_delay_ms(p, max)) < 0 ||
                 (r = chime_retry_set_jitter_ms(p, jitter)) < 0 ||
                 (r = chime_retry_set_timed_out(p, timed_out)) < 0))
    r = CHIME_EINVAL;
  if (r == 0)
    r = chime_job_set_retry(j, p);
  chime_retry_free(p);
  return r;
}

/* Sets j's policy's timed_out flag (chime_retry_set_timed_out). */
static int set_retry_timed_out(chime_job *j, bool yes) {
  const chime_retry *p = chime_job_get_retry(j);
  return set_retry(
      j, chime_retry_get_max_attempts(p), chime_retry_get_initial_delay_ms(p),
      chime_retry_get_multiplier(p), chime_retry_get_max_delay_ms(p),
      chime_retry_get_jitter_ms(p), yes);
}

/* The retry policy's settings on j. */
static int job_retry(chime_job *j, const ctl_settings *s) {
  const char *att = ctl_setting(s, "retry"),
             *mul = ctl_setting(s, "retry-multiplier");
  const chime_retry *old = chime_job_get_retry(j);
  long long attempts = chime_retry_get_max_attempts(old);
  int64_t delay = chime_retry_get_initial_delay_ms(old);
  int64_t max = chime_retry_get_max_delay_ms(old);
  int64_t jitter = chime_retry_get_jitter_ms(old);
  double m = chime_retry_get_multiplier(old);
  bool timed_out = chime_retry_get_timed_out(old);
  int r;
  if (att &&
      ctl__whole(*att ? att : "0", 0, CHIME_MAX_RETRY_ATTEMPTS, &attempts))
    return ctl__malformed("retry", att,
                          "a number of attempts (the first included)");
  if ((r = ctl__duration_setting(s, "retry-delay", &delay)) ||
      (r = ctl__duration_setting(s, "retry-max-delay", &max)) ||
      (r = ctl__duration_setting(s, "retry-jitter", &jitter)))
    return r;
  if (mul) {
    char *end;
    m = *mul ? strtod(mul, &end) : 1;
    if (*mul && (end == mul || *end))
      return ctl__malformed("retry-multiplier", mul, "a number");
  }
  if (!att && !mul && !ctl_setting(s, "retry-delay") &&
      !ctl_setting(s, "retry-max-delay") && !ctl_setting(s, "retry-jitter"))
    return 0;
  if ((r = set_retry(j, attempts, delay, m, max, jitter, timed_out)) < 0)
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
  else if (cnt && ctl__whole(cnt, 0, CHIME_MAX_SHARDS, &n))
    return ctl__malformed("shards", cnt, "a count or 'broadcast'");
  if (!params)
    params = chime_job_get_shard_params(j);
  int r = chime_job_set_shards(j, (int)n, params && *params ? params : NULL);
  return r < 0 ? ctl__refused(r, "shards", cnt ? cnt : params) : 0;
}

/* The other settings on j. */
static int job_apply(chime_job *j, const ctl_settings *s) {
  const char *v;
  int r = 0;
  bool b;
  if ((v = ctl_setting(s, "description")) &&
      (r = chime_job_set_description(j, *v ? v : NULL)) < 0)
    return ctl__refused(r, "description", v);
  if ((v = ctl_setting(s, "data"))) {
    if (*v && !ctl_json_is_valid(v))
      return ctl_usage("data is not valid JSON");
    if ((r = chime_job_set_data(j, v, strlen(v))) < 0)
      return ctl__refused(r, "data", v);
  }
  static const char *const flags[] = {"durable", "recovery", "persist-data",
                                      "retry-timed-out"};
  for (size_t i = 0; i < 4; i++) {
    if (!(v = ctl_setting(s, flags[i])))
      continue;
    if (ctl__boolean(*v ? v : (i == 3 ? "true" : "false"), &b))
      return ctl__malformed(flags[i], v, "true or false");
    r = i == 0   ? chime_job_set_durable(j, b)
        : i == 1 ? chime_job_set_requests_recovery(j, b)
        : i == 2 ? chime_job_set_persist_data(j, b)
                 : set_retry_timed_out(j, b);
    if (r < 0)
      return ctl__refused(r, flags[i], v);
  }
  chime_concurrency cc;
  if ((v = ctl_setting(s, "concurrency")) &&
      ctl__concurrency_of(*v ? v : "allow", &cc))
    return ctl__malformed(
        "concurrency", v,
        "allow, forbid, forbid-queue, forbid-skip or replace");
  if (v && (r = chime_job_set_concurrency(j, cc)) < 0)
    return ctl__refused(r, "concurrency", v);
  long long cap;
  if ((v = ctl_setting(s, "queue-cap")) &&
      ctl__whole(*v ? v : "0", 0, CHIME_MAX_QUEUE_CAP, &cap))
    return ctl__malformed("queue-cap", v, "a number of fires");
  if (v && (r = chime_job_set_queue_cap(j, cap)) < 0)
    return ctl__refused(r, "queue-cap", v);
  int64_t ms = chime_job_get_timeout_ms(j);
  if ((r = ctl__duration_setting(s, "timeout", &ms)))
    return r;
  if ((r = chime_job_set_timeout_ms(j, ms)) < 0)
    return ctl__refused(r, "timeout", ctl_setting(s, "timeout"));
  ms = chime_job_get_starting_deadline_ms(j);
  if ((r = ctl__duration_setting(s, "deadline", &ms)))
    return r;
  if ((r = chime_job_set_starting_deadline_ms(j, ms)) < 0)
    return ctl__refused(r, "deadline", ctl_setting(s, "deadline"));
  chime_history_level h;
  if ((v = ctl_setting(s, "history")) && ctl__history_of(*v ? v : "all", &h))
    return ctl__malformed("history", v, "all, failures or none");
  if (v && (r = chime_job_set_history_level(j, h)) < 0)
    return ctl__refused(r, "history", v);
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
      return ctl__refused(r, "tag", tag);
    p += n;
    p += strspn(p, ", ");
  }
  return 0;
}

int ctl__job_build(const char *group, const char *name, const chime_job *old,
                   const ctl_settings *s, chime_job **ret) {
  int r = ctl__known(s, ctl_job_setting_names, "job");
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
