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

/* The zones the triggers name, each once, in byte order (the schema's
 * binary collation), with how many triggers name each. */
typedef struct zone_count {
  const char *name; /* borrowed from the triggers' table */
  size_t triggers;
} zone_count;

typedef struct zone_list {
  chime_admin_table *triggers;
  zone_count *zones;
  size_t n;
} zone_list;

static int by_zone_name(const void *a, const void *b) {
  return strcmp(((const zone_count *)a)->name, ((const zone_count *)b)->name);
}

static void zone_list_free(zone_list *z) {
  free(z->zones);
  chime_admin_table_free(z->triggers);
  *z = (zone_list){0};
}

/* The zones of the triggers (chime-admin.h's list) into *z.  Returns: 0 or
 * an exit code (said why). */
static int read_zones(ctl *c, zone_list *z) {
  *z = (zone_list){0};
  int r = ctl_list(c, ctl_list_query(CHIME_ADMIN_TRIGGERS), &z->triggers);
  size_t rows = chime_admin_table_get_row_count(z->triggers);
  if (r == 0 && rows && !(z->zones = calloc(rows, sizeof *z->zones)))
    r = ctl_fail(CHIME_ENOMEM, "out of memory");
  for (size_t i = 0; r == 0 && i < rows; i++) {
    const char *name = chime_admin_table_get_text(z->triggers, i, "zone");
    if (name)
      z->zones[z->n++] = (zone_count){name, 1};
  }
  if (z->n)
    qsort(z->zones, z->n, sizeof *z->zones, by_zone_name);
  size_t k = 0; /* the runs of one name folded into one count */
  for (size_t i = 0; i < z->n; i++)
    if (k > 0 && strcmp(z->zones[k - 1].name, z->zones[i].name) == 0)
      z->zones[k - 1].triggers++;
    else
      z->zones[k++] = z->zones[i];
  z->n = k;
  if (r)
    zone_list_free(z);
  return r;
}

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
  zone_list z;
  int r = read_zones(c, &z);
  if (r)
    return r;
  static const char *const heads[] = {"zone", "triggers", "offset_now"};
  static const bool num[] = {false, true, false};
  ctl_table t;
  ctl_table_init(&t, heads, num, 3);
  int64_t now = ctl_now(c);
  for (size_t i = 0; r == 0 && i < z.n; i++) {
    char off[32], count[24];
    offset_text(z.zones[i].name, now, off, sizeof off);
    snprintf(count, sizeof count, "%zu", z.zones[i].triggers);
    const char *cells[] = {z.zones[i].name, count, off};
    if (ctl_table_add(&t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  r = ctl_table_end(c, &t, r);
  zone_list_free(&z);
  return r;
}

static int reload_zones(ctl *c) {
  int r = 0;
  zone_list z = {0};
  const char **names = NULL;
  size_t n = (size_t)(c->argc - 1);
  if (n > 0) {
    names = (const char **)(c->argv + 1);
  } else {
    if ((r = read_zones(c, &z)))
      return r;
    n = z.n;
    names = n ? calloc(n, sizeof *names) : NULL;
    if (n && !names) {
      zone_list_free(&z);
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
      names[i] = z.zones[i].name;
  }
  /* Every zone must be one this host knows: a typo recomputes nothing. */
  for (size_t i = 0; r == 0 && i < n; i++) {
    const chime_zone *zone;
    int zr = chime_zone_get(names[i], &zone);
    if (zr < 0) /* exit 3, no such object, for an unknown zone */
      r = ctl_fail(zr == CHIME_EUNKNOWNZONE ? CHIME_ENOTFOUND : zr,
                   "time zone '%s': %s", names[i], chime_strerror(zr));
  }
  size_t moved = 0;
  chime_admin *a = NULL;
  if (r == 0 && n > 0 && (r = ctl_admin(c, &a)) == 0) {
    int sr = chime_admin_recompute_zones(a, names, n, &moved);
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
  zone_list_free(&z);
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
