/*
 * chimectl.c: the entry point of chimectl: parses the options, builds the
 * store URL (the password from --url, CHIME_PASSWORD or --password-file,
 * never printed), dispatches to the command groups and maps chime error
 * codes to the documented exit codes.
 */
#include "chimectl.h"
#include "chimectl_edit.h"

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
      "  history [--job G.N] [--trigger G.N] [--node ID] [--outcome WORD]\n"
      "          [--since TIME] [--until TIME] [--failed] [--limit N]\n"
      "          [--page N]            recorded runs, newest first\n"
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
      "              [--partition P] [--unique-for DURATION]\n"
      "              [--retry N[,DELAY[,MULT[,MAX[,JITTER]]]]]\n"
      "                                hand in one run of a job (--key: its "
      "unique key,\n"
      "                                --unique-for: kept that long after the "
      "run;\n"
      "                                --retry: its own retry policy)\n"
      "  delete job|trigger G.N [--yes]\n"
      "  job add G.N --type TYPE [SETTINGS] | job edit G.N SETTINGS\n"
      "  job delete G.N [--yes]        create, change, delete a job\n"
      "  trigger add G.N --job G.N SCHEDULE [SETTINGS]\n"
      "  trigger edit G.N SETTINGS | trigger delete G.N [--yes]\n"
      "  trigger preview SCHEDULE      a schedule's next 10 fires, in its "
      "zone\n"
      "  retry FIRE_ID [--data JSON]   run a failed or cancelled run's job "
      "again\n"
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
      "  audit [--since TIME] [--who WHO] [--action ACTION] [--limit N]\n"
      "                                operator actions, newest first\n"
      "  drain NODE [--wait] [--timeout S]   stop a node claiming; its runs "
      "finish\n"
      "                                (or are handed over after S "
      "seconds)\n"
      "  undrain NODE                  let a drained node claim again\n"
      "  repair [--apply]              find stuck states (dry run); --apply "
      "fixes them\n"
      "  limit set TYPE [--max N] [--per-partition M] [--rate R/PERIOD]\n"
      "            [--partition-rate R/PERIOD] [--partition-field F]\n"
      "                                limit a job type's runs across the "
      "cluster\n"
      "  limit clear TYPE              remove a job type's limit\n"
      "  limit show                    limited types and partitions: "
      "limits, waiting,\n"
      "                                running\n"
      "  limits                        the same as limit show\n"
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
        "SCHEDULE (one): --cron EXPR | --unix-cron EXPR | --rrule TEXT |\n"
        "  --simple EVERY|once [--repeat N] | --calendar-interval 'N UNIT' |\n"
        "  --daily 'N UNIT' [--between 09:00-17:00] [--days mon-fri] "
        "[--repeat N];\n"
        "  --zone ZONE for cron, unix-cron, calendar-interval, daily.\n"
        "Trigger SETTINGS: --job G.N --start TIME --end TIME --priority N\n"
        "  --misfire NAME --calendar NAME --description TEXT --data JSON\n"
        "  --jitter DUR --timeout DUR --deadline DUR --preserve-hour BOOL\n"
        "  --skip-missing-hour BOOL.\n"
        "Job SETTINGS: --type TYPE --description TEXT --data JSON --durable "
        "BOOL\n"
        "  --recovery BOOL --persist-data BOOL --concurrency allow|forbid|\n"
        "  forbid-skip|replace --queue-cap N --retry ATTEMPTS --retry-delay "
        "DUR\n"
        "  --retry-multiplier X --retry-max-delay DUR --retry-jitter DUR\n"
        "  --retry-timed-out BOOL --timeout DUR --deadline DUR --shards "
        "N|broadcast\n"
        "  --shard-params 0=a,1=b --history all|failures|none --tags a,b.\n"
        "DUR: ms, or 500ms, 30s, 5m, 2h, 1d, 1w.  An empty value resets a "
        "setting.\n\n"
        "Exit status: 0 ok; 1 the operation failed; 2 usage error; 3 no such\n"
        "job, trigger or object; 4 cannot connect or access denied; 5 schema\n"
        "missing or of another version.\n",
        out);
}

enum {
  O_JOB = CTL_O_OWN,
  O_SINCE,
  O_LIMIT,
  O_DATA,
  O_FROM,
  O_TO,
  O_INTERVAL,
  O_PACE,
  O_CANCEL,
  O_TRIGGER,
  O_NODE,
  O_OUTCOME,
  O_UNTIL,
  O_PAGE,
  O_WHO,
  O_ACTION,
  O_TIMEOUT,
  O_WAIT,
  O_APPLY,
  O_MAX,
  O_PER_PARTITION,
  O_RATE,
  O_PARTITION_RATE,
  O_PARTITION_FIELD,
  O_KEY,
  O_PARTITION,
  O_UNIQUE_FOR,
  O_RETRY,
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
  if (strcmp(cmd, "job") == 0)
    return ctl_cmd_job(c);
  if (strcmp(cmd, "trigger") == 0)
    return ctl_cmd_trigger(c);
  if (strcmp(cmd, "retry") == 0)
    return ctl_cmd_retry(c);
  if (strcmp(cmd, "audit") == 0)
    return ctl_cmd_audit(c);
  if (strcmp(cmd, "drain") == 0 || strcmp(cmd, "undrain") == 0)
    return ctl_cmd_drain(c, strcmp(cmd, "drain") == 0);
  if (strcmp(cmd, "repair") == 0)
    return ctl_cmd_repair(c);
  if (strcmp(cmd, "limit") == 0 || strcmp(cmd, "limits") == 0)
    return ctl_cmd_limit(c, strcmp(cmd, "limits") == 0);
  fprintf(stderr, "chimectl: unknown command '%s' (see chimectl --help)\n",
          cmd);
  return CTL_USAGE;
}

/* Parses the options into c, url and pwfile.  Returns: 0, or an exit code
 * (-1 for --help, already printed). */
/* The common options (getopt_long's table; chimectl_edit_cmd.c reads it
 * to tell an option's value from a command). */
static const struct option common_options[] = {
    CTL_STORE_OPTIONS,
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
    {"trigger", required_argument, NULL, O_TRIGGER},
    {"node", required_argument, NULL, O_NODE},
    {"outcome", required_argument, NULL, O_OUTCOME},
    {"until", required_argument, NULL, O_UNTIL},
    {"page", required_argument, NULL, O_PAGE},
    {"who", required_argument, NULL, O_WHO},
    {"action", required_argument, NULL, O_ACTION},
    {"timeout", required_argument, NULL, O_TIMEOUT},
    {"wait", no_argument, NULL, O_WAIT},
    {"apply", no_argument, NULL, O_APPLY},
    {"max", required_argument, NULL, O_MAX},
    {"per-partition", required_argument, NULL, O_PER_PARTITION},
    {"rate", required_argument, NULL, O_RATE},
    {"partition-rate", required_argument, NULL, O_PARTITION_RATE},
    {"partition-field", required_argument, NULL, O_PARTITION_FIELD},
    {"key", required_argument, NULL, O_KEY},
    {"partition", required_argument, NULL, O_PARTITION},
    {"unique-for", required_argument, NULL, O_UNIQUE_FOR},
    {"retry", required_argument, NULL, O_RETRY},
    {"at", required_argument, NULL, O_AT},
    {"priority", required_argument, NULL, O_PRIORITY},
    CTL_HELP_OPTIONS,
    {NULL, 0, NULL, 0}};

static int parse_options(int argc, char **argv, ctl *c, const char **url,
                         const char **pwfile, long *page) {
  int o;
  opterr = 0;
  while ((o = getopt_long(argc, argv, "hy", common_options, NULL)) != -1) {
    switch (o) {
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
    case O_TRIGGER:
      c->trigger = optarg;
      break;
    case O_NODE:
      c->on_node = optarg;
      break;
    case O_OUTCOME:
      c->outcome = optarg;
      break;
    case O_UNTIL:
      c->until = optarg;
      break;
    case O_PAGE: {
      char *end;
      *page = strtol(optarg, &end, 10);
      if (*end || end == optarg || *page < 1 || *page > 1000000) {
        fprintf(stderr, "chimectl: --page wants a number 1-1000000\n");
        return CTL_USAGE;
      }
      break;
    }
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
    case O_WHO:
      c->who_filter = optarg;
      break;
    case O_ACTION:
      c->action_filter = optarg;
      break;
    case O_WAIT:
      c->wait = true;
      break;
    case O_APPLY:
      c->apply = true;
      break;
    case O_TIMEOUT: {
      char *end;
      double secs = strtod(optarg, &end);
      if (*end || end == optarg || !(secs >= 0) || secs > 7 * 86400) {
        fprintf(stderr, "chimectl: --timeout wants seconds 0-604800\n");
        return CTL_USAGE;
      }
      c->timeout_ms = (long long)(secs * 1000);
      break;
    }
    case O_KEY:
      c->key = optarg;
      break;
    case O_PARTITION:
      c->partition = optarg;
      break;
    case O_UNIQUE_FOR:
      c->unique_for = optarg;
      break;
    case O_RETRY:
      c->retry = optarg;
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
    case O_MAX:
    case O_PER_PARTITION: {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (*end || end == optarg || v < 0 || v > 1000000000) {
        fprintf(stderr, "chimectl: --%s wants a number 0-1000000000\n",
                o == O_MAX ? "max" : "per-partition");
        return CTL_USAGE;
      }
      if (o == O_MAX)
        c->max_running = v;
      else
        c->max_per_partition = v;
      break;
    }
    case O_RATE:
      c->rate = optarg;
      break;
    case O_PARTITION_RATE:
      c->partition_rate = optarg;
      break;
    case O_PARTITION_FIELD:
      c->partition_field = optarg;
      break;
    case O_LIMIT: {
      char *end;
      c->limit = strtol(optarg, &end, 10);
      if (*end || end == optarg || c->limit < 1 || c->limit > 1000000) {
        fprintf(stderr, "chimectl: --limit wants a number 1-1000000\n");
        return CTL_USAGE;
      }
      break;
    }
    default: {
      int r = ctl_option(c, o, optarg, url, pwfile, usage, argv);
      if (r)
        return r;
    }
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  ctl c = {.limit = 50, .timeout_ms = -1};
  const char *url = getenv("CHIME_URL");
  const char *pwfile = NULL;
  c.sched = getenv("CHIME_SCHEDULER");
  c.zone = getenv("TZ");
  /* The edit commands' settings first (chimectl_edit_cmd.c). */
  int r = ctl_edit_take_options(&argc, argv, common_options);
  if (r)
    return r;
  long page = 1;
  r = parse_options(argc, argv, &c, &url, &pwfile, &page);
  if (r)
    return r < 0 ? CTL_OK : r;
  c.offset = (page - 1) * c.limit; /* --page N: the Nth --limit rows */
  if (optind >= argc) {
    fprintf(stderr, "chimectl: no command (see chimectl --help)\n");
    return CTL_USAGE;
  }
  if ((r = ctl_setup(&c, url, pwfile)))
    return r;
  ctl_who_default(&c);
  c.argc = argc - optind - 1;
  c.argv = argv + optind + 1;
  r = dispatch(&c, argv[optind]);
  ctl_close(&c);
  free(c.url);
  return r;
}
