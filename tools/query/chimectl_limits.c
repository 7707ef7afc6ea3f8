/*
 * chimectl_limits.c: the limits of job types (docs/queue.md, "Limits"):
 * `limit set TYPE [--max N] [--per-partition M] [--rate R/PERIOD]
 * [--partition-rate R/PERIOD] [--partition-field F]` (the whole limit,
 * both halves) and `limit clear TYPE` change them through the store (the
 * same checks as chime_scheduler_set_limit and
 * chime_scheduler_set_partition_limit); `limit show` (or `limits`) lists each
 * limited type with its figures, what waits and what runs, then each of
 * its partitions that has fires (ctl_limits_table: chime-web's overview
 * shows the same table).
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "50/1s", "600/1m", "5/250ms", "2/1000" (ms) into *count and *period_ms.
 * Returns: 0; CTL_USAGE (message printed). */
static int parse_rate(const char *opt, const char *text, int *count,
                      int64_t *period_ms) {
  char *end;
  long n = strtol(text, &end, 10);
  if (end == text || *end != '/' || n < 1 || n > 1000000000)
    return ctl_usage("--%s wants COUNT/PERIOD (50/1s, 600/1m), not '%s'", opt,
                     text);
  const char *p = end + 1;
  long long v = strtoll(p, &end, 10);
  int64_t unit = 1;
  if (strcmp(end, "s") == 0)
    unit = 1000;
  else if (strcmp(end, "m") == 0)
    unit = 60000;
  else if (strcmp(end, "h") == 0)
    unit = 3600000;
  else if (*end && strcmp(end, "ms") != 0)
    end = (char *)p; /* an unknown unit */
  if (end == p || v < 1 || v > INT64_C(86400000) * 365)
    return ctl_usage("--%s wants COUNT/PERIOD (50/1s, 600/1m), not '%s'", opt,
                     text);
  *count = (int)n;
  *period_ms = (int64_t)v * unit;
  return 0;
}

/* v as text in buf, or NULL (printed "-", JSON null) for 0: none. */
static const char *figure(char *buf, size_t len, int64_t v) {
  snprintf(buf, len, "%" PRId64, v);
  return v > 0 ? buf : NULL;
}

int ctl_limits_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {"type",    "partition", "max",
                                      "per_key", "rate",      "key_rate",
                                      "field",   "waiting",   "running"};
  static const bool num[] = {false, false, true, true, false,
                             false, false, true, true};
  ctl_table_init(t, heads, num, 9);
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  chime__mysql_admin_limit *v = NULL;
  size_t n = 0;
  if ((r = chime__mysql_admin_limits(c->admin, &v, &n)) < 0)
    return ctl_fail(r, "limits: %s", chime_strerror(r));
  for (size_t i = 0; r == 0 && i < n; i++) {
    char max[24], per[24], rate[48], key_rate[48], waiting[24], running[24];
    snprintf(rate, sizeof rate, "%d/%" PRId64 "ms", v[i].rate_count,
             v[i].rate_period_ms);
    snprintf(key_rate, sizeof key_rate, "%d/%" PRId64 "ms", v[i].key_rate_count,
             v[i].key_rate_period_ms);
    snprintf(waiting, sizeof waiting, "%" PRId64, v[i].waiting);
    snprintf(running, sizeof running, "%" PRId64, v[i].running);
    const char *cells[] = {v[i].job_type,
                           v[i].partition, /* NULL: the type as a whole */
                           figure(max, sizeof max, v[i].max_running),
                           figure(per, sizeof per, v[i].max_per_partition),
                           v[i].rate_count > 0 ? rate : NULL,
                           v[i].key_rate_count > 0 ? key_rate : NULL,
                           v[i].partition_field[0] ? v[i].partition_field
                                                   : NULL,
                           waiting,
                           running};
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  chime__mysql_admin_limits_free(v, n);
  return r;
}

static int show(ctl *c) {
  ctl_table t;
  chime__mysql_rows none = {0};
  return ctl_table_done(c, &t, &none, ctl_limits_table(c, &t));
}

static int change(ctl *c, const char *type, bool clear) {
  chime__mysql_admin_limit f = {.max_running = (int)c->max_running,
                                .max_per_partition = (int)c->max_per_partition};
  int r = c->rate && !clear
              ? parse_rate("rate", c->rate, &f.rate_count, &f.rate_period_ms)
              : 0;
  if (r == 0 && c->partition_rate && !clear)
    r = parse_rate("partition-rate", c->partition_rate, &f.key_rate_count,
                   &f.key_rate_period_ms);
  if (r)
    return r;
  if (c->partition_field &&
      strlen(c->partition_field) >= sizeof f.partition_field)
    return ctl_usage("--partition-field: longer than %d bytes",
                     CHIME_MAX_NAME_LEN);
  if (c->partition_field)
    snprintf(f.partition_field, sizeof f.partition_field, "%s",
             c->partition_field);
  if ((r = ctl_open(c, NULL)))
    return r;
  char err[256] = "";
  r = clear ? chime__mysql_admin_limit_set(c->admin, type, true, 0, 0, 0, 0,
                                           err, sizeof err)
            : chime__mysql_admin_limit_put(c->admin, type, &f, err, sizeof err);
  if (r == CHIME_ENOTFOUND)
    return ctl_fail(r, "job type %s has no limit", type);
  if (r == CHIME_EINVAL)
    return ctl_usage("limit set %s: %s", type, err);
  if (r < 0)
    return ctl_fail(r, "limit %s: %s", type, chime_strerror(r));
  if (c->json) {
    printf("{\"ok\": true, \"action\": \"%s\", \"what\": \"limit\", "
           "\"target\": ",
           clear ? "clear" : "set");
    ctl_json_string(type);
    fputs("}\n", stdout);
  } else {
    printf("%s the limit of job type %s\n", clear ? "cleared" : "set", type);
  }
  return 0;
}

int ctl_cmd_limit(ctl *c, bool listing) {
  if (listing || (c->argc == 1 && strcmp(c->argv[0], "show") == 0)) {
    if (c->argc > (listing ? 0 : 1))
      return ctl_usage("usage: chimectl limit show");
    return show(c);
  }
  if (c->argc == 2 && strcmp(c->argv[0], "set") == 0)
    return change(c, c->argv[1], false);
  if (c->argc == 2 && strcmp(c->argv[0], "clear") == 0)
    return change(c, c->argv[1], true);
  return ctl_usage("usage: chimectl limit set TYPE [--max N] "
                   "[--per-partition M] [--rate R/PERIOD] [--partition-rate "
                   "R/PERIOD] [--partition-field F] | limit clear TYPE | "
                   "limit show");
}
