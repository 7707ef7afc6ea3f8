/*
 * chimectl_shards.c: `chimectl shards FIRE_ID`: the shards of a sharded
 * fire (docs/batch.md): one row per shard run, waiting, claimed or
 * running (from the shard triggers and the fired rows, with the run's
 * checkpoint as its progress) and finished (from the history: node,
 * outcome), ordered by shard: the store's list of them (chime-admin.h's
 * CHIME_ADMIN_SHARDS).
 */
#include "chimectl.h"

#include <stdio.h>
#include <stdlib.h>

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
  /* The store's CHIME_ADMIN_SHARDS; what a row has not is "". */
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_SHARDS);
  if (q)
    chime_admin_query_set_fire(q, (int64_t)id);
  chime_admin_table *l = NULL;
  if ((r = ctl_list(c, q, &l))) {
    ctl_table_free(t);
    return r;
  }
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(l); i++) {
    const char *cells[7];
    for (size_t k = 0; k < 7; k++) {
      cells[k] = chime_admin_table_get_text(l, i, heads[k]);
      if (!cells[k])
        cells[k] = "";
    }
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  if (r)
    ctl_table_free(t);
  chime_admin_table_free(l);
  return r;
}

int ctl_cmd_shards(ctl *c) {
  if (c->argc != 1)
    return ctl_usage("usage: chimectl shards FIRE_ID");
  ctl_table t;
  return ctl_table_end(c, &t, ctl_shards_table(c, c->argv[0], &t));
}
