/*
 * shard-node.c: one node of the sharded-batch cluster test and bench
 * (shard-cluster.py, bench/shards.py; docs/batch.md).
 *
 *   shard-node URL ID LOG [--workers N] [--steps N] [--checkpoint-every K]
 *              [--schedule START_MS SHARDS]
 *
 * Registers the job type "batch-work": a shard does N steps of 20 ms
 * (sleeping: the work waits, as a batch waiting on a database does),
 * writes a checkpoint (the steps done) after every K (default 1), and
 * resumes after the
 * last checkpoint when it is a recovered run.  With --schedule it also
 * adds the job batch.work, sharded SHARDS ways, and a one-shot trigger
 * at START_MS (a replaced earlier one is dropped), and the job batch.gpu
 * requiring the tag "gpu", which no node has (its trigger waits: chimectl
 * explain says why).  Every line of LOG is
 * written with one write(2), so a killed node leaves whole lines:
 *   S index fire_id shard_fire_id start_ms resumed_from recovering
 *   C index fire_id steps_done        (a checkpoint written)
 *   E index fire_id end_ms outcome    (the job returned: OK or an error)
 * Runs until SIGTERM or SIGINT, then shuts down waiting for its jobs.
 */
#include "test-node.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STEP_MS 20

typedef struct node {
  int fd;
  int steps;
  int every; /* a checkpoint after every this many steps */
} node;

static void work(chime_ctx *ctx, void *user_data) {
  node *n = user_data;
  int index = 0, total = 1;
  chime_ctx_get_shard(ctx, &index, &total);
  int64_t fire = chime_ctx_get_fire_id(ctx);
  const void *cp = NULL;
  size_t len = 0;
  int done = 0;
  if (chime_ctx_checkpoint_get(ctx, &cp, &len) == 1 && len > 0 && len < 16) {
    char text[16];
    memcpy(text, cp, len);
    text[len] = '\0';
    done = atoi(text);
  }
  test_node_line(n->fd, "S %d %" PRId64 " %" PRId64 " %" PRId64 " %d %d\n",
                 index, fire, chime_ctx_get_shard_fire_id(ctx),
                 test_node_real_ms(), done,
                 chime_ctx_is_recovering(ctx) ? 1 : 0);
  int r = 0;
  for (; done < n->steps; done++) {
    nanosleep(&(struct timespec){.tv_nsec = STEP_MS * 1000000L}, NULL);
    if ((done + 1) % n->every != 0)
      continue;
    char text[16];
    int k = snprintf(text, sizeof text, "%d", done + 1);
    if ((r = chime_ctx_checkpoint(ctx, text, (size_t)k)) < 0)
      break;
    test_node_line(n->fd, "C %d %" PRId64 " %d\n", index, fire, done + 1);
  }
  if (r < 0)
    chime_ctx_fail(ctx, chime_err_name(r));
  test_node_line(n->fd, "E %d %" PRId64 " %" PRId64 " %s\n", index, fire,
                 test_node_real_ms(), r < 0 ? chime_err_name(r) : "OK");
}

/* (Re)schedules job batch.NAME with one one-shot trigger batch.TRIGGER at
 * start: sharded in shards when shards is not 0, needing node tag when
 * set. */
static int schedule_one(chime_scheduler *s, const char *name,
                        const char *trigger, int64_t start, int shards,
                        const char *tag) {
  char err[256] = "";
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  int r = chime_job_new("batch", name, "batch-work", &job, err, sizeof err);
  if (r == 0 && shards != 0)
    r = chime_job_set_shards(job, shards, NULL);
  if (r == 0 && tag)
    r = chime_job_add_required_tag(job, tag);
  if (r == 0)
    r = chime_trigger_simple_new("batch", trigger, 0, 0, &t, err, sizeof err);
  if (r == 0)
    r = chime_trigger_set_job(t, "batch", name);
  if (r == 0)
    r = chime_trigger_set_start_ms(t, start);
  if (r == 0)
    r = chime_scheduler_remove_job(s, "batch", name);
  if (r == CHIME_ENOTFOUND)
    r = 0;
  if (r == 0)
    r = chime_scheduler_schedule(s, job, t, 0, NULL);
  if (r < 0)
    fprintf(stderr, "shard-node: schedule %s: %s %s\n", name, chime_err_name(r),
            err);
  chime_job_free(job);
  chime_trigger_free(t);
  return r;
}

static int schedule(chime_scheduler *s, int64_t start, int shards) {
  int r = schedule_one(s, "work", "once", start, shards, NULL);
  return r < 0 ? r : schedule_one(s, "gpu", "gpu", start, 0, "gpu");
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: shard-node URL ID LOG [--workers N] [--steps N] "
                    "[--checkpoint-every K] [--schedule START_MS SHARDS]\n");
    return 1;
  }
  node n = {.steps = 10, .every = 1};
  unsigned workers = 4;
  int64_t start = 0;
  int shards = 0;
  for (int i = 4; i < argc; i++) {
    if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
      workers = (unsigned)strtoul(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      n.steps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--checkpoint-every") == 0 && i + 1 < argc) {
      n.every = atoi(argv[++i]);
      n.every = n.every < 1 ? 1 : n.every;
    } else if (strcmp(argv[i], "--schedule") == 0 && i + 2 < argc) {
      start = strtoll(argv[++i], NULL, 10);
      shards = atoi(argv[++i]);
    } else {
      fprintf(stderr, "shard-node: unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  sigset_t stop;
  if ((n.fd = test_node_begin("shard-node", argv[3], &stop)) < 0)
    return 1;
  /* Nodes notice the shards another node split within 100 ms. */
  chime_scheduler *s =
      test_node_scheduler("shard-node", argv[1], "shards", argv[2], workers);
  if (!s)
    return 1;
  int r = chime_scheduler_register_job_type(s, "batch-work", work, &n, NULL);
  if (r == 0 && shards > 0)
    r = schedule(s, start, shards);
  if (r == 0)
    r = chime_scheduler_start(s);
  if (r < 0) {
    fprintf(stderr, "shard-node %s: %s (%s)\n", argv[2],
            chime_scheduler_errmsg(s), chime_err_name(r));
    chime_scheduler_free(s);
    return 1;
  }
  printf("ready %s\n", argv[2]);
  fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  chime_scheduler_shutdown(s, CHIME_SHUTDOWN_WAIT_FOREVER);
  chime_scheduler_free(s);
  close(n.fd);
  return 0;
}
