/*
 * chimectl_backfill.c: "chimectl backfill G.N --from TIME --to TIME":
 * runs the fires of trigger G.N in [from, to] again, as the scheduler's
 * chime_scheduler_backfill does: each fire time becomes the one-shot
 * trigger chime_trigger_backfill_new names the same way on every node, so
 * a fire asked for twice (here and by a node) is stored once, and a live
 * node runs it with its original scheduled time.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* At most this many fires in one backfill. */
#define MAX_FIRES 100000

int ctl_cmd_backfill(ctl *c) {
  if (c->argc != 1 || c->from == NULL || c->to == NULL) {
    fprintf(stderr, "chimectl: usage: chimectl backfill GROUP.NAME --from "
                    "TIME --to TIME\n");
    return CTL_USAGE;
  }
  char group[256], name[256];
  int r = ctl_split_key(c->argv[0], group, name, sizeof group);
  if (r)
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  int64_t now = chime__mysql_admin_now(c->admin), from, to;
  if (ctl_parse_time(c->from, now, &from) != 0 ||
      ctl_parse_time(c->to, now, &to) != 0 || from > to) {
    fprintf(stderr, "chimectl: --from and --to want times, from <= to\n");
    return CTL_USAGE;
  }
  chime__mysql_rows rows = {0};
  const char *args[] = {c->sched, group, name};
  r = ctl_query_triggers(c,
                         "sched_name = ? AND trigger_group = ? AND "
                         "trigger_name = ?",
                         args, 3, &rows);
  if (r)
    return r;
  if (rows.nrows == 0) {
    chime__mysql_rows_free(&rows);
    return ctl_fail(CHIME_ENOTFOUND, "no trigger %s", c->argv[0]);
  }
  chime__mysql_admin_trigger tr;
  if ((r = chime__mysql_admin_trigger_decode(&rows, 0, &tr)) < 0) {
    chime__mysql_rows_free(&rows);
    return ctl_fail(r, "cannot read trigger %s", c->argv[0]);
  }
  size_t added = 0, existed = 0;
  int64_t at = from - 1, next;
  char err[512] = "";
  while (r >= 0 && chime_trigger_fire_time_after(tr.record, at, &next) == 0 &&
         next <= to && added + existed < MAX_FIRES) {
    chime_trigger *b = NULL;
    r = chime_trigger_backfill_new(tr.record, next, &b);
    if (r == 0)
      r = chime__mysql_admin_add_trigger_if_absent(c->admin, b, err,
                                                   sizeof err);
    chime_trigger_free(b);
    if (r == 0)
      added++;
    else if (r == 1)
      existed++;
    at = next;
  }
  chime__mysql_admin_trigger_clear(&tr);
  chime__mysql_rows_free(&rows);
  if (r < 0)
    return ctl_fail(r, "cannot backfill %s: %s", c->argv[0],
                    err[0] ? err : chime_strerror(r));
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
