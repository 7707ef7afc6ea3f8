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

int chime__mem_job_remove(chime_store *store, const char *group,
                          const char *name) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  mem_job *mj = chime__mem_job_find(s, group, name);
  if (mj) {
    chime__mem_job_delete(s, mj);
    /* Its shards went with its triggers: its sharded fires end here. */
    char key[MEM_KEY_MAX];
    size_t len = chime__mem_key(key, sizeof key, group, name);
    chime__mem_shards_end_removed(s, key, len, true);
  }
  chime__mem_unlock(s);
  return mj ? 0 : CHIME_ENOTFOUND;
}

int chime__mem_trigger_remove(chime_store *store, const char *group,
                              const char *name) {
  mem_store *s = (mem_store *)store;
  int r = chime__key_check(group, name);
  if (r < 0)
    return r;
  chime__mem_lock(s);
  mem_trigger *mt = chime__mem_trigger_find(s, group, name);
  if (mt) {
    chime__mem_trigger_delete(s, mt, true);
    char key[MEM_KEY_MAX];
    size_t len = chime__mem_key(key, sizeof key, group, name);
    chime__mem_shards_end_removed(s, key, len, false);
  }
  chime__mem_unlock(s);
  return mt ? 0 : CHIME_ENOTFOUND;
}
