/*
 * chimectl.h: the pieces of chimectl, the operators' command-line tool for
 * a chime cluster's MySQL/MariaDB database.  chimectl.c parses the command
 * line and maps errors to exit codes; chimectl_out.c prints tables, JSON
 * and times; chimectl_db.c opens the store and runs read-only SQL;
 * chimectl_describe.c puts schedules in words; chimectl_schema.c,
 * chimectl_list.c, chimectl_history.c, chimectl_ctl.c and
 * chimectl_explain.c hold the command groups.  Everything it knows of the
 * store comes from the store's admin interface (jobstore/mysql/admin.h):
 * the same rules, the same URL parser, the same lease rule.
 *
 * Terms: a *key* is GROUP.NAME, split at the first dot; a *group pattern*
 * is exact, "abc*" (starts with) or "*" (any).  chimectl opens the store as
 * a node named "chimectl-PID" that never fires anything.
 */
#ifndef CHIME_TOOLS_CHIMECTL_H
#define CHIME_TOOLS_CHIMECTL_H

#include "chime.h"
#include "jobstore/mysql/admin.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes (documented in --help and README.md). */
#define CTL_OK 0
#define CTL_FAILED 1
#define CTL_USAGE 2
#define CTL_NOTFOUND 3
#define CTL_CONNECT 4
#define CTL_SCHEMA 5

/* What every command receives. */
typedef struct ctl {
  char *url;         /* the store URL with the password inserted */
  const char *sched; /* scheduler (cluster) name */
  const char *zone;  /* the zone for "local" times */
  bool json;
  bool yes;
  const char *job;   /* history --job GROUP.NAME */
  const char *since; /* history --since TIME */
  bool failed;       /* history --failed */
  long limit;        /* history --limit N */
  const char *data;  /* fire --data JSON */
  const char *from;  /* backfill --from TIME */
  const char *to;    /* backfill --to TIME */
  int argc;          /* the command's arguments, after the command word */
  char **argv;
  char node[64];             /* chimectl's own instance id */
  chime__mysql_admin *admin; /* opened on demand by ctl_open */
} ctl;

/* ----------------------------------------------------------- errors */

/* Prints "chimectl: MESSAGE" on stderr, the password never included, and
 * returns the exit code for the chime error code (0 maps to CTL_FAILED). */
int ctl_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The exit code for a chime error code. */
int ctl_exit_code(int code);

/* ----------------------------------------------------------- database */

/* Opens c->store (extra URL parameters appended when extra is not NULL,
 * e.g. "auto_create=1").  Returns: 0 or an exit code (message printed). */
int ctl_open(ctl *c, const char *extra);
/* Runs sql ({P}: the table prefix) with text args (nargs of them)
 * read-only; *ret the rows.  Returns: 0 or an exit code (message
 * printed). */
int ctl_query(ctl *c, const char *sql, const char *const *args, size_t nargs,
              chime__mysql_rows *ret);
/* The same for the trigger rows "WHERE where" (admin.h's trigger query). */
int ctl_query_triggers(ctl *c, const char *where, const char *const *args,
                       size_t nargs, chime__mysql_rows *ret);
/* The database clock now. */
int64_t ctl_now(ctl *c);
/* Splits "GROUP.NAME" at its first dot into buffers of len bytes.
 * Returns: 0 or CTL_USAGE (message printed). */
int ctl_split_key(const char *text, char *group, char *name, size_t len);
/* Turns a GROUP_PATTERN (exact, "abc*" or "*") into a matcher. */
void ctl_pattern(const char *text, chime_match *ret_match,
                 const char **ret_pattern, char *buf, size_t len);

/* ----------------------------------------------------------- output */

/* A table of text cells, printed aligned or as a JSON array of objects. */
typedef struct ctl_table {
  size_t ncols, nrows, cap;
  const char *const *heads; /* column titles (also the JSON keys) */
  const bool *numeric;      /* per column: a JSON number (may be NULL) */
  char **cells;             /* nrows * ncols, NULL for null */
  size_t shown;             /* columns the text table shows (0: all) */
} ctl_table;

void ctl_table_init(ctl_table *t, const char *const *heads, const bool *numeric,
                    size_t ncols);
/* Appends a row of ncols cells (copied; NULL for none).  0 or ENOMEM. */
int ctl_table_add(ctl_table *t, const char *const *cells);
void ctl_table_print(const ctl_table *t, bool json);
void ctl_table_free(ctl_table *t);
/* Prints t (when r is 0), frees t and rows; returns r. */
int ctl_table_done(const ctl *c, ctl_table *t, chime__mysql_rows *rows, int r);
/* s (NULL: "?") in lower case into buf (len bytes). */
void ctl_lower(const char *s, char *buf, size_t len);

/* Whether text is exactly one JSON value (chimectl_json.c). */
bool ctl_json_is_valid(const char *text);
/* Writes s as a JSON string (quotes included) to stdout. */
void ctl_json_string(const char *s);
/* Formats t_ms as "YYYY-MM-DD HH:MM:SS" in zone (NULL: UTC) with the zone's
 * offset when local; "-" for CHIME_NO_FIRE_MS. */
void ctl_format_time(int64_t t_ms, const char *zone, char *buf, size_t len);
/* Formats a duration in ms as "1.5s", "3m12s", "2h05m", "4d03h". */
void ctl_format_age(int64_t ms, char *buf, size_t len);
/* Parses TIME: epoch ms, "YYYY-MM-DD[ T]HH:MM[:SS][Z]" (UTC) or "-10m",
 * "-2h", "-1d" (relative to now_ms).  Returns: 0; CHIME_EINVAL. */
int ctl_parse_time(const char *text, int64_t now_ms, int64_t *ret_ms);

/* ----------------------------------------------------------- commands */

int ctl_cmd_schema(ctl *c);
int ctl_cmd_nodes(ctl *c);
int ctl_cmd_jobs(ctl *c);
int ctl_cmd_triggers(ctl *c);
int ctl_cmd_history(ctl *c);
int ctl_cmd_pause(ctl *c, bool pause);
int ctl_cmd_fire(ctl *c);
int ctl_cmd_delete(ctl *c);
int ctl_cmd_explain(ctl *c);
int ctl_cmd_backfill(ctl *c);

/* A trigger's schedule in words (malloc'd; NULL on ENOMEM). */
char *ctl_describe_trigger(const chime__mysql_admin_trigger *t);
const char *ctl_misfire_name(chime_misfire m);
const char *ctl_kind_name(chime_trigger_kind k);

#endif /* CHIME_TOOLS_CHIMECTL_H */
