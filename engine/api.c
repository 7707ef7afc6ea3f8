/*
 * api.c: what every public entry point of the engine shares: the detail of
 * a failed call (chime_scheduler_errmsg) and the check that opens
 * a call on a scheduler.
 *
 * Error detail is kept with the scheduler, per thread: s->errs holds, for
 * each of the last CHIME__ERR_THREADS threads that failed a call on s, the
 * message of that thread's last failure, named by the thread's number
 * (thread_number: given once per thread, never reused, unlike the address
 * of a thread-local).  A thread therefore never sees another thread's
 * detail, and any number of schedulers keep theirs side by side.  More
 * threads than that failing on one scheduler: the one that wrote least
 * recently gives up its entry.  chime_scheduler_errmsg copies the message
 * into the calling thread's own buffer, so what it returns stays valid
 * whatever other threads write meanwhile.
 *
 * Threads and locks: every function here may run on any thread.  s->err_mu
 * guards s->errs, is taken with no other lock held (engine.h's lock order)
 * and nothing is called while it is held.  chime__api_enter takes s->mu and
 * must therefore be called without it.
 */
#include "engine/engine.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Its address names the thread among the live ones (chime__thread_tag). */
static _Thread_local char tls_tag;

uintptr_t chime__thread_tag(void) {
  return (uintptr_t)&tls_tag;
}

/* A number for the calling thread, given on first use, never given again. */
static uint64_t thread_number(void) {
  static atomic_uint_fast64_t next = 1;
  static _Thread_local uint64_t number;
  if (number == 0)
    number = atomic_fetch_add(&next, 1);
  return number;
}

/* What chime_scheduler_errmsg hands back: the calling thread's copy. */
static _Thread_local char tls_msg[CHIME__ERRMSG_LEN];

/* The entry of thread in s->errs, or NULL.  s->err_mu held. */
static chime__err_entry *err_find(const chime_scheduler *s, uint64_t thread) {
  for (size_t i = 0; i < s->nerrs; i++)
    if (s->errs[i].thread == thread)
      return &s->errs[i];
  return NULL;
}

/* The entry to write thread's message to: its own, a new one while fewer
 * than CHIME__ERR_THREADS exist (NULL when out of memory), else the one
 * written least recently.  s->err_mu held. */
static chime__err_entry *err_take(chime_scheduler *s, uint64_t thread) {
  chime__err_entry *e = err_find(s, thread);
  if (!e && s->nerrs < CHIME__ERR_THREADS) {
    chime__err_entry *grown =
        realloc(s->errs, (s->nerrs + 1) * sizeof *s->errs);
    if (grown) {
      s->errs = grown;
      e = &s->errs[s->nerrs++];
    }
  }
  if (!e && s->nerrs > 0) {
    e = &s->errs[0];
    for (size_t i = 1; i < s->nerrs; i++)
      if (s->errs[i].used < e->used)
        e = &s->errs[i];
  }
  if (e) {
    e->thread = thread;
    e->used = ++s->err_clock;
  }
  return e;
}

const char *chime_scheduler_errmsg(const chime_scheduler *scheduler) {
  if (!scheduler)
    return "";
  chime_scheduler *s = (chime_scheduler *)scheduler;
  pthread_mutex_lock(&s->err_mu);
  chime__err_entry *e = err_find(s, thread_number());
  snprintf(tls_msg, sizeof tls_msg, "%s", e ? e->msg : "");
  pthread_mutex_unlock(&s->err_mu);
  return tls_msg;
}

int chime__fail(chime_scheduler *s, int code, const char *fmt, ...) {
  assert(code < 0);
  if (!s)
    return code;              /* no handle to keep the detail with */
  assert(!chime__mu_held(s)); /* err_mu is never taken under mu */
  char msg[CHIME__ERRMSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&s->err_mu);
  chime__err_entry *e = err_take(s, thread_number());
  if (e)
    memcpy(e->msg, msg, sizeof msg);
  pthread_mutex_unlock(&s->err_mu);
  return code;
}

int chime__api_enter(chime_scheduler *s, const char *fn) {
  assert(fn);
  if (!s)
    return CHIME_EINVAL;
  assert(s->store && s->cfg.instance_id);
  chime__mu_lock(s);
  assert(s->state == CHIME_SCHEDULER_STANDBY ||
         s->state == CHIME_SCHEDULER_STARTED ||
         s->state == CHIME_SCHEDULER_SHUTDOWN);
  bool down = s->state == CHIME_SCHEDULER_SHUTDOWN;
  chime__mu_unlock(s);
  if (down)
    return chime__fail(s, CHIME_ESHUTDOWN, "%s: the scheduler is shut down",
                       fn);
  return 0;
}
