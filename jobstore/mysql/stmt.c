/*
 * mysql/stmt.c: the MySQL store's prepared statements: their texts ({P} is
 * the table prefix), preparing them once per connection, binding typed
 * parameters and materialising results as text cells.
 */
#include "jobstore/mysql/mysql.h"

#include <errmsg.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T CHIME__MYSQL_TRIGGER_COLS_SQL
#define SCHED_KEY "sched_name = ? AND trigger_group = ? AND trigger_name = ?"
#define JOB_KEY "sched_name = ? AND job_group = ? AND job_name = ?"
#define NO_FIRE "-9223372036854775808"
/* Pausing and resuming (store.h's pause_one and resume_one). */
#define PAUSE_SET                                                             \
  "UPDATE {P}triggers SET owner = NULL, claim_fire_id = NULL, state = CASE "  \
  "state WHEN 'WAITING' THEN 'PAUSED' WHEN 'ACQUIRED' THEN 'PAUSED' WHEN "    \
  "'EXECUTING' THEN 'PAUSED' WHEN 'BLOCKED' THEN 'PAUSED_BLOCKED' ELSE state "\
  "END WHERE "
#define RESUME_SET                                                            \
  "UPDATE {P}triggers t SET t.state = CASE WHEN t.state NOT IN ('PAUSED', "   \
  "'PAUSED_BLOCKED') THEN t.state WHEN t.next_fire_ms = " NO_FIRE " THEN "    \
  "'COMPLETE' WHEN EXISTS (SELECT 1 FROM {P}fired f WHERE f.sched_name = "    \
  "t.sched_name AND f.job_group = t.job_group AND f.job_name = t.job_name "   \
  "AND f.state = 'EXECUTING' AND f.forbid = 1) THEN 'BLOCKED' ELSE "          \
  "'WAITING' END WHERE "

static const char *const sql_text[CHIME__Q_COUNT] = {
    [CHIME__Q_JOB_LOCK] = "SELECT durable FROM {P}jobs WHERE " JOB_KEY " FOR UPDATE",
    [CHIME__Q_JOB_GET] = "SELECT " CHIME__MYSQL_JOB_COLS_SQL " FROM {P}jobs WHERE " JOB_KEY,
    [CHIME__Q_JOB_GET_LOCK] =
        "SELECT " CHIME__MYSQL_JOB_COLS_SQL " FROM {P}jobs WHERE " JOB_KEY " FOR UPDATE",
    /* trigger_add: the job (locked), whether a FORBID fire of it runs,
     * and whether a remembered matcher pauses the trigger's group (the
     * ? are that group; match kinds are chime_match's values). */
    [CHIME__Q_JOB_FOR_TRIGGER] =
        "SELECT " CHIME__MYSQL_JOB_COLS_SQL ", EXISTS (SELECT 1 FROM {P}fired f WHERE "
        "f.sched_name = j.sched_name AND f.job_group = j.job_group AND "
        "f.job_name = j.job_name AND f.state = 'EXECUTING' AND f.forbid = 1), "
        "EXISTS (SELECT 1 FROM {P}paused_groups p WHERE p.sched_name = "
        "j.sched_name AND (p.match_kind = 4 OR (p.match_kind = 0 AND "
        "p.pattern = ?) OR (p.match_kind = 1 AND LEFT(?, "
        "CHAR_LENGTH(p.pattern)) = p.pattern) OR (p.match_kind = 2 AND "
        "RIGHT(?, CHAR_LENGTH(p.pattern)) = p.pattern) OR (p.match_kind = 3 "
        "AND LOCATE(p.pattern, ?) > 0))) FROM {P}jobs j WHERE " JOB_KEY
        " FOR UPDATE",
    [CHIME__Q_JOB_INSERT] =
        "INSERT INTO {P}jobs (sched_name, job_group, job_name, job_type, "
        "description, data, durable, requests_recovery, concurrency, "
        "persist_data, paused) VALUES (?,?,?,?,?,?,?,?,?,?,0)",
    [CHIME__Q_JOB_UPDATE] =
        "UPDATE {P}jobs SET job_type = ?, description = ?, data = ?, "
        "durable = ?, requests_recovery = ?, concurrency = ?, persist_data = ?"
        " WHERE " JOB_KEY,
    [CHIME__Q_JOB_DELETE] = "DELETE FROM {P}jobs WHERE " JOB_KEY,
    [CHIME__Q_JOB_SET_TYPE] = "UPDATE {P}triggers SET job_type = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_SET_DATA] = "UPDATE {P}jobs SET data = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_SET_PAUSED] = "UPDATE {P}jobs SET paused = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_HAS_TRIGGERS] =
        "SELECT 1 FROM {P}triggers WHERE " JOB_KEY " LIMIT 1",
    [CHIME__Q_JOB_LIST] = "SELECT job_group, job_name FROM {P}jobs WHERE sched_name "
                   "= ? AND job_group LIKE ? ESCAPE '!'",
    [CHIME__Q_TRIG_GET] = "SELECT " T " FROM {P}triggers WHERE " SCHED_KEY,
    [CHIME__Q_TRIG_GET_LOCK] =
        "SELECT " T " FROM {P}triggers WHERE " SCHED_KEY " FOR UPDATE",
    [CHIME__Q_TRIG_INSERT] =
        "INSERT INTO {P}triggers (sched_name, " T ") VALUES (?,?,?,?,?,?,?,?,"
        "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [CHIME__Q_TRIG_DELETE] = "DELETE FROM {P}triggers WHERE " SCHED_KEY,
    [CHIME__Q_TRIG_DELETE_OF_JOB] = "DELETE FROM {P}triggers WHERE " JOB_KEY,
    [CHIME__Q_TRIG_LIST] = "SELECT trigger_group, trigger_name FROM {P}triggers "
                    "WHERE sched_name = ? AND trigger_group LIKE ? ESCAPE '!'",
    [CHIME__Q_TRIG_LIST_OF_JOB] =
        "SELECT trigger_group, trigger_name FROM {P}triggers WHERE " JOB_KEY,
    [CHIME__Q_TRIG_STATUS] = "SELECT state FROM {P}triggers WHERE " SCHED_KEY,
    [CHIME__Q_TRIG_OF_CALENDAR] = "SELECT " T " FROM {P}triggers WHERE sched_name = "
                           "? AND calendar_name = ? FOR UPDATE",
    [CHIME__Q_TRIG_CALENDAR_USED] = "SELECT 1 FROM {P}triggers WHERE sched_name = ? "
                             "AND calendar_name = ? LIMIT 1",
    [CHIME__Q_PAUSE_KEY] = PAUSE_SET SCHED_KEY,
    [CHIME__Q_PAUSE_JOB] = PAUSE_SET JOB_KEY,
    [CHIME__Q_PAUSE_LIKE] =
        PAUSE_SET "sched_name = ? AND trigger_group LIKE ? ESCAPE '!'",
    [CHIME__Q_RESUME_KEY] = RESUME_SET "t.sched_name = ? AND t.trigger_group = ? AND "
                                "t.trigger_name = ?",
    [CHIME__Q_RESUME_JOB] = RESUME_SET "t.sched_name = ? AND t.job_group = ? AND "
                                "t.job_name = ?",
    [CHIME__Q_RESUME_LIKE] =
        RESUME_SET "t.sched_name = ? AND t.trigger_group LIKE ? ESCAPE '!'",
    [CHIME__Q_BLOCK_JOB] = "UPDATE {P}triggers SET state = CASE state WHEN 'WAITING' "
                    "THEN 'BLOCKED' WHEN 'PAUSED' THEN 'PAUSED_BLOCKED' ELSE "
                    "state END WHERE " JOB_KEY,
    [CHIME__Q_UNBLOCK_JOB] =
        "UPDATE {P}triggers SET state = CASE WHEN state NOT IN ('BLOCKED', "
        "'PAUSED_BLOCKED') THEN state WHEN next_fire_ms = " NO_FIRE " THEN "
        "'COMPLETE' WHEN state = 'BLOCKED' THEN 'WAITING' ELSE 'PAUSED' END "
        "WHERE " JOB_KEY,
    [CHIME__Q_JOB_EXECUTING] = "SELECT 1 FROM {P}fired WHERE " JOB_KEY
                        " AND state = 'EXECUTING' AND forbid = 1 LIMIT 1",
    [CHIME__Q_JOB_HAS_FIRES] = "SELECT 1 FROM {P}fired WHERE " JOB_KEY " LIMIT 1",
    [CHIME__Q_PG_LIST] = "SELECT match_kind, pattern FROM {P}paused_groups WHERE "
                  "sched_name = ?",
    [CHIME__Q_PG_INSERT] = "INSERT IGNORE INTO {P}paused_groups (sched_name, "
                    "match_kind, pattern) VALUES (?,?,?)",
    [CHIME__Q_PG_DELETE] = "DELETE FROM {P}paused_groups WHERE sched_name = ? AND "
                    "match_kind = ? AND pattern = ?",
    [CHIME__Q_PG_CLEAR] = "DELETE FROM {P}paused_groups WHERE sched_name = ?",
    [CHIME__Q_JOBS_UNPAUSE] = "UPDATE {P}jobs SET paused = 0 WHERE sched_name = ?",
    [CHIME__Q_CAL_GET] = "SELECT definition FROM {P}calendars WHERE sched_name = ? "
                  "AND calendar_name = ? LOCK IN SHARE MODE",
    [CHIME__Q_CAL_GET_LOCK] = "SELECT definition FROM {P}calendars WHERE sched_name "
                       "= ? AND calendar_name = ? FOR UPDATE",
    [CHIME__Q_CAL_INSERT] = "INSERT INTO {P}calendars (sched_name, calendar_name, "
                     "definition) VALUES (?,?,?)",
    [CHIME__Q_CAL_UPDATE] = "UPDATE {P}calendars SET definition = ? WHERE "
                     "sched_name = ? AND calendar_name = ?",
    [CHIME__Q_CAL_DELETE] = "DELETE FROM {P}calendars WHERE sched_name = ? AND "
                     "calendar_name = ?",
    [CHIME__Q_FIRED_GET] =
        "SELECT fire_id, trigger_group, trigger_name, job_group, job_name, "
        "scheduled_ms, node, state, forbid, requests_recovery, recovering, "
        "priority FROM {P}fired WHERE fire_id = ? AND sched_name = ? FOR "
        "UPDATE",
    [CHIME__Q_FIRED_DELETE] = "DELETE FROM {P}fired WHERE fire_id = ?",
    [CHIME__Q_FIRED_OWNED] = "SELECT 1 FROM {P}fired WHERE fire_id = ? AND "
                      "sched_name = ? AND node = ? AND state = 'EXECUTING'",
    [CHIME__Q_FIRED_OF_NODE] =
        "SELECT fire_id, trigger_group, trigger_name, job_group, job_name, "
        "scheduled_ms, node, state, forbid, requests_recovery, recovering, "
        "priority FROM {P}fired WHERE sched_name = ? AND node = ? ORDER BY "
        "fire_id FOR UPDATE",
    [CHIME__Q_TRIG_UNCLAIM] =
        "UPDATE {P}triggers SET state = IF(next_fire_ms = " NO_FIRE ", "
        "'COMPLETE', 'WAITING'), owner = NULL, claim_fire_id = NULL WHERE "
        SCHED_KEY " AND state = 'ACQUIRED' AND claim_fire_id = ?",
    [CHIME__Q_MISFIRED] = "SELECT " T " FROM {P}triggers WHERE sched_name = ? AND "
                   "state = 'WAITING' AND misfire <> 1 AND next_fire_ms <= ? "
                   "AND next_fire_ms <> " NO_FIRE " ORDER BY next_fire_ms, "
                   "priority DESC, trigger_group, trigger_name LIMIT ? FOR "
                   "UPDATE SKIP LOCKED",
    [CHIME__Q_TRIG_SET_FIRE_STATE] =
        "UPDATE {P}triggers SET next_fire_ms = ?, prev_fire_ms = ?, "
        "times_triggered = ?, state_start_ms = ?, state_repeat_count = ?, "
        "state = ?, owner = NULL, claim_fire_id = NULL WHERE " SCHED_KEY,
    [CHIME__Q_HISTORY_INSERT] =
        "INSERT INTO {P}history (sched_name, fire_id, trigger_group, "
        "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
        "error_code, error_text, started_ms, duration_ms, recovering, "
        "finished_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [CHIME__Q_HISTORY_TRIM] = "DELETE FROM {P}history WHERE sched_name = ? AND "
                       "finished_ms < ? LIMIT 1000",
    [CHIME__Q_NODE_UPSERT] =
        "INSERT INTO {P}nodes (sched_name, instance_id, host, pid, "
        "started_ms, last_checkin_ms, checkin_interval_ms, version) VALUES "
        "(?,?,?,?,?,CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED),?,?) ON "
        "DUPLICATE KEY UPDATE last_checkin_ms = CAST(UNIX_TIMESTAMP(NOW(3)) "
        "* 1000 AS SIGNED), checkin_interval_ms = VALUES(checkin_interval_ms)",
    /* The database's clock and when the first lease of another node runs
     * out (factor, scheduler, this node). */
    [CHIME__Q_NODES_LEASE] =
        "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED), "
        "MIN(last_checkin_ms + checkin_interval_ms * ?) FROM {P}nodes WHERE "
        "sched_name = ? AND instance_id <> ?",
    [CHIME__Q_NODES_DEAD] =
        "SELECT instance_id FROM {P}nodes WHERE sched_name = ? AND "
        "instance_id <> ? AND last_checkin_ms + checkin_interval_ms * ? + ? < "
        "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
    [CHIME__Q_NODE_LOCK] =
        "SELECT instance_id FROM {P}nodes WHERE sched_name = ? AND "
        "instance_id = ? AND last_checkin_ms + checkin_interval_ms * ? + ? < "
        "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) FOR UPDATE",
    [CHIME__Q_NODE_DELETE] = "DELETE FROM {P}nodes WHERE sched_name = ? AND "
                      "instance_id = ?",
    [CHIME__Q_DB_NOW] = "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
};

char *chime__mysql_subst_prefix(const char *text, const char *prefix) {
  size_t plen = strlen(prefix), n = 0;
  for (const char *p = strstr(text, "{P}"); p; p = strstr(p + 3, "{P}"))
    n++;
  size_t len = strlen(text) + n * plen + 1;
  char *out = malloc(len), *o = out;
  if (!out)
    return NULL;
  for (const char *p = text; *p;) {
    if (p[0] == '{' && p[1] == 'P' && p[2] == '}') {
      memcpy(o, prefix, plen);
      o += plen;
      p += 3;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

int chime__mysql_sql_init(chime__mysql_store *s) {
  for (size_t i = 0; i < CHIME__Q_COUNT; i++)
    if (!(s->sql[i] = chime__mysql_subst_prefix(sql_text[i], s->prefix)))
      return CHIME_ENOMEM;
  return 0;
}

chime__mysql_arg chime__mysql_arg_int(int64_t v) {
  return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_INT, .i = v};
}

chime__mysql_arg chime__mysql_arg_text(const char *s) {
  if (!s)
    return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_NULL};
  return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_TEXT, .p = s, .len = strlen(s)};
}

chime__mysql_arg chime__mysql_arg_bytes(const void *p, size_t len) {
  if (!p && len == 0)
    return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_NULL};
  return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_BYTES, .p = p ? p : "", .len = len};
}

const char *chime__mysql_rows_text(const chime__mysql_rows *r, size_t row, size_t col) {
  return r->cells[row * r->ncols + col].v;
}

int64_t chime__mysql_rows_int64(const chime__mysql_rows *r, size_t row, size_t col) {
  const char *v = chime__mysql_rows_text(r, row, col);
  return v ? strtoll(v, NULL, 10) : 0;
}

size_t chime__mysql_rows_len(const chime__mysql_rows *r, size_t row, size_t col) {
  return r->cells[row * r->ncols + col].len;
}

void chime__mysql_rows_free(chime__mysql_rows *r) {
  if (!r || !r->cells)
    return;
  for (size_t i = 0; i < r->nrows * r->ncols; i++)
    free(r->cells[i].v);
  free(r->cells);
  r->cells = NULL;
  r->nrows = 0;
}

void chime__mysql_conn_reset(chime__mysql_conn *c, bool close_db) {
  for (size_t i = 0; i < CHIME__Q_COUNT; i++) {
    if (c->stmts[i])
      mysql_stmt_close(c->stmts[i]);
    c->stmts[i] = NULL;
  }
  if (close_db && c->db) {
    mysql_close(c->db);
    c->db = NULL;
  }
}

/* Records a failure: the error number, the message, the log. */
int chime__mysql_fail(chime__mysql_tx *tx, unsigned err, const char *msg,
                   const char *sql) {
  tx->last_errno = err;
  if (tx->errbuf && tx->errbuf_len)
    snprintf(tx->errbuf, tx->errbuf_len, "MySQL error %u: %s", err, msg);
  if (err != ER_LOCK_DEADLOCK && err != ER_LOCK_WAIT_TIMEOUT &&
      err != CR_SERVER_GONE_ERROR && err != CR_SERVER_LOST)
    chime__mysql_log(tx->s, CHIME_LOG_ERROR, "MySQL error %u: %s (in: %.120s)",
                  err, msg, sql);
  if (err == ER_DUP_ENTRY)
    return CHIME_EEXISTS;
  int r = chime__mysql_error_code(err);
  return r == 0 ? CHIME_ESTORE : r;
}

/* The statement for id (prepared once per connection) or sql (prepared
 * now; *ret_own set, the caller closes it). */
static int prepare(chime__mysql_tx *tx, chime__mysql_stmt_id id, const char *sql,
                   MYSQL_STMT **ret, bool *ret_own) {
  MYSQL_STMT **slot = sql ? NULL : &tx->c->stmts[id];
  const char *text = sql ? sql : tx->s->sql[id];
  *ret_own = sql != NULL;
  if (slot && *slot) {
    *ret = *slot;
    return 0;
  }
  MYSQL_STMT *st = mysql_stmt_init(tx->c->db);
  if (!st)
    return chime__mysql_fail(tx, CR_OUT_OF_MEMORY, "out of memory", text);
  if (mysql_stmt_prepare(st, text, strlen(text)) != 0) {
    int r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), text);
    mysql_stmt_close(st);
    return r;
  }
  if (slot)
    *slot = st;
  *ret = st;
  return 0;
}

static int bind_args(chime__mysql_tx *tx, MYSQL_STMT *st, const chime__mysql_arg *args,
                     size_t nargs, MYSQL_BIND *b) {
  static my_bool yes = 1;
  memset(b, 0, nargs * sizeof *b);
  for (size_t i = 0; i < nargs; i++) {
    switch (args[i].kind) {
    case CHIME__MYSQL_ARG_NULL:
      b[i].buffer_type = MYSQL_TYPE_NULL;
      b[i].is_null = &yes;
      break;
    case CHIME__MYSQL_ARG_INT:
      b[i].buffer_type = MYSQL_TYPE_LONGLONG;
      b[i].buffer = (void *)&args[i].i;
      break;
    case CHIME__MYSQL_ARG_TEXT:
    case CHIME__MYSQL_ARG_BYTES:
      b[i].buffer_type =
          args[i].kind == CHIME__MYSQL_ARG_TEXT ? MYSQL_TYPE_STRING : MYSQL_TYPE_BLOB;
      b[i].buffer = (void *)args[i].p;
      b[i].buffer_length = (unsigned long)args[i].len;
      break;
    }
  }
  if (nargs != mysql_stmt_param_count(st))
    return chime__mysql_fail(tx, CR_UNKNOWN_ERROR, "parameter count mismatch", "bind");
  if (nargs && mysql_stmt_bind_param(st, b) != 0)
    return chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), "bind");
  return 0;
}

/* Prepares, binds and executes; *ret_st is the statement to read. */
static int run(chime__mysql_tx *tx, chime__mysql_stmt_id id, const char *sql, const chime__mysql_arg *args,
               size_t nargs, MYSQL_STMT **ret_st, bool *ret_own) {
  MYSQL_BIND *b = calloc(nargs ? nargs : 1, sizeof *b);
  MYSQL_STMT *st = NULL;
  if (!b)
    return CHIME_ENOMEM;
  int r = prepare(tx, id, sql, &st, ret_own);
  if (r < 0) {
    free(b);
    return r;
  }
  r = bind_args(tx, st, args, nargs, b);
  if (r == 0 && mysql_stmt_execute(st) != 0)
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
             sql ? sql : tx->s->sql[id]);
  free(b);
  if (r < 0 && *ret_own)
    mysql_stmt_close(st);
  if (r == 0)
    *ret_st = st;
  return r;
}

int chime__mysql_exec(chime__mysql_tx *tx, chime__mysql_stmt_id id, const char *sql,
                   const chime__mysql_arg *args, size_t nargs, uint64_t *ret_affected,
                   uint64_t *ret_insert_id) {
  MYSQL_STMT *st;
  bool own;
  int r = run(tx, id, sql, args, nargs, &st, &own);
  if (r < 0)
    return r;
  if (ret_affected)
    *ret_affected = mysql_stmt_affected_rows(st);
  if (ret_insert_id)
    *ret_insert_id = mysql_stmt_insert_id(st);
  if (own)
    mysql_stmt_close(st);
  return 0;
}

/* Fetches every row of an executed statement into *ret. */
static int fetch_all(chime__mysql_tx *tx, MYSQL_STMT *st, chime__mysql_rows *ret) {
  my_bool update_max = 1;
  mysql_stmt_attr_set(st, STMT_ATTR_UPDATE_MAX_LENGTH, &update_max);
  if (mysql_stmt_store_result(st) != 0)
    return chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), "fetch");
  MYSQL_RES *meta = mysql_stmt_result_metadata(st);
  size_t ncols = meta ? mysql_num_fields(meta) : 0;
  size_t nrows = (size_t)mysql_stmt_num_rows(st);
  int r = 0;
  MYSQL_BIND *b = calloc(ncols ? ncols : 1, sizeof *b);
  unsigned long *lens = calloc(ncols ? ncols : 1, sizeof *lens);
  my_bool *nulls = calloc(ncols ? ncols : 1, sizeof *nulls);
  ret->ncols = ncols;
  ret->nrows = 0;
  ret->cells = calloc(nrows * ncols > 0 ? nrows * ncols : 1, sizeof *ret->cells);
  if (!b || !lens || !nulls || !ret->cells)
    r = CHIME_ENOMEM;
  MYSQL_FIELD *fields = meta ? mysql_fetch_fields(meta) : NULL;
  for (size_t c = 0; r == 0 && c < ncols; c++) {
    b[c].buffer_type = MYSQL_TYPE_STRING;
    /* Numbers come as text: leave room for any of them. */
    b[c].buffer_length =
        (fields[c].max_length > 64 ? fields[c].max_length : 64) + 1;
    b[c].buffer = malloc(b[c].buffer_length);
    b[c].length = &lens[c];
    b[c].is_null = &nulls[c];
    if (!b[c].buffer)
      r = CHIME_ENOMEM;
  }
  if (r == 0 && ncols && mysql_stmt_bind_result(st, b) != 0)
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), "bind result");
  for (size_t i = 0; r == 0 && i < nrows; i++) {
    int f = mysql_stmt_fetch(st);
    if (f == MYSQL_NO_DATA)
      break;
    if (f == 1 || f == MYSQL_DATA_TRUNCATED) {
      r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), "fetch");
      break;
    }
    for (size_t c = 0; c < ncols && r == 0; c++) {
      chime__mysql_cell *cell = &ret->cells[i * ncols + c];
      if (nulls[c])
        continue;
      cell->len = lens[c];
      if (!(cell->v = malloc(lens[c] + 1))) {
        r = CHIME_ENOMEM;
        break;
      }
      memcpy(cell->v, b[c].buffer, lens[c]);
      cell->v[lens[c]] = '\0';
    }
    ret->nrows = i + 1;
  }
  for (size_t c = 0; b && c < ncols; c++)
    free(b[c].buffer);
  free(b);
  free(lens);
  free(nulls);
  if (meta)
    mysql_free_result(meta);
  mysql_stmt_free_result(st);
  if (r < 0)
    chime__mysql_rows_free(ret);
  return r;
}

int chime__mysql_query(chime__mysql_tx *tx, chime__mysql_stmt_id id, const char *sql,
                    const chime__mysql_arg *args, size_t nargs, chime__mysql_rows *ret) {
  MYSQL_STMT *st;
  bool own;
  memset(ret, 0, sizeof *ret);
  int r = run(tx, id, sql, args, nargs, &st, &own);
  if (r < 0)
    return r;
  r = fetch_all(tx, st, ret);
  if (own)
    mysql_stmt_close(st);
  return r;
}

int chime__mysql_exec_plain(chime__mysql_tx *tx, const char *sql) {
  if (mysql_real_query(tx->c->db, sql, (unsigned long)strlen(sql)) != 0)
    return chime__mysql_fail(tx, mysql_errno(tx->c->db), mysql_error(tx->c->db), sql);
  MYSQL_RES *res = mysql_store_result(tx->c->db);
  if (res)
    mysql_free_result(res);
  return 0;
}
