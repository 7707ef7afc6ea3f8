/*
 * test-mysql-tx.c: transactional completion (include/chime-mysql.h) on the
 * throwaway MariaDB (table prefix chime_tx_, the job's own table
 * tx_effects): a job's statements and its fire's completion commit together
 * (one effect row, one history row, no fired row, and the scheduler does
 * not complete the fire again; listeners still run); a rollback writes
 * neither (the fire then completes as usual); a fire taken over while its
 * job worked (its session ended and its fired row given to another node,
 * as a survivor's recovery does) fails at commit as a whole: no effect, no
 * completion; begin on a fire that is not this node's is refused; the
 * memory store says CHIME_EUNSUPPORTED; the last shard of a sharded fire
 * committing so ends the fire and tells SHARDED_FIRE_DONE; a transaction
 * held open holds up no other fire's completion.  And, on the store
 * directly: a node that stops (checks in no more) inside such a transaction,
 * holding its fired row and an uncommitted row, does not block a survivor's
 * recovery: the survivor ends its sessions first (prefix chime_txs_), and
 * a live node's does not either.
 * Statements given to the completion (chime_ctx_complete_with) are
 * written with it, in order, or none: a refused one makes the run FAILED
 * (only its own, in a batch of many), a fenced fire writes none, and with a
 * transaction of the job's own they commit in it.
 */
#include "chime-mysql.h"
#include "chime.h"
#include "harness.h"
#include "jobstore/store.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a survivor's recovery does to fire id: the fire is another node's
 * now, its fired row or, for a one-shot's run kept in its trigger row
 * (jobstore/mysql/runs.c), that row.  Returns the rows changed (1), or -1
 * on an error. */
static long long steal(MYSQL *db, const char *id) {
  const char *const qs[] = {
      "UPDATE chime_tx_fired SET node = 'thief' WHERE fire_id = %s",
      "UPDATE chime_tx_triggers SET owner = 'thief' WHERE state = "
      "'EXECUTING' AND claim_fire_id = %s"};
  long long changed = 0;
  for (size_t k = 0; k < 2; k++) {
    char q[200];
    snprintf(q, sizeof q, qs[k], id);
    if (mysql_query(db, q) != 0)
      return -1;
    changed += (long long)mysql_affected_rows(db);
  }
  return changed;
}
#include <time.h>

#define WAIT_MS 20000

/* What the job did, for the test thread. */
typedef struct seen {
  pthread_mutex_t mu;
  pthread_cond_t cond;
  int64_t fire_id;
  unsigned long long conn_id; /* the transaction's session */
  int begin_r, exec_r, end_r, again_r;
  uint64_t affected;
  bool ready; /* the job waits for go */
  bool go;
  bool done;
  int was_executed;     /* JOB_WAS_EXECUTED events */
  int shards_run;       /* shards of "txshard" committed */
  int64_t sharded_done; /* the fire id of SHARDED_FIRE_DONE, 0 before */
} seen;

static seen st;

/* A job that gives statements to its completion: its trigger's name says
 * which ("with...": below).  Called by tx_job. */
static void with_job(chime_ctx *ctx, const char *how, const char *id) {
  int r = 0;
  if (strcmp(how, "with-stolen") == 0) { /* another node has it now */
    MYSQL *db = chime_test_mysql_open();
    if (!db || steal(db, id) != 1)
      fprintf(stderr, "cannot steal fire %s\n", id);
    if (db)
      mysql_close(db);
  }
  const char *p[] = {id, how};
  const char *insert = "INSERT INTO tx_effects (fire_id, how) VALUES (?, ?)";
  r = chime_ctx_complete_with(ctx, insert, p, 2);
  const char *p2[] = {id, NULL};
  if (r == 0 && strcmp(how, "with-bad") == 0)
    r = chime_ctx_complete_with(
        ctx, "INSERT INTO tx_no_such_table (fire_id) VALUES (?)", p, 1);
  else if (r == 0)
    r = chime_ctx_complete_with(ctx,
                                "INSERT INTO tx_effects (fire_id, how) "
                                "VALUES (?, COALESCE(?, 'second'))",
                                p2, 2);
  int end_r = 1, again_r = 1;
  if (r == 0 && strcmp(how, "with-tx") == 0) {
    /* With a transaction of its own: the statements commit in it. */
    chime_mysql_tx *tx = NULL;
    end_r = chime_mysql_tx_begin(ctx, &tx);
    if (end_r == 0)
      end_r = chime_mysql_tx_execute(tx, insert, p, 2, NULL);
    if (end_r == 0)
      end_r = chime_mysql_tx_commit(tx);
    again_r = chime_ctx_complete_with(ctx, insert, p, 2);
  }
  pthread_mutex_lock(&st.mu);
  st.fire_id = chime_ctx_get_fire_id(ctx);
  st.exec_r = r;
  st.end_r = end_r;
  st.again_r = again_r;
  st.done = true;
  pthread_cond_broadcast(&st.cond);
  pthread_mutex_unlock(&st.mu);
}

static void reset(void) {
  pthread_mutex_lock(&st.mu);
  st.fire_id = 0;
  st.conn_id = 0;
  st.begin_r = st.exec_r = st.end_r = st.again_r = 1;
  st.affected = 0;
  st.ready = st.go = st.done = false;
  st.was_executed = 0;
  st.shards_run = 0;
  st.sharded_done = 0;
  pthread_mutex_unlock(&st.mu);
}

/* Waits until *flag is set (under st.mu), at most WAIT_MS. */
static bool wait_flag(bool *flag) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += WAIT_MS / 1000;
  pthread_mutex_lock(&st.mu);
  int r = 0;
  while (!*flag && r != ETIMEDOUT)
    r = pthread_cond_timedwait(&st.cond, &st.mu, &until);
  bool ok = *flag;
  pthread_mutex_unlock(&st.mu);
  return ok;
}

static void set_flag(bool *flag) {
  pthread_mutex_lock(&st.mu);
  *flag = true;
  pthread_cond_broadcast(&st.cond);
  pthread_mutex_unlock(&st.mu);
}

/* The job: its trigger's name says how it ends: "commit", "rollback",
 * "fenced" (waits for the test to take the fire away, then commits),
 * "leave-open" (returns with the transaction open). */
static void tx_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  const char *how = chime_ctx_get_trigger_name(ctx);
  char id[32];
  snprintf(id, sizeof id, "%" PRId64, chime_ctx_get_fire_id(ctx));
  if (strncmp(how, "with", 4) == 0) {
    with_job(ctx, how, id);
    return;
  }
  pthread_mutex_lock(&st.mu);
  st.fire_id = chime_ctx_get_fire_id(ctx);
  pthread_mutex_unlock(&st.mu);
  if (strcmp(how, "stolen") == 0) { /* another node has it now */
    MYSQL *db = chime_test_mysql_open();
    if (!db || steal(db, id) != 1)
      fprintf(stderr, "cannot steal fire %s\n", id);
    if (db)
      mysql_close(db);
  }
  chime_mysql_tx *tx = NULL;
  int begin_r = chime_mysql_tx_begin(ctx, &tx);
  if (begin_r < 0 && tx)
    fprintf(stderr, "begin: %s\n", chime_mysql_tx_errmsg(tx));
  int exec_r = 1, end_r = 1, again_r = 1;
  uint64_t affected = 0;
  unsigned long long conn_id = 0;
  if (begin_r == 0) {
    const char *p[] = {id, how};
    exec_r = chime_mysql_tx_execute(
        tx, "INSERT INTO tx_effects (fire_id, how) VALUES (?, ?)", p, 2,
        &affected);
    MYSQL *db = chime_mysql_tx_get_conn(tx);
    if (db && mysql_query(db, "SELECT CONNECTION_ID()") == 0) {
      MYSQL_RES *res = mysql_store_result(db);
      MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
      if (row && row[0])
        conn_id = strtoull(row[0], NULL, 10);
      if (res)
        mysql_free_result(res);
    }
    pthread_mutex_lock(&st.mu);
    st.conn_id = conn_id;
    pthread_mutex_unlock(&st.mu);
    if (strcmp(how, "fenced") == 0) {
      set_flag(&st.ready);
      wait_flag(&st.go);
    }
    if (strcmp(how, "rollback") == 0)
      end_r = chime_mysql_tx_rollback(tx);
    else if (strcmp(how, "leave-open") != 0)
      end_r = chime_mysql_tx_commit(tx);
    /* Never twice: no new transaction after a commit. */
    chime_mysql_tx *again = NULL;
    if (strcmp(how, "commit") == 0)
      again_r = chime_mysql_tx_begin(ctx, &again);
  }
  pthread_mutex_lock(&st.mu);
  st.begin_r = begin_r;
  st.exec_r = exec_r;
  st.end_r = end_r;
  st.again_r = again_r;
  st.affected = affected;
  st.done = true;
  pthread_cond_broadcast(&st.cond);
  pthread_mutex_unlock(&st.mu);
}

/* A shard of a sharded job that completes through its own transaction. */
static void shard_job(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  chime_mysql_tx *tx = NULL;
  int r = chime_mysql_tx_begin(ctx, &tx);
  if (r == 0)
    r = chime_mysql_tx_commit(tx);
  pthread_mutex_lock(&st.mu);
  st.shards_run += r == 0;
  pthread_mutex_unlock(&st.mu);
}

/* A job that returns at once (its fires complete through the scheduler). */
static void quick_job(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

static bool on_event(const chime_event *ev, void *user_data) {
  (void)user_data;
  pthread_mutex_lock(&st.mu);
  if (chime_event_get_kind(ev) == CHIME_EVENT_JOB_WAS_EXECUTED)
    st.was_executed++;
  if (chime_event_get_kind(ev) == CHIME_EVENT_SHARDED_FIRE_DONE) {
    st.sharded_done = chime_event_get_fire_id(ev);
    st.done = true;
    pthread_cond_broadcast(&st.cond);
  }
  pthread_mutex_unlock(&st.mu);
  return false;
}

static MYSQL *admin(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL_FATAL(
      mysql_query(db, "CREATE TABLE IF NOT EXISTS tx_effects (fire_id BIGINT "
                      "NOT NULL, how VARCHAR(32) NOT NULL) ENGINE=InnoDB"),
      0);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, "DELETE FROM tx_effects"), 0);
  return db;
}

/* The first column of the first row of q's answer; -1 on failure. */
static long long query_plain(MYSQL *db, const char *q) {
  long long v = -1;
  if (mysql_query(db, q) != 0) {
    fprintf(stderr, "%s: %s\n", q, mysql_error(db));
    return -1;
  }
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
  if (row && row[0])
    v = strtoll(row[0], NULL, 10);
  if (res)
    mysql_free_result(res);
  return v;
}

/* fmt takes arg once or twice (FIRED). */
static long long query_int(MYSQL *db, const char *fmt, int64_t arg) {
  char q[512];
  snprintf(q, sizeof q, fmt, arg, arg);
  return query_plain(db, q);
}

static chime_scheduler *start(const char *url_or_null) {
  char url[1024];
  if (url_or_null) {
    snprintf(url, sizeof url, "%s", url_or_null);
  } else {
    CU_ASSERT_EQUAL_FATAL(
        chime_test_mysql_url_with(url, sizeof url,
                                  "prefix=chime_tx_&auto_create=1&clear=1"),
        0);
  }
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_store_url(cfg, url), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "txtest"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_instance_id(cfg, "tx-node"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "tx", tx_job, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "txshard", shard_job, NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "quick", quick_job, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_JOB_WAS_EXECUTED, on_event,
                                   NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_add_listener(s, CHIME_EVENT_SHARDED_FIRE_DONE, on_event,
                                   NULL, NULL),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  return s;
}

/* A one-shot trigger named how, due now, for a job that keeps data; the
 * trigger carries how as its data (the run's own, which history keeps). */
static void fire_once(chime_scheduler *s, const char *how) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("tx", how, "tx", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tx", how, 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "tx", how), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_data(t, how, strlen(how)), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, chime_test_wall_ms()), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
}

/* The test's database handle (its tables set up), a scheduler started,
 * and how fired once, its job returned (st.done). */
static MYSQL *fire_and_wait(const char *how, chime_scheduler **ret_s) {
  MYSQL *db = admin();
  reset();
  *ret_s = start(NULL);
  fire_once(*ret_s, how);
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.done));
  return db;
}

#define HISTORY "SELECT COUNT(*) FROM chime_tx_history WHERE fire_id = %" PRId64
#define HISTORY_OK HISTORY " AND outcome = 'OK' AND node = 'tx-node'"
/* The fire's run: its fired row, or its trigger row's (runs.c). */
#define FIRED                                                                  \
  "SELECT (SELECT COUNT(*) FROM chime_tx_fired WHERE fire_id = %" PRId64 ") "  \
  "+ (SELECT COUNT(*) FROM chime_tx_triggers WHERE state = 'EXECUTING' AND "   \
  "claim_fire_id = %" PRId64 ")"
#define EFFECTS "SELECT COUNT(*) FROM tx_effects WHERE fire_id = %" PRId64

/* A fenced fire's work: no effect, no completion (its fired row is still
 * there, the other node's). */
static void assert_nothing_written(MYSQL *db, int64_t fire_id) {
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, HISTORY, fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, FIRED, fire_id), 1);
}

static void test_mysql_tx_commit_writes_both(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("commit", &s);
  CU_ASSERT_EQUAL(st.begin_r, 0);
  CU_ASSERT_EQUAL(st.exec_r, 0);
  CU_ASSERT_EQUAL(st.affected, 1);
  CU_ASSERT_EQUAL(st.end_r, 0);
  CU_ASSERT_EQUAL(st.again_r, CHIME_ESTATE);
  /* Both are there as soon as the commit returned. */
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 1);
  CU_ASSERT_EQUAL(query_int(db, HISTORY_OK, st.fire_id), 1);
  CU_ASSERT_EQUAL(query_int(db, FIRED, st.fire_id), 0);
  /* The transactional completion's history row has the run's own data. */
  CU_ASSERT_EQUAL(query_int(db, HISTORY " AND data = 'commit'", st.fire_id), 1);
  /* Shutdown waits for the run's end: still one completion, and the
   * listeners ran. */
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, HISTORY, st.fire_id), 1);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 1);
  CU_ASSERT_EQUAL(st.was_executed, 1);
  mysql_close(db);
}

static void test_mysql_tx_rollback_writes_neither(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("rollback", &s);
  CU_ASSERT_EQUAL(st.begin_r, 0);
  CU_ASSERT_EQUAL(st.exec_r, 0);
  CU_ASSERT_EQUAL(st.end_r, 0);
  chime_scheduler_free(s);
  /* No effect; the fire was completed once, by the scheduler. */
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, HISTORY_OK, st.fire_id), 1);
  CU_ASSERT_EQUAL(query_int(db, FIRED, st.fire_id), 0);
  mysql_close(db);
}

static void test_mysql_tx_left_open_is_rolled_back(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("leave-open", &s);
  CU_ASSERT_EQUAL(st.begin_r, 0);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, HISTORY_OK, st.fire_id), 1);
  mysql_close(db);
}

static void test_mysql_tx_fenced_commit_fails_whole(void) {
  MYSQL *db = admin();
  reset();
  chime_scheduler *s = start(NULL);
  fire_once(s, "fenced");
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.ready));
  CU_ASSERT_EQUAL(st.begin_r, 1); /* not recorded yet */
  CU_ASSERT(st.conn_id > 0);
  /* What a survivor's recovery does: end the node's session (its
   * transaction rolls back, its lock goes), take the fire. */
  char q[256];
  snprintf(q, sizeof q, "KILL CONNECTION %llu", st.conn_id);
  CU_ASSERT_EQUAL(mysql_query(db, q), 0);
  snprintf(q, sizeof q, "%" PRId64, st.fire_id);
  CU_ASSERT_EQUAL(steal(db, q), 1);
  set_flag(&st.go);
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.done));
  CU_ASSERT_EQUAL(st.begin_r, 0);
  CU_ASSERT_EQUAL(st.exec_r, 0);
  CU_ASSERT_EQUAL(st.end_r, CHIME_ENOTOWNER);
  chime_scheduler_free(s);
  /* Nothing of it: no effect, no completion (the scheduler's own
   * completion afterwards is refused too). */
  assert_nothing_written(db, st.fire_id);
  mysql_close(db);
}

/* A job's open transaction holds its own fired row for the whole run.  The
 * completions of other fires, in batches as large as the fired table
 * itself (the optimizer's full scan, which would wait for that row), must
 * not wait for it: all QUICK_FIRES fires complete while it is held, well
 * within the server's lock wait (innodb_lock_wait_timeout, 10 s here). */
#define QUICK_FIRES 40
#define QUICK_HISTORY                                                          \
  "SELECT COUNT(*) FROM chime_tx_history WHERE job_name LIKE 'quick-%'"
static void test_mysql_tx_open_holds_no_other_completion(void) {
  MYSQL *db = admin();
  reset();
  chime_scheduler *s = start(NULL);
  fire_once(s, "fenced"); /* holds its row until go */
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.ready));
  int64_t due = chime_test_wall_ms() + 1000; /* all due together */
  for (int i = 0; i < QUICK_FIRES; i++) {
    char name[32], err[256];
    snprintf(name, sizeof name, "quick-%d", i);
    chime_job *job = NULL;
    chime_trigger *t = NULL;
    CU_ASSERT_EQUAL_FATAL(chime_job_new("tx", name, "quick", &job, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(
        chime_trigger_simple_new("tx", name, 0, 0, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "tx", name), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, due), 0);
    CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
    chime_job_free(job);
    chime_trigger_free(t);
  }
  /* Past their due time, 6 s at most: the held row's transaction is still
   * open all that time. */
  int64_t deadline = due + 6000;
  long long done = 0;
  while ((done = query_plain(db, QUICK_HISTORY)) < QUICK_FIRES &&
         chime_test_wall_ms() < deadline)
    chime_test_sleep_ms(50);
  CU_ASSERT_EQUAL(done, QUICK_FIRES);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_tx_fired WHERE "
                                  "job_name LIKE 'quick-%'"),
                  0);
  CU_ASSERT_FALSE(st.done); /* still held */
  set_flag(&st.go);
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.done));
  CU_ASSERT_EQUAL(st.end_r, 0);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, HISTORY_OK, st.fire_id), 1);
  mysql_close(db);
}

static void test_mysql_tx_begin_refused_when_not_owned(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("stolen", &s);
  CU_ASSERT_EQUAL(st.begin_r, CHIME_ENOTOWNER);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, HISTORY, st.fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 0);
  mysql_close(db);
}

/* Every shard commits through its own transaction: the last one's commit
 * ends the sharded fire (its history row) and tells SHARDED_FIRE_DONE. */
static void test_mysql_tx_last_shard_tells_done(void) {
  MYSQL *db = admin();
  reset();
  chime_scheduler *s = start(NULL);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      chime_job_new("tx", "sharded", "txshard", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_shards(job, 3, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tx", "sharded", 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "tx", "sharded"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, chime_test_wall_ms()), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.done));
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(st.shards_run, 3);
  CU_ASSERT(st.sharded_done > 0);
  CU_ASSERT_EQUAL(query_int(db,
                            HISTORY " AND outcome = 'OK' AND shard_index "
                                    "= -1",
                            st.sharded_done),
                  1);
  CU_ASSERT_EQUAL(query_int(db, FIRED, st.sharded_done), 0);
  mysql_close(db);
}

/* The memory store has no transactions to share. */
static void test_mysql_tx_memory_store_unsupported(void) {
  reset();
  chime_scheduler *s = start("memory:");
  fire_once(s, "commit");
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.done));
  CU_ASSERT_EQUAL(st.begin_r, CHIME_EUNSUPPORTED);
  chime_scheduler_free(s);
}

static void test_mysql_tx_bad_arguments(void) {
  chime_mysql_tx *tx = (chime_mysql_tx *)1;
  CU_ASSERT_EQUAL(chime_mysql_tx_begin(NULL, &tx), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(tx);
  CU_ASSERT_EQUAL(chime_mysql_tx_execute(NULL, "SELECT 1", NULL, 0, NULL),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_mysql_tx_commit(NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_mysql_tx_rollback(NULL), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(chime_mysql_tx_get_conn(NULL));
  CU_ASSERT_STRING_EQUAL(chime_mysql_tx_errmsg(NULL), "");
  const char *p[] = {"1"};
  CU_ASSERT_EQUAL(chime_ctx_complete_with(NULL, "SELECT ?", p, 1),
                  CHIME_EINVAL);
}

/* A store of node on prefix chime_txs_ (lock waits of 2 s: a recovery that
 * waited for the stopped node's locks would fail, not hang). */
static chime_store *open_node(const char *node, bool clear) {
  char url[1024];
  CU_ASSERT_EQUAL_FATAL(
      chime_test_mysql_url_with(
          url, sizeof url,
          clear
              ? "prefix=chime_txs_&auto_create=1&lock_wait_timeout_s=2&clear=1"
              : "prefix=chime_txs_&auto_create=1&lock_wait_timeout_s=2"),
      0);
  chime_store_options o = {.scheduler_name = "txs",
                           .instance_id = node,
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 200,
                           .connections = 3};
  chime_store *store = NULL;
  char err[512] = "";
  int r = chime__store_open(url, &o, &store, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "open %s: %s: %s\n", node, chime_err_name(r), err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  return store;
}

static void test_mysql_tx_stopped_node_sessions_ended(void) {
  MYSQL *db = admin();
  chime_store *victim = open_node("victim", true);
  chime_store *survivor = open_node("survivor", false);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("txs", "j", "tx", &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_requests_recovery(job, true), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("txs", "t", 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "txs", "j"), 0);
  int64_t now = victim->ops->now(victim);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, now), 0);
  CU_ASSERT_EQUAL_FATAL(
      victim->ops->trigger_add(victim, job, t, false, NULL, err, sizeof err),
      0);
  chime_job_free(job);
  chime_trigger_free(t);
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(
      victim->ops->acquire_due(victim, now + 10, now + 10, 1, NULL, &fires, &n),
      0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  /* The victim's job: inside its transaction, a row written. */
  chime_store_tx *tx = NULL;
  CU_ASSERT_EQUAL_FATAL(
      victim->ops->fire_tx_begin(victim, fires[0], &tx, err, sizeof err), 0);
  char id[32];
  snprintf(id, sizeof id, "%" PRId64, fires[0]->fire_id);
  const char *p[] = {id, "stopped"};
  CU_ASSERT_EQUAL(victim->ops->fire_tx_execute(
                      tx, "INSERT INTO tx_effects (fire_id, how) VALUES (?, ?)",
                      p, 2, NULL, err, sizeof err),
                  0);
  /* Then it stops: no more check-ins.  The survivor outlives its lease and
   * recovers it, ending its sessions so as not to wait for its locks. */
  size_t recovered = 0;
  int r = -1;
  for (int i = 0; i < 100 && recovered == 0; i++) {
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
    int64_t at = survivor->ops->now(survivor);
    CU_ASSERT_EQUAL(survivor->ops->checkin(survivor, at, NULL), 0);
    r = survivor->ops->recover_dead_nodes(survivor, at, &recovered);
    if (r != 0)
      break;
  }
  CU_ASSERT_EQUAL(r, 0);
  CU_ASSERT_EQUAL(recovered, 1);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM chime_txs_history WHERE "
                            "fire_id = %" PRId64 " AND outcome = 'REQUEUED'",
                            fires[0]->fire_id),
                  1);
  /* The victim wakes up: its work is gone with its session, and its
   * commit is refused as a whole. */
  chime_run_result out = {.started_ms = now, .finished_ms = now};
  CU_ASSERT_EQUAL(victim->ops->fire_tx_commit(tx, &out, err, sizeof err),
                  CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, fires[0]->fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM chime_txs_history WHERE "
                            "fire_id = %" PRId64 " AND outcome = 'OK'",
                            fires[0]->fire_id),
                  0);
  chime__fire_free(fires[0]);
  free(fires);
  survivor->ops->free(survivor);
  victim->ops->free(victim);
  mysql_close(db);
}

/* Adds count one-shot triggers of job group/name for node, due now, and
 * fires them there (acquire_due): *ret_fires gets them. */
static void fire_on(chime_store *node, const char *name, size_t count,
                    chime_fire ***ret_fires) {
  chime_job *job = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("txs", name, "tx", &job, NULL, 0), 0);
  int64_t now = node->ops->now(node);
  for (size_t i = 0; i < count; i++) {
    char tname[64];
    snprintf(tname, sizeof tname, "%s-%zu", name, i);
    chime_trigger *t = NULL;
    CU_ASSERT_EQUAL_FATAL(
        chime_trigger_simple_new("txs", tname, 0, 0, &t, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "txs", name), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, now), 0);
    CU_ASSERT_EQUAL_FATAL(
        node->ops->trigger_add(node, job, t, i > 0, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
  }
  chime_job_free(job);
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(node->ops->acquire_due(node, now + 10, now + 10, count,
                                               NULL, ret_fires, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, count);
}

/* A live node's job holds its fired row in its open transaction while a
 * survivor recovers a dead node of many fires.  The recovery locks the dead
 * node's rows only: with enough rows in the table, "WHERE node = ? ORDER BY
 * fire_id FOR UPDATE" read them all through the primary key and waited for
 * the held one (here a 2 s lock wait, then the recovery failed; the
 * server's default is 50 s, and the job may run longer). */
#define DEAD_FIRES 80
static void test_mysql_tx_open_holds_no_recovery(void) {
  MYSQL *db = admin();
  chime_store *victim = open_node("victim", true);
  chime_store *live = open_node("live", false);
  chime_store *survivor = open_node("survivor", false);
  chime_fire **dead = NULL, **held = NULL;
  fire_on(victim, "dead", DEAD_FIRES, &dead);
  fire_on(live, "held", 1, &held);
  chime_store_tx *tx = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      live->ops->fire_tx_begin(live, held[0], &tx, err, sizeof err), 0);
  /* The victim checks in no more; the others go on. */
  size_t recovered = 0;
  int r = 0;
  int64_t longest = 0;
  for (int i = 0; i < 100 && r == 0 && recovered == 0; i++) {
    chime_test_sleep_ms(100);
    int64_t at = survivor->ops->now(survivor);
    CU_ASSERT_EQUAL(live->ops->checkin(live, at, NULL), 0);
    CU_ASSERT_EQUAL(survivor->ops->checkin(survivor, at, NULL), 0);
    int64_t t0 = chime_test_wall_ms();
    r = survivor->ops->recover_dead_nodes(survivor, at, &recovered);
    int64_t took = chime_test_wall_ms() - t0;
    longest = took > longest ? took : longest;
  }
  CU_ASSERT_EQUAL(r, 0);
  CU_ASSERT(recovered > 0);
  CU_ASSERT(longest < 1500);
  /* All its fires ended (requeued or failed), and the node with them. */
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_txs_fired "
                                  "WHERE node = 'victim'"),
                  0);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_txs_history "
                                  "WHERE node = 'victim'"),
                  DEAD_FIRES);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_txs_nodes "
                                  "WHERE instance_id = 'victim'"),
                  0);
  /* The live node's transaction was never in the way, and still commits. */
  chime_run_result out = {.started_ms = held[0]->scheduled_ms,
                          .finished_ms = held[0]->scheduled_ms};
  CU_ASSERT_EQUAL(live->ops->fire_tx_commit(tx, &out, err, sizeof err), 0);
  for (size_t i = 0; i < DEAD_FIRES; i++)
    chime__fire_free(dead[i]);
  free(dead);
  chime__fire_free(held[0]);
  free(held);
  survivor->ops->free(survivor);
  live->ops->free(live);
  victim->ops->free(victim);
  mysql_close(db);
}

/* Another session, in a transaction that stays open until it ends it
 * (autocommit off): a frozen node's, or another survivor's. */
static MYSQL *open_session(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, "SET autocommit = 0"), 0);
  return db;
}

/* A batch of one-shot fires completes while another session holds the
 * row of one other trigger of their group (a node claiming or completing
 * it, a job's transaction that enqueued it).  The completion removes the
 * finished triggers by their keys alone: "(group = ? AND name = ?) OR
 * ..." with a list about as long as the group read the whole group (the
 * locking read) and the whole table (the DELETE), waited for the held
 * row, and failed the batch with a lock wait timeout (2 s here, 50 s by
 * the server's default). */
#define DONE_FIRES 30
static void test_mysql_complete_removes_only_its_triggers(void) {
  MYSQL *db = admin();
  chime_store *node = open_node("remover", true);
  chime_store *other = open_node("other", false);
  chime_fire **done = NULL, **held = NULL;
  fire_on(other, "held", 1, &held);
  fire_on(node, "done", DONE_FIRES, &done);
  MYSQL *holder = open_session();
  CU_ASSERT_EQUAL_FATAL(
      mysql_query(holder, "SELECT trigger_name FROM chime_txs_triggers "
                          "WHERE sched_name = 'txs' AND trigger_group = 'txs' "
                          "AND trigger_name = 'held-0' FOR UPDATE"),
      0);
  MYSQL_RES *res = mysql_store_result(holder);
  CU_ASSERT_EQUAL(res ? mysql_num_rows(res) : 0, 1);
  mysql_free_result(res);
  chime_run_result out = {.started_ms = done[0]->scheduled_ms,
                          .finished_ms = done[0]->scheduled_ms};
  const chime_run_result *outs[DONE_FIRES];
  int results[DONE_FIRES];
  for (size_t i = 0; i < DONE_FIRES; i++)
    outs[i] = &out;
  int64_t t0 = chime_test_wall_ms();
  node->ops->complete_many(node, (const chime_fire *const *)done, outs,
                           DONE_FIRES, results);
  int64_t took = chime_test_wall_ms() - t0;
  for (size_t i = 0; i < DONE_FIRES; i++)
    CU_ASSERT_EQUAL(results[i], 0);
  CU_ASSERT(took < 1500);
  if (took >= 1500)
    fprintf(stderr, "the batch took %lld ms\n", (long long)took);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_txs_triggers "
                                  "WHERE trigger_name LIKE 'done-%'"),
                  0);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_txs_history "
                                  "WHERE node = 'remover' AND outcome = 'OK'"),
                  DONE_FIRES);
  CU_ASSERT_EQUAL(mysql_query(holder, "ROLLBACK"), 0);
  mysql_close(holder);
  for (size_t i = 0; i < DONE_FIRES; i++)
    chime__fire_free(done[i]);
  free(done);
  chime__fire_free(held[0]);
  free(held);
  other->ops->free(other);
  node->ops->free(node);
  mysql_close(db);
}

/* The survivor checks in and recovers dead nodes every 100 ms until the
 * node "victim" is recovered (its node row gone; 100 tries), each call
 * succeeding.  Returns the longest call's time, ms. */
static int64_t recover_victim(chime_store *survivor, MYSQL *db) {
  int r = -1;
  int64_t longest = 0;
  long long left = 1;
  for (int i = 0; i < 100 && left != 0; i++) {
    chime_test_sleep_ms(100);
    int64_t at = survivor->ops->now(survivor);
    CU_ASSERT_EQUAL(survivor->ops->checkin(survivor, at, NULL), 0);
    int64_t t0 = chime_test_wall_ms();
    size_t recovered = 0;
    r = survivor->ops->recover_dead_nodes(survivor, at, &recovered);
    int64_t took = chime_test_wall_ms() - t0;
    longest = took > longest ? took : longest;
    if (r != 0)
      break;
    left = query_plain(db, "SELECT COUNT(*) FROM chime_txs_nodes WHERE "
                           "sched_name = 'txs' AND instance_id = 'victim'");
  }
  CU_ASSERT_EQUAL(r, 0);
  CU_ASSERT_EQUAL(left, 0); /* recovered: its node row is gone */
  return longest;
}

/* A node stopped while it registers a new session (its row in
 * node_sessions written, not committed: a pool connection opens lazily, so
 * a job's first transaction may be the one that opens it) holds that row's
 * lock, and the row is invisible to the survivor.  Ending the node's
 * sessions must not wait for that lock: the survivor ends them on its loop
 * thread, and waiting out lock timeouts there kept it from checking in (it
 * fenced itself, and the stopped node was never recovered: cluster/stop).
 * The bound is one lock wait (2 s here) with room to spare; the wait it
 * replaces was 20 of them. */
static void test_mysql_tx_stopped_registration_does_not_block(void) {
  MYSQL *db = admin();
  chime_store *victim = open_node("victim", true);
  chime_store *survivor = open_node("survivor", false);
  MYSQL *frozen = open_session();
  if (mysql_query(frozen, "REPLACE INTO chime_txs_node_sessions (conn_id, "
                          "sched_name, node, opened_ms) VALUES "
                          "(CONNECTION_ID(), 'txs', 'victim', "
                          "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED))"))
    fprintf(stderr, "register: %s\n", mysql_error(frozen));
  /* The victim checks in no more; the survivor outlives its lease. */
  int64_t longest = recover_victim(survivor, db);
  if (longest >= 10000)
    fprintf(stderr, "a recovery waited %" PRId64 " ms\n", longest);
  CU_ASSERT(longest < 10000);
  mysql_close(frozen);
  survivor->ops->free(survivor);
  victim->ops->free(victim);
  mysql_close(db);
}

/* Another node stopped while registering a session holds its own
 * uncommitted row of node_sessions while a survivor recovers a dead node.
 * Forgetting the dead node's sessions deletes its rows by id alone:
 * "conn_id IN (...)" read the whole small table and waited for that row,
 * and the recovery failed with a lock wait timeout. */
static void test_mysql_tx_other_registration_does_not_block(void) {
  MYSQL *db = admin();
  chime_store *victim = open_node("victim", true);
  chime_store *survivor = open_node("survivor", false);
  /* A cluster's table: a few sessions of each node, the victim's a third
   * of them (sessions gone from the server are not: the earlier cases'), and
   * its statistics as the server keeps them (after a tenth of the rows
   * changed). */
  CU_ASSERT_EQUAL(
      mysql_query(db, "DELETE FROM chime_txs_node_sessions WHERE conn_id "
                      "NOT IN (SELECT ID FROM information_schema.PROCESSLIST)"),
      0);
  CU_ASSERT_EQUAL(
      mysql_query(db, "INSERT INTO chime_txs_node_sessions (conn_id, "
                      "sched_name, node, opened_ms) SELECT 4000000000 + seq, "
                      "'txs', IF(seq % 2, 'victim', 'elsewhere'), 0 "
                      "FROM seq_1_to_12"),
      0);
  CU_ASSERT_EQUAL(mysql_query(db, "ANALYZE TABLE chime_txs_node_sessions"), 0);
  mysql_free_result(mysql_store_result(db));
  /* The other node, stopped while it registers a session. */
  MYSQL *frozen = open_session();
  CU_ASSERT_EQUAL(mysql_query(frozen,
                              "REPLACE INTO chime_txs_node_sessions (conn_id, "
                              "sched_name, node, opened_ms) VALUES "
                              "(CONNECTION_ID(), 'txs', 'frozen', "
                              "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED))"),
                  0);
  CU_ASSERT(query_plain(db, "SELECT COUNT(*) FROM chime_txs_node_sessions "
                            "WHERE node = 'victim'") > 0);
  int64_t longest = recover_victim(survivor, db);
  CU_ASSERT(longest < 1500);
  if (longest >= 1500)
    fprintf(stderr, "a recovery took %" PRId64 " ms\n", longest);
  CU_ASSERT_EQUAL(query_plain(db,
                              "SELECT COUNT(*) FROM chime_txs_node_sessions "
                              "WHERE node = 'victim'"),
                  0);
  CU_ASSERT_EQUAL(mysql_query(frozen, "ROLLBACK"), 0);
  mysql_close(frozen);
  CU_ASSERT_EQUAL(mysql_query(db, "DELETE FROM chime_txs_node_sessions "
                                  "WHERE conn_id > 4000000000"),
                  0);
  survivor->ops->free(survivor);
  victim->ops->free(victim);
  mysql_close(db);
}

/* Two survivors find the same node dead at once: one locks its row and
 * recovers it; the other must leave it to that one rather than wait for
 * the lock (a recovery under load takes a while, and the waiting survivor,
 * its loop thread held, checked in too late and fenced itself:
 * cluster/stop).  Here the other survivor is a session holding the dead
 * node's row; once it lets go, the recovery is done. */
static void test_mysql_tx_dead_node_being_recovered_is_left(void) {
  MYSQL *db = admin();
  chime_store *victim = open_node("victim", true);
  chime_store *survivor = open_node("survivor", false);
  MYSQL *other = open_session();
  CU_ASSERT_EQUAL_FATAL(
      mysql_query(other, "SELECT instance_id FROM chime_txs_nodes WHERE "
                         "sched_name = 'txs' AND instance_id = 'victim' FOR "
                         "UPDATE"),
      0);
  mysql_free_result(mysql_store_result(other));
  /* Well past the victim's lease (4 check-in intervals of 200 ms). */
  int r = 0;
  for (int i = 0; i < 30 && r == 0; i++) {
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
    int64_t at = survivor->ops->now(survivor);
    CU_ASSERT_EQUAL(survivor->ops->checkin(survivor, at, NULL), 0);
    r = survivor->ops->recover_dead_nodes(survivor, at, NULL);
  }
  CU_ASSERT_EQUAL(r, 0);
  const char *left_q = "SELECT COUNT(*) FROM chime_txs_nodes WHERE sched_name "
                       "= 'txs' AND instance_id = 'victim' AND started_ms > "
                       "%" PRId64;
  CU_ASSERT_EQUAL(query_int(db, left_q, 0), 1); /* left to the other */
  /* The other survivor gave up (rolled back): this one recovers it. */
  CU_ASSERT_EQUAL(mysql_query(other, "ROLLBACK"), 0);
  long long left = 1;
  for (int i = 0; i < 50 && left != 0; i++) {
    int64_t at = survivor->ops->now(survivor);
    CU_ASSERT_EQUAL(survivor->ops->checkin(survivor, at, NULL), 0);
    CU_ASSERT_EQUAL(survivor->ops->recover_dead_nodes(survivor, at, NULL), 0);
    left = query_int(db, left_q, 0);
  }
  CU_ASSERT_EQUAL(left, 0);
  mysql_close(other);
  survivor->ops->free(survivor);
  victim->ops->free(victim);
  mysql_close(db);
}

/* Waits until query_int(db, q, arg) is want, at most WAIT_MS. */
static long long wait_count(MYSQL *db, const char *q, int64_t arg,
                            long long want) {
  long long v = -1;
  for (int i = 0; i < WAIT_MS / 50; i++) {
    if ((v = query_int(db, q, arg)) == want)
      break;
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  return v;
}

/* The completion writes the statements given to it, in order, with the
 * fire's completion. */
static void test_mysql_complete_with_writes_in_order(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("with", &s);
  CU_ASSERT_EQUAL(st.exec_r, 0);
  CU_ASSERT_EQUAL(wait_count(db, HISTORY_OK, st.fire_id, 1), 1);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 2);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS " AND how = 'with'", st.fire_id), 1);
  /* The NULL parameter was SQL NULL: the second row's how is its own. */
  CU_ASSERT_EQUAL(query_int(db, EFFECTS " AND how = 'second'", st.fire_id), 1);
  CU_ASSERT_EQUAL(query_int(db, FIRED, st.fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, HISTORY, st.fire_id), 1);
  mysql_close(db);
}

/* A refused statement writes none of the run's statements; the fire is
 * completed, its run FAILED with the server's message. */
static void test_mysql_complete_with_refused_fails_run(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("with-bad", &s);
  CU_ASSERT_EQUAL(st.exec_r, 0); /* given; run at the completion */
  CU_ASSERT_EQUAL(wait_count(db, HISTORY, st.fire_id, 1), 1);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db, FIRED, st.fire_id), 0);
  CU_ASSERT_EQUAL(query_int(db,
                            HISTORY
                            " AND outcome = 'FAILED' AND error_text LIKE "
                            "'%%statement given to the completion was refused%%"
                            "tx_no_such_table%%'",
                            st.fire_id),
                  1);
  mysql_close(db);
}

/* Many fires complete in one batch: the one refused statement fails its
 * own run only; every other fire's statements are written. */
static void test_mysql_complete_with_batch_isolates_refused(void) {
  MYSQL *db = admin();
  reset();
  chime_scheduler *s = start(NULL);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_standby(s), 0);
  char name[32];
  for (int i = 0; i < 20; i++) {
    snprintf(name, sizeof name, "with-%02d", i);
    fire_once(s, name);
  }
  fire_once(s, "with-bad");
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  const char *all = "SELECT COUNT(*) FROM chime_tx_history WHERE fire_id > "
                    "%" PRId64 " AND job_name LIKE 'with%%'";
  CU_ASSERT_EQUAL(wait_count(db, all, 0, 21), 21);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_tx_history "
                                  "WHERE job_name LIKE 'with-%' AND outcome "
                                  "= 'OK' AND job_name <> 'with-bad'"),
                  20);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM chime_tx_history "
                                  "WHERE job_name = 'with-bad' AND outcome "
                                  "= 'FAILED'"),
                  1);
  /* Each good run's two rows; none of the refused run's. */
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM tx_effects WHERE how "
                                  "LIKE 'with-%' AND how <> 'with-bad'"),
                  20);
  CU_ASSERT_EQUAL(
      query_plain(db, "SELECT COUNT(*) FROM tx_effects WHERE how = 'second'"),
      20);
  CU_ASSERT_EQUAL(query_plain(db, "SELECT COUNT(*) FROM tx_effects WHERE how "
                                  "= 'with-bad'"),
                  0);
  mysql_close(db);
}

/* A fire taken over before its completion writes none of its statements
 * (the other node's run writes its own). */
static void test_mysql_complete_with_fenced_writes_none(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("with-stolen", &s);
  CU_ASSERT_EQUAL(st.exec_r, 0);
  chime_scheduler_free(s); /* waits for the completion's answer */
  assert_nothing_written(db, st.fire_id);
  mysql_close(db);
}

/* With a transaction of the job's own, the statements given to the
 * completion commit in it; after that commit no more can be given. */
static void test_mysql_complete_with_in_own_transaction(void) {
  chime_scheduler *s = NULL;
  MYSQL *db = fire_and_wait("with-tx", &s);
  CU_ASSERT_EQUAL(st.exec_r, 0);
  CU_ASSERT_EQUAL(st.end_r, 0);
  CU_ASSERT_EQUAL(st.again_r, CHIME_ESTATE);
  /* Written by the job's commit, before it returned. */
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 3);
  CU_ASSERT_EQUAL(query_int(db, HISTORY_OK, st.fire_id), 1);
  chime_scheduler_free(s);
  CU_ASSERT_EQUAL(query_int(db, EFFECTS, st.fire_id), 3);
  CU_ASSERT_EQUAL(query_int(db, HISTORY, st.fire_id), 1);
  mysql_close(db);
}

static void test_mysql_complete_with_memory_store_unsupported(void) {
  reset();
  chime_scheduler *s = start("memory:");
  fire_once(s, "with");
  CU_ASSERT_TRUE_FATAL(wait_flag(&st.done));
  CU_ASSERT_EQUAL(st.exec_r, CHIME_EUNSUPPORTED);
  chime_scheduler_free(s);
}

static CU_TestInfo tests[] = {
    {"commit writes the job's rows and the completion",
     test_mysql_tx_commit_writes_both},
    {"rollback writes neither", test_mysql_tx_rollback_writes_neither},
    {"a transaction left open is rolled back",
     test_mysql_tx_left_open_is_rolled_back},
    {"a fenced fire's commit fails as a whole",
     test_mysql_tx_fenced_commit_fails_whole},
    {"a job's open transaction holds up no other fire's completion",
     test_mysql_tx_open_holds_no_other_completion},
    {"begin is refused on a fire not owned",
     test_mysql_tx_begin_refused_when_not_owned},
    {"the last shard's commit tells SHARDED_FIRE_DONE",
     test_mysql_tx_last_shard_tells_done},
    {"the memory store says unsupported",
     test_mysql_tx_memory_store_unsupported},
    {"bad arguments", test_mysql_tx_bad_arguments},
    {"complete_with writes its statements in order with the completion",
     test_mysql_complete_with_writes_in_order},
    {"complete_with: a refused statement fails the run, writes none",
     test_mysql_complete_with_refused_fails_run},
    {"complete_with: a batch isolates the refused statement",
     test_mysql_complete_with_batch_isolates_refused},
    {"complete_with: a fenced fire writes none",
     test_mysql_complete_with_fenced_writes_none},
    {"complete_with inside the job's own transaction",
     test_mysql_complete_with_in_own_transaction},
    {"complete_with: the memory store says unsupported",
     test_mysql_complete_with_memory_store_unsupported},
    {"a node stopped inside its transaction has its sessions ended",
     test_mysql_tx_stopped_node_sessions_ended},
    {"a node stopped while registering a session does not block recovery",
     test_mysql_tx_stopped_registration_does_not_block},
    {"another node registering a session does not hold up a recovery",
     test_mysql_tx_other_registration_does_not_block},
    {"a live node's open transaction holds up no recovery",
     test_mysql_tx_open_holds_no_recovery},
    {"a dead node another survivor is recovering is left to it",
     test_mysql_tx_dead_node_being_recovered_is_left},
    {"a completion removes its finished triggers, waiting for no other",
     test_mysql_complete_removes_only_its_triggers},
    CU_TEST_INFO_NULL,
};

int main(void) {
  pthread_mutex_init(&st.mu, NULL);
  pthread_cond_init(&st.cond, NULL);
  CU_SuiteInfo suites[] = {
      {.pName = "engine/mysql-tx", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end();
  return r;
}
