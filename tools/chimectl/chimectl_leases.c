/*
 * chimectl_leases.c: the named leases of a cluster (chime.h's
 * chime_lease_*): `leases` lists every lease name the leases table knows
 * with its last holder (node, host, pid), since when, until when and its
 * fencing token, and whether it is held now by the database's clock (the
 * store's CHIME_ADMIN_LEASES list);
 * `lease release NAME` ends a held lease for an operator (confirmed on a
 * terminal unless --yes) through the store's own statement, so that the
 * holder's later extend and release are refused.
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ctl_cmd_leases(ctl *c) {
  if (c->argc != 0) {
    fprintf(stderr, "chimectl: usage: chimectl leases\n");
    return CTL_USAGE;
  }
  chime_admin_table *rows = NULL;
  int r = ctl_list(c, ctl_list_query(CHIME_ADMIN_LEASES), &rows);
  if (r)
    return r;
  static const char *const heads[] = {
      "name",    "holder", "host",  "pid",        "since",
      "expires", "token",  "state", "expires_ms", "acquired_ms"};
  static const bool num[] = {false, false, false, true, false,
                             false, true,  false, true, true};
  ctl_table t;
  ctl_table_init(&t, heads, num, 10);
  t.shown = 8;
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(rows); i++) {
#define TEXT(col) chime_admin_table_get_text(rows, i, col)
#define INT(col) chime_admin_table_get_int64(rows, i, col)
    int64_t since = INT("acquired_ms");
    int64_t expires = INT("expires_ms");
    /* The store's rule: held while it has not run out; a released lease
     * may still be kept for its at_least. */
    const char *state = INT("expired")    ? "free"
                        : INT("released") ? "released (kept for at_least)"
                                          : "held";
    char since_s[64], expires_s[64], since_ms[32], expires_ms[32];
    ctl_format_time(since, c->zone, since_s, sizeof since_s);
    ctl_format_time(expires, c->zone, expires_s, sizeof expires_s);
    snprintf(since_ms, sizeof since_ms, "%" PRId64, since);
    snprintf(expires_ms, sizeof expires_ms, "%" PRId64, expires);
    const char *cells[] = {
        TEXT("name"), TEXT("holder"), TEXT("host"), TEXT("pid"), since_s,
        expires_s,    TEXT("token"),  state,        expires_ms,  since_ms};
#undef INT
#undef TEXT
    if (ctl_table_add(&t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  chime_admin_table_free(rows);
  return ctl_table_end(c, &t, r);
}

/* Asks before ending a lease, unless --yes.  Returns: 0 or an exit code. */
static int confirm_release(ctl *c, const char *name) {
  if (c->yes)
    return 0;
  if (!isatty(0)) {
    fprintf(stderr, "chimectl: refusing to release a lease without "
                    "confirmation: standard input is not a terminal (pass "
                    "--yes)\n");
    return CTL_USAGE;
  }
  fprintf(stderr,
          "Release lease %s now? Its holder may still be running. [y/N] ",
          name);
  char line[16];
  if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y')) {
    fprintf(stderr, "chimectl: not released\n");
    return CTL_FAILED;
  }
  return 0;
}

int ctl_cmd_lease(ctl *c) {
  if (c->argc != 2 || strcmp(c->argv[0], "release") != 0 || !*c->argv[1]) {
    fprintf(stderr, "chimectl: usage: chimectl lease release NAME [--yes]\n");
    return CTL_USAGE;
  }
  const char *name = c->argv[1];
  int r = confirm_release(c, name);
  if (r)
    return r;
  chime_admin *a = NULL;
  if ((r = ctl_admin(c, &a)))
    return r;
  r = chime_admin_release_lease(a, name);
  if (r == CHIME_ENOTFOUND)
    return ctl_fail(r, "no held lease %s", name);
  if (r < 0)
    return ctl_fail(r, "lease %s: %s", name, chime_strerror(r));
  char target[600];
  snprintf(target, sizeof target, "lease %s", name);
  ctl_audit(c, "release", target, NULL);
  if (c->json) {
    fputs("{\"ok\": true, \"action\": \"release\", \"what\": \"lease\", "
          "\"target\": ",
          stdout);
    ctl_json_string(name);
    fputs("}\n", stdout);
  } else {
    printf("released lease %s\n", name);
  }
  return 0;
}
