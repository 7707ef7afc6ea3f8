/*
 * db.c: the bench's own database connections (results, server status),
 * opened from the store URL with the store's own parser and connection
 * settings (chime_mysql_url, chime-mysql.h), and the store clock.
 */
#include "bench.h"

#include <errmsg.h>
#include <errno.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Long enough for reading a large bench_results, short enough that a dead
 * server fails the run instead of hanging it (unless the URL says). */
#define READ_WRITE_TIMEOUT "io_timeout_s=30"

bool bench_db_is_local(MYSQL *db) {
  /* "Localhost via UNIX socket", "127.0.0.1 via TCP/IP", ... */
  const char *info = mysql_get_host_info(db);
  if (!info)
    return false;
  return strstr(info, "socket") || strncmp(info, "localhost ", 10) == 0 ||
         strncmp(info, "127.", 4) == 0 || strncmp(info, "::1 ", 4) == 0;
}

chime_mysql_url *bench_db_url(const char *text) {
  size_t len = strlen(text) + sizeof READ_WRITE_TIMEOUT + 1;
  char *full = malloc(len), err[512] = "";
  if (!full) {
    fprintf(stderr, "chime-bench: out of memory\n");
    return NULL;
  }
  if (strstr(text, "io_timeout_s="))
    snprintf(full, len, "%s", text);
  else
    snprintf(full, len, "%s%c%s", text, strchr(text, '?') ? '&' : '?',
             READ_WRITE_TIMEOUT);
  chime_mysql_url *url = NULL;
  if (chime_mysql_url_new(full, &url, err, sizeof err) < 0)
    fprintf(stderr, "chime-bench: %s\n", err);
  free(full);
  return url;
}

MYSQL *bench_db_connect(chime_mysql_url *url, char *errbuf, size_t errbuf_len) {
  MYSQL *db = NULL;
  if (chime_mysql_url_connect(url, &db, errbuf, errbuf_len) < 0)
    return NULL;
  /* A restart of the server under load is something to measure: the
   * handle connects again by itself (the bench's queries need no session
   * state), and run_query waits for the server to come back. */
  my_bool on = 1;
  mysql_options(db, MYSQL_OPT_RECONNECT, &on);
  return db;
}

/* Whether err says the server went away (a restart), not a bad query. */
static bool server_gone(unsigned err) {
  return err == CR_SERVER_GONE_ERROR || err == CR_SERVER_LOST ||
         err == CR_CONNECTION_ERROR || err == CR_CONN_HOST_ERROR ||
         err == ER_CONNECTION_KILLED || err == ER_SERVER_SHUTDOWN;
}

/* How long a query waits for a restarting server. */
#define RESTART_WAIT_MS 60000

/* mysql_real_query, sent again (on a new connection) while the server is
 * restarting, for at most RESTART_WAIT_MS.  Returns mysql_real_query's. */
static int run_query(MYSQL *db, const char *sql) {
  int64_t end = bench_real_ms() + RESTART_WAIT_MS;
  bool said = false;
  for (;;) {
    int r = mysql_real_query(db, sql, (unsigned long)strlen(sql));
    if (r == 0 || !server_gone(mysql_errno(db)) || bench_real_ms() >= end)
      return r;
    if (!said)
      fprintf(stderr,
              "chime-bench: the database went away (%s): "
              "reconnecting\n",
              mysql_error(db));
    said = true;
    struct timespec ts = {0, 250 * 1000 * 1000L};
    nanosleep(&ts, NULL);
  }
}

int bench_db_exec(MYSQL *db, const char *what, const char *sql) {
  if (run_query(db, sql) != 0) {
    fprintf(stderr, "chime-bench: %s: %s\n", what, mysql_error(db));
    return -1;
  }
  /* Drain a result so the connection is ready for the next statement. */
  MYSQL_RES *res = mysql_store_result(db);
  mysql_free_result(res);
  return 0;
}

MYSQL *bench_db_open(const char *text, chime_mysql_url **ret_url) {
  char err[512] = "";
  if (!(*ret_url = bench_db_url(text)))
    return NULL;
  MYSQL *db = bench_db_connect(*ret_url, err, sizeof err);
  if (!db) {
    fprintf(stderr, "chime-bench: %s\n", err);
    chime_mysql_url_free(*ret_url);
    *ret_url = NULL;
  }
  return db;
}

/* The first column of the first row of sql; quiet: no message when the
 * query returns no value. */
static int query_int(MYSQL *db, const char *sql, bool quiet, int64_t *ret) {
  if (run_query(db, sql) != 0) {
    fprintf(stderr, "chime-bench: %s: %s\n", sql, mysql_error(db));
    return -1;
  }
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
  int r = -1;
  if (row && row[0]) {
    *ret = strtoll(row[0], NULL, 10);
    r = 0;
  } else if (!quiet) {
    fprintf(stderr, "chime-bench: %s: no value\n", sql);
  }
  mysql_free_result(res);
  return r;
}

int bench_db_int(MYSQL *db, const char *sql, int64_t *ret) {
  return query_int(db, sql, false, ret);
}

/* Reads a global status counter; quiet: no message when it is absent. */
static int status(MYSQL *db, const char *name, bool quiet, int64_t *ret) {
  char sql[160];
  snprintf(sql, sizeof sql,
           "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
           "WHERE VARIABLE_NAME = '%s'",
           name);
  return query_int(db, sql, quiet, ret);
}

int bench_db_status(MYSQL *db, const char *name, int64_t *ret) {
  return status(db, name, false, ret);
}

int bench_db_status_quiet(MYSQL *db, const char *name, int64_t *ret) {
  return status(db, name, true, ret);
}

/* ------------------------------------------------------------- clocks */

static int64_t clock_offset_ms;

int64_t bench_real_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int bench_clock_sync(MYSQL *db) {
  /* The expression chime's store reads the database clock with, halfway
   * through the round trip, as chime does. */
  int64_t before = bench_real_ms(), db_ms = 0;
  if (bench_db_int(db, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
                   &db_ms) < 0)
    return -1;
  int64_t after = bench_real_ms();
  clock_offset_ms = db_ms - (before + (after - before) / 2);
  return 0;
}

int64_t bench_store_ms(void) {
  return bench_real_ms() + clock_offset_ms;
}

void bench_sleep_ms(int64_t ms) {
  if (ms <= 0)
    return;
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !bench_interrupted) {
  }
}

int bench_db_others_questions(MYSQL *db, int64_t *ret) {
  return bench_db_int(db,
                      "SELECT (SELECT VARIABLE_VALUE FROM "
                      "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME "
                      "= 'QUESTIONS') - (SELECT VARIABLE_VALUE FROM "
                      "information_schema.SESSION_STATUS WHERE VARIABLE_NAME "
                      "= 'QUESTIONS')",
                      ret);
}
