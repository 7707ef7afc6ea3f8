/*
 * misfires.c: the memory store's misfire scan: it walks the WAITING
 * triggers of every heap in due order and applies the misfire instruction
 * of each late one (Quartz's applyMisfire; triggers/misfire.h), oldest
 * first, at most max per call, so a backlog after a pause is worked off in
 * small batches between the engine's ticks.
 *
 * Locks: scan_misfires takes the store's lock (memory.h) once, holds the
 * triggers it handles out of their heaps meanwhile (index.c), puts them
 * back and releases the lock before calling on_misfire with a copy of
 * each.
 */
#include "jobstore/memory/memory.h"

#include "triggers/misfire.h"

#include <assert.h>
#include <stdlib.h>

/* Copies of the triggers whose misfire was handled, for the callback. */
typedef struct handled {
  chime_trigger **items;
  size_t count, cap;
} handled;

static void note_handled(handled *h, const mem_trigger *mt) {
  if (h->count == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 16;
    chime_trigger **items = realloc(h->items, cap * sizeof *items);
    if (!items)
      return; /* the callback misses it; the trigger is handled anyway */
    h->items = items;
    h->cap = cap;
  }
  chime_trigger *copy = chime__mem_trigger_out(mt);
  if (copy)
    h->items[h->count++] = copy;
}

/*
 * Applies mt's misfire instruction at now_ms (Quartz's applyMisfire): a
 * trigger left without a next fire becomes COMPLETE and stays in the store
 * (as in Quartz, which only takes it off its time-ordered set).  mt is
 * held (out of its heap); a WAITING result goes back with the other held
 * ones.
 */
static void apply_misfire(mem_trigger *mt, int64_t now_ms, handled *h) {
  assert(mt->heap == NULL && mt->claim == NULL);
  assert(mt->t->store_state == CHIME_STATE_WAITING);
  int64_t missed = mt->t->state.next_fire_ms;
  size_t before = h->count;
  int r = chime__trigger_apply_misfire(&mt->t->schedule, &mt->t->state, now_ms);
  if (r < 0)
    mt->t->store_state = CHIME_STATE_ERROR;
  else if (!chime__trigger_may_fire_again(&mt->t->state))
    mt->t->store_state = CHIME_STATE_COMPLETE;
  note_handled(h, mt);
  if (h->count > before)
    h->items[before]->misfired_ms = missed;
}

int chime__mem_scan_misfires(chime_store *store, int64_t now_ms, size_t max,
                             chime_misfire_fn on_misfire, void *user_data,
                             size_t *ret_handled, bool *ret_more) {
  mem_store *s = (mem_store *)store;
  size_t nheaps;
  bool ok, more = false;
  mem_held taken = {0};
  handled done = {0};
  int r = 0;
  size_t n = 0;
  chime__mem_lock(s);
  mem_heap **hs = chime__mem_heaps_of(s, NULL, &nheaps, &ok);
  if (!ok)
    r = CHIME_ENOMEM;
  while (r == 0) {
    mem_trigger *mt = chime__mem_first_due(hs, nheaps);
    if (!mt || mt->t->state.next_fire_ms > now_ms - s->misfire_threshold_ms)
      break;
    bool late = chime__mem_misfired(s, mt, now_ms);
    if (late && n == max) {
      more = true;
      break;
    }
    if (!chime__mem_hold(&taken, mt)) {
      r = CHIME_ENOMEM;
      more = true;
      break;
    }
    if (late) {
      apply_misfire(mt, now_ms, &done);
      n++;
    }
  }
  chime__mem_unhold(s, &taken);
  assert(n <= max && done.count <= n);
  chime__mem_unlock(s);
  free(hs);
  for (size_t i = 0; i < done.count; i++) {
    if (on_misfire)
      on_misfire(user_data, done.items[i]);
    chime_trigger_free(done.items[i]);
  }
  free(done.items);
  if (r < 0 && n == 0)
    return r;
  if (ret_handled)
    *ret_handled = n;
  if (ret_more)
    *ret_more = more;
  return 0;
}
