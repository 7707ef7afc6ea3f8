/*
 * mysql/held.c: the fires this node holds EXECUTING, as it reports them
 * to the cluster with each check-in (nodes.held_ids, sql/014), so that an
 * operator's repair can tell a fire EXECUTING on a live node that has no
 * such run (the node forgot it: its completion failed for good) from one
 * it still runs (docs/operations.md, "Repairing stuck states").
 *
 * An id is added when the fire committed EXECUTING (fire, acquire_due:
 * on the loop's thread, which is also the check-in's, so a check-in never
 * falls between the commit and the add), and dropped once this node is
 * done with it: its completion committed or was refused (complete,
 * complete_many, a committed fire_tx), it was split into shards (then
 * SHARDED, no node's), the engine gave up completing it (forget), or it
 * was handed over (hand_over, drain_hand_over).  A
 * completion still being retried (the database busy or reconnecting)
 * stays listed.
 *
 * Threads: any (the loop adds, workers and the completer drop); held_mu
 * guards the set, held for a moment, never across a round trip.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/tx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void chime__mysql_held_add(chime__mysql_store *s, int64_t id) {
  pthread_mutex_lock(&s->held_mu);
  if (s->nheld == s->held_cap) {
    size_t cap = s->held_cap ? 2 * s->held_cap : 64;
    int64_t *grown = realloc(s->held, cap * sizeof *grown);
    if (grown) {
      s->held = grown;
      s->held_cap = cap;
    }
  }
  /* Out of memory: not listed, so a repair may call it lost; its
   * completion is then refused (fencing), never doubled. */
  if (s->nheld < s->held_cap)
    s->held[s->nheld++] = id;
  pthread_mutex_unlock(&s->held_mu);
}

void chime__mysql_held_drop(chime__mysql_store *s, int64_t id) {
  pthread_mutex_lock(&s->held_mu);
  for (size_t i = 0; i < s->nheld; i++)
    if (s->held[i] == id) {
      s->held[i] = s->held[--s->nheld];
      break;
    }
  pthread_mutex_unlock(&s->held_mu);
}

void chime__mysql_held_clear(chime__mysql_store *s) {
  pthread_mutex_lock(&s->held_mu);
  s->nheld = 0;
  pthread_mutex_unlock(&s->held_mu);
}

char *chime__mysql_held_text(chime__mysql_store *s) {
  pthread_mutex_lock(&s->held_mu);
  size_t cap = s->nheld * 21 + 1;
  char *text = malloc(cap);
  if (text) {
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < s->nheld; i++)
      len += (size_t)snprintf(text + len, cap - len, "%s%" PRId64, i ? "," : "",
                              s->held[i]);
  }
  pthread_mutex_unlock(&s->held_mu);
  return text;
}

int chime__mysql_forget(chime_store *store, int64_t fire_id) {
  chime__mysql_held_drop(chime__mysql_store_of(store), fire_id);
  return 0;
}
