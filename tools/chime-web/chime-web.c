/*
 * chime-web.c: the entry point of chime-web, the operators' dashboard of
 * a chime cluster: parses the options (the store URL and password as
 * chimectl takes them, where to listen, the operator token's file, the
 * users' file) and
 * serves until SIGINT or SIGTERM.  It listens on 127.0.0.1 unless told
 * otherwise: put a reverse proxy with TLS in front of it
 * (docs/operations.md).
 */
#include "web.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out) {
  fputs("usage: chime-web [OPTIONS]\n"
        "Serves a dashboard of a chime cluster's MySQL/MariaDB database:\n"
        "nodes, triggers, jobs, running fires, history and node events, with\n"
        "pause, resume, fire now, cancel and delete for a signed-in operator,\n"
        "a JSON API under /api/ and Prometheus text at /metrics.\n\n"
        "Options:\n",
        out);
  fputs(ctl_options_help, out);
  fputs("  --listen ADDR        the IP address to listen on (default "
        "127.0.0.1)\n"
        "  --port N             the TCP port (default 8470; 0: any free one)\n"
        "  --allowed-host NAME  a name the pages are asked for by (the Host\n"
        "                       header; repeatable): the listen address, and\n"
        "                       on loopback localhost, are always allowed\n"
        "  --token-file F       the operator token (its first line): user\n"
        "                       \"operator\", who may act\n"
        "  --users-file F       users, one a line: NAME ROLE TOKEN, ROLE\n"
        "                       operator or read-only (see chime-web(1));\n"
        "                       without users the pages are read-only\n"
        "  --help               print this help\n"
        "  --version            print the version of chime-web and libchime\n\n"
        "Exit status: 0 after SIGINT or SIGTERM; 1 cannot listen or the token\n"
        "or users file is unreadable; 2 usage error; 4 cannot connect or "
        "access denied;\n"
        "5 schema missing or of another version.\n",
        out);
}

enum { O_LISTEN = CTL_O_OWN, O_PORT, O_TOKEN, O_ALLOWED_HOST, O_USERS };

typedef struct options {
  const char *url, *pwfile, *listen, *token_file, *users_file;
  long port;
} options;

/* Returns: 0, or an exit code (-1 for --help or --version, printed). */
static int parse_options(int argc, char **argv, web *w, options *o) {
  ctl *c = &w->base;
  static const struct option opts[] = {
      CTL_STORE_OPTIONS,
      {"listen", required_argument, NULL, O_LISTEN},
      {"port", required_argument, NULL, O_PORT},
      {"token-file", required_argument, NULL, O_TOKEN},
      {"users-file", required_argument, NULL, O_USERS},
      {"allowed-host", required_argument, NULL, O_ALLOWED_HOST},
      CTL_HELP_OPTIONS,
      {NULL, 0, NULL, 0}};
  int opt;
  char *end;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (opt) {
    case O_LISTEN:
      o->listen = optarg;
      break;
    case O_PORT:
      o->port = strtol(optarg, &end, 10);
      if (*end || end == optarg || o->port < 0 || o->port > 65535)
        return ctl_usage("--port wants a number 0-65535");
      break;
    case O_TOKEN:
      o->token_file = optarg;
      break;
    case O_USERS:
      o->users_file = optarg;
      break;
    case O_ALLOWED_HOST: {
      int r = web_allow_host(w, optarg);
      if (r)
        return r;
      break;
    }
    default: {
      int r = ctl_option(c, opt, optarg, &o->url, &o->pwfile, usage, argv);
      if (r)
        return r;
    }
    }
  }
  if (optind < argc)
    return ctl_usage("unexpected argument '%s' (see chime-web --help)",
                     argv[optind]);
  return 0;
}

/* Reads the operator token: the file's first line, at least 8 bytes.
 * Returns: 0 or an exit code. */
static int read_token(const char *path, char *buf, size_t len) {
  int r = ctl_read_first_line(path, "token", buf, len);
  if (r)
    return r;
  if (strlen(buf) < 8)
    return ctl_fail(CHIME_EINVAL,
                    "the token in %s is shorter than 8 characters", path);
  return 0;
}

int main(int argc, char **argv) {
  static web w = {.lock = PTHREAD_MUTEX_INITIALIZER}; /* large: static */
  static char token[256];
  ctl_program = "chime-web";
  options o = {.url = getenv("CHIME_URL"), .listen = "127.0.0.1", .port = 8470};
  w.base.sched = getenv("CHIME_SCHEDULER");
  w.base.zone = getenv("TZ");
  w.base.limit = 50;
  int r = parse_options(argc, argv, &w, &o);
  if (r)
    return r < 0 ? CTL_OK : r;
  if (o.token_file && ((r = read_token(o.token_file, token, sizeof token)) ||
                       (r = web_add_user(&w, "operator", WEB_OPERATOR, token))))
    return r;
  if (o.users_file && (r = web_read_users(&w, o.users_file)))
    return r;
  if ((r = ctl_setup(&w.base, o.url, o.pwfile)))
    return r;
  /* Opened once at the start: a wrong URL or schema is said at once. */
  if ((r = ctl_open(&w.base, NULL))) {
    free(w.base.url);
    return r;
  }
  ctl_quiet = true; /* from here on messages go to the pages */
  r = web_serve(&w, o.listen, (unsigned)o.port);
  ctl_close(&w.base);
  free(w.base.url);
  return r;
}
