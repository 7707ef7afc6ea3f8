/*
 * chimectl_options.c: the options every tool on the store takes (--url,
 * --password-file, --scheduler, --tz), their help, and the end of each
 * tool's option switch: --help, --version and an unknown option, said the
 * same way by chimectl, chime-web and chime-alert.
 */
#include "chimectl.h"

#include <getopt.h>
#include <stdio.h>

const char ctl_options_help[] =
    "  --url URL            mysql://USER[:PASS]@HOST[:PORT]/DB[?prefix=...]\n"
    "                       (default: $CHIME_URL)\n"
    "  --password-file F    read the password from F (else "
    "$CHIME_PASSWORD)\n"
    "  --scheduler NAME     the cluster's scheduler name (default: "
    "$CHIME_SCHEDULER or chime)\n"
    "  --tz ZONE            zone for local times (default: $TZ when it "
    "names\n"
    "                       a zone, else UTC)\n";

int ctl_option(ctl *c, int opt, const char *arg, const char **url,
               const char **pwfile, void (*usage)(FILE *out), char **argv) {
  switch (opt) {
  case CTL_O_URL:
    *url = arg;
    return 0;
  case CTL_O_PWFILE:
    *pwfile = arg;
    return 0;
  case CTL_O_SCHED:
    if (!*arg) /* not silently the default "chime" */
      return ctl_usage("--scheduler wants a scheduler name");
    c->sched = arg;
    return 0;
  case CTL_O_TZ:
    c->zone = arg;
    return 0;
  case 'h':
    usage(stdout);
    return -1;
  case 'V':
    printf("%s %s (libchime %s)\n", ctl_program, CHIME_VERSION,
           chime_version());
    return -1;
  default:
    return ctl_usage("unknown or incomplete option '%s' (see %s --help)",
                     argv[optind - 1], ctl_program);
  }
}
