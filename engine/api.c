/*
 * api.c: what every public entry point of the engine shares: the detail of
 * a failed call (chime_scheduler_errmsg) and the check that opens
 * a call on a scheduler.
 *
 * Error detail is kept per thread and per scheduler.  Each thread owns a
 * few slots (ERR_SLOTS), each holding the message of the thread's last
 * failed call on one scheduler, which the slot names by the scheduler's
 * serial number (unlike its address, never reused).  A thread therefore
 * never sees, and never overwrites, the detail of another thread's calls,
 * and no lock is taken.  A thread that fails on more schedulers than it has
 * slots reuses the slot it wrote least recently.
 *
 * Threads and locks: every function here may run on any thread; the slots
 * are the calling thread's own (thread-local), and the scheduler is only
 * read, but for chime__api_enter, which takes s->mu (engine.h: a leaf lock)
 * and must therefore be called without it.
 */
#include "engine/engine.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

/* How many schedulers a thread keeps error detail for. */
#define ERR_SLOTS 4

typedef struct err_slot {
  uint64_t serial; /* the scheduler's; 0: unused */
  uint64_t used;   /* tls_err_clock when last written */
  char msg[CHIME__ERRMSG_LEN];
} err_slot;

static _Thread_local err_slot tls_err[ERR_SLOTS];
static _Thread_local uint64_t tls_err_clock;

/* Its address names the thread (chime__thread_tag). */
static _Thread_local char tls_tag;

uintptr_t chime__thread_tag(void) {
  return (uintptr_t)&tls_tag;
}

/* The calling thread's slot for serial, or NULL when it has none. */
static err_slot *slot_find(uint64_t serial) {
  for (size_t i = 0; i < ERR_SLOTS; i++)
    if (tls_err[i].serial == serial)
      return &tls_err[i];
  return NULL;
}

/* The slot to write serial's message to: its own, else the oldest. */
static err_slot *slot_take(uint64_t serial) {
  err_slot *slot = slot_find(serial);
  if (!slot) {
    slot = &tls_err[0];
    for (size_t i = 1; i < ERR_SLOTS; i++)
      if (tls_err[i].used < slot->used)
        slot = &tls_err[i];
    slot->serial = serial;
  }
  slot->used = ++tls_err_clock;
  return slot;
}

const char *chime_scheduler_errmsg(const chime_scheduler *scheduler) {
  if (!scheduler)
    return "";
  assert(scheduler->serial != 0);
  err_slot *slot = slot_find(scheduler->serial);
  return slot ? slot->msg : "";
}

int chime__fail(chime_scheduler *s, int code, const char *fmt, ...) {
  assert(code < 0);
  if (!s)
    return code; /* no handle to keep the detail with */
  assert(s->serial != 0);
  err_slot *slot = slot_take(s->serial);
  assert(slot->serial == s->serial && slot->used == tls_err_clock);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(slot->msg, sizeof slot->msg, fmt, ap);
  va_end(ap);
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
