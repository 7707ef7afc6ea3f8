/*
 * chimectl_audit.c: the audit trail of operator actions (sql/014's audit
 * table): ctl_audit, which every action of chimectl and chime-web calls
 * once it succeeded, and `chimectl audit [--since TIME] [--who W]
 * [--action A] [--limit N]`, newest first, the same rows chime-web's
 * /audit page shows (chime-admin.h's CHIME_ADMIN_AUDIT list).
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
  chime_admin *a = NULL;
  if (ctl_admin(c, &a))
    return CHIME_ENOMEM; /* said */
  int r = chime_admin_audit(a, c->who ? c->who : "?",
                            c->origin ? c->origin : ctl_program, action, target,
                            details);
  if (r < 0) /* done, but not recorded: said, never hidden */
    fprintf(stderr,
            "%s: warning: %s %s was done but could not be recorded in the "
            "audit table: %s\n",
            ctl_program, action, target ? target : "",
            chime_admin_errmsg(a)[0] ? chime_admin_errmsg(a)
                                     : chime_strerror(r));
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
  long limit = c->limit > 0 ? c->limit : 50;
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_AUDIT);
  if (q &&
      (chime_admin_query_set_started(q, since_ms > 0 ? since_ms : 0, 0) < 0 ||
       chime_admin_query_set_audit(q, c->who_filter, c->action_filter) < 0 ||
       chime_admin_query_set_page(q, c->offset > 0 ? (size_t)c->offset : 0,
                                  limit > CHIME_ADMIN_MAX_LIMIT
                                      ? CHIME_ADMIN_MAX_LIMIT
                                      : (size_t)limit) < 0)) {
    chime_admin_query_free(q);
    return ctl_usage("--who or --action is too long");
  }
  chime_admin_table *rows = NULL;
  r = ctl_list(c, q, &rows);
  if (r)
    return r;
  for (size_t i = 0; r == 0 && i < chime_admin_table_get_row_count(rows); i++) {
#define TEXT(col) chime_admin_table_get_text(rows, i, col)
    char when[64];
    ctl_format_time(chime_admin_table_get_int64(rows, i, "at_ms"), c->zone,
                    when, sizeof when);
    const char *cells[] = {when,           TEXT("who"),    TEXT("origin"),
                           TEXT("action"), TEXT("target"), TEXT("details"),
                           TEXT("id"),     TEXT("at_ms")};
#undef TEXT
    if (ctl_table_add(t, cells) < 0)
      r = ctl_fail(CHIME_ENOMEM, "out of memory");
  }
  chime_admin_table_free(rows);
  if (r)
    ctl_table_free(t);
  return r;
}

int ctl_cmd_audit(ctl *c) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl audit [--since TIME] [--who WHO] "
                     "[--action ACTION] [--limit N]");
  ctl_table t;
  return ctl_table_end(c, &t, ctl_audit_table(c, &t));
}
