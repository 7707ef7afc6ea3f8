/*
 * remove.c: the memory store's remove operations, of a job (with its
 * triggers) and of a trigger (a non-durable job goes with its last one).
 * They sit above the entries and the shards: a removed job's or trigger's
 * waiting sharded fires end here too (shards.c), so that the entries
 * (jobs.c, triggers.c) never call up into the shards and the fires.
 *
 * Locks: each takes the store's lock (memory.h) once.
 */
#include "jobstore/memory/memory.h"

/* Each removal takes the entry's key before the entry goes: its waiting
 * sharded fires end after it (its shards went with its triggers). */
static int remove_job(mem_store *s, void *entry, void *unused) {
  mem_job *mj = entry;
  (void)unused;
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mj->j->group, mj->j->name);
  chime__mem_job_delete(s, mj);
  chime__mem_shards_end_removed(s, key, len, true);
  return 0;
}

int chime__mem_job_remove(chime_store *store, const char *group,
                          const char *name) {
  return chime__mem_on_key(store, MEM_JOB, group, name, remove_job, NULL);
}

static int remove_trigger(mem_store *s, void *entry, void *unused) {
  mem_trigger *mt = entry;
  (void)unused;
  char key[MEM_KEY_MAX];
  size_t len = chime__mem_key(key, sizeof key, mt->t->group, mt->t->name);
  chime__mem_trigger_delete(s, mt, true);
  chime__mem_shards_end_removed(s, key, len, false);
  return 0;
}

int chime__mem_trigger_remove(chime_store *store, const char *group,
                              const char *name) {
  return chime__mem_on_key(store, MEM_TRIGGER, group, name, remove_trigger,
                           NULL);
}
