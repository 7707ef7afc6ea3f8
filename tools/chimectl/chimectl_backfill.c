/*
 * chimectl_backfill.c: "chimectl backfill G.N --from TIME --to TIME":
 * runs the fires of trigger G.N in [from, to] again, as the scheduler's
 * chime_scheduler_backfill does: each fire time becomes the one-shot
 * trigger chime_trigger_backfill_new names the same way on every node, so
 * a fire asked for twice (here and by a node) is stored once, and a live
 * node runs it with its original scheduled time.  --pace MS releases the
 * k-th fire k * MS from now (chime_trigger_backfill_new's release_ms: the
 * stored release times pace the whole cluster); --cancel removes the fires of
 * G.N's backfills not run yet, as chime_scheduler_backfill_cancel does.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* At most this many fires in one backfill. */
#define MAX_FIRES 100000

/* The name prefix of trigger tr's backfill fires: "bf-<hash>-". */
static int backfill_prefix(const chime_trigger *tr, char *buf, size_t len) {
  chime_trigger *b = NULL;
  int r = chime_trigger_backfill_new(tr, 0, 0, &b);
  if (r < 0)
    return r;
  snprintf(buf, len, "%s", chime_trigger_get_name(b));
  buf[strlen(buf) - 1] = '\0'; /* the scheduled time, 0 */
  chime_trigger_free(b);
  return 0;
}

/* --cancel: removes the backfill fires of tr not run yet. */
static int cancel(ctl *c, const chime_trigger *tr) {
  char prefix[96], like[128];
  int r = backfill_prefix(tr, prefix, sizeof prefix);
  if (r < 0)
    return ctl_fail(r, "cannot cancel the backfill of %s", c->argv[0]);
  snprintf(like, sizeof like, "%s%%", prefix);
  chime__mysql_rows rows = {0};
  const char *args[] = {c->sched, CHIME_BACKFILL_GROUP, like};
  if ((r = ctl_query_triggers(c,
                              "sched_name = ? AND trigger_group = ? AND "
                              "trigger_name LIKE ?",
                              args, 3, &rows)))
    return r;
  size_t removed = 0;
  for (size_t i = 0; r >= 0 && i < rows.nrows; i++) {
    chime__mysql_admin_trigger t;
    if ((r = chime__mysql_admin_trigger_decode(&rows, i, &t)) < 0)
      break;
    int u = chime__mysql_admin_remove_trigger(c->admin, t.group, t.name);
    if (u == 0)
      removed++;
    else if (u != CHIME_ENOTFOUND) /* fired and finished meanwhile: fine */
      r = u;
    chime__mysql_admin_trigger_clear(&t);
  }
  chime__mysql_rows_free(&rows);
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
static int create(ctl *c, const chime_trigger *tr, int64_t from, int64_t to,
                  int64_t now) {
  size_t added = 0, existed = 0;
  int64_t at = from - 1, next;
  int64_t release = c->pace_ms > 0 ? now : 0; /* 0: at its own time */
  char err[512] = "";
  int r = 0;
  while (r >= 0 && chime_trigger_get_fire_time_after(tr, at, &next) == 0 &&
         next <= to && added + existed < MAX_FIRES) {
    chime_trigger *b = NULL;
    r = chime_trigger_backfill_new(tr, next, release, &b);
    if (r == 0)
      r = chime__mysql_admin_add_trigger_if_absent(c->admin, b, err,
                                                   sizeof err);
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
                    err[0] ? err : chime_strerror(r));
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
  int64_t now = chime__mysql_admin_now(c->admin), from = 0, to = 0;
  if (!c->cancel && (ctl_parse_time(c->from, now, &from) != 0 ||
                     ctl_parse_time(c->to, now, &to) != 0 || from > to)) {
    fprintf(stderr, "chimectl: --from and --to want times, from <= to\n");
    return CTL_USAGE;
  }
  chime__mysql_rows rows;
  chime__mysql_admin_trigger tr;
  if ((r = ctl_trigger_by_key(c, group, name, c->argv[0], &rows, &tr)))
    return r;
  r = c->cancel ? cancel(c, tr.record) : create(c, tr.record, from, to, now);
  chime__mysql_admin_trigger_clear(&tr);
  chime__mysql_rows_free(&rows);
  return r;
}
