/*
 * mysql/schema.c: the MySQL store's schema: at open it reads the version
 * from the schema_version table and creates the schema (URL parameter
 * auto_create=1) when there is none, applies the newer migrations
 * (migrate=1) when it is older, serves it when it is newer but says it is
 * compatible with this library's version (schema_version.compatible_with),
 * and refuses to start (CHIME_ESCHEMA, with a message saying what to do)
 * when it is missing, older without migrate, or newer and not compatible.
 * The migrations are sql/NNN_*.sql, embedded at build time by
 * sql/embed.py; creation and migration run under a named lock (GET_LOCK)
 * so that nodes starting together do it once.
 *
 * Migrations run statement by statement.  Every statement is repeatable
 * (IF NOT EXISTS ...): MySQL DDL is not transactional, and a migration
 * cut short completes when it is run again.  A statement never waits in a
 * table's metadata-lock queue, where it would hold up every node's
 * statements on that table (run_ddl).
 *
 * Thread: the one opening the store, on the connection it opened; the
 * schema lock is the server's (a named lock), no mutex of this process.
 */
#include "jobstore/mysql/schema.h"

#include "core/clock.h"
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

/* Records why a statement on db failed (r: its code), after what failed:
 * the server's last error, or no memory.  Returns its chime code. */
static int db_fail(MYSQL *db, int r, const char *what, char *errbuf,
                   size_t errbuf_len) {
  if (r == CHIME_ENOMEM)
    return chime__record_err(errbuf, errbuf_len, r, "%s: out of memory", what);
  unsigned e = mysql_errno(db);
  chime__record_err(errbuf, errbuf_len, CHIME_ESTORE, "%s: MySQL error %u: %s",
                    what, e, mysql_error(db));
  r = chime__mysql_error_code(e);
  return r == 0 ? CHIME_ESTORE : r;
}

/* Runs connection-level statement b (built: stmt.h), discarding its rows.
 * Returns: 0; the mapped error (errbuf says why). */
static int run_sql(MYSQL *db, chime__mysql_sqlbuf *b, char *errbuf,
                   size_t errbuf_len) {
  int r = chime__mysql_sqlbuf_run(b, NULL, NULL);
  return r < 0 ? db_fail(db, r, "schema statement failed", errbuf, errbuf_len)
               : 0;
}

/* Runs connection-level statement id, which has no slot, as run_sql. */
static int run_id(MYSQL *db, const char *prefix, chime__mysql_stmt_id id,
                  char *errbuf, size_t errbuf_len) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, prefix);
  chime__mysql_sqlbuf_stmt(&b, id);
  return run_sql(db, &b, errbuf, errbuf_len);
}

/* The integer in the first cell of rows (0 when there is no row or it is
 * NULL), and frees rows. */
static long first_long(chime__mysql_rows *rows) {
  long v = rows->nrows > 0 && rows->ncols > 0 &&
                   !chime__mysql_rows_is_null(rows, 0, 0)
               ? (long)chime__mysql_rows_int64(rows, 0, 0)
               : 0;
  chime__mysql_rows_free(rows);
  return v;
}

int chime__mysql_schema_version(MYSQL *db, const char *prefix, long *ret,
                                char *errbuf, size_t errbuf_len) {
  assert(db && prefix && strlen(prefix) <= CHIME__MYSQL_PREFIX_MAX);
  *ret = 0;
  chime__mysql_rows rows;
  int r = chime__mysql_db_run(db, prefix, CHIME__Q_SCHEMA_VERSION, &rows);
  if (r < 0)
    return r == CHIME_ESTORE && mysql_errno(db) == ER_NO_SUCH_TABLE
               ? 0
               : db_fail(db, r, "cannot read the schema version", errbuf,
                         errbuf_len);
  *ret = first_long(&rows);
  assert(*ret >= 0);
  return 0;
}

int chime__mysql_migration_statements(const char *prefix, size_t n,
                                      char ***ret_stmts, size_t *ret_count) {
  assert(prefix && n >= 1 && n <= chime__mysql_migration_count);
  const char *const *lines = chime__mysql_migrations[n - 1];
  size_t total = 1;
  for (size_t i = 0; lines[i]; i++)
    total += strlen(lines[i]);
  char *joined = malloc(total);
  if (!joined)
    return CHIME_ENOMEM;
  size_t k = 0;
  for (size_t i = 0; lines[i]; i++) {
    size_t l = strlen(lines[i]);
    memcpy(joined + k, lines[i], l);
    k += l;
  }
  joined[k] = '\0';
  char *text = chime__mysql_subst_prefix(joined, prefix);
  free(joined);
  if (!text)
    return CHIME_ENOMEM;
  /* Statements end with ";" at the end of a line. */
  char **stmts = NULL;
  size_t count = 0;
  int r = 0;
  for (char *p = text; r == 0 && *p;) {
    char *end = strstr(p, ";\n");
    size_t len = end ? (size_t)(end - p) : strlen(p);
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\t'))
      i++;
    if (i < len) {
      char **grown = realloc(stmts, (count + 1) * sizeof *stmts);
      char *one = grown ? malloc(len - i + 1) : NULL;
      if (grown)
        stmts = grown;
      if (!one) {
        r = CHIME_ENOMEM;
        break;
      }
      memcpy(one, p + i, len - i);
      one[len - i] = '\0';
      stmts[count++] = one;
    }
    p = end ? end + 2 : p + len;
  }
  free(text);
  if (r < 0) {
    chime__mysql_migration_statements_free(stmts, count);
    return r;
  }
  *ret_stmts = stmts;
  *ret_count = count;
  return 0;
}

void chime__mysql_migration_statements_free(char **stmts, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(stmts[i]);
  free(stmts);
}

/* One integer from connection-level statement b (built: stmt.h), 0 when
 * it gives no row or NULL.  Returns: 0; 1 (and 0) when the query fails
 * with server error *tolerated (when not NULL); the mapped error of any
 * other failure. */
static int query_long(MYSQL *db, chime__mysql_sqlbuf *b, long *ret,
                      const unsigned *tolerated, char *errbuf,
                      size_t errbuf_len) {
  *ret = 0;
  chime__mysql_rows rows;
  int r = chime__mysql_sqlbuf_run(b, &rows, NULL);
  if (r < 0) {
    if (r == CHIME_ESTORE && tolerated && mysql_errno(db) == *tolerated)
      return 1;
    return db_fail(db, r, "schema query failed", errbuf, errbuf_len);
  }
  *ret = first_long(&rows);
  return 0;
}

/* Whether schema_version has its compatible_with column (migration 011). */
static int compat_column(chime__mysql_store *s, MYSQL *db, long *ret,
                         char *errbuf, size_t errbuf_len) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, s->prefix);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SCHEMA_COMPAT_COLUMN);
  return query_long(db, &b, ret, NULL, errbuf, errbuf_len);
}

int chime__mysql_schema_compat(MYSQL *db, const char *prefix, long version,
                               long *ret, char *errbuf, size_t errbuf_len) {
  assert(db && prefix && strlen(prefix) <= CHIME__MYSQL_PREFIX_MAX);
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, prefix);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SCHEMA_COMPAT);
  chime__mysql_sqlbuf_at(&b, "version");
  chime__mysql_sqlbuf_int(&b, version);
  unsigned no_column = ER_BAD_FIELD_ERROR;
  int r = query_long(db, &b, ret, &no_column, errbuf, errbuf_len);
  return r < 0 ? r : 0;
}

/* Sets the session's metadata-lock wait (whole seconds: MariaDB takes no
 * fraction). */
static int set_lock_wait(MYSQL *db, const char *prefix, long seconds,
                         char *errbuf, size_t errbuf_len) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, prefix);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SCHEMA_LOCK_WAIT);
  chime__mysql_sqlbuf_at(&b, "seconds");
  chime__mysql_sqlbuf_int(&b, seconds);
  return run_sql(db, &b, errbuf, errbuf_len);
}

/* Runs one migration statement without ever queueing long for a table's
 * metadata lock: a DDL statement waiting for it (behind a long transaction
 * on the table) would hold up every node's statements on that table queued
 * behind it, so that the cluster stops firing.  Each attempt gives up at
 * once when another session holds the table (lock_wait_timeout = 0) and is
 * retried with back-off; after MIGRATE_NOWAIT_MS of that (a table never
 * free for an instant), every other attempt waits one second, which is the
 * longest any node's statement is held up; after MIGRATE_GIVE_UP_MS the
 * migration fails (it completes when run again: every statement is
 * idempotent). */
#define MIGRATE_NOWAIT_MS 30000
#define MIGRATE_GIVE_UP_MS 600000
static int run_ddl(chime__mysql_store *s, MYSQL *db, const char *sql,
                   char *errbuf, size_t errbuf_len) {
  int64_t start = chime__mono_ms(), logged = start;
  int64_t pause = 10;
  for (unsigned attempt = 0;; attempt++) {
    bool wait = chime__mono_ms() - start >= MIGRATE_NOWAIT_MS && attempt % 2;
    int r = set_lock_wait(db, s->prefix, wait ? 1 : 0, errbuf, errbuf_len);
    if (r < 0)
      return r;
    if (mysql_real_query(db, sql, (unsigned long)strlen(sql)) == 0) {
      MYSQL_RES *res = mysql_store_result(db);
      if (res)
        mysql_free_result(res);
      return 0;
    }
    unsigned e = mysql_errno(db);
    int64_t now = chime__mono_ms();
    if ((e != ER_LOCK_WAIT_TIMEOUT && e != ER_LOCK_DEADLOCK) ||
        now - start >= MIGRATE_GIVE_UP_MS)
      return db_fail(db, CHIME_ESTORE, "schema statement failed", errbuf,
                     errbuf_len);
    if (now - logged >= 10000) {
      logged = now;
      chime__mysql_log(s, CHIME_LOG_WARN,
                       "schema migration waiting for a table that another "
                       "session holds (a long transaction?) for %lld s",
                       (long long)((now - start) / 1000));
    }
    chime__sleep_ms(pause);
    pause = pause < 250 ? pause * 2 : 250;
  }
}

/* Applies migration number n (1-based): every statement (each repeatable:
 * a migration cut short completes when it is run again), then its row of
 * schema_version. */
static int apply(chime__mysql_store *s, MYSQL *db, size_t n, char *errbuf,
                 size_t errbuf_len) {
  char **stmts;
  size_t count;
  int r = chime__mysql_migration_statements(s->prefix, n, &stmts, &count);
  if (r < 0)
    return chime__record_err(errbuf, errbuf_len, r, "out of memory");
  for (size_t i = 0; r == 0 && i < count; i++)
    r = run_ddl(s, db, stmts[i], errbuf, errbuf_len);
  chime__mysql_migration_statements_free(stmts, count);
  long has_compat = 0;
  if (r == 0)
    r = compat_column(s, db, &has_compat, errbuf, errbuf_len);
  if (r == 0) {
    chime__mysql_sqlbuf b;
    chime__mysql_sqlbuf_init_db(&b, db, s->prefix);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SCHEMA_VERSION_INSERT);
    chime__mysql_sqlbuf_part(&b, "compat_column", has_compat);
    chime__mysql_sqlbuf_at(&b, "version");
    chime__mysql_sqlbuf_int(&b, (int64_t)n);
    chime__mysql_sqlbuf_part(&b, "compat_value", has_compat);
    if (has_compat) {
      chime__mysql_sqlbuf_at(&b, "compat");
      chime__mysql_sqlbuf_int(&b, chime__mysql_migration_compat[n - 1]);
    }
    r = run_sql(db, &b, errbuf, errbuf_len);
  }
  return r;
}

/* Takes or releases the schema lock of this database and prefix. */
static int schema_lock(chime__mysql_store *s, MYSQL *db, bool take,
                       char *errbuf, size_t errbuf_len) {
  char name[160];
  snprintf(name, sizeof name, "chime-schema-%.64s-%s", s->url->database,
           s->prefix);
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, s->prefix);
  chime__mysql_sqlbuf_stmt(&b, take ? CHIME__Q_SCHEMA_LOCK_TAKE
                                    : CHIME__Q_SCHEMA_LOCK_RELEASE);
  chime__mysql_sqlbuf_at(&b, "name");
  chime__mysql_sqlbuf_text(&b, name);
  return run_sql(db, &b, errbuf, errbuf_len);
}

/* Decides what to do with a schema at version v (under the lock). */
static int settle(chime__mysql_store *s, MYSQL *db, long v, char *errbuf,
                  size_t errbuf_len) {
  long known = (long)chime__mysql_migration_count;
  if (v > known) {
    /* A newer schema this library can still serve (its migrations since
     * ours only added what we need not know): run on it. */
    long compat = 0;
    int r = chime__mysql_schema_compat(db, s->prefix, v, &compat, errbuf,
                                       errbuf_len);
    if (r < 0)
      return r;
    if (compat >= 1 && compat <= known) {
      chime__mysql_log(s, CHIME_LOG_INFO,
                       "the schema has version %ld, newer than this "
                       "library's %ld but compatible with it back to %ld: "
                       "serving it",
                       v, known, compat);
      return 0;
    }
    return chime__record_err(
        errbuf, errbuf_len, CHIME_ESCHEMA,
        "the schema in database '%s' (prefix '%s') has version %ld, newer "
        "than this library knows (%ld) and not compatible with it: upgrade "
        "chime",
        s->url->database, s->prefix, v, known);
  }
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
  /* Back to the server's metadata-lock wait for the session's later use. */
  if (v < known) {
    int r2 = run_id(db, s->prefix, CHIME__Q_SCHEMA_LOCK_WAIT_RESET,
                    r == 0 ? errbuf : NULL, r == 0 ? errbuf_len : 0);
    if (r == 0)
      r = r2;
  }
  return r;
}

/* The tables of the schema this library writes (checked once it is at
 * the library's version). */
static const char *const schema_tables[] = {
    "schema_version", "jobs",      "triggers", "calendars",
    "paused_groups",  "fired",     "nodes",    "history",
    "node_sessions",  "leases",    "audit",    "node_drains",
    "limits",         "limit_keys"};

/* Refuses a schema that lost a table: the version alone does not say so,
 * and the first statement needing it would fail much later (the first
 * completion, for history). */
static int check_tables(chime__mysql_store *s, MYSQL *db, char *errbuf,
                        size_t errbuf_len) {
  for (size_t i = 0; i < sizeof schema_tables / sizeof schema_tables[0]; i++) {
    chime__mysql_sqlbuf b;
    chime__mysql_sqlbuf_init_db(&b, db, s->prefix);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SCHEMA_TABLE_CHECK);
    chime__mysql_sqlbuf_at(&b, "table");
    chime__mysql_sqlbuf_table(&b, schema_tables[i]);
    int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
    if (r < 0) {
      if (r == CHIME_ESTORE && mysql_errno(db) == ER_NO_SUCH_TABLE)
        return chime__record_err(
            errbuf, errbuf_len, CHIME_ESCHEMA,
            "the chime schema in database '%s' has no table '%s%s': restore "
            "it, or drop the schema and open with auto_create=1",
            s->url->database, s->prefix, schema_tables[i]);
      return db_fail(db, r, "cannot check the schema's tables", errbuf,
                     errbuf_len);
    }
  }
  return run_id(db, s->prefix, CHIME__Q_COMMIT, errbuf, errbuf_len);
}

int chime__mysql_schema_settle(chime__mysql_store *s, MYSQL *db, char *errbuf,
                               size_t errbuf_len) {
  long v;
  int r = chime__mysql_schema_version(db, s->prefix, &v, errbuf, errbuf_len);
  if (r == 0)
    r = run_id(db, s->prefix, CHIME__Q_COMMIT, errbuf, errbuf_len);
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
    r = run_id(db, s->prefix, CHIME__Q_COMMIT, errbuf, errbuf_len);
  (void)schema_lock(s, db, false, NULL, 0);
  if (r == 0)
    r = check_tables(s, db, errbuf, errbuf_len);
  return r;
}

static int clear_fn(chime__mysql_tx *tx, void *arg) {
  static const char *const tables[] = {
      "fired",         "triggers",    "jobs",    "calendars",
      "paused_groups", "nodes",       "history", "leases",
      "audit",         "node_drains", "limits",  "limit_keys"};
  (void)arg;
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    chime__mysql_sqlbuf b;
    chime__mysql_sqlbuf_init(&b, tx);
    chime__mysql_sqlbuf_stmt(&b, CHIME__Q_SCHEMA_CLEAR);
    chime__mysql_sqlbuf_at(&b, "table");
    chime__mysql_sqlbuf_table(&b, tables[i]);
    chime__mysql_sqlbuf_at(&b, "sched");
    chime__mysql_sqlbuf_text(&b, tx->s->sched);
    int r = chime__mysql_sqlbuf_run(&b, NULL, NULL);
    if (r < 0)
      return r;
  }
  return 0;
}

int chime__mysql_schema_clear(chime__mysql_store *s, char *errbuf,
                              size_t errbuf_len) {
  return chime__mysql_tx_run(s, clear_fn, NULL, NULL, errbuf, errbuf_len);
}
