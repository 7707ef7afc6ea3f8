/*
 * mysql/job_stmt.c: a job's own statements, run in a transaction of the
 * store: chime_mysql_tx_execute's (fire_tx.c, in the job's transaction)
 * and chime_ctx_complete_with's (complete.c, in the completion's).  The
 * text is the application's, so it is prepared on the server and its
 * parameters are bound, never spliced into the text; the server converts
 * the text of each to its column's type.
 *
 * A batch of completions usually carries the same statement for many fires
 * (one job type, one INSERT): a chime__mysql_job_stmt keeps the last one
 * prepared, so such a batch prepares it once, and executes it once for all
 * their parameter rows (chime__mysql_job_stmt_run_many: MariaDB's bulk
 * execution; a statement with a result set, or a server without it, runs
 * once per row).
 *
 * Threads: the caller's transaction's thread; nothing shared.
 */
#include "jobstore/mysql/ops.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chime__mysql_job_stmt_close(chime__mysql_job_stmt *js) {
  if (js->st)
    mysql_stmt_close(js->st);
  *js = (chime__mysql_job_stmt){0};
}

/* js's statement prepared for sql, on tx's connection. */
static int prepare(chime__mysql_tx *tx, chime__mysql_job_stmt *js,
                   const char *sql) {
  if (js->st && strcmp(js->sql, sql) == 0)
    return 0;
  chime__mysql_job_stmt_close(js);
  MYSQL_STMT *st = mysql_stmt_init(tx->c->db);
  if (!st)
    return CHIME_ENOMEM;
  if (mysql_stmt_prepare(st, sql, strlen(sql)) != 0) {
    int r =
        chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), sql);
    mysql_stmt_close(st);
    return r;
  }
  *js = (chime__mysql_job_stmt){.st = st, .sql = sql};
  return 0;
}

/* Executes js's statement once with the nrows parameter rows bound as
 * arrays (MariaDB's bulk execution: one round trip, and an INSERT is
 * written as one of many rows), or with one row when nrows is 1. */
static int execute(chime__mysql_tx *tx, chime__mysql_job_stmt *js,
                   const char *const *const *rows, size_t nrows,
                   size_t nparams) {
  MYSQL_STMT *st = js->st;
  size_t cells = nparams * nrows;
  MYSQL_BIND *b = calloc(nparams ? nparams : 1, sizeof *b);
  unsigned long *lens = calloc(cells ? cells : 1, sizeof *lens);
  const char **ptrs = calloc(cells ? cells : 1, sizeof *ptrs);
  char *nulls = calloc(cells ? cells : 1, 1);
  int r = b && lens && ptrs && nulls ? 0 : CHIME_ENOMEM;
  for (size_t p = 0; r == 0 && p < nparams; p++) {
    unsigned long *plens = lens + p * nrows;
    const char **pptrs = ptrs + p * nrows;
    char *pnulls = nulls + p * nrows;
    for (size_t i = 0; i < nrows; i++) {
      const char *v = rows[i][p];
      pptrs[i] = v ? v : "";
      plens[i] = v ? (unsigned long)strlen(v) : 0;
      pnulls[i] = v ? STMT_INDICATOR_NONE : STMT_INDICATOR_NULL;
    }
    b[p].buffer_type = MYSQL_TYPE_STRING;
    b[p].length = plens;
    if (nrows > 1) { /* column-wise: an array of each */
      b[p].buffer = (void *)pptrs;
      b[p].u.indicator = pnulls;
    } else if (rows[0][p]) {
      b[p].buffer = (void *)(uintptr_t)pptrs[0];
      b[p].buffer_length = plens[0];
    } else {
      b[p].buffer_type = MYSQL_TYPE_NULL;
    }
  }
  unsigned int array_size = nrows > 1 ? (unsigned int)nrows : 0;
  if (r == 0 && mysql_stmt_attr_set(st, STMT_ATTR_ARRAY_SIZE, &array_size))
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                          js->sql);
  if (r == 0 && nparams && mysql_stmt_bind_param(st, b) != 0)
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                          js->sql);
  if (r == 0 && mysql_stmt_execute(st) != 0)
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                          js->sql);
  free(b);
  free(lens);
  free(ptrs);
  free(nulls);
  return r;
}

/* Whether db's server executes a statement for an array of parameter
 * rows at once (MariaDB 10.2 and later; not MySQL). */
static bool bulk_supported(MYSQL *db) {
  unsigned long caps = 0, ext = 0;
  if (mariadb_get_infov(db, MARIADB_CONNECTION_SERVER_CAPABILITIES, &caps) ||
      mariadb_get_infov(db, MARIADB_CONNECTION_EXTENDED_SERVER_CAPABILITIES,
                        &ext))
    return false;
  return !(caps & CLIENT_MYSQL) &&
         (ext & (MARIADB_CLIENT_STMT_BULK_OPERATIONS >> 32)) != 0;
}

int chime__mysql_job_stmt_run_many(chime__mysql_tx *tx,
                                   chime__mysql_job_stmt *js, const char *sql,
                                   const char *const *const *rows, size_t nrows,
                                   size_t nparams, uint64_t *ret_affected) {
  assert(tx && tx->c && tx->c->db && js && sql && rows && nrows > 0);
  int r = prepare(tx, js, sql);
  if (r < 0)
    return r;
  MYSQL_STMT *st = js->st;
  if (mysql_stmt_param_count(st) != nparams)
    return chime__record_err(tx->errbuf, tx->errbuf_len, CHIME_EINVAL,
                             "the statement has %lu placeholder(s) but %zu "
                             "parameter(s) were given",
                             mysql_stmt_param_count(st), nparams);
  /* A statement with a result set, or a server without bulk execution,
   * runs once per row. */
  bool bulk =
      nrows > 1 && mysql_stmt_field_count(st) == 0 && bulk_supported(tx->c->db);
  uint64_t affected = 0;
  for (size_t i = 0; r == 0 && i < nrows; i += bulk ? nrows : 1) {
    r = execute(tx, js, rows + i, bulk ? nrows : 1, nparams);
    if (r == 0 && mysql_stmt_field_count(st) == 0)
      affected += mysql_stmt_affected_rows(st);
    /* A result set is read and dropped, so the connection is free again. */
    if (r == 0 && mysql_stmt_field_count(st) > 0) {
      if (mysql_stmt_store_result(st) != 0)
        r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                              sql);
      else
        affected += mysql_stmt_num_rows(st);
      mysql_stmt_free_result(st);
    }
  }
  if (r == 0 && ret_affected)
    *ret_affected = affected;
  return r;
}

int chime__mysql_job_stmt_run(chime__mysql_tx *tx, chime__mysql_job_stmt *js,
                              const char *sql, const char *const *params,
                              size_t nparams, uint64_t *ret_affected) {
  assert(params || nparams == 0);
  static const char *const none[1];
  const char *const *row = params ? params : none;
  return chime__mysql_job_stmt_run_many(tx, js, sql, &row, 1, nparams,
                                        ret_affected);
}
