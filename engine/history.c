/*
 * history.c: chime_scheduler_history, a page of the store's recorded runs
 * (the store's history_list op) behind an opaque handle with getters.
 */
#include "engine/engine.h"

#include <stdlib.h>

struct chime_history {
  chime_history_entry *entries;
  size_t count;
};

int chime_scheduler_history(chime_scheduler *scheduler, const char *job_group,
                            const char *job_name, const char *trigger_group,
                            const char *trigger_name, int outcome,
                            int64_t from_ms, int64_t to_ms, int64_t before_id,
                            size_t limit, chime_history **ret_history) {
  chime_scheduler *s = scheduler;
  if (!s || !ret_history)
    return CHIME_EINVAL;
  if ((!job_group) != (!job_name) || (!trigger_group) != (!trigger_name) ||
      outcome < -1 || outcome >= CHIME_OUTCOME_COUNT || limit == 0 ||
      limit > CHIME_HISTORY_MAX_LIMIT || before_id < 0)
    return chime__fail(s, CHIME_EINVAL,
                       "chime_scheduler_history: a half key, an unknown "
                       "outcome, a negative cursor or a limit outside 1-%d",
                       CHIME_HISTORY_MAX_LIMIT);
  chime_store *st = s->store;
  if (!st->ops->history_list)
    return chime__fail(s, CHIME_EUNSUPPORTED,
                       "chime_scheduler_history: the %s store keeps no history",
                       st->ops->name);
  chime_history_filter f = {
      .job_group = job_group,
      .job_name = job_name,
      .trigger_group = trigger_group,
      .trigger_name = trigger_name,
      .outcome = outcome < 0 ? NULL : chime_outcome_to_string(outcome),
      .from_ms = from_ms,
      .to_ms = to_ms,
      .before_id = before_id,
      .limit = limit,
  };
  chime_history *h = calloc(1, sizeof *h);
  if (!h)
    return chime__fail(s, CHIME_ENOMEM, "out of memory");
  int r = st->ops->history_list(st, &f, &h->entries, &h->count);
  if (r < 0) {
    free(h);
    return chime__fail(s, r, "chime_scheduler_history: %s", chime_strerror(r));
  }
  *ret_history = h;
  return 0;
}

size_t chime_history_get_count(const chime_history *history) {
  return history ? history->count : 0;
}

void chime_history_free(chime_history *history) {
  if (!history)
    return;
  chime__history_entries_free(history->entries, history->count);
  free(history);
}

/* Entry i, or NULL. */
static const chime_history_entry *at(const chime_history *h, size_t i) {
  return h && i < h->count ? &h->entries[i] : NULL;
}

#define FIELD(fn, type, field, none)                                           \
  type fn(const chime_history *history, size_t i) {                            \
    const chime_history_entry *e = at(history, i);                             \
    return e ? e->field : none;                                                \
  }
FIELD(chime_history_get_id, int64_t, id, 0)
FIELD(chime_history_get_fire_id, int64_t, fire_id, 0)
FIELD(chime_history_get_job_group, const char *, job_group, NULL)
FIELD(chime_history_get_job_name, const char *, job_name, NULL)
FIELD(chime_history_get_trigger_group, const char *, trigger_group, NULL)
FIELD(chime_history_get_trigger_name, const char *, trigger_name, NULL)
FIELD(chime_history_get_node, const char *, node, NULL)
FIELD(chime_history_get_scheduled_ms, int64_t, scheduled_ms, 0)
FIELD(chime_history_get_started_ms, int64_t, started_ms, 0)
FIELD(chime_history_get_finished_ms, int64_t, finished_ms, 0)
FIELD(chime_history_get_error, int, error, 0)
FIELD(chime_history_get_message, const char *, message, NULL)
FIELD(chime_history_is_recovering, bool, recovering, false)
#undef FIELD

const void *chime_history_get_data(const chime_history *history, size_t i,
                                   size_t *ret_len) {
  const chime_history_entry *e = at(history, i);
  bool own = e && e->data && e->data_len > 0;
  if (ret_len)
    *ret_len = own ? e->data_len : 0;
  return own ? e->data : NULL;
}

chime_outcome chime_history_get_outcome(const chime_history *history,
                                        size_t i) {
  const chime_history_entry *e = at(history, i);
  chime_outcome o = CHIME_OUTCOME_OK;
  if (e && chime_outcome_from_string(e->outcome, &o) < 0)
    o = CHIME_OUTCOME_FAILED; /* an outcome newer than this library */
  return o;
}
