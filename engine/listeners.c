/*
 * listeners.c: listeners and events.  Listeners form an append-only list:
 * adding takes the scheduler's mutex and publishes the new node with a
 * release store, emitting walks the list with acquire loads and no lock, so
 * a listener may run on any thread (the one its event names) while another
 * thread adds one.  Nodes are freed only by chime_scheduler_free.
 *
 * Threads and locks (engine.h): s->mu guards listeners_tail (and so orders
 * two threads adding at once); it is never held while a listener runs,
 * since a listener is the application's code and may call back into the
 * scheduler.  A listener added while an event is being emitted may or may
 * not hear that event, and hears every later one.
 */
#include "engine/engine.h"

#include <assert.h>
#include <stdlib.h>

int chime_scheduler_add_listener(chime_scheduler *scheduler,
                                 unsigned event_mask, chime_listener_fn fn,
                                 void *user_data, chime_destroy_fn destroy) {
  chime_scheduler *s = scheduler;
  int r = chime__api_enter(s, "chime_scheduler_add_listener");
  if (r < 0)
    return r;
  if (!fn || event_mask == 0 || (event_mask & ~(unsigned)CHIME_EVENT_ALL))
    return chime__fail(s, CHIME_EINVAL,
                       "chime_scheduler_add_listener: NULL function or "
                       "invalid event mask 0x%x",
                       event_mask);
  chime_listener *l = calloc(1, sizeof *l);
  if (!l)
    return chime__fail(s, CHIME_ENOMEM, "out of memory");
  l->mask = event_mask;
  l->fn = fn;
  l->user_data = user_data;
  l->destroy = destroy;
  atomic_init(&l->next, NULL);
  chime__mu_lock(s);
  assert((s->listeners_tail == NULL) ==
         (atomic_load_explicit(&s->listeners, memory_order_relaxed) == NULL));
  assert(!s->listeners_tail ||
         atomic_load_explicit(&s->listeners_tail->next, memory_order_relaxed) ==
             NULL);
  if (s->listeners_tail)
    atomic_store_explicit(&s->listeners_tail->next, l, memory_order_release);
  else
    atomic_store_explicit(&s->listeners, l, memory_order_release);
  s->listeners_tail = l;
  chime__mu_unlock(s);
  return 0;
}

/* Calls the listeners of ev's kind.  Returns whether one vetoed. */
static bool deliver(chime_scheduler *s, const chime_event *ev) {
  chime_event_kind kind = ev->kind;
  /* One kind, and one the map knows. */
  assert(kind != 0 && ((unsigned)kind & ((unsigned)kind - 1)) == 0 &&
         ((unsigned)kind & ~(unsigned)CHIME_EVENT_ALL) == 0);
  assert(ev->error <= 0);
  /* Listeners may call back into the scheduler. */
  assert(!chime__mu_held(s));
  bool veto = false;
  chime_listener *l = atomic_load_explicit(&s->listeners, memory_order_acquire);
  for (; l; l = atomic_load_explicit(&l->next, memory_order_acquire)) {
    /* Every listener hears the event, even after a veto (Quartz asks each
     * trigger listener). */
    if ((l->mask & (unsigned)kind) && l->fn(ev, l->user_data))
      veto = true;
  }
  return veto;
}

bool chime__emit(chime_scheduler *s, chime_event_kind kind,
                 const chime_ctx *ctx, const char *job_group,
                 const char *job_name, int error, const char *message) {
  chime_event ev = {
      .kind = kind,
      .ctx = ctx,
      .job_group = job_group,
      .job_name = job_name,
      .error = error,
      .message = message,
  };
  return deliver(s, &ev) && kind == CHIME_EVENT_TRIGGER_FIRED;
}

void chime__emit_alert(chime_scheduler *s, chime_event_kind kind,
                       chime_log_level level, const chime_ctx *ctx,
                       const chime__alert *alert, int error,
                       const char *message) {
  assert(alert && message);
  chime__log_about(s, level, chime__event_name(kind), alert, error, "%s",
                   message);
  chime_event ev = {
      .kind = kind,
      .ctx = ctx,
      .job_group = alert->job_group,
      .job_name = alert->job_name,
      .error = error,
      .message = message,
      .alert = alert,
  };
  deliver(s, &ev);
}

void chime__listeners_clear(chime_scheduler *s) {
  /* No thread runs for s any more: nothing can emit. */
  assert(!chime__mu_held(s) && s->nworkers == 0 && !s->handles_open);
  chime_listener *l = atomic_load(&s->listeners);
  while (l) {
    chime_listener *next = atomic_load(&l->next);
    if (l->destroy)
      l->destroy(l->user_data);
    free(l);
    l = next;
  }
  atomic_store(&s->listeners, NULL);
  s->listeners_tail = NULL;
}

void chime__report_error(chime_scheduler *s, int code, const char *what) {
  assert(code < 0 && what);
  bool outage_said = chime__store_failed(s, code);
  /* ERROR unless the failure is transient and said at ERROR once
   * elsewhere: a lost database (the outage alert; DEBUG after its first
   * failure, as the loop tries every tick), rows locked by another session
   * (retried at the next tick), an instance id another process took (the
   * store's line when it was lost). */
  bool transient =
      code == CHIME_ECONNECT || code == CHIME_EBUSY || code == CHIME_EDUPNODE;
  chime__log(s,
             outage_said ? CHIME_LOG_DEBUG
             : transient ? CHIME_LOG_WARN
                         : CHIME_LOG_ERROR,
             "%s: %s (%s)", what, chime_strerror(code), chime_err_name(code));
  chime__emit(s, CHIME_EVENT_SCHEDULER_ERROR, NULL, NULL, NULL, code, what);
}

/* The fire a ctx event is about (a misfire's is the trigger's), or NULL. */
static const chime_fire *event_fire(const chime_event *event) {
  return event->ctx ? event->ctx->fire : NULL;
}

chime_event_kind chime_event_get_kind(const chime_event *event) {
  return event ? event->kind : (chime_event_kind)0;
}

const chime_ctx *chime_event_get_ctx(const chime_event *event) {
  return event ? event->ctx : NULL;
}

const char *chime_event_get_job_group(const chime_event *event) {
  if (!event)
    return NULL;
  if (event->job_group || event->alert)
    return event->job_group;
  const chime_fire *f = event_fire(event);
  if (f && f->job)
    return f->job->group;
  return f && f->trigger ? f->trigger->job_group : NULL;
}

const char *chime_event_get_job_name(const chime_event *event) {
  if (!event)
    return NULL;
  if (event->job_name || event->alert)
    return event->job_name;
  const chime_fire *f = event_fire(event);
  if (f && f->job)
    return f->job->name;
  return f && f->trigger ? f->trigger->job_name : NULL;
}

int chime_event_get_error(const chime_event *event) {
  return event ? event->error : 0;
}

const char *chime_event_get_message(const chime_event *event) {
  return event ? event->message : NULL;
}

const char *chime_event_get_trigger_group(const chime_event *event) {
  if (!event)
    return NULL;
  if (event->alert)
    return event->alert->trigger_group;
  const chime_fire *f = event_fire(event);
  return f && f->trigger ? f->trigger->group : NULL;
}

const char *chime_event_get_trigger_name(const chime_event *event) {
  if (!event)
    return NULL;
  if (event->alert)
    return event->alert->trigger_name;
  const chime_fire *f = event_fire(event);
  return f && f->trigger ? f->trigger->name : NULL;
}

int64_t chime_event_get_fire_id(const chime_event *event) {
  if (!event)
    return 0;
  if (event->alert)
    return event->alert->fire_id;
  const chime_fire *f = event_fire(event);
  return f ? f->fire_id : 0;
}

const char *chime_event_get_node(const chime_event *event) {
  if (!event)
    return NULL;
  if (event->alert && event->alert->node)
    return event->alert->node;
  return event->ctx ? event->ctx->sched->cfg.instance_id : NULL;
}

int64_t chime_event_get_lateness_ms(const chime_event *event) {
  if (!event)
    return 0;
  if (event->alert)
    return event->alert->lateness_ms;
  const chime_fire *f = event_fire(event);
  if (!f || !f->job)
    return 0; /* a misfire event carries an alert */
  return event->ctx->fire_ms > f->scheduled_ms
             ? event->ctx->fire_ms - f->scheduled_ms
             : 0;
}

int chime_event_get_misfire_policy(const chime_event *event) {
  return event && event->alert ? event->alert->misfire_policy : -1;
}
