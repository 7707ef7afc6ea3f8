/*
 * chimectl_ctl.c: the commands that change the cluster, all through the
 * store's admin interface (its own operations) so that its rules apply:
 * `pause|resume trigger|job|group|all`, `fire GROUP.NAME [--data JSON]`
 * (a one-shot trigger due now, the one the scheduler adds to trigger a job
 * now, that whichever node runs the job's type claims) and `delete job|trigger`
 * (confirmed on a terminal unless --yes).
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Prints what was done (text or JSON).  Returns 0. */
static int done(ctl *c, const char *action, const char *what,
                const char *target) {
  if (c->json) {
    fputs("{\"ok\": true, \"action\": ", stdout);
    ctl_json_string(action);
    fputs(", \"what\": ", stdout);
    ctl_json_string(what);
    fputs(", \"target\": ", stdout);
    ctl_json_string(target);
    fputs("}\n", stdout);
  } else if (strcmp(what, "all") == 0) {
    printf("%s all\n", action);
  } else {
    printf("%s %s %s\n", action, what, target);
  }
  return 0;
}

static int store_fail(int r, const char *what, const char *target) {
  if (r == CHIME_ENOTFOUND)
    return ctl_fail(r, "no %s %s", what, target);
  return ctl_fail(r, "%s %s: %s", what, target, chime_strerror(r));
}

int ctl_pause_target(ctl *c, bool pause, const char *what, const char *arg) {
  const char *verb = pause ? "pause" : "resume";
  bool all = strcmp(what, "all") == 0;
  bool key = strcmp(what, "trigger") == 0 || strcmp(what, "job") == 0;
  if (!all && !key && strcmp(what, "group") != 0)
    return ctl_usage("usage: chimectl %s trigger GROUP.NAME | job "
                     "GROUP.NAME | group PATTERN | all",
                     verb);
  if (!all && !*arg)
    return ctl_usage("%s %s wants a non-empty %s", verb, what,
                     key ? "GROUP.NAME" : "PATTERN");
  char group[256], name[256];
  int r = 0;
  if (key && (r = ctl_split_key(arg, group, name, sizeof group)))
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  chime__mysql_admin *a = c->admin;
  if (all) {
    r = chime__mysql_admin_pause_all(a, pause);
  } else if (strcmp(what, "trigger") == 0) {
    r = chime__mysql_admin_trigger_exists(a, group, name);
    if (r == 0)
      r = chime__mysql_admin_pause_trigger(a, group, name, pause);
  } else if (strcmp(what, "job") == 0) {
    r = chime__mysql_admin_job_exists(a, group, name);
    if (r == 0)
      r = chime__mysql_admin_pause_job(a, group, name, pause);
  } else {
    chime_match match;
    const char *pattern;
    char buf[256];
    ctl_pattern(arg, &match, &pattern, buf, sizeof buf);
    r = chime__mysql_admin_pause_group(a, match, pattern, pause);
  }
  if (r < 0)
    return store_fail(r, what, arg);
  char target[600];
  snprintf(target, sizeof target, "%s%s%s", what, all ? "" : " ",
           all ? "" : arg);
  ctl_audit(c, verb, target, NULL);
  return 0;
}

int ctl_cmd_pause(ctl *c, bool pause) {
  const char *what = c->argc ? c->argv[0] : "";
  bool all = strcmp(what, "all") == 0;
  if ((all && c->argc != 1) || (!all && c->argc != 2))
    what = ""; /* the usage message */
  const char *arg = all || c->argc != 2 ? "" : c->argv[1];
  int r = ctl_pause_target(c, pause, what, arg);
  return r ? r : done(c, pause ? "paused" : "resumed", what, all ? "*" : arg);
}

int ctl_fire_key(ctl *c, const char *key, const char *data, char *trigger,
                 size_t len, int64_t *ret_due_ms) {
  char group[256], name[256];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r)
    return r;
  if (data && !ctl_json_is_valid(data))
    return ctl_usage("--data is not valid JSON");
  if ((r = ctl_open(c, NULL)))
    return r;
  if ((r = chime__mysql_admin_job_exists(c->admin, group, name)) < 0)
    return store_fail(r, "job", key);
  char err[512] = "";
  r = chime__mysql_admin_fire_now(c->admin, group, name, data,
                                  data ? strlen(data) : 0, "ctl", trigger, len,
                                  ret_due_ms, err, sizeof err);
  if (r < 0)
    return ctl_fail(r, "cannot fire %s: %s", key,
                    err[0] ? err : chime_strerror(r));
  char target[600], details[600];
  snprintf(target, sizeof target, "job %s", key);
  /* The data may hold what an operator must not read back: its size. */
  if (data)
    snprintf(details, sizeof details, "trigger %s, data of %zu bytes", trigger,
             strlen(data));
  else
    snprintf(details, sizeof details, "trigger %s", trigger);
  ctl_audit(c, "fire", target, details);
  return 0;
}

int ctl_cmd_fire(ctl *c) {
  if (c->argc != 1)
    return ctl_usage("usage: chimectl fire GROUP.NAME [--data JSON]");
  char trigger[2 * CHIME_MAX_NAME_LEN + 2];
  int64_t first = 0;
  int r = ctl_fire_key(c, c->argv[0], c->data, trigger, sizeof trigger, &first);
  if (r)
    return r;
  char due[48];
  ctl_format_time(first, c->zone, due, sizeof due);
  if (c->json) {
    fputs("{\"ok\": true, \"action\": \"fired\", \"job\": ", stdout);
    ctl_json_string(c->argv[0]);
    printf(", \"trigger\": \"%s\", \"due_ms\": %" PRId64 "}\n", trigger, first);
  } else {
    printf("fired job %s: trigger %s due at %s\n", c->argv[0], trigger, due);
  }
  return 0;
}

/* Asks on the terminal.  Returns: 0 (confirmed) or an exit code. */
static int confirm(ctl *c, const char *question) {
  if (c->yes)
    return 0;
  if (!isatty(0)) {
    fprintf(stderr, "chimectl: refusing to delete without confirmation: "
                    "standard input is not a terminal (pass --yes)\n");
    return CTL_USAGE;
  }
  fprintf(stderr, "%s [y/N] ", question);
  char line[16];
  if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y')) {
    fprintf(stderr, "chimectl: not deleted\n");
    return CTL_FAILED;
  }
  return 0;
}

int ctl_delete_key(ctl *c, bool is_job, const char *key) {
  char group[256], name[256];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r || (r = ctl_open(c, NULL)))
    return r;
  r = is_job ? chime__mysql_admin_remove_job(c->admin, group, name)
             : chime__mysql_admin_remove_trigger(c->admin, group, name);
  if (r < 0)
    return store_fail(r, is_job ? "job" : "trigger", key);
  char target[600];
  snprintf(target, sizeof target, "%s %s", is_job ? "job" : "trigger", key);
  ctl_audit(c, "delete", target, NULL);
  return 0;
}

int ctl_cmd_delete(ctl *c) {
  const char *what = c->argc ? c->argv[0] : "";
  bool is_job = strcmp(what, "job") == 0;
  if (c->argc != 2 || (!is_job && strcmp(what, "trigger") != 0))
    return ctl_usage("usage: chimectl delete job|trigger GROUP.NAME [--yes]");
  const char *key = c->argv[1];
  char group[256], name[256], q[700];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r || (r = ctl_open(c, NULL)))
    return r;
  if (is_job) {
    size_t n = 0;
    r = chime__mysql_admin_job_trigger_count(c->admin, group, name, &n);
    if (r < 0)
      return store_fail(r, "job", key);
    snprintf(q, sizeof q, "Delete job %s and its %zu trigger(s)?", key, n);
  } else {
    r = chime__mysql_admin_trigger_exists(c->admin, group, name);
    if (r < 0)
      return store_fail(r, "trigger", key);
    snprintf(q, sizeof q, "Delete trigger %s?", key);
  }
  if ((r = confirm(c, q)) || (r = ctl_delete_key(c, is_job, key)))
    return r;
  return done(c, "deleted", what, key);
}
