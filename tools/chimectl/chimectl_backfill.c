/*
 * chimectl_backfill.c: "chimectl backfill G.N --from TIME --to TIME":
 * runs the fires of trigger G.N in [from, to] again, as the scheduler's
 * chime_scheduler_backfill does: each fire time becomes the one-shot
 * trigger chime_trigger_backfill_new names the same way on every node, so
 * a fire asked for twice (here and by a node) is stored once, and a live
 * node runs it with its original scheduled time.  --pace MS releases the
 * k-th fire k * MS from now (chime_trigger_backfill_new's release_ms: the
 * stored release times pace the whole cluster); --cancel removes the fires of
 * G.N's backfills not run yet with chime_scheduler_backfill_cancel.  The
 * trigger is read and the fires stored through a client scheduler
 * (chimectl_edit.h), the public API.
 */
#include "chimectl.h"
#include "chimectl_edit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* At most this many fires in one backfill. */
#define MAX_FIRES 100000

/* --cancel: removes the backfill fires of trigger (group, name) not run
 * yet, through the client sch. */
static int cancel(ctl *c, chime_scheduler *sch, const char *group,
                  const char *name) {
  size_t removed = 0;
  int r = chime_scheduler_backfill_cancel(sch, group, name, &removed);
  if (r < 0)
    return ctl_fail(r, "cannot cancel the backfill of %s", c->argv[0]);
  char target[600], details[64];
  snprintf(target, sizeof target, "trigger %s", c->argv[0]);
  snprintf(details, sizeof details, "cancelled: %zu fires removed", removed);
  ctl_audit(c, "backfill", target, details);
  if (c->json) {
    printf("{\"ok\": true, \"action\": \"backfill-cancel\", \"trigger\": ");
    ctl_json_string(c->argv[0]);
    printf(", \"removed\": %zu}\n", removed);
  } else {
    printf("backfill of %s cancelled: %zu fires removed\n", c->argv[0],
           removed);
  }
  return 0;
}

/* Stores the fires of tr in [from, to], the k-th released k * pace from
 * now (0: at its own time), each once; prints how many. */
static int create(ctl *c, chime_scheduler *sch, const chime_trigger *tr,
                  int64_t from, int64_t to, int64_t now) {
  size_t added = 0, existed = 0;
  int64_t at = from - 1, next;
  int64_t release = c->pace_ms > 0 ? now : 0; /* 0: at its own time */
  int r = 0;
  while (r >= 0 && chime_trigger_get_fire_time_after(tr, at, &next) == 0 &&
         next <= to && added + existed < MAX_FIRES) {
    chime_trigger *b = NULL;
    r = chime_trigger_backfill_new(tr, next, release, &b);
    if (r == 0) /* its key taken: the fire is there already */
      r = chime_scheduler_schedule(sch, NULL, b, 0, NULL);
    if (r == CHIME_EEXISTS)
      r = 1;
    chime_trigger_free(b);
    if (r == 0)
      added++;
    else if (r == 1)
      existed++;
    release += c->pace_ms;
    at = next;
  }
  if (r < 0)
    return ctl_fail(r, "cannot backfill %s: %s", c->argv[0],
                    chime_scheduler_errmsg(sch)[0] ? chime_scheduler_errmsg(sch)
                                                   : chime_strerror(r));
  char target[600], details[200];
  snprintf(target, sizeof target, "trigger %s", c->argv[0]);
  snprintf(details, sizeof details,
           "from %lld to %lld, pace %lld ms: %zu fires created, %zu there",
           (long long)from, (long long)to, (long long)c->pace_ms, added,
           existed);
  ctl_audit(c, "backfill", target, details);
  if (c->json)
    printf("{\"ok\": true, \"action\": \"backfill\", \"trigger\": ");
  if (c->json) {
    ctl_json_string(c->argv[0]);
    printf(", \"created\": %zu, \"existed\": %zu}\n", added, existed);
  } else {
    printf("backfill of %s: %zu fires created, %zu already there\n", c->argv[0],
           added, existed);
  }
  return 0;
}

int ctl_cmd_backfill(ctl *c) {
  if (c->argc != 1 || (!c->cancel && (c->from == NULL || c->to == NULL)) ||
      (c->cancel && (c->from || c->to || c->pace_ms))) {
    fprintf(stderr, "chimectl: usage: chimectl backfill GROUP.NAME --from "
                    "TIME --to TIME [--pace MS] | --cancel\n");
    return CTL_USAGE;
  }
  char group[256], name[256];
  int r = ctl_split_key(c->argv[0], group, name, sizeof group);
  if (r)
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  int64_t now = ctl_now(c), from = 0, to = 0;
  if (!c->cancel && (ctl_parse_time(c->from, now, &from) != 0 ||
                     ctl_parse_time(c->to, now, &to) != 0 || from > to)) {
    fprintf(stderr, "chimectl: --from and --to want times, from <= to\n");
    return CTL_USAGE;
  }
  chime_scheduler *sch = NULL;
  chime_trigger *tr = NULL;
  if ((r = ctl_client_open(c, &sch)))
    return r;
  if ((r = chime_scheduler_get_trigger(sch, group, name, &tr)) < 0)
    r = r == CHIME_ENOTFOUND ? ctl_fail(r, "no trigger %s", c->argv[0])
                             : ctl_client_fail(sch, r, "trigger", c->argv[0]);
  else
    r = c->cancel ? cancel(c, sch, group, name)
                  : create(c, sch, tr, from, to, now);
  chime_trigger_free(tr);
  chime_scheduler_free(sch);
  return r;
}
