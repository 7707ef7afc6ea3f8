/*
 * mysql/schema.c: the MySQL store's schema: at open it reads the version
 * from the schema_version table and creates the schema (URL parameter
 * auto_create=1) when there is none, applies the newer migrations
 * (migrate=1) when it is older, and refuses to start (CHIME_ESCHEMA, with
 * a message saying what to do) when it is missing, older without migrate,
 * or newer than this library.  The migrations are sql/NNN_*.sql, embedded
 * at build time by sql/embed.py; creation and migration run under a named
 * lock (GET_LOCK) so that nodes starting together do it once.
 *
 * Thread: the one opening the store, on the connection it opened; the
 * schema lock is the server's (a named lock), no mutex of this process.
 */
#include "jobstore/mysql/schema.h"

#include "jobstore/mysql/conn.h"

#include <assert.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool param_on(const chime__mysql_store *s, const char *key) {
  const char *v = chime__mysql_url_param(s->url, key);
  return v && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0);
}

/* Records db's last error after what failed.  Returns its chime code. */
static int db_fail(MYSQL *db, const char *what, char *errbuf,
                   size_t errbuf_len) {
  unsigned e = mysql_errno(db);
  chime__record_err(errbuf, errbuf_len, CHIME_ESTORE, "%s: MySQL error %u: %s",
                    what, e, mysql_error(db));
  int r = chime__mysql_error_code(e);
  return r == 0 ? CHIME_ESTORE : r;
}

/* Runs one text statement.  Returns: 0; CHIME_ESTORE (errbuf says why). */
static int run_sql(MYSQL *db, const char *sql, size_t len, char *errbuf,
                   size_t errbuf_len) {
  if (mysql_real_query(db, sql, (unsigned long)len) != 0)
    return db_fail(db, "schema statement failed", errbuf, errbuf_len);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
  return 0;
}

int chime__mysql_schema_version(MYSQL *db, const char *prefix, long *ret,
                                char *errbuf, size_t errbuf_len) {
  assert(db && prefix && strlen(prefix) <= CHIME__MYSQL_PREFIX_MAX);
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT MAX(version) FROM %sschema_version",
           prefix);
  *ret = 0;
  if (mysql_real_query(db, sql, (unsigned long)strlen(sql)) != 0)
    return mysql_errno(db) == ER_NO_SUCH_TABLE
               ? 0
               : db_fail(db, "cannot read the schema version", errbuf,
                         errbuf_len);
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
  if (row && row[0])
    *ret = strtol(row[0], NULL, 10);
  if (res)
    mysql_free_result(res);
  assert(*ret >= 0);
  return 0;
}

/* Migration n (1-based) as one text with the prefix substituted; NULL on
 * ENOMEM. */
static char *migration_text(const chime__mysql_store *s, size_t n) {
  const char *const *lines = chime__mysql_migrations[n - 1];
  size_t total = 1;
  for (size_t i = 0; lines[i]; i++)
    total += strlen(lines[i]);
  char *joined = malloc(total);
  if (!joined)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; lines[i]; i++) {
    size_t l = strlen(lines[i]);
    memcpy(joined + k, lines[i], l);
    k += l;
  }
  joined[k] = '\0';
  char *text = chime__mysql_subst_prefix(joined, s->prefix);
  free(joined);
  return text;
}

/* Applies migration number n (1-based). */
static int apply(chime__mysql_store *s, MYSQL *db, size_t n, char *errbuf,
                 size_t errbuf_len) {
  char *text = migration_text(s, n);
  if (!text)
    return CHIME_ENOMEM;
  int r = 0;
  /* Statements end with ";" at the end of a line. */
  char *p = text;
  while (r == 0 && *p) {
    char *end = strstr(p, ";\n");
    size_t len = end ? (size_t)(end - p) : strlen(p);
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\t'))
      i++;
    if (i < len)
      r = run_sql(db, p + i, len - i, errbuf, errbuf_len);
    p = end ? end + 2 : p + len;
  }
  free(text);
  if (r == 0) {
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT INTO %sschema_version (version, applied_ms) VALUES (%zu, "
             "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED))",
             s->prefix, n);
    r = run_sql(db, sql, strlen(sql), errbuf, errbuf_len);
  }
  return r;
}

/* Takes or releases the schema lock of this database and prefix. */
static int schema_lock(chime__mysql_store *s, MYSQL *db, bool take,
                       char *errbuf, size_t errbuf_len) {
  char sql[300];
  snprintf(sql, sizeof sql, "SELECT %s('chime-schema-%.64s-%s'%s)",
           take ? "GET_LOCK" : "RELEASE_LOCK", s->url->database, s->prefix,
           take ? ", 60" : "");
  return run_sql(db, sql, strlen(sql), errbuf, errbuf_len);
}

/* Decides what to do with a schema at version v (under the lock). */
static int settle(chime__mysql_store *s, MYSQL *db, long v, char *errbuf,
                  size_t errbuf_len) {
  long known = (long)chime__mysql_migration_count;
  if (v > known)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_ESCHEMA,
        "the schema in database '%s' (prefix '%s') has version %ld, newer "
        "than this library knows (%ld): upgrade chime",
        s->url->database, s->prefix, v, known);
  if (v == 0 && !param_on(s, "auto_create"))
    return chime__record_err(
        errbuf, errbuf_len, CHIME_ESCHEMA,
        "no chime schema in database '%s' (prefix '%s'): open with "
        "auto_create=1 in the store URL to create it",
        s->url->database, s->prefix);
  if (v > 0 && v < known && !param_on(s, "migrate"))
    return chime__record_err(
        errbuf, errbuf_len, CHIME_ESCHEMA,
        "the schema in database '%s' (prefix '%s') has version %ld, older "
        "than this library's %ld: open with migrate=1 in the store URL to "
        "migrate it",
        s->url->database, s->prefix, v, known);
  int r = 0;
  for (long n = v + 1; r == 0 && n <= known; n++) {
    chime__mysql_log(s, CHIME_LOG_INFO, "applying schema migration %03ld", n);
    r = apply(s, db, (size_t)n, errbuf, errbuf_len);
  }
  return r;
}

/* The tables of the schema this library writes (checked once it is at
 * the library's version). */
static const char *const schema_tables[] = {
    "schema_version", "jobs",  "triggers", "calendars",     "paused_groups",
    "fired",          "nodes", "history",  "node_sessions", "leases"};

/* Refuses a schema that lost a table: the version alone does not say so,
 * and the first statement needing it would fail much later (the first
 * completion, for history). */
static int check_tables(chime__mysql_store *s, MYSQL *db, char *errbuf,
                        size_t errbuf_len) {
  for (size_t i = 0; i < sizeof schema_tables / sizeof schema_tables[0]; i++) {
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s%s LIMIT 0", s->prefix,
             schema_tables[i]);
    if (mysql_real_query(db, sql, (unsigned long)strlen(sql)) != 0) {
      if (mysql_errno(db) == ER_NO_SUCH_TABLE)
        return chime__record_err(
            errbuf, errbuf_len, CHIME_ESCHEMA,
            "the chime schema in database '%s' has no table '%s%s': restore "
            "it, or drop the schema and open with auto_create=1",
            s->url->database, s->prefix, schema_tables[i]);
      return db_fail(db, "cannot check the schema's tables", errbuf,
                     errbuf_len);
    }
    MYSQL_RES *res = mysql_store_result(db);
    if (res)
      mysql_free_result(res);
  }
  return run_sql(db, "COMMIT", 6, errbuf, errbuf_len);
}

int chime__mysql_schema_settle(chime__mysql_store *s, MYSQL *db, char *errbuf,
                               size_t errbuf_len) {
  long v;
  int r = chime__mysql_schema_version(db, s->prefix, &v, errbuf, errbuf_len);
  if (r == 0)
    r = run_sql(db, "COMMIT", 6, errbuf, errbuf_len);
  if (r == 0 && v == (long)chime__mysql_migration_count)
    r = check_tables(s, db, errbuf, errbuf_len);
  if (r < 0 || v == (long)chime__mysql_migration_count)
    return r;
  if ((r = schema_lock(s, db, true, errbuf, errbuf_len)) < 0)
    return r;
  r = chime__mysql_schema_version(db, s->prefix, &v, errbuf, errbuf_len);
  if (r == 0)
    r = settle(s, db, v, errbuf, errbuf_len);
  /* The session runs with autocommit off. */
  if (r == 0)
    r = run_sql(db, "COMMIT", 6, errbuf, errbuf_len);
  (void)schema_lock(s, db, false, NULL, 0);
  if (r == 0)
    r = check_tables(s, db, errbuf, errbuf_len);
  return r;
}

static int clear_fn(chime__mysql_tx *tx, void *arg) {
  static const char *const tables[] = {"fired",     "triggers",      "jobs",
                                       "calendars", "paused_groups", "nodes",
                                       "history",   "leases"};
  (void)arg;
  chime__mysql_arg a = chime__mysql_arg_text(tx->s->sched);
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char sql[128];
    snprintf(sql, sizeof sql, "DELETE FROM %s%s WHERE sched_name = ?",
             tx->s->prefix, tables[i]);
    int r = chime__mysql_exec_sql(tx, sql, &a, 1, NULL);
    if (r < 0)
      return r;
  }
  return 0;
}

int chime__mysql_schema_clear(chime__mysql_store *s, char *errbuf,
                              size_t errbuf_len) {
  return chime__mysql_tx_run(s, clear_fn, NULL, NULL, errbuf, errbuf_len);
}
