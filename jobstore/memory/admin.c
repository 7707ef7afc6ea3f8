/*
 * memory/admin.c: the memory store's operators' lists (store.h's
 * admin_list; chime-admin.h): its one node, its jobs and triggers by key,
 * its fires claimed or running, and its history ring, newest first.  Each
 * list is read under the store's lock once, into the table the tools read
 * by column name; the columns are jobstore/admin.h's, the same as the
 * MySQL store's.  What the memory store does not keep (a node's start, a
 * claim's time) is a null cell.
 *
 * Locks: each list takes the store's lock (memory.h) once.
 */
#include "chime-version.h"
#include "jobstore/admin.h"
#include "jobstore/memory/memory.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The node: this process, always live; running its EXECUTING fires. */
static void count_executing(void *value, void *arg) {
  const mem_fire *f = value;
  if (f->phase == CHIME_FIRE_EXECUTING)
    ++*(int64_t *)arg;
}

static void list_nodes(mem_store *s, bool hide_self, int64_t now,
                       chime_admin_table *t) {
  if (hide_self || chime__admin_row_add(t) < 0)
    return;
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0)
    host[0] = '\0';
  int64_t running = 0;
  chime__mem_map_each(&s->fires, count_executing, &running);
  static const char *const drains[] = {[CHIME_NODE_ACTIVE] = "active",
                                       [CHIME_NODE_DRAINING] = "draining",
                                       [CHIME_NODE_DRAINED] = "drained"};
  chime__admin_set_text(t, CHIME__AC_NODE_ID, s->node ? s->node : "");
  chime__admin_set_text(t, CHIME__AC_NODE_HOST, host);
  chime__admin_set_int(t, CHIME__AC_NODE_PID, (int64_t)getpid());
  chime__admin_set_text(t, CHIME__AC_NODE_VERSION, CHIME_VERSION);
  chime__admin_set_int(t, CHIME__AC_NODE_LAST_CHECKIN_MS, now);
  chime__admin_set_int(t, CHIME__AC_NODE_CHECKIN_AGE_MS, 0);
  chime__admin_set_int(t, CHIME__AC_NODE_LIVE, 1);
  chime__admin_set_text(t, CHIME__AC_NODE_DRAIN,
                        (unsigned)s->drain_state <= CHIME_NODE_DRAINED
                            ? drains[s->drain_state]
                            : "active");
  chime__admin_set_int(t, CHIME__AC_NODE_RUNNING, running);
  chime__admin_set_text(t, CHIME__AC_NODE_TAGS, s->tags ? s->tags : "");
}

/* ------------------------------------------------- jobs and triggers */

/* The values of a map whose group matches, sorted by key. */
typedef struct picked {
  void **items;
  size_t count;
} picked;

static int by_job_key(const void *a, const void *b) {
  const chime_job *x = (*(mem_job *const *)a)->j,
                  *y = (*(mem_job *const *)b)->j;
  int c = strcmp(x->group, y->group);
  return c ? c : strcmp(x->name, y->name);
}

static int by_trigger_key(const void *a, const void *b) {
  const chime_trigger *x = (*(mem_trigger *const *)a)->t;
  const chime_trigger *y = (*(mem_trigger *const *)b)->t;
  int c = strcmp(x->group, y->group);
  return c ? c : strcmp(x->name, y->name);
}

/* Every value of map, sorted with cmp.  Returns: 0; CHIME_ENOMEM. */
static int pick(const mem_map *map, int (*cmp)(const void *, const void *),
                picked *ret) {
  bool ok = true;
  ret->items = chime__mem_map_values(map, &ok);
  ret->count = map->count;
  if (!ok)
    return CHIME_ENOMEM;
  if (ret->count > 1)
    qsort(ret->items, ret->count, sizeof *ret->items, cmp);
  return 0;
}

static void list_jobs(mem_store *s, const chime_admin_query *q,
                      chime_admin_table *t) {
  picked p = {0};
  if (pick(&s->jobs, by_job_key, &p) < 0) {
    chime__admin_row_add(t);
    chime__admin_set_text(t, CHIME__AC_JOB_GROUP, NULL);
    free(p.items);
    return;
  }
  for (size_t i = 0; i < p.count; i++) {
    const mem_job *mj = p.items[i];
    const chime_job *j = mj->j;
    if (!chime__group_matches(q->match, q->pattern, j->group) ||
        chime__admin_row_add(t) < 0)
      continue;
    chime__admin_set_text(t, CHIME__AC_JOB_GROUP, j->group);
    chime__admin_set_text(t, CHIME__AC_JOB_NAME, j->name);
    chime__admin_set_text(t, CHIME__AC_JOB_TYPE, j->type);
    chime__admin_set_text(t, CHIME__AC_JOB_CONCURRENCY,
                          chime__admin_concurrency_name(j->concurrency));
    chime__admin_set_int(t, CHIME__AC_JOB_DURABLE, j->durable);
    chime__admin_set_int(t, CHIME__AC_JOB_RECOVERY, j->requests_recovery);
    chime__admin_set_int(t, CHIME__AC_JOB_PERSIST, j->persist_data);
    chime__admin_set_int(t, CHIME__AC_JOB_PAUSED, mj->paused);
    chime__admin_set_int(t, CHIME__AC_JOB_TRIGGERS, (int64_t)mj->ntriggers);
    chime__admin_set_text(t, CHIME__AC_JOB_DESCRIPTION, j->description);
    chime__admin_set_int(t, CHIME__AC_JOB_TIMEOUT_MS, j->timeout_ms);
    chime__admin_set_int(t, CHIME__AC_JOB_DEADLINE_MS, j->starting_deadline_ms);
    chime__admin_set_int(t, CHIME__AC_JOB_HISTORY_LEVEL,
                         (int64_t)j->history_level);
    chime__admin_set_bytes(t, CHIME__AC_JOB_DATA, j->data, j->data_len);
  }
  free(p.items);
}

/* The late triggers' order: earliest due first. */
static int by_next_fire(const void *a, const void *b) {
  int64_t x = (*(mem_trigger *const *)a)->t->state.next_fire_ms;
  int64_t y = (*(mem_trigger *const *)b)->t->state.next_fire_ms;
  return (x > y) - (x < y);
}

/* Whether tr is late by q (chime_admin_query_set_late; 0: any is). */
static bool late_matches(const chime_admin_query *q, const chime_trigger *tr) {
  return !q->late_before_ms || (tr->store_state == CHIME_STATE_WAITING &&
                                tr->state.next_fire_ms != CHIME_NO_FIRE_MS &&
                                tr->state.next_fire_ms < q->late_before_ms &&
                                tr->schedule.misfire != CHIME_MISFIRE_IGNORE &&
                                strcmp(tr->group, CHIME_BACKFILL_GROUP) != 0);
}

static void list_triggers(mem_store *s, const chime_admin_query *q,
                          chime_admin_table *t) {
  picked p = {0};
  if (pick(&s->triggers, q->late_before_ms ? by_next_fire : by_trigger_key,
           &p) < 0) {
    free(p.items);
    chime__admin_row_add(t);
    chime__admin_set_text(t, CHIME__AC_TRIGGER_GROUP, NULL);
    return;
  }
  for (size_t i = 0; i < p.count; i++) {
    const mem_trigger *mt = p.items[i];
    const chime_trigger *tr = mt->t;
    if (!chime__group_matches(q->match, q->pattern, tr->group) ||
        !late_matches(q, tr) ||
        (q->job_group && (strcmp(q->job_group, tr->job_group) != 0 ||
                          strcmp(q->job_name, tr->job_name) != 0)) ||
        (q->trigger_group && (strcmp(q->trigger_group, tr->group) != 0 ||
                              strcmp(q->trigger_name, tr->name) != 0)) ||
        chime__admin_row_add(t) < 0)
      continue;
    bool claimed = mt->claim || tr->store_state == CHIME_STATE_EXECUTING;
    chime__admin_put_trigger(t, tr,
                             chime__admin_state_name((int)tr->store_state),
                             claimed ? s->node : NULL);
    const char *tags = chime_job_get_required_tags(mt->job->j);
    chime__admin_set_text(t, CHIME__AC_TRIGGER_JOB_TYPE, mt->job->j->type);
    chime__admin_set_text(t, CHIME__AC_TRIGGER_JOB_TAGS,
                          tags && tags[0] ? tags : NULL);
    if (mt->claim)
      chime__admin_set_int(t, CHIME__AC_TRIGGER_CLAIM_FIRE_ID, mt->claim->id);
  }
  free(p.items);
}

/* --------------------------------------------------------------- fires */

static int by_fire_id(const void *a, const void *b) {
  int64_t x = (*(mem_fire *const *)a)->id, y = (*(mem_fire *const *)b)->id;
  return (x > y) - (x < y);
}

/* A "group\0name" key's two parts. */
static void key_parts(const char *key, const char **group, const char **name) {
  *group = key ? key : "";
  *name = key ? key + strlen(key) + 1 : "";
}

static void list_fires(mem_store *s, const chime_admin_query *q,
                       chime_admin_table *t) {
  picked p = {0};
  if (pick(&s->fires, by_fire_id, &p) < 0) {
    free(p.items);
    chime__admin_row_add(t);
    chime__admin_set_text(t, CHIME__AC_FIRE_NODE, NULL);
    return;
  }
  for (size_t i = 0; i < p.count; i++) {
    const mem_fire *f = p.items[i];
    const char *tg, *tn, *jg, *jn;
    if (f->phase == CHIME_FIRE_ACQUIRED && f->trig) {
      tg = f->trig->t->group;
      tn = f->trig->t->name;
    } else {
      key_parts(f->key, &tg, &tn);
    }
    key_parts(f->job_key, &jg, &jn);
    if ((q->fire_id && f->id != q->fire_id) ||
        (q->node && strcmp(q->node, s->node ? s->node : "") != 0) ||
        (q->job_group &&
         (strcmp(q->job_group, jg) != 0 || strcmp(q->job_name, jn) != 0)) ||
        (q->trigger_group && (strcmp(q->trigger_group, tg) != 0 ||
                              strcmp(q->trigger_name, tn) != 0)) ||
        chime__admin_row_add(t) < 0)
      continue;
    chime__admin_set_int(t, CHIME__AC_FIRE_ID, f->id);
    chime__admin_set_text(t, CHIME__AC_FIRE_JOB_GROUP, jg);
    chime__admin_set_text(t, CHIME__AC_FIRE_JOB_NAME, jn);
    chime__admin_set_text(t, CHIME__AC_FIRE_TRIGGER_GROUP, tg);
    chime__admin_set_text(t, CHIME__AC_FIRE_TRIGGER_NAME, tn);
    chime__admin_set_text(t, CHIME__AC_FIRE_NODE, s->node);
    chime__admin_set_text(t, CHIME__AC_FIRE_STATE,
                          f->phase == CHIME_FIRE_EXECUTING ? "EXECUTING"
                                                           : "ACQUIRED");
    chime__admin_set_int(t, CHIME__AC_FIRE_SCHEDULED_MS, f->scheduled_ms);
    chime__admin_set_int(t, CHIME__AC_FIRE_RECOVERING, 0);
    chime__admin_set_int(t, CHIME__AC_FIRE_NODE_LIVE, 1);
  }
  free(p.items);
}

/* ------------------------------------------------------------- history */

static bool history_matches(const chime_admin_query *q,
                            const chime_history_entry *e) {
  if (q->job_group && (strcmp(q->job_group, e->job_group) != 0 ||
                       strcmp(q->job_name, e->job_name) != 0))
    return false;
  if (q->trigger_group && (strcmp(q->trigger_group, e->trigger_group) != 0 ||
                           strcmp(q->trigger_name, e->trigger_name) != 0))
    return false;
  if (q->node && strcmp(q->node, e->node) != 0)
    return false;
  if (q->fire_id && e->fire_id != q->fire_id)
    return false;
  if (q->outcome && strcmp(q->outcome, e->outcome) != 0)
    return false;
  if (q->failed_only && strcmp(e->outcome, "OK") == 0)
    return false;
  if (q->from_ms && e->started_ms < q->from_ms)
    return false;
  if (q->by_id && (e->id <= q->after_id || (q->upto_id && e->id > q->upto_id)))
    return false;
  return !(q->to_ms && e->started_ms >= q->to_ms);
}

/* Adds entry e's row, if it matches q and is past the page's offset
 * (*skipped counts the matching entries passed over). */
static void history_row(const chime_admin_query *q,
                        const chime_history_entry *e, size_t *skipped,
                        size_t *n, chime_admin_table *t) {
  if (!history_matches(q, e) || (*skipped)++ < q->offset ||
      chime__admin_row_add(t) < 0)
    return;
  (*n)++;
  chime__admin_set_int(t, CHIME__AC_HISTORY_ID, e->id);
  chime__admin_set_int(t, CHIME__AC_HISTORY_FIRE_ID, e->fire_id);
  chime__admin_set_text(t, CHIME__AC_HISTORY_JOB_GROUP, e->job_group);
  chime__admin_set_text(t, CHIME__AC_HISTORY_JOB_NAME, e->job_name);
  chime__admin_set_text(t, CHIME__AC_HISTORY_TRIGGER_GROUP, e->trigger_group);
  chime__admin_set_text(t, CHIME__AC_HISTORY_TRIGGER_NAME, e->trigger_name);
  chime__admin_set_text(t, CHIME__AC_HISTORY_NODE, e->node);
  chime__admin_set_text(t, CHIME__AC_HISTORY_OUTCOME, e->outcome);
  chime__admin_set_int(t, CHIME__AC_HISTORY_SCHEDULED_MS, e->scheduled_ms);
  chime__admin_set_int(t, CHIME__AC_HISTORY_STARTED_MS, e->started_ms);
  chime__admin_set_int(t, CHIME__AC_HISTORY_DURATION_MS,
                       e->finished_ms - e->started_ms);
  chime__admin_set_int(t, CHIME__AC_HISTORY_ERROR_CODE, e->error);
  chime__admin_set_text(t, CHIME__AC_HISTORY_MESSAGE, e->message);
  chime__admin_set_int(t, CHIME__AC_HISTORY_RECOVERING, e->recovering);
  chime__admin_set_int(t, CHIME__AC_HISTORY_DATA_BYTES, (int64_t)e->data_len);
  chime__admin_set_bytes(t, CHIME__AC_HISTORY_DATA, e->data, e->data_len);
  chime__admin_set_int(t, CHIME__AC_HISTORY_FINISHED_MS, e->finished_ms);
  if (e->shard_parent > 0) {
    chime__admin_set_int(t, CHIME__AC_HISTORY_SHARD_PARENT, e->shard_parent);
    chime__admin_set_int(t, CHIME__AC_HISTORY_SHARD_INDEX, e->shard_index);
  }
}

static void list_history(mem_store *s, const chime_admin_query *q,
                         chime_admin_table *t) {
  size_t skipped = 0, n = 0;
  int64_t oldest = s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP + 1;
  if (oldest < 1)
    oldest = 1;
  if (!s->history)
    return;
  if (q->by_id) /* oldest first: from the oldest kept up */
    for (int64_t id = oldest; id <= s->history_next_id && n < q->limit; id++)
      history_row(q, &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)],
                  &skipped, &n, t);
  else /* newest first: from the last id written back to the oldest kept */
    for (int64_t id = s->history_next_id; id >= oldest && n < q->limit; id--)
      history_row(q, &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)],
                  &skipped, &n, t);
}

int chime__mem_admin_list(chime_store *store, const chime_admin_query *q,
                          bool hide_self, chime_admin_table *t, char *errbuf,
                          size_t errbuf_len) {
  mem_store *s = (mem_store *)store;
  if (q->kind == CHIME_ADMIN_AUDIT) /* drains are the only actions it has */
    return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                             "the memory store keeps no audit trail: it "
                             "records no operators' actions");
  if (q->kind == CHIME_ADMIN_STUCK) /* chime_admin_repair's: never stuck */
    return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                             "the memory store is never left stuck: it has "
                             "nothing to repair");
  if (q->kind == CHIME_ADMIN_STORAGE || q->kind == CHIME_ADMIN_SESSIONS)
    return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                             "the memory store keeps no tables and opens no "
                             "database sessions: it lives in its process");
  int64_t now = store->ops->now(store);
  int r = 0;
  chime__mem_lock(s);
  switch (q->kind) {
  case CHIME_ADMIN_NODES:
    list_nodes(s, hide_self, now, t);
    break;
  case CHIME_ADMIN_JOBS:
    list_jobs(s, q, t);
    break;
  case CHIME_ADMIN_TRIGGERS:
    list_triggers(s, q, t);
    break;
  case CHIME_ADMIN_FIRES:
    list_fires(s, q, t);
    break;
  case CHIME_ADMIN_HISTORY:
    list_history(s, q, t);
    break;
  case CHIME_ADMIN_LEASES:
    r = chime__mem_admin_leases(s, now, t);
    break;
  case CHIME_ADMIN_JOB_STATS:
    r = chime__mem_admin_job_stats(s, q, t);
    break;
  case CHIME_ADMIN_AUDIT:
  case CHIME_ADMIN_STUCK:
  case CHIME_ADMIN_LIMITS: /* jobstore/admin.c answers it itself */
    break;
  default: /* the cluster's figures */
    r = chime__mem_admin_stats(s, q, t);
    break;
  }
  chime__mem_unlock(s);
  /* The history pages as it reads; the other lists are paged here. */
  if (q->kind != CHIME_ADMIN_HISTORY)
    chime__admin_table_page(t, q->offset, q->limit);
  return r;
}
