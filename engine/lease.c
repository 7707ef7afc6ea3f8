/*
 * lease.c: named leases (chime.h's chime_lease_*, chime_lease_run): the
 * handle, argument checks, waiting for a held lease, and the keep-alive.
 * The store decides everything (store.h's lease_* ops, by its own clock);
 * a handle only remembers what its acquisition returned and whether this
 * holder gave the lease up.
 *
 * Terms: a *holder* is one acquisition, named by its token; a lease is
 * *lost* when the store refused to extend it (it ran out, or was taken
 * over or released by an operator).
 *
 * Threads and locks: a handle belongs to one caller thread at a time;
 * its keep-alive thread (when on) shares it under lease->mu, which guards
 * state, expires_ms and the keep-alive's fields and is held across the
 * store calls that change the lease (so an extension and a release never
 * cross).  lease->mu is taken after nothing else and never with s->mu;
 * the store's own locks are taken inside the store calls.  The scheduler
 * is only read: leases work whether or not it was ever started.
 */
#include "core/clock.h"
#include "engine/engine.h"
#include "model/records.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a waiting acquisition sleeps between tries at most, and at
 * least (a release is seen within the longer pause). */
#define WAIT_PAUSE_MAX_MS 100
#define WAIT_PAUSE_MIN_MS 5

typedef enum lease_state {
  LEASE_HELD,     /* as far as this holder knows */
  LEASE_RELEASED, /* given up by this holder */
  LEASE_LOST      /* the store refused an extension */
} lease_state;

struct chime_lease {
  chime_scheduler *s;
  chime_store *store;
  char *name;
  int64_t token;
  int64_t at_most_ms;
  pthread_mutex_t mu;  /* the fields below */
  pthread_cond_t wake; /* the keep-alive's: stop, or time to extend */
  lease_state state;
  int64_t expires_ms;
  bool keep_alive; /* the keep-alive thread runs */
  bool stop;       /* it is asked to end */
  pthread_t thread;
};

/* Checks name and the durations; records the detail on s for fn. */
static int check_args(chime_scheduler *s, const char *fn, const char *name,
                      int64_t at_most_ms, int64_t at_least_ms,
                      int64_t wait_ms) {
  char err[256];
  int r = chime__name_check(name, "lease name", err, sizeof err);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, err);
  if (at_most_ms <= 0 || at_least_ms < 0 || at_least_ms > at_most_ms ||
      wait_ms < 0)
    return chime__fail(s, CHIME_EINVAL,
                       "%s: at_most_ms must be > 0, at_least_ms from 0 to "
                       "at_most_ms, wait_ms >= 0",
                       fn);
  if (at_most_ms > CHIME_LEASE_MAX_MS || wait_ms > CHIME_LEASE_MAX_MS)
    return chime__fail(s, CHIME_ELIMIT,
                       "%s: at_most_ms and wait_ms are at most "
                       "CHIME_LEASE_MAX_MS (366 days)",
                       fn);
  return 0;
}

/* A handle for a lease the store just gave. */
static chime_lease *lease_new(chime_scheduler *s, const char *name,
                              int64_t at_most_ms, const chime_lease_info *in) {
  chime_lease *l = calloc(1, sizeof *l);
  if (!l || !(l->name = strdup(name))) {
    free(l);
    return NULL;
  }
  pthread_condattr_t attr; /* the keep-alive waits with a deadline */
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&l->wake, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_init(&l->mu, NULL);
  l->s = s;
  l->store = s->store;
  l->token = in->token;
  l->at_most_ms = at_most_ms;
  l->expires_ms = in->expires_ms;
  l->state = LEASE_HELD;
  return l;
}

/* How long a waiting acquisition sleeps before its next try: until the
 * holder's lease runs out (by the store's clock), within bounds. */
static int64_t wait_pause(chime_store *store, const chime_lease_info *holder,
                          int64_t left_ms) {
  int64_t pause = holder->expires_ms - store->ops->now(store);
  if (pause > WAIT_PAUSE_MAX_MS)
    pause = WAIT_PAUSE_MAX_MS;
  if (pause < WAIT_PAUSE_MIN_MS)
    pause = WAIT_PAUSE_MIN_MS;
  return pause < left_ms ? pause : left_ms;
}

/* chime_lease_acquire under the name fn (for its errors). */
static int acquire(chime_scheduler *s, const char *fn, const char *name,
                   int64_t at_most_ms, int64_t at_least_ms, int64_t wait_ms,
                   chime_lease **ret_lease) {
  int r = chime__api_enter(s, fn);
  if (r < 0)
    return r;
  if (!ret_lease)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL ret_lease", fn);
  if ((r = check_args(s, fn, name, at_most_ms, at_least_ms, wait_ms)) < 0)
    return r;
  chime_store *store = s->store;
  int64_t deadline = chime__mono_ms() + wait_ms;
  chime_lease_info info;
  for (;;) {
    r = store->ops->lease_acquire(store, name, at_most_ms, at_least_ms, &info);
    int64_t left = deadline - chime__mono_ms();
    if (r != CHIME_EBUSY || left <= 0)
      break;
    chime__sleep_ms(wait_pause(store, &info, left));
  }
  if (r == CHIME_EBUSY)
    return chime__fail(s, r, "%s: lease '%s' is held (token %lld)", fn, name,
                       (long long)info.token);
  if (r < 0)
    return chime__fail(s, r, "%s: %s", fn, chime_strerror(r));
  chime_lease *l = lease_new(s, name, at_most_ms, &info);
  if (!l) {
    (void)store->ops->lease_release(store, name, info.token);
    return chime__fail(s, CHIME_ENOMEM, "%s: out of memory", fn);
  }
  *ret_lease = l;
  return 0;
}

int chime_lease_acquire(chime_scheduler *s, const char *name,
                        int64_t at_most_ms, int64_t at_least_ms,
                        int64_t wait_ms, chime_lease **ret_lease) {
  return acquire(s, "chime_lease_acquire", name, at_most_ms, at_least_ms,
                 wait_ms, ret_lease);
}

int64_t chime_lease_get_token(const chime_lease *lease) {
  return lease ? lease->token : 0;
}

const char *chime_lease_get_name(const chime_lease *lease) {
  return lease ? lease->name : NULL;
}

int64_t chime_lease_get_expires_ms(const chime_lease *lease) {
  if (!lease)
    return 0;
  chime_lease *l = (chime_lease *)lease; /* the lock, not the lease */
  pthread_mutex_lock(&l->mu);
  int64_t v = l->expires_ms;
  pthread_mutex_unlock(&l->mu);
  return v;
}

/* Extends l under l->mu: a refusal marks it lost. */
static int extend_locked(chime_lease *l, int64_t at_most_ms) {
  if (l->state != LEASE_HELD)
    return CHIME_ENOTOWNER;
  int64_t expires = 0;
  int r = l->store->ops->lease_extend(l->store, l->name, l->token, at_most_ms,
                                      &expires);
  if (r == 0)
    l->expires_ms = expires;
  else if (r == CHIME_ENOTOWNER)
    l->state = LEASE_LOST;
  return r;
}

int chime_lease_extend(chime_lease *lease, int64_t at_most_ms) {
  static const char fn[] = "chime_lease_extend";
  if (!lease)
    return CHIME_EINVAL;
  if (at_most_ms <= 0)
    return chime__fail(lease->s, CHIME_EINVAL, "%s: at_most_ms must be > 0",
                       fn);
  if (at_most_ms > CHIME_LEASE_MAX_MS)
    return chime__fail(lease->s, CHIME_ELIMIT,
                       "%s: at_most_ms is over CHIME_LEASE_MAX_MS", fn);
  pthread_mutex_lock(&lease->mu);
  int r = extend_locked(lease, at_most_ms);
  if (r == 0)
    lease->at_most_ms = at_most_ms; /* the keep-alive's period follows */
  pthread_mutex_unlock(&lease->mu);
  if (r < 0)
    return chime__fail(lease->s, r, "%s: lease '%s' (token %lld): %s", fn,
                       lease->name, (long long)lease->token, chime_strerror(r));
  return 0;
}

/* ---------------------------------------------------------- keep-alive */

/* The keep-alive thread: extends every third of at_most_ms (sooner after a
 * failed try: the database may be back) until stopped or refused. */
static void *keep_alive_main(void *arg) {
  chime_lease *l = arg;
  pthread_setname_np(pthread_self(), "chime-lease");
  pthread_mutex_lock(&l->mu);
  int64_t period = l->at_most_ms / 3 > 0 ? l->at_most_ms / 3 : 1;
  int64_t next = chime__mono_ms() + period;
  while (!l->stop && l->state == LEASE_HELD) {
    int64_t now = chime__mono_ms();
    if (now < next) {
      struct timespec ts = {.tv_sec = (time_t)(next / 1000),
                            .tv_nsec = (long)(next % 1000) * 1000000L};
      pthread_cond_timedwait(&l->wake, &l->mu, &ts);
      continue;
    }
    int r = extend_locked(l, l->at_most_ms);
    period = l->at_most_ms / 3 > 0 ? l->at_most_ms / 3 : 1;
    next = chime__mono_ms() + (r == 0 ? period : (period + 1) / 2);
  }
  pthread_mutex_unlock(&l->mu);
  return NULL;
}

/* Stops the keep-alive thread, if it runs, and waits for it.  Called
 * without l->mu. */
static void keep_alive_stop(chime_lease *l) {
  pthread_mutex_lock(&l->mu);
  bool running = l->keep_alive;
  l->stop = true;
  l->keep_alive = false;
  pthread_cond_signal(&l->wake);
  pthread_mutex_unlock(&l->mu);
  if (running)
    pthread_join(l->thread, NULL);
}

int chime_lease_set_keep_alive(chime_lease *lease, bool on) {
  if (!lease)
    return CHIME_EINVAL;
  if (!on) {
    keep_alive_stop(lease);
    return 0;
  }
  pthread_mutex_lock(&lease->mu);
  int r = 0;
  if (lease->state != LEASE_HELD) {
    r = CHIME_ENOTOWNER;
  } else if (!lease->keep_alive) {
    lease->stop = false;
    if (pthread_create(&lease->thread, NULL, keep_alive_main, lease) != 0)
      r = CHIME_ENOMEM;
    else
      lease->keep_alive = true;
  }
  pthread_mutex_unlock(&lease->mu);
  return r < 0 ? chime__fail(lease->s, r, "chime_lease_set_keep_alive: %s",
                             chime_strerror(r))
               : 0;
}

/* ------------------------------------------------- release and the rest */

int chime_lease_release(chime_lease *lease) {
  if (!lease)
    return CHIME_EINVAL;
  keep_alive_stop(lease);
  pthread_mutex_lock(&lease->mu);
  int r = CHIME_ENOTOWNER;
  if (lease->state == LEASE_HELD) {
    r = lease->store->ops->lease_release(lease->store, lease->name,
                                         lease->token);
    if (r == 0 || r == CHIME_ENOTOWNER)
      lease->state = r == 0 ? LEASE_RELEASED : LEASE_LOST;
  }
  pthread_mutex_unlock(&lease->mu);
  if (r < 0)
    return chime__fail(lease->s, r,
                       "chime_lease_release: lease '%s' (token %lld): %s",
                       lease->name, (long long)lease->token, chime_strerror(r));
  return 0;
}

bool chime_lease_is_held(chime_lease *lease) {
  if (!lease)
    return false;
  pthread_mutex_lock(&lease->mu);
  bool held = false;
  if (lease->state == LEASE_HELD &&
      lease->store->ops->lease_held(lease->store, lease->name, lease->token,
                                    &held) < 0)
    held = false; /* cannot tell: the caller must act as if lost */
  pthread_mutex_unlock(&lease->mu);
  return held;
}

void chime_lease_free(chime_lease *lease) {
  if (!lease)
    return;
  keep_alive_stop(lease);
  if (lease->state == LEASE_HELD) /* no other thread uses it now */
    (void)lease->store->ops->lease_release(lease->store, lease->name,
                                           lease->token);
  pthread_cond_destroy(&lease->wake);
  pthread_mutex_destroy(&lease->mu);
  free(lease->name);
  free(lease);
}

int chime_lease_run(chime_scheduler *s, const char *name, int64_t at_most_ms,
                    int64_t at_least_ms, chime_lease_fn fn, void *user_data) {
  static const char fnname[] = "chime_lease_run";
  if (s && !fn)
    return chime__fail(s, CHIME_EINVAL, "%s: NULL fn", fnname);
  chime_lease *lease = NULL;
  int r =
      acquire(s, fnname, name, at_most_ms, at_least_ms, 0, fn ? &lease : NULL);
  if (r < 0)
    return r;
  fn(lease, user_data);
  r = chime_lease_release(lease);
  chime_lease_free(lease);
  return r;
}
