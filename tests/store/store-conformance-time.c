/*
 * store-conformance-time.c: the job store conformance suite, part three:
 * the time features of issue 23 as a store keeps them.  A Unix cron
 * trigger keeps its dialect and zone when stored and read back, and fires
 * at the times chime_cron_next gives.  A jittered trigger keeps its window
 * and fires at its schedule's times moved by its key's offset.
 */
#include "store-conformance-impl.h"

#include "harness.h"
#include "triggers/calendar.h"
#include "triggers/tz.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A daily 02:00 cron moved by the key's offset in [0, 10 min). */
static void test_store_jitter(void) {
  const int64_t j = 10 * MINUTE;
  int64_t d = chime_key_get_jitter_offset_ms("tg", "jit", j);
  CU_ASSERT(d >= 0 && d < j);
  /* Stable: the documented hash (FNV-1a 64 of "tg" 0x00 "jit" mod J). */
  CU_ASSERT_EQUAL(d, chime_key_get_jitter_offset_ms("tg", "jit", j));
  CU_ASSERT_NOT_EQUAL(d, chime_key_get_jitter_offset_ms("tg", "jit2", j));
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  chime_trigger *t = sc_cron("tg", "jit", "g", "j", "0 0 2 * * ?", T0);
  CU_ASSERT_EQUAL(chime_trigger_set_jitter_ms(t, -1), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_jitter_ms(t, CHIME_JITTER_MAX_MS + 1),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_jitter_ms(t, j), 0);
  CU_ASSERT_EQUAL(chime_trigger_get_jitter_ms(t), j);
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  t = sc_get(st, "tg", "jit");
  CU_ASSERT_EQUAL(chime_trigger_get_jitter_ms(t), j);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(t), T0 + 2 * HOUR + d);
  chime_trigger_free(t);
  /* Not due before its moved time; fired at it, the next is a day on. */
  chime_fire **fires;
  if (d > 0) {
    CU_ASSERT_EQUAL(
        sc_acquire(st, T0 + 2 * HOUR, T0 + 2 * HOUR + d - 1, 10, NULL, &fires),
        0);
    free(fires);
  }
  chime_fire *f = sc_fire_next(st, T0 + 2 * HOUR + d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->scheduled_ms, T0 + 2 * HOUR + d);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(f->trigger),
                  T0 + DAY + 2 * HOUR + d);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "jit"), T0 + DAY + 2 * HOUR + d);
  /* A simple trigger takes no jitter. */
  t = sc_simple("tg", "s", "g", "j", T0, MINUTE, 1);
  CU_ASSERT_EQUAL(chime_trigger_set_jitter_ms(t, j), CHIME_EINVAL);
  chime_trigger_free(t);
  sc_close(st);
}

/* A thousand "every day at 02:00" triggers spread over the window. */
static void test_store_jitter_spreads(void) {
  const int64_t j = HOUR;
  int buckets[6] = {0};
  char name[32];
  for (int i = 0; i < 1200; i++) {
    snprintf(name, sizeof name, "tenant-%d", i);
    int64_t d = chime_key_get_jitter_offset_ms("nightly", name, j);
    CU_ASSERT_FATAL(d >= 0 && d < j);
    buckets[d / (10 * MINUTE)]++;
  }
  /* 200 expected per 10 minutes; a fair hash stays well inside 100-300. */
  for (int b = 0; b < 6; b++)
    CU_ASSERT(buckets[b] > 100 && buckets[b] < 300);
}

/*
 * A recurrence trigger: the last Friday of each month at 09:00 Paris.  T0
 * is 2030-01-01; the last Fridays are 2030-01-25 and 2030-02-22 (08:00Z).
 */
static void test_store_recurrence(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_recurrence_new("tg", "rr",
                                   "DTSTART;TZID=Europe/Paris:20260105T090000\n"
                                   "RRULE:FREQ=MONTHLY;BYDAY=-1FR",
                                   &t, err, sizeof err),
      0);
  CU_ASSERT_EQUAL(chime_trigger_get_kind(t), CHIME_TRIGGER_RECURRENCE);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_misfire(t, CHIME_MISFIRE_DO_NOTHING),
                        0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
  chime_trigger_free(t);
  const int64_t jan25 = T0 + 24 * DAY + 8 * HOUR;
  const int64_t feb22 = T0 + 52 * DAY + 8 * HOUR;
  CU_ASSERT_EQUAL(sc_next(st, "tg", "rr"), jan25);
  chime_fire *f = sc_fire_next(st, jan25);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->scheduled_ms, jan25);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(f->trigger), feb22);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "rr"), feb22);
  CU_ASSERT_EQUAL(chime_trigger_recurrence_new("tg", "bad", "RRULE:FREQ=DAILY",
                                               &t, err, sizeof err),
                  CHIME_EPARSE);
  sc_close(st);
}

/* Reloaded zone rules (store.h's recompute_zones): a daily 09:00 cron in
 * "Conf/Zone", +01:00 then +02:00 (a temporary zoneinfo folder), moves
 * from 08:00Z to 07:00Z when WAITING or PAUSED; a claimed trigger keeps
 * the fire it was claimed for and computes its next one with the new
 * rules; an hourly UTC cron whose calendar (in Conf/Zone) excludes local
 * times before 09:00 moves the same way; a second recompute changes
 * nothing (idempotent). */
static void test_store_zone_rules_reloaded(void) {
  char dir[] = "/tmp/chime-sc-zones-XXXXXX", sub[64], path[96];
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  snprintf(sub, sizeof sub, "%s/Conf", dir);
  snprintf(path, sizeof path, "%s/Conf/Zone", dir);
  CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
  CU_ASSERT_EQUAL_FATAL(chime_test_write_zone(path, 3600), 0);
  CU_ASSERT_EQUAL_FATAL(chime__zone_set_dir(dir), 0);
  /* A zone loaded earlier by another test (the same name, other rules)
   * would be taken from the cache: the check reads this folder's file. */
  CU_ASSERT_EQUAL(chime__zone_check(false, NULL, NULL), 0);
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  const chime_zone *zone = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("Conf/Zone", &zone), 0);
  chime_calendar_opts copts = {.zone = zone};
  chime_calendar *cal = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_daily_new(&copts, 0, 9 * 3600000 - 1,
                                                  false, &cal, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(
      st->ops->calendar_add(st, "mornings", cal, false, false), 0);
  chime__calendar_unref(cal);
  const char *exprs[][3] = {{"w", "0 0 9 * * ?", "Conf/Zone"},
                            {"p", "0 0 9 * * ?", "Conf/Zone"},
                            {"a", "0 0 6 * * ?", "Conf/Zone"},
                            {"c", "0 0 * * * ?", "UTC"}};
  for (int i = 0; i < 4; i++) {
    chime_trigger *t = NULL;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("zt", exprs[i][0], exprs[i][1],
                                                 exprs[i][2], &t, err,
                                                 sizeof err),
                          0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
    if (i == 3)
      CU_ASSERT_EQUAL_FATAL(chime_trigger_set_calendar(t, "mornings"), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err), 0);
    chime_trigger_free(t);
  }
  /* More than a database batch (CHIME__MYSQL_ZONE_BATCH, 200). */
  enum { MANY = 250 };
  for (int i = 0; i < MANY; i++) {
    char name[16];
    snprintf(name, sizeof name, "m%03d", i);
    chime_trigger *t = NULL;
    CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("zt", name, "0 0 9 * * ?",
                                                 "Conf/Zone", &t, NULL, 0),
                          0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "g", "j"), 0);
    CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
    CU_ASSERT_EQUAL_FATAL(
        st->ops->trigger_add(st, NULL, t, false, NULL, NULL, 0), 0);
    chime_trigger_free(t);
  }
  CU_ASSERT_EQUAL(sc_next(st, "zt", "w"), T0 + 8 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "a"), T0 + 5 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "c"), T0 + 8 * HOUR);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "zt", "p"), 0);
  chime_fire **claimed;
  size_t n = sc_acquire(st, T0 + 5 * HOUR, T0 + 5 * HOUR, 1, NULL, &claimed);
  CU_ASSERT_EQUAL_FATAL(n, 1);

  uint64_t gen0 = chime__zone_generation();
  CU_ASSERT_EQUAL_FATAL(chime_test_write_zone(path, 2 * 3600), 0);
  size_t changed = 0;
  CU_ASSERT_EQUAL(chime__zone_check(true, &changed, NULL), 0);
  CU_ASSERT(changed >= 1);
  char **names = NULL;
  size_t nnames = 0;
  uint64_t gen;
  CU_ASSERT_EQUAL_FATAL(chime__zone_changed_since(gen0, &names, &nnames, &gen),
                        0);
  /* In steps of one trigger (a store may do more per step: the database
   * does a batch), as the check-ins do. */
  size_t moved = 0, total = 0;
  chime_zones_cursor *cursor = NULL;
  int r, steps = 0;
  do {
    r = st->ops->recompute_zones(st, (const char *const *)names, nnames, 1,
                                 &cursor, &moved);
    total += r >= 0 ? moved : 0;
  } while (r == 1 && ++steps < 100);
  CU_ASSERT_EQUAL(r, 0);
  CU_ASSERT_PTR_NULL(cursor);
  CU_ASSERT_EQUAL(total, 3 + MANY);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "m000"), T0 + 7 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "m249"), T0 + 7 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "c"), T0 + 7 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "w"), T0 + 7 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "p"), T0 + 7 * HOUR);
  CU_ASSERT_EQUAL(sc_status(st, "zt", "p"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "a"), T0 + 5 * HOUR);
  /* Idempotent: done again (another node), nothing moves. */
  CU_ASSERT_EQUAL(st->ops->recompute_zones(st, (const char *const *)names,
                                           nnames, 0, &cursor, &moved),
                  0);
  CU_ASSERT_EQUAL(moved, 0);
  chime__zone_names_free(names, nnames);
  /* The claimed fire fires as claimed; its next fire has the new rules. */
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, claimed, 1, T0 + 5 * HOUR), 0);
  CU_ASSERT_EQUAL(claimed[0]->scheduled_ms, T0 + 5 * HOUR);
  CU_ASSERT_EQUAL(sc_next(st, "zt", "a"), T0 + DAY + 4 * HOUR);
  CU_ASSERT_EQUAL(sc_complete(st, claimed[0]), 0);
  sc_fires_free(claimed, 1);
  sc_close(st);
  CU_ASSERT_EQUAL(chime__zone_set_dir(NULL), 0);
  unlink(path);
  rmdir(sub);
  rmdir(dir);
}

CU_TestInfo sc_time_tests[] = {
    {"recurrence: stored, read back, fired", test_store_recurrence},
    {"jitter: stored, moved fires, stable offset", test_store_jitter},
    {"jitter: spreads a herd over the window", test_store_jitter_spreads},
    {"unix cron: stored, read back, fired", test_store_unix_cron_round_trip},
    {"unix cron: CRON_TZ= prefix and zone", test_store_unix_cron_zone_rules},
    {"zones: reloaded rules move unclaimed triggers only",
     test_store_zone_rules_reloaded},
    CU_TEST_INFO_NULL,
};
