/*
 * lock.c: the memory store's one mutex, mem_store.lock, and the only calls
 * that take and release it.  Every operation takes it (memory.h); it lives
 * apart from store.c, which names every operation in its table, so that
 * the operations' files call down into this one rather than up into the
 * table that calls them.
 *
 * Lock rule: chime__mem_lock and chime__mem_unlock remember, per thread,
 * which store's lock the thread holds, so every helper can assert it
 * (MEM_ASSERT_LOCKED) and a second lock on the same thread (which would
 * deadlock) fails an assertion instead.
 */
#include "jobstore/memory/memory.h"

#include <assert.h>

/* The memory store whose lock the calling thread holds, or NULL. */
static _Thread_local const mem_store *tls_locked;

void chime__mem_lock(mem_store *s) {
  assert(tls_locked == NULL); /* not recursive; one store at a time */
  int r = pthread_mutex_lock(&s->lock);
  assert(r == 0);
  (void)r;
  tls_locked = s;
}

void chime__mem_unlock(mem_store *s) {
  assert(tls_locked == s);
  tls_locked = NULL;
  int r = pthread_mutex_unlock(&s->lock);
  assert(r == 0);
  (void)r;
}

bool chime__mem_locked(const mem_store *s) {
  return s != NULL && tls_locked == s;
}
