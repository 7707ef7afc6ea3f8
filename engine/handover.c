/*
 * handover.c: what a stopping node gives back to its cluster.
 *
 * A graceful stop keeps the node checking in while its runs finish
 * (scheduler.c, loop.c), so no survivor takes a fire the node still runs.
 * What it cannot finish it hands over when its loop closes, in one store
 * transaction (the store's hand_over), rather than leaving it until its
 * lease runs out: runs the shutdown cut short (the job was told of the
 * shutdown and returned, workers.c), and after a missed shutdown
 * deadline the runs still going and the completions not yet written.  The
 * store treats them as a dead node's: run again elsewhere when the job
 * requests recovery, else recorded; a late completion is refused.
 *
 * Threads: the loop's, at the end of a shutdown; takes no lock across the
 * store call.
 */
#include "engine/engine.h"

#include <stdio.h>

static void on_handed(void *user_data, const chime_recovery *rec) {
  chime_scheduler *s = user_data;
  chime__alert a = chime__recovery_alert(rec);
  a.node = NULL; /* this node */
  chime__log_about(
      s, CHIME_LOG_WARN, "FIRE_HANDED_OVER", &a, 0,
      "fire %lld of trigger %s.%s (job %s.%s) handed to the cluster as this "
      "node stopped: %s",
      (long long)rec->fire_id, a.trigger_group ? a.trigger_group : "?",
      a.trigger_name ? a.trigger_name : "?", a.job_group ? a.job_group : "?",
      a.job_name ? a.job_name : "?",
      rec->requeued ? "it runs again on another node (the job requests "
                      "recovery)"
                    : "recorded as not run to its end");
}

void chime__hand_over(chime_scheduler *s) {
  assert(chime__on_loop(s) && !chime__mu_held(s));
  chime_store *st = s->store;
  if (!st->ops->hand_over)
    return;
  size_t n = 0;
  int r = st->ops->hand_over(st, CHIME__HAND_OVER_BUDGET_MS, on_handed, s, &n);
  if (r < 0)
    chime__log(s, CHIME_LOG_WARN,
               "could not hand this node's fires to the cluster (%s): they "
               "are recovered when its lease runs out",
               chime_strerror(r));
  else if (n > 0)
    chime__log(s, CHIME_LOG_INFO,
               "handed %zu fire(s) to the cluster as this node stopped", n);
}
