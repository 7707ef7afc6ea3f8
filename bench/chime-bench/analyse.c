/*
 * analyse.c: reads bench_results back and prints the summary line.
 *
 * Rows are grouped by fire, (trigger, scheduled time).  Of the fires
 * scheduled in the window [W0, W1):
 *   expected   each trigger's fire times in the window, summed;
 *   got        fires with a run that started by W1 + grace;
 *   missed     expected - got;
 *   dups       runs beyond a fire's first, except the one repeat recovery
 *              owes a fire that was running on the killed node;
 *   lateness   first run's start - scheduled time, over the fires got;
 *   per_node   runs by each node;
 *   run_fps    runs that started in the window (whatever their scheduled
 *              time) per second: the cluster's throughput.  Above capacity
 *              the backlog makes fires of the window run late or not at
 *              all, so achieved_fps falls while run_fps is the saturating
 *              rate.
 * In kill mode, over all fires: *interrupted* fires had a run on the
 * killed node that started within --work-ms before the kill (so it was
 * still running), or one that ended just before it and was recovered
 * (its completion was not committed yet); *lost* ones never ran on a
 * survivor; *rec_dups* counts recovering runs beyond the first of a fire;
 * recovery_ms is the kill to the first recovering run on a survivor.  A
 * duplicate outside the window is reported on stderr and fails the run as
 * well.
 */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A recovering run's trigger is chime's one-shot recovery trigger, named
 * after the fire it repeats (jobstore/mysql/recover.c); the original
 * trigger's name is not available to the job. */
#define RECOVER_PREFIX "recover-"

typedef struct row {
  long trigger; /* the i of "t<i>"; -1: a recovering run not yet mapped */
  int64_t fire_id;
  int64_t original_fire_id; /* of "recover-<id>", else 0 */
  int node;                 /* the k of "n<k>" */
  bool recovering;
  int64_t scheduled_ms, actual_ms;
} row;

typedef struct tally {
  int64_t most_running; /* --limit: the most runs at once; -1: not asked */
  int64_t got, started_in_window, dups, dups_outside, interrupted, lost,
      rec_dups;
  int64_t recovery_first_ms; /* INT64_MAX: none */
  int64_t per_node[BENCH_MAX_NODES + 1];
  int64_t *late;
  size_t nlate;
} tally;

static int by_fire(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->trigger != y->trigger)
    return x->trigger < y->trigger ? -1 : 1;
  if (x->scheduled_ms != y->scheduled_ms)
    return x->scheduled_ms < y->scheduled_ms ? -1 : 1;
  return (x->actual_ms > y->actual_ms) - (x->actual_ms < y->actual_ms);
}

static int by_value(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Reads every row.  Returns the count, or -1. */
static long read_rows(MYSQL *db, row **ret_rows) {
  static const char sql[] = "SELECT trigger_name, node, recovering, "
                            "scheduled_ms, actual_ms, fire_id "
                            "FROM bench_results";
  if (mysql_real_query(db, sql, sizeof sql - 1) != 0) {
    fprintf(stderr, "chime-bench: reading bench_results: %s\n",
            mysql_error(db));
    return -1;
  }
  MYSQL_RES *res = mysql_store_result(db);
  if (!res) {
    fprintf(stderr, "chime-bench: reading bench_results: %s\n",
            mysql_error(db));
    return -1;
  }
  size_t cap = (size_t)mysql_num_rows(res) + 1;
  row *rows = calloc(cap, sizeof *rows);
  long n = 0;
  MYSQL_ROW r;
  while (rows && (r = mysql_fetch_row(res))) {
    if (!r[0] || !r[1] || r[1][0] != 'n' || !r[3] || !r[4] || !r[5])
      continue; /* not a row of this run's shape */
    rows[n] = (row){.trigger = -1,
                    .fire_id = strtoll(r[5], NULL, 10),
                    .node = (int)strtol(r[1] + 1, NULL, 10),
                    .recovering = r[2] && r[2][0] == '1',
                    .scheduled_ms = strtoll(r[3], NULL, 10),
                    .actual_ms = strtoll(r[4], NULL, 10)};
    if (r[0][0] == 't')
      rows[n].trigger = strtol(r[0] + 1, NULL, 10);
    else if (strncmp(r[0], RECOVER_PREFIX, strlen(RECOVER_PREFIX)) == 0)
      rows[n].original_fire_id =
          strtoll(r[0] + strlen(RECOVER_PREFIX), NULL, 10);
    else
      continue;
    if (rows[n].node < 1 || rows[n].node > BENCH_MAX_NODES)
      rows[n].node = 0;
    n++;
  }
  mysql_free_result(res);
  if (!rows) {
    fprintf(stderr, "chime-bench: out of memory\n");
    return -1;
  }
  *ret_rows = rows;
  return n;
}

typedef struct fire_trigger {
  int64_t fire_id;
  long trigger;
} fire_trigger;

static int by_fire_id(const void *a, const void *b) {
  const fire_trigger *x = a, *y = b;
  return (x->fire_id > y->fire_id) - (x->fire_id < y->fire_id);
}

/* The trigger whose grid has scheduled_ms, when only one can (spread
 * triggers at most one a millisecond: each its own offset); -1 else.  A
 * recovering run keeps its fire's scheduled time (chime_ctx_get_scheduled_ms),
 * so this maps the repeat of a fire its node claimed but never started (a
 * fire claimed ahead, or waiting in the local queue). */
static long trigger_at(const bench_run *run, int64_t scheduled_ms) {
  const bench_opts *o = run->o;
  if (o->burst || o->triggers > o->interval_ms)
    return -1;
  int64_t phase = (scheduled_ms - run->t0_ms) % o->interval_ms;
  if (phase < 0)
    phase += o->interval_ms;
  long guess = (long)(phase * o->triggers / o->interval_ms);
  for (long i = guess > 0 ? guess - 1 : 0; i <= guess + 1 && i < o->triggers;
       i++)
    if (bench_offset_ms(o, i) == phase)
      return i;
  return -1;
}

/* Gives each recovering run the trigger of the run it repeats, found by the
 * original fire id in the recovery trigger's name, or else by its scheduled
 * time.  Returns how many could not be mapped, or -1. */
static long map_recovered(const bench_run *run, row *rows, long n) {
  fire_trigger *map = calloc((size_t)n + 1, sizeof *map);
  if (!map)
    return -1;
  size_t m = 0;
  for (long i = 0; i < n; i++)
    if (rows[i].trigger >= 0)
      map[m++] = (fire_trigger){rows[i].fire_id, rows[i].trigger};
  qsort(map, m, sizeof *map, by_fire_id);
  long unmapped = 0;
  for (long i = 0; i < n; i++) {
    if (rows[i].trigger >= 0)
      continue;
    fire_trigger key = {.fire_id = rows[i].original_fire_id};
    const fire_trigger *hit = bsearch(&key, map, m, sizeof *map, by_fire_id);
    rows[i].trigger =
        hit ? hit->trigger : trigger_at(run, rows[i].scheduled_ms);
    if (rows[i].trigger < 0)
      unmapped++;
  }
  free(map);
  return unmapped;
}

/* Adds one fire's rows [f, f + count) to the tally. */
static void add_fire(const bench_run *run, const row *f, long count, tally *t) {
  bool in_window =
      f->scheduled_ms >= run->w0_ms && f->scheduled_ms < run->w1_ms;
  bool interrupted = false, on_survivor = false, ran_on_killed = false;
  int64_t recovering = 0;
  for (long i = 0; i < count; i++) {
    bool on_killed = run->killed_node && f[i].node == run->killed_node;
    /* No upper bound at the kill instant: a run the node started in the
     * millisecond or two between that reading and its death (or that the
     * node's clock offset puts a millisecond later) was interrupted too,
     * and nothing starts on it after its death. */
    if (on_killed && f[i].actual_ms > run->kill_ms - run->o->work_ms)
      interrupted = true;
    ran_on_killed = ran_on_killed || on_killed;
    if (!on_killed)
      on_survivor = true;
    if (!on_killed && f[i].recovering) {
      recovering++;
      if (f[i].actual_ms - run->kill_ms < t->recovery_first_ms)
        t->recovery_first_ms = f[i].actual_ms - run->kill_ms;
    }
    if (in_window)
      t->per_node[f[i].node]++;
    if (f[i].actual_ms >= run->w0_ms && f[i].actual_ms < run->w1_ms)
      t->started_in_window++;
  }
  /* A run that ended just before the kill, its completion not committed
   * yet, was still the killed node's fire: recovery runs it again, as
   * docs/cluster.md ("Completion") says (at least once).  That the fire
   * was recovered at all shows it; its start alone does not. */
  if (ran_on_killed && recovering > 0)
    interrupted = true;
  int64_t extra = count - 1 - (interrupted && recovering > 0 ? 1 : 0);
  if (extra > 0) {
    if (in_window)
      t->dups += extra;
    else
      t->dups_outside += extra;
  }
  if (recovering > 1)
    t->rec_dups += recovering - 1;
  if (interrupted) {
    t->interrupted++;
    if (!on_survivor)
      t->lost++;
  }
  /* f[0] is the first run: rows are sorted by start within a fire. */
  if (in_window && f->actual_ms <= run->w1_ms + BENCH_GRACE_MS) {
    t->got++;
    t->late[t->nlate++] = f->actual_ms - f->scheduled_ms;
  }
}

/* The p-th percentile by nearest rank of sorted values. */
static int64_t percentile(const int64_t *v, size_t n, int p) {
  size_t rank = (n * (size_t)p + 99) / 100;
  return v[rank > 0 ? rank - 1 : 0];
}

/* The points T0 + k*I (k >= 0) in [from, to). */
static int64_t grid_points(int64_t t0, int64_t step, int64_t from, int64_t to) {
  int64_t first = from <= t0 ? 0 : (from - t0 + step - 1) / step;
  int64_t end = to <= t0 ? 0 : (to - t0 + step - 1) / step;
  return end - first;
}

static void print_summary(const bench_run *run, const tally *t) {
  const bench_opts *o = run->o;
  /* chime's default batch: the workers plus the local queue. */
  char batch[16] = "default";
  if (o->batch)
    snprintf(batch, sizeof batch, "%u", o->batch);
  int64_t expected = 0;
  for (long i = 0; i < o->triggers; i++)
    expected += grid_points(run->t0_ms + bench_offset_ms(o, i), o->interval_ms,
                            run->w0_ms, run->w1_ms);
  printf("chime-bench\tnodes=%d\ttriggers=%ld\tinterval_ms=%" PRId64
         "\tworkers=%u\tbatch=%s\ttarget_fps=%.1f\tachieved_fps=%.1f"
         "\trun_fps=%.1f"
         "\texpected=%" PRId64 "\tgot=%" PRId64 "\tmissed=%" PRId64
         "\tdups=%" PRId64,
         o->nodes, o->triggers, o->interval_ms, o->workers, batch,
         (double)o->triggers * 1000.0 / (double)o->interval_ms,
         (double)t->got / o->seconds, (double)t->started_in_window / o->seconds,
         expected, t->got, expected - t->got, t->dups);
  if (t->nlate > 0)
    printf("\tlate_p50_ms=%" PRId64 "\tlate_p90_ms=%" PRId64
           "\tlate_p99_ms=%" PRId64 "\tlate_max_ms=%" PRId64,
           percentile(t->late, t->nlate, 50), percentile(t->late, t->nlate, 90),
           percentile(t->late, t->nlate, 99), t->late[t->nlate - 1]);
  else
    printf("\tlate_p50_ms=NA\tlate_p90_ms=NA\tlate_p99_ms=NA\tlate_max_ms=NA");
  printf("\tper_node=");
  for (int k = 1; k <= o->nodes; k++)
    printf("%s%" PRId64, k > 1 ? "/" : "", t->per_node[k]);
  printf("\tnode_cpu_pct=%.1f", run->node_cpu_pct);
  double db_cpu_pct = bench_cost_db_cpu_pct(&run->db);
  if (db_cpu_pct >= 0)
    printf("\tdb_cpu_pct=%.1f", db_cpu_pct);
  else
    printf("\tdb_cpu_pct=NA");
  printf("\tcommits_per_s=%.1f\tfsyncs_per_s=%.1f\tnode_rss_max_kib=%" PRId64,
         bench_cost_commits_per_s(&run->db), bench_cost_fsyncs_per_s(&run->db),
         run->node_rss_max_kib);
  /* What the database paid per fire (issue 32): per run started in the
   * window, the runs its counters saw. */
  char cost[256];
  bench_cost_format(&run->db, t->started_in_window, cost, sizeof cost);
  fputs(cost, stdout);
  if (o->exactly_once)
    printf("\texactly_once=%s",
           o->exactly_once == EXACTLY_TX ? "tx" : "complete_with");
  if (o->local_queue >= 0)
    printf("\tlocal_queue=%d", o->local_queue);
  if (t->most_running >= 0)
    printf("\tlimit=%d\tmost_running=%" PRId64, o->limit, t->most_running);
  if (run->killed_node) {
    if (t->recovery_first_ms != INT64_MAX)
      printf("\trecovery_ms=%" PRId64, t->recovery_first_ms);
    else
      printf("\trecovery_ms=NA");
    printf("\tinterrupted=%" PRId64 "\tlost=%" PRId64 "\trec_dups=%" PRId64,
           t->interrupted, t->lost, t->rec_dups);
  }
  printf("\n");
  fflush(stdout);
}

int bench_analyse(MYSQL *db, const bench_run *run) {
  row *rows = NULL;
  long n = read_rows(db, &rows);
  if (n < 0)
    return 1;
  long unmapped = map_recovered(run, rows, n);
  if (unmapped < 0) {
    free(rows);
    fprintf(stderr, "chime-bench: out of memory\n");
    return 1;
  }
  if (unmapped > 0)
    fprintf(stderr,
            "chime-bench: %ld recovering run(s) repeat a run that "
            "left no row (killed before its INSERT) of a trigger their "
            "time does not tell: left out\n",
            unmapped);
  qsort(rows, (size_t)n, sizeof *rows, by_fire);
  /* Unmapped rows sort first (trigger -1); skip them. */
  long first = 0;
  while (first < n && rows[first].trigger < 0)
    first++;
  tally t = {.most_running = -1,
             .recovery_first_ms = INT64_MAX,
             .late = malloc(((size_t)n + 1) * sizeof(int64_t))};
  if (!t.late) {
    free(rows);
    fprintf(stderr, "chime-bench: out of memory\n");
    return 1;
  }
  for (long i = first; i < n;) {
    long j = i + 1;
    while (j < n && rows[j].trigger == rows[i].trigger &&
           rows[j].scheduled_ms == rows[i].scheduled_ms)
      j++;
    add_fire(run, &rows[i], j - i, &t);
    i = j;
  }
  qsort(t.late, t.nlate, sizeof *t.late, by_value);
  if (run->o->limit > 0 && (t.most_running = bench_most_running(db)) < 0) {
    free(t.late);
    free(rows);
    return 1;
  }
  fprintf(stderr, "chime-bench: %ld rows in bench_results\n", n);
  print_summary(run, &t);
  if (t.dups_outside > 0)
    fprintf(stderr,
            "chime-bench: %" PRId64 " duplicate run(s) of fires "
            "outside the window\n",
            t.dups_outside);
  int status = t.dups > 0 || t.dups_outside > 0 || t.lost > 0 ||
                       t.rec_dups > 0 || t.most_running > run->o->limit
                   ? 2
                   : 0;
  if (t.most_running > run->o->limit)
    fprintf(stderr,
            "chime-bench: %" PRId64 " runs at once, over the limit %d\n",
            t.most_running, run->o->limit);
  free(t.late);
  free(rows);
  return status;
}
