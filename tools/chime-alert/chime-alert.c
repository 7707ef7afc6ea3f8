/*
 * chime-alert.c: the entry point of chime-alert, which watches a chime
 * cluster's database and delivers its alerts (failed runs, misfires past
 * the threshold, dead nodes, jobs overdue) to webhooks and commands:
 * parses the options (the store URL and password as chimectl takes them),
 * loads the state file, and polls and delivers until SIGINT or SIGTERM.
 */
#include "alert.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How late a trigger is a misfire unless --misfire-threshold says: the
 * nodes' own default (chime.h, chime_config_new), which the nodes do not
 * write into the database. */
#define ALERT_MISFIRE_THRESHOLD_MS 60000

static void usage(FILE *out) {
  fputs("usage: chime-alert [OPTIONS] --webhook URL | --command CMD ...\n"
        "Watches a chime cluster's MySQL/MariaDB database and delivers "
        "alerts\n"
        "(failed runs, misfires past the threshold, dead nodes, jobs that "
        "did\n"
        "not succeed within their expected period) as JSON to webhooks and\n"
        "commands, with retries and de-duplication.\n\n"
        "Options:\n",
        out);
  fputs(ctl_options_help, out);
  fputs("  --webhook URL        POST each alert to URL (http:// or https://;\n"
        "                       repeatable)\n"
        "  --header 'N: V'      an extra header of every POST (repeatable)\n"
        "  --ca-file F          CA certificates for https beyond the "
        "system's\n"
        "  --command CMD        run CMD with /bin/sh for each alert: JSON on\n"
        "                       stdin, CHIME_ALERT_* variables (repeatable)\n"
        "  --state FILE         the state kept across restarts (default\n"
        "                       chime-alert.state)\n"
        "  --interval S         seconds between polls (default 5, from 0.05)\n"
        "  --misfire-threshold S  a trigger this late is a misfire (default "
        "60)\n"
        "  --window S           one failed-run alert per job per S seconds\n"
        "                       (default 600); the rest counted in the next\n"
        "  --expect G.N=DURATION  jobs G.N (each part exact, abc* or *) must\n"
        "                       succeed every DURATION (30s, 10m, 2h, 1d;\n"
        "                       repeatable, the first match counts)\n"
        "  --no-resolved        send no \"resolved\" alerts\n"
        "  --retry S            the first retry's delay (default 1; doubled\n"
        "                       each time, at most 300)\n"
        "  --attempts N         attempts per alert and sink (default 10)\n"
        "  --timeout S          per attempt, at most 10 (default 5)\n"
        "  --once               one poll, then deliver and exit\n"
        "  --help               print this help\n"
        "  --version            print the version of chime-alert and "
        "libchime\n\n"
        "Exit status: 0 after SIGINT or SIGTERM (or --once); 1 a poll failed\n"
        "(--once); 2 usage error; 4 cannot connect or access denied; 5 "
        "schema\n"
        "missing or of another version; 6 the state file cannot be read or\n"
        "written.\n",
        out);
}

enum {
  O_WEBHOOK = CTL_O_OWN,
  O_HEADER,
  O_CA_FILE,
  O_COMMAND,
  O_STATE,
  O_INTERVAL,
  O_MISFIRE,
  O_WINDOW,
  O_EXPECT,
  O_NO_RESOLVED,
  O_RETRY,
  O_ATTEMPTS,
  O_TIMEOUT,
  O_ONCE
};

typedef struct options {
  const char *url, *pwfile;
} options;

/* Parses seconds in [lo, hi] into *ret.  Returns: 0 or CTL_USAGE. */
static int seconds(const char *opt, const char *text, double lo, double hi,
                   double *ret) {
  char *end;
  double v = strtod(text, &end);
  if (*end || end == text || !(v >= lo && v <= hi))
    return ctl_usage("--%s wants seconds %g-%g", opt, lo, hi);
  *ret = v;
  return 0;
}

/* Parses "30s", "10m", "2h", "1d" or plain seconds.  Returns: 0 or
 * CTL_USAGE. */
static int duration_ms(const char *text, int64_t *ret) {
  char *end;
  double v = strtod(text, &end);
  double unit = 1000;
  if (*end == 's')
    end++;
  else if (*end == 'm')
    unit = 60000, end++;
  else if (*end == 'h')
    unit = 3600000, end++;
  else if (*end == 'd')
    unit = 86400000, end++;
  if (*end || end == text || !(v > 0) || v * unit > 366.0 * 86400000)
    return CTL_USAGE;
  *ret = (int64_t)llround(v * unit);
  return 0;
}

static int add_expect(alert_ctx *x, const char *arg) {
  const char *eq = strrchr(arg, '=');
  alert_expect e = {0};
  char key[400];
  if (!eq || (size_t)(eq - arg) >= sizeof key)
    return ctl_usage("--expect wants G.N=DURATION, not '%s'", arg);
  snprintf(key, sizeof key, "%.*s", (int)(eq - arg), arg);
  if (ctl_split_key(key, e.group, e.name, sizeof e.group))
    return CTL_USAGE;
  if (duration_ms(eq + 1, &e.period_ms))
    return ctl_usage("--expect: '%s' is not a duration (30s, 10m, 2h, 1d, "
                     "at most a year)",
                     eq + 1);
  if (x->nexpect == ALERT_MAX_EXPECT)
    return ctl_usage("at most %d --expect", ALERT_MAX_EXPECT);
  x->expect[x->nexpect++] = e;
  return 0;
}

static int add_sink(alert_ctx *x, bool is_command, const char *target) {
  if (!*target)
    return ctl_usage("--%s wants a value", is_command ? "command" : "webhook");
  bool plain = true; /* no space or control character: the request line */
  for (const unsigned char *p = (const unsigned char *)target; *p; p++)
    plain = plain && *p > ' ' && *p != 0x7f;
  if (!is_command && ((strncmp(target, "http://", 7) != 0 &&
                       strncmp(target, "https://", 8) != 0) ||
                      !plain))
    return ctl_usage("--webhook wants an http:// or https:// URL (no "
                     "spaces)");
  char why[256];
  if (!is_command && alert_http_check_url(target, why, sizeof why) < 0)
    return ctl_usage("--webhook number %zu: %s", x->nsinks + 1, why);
  if (x->nsinks == ALERT_MAX_SINKS)
    return ctl_usage("at most %d webhooks and commands", ALERT_MAX_SINKS);
  x->sinks[x->nsinks++] = (alert_sink){is_command, target};
  return 0;
}

static int add_header(alert_ctx *x, const char *h) {
  const char *colon = strchr(h, ':');
  if (!colon || colon == h || strpbrk(h, "\r\n"))
    return ctl_usage("--header wants 'Name: value' on one line");
  if (x->nheaders == ALERT_MAX_HEADERS)
    return ctl_usage("at most %d --header", ALERT_MAX_HEADERS);
  x->headers[x->nheaders++] = h;
  return 0;
}

/* One option.  Returns: 0, or an exit code (-1: --help or --version). */
static int option(alert_ctx *x, options *o, int opt, const char *arg,
                  char **argv) {
  double d = 0;
  char *end;
  switch (opt) {
  case O_WEBHOOK:
  case O_COMMAND:
    return add_sink(x, opt == O_COMMAND, arg);
  case O_HEADER:
    return add_header(x, arg);
  case O_CA_FILE:
    x->ca_file = arg;
    return 0;
  case O_STATE:
    x->state_path = arg;
    return 0;
  case O_INTERVAL:
    return seconds("interval", arg, 0.05, 3600, &x->interval_s);
  case O_MISFIRE: {
    int r = seconds("misfire-threshold", arg, 1, 86400, &d);
    x->misfire_threshold_ms = (int64_t)(d * 1000);
    return r;
  }
  case O_WINDOW: {
    int r = seconds("window", arg, 0, 86400, &d);
    x->dedup_window_ms = (int64_t)(d * 1000);
    return r;
  }
  case O_EXPECT:
    return add_expect(x, arg);
  case O_NO_RESOLVED:
    x->send_resolved = false;
    return 0;
  case O_RETRY:
    return seconds("retry", arg, 0.01, 300, &x->retry_initial_s);
  case O_ATTEMPTS:
    x->max_attempts = (int)strtol(arg, &end, 10);
    if (*end || end == arg || x->max_attempts < 1 || x->max_attempts > 1000)
      return ctl_usage("--attempts wants a number 1-1000");
    return 0;
  case O_TIMEOUT:
    /* At most 10: with a slow name lookup an attempt stays within the
     * lease of chime-alert's own nodes row (checked in before each). */
    return seconds("timeout", arg, 0.1, 10, &x->timeout_s);
  case O_ONCE:
    x->once = true;
    return 0;
  default:
    return ctl_option(&x->base, opt, arg, &o->url, &o->pwfile, usage, argv);
  }
}

static int parse_options(int argc, char **argv, alert_ctx *x, options *o) {
  static const struct option opts[] = {
      CTL_STORE_OPTIONS,
      {"webhook", required_argument, NULL, O_WEBHOOK},
      {"header", required_argument, NULL, O_HEADER},
      {"ca-file", required_argument, NULL, O_CA_FILE},
      {"command", required_argument, NULL, O_COMMAND},
      {"state", required_argument, NULL, O_STATE},
      {"interval", required_argument, NULL, O_INTERVAL},
      {"misfire-threshold", required_argument, NULL, O_MISFIRE},
      {"window", required_argument, NULL, O_WINDOW},
      {"expect", required_argument, NULL, O_EXPECT},
      {"no-resolved", no_argument, NULL, O_NO_RESOLVED},
      {"retry", required_argument, NULL, O_RETRY},
      {"attempts", required_argument, NULL, O_ATTEMPTS},
      {"timeout", required_argument, NULL, O_TIMEOUT},
      {"once", no_argument, NULL, O_ONCE},
      CTL_HELP_OPTIONS,
      {NULL, 0, NULL, 0}};
  int opt;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    int r = option(x, o, opt, optarg, argv);
    if (r)
      return r;
  }
  if (optind < argc)
    return ctl_usage("unexpected argument '%s' (see chime-alert --help)",
                     argv[optind]);
  if (x->nsinks == 0)
    return ctl_usage("no --webhook and no --command: nowhere to send alerts");
  return 0;
}

static volatile sig_atomic_t stopping;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

void alert_checkin(alert_ctx *x) {
  uint64_t now = alert_mono_ns();
  if (now < x->checkin_ns || !x->base.admin)
    return;
  ctl_check_in(&x->base); /* a poll says failures */
  x->checkin_ns = now + CHIME_ADMIN_CHECK_IN_MS * 1000000ull;
}

/* Sleeps until deadline_ns (the monotonic clock) or a signal, checking
 * in meanwhile. */
static void sleep_until(alert_ctx *x, uint64_t deadline_ns) {
  while (!stopping) {
    alert_checkin(x);
    uint64_t now = alert_mono_ns();
    if (now >= deadline_ns)
      return;
    uint64_t left = deadline_ns - now;
    if (left > 50000000)
      left = 50000000;
    nanosleep(&(struct timespec){.tv_nsec = (long)left}, NULL);
  }
}

/* The earliest retry due, or never. */
static uint64_t next_retry_ns(const alert_ctx *x) {
  uint64_t t = UINT64_MAX;
  for (size_t i = 0; i < x->nout; i++)
    if (x->outbox[i].next_try_ns < t)
      t = x->outbox[i].next_try_ns;
  return t;
}

/* One poll (poll: alert_poll or alert_poll_nodes), its failure said once
 * and alerted (store_down) until a poll works again.  Returns: 0; with
 * --once the poll's exit code; ALERT_STATE_FAILED. */
static int poll_step(alert_ctx *x, int (*poll)(alert_ctx *), int *failed) {
  ctl_quiet = true; /* a failed poll is said below, once */
  int r = poll(x);
  ctl_quiet = false;
  if (r && x->once) {
    alert_log("the poll failed: %s", ctl_last_error);
    return r;
  }
  if (r && (*failed)++ == 0) { /* said once until a poll works */
    alert_log("the poll failed (%s); trying again every %.2f s", ctl_last_error,
              x->interval_s);
    alert_store_down(x, true, ctl_last_error);
  }
  if (r == 0 && *failed) {
    alert_log("the poll works again");
    alert_store_down(x, false, NULL);
    *failed = 0;
  }
  return alert_state_save(x);
}

static int run(alert_ctx *x) {
  uint64_t next_poll = 0, next_nodes = 0;
  int failed = 0, r;
  while (!stopping) {
    if (alert_mono_ns() >= next_nodes) {
      if ((r = poll_step(x, alert_poll_nodes, &failed)))
        return r;
      next_nodes = alert_mono_ns() + (uint64_t)x->nodes_every_ms * 1000000u;
    }
    if (alert_mono_ns() >= next_poll) {
      if ((r = poll_step(x, alert_poll, &failed)))
        return r;
      next_poll = alert_mono_ns() + (uint64_t)(x->interval_s * 1e9);
    }
    size_t left = alert_deliver(x);
    if (x->once && left == 0)
      break;
    uint64_t until = next_retry_ns(x);
    if (next_poll < until)
      until = next_poll;
    sleep_until(x, next_nodes < until ? next_nodes : until);
  }
  return alert_state_save(x);
}

int main(int argc, char **argv) {
  static alert_ctx x; /* large: static */
  ctl_program = "chime-alert";
  options o = {.url = getenv("CHIME_URL")};
  x.base.sched = getenv("CHIME_SCHEDULER");
  x.base.zone = getenv("TZ");
  x.state_path = "chime-alert.state";
  x.interval_s = 5;
  x.misfire_threshold_ms = ALERT_MISFIRE_THRESHOLD_MS;
  x.dedup_window_ms = 600000;
  x.retry_initial_s = 1;
  x.retry_max_s = 300;
  x.timeout_s = 5;
  x.max_attempts = 10;
  x.send_resolved = true;
  x.last_id = -1;
  int r = parse_options(argc, argv, &x, &o);
  if (r)
    return r < 0 ? CTL_OK : r;
  if ((r = ctl_setup(&x.base, o.url, o.pwfile)))
    return r;
  bool found;
  if ((r = alert_state_load(&x, &found)) == 0 &&
      (r = ctl_open(&x.base, NULL)) == 0) {
    alert_log("watching scheduler %s (%s state %s, %zu sink%s)", x.base.sched,
              found ? "resumed from" : "a first start: new", x.state_path,
              x.nsinks, x.nsinks == 1 ? "" : "s");
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    r = run(&x);
  }
  alert_state_free(&x);
  ctl_close(&x.base);
  free(x.base.url);
  return r;
}
