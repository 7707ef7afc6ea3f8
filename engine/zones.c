/*
 * zones.c: time zone rules that change while the scheduler runs (a tzdata
 * update).  The zone cache (triggers/tz_load.c) reloads a zone whose file
 * changed and numbers each change with a generation; this file asks it to
 * check the files, and has the store recompute the next fire of the
 * triggers in every zone changed since this scheduler's generation
 * (store.h's recompute_zones), then moves the generation on.
 *
 * When: at every successful check-in of the loop (loop.c), so a node
 * notices a new file within one check-in interval (or a second, when the
 * interval is shorter: CHECK_EVERY_MS) at the cost of one stat() per zone
 * it has loaded; and at once on
 * chime_scheduler_reload_zones, which also reads every file again (a file
 * rewritten in place within the same second, with the same size, keeps its
 * stat).  Why at check-in and not in the database: a node's rules come from
 * its own host's files, so it is each node's own check that makes it stop
 * computing with old rules; the stores' recompute starts from each
 * trigger's previous fire, so the nodes that do it (each, once it noticed)
 * write the same times whatever the order, and no node-to-node message or
 * schema change is needed.  Hosts must carry the same tzdata
 * (docs/operations.md).
 *
 * Threads: the loop thread (check-in) and API callers, mu not held; the
 * generation is an atomic, and the zone cache and the store lock for
 * themselves.
 */
#include "core/clock.h"
#include "engine/engine.h"

#include "triggers/tz.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* Check-ins look at the files at most once per CHECK_EVERY_MS in the
 * process (several schedulers, or a check-in interval of a few ms, need no
 * more); each still recomputes what another's check found. */
#define CHECK_EVERY_MS 1000
static _Atomic int64_t last_check_ms = INT64_MIN / 2;

/* Whether a check-in should stat the files now (and claims the slot). */
static bool check_due(void) {
  int64_t now = chime__mono_ms();
  int64_t last = atomic_load(&last_check_ms);
  return now - last >= CHECK_EVERY_MS &&
         atomic_compare_exchange_strong(&last_check_ms, &last, now);
}

/* The generation only moves forward, whichever thread finishes last. */
static void gen_advance(chime_scheduler *s, uint64_t gen) {
  uint64_t cur = atomic_load(&s->zones_gen);
  while (cur < gen && !atomic_compare_exchange_weak(&s->zones_gen, &cur, gen)) {
  }
}

/* "Europe/A, Europe/B" (as far as it fits) for the log. */
static void names_text(char **names, size_t n, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && at + 1 < len; i++) {
    int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i]);
    if (w < 0)
      break;
    at += (size_t)w;
  }
}

int chime__zones_sync(chime_scheduler *s, bool force, size_t *ret_zones) {
  assert(s && !chime__mu_held(s));
  size_t changed = 0, failed = 0;
  int r =
      force || check_due() ? chime__zone_check(force, &changed, &failed) : 0;
  if (r < 0)
    return r;
  if (failed > 0)
    chime__log(s, CHIME_LOG_WARN,
               "%zu time zone file(s) could not be read again: those zones "
               "keep the rules read before",
               failed);
  char **names = NULL;
  size_t n = 0;
  uint64_t gen;
  r = chime__zone_changed_since(atomic_load(&s->zones_gen), &names, &n, &gen);
  if (r < 0)
    return r;
  size_t moved = 0;
  chime_store *st = s->store;
  if (n > 0 && st->ops->recompute_zones)
    r = st->ops->recompute_zones(st, (const char *const *)names, n, &moved);
  if (r == 0 && n > 0) {
    char text[256];
    names_text(names, n, text, sizeof text);
    chime__log(s, CHIME_LOG_INFO,
               "time zone rules changed (%s): next fire recomputed for %zu "
               "trigger(s)",
               text, moved);
  }
  chime__zone_names_free(names, n);
  if (r < 0)
    return r; /* the generation stays: the next check-in tries again */
  gen_advance(s, gen);
  if (moved > 0)
    chime__loop_wake(s); /* a next fire may now be sooner */
  if (ret_zones)
    *ret_zones = n;
  return 0;
}

int chime_scheduler_reload_zones(chime_scheduler *s) {
  static const char fn[] = "chime_scheduler_reload_zones";
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  size_t zones = 0;
  r = chime__zones_sync(s, true, &zones);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  return zones > (size_t)INT32_MAX ? INT32_MAX : (int)zones;
}
