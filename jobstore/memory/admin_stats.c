/*
 * memory/admin_stats.c: the memory store's lists of the cluster's figures
 * (chime-admin.h's CHIME_ADMIN_RUN_COUNTS to _DRAINS), counted from its
 * own records: its history ring, its triggers and fires, its one node's
 * drain; its group pauses (CHIME_ADMIN_PAUSED_GROUPS); its activity by
 * minute and its lost runs (CHIME_ADMIN_ACTIVITY, _EVENTS).  The counts and
 * their order are the MySQL store's (names sorted byte by byte, as its binary
 * collation sorts them).
 *
 * Locks: the caller (admin.c) holds the store's lock.
 */
#include "jobstore/admin.h"
#include "jobstore/memory/memory.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entries the ring keeps, oldest first, each passed to fn. */
static void each_run(const mem_store *s,
                     void (*fn)(const chime_history_entry *e, void *arg),
                     void *arg) {
  int64_t oldest = s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP + 1;
  for (int64_t id = oldest < 1 ? 1 : oldest;
       s->history && id <= s->history_next_id; id++)
    fn(&s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)], arg);
}

/* ----------------------------------------------------------- run counts */

typedef struct runs_arg {
  const chime_history_entry **v;
  size_t n;
} runs_arg;

static void pick_run(const chime_history_entry *e, void *arg) {
  runs_arg *a = arg;
  a->v[a->n++] = e;
}

static int by_job_outcome(const void *x, const void *y) {
  const chime_history_entry *a = *(const chime_history_entry *const *)x;
  const chime_history_entry *b = *(const chime_history_entry *const *)y;
  int c = strcmp(a->job_group, b->job_group);
  if (c == 0)
    c = strcmp(a->job_name, b->job_name);
  return c ? c : strcmp(a->outcome, b->outcome);
}

static int list_run_counts(const mem_store *s, chime_admin_table *t) {
  runs_arg a = {calloc(CHIME__MEM_HISTORY_CAP, sizeof *a.v), 0};
  if (!a.v)
    return CHIME_ENOMEM;
  each_run(s, pick_run, &a);
  qsort(a.v, a.n, sizeof *a.v, by_job_outcome);
  for (size_t i = 0, j; i < a.n; i = j) {
    for (j = i + 1; j < a.n && by_job_outcome(&a.v[i], &a.v[j]) == 0; j++)
      ;
    if (chime__admin_row_add(t) < 0)
      break;
    chime__admin_set_text(t, CHIME__AC_RUNS_JOB_GROUP, a.v[i]->job_group);
    chime__admin_set_text(t, CHIME__AC_RUNS_JOB_NAME, a.v[i]->job_name);
    chime__admin_set_text(t, CHIME__AC_RUNS_OUTCOME, a.v[i]->outcome);
    chime__admin_set_int(t, CHIME__AC_RUNS_COUNT, (int64_t)(j - i));
  }
  free(a.v);
  return 0;
}

/* ------------------------------------------------------------- lateness */

typedef struct late_arg {
  int64_t runs[CHIME__ADMIN_NBUCKETS + 1], late[CHIME__ADMIN_NBUCKETS + 1];
} late_arg;

static void count_late(const chime_history_entry *e, void *arg) {
  late_arg *a = arg;
  if (!chime__admin_scheduled_run(e->trigger_group, e->recovering))
    return;
  int64_t late =
      e->started_ms > e->scheduled_ms ? e->started_ms - e->scheduled_ms : 0;
  for (size_t b = 0; b <= CHIME__ADMIN_NBUCKETS; b++)
    if (b == CHIME__ADMIN_NBUCKETS || late <= chime__admin_lateness_ms[b]) {
      a->runs[b]++;
      a->late[b] += late;
    }
}

/* ---------------------------------------------------------- state counts */

typedef struct state_count {
  const char *state;
  int64_t count;
} state_count;

static int by_state(const void *x, const void *y) {
  return strcmp(((const state_count *)x)->state,
                ((const state_count *)y)->state);
}

/* Counts per state index (at most 16 states). */
typedef struct states_arg {
  int64_t count[16];
} states_arg;

static void count_trigger(void *value, void *arg) {
  const mem_trigger *mt = value;
  unsigned st = (unsigned)mt->t->store_state;
  if (st < 16)
    ((states_arg *)arg)->count[st]++;
}

static void count_fire(void *value, void *arg) {
  const mem_fire *f = value;
  ((states_arg *)arg)->count[f->phase == CHIME_FIRE_EXECUTING ? 1 : 0]++;
}

/* Puts the states counted (name(i) the word of index i), by word. */
static void put_states(chime_admin_table *t, const states_arg *a,
                       const char *(*name)(int)) {
  state_count v[16];
  size_t n = 0;
  for (int i = 0; i < 16; i++)
    if (a->count[i])
      v[n++] = (state_count){name(i), a->count[i]};
  qsort(v, n, sizeof *v, by_state);
  for (size_t i = 0; i < n && chime__admin_row_add(t) == 0; i++) {
    chime__admin_set_text(t, CHIME__AC_STATES_STATE, v[i].state);
    chime__admin_set_int(t, CHIME__AC_STATES_COUNT, v[i].count);
  }
}

static const char *fire_state_name(int i) {
  return i ? "EXECUTING" : "ACQUIRED";
}

/* --------------------------------------------------------------- drains */

static void list_drain(const mem_store *s, chime_admin_table *t) {
  if (!s->drain_asked || chime__admin_row_add(t) < 0)
    return;
  chime__admin_set_text(t, CHIME__AC_DRAIN_NODE, s->node ? s->node : "");
  chime__admin_set_text(t, CHIME__AC_DRAIN_STATE,
                        s->drain_state == CHIME_NODE_DRAINED ? "drained"
                                                             : "draining");
  chime__admin_set_int(t, CHIME__AC_DRAIN_REQUESTED_MS, s->drain_requested_ms);
  chime__admin_set_int(t, CHIME__AC_DRAIN_TIMEOUT_MS, s->drain_timeout_ms);
}

/* ------------------------------------------------------------- activity */

/* One minute's figures. */
typedef struct minute {
  int64_t minute_ms, fires, failures, late_n, late_sum, late_max;
} minute;

typedef struct activity_arg {
  const chime_admin_query *q;
  minute *v; /* at most one per run the ring keeps */
  size_t n;
} activity_arg;

static int by_minute(const void *x, const void *y) {
  int64_t a = ((const minute *)x)->minute_ms,
          b = ((const minute *)y)->minute_ms;
  return (a > b) - (a < b);
}

static void count_minute(const chime_history_entry *e, void *arg) {
  activity_arg *a = arg;
  if (e->started_ms < a->q->from_ms ||
      (a->q->to_ms && e->started_ms >= a->q->to_ms))
    return;
  int64_t m = e->started_ms / 60000 * 60000;
  if (e->started_ms < 0 && e->started_ms % 60000)
    m -= 60000; /* FLOOR */
  size_t i = 0;
  while (i < a->n && a->v[i].minute_ms != m)
    i++;
  if (i == a->n)
    a->v[a->n++] = (minute){.minute_ms = m};
  minute *x = &a->v[i];
  x->fires++;
  if (strcmp(e->outcome, "OK") != 0 && strcmp(e->outcome, "REQUEUED") != 0)
    x->failures++;
  if (chime__admin_scheduled_run(e->trigger_group, e->recovering)) {
    int64_t late =
        e->started_ms > e->scheduled_ms ? e->started_ms - e->scheduled_ms : 0;
    x->late_n++;
    x->late_sum += late;
    if (late > x->late_max)
      x->late_max = late;
  }
}

static int list_activity(const mem_store *s, const chime_admin_query *q,
                         chime_admin_table *t) {
  activity_arg a = {q, calloc(CHIME__MEM_HISTORY_CAP, sizeof *a.v), 0};
  if (!a.v)
    return CHIME_ENOMEM;
  each_run(s, count_minute, &a);
  qsort(a.v, a.n, sizeof *a.v, by_minute);
  for (size_t i = 0; i < a.n && chime__admin_row_add(t) == 0; i++) {
    const minute *x = &a.v[i];
    chime__admin_set_int(t, CHIME__AC_ACT_MINUTE_MS, x->minute_ms);
    chime__admin_set_int(t, CHIME__AC_ACT_FIRES, x->fires);
    chime__admin_set_int(t, CHIME__AC_ACT_FAILURES, x->failures);
    if (x->late_n) { /* the average rounded, as the MySQL store's CAST */
      chime__admin_set_int(t, CHIME__AC_ACT_LATE_AVG_MS,
                           (2 * x->late_sum + x->late_n) / (2 * x->late_n));
      chime__admin_set_int(t, CHIME__AC_ACT_LATE_MAX_MS, x->late_max);
    }
  }
  free(a.v);
  return 0;
}

/* --------------------------------------------------------------- events */

/* The runs the node lost (error CHIME_ENOTOWNER), newest first: the
 * memory store keeps no node start. */
static void list_events(const mem_store *s, chime_admin_table *t) {
  int64_t oldest = s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP + 1;
  for (int64_t id = s->history_next_id; s->history && id >= oldest && id >= 1;
       id--) {
    const chime_history_entry *e =
        &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)];
    if (e->error != CHIME_ENOTOWNER || chime__admin_row_add(t) < 0)
      continue;
    char event[64], detail[1024];
    size_t k = 0;
    for (; e->outcome[k] && k < sizeof event - 1; k++)
      event[k] = (char)tolower((unsigned char)e->outcome[k]);
    event[k] = '\0';
    snprintf(detail, sizeof detail, "fire %" PRId64 " (%s.%s): %s", e->fire_id,
             e->job_group, e->job_name, e->message ? e->message : "");
    chime__admin_set_int(t, CHIME__AC_EVENT_TIME_MS, e->finished_ms);
    chime__admin_set_text(t, CHIME__AC_EVENT_NODE, e->node);
    chime__admin_set_text(t, CHIME__AC_EVENT_EVENT, event);
    chime__admin_set_text(t, CHIME__AC_EVENT_DETAIL, detail);
  }
}

/* -------------------------------------------------------------- retries */

/* The fire a run of trigger (group, name) retried: F of CHIME_RETRY.retry-F
 * (0: not a retry's, or F not a number, as the MySQL store's CAST). */
static int64_t retried(const char *group, const char *name) {
  if (strcmp(group, "CHIME_RETRY") != 0 || strncmp(name, "retry-", 6) != 0)
    return 0;
  return strtoll(name + 6, NULL, 10);
}

/* Adds the link (fire, of) when q wants it: any (no fire), or the one
 * of q's fire F (fire F retried of) and those that retried F (of F). */
static void put_retry(chime_admin_table *t, const chime_admin_query *q,
                      int64_t fire, int64_t of, bool is_retry) {
  if (!is_retry ||
      (q->fire_id && fire != q->fire_id &&
       !(of == q->fire_id && fire > q->fire_id)) ||
      chime__admin_row_add(t) < 0)
    return;
  chime__admin_set_int(t, CHIME__AC_RETRY_FIRE_ID, fire);
  chime__admin_set_int(t, CHIME__AC_RETRY_RETRIED_FIRE_ID, of);
}

typedef struct retry_arg {
  chime_admin_table *t;
  const chime_admin_query *q;
} retry_arg;

static void fire_retry(void *value, void *arg) {
  const mem_fire *f = value;
  const retry_arg *a = arg;
  const char *group = "", *name = "";
  if (f->phase == CHIME_FIRE_ACQUIRED && f->trig) {
    group = f->trig->t->group;
    name = f->trig->t->name;
  } else if (f->key) { /* "group\0name" */
    group = f->key;
    name = f->key + strlen(f->key) + 1;
  }
  put_retry(a->t, a->q, f->id, retried(group, name),
            strcmp(group, "CHIME_RETRY") == 0 &&
                strncmp(name, "retry-", 6) == 0);
}

/* The retries' runs: those claimed or running, then the recorded ones
 * newest first (with a fire: the recorded ones first, as the MySQL
 * store's statement for one fire reads them). */
static void list_retries(const mem_store *s, const chime_admin_query *q,
                         chime_admin_table *t) {
  retry_arg arg = {t, q};
  if (!q->fire_id)
    chime__mem_map_each(&s->fires, fire_retry, &arg);
  int64_t oldest = s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP + 1;
  for (int64_t id = s->history_next_id; s->history && id >= oldest && id >= 1;
       id--) {
    const chime_history_entry *e =
        &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)];
    put_retry(t, q, e->fire_id, retried(e->trigger_group, e->trigger_name),
              strcmp(e->trigger_group, "CHIME_RETRY") == 0 &&
                  strncmp(e->trigger_name, "retry-", 6) == 0);
  }
  if (q->fire_id)
    chime__mem_map_each(&s->fires, fire_retry, &arg);
}

/* --------------------------------------------------------------- shards */

/* One shard row (strings borrowed from the store's records). */
typedef struct shard_row {
  int64_t shard, fire_id; /* fire_id 0: none */
  const char *state, *node, *outcome;
  char progress[164]; /* "": none */
  bool done;
  int64_t finished_ms;
} shard_row;

static int by_shard(const void *x, const void *y) {
  const shard_row *a = x, *b = y;
  if (a->shard != b->shard)
    return (a->shard > b->shard) - (a->shard < b->shard);
  return (a->fire_id > b->fire_id) - (a->fire_id < b->fire_id);
}

/* The first 40 characters (UTF-8) of a checkpoint, as the MySQL store's
 * LEFT(CAST(data AS CHAR), 40). */
static void progress_of(const mem_store *s, int64_t run_id, char *buf,
                        size_t len) {
  size_t n = 0;
  const unsigned char *d = chime__mem_checkpoint_peek(s, run_id, &n);
  size_t k = 0, chars = 0;
  buf[0] = '\0';
  if (!d || run_id <= 0)
    return;
  while (k < n && k + 1 < len && d[k]) {
    if ((d[k] & 0xC0) != 0x80 && chars++ == 40)
      break;
    buf[k] = (char)d[k];
    k++;
  }
  buf[k] = '\0';
}

/* The EXECUTING fire of trigger (group, name) among fires; NULL: none. */
static const mem_fire *running_of(void **fires, size_t n, const char *group,
                                  const char *name) {
  for (size_t i = 0; i < n; i++) {
    const mem_fire *f = fires[i];
    if (f->phase == CHIME_FIRE_EXECUTING && f->key &&
        strcmp(f->key, group) == 0 &&
        strcmp(f->key + strlen(f->key) + 1, name) == 0)
      return f;
  }
  return NULL;
}

/* The shard runs of sharded fire q->fire_id: its shard triggers (waiting,
 * claimed or running) and its recorded shard runs (done). */
static int list_shards(const mem_store *s, const chime_admin_query *q,
                       chime_admin_table *t) {
  bool ok = true;
  void **trigs = chime__mem_map_values(&s->triggers, &ok);
  void **fires = ok ? chime__mem_map_values(&s->fires, &ok) : NULL;
  shard_row *v =
      calloc(s->triggers.count + CHIME__MEM_HISTORY_CAP + 1, sizeof *v);
  size_t n = 0;
  if (!ok || !v) {
    free(trigs);
    free(fires);
    free(v);
    return CHIME_ENOMEM;
  }
  for (size_t i = 0; q->fire_id && i < s->triggers.count; i++) {
    const mem_trigger *mt = trigs[i];
    const chime_trigger *tr = mt->t;
    if (tr->shard_parent != q->fire_id)
      continue;
    const mem_fire *f = running_of(fires, s->fires.count, tr->group, tr->name);
    shard_row *r = &v[n++];
    r->shard = tr->shard_index;
    r->state = f                                         ? "running"
               : tr->store_state == CHIME_STATE_ACQUIRED ? "claimed"
                                                         : "waiting";
    r->node = f || mt->claim ? s->node : NULL;
    r->fire_id = f ? f->id : mt->claim ? mt->claim->id : 0;
    progress_of(s,
                tr->origin_fire_id > 0 ? tr->origin_fire_id
                : f                    ? f->id
                                       : 0,
                r->progress, sizeof r->progress);
  }
  int64_t oldest = s->history_next_id - (int64_t)CHIME__MEM_HISTORY_CAP + 1;
  for (int64_t id = oldest < 1 ? 1 : oldest;
       q->fire_id && s->history && id <= s->history_next_id; id++) {
    const chime_history_entry *e =
        &s->history[(size_t)((id - 1) % CHIME__MEM_HISTORY_CAP)];
    if (e->shard_parent != q->fire_id)
      continue;
    v[n++] = (shard_row){.shard = e->shard_index,
                         .fire_id = e->fire_id,
                         .state = "done",
                         .node = e->node,
                         .outcome = e->outcome,
                         .done = true,
                         .finished_ms = e->finished_ms};
  }
  qsort(v, n, sizeof *v, by_shard);
  for (size_t i = 0; i < n && chime__admin_row_add(t) == 0; i++) {
    chime__admin_set_int(t, CHIME__AC_SHARD_INDEX, v[i].shard);
    chime__admin_set_text(t, CHIME__AC_SHARD_STATE, v[i].state);
    chime__admin_set_text(t, CHIME__AC_SHARD_NODE, v[i].node);
    if (v[i].fire_id)
      chime__admin_set_int(t, CHIME__AC_SHARD_FIRE_ID, v[i].fire_id);
    if (v[i].progress[0])
      chime__admin_set_text(t, CHIME__AC_SHARD_PROGRESS, v[i].progress);
    chime__admin_set_text(t, CHIME__AC_SHARD_OUTCOME, v[i].outcome);
    if (v[i].done)
      chime__admin_set_int(t, CHIME__AC_SHARD_FINISHED_MS, v[i].finished_ms);
  }
  free(trigs);
  free(fires);
  free(v);
  return 0;
}

/* ------------------------------------------------------- paused groups */

static int by_match(const void *x, const void *y) {
  const mem_paused_group *a = x, *b = y;
  return a->match != b->match ? (a->match > b->match) - (a->match < b->match)
                              : strcmp(a->pattern ? a->pattern : "",
                                       b->pattern ? b->pattern : "");
}

/* The paused matchers and all (an "any" pause), by match and pattern. */
static int list_paused(const mem_store *s, const chime_admin_query *q,
                       chime_admin_table *t) {
  mem_paused_group *v = s->npaused ? malloc(s->npaused * sizeof *v) : NULL;
  if (s->npaused && !v)
    return CHIME_ENOMEM;
  if (s->npaused) {
    memcpy(v, s->paused, s->npaused * sizeof *v);
    qsort(v, s->npaused, sizeof *v, by_match);
  }
  bool any = s->all_paused; /* one "any" row, as the MySQL store's key */
  for (size_t i = 0; i < s->npaused; i++)
    if (v[i].match == CHIME_MATCH_ANY)
      any = true;
    else
      chime__admin_put_paused_group(t, q, v[i].match, v[i].pattern);
  if (any) /* CHIME_MATCH_ANY sorts last */
    chime__admin_put_paused_group(t, q, CHIME_MATCH_ANY, NULL);
  free(v);
  return 0;
}

int chime__mem_admin_stats(mem_store *s, const chime_admin_query *q,
                           chime_admin_table *t) {
  late_arg late = {0};
  states_arg states = {0};
  switch (q->kind) {
  case CHIME_ADMIN_RUN_COUNTS:
    return list_run_counts(s, t);
  case CHIME_ADMIN_LATENESS:
    each_run(s, count_late, &late);
    chime__admin_put_lateness(t, late.runs, late.late);
    return 0;
  case CHIME_ADMIN_TRIGGER_STATES:
    chime__mem_map_each(&s->triggers, count_trigger, &states);
    put_states(t, &states, chime__admin_state_name);
    return 0;
  case CHIME_ADMIN_FIRE_STATES:
    chime__mem_map_each(&s->fires, count_fire, &states);
    put_states(t, &states, fire_state_name);
    return 0;
  case CHIME_ADMIN_DRAINS:
    list_drain(s, t);
    return 0;
  case CHIME_ADMIN_PAUSED_GROUPS:
    return list_paused(s, q, t);
  case CHIME_ADMIN_ACTIVITY:
    return list_activity(s, q, t);
  case CHIME_ADMIN_EVENTS:
    list_events(s, t);
    return 0;
  case CHIME_ADMIN_RETRIES:
    list_retries(s, q, t);
    return 0;
  case CHIME_ADMIN_SHARDS:
    return list_shards(s, q, t);
  default:
    return CHIME_EINVAL;
  }
}
