/*
 * test-queue.c: runs handed in through the scheduler (engine/enqueue.c;
 * docs/queue.md), on the memory store (engine/queue) and, with
 * CHIME_TEST_MYSQL, on the throwaway MariaDB (engine/queue-mysql, table
 * prefix chime_eq_): each run enqueued runs once with its data; a bulk
 * hand-in over several batches reports each run (keys given twice
 * existed), and runs of the largest data are cut into batches the
 * database takes; a request key makes a repeated trigger_job store nothing; the
 * run's name is its trigger key (its partition key on the trigger) and
 * unscheduling it cancels it; bad
 * arguments get clear errors.  With MySQL, a chain enqueued inside a job's
 * completion transaction runs once, and never when it rolls back; a bulk
 * hand-in of stored keys locks its own keys only, while another session
 * holds a run's row.
 */
#ifdef CHIME_TEST_MYSQL
#include "chime-mysql.h"
#endif
#include "chime.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 30000

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int runs;   /* runs of "count" */
  int marked; /* runs whose data was "mark" */
  int thens;  /* runs of "then" */
} S;

static char store_url[2048] = "memory:";

static void count_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  size_t len = 0;
  const char *data = chime_ctx_get_data(ctx, &len);
  pthread_mutex_lock(&S.mu);
  S.runs++;
  S.marked += len == 4 && memcmp(data, "mark", 4) == 0;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

static void then_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
  pthread_mutex_lock(&S.mu);
  S.thens++;
  pthread_cond_broadcast(&S.cv);
  pthread_mutex_unlock(&S.mu);
}

#ifdef CHIME_TEST_MYSQL
/* A first step: enqueues "then" in its transaction; data "undo" rolls
 * the transaction back. */
static void first_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  size_t len = 0;
  const char *data = chime_ctx_get_data(ctx, &len);
  bool undo = len == 4 && memcmp(data, "undo", 4) == 0;
  chime_mysql_tx *tx = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_mysql_tx_begin(ctx, &tx), 0);
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_key(o, undo ? "then-u" : "then-a"),
                  0);
  char run[CHIME_RUN_NAME_LEN];
  CU_ASSERT_EQUAL(chime_mysql_tx_enqueue(tx, "q", "then", o, run, sizeof run),
                  0);
  CU_ASSERT_EQUAL(chime_mysql_tx_enqueue(tx, "q", "then", o, run, sizeof run),
                  CHIME_ENQUEUE_EXISTED);
  CU_ASSERT_EQUAL(chime_mysql_tx_enqueue(tx, "q", "nope", NULL, NULL, 0),
                  CHIME_ENOTFOUND);
  chime_enqueue_free(o);
  /* The failure doomed it: commit rolls back; roll back explicitly. */
  CU_ASSERT_EQUAL(chime_mysql_tx_rollback(tx), 0);
  if (undo)
    return;
  CU_ASSERT_EQUAL_FATAL(chime_mysql_tx_begin(ctx, &tx), 0);
  CU_ASSERT_EQUAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_key(o, "then-a"), 0);
  CU_ASSERT_EQUAL(chime_mysql_tx_enqueue(tx, "q", "then", o, NULL, 0), 0);
  chime_enqueue_free(o);
  CU_ASSERT_EQUAL(chime_mysql_tx_commit(tx), 0);
}
#endif

/* Waits until *n >= want (under S.mu), at most WAIT_MS. */
static bool wait_for(const int *n, int want) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&S.mu);
  int r = 0;
  while (*n < want && r != ETIMEDOUT)
    r = pthread_cond_timedwait(&S.cv, &S.mu, &until);
  bool ok = *n >= want;
  pthread_mutex_unlock(&S.mu);
  return ok;
}

static void add_job(chime_scheduler *s, const char *name, const char *type) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new("q", name, type, &job, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_job_set_durable(job, true), 0);
  CU_ASSERT_EQUAL(chime_scheduler_add_job(s, job, true), 0);
  chime_job_free(job);
}

/* A scheduler (not started) with the jobs q.count, q.then (and q.first
 * with MySQL). */
static chime_scheduler *node(void) {
  pthread_mutex_lock(&S.mu);
  S.runs = S.marked = S.thens = 0;
  pthread_mutex_unlock(&S.mu);
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL(chime_config_set_store_url(cfg, store_url), 0);
  CU_ASSERT_EQUAL(chime_config_set_workers(cfg, 4), 0);
  CU_ASSERT_EQUAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "count", count_job, NULL, NULL), 0);
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "then", then_job, NULL, NULL), 0);
  add_job(s, "count", "count");
  add_job(s, "then", "then");
#ifdef CHIME_TEST_MYSQL
  CU_ASSERT_EQUAL(
      chime_scheduler_register_job_type(s, "first", first_job, NULL, NULL), 0);
  add_job(s, "first", "first");
#endif
  return s;
}

static void test_queue_bulk_over_batches(void) {
  chime_scheduler *s = node();
  enum { N = 2500 };
  chime_enqueue **opts = calloc(N, sizeof *opts);
  int *results = calloc(N, sizeof *results);
  char *runs = calloc(N, CHIME_RUN_NAME_LEN);
  CU_ASSERT_FATAL(opts && results && runs);
  for (int i = 0; i < N; i++) {
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&opts[i]), 0);
    char key[32];
    snprintf(key, sizeof key, "k-%d", i % 2000);
    if (i % 5 == 0) /* every fifth keyed: 400 keys, 100 of them twice */
      CU_ASSERT_EQUAL(chime_enqueue_set_unique_key(opts[i], key), 0);
  }
  int stored = chime_scheduler_enqueue_many(
      s, "q", "count", (const chime_enqueue *const *)opts, N, results, runs,
      CHIME_RUN_NAME_LEN);
  int existed = 0;
  for (int i = 0; i < N; i++)
    existed += results[i] == CHIME_ENQUEUE_EXISTED;
  /* Keys k-0, k-5, ... k-495 come again at i + 2000 (i % 5 == 0 there too). */
  CU_ASSERT_EQUAL(existed, 100);
  CU_ASSERT_EQUAL(stored, N - 100);
  CU_ASSERT_STRING_EQUAL(runs + 5 * CHIME_RUN_NAME_LEN, "K_k-5");
  CU_ASSERT_STRING_EQUAL(runs + 2005 * CHIME_RUN_NAME_LEN, "K_k-5");
  CU_ASSERT_EQUAL(strncmp(runs + 1 * CHIME_RUN_NAME_LEN, "Q_", 2), 0);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&S.runs, N - 100));
  chime_test_sleep_ms(300);
  CU_ASSERT_EQUAL(S.runs, N - 100);
  for (int i = 0; i < N; i++)
    chime_enqueue_free(opts[i]);
  free(opts);
  free(results);
  free(runs);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

/* Nine runs of CHIME_MAX_DATA_LEN bytes: 18 MiB as hex in one statement
 * would pass the server's max_allowed_packet (16 MiB by default); the
 * engine cuts the batch at 4 MiB of data. */
static void test_queue_big_runs(void) {
  chime_scheduler *s = node();
  enum { N = 9 };
  char *big = malloc(CHIME_MAX_DATA_LEN);
  CU_ASSERT_PTR_NOT_NULL_FATAL(big);
  memset(big, 'x', CHIME_MAX_DATA_LEN);
  chime_enqueue *opts[N];
  for (int i = 0; i < N; i++) {
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&opts[i]), 0);
    CU_ASSERT_EQUAL(chime_enqueue_set_data(opts[i], big, CHIME_MAX_DATA_LEN),
                    0);
  }
  CU_ASSERT_EQUAL(chime_scheduler_enqueue_many(
                      s, "q", "count", (const chime_enqueue *const *)opts, N,
                      NULL, NULL, 0),
                  N);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&S.runs, N));
  for (int i = 0; i < N; i++)
    chime_enqueue_free(opts[i]);
  free(big);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

static void test_queue_keys_and_cancel(void) {
  chime_scheduler *s = node();
  /* A request key: the second call stores nothing while the run waits. */
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "q", "count", "mark", 4, "req-1"),
                  0);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "q", "count", "mark", 4, "req-1"),
                  CHIME_ENQUEUE_EXISTED);
  /* A run for later, cancelled by its name. */
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL(chime_enqueue_set_run_at_ms(o, INT64_C(4102444800000)), 0);
  /* Its partition key goes to its trigger (a per-partition limit's). */
  CU_ASSERT_EQUAL(chime_enqueue_set_partition_key(o, "tenant-7"), 0);
  CU_ASSERT_STRING_EQUAL(chime_enqueue_get_partition_key(o), "tenant-7");
  char run[CHIME_RUN_NAME_LEN];
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(s, "q", "count", o, run, sizeof run),
                  0);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL(chime_scheduler_get_trigger(s, CHIME_QUEUE_GROUP, run, &t),
                  0);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(t), INT64_C(4102444800000));
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_partition_key(t), "tenant-7");
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(chime_scheduler_unschedule(s, CHIME_QUEUE_GROUP, run), 0);
  /* Errors. */
  char small[4];
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(s, "q", "nope", NULL, NULL, 0),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(s, "", "count", NULL, NULL, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(NULL, "q", "count", NULL, NULL, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(s, "q", "count", NULL, run, 0),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_scheduler_enqueue(s, "q", "count", NULL, small, sizeof small),
      CHIME_ELIMIT); /* stored all the same */
  CU_ASSERT_EQUAL(
      chime_scheduler_enqueue_many(s, "q", "count", NULL, 1, NULL, NULL, 0),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_scheduler_run_job(s, "q", "count", NULL, 0, ""),
                  CHIME_EINVAL); /* an empty request key: nothing stored */
  CU_ASSERT_EQUAL(chime_enqueue_set_unique_key(o, ""), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_partition_key(o, ""), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_partition_key(NULL, "p"), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(chime_enqueue_get_partition_key(NULL));
  CU_ASSERT_EQUAL(chime_enqueue_set_timeout_ms(o, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_run_at_ms(o, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_set_data(o, NULL, 3), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_enqueue_get_priority(NULL), 5);
  chime_enqueue_free(o);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&S.runs, 2));
  chime_test_sleep_ms(300);
  CU_ASSERT_EQUAL(S.runs, 2); /* req-1 once, the ELIMIT one */
  CU_ASSERT_EQUAL(S.marked, 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}

#ifdef CHIME_TEST_MYSQL
static void test_queue_chain_in_transaction(void) {
  chime_scheduler *s = node();
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(s, "q", "first", NULL, NULL, 0), 0);
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL(chime_enqueue_set_data(o, "undo", 4), 0);
  CU_ASSERT_EQUAL(chime_scheduler_enqueue(s, "q", "first", o, NULL, 0), 0);
  chime_enqueue_free(o);
  CU_ASSERT_EQUAL(chime_scheduler_start(s), 0);
  CU_ASSERT_TRUE(wait_for(&S.thens, 1));
  chime_test_sleep_ms(1000);
  CU_ASSERT_EQUAL(S.thens, 1);
  CU_ASSERT_EQUAL(chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER), 0);
  chime_scheduler_free(s);
}
#endif

#ifdef CHIME_TEST_MYSQL
/* Enqueues runs of q.count keyed "w-<from>" .. "w-<from + count - 1>":
 * returns chime_scheduler_enqueue_many's result, results[i] each run's. */
static int enqueue_keyed(chime_scheduler *s, int from, int count,
                         int *results) {
  chime_enqueue **opts = calloc((size_t)count, sizeof *opts);
  CU_ASSERT_PTR_NOT_NULL_FATAL(opts);
  for (int i = 0; i < count; i++) {
    char key[32];
    snprintf(key, sizeof key, "w-%d", from + i);
    CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&opts[i]), 0);
    CU_ASSERT_EQUAL(chime_enqueue_set_unique_key(opts[i], key), 0);
  }
  int r = chime_scheduler_enqueue_many(s, "q", "count",
                                       (const chime_enqueue *const *)opts,
                                       (size_t)count, results, NULL, 0);
  for (int i = 0; i < count; i++)
    chime_enqueue_free(opts[i]);
  free(opts);
  return r;
}

/* Another session holds one stored run's row, as a claim, a completion or
 * a job's open transaction does, while a bulk hand-in looks up keys stored
 * already.  The hand-in locks its own keys only: "trigger_name IN (...)"
 * with some hundreds of names read the whole queue group instead and
 * waited for the held row, until the server's lock wait ran out (10 s
 * here, 50 s by default) and the hand-in failed. */
static void test_queue_keys_wait_for_no_other_run(void) {
  enum { STORED = 1200, AGAIN = 900 };
  chime_scheduler *s = node();
  static int results[STORED];
  CU_ASSERT_EQUAL_FATAL(enqueue_keyed(s, 0, STORED, results), STORED);
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, "BEGIN"), 0);
  CU_ASSERT_EQUAL_FATAL(
      mysql_query(db, "SELECT t.trigger_name FROM chime_eq_triggers t "
                      "JOIN (SELECT sched_name FROM chime_eq_triggers "
                      "WHERE trigger_name = 'K_w-1199' LIMIT 1) k "
                      "ON t.sched_name = k.sched_name "
                      "WHERE t.trigger_group = '" CHIME_QUEUE_GROUP "' "
                      "AND t.trigger_name = 'K_w-1199' FOR UPDATE"),
      0);
  MYSQL_RES *held = mysql_store_result(db);
  CU_ASSERT_EQUAL(held ? mysql_num_rows(held) : 0, 1);
  mysql_free_result(held);
  int64_t t0 = chime_test_wall_ms();
  CU_ASSERT_EQUAL(enqueue_keyed(s, 0, AGAIN, results), 0);
  int64_t took = chime_test_wall_ms() - t0;
  int existed = 0;
  for (int i = 0; i < AGAIN; i++)
    existed += results[i] == CHIME_ENQUEUE_EXISTED;
  CU_ASSERT_EQUAL(existed, AGAIN);
  CU_ASSERT(took < 5000);
  if (took >= 5000)
    fprintf(stderr, "the hand-in took %lld ms\n", (long long)took);
  CU_ASSERT_EQUAL(mysql_query(db, "ROLLBACK"), 0);
  mysql_close(db);
  chime_scheduler_free(s);
}
#endif

static int init(void) {
  pthread_mutex_init(&S.mu, NULL);
  pthread_cond_init(&S.cv, NULL);
#ifdef CHIME_TEST_MYSQL
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_eq_");
#else
  return 0;
#endif
}

int main(void) {
  CU_TestInfo tests[] = {
      {"bulk over batches, keys given twice existed",
       test_queue_bulk_over_batches},
      {"request keys, names, cancel, errors", test_queue_keys_and_cancel},
      {"runs of the largest data go in several batches", test_queue_big_runs},
#ifdef CHIME_TEST_MYSQL
      {"a chain in the job's transaction runs once",
       test_queue_chain_in_transaction},
      {"a bulk hand-in of stored keys waits for no other run's lock",
       test_queue_keys_wait_for_no_other_run},
#endif
      CU_TEST_INFO_NULL,
  };
  CU_SuiteInfo suites[] = {
#ifdef CHIME_TEST_MYSQL
      {.pName = "engine/queue-mysql", .pInitFunc = init, .pTests = tests},
#else
      {.pName = "engine/queue", .pInitFunc = init, .pTests = tests},
#endif
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
#ifdef CHIME_TEST_MYSQL
  mysql_library_end();
#endif
  return r;
}
