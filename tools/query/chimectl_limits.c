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
  chime_admin_table *v = NULL;
  int r = ctl_list(c, ctl_list_query(CHIME_ADMIN_LIMITS), &v);
  if (r)
    return r;
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(v); i++) {
#define CELL(col) chime_admin_table_get_int64(v, i, col)
    char max[24], per[24], rate[48], key_rate[48], waiting[24], running[24];
    snprintf(rate, sizeof rate, "%" PRId64 "/%" PRId64 "ms", CELL("rate_count"),
             CELL("rate_period_ms"));
    snprintf(key_rate, sizeof key_rate, "%" PRId64 "/%" PRId64 "ms",
             CELL("key_rate_count"), CELL("key_rate_period_ms"));
    snprintf(waiting, sizeof waiting, "%" PRId64, CELL("waiting"));
    snprintf(running, sizeof running, "%" PRId64, CELL("running"));
    const char *cells[] = {chime_admin_table_get_text(v, i, "job_type"),
                           /* NULL: the type as a whole */
                           chime_admin_table_get_text(v, i, "partition"),
                           figure(max, sizeof max, CELL("max_running")),
                           figure(per, sizeof per, CELL("max_per_partition")),
                           CELL("rate_count") > 0 ? rate : NULL,
                           CELL("key_rate_count") > 0 ? key_rate : NULL,
                           chime_admin_table_get_text(v, i, "partition_field"),
                           waiting, running};
#undef CELL
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  chime_admin_table_free(v);
  return r;
}

static int show(ctl *c) {
  ctl_table t;
  return ctl_table_end(c, &t, ctl_limits_table(c, &t));
}

static int change(ctl *c, const char *type, bool clear) {
  int rate_count = 0, key_rate_count = 0;
  int64_t rate_period_ms = 0, key_rate_period_ms = 0;
  int r = c->rate && !clear
              ? parse_rate("rate", c->rate, &rate_count, &rate_period_ms)
              : 0;
  if (r == 0 && c->partition_rate && !clear)
    r = parse_rate("partition-rate", c->partition_rate, &key_rate_count,
                   &key_rate_period_ms);
  if (r)
    return r;
  if (c->partition_field && strlen(c->partition_field) > CHIME_MAX_NAME_LEN)
    return ctl_usage("--partition-field: longer than %d bytes",
                     CHIME_MAX_NAME_LEN);
  chime_admin *a = NULL;
  if ((r = ctl_admin(c, &a)))
    return r;
  r = clear ? chime_admin_clear_limit(a, type)
            : chime_admin_set_limit(a, type, (int)c->max_running,
                                    (int)c->max_per_partition, rate_count,
                                    rate_period_ms, key_rate_count,
                                    key_rate_period_ms, c->partition_field);
  if (r == CHIME_ENOTFOUND)
    return ctl_fail(r, "job type %s has no limit", type);
  if (r == CHIME_EINVAL)
    return ctl_usage("limit set %s: %s", type, chime_admin_errmsg(a));
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
