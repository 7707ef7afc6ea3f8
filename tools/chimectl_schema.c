/*
 * chimectl_schema.c: `chimectl schema init|migrate|version`.  The version
 * is read over a plain connection (a database without a schema cannot be
 * opened as a store); init and migrate open the store with auto_create=1
 * or migrate=1, so the library's own embedded migrations run, under its
 * schema lock.  A schema newer than this build is never touched.
 */
#include "chimectl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the schema version (0: none).  Returns: 0 or an exit code. */
static int read_version(ctl *c, long *ret) {
  char err[1024] = "";
  chime__mysql_url *url = NULL;
  int r = chime__mysql_url_parse(c->url, &url, err, sizeof err);
  if (r < 0)
    return ctl_fail(r, "%s", err);
  const char *prefix = chime__mysql_url_param(url, "prefix");
  prefix = prefix ? prefix : "chime_";
  for (const char *p = prefix; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '_') ||
        strlen(prefix) > 32) {
      chime__mysql_url_free(url);
      return ctl_fail(CHIME_EURL, "bad table prefix in the store URL");
    }
  MYSQL *db = NULL;
  r = chime__mysql_connect(url, 10, &db, err, sizeof err);
  if (r < 0) {
    chime__mysql_url_free(url);
    return ctl_fail(r, "%s", err);
  }
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT MAX(version) FROM %sschema_version",
           prefix);
  int code = 0;
  if (mysql_query(db, sql) != 0) {
    if (mysql_errno(db) == 1146) { /* ER_NO_SUCH_TABLE */
      *ret = 0;
    } else {
      code = ctl_fail(CHIME_ESTORE, "cannot read the schema version: %s",
                      mysql_error(db));
    }
  } else {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    *ret = row && row[0] ? strtol(row[0], NULL, 10) : 0;
    if (res)
      mysql_free_result(res);
  }
  mysql_close(db);
  chime__mysql_url_free(url);
  return code;
}

static int report(ctl *c, long v, const char *state, const char *message) {
  long known = (long)chime__mysql_migration_count;
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
    fprintf(stderr, "chimectl: unknown schema command '%s' (init, migrate, "
                    "version)\n", what);
    return CTL_USAGE;
  }
  long v = 0;
  long known = (long)chime__mysql_migration_count;
  int r = read_version(c, &v);
  if (r)
    return r;
  char msg[256];
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
             v == 0       ? ": no schema, run 'chimectl schema init'"
             : v < known ? ": run 'chimectl schema migrate'"
                          : "");
    return report(c, v, state, msg);
  }
  if (v == known) {
    snprintf(msg, sizeof msg, "schema already at version %ld", v);
    return report(c, v, "current", msg);
  }
  if (init && v > 0)
    return ctl_fail(CHIME_ESCHEMA, "a schema of version %ld exists: run "
                                   "'chimectl schema migrate'", v);
  if (migrate && v == 0)
    return ctl_fail(CHIME_ESCHEMA, "no chime schema in this database: run "
                                   "'chimectl schema init'");
  r = ctl_open(c, init ? "auto_create=1" : "migrate=1");
  if (r)
    return r;
  snprintf(msg, sizeof msg, "schema %s version %ld", init ? "created at" :
           "migrated to", known);
  return report(c, known, "current", msg);
}
