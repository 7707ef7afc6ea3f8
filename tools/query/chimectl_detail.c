/*
 * chimectl_detail.c: what the detail pages of one fire need beyond the
 * history: the retry chains (which fire a retry ran again, so a run's
 * attempt and its chain's other runs), a shard's sharded fire, and the
 * retry still waiting to run.  Retries are one-shot triggers in group
 * CHIME_RETRY named retry-F, F the fire they run again (model/records.h):
 * the store lists their runs with the fires they retried
 * (CHIME_ADMIN_RETRIES), the chains of a page of runs in one list, one
 * fire's chain (its page) a step at a time, each the links of one fire.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The retries looked at, newest first (a page's runs are recent). */
#define RETRY_LINKS_MAX 10000

/* The retry links (CHIME_ADMIN_RETRIES) of fire (0: the last
 * RETRY_LINKS_MAX) into *ret.  Returns: 0 or an exit code. */
static int retries(ctl *c, int64_t fire, chime_admin_table **ret) {
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_RETRIES);
  if (q && fire)
    chime_admin_query_set_fire(q, fire);
  else if (q)
    chime_admin_query_set_page(q, 0, RETRY_LINKS_MAX);
  return ctl_list(c, q, ret);
}

int ctl_retry_links_load(ctl *c, ctl_retry_links *ret) {
  *ret = (ctl_retry_links){0};
  chime_admin_table *t = NULL;
  int r = retries(c, 0, &t);
  if (r)
    return r;
  size_t n = chime_admin_table_get_row_count(t);
  if (n) {
    ret->fire = calloc(n, sizeof *ret->fire);
    ret->prev = calloc(n, sizeof *ret->prev);
    if (!ret->fire || !ret->prev) {
      ctl_retry_links_free(ret);
      chime_admin_table_free(t);
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    }
  }
  for (size_t i = 0; i < n; i++) {
    ret->fire[ret->n] = chime_admin_table_get_int64(t, i, "fire_id");
    ret->prev[ret->n++] = chime_admin_table_get_int64(t, i, "retried_fire_id");
  }
  chime_admin_table_free(t);
  return 0;
}

/* Appends the link (fire, prev) to l.  Returns: 0 or an exit code. */
static int link_add(ctl_retry_links *l, int64_t fire, int64_t prev) {
  int64_t *f = realloc(l->fire, (l->n + 1) * sizeof *f);
  if (f)
    l->fire = f;
  int64_t *p = f ? realloc(l->prev, (l->n + 1) * sizeof *p) : NULL;
  if (!p)
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  l->prev = p;
  l->fire[l->n] = fire;
  l->prev[l->n++] = prev;
  return 0;
}

/* The fire that fire retried (next false) or that retried it (next true)
 * into *ret, 0 for none: of fire's links (CHIME_ADMIN_RETRIES by fire,
 * read by the history's fire index, without a scan), the first. */
static int chain_step(ctl *c, int64_t fire, bool next, int64_t *ret) {
  chime_admin_table *t = NULL;
  int r = retries(c, fire, &t);
  *ret = 0;
  for (size_t i = 0; r == 0 && !*ret && i < chime_admin_table_get_row_count(t);
       i++) {
    int64_t f = chime_admin_table_get_int64(t, i, "fire_id");
    int64_t of = chime_admin_table_get_int64(t, i, "retried_fire_id");
    if (!next && f == fire)
      *ret = of;
    else if (next && of == fire && f > fire)
      *ret = f;
  }
  chime_admin_table_free(t);
  return r;
}

int ctl_retry_chain_load(ctl *c, int64_t fire, ctl_retry_links *ret) {
  *ret = (ctl_retry_links){0};
  int r = 0;
  /* Back to the first attempt (a retry's fire is later than the one it
   * retried), then on from the fire to the last; bounded either way. */
  int64_t at = fire, other = 0;
  for (int k = 0; r == 0 && k < 1000; k++, at = other) {
    r = chain_step(c, at, false, &other);
    if (r || other <= 0 || other >= at)
      break;
    r = link_add(ret, at, other);
  }
  at = fire;
  for (int k = 0; r == 0 && k < 1000; k++, at = other) {
    r = chain_step(c, at, true, &other);
    if (r || other <= at)
      break;
    r = link_add(ret, other, at);
  }
  if (r)
    ctl_retry_links_free(ret);
  return r;
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
  *ret_parent = 0;
  *ret_index = -1;
  char *end;
  long long id = strtoll(fire_id ? fire_id : "", &end, 10);
  if (!fire_id || end == fire_id || *end || id <= 0)
    return 0; /* no such fire */
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_HISTORY);
  if (q)
    chime_admin_query_set_fire(q, (int64_t)id);
  chime_admin_table *t = NULL;
  int r = ctl_list(c, q, &t);
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(t); i++)
    if (!chime_admin_table_is_null(t, i, "shard_parent")) {
      *ret_parent = chime_admin_table_get_int64(t, i, "shard_parent");
      *ret_index = (int)chime_admin_table_get_int64(t, i, "shard_index");
      break;
    }
  chime_admin_table_free(t);
  return r;
}

int ctl_retry_pending(ctl *c, int64_t fire_id, int64_t *ret_next_ms) {
  char name[40];
  snprintf(name, sizeof name, "retry-%" PRId64, fire_id);
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_TRIGGERS);
  if (q)
    chime_admin_query_set_trigger(q, "CHIME_RETRY", name);
  chime_admin_table *t = NULL;
  int r = ctl_list(c, q, &t);
  if (r)
    return r;
  *ret_next_ms = chime_admin_table_get_row_count(t) &&
                         !chime_admin_table_is_null(t, 0, "next_fire_ms")
                     ? chime_admin_table_get_int64(t, 0, "next_fire_ms")
                     : CHIME_NO_FIRE_MS;
  chime_admin_table_free(t);
  return 0;
}
