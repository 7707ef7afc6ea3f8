/*
 * chimectl_edit_cmd.c: `chimectl job add|edit|delete`, `chimectl trigger
 * add|edit|delete|preview` and `chimectl retry FIRE_ID` (chimectl_edit.h
 * does the work).  Their settings are options named as chime-web's form
 * fields (--cron EXPR, --zone ZONE, --retry N, ...); for these two
 * commands they are taken out of the command line before the common
 * options are parsed (so --timeout is a job's timeout there, and a drain's
 * elsewhere); any other command sees them as unknown options.
 */
#include "chimectl_edit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>
#include <unistd.h>

/* The settings taken from the command line, their names copied. */
static ctl_settings given;
static char given_names[CTL_MAX_SETTINGS][32];

/* Whether name (len bytes) is a setting of the edit commands and not a
 * common option (--data, --job). */
static bool setting_name(const char *name, size_t len) {
  const char *const *lists[] = {ctl_job_setting_names,
                                ctl_trigger_setting_names};
  for (int l = 0; l < 2; l++)
    for (const char *const *n = lists[l]; *n; n++)
      if (strlen(*n) == len && strncmp(*n, name, len) == 0 &&
          strcmp(*n, "data") != 0 && strcmp(*n, "job") != 0)
        return true;
  return false;
}

/* Whether argv[i] is a common option that takes its value from the next
 * argument (--url URL, not --url=URL). */
static bool takes_next(const struct option *common, const char *a) {
  if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
    return false;
  for (const struct option *o = common; o->name; o++)
    if (o->has_arg == required_argument && strcmp(a + 2, o->name) == 0)
      return true;
  return false;
}

/* The command: the first argument that is neither an option nor the value
 * of one; NULL for none. */
static const char *command_of(int argc, char **argv,
                              const struct option *common) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0)
      return i + 1 < argc ? argv[i + 1] : NULL;
    if (argv[i][0] != '-')
      return argv[i];
    if (takes_next(common, argv[i]))
      i++;
  }
  return NULL;
}

int ctl_edit_take_options(int *argc, char **argv, const struct option *common) {
  const char *cmd = command_of(*argc, argv, common);
  if (!cmd || (strcmp(cmd, "job") != 0 && strcmp(cmd, "trigger") != 0))
    return 0; /* another command's options are all common ones */
  int out = 1;
  for (int i = 1; i < *argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) { /* the rest are arguments */
      while (i < *argc)
        argv[out++] = argv[i++];
      break;
    }
    size_t len = a[0] == '-' && a[1] == '-' ? strcspn(a + 2, "=") : 0;
    if (!len || len >= sizeof given_names[0] || !setting_name(a + 2, len)) {
      argv[out++] = argv[i];
      if (takes_next(common, a) && i + 1 < *argc) /* kept with its value */
        argv[out++] = argv[++i];
      continue;
    }
    const char *value = a[2 + len] == '=' ? a + 3 + len : NULL;
    if (!value && i + 1 >= *argc)
      return ctl_usage("--%.*s wants a value", (int)len, a + 2);
    if (!value)
      value = argv[++i];
    if (given.n == CTL_MAX_SETTINGS)
      return ctl_usage("too many settings (at most %d)", CTL_MAX_SETTINGS);
    snprintf(given_names[given.n], sizeof given_names[0], "%.*s", (int)len,
             a + 2);
    ctl_setting_add(&given, given_names[given.n], value);
  }
  *argc = out;
  argv[out] = NULL;
  return 0;
}

/* The settings of this command: the options, with --data and --job. */
static int settings_of(ctl *c, bool job, ctl_settings *ret) {
  *ret = given;
  int r = 0;
  if (c->data)
    r = ctl_setting_add(ret, "data", c->data);
  if (!r && c->job && !job)
    r = ctl_setting_add(ret, "job", c->job);
  if (!r && c->job && job)
    r = ctl_usage("--job names a trigger's job; a job has no --job");
  return r;
}

/* Refuses settings a command does not take. */
static int no_settings(ctl *c, const char *cmd) {
  if (given.n)
    return ctl_usage("chimectl %s takes no --%s", cmd, given.key[0]);
  (void)c;
  return 0;
}

/* Asks on the terminal unless --yes.  Returns: 0 or an exit code. */
static int sure(ctl *c, const char *what, const char *key) {
  if (c->yes)
    return 0;
  if (!isatty(0))
    return ctl_usage("refusing to delete without confirmation: standard "
                     "input is not a terminal (pass --yes)");
  fprintf(stderr, "Delete %s %s%s? [y/N] ", what, key,
          strcmp(what, "job") == 0 ? " and its triggers" : "");
  char line[16];
  if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
    return ctl_fail(0, "not deleted");
  return 0;
}

int ctl_cmd_job(ctl *c) {
  const char *sub = c->argc > 0 ? c->argv[0] : "";
  bool add = strcmp(sub, "add") == 0, edit = strcmp(sub, "edit") == 0;
  bool del = strcmp(sub, "delete") == 0;
  if (c->argc != 2 || (!add && !edit && !del))
    return ctl_usage("usage: chimectl job add G.N --type TYPE [SETTINGS] | "
                     "job edit G.N SETTINGS | job delete G.N [--yes]");
  const char *key = c->argv[1];
  ctl_settings s;
  int r;
  if (del) {
    if ((r = no_settings(c, "job delete")) || (r = sure(c, "job", key)) ||
        (r = ctl_job_remove(c, key)))
      return r;
    return ctl_done(c, "deleted", "job", key, CHIME_NO_FIRE_MS);
  }
  if ((r = settings_of(c, true, &s)))
    return r;
  if (edit && s.n == 0)
    return ctl_usage("job edit wants a setting to change (see chimectl "
                     "--help)");
  if ((r = ctl_job_save(c, add, key, &s)))
    return r;
  return ctl_done(c, add ? "added" : "changed", "job", key, CHIME_NO_FIRE_MS);
}

/* `trigger preview SCHEDULE`: the next 10 fire times, no store. */
static int preview(ctl *c) {
  ctl_settings s;
  int64_t times[10];
  int n = 0;
  char zone[128];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  int r = settings_of(c, false, &s);
  if (!r)
    r = ctl_schedule_preview(&s, now, 10, times, &n, zone, sizeof zone);
  if (r)
    return r;
  if (c->json) {
    fputs("{\"zone\": ", stdout);
    ctl_json_string(zone);
    fputs(", \"next_ms\": [", stdout);
    for (int i = 0; i < n; i++)
      printf("%s%" PRId64, i ? ", " : "", times[i]);
    fputs("]}\n", stdout);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    char t[48];
    ctl_format_time(times[i], zone, t, sizeof t);
    printf("%s %s\n", t, zone);
  }
  if (n == 0)
    printf("(never fires after now)\n");
  return 0;
}

int ctl_cmd_trigger(ctl *c) {
  const char *sub = c->argc > 0 ? c->argv[0] : "";
  bool add = strcmp(sub, "add") == 0, edit = strcmp(sub, "edit") == 0;
  bool del = strcmp(sub, "delete") == 0;
  if (c->argc == 1 && strcmp(sub, "preview") == 0)
    return preview(c);
  if (c->argc != 2 || (!add && !edit && !del))
    return ctl_usage("usage: chimectl trigger add G.N --job G.N SCHEDULE "
                     "[SETTINGS] | trigger edit G.N SETTINGS | trigger "
                     "delete G.N [--yes] | trigger preview SCHEDULE");
  const char *key = c->argv[1];
  ctl_settings s;
  int r;
  if (del) {
    if ((r = no_settings(c, "trigger delete")) ||
        (r = sure(c, "trigger", key)) || (r = ctl_trigger_remove(c, key)))
      return r;
    return ctl_done(c, "deleted", "trigger", key, CHIME_NO_FIRE_MS);
  }
  if ((r = settings_of(c, false, &s)))
    return r;
  if (edit && s.n == 0)
    return ctl_usage("trigger edit wants a setting to change (see chimectl "
                     "--help)");
  int64_t first = CHIME_NO_FIRE_MS;
  if ((r = ctl_trigger_save(c, add, key, &s, &first)))
    return r;
  return ctl_done(c, add ? "added" : "changed", "trigger", key, first);
}

int ctl_cmd_retry(ctl *c) {
  int r = no_settings(c, "retry");
  if (r)
    return r;
  if (c->argc != 1)
    return ctl_usage("usage: chimectl retry FIRE_ID [--data JSON]");
  ctl_retried x;
  if ((r = ctl_retry_run(c, c->argv[0], c->data, &x)))
    return r;
  if (c->json) {
    fputs("{\"ok\": true, \"action\": \"retried\", \"run\": ", stdout);
    ctl_json_string(c->argv[0]);
    fputs(", \"job\": ", stdout);
    ctl_json_string(x.job);
    fputs(", \"outcome\": ", stdout);
    ctl_json_string(x.outcome);
    fputs(", \"data\": ", stdout);
    ctl_json_string(x.data_from);
    fputs("}\n", stdout);
  } else {
    printf("retried run %s (%s) of job %s with %s data\n", c->argv[0],
           x.outcome, x.job, x.data_from);
  }
  return 0;
}
