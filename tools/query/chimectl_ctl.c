/*
 * chimectl_ctl.c: the commands that change the cluster, all through the
 * store's admin interface (its own operations) so that its rules apply:
 * `pause|resume trigger|job|group|all`, `fire GROUP.NAME [--data JSON]`
 * (a one-shot trigger due now, the one the scheduler adds to trigger a job
 * now, that whichever node runs the job's type claims) and `delete job|trigger`
 * (confirmed on a terminal unless --yes).
 */
#include "chimectl.h"
#include "chimectl_edit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ctl_done(const ctl *c, const char *action, const char *what,
             const char *target, int64_t first_ms) {
  if (c->json) {
    fputs("{\"ok\": true, \"action\": ", stdout);
    ctl_json_string(action);
    fputs(", \"what\": ", stdout);
    ctl_json_string(what);
    fputs(", \"target\": ", stdout);
    ctl_json_string(target);
    if (first_ms != CHIME_NO_FIRE_MS)
      printf(", \"first_ms\": %" PRId64, first_ms);
    fputs("}\n", stdout);
  } else if (strcmp(what, "all") == 0) {
    printf("%s all\n", action);
  } else if (first_ms != CHIME_NO_FIRE_MS) {
    char first[48];
    ctl_format_time(first_ms, c->zone, first, sizeof first);
    printf("%s %s %s: first fire %s\n", action, what, target, first);
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
  chime_admin *a = NULL;
  if ((r = ctl_admin(c, &a)))
    return r;
  if (all)
    r = chime_admin_set_paused(a, CHIME_ADMIN_TARGET_ALL, NULL, NULL, pause);
  else if (key)
    r = chime_admin_set_paused(
        a, what[0] == 't' ? CHIME_ADMIN_TARGET_TRIGGER : CHIME_ADMIN_TARGET_JOB,
        group, name, pause);
  else
    r = chime_admin_set_paused(a, CHIME_ADMIN_TARGET_GROUP, arg, NULL, pause);
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
  return r ? r
           : ctl_done(c, pause ? "paused" : "resumed", what, all ? "*" : arg,
                      CHIME_NO_FIRE_MS);
}

/* Hands in the run of job (group, name) with opts through the admin
 * interface; the trigger key into trigger, due time, existed. */
static int enqueue_key(ctl *c, const char *key, const chime_enqueue *opts,
                       char *trigger, size_t len, int64_t *ret_due_ms,
                       bool *ret_existed) {
  char group[256], name[256];
  chime_admin *a = NULL;
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r || (r = ctl_admin(c, &a)))
    return r;
  r = chime_admin_enqueue(a, group, name, opts, trigger, len, ret_existed,
                          ret_due_ms);
  if (r == CHIME_ENOTFOUND)
    return store_fail(r, "job", key);
  if (r < 0)
    return ctl_fail(r, "cannot hand in a run of %s: %s", key,
                    chime_admin_errmsg(a)[0] ? chime_admin_errmsg(a)
                                             : chime_strerror(r));
  return 0;
}

int ctl_fire_key(ctl *c, const char *key, const char *data,
                 const char *request_key, char *trigger, size_t len,
                 int64_t *ret_due_ms, bool *ret_existed) {
  char group[256], name[256];
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r)
    return r;
  if (data && !ctl_json_is_valid(data))
    return ctl_usage("--data is not valid JSON");
  if (ret_existed)
    *ret_existed = false;
  if (request_key) {
    chime_enqueue *o = NULL;
    if ((r = chime_enqueue_new(&o)) < 0)
      return ctl_fail(r, "cannot fire %s: %s", key, chime_strerror(r));
    if ((r = chime_enqueue_set_unique_key(o, request_key)) < 0 ||
        (data && (r = chime_enqueue_set_data(o, data, strlen(data))) < 0)) {
      chime_enqueue_free(o);
      return ctl_usage("invalid request key or data (%s)", chime_strerror(r));
    }
    bool existed = false;
    r = enqueue_key(c, key, o, trigger, len, ret_due_ms, &existed);
    chime_enqueue_free(o);
    if (ret_existed)
      *ret_existed = existed;
    return r;
  }
  chime_admin *a = NULL;
  if ((r = ctl_admin(c, &a)))
    return r;
  r = chime_admin_fire_now(a, group, name, data, data ? strlen(data) : 0, "ctl",
                           trigger, len, ret_due_ms);
  if (r == CHIME_ENOTFOUND)
    return store_fail(r, "job", key);
  if (r < 0)
    return ctl_fail(r, "cannot fire %s: %s", key,
                    chime_admin_errmsg(a)[0] ? chime_admin_errmsg(a)
                                             : chime_strerror(r));
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

/* Prints the outcome of fire or enqueue. */
static void said(ctl *c, const char *action, const char *trigger,
                 int64_t due_ms, bool existed) {
  char due[48];
  ctl_format_time(due_ms, c->zone, due, sizeof due);
  if (c->json) {
    printf("{\"ok\": true, \"action\": \"%s\", \"job\": ", action);
    ctl_json_string(c->argv[0]);
    fputs(", \"trigger\": ", stdout);
    ctl_json_string(trigger);
    if (c->key) {
      fputs(", \"key\": ", stdout);
      ctl_json_string(c->key);
    }
    printf(", \"existed\": %s", existed ? "true" : "false");
    if (!existed)
      printf(", \"due_ms\": %" PRId64, due_ms);
    puts("}");
  } else if (existed) {
    printf("job %s: run %s with key %s is waiting or running; nothing "
           "stored\n",
           c->argv[0], trigger, c->key);
  } else {
    printf("%s job %s: trigger %s due at %s\n", action, c->argv[0], trigger,
           due);
  }
}

int ctl_cmd_fire(ctl *c) {
  if (c->argc != 1)
    return ctl_usage("usage: chimectl fire GROUP.NAME [--data JSON] "
                     "[--key K]");
  char trigger[2 * CHIME_MAX_NAME_LEN + 2];
  int64_t first = 0;
  bool existed = false;
  int r = ctl_fire_key(c, c->argv[0], c->data, c->key, trigger, sizeof trigger,
                       &first, &existed);
  if (r)
    return r;
  said(c, "fired", trigger, first, existed);
  return 0;
}

/* --retry N[,DELAY[,MULT[,MAX[,JITTER]]]]: the run's own retry policy (N
 * attempts in all; the durations as "30s", "1m"); *ret NULL when text is
 * malformed or refused. */
static int parse_retry(const char *text, chime_retry **ret) {
  char buf[160], *parts[5] = {0}, *save = NULL;
  *ret = NULL;
  if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
    return -1;
  size_t n = 0;
  for (char *p = strtok_r(buf, ",", &save); p && n < 5;
       p = strtok_r(NULL, ",", &save))
    parts[n++] = p;
  size_t commas = 0;
  for (const char *q = text; *q; q++)
    commas += *q == ',';
  char *end;
  long attempts = n ? strtol(parts[0], &end, 10) : -1;
  if (n == 0 || *end || commas >= 5)
    return -1;
  int64_t ms[3] = {0, 0, 0}; /* delay, max, jitter */
  const size_t at[3] = {1, 3, 4};
  for (size_t k = 0; k < 3; k++)
    if (parts[at[k]] && ctl_parse_duration(parts[at[k]], &ms[k]) < 0)
      return -1;
  double mult = parts[2] ? strtod(parts[2], &end) : 1.0;
  if (parts[2] && (end == parts[2] || *end))
    return -1;
  chime_retry *p = NULL;
  int r = chime_retry_new(&p);
  if (r == 0 && (attempts > CHIME_MAX_RETRY_ATTEMPTS ||
                 chime_retry_set_max_attempts(p, (int)attempts) < 0 ||
                 chime_retry_set_initial_delay_ms(p, ms[0]) < 0 ||
                 chime_retry_set_multiplier(p, mult) < 0 ||
                 chime_retry_set_max_delay_ms(p, ms[1]) < 0 ||
                 chime_retry_set_jitter_ms(p, ms[2]) < 0))
    r = -1;
  if (r < 0) {
    chime_retry_free(p);
    return -1;
  }
  *ret = p;
  return 0;
}

int ctl_cmd_enqueue(ctl *c) {
  if (c->argc != 1)
    return ctl_usage("usage: chimectl enqueue GROUP.NAME [--data JSON] "
                     "[--at TIME] [--priority N] [--key K] [--partition P] "
                     "[--unique-for DURATION] "
                     "[--retry N[,DELAY[,MULT[,MAX[,JITTER]]]]]");
  if (c->data && !ctl_json_is_valid(c->data))
    return ctl_usage("--data is not valid JSON");
  chime_enqueue *o = NULL;
  int r = chime_enqueue_new(&o);
  if (r < 0)
    return ctl_fail(r, "%s", chime_strerror(r));
  int64_t at = 0, unique_for = 0;
  chime_retry *retry = NULL;
  if (c->retry && (parse_retry(c->retry, &retry) < 0 ||
                   chime_enqueue_set_retry(o, retry) < 0))
    r = ctl_usage("--retry: N[,DELAY[,MULT[,MAX[,JITTER]]]] please (N "
                  "attempts in all, e.g. '5,1s,2,1m')");
  else if (c->unique_for &&
           (ctl_parse_duration(c->unique_for, &unique_for) < 0 ||
            chime_enqueue_set_unique_for_ms(o, unique_for) < 0))
    r = ctl_usage("--unique-for: a duration up to 7d please ('10m', '1h')");
  else if (c->unique_for && !c->key)
    r = ctl_usage("--unique-for needs --key");
  else if (c->at && ctl_parse_time(c->at, ctl_now(c), &at) < 0)
    r = ctl_usage("--at: cannot read the time '%s'", c->at);
  else if (c->at && at <= 0)
    r = ctl_usage("--at: a time after 1970 please");
  else if ((c->at && chime_enqueue_set_run_at_ms(o, at) < 0) ||
           (c->has_priority &&
            chime_enqueue_set_priority(o, (int)c->priority) < 0) ||
           (c->data &&
            chime_enqueue_set_data(o, c->data, strlen(c->data)) < 0) ||
           (c->key && chime_enqueue_set_unique_key(o, c->key) < 0) ||
           (c->partition &&
            chime_enqueue_set_partition_key(o, c->partition) < 0))
    r = ctl_usage("invalid --key, --partition, --data or --priority");
  char trigger[2 * CHIME_MAX_NAME_LEN + 2];
  int64_t due = 0;
  bool existed = false;
  if (r == 0)
    r = enqueue_key(c, c->argv[0], o, trigger, sizeof trigger, &due, &existed);
  chime_enqueue_free(o);
  chime_retry_free(retry);
  if (r)
    return r;
  said(c, "enqueued", trigger, due, existed);
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
  chime_admin *a = NULL;
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r || (r = ctl_admin(c, &a)))
    return r;
  r = chime_admin_delete(
      a, is_job ? CHIME_ADMIN_TARGET_JOB : CHIME_ADMIN_TARGET_TRIGGER, group,
      name);
  if (r < 0)
    return store_fail(r, is_job ? "job" : "trigger", key);
  char target[600];
  snprintf(target, sizeof target, "%s %s", is_job ? "job" : "trigger", key);
  ctl_audit(c, "delete", target, NULL);
  return 0;
}

/* The list of group's jobs or triggers is read (the pattern of a group
 * name ending in '*' lists more: the rows are matched exactly). */
int ctl_key_row(ctl *c, bool is_job, const char *group, const char *name,
                const char *key, chime_admin_table **ret, size_t *ret_row) {
  *ret = NULL;
  chime_admin_query *q =
      ctl_list_query(is_job ? CHIME_ADMIN_JOBS : CHIME_ADMIN_TRIGGERS);
  if (q && chime_admin_query_set_group(q, group) < 0) {
    chime_admin_query_free(q);
    return store_fail(CHIME_ENOTFOUND, is_job ? "job" : "trigger", key);
  }
  chime_admin_table *t = NULL;
  int r = ctl_list(c, q, &t);
  if (r)
    return r;
  for (size_t i = 0; i < chime_admin_table_get_row_count(t); i++)
    if (strcmp(chime_admin_table_get_text(t, i, "group"), group) == 0 &&
        strcmp(chime_admin_table_get_text(t, i, "name"), name) == 0) {
      *ret = t;
      *ret_row = i;
      return 0;
    }
  chime_admin_table_free(t);
  return store_fail(CHIME_ENOTFOUND, is_job ? "job" : "trigger", key);
}

int ctl_cmd_delete(ctl *c) {
  const char *what = c->argc ? c->argv[0] : "";
  bool is_job = strcmp(what, "job") == 0;
  if (c->argc != 2 || (!is_job && strcmp(what, "trigger") != 0))
    return ctl_usage("usage: chimectl delete job|trigger GROUP.NAME [--yes]");
  const char *key = c->argv[1];
  char group[256], name[256], q[700];
  chime_admin_table *t = NULL;
  size_t row = 0;
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r || (r = ctl_key_row(c, is_job, group, name, key, &t, &row)))
    return r;
  if (is_job)
    snprintf(q, sizeof q, "Delete job %s and its %" PRId64 " trigger(s)?", key,
             chime_admin_table_get_int64(t, row, "triggers"));
  else
    snprintf(q, sizeof q, "Delete trigger %s?", key);
  chime_admin_table_free(t);
  if ((r = confirm(c, q)) || (r = ctl_delete_key(c, is_job, key)))
    return r;
  return ctl_done(c, "deleted", what, key, CHIME_NO_FIRE_MS);
}
