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
 * prepared, so such a batch prepares it once and executes it per fire.
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
  if (js->st && js->db == tx->c->db && strcmp(js->sql, sql) == 0)
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
  *js = (chime__mysql_job_stmt){.st = st, .sql = sql, .db = tx->c->db};
  return 0;
}

int chime__mysql_job_stmt_run(chime__mysql_tx *tx, chime__mysql_job_stmt *js,
                              const char *sql, const char *const *params,
                              size_t nparams, uint64_t *ret_affected) {
  assert(tx && tx->c && tx->c->db && js && sql && (params || nparams == 0));
  int r = prepare(tx, js, sql);
  if (r < 0)
    return r;
  MYSQL_STMT *st = js->st;
  if (mysql_stmt_param_count(st) != nparams)
    return chime__record_err(tx->errbuf, tx->errbuf_len, CHIME_EINVAL,
                             "the statement has %lu placeholder(s) but %zu "
                             "parameter(s) were given",
                             mysql_stmt_param_count(st), nparams);
  MYSQL_BIND *b = calloc(nparams ? nparams : 1, sizeof *b);
  unsigned long *lens = calloc(nparams ? nparams : 1, sizeof *lens);
  r = b && lens ? 0 : CHIME_ENOMEM;
  for (size_t i = 0; r == 0 && i < nparams; i++) {
    if (!params[i]) {
      b[i].buffer_type = MYSQL_TYPE_NULL;
      continue;
    }
    lens[i] = (unsigned long)strlen(params[i]);
    b[i].buffer_type = MYSQL_TYPE_STRING;
    b[i].buffer = (void *)(uintptr_t)params[i];
    b[i].buffer_length = lens[i];
    b[i].length = &lens[i];
  }
  if (r == 0 && nparams && mysql_stmt_bind_param(st, b) != 0)
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), sql);
  if (r == 0 && mysql_stmt_execute(st) != 0)
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), sql);
  if (r == 0 && ret_affected)
    *ret_affected = mysql_stmt_affected_rows(st);
  /* A result set is read and dropped, so the connection is free again. */
  if (r == 0 && mysql_stmt_field_count(st) > 0) {
    if (mysql_stmt_store_result(st) != 0)
      r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                            sql);
    else if (ret_affected)
      *ret_affected = mysql_stmt_num_rows(st);
    mysql_stmt_free_result(st);
  }
  free(b);
  free(lens);
  return r;
}
