/*
 * cost.c: what the database paid for a run's fires (issue 32), from the
 * server's counters and its process's CPU time sampled at both ends of the
 * window (run.c takes the samples; this file only does the arithmetic, so
 * a unit test can check it without a server).
 *
 * The counters are server-wide: everything the database did in the window
 * counts, chime's statements and the bench job's own rows alike (the job's
 * row is part of what a fire costs in an application too).  Per fire means
 * per run started in the window (run_fps's count).
 */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>

/* b - a, or -1 when either is unknown or the counter went backwards (the
 * server restarted in the window and started its counters again). */
static int64_t delta(int64_t a, int64_t b) {
  return a < 0 || b < 0 || b < a ? -1 : b - a;
}

void bench_cost_between(const bench_db_sample *a, const bench_db_sample *b,
                        double window_s, double wall_s, long ticks_per_s,
                        bench_db_cost *ret) {
  *ret = (bench_db_cost){
      .handler_commits = delta(a->handler_commits, b->handler_commits),
      .com_commits = delta(a->com_commits, b->com_commits),
      .questions = delta(a->questions, b->questions),
      .fsyncs = delta(a->fsyncs, b->fsyncs),
      .rows_written = delta(a->rows_written, b->rows_written),
      .db_cpu_s = -1.0,
      .window_s = window_s,
      .wall_s = wall_s};
  int64_t ticks = delta(a->db_ticks, b->db_ticks);
  if (ticks >= 0 && ticks_per_s > 0)
    ret->db_cpu_s = (double)ticks / (double)ticks_per_s;
}

/* count per second of the window; -1 unknown. */
static double per_s(int64_t count, double seconds) {
  return count < 0 || seconds <= 0 ? -1.0 : (double)count / seconds;
}

double bench_cost_db_cpu_pct(const bench_db_cost *c) {
  return c->db_cpu_s < 0 || c->wall_s <= 0 ? -1.0
                                           : c->db_cpu_s / c->wall_s * 100.0;
}

double bench_cost_commits_per_s(const bench_db_cost *c) {
  return per_s(c->handler_commits, c->window_s);
}

double bench_cost_fsyncs_per_s(const bench_db_cost *c) {
  return per_s(c->fsyncs, c->window_s);
}

/* Appends "\tkey=value" with value per fire to 3 decimals, or NA. */
static size_t put(char *buf, size_t len, size_t at, const char *key,
                  double value, const char *fmt) {
  if (at >= len)
    return at;
  int w = value < 0 ? snprintf(buf + at, len - at, "\t%s=NA", key)
                    : snprintf(buf + at, len - at, fmt, key, value);
  return w < 0 ? at : at + (size_t)w;
}

size_t bench_cost_format(const bench_db_cost *c, int64_t runs, char *buf,
                         size_t len) {
  if (len == 0)
    return 0;
  buf[0] = '\0';
  double fires = (double)runs;
  /* Per fire: unknown when nothing ran or the counter is unknown. */
#define PER_FIRE(x) ((x) < 0 || runs <= 0 ? -1.0 : (double)(x) / fires)
  size_t at = 0;
  at = put(buf, len, at, "com_commit_per_s", per_s(c->com_commits, c->window_s),
           "\t%s=%.1f");
  at = put(buf, len, at, "commits_per_fire", PER_FIRE(c->handler_commits),
           "\t%s=%.3f");
  at = put(buf, len, at, "com_commit_per_fire", PER_FIRE(c->com_commits),
           "\t%s=%.3f");
  at = put(buf, len, at, "statements_per_fire", PER_FIRE(c->questions),
           "\t%s=%.3f");
  at = put(buf, len, at, "rows_written_per_fire", PER_FIRE(c->rows_written),
           "\t%s=%.3f");
  at = put(buf, len, at, "db_cpu_us_per_fire",
           c->db_cpu_s < 0 ? -1.0 : PER_FIRE(c->db_cpu_s * 1e6), "\t%s=%.1f");
#undef PER_FIRE
  return at < len ? at : len - 1;
}
