/*
 * chimectl_audit.c: the audit trail of operator actions (sql/014's audit
 * table): ctl_audit, which every action of chimectl and chime-web calls
 * once it succeeded, and `chimectl audit [--since TIME] [--who W]
 * [--action A] [--limit N]`, newest first, the same rows chime-web's
 * /audit page shows.
 *
 * Who and from where: chimectl is "USER@HOST" from "chimectl" (the OS
 * user running it); chime-web sets c->who and c->origin per request (the
 * signed-in operator, the client's address).
 */
#include "chimectl.h"

#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ctl_who_default(ctl *c) {
  const struct passwd *pw = getpwuid(geteuid());
  const char *user = pw && pw->pw_name ? pw->pw_name : getenv("USER");
  char host[256] = "?";
  if (gethostname(host, sizeof host - 1) != 0)
    snprintf(host, sizeof host, "?");
  host[sizeof host - 1] = '\0';
  snprintf(c->who_buf, sizeof c->who_buf, "%.60s@%.120s", user ? user : "?",
           host);
  c->who = c->who_buf;
  c->origin = ctl_program;
}

int ctl_audit(ctl *c, const char *action, const char *target,
              const char *details) {
  if (!c->admin)
    return 0; /* nothing was done through the store */
  char err[512] = "";
  int r = chime__mysql_admin_audit(c->admin, c->who ? c->who : "?",
                                   c->origin ? c->origin : ctl_program, action,
                                   target, details, err, sizeof err);
  if (r < 0) /* done, but not recorded: said, never hidden */
    fprintf(stderr,
            "%s: warning: %s %s was done but could not be recorded in the "
            "audit table: %s\n",
            ctl_program, action, target ? target : "",
            err[0] ? err : chime_strerror(r));
  return r;
}

int ctl_audit_table(ctl *c, ctl_table *t) {
  static const char *const heads[] = {"time",   "who",     "origin", "action",
                                      "target", "details", "id",     "time_ms"};
  static const bool num[] = {false, false, false, false,
                             false, false, true,  true};
  ctl_table_init(t, heads, num, 8);
  t->shown = 6;
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  int64_t since_ms = 0;
  if (c->since && ctl_parse_time(c->since, ctl_now(c), &since_ms) < 0)
    return ctl_usage("--since '%s' is not a time (epoch ms, "
                     "2026-03-08T01:30:00Z, -30m, -2h, -1d)",
                     c->since);
  char since[32], sql[512];
  snprintf(since, sizeof since, "%" PRId64, since_ms);
  const char *args[] = {c->sched,         since,
                        c->who_filter,    c->who_filter,
                        c->action_filter, c->action_filter};
  snprintf(sql, sizeof sql,
           "SELECT at_ms, who, origin, action, target, details, id FROM "
           "{P}audit WHERE sched_name = ? AND at_ms >= ? AND (? IS NULL OR "
           "who = ?) AND (? IS NULL OR action = ?) ORDER BY id DESC LIMIT "
           "%ld OFFSET %ld",
           c->limit > 0 ? c->limit : 50, c->offset > 0 ? c->offset : 0);
  chime__mysql_rows rows = {0};
  if ((r = ctl_query(c, sql, args, 6, &rows)))
    return r;
  for (size_t i = 0; r == 0 && i < rows.nrows; i++) {
    int64_t at = chime__mysql_rows_int64(&rows, i, 0);
    char when[64];
    ctl_format_time(at, c->zone, when, sizeof when);
    const char *cells[] = {when,
                           chime__mysql_rows_text(&rows, i, 1),
                           chime__mysql_rows_text(&rows, i, 2),
                           chime__mysql_rows_text(&rows, i, 3),
                           chime__mysql_rows_text(&rows, i, 4),
                           chime__mysql_rows_is_null(&rows, i, 5)
                               ? NULL
                               : chime__mysql_rows_text(&rows, i, 5),
                           chime__mysql_rows_text(&rows, i, 6),
                           chime__mysql_rows_text(&rows, i, 0)};
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  chime__mysql_rows_free(&rows);
  if (r)
    ctl_table_free(t);
  return r;
}

int ctl_cmd_audit(ctl *c) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl audit [--since TIME] [--who WHO] "
                     "[--action ACTION] [--limit N]");
  ctl_table t;
  chime__mysql_rows none = {0};
  return ctl_table_done(c, &t, &none, ctl_audit_table(c, &t));
}
