/*
 * interrupt.c: chime_scheduler_interrupt and chime_scheduler_interrupt_fire,
 * Quartz's interrupt(JobKey) and interrupt(fireInstanceId), across the
 * cluster.  The store flags the executing fires (store.h's interrupt), so
 * the node running one learns of it at its next check-in (runs.c polls);
 * this node's own runs are told at once.
 *
 * Threads and locks: any thread, also a worker or a listener; the store
 * call runs without s->mu, chime__runs_cancel takes it briefly.
 */
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>

/* Flags in the store, then tells this node's runs. */
static int interrupt(chime_scheduler *s, const char *fn, const char *group,
                     const char *name, int64_t fire_id, size_t *ret_count) {
  assert(!chime__mu_held(s));
  chime_store *st = s->store;
  size_t n = 0;
  int r = st->ops->interrupt ? st->ops->interrupt(st, group, name, fire_id, &n)
                             : CHIME_EUNSUPPORTED;
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  chime__runs_cancel(s, group, name, fire_id, CHIME__CANCEL_INTERRUPT);
  if (ret_count)
    *ret_count = n;
  return 0;
}

int chime_scheduler_interrupt(chime_scheduler *s, const char *group,
                              const char *name, size_t *ret_count) {
  static const char fn[] = "chime_scheduler_interrupt";
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if ((r = chime__key_check(group, name)) < 0)
    return chime__fail(s, r, "%s: invalid job key", fn);
  return interrupt(s, fn, group, name, 0, ret_count);
}

int chime_scheduler_interrupt_fire(chime_scheduler *s, int64_t fire_id) {
  static const char fn[] = "chime_scheduler_interrupt_fire";
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (fire_id <= 0)
    return chime__fail(s, CHIME_EINVAL, "%s: fire id %lld is not positive", fn,
                       (long long)fire_id);
  size_t n = 0;
  r = interrupt(s, fn, NULL, NULL, fire_id, &n);
  if (r == 0 && n == 0)
    return chime__fail(s, CHIME_ENOTFOUND,
                       "%s: no fire %lld is running in the cluster", fn,
                       (long long)fire_id);
  return r;
}
