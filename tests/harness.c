/*
 * harness.c: the shared part of every CUnit runner.
 */
#include "harness.h"

#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int chime_test_main(CU_SuiteInfo *suites) {
  if (CU_initialize_registry() != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
    return 2;
  }
  if (CU_register_suites(suites) != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
    CU_cleanup_registry();
    return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failures = CU_get_number_of_failures();
  unsigned suites_failed = CU_get_number_of_suites_failed();
  unsigned tests_run = CU_get_number_of_tests_run();
  unsigned tests_failed = CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  printf("\n%u passed, %u failed\n", tests_run - tests_failed, tests_failed);
  if (suites_failed > 0)
    fprintf(stderr, "%u suite(s) failed to initialise\n", suites_failed);
  if (tests_run == 0) {
    fprintf(stderr, "no test ran\n");
    return 1;
  }
  return failures == 0 && suites_failed == 0 ? 0 : 1;
}

const char *chime_test_data_path(const char *name) {
  static char path[4096];
  const char *dir = getenv("CHIME_TEST_DATA_DIR");
  snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
  return path;
}

chime_scheduler *chime_test_scheduler_new(chime_config *cfg) {
  chime_scheduler *s = NULL;
  char err[512] = "";
  int r = chime_scheduler_new(cfg, &s, err, sizeof err);
  chime_config_free(cfg);
  if (r != 0)
    fprintf(stderr, "chime_scheduler_new: %s: %s\n", chime_err_name(r), err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  return s;
}

void chime_test_need_dev(void) {
  const char *dev = getenv("CHIME_DEV");
  if (!dev || !*dev) {
    fprintf(stderr, "CHIME_DEV is not set: run through ./dev test, or set "
                    "CHIME_DEV=/path/to/dev\n");
    CU_FAIL_FATAL("CHIME_DEV is not set");
  }
}

int chime_test_dev_run(const char *command) {
  const char *dev = getenv("CHIME_DEV");
  char cmd[4096];
  if (!dev || !*dev ||
      snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", dev, command) >=
          (int)sizeof cmd)
    return -1;
  return system(cmd);
}

static void put32(unsigned char **p, unsigned long v) {
  for (int i = 3; i >= 0; i--)
    *(*p)++ = (unsigned char)(v >> (8 * i));
}

size_t chime_test_tzif_fixed(int secs, unsigned char *buf) {
  unsigned char *p = buf;
  for (int part = 0; part < 2; part++) {
    memcpy(p, "TZif2", 5);
    memset(p + 5, 0, 15);
    p += 20;
    /* isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt */
    put32(&p, 0);
    put32(&p, 0);
    put32(&p, 0);
    put32(&p, 0);
    put32(&p, 1);
    put32(&p, 4);
    put32(&p, (unsigned long)secs);
    *p++ = 0; /* isdst */
    *p++ = 0; /* abbreviation index */
    memcpy(p, "TST", 4);
    p += 4;
  }
  p += (size_t)sprintf((char *)p, "\n<TST>-%d:%02d:%02d\n", secs / 3600,
                       secs / 60 % 60, secs % 60);
  return (size_t)(p - buf);
}

int chime_test_write_zone(const char *path, int secs) {
  unsigned char buf[256];
  size_t len = chime_test_tzif_fixed(secs, buf);
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return -1;
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return -1;
  size_t n = fwrite(buf, 1, len, f);
  if (fclose(f) != 0 || n != len || rename(tmp, path) != 0)
    return -1;
  return 0;
}

int64_t chime_test_wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void chime_test_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* The policy of these parts, timed_out as given. */
static int retry_set(chime_job *job, int max_attempts, int64_t delay_ms,
                     double multiplier, int64_t max_delay_ms, int64_t jitter_ms,
                     bool timed_out) {
  chime_retry *p = NULL;
  int r = chime_retry_new(&p);
  if (r == 0 && ((r = chime_retry_set_max_attempts(p, max_attempts)) < 0 ||
                 (r = chime_retry_set_initial_delay_ms(p, delay_ms)) < 0 ||
                 (r = chime_retry_set_multiplier(p, multiplier)) < 0 ||
                 (r = chime_retry_set_max_delay_ms(p, max_delay_ms)) < 0 ||
                 (r = chime_retry_set_jitter_ms(p, jitter_ms)) < 0 ||
                 (r = chime_retry_set_timed_out(p, timed_out)) < 0))
    r = r < 0 ? r : CHIME_EINVAL;
  if (r == 0)
    r = chime_job_set_retry(job, p);
  chime_retry_free(p);
  return r;
}

int chime_test_set_retry(chime_job *job, int max_attempts, int64_t delay_ms,
                         double multiplier, int64_t max_delay_ms,
                         int64_t jitter_ms) {
  return retry_set(job, max_attempts, delay_ms, multiplier, max_delay_ms,
                   jitter_ms,
                   chime_retry_get_timed_out(chime_job_get_retry(job)));
}

int chime_test_set_retry_timed_out(chime_job *job, bool yes) {
  const chime_retry *p = chime_job_get_retry(job);
  return retry_set(
      job, chime_retry_get_max_attempts(p), chime_retry_get_initial_delay_ms(p),
      chime_retry_get_multiplier(p), chime_retry_get_max_delay_ms(p),
      chime_retry_get_jitter_ms(p), yes);
}
