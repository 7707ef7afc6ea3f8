/*
 * chimectl_cancel.c: `chimectl cancel job GROUP.NAME | fire ID`: asks the
 * running fires of a job, or one fire, to stop, through the store's admin
 * interface (the step chime_scheduler_interrupt takes): the node running
 * each fire notices at its next check-in, the job sees
 * chime_ctx_is_cancelled(), and the run is recorded CANCELLED.
 */
#include "chimectl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
  fprintf(stderr, "chimectl: usage: chimectl cancel job GROUP.NAME | fire "
                  "ID\n");
  return CTL_USAGE;
}

/* A positive fire id from text.  Returns: 0 or CTL_USAGE (printed). */
static int parse_fire_id(const char *text, int64_t *ret_id) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v <= 0) {
    fprintf(stderr, "chimectl: fire id %s is not a positive number\n", text);
    return CTL_USAGE;
  }
  *ret_id = (int64_t)v;
  return 0;
}

int ctl_cmd_cancel(ctl *c) {
  if (c->argc != 2)
    return usage();
  bool by_job = strcmp(c->argv[0], "job") == 0;
  if (!by_job && strcmp(c->argv[0], "fire") != 0)
    return usage();
  char group[256], name[256];
  int64_t fire_id = 0;
  int r = by_job ? ctl_split_key(c->argv[1], group, name, sizeof group)
                 : parse_fire_id(c->argv[1], &fire_id);
  if (r)
    return r;
  if ((r = ctl_open(c, NULL)))
    return r;
  if (by_job && (r = chime__mysql_admin_job_exists(c->admin, group, name)) < 0)
    return r == CHIME_ENOTFOUND
               ? ctl_fail(r, "no job %s", c->argv[1])
               : ctl_fail(r, "job %s: %s", c->argv[1], chime_strerror(r));
  size_t n = 0;
  r = chime__mysql_admin_interrupt(c->admin, by_job ? group : NULL,
                                   by_job ? name : NULL, fire_id, &n);
  if (r < 0)
    return ctl_fail(r, "cannot cancel %s %s: %s", c->argv[0], c->argv[1],
                    chime_strerror(r));
  if (!by_job && n == 0)
    return ctl_fail(CHIME_ENOTFOUND, "no fire %s is running", c->argv[1]);
  if (c->json) {
    fputs("{\"ok\": true, \"action\": \"cancelled\", \"what\": ", stdout);
    ctl_json_string(c->argv[0]);
    fputs(", \"target\": ", stdout);
    ctl_json_string(c->argv[1]);
    printf(", \"runs\": %zu}\n", n);
  } else {
    printf("asked %zu running fire(s) of %s %s to stop\n", n, c->argv[0],
           c->argv[1]);
  }
  return 0;
}
