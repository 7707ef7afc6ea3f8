/*
 * node.c: chime-node, one node of a cluster, as the cluster tests and the
 * cluster demo start it.  It joins the cluster on a store URL under an
 * instance id, registers the "load" job type and runs until SIGTERM or
 * SIGINT, logging to stderr.  With --schedule it first (re)creates the
 * test load, starting at a given time.
 *
 *   chime-node URL ID RESULTS_DIR [--schedule START_MS] [--table TABLE]
 *              [--policies START_MS] [--load demo|rolling]
 *              [--deadline MS] [--claim-ahead MS] [--queue 1]
 *              [--with-completion 1]
 *
 * On SIGTERM or SIGINT it stops as docs/embedding.md says: with --deadline,
 * chime_scheduler_shutdown(MS) (runs told to stop, what is left at
 * the deadline handed to the cluster), else chime_scheduler_shutdown(true)
 * (waits for every run); then chime_scheduler_free.
 *
 * The "load" job records each run in RESULTS_DIR/ID.log, one line per
 * event, written with a single append (so a kill -9 never leaves half a
 * line), tab-separated:
 *
 *   S  trigger  scheduled_ms  fire_id  node  start_ms  0       recovering  1
 *   E  trigger  scheduled_ms  fire_id  node  start_ms  end_ms  recovering owned
 *
 * "S" when the run starts, "E" when it ends.  The job sleeps for the number
 * of milliseconds in its job data (without --table, in
 * chime_ctx_wait_cancelled: an interrupt, `chimectl cancel` or chime-web's
 * cancel button, ends the sleep at once).  Every job of the load requests
 * recovery.  Times are the system's real-time clock.
 *
 * How the end is recorded is the point of the cluster tests:
 *   - with --table, exactly once (chime-mysql.h): the job begins its fire's
 *     completion transaction, inserts its row into TABLE (a table of the
 *     store's database: trigger_name, scheduled_ms, fire_id, node,
 *     start_ms, end_ms, recovering), sleeps inside the transaction, sets
 *     end_ms and commits: the row exists exactly when the fire completed.
 *     A transaction that fails for another reason than CHIME_ENOTOWNER (a
 *     lost connection) is tried again without the sleep.  When the fire
 *     was taken over, the "E" line goes to the file with owned 0.
 *   - with --table and --with-completion 1, exactly once at batch cost:
 *     the job sleeps, then gives its row (end_ms set) to its fire's
 *     completion (chime_ctx_complete_with) and returns; the node's
 *     completion batch writes it with the fire's completion, or not at
 *     all (a fire taken over, a node killed before the batch committed).
 *   - without it, at least once: an "E" line in the file whose owned is
 *     whether chime_ctx_check_owned() said, just before, that the fire
 *     was not taken over (0: the node had lost it to a recovery).  A pause
 * between that check and the write leaves a run recorded twice: the window the
 * tests document.
 *
 * With --policies it (re)creates the run-policy load instead (group
 * "pol", job type "policy", none requesting recovery; the cluster test
 * "policies"): replace (REPLACE, every 500 ms, a run wants 1.2 s), skip
 * (FORBID_SKIP, every 250 ms, 700 ms), retry (once at START_MS + 1.5 s; its
 * first attempt fails, retried once 2.5 s later) and polite (once at
 * START_MS + 1 s, waits up to 20 s for an interrupt).  The policy job waits
 * in chime_ctx_wait_cancelled and records to RESULTS_DIR/ID.pol:
 *
 *   B  job  scheduled_ms  fire_id  node  start_ms  0       attempt  0
 *   F  job  scheduled_ms  fire_id  node  start_ms  end_ms  attempt  told
 *
 * With --queue 1 it (re)creates the queue load (group "queue"; the
 * cluster test "queue", docs/queue.md): step1, of type "chain", whose run
 * data is "MS NAME" (quoted or not: chimectl hands in JSON), sleeps MS
 * milliseconds, then, in its fire's
 * completion transaction (chime-mysql.h), enqueues a run of step2 with the
 * unique key "then-NAME" and the data "100", and commits (NAME, not its
 * trigger's name: a recovered or retried run fires another trigger); step2
 * is a "load" job (the S and E lines above, its job name "step2").  Both
 * request recovery.  A chain's second step is stored exactly when its
 * first step's completion commits.
 *
 * Exit status: 0 after a signal; 3 when the instance id is taken by a live
 * node (CHIME_EDUPNODE); 1 on other errors.
 */
#include "chime-mysql.h"
#include "chime.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct node {
  int fd;     /* the results file */
  int pol_fd; /* the policy load's results file */
  const char *id;
  const char *table;    /* NULL: the "E" line goes to the file */
  bool with_completion; /* the row given to the completion (see the top) */
} node;

static int64_t real_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Data bytes (len of them, data may be NULL) as text in buf (size bytes),
 * "0" when absent or too long. */
static void data_text(const char *data, size_t len, char *buf, size_t size) {
  snprintf(buf, size, "0");
  if (data && len > 0 && len < size) {
    memcpy(buf, data, len);
    buf[len] = '\0';
  }
}

/* Appends one result line with a single write. */
static void record(node *n, chime_ctx *ctx, char kind, int64_t start,
                   int64_t end, bool owned) {
  char line[512];
  int len = snprintf(line, sizeof line,
                     "%c\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%" PRId64
                     "\t%" PRId64 "\t%d\t%d\n",
                     kind, chime_ctx_get_job_name(ctx),
                     chime_ctx_get_scheduled_ms(ctx),
                     chime_ctx_get_fire_id(ctx), n->id, start, end,
                     chime_ctx_is_recovering(ctx) ? 1 : 0, owned ? 1 : 0);
  if (len > 0 && (size_t)len < sizeof line &&
      write(n->fd, line, (size_t)len) != (ssize_t)len)
    fprintf(stderr, "chime-node %s: cannot record a result\n", n->id);
}

/* One try of the transactional end: the row, the sleep (when ms > 0)
 * inside the transaction, the end time, the commit. */
static int end_in_tx(node *n, chime_ctx *ctx, int64_t start, int64_t ms) {
  chime_mysql_tx *tx = NULL;
  int r = chime_mysql_tx_begin(ctx, &tx);
  if (r < 0)
    return r;
  char sql[256], sched[24], fire[24], st[24], end[24];
  snprintf(sched, sizeof sched, "%" PRId64, chime_ctx_get_scheduled_ms(ctx));
  snprintf(fire, sizeof fire, "%" PRId64, chime_ctx_get_fire_id(ctx));
  snprintf(st, sizeof st, "%" PRId64, start);
  const char *ins[] = {chime_ctx_get_job_name(ctx),
                       sched,
                       fire,
                       n->id,
                       st,
                       chime_ctx_is_recovering(ctx) ? "1" : "0"};
  snprintf(sql, sizeof sql,
           "INSERT INTO %s (trigger_name, scheduled_ms, fire_id, node, "
           "start_ms, recovering) VALUES (?, ?, ?, ?, ?, ?)",
           n->table);
  r = chime_mysql_tx_execute(tx, sql, ins, 6, NULL);
  if (r == 0 && ms > 0)
    sleep_ms(ms);
  snprintf(end, sizeof end, "%" PRId64, real_ms());
  const char *upd[] = {end, fire, n->id};
  snprintf(sql, sizeof sql,
           "UPDATE %s SET end_ms = ? WHERE fire_id = ? AND node = ?", n->table);
  if (r == 0)
    r = chime_mysql_tx_execute(tx, sql, upd, 3, NULL);
  if (r < 0) {
    fprintf(stderr, "chime-node %s: fire %s: %s\n", n->id, fire,
            chime_mysql_tx_errmsg(tx));
    chime_mysql_tx_rollback(tx);
    return r;
  }
  r = chime_mysql_tx_commit(tx);
  if (r < 0 && r != CHIME_ENOTOWNER)
    fprintf(stderr, "chime-node %s: fire %s: commit: %s\n", n->id, fire,
            chime_mysql_tx_errmsg(tx));
  return r;
}

/* --with-completion: the sleep, then the row with its end given to the
 * fire's completion. */
static void end_with_completion(node *n, chime_ctx *ctx, int64_t start,
                                int64_t ms) {
  sleep_ms(ms);
  char sql[256], sched[24], fire[24], st[24], end[24];
  snprintf(sched, sizeof sched, "%" PRId64, chime_ctx_get_scheduled_ms(ctx));
  snprintf(fire, sizeof fire, "%" PRId64, chime_ctx_get_fire_id(ctx));
  snprintf(st, sizeof st, "%" PRId64, start);
  snprintf(end, sizeof end, "%" PRId64, real_ms());
  const char *p[] = {chime_ctx_get_job_name(ctx),
                     sched,
                     fire,
                     n->id,
                     st,
                     end,
                     chime_ctx_is_recovering(ctx) ? "1" : "0"};
  snprintf(sql, sizeof sql,
           "INSERT INTO %s (trigger_name, scheduled_ms, fire_id, node, "
           "start_ms, end_ms, recovering) VALUES (?, ?, ?, ?, ?, ?, ?)",
           n->table);
  int r = chime_ctx_complete_with(ctx, sql, p, 7);
  if (r < 0) {
    fprintf(stderr, "chime-node %s: fire %s: %s\n", n->id, fire,
            chime_strerror(r));
    chime_ctx_fail(ctx, chime_strerror(r));
  }
}

/* The job: record the start, sleep, record the end. */
static void load(chime_ctx *ctx, void *user_data) {
  node *n = user_data;
  int64_t start = real_ms();
  record(n, ctx, 'S', start, 0, true);
  size_t len = 0; /* the run's length: a manual fire's data, or the job's */
  const char *data = chime_ctx_get_data(ctx, &len);
  char text[32];
  data_text(data, len, text, sizeof text);
  int64_t ms = strtoll(text, NULL, 10);
  if (!n->table) {
    /* Told to stop (an interrupt, or its node's shutdown with a deadline): the
     * run was cut short, and is recorded as not done (its node's shutdown hands
     * the fire over to run again elsewhere).  Otherwise the three answers: 1
     * ours, 0 taken over by a recovery, < 0 the store cannot tell now (an
     * outage).  Only "taken over" is recorded as lost: during an outage the
     * fire is still this node's until a survivor recovers it, and the
     * completion then says which. */
    int told = ms > 0 ? chime_ctx_wait_cancelled(ctx, ms) : 0;
    int owned = told == 1 ? 0 : chime_ctx_check_owned(ctx);
    record(n, ctx, 'E', start, real_ms(), owned != 0);
    return;
  }
  if (n->with_completion) {
    end_with_completion(n, ctx, start, ms);
    return;
  }
  int r = end_in_tx(n, ctx, start, ms);
  /* A lost connection or a busy database: the fire is still ours (or the
   * next begin says it is not), so try again, without the sleep. */
  for (int i = 0; r < 0 && r != CHIME_ENOTOWNER && i < 40; i++) {
    sleep_ms(250);
    r = end_in_tx(n, ctx, start, 0);
  }
  if (r < 0) {
    record(n, ctx, 'E', start, real_ms(), false);
    if (r != CHIME_ENOTOWNER)
      chime_ctx_fail(ctx, chime_strerror(r));
  }
}

/* One try of the chain's second half: enqueue step2 in the fire's
 * transaction and commit. */
static int chain_in_tx(node *n, chime_ctx *ctx, const char *name) {
  chime_mysql_tx *tx = NULL;
  int r = chime_mysql_tx_begin(ctx, &tx);
  if (r < 0)
    return r;
  char key[64];
  snprintf(key, sizeof key, "then-%s", name);
  chime_enqueue *o = NULL;
  r = chime_enqueue_new(&o);
  if (r == 0)
    r = chime_enqueue_set_unique_key(o, key);
  if (r == 0)
    r = chime_enqueue_set_data(o, "100", 3);
  if (r == 0)
    r = chime_mysql_tx_enqueue(tx, "queue", "step2", o, NULL, 0);
  chime_enqueue_free(o);
  if (r < 0) {
    fprintf(stderr, "chime-node %s: chain %s: %s\n", n->id, key,
            chime_mysql_tx_errmsg(tx));
    chime_mysql_tx_rollback(tx);
    return r;
  }
  return chime_mysql_tx_commit(tx);
}

/* The queue load's first step (see the top). */
static void chain(chime_ctx *ctx, void *user_data) {
  node *n = user_data;
  size_t len = 0;
  const char *data = chime_ctx_get_data(ctx, &len);
  char text[48];
  data_text(data, len, text, sizeof text);
  char *name = NULL;
  sleep_ms(strtoll(text + (text[0] == '"'), &name, 10));
  while (name && *name == ' ')
    name++;
  name[strcspn(name, "\"")] = '\0';
  int r = chain_in_tx(n, ctx, name);
  /* A lost connection or a busy database: the fire is still ours (or the
   * next begin says it is not). */
  for (int i = 0; r < 0 && r != CHIME_ENOTOWNER && i < 40; i++) {
    sleep_ms(250);
    r = chain_in_tx(n, ctx, name);
  }
  if (r < 0 && r != CHIME_ENOTOWNER)
    chime_ctx_fail(ctx, chime_strerror(r));
}

/* The queue load's two durable jobs (replacing earlier ones). */
static int schedule_queue(chime_scheduler *s) {
  static const char *const names[] = {"step1", "step2"};
  int r = 0;
  for (int i = 0; r == 0 && i < 2; i++) {
    chime_job *job = NULL;
    r = chime_job_new("queue", names[i], i ? "load" : "chain", &job, NULL, 0);
    if (r == 0)
      r = chime_job_set_durable(job, true);
    if (r == 0)
      r = chime_job_set_requests_recovery(job, true);
    if (r == 0)
      r = chime_scheduler_add_job(s, job, true);
    chime_job_free(job);
  }
  return r;
}

static void log_line(void *user_data, chime_log_level level,
                     const char *message) {
  static const char *names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
  node *n = user_data;
  fprintf(stderr, "%" PRId64 " chime-node %s %s: %s\n", real_ms(), n->id,
          names[level], message);
}

/* Schedules job with its trigger t from start, replacing an earlier job
 * of its key, unless building them failed (r < 0: returned); frees both. */
static int schedule_anew(chime_scheduler *s, chime_job *job, chime_trigger *t,
                         int64_t start, int r) {
  const char *group = chime_job_get_group(job), *name = chime_job_get_name(job);
  if (r == 0)
    r = chime_trigger_set_job(t, group, name);
  if (r == 0)
    r = chime_trigger_set_start_ms(t, start);
  if (r == 0)
    r = chime_scheduler_remove_job(s, group, name);
  if (r == CHIME_ENOTFOUND)
    r = 0;
  if (r == 0)
    r = chime_scheduler_schedule(s, job, t, 0, NULL);
  chime_job_free(job);
  chime_trigger_free(t);
  return r;
}

/* The policy load's job (see the top). */
static void policy(chime_ctx *ctx, void *user_data) {
  node *n = user_data;
  int64_t start = real_ms();
  const char *job = chime_ctx_get_job_name(ctx);
  int attempt = chime_ctx_get_attempt(ctx);
  char line[512];
  int len =
      snprintf(line, sizeof line,
               "B\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%" PRId64 "\t0\t%d\t0\n",
               job, chime_ctx_get_scheduled_ms(ctx), chime_ctx_get_fire_id(ctx),
               n->id, start, attempt);
  if (len > 0 && (size_t)len < sizeof line)
    (void)!write(n->pol_fd, line, (size_t)len);
  /* The job data is bytes, not a string: copied to be read as text. */
  size_t dlen = 0;
  const char *data = chime_ctx_get_job_data(ctx, &dlen);
  char text[32];
  data_text(data, dlen, text, sizeof text);
  bool fail = strcmp(text, "fail") == 0;
  int told = 0;
  if (fail && attempt == 1)
    chime_ctx_fail(ctx, "the first attempt fails on purpose");
  else if (!fail)
    told = chime_ctx_wait_cancelled(ctx, strtoll(text, NULL, 10));
  len = snprintf(
      line, sizeof line,
      "F\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%" PRId64 "\t%" PRId64 "\t%d\t%d\n",
      job, chime_ctx_get_scheduled_ms(ctx), chime_ctx_get_fire_id(ctx), n->id,
      start, real_ms(), attempt, told == 1);
  if (len > 0 && (size_t)len < sizeof line)
    (void)!write(n->pol_fd, line, (size_t)len);
}

/* One job of the policy load: its policy and one simple trigger of every_ms
 * (0: once) from start. */
static int add_policy(chime_scheduler *s, const char *name, const char *data,
                      chime_concurrency c, int64_t every_ms, int64_t start) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  int r = chime_job_new("pol", name, "policy", &job, NULL, 0);
  if (r == 0)
    r = chime_job_set_data(job, data, strlen(data));
  if (r == 0)
    r = chime_job_set_concurrency(job, c);
  chime_retry *retry = NULL; /* "fail": 2 attempts, 2.5 s apart */
  if (r == 0 && strcmp(data, "fail") == 0 &&
      (r = chime_retry_new(&retry)) == 0 &&
      (r = chime_retry_set_max_attempts(retry, 2)) == 0 &&
      (r = chime_retry_set_initial_delay_ms(retry, 2500)) == 0)
    r = chime_job_set_retry(job, retry);
  chime_retry_free(retry);
  if (r == 0)
    r = chime_trigger_simple_new("pol", name, every_ms,
                                 every_ms ? CHIME_REPEAT_INDEFINITELY : 0, &t,
                                 NULL, 0);
  return schedule_anew(s, job, t, start, r);
}

static int schedule_policies(chime_scheduler *s, int64_t start) {
  int r =
      add_policy(s, "replace", "1200", CHIME_CONCURRENCY_REPLACE, 500, start);
  if (r == 0)
    r = add_policy(s, "skip", "700", CHIME_CONCURRENCY_FORBID_SKIP, 250, start);
  if (r == 0)
    r = add_policy(s, "polite", "20000", CHIME_CONCURRENCY_ALLOW, 0,
                   start + 1000);
  if (r == 0)
    r = add_policy(s, "retry", "fail", CHIME_CONCURRENCY_ALLOW, 0,
                   start + 1500);
  return r;
}

/* One job of the load and its trigger (replacing an earlier one). */
static int add(chime_scheduler *s, const char *name, const char *sleep,
               bool forbid, int64_t every_ms, const char *cron, int64_t start) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256] = "";
  int r = chime_job_new("load", name, "load", &job, NULL, 0);
  if (r == 0)
    r = chime_job_set_data(job, sleep, strlen(sleep));
  if (r == 0)
    r = chime_job_set_requests_recovery(job, true);
  if (r == 0 && forbid)
    r = chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID);
  if (r == 0)
    r = cron ? chime_trigger_cron_new("load", name, cron, "UTC", &t, err,
                                      sizeof err)
             : chime_trigger_simple_new("load", name, every_ms,
                                        CHIME_REPEAT_INDEFINITELY, &t, err,
                                        sizeof err);
  return schedule_anew(s, job, t, start, r);
}

/* The test load: simple triggers of 300, 500 and 2000 ms (the last one's
 * run takes 1.2 s: the one the fault tests kill), a cron every second and
 * a FORBID job every 400 ms whose run takes 150 ms.  The rolling load (the
 * rolling-restart test) adds runs of 4 s every 5 s and of 8 s every 10 s,
 * longer than a node's lease, so that every restart stops a node with
 * runs going on. */
static int schedule_load(chime_scheduler *s, int64_t start, bool rolling) {
  int r = add(s, "s300", "0", false, 300, NULL, start);
  if (r == 0)
    r = add(s, "s500", "50", false, 500, NULL, start);
  if (r == 0)
    r = add(s, "long", "1200", false, 2000, NULL, start);
  if (r == 0)
    r = add(s, "cron", "0", false, 0, "* * * * * ?", start);
  if (r == 0)
    r = add(s, "forbid", "150", true, 400, NULL, start);
  if (r == 0 && rolling)
    r = add(s, "r4s", "4000", false, 5000, NULL, start);
  if (r == 0 && rolling)
    r = add(s, "r8s", "8000", false, 10000, NULL, start);
  return r;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("chime-node %s (libchime %s)\n", CHIME_VERSION, chime_version());
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "--help") == 0) {
    printf("usage: chime-node URL ID RESULTS_DIR [--schedule START_MS] "
           "[--table TABLE] [--policies START_MS] [--load demo|rolling] "
           "[--deadline MS] [--claim-ahead MS] [--checkin-interval MS] "
           "[--local-queue N] [--queue 1] [--with-completion 1]\n"
           "One node of a cluster, as the cluster tests and the demo start "
           "it.\n");
    return 0;
  }
  node n = {.fd = -1, .pol_fd = -1};
  const char *schedule = NULL, *policies = NULL, *load_name = "demo";
  bool queue = false;
  int64_t deadline_ms = -1, claim_ahead_ms = -1, local_queue = -1;
  int64_t checkin_ms = -1;
  bool usage = argc < 4;
  for (int i = 4; !usage && i < argc; i += 2) {
    if (i + 1 >= argc)
      usage = true;
    else if (strcmp(argv[i], "--schedule") == 0)
      schedule = argv[i + 1];
    else if (strcmp(argv[i], "--table") == 0)
      n.table = argv[i + 1];
    else if (strcmp(argv[i], "--policies") == 0)
      policies = argv[i + 1];
    else if (strcmp(argv[i], "--load") == 0)
      load_name = argv[i + 1];
    else if (strcmp(argv[i], "--deadline") == 0)
      deadline_ms = strtoll(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--claim-ahead") == 0)
      claim_ahead_ms = strtoll(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--checkin-interval") == 0)
      checkin_ms = strtoll(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--local-queue") == 0)
      local_queue = strtoll(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--queue") == 0)
      queue = strcmp(argv[i + 1], "1") == 0;
    else if (strcmp(argv[i], "--with-completion") == 0)
      n.with_completion = strcmp(argv[i + 1], "1") == 0;
    else
      usage = true;
  }
  if (strcmp(load_name, "demo") != 0 && strcmp(load_name, "rolling") != 0)
    usage = true;
  if (usage) {
    fprintf(stderr, "usage: chime-node URL ID RESULTS_DIR [--schedule "
                    "START_MS] [--table TABLE] [--policies START_MS] [--load "
                    "demo|rolling] [--deadline MS] [--claim-ahead MS] "
                    "[--checkin-interval MS] [--local-queue N] [--queue 1] "
                    "[--with-completion 1]\n");
    return 1;
  }
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);

  n.id = argv[2];
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.log", argv[3], argv[2]);
  n.fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  snprintf(path, sizeof path, "%s/%s.pol", argv[3], argv[2]);
  n.pol_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (n.fd < 0 || n.pol_fd < 0) {
    fprintf(stderr, "chime-node %s: cannot open %s\n", n.id, path);
    return 1;
  }
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_config_new(&cfg);
  if (r == 0)
    r = chime_config_set_store_url(cfg, argv[1]);
  if (r == 0)
    r = chime_config_set_scheduler_name(cfg, "cluster");
  if (r == 0)
    r = chime_config_set_instance_id(cfg, n.id);
  if (r == 0)
    r = chime_config_set_workers(cfg, 4);
  if (r == 0)
    r = chime_config_set_idle_wait_ms(cfg, 1000);
  if (r == 0 && claim_ahead_ms >= 0)
    r = chime_config_set_claim_ahead_ms(cfg, claim_ahead_ms);
  if (r == 0 && checkin_ms >= 0)
    r = chime_config_set_checkin_interval_ms(cfg, checkin_ms);
  if (r == 0 && local_queue >= 0)
    r = local_queue > UINT_MAX
            ? CHIME_EINVAL
            : chime_config_set_local_queue(cfg, (unsigned)local_queue);
  if (r == 0)
    r = chime_config_set_log(cfg, log_line, &n, CHIME_LOG_INFO);
  if (r == 0)
    r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r < 0) {
    fprintf(stderr, "chime-node %s: %s (%s)\n", n.id,
            err[0] ? err : chime_strerror(r), chime_err_name(r));
    close(n.fd);
    close(n.pol_fd);
    return r == CHIME_EDUPNODE ? 3 : 1;
  }
  r = chime_scheduler_register_job_type(s, "load", load, &n, NULL);
  if (r == 0)
    r = chime_scheduler_register_job_type(s, "policy", policy, &n, NULL);
  if (r == 0)
    r = chime_scheduler_register_job_type(s, "chain", chain, &n, NULL);
  if (r == 0 && queue)
    r = schedule_queue(s);
  if (r == 0 && schedule)
    r = schedule_load(s, strtoll(schedule, NULL, 10),
                      strcmp(load_name, "rolling") == 0);
  if (r == 0 && policies)
    r = schedule_policies(s, strtoll(policies, NULL, 10));
  if (r == 0)
    r = chime_scheduler_start(s);
  if (r < 0) {
    fprintf(stderr, "chime-node %s: %s (%s)\n", n.id, chime_scheduler_errmsg(s),
            chime_err_name(r));
    chime_scheduler_free(s);
    close(n.fd);
    close(n.pol_fd);
    return 1;
  }
  printf("ready %s\n", n.id);
  fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  fprintf(stderr, "chime-node %s: signal %d, shutting down\n", n.id, sig);
  if (deadline_ms >= 0)
    r = chime_scheduler_shutdown(s, deadline_ms);
  else
    r = chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  if (r < 0)
    fprintf(stderr, "chime-node %s: %s\n", n.id, chime_scheduler_errmsg(s));
  chime_scheduler_free(s);
  fprintf(stderr, "%" PRId64 " chime-node %s: stopped\n", real_ms(), n.id);
  close(n.fd);
  close(n.pol_fd);
  return 0;
}
