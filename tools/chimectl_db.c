/*
 * chimectl_db.c: chimectl's access to the database: opens the MySQL store
 * for the URL (one connection, no log), runs read-only SQL through the
 * store's transaction helper, and parses keys and group patterns.
 */
#include "chimectl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ctl_open(ctl *c, const char *extra) {
  if (c->store)
    return 0;
  char *url = c->url;
  char *joined = NULL;
  if (extra) {
    size_t len = strlen(c->url) + strlen(extra) + 2;
    if (!(joined = malloc(len)))
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    snprintf(joined, len, "%s%c%s", c->url, strchr(c->url, '?') ? '&' : '?',
             extra);
    url = joined;
  }
  char node[64];
  snprintf(node, sizeof node, "chimectl-%ld", (long)getpid());
  chime_store_options o = {.scheduler_name = c->sched,
                           .instance_id = node,
                           .connections = 1,
                           .log_level = CHIME_LOG_ERROR};
  char err[1024] = "";
  int r = chime__mysql_store_open(url, &o, &c->store, err, sizeof err);
  free(joined);
  if (r < 0) {
    c->store = NULL;
    if (r == CHIME_ESCHEMA && strstr(err, "auto_create"))
      return ctl_fail(r, "no chime schema in this database: run 'chimectl "
                         "schema init'");
    if (r == CHIME_ESCHEMA && strstr(err, "migrate=1"))
      return ctl_fail(r, "the schema is older than this chimectl: run "
                         "'chimectl schema migrate'");
    return ctl_fail(r, "%s", err[0] ? err : chime_strerror(r));
  }
  return 0;
}

typedef struct query_op {
  const char *sql;
  const char *const *args;
  size_t nargs;
  chime__mysql_rows rows;
} query_op;

static int query_fn(chime__mysql_tx *tx, void *arg) {
  query_op *op = arg;
  chime__mysql_arg a[16];
  for (size_t i = 0; i < op->nargs && i < 16; i++)
    a[i] = chime__mysql_arg_text(op->args[i]);
  return chime__mysql_query(tx, CHIME__Q_COUNT, op->sql, a, op->nargs, &op->rows);
}

static void query_reset(void *arg) {
  query_op *op = arg;
  chime__mysql_rows_free(&op->rows);
  memset(&op->rows, 0, sizeof op->rows);
}

int ctl_query(ctl *c, const char *sql, const char *const *args, size_t nargs,
              chime__mysql_rows *ret) {
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  chime__mysql_store *s = (chime__mysql_store *)c->store;
  char *text = chime__mysql_subst_prefix(sql, s->prefix);
  if (!text)
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  query_op op = {.sql = text, .args = args, .nargs = nargs};
  char err[1024] = "";
  r = chime__mysql_tx_run(s, query_fn, query_reset, &op, err, sizeof err);
  free(text);
  if (r < 0) {
    query_reset(&op);
    return ctl_fail(r, "query failed: %s", err[0] ? err : chime_strerror(r));
  }
  *ret = op.rows;
  return 0;
}

const char *ctl_prefix(const ctl *c) {
  return c->store ? ((const chime__mysql_store *)c->store)->prefix : "chime_";
}

int64_t ctl_now(ctl *c) {
  return c->store ? c->store->ops->now(c->store) : 0;
}

int ctl_split_key(const char *text, char *group, char *name, size_t len) {
  const char *dot = text ? strchr(text, '.') : NULL;
  if (!dot || dot == text || !dot[1] || (size_t)(dot - text) >= len ||
      strlen(dot + 1) >= len) {
    fprintf(stderr, "chimectl: '%s' is not a key GROUP.NAME\n",
            text ? text : "");
    return CTL_USAGE;
  }
  memcpy(group, text, (size_t)(dot - text));
  group[dot - text] = '\0';
  snprintf(name, len, "%s", dot + 1);
  return 0;
}

void ctl_pattern(const char *text, chime_match *ret_match,
                 const char **ret_pattern, char *buf, size_t len) {
  size_t n = text ? strlen(text) : 0;
  if (!text || strcmp(text, "*") == 0) {
    *ret_match = CHIME_MATCH_ANY;
    *ret_pattern = "";
  } else if (n > 0 && text[n - 1] == '*') {
    snprintf(buf, len, "%.*s", (int)(n - 1), text);
    *ret_match = CHIME_MATCH_STARTS_WITH;
    *ret_pattern = buf;
  } else {
    *ret_match = CHIME_MATCH_EQUALS;
    *ret_pattern = text;
  }
}
