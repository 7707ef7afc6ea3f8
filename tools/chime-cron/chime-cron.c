/*
 * chime-cron.c: a command-line tool that prints the next fire times of a
 * Quartz cron expression (or, with --unix, a Unix crontab expression) in a
 * time zone, using only the public API.
 *
 *   chime-cron [--unix | --rrule] [--tz ZONE] [--after TIME] [--count N]
 *              [--format iso|ms] [--explain] [--jitter MS --key G.N] EXPR
 *
 * Options may come before or after EXPR (chime-cron --unix '30 2 * * 1-5'
 * --tz America/New_York); EXPR's words may also be given unquoted.
 * TIME is epoch milliseconds or ISO-8601 ("2026-03-08T01:30:00Z", with an
 * offset, or with neither: wall-clock time in ZONE).  Exit status: 0 on
 * success (also when the expression stops firing: stderr says so), 1 for a
 * bad expression or an unknown zone, 2 for bad usage.
 */
#include "chime.h"

#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_COUNT 100000
#define MAX_EXPR (CHIME_CRON_MAX_LEN + 1)

static void usage(FILE *out) {
  fputs(
      "usage: chime-cron [--unix] [--tz ZONE] [--after TIME] [--count N]\n"
      "                  [--format iso|ms] [--explain] "
      "[--jitter MS --key G.N] EXPR\n"
      "Prints the next N (default 10) fire times of the Quartz cron\n"
      "expression EXPR (\"sec min hour day-of-month month day-of-week "
      "[year]\")\nin ZONE (default UTC), after TIME (default now).\n"
      "  --rrule         EXPR is an RFC 5545 recurrence: \"DTSTART;TZID=Zone:\n"
      "                  YYYYMMDDTHHMMSS RRULE:...\" (EXDATE, RDATE too); its\n"
      "                  zone is TZID's (--tz only shows times in another)\n"
      "  --unix          EXPR is Unix cron (\"min hour day-of-month month\n"
      "                  day-of-week\", @daily..., CRON_TZ=Zone prefix)\n"
      "  --tz ZONE       IANA zone (Europe/Berlin), UTC, or an offset "
      "(GMT+8)\n"
      "  --after TIME    epoch milliseconds, or ISO-8601: "
      "2026-03-08T01:30:00Z,\n"
      "                  2026-03-08T01:30:00-05:00, or 2026-03-08T01:30 "
      "(in ZONE)\n"
      "  --count N       how many fire times (1-100000)\n"
      "  --format F      iso (default: ISO-8601 with the zone's offset) "
      "or ms\n"
      "  --explain       print a description of the expression first\n"
      "  --jitter MS     move every time by the trigger's deterministic\n"
      "  --key G.N       jitter offset in [0, MS) for trigger key G.N\n"
      "  --help          print this help\n"
      "  --version       print the version of chime-cron and libchime\n",
      out);
}

/* Prints t_ms as ISO-8601 in zone, with the offset in force then. */
static void print_iso(const chime_zone *zone, int64_t t_ms) {
  char text[CHIME_TIME_TEXT_LEN];
  (void)chime_zone_format_time(chime_zone_get_name(zone), t_ms, CHIME_TIME_ISO,
                               text, sizeof text); /* zone: known */
  puts(text);
}

/* Parses TIME: epoch milliseconds or ISO-8601 with a time of day, with a
 * designator or as the wall-clock time in zone (chime_zone_parse_time: in
 * a repeated hour the earlier instant, in a gap moved forward). */
static bool parse_time(const char *s, const chime_zone *zone, int64_t *ret) {
  char *end;
  if ((s[0] == '-' && s[1] >= '0' && s[1] <= '9') ||
      (s[0] >= '0' && s[0] <= '9' && strchr(s, 'T') == NULL &&
       strchr(s, '-') == NULL)) {
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE) /* out of int64's range: not a time */
      return false;
    *ret = v;
    return *end == '\0';
  }
  if (strlen(s) < 11 || (s[10] != 'T' && s[10] != ' ')) /* a time of day */
    return false;
  return chime_zone_parse_time(chime_zone_get_name(zone), s, ret) == 0;
}

/* Options, as parsed from the command line. */
typedef struct options {
  const char *tz;
  const char *after;
  long count;
  bool ms;
  bool explain;
  bool unix_dialect;
  bool rrule;
  long long jitter_ms;
  const char *key;
  char expr[MAX_EXPR];
} options;

/* Joins the remaining arguments into one expression (quoting optional). */
static bool join_expr(options *o, int argc, char **argv, int first) {
  size_t len = 0;
  o->expr[0] = '\0';
  for (int i = first; i < argc; i++) {
    size_t n = strlen(argv[i]);
    if (len + n + 2 > sizeof o->expr)
      return false;
    if (len > 0)
      o->expr[len++] = ' ';
    memcpy(o->expr + len, argv[i], n + 1);
    len += n;
  }
  return true;
}

/* Parses the command line; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options *o) {
  static const struct option longopts[] = {
      {"tz", required_argument, NULL, 't'},
      {"after", required_argument, NULL, 'a'},
      {"count", required_argument, NULL, 'n'},
      {"format", required_argument, NULL, 'f'},
      {"explain", no_argument, NULL, 'e'},
      {"unix", no_argument, NULL, 'u'},
      {"rrule", no_argument, NULL, 'r'},
      {"jitter", required_argument, NULL, 'j'},
      {"key", required_argument, NULL, 'k'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  int c;
  char *end;
  while ((c = getopt_long(argc, argv, "t:a:n:f:ehurj:k:V", longopts, NULL)) !=
         -1) {
    switch (c) {
    case 't':
      o->tz = optarg;
      break;
    case 'a':
      o->after = optarg;
      break;
    case 'e':
      o->explain = true;
      break;
    case 'u':
      o->unix_dialect = true;
      break;
    case 'r':
      o->rrule = true;
      break;
    case 'j':
      o->jitter_ms = strtoll(optarg, &end, 10);
      if (*end != '\0' || o->jitter_ms < 0 ||
          o->jitter_ms > CHIME_JITTER_MAX_MS) {
        fprintf(stderr, "chime-cron: --jitter must be 0-%lld ms\n",
                (long long)CHIME_JITTER_MAX_MS);
        return 2;
      }
      break;
    case 'k':
      o->key = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    case 'V':
      printf("chime-cron %s (libchime %s)\n", CHIME_VERSION, chime_version());
      return 0;
    case 'n':
      o->count = strtol(optarg, &end, 10);
      if (*end != '\0' || o->count < 1 || o->count > MAX_COUNT) {
        fprintf(stderr, "chime-cron: --count must be 1-%d\n", MAX_COUNT);
        return 2;
      }
      break;
    case 'f':
      if (strcmp(optarg, "iso") != 0 && strcmp(optarg, "ms") != 0) {
        fprintf(stderr, "chime-cron: --format must be iso or ms\n");
        return 2;
      }
      o->ms = strcmp(optarg, "ms") == 0;
      break;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (o->rrule && o->unix_dialect) {
    fprintf(stderr, "chime-cron: --rrule and --unix exclude each other\n");
    return 2;
  }
  if ((o->jitter_ms > 0) != (o->key != NULL) ||
      (o->key != NULL && strchr(o->key, '.') == NULL)) {
    fprintf(stderr, "chime-cron: --jitter and --key GROUP.NAME go together\n");
    return 2;
  }
  if (optind >= argc) {
    fprintf(stderr, "chime-cron: an expression is required\n");
    usage(stderr);
    return 2;
  }
  if (!join_expr(o, argc, argv, optind)) {
    fprintf(stderr, "chime-cron: the expression is longer than %d bytes\n",
            CHIME_CRON_MAX_LEN);
    return 1;
  }
  return -1;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The jitter offset of --key GROUP.NAME (split at its first dot), as a
 * trigger with that key and window moves its fires.
 */
static int64_t jitter_offset(const options *o) {
  if (o->key == NULL)
    return 0;
  const char *dot = strchr(o->key, '.');
  char group[CHIME_MAX_NAME_LEN + 1];
  size_t n = (size_t)(dot - o->key);
  if (n > CHIME_MAX_NAME_LEN)
    n = CHIME_MAX_NAME_LEN;
  memcpy(group, o->key, n);
  group[n] = '\0';
  return chime_key_get_jitter_offset_ms(group, dot + 1, o->jitter_ms);
}

/* Prints the fire times; returns the exit status. */
static int print_fires(const chime_cron *cron, const chime_zone *zone,
                       const options *o, int64_t after) {
  int64_t d = jitter_offset(o), t = after - d;
  for (long i = 0; i < o->count; i++) {
    int64_t next;
    int r = chime_cron_next(cron, zone, t, &next);
    if (r == CHIME_ENEVERFIRES) {
      fprintf(stderr, "chime-cron: the expression %s after this\n",
              i == 0 ? "never fires" : "fires no more");
      return 0;
    }
    if (r != 0) {
      fprintf(stderr, "chime-cron: %s\n", chime_strerror(r));
      return 1;
    }
    if (o->ms)
      printf("%" PRId64 "\n", next + d);
    else
      print_iso(zone, next + d);
    t = next;
  }
  return 0;
}

/* Prints the instances of a recurrence (--rrule); returns the status. */
static int print_rrule(const options *o) {
  chime_rrule *rule;
  char err[256];
  int r = chime_rrule_from_string(o->expr, &rule, err, sizeof err);
  if (r != 0) {
    fprintf(stderr, "chime-cron: %s\n", err[0] ? err : chime_strerror(r));
    return 1;
  }
  const chime_zone *zone = chime_rrule_get_zone(rule);
  if (o->tz != NULL && (r = chime_zone_get(o->tz, &zone)) != 0) {
    fprintf(stderr, "chime-cron: time zone '%s': %s\n", o->tz,
            chime_strerror(r));
    chime_rrule_free(rule);
    return 1;
  }
  int64_t after = now_ms();
  if (o->after != NULL && !parse_time(o->after, zone, &after)) {
    fprintf(stderr,
            "chime-cron: --after '%s' is neither epoch milliseconds "
            "nor ISO-8601\n",
            o->after);
    chime_rrule_free(rule);
    return 2;
  }
  int64_t d = jitter_offset(o), t = after - d;
  for (long i = 0; i < o->count; i++) {
    int64_t next;
    if (chime_rrule_next(rule, t, &next) != 0) {
      fprintf(stderr, "chime-cron: the recurrence %s after this\n",
              i == 0 ? "never fires" : "fires no more");
      break;
    }
    if (o->ms)
      printf("%" PRId64 "\n", next + d);
    else
      print_iso(zone, next + d);
    t = next;
  }
  chime_rrule_free(rule);
  return 0;
}

/* Compiles the expression in the dialect asked for; prints errors. */
static int compile_expr(const options *o, chime_cron **ret_cron) {
  char err[256];
  int col = 0;
  int r =
      o->unix_dialect
          ? chime_cron_from_unix(o->expr, ret_cron, &col, err, sizeof err)
          : chime_cron_from_string(o->expr, ret_cron, &col, err, sizeof err);
  if (r != 0) {
    fprintf(stderr, "chime-cron: %s\n  %s\n  %*s^\n",
            err[0] != '\0' ? err : chime_strerror(r), o->expr,
            col > 0 ? col - 1 : 0, "");
    return 1;
  }
  return 0;
}

/*
 * The zone: --tz, else a Unix expression's CRON_TZ=, else UTC; --tz and
 * CRON_TZ= must agree.  Returns an exit status, or -1 to go on.
 */
static int pick_zone(const options *o, const chime_cron *cron,
                     const chime_zone **ret_zone) {
  const char *prefix = chime_cron_get_zone_name(cron);
  const char *name = o->tz != NULL ? o->tz : prefix != NULL ? prefix : "UTC";
  if (o->tz != NULL && prefix != NULL && strcmp(o->tz, prefix) != 0) {
    fprintf(stderr, "chime-cron: --tz %s disagrees with CRON_TZ=%s\n", o->tz,
            prefix);
    return 1;
  }
  int r = chime_zone_get(name, ret_zone);
  if (r != 0) {
    fprintf(stderr, "chime-cron: time zone '%s': %s\n", name,
            chime_strerror(r));
    return 1;
  }
  return -1;
}

int main(int argc, char **argv) {
  options o = {.count = 10};
  int status = parse_args(argc, argv, &o);
  if (status >= 0)
    return status;
  if (o.rrule)
    return print_rrule(&o);
  chime_cron *cron;
  if (compile_expr(&o, &cron) != 0)
    return 1;
  const chime_zone *zone;
  if ((status = pick_zone(&o, cron, &zone)) >= 0) {
    chime_cron_free(cron);
    return status;
  }
  int64_t after = now_ms();
  if (o.after != NULL && !parse_time(o.after, zone, &after)) {
    fprintf(stderr,
            "chime-cron: --after '%s' is neither epoch milliseconds "
            "nor ISO-8601 (2026-03-08T01:30:00Z)\n",
            o.after);
    chime_cron_free(cron);
    return 2;
  }
  if (o.explain) {
    char *text;
    if (chime_cron_describe(cron, &text) == 0) {
      printf("%s\n", text);
      chime_free(text);
    }
  }
  status = print_fires(cron, zone, &o, after);
  chime_cron_free(cron);
  return status;
}
