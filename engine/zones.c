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
 * How much: a zone may hold very many triggers, and the loop must go on
 * checking in and claiming, so a check-in recomputes about
 * CHIME__ZONES_PER_CHECKIN triggers and the next goes on where it stopped
 * (the store's cursor); chime_scheduler_reload_zones, on its caller's
 * thread, does the whole pass at once.  The two may overlap: the
 * recompute is idempotent.
 *
 * Threads: the loop thread (check-in: the loop_zones* fields are its
 * own) and API callers, mu not held; the generation is an atomic, and the
 * zone cache and the store lock for themselves.
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
/* Triggers a check-in recomputes at most (about: whole store batches). */
#define CHIME__ZONES_PER_CHECKIN 1000
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

/* Checks the files (all read again when force; else only when due) and
 * logs the ones that could not be read. */
static int check_files(chime_scheduler *s, bool force) {
  size_t changed = 0, failed = 0;
  int r =
      force || check_due() ? chime__zone_check(force, &changed, &failed) : 0;
  if (r == 0 && failed > 0)
    chime__log(s, CHIME_LOG_WARN,
               "%zu time zone file(s) could not be read again: those zones "
               "keep the rules read before",
               failed);
  return r;
}

/* After a whole pass over names: says so, moves the generation on, and
 * wakes the loop when a next fire moved (it may now be sooner). */
static void pass_done(chime_scheduler *s, char **names, size_t n, uint64_t gen,
                      size_t moved) {
  if (n > 0) {
    char text[256];
    names_text(names, n, text, sizeof text);
    chime__log(s, CHIME_LOG_INFO,
               "time zone rules changed (%s): next fire recomputed for %zu "
               "trigger(s)",
               text, moved);
  }
  gen_advance(s, gen);
  if (moved > 0)
    chime__loop_wake(s);
}

int chime__zones_sync(chime_scheduler *s, bool force, size_t *ret_zones) {
  assert(s && !chime__mu_held(s));
  int r = check_files(s, force);
  if (r < 0)
    return r;
  char **names = NULL;
  size_t n = 0, moved = 0;
  uint64_t gen;
  r = chime__zone_changed_since(atomic_load(&s->zones_gen), &names, &n, &gen);
  if (r < 0)
    return r;
  chime_store *st = s->store;
  chime_zones_cursor *cursor = NULL;
  if (n > 0 && st->ops->recompute_zones)
    r = st->ops->recompute_zones(st, (const char *const *)names, n, 0, &cursor,
                                 &moved);
  assert(r != 1 && cursor == NULL); /* no limit: one call */
  if (r == 0)
    pass_done(s, names, n, gen, moved);
  chime__zone_names_free(names, n);
  if (r < 0)
    return r; /* the generation stays: the next check-in tries again */
  if (ret_zones)
    *ret_zones = n;
  return 0;
}

/* Drops the loop's pass in progress. */
static void loop_pass_clear(chime_scheduler *s) {
  chime__zone_names_free(s->loop_zones, s->loop_nzones);
  chime__zones_cursor_free(s->loop_zones_cursor);
  s->loop_zones = NULL;
  s->loop_nzones = 0;
  s->loop_zones_cursor = NULL;
  s->loop_zones_moved = 0;
}

int chime__zones_tick(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime_store *st = s->store;
  int r;
  if (s->loop_zones == NULL) { /* no pass under way: look for changes */
    if ((r = check_files(s, false)) < 0)
      return r;
    char **names = NULL;
    size_t n = 0;
    uint64_t gen;
    r = chime__zone_changed_since(atomic_load(&s->zones_gen), &names, &n, &gen);
    if (r < 0)
      return r;
    if (n == 0 || !st->ops->recompute_zones) {
      pass_done(s, names, n, gen, 0);
      chime__zone_names_free(names, n);
      return 0;
    }
    s->loop_zones = names;
    s->loop_nzones = n;
    s->loop_zones_gen = gen;
    s->loop_zones_moved = 0;
  }
  size_t moved = 0;
  r = st->ops->recompute_zones(st, (const char *const *)s->loop_zones,
                               s->loop_nzones, CHIME__ZONES_PER_CHECKIN,
                               &s->loop_zones_cursor, &moved);
  if (r >= 0)
    s->loop_zones_moved += moved;
  if (r == 1)
    return 0; /* the next check-in goes on from the cursor */
  if (r == 0)
    pass_done(s, s->loop_zones, s->loop_nzones, s->loop_zones_gen,
              s->loop_zones_moved);
  loop_pass_clear(s); /* after an error the next check-in starts again */
  return r;
}

void chime__zones_free(chime_scheduler *s) {
  loop_pass_clear(s);
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
