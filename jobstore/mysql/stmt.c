/*
 * mysql/stmt.c: running the MySQL store's statements (stmt.h): a prepared
 * statement is prepared once per connection and kept there; arguments are
 * bound by type; results are materialised as text cells (result.h).
 *
 * Thread: the one running the transaction (tx.h); nothing here locks.
 */
#include "jobstore/mysql/stmt.h"

#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <ctype.h>
#include <errmsg.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CHIME__MYSQL_ARG_NULL == 0, "a zeroed argument is SQL NULL");

chime__mysql_arg chime__mysql_arg_int(int64_t v) {
  return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_INT, .i = v};
}

chime__mysql_arg chime__mysql_arg_text(const char *s) {
  if (!s)
    return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_NULL};
  return (chime__mysql_arg){
      .kind = CHIME__MYSQL_ARG_TEXT, .p = s, .len = strlen(s)};
}

chime__mysql_arg chime__mysql_arg_bytes(const void *p, size_t len) {
  assert(p || len == 0);
  if (!p && len == 0)
    return (chime__mysql_arg){.kind = CHIME__MYSQL_ARG_NULL};
  return (chime__mysql_arg){
      .kind = CHIME__MYSQL_ARG_BYTES, .p = p ? p : "", .len = len};
}

void chime__mysql_conn_reset(chime__mysql_conn *c, bool close_db) {
  assert(c);
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

/* Where keyword kw stands as a word of the outer statement in sql
 * (whitespace or the text's edge on both sides: the statements are .sql
 * files, broken over lines; outside parentheses, so not a subquery's, and
 * outside quoted text), just past it; NULL when it does not. */
static const char *outer_word(const char *sql, const char *kw) {
  size_t n = strlen(kw);
  int depth = 0;
  char quote = 0;
  for (const char *p = sql; *p; p++) {
    if (quote) {
      if (*p == '\\' && p[1])
        p++;
      else if (*p == quote)
        quote = 0;
    } else if (*p == '\'' || *p == '"' || *p == '`') {
      quote = *p;
    } else if (*p == '(') {
      depth++;
    } else if (*p == ')') {
      depth -= depth > 0;
    } else if (depth == 0 && strncmp(p, kw, n) == 0 &&
               (p == sql || isspace((unsigned char)p[-1])) &&
               (p[n] == '\0' || isspace((unsigned char)p[n]))) {
      return p + n;
    }
  }
  return NULL;
}

size_t chime__mysql_one_line(char *dst, size_t dst_len, const char *text) {
  assert(dst && dst_len > 0 && text);
  size_t out = 0;
  text += strspn(text, " \t\r\n");
  for (const char *p = text; *p && out + 1 < dst_len; p++) {
    if (!isspace((unsigned char)*p))
      dst[out++] = *p;
    else if (!isspace((unsigned char)p[1]) && p[1] != '\0')
      dst[out++] = ' ';
  }
  dst[out] = '\0';
  return out;
}

/* The rows a statement that timed out waiting for a lock wanted, for the
 * warning (tx.c): "TABLE where WHERE-CLAUSE", the statement's first table
 * and its WHERE (values inline in built statements), both the outer
 * statement's, on one line, shortened. */
static void describe_wait(chime__mysql_tx *tx, const char *sql) {
  const char *table = NULL;
  static const char *const kw[] = {"FROM", "UPDATE", "INTO"};
  for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++) {
    const char *p = outer_word(sql, kw[k]);
    if (p && (!table || p < table))
      table = p;
  }
  if (table)
    table += strspn(table, " \t\r\n");
  size_t tlen = table ? strcspn(table, " \t\r\n,()") : 0;
  const char *where = outer_word(sql, "WHERE");
  int len = snprintf(tx->waited, sizeof tx->waited, "%.*s where ", (int)tlen,
                     table ? table : "");
  if (len < 0 || (size_t)len >= sizeof tx->waited)
    return;
  if (!where) {
    snprintf(tx->waited + len, sizeof tx->waited - len, "(no WHERE)");
    return;
  }
  size_t room = sizeof tx->waited - (size_t)len;
  chime__mysql_one_line(tx->waited + len, room < 201 ? room : 201, where);
}

/* Appends the arguments of a prepared statement to tx->waited: " with
 * ('a', 1, ...)", so that the warning names the row. */
static void describe_args(chime__mysql_tx *tx, const chime__mysql_arg *args,
                          size_t nargs) {
  size_t len = strlen(tx->waited);
  for (size_t i = 0; i < nargs && len + 8 < sizeof tx->waited; i++) {
    int w = 0;
    size_t room = sizeof tx->waited - len;
    const char *sep = i == 0 ? " with (" : ", ";
    switch (args[i].kind) {
    case CHIME__MYSQL_ARG_NULL:
      w = snprintf(tx->waited + len, room, "%sNULL", sep);
      break;
    case CHIME__MYSQL_ARG_INT:
      w = snprintf(tx->waited + len, room, "%s%lld", sep, (long long)args[i].i);
      break;
    case CHIME__MYSQL_ARG_TEXT:
      w = snprintf(tx->waited + len, room, "%s'%.*s'", sep,
                   (int)(args[i].len < 64 ? args[i].len : 64),
                   (const char *)args[i].p);
      break;
    case CHIME__MYSQL_ARG_BYTES:
      w = snprintf(tx->waited + len, room, "%s(%zu bytes)", sep, args[i].len);
      break;
    }
    if (w < 0 || (size_t)w >= room)
      return; /* cut short */
    len += (size_t)w;
  }
  if (nargs > 0 && len + 1 < sizeof tx->waited)
    snprintf(tx->waited + len, sizeof tx->waited - len, ")");
}

int chime__mysql_fail(chime__mysql_tx *tx, unsigned err, const char *msg,
                      const char *sql) {
  assert(tx && msg && sql);
  tx->last_errno = err;
  if (err == ER_LOCK_WAIT_TIMEOUT)
    describe_wait(tx, sql);
  if (tx->errbuf && tx->errbuf_len)
    snprintf(tx->errbuf, tx->errbuf_len, "MySQL error %u: %s", err, msg);
  /* Not ERROR, which operators page on: a duplicate key is an answer the
   * caller acts on (CHIME_EEXISTS: a job scheduled by several replicas at
   * once, an instance id claimed at once), a read-only server is left for
   * the next member, logged once per fail-over by the retry (tx.c), and
   * any other refusal is reported by the layer that knows whether it
   * matters (the engine's step, at ERROR; an API call's return code). */
  char one_line[128]; /* the statement as the log shows it */
  chime__mysql_one_line(one_line, sizeof one_line, sql);
  if (err != ER_LOCK_DEADLOCK && err != ER_LOCK_WAIT_TIMEOUT &&
      err != CR_SERVER_GONE_ERROR && err != CR_SERVER_LOST)
    chime__mysql_log(tx->s,
                     err == ER_DUP_ENTRY || chime__mysql_read_only_error(err)
                         ? CHIME_LOG_DEBUG
                         : CHIME_LOG_WARN,
                     "MySQL error %u: %s (in: %s)", err, msg, one_line);
  if (err == ER_DUP_ENTRY)
    return CHIME_EEXISTS;
  int r = chime__mysql_error_code(err);
  return r == 0 ? CHIME_ESTORE : r;
}

/* The statement of id, prepared once per connection. */
static int prepare(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                   MYSQL_STMT **ret) {
  assert((unsigned)id < CHIME__Q_COUNT);
  MYSQL_STMT **slot = &tx->c->stmts[id];
  const char *text = tx->s->sql[id];
  if (*slot) {
    *ret = *slot;
    return 0;
  }
  MYSQL_STMT *st = mysql_stmt_init(tx->c->db);
  if (!st)
    return chime__mysql_fail(tx, CR_OUT_OF_MEMORY, "out of memory", text);
  if (mysql_stmt_prepare(st, text, strlen(text)) != 0) {
    int r =
        chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st), text);
    mysql_stmt_close(st);
    return r;
  }
  *slot = st;
  *ret = st;
  return 0;
}

static int bind_args(chime__mysql_tx *tx, MYSQL_STMT *st,
                     const chime__mysql_arg *args, size_t nargs,
                     MYSQL_BIND *b) {
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
      assert(args[i].p);
      b[i].buffer_type = args[i].kind == CHIME__MYSQL_ARG_TEXT
                             ? MYSQL_TYPE_STRING
                             : MYSQL_TYPE_BLOB;
      b[i].buffer = (void *)args[i].p;
      b[i].buffer_length = (unsigned long)args[i].len;
      break;
    }
  }
  /* A statement's texts and its callers' argument lists are constants of
   * this store: a mismatch is a bug (the server would refuse it too). */
  assert(nargs == mysql_stmt_param_count(st));
  if (nargs != mysql_stmt_param_count(st))
    return chime__mysql_fail(tx, CR_UNKNOWN_ERROR, "parameter count mismatch",
                             "bind");
  if (nargs && mysql_stmt_bind_param(st, b) != 0)
    return chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                             "bind");
  return 0;
}

/* Prepares, binds and executes; *ret_st is the statement to read. */
static int run(chime__mysql_tx *tx, chime__mysql_stmt_id id,
               const chime__mysql_arg *args, size_t nargs,
               MYSQL_STMT **ret_st) {
  assert(tx && tx->s && tx->c && tx->c->db);
  assert(args || nargs == 0);
  MYSQL_BIND *b = calloc(nargs ? nargs : 1, sizeof *b);
  MYSQL_STMT *st = NULL;
  if (!b)
    return CHIME_ENOMEM;
  int r = prepare(tx, id, &st);
  if (r < 0) {
    free(b);
    return r;
  }
  r = bind_args(tx, st, args, nargs, b);
  if (r == 0 && mysql_stmt_execute(st) != 0) {
    r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                          tx->s->sql[id]);
    if (tx->last_errno == ER_LOCK_WAIT_TIMEOUT)
      describe_args(tx, args, nargs);
  }
  free(b);
  if (r == 0)
    *ret_st = st;
  return r;
}

int chime__mysql_exec(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                      const chime__mysql_arg *args, size_t nargs,
                      uint64_t *ret_affected, uint64_t *ret_insert_id) {
  MYSQL_STMT *st;
  int r = run(tx, id, args, nargs, &st);
  if (r < 0)
    return r;
  if (ret_affected)
    *ret_affected = mysql_stmt_affected_rows(st);
  if (ret_insert_id)
    *ret_insert_id = mysql_stmt_insert_id(st);
  return 0;
}

/* The result buffers of one fetch: a text buffer per column. */
typedef struct fetch_bufs {
  MYSQL_BIND *b;
  unsigned long *lens;
  my_bool *nulls;
  size_t ncols;
} fetch_bufs;

static void fetch_bufs_free(fetch_bufs *f) {
  for (size_t c = 0; f->b && c < f->ncols; c++)
    free(f->b[c].buffer);
  free(f->b);
  free(f->lens);
  free(f->nulls);
}

/* Binds a text buffer per column, as long as the longest value. */
static int fetch_bufs_bind(chime__mysql_tx *tx, MYSQL_STMT *st, MYSQL_RES *meta,
                           fetch_bufs *f) {
  size_t n = f->ncols ? f->ncols : 1;
  f->b = calloc(n, sizeof *f->b);
  f->lens = calloc(n, sizeof *f->lens);
  f->nulls = calloc(n, sizeof *f->nulls);
  if (!f->b || !f->lens || !f->nulls)
    return CHIME_ENOMEM;
  MYSQL_FIELD *fields = meta ? mysql_fetch_fields(meta) : NULL;
  assert(fields || f->ncols == 0);
  for (size_t c = 0; c < f->ncols; c++) {
    f->b[c].buffer_type = MYSQL_TYPE_STRING;
    /* Numbers come as text: leave room for any of them. */
    f->b[c].buffer_length =
        (fields[c].max_length > 64 ? fields[c].max_length : 64) + 1;
    f->b[c].buffer = malloc(f->b[c].buffer_length);
    f->b[c].length = &f->lens[c];
    f->b[c].is_null = &f->nulls[c];
    if (!f->b[c].buffer)
      return CHIME_ENOMEM;
  }
  if (f->ncols && mysql_stmt_bind_result(st, f->b) != 0)
    return chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                             "bind result");
  return 0;
}

/* Copies the fetched row into cells[0 .. ncols). */
static int copy_row(const fetch_bufs *f, chime__mysql_cell *cells) {
  for (size_t c = 0; c < f->ncols; c++) {
    if (f->nulls[c])
      continue;
    assert(f->lens[c] < f->b[c].buffer_length);
    if (!(cells[c].v = malloc(f->lens[c] + 1)))
      return CHIME_ENOMEM;
    memcpy(cells[c].v, f->b[c].buffer, f->lens[c]);
    cells[c].v[f->lens[c]] = '\0';
    cells[c].len = f->lens[c];
  }
  return 0;
}

/* Fetches every row of an executed statement into *ret. */
static int fetch_all(chime__mysql_tx *tx, MYSQL_STMT *st,
                     chime__mysql_rows *ret) {
  my_bool update_max = 1;
  mysql_stmt_attr_set(st, STMT_ATTR_UPDATE_MAX_LENGTH, &update_max);
  if (mysql_stmt_store_result(st) != 0)
    return chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                             "fetch");
  MYSQL_RES *meta = mysql_stmt_result_metadata(st);
  fetch_bufs f = {.ncols = meta ? mysql_num_fields(meta) : 0};
  size_t nrows = (size_t)mysql_stmt_num_rows(st);
  /* Every row is allocated up front, so an error frees them all. */
  ret->ncols = f.ncols;
  ret->nrows = nrows;
  ret->cells =
      calloc(nrows * f.ncols > 0 ? nrows * f.ncols : 1, sizeof *ret->cells);
  int r = ret->cells ? fetch_bufs_bind(tx, st, meta, &f) : CHIME_ENOMEM;
  size_t i = 0;
  for (; r == 0 && i < nrows; i++) {
    int got = mysql_stmt_fetch(st);
    if (got == MYSQL_NO_DATA)
      break;
    if (got == 1 || got == MYSQL_DATA_TRUNCATED)
      r = chime__mysql_fail(tx, mysql_stmt_errno(st), mysql_stmt_error(st),
                            "fetch");
    else
      r = copy_row(&f, &ret->cells[i * f.ncols]);
  }
  assert(r < 0 || i == nrows); /* a stored result has all its rows */
  if (r == 0)
    ret->nrows = i;
  fetch_bufs_free(&f);
  if (meta)
    mysql_free_result(meta);
  mysql_stmt_free_result(st);
  if (r < 0)
    chime__mysql_rows_free(ret);
  return r;
}

int chime__mysql_query(chime__mysql_tx *tx, chime__mysql_stmt_id id,
                       const chime__mysql_arg *args, size_t nargs,
                       chime__mysql_rows *ret) {
  assert(ret);
  MYSQL_STMT *st;
  memset(ret, 0, sizeof *ret);
  int r = run(tx, id, args, nargs, &st);
  return r < 0 ? r : fetch_all(tx, st, ret);
}

int chime__mysql_exec_plain(chime__mysql_tx *tx, chime__mysql_stmt_id id) {
  assert(tx && tx->c && tx->c->db && (unsigned)id < CHIME__Q_COUNT);
  const char *sql = tx->s->sql[id];
  assert(sql && !strstr(sql, "/*:") && "a statement with slots");
  MYSQL *db = tx->c->db;
  if (mysql_real_query(db, sql, (unsigned long)strlen(sql)) != 0)
    return chime__mysql_fail(tx, mysql_errno(db), mysql_error(db), sql);
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
  return 0;
}
