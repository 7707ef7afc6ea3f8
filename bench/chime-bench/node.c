/*
 * node.c: the hidden --node mode.  One chime scheduler joins the bench's
 * cluster under its instance id, runs the "bench" job until SIGTERM or
 * SIGINT, then shuts down waiting for its running jobs.
 *
 * The job records its run as one row of bench_results, then sleeps
 * --work-ms.  Recording first means a run killed in its sleep is already
 * on record, as a job's side effect would be.  The run returns only once
 * its row is committed, but rows are not written one INSERT each: at
 * thousands of runs per second that would cost the database more than
 * chime itself does.  The runs recording at the same time queue up, and
 * one of them at a time writes every queued row with one multi-row INSERT
 * on the node's one results connection (flat combining, as chime's own
 * completions): one row when the load is light, large batches when it is
 * heavy, no timer.
 *
 * With --exactly-once the job writes its row instead in its fire's
 * completion transaction (chime-mysql.h): it gives its INSERT to the
 * completion (chime_ctx_complete_with), and the node's batch of
 * completions runs it and completes the fire in one COMMIT.  With
 * --exactly-once-tx it begins a transaction of its own on the fire: begin,
 * one INSERT, and the one COMMIT that writes the row and completes the
 * fire together, on a store connection.  Either way no batching of the
 * bench's own, so the database sees what an application's exactly-once job
 * costs.
 *
 * actual_ms is chime_ctx_get_fire_ms(): the run's start on the store clock (the
 * database's), the clock scheduled_ms is on, so lateness needs no clock
 * correction.
 *
 * Threads and locks: the job runs on chime's workers.  node.mu, the only
 * lock, guards the queue, the writing flag and each queued row's written
 * and result; the writer releases it while it talks to the database, so
 * it is never held across a round trip.  The results connection belongs
 * to the writer of the moment (one at a time, by the writing flag).
 */
#include "bench.h"

#include "chime-mysql.h"
#include "chime.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Attempts at writing a batch before its runs give up on their rows. */
#define RECORD_ATTEMPTS 5
/* At most this many rows per INSERT. */
#define RECORD_BATCH 500
/* A writer finding one row queued waits this long for more (as chime's own
 * completions do): a steady load then costs a few INSERTs, not one per
 * run.  actual_ms is taken before, so lateness is not affected. */
#define RECORD_GATHER_MS 5

/* One run's row, waiting to be written. */
typedef struct row {
  char trigger[2 * CHIME_MAX_NAME_LEN + 1]; /* escaped */
  int64_t scheduled_ms, actual_ms, fire_id;
  int64_t run_start_ms, run_end_ms; /* --limit: the run, real time */
  int recovering;
  bool written;        /* the writer is done with it */
  int result;          /* 0, or -1 when it was lost */
  pthread_cond_t wake; /* its run waits on this */
  struct row *next;
} row;

typedef struct node {
  const char *id;
  int64_t work_ms;
  bool limit;       /* --limit: a run records its start and end when it ends */
  int exactly_once; /* bench_opts's: the row in the completion's tx */
  chime_mysql_url *url; /* the results database */
  pthread_mutex_t mu;
  row *head, *tail; /* the queue */
  bool writing;     /* a run is writing a batch */
  MYSQL *db;        /* the results connection: only the writer uses it */
} node;

/* Inserts rows[0 .. n) in one statement, reconnecting as needed.  Returns 0
 * or -1 (err says why).  Called without n->mu: only the writer runs it. */
static int write_rows(node *n, row **rows, size_t count, char *err,
                      size_t errlen) {
  size_t cap = 256 + count * (sizeof rows[0]->trigger + 128);
  char *sql = malloc(cap);
  if (!sql) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  size_t len = (size_t)snprintf(sql, cap,
                                "INSERT INTO bench_results (trigger_name, "
                                "scheduled_ms, actual_ms, node, fire_id, "
                                "recovering, run_start_ms, run_end_ms) "
                                "VALUES ");
  for (size_t i = 0; i < count; i++) {
    const row *w = rows[i];
    len += (size_t)snprintf(sql + len, cap - len,
                            "%s('%s', %" PRId64 ", %" PRId64 ", '%s', %" PRId64
                            ", %d, %" PRId64 ", %" PRId64 ")",
                            i ? "," : "", w->trigger, w->scheduled_ms,
                            w->actual_ms, n->id, w->fire_id, w->recovering,
                            w->run_start_ms, w->run_end_ms);
  }
  int result = -1;
  for (int attempt = 1; attempt <= RECORD_ATTEMPTS && result < 0; attempt++) {
    if (!n->db && !(n->db = bench_db_connect(n->url, err, errlen))) {
      bench_sleep_ms(100 * attempt);
      continue;
    }
    if (mysql_real_query(n->db, sql, (unsigned long)len) == 0) {
      result = 0;
    } else {
      snprintf(err, errlen, "%s", mysql_error(n->db));
      mysql_close(n->db);
      n->db = NULL;
    }
  }
  free(sql);
  return result;
}

/* Writes what is queued, up to RECORD_BATCH rows.  n->mu held; released
 * while writing. */
static void write_some(node *n) {
  row *rows[RECORD_BATCH];
  size_t count = 0;
  n->writing = true;
  if (n->head && !n->head->next) {
    pthread_mutex_unlock(&n->mu);
    bench_sleep_ms(RECORD_GATHER_MS);
    pthread_mutex_lock(&n->mu);
  }
  while (n->head && count < RECORD_BATCH) {
    rows[count++] = n->head;
    n->head = n->head->next;
  }
  if (!n->head)
    n->tail = NULL;
  pthread_mutex_unlock(&n->mu);
  char err[512] = "";
  int r = write_rows(n, rows, count, err, sizeof err);
  if (r < 0) /* the parent counts these lines: the bench's fault, not chime's */
    for (size_t i = 0; i < count; i++)
      fprintf(stderr, "%" PRId64 " %s RESULT-LOST: %s at %" PRId64 ": %s\n",
              bench_real_ms(), n->id, rows[i]->trigger, rows[i]->scheduled_ms,
              err);
  pthread_mutex_lock(&n->mu);
  for (size_t i = 0; i < count; i++) {
    rows[i]->result = r;
    rows[i]->written = true;
    pthread_cond_signal(&rows[i]->wake);
  }
  n->writing = false;
  if (n->head) /* the next writer */
    pthread_cond_signal(&n->head->wake);
}

/* Records the run (with --limit its start and end, real time); returns
 * once its row is committed (or lost). */
static int record(node *n, chime_ctx *ctx, int64_t start_ms, int64_t end_ms) {
  const char *trigger = chime_ctx_get_trigger_name(ctx);
  row w = {.scheduled_ms = chime_ctx_get_scheduled_ms(ctx),
           .actual_ms = chime_ctx_get_fire_ms(ctx),
           .fire_id = chime_ctx_get_fire_id(ctx),
           .run_start_ms = start_ms,
           .run_end_ms = end_ms,
           .recovering = chime_ctx_is_recovering(ctx) ? 1 : 0};
  /* Trigger names are the bench's own t<i> or recover-<id>: nothing to
   * escape, but escape anyway without needing a connection. */
  size_t k = 0;
  for (const char *p = trigger; *p && k + 2 < sizeof w.trigger; p++) {
    if (*p == '\'' || *p == '\\')
      w.trigger[k++] = '\\';
    w.trigger[k++] = *p;
  }
  w.trigger[k] = '\0';
  pthread_cond_init(&w.wake, NULL);
  pthread_mutex_lock(&n->mu);
  if (n->tail)
    n->tail->next = &w;
  else
    n->head = &w;
  n->tail = &w;
  while (!w.written) {
    if (n->writing)
      pthread_cond_wait(&w.wake, &n->mu);
    else
      write_some(n);
  }
  pthread_mutex_unlock(&n->mu);
  pthread_cond_destroy(&w.wake);
  return w.result;
}

/* The run's row for the INSERT below. */
typedef struct row_params {
  char scheduled[24], actual[24], fire_id[24];
  const char *v[6];
} row_params;

static const char insert_row[] =
    "INSERT INTO bench_results (trigger_name, scheduled_ms, actual_ms, node, "
    "fire_id, recovering) VALUES (?, ?, ?, ?, ?, ?)";

static void row_params_fill(row_params *p, const node *n, chime_ctx *ctx) {
  snprintf(p->scheduled, sizeof p->scheduled, "%" PRId64,
           chime_ctx_get_scheduled_ms(ctx));
  snprintf(p->actual, sizeof p->actual, "%" PRId64, chime_ctx_get_fire_ms(ctx));
  snprintf(p->fire_id, sizeof p->fire_id, "%" PRId64,
           chime_ctx_get_fire_id(ctx));
  p->v[0] = chime_ctx_get_trigger_name(ctx);
  p->v[1] = p->scheduled;
  p->v[2] = p->actual;
  p->v[3] = n->id;
  p->v[4] = p->fire_id;
  p->v[5] = chime_ctx_is_recovering(ctx) ? "1" : "0";
}

/* --exactly-once: the run's row given to its fire's completion.  Returns 0
 * or -1 (the row lost: printed for the parent to count). */
static int record_with_completion(node *n, chime_ctx *ctx) {
  row_params p;
  row_params_fill(&p, n, ctx);
  int r = chime_ctx_complete_with(ctx, insert_row, p.v, 6);
  if (r == 0)
    return 0;
  fprintf(stderr, "%" PRId64 " %s RESULT-LOST: %s at %s: %s\n", bench_real_ms(),
          n->id, p.v[0], p.scheduled, chime_strerror(r));
  chime_ctx_fail(ctx, chime_strerror(r));
  return -1;
}

/* --exactly-once-tx: the run's row and its fire's completion in one
 * transaction, begun again after a deadlock or a lost connection (nothing
 * was written then, docs/cluster.md).  CHIME_ENOTOWNER at begin means the
 * fire is not this node's any more (recovered elsewhere: that run writes
 * the row) or a commit whose reply was lost did complete it.  Returns 0 or
 * -1 (the row lost: printed for the parent to count). */
static int record_in_tx(node *n, chime_ctx *ctx) {
  row_params p;
  row_params_fill(&p, n, ctx);
  char err[512] = "";
  for (int attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
    chime_mysql_tx *tx = NULL;
    int r = chime_mysql_tx_begin(ctx, &tx);
    if (r == 0) {
      r = chime_mysql_tx_execute(tx, insert_row, p.v, 6, NULL);
      if (r == 0)
        r = chime_mysql_tx_commit(tx);
      else
        chime_mysql_tx_rollback(tx);
    }
    if (r == 0 || r == CHIME_ENOTOWNER)
      return 0;
    snprintf(err, sizeof err, "%s",
             tx && chime_mysql_tx_errmsg(tx)[0] ? chime_mysql_tx_errmsg(tx)
                                                : chime_strerror(r));
    if (r != CHIME_EBUSY && r != CHIME_ECONNECT)
      break;
    bench_sleep_ms(10 * attempt);
  }
  fprintf(stderr, "%" PRId64 " %s RESULT-LOST: %s at %s: %s\n", bench_real_ms(),
          n->id, p.v[0], p.scheduled, err);
  chime_ctx_fail(ctx, err);
  return -1;
}

static void bench_job(chime_ctx *ctx, void *user_data) {
  node *n = user_data;
  if (n->exactly_once) {
    if (n->exactly_once == EXACTLY_TX)
      record_in_tx(n, ctx);
    else
      record_with_completion(n, ctx);
    bench_sleep_ms(n->work_ms);
    return;
  }
  if (!n->limit) {
    record(n, ctx, 0, 0);
    bench_sleep_ms(n->work_ms);
    return;
  }
  /* Recorded inside the run, so [start, end] lies within its claim. */
  int64_t start = bench_real_ms();
  bench_sleep_ms(n->work_ms);
  record(n, ctx, start, bench_real_ms());
}

/*
 * --spread: the URL with its host list rotated by the number at the end of
 * node id (node k starts on the k-th member, modulo their count), into buf.
 * The URL unchanged when it has one host or the id no number.
 */
static const char *spread_url(const char *url, const char *id, char *buf,
                              size_t len) {
  const char *scheme = strstr(url, "://");
  const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
  const char *at = NULL;
  for (const char *c = scheme ? scheme + 3 : url; slash && c < slash; c++)
    if (*c == '@')
      at = c;
  size_t idl = strlen(id), d = idl;
  while (d > 0 && id[d - 1] >= '0' && id[d - 1] <= '9')
    d--;
  if (!at || d == idl || strlen(url) >= len)
    return url;
  const char *hosts = at + 1;
  size_t n = 1;
  for (const char *c = hosts; c < slash; c++)
    n += *c == ',';
  size_t k = (size_t)strtoul(id + d, NULL, 10) % n;
  const char *cut = hosts; /* the start of host k */
  for (size_t i = 0; i < k; i++)
    cut = strchr(cut, ',') + 1;
  if (k == 0)
    return url;
  int w =
      snprintf(buf, len, "%.*s%.*s,%.*s%s", (int)(hosts - url), url,
               (int)(slash - cut), cut, (int)(cut - 1 - hosts), hosts, slash);
  return w > 0 && (size_t)w < len ? buf : url;
}

/* This node's settings beyond every node's (bench_node_start). */
static int configure(chime_config *cfg, const bench_opts *o) {
  int r = 0;
  if (o->local_queue >= 0)
    r = chime_config_set_local_queue(cfg, (unsigned)o->local_queue);
  /* Triggers are added by another process while this node may sleep: a
   * short idle wait lets it see them at once.  The idle mode measures
   * chime's defaults. */
  if (r == 0 && !o->node_idle)
    r = chime_config_set_idle_wait_ms(cfg, 1000);
  return r;
}

int bench_node_main(const bench_opts *o) {
  sigset_t stop;
  if (bench_node_prepare(o->node_id, &stop) < 0)
    return 1;
  node n = {.id = o->node_id,
            .work_ms = o->work_ms,
            .limit = o->limit > 0,
            .exactly_once = o->exactly_once};
  if (!(n.url = bench_db_url(o->url)))
    return 1;
  pthread_mutex_init(&n.mu, NULL);
  char url[4096];
  chime_scheduler *s = bench_node_start(
      o, n.id, o->spread ? spread_url(o->url, n.id, url, sizeof url) : o->url,
      configure, bench_job, &n);
  if (!s)
    return 1;
  bench_node_ready_wait(n.id, &stop);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  mysql_close(n.db);
  pthread_mutex_destroy(&n.mu);
  chime_mysql_url_free(n.url);
  return 0;
}
