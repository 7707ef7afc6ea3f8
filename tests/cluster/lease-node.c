/*
 * lease-node.c: one holder process of the lease cluster test
 * (lease-cluster.py).  It loops until its time is up: acquire the lease
 * "cl-section" (at_most AT_MOST_MS, waiting up to 2 s), write a row
 * (token, holder, start, expires) to the table cl_sections, work a little,
 * write the row's end, release, and record whether the release was
 * refused.  Every instant is the database's (NOW(3) in the statement, the
 * lease's expiry as the store returned it).  The table has no unique key:
 * the checker, not the database, finds overlapping sections.
 *
 *   lease-node STORE_URL DB_URL HOLDER SECONDS
 *
 * STORE_URL is the chime store (its own prefix); DB_URL the plain test
 * database for the sections table (host, port, user, password, database
 * parsed from a mysql:// URL by the harness and passed as
 * HOST:PORT:USER:PASSWORD:DB).  Exit status 0, or 1 with a message.
 */
#include "chime.h"

#include <mysql.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LEASE "cl-section"
#define AT_MOST_MS 500
#define NOW_MS "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

static long mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int run_sql(MYSQL *db, const char *sql) {
  if (mysql_query(db, sql) == 0)
    return 0;
  fprintf(stderr, "lease-node: %s: %s\n", sql, mysql_error(db));
  return 1;
}

/* Connects to "HOST:PORT:USER:PASSWORD:DB". */
static MYSQL *connect_db(char *spec) {
  char *f[5];
  for (int i = 0; i < 5; i++) {
    f[i] = spec;
    char *colon = i < 4 ? strchr(spec, ':') : NULL;
    if (i < 4 && !colon)
      return NULL;
    if (colon) {
      *colon = '\0';
      spec = colon + 1;
    }
  }
  MYSQL *db = mysql_init(NULL);
  if (db && !mysql_real_connect(db, f[0], f[2], f[3], f[4],
                                (unsigned)atoi(f[1]), NULL, 0)) {
    fprintf(stderr, "lease-node: connect: %s\n", mysql_error(db));
    mysql_close(db);
    return NULL;
  }
  return db;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: lease-node STORE_URL DB_SPEC HOLDER SECONDS\n");
    return 1;
  }
  const char *holder = argv[3];
  long until = mono_ms() + atol(argv[4]) * 1000;
  MYSQL *db = connect_db(argv[2]);
  if (!db)
    return 1;
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  char err[512] = "";
  if (chime_config_new(&cfg) || chime_config_set_store_url(cfg, argv[1]) ||
      chime_config_set_instance_id(cfg, holder) ||
      chime_scheduler_new(cfg, &s, err, sizeof err)) {
    fprintf(stderr, "lease-node: scheduler: %s\n", err);
    return 1;
  }
  chime_config_free(cfg);
  srand((unsigned)getpid());
  int bad = 0, sections = 0;
  while (!bad && mono_ms() < until) {
    chime_lease *l = NULL;
    int r = chime_lease_acquire(s, LEASE, AT_MOST_MS, 0, 2000, &l);
    if (r == CHIME_EBUSY)
      continue;
    if (r != 0) {
      fprintf(stderr, "lease-node: acquire: %s\n", chime_scheduler_errmsg(s));
      bad = 1;
      break;
    }
    long long token = (long long)chime_lease_get_token(l);
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO cl_sections (token, holder, start_ms, expires_ms) "
             "VALUES (%lld, '%s', " NOW_MS ", %lld)",
             token, holder, (long long)chime_lease_get_expires_ms(l));
    bad |= run_sql(db, sql);
    sleep_ms(20 + rand() % 150); /* the work; SIGSTOP may land here */
    snprintf(sql, sizeof sql,
             "UPDATE cl_sections SET end_ms = " NOW_MS
             " WHERE token = %lld AND holder = '%s'",
             token, holder);
    bad |= run_sql(db, sql);
    r = chime_lease_release(l);
    snprintf(sql, sizeof sql,
             "UPDATE cl_sections SET release_rc = %d, released_ms = " NOW_MS
             " WHERE token = %lld AND holder = '%s'",
             r, token, holder);
    bad |= run_sql(db, sql);
    chime_lease_free(l);
    sections++;
  }
  printf("%s: %d sections\n", holder, sections);
  chime_scheduler_free(s);
  mysql_close(db);
  mysql_library_end();
  return bad;
}
