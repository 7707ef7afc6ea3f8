/*
 * chimectl_cancel.c: `chimectl cancel job GROUP.NAME | fire ID`, and
 * chime-web's cancel button (ctl_cancel_fire): asks the running fires of a
 * job, or one fire, to stop, through chime-admin.h's chime_admin_cancel
 * (the store's step chime_scheduler_interrupt takes): the node running each
 * fire notices at its next check-in, the job sees chime_ctx_is_cancelled(), and
 * the run is recorded CANCELLED when it returns.  Both tools cancel the same
 * way.
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

/* A positive fire id from text.  Returns: 0 or CTL_USAGE (in
 * ctl_last_error). */
static int parse_fire_id(const char *text, int64_t *ret_id) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text ? text : "", &end, 10);
  if (!text || errno || end == text || *end || v <= 0)
    return ctl_usage("fire id %s is not a positive number", text ? text : "");
  *ret_id = (int64_t)v;
  return 0;
}

int ctl_cancel_fire(ctl *c, const char *fire_id) {
  int64_t id = 0;
  size_t n = 0;
  chime_admin *a = NULL;
  int r = parse_fire_id(fire_id, &id);
  if (r == 0)
    r = ctl_admin(c, &a);
  if (r)
    return r;
  r = chime_admin_cancel(a, NULL, NULL, id, &n);
  if (r < 0)
    return ctl_fail(r, "cannot cancel fire %s: %s", fire_id, chime_strerror(r));
  if (n == 0)
    return ctl_fail(CHIME_ENOTFOUND, "no fire %s is running", fire_id);
  char target[64];
  snprintf(target, sizeof target, "fire %lld", (long long)id);
  ctl_audit(c, "cancel", target, NULL);
  return 0;
}

/* Interrupts the running fires of job key; *ret_count how many. */
static int cancel_job(ctl *c, const char *key, size_t *ret_count) {
  char group[256], name[256];
  chime_admin *a = NULL;
  int r = ctl_split_key(key, group, name, sizeof group);
  if (r == 0)
    r = ctl_admin(c, &a);
  if (r)
    return r;
  r = chime_admin_cancel(a, group, name, 0, ret_count);
  if (r == CHIME_ENOTFOUND)
    return ctl_fail(r, "no job %s", key);
  if (r < 0)
    return ctl_fail(r, "cannot cancel job %s: %s", key, chime_strerror(r));
  char target[600], details[64];
  snprintf(target, sizeof target, "job %s", key);
  snprintf(details, sizeof details, "%zu running fire(s) asked", *ret_count);
  ctl_audit(c, "cancel", target, details);
  return 0;
}

int ctl_cmd_cancel(ctl *c) {
  if (c->argc != 2)
    return usage();
  bool by_job = strcmp(c->argv[0], "job") == 0;
  if (!by_job && strcmp(c->argv[0], "fire") != 0)
    return usage();
  size_t n = 1; /* a fire: one asked */
  int r =
      by_job ? cancel_job(c, c->argv[1], &n) : ctl_cancel_fire(c, c->argv[1]);
  if (r)
    return r;
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
