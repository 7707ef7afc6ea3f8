/*
 * chimectl.c: the entry point of chimectl: parses the options, builds the
 * store URL (the password from --url, CHIME_PASSWORD or --password-file,
 * never printed), dispatches to the command groups and maps chime error
 * codes to the documented exit codes.
 */
#include "chimectl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out) {
  fputs(
      "usage: chimectl [OPTIONS] COMMAND [ARGS]\n"
      "Inspects and steers a chime cluster through its MySQL/MariaDB "
      "database.\n\n"
      "Commands:\n"
      "  schema init|migrate|version   create, migrate or show the schema\n"
      "  nodes                         the cluster's nodes\n"
      "  jobs [GROUP_PATTERN]          jobs (pattern: exact, abc* or *)\n"
      "  triggers [GROUP_PATTERN]      triggers with their schedules\n"
      "  history [--job G.N] [--since TIME] [--failed] [--limit N]\n"
      "  stats [--job G.N] [--since TIME]  per job: runs, failures, lateness "
      "p50/p99,\n"
      "                                last run, next fire (default: last "
      "24 h)\n"
      "  metrics                       the cluster's figures, Prometheus "
      "text\n"
      "  pause|resume trigger G.N | job G.N | group PATTERN | all\n"
      "  fire G.N [--data JSON] [--key K]  run a job now on whichever node "
      "claims it;\n"
      "                                --key: a request key, so that a "
      "retried fire\n"
      "                                never runs it twice\n"
      "  enqueue G.N [--data JSON] [--at TIME] [--priority N] [--key K]\n"
      "                                hand in one run of a job (--key: its "
      "unique key)\n"
      "  delete job|trigger G.N [--yes]\n"
      "  cancel job G.N | fire ID      ask running fires to stop, on any "
      "node\n"
      "  explain G.N                   why a trigger is not firing\n"
      "  show [trigger|job] G.N        one trigger (expression, schedule, "
      "data,\n"
      "                                next 5 fires) or one job and its "
      "triggers\n"
      "  watch [--interval S]          a live view of nodes, running fires "
      "and\n"
      "                                recent outcomes (q quits)\n"
      "  leases                        named leases: holder, since, expires, "
      "token\n"
      "  lease release NAME [--yes]    end a held lease now (an operator's "
      "release)\n"
      "  backfill G.N --from TIME --to TIME [--pace MS]   run the trigger's "
      "fires of a past range again (one per MS)\n"
      "  backfill G.N --cancel         remove its backfill fires not run yet\n"
      "  running                       the fires claimed or running now\n"
      "  shards FIRE_ID                a sharded fire's shards: node, "
      "progress, outcome\n"
      "  events                        node starts and the fires their deaths "
      "ended\n"
      "  zones [reload [ZONE...]]      the zones triggers use, with their "
      "offset now;\n"
      "                                reload: recompute their next fires "
      "with this\n"
      "                                host's zoneinfo (after a tzdata "
      "update)\n\n"
      "Options:\n",
      out);
  fputs(ctl_options_help, out);
  fputs("  --json               print JSON (one object or array)\n"
        "  --yes                do not ask for confirmation\n"
        "  --help               print this help\n"
        "  --version            print the version of chimectl and libchime\n\n"
        "TIME: epoch ms, 2026-03-08T01:30:00Z (UTC), or -30m, -2h, -1d.\n"
        "Keys G.N split at the first dot: group G, name N.\n\n"
        "Exit status: 0 ok; 1 the operation failed; 2 usage error; 3 no such\n"
        "job, trigger or object; 4 cannot connect or access denied; 5 schema\n"
        "missing or of another version.\n",
        out);
}

enum {
  O_URL = 256,
  O_PWFILE,
  O_SCHED,
  O_TZ,
  O_JOB,
  O_SINCE,
  O_LIMIT,
  O_DATA,
  O_FROM,
  O_TO,
  O_INTERVAL,
  O_PACE,
  O_CANCEL,
  O_KEY,
  O_AT,
  O_PRIORITY
};

static int dispatch(ctl *c, const char *cmd) {
  if (strcmp(cmd, "schema") == 0)
    return ctl_cmd_schema(c);
  if (strcmp(cmd, "nodes") == 0)
    return ctl_cmd_nodes(c);
  if (strcmp(cmd, "jobs") == 0)
    return ctl_cmd_jobs(c);
  if (strcmp(cmd, "triggers") == 0)
    return ctl_cmd_triggers(c);
  if (strcmp(cmd, "history") == 0)
    return ctl_cmd_history(c);
  if (strcmp(cmd, "stats") == 0)
    return ctl_cmd_stats(c);
  if (strcmp(cmd, "metrics") == 0)
    return ctl_cmd_metrics(c);
  if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0)
    return ctl_cmd_pause(c, strcmp(cmd, "pause") == 0);
  if (strcmp(cmd, "fire") == 0)
    return ctl_cmd_fire(c);
  if (strcmp(cmd, "enqueue") == 0)
    return ctl_cmd_enqueue(c);
  if (strcmp(cmd, "delete") == 0)
    return ctl_cmd_delete(c);
  if (strcmp(cmd, "cancel") == 0)
    return ctl_cmd_cancel(c);
  if (strcmp(cmd, "explain") == 0)
    return ctl_cmd_explain(c);
  if (strcmp(cmd, "show") == 0)
    return ctl_cmd_show(c);
  if (strcmp(cmd, "watch") == 0)
    return ctl_cmd_watch(c);
  if (strcmp(cmd, "leases") == 0)
    return ctl_cmd_leases(c);
  if (strcmp(cmd, "lease") == 0)
    return ctl_cmd_lease(c);
  if (strcmp(cmd, "running") == 0)
    return ctl_cmd_running(c);
  if (strcmp(cmd, "shards") == 0)
    return ctl_cmd_shards(c);
  if (strcmp(cmd, "events") == 0)
    return ctl_cmd_events(c);
  if (strcmp(cmd, "backfill") == 0)
    return ctl_cmd_backfill(c);
  if (strcmp(cmd, "zones") == 0)
    return ctl_cmd_zones(c);
  fprintf(stderr, "chimectl: unknown command '%s' (see chimectl --help)\n",
          cmd);
  return CTL_USAGE;
}

/* Parses the options into c, url and pwfile.  Returns: 0, or an exit code
 * (-1 for --help, already printed). */
static int parse_options(int argc, char **argv, ctl *c, const char **url,
                         const char **pwfile) {
  static const struct option opts[] = {
      {"url", required_argument, NULL, O_URL},
      {"password-file", required_argument, NULL, O_PWFILE},
      {"scheduler", required_argument, NULL, O_SCHED},
      {"tz", required_argument, NULL, O_TZ},
      {"json", no_argument, NULL, 'j'},
      {"yes", no_argument, NULL, 'y'},
      {"job", required_argument, NULL, O_JOB},
      {"since", required_argument, NULL, O_SINCE},
      {"failed", no_argument, NULL, 'f'},
      {"limit", required_argument, NULL, O_LIMIT},
      {"data", required_argument, NULL, O_DATA},
      {"from", required_argument, NULL, O_FROM},
      {"to", required_argument, NULL, O_TO},
      {"interval", required_argument, NULL, O_INTERVAL},
      {"pace", required_argument, NULL, O_PACE},
      {"cancel", no_argument, NULL, O_CANCEL},
      {"key", required_argument, NULL, O_KEY},
      {"at", required_argument, NULL, O_AT},
      {"priority", required_argument, NULL, O_PRIORITY},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  int o;
  opterr = 0;
  while ((o = getopt_long(argc, argv, "hy", opts, NULL)) != -1) {
    switch (o) {
    case O_URL:
      *url = optarg;
      break;
    case O_PWFILE:
      *pwfile = optarg;
      break;
    case O_SCHED:
      if (!*optarg) { /* not silently the default "chime" */
        fprintf(stderr, "chimectl: --scheduler wants a scheduler name\n");
        return CTL_USAGE;
      }
      c->sched = optarg;
      break;
    case O_TZ:
      c->zone = optarg;
      break;
    case 'j':
      c->json = true;
      break;
    case 'y':
      c->yes = true;
      break;
    case O_JOB:
      c->job = optarg;
      break;
    case O_SINCE:
      c->since = optarg;
      break;
    case 'f':
      c->failed = true;
      break;
    case O_DATA:
      c->data = optarg;
      break;
    case O_FROM:
      c->from = optarg;
      break;
    case O_TO:
      c->to = optarg;
      break;
    case O_PACE: {
      char *end;
      c->pace_ms = strtoll(optarg, &end, 10);
      if (*end || end == optarg || c->pace_ms < 0 ||
          c->pace_ms > CHIME_BACKFILL_MAX_PACE_MS) {
        fprintf(stderr, "chimectl: --pace wants milliseconds 0-%lld\n",
                (long long)CHIME_BACKFILL_MAX_PACE_MS);
        return CTL_USAGE;
      }
      break;
    }
    case O_CANCEL:
      c->cancel = true;
      break;
    case O_KEY:
      c->key = optarg;
      break;
    case O_AT:
      c->at = optarg;
      break;
    case O_PRIORITY: {
      char *end;
      c->priority = strtol(optarg, &end, 10);
      if (*end || end == optarg || c->priority < -1000000 ||
          c->priority > 1000000) {
        fprintf(stderr, "chimectl: --priority wants a number\n");
        return CTL_USAGE;
      }
      c->has_priority = true;
      break;
    }
    case O_INTERVAL: {
      char *end;
      c->interval = strtod(optarg, &end);
      if (*end || end == optarg || !(c->interval >= 0.1) ||
          c->interval > 3600) {
        fprintf(stderr, "chimectl: --interval wants seconds 0.1-3600\n");
        return CTL_USAGE;
      }
      break;
    }
    case O_LIMIT: {
      char *end;
      c->limit = strtol(optarg, &end, 10);
      if (*end || end == optarg || c->limit < 1 || c->limit > 1000000) {
        fprintf(stderr, "chimectl: --limit wants a number 1-1000000\n");
        return CTL_USAGE;
      }
      break;
    }
    case 'h':
      usage(stdout);
      return -1;
    case 'V':
      printf("chimectl %s (libchime %s)\n", CHIME_VERSION, chime_version());
      return -1;
    default:
      fprintf(stderr,
              "chimectl: unknown or incomplete option '%s' (see "
              "chimectl --help)\n",
              argv[optind - 1]);
      return CTL_USAGE;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  ctl c = {.limit = 50};
  const char *url = getenv("CHIME_URL");
  const char *pwfile = NULL;
  c.sched = getenv("CHIME_SCHEDULER");
  c.zone = getenv("TZ");
  int r = parse_options(argc, argv, &c, &url, &pwfile);
  if (r)
    return r < 0 ? CTL_OK : r;
  if (optind >= argc) {
    fprintf(stderr, "chimectl: no command (see chimectl --help)\n");
    return CTL_USAGE;
  }
  if ((r = ctl_setup(&c, url, pwfile)))
    return r;
  c.argc = argc - optind - 1;
  c.argv = argv + optind + 1;
  r = dispatch(&c, argv[optind]);
  chime__mysql_admin_free(c.admin);
  free(c.url);
  return r;
}
