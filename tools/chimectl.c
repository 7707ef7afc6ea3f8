/*
 * chimectl.c: the entry point of chimectl: parses the options, builds the
 * store URL (the password from --url, CHIME_PASSWORD or --password-file,
 * never printed), dispatches to the command groups and maps chime error
 * codes to the documented exit codes.
 */
#include "chimectl.h"

#include <getopt.h>
#include <stdarg.h>
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
      "  pause|resume trigger G.N | job G.N | group PATTERN | all\n"
      "  fire G.N [--data JSON]        run a job now on whichever node claims "
      "it\n"
      "  delete job|trigger G.N [--yes]\n"
      "  explain G.N                   why a trigger is not firing\n"
      "  backfill G.N --from TIME --to TIME   run the trigger's fires of a "
      "past range again\n\n"
      "Options:\n"
      "  --url URL            mysql://USER[:PASS]@HOST[:PORT]/DB[?prefix=...]"
      "\n"
      "                       (default: $CHIME_URL)\n"
      "  --password-file F    read the password from F (else "
      "$CHIME_PASSWORD)\n"
      "  --scheduler NAME     the cluster's scheduler name (default: "
      "$CHIME_SCHEDULER or chime)\n"
      "  --tz ZONE            zone for local times (default: $TZ when it "
      "names\n"
      "                       a zone, else UTC)\n"
      "  --json               print JSON (one object or array)\n"
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

int ctl_exit_code(int code) {
  switch (code) {
  case 0:
    return CTL_FAILED;
  case CHIME_ENOTFOUND:
    return CTL_NOTFOUND;
  case CHIME_EURL: /* a malformed URL is the caller's usage error */
    return CTL_USAGE;
  case CHIME_ECONNECT:
  case CHIME_EAUTH:
    return CTL_CONNECT;
  case CHIME_ESCHEMA:
    return CTL_SCHEMA;
  default:
    return CTL_FAILED;
  }
}

int ctl_fail(int code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* One line: messages from the server may carry newlines. */
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  fprintf(stderr, "chimectl: %s\n", msg);
  return ctl_exit_code(code);
}

/* Reads the password file's first line into pw.  Returns: 0 or an exit
 * code. */
static int read_password_file(const char *path, char *pw, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f)
    return ctl_fail(CHIME_EINVAL, "cannot read the password file %s", path);
  if (!fgets(pw, (int)len, f))
    pw[0] = '\0';
  fclose(f);
  pw[strcspn(pw, "\r\n")] = '\0';
  return 0;
}

/* Builds c->url from url with password pw (NULL: keep the URL's).
 * Returns: 0 or an exit code. */
static int build_url(ctl *c, const char *url, const char *pw) {
  int r = chime__mysql_url_with_password(url, pw, &c->url);
  if (r == CHIME_EURL)
    return ctl_fail(r, "the store URL must begin with mysql://");
  return r < 0 ? ctl_fail(r, "out of memory") : 0;
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
  O_TO
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
  if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0)
    return ctl_cmd_pause(c, strcmp(cmd, "pause") == 0);
  if (strcmp(cmd, "fire") == 0)
    return ctl_cmd_fire(c);
  if (strcmp(cmd, "delete") == 0)
    return ctl_cmd_delete(c);
  if (strcmp(cmd, "explain") == 0)
    return ctl_cmd_explain(c);
  if (strcmp(cmd, "backfill") == 0)
    return ctl_cmd_backfill(c);
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
  if (!c.sched || !*c.sched)
    c.sched = "chime";
  const char *env_tz = getenv("TZ");
  const chime_zone *z;
  /* $TZ may be POSIX-style ("EST5EDT", ":/etc/localtime"): then UTC. */
  if (!c.zone || !*c.zone ||
      (c.zone == env_tz && chime_zone_get(c.zone, &z) < 0))
    c.zone = "UTC";
  if (chime_zone_get(c.zone, &z) < 0) {
    fprintf(stderr, "chimectl: unknown time zone '%s'\n", c.zone);
    return CTL_USAGE;
  }
  if (!url || !*url) {
    fprintf(stderr, "chimectl: no store URL: use --url or set CHIME_URL\n");
    return CTL_USAGE;
  }
  char pw[512] = "";
  const char *pwp = getenv("CHIME_PASSWORD");
  if (pwfile) {
    if ((r = read_password_file(pwfile, pw, sizeof pw)))
      return r;
    pwp = pw;
  }
  r = build_url(&c, url, pwp);
  memset(pw, 0, sizeof pw);
  if (r)
    return r;
  c.argc = argc - optind - 1;
  c.argv = argv + optind + 1;
  r = dispatch(&c, argv[optind]);
  chime__mysql_admin_free(c.admin);
  free(c.url);
  return r;
}
