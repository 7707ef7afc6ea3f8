/*
 * chimectl_detail.c: what the detail pages of one fire need beyond the
 * history: the retry chains (which fire a retry ran again, so a run's
 * attempt and its chain's other runs), a shard's sharded fire, and the
 * retry still waiting to run.  Retries are one-shot triggers in group
 * CHIME_RETRY named retry-F, F the fire they run again (model/records.h),
 * and the history and fired rows keep the trigger's name: the chain is
 * read from them, one SELECT each.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The retries looked at, newest first (a page's runs are recent). */
#define RETRY_LINKS_MAX 10000

int ctl_retry_links_load(ctl *c, ctl_retry_links *ret) {
  *ret = (ctl_retry_links){0};
  const char *args[] = {c->sched, c->sched};
  chime__mysql_rows rows = {0};
  /* "retry-" is 6 characters: the fire id follows. */
  char sql[800];
  snprintf(sql, sizeof sql,
           "SELECT fire_id, CAST(SUBSTRING(trigger_name, 7) AS SIGNED) FROM "
           "(SELECT id, fire_id, trigger_name FROM {P}history WHERE "
           "sched_name = ? AND trigger_group = 'CHIME_RETRY' AND "
           "trigger_name LIKE 'retry-%%' ORDER BY id DESC LIMIT %d) h "
           "UNION ALL SELECT fire_id, CAST(SUBSTRING(trigger_name, 7) AS "
           "SIGNED) FROM {P}fired WHERE sched_name = ? AND trigger_group = "
           "'CHIME_RETRY' AND trigger_name LIKE 'retry-%%'",
           RETRY_LINKS_MAX);
  int r = ctl_query(c, sql, args, 2, &rows);
  if (r)
    return r;
  if (rows.nrows) {
    ret->fire = calloc(rows.nrows, sizeof *ret->fire);
    ret->prev = calloc(rows.nrows, sizeof *ret->prev);
    if (!ret->fire || !ret->prev) {
      ctl_retry_links_free(ret);
      chime__mysql_rows_free(&rows);
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    }
  }
  for (size_t i = 0; i < rows.nrows; i++) {
    ret->fire[ret->n] = chime__mysql_rows_int64(&rows, i, 0);
    ret->prev[ret->n++] = chime__mysql_rows_int64(&rows, i, 1);
  }
  chime__mysql_rows_free(&rows);
  return 0;
}

void ctl_retry_links_free(ctl_retry_links *l) {
  free(l->fire);
  free(l->prev);
  *l = (ctl_retry_links){0};
}

int64_t ctl_retry_prev(const ctl_retry_links *l, int64_t fire) {
  for (size_t i = 0; i < l->n; i++)
    if (l->fire[i] == fire)
      return l->prev[i];
  return 0;
}

int64_t ctl_retry_next(const ctl_retry_links *l, int64_t fire) {
  for (size_t i = 0; i < l->n; i++)
    if (l->prev[i] == fire)
      return l->fire[i];
  return 0;
}

int ctl_retry_attempt(const ctl_retry_links *l, int64_t fire) {
  int attempt = 1;
  /* Bounded: links form chains, but the rows are only read, not trusted. */
  for (int64_t f = ctl_retry_prev(l, fire); f > 0 && attempt < 1000;
       f = ctl_retry_prev(l, f))
    attempt++;
  return attempt;
}

int ctl_fire_shard(ctl *c, const char *fire_id, int64_t *ret_parent,
                   int *ret_index) {
  const char *args[] = {c->sched, fire_id};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT shard_parent, shard_index FROM {P}history WHERE "
                    "sched_name = ? AND fire_id = CAST(? AS SIGNED) AND "
                    "shard_parent > 0 LIMIT 1",
                    args, 2, &rows);
  if (r)
    return r;
  *ret_parent = rows.nrows ? chime__mysql_rows_int64(&rows, 0, 0) : 0;
  *ret_index = rows.nrows ? (int)chime__mysql_rows_int64(&rows, 0, 1) : -1;
  chime__mysql_rows_free(&rows);
  return 0;
}

int ctl_retry_pending(ctl *c, int64_t fire_id, int64_t *ret_next_ms) {
  char name[40];
  snprintf(name, sizeof name, "retry-%" PRId64, fire_id);
  const char *args[] = {c->sched, name};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c,
                    "SELECT next_fire_ms FROM {P}triggers WHERE sched_name = ? "
                    "AND trigger_group = 'CHIME_RETRY' AND trigger_name = ?",
                    args, 2, &rows);
  if (r)
    return r;
  *ret_next_ms =
      rows.nrows ? chime__mysql_rows_int64(&rows, 0, 0) : CHIME_NO_FIRE_MS;
  chime__mysql_rows_free(&rows);
  return 0;
}
