/*
 * chimectl_zones.c: time zones and tzdata updates (docs/operations.md,
 * "tzdata updates").  `zones` lists the zones the scheduler's triggers
 * name, how many triggers each, and the UTC offset each has now by this
 * host's zoneinfo (run it on two hosts to compare their tzdata);
 * `zones reload [ZONE...]` recomputes, with this host's zoneinfo, the next
 * fire of every unclaimed trigger in the zones named (every zone the
 * triggers name when none is), through the store's own recompute
 * (store.h's recompute_zones), so the nodes' rules apply: from each
 * trigger's previous fire, idempotent, skipping rows being fired.  It does
 * not make the nodes read their files: each does at its check-ins.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZONES_SQL                                                              \
  "SELECT zone_name, COUNT(*) FROM {P}triggers WHERE sched_name = ? AND "      \
  "zone_name IS NOT NULL GROUP BY zone_name ORDER BY zone_name"

/* "+01:00" (or "+05:45:30"), or "?" when this host has no such zone. */
static void offset_text(const char *name, int64_t now_ms, char *buf,
                        size_t len) {
  const chime_zone *z;
  if (chime_zone_get(name, &z) != 0) {
    snprintf(buf, len, "?");
    return;
  }
  int32_t off = chime_zone_get_offset_at(z, now_ms);
  int32_t a = off < 0 ? -off : off;
  if (a % 60)
    snprintf(buf, len, "%c%02d:%02d:%02d", off < 0 ? '-' : '+', a / 3600,
             a / 60 % 60, a % 60);
  else
    snprintf(buf, len, "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600,
             a / 60 % 60);
}

static int list_zones(ctl *c) {
  const char *args[] = {c->sched};
  chime__mysql_rows rows = {0};
  int r = ctl_query(c, ZONES_SQL, args, 1, &rows);
  if (r)
    return r;
  static const char *const heads[] = {"zone", "triggers", "offset_now"};
  static const bool num[] = {false, true, false};
  ctl_table t;
  ctl_table_init(&t, heads, num, 3);
  int64_t now = ctl_now(c);
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    char off[32];
    offset_text(chime__mysql_rows_text(&rows, i, 0), now, off, sizeof off);
    const char *cells[] = {chime__mysql_rows_text(&rows, i, 0),
                           chime__mysql_rows_text(&rows, i, 1), off};
    if (ctl_table_add(&t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  return ctl_table_done(c, &t, &rows, r);
}

static int reload_zones(ctl *c) {
  int r = 0;
  chime__mysql_rows rows = {0};
  const char **names = NULL;
  size_t n = (size_t)(c->argc - 1);
  if (n > 0) {
    names = (const char **)(c->argv + 1);
  } else {
    const char *args[] = {c->sched};
    if ((r = ctl_query(c, ZONES_SQL, args, 1, &rows)))
      return r;
    n = rows.nrows;
    names = n ? calloc(n, sizeof *names) : NULL;
    if (n && !names) {
      chime__mysql_rows_free(&rows);
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
      names[i] = chime__mysql_rows_text(&rows, i, 0);
  }
  /* Every zone must be one this host knows: a typo recomputes nothing. */
  for (size_t i = 0; r == 0 && i < n; i++) {
    const chime_zone *z;
    int zr = chime_zone_get(names[i], &z);
    if (zr < 0) /* exit 3, no such object, for an unknown zone */
      r = ctl_fail(zr == CHIME_EUNKNOWNZONE ? CHIME_ENOTFOUND : zr,
                   "time zone '%s': %s", names[i], chime_strerror(zr));
  }
  size_t moved = 0;
  if (r == 0 && n > 0) {
    int sr = chime__mysql_admin_recompute_zones(c->admin, names, n, &moved);
    if (sr < 0)
      r = ctl_fail(sr, "recomputing the zones' triggers: %s",
                   chime_strerror(sr));
  }
  if (r == 0) {
    char details[200];
    snprintf(details, sizeof details,
             "%zu zone(s): the next fire of %zu trigger(s) moved", n, moved);
    ctl_audit(c, "zones reload", n == 1 ? names[0] : "zones", details);
    if (c->json)
      printf("{\"ok\": true, \"action\": \"reloaded\", \"zones\": %zu, "
             "\"recomputed\": %zu}\n",
             n, moved);
    else
      printf("reloaded %zu zone(s): the next fire of %zu trigger(s) moved\n", n,
             moved);
  }
  if (c->argc <= 1)
    free(names);
  chime__mysql_rows_free(&rows);
  return r;
}

int ctl_cmd_zones(ctl *c) {
  bool reload = c->argc >= 1 && strcmp(c->argv[0], "reload") == 0;
  if (c->argc > 0 && !reload)
    return ctl_usage("usage: chimectl zones [reload [ZONE...]]");
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  return reload ? reload_zones(c) : list_zones(c);
}
