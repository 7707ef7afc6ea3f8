/*
 * store-conformance-time.c: the job store conformance suite, part three:
 * the time features of issue 23 as a store keeps them.  A Unix cron
 * trigger keeps its dialect and zone when stored and read back, and fires
 * at the times chime_cron_next gives.
 */
#include "store-conformance-impl.h"

#include <stdlib.h>

/* 2030-01-01 (a Tuesday) 02:30 in Paris (UTC+1) is 01:30Z. */
static void test_store_unix_cron_round_trip(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_unix_cron_new("tg", "unix", "30 2 * * 1-5", "Europe/Paris",
                                  &t, err, sizeof err),
      0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "unix"), T0 + HOUR + 30 * MINUTE);
  chime_fire *f = sc_fire_next(st, T0 + HOUR + 30 * MINUTE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(f->trigger),
                  T0 + DAY + HOUR + 30 * MINUTE);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  /* Friday 2030-01-04 is followed by Monday 2030-01-07. */
  for (int i = 1; i <= 3; i++) {
    int64_t now = T0 + i * DAY + HOUR + 30 * MINUTE;
    f = sc_fire_next(st, now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(f->scheduled_ms, now);
    CU_ASSERT_EQUAL(sc_complete(st, f), 0);
    chime__fire_free(f);
  }
  CU_ASSERT_EQUAL(sc_next(st, "tg", "unix"), T0 + 6 * DAY + HOUR + 30 * MINUTE);
  sc_close(st);
}

/* A Quartz expression with a CRON_TZ= prefix is Unix; zones must agree. */
static void test_store_unix_cron_zone_rules(void) {
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL(chime_trigger_cron_new("tg", "x",
                                         "CRON_TZ=Asia/Tokyo 0 9 * * *", "UTC",
                                         &t, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(t);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("tg", "x",
                                               "CRON_TZ=Asia/Tokyo 0 9 * * *",
                                               NULL, &t, err, sizeof err),
                        0);
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  /* 09:00 in Tokyo (UTC+9) is 00:00Z: T0 itself, then a day later. */
  CU_ASSERT_EQUAL(sc_next(st, "tg", "x"), T0);
  CU_ASSERT_EQUAL(chime_trigger_unix_cron_new("tg", "y", "0 9 * * * *", NULL,
                                              &t, err, sizeof err),
                  CHIME_EPARSE);
  sc_close(st);
}

CU_TestInfo sc_time_tests[] = {
    {"unix cron: stored, read back, fired", test_store_unix_cron_round_trip},
    {"unix cron: CRON_TZ= prefix and zone", test_store_unix_cron_zone_rules},
    CU_TEST_INFO_NULL,
};
