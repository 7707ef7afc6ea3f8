/*
 * test-mysql-upgrade.c: schema upgrades on the throwaway MariaDB server
 * (issue 34), over every migration the library embeds (none is named, so
 * a migration added later is covered as it comes):
 *   - a migration cut short after any of its statements completes when
 *     the store opens with migrate=1, to exactly the schema a fresh
 *     creation writes (SHOW CREATE TABLE of every table);
 *   - a migration waiting for a table another session holds does not stop
 *     the cluster firing: a node firing every 200 ms stays on time while a
 *     long transaction blocks the migration, which completes after it;
 *   - a schema at each earlier version, holding every kind of row that
 *     version has (jobs; WAITING, BLOCKED, PAUSED and ACQUIRED triggers; a
 *     dead node with EXECUTING fires, sessions, a lease, a checkpoint, a
 *     sharded fire with one shard done and one running; history; paused
 *     groups), written with that version's columns, is migrated by a node
 *     of this library, which fires every trigger on, recovers the dead
 *     node's fires (the shard, the checkpoint), and neither doubles nor
 *     loses a fire; its old history rows read with no data of their own
 *     (migration 015), its old triggers hold no unique key after their
 *     run (migration 016), and a limit set before migration 017 keeps its
 *     figures with no per-partition half;
 *   - a node serves a newer schema that says it is compatible with its
 *     version, and refuses one that does not.
 * Tables: prefixes mup_*_ in the test database.
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/schema.h"
#include "jobstore/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Runs a statement (printf-style); fatal on failure. */
static void sqlf(MYSQL *db, const char *fmt, ...) {
  char q[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(q, sizeof q, fmt, ap);
  va_end(ap);
  if (mysql_query(db, q) != 0)
    fprintf(stderr, "%s: %s\n", q, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
}

/* One integer from a query (-1 for no row or NULL). */
static long long query_int(MYSQL *db, const char *fmt, ...) {
  char q[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(q, sizeof q, fmt, ap);
  va_end(ap);
  if (mysql_query(db, q) != 0)
    fprintf(stderr, "%s: %s\n", q, mysql_error(db));
  CU_ASSERT_EQUAL_FATAL(mysql_errno(db), 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  MYSQL_ROW row = mysql_fetch_row(res);
  long long v = row && row[0] ? strtoll(row[0], NULL, 10) : -1;
  mysql_free_result(res);
  return v;
}

static MYSQL *admin(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  sqlf(db, "SET autocommit = 1");
  return db;
}

/* The tables whose names start with prefix, sorted; returns their number
 * (names written into names[], at most 32). */
static size_t tables_of(MYSQL *db, const char *prefix, char names[][96]) {
  char q[512];
  snprintf(q, sizeof q,
           "SELECT table_name FROM information_schema.tables WHERE "
           "table_schema = DATABASE() AND LEFT(table_name, %zu) = '%s' "
           "ORDER BY table_name",
           strlen(prefix), prefix);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, q), 0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  size_t n = 0;
  MYSQL_ROW row;
  while ((row = mysql_fetch_row(res)) && n < 32)
    snprintf(names[n++], 96, "%s", row[0]);
  mysql_free_result(res);
  return n;
}

static void drop_all(MYSQL *db, const char *prefix) {
  char names[32][96];
  size_t n = tables_of(db, prefix, names);
  for (size_t i = 0; i < n; i++)
    sqlf(db, "DROP TABLE IF EXISTS %s", names[i]);
}

/* Every table's SHOW CREATE TABLE, the prefix written as P_ and the
 * AUTO_INCREMENT counter left out.  Returns a malloc'd text. */
static char *dump(MYSQL *db, const char *prefix) {
  char names[32][96];
  size_t n = tables_of(db, prefix, names);
  size_t cap = 65536, len = 0;
  char *out = calloc(1, cap);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  for (size_t i = 0; i < n; i++) {
    char q[160];
    snprintf(q, sizeof q, "SHOW CREATE TABLE %.95s", names[i]);
    CU_ASSERT_EQUAL_FATAL(mysql_query(db, q), 0);
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = mysql_fetch_row(res);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    for (const char *p = row[1]; *p && len + 2 < cap;) {
      if (strncmp(p, prefix, strlen(prefix)) == 0) {
        out[len++] = 'P';
        out[len++] = '_';
        p += strlen(prefix);
      } else if (strncmp(p, " AUTO_INCREMENT=", 16) == 0) {
        p += 16;
        while (*p >= '0' && *p <= '9')
          p++;
      } else {
        out[len++] = *p++;
      }
    }
    if (len + 1 < cap)
      out[len++] = '\n';
    mysql_free_result(res);
  }
  CU_ASSERT_FATAL(len + 2 < cap);
  return out;
}

/* Applies the first count statements of migration n to prefix. */
static void apply_part(MYSQL *db, const char *prefix, size_t n, size_t count) {
  char **stmts;
  size_t total;
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_migration_statements(prefix, n, &stmts, &total), 0);
  CU_ASSERT_FATAL(count <= total);
  for (size_t i = 0; i < count; i++)
    sqlf(db, "%s", stmts[i]);
  chime__mysql_migration_statements_free(stmts, total);
}

static size_t statement_count(size_t n) {
  char **stmts;
  size_t total;
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_migration_statements("x_", n, &stmts, &total), 0);
  chime__mysql_migration_statements_free(stmts, total);
  return total;
}

/* The schema at version k (migrations 1..k, each with its row), as a
 * library of version k left it. */
static void build_at(MYSQL *db, const char *prefix, size_t k) {
  for (size_t n = 1; n <= k; n++) {
    apply_part(db, prefix, n, statement_count(n));
    sqlf(db,
         "INSERT INTO %sschema_version (version, applied_ms) VALUES (%zu, "
         "0)",
         prefix, n);
  }
}

/* Opens and frees a store on params; returns the open's result. */
static int open_store(const char *params, char *err, size_t err_len) {
  char url[1024];
  CU_ASSERT_EQUAL_FATAL(chime_test_mysql_url_with(url, sizeof url, params), 0);
  chime_store_options o = {.scheduler_name = "mup",
                           .instance_id = "mup-open",
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 1};
  chime_store *st = NULL;
  err[0] = '\0';
  int r = chime__store_open(url, &o, &st, err, err_len);
  if (r != 0)
    fprintf(stderr, "open %s: %s: %s\n", params, chime_err_name(r), err);
  if (st)
    st->ops->free(st);
  return r;
}

/* ------------------------------------------------------------ interrupted */

/* The cases run in a few threads (each on its own connection and prefix):
 * DDL waits mostly for the server's log flushes, which threads share.  A
 * worker touches no CUnit state: it writes what went wrong into its
 * report, which the test's thread asserts on. */
#define WORKERS 3

typedef struct icase {
  size_t n, i, total; /* migration n stopped after statement i of total */
} icase;

typedef struct iworker {
  pthread_t th;
  char prefix[16];
  char url[1024];
  MYSQL *conn;
  const char *want;
  struct ishared *shared;
  int failures;
  int cases;
  char report[2048];
} iworker;

typedef struct ishared {
  pthread_mutex_t mu;
  icase *cases;
  size_t ncases, next;
} ishared;

/* Runs a statement on a worker's connection.  Returns: 0, -1 (reported). */
static int wsql(iworker *w, MYSQL *db, const char *fmt, ...) {
  char q[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(q, sizeof q, fmt, ap);
  va_end(ap);
  if (mysql_query(db, q) != 0) {
    snprintf(w->report, sizeof w->report, "%.1000s: %s", q, mysql_error(db));
    return -1;
  }
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
  return 0;
}

/* The worker's tables dropped, then the schema at version n - 1 and the
 * first i statements of migration n.  Returns: 0, -1 (reported). */
static int wprepare(iworker *w, MYSQL *db, const icase *c) {
  char q[512], drop[4096] = "";
  snprintf(q, sizeof q,
           "SELECT table_name FROM information_schema.tables WHERE "
           "table_schema = DATABASE() AND LEFT(table_name, %zu) = '%s'",
           strlen(w->prefix), w->prefix);
  if (mysql_query(db, q) != 0)
    return wsql(w, db, "%s", q);
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row;
  while (res && (row = mysql_fetch_row(res))) {
    size_t l = strlen(drop);
    snprintf(drop + l, sizeof drop - l, "%s%s", l ? ", " : "", row[0]);
  }
  if (res)
    mysql_free_result(res);
  if (drop[0] && wsql(w, db, "DROP TABLE %s", drop) < 0)
    return -1;
  for (size_t n = 1; n <= c->n; n++) {
    char **stmts;
    size_t total;
    if (chime__mysql_migration_statements(w->prefix, n, &stmts, &total) < 0) {
      snprintf(w->report, sizeof w->report, "out of memory");
      return -1;
    }
    size_t upto = n < c->n ? total : c->i;
    int r = 0;
    for (size_t i = 0; r == 0 && i < upto; i++)
      r = wsql(w, db, "%s", stmts[i]);
    chime__mysql_migration_statements_free(stmts, total);
    if (r < 0)
      return r;
    if (n < c->n && wsql(w, db,
                         "INSERT INTO %sschema_version (version, "
                         "applied_ms) VALUES (%zu, 0)",
                         w->prefix, n) < 0)
      return -1;
  }
  return 0;
}

/* The schema of prefix as dump() writes it, without CUnit.  Returns: a
 * malloc'd text, NULL (reported). */
static char *wdump(iworker *w, MYSQL *db) {
  char q[512];
  snprintf(q, sizeof q,
           "SELECT table_name FROM information_schema.tables WHERE "
           "table_schema = DATABASE() AND LEFT(table_name, %zu) = '%s' ORDER "
           "BY table_name",
           strlen(w->prefix), w->prefix);
  char names[32][96];
  size_t n = 0;
  if (mysql_query(db, q) != 0) {
    wsql(w, db, "%s", q);
    return NULL;
  }
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row;
  while (res && (row = mysql_fetch_row(res)) && n < 32)
    snprintf(names[n++], 96, "%s", row[0]);
  if (res)
    mysql_free_result(res);
  size_t cap = 65536, len = 0, plen = strlen(w->prefix);
  char *out = calloc(1, cap);
  for (size_t k = 0; out && k < n; k++) {
    snprintf(q, sizeof q, "SHOW CREATE TABLE %.95s", names[k]);
    if (mysql_query(db, q) != 0 || !(res = mysql_store_result(db))) {
      wsql(w, db, "%s", q);
      free(out);
      return NULL;
    }
    row = mysql_fetch_row(res);
    for (const char *p = row ? row[1] : ""; *p && len + 2 < cap;) {
      if (strncmp(p, w->prefix, plen) == 0) {
        out[len++] = 'P';
        out[len++] = '_';
        p += plen;
      } else if (strncmp(p, " AUTO_INCREMENT=", 16) == 0) {
        p += 16;
        while (*p >= '0' && *p <= '9')
          p++;
      } else {
        out[len++] = *p++;
      }
    }
    if (len + 1 < cap)
      out[len++] = '\n';
    mysql_free_result(res);
  }
  return out;
}

static void *interrupted_worker(void *arg) {
  iworker *w = arg;
  chime_store_options o = {.scheduler_name = "mup",
                           .instance_id = w->prefix,
                           .misfire_threshold_ms = 60000,
                           .checkin_interval_ms = 1000,
                           .connections = 1};
  for (;;) {
    pthread_mutex_lock(&w->shared->mu);
    icase c = {0};
    bool more = w->shared->next < w->shared->ncases;
    if (more)
      c = w->shared->cases[w->shared->next++];
    pthread_mutex_unlock(&w->shared->mu);
    if (!more)
      break;
    w->cases++;
    if (wprepare(w, w->conn, &c) < 0) {
      w->failures++;
      break;
    }
    chime_store *st = NULL;
    char err[512] = "";
    int r = chime__store_open(w->url, &o, &st, err, sizeof err);
    if (st)
      st->ops->free(st);
    char *got = r == 0 ? wdump(w, w->conn) : NULL;
    if (r != 0)
      snprintf(w->report, sizeof w->report,
               "migration %zu stopped after statement %zu of %zu: migrate=1 "
               "failed: %s: %s",
               c.n, c.i, c.total, chime_err_name(r), err);
    else if (got && strcmp(got, w->want) != 0)
      snprintf(w->report, sizeof w->report,
               "migration %zu stopped after statement %zu of %zu: the schema "
               "differs from a fresh one:\n%.1800s",
               c.n, c.i, c.total, got);
    bool bad = r != 0 || !got || strcmp(got, w->want) != 0;
    free(got);
    if (bad) {
      w->failures++;
      break;
    }
  }
  return NULL;
}

/* Issue 34: MySQL DDL is not transactional, so a migration cut short
 * leaves its first statements applied.  Before, running it again failed
 * for ever (MySQL error 1060: Duplicate column name 'cancel_requested');
 * now, stopped after any statement of any migration, the next migrate=1
 * completes it to the schema a fresh creation writes. */
static void test_upgrade_interrupted_migration_completes(void) {
  MYSQL *db = admin();
  char err[512];
  drop_all(db, "mup_r_");
  CU_ASSERT_EQUAL_FATAL(
      open_store("prefix=mup_r_&auto_create=1", err, sizeof err), 0);
  char *want = dump(db, "mup_r_");
  size_t latest = chime__mysql_migration_count, ncases = 0;
  for (size_t n = 1; n <= latest; n++)
    ncases += statement_count(n);
  ishared shared = {.mu = PTHREAD_MUTEX_INITIALIZER,
                    .cases = calloc(ncases, sizeof(icase)),
                    .ncases = ncases};
  CU_ASSERT_PTR_NOT_NULL_FATAL(shared.cases);
  size_t k = 0;
  for (size_t n = 1; n <= latest; n++) {
    size_t total = statement_count(n);
    for (size_t i = 1; i <= total; i++)
      shared.cases[k++] = (icase){n, i, total};
  }
  iworker w[WORKERS];
  memset(w, 0, sizeof w);
  for (int j = 0; j < WORKERS; j++) {
    snprintf(w[j].prefix, sizeof w[j].prefix, "mup_i%d_", j);
    /* auto_create for a first migration cut short (no version yet). */
    char params[128];
    snprintf(params, sizeof params, "prefix=%s&migrate=1&auto_create=1",
             w[j].prefix);
    CU_ASSERT_EQUAL_FATAL(
        chime_test_mysql_url_with(w[j].url, sizeof w[j].url, params), 0);
    w[j].conn = admin();
    w[j].want = want;
    w[j].shared = &shared;
    CU_ASSERT_EQUAL_FATAL(
        pthread_create(&w[j].th, NULL, interrupted_worker, &w[j]), 0);
  }
  int cases = 0;
  for (int j = 0; j < WORKERS; j++) {
    pthread_join(w[j].th, NULL);
    if (w[j].failures)
      fprintf(stderr, "%s\nwanted:\n%.1800s\n", w[j].report, want);
    CU_ASSERT_EQUAL(w[j].failures, 0);
    cases += w[j].cases;
  }
  fprintf(stderr, "%d cases of %zu migrations\n", cases, latest);
  CU_ASSERT_EQUAL(cases, (int)ncases);
  free(shared.cases);
  free(want);
  for (int j = 0; j < WORKERS; j++) {
    drop_all(db, w[j].prefix);
    mysql_close(w[j].conn);
  }
  drop_all(db, "mup_r_");
  mysql_close(db);
}

/* -------------------------------------------------------------- lock wait */

typedef struct lateness {
  pthread_mutex_t mu;
  bool on;
  int runs;
  int64_t max_late_ms;
} lateness;

static lateness late = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void measure(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  int64_t l = chime_test_wall_ms() - chime_ctx_get_scheduled_ms(ctx);
  pthread_mutex_lock(&late.mu);
  if (late.on) {
    late.runs++;
    if (l > late.max_late_ms)
      late.max_late_ms = l;
  }
  pthread_mutex_unlock(&late.mu);
}

typedef struct migrator {
  int r;
  bool done;
  pthread_mutex_t mu;
} migrator;

static void *migrate_thread(void *arg) {
  migrator *m = arg;
  char err[512];
  int r = open_store("prefix=mup_l_&migrate=1", err, sizeof err);
  pthread_mutex_lock(&m->mu);
  m->r = r;
  m->done = true;
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

#define BULK_TRIGGERS 100000

/* The latest migration that adds an index to the triggers table (the table
 * every fire writes): its number, the index's name in *ret_index. */
static size_t triggers_index_migration(char *ret_index, size_t len) {
  for (size_t n = chime__mysql_migration_count; n >= 1; n--) {
    char **stmts;
    size_t total;
    CU_ASSERT_EQUAL_FATAL(
        chime__mysql_migration_statements("mup_l_", n, &stmts, &total), 0);
    size_t found = 0;
    for (size_t i = 0; i < total && !found; i++) {
      char name[96];
      if (sscanf(stmts[i], "CREATE INDEX IF NOT EXISTS %95s ON mup_l_triggers ",
                 name) == 1 &&
          strstr(stmts[i], " ON mup_l_triggers ")) {
        snprintf(ret_index, len, "%s", name);
        found = n;
      }
    }
    chime__mysql_migration_statements_free(stmts, total);
    if (found)
      return found;
  }
  return 0;
}

/* Issue 34: while migrate=1 waited for a table's metadata lock (another
 * session in a long transaction on it), every node's statements on that
 * table queued behind it and the cluster stopped firing (0 of 178 fires
 * due in 28 s started on time).  Now a node firing every 200 ms stays on
 * time (under 1 s late) while the migration waits, and while it builds
 * its index over a table of 100,000 triggers once the blocker ended; the
 * migration completes.  The migration re-run here is the
 * latest one that indexes the triggers table, its index dropped and its
 * version rows deleted (every statement is repeatable). */
static void test_upgrade_lock_wait_keeps_firing(void) {
  MYSQL *db = admin();
  char index[96];
  size_t m = triggers_index_migration(index, sizeof index);
  CU_ASSERT_FATAL(m > 0);
  drop_all(db, "mup_l_");
  chime_config *cfg =
      chime_test_mysql_config("prefix=mup_l_&auto_create=1", "lw-node");
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "mup-lw"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "measure", measure, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("g", "tick", "measure", &job, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new("g", "tick", 200,
                                                 CHIME_REPEAT_INDEFINITELY, &t,
                                                 err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "tick"), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_set_start_ms(t, chime_test_wall_ms() + 300), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  /* A table of 100,000 triggers (of another cluster: this node's
   * statements pass them over by their index), which the migration's index
   * is built over, online. */
  int64_t t_fill = chime_test_wall_ms();
  sqlf(db,
       "INSERT INTO mup_l_triggers (sched_name, trigger_group, trigger_name, "
       "job_group, job_name, job_type, kind, start_set, start_ms, end_ms, "
       "misfire, priority, interval_ms, repeat_count, next_fire_ms, "
       "prev_fire_ms, times_triggered, state_start_ms, state_repeat_count, "
       "state) SELECT 'mup-bulk', 'bulk', CONCAT('b', seq), 'bulk', 'j', "
       "'measure', 1, 1, 0, 9223372036854775807, 0, 5, 60000, -1, "
       "4102444800000 + seq, -9223372036854775808, 0, 0, -1, 'WAITING' FROM "
       "seq_1_to_%d",
       BULK_TRIGGERS);
  fprintf(stderr, "lock wait: %d triggers written in %lld ms\n", BULK_TRIGGERS,
          (long long)(chime_test_wall_ms() - t_fill));
  chime_test_sleep_ms(500);
  /* The schema as before migration m. */
  sqlf(db, "DROP INDEX %s ON mup_l_triggers", index);
  sqlf(db, "DELETE FROM mup_l_schema_version WHERE version >= %zu", m);
  pthread_mutex_lock(&late.mu);
  late.on = true;
  late.runs = 0;
  late.max_late_ms = 0;
  pthread_mutex_unlock(&late.mu);
  /* The blocker: a transaction that has read the triggers table holds its
   * metadata lock until it ends. */
  MYSQL *blocker = admin();
  sqlf(blocker, "START TRANSACTION");
  CU_ASSERT(query_int(blocker, "SELECT COUNT(*) FROM mup_l_triggers") >= 1);
  migrator mg = {.mu = PTHREAD_MUTEX_INITIALIZER};
  pthread_t th;
  CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, migrate_thread, &mg), 0);
  chime_test_sleep_ms(3000);
  pthread_mutex_lock(&mg.mu);
  CU_ASSERT_FALSE(mg.done); /* it waits for the blocker */
  pthread_mutex_unlock(&mg.mu);
  sqlf(blocker, "COMMIT");
  int64_t t_free = chime_test_wall_ms();
  bool done = false;
  for (int64_t end = chime_test_wall_ms() + 20000;
       !done && chime_test_wall_ms() < end;) {
    chime_test_sleep_ms(50);
    pthread_mutex_lock(&mg.mu);
    done = mg.done;
    pthread_mutex_unlock(&mg.mu);
  }
  CU_ASSERT_TRUE_FATAL(done);
  fprintf(stderr, "lock wait: the migration ended %lld ms after the blocker\n",
          (long long)(chime_test_wall_ms() - t_free));
  pthread_join(th, NULL);
  CU_ASSERT_EQUAL(mg.r, 0);
  chime_test_sleep_ms(600);
  pthread_mutex_lock(&late.mu);
  late.on = false;
  int runs = late.runs;
  int64_t worst = late.max_late_ms;
  pthread_mutex_unlock(&late.mu);
  chime_scheduler_free(s);
  fprintf(stderr, "lock wait: %d runs, the latest %lld ms late\n", runs,
          (long long)worst);
  /* 3.6 s or more at one fire per 200 ms. */
  CU_ASSERT(runs >= 15);
  CU_ASSERT(worst < 1000);
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT MAX(version) FROM mup_l_schema_version"),
      (long long)chime__mysql_migration_count);
  CU_ASSERT_EQUAL(query_int(db,
                            "SELECT COUNT(*) FROM information_schema."
                            "statistics WHERE table_schema = DATABASE() AND "
                            "table_name = 'mup_l_triggers' AND index_name = "
                            "'%s'",
                            index),
                  (long long)2);
  mysql_close(blocker);
  drop_all(db, "mup_l_");
  mysql_close(db);
}

/* ------------------------------------------------------------- with data */

#define MAX_RUNS 512

typedef struct run {
  char trigger[64];
  char job[64];
  int64_t sched;
  int64_t fire_id;
  bool recovering;
  bool checkpoint_seen;
  int shard; /* the shard's index, -1 for a run that is none */
} run;

static struct {
  pthread_mutex_t mu;
  int n;
  run r[MAX_RUNS];
} seen = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void record(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  run one = {0};
  snprintf(one.trigger, sizeof one.trigger, "%s",
           chime_ctx_get_trigger_name(ctx));
  snprintf(one.job, sizeof one.job, "%s", chime_ctx_get_job_name(ctx));
  one.sched = chime_ctx_get_scheduled_ms(ctx);
  one.fire_id = chime_ctx_get_fire_id(ctx);
  one.recovering = chime_ctx_is_recovering(ctx);
  int index = 0, total = 0;
  one.shard =
      chime_ctx_get_shard(ctx, &index, &total) == 1 && total == 2 ? index : -1;
  const void *data = NULL;
  size_t len = 0;
  if (one.recovering && chime_ctx_checkpoint_get(ctx, &data, &len) == 1 &&
      data && len == 2 && memcmp(data, "cp", 2) == 0)
    one.checkpoint_seen = true;
  pthread_mutex_lock(&seen.mu);
  if (seen.n < MAX_RUNS)
    seen.r[seen.n++] = one;
  pthread_mutex_unlock(&seen.mu);
}

#define INTERVAL 300
#define DEAD "dead-node"

/* A job row with the columns of migration 001 (every later column has a
 * default). */
static void insert_job(MYSQL *db, const char *name, int recovery,
                       int concurrency) {
  sqlf(db,
       "INSERT INTO mup_d_jobs (sched_name, job_group, job_name, job_type, "
       "description, data, durable, requests_recovery, concurrency, "
       "persist_data, paused) VALUES ('up', 'g', '%s', 'record', 'old', "
       "'data', 0, %d, %d, 0, 0)",
       name, recovery, concurrency);
}

/* A simple trigger every INTERVAL ms from next (misfire IGNORE: every fire
 * time is run, however late), in state, claimed by owner/claim. */
static void insert_trigger(MYSQL *db, const char *name, const char *job,
                           int64_t next, const char *state, const char *owner,
                           int64_t claim) {
  char own[128] = "NULL", cl[32] = "NULL";
  if (owner) {
    snprintf(own, sizeof own, "'%s'", owner);
    snprintf(cl, sizeof cl, "%lld", (long long)claim);
  }
  sqlf(db,
       "INSERT INTO mup_d_triggers (sched_name, trigger_group, trigger_name, "
       "job_group, job_name, job_type, kind, description, calendar_name, "
       "data, zone_name, cron_text, start_set, start_ms, end_ms, misfire, "
       "priority, interval_ms, repeat_count, next_fire_ms, prev_fire_ms, "
       "times_triggered, state_start_ms, state_repeat_count, state, owner, "
       "claim_fire_id) VALUES ('up', 'g', '%s', 'g', '%s', 'record', 1, NULL, "
       "NULL, NULL, NULL, NULL, 1, %lld, 9223372036854775807, 1, 5, %d, -1, "
       "%lld, -9223372036854775808, 0, %lld, -1, '%s', %s, %s)",
       name, job, (long long)next, INTERVAL, (long long)next, (long long)next,
       state, own, cl);
}

static void insert_fired(MYSQL *db, int64_t id, const char *trigger,
                         const char *job, int64_t sched, const char *state,
                         int forbid, int recovery) {
  sqlf(db,
       "INSERT INTO mup_d_fired (fire_id, sched_name, trigger_group, "
       "trigger_name, job_group, job_name, scheduled_ms, acquired_ms, node, "
       "state, forbid, requests_recovery, recovering, priority) VALUES "
       "(%lld, 'up', 'g', '%s', 'g', '%s', %lld, %lld, '" DEAD "', '%s', %d, "
       "%d, 0, 5)",
       (long long)id, trigger, job, (long long)sched, (long long)sched, state,
       forbid, recovery);
}

/* Every kind of row a schema at version k holds, as a cluster of that
 * version left them when one of its nodes died: the columns are those of
 * migration 001, plus the tables of the later migrations up to k. */
static void fill(MYSQL *db, size_t k, int64_t t0) {
  insert_job(db, "j_plain", 0, 0);
  insert_job(db, "j_recover", 1, 0);
  insert_job(db, "j_forbid", 0, 1);
  insert_job(db, "j_paused", 0, 0);
  insert_trigger(db, "t_wait", "j_plain", t0, "WAITING", NULL, 0);
  insert_trigger(db, "t_rec", "j_recover", t0, "WAITING", NULL, 0);
  /* Blocked by the dead node's running fire of its FORBID job. */
  insert_trigger(db, "t_blocked", "j_forbid", t0, "BLOCKED", NULL, 0);
  insert_trigger(db, "t_paused", "j_paused", t0, "PAUSED", NULL, 0);
  /* Data of its own: the dead node's run of it (fire 102) records it when
   * the survivor ends it (migration 015). */
  sqlf(db, "UPDATE mup_d_triggers SET data = 'blk' WHERE trigger_name = "
           "'t_blocked'");
  /* Claimed by the dead node, not yet fired. */
  insert_trigger(db, "t_acq", "j_plain", t0, "ACQUIRED", DEAD, 103);
  insert_fired(db, 101, "t_rec", "j_recover", t0 - 1000, "EXECUTING", 0, 1);
  insert_fired(db, 102, "t_blocked", "j_forbid", t0 - 1000, "EXECUTING", 1, 0);
  insert_fired(db, 103, "t_acq", "j_plain", t0, "ACQUIRED", 0, 0);
  sqlf(db, "INSERT INTO mup_d_nodes (sched_name, instance_id, host, pid, "
           "started_ms, last_checkin_ms, checkin_interval_ms, version) "
           "VALUES ('up', '" DEAD "', 'old-host', 1, 0, 0, 1000, '0.0.1')");
  sqlf(db, "INSERT INTO mup_d_paused_groups (sched_name, match_kind, "
           "pattern) VALUES ('up', 0, 'held')");
  sqlf(db,
       "INSERT INTO mup_d_history (sched_name, fire_id, trigger_group, "
       "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
       "error_code, error_text, started_ms, duration_ms, recovering, "
       "finished_ms) VALUES ('up', 50, 'g', 't_wait', 'g', 'j_plain', "
       "%lld, '" DEAD "', 'SUCCEEDED', 0, NULL, %lld, 1, 0, %lld)",
       (long long)(t0 - 3000), (long long)(t0 - 3000), (long long)(t0 - 2999));
  if (k >= 2)
    sqlf(db, "INSERT INTO mup_d_node_sessions (conn_id, sched_name, node, "
             "opened_ms) VALUES (4000000000, 'up', '" DEAD "', 0)");
  if (k >= 5)
    sqlf(db,
         "INSERT INTO mup_d_leases (sched_name, lease_name, token, "
         "holder_node, holder_host, holder_pid, claim, acquired_ms, "
         "expires_ms, least_until_ms, released, extensions) VALUES ('up', "
         "'nightly', 7, '" DEAD "', 'old-host', 1, 1, 0, %lld, 0, 0, 0)",
         (long long)(t0 - 5000));
  if (k >= 13) /* a limit of a type no trigger here has (migration 013) */
    sqlf(db, "INSERT INTO mup_d_limits (sched_name, job_type, max_running, "
             "max_per_key, rate_count, rate_period_ms, tat_ms) VALUES ('up', "
             "'limited', 2, 1, 10, 1000, 5)");
  if (k >= 9) {
    sqlf(db, "INSERT INTO mup_d_checkpoints (sched_name, run_id, fire_id, "
             "node, data, updated_ms) VALUES ('up', 101, 101, '" DEAD
             "', 'cp', 0)");
    /* A sharded fire (110) of two shards, split by the dead node: shard 0
     * done (its history row), shard 1 (fire 111) running on the dead node
     * when it died. */
    insert_job(db, "j_shard", 0, 0);
    sqlf(db, "UPDATE mup_d_jobs SET shard_count = 2 WHERE job_name = "
             "'j_shard'");
    insert_trigger(db, "t_shard", "j_shard", t0 + 3600000, "WAITING", NULL, 0);
    insert_fired(db, 110, "t_shard", "j_shard", t0 - 2000, "SHARDED", 0, 0);
    sqlf(db,
         "UPDATE mup_d_fired SET shards_total = 2, shards_left = 1, split_ms "
         "= %lld WHERE fire_id = 110",
         (long long)(t0 - 2000));
    sqlf(db,
         "INSERT INTO mup_d_history (sched_name, fire_id, trigger_group, "
         "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
         "error_code, error_text, started_ms, duration_ms, recovering, "
         "finished_ms, shard_parent, shard_index) VALUES ('up', 109, "
         "'CHIME_SHARD', '110.0', 'g', 'j_shard', %lld, '" DEAD "', 'OK', 0, "
         "NULL, %lld, 1, 0, %lld, 110, 0)",
         (long long)(t0 - 2000), (long long)(t0 - 1900),
         (long long)(t0 - 1899));
    sqlf(db,
         "INSERT INTO mup_d_triggers (sched_name, trigger_group, "
         "trigger_name, job_group, job_name, job_type, kind, start_set, "
         "start_ms, end_ms, misfire, priority, interval_ms, repeat_count, "
         "next_fire_ms, prev_fire_ms, times_triggered, state_start_ms, "
         "state_repeat_count, state, retry_scheduled_ms, shard_parent, "
         "shard_index, shard_total) VALUES ('up', 'CHIME_SHARD', '110.1', "
         "'g', 'j_shard', 'record', 1, 1, %lld, 9223372036854775807, 1, 5, 0, "
         "0, -9223372036854775808, %lld, 1, %lld, 0, 'COMPLETE', %lld, 110, "
         "1, 2)",
         (long long)(t0 - 1900), (long long)(t0 - 1900), (long long)(t0 - 1900),
         (long long)(t0 - 2000));
    sqlf(db,
         "INSERT INTO mup_d_fired (fire_id, sched_name, trigger_group, "
         "trigger_name, job_group, job_name, scheduled_ms, acquired_ms, "
         "node, state, shard_parent) VALUES (111, 'up', 'CHIME_SHARD', "
         "'110.1', 'g', 'j_shard', %lld, %lld, '" DEAD "', 'EXECUTING', 110)",
         (long long)(t0 - 2000), (long long)(t0 - 1900));
  }
}

static int runs_of(const char *trigger, int64_t *sched, int max) {
  int c = 0;
  pthread_mutex_lock(&seen.mu);
  for (int i = 0; i < seen.n; i++)
    if (strcmp(seen.r[i].trigger, trigger) == 0 && !seen.r[i].recovering) {
      if (c < max)
        sched[c] = seen.r[i].sched;
      c++;
    }
  pthread_mutex_unlock(&seen.mu);
  return c;
}

static int recovered_runs(void) {
  int c = 0;
  pthread_mutex_lock(&seen.mu);
  for (int i = 0; i < seen.n; i++)
    c += seen.r[i].recovering;
  pthread_mutex_unlock(&seen.mu);
  return c;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* A periodic trigger's runs: from t0, one per INTERVAL, none doubled or
 * skipped, at least min of them. */
static void check_periodic(const char *trigger, int64_t t0, int min, size_t k) {
  int64_t sched[MAX_RUNS];
  int n = runs_of(trigger, sched, MAX_RUNS);
  if (n < min)
    fprintf(stderr, "version %zu: %s ran %d times, wanted %d or more\n", k,
            trigger, n, min);
  CU_ASSERT(n >= min);
  qsort(sched, (size_t)n, sizeof sched[0], cmp_i64);
  for (int i = 0; i < n; i++) {
    if (sched[i] != t0 + (int64_t)i * INTERVAL)
      fprintf(stderr, "version %zu: %s run %d scheduled at t0%+lld\n", k,
              trigger, i, (long long)(sched[i] - t0));
    CU_ASSERT_EQUAL(sched[i], t0 + (int64_t)i * INTERVAL);
  }
}

static void upgrade_with_data(MYSQL *db, size_t k) {
  drop_all(db, "mup_d_");
  build_at(db, "mup_d_", k);
  int64_t t0 =
      query_int(db, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)") +
      500;
  fill(db, k, t0);
  pthread_mutex_lock(&seen.mu);
  seen.n = 0;
  pthread_mutex_unlock(&seen.mu);
  chime_config *cfg =
      chime_test_mysql_config("prefix=mup_d_&migrate=1", "new-node");
  CU_ASSERT_EQUAL_FATAL(chime_config_set_scheduler_name(cfg, "up"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  CU_ASSERT_EQUAL_FATAL(chime_config_set_checkin_interval_ms(cfg, 500), 0);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "record", record, NULL, NULL), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(s), 0);
  /* Until each periodic trigger ran 4 times and the dead node's fire was
   * recovered (or 20 s). */
  for (int64_t end = chime_test_wall_ms() + 20000; chime_test_wall_ms() < end;
       chime_test_sleep_ms(20)) {
    static const char *const periodic[] = {"t_wait", "t_rec", "t_acq",
                                           "t_blocked"};
    int64_t sched[MAX_RUNS];
    int least = MAX_RUNS;
    for (size_t i = 0; i < 4; i++) {
      int n = runs_of(periodic[i], sched, MAX_RUNS);
      least = n < least ? n : least;
    }
    if (least >= 4 && recovered_runs() >= (k >= 9 ? 2 : 1))
      break;
  }
  /* A run recorded before migration 015 reads as one that used its job's
   * data (none of its own), through the public reader. */
  chime_history *h = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_history(s, "g", "j_plain", "g",
                                                "t_wait", -1, 0, 0, 0,
                                                CHIME_HISTORY_MAX_LIMIT, &h),
                        0);
  size_t old_rows = 0;
  for (size_t i = 0; i < chime_history_get_count(h); i++) {
    if (chime_history_get_fire_id(h, i) != 50)
      continue;
    size_t len = 99;
    CU_ASSERT_PTR_NULL(chime_history_get_data(h, i, &len));
    CU_ASSERT_EQUAL(len, 0);
    old_rows++;
  }
  CU_ASSERT_EQUAL(old_rows, 1);
  chime_history_free(h);
  chime_scheduler_free(s);
  /* Only t_blocked has data: its runs' rows have it, the dead node's run
   * ended by the survivor too; every other row's is NULL, the old ones
   * too. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_history WHERE "
                                "data IS NOT NULL AND trigger_name <> "
                                "'t_blocked'"),
                  0LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_history WHERE "
                                "trigger_name = 't_blocked' AND (data IS NULL "
                                "OR data <> 'blk')"),
                  0LL);
  CU_ASSERT(query_int(db, "SELECT COUNT(*) FROM mup_d_history WHERE "
                          "fire_id = 102 AND data = 'blk'") == 1LL);
  /* Triggers written before migration 016 hold no key after their run. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_triggers WHERE "
                                "unique_for_ms <> 0 OR held_until_ms <> 0"),
                  0LL);
  CU_ASSERT_EQUAL(
      query_int(db, "SELECT MAX(version) FROM mup_d_schema_version"),
      (long long)chime__mysql_migration_count);
  check_periodic("t_wait", t0, 4, k);
  check_periodic("t_rec", t0, 4, k);
  check_periodic("t_acq", t0, 4, k);
  check_periodic("t_blocked", t0, 4, k);
  int64_t none[1];
  CU_ASSERT_EQUAL(runs_of("t_paused", none, 1), 0);
  /* The dead node's fires: the one of a recoverable job run again, once,
   * with its original time (and its checkpoint where the schema had
   * them); the other recorded failed. */
  int recovered = 0, with_checkpoint = 0, shards = 0;
  pthread_mutex_lock(&seen.mu);
  for (int i = 0; i < seen.n; i++) {
    if (!seen.r[i].recovering)
      continue;
    if (strcmp(seen.r[i].job, "j_shard") == 0) {
      CU_ASSERT_EQUAL(seen.r[i].shard, 1);
      shards++;
      continue;
    }
    recovered++;
    CU_ASSERT_STRING_EQUAL(seen.r[i].job, "j_recover");
    CU_ASSERT_EQUAL(seen.r[i].sched, t0 - 1000);
    with_checkpoint += seen.r[i].checkpoint_seen;
  }
  /* No fire id handed out twice, none reusing the dead node's. */
  for (int i = 0; i < seen.n; i++) {
    CU_ASSERT(seen.r[i].fire_id > 103);
    for (int j = 0; j < i; j++)
      CU_ASSERT(seen.r[i].fire_id != seen.r[j].fire_id);
  }
  pthread_mutex_unlock(&seen.mu);
  CU_ASSERT_EQUAL(recovered, 1);
  if (k >= 9) {
    CU_ASSERT_EQUAL(with_checkpoint, 1);
    /* The dead node's shard run again, once; with it the sharded fire
     * ended (its history row, its fired row gone). */
    CU_ASSERT_EQUAL(shards, 1);
    CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_history WHERE "
                                  "fire_id = 110 AND outcome = 'OK'"),
                    1LL);
    CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_fired WHERE "
                                  "fire_id IN (110, 111)"),
                    0LL);
  }
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_history WHERE "
                                "fire_id = 102 AND outcome = 'FAILED'"),
                  1LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_fired WHERE "
                                "node = '" DEAD "'"),
                  0LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_nodes WHERE "
                                "instance_id = '" DEAD "'"),
                  0LL);
  /* The rows that describe no fire are kept as they were. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_history WHERE "
                                "fire_id = 50"),
                  1LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_paused_groups"),
                  1LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_jobs"),
                  k >= 9 ? 5LL : 4LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_triggers WHERE "
                                "trigger_group = 'g' AND state = 'PAUSED'"),
                  1LL);
  if (k >= 5)
    CU_ASSERT_EQUAL(query_int(db, "SELECT token FROM mup_d_leases WHERE "
                                  "lease_name = 'nightly'"),
                    7LL);
  if (k >= 2)
    CU_ASSERT_EQUAL(
        query_int(db, "SELECT COUNT(*) FROM mup_d_node_sessions "
                      "WHERE node = '" DEAD "'"),
        0LL); /* sql/014: the audit trail and the drain requests start empty,
               * and the node that migrated claimed fires: it is not drained. */
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_audit"), 0LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_node_drains"), 0LL);
  /* sql/017: a limit set before it keeps its figures and has no
   * per-partition half; no partition's rate state. */
  if (k >= 13)
    CU_ASSERT_EQUAL(
        query_int(db, "SELECT COUNT(*) FROM mup_d_limits WHERE job_type = "
                      "'limited' AND max_running = 2 AND max_per_key = 1 AND "
                      "rate_count = 10 AND key_rate_count = 0 AND "
                      "key_rate_period_ms = 0 AND partition_field IS NULL"),
        1LL);
  CU_ASSERT_EQUAL(query_int(db, "SELECT COUNT(*) FROM mup_d_limit_keys"), 0LL);
}

/* Issue 34: no upgrade was tested with data.  A schema at each earlier
 * version, with the rows a cluster of that version leaves, is migrated by
 * a node of this library that then runs it. */
static void test_upgrade_with_data_from_every_version(void) {
  MYSQL *db = admin();
  for (size_t k = 1; k < chime__mysql_migration_count; k++) {
    fprintf(stderr, "upgrade with data from version %zu\n", k);
    upgrade_with_data(db, k);
  }
  drop_all(db, "mup_d_");
  mysql_close(db);
}

/* ---------------------------------------------------------- compatibility */

/* A schema newer than the library: served when its newest row says it is
 * compatible with the library's version, refused otherwise. */
static void test_upgrade_newer_compatible_schema_served(void) {
  MYSQL *db = admin();
  char err[512];
  long latest = (long)chime__mysql_migration_count;
  drop_all(db, "mup_c_");
  CU_ASSERT_EQUAL_FATAL(
      open_store("prefix=mup_c_&auto_create=1", err, sizeof err), 0);
  sqlf(db,
       "INSERT INTO mup_c_schema_version (version, applied_ms, "
       "compatible_with) VALUES (%ld, 0, %ld), (%ld, 0, %ld)",
       latest + 1, latest, latest + 2, latest);
  CU_ASSERT_EQUAL(open_store("prefix=mup_c_", err, sizeof err), 0);
  CU_ASSERT_EQUAL(open_store("prefix=mup_c_&migrate=1", err, sizeof err), 0);
  sqlf(db,
       "INSERT INTO mup_c_schema_version (version, applied_ms, "
       "compatible_with) VALUES (%ld, 0, %ld)",
       latest + 3, latest + 3);
  CU_ASSERT_EQUAL(open_store("prefix=mup_c_", err, sizeof err), CHIME_ESCHEMA);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "newer"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "upgrade chime"));
  drop_all(db, "mup_c_");
  mysql_close(db);
}

int main(void) {
  CU_TestInfo tests[] = {
      {"a migration cut short at any statement completes when run again",
       test_upgrade_interrupted_migration_completes},
      {"a migration waiting for a table lock does not stop the firing",
       test_upgrade_lock_wait_keeps_firing},
      {"a schema of every earlier version, with data, is migrated and runs on",
       test_upgrade_with_data_from_every_version},
      {"a newer schema compatible with this library is served",
       test_upgrade_newer_compatible_schema_served},
      CU_TEST_INFO_NULL,
  };
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-upgrade", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
