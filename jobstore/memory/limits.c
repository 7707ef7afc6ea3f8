/*
 * limits.c: the limits of job types in the memory store (store.h's
 * limit_* ops; docs/queue.md, "Limits"), with the same rules as the MySQL
 * store's (mysql/limit.c): a fire of a limited type is claimed only when
 * its type and its partition have a slot free and the rate a start left;
 * otherwise it stays WAITING, late but never misfired.  Running fires are
 * counted from the fire records at each acquire, so a run that ended or
 * was released frees its slot by its record going away.
 *
 * Locks: the store's, as everywhere in the memory store (memory.h).
 */
#include "jobstore/memory/memory.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem_part {
  char *key;
  int64_t running;
} mem_part;

/* One partition's rate state (its theoretical arrival time). */
typedef struct mem_key_tat {
  char *key;
  int64_t tat_ms;
} mem_key_tat;

typedef struct mem_limit {
  char *type; /* its key */
  chime_limit_def def;
  int64_t tat_ms; /* the rate's theoretical arrival time */
  int64_t running;
  mem_part *parts;
  size_t nparts;
  /* The per-partition rate's state: the keys whose time is ahead (an
   * entry whose time has passed means what none means: dropped). */
  mem_key_tat *tats;
  size_t ntats;
} mem_limit;

static mem_limit *limit_of(const mem_store *s, const char *type) {
  return chime__mem_map_get(&s->limits, type, strlen(type));
}

bool chime__mem_limited(const mem_store *s, const char *type) {
  return s->limits.count > 0 && limit_of(s, type) != NULL;
}

static void parts_clear(mem_limit *l) {
  for (size_t i = 0; i < l->nparts; i++)
    free(l->parts[i].key);
  free(l->parts);
  l->parts = NULL;
  l->nparts = 0;
}

static void tats_clear(mem_limit *l) {
  for (size_t i = 0; i < l->ntats; i++)
    free(l->tats[i].key);
  free(l->tats);
  l->tats = NULL;
  l->ntats = 0;
}

/* The rate state of partition key in l, made when new (its time 0), after
 * dropping the entries whose time has passed.  NULL on ENOMEM. */
static mem_key_tat *tat_of(mem_limit *l, const char *key, int64_t now_ms) {
  size_t kept = 0;
  mem_key_tat *found = NULL;
  for (size_t i = 0; i < l->ntats; i++) {
    bool mine = strcmp(l->tats[i].key, key) == 0;
    if (!mine && l->tats[i].tat_ms <= now_ms) {
      free(l->tats[i].key);
      continue;
    }
    l->tats[kept] = l->tats[i];
    if (mine)
      found = &l->tats[kept];
    kept++;
  }
  l->ntats = kept;
  if (found)
    return found;
  mem_key_tat *v = realloc(l->tats, (l->ntats + 1) * sizeof *v);
  if (!v)
    return NULL;
  l->tats = v;
  if (!(v[l->ntats].key = strdup(key)))
    return NULL;
  v[l->ntats].tat_ms = 0;
  return &v[l->ntats++];
}

static void limit_free(void *value, void *unused) {
  (void)unused;
  mem_limit *l = value;
  parts_clear(l);
  tats_clear(l);
  free(l->type);
  free(l);
}

void chime__mem_limits_free(mem_store *s) {
  chime__mem_map_each(&s->limits, limit_free, NULL);
  chime__mem_map_clear(&s->limits);
}

/* The partition's entry in l, made when new.  NULL on ENOMEM. */
static mem_part *part_of(mem_limit *l, const char *key) {
  for (size_t i = 0; i < l->nparts; i++)
    if (strcmp(l->parts[i].key, key) == 0)
      return &l->parts[i];
  mem_part *v = realloc(l->parts, (l->nparts + 1) * sizeof *v);
  if (!v)
    return NULL;
  l->parts = v;
  mem_part *p = &v[l->nparts];
  if (!(p->key = strdup(key)))
    return NULL;
  p->running = 0;
  l->nparts++;
  return p;
}

static void reset_one(void *value, void *unused) {
  (void)unused;
  mem_limit *l = value;
  l->running = 0;
  parts_clear(l);
}

typedef struct count_walk {
  mem_store *s;
  int r;
} count_walk;

static void count_one(void *value, void *arg) {
  const mem_fire *f = value;
  count_walk *w = arg;
  mem_limit *l = f->type && !f->shard ? limit_of(w->s, f->type) : NULL;
  if (!l)
    return;
  l->running++;
  mem_part *p = f->partition ? part_of(l, f->partition) : NULL;
  if (p)
    p->running++;
  else if (f->partition)
    w->r = CHIME_ENOMEM;
}

int chime__mem_limits_count(mem_store *s) {
  MEM_ASSERT_LOCKED(s);
  atomic_store(&s->limit_wait_ms, -1);
  if (s->limits.count == 0)
    return 0;
  count_walk w = {.s = s};
  chime__mem_map_each(&s->limits, reset_one, NULL);
  chime__mem_map_each(&s->fires, count_one, &w);
  return w.r;
}

static void wait_at_most(mem_store *s, int64_t ms) {
  int64_t w = atomic_load(&s->limit_wait_ms);
  if (w < 0 || ms < w)
    atomic_store(&s->limit_wait_ms, ms);
}

bool chime__mem_limit_admit(mem_store *s, const mem_trigger *mt,
                            int64_t now_ms) {
  MEM_ASSERT_LOCKED(s);
  mem_limit *l = mt->t->shard_parent > 0 || s->limits.count == 0
                     ? NULL
                     : limit_of(s, mt->job->j->type);
  if (!l)
    return true;
  const char *key = mt->t->partition_key;
  mem_part *p = key && l->def.max_per_partition > 0 ? part_of(l, key) : NULL;
  if ((l->def.max_running > 0 && l->running >= l->def.max_running) ||
      (key && l->def.max_per_partition > 0 &&
       (!p || p->running >= l->def.max_per_partition))) {
    wait_at_most(s, CHIME__LIMIT_POLL_MS);
    return false;
  }
  /* Both rates must have a start left: judged on copies, then kept. */
  mem_key_tat *kt =
      key && l->def.key_rate_count > 0 ? tat_of(l, key, now_ms) : NULL;
  int64_t wait = 0, tat = l->tat_ms, key_tat = kt ? kt->tat_ms : 0;
  if (!chime__limit_rate_take(&l->def, &tat, now_ms, &wait) ||
      (kt && !chime__limit_key_rate_take(&l->def, &key_tat, now_ms, &wait)) ||
      (key && l->def.key_rate_count > 0 && !kt)) {
    wait_at_most(s, kt ? wait : CHIME__LIMIT_POLL_MS);
    return false;
  }
  l->tat_ms = tat;
  if (kt)
    kt->tat_ms = key_tat;
  l->running++;
  if (p)
    p->running++;
  return true;
}

int chime__mem_limit_set(chime_store *store, const char *job_type,
                         const chime_limit_def *def) {
  mem_store *s = (mem_store *)store;
  int r = 0;
  chime__mem_lock(s);
  mem_limit *l = limit_of(s, job_type);
  if (!def && !l) {
    r = CHIME_ENOTFOUND;
  } else if (!def) {
    chime__mem_map_del(&s->limits, job_type, strlen(job_type));
    limit_free(l, NULL);
  } else if (l) {
    chime_limit_def d = l->def;
    chime__limit_def_merge(&d, def);
    /* A changed rate starts afresh. */
    if (l->def.rate_count != d.rate_count ||
        l->def.rate_period_ms != d.rate_period_ms)
      l->tat_ms = 0;
    if (l->def.key_rate_count != d.key_rate_count ||
        l->def.key_rate_period_ms != d.key_rate_period_ms)
      tats_clear(l);
    l->def = d;
  } else if (!(l = calloc(1, sizeof *l)) || !(l->type = strdup(job_type))) {
    free(l);
    r = CHIME_ENOMEM;
  } else {
    chime__limit_def_merge(&l->def, def);
    if ((r = chime__mem_map_put(&s->limits, job_type, strlen(job_type), l)) < 0)
      limit_free(l, NULL);
  }
  chime__mem_unlock(s);
  return r;
}

int chime__mem_limit_get(chime_store *store, const char *job_type,
                         chime_limit_def *ret) {
  mem_store *s = (mem_store *)store;
  chime__mem_lock(s);
  mem_limit *l = limit_of(s, job_type);
  if (l)
    *ret = l->def;
  chime__mem_unlock(s);
  return l ? 0 : CHIME_ENOTFOUND;
}

int chime__mem_limit_partition(mem_store *s, chime_trigger *t,
                               const chime_job *job) {
  MEM_ASSERT_LOCKED(s);
  mem_limit *l = s->limits.count > 0 ? limit_of(s, job->type) : NULL;
  return l ? chime__limit_partition_from_data(t, job, l->def.partition_field)
           : 0;
}

int64_t chime__mem_limit_wait_ms(chime_store *store) {
  return atomic_load(&((mem_store *)store)->limit_wait_ms);
}

/* ----------------------------------------------------------- limit_stats */

typedef struct stats_walk {
  mem_store *s;
  int64_t now;
  chime_limit_stat *v;
  size_t n, cap;
  int r;
} stats_walk;

/* The row of (type, partition) in w, made when new (NULL on ENOMEM). */
static chime_limit_stat *stat_of(stats_walk *w, const char *type,
                                 const char *partition) {
  for (size_t i = 0; i < w->n; i++)
    if (strcmp(w->v[i].job_type, type) == 0 &&
        (partition
             ? w->v[i].partition && strcmp(w->v[i].partition, partition) == 0
             : !w->v[i].partition))
      return &w->v[i];
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 8;
    chime_limit_stat *v = realloc(w->v, cap * sizeof *v);
    if (!v)
      return NULL;
    w->v = v;
    w->cap = cap;
  }
  chime_limit_stat *st = &w->v[w->n];
  memset(st, 0, sizeof *st);
  st->job_type = strdup(type);
  st->partition = partition ? strdup(partition) : NULL;
  w->n++;
  if (!st->job_type || (partition && !st->partition))
    return NULL;
  st->def = limit_of(w->s, type)->def;
  return st;
}

/* Counts one waiting or running fire of (type, partition). */
static void stat_add(stats_walk *w, const char *type, const char *partition,
                     bool running) {
  if (!limit_of(w->s, type))
    return;
  for (int pass = 0; pass < (partition ? 2 : 1); pass++) {
    chime_limit_stat *st = stat_of(w, type, pass ? partition : NULL);
    if (!st) {
      w->r = CHIME_ENOMEM;
      return;
    }
    if (running)
      st->running++;
    else
      st->waiting++;
  }
}

static void stat_type(void *value, void *arg) {
  const mem_limit *l = value;
  stats_walk *w = arg;
  if (!stat_of(w, l->type, NULL))
    w->r = CHIME_ENOMEM;
}

static void stat_trigger(void *value, void *arg) {
  const mem_trigger *mt = value;
  stats_walk *w = arg;
  if (mt->t->store_state == CHIME_STATE_WAITING &&
      mt->t->state.next_fire_ms <= w->now && mt->t->shard_parent == 0)
    stat_add(w, mt->job->j->type, mt->t->partition_key, false);
}

static void stat_fire(void *value, void *arg) {
  const mem_fire *f = value;
  if (f->type && !f->shard)
    stat_add(arg, f->type, f->partition, true);
}

static int stat_cmp(const void *a, const void *b) {
  const chime_limit_stat *x = a, *y = b;
  int c = strcmp(x->job_type, y->job_type);
  if (c || !x->partition || !y->partition)
    return c ? c : (x->partition != NULL) - (y->partition != NULL);
  return strcmp(x->partition, y->partition);
}

int chime__mem_limit_stats(chime_store *store, int64_t now_ms,
                           chime_limit_stat **ret_stats, size_t *ret_count) {
  mem_store *s = (mem_store *)store;
  stats_walk w = {.s = s, .now = now_ms};
  chime__mem_lock(s);
  /* Every limited type has its row, with nothing waiting or running. */
  chime__mem_map_each(&s->limits, stat_type, &w);
  chime__mem_map_each(&s->triggers, stat_trigger, &w);
  chime__mem_map_each(&s->fires, stat_fire, &w);
  chime__mem_unlock(s);
  if (w.r < 0) {
    chime__limit_stats_free(w.v, w.n);
    return w.r;
  }
  if (w.n > 1) /* none: w.v is NULL, which qsort may not be given */
    qsort(w.v, w.n, sizeof *w.v, stat_cmp);
  *ret_stats = w.v;
  *ret_count = w.n;
  return 0;
}
