/*
 * threads.c: where the scheduler's threads meet.  The loop's thread and
 * the workers know who they are (chime__on_loop, chime__on_worker), the
 * loop hands fires to the workers through one queue (chime__workers_push)
 * and any thread wakes the loop through one uv_async_send
 * (chime__loop_post).  These sat in loop.c and workers.c, so every file
 * that posts to the loop or asserts its thread called up into them and
 * they called back down: kept here, below both, they tie nobody into a
 * circle (the way libuv's threadpool.c has its workers and loop meet at
 * one queue and one async handle).
 *
 * Lock rule: the queue, the command bits and async_live are s->mu's; the
 * functions here that touch them are called with it held, and take no
 * other lock.
 */
#include "engine/engine.h"

#include <assert.h>

/* The scheduler whose worker the calling thread is, or NULL. */
static _Thread_local const chime_scheduler *tls_worker_of;

void chime__loop_enter(chime_scheduler *s) {
  atomic_store_explicit(&s->loop_thread, chime__thread_tag(),
                        memory_order_relaxed);
}

bool chime__on_loop(const chime_scheduler *s) {
  return atomic_load_explicit(&((chime_scheduler *)s)->loop_thread,
                              memory_order_relaxed) == chime__thread_tag();
}

void chime__worker_enter(const chime_scheduler *s) {
  tls_worker_of = s;
}

bool chime__on_worker(const chime_scheduler *s) {
  return tls_worker_of == s;
}

/* The queue is a ring as long as the pool: the loop claims fires only for
 * reserved workers, so it never holds more than the pool can start at
 * once (workers.c takes them off). */
void chime__workers_push(chime_scheduler *s, chime_fire *fire) {
  assert(chime__mu_held(s));
  assert(fire && fire->result == 0 && fire->job && fire->trigger);
  assert(s->nworkers == s->cfg.workers && !s->workers_stop);
  unsigned cap = chime__config_capacity(&s->cfg);
  assert(s->q_len < cap);
  s->queue[(s->q_head + s->q_len) % cap] = fire;
  s->q_len++;
  s->running++;
  assert(s->q_len <= s->running && s->running <= s->reserved);
  pthread_cond_signal(&s->work_cond);
}

chime_fire *chime__workers_pop(chime_scheduler *s) {
  assert(chime__mu_held(s) && s->q_len > 0);
  unsigned cap = chime__config_capacity(&s->cfg);
  assert(s->q_len <= s->running && s->q_head < cap);
  chime_fire *fire = s->queue[s->q_head];
  s->queue[s->q_head] = NULL;
  s->q_head = (s->q_head + 1) % cap;
  s->q_len--;
  assert(fire && fire->job);
  return fire;
}

/* s->mu orders the command bits and async_live against the loop's
 * close_handles: once the handles close, a post is dropped. */
void chime__loop_post(chime_scheduler *s, unsigned cmd) {
  assert(chime__mu_held(s));
  assert(cmd != 0 &&
         (cmd & ~(unsigned)(CHIME__CMD_WAKE | CHIME__CMD_MODE)) == 0);
  if (!s->async_live)
    return;
  s->cmds |= cmd;
  uv_async_send(&s->async);
}

void chime__loop_wake(chime_scheduler *s) {
  chime__mu_lock(s);
  chime__loop_post(s, CHIME__CMD_WAKE);
  chime__mu_unlock(s);
}

/* A worker or the completer ended a run or a completion: whoever waits on
 * s->cond for a stopping scheduler looks again, and the loop closes once
 * nothing is left going (close_when_settled, loop.c, reads the same counts
 * under mu). */
void chime__stop_progress(chime_scheduler *s) {
  assert(chime__mu_held(s));
  pthread_cond_broadcast(&s->cond);
  if (s->state == CHIME_SCHEDULER_SHUTDOWN && chime__stop_settled(s))
    chime__loop_post(s, CHIME__CMD_MODE); /* it may close now */
}
