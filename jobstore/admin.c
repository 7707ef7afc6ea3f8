/*
 * admin.c: chime_admin and chime_admin_query (chime-admin.h): an
 * operator's view of a store, whoever opened the store (admin_open.c by
 * URL, engine/admin.c a scheduler's, the MySQL store's operator's store of
 * jobstore/mysql/admin.h), and the lists it asks the store for through the
 * store's admin_list operation.  It calls only store.h's operations: the
 * stores may wrap their own.
 */
#include "jobstore/admin.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chime_admin {
  chime_store *store;
  bool owned;     /* freed with the handle, else borrowed */
  bool operator;  /* an operator's store: its own node is not listed */
  char err[1024]; /* the last failure's message */
};

int chime__admin_wrap(chime_store *store, bool owned, bool operator,
                      chime_admin ** ret) {
  assert(store && ret);
  chime_admin *a = calloc(1, sizeof *a);
  if (!a)
    return CHIME_ENOMEM;
  a->store = store;
  a->owned = owned;
  a->operator= operator;
  *ret = a;
  return 0;
}

chime_store *chime__admin_store(chime_admin *admin) {
  return admin->store;
}

char *chime__admin_err(chime_admin *admin, size_t *ret_len) {
  *ret_len = sizeof admin->err;
  return admin->err;
}

const char *chime_admin_errmsg(const chime_admin *admin) {
  return admin ? admin->err : "";
}

void chime_admin_free(chime_admin *admin) {
  if (!admin)
    return;
  if (admin->owned)
    admin->store->ops->free(admin->store);
  free(admin);
}

/* ------------------------------------------------------------ queries */

int chime_admin_query_new(chime_admin_kind kind, chime_admin_query **ret) {
  if (!ret)
    return CHIME_EINVAL;
  *ret = NULL;
  if (kind < CHIME_ADMIN_NODES || kind > CHIME_ADMIN_SESSIONS)
    return CHIME_EINVAL;
  chime_admin_query *q = calloc(1, sizeof *q);
  if (!q)
    return CHIME_ENOMEM;
  q->kind = kind;
  q->match = CHIME_MATCH_ANY;
  q->limit = CHIME_ADMIN_MAX_LIMIT;
  *ret = q;
  return 0;
}

/* Replaces *field with a copy of text (NULL: none).  Returns: 0;
 * CHIME_EINVAL (longer than a name may be); CHIME_ENOMEM. */
static int set_text(char **field, const char *text) {
  char *copy = NULL;
  if (text && strlen(text) > CHIME_MAX_NAME_LEN)
    return CHIME_EINVAL;
  if (text && !(copy = strdup(text)))
    return CHIME_ENOMEM;
  free(*field);
  *field = copy;
  return 0;
}

int chime_admin_query_set_group(chime_admin_query *query, const char *pattern) {
  if (!query)
    return CHIME_EINVAL;
  size_t n = pattern ? strlen(pattern) : 0;
  if (!pattern || strcmp(pattern, "*") == 0) {
    query->match = CHIME_MATCH_ANY;
    return set_text(&query->pattern, NULL);
  }
  char buf[CHIME_MAX_NAME_LEN + 1];
  if (n > CHIME_MAX_NAME_LEN)
    return CHIME_EINVAL;
  bool starts = n > 0 && pattern[n - 1] == '*';
  snprintf(buf, sizeof buf, "%.*s", (int)(starts ? n - 1 : n), pattern);
  int r = set_text(&query->pattern, buf);
  if (r == 0)
    query->match = starts ? CHIME_MATCH_STARTS_WITH : CHIME_MATCH_EQUALS;
  return r;
}

/* Sets a key filter: both parts or neither. */
static int set_key(char **group_field, char **name_field, const char *group,
                   const char *name) {
  if (!group != !name)
    return CHIME_EINVAL;
  char *g = NULL, *n = NULL;
  int r = set_text(&g, group);
  if (r == 0)
    r = set_text(&n, name);
  if (r < 0) {
    free(g);
    free(n);
    return r;
  }
  free(*group_field);
  free(*name_field);
  *group_field = g;
  *name_field = n;
  return 0;
}

int chime_admin_query_set_job(chime_admin_query *query, const char *group,
                              const char *name) {
  return query ? set_key(&query->job_group, &query->job_name, group, name)
               : CHIME_EINVAL;
}

int chime_admin_query_set_trigger(chime_admin_query *query, const char *group,
                                  const char *name) {
  return query
             ? set_key(&query->trigger_group, &query->trigger_name, group, name)
             : CHIME_EINVAL;
}

int chime_admin_query_set_node(chime_admin_query *query, const char *node) {
  return query ? set_text(&query->node, node) : CHIME_EINVAL;
}

int chime_admin_query_set_fire(chime_admin_query *query, int64_t fire_id) {
  if (!query || fire_id < 0)
    return CHIME_EINVAL;
  query->fire_id = fire_id;
  return 0;
}

int chime_admin_query_set_audit(chime_admin_query *query, const char *who,
                                const char *action) {
  if (!query || (who && strlen(who) > 190) || (action && strlen(action) > 64))
    return CHIME_EINVAL;
  int r = set_text(&query->who, who);
  return r ? r : set_text(&query->action, action);
}

int chime_admin_query_set_ids(chime_admin_query *query, int64_t after_id,
                              int64_t upto_id) {
  if (!query || after_id < 0 || upto_id < 0 ||
      (upto_id != 0 && upto_id <= after_id))
    return CHIME_EINVAL;
  query->by_id = true;
  query->after_id = after_id;
  query->upto_id = upto_id;
  return 0;
}

int chime_admin_query_set_late(chime_admin_query *query, int64_t before_ms) {
  if (!query || before_ms < 0)
    return CHIME_EINVAL;
  query->late_before_ms = before_ms;
  return 0;
}

int chime_admin_query_set_outcome(chime_admin_query *query, const char *outcome,
                                  bool failed_only) {
  if (!query || (outcome && strlen(outcome) > 32))
    return CHIME_EINVAL;
  int r = set_text(&query->outcome, outcome);
  for (char *p = query->outcome; r == 0 && p && *p; p++)
    *p = (char)toupper((unsigned char)*p);
  if (r == 0)
    query->failed_only = failed_only;
  return r;
}

int chime_admin_query_set_started(chime_admin_query *query, int64_t from_ms,
                                  int64_t to_ms) {
  if (!query || from_ms < 0 || to_ms < 0)
    return CHIME_EINVAL;
  query->from_ms = from_ms;
  query->to_ms = to_ms;
  return 0;
}

int chime_admin_query_set_page(chime_admin_query *query, size_t offset,
                               size_t limit) {
  if (!query || limit > CHIME_ADMIN_MAX_LIMIT)
    return CHIME_EINVAL;
  query->offset = offset;
  query->limit = limit ? limit : CHIME_ADMIN_MAX_LIMIT;
  return 0;
}

void chime_admin_query_free(chime_admin_query *query) {
  if (!query)
    return;
  free(query->pattern);
  free(query->job_group);
  free(query->job_name);
  free(query->trigger_group);
  free(query->trigger_name);
  free(query->node);
  free(query->outcome);
  free(query->who);
  free(query->action);
  free(query);
}

/* -------------------------------------------------------------- lists */

int chime_admin_list(chime_admin *admin, const chime_admin_query *query,
                     chime_admin_table **ret) {
  if (!admin || !query || !ret)
    return CHIME_EINVAL;
  *ret = NULL;
  admin->err[0] = '\0';
  bool limits = query->kind == CHIME_ADMIN_LIMITS; /* every store's own */
  if (!limits && !admin->store->ops->admin_list)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EUNSUPPORTED,
                             "the %s store has no operators' lists",
                             admin->store->ops->name);
  chime_admin_table *t = chime__admin_table_new(query->kind);
  if (!t)
    return CHIME_ENOMEM;
  int r = limits ? chime__admin_list_limits(admin->store, query, t)
                 : admin->store->ops->admin_list(admin->store, query,
                                                 admin->operator, t, admin->err,
                                                 sizeof admin->err);
  if (r == 0 && chime__admin_table_failed(t))
    r = CHIME_ENOMEM;
  if (r < 0) {
    if (!admin->err[0])
      snprintf(admin->err, sizeof admin->err, "%s", chime_strerror(r));
    chime_admin_table_free(t);
    return r;
  }
  *ret = t;
  return 0;
}

/* ------------------------------------------------------------ actions */

/* Records a failed action's message in admin (what it acted on) and
 * returns r. */
static int action_failed(chime_admin *admin, int r, const char *what,
                         const char *group, const char *name) {
  if (r < 0)
    chime__record_err(admin->err, sizeof admin->err, r, "%s %s%s%s: %s", what,
                      group ? group : "", name ? "." : "", name ? name : "",
                      r == CHIME_ENOTFOUND ? "not found" : chime_strerror(r));
  return r;
}

/* Whether (group, name) is a whole key. */
static bool is_key(const char *group, const char *name) {
  return group && name;
}

int chime_admin_set_paused(chime_admin *admin, chime_admin_target target,
                           const char *group, const char *name, bool paused) {
  if (!admin)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  chime_store *st = admin->store;
  const chime_store_ops *ops = st->ops;
  int r = CHIME_EINVAL;
  switch (target) {
  case CHIME_ADMIN_TARGET_TRIGGER: {
    chime_trigger_status status = CHIME_TRIGGER_NONE;
    if (!is_key(group, name))
      break;
    r = ops->trigger_status(st, group, name, &status);
    if (r == 0 && status == CHIME_TRIGGER_NONE)
      r = CHIME_ENOTFOUND;
    if (r == 0)
      r = paused ? ops->pause_trigger(st, group, name)
                 : ops->resume_trigger(st, group, name);
    return action_failed(admin, r, "trigger", group, name);
  }
  case CHIME_ADMIN_TARGET_JOB: {
    chime_job *job = NULL;
    if (!is_key(group, name))
      break;
    r = ops->job_get(st, group, name, &job);
    chime_job_free(job);
    if (r == 0)
      r = paused ? ops->pause_job(st, group, name)
                 : ops->resume_job(st, group, name);
    return action_failed(admin, r, "job", group, name);
  }
  case CHIME_ADMIN_TARGET_GROUP: {
    chime_admin_query q = {.match = CHIME_MATCH_ANY};
    if (!group || name || chime_admin_query_set_group(&q, group) < 0)
      break;
    const char *pattern = q.pattern ? q.pattern : "";
    r = paused ? ops->pause_group(st, q.match, pattern)
               : ops->resume_group(st, q.match, pattern);
    free(q.pattern);
    return action_failed(admin, r, "group", group, NULL);
  }
  case CHIME_ADMIN_TARGET_ALL:
    if (group || name)
      break;
    r = paused ? ops->pause_all(st) : ops->resume_all(st);
    return action_failed(admin, r, "all", NULL, NULL);
  }
  return chime__record_err(admin->err, sizeof admin->err, CHIME_EINVAL,
                           "a trigger or job wants GROUP and NAME, a group "
                           "its pattern, all neither");
}

int chime_admin_delete(chime_admin *admin, chime_admin_target target,
                       const char *group, const char *name) {
  if (!admin)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  bool job = target == CHIME_ADMIN_TARGET_JOB;
  if ((!job && target != CHIME_ADMIN_TARGET_TRIGGER) || !is_key(group, name))
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EINVAL,
                             "delete wants a trigger or a job, GROUP and "
                             "NAME");
  chime_store *st = admin->store;
  int r = job ? st->ops->job_remove(st, group, name)
              : st->ops->trigger_remove(st, group, name);
  return action_failed(admin, r, job ? "job" : "trigger", group, name);
}

int chime_admin_cancel(chime_admin *admin, const char *group, const char *name,
                       int64_t fire_id, size_t *ret_count) {
  if (!admin)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  size_t count = 0;
  if (ret_count)
    *ret_count = 0;
  bool by_job = is_key(group, name) && fire_id == 0;
  bool by_fire = !group && !name && fire_id > 0;
  if (!by_job && !by_fire)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EINVAL,
                             "cancel wants a job (GROUP and NAME) or a fire "
                             "id, not both");
  chime_store *st = admin->store;
  int r = 0;
  if (by_job) {
    chime_job *job = NULL;
    r = st->ops->job_get(st, group, name, &job);
    chime_job_free(job);
  }
  if (r == 0)
    r = st->ops->interrupt(st, group, name, fire_id, &count);
  if (r == 0 && ret_count)
    *ret_count = count;
  return action_failed(admin, r, by_job ? "job" : "fire", by_job ? group : NULL,
                       by_job ? name : NULL);
}

int chime_admin_set_drain(chime_admin *admin, const char *node, bool drain,
                          int64_t timeout_ms, const char *who,
                          const char *origin) {
  if (!admin || !node || timeout_ms < 0)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  chime_store *st = admin->store;
  if (!st->ops->drain_set)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EUNSUPPORTED,
                             "the %s store has no drains", st->ops->name);
  int r = st->ops->drain_set(st, node, drain, timeout_ms, who, origin);
  return action_failed(admin, r, "node", node, NULL);
}

int chime_admin_repair(chime_admin *admin, const char *kind, const char *group,
                       const char *name, int64_t fire_id, const char *node,
                       const char *who, const char *origin, bool *ret_fixed) {
  bool fixed = false;
  if (ret_fixed)
    *ret_fixed = false;
  if (!admin)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  chime_store *st = admin->store;
  if (!kind)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EINVAL,
                             "a repair names the kind of its stuck state");
  if (!st->ops->admin_repair)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EUNSUPPORTED,
                             "the %s store is never left stuck: it has "
                             "nothing to repair",
                             st->ops->name);
  int r = st->ops->admin_repair(st, kind, group, name, fire_id, node, who,
                                origin, &fixed, admin->err, sizeof admin->err);
  if (r == 0 && ret_fixed)
    *ret_fixed = fixed;
  return r;
}

int chime_admin_get_now_ms(chime_admin *admin, int64_t *ret_now_ms) {
  if (!admin || !ret_now_ms)
    return CHIME_EINVAL;
  *ret_now_ms = admin->store->ops->now(admin->store);
  return 0;
}

int chime_admin_check_in(chime_admin *admin) {
  if (!admin)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  chime_store *st = admin->store;
  if (!admin->operator) /* a scheduler's: its loop checks in */
    return 0;
  int r = st->ops->checkin(st, st->ops->now(st), NULL);
  if (r < 0)
    chime__record_err(admin->err, sizeof admin->err, r, "check-in failed: %s",
                      chime_strerror(r));
  return r;
}

int chime_admin_audit(chime_admin *admin, const char *who, const char *origin,
                      const char *action, const char *target,
                      const char *details) {
  if (!admin)
    return CHIME_EINVAL;
  admin->err[0] = '\0';
  chime_store *st = admin->store;
  if (!action || !*action)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EINVAL,
                             "an audit row needs an action");
  if (!st->ops->audit_add)
    return chime__record_err(admin->err, sizeof admin->err, CHIME_EUNSUPPORTED,
                             "the %s store keeps no audit trail",
                             st->ops->name);
  return st->ops->audit_add(st, who, origin, action, target, details,
                            admin->err, sizeof admin->err);
}
