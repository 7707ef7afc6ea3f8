/*
 * mysql/text.c: statements built for one batch (an IN list of fire ids, a
 * multi-row INSERT) and sent in the text protocol.  A prepared statement
 * only pays when its text repeats; a batch's text depends on its size, so
 * preparing it would cost a round trip more (prepare, then execute) for
 * nothing.  Numbers are printed, strings escaped for the connection's
 * character set, bytes written as a hex literal (X'...': any bytes, no
 * character set involved).  The same builder runs the connection-level
 * statements on a bare connection (chime__mysql_sqlbuf_init_db, stmt.h).
 *
 * Thread: the one running the transaction (tx.h), or owning the bare
 * connection; nothing here locks.
 */
#include "jobstore/mysql/stmt.h"

#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(chime__mysql_sqlbuf *b, size_t more) {
  if (b->oom || b->len + more + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->len + more + 1)
    cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = true;
    return;
  }
  b->p = p;
  b->cap = cap;
}

void chime__mysql_sqlbuf_init(chime__mysql_sqlbuf *b, chime__mysql_tx *tx) {
  assert(b && tx && tx->s && tx->c);
  memset(b, 0, sizeof *b);
  b->tx = tx;
}

void chime__mysql_sqlbuf_init_db(chime__mysql_sqlbuf *b, MYSQL *db,
                                 const char *prefix) {
  assert(b && db && prefix);
  memset(b, 0, sizeof *b);
  b->db = db;
  b->prefix = prefix;
}

/* The connection b's statement runs on, and its tables' prefix. */
static MYSQL *db_of(const chime__mysql_sqlbuf *b) {
  return b->tx ? b->tx->c->db : b->db;
}

static const char *prefix_of(const chime__mysql_sqlbuf *b) {
  return b->tx ? b->tx->s->prefix : b->prefix;
}

void chime__mysql_sqlbuf_free(chime__mysql_sqlbuf *b) {
  free(b->p);
  free(b->own);
  memset(b, 0, sizeof *b);
}

/* Appends SQL text: the statement's own, copied up to its next marked place,
 * or NULL (private to the builder, so no statement is assembled from
 * fragments in C again: each is a file queries/NAME.sql). */
static void append_sql(chime__mysql_sqlbuf *b, const char *text) {
  assert((b->tx || b->db) && text);
  const char *prefix = prefix_of(b);
  for (const char *p = text; *p;) {
    const char *tag = strstr(p, "{P}");
    size_t n = tag ? (size_t)(tag - p) : strlen(p);
    reserve(b, n + strlen(prefix));
    if (b->oom)
      return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    if (!tag)
      break;
    memcpy(b->p + b->len, prefix, strlen(prefix));
    b->len += strlen(prefix);
    p = tag + 3;
  }
  b->p[b->len] = '\0';
}

/* Appends n bytes of text as they are (the statement's text: its prefix
 * is already substituted). */
static void append(chime__mysql_sqlbuf *b, const char *text, size_t n) {
  reserve(b, n);
  if (b->oom)
    return;
  memcpy(b->p + b->len, text, n);
  b->len += n;
  b->p[b->len] = '\0';
}

void chime__mysql_sqlbuf_stmt(chime__mysql_sqlbuf *b, chime__mysql_stmt_id id) {
  assert((b->tx || b->db) && b->len == 0 && !b->stmt &&
         (unsigned)id < CHIME__Q_COUNT);
  if (b->tx) {
    b->stmt = b->tx->s->sql[id];
    assert(b->stmt);
    return;
  }
  /* A bare connection: the prefix substituted for this one statement
   * (none to substitute in most: SET, COMMIT, KILL). */
  const char *text = chime__mysql_sql_text[id];
  assert(text && "a statement id without its text");
  if (!strstr(text, "{P}")) {
    b->stmt = text;
    return;
  }
  b->own = chime__mysql_subst_prefix(text, b->prefix);
  b->oom |= !b->own;
  b->stmt = b->own ? b->own : "";
}

/* Copies the statement's text up to its next slot, part or row, dropping
 * the ends of parts and rows on the way; returns that marker ("/" "*:name*"
 * "/", "/" "*[name*" "/" or "/" "*{name*" "/"), NULL at the end of the
 * text. */
static const char *copy_to_marker(chime__mysql_sqlbuf *b) {
  assert(b->stmt && "a slot or part of no statement");
  for (;;) {
    const char *m = strstr(b->stmt, "/*");
    while (m && !strchr(":[]{}", m[2]))
      m = strstr(m + 2, "/*");
    append(b, b->stmt, m ? (size_t)(m - b->stmt) : strlen(b->stmt));
    if (!m) {
      b->stmt += strlen(b->stmt);
      return NULL;
    }
    const char *end = strstr(m, "*/");
    assert(end && "an unterminated marker");
    b->stmt = end + 2;
    if (m[2] == '}') /* the last row's end: a later row is another's */
      b->row = NULL;
    else if (m[2] != ']') /* not the end of a part */
      return m;
  }
}

/* Whether marker m (of copy_to_marker) is kind (':' or '[') and name. */
static bool marker_is(const char *m, char kind, const char *name) {
  size_t n = strlen(name);
  return m && m[2] == kind && strncmp(m + 3, name, n) == 0 &&
         strncmp(m + 3 + n, "*/", 2) == 0;
}

void chime__mysql_sqlbuf_at(chime__mysql_sqlbuf *b, const char *slot) {
  const char *m = copy_to_marker(b);
  (void)m;
  assert(marker_is(m, ':', slot) && "slots are filled in their order");
}

void chime__mysql_sqlbuf_part(chime__mysql_sqlbuf *b, const char *part,
                              bool on) {
  const char *m = copy_to_marker(b);
  (void)m;
  assert(marker_is(m, '[', part) && "parts are met in their order");
  if (on)
    return;
  /* Past the part's end, and the ends of the parts inside it. */
  for (int depth = 1; depth > 0;) {
    const char *open = strstr(b->stmt, "/*["), *end = strstr(b->stmt, "/*]*/");
    assert(end && "a part without its end");
    if (open && open < end) {
      depth++;
      b->stmt = open + 3;
    } else {
      depth--;
      b->stmt = end + 5;
    }
  }
}

void chime__mysql_sqlbuf_row(chime__mysql_sqlbuf *b, const char *row) {
  if (!b->row || strcmp(b->row_name, row) != 0) {
    /* The first of these rows (past the end of the rows before). */
    const char *m = copy_to_marker(b);
    (void)m;
    assert(marker_is(m, '{', row) && "rows are met in their order");
    b->row = b->stmt;
    b->row_name = row;
    return;
  }
  /* The row before: its rest up to the row's end, the separator the end
   * names ("/" "*}OR*" "/": " OR "; "/" "*}*" "/": a comma; "/" "*}_*" "/":
   * none), then the next row. */
  const char *end = strstr(b->stmt, "/*}");
  assert(end && "a row without its end");
  const char *m = strstr(b->stmt, "/*");
  (void)m;
  assert(m == end && "a slot of the row before left unfilled");
  append(b, b->stmt, (size_t)(end - b->stmt));
  const char *sep = end + 3, *sep_end = strstr(sep, "*/");
  assert(sep_end);
  if (sep_end == sep) {
    append(b, ",", 1);
  } else if (sep_end - sep == 1 && *sep == '_') {
    /* "/" "*}_*" "/": rows one after another (nested calls) */
  } else {
    append(b, " ", 1);
    append(b, sep, (size_t)(sep_end - sep));
    append(b, " ", 1);
  }
  b->stmt = b->row;
}

void chime__mysql_sqlbuf_int(chime__mysql_sqlbuf *b, int64_t v) {
  reserve(b, 24);
  if (!b->oom)
    b->len += (size_t)snprintf(b->p + b->len, 24, "%" PRId64, v);
}

void chime__mysql_sqlbuf_table(chime__mysql_sqlbuf *b, const char *name) {
  assert(name && *name &&
         strspn(name, "abcdefghijklmnopqrstuvwxyz_") == strlen(name) &&
         "one of the store's own tables");
  /* The prefix holds only letters, digits and '_' (url.c): no '`'. */
  append(b, "`", 1);
  append_sql(b, "{P}");
  append(b, name, strlen(name));
  append(b, "`", 1);
}

void chime__mysql_sqlbuf_text(chime__mysql_sqlbuf *b, const char *s) {
  if (!s) {
    append_sql(b, "NULL");
    return;
  }
  MYSQL *db = db_of(b);
  assert(db);
  size_t n = strlen(s);
  reserve(b, 2 * n + 3);
  if (b->oom)
    return;
  b->p[b->len++] = '\'';
  b->len += mysql_real_escape_string(db, b->p + b->len, s, (unsigned long)n);
  b->p[b->len++] = '\'';
  b->p[b->len] = '\0';
}

void chime__mysql_sqlbuf_key(chime__mysql_sqlbuf *b, const char *sched,
                             const char *group, const char *name) {
  chime__mysql_sqlbuf_at(b, "sched");
  chime__mysql_sqlbuf_text(b, sched);
  chime__mysql_sqlbuf_at(b, "group");
  chime__mysql_sqlbuf_text(b, group);
  chime__mysql_sqlbuf_at(b, "name");
  chime__mysql_sqlbuf_text(b, name);
}

void chime__mysql_sqlbuf_arg(chime__mysql_sqlbuf *b,
                             const chime__mysql_arg *a) {
  static const char hex[] = "0123456789abcdef";
  switch (a->kind) {
  case CHIME__MYSQL_ARG_INT:
    chime__mysql_sqlbuf_int(b, a->i);
    return;
  case CHIME__MYSQL_ARG_TEXT:
    chime__mysql_sqlbuf_text(b, a->p);
    return;
  case CHIME__MYSQL_ARG_BYTES:
    if (!a->p) /* (NULL, 0): SQL NULL, as chime__mysql_arg_bytes says */
      break;
    reserve(b, 2 * a->len + 4);
    if (b->oom)
      return;
    b->p[b->len++] = 'X';
    b->p[b->len++] = '\'';
    for (size_t i = 0; i < a->len; i++) {
      unsigned char c = ((const unsigned char *)a->p)[i];
      b->p[b->len++] = hex[c >> 4];
      b->p[b->len++] = hex[c & 15];
    }
    b->p[b->len++] = '\'';
    b->p[b->len] = '\0';
    return;
  case CHIME__MYSQL_ARG_NULL:
    break;
  }
  append_sql(b, "NULL");
}

void chime__mysql_sqlbuf_bytes(chime__mysql_sqlbuf *b, const void *data,
                               size_t len) {
  /* (NULL, 0) and (p, 0) alike: SQL NULL, no run data. */
  chime__mysql_arg a = {.kind = CHIME__MYSQL_ARG_NULL};
  if (data && len > 0)
    a = (chime__mysql_arg){
        .kind = CHIME__MYSQL_ARG_BYTES, .p = data, .len = len};
  chime__mysql_sqlbuf_arg(b, &a);
}

void chime__mysql_sqlbuf_fire_ids(chime__mysql_sqlbuf *b,
                                  chime_fire *const *fires, size_t n) {
  assert(fires && n > 0);
  for (size_t i = 0; i < n; i++) {
    assert(fires[i] && fires[i]->fire_id > 0);
    chime__mysql_sqlbuf_row(b, "fire_ids");
    chime__mysql_sqlbuf_at(b, "id");
    chime__mysql_sqlbuf_int(b, fires[i]->fire_id);
  }
}

static int id_order(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void chime__mysql_sqlbuf_sorted_ids(chime__mysql_sqlbuf *b, const char *row,
                                    int64_t *ids, size_t n) {
  assert(ids && n > 0);
  qsort(ids, n, sizeof *ids, id_order);
  for (size_t i = 0; i < n; i++) {
    assert(ids[i] > 0);
    chime__mysql_sqlbuf_row(b, row);
    chime__mysql_sqlbuf_at(b, "id");
    chime__mysql_sqlbuf_int(b, ids[i]);
  }
}

void chime__mysql_sqlbuf_fired_by_ids(chime__mysql_sqlbuf *b, int64_t *ids,
                                      size_t n) {
  assert(ids && n > 0);
  chime__mysql_sqlbuf_part(b, "ids", n > 1);
  if (n > 1)
    chime__mysql_sqlbuf_sorted_ids(b, "fire_ids", ids, n);
  chime__mysql_sqlbuf_part(b, "ids_on", n > 1);
  chime__mysql_sqlbuf_part(b, "one", n == 1);
  if (n == 1) {
    chime__mysql_sqlbuf_at(b, "one");
    chime__mysql_sqlbuf_int(b, ids[0]);
  }
}

/* Writes s as a JSON string at dst (room for 6 bytes a byte of s, and 2):
 * returns its length. */
static size_t json_string(char *dst, const char *s) {
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  dst[k++] = '"';
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') {
      dst[k++] = '\\';
      dst[k++] = (char)*c;
    } else if (*c < 0x20) { /* keys hold none (chime.h); JSON forbids them */
      memcpy(dst + k, "\\u00", 4);
      k += 4;
      dst[k++] = hex[*c >> 4];
      dst[k++] = hex[*c & 15];
    } else {
      dst[k++] = (char)*c;
    }
  }
  dst[k++] = '"';
  return k;
}

/* A trigger's key, to sort. */
typedef struct key {
  const char *group, *name;
} key;

static int key_order(const void *a, const void *b) {
  const key *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  return c ? c : strcmp(x->name, y->name);
}

/* Appends the key ["group","name"] as a JSON array, itself escaped for the
 * SQL string literal the JSON text sits in. */
static void append_json_key(chime__mysql_sqlbuf *b, const key *k) {
  char *j = malloc(6 * (strlen(k->group) + strlen(k->name)) + 8);
  if (!j) {
    b->oom = true;
    return;
  }
  size_t n = 0;
  j[n++] = '[';
  n += json_string(j + n, k->group);
  j[n++] = ',';
  n += json_string(j + n, k->name);
  j[n++] = ']';
  reserve(b, 2 * n + 1);
  if (!b->oom) {
    b->len +=
        mysql_real_escape_string(db_of(b), b->p + b->len, j, (unsigned long)n);
    b->p[b->len] = '\0';
  }
  free(j);
}

void chime__mysql_sqlbuf_json_keys(chime__mysql_sqlbuf *b, const char *row,
                                   const char *const *groups,
                                   const char *const *names, size_t n) {
  assert(groups && names && n > 0);
  key *keys = malloc(n * sizeof *keys);
  if (!keys) { /* not sent; one row still passes the rows' markers */
    b->oom = true;
    chime__mysql_sqlbuf_row(b, row);
    chime__mysql_sqlbuf_at(b, "key");
    return;
  }
  for (size_t i = 0; i < n; i++)
    keys[i] = (key){.group = groups[i], .name = names[i]};
  qsort(keys, n, sizeof *keys, key_order);
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && key_order(&keys[i - 1], &keys[i]) == 0)
      continue;
    chime__mysql_sqlbuf_row(b, row);
    chime__mysql_sqlbuf_at(b, "key");
    append_json_key(b, &keys[i]);
  }
  free(keys);
}

void chime__mysql_sqlbuf_types(chime__mysql_sqlbuf *b,
                               const chime_type_set *types) {
  assert(!types || types->count > 0);
  chime__mysql_sqlbuf_part(b, "types", types != NULL);
  for (size_t i = 0; types && i < types->count; i++) {
    chime__mysql_sqlbuf_row(b, "types");
    chime__mysql_sqlbuf_at(b, "type");
    chime__mysql_sqlbuf_text(b, types->names[i]);
  }
}

/* A statement that failed: the transaction's error; on a bare connection
 * the server's, left in db for the caller. */
static int fail(chime__mysql_sqlbuf *b, MYSQL *db) {
  if (!b->tx)
    return CHIME_ESTORE;
  return chime__mysql_fail(b->tx, mysql_errno(db), mysql_error(db), b->p);
}

/* Sends the statement; see chime__mysql_sqlbuf_run. */
static int run_text(chime__mysql_sqlbuf *b, chime__mysql_rows *ret,
                    uint64_t *ret_affected) {
  if (ret)
    memset(ret, 0, sizeof *ret);
  if (b->oom || !b->p)
    return CHIME_ENOMEM;
  MYSQL *db = db_of(b);
  assert(db && b->len == strlen(b->p));
  if (mysql_real_query(db, b->p, (unsigned long)b->len) != 0)
    return fail(b, db);
  if (ret_affected)
    *ret_affected = mysql_affected_rows(db);
  MYSQL_RES *res = mysql_store_result(db);
  if (!res)
    return mysql_errno(db) ? fail(b, db) : 0;
  int r = ret ? chime__mysql_rows_take(res, ret) : 0;
  mysql_free_result(res);
  return r;
}

int chime__mysql_sqlbuf_run(chime__mysql_sqlbuf *b, chime__mysql_rows *ret,
                            uint64_t *ret_affected) {
  if (b->stmt) {
    const char *m = copy_to_marker(b);
    (void)m;
    assert(!m && "a slot or part left unfilled");
  }
  int r = run_text(b, ret, ret_affected);
  chime__mysql_sqlbuf_free(b);
  return r;
}

int chime__mysql_db_run_int(MYSQL *db, const char *prefix,
                            chime__mysql_stmt_id id, const char *slot,
                            int64_t v, chime__mysql_rows *ret) {
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init_db(&b, db, prefix);
  chime__mysql_sqlbuf_stmt(&b, id);
  if (slot) {
    chime__mysql_sqlbuf_at(&b, slot);
    chime__mysql_sqlbuf_int(&b, v);
  }
  return chime__mysql_sqlbuf_run(&b, ret, NULL);
}

int chime__mysql_db_run(MYSQL *db, const char *prefix, chime__mysql_stmt_id id,
                        chime__mysql_rows *ret) {
  return chime__mysql_db_run_int(db, prefix, id, NULL, 0, ret);
}
