/*
 * test-zones.c: zone rules that change while schedulers run (a tzdata
 * update; engine/zones.c, triggers/tz_load.c).  The zone cache reads a
 * temporary zoneinfo folder (chime__zone_set_dir) holding "Test/Zone",
 * written here as a TZif file of one fixed offset.  A cron trigger fires
 * every day at 09:00 in that zone; moving the zone's offset by an hour
 * must move its next fire by an hour, both when a running scheduler
 * notices the replaced file at a check-in and on
 * chime_scheduler_reload_zones (for a file rewritten in place with its
 * old modification time, which no stat can see).
 *
 * Built twice: on the memory store (suite engine/zones), and with
 * CHIME_TEST_MYSQL as a two-node cluster on the throwaway MariaDB (suite
 * engine/zones-mysql, table prefix chime_ez_): both nodes see the moved
 * next fire, read through each node's own API from the store.
 */
#include "chime.h"
#include "harness.h"
#include "triggers/tz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ZONE "Test/Zone"
#define DAY_MS INT64_C(86400000)
#define HOUR_MS INT64_C(3600000)
#define WAIT_MS 30000

static char dir[256];

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes zone file name (offset secs) as a package does (a new inode). */
static void zone_replace_named(const char *name, int secs) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CU_ASSERT_EQUAL_FATAL(chime_test_write_zone(path, secs), 0);
}

static void zone_replace(int hours) {
  zone_replace_named(ZONE, hours * 3600);
}

/* Rewrites the zone file in place, same size, then sets its modification
 * time back: only a forced re-read can notice. */
static void zone_rewrite_unseen(int hours) {
  uint8_t buf[256];
  size_t len = chime_test_tzif_fixed(hours * 3600, buf);
  char path[512];
  snprintf(path, sizeof path, "%s/" ZONE, dir);
  struct stat before;
  CU_ASSERT_EQUAL_FATAL(stat(path, &before), 0);
  CU_ASSERT_EQUAL_FATAL((size_t)before.st_size, len);
  int fd = open(path, O_WRONLY);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_EQUAL(write(fd, buf, len), (ssize_t)len);
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  CU_ASSERT_EQUAL(futimens(fd, times), 0);
  CU_ASSERT_EQUAL(close(fd), 0);
}

static int suite_init(void) {
  snprintf(dir, sizeof dir, "/tmp/chime-zones-XXXXXX");
  if (!mkdtemp(dir))
    return 1;
  char sub[300];
  snprintf(sub, sizeof sub, "%s/Test", dir);
  if (mkdir(sub, 0700) != 0)
    return 1;
  return chime__zone_set_dir(dir) != 0;
}

static int suite_clean(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/" ZONE, dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/Test", dir);
  rmdir(path);
  rmdir(dir);
  chime__zone_set_dir(NULL);
  return 0;
}

static void log_stderr(void *user_data, chime_log_level level,
                       const char *message) {
  (void)level;
  fprintf(stderr, "[%s] %s\n", (const char *)user_data, message);
}

static void noop(chime_ctx *ctx, void *user_data) {
  (void)ctx;
  (void)user_data;
}

/* The trigger's next fire as scheduler s reads it from its store. */
static int64_t next_fire(chime_scheduler *s, const char *name) {
  chime_trigger *t = NULL;
  if (chime_scheduler_get_trigger(s, "zones", name, &t) != 0)
    return INT64_MIN;
  int64_t next = chime_trigger_get_next_fire_ms(t);
  chime_trigger_free(t);
  return next;
}

/* The UTC time of day of a next fire, in hours (-1: none). */
static int64_t utc_hour(int64_t ms) {
  return ms == INT64_MIN ? -1 : (ms % DAY_MS) / HOUR_MS;
}

/* Waits (wide margin) until every scheduler reads next fire at UTC hour
 * want; returns whether they all did. */
static bool wait_hour(chime_scheduler **ss, int n, const char *name,
                      int64_t want) {
  for (int64_t end = mono_ms() + WAIT_MS;;) {
    bool all = true;
    for (int i = 0; i < n; i++)
      all = all && utc_hour(next_fire(ss[i], name)) == want;
    if (all)
      return true;
    if (mono_ms() > end)
      return false;
    chime_test_sleep_ms(50);
  }
}

static void schedule_daily(chime_scheduler *s, const char *name) {
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("zones", name, "noop", &job, err, 256),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("zones", name, "0 0 9 * * ?",
                                               ZONE, &t, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "zones", name), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(s, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
}

static void test_zone_cache_reload(void) {
  zone_replace(1);
  const chime_zone *old = NULL, *fresh = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get(ZONE, &old), 0);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(old, 0), 3600);
  uint64_t fp1, fp2;
  CU_ASSERT_EQUAL(chime__zone_fingerprint(ZONE, &fp1), 0);
  /* Nothing changed: nothing reloads, even forced. */
  size_t changed = 9, failed = 9;
  CU_ASSERT_EQUAL(chime__zone_check(true, &changed, &failed), 0);
  CU_ASSERT_EQUAL(changed, 0);
  CU_ASSERT_EQUAL(failed, 0);
  char **names;
  size_t n;
  uint64_t gen0, gen1;
  CU_ASSERT_EQUAL_FATAL(chime__zone_changed_since(0, &names, &n, &gen0), 0);
  chime__zone_names_free(names, n);
  /* A replaced file is noticed by stat alone; the old object survives. */
  zone_replace(5);
  CU_ASSERT_EQUAL(chime__zone_check(false, &changed, NULL), 0);
  CU_ASSERT_EQUAL(changed, 1);
  CU_ASSERT_EQUAL_FATAL(chime_zone_get(ZONE, &fresh), 0);
  CU_ASSERT_PTR_NOT_EQUAL(fresh, old);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(fresh, 0), 5 * 3600);
  CU_ASSERT_EQUAL(chime_zone_get_offset_at(old, 0), 3600);
  CU_ASSERT_EQUAL(chime__zone_fingerprint(ZONE, &fp2), 0);
  CU_ASSERT_NOT_EQUAL(fp1, fp2);
  CU_ASSERT_EQUAL_FATAL(chime__zone_changed_since(gen0, &names, &n, &gen1), 0);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_STRING_EQUAL(names[0], ZONE);
  CU_ASSERT(gen1 > gen0);
  chime__zone_names_free(names, n);
  /* A vanished file keeps the rules read before. */
  char path[300];
  snprintf(path, sizeof path, "%s/" ZONE, dir);
  CU_ASSERT_EQUAL(unlink(path), 0);
  CU_ASSERT_EQUAL(chime__zone_check(true, &changed, &failed), 0);
  CU_ASSERT_EQUAL(changed, 0);
  CU_ASSERT_EQUAL(failed, 1);
  CU_ASSERT_EQUAL_FATAL(chime_zone_get(ZONE, &old), 0);
  CU_ASSERT_PTR_EQUAL(old, fresh);
  /* Back to +01:00 for the tests below. */
  zone_replace(1);
  CU_ASSERT_EQUAL(chime__zone_check(false, &changed, NULL), 0);
  CU_ASSERT_EQUAL(changed, 1);
}

#ifdef CHIME_TEST_MYSQL
#define NODES 2
static chime_scheduler *make(int i) {
  chime_config *cfg = chime_test_mysql_config(
      i == 0 ? "prefix=chime_ez_&auto_create=1&clear=1" : "prefix=chime_ez_",
      i == 0 ? "zones-a" : "zones-b");
#else
#define NODES 1
static chime_scheduler *make(int i) {
  (void)i;
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
#endif
  CU_ASSERT_EQUAL(chime_config_set_checkin_interval_ms(cfg, 300), 0);
  CU_ASSERT_EQUAL(chime_config_set_idle_wait_ms(cfg, 200), 0);
  if (getenv("CHIME_TEST_VERBOSE"))
    chime_config_set_log(cfg, log_stderr, i == 0 ? "a" : "b", CHIME_LOG_INFO);
  chime_scheduler *s = chime_test_scheduler_new(cfg);
  CU_ASSERT_EQUAL_FATAL(
      chime_scheduler_register_job_type(s, "noop", noop, NULL, NULL), 0);
  return s;
}

/* Every node sees a daily 09:00 trigger in Test/Zone move when the zone's
 * offset changes: at 08:00 UTC under +01:00, 07:00 under +02:00 (the file
 * replaced: the check-ins notice), 06:00 under +03:00 (rewritten unseen:
 * chime_scheduler_reload_zones on the last node). */
static void test_zone_change_moves_next_fire(void) {
  zone_replace(1);
  CU_ASSERT_EQUAL(chime__zone_check(false, NULL, NULL), 0);
  chime_scheduler *ss[NODES];
  for (int i = 0; i < NODES; i++)
    ss[i] = make(i);
  schedule_daily(ss[0], "daily");
  CU_ASSERT(wait_hour(ss, NODES, "daily", 8));
  /* Nothing changed: nothing to do. */
  CU_ASSERT_EQUAL(chime_scheduler_reload_zones(ss[0]), 0);
  for (int i = 0; i < NODES; i++)
    CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(ss[i]), 0);

  zone_replace(2);
  CU_ASSERT(wait_hour(ss, NODES, "daily", 7));

  zone_rewrite_unseen(3);
  chime_test_sleep_ms(0);
  CU_ASSERT_EQUAL(chime_scheduler_reload_zones(ss[NODES - 1]), 1);
  for (int i = 0; i < NODES; i++)
    CU_ASSERT_EQUAL(utc_hour(next_fire(ss[i], "daily")), 6);
  /* The next fire is the one of today or tomorrow, never further. */
  int64_t next = next_fire(ss[0], "daily");
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int64_t now_ms = (int64_t)now.tv_sec * 1000;
  CU_ASSERT(next > now_ms - DAY_MS && next <= now_ms + DAY_MS + HOUR_MS);
  /* Every other node had nothing left to do. */
  for (int i = 0; i + 1 < NODES; i++)
    CU_ASSERT(chime_scheduler_reload_zones(ss[i]) >= 0);
  for (int i = 0; i < NODES; i++)
    CU_ASSERT_EQUAL(utc_hour(next_fire(ss[i], "daily")), 6);

  for (int i = NODES - 1; i >= 0; i--)
    chime_scheduler_free(ss[i]);
  zone_replace(1);
  CU_ASSERT_EQUAL(chime__zone_check(false, NULL, NULL), 0);
}

#ifdef CHIME_TEST_MYSQL
/*
 * Two nodes in two processes, each with its own zone cache: this one and
 * a copy of this program started with --node (node_main).  A cron trigger
 * fires every 2 local seconds in "Test/Seconds", whose offset moves from 0
 * to +1 s: its fires move from even to odd UTC seconds.  Only the other
 * node runs the job, so it computes each next fire with the rules its own
 * cache read before the change, and appends the scheduled time of every
 * run to a file; this node sees the change too and recomputes the stored
 * next fire once.  Once each node had a check-in to notice the new file,
 * every fire is at an odd second: had the other node kept the old rules,
 * the fire after each of its runs would be at an even one.
 */
#define SEC_ZONE "Test/Seconds"
#define PARAMS2 "prefix=chime_ez2_"

static void file_in_dir(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", dir, name);
}

static void rec(chime_ctx *ctx, void *user_data) {
  (void)user_data;
  char path[300], line[32];
  file_in_dir(path, sizeof path, "fires.txt");
  int n = snprintf(line, sizeof line, "%lld\n",
                   (long long)chime_ctx_get_scheduled_ms(ctx));
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
  if (fd >= 0) {
    if (write(fd, line, (size_t)n) != n)
      fprintf(stderr, "fires.txt: short write\n");
    close(fd);
  }
}

/* The scheduled times in fires.txt (at most max). */
static int read_fires(int64_t *out, int max) {
  char path[300];
  file_in_dir(path, sizeof path, "fires.txt");
  FILE *f = fopen(path, "r");
  int n = 0;
  long long v;
  while (f && n < max && fscanf(f, "%lld", &v) == 1)
    out[n++] = v;
  if (f)
    fclose(f);
  return n;
}

/* A node; only the one of id "zones-b" runs the job. */
static chime_scheduler *node_new(const char *url, const char *id) {
  chime_config *cfg = NULL;
  chime_scheduler *s = NULL;
  if (chime_config_new(&cfg) != 0)
    return NULL;
  chime_config_set_store_url(cfg, url);
  chime_config_set_instance_id(cfg, id);
  chime_config_set_checkin_interval_ms(cfg, 300);
  chime_config_set_idle_wait_ms(cfg, 200);
  if (getenv("CHIME_TEST_VERBOSE"))
    chime_config_set_log(cfg, log_stderr, (void *)id, CHIME_LOG_INFO);
  char err[256];
  int r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r != 0) {
    fprintf(stderr, "%s: %s\n", id, err);
    return NULL;
  }
  if (strcmp(id, "zones-b") == 0)
    chime_scheduler_register_job_type(s, "rec", rec, NULL, NULL);
  return s;
}

/* The other node's process: runs until the file "stop" appears. */
static int node_main(const char *d) {
  snprintf(dir, sizeof dir, "%s", d);
  const char *base = getenv("CHIME_TEST_MYSQL_URL");
  char url[2048], stop[300];
  if (!base || chime__zone_set_dir(dir) != 0)
    return 2;
  snprintf(url, sizeof url, "%s%s" PARAMS2, base,
           strchr(base, '?') ? "&" : "?");
  chime_scheduler *s = node_new(url, "zones-b");
  if (!s || chime_scheduler_start(s) != 0)
    return 3;
  file_in_dir(stop, sizeof stop, "stop");
  for (int64_t end = mono_ms() + 120000;
       access(stop, F_OK) != 0 && mono_ms() < end;)
    chime_test_sleep_ms(50);
  chime_scheduler_free(s);
  mysql_library_end();
  return 0;
}

static void test_zone_change_agreed_across_processes(void) {
  zone_replace_named(SEC_ZONE, 0);
  char url[2048];
  CU_ASSERT_EQUAL_FATAL(chime_test_mysql_url_with(
                            url, sizeof url, PARAMS2 "&auto_create=1&clear=1"),
                        0);
  chime_scheduler *a = node_new(url, "zones-a");
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  chime_job *job = NULL;
  chime_trigger *t = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(chime_job_new("zones", "sec", "rec", &job, err, 256),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("zones", "sec", "0/2 * * * * ?",
                                               SEC_ZONE, &t, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "zones", "sec"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_schedule(a, job, t, 0, NULL), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL_FATAL(chime_scheduler_start(a), 0);

  char self[512];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  CU_ASSERT_FATAL(len > 0);
  self[len] = '\0';
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    execl(self, self, "--node", dir, (char *)NULL);
    _exit(127);
  }

  enum { MAX = 256 };
  static int64_t fires[MAX];
  int n = 0;
  /* The old rules: even seconds. */
  for (int64_t end = mono_ms() + WAIT_MS; mono_ms() < end;) {
    if ((n = read_fires(fires, MAX)) >= 3)
      break;
    chime_test_sleep_ms(100);
  }
  CU_ASSERT(n >= 3);
  for (int i = 0; i < n; i++)
    CU_ASSERT_EQUAL(fires[i] / 1000 % 2, 0);

  zone_replace_named(SEC_ZONE, 1);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  /* Each node checks in every 300 ms: 2 s are wide. */
  int64_t settled = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + 2000;
  int after = 0;
  for (int64_t end = mono_ms() + WAIT_MS; mono_ms() < end && after < 4;) {
    chime_test_sleep_ms(100);
    n = read_fires(fires, MAX);
    after = 0;
    for (int i = 0; i < n; i++)
      after += fires[i] > settled;
  }
  CU_ASSERT(after >= 4);
  int even = 0;
  for (int i = 0; i < n; i++)
    if (fires[i] > settled && fires[i] / 1000 % 2 == 0) {
      fprintf(stderr, "fire at %lld: an even second\n", (long long)fires[i]);
      even++;
    }
  CU_ASSERT_EQUAL(even, 0);
  CU_ASSERT_EQUAL(next_fire(a, "sec") / 1000 % 2, 1);

  char stop[300];
  file_in_dir(stop, sizeof stop, "stop");
  FILE *f = fopen(stop, "w");
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f)
    fclose(f);
  int status = -1;
  for (int64_t end = mono_ms() + WAIT_MS; mono_ms() < end;) {
    if (waitpid(pid, &status, WNOHANG) == pid)
      break;
    chime_test_sleep_ms(50);
  }
  if (!WIFEXITED(status)) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  chime_scheduler_free(a);
  unlink(stop);
  file_in_dir(stop, sizeof stop, "fires.txt");
  unlink(stop);
  file_in_dir(stop, sizeof stop, SEC_ZONE);
  unlink(stop);
}
#endif

static CU_TestInfo tests[] = {
    {"the zone cache reloads a changed file and keeps the old zone",
     test_zone_cache_reload},
    {"a zone's new rules move its triggers' next fire on every node",
     test_zone_change_moves_next_fire},
#ifdef CHIME_TEST_MYSQL
    {"nodes in two processes agree on a zone's new rules",
     test_zone_change_agreed_across_processes},
#endif
    CU_TEST_INFO_NULL,
};

int main(int argc, char **argv) {
#ifdef CHIME_TEST_MYSQL
  if (argc == 3 && strcmp(argv[1], "--node") == 0)
    return node_main(argv[2]);
#endif
  (void)argc;
  (void)argv;
  CU_SuiteInfo suites[] = {
#ifdef CHIME_TEST_MYSQL
    {.pName = "engine/zones-mysql",
#else
    {.pName = "engine/zones",
#endif
     .pInitFunc = suite_init,
     .pCleanupFunc = suite_clean,
     .pTests = tests},
    CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
#ifdef CHIME_TEST_MYSQL
  mysql_library_end();
#endif
  return r;
}
