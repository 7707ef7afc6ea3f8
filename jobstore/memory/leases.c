/*
 * leases.c: named leases in the memory store (store.h's lease_*), for the
 * threads of one process.  A lease entry (mem_lease) is kept per name
 * after release and expiry, so that the name's next token is greater
 * than this one's; it is also at least now * CHIME__LEASE_TOKENS_PER_MS
 * (store.h), as the MySQL store's: tokens only grow.  The clock is the store's
 * (the process's, with the test offset): a lease is held while expires_ms is
 * later than now and it was not released.  An entry whose lease ran out
 * more than CHIME__MEM_LEASE_KEEP_MS ago is dropped by the check-in's
 * sweep (chime__mem_leases_sweep): the name's next token starts from the
 * clock, above the old one, so the map stays bounded by the names in use.
 *
 * Locks: each operation takes the store's lock once (memory.h).
 */
#include "jobstore/admin.h"
#include "jobstore/memory/memory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem_lease {
  char *name; /* its key, for the sweep */
  int64_t token;
  int64_t acquired_ms, expires_ms, least_until_ms;
  bool released;
} mem_lease;

/* The entry of name, or NULL. */
static mem_lease *lease_find(mem_store *s, const char *name) {
  MEM_ASSERT_LOCKED(s);
  return chime__mem_map_get(&s->leases, name, strlen(name));
}

/* Whether entry l is held by token at now. */
static bool lease_held_by(const mem_lease *l, int64_t token, int64_t now) {
  return l && l->token == token && !l->released && l->expires_ms > now;
}

int chime__mem_lease_acquire(chime_store *store, const char *name,
                             int64_t at_most_ms, int64_t at_least_ms,
                             chime_lease_info *ret) {
  mem_store *s = (mem_store *)store;
  assert(name && at_most_ms > 0 && at_least_ms >= 0 && ret);
  int64_t now = store->ops->now(store);
  chime__mem_lock(s);
  mem_lease *l = lease_find(s, name);
  int r = 0;
  if (!l) {
    l = calloc(1, sizeof *l);
    if (l && !(l->name = strdup(name))) {
      free(l);
      l = NULL;
    }
    if (!l || chime__mem_map_put(&s->leases, name, strlen(name), l) < 0) {
      if (l)
        free(l->name);
      free(l);
      chime__mem_unlock(s);
      return CHIME_ENOMEM;
    }
  }
  if (l->token > 0 && l->expires_ms > now) {
    r = CHIME_EBUSY; /* held, or released but kept for its at_least */
  } else {
    int64_t floor = now > 0 ? now * CHIME__LEASE_TOKENS_PER_MS : 1;
    l->token = l->token + 1 > floor ? l->token + 1 : floor;
    l->acquired_ms = now;
    l->expires_ms = now + at_most_ms;
    l->least_until_ms = now + at_least_ms;
    l->released = false;
  }
  *ret = (chime_lease_info){
      .token = l->token,
      .acquired_ms = l->acquired_ms,
      .expires_ms = l->expires_ms,
  };
  chime__mem_unlock(s);
  return r;
}

int chime__mem_lease_extend(chime_store *store, const char *name, int64_t token,
                            int64_t at_most_ms, int64_t *ret_expires_ms) {
  mem_store *s = (mem_store *)store;
  assert(name && token > 0 && at_most_ms > 0);
  int64_t now = store->ops->now(store);
  chime__mem_lock(s);
  mem_lease *l = lease_find(s, name);
  bool held = lease_held_by(l, token, now);
  if (held) {
    l->expires_ms = now + at_most_ms;
    if (ret_expires_ms)
      *ret_expires_ms = l->expires_ms;
  }
  chime__mem_unlock(s);
  return held ? 0 : CHIME_ENOTOWNER;
}

int chime__mem_lease_release(chime_store *store, const char *name,
                             int64_t token) {
  mem_store *s = (mem_store *)store;
  assert(name && token > 0);
  int64_t now = store->ops->now(store);
  chime__mem_lock(s);
  mem_lease *l = lease_find(s, name);
  bool held = lease_held_by(l, token, now);
  if (held) {
    l->released = true;
    l->expires_ms = l->least_until_ms > now ? l->least_until_ms : now;
  }
  chime__mem_unlock(s);
  return held ? 0 : CHIME_ENOTOWNER;
}

int chime__mem_lease_end(chime_store *store, const char *name) {
  mem_store *s = (mem_store *)store;
  assert(name);
  int64_t now = store->ops->now(store);
  chime__mem_lock(s);
  mem_lease *l = lease_find(s, name);
  bool held = l && l->expires_ms > now;
  if (held) {
    l->released = true;
    l->expires_ms = now;
  }
  chime__mem_unlock(s);
  return held ? 0 : CHIME_ENOTFOUND;
}

int chime__mem_lease_held(chime_store *store, const char *name, int64_t token,
                          bool *ret_held) {
  mem_store *s = (mem_store *)store;
  assert(name && token > 0 && ret_held);
  int64_t now = store->ops->now(store);
  chime__mem_lock(s);
  *ret_held = lease_held_by(lease_find(s, name), token, now);
  chime__mem_unlock(s);
  return 0;
}

static void lease_entry_free(void *value, void *unused) {
  (void)unused;
  mem_lease *l = value;
  free(l->name);
  free(l);
}

size_t chime__mem_leases_sweep(mem_store *s, int64_t now) {
  MEM_ASSERT_LOCKED(s);
  bool ok = true;
  void **all = chime__mem_map_values(&s->leases, &ok);
  size_t n = s->leases.count, dropped = 0;
  for (size_t i = 0; all && i < n; i++) {
    mem_lease *l = all[i];
    if (l->expires_ms >= now - CHIME__MEM_LEASE_KEEP_MS)
      continue;
    void *gone = chime__mem_map_del(&s->leases, l->name, strlen(l->name));
    assert(gone == l);
    (void)gone;
    lease_entry_free(l, NULL);
    dropped++;
  }
  free(all);
  return dropped;
}

void chime__mem_leases_free(mem_store *s) {
  MEM_ASSERT_LOCKED(s);
  chime__mem_map_each(&s->leases, lease_entry_free, NULL);
  chime__mem_map_clear(&s->leases);
}

static int by_lease_name(const void *a, const void *b) {
  return strcmp((*(mem_lease *const *)a)->name, (*(mem_lease *const *)b)->name);
}

int chime__mem_admin_leases(mem_store *s, int64_t now, chime_admin_table *t) {
  MEM_ASSERT_LOCKED(s);
  bool ok = true;
  mem_lease **items = (mem_lease **)chime__mem_map_values(&s->leases, &ok);
  size_t n = ok ? s->leases.count : 0;
  if (n > 1)
    qsort(items, n, sizeof *items, by_lease_name);
  /* The memory store's leases are its own node's: no host or process. */
  for (size_t i = 0; i < n && chime__admin_row_add(t) == 0; i++) {
    const mem_lease *l = items[i];
    chime__admin_set_text(t, CHIME__AC_LEASE_NAME, l->name);
    chime__admin_set_text(t, CHIME__AC_LEASE_HOLDER, s->node);
    chime__admin_set_int(t, CHIME__AC_LEASE_ACQUIRED_MS, l->acquired_ms);
    chime__admin_set_int(t, CHIME__AC_LEASE_EXPIRES_MS, l->expires_ms);
    chime__admin_set_int(t, CHIME__AC_LEASE_TOKEN, l->token);
    chime__admin_set_int(t, CHIME__AC_LEASE_RELEASED, l->released);
    chime__admin_set_int(t, CHIME__AC_LEASE_EXPIRED, l->expires_ms <= now);
  }
  free(items);
  return ok ? 0 : CHIME_ENOMEM;
}
