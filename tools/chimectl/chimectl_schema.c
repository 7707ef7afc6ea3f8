/*
 * chimectl_schema.c: `chimectl schema init|migrate|version`.  The version
 * is read over a plain connection (a database without a schema cannot be
 * opened as a store); init and migrate open the store with auto_create=1
 * or migrate=1, so the library's own embedded migrations run, under its
 * schema lock.  A schema newer than this build is never touched; one that
 * says it is compatible with this build is reported so (state
 * "compatible"), and needs no migration.
 */
#include "chimectl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the schema version (0: none), the one this chimectl writes, and
 * for a newer schema the oldest version it is compatible with.
 * Returns: 0 or an exit code. */
static int read_version(ctl *c, long *ret, long *ret_known, long *ret_compat) {
  char err[1024] = "";
  int r = chime_admin_get_schema_state(c->url, ret, ret_known, ret_compat, err,
                                       sizeof err);
  return r < 0 ? ctl_fail(r, "%s", err[0] ? err : chime_strerror(r)) : 0;
}

static int report(ctl *c, long v, long known, const char *state,
                  const char *message) {
  if (c->json) {
    printf("{\"version\": %ld, \"library_version\": %ld, \"state\": ", v,
           known);
    ctl_json_string(state);
    fputs(", \"message\": ", stdout);
    ctl_json_string(message);
    fputs("}\n", stdout);
  } else {
    printf("%s\n", message);
  }
  return 0;
}

int ctl_cmd_schema(ctl *c) {
  if (c->argc != 1) {
    fprintf(stderr, "chimectl: usage: chimectl schema init|migrate|version\n");
    return CTL_USAGE;
  }
  const char *what = c->argv[0];
  bool init = strcmp(what, "init") == 0;
  bool migrate = strcmp(what, "migrate") == 0;
  if (!init && !migrate && strcmp(what, "version") != 0) {
    fprintf(stderr,
            "chimectl: unknown schema command '%s' (init, migrate, "
            "version)\n",
            what);
    return CTL_USAGE;
  }
  long v = 0, known = 0, compat = 0;
  int r = read_version(c, &v, &known, &compat);
  if (r)
    return r;
  char msg[256];
  /* A newer schema that says it is compatible with this chimectl: the
   * nodes of this release serve it, and there is nothing to migrate. */
  if (v > known && compat >= 1 && compat <= known && !init) {
    snprintf(msg, sizeof msg,
             "schema version %ld (this chimectl: %ld): newer, compatible "
             "with this chimectl%s",
             v, known, migrate ? ": nothing to migrate" : "");
    return report(c, v, known, "compatible", msg);
  }
  if (v > known)
    return ctl_fail(CHIME_ESCHEMA,
                    "the schema has version %ld, newer than this chimectl "
                    "knows (%ld)%s; use a newer chimectl",
                    v, known,
                    init || migrate ? ": refusing to downgrade it" : "");
  if (!init && !migrate) {
    const char *state = v == 0 ? "missing" : v < known ? "older" : "current";
    snprintf(msg, sizeof msg, "schema version %ld (this chimectl: %ld)%s", v,
             known,
             v == 0      ? ": no schema, run 'chimectl schema init'"
             : v < known ? ": run 'chimectl schema migrate'"
                         : "");
    return report(c, v, known, state, msg);
  }
  if (v == known) {
    snprintf(msg, sizeof msg, "schema already at version %ld", v);
    return report(c, v, known, "current", msg);
  }
  if (init && v > 0)
    return ctl_fail(CHIME_ESCHEMA,
                    "a schema of version %ld exists: run "
                    "'chimectl schema migrate'",
                    v);
  if (migrate && v == 0)
    return ctl_fail(CHIME_ESCHEMA, "no chime schema in this database: run "
                                   "'chimectl schema init'");
  r = ctl_open(c, init ? "auto_create=1" : "migrate=1");
  if (r)
    return r;
  snprintf(msg, sizeof msg, "schema %s version %ld",
           init ? "created at" : "migrated to", known);
  char from[48];
  snprintf(from, sizeof from, "from version %ld", v);
  ctl_audit(c, init ? "schema init" : "schema migrate", "schema", from);
  return report(c, known, known, "current", msg);
}
