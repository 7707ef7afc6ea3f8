/*
 * chimectl_shards.c: `chimectl shards FIRE_ID`: the shards of a sharded
 * fire (docs/batch.md): one row per shard run, waiting, claimed or
 * running (from the shard triggers and the fired rows, with the run's
 * checkpoint as its progress) and finished (from the history: node,
 * outcome), ordered by shard.  One SELECT on the store's tables
 * (docs/schema.md).
 */
#include "chimectl.h"

#include <stdio.h>
#include <stdlib.h>

int ctl_rows_table(ctl *c, const char *sql, const char *const *args, size_t n,
                   ctl_table *t) {
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, sql, args, n, &rows);
  const char *cells[16];
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    for (size_t k = 0; k < t->ncols && k < 16; k++)
      cells[k] = chime__mysql_rows_text(&rows, i, k);
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  if (r)
    ctl_table_free(t);
  chime__mysql_rows_free(&rows);
  return r;
}

int ctl_shards_table(ctl *c, const char *fire_id, ctl_table *t) {
  static const char *const heads[] = {"shard",      "state",    "node",
                                      "fire_id",    "progress", "outcome",
                                      "finished_ms"};
  static const bool num[] = {true, false, false, true, false, false, true};
  ctl_table_init(t, heads, num, 7);
  char *end;
  long long id = strtoll(fire_id ? fire_id : "", &end, 10);
  if (!fire_id || end == fire_id || *end || id <= 0)
    return ctl_usage("'%s' is not a fire id", fire_id ? fire_id : "");
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  const char *args[] = {c->sched, fire_id, c->sched, fire_id};
  /* A shard trigger exists until its run completed; its fired row while
   * it runs; its checkpoint is kept under its first run's fire id. */
  return ctl_rows_table(
      c,
      "SELECT * FROM (SELECT t.shard_index AS s, IF(f.fire_id IS NULL, "
      "IF(t.state = 'ACQUIRED', 'claimed', 'waiting'), 'running') AS st, "
      "COALESCE(f.node, t.owner, '') AS nd, COALESCE(f.fire_id, "
      "t.claim_fire_id, '') AS fid, COALESCE((SELECT LEFT(CAST(k.data AS "
      "CHAR), 40) FROM {P}checkpoints k WHERE k.sched_name = t.sched_name AND "
      "k.run_id = IF(t.origin_fire_id > 0, t.origin_fire_id, f.fire_id)), "
      "'') AS pr, '' AS oc, '' AS fin "
      "FROM {P}triggers t LEFT JOIN {P}fired f ON f.sched_name = "
      "t.sched_name AND f.trigger_group = t.trigger_group AND "
      "f.trigger_name = t.trigger_name AND f.state = 'EXECUTING' WHERE "
      "t.sched_name = ? AND t.shard_parent = CAST(? AS SIGNED) UNION ALL "
      "SELECT h.shard_index, 'done', h.node, h.fire_id, '', h.outcome, "
      "h.finished_ms FROM {P}history h WHERE h.sched_name = ? AND "
      "h.shard_parent = CAST(? AS SIGNED)) s ORDER BY 1, 4",
      args, 4, t);
}

int ctl_cmd_shards(ctl *c) {
  if (c->argc != 1)
    return ctl_usage("usage: chimectl shards FIRE_ID");
  ctl_table t;
  chime__mysql_rows none = {0};
  return ctl_table_done(c, &t, &none, ctl_shards_table(c, c->argv[0], &t));
}
