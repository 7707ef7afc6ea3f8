/*
 * chimectl_ctl.c: the commands that change the cluster, all through the
 * store interface (jobstore/store.h) so that the store's own rules apply:
 * `pause|resume trigger|job|group|all`, `fire GROUP.NAME [--data JSON]`
 * (a one-shot trigger due now, as chime_scheduler_trigger_job adds, that
 * whichever node runs the job's type claims) and `delete job|trigger`
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

int ctl_cmd_pause(ctl *c, bool pause) {
  const char *verb = pause ? "pause" : "resume";
  const char *what = c->argc ? c->argv[0] : "";
  bool all = strcmp(what, "all") == 0;
  if ((all && c->argc != 1) || (!all && c->argc != 2) ||
      (!all && strcmp(what, "trigger") != 0 && strcmp(what, "job") != 0 &&
       strcmp(what, "group") != 0)) {
    fprintf(stderr, "chimectl: usage: chimectl %s trigger GROUP.NAME | job "
                    "GROUP.NAME | group PATTERN | all\n", verb);
    return CTL_USAGE;
  }
  const char *arg = all ? "" : c->argv[1];
  char group[256], name[256];
  int r = 0;
  if ((strcmp(what, "trigger") == 0 || strcmp(what, "job") == 0) &&
      (r = ctl_split_key(arg, group, name, sizeof group)))
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  const chime_store_ops *ops = c->store->ops;
  chime_store *s = c->store;
  if (all) {
    r = pause ? ops->pause_all(s) : ops->resume_all(s);
  } else if (strcmp(what, "trigger") == 0) {
    chime_trigger_status st;
    r = ops->trigger_status(s, group, name, &st);
    if (r == 0 && st == CHIME_TRIGGER_NONE)
      r = CHIME_ENOTFOUND;
    if (r == 0)
      r = pause ? ops->pause_trigger(s, group, name)
                : ops->resume_trigger(s, group, name);
  } else if (strcmp(what, "job") == 0) {
    chime_job *job = NULL;
    r = ops->job_get(s, group, name, &job);
    chime_job_free(job);
    if (r == 0)
      r = pause ? ops->pause_job(s, group, name)
                : ops->resume_job(s, group, name);
  } else {
    chime_match match;
    const char *pattern;
    char buf[256];
    ctl_pattern(arg, &match, &pattern, buf, sizeof buf);
    r = pause ? ops->pause_group(s, match, pattern)
              : ops->resume_group(s, match, pattern);
  }
  if (r < 0)
    return store_fail(r, what, arg);
  return done(c, pause ? "paused" : "resumed", what, all ? "*" : arg);
}

int ctl_cmd_fire(ctl *c) {
  if (c->argc != 1) {
    fprintf(stderr, "chimectl: usage: chimectl fire GROUP.NAME [--data "
                    "JSON]\n");
    return CTL_USAGE;
  }
  char group[256], name[256];
  int r = ctl_split_key(c->argv[0], group, name, sizeof group);
  if (r)
    return r;
  if (c->data && !ctl_json_is_valid(c->data)) {
    fprintf(stderr, "chimectl: --data is not valid JSON\n");
    return CTL_USAGE;
  }
  if ((r = ctl_open(c, NULL)))
    return r;
  const chime_store_ops *ops = c->store->ops;
  chime_job *job = NULL;
  if ((r = ops->job_get(c->store, group, name, &job)) < 0)
    return store_fail(r, "job", c->argv[0]);
  chime_job_free(job);
  char tname[CHIME_MAX_NAME_LEN + 1], err[512] = "";
  int64_t first = 0;
  r = chime__store_fire_now(c->store, group, name, c->data,
                            c->data ? strlen(c->data) : 0, "ctl", tname,
                            sizeof tname, &first, err, sizeof err);
  if (r < 0)
    return ctl_fail(r, "cannot fire %s: %s", c->argv[0],
                    err[0] ? err : chime_strerror(r));
  char due[48];
  ctl_format_time(first, c->zone, due, sizeof due);
  if (c->json) {
    fputs("{\"ok\": true, \"action\": \"fired\", \"job\": ", stdout);
    ctl_json_string(c->argv[0]);
    printf(", \"trigger\": \"%s.%s\", \"due_ms\": %" PRId64 "}\n",
           CHIME__MANUAL_GROUP, tname, first);
  } else {
    printf("fired job %s: trigger %s.%s due at %s\n", c->argv[0],
           CHIME__MANUAL_GROUP, tname, due);
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
  if (!fgets(line, sizeof line, stdin) ||
      (line[0] != 'y' && line[0] != 'Y')) {
    fprintf(stderr, "chimectl: not deleted\n");
    return CTL_FAILED;
  }
  return 0;
}

int ctl_cmd_delete(ctl *c) {
  const char *what = c->argc ? c->argv[0] : "";
  bool is_job = strcmp(what, "job") == 0;
  if (c->argc != 2 || (!is_job && strcmp(what, "trigger") != 0)) {
    fprintf(stderr, "chimectl: usage: chimectl delete job|trigger "
                    "GROUP.NAME [--yes]\n");
    return CTL_USAGE;
  }
  const char *key = c->argv[1];
  char group[256], name[256], q[700];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r || (r = ctl_open(c, NULL)))
    return r;
  const chime_store_ops *ops = c->store->ops;
  if (is_job) {
    chime_job *job = NULL;
    chime_key *keys = NULL;
    size_t n = 0;
    r = ops->job_get(c->store, group, name, &job);
    chime_job_free(job);
    if (r == 0)
      r = ops->trigger_list_for_job(c->store, group, name, &keys, &n);
    if (r < 0)
      return store_fail(r, "job", key);
    chime_keys_free(keys, n);
    snprintf(q, sizeof q, "Delete job %s and its %zu trigger(s)?", key, n);
  } else {
    chime_trigger_status st;
    r = ops->trigger_status(c->store, group, name, &st);
    if (r == 0 && st == CHIME_TRIGGER_NONE)
      r = CHIME_ENOTFOUND;
    if (r < 0)
      return store_fail(r, "trigger", key);
    snprintf(q, sizeof q, "Delete trigger %s?", key);
  }
  if ((r = confirm(c, q)))
    return r;
  r = is_job ? ops->job_remove(c->store, group, name)
             : ops->trigger_remove(c->store, group, name);
  if (r < 0)
    return store_fail(r, what, key);
  return done(c, "deleted", what, key);
}
