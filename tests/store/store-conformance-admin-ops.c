/*
 * store-conformance-admin-ops.c: the job store conformance suite, the
 * operators' actions on runs handed in, limits, zones and leases
 * (chime-admin.h: chime_admin_fire_now, _enqueue, _set_limit,
 * _clear_limit, _recompute_zones, _release_lease, CHIME_ADMIN_LIMITS) over
 * each store: what they store is what the scheduler's own calls store.
 */
#include "store-conformance-impl.h"

#include "chime-admin.h"
#include "jobstore/admin.h"

#include <stdio.h>
#include <string.h>

/* An operator's view of st (borrowed: freed before st). */
static chime_admin *admin_of(chime_store *st) {
  chime_admin *a = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__admin_wrap(st, false, true, &a), 0);
  return a;
}

/* Splits key "GROUP.NAME" at its first dot into group and name. */
static void split(const char *key, char *group, char *name, size_t len) {
  const char *dot = strchr(key, '.');
  CU_ASSERT_PTR_NOT_NULL_FATAL(dot);
  snprintf(group, len, "%.*s", (int)(dot - key), key);
  snprintf(name, len, "%s", dot + 1);
}

static void test_admin_fire_now(void) {
  chime_store *st = sc_open();
  chime_admin *a = admin_of(st);
  sc_add_job(st, "ops", "j", "t", true);
  char key[2 * CHIME_MAX_NAME_LEN + 2], g[256], n[256];
  int64_t due = 0;
  CU_ASSERT_EQUAL_FATAL(
      chime_admin_fire_now(a, "ops", "j", "{}", 2, "x", key, sizeof key, &due),
      0);
  CU_ASSERT(strncmp(key, "MANUAL_TRIGGER.", 15) == 0);
  CU_ASSERT(due > 0);
  split(key, g, n, sizeof g);
  CU_ASSERT_EQUAL(sc_status(st, g, n), CHIME_TRIGGER_NORMAL);
  chime_trigger *t = sc_get(st, g, n);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_job_name(t), "j");
  chime_trigger_free(t);
  /* Refused: no such job, a half key, no handle. */
  CU_ASSERT_EQUAL(
      chime_admin_fire_now(a, "ops", "none", NULL, 0, NULL, NULL, 0, NULL),
      CHIME_ENOTFOUND);
  CU_ASSERT(strstr(chime_admin_errmsg(a), "not found") != NULL);
  CU_ASSERT_EQUAL(
      chime_admin_fire_now(a, "ops", NULL, NULL, 0, NULL, NULL, 0, NULL),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_admin_fire_now(NULL, "ops", "j", NULL, 0, NULL, NULL, 0, NULL),
      CHIME_EINVAL);
  chime_admin_free(a);
  sc_close(st);
}

static void test_admin_enqueue(void) {
  chime_store *st = sc_open();
  chime_admin *a = admin_of(st);
  sc_add_job(st, "ops", "q", "t", true);
  chime_enqueue *o = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_new(&o), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_unique_key(o, "k1"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_enqueue_set_run_at_ms(o, T0), 0);
  char key[2 * CHIME_MAX_NAME_LEN + 2], again[sizeof key], g[256], n[256];
  bool existed = true;
  int64_t due = 0;
  CU_ASSERT_EQUAL_FATAL(
      chime_admin_enqueue(a, "ops", "q", o, key, sizeof key, &existed, &due),
      0);
  CU_ASSERT_FALSE(existed);
  CU_ASSERT_EQUAL(due, T0);
  split(key, g, n, sizeof g);
  CU_ASSERT_EQUAL(sc_next(st, g, n), T0);
  /* The same unique key again: nothing stored, the waiting run named. */
  CU_ASSERT_EQUAL(chime_admin_enqueue(a, "ops", "q", o, again, sizeof again,
                                      &existed, NULL),
                  0);
  CU_ASSERT_TRUE(existed);
  CU_ASSERT_STRING_EQUAL(again, key);
  CU_ASSERT_EQUAL(chime_admin_enqueue(a, "ops", "none", o, NULL, 0, NULL, NULL),
                  CHIME_ENOTFOUND);
  chime_enqueue_free(o);
  chime_admin_free(a);
  sc_close(st);
}

/* The CHIME_ADMIN_LIMITS rows of a. */
static chime_admin_table *limits(chime_admin *a) {
  chime_admin_query *q = NULL;
  chime_admin_table *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_LIMITS, &q), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, &t), 0);
  chime_admin_query_free(q);
  return t;
}

static void test_admin_limits(void) {
  chime_store *st = sc_open();
  chime_admin *a = admin_of(st);
  CU_ASSERT_EQUAL_FATAL(
      chime_admin_set_limit(a, "lt", 3, 1, 10, 1000, 2, 500, "tenant"), 0);
  chime_admin_table *t = limits(a);
  CU_ASSERT_EQUAL_FATAL(chime_admin_table_get_row_count(t), 1);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "job_type"), "lt");
  CU_ASSERT_TRUE(chime_admin_table_is_null(t, 0, "partition"));
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "max_running"), 3);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "max_per_partition"), 1);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "rate_count"), 10);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "rate_period_ms"), 1000);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "key_rate_count"), 2);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "key_rate_period_ms"), 500);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(t, 0, "partition_field"),
                         "tenant");
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "waiting"), 0);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "running"), 0);
  chime_admin_table_free(t);
  /* Replaced whole: no field, no per-partition figures. */
  CU_ASSERT_EQUAL(chime_admin_set_limit(a, "lt", 5, 0, 0, 0, 0, 0, NULL), 0);
  t = limits(a);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "max_running"), 5);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(t, 0, "key_rate_count"), 0);
  CU_ASSERT_TRUE(chime_admin_table_is_null(t, 0, "partition_field"));
  chime_admin_table_free(t);
  /* Refused figures say why. */
  CU_ASSERT_EQUAL(chime_admin_set_limit(a, "lt", -1, 0, 0, 0, 0, 0, NULL),
                  CHIME_EINVAL);
  CU_ASSERT(chime_admin_errmsg(a)[0] != '\0');
  CU_ASSERT_EQUAL(chime_admin_clear_limit(a, "lt"), 0);
  CU_ASSERT_EQUAL(chime_admin_clear_limit(a, "lt"), CHIME_ENOTFOUND);
  t = limits(a);
  CU_ASSERT_EQUAL(chime_admin_table_get_row_count(t), 0);
  chime_admin_table_free(t);
  CU_ASSERT_EQUAL(chime_admin_clear_limit(NULL, "lt"), CHIME_EINVAL);
  chime_admin_free(a);
  sc_close(st);
}

static void test_admin_release_lease(void) {
  chime_store *st = sc_open();
  chime_admin *a = admin_of(st);
  chime_lease_info l, m;
  /* Held with an at_least a holder's own release would keep. */
  CU_ASSERT_EQUAL_FATAL(
      st->ops->lease_acquire(st, "ops-lease", 60 * SEC, 60 * SEC, &l), 0);
  CU_ASSERT_EQUAL(chime_admin_release_lease(a, "ops-lease"), 0);
  bool held = true;
  CU_ASSERT_EQUAL(st->ops->lease_held(st, "ops-lease", l.token, &held), 0);
  CU_ASSERT_FALSE(held);
  CU_ASSERT_EQUAL(st->ops->lease_release(st, "ops-lease", l.token),
                  CHIME_ENOTOWNER);
  CU_ASSERT_EQUAL(chime_admin_release_lease(a, "ops-lease"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(chime_admin_release_lease(a, "never"), CHIME_ENOTFOUND);
  /* Free at once, with a greater token. */
  CU_ASSERT_EQUAL_FATAL(
      st->ops->lease_acquire(st, "ops-lease", 60 * SEC, 0, &m), 0);
  CU_ASSERT(m.token > l.token);
  CU_ASSERT_EQUAL(chime_admin_release_lease(a, NULL), CHIME_EINVAL);
  chime_admin_free(a);
  sc_close(st);
}

static void test_admin_recompute_zones(void) {
  chime_store *st = sc_open();
  chime_admin *a = admin_of(st);
  sc_add_job(st, "ops", "z", "t", true);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("ops", "zc", "0 0 12 * * ?",
                                               "Europe/Berlin", &t, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "ops", "z"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->trigger_add(st, NULL, t, false, NULL, NULL, 0),
                        0);
  chime_trigger_free(t);
  int64_t next = sc_next(st, "ops", "zc");
  const char *zones[] = {"Europe/Berlin"};
  size_t moved = 99;
  /* The rules did not change: nothing moves. */
  CU_ASSERT_EQUAL(chime_admin_recompute_zones(a, zones, 1, &moved), 0);
  CU_ASSERT_EQUAL(moved, 0);
  CU_ASSERT_EQUAL(sc_next(st, "ops", "zc"), next);
  CU_ASSERT_EQUAL(chime_admin_recompute_zones(a, NULL, 0, &moved), 0);
  CU_ASSERT_EQUAL(chime_admin_recompute_zones(a, NULL, 1, NULL), CHIME_EINVAL);
  chime_admin_free(a);
  sc_close(st);
}

/* The CHIME_ADMIN_TRIGGERS row of (group, name) in *ret (freed by the
 * caller), its index the return value. */
static size_t trigger_row(chime_admin *a, const char *group, const char *name,
                          chime_admin_table **ret) {
  chime_admin_query *q = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_new(CHIME_ADMIN_TRIGGERS, &q), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_query_set_group(q, group), 0);
  CU_ASSERT_EQUAL_FATAL(chime_admin_list(a, q, ret), 0);
  chime_admin_query_free(q);
  for (size_t i = 0; i < chime_admin_table_get_row_count(*ret); i++)
    if (strcmp(chime_admin_table_get_text(*ret, i, "name"), name) == 0)
      return i;
  CU_FAIL_FATAL("no such trigger row");
  return 0;
}

static void test_admin_trigger_definition(void) {
  chime_store *st = sc_open();
  chime_admin *a = admin_of(st);
  sc_add_job(st, "ops", "d", "t", true);
  chime_trigger *t = NULL;
  /* Every 15 minutes from 09:00 to 17:30, Monday to Friday, 40 times. */
  CU_ASSERT_EQUAL_FATAL(chime_trigger_daily_new("ops", "daily", 9 * 3600,
                                                17 * 3600 + 1800, 0x3e, 15,
                                                CHIME_UNIT_MINUTE, 40,
                                                "Europe/Paris", &t, NULL, 0),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, "ops", "d"), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_end_ms(t, T0 + DAY * 30), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_jitter_ms(t, 5 * SEC), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_timeout_ms(t, MINUTE), 0);
  CU_ASSERT_EQUAL_FATAL(st->ops->trigger_add(st, NULL, t, false, NULL, NULL, 0),
                        0);
  chime_trigger_free(t);
  sc_add_simple(st, "ops", "simple", "ops", "d", T0, 10 * SEC, 3);
  chime_admin_table *tb = NULL;
  size_t i = trigger_row(a, "ops", "daily", &tb);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(tb, i, "kind"),
                         "daily-time-interval");
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "start_ms"), T0);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "end_ms"), T0 + DAY * 30);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "interval"), 15);
  CU_ASSERT_STRING_EQUAL(chime_admin_table_get_text(tb, i, "unit"), "minute");
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "repeat_count"), 40);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "day_start_s"), 9 * 3600);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "day_end_s"),
                  17 * 3600 + 1800);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "days_of_week"), 0x3e);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "jitter_ms"), 5 * SEC);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "timeout_ms"), MINUTE);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "deadline_ms"), 0);
  CU_ASSERT_TRUE(chime_admin_table_is_null(tb, i, "interval_ms"));
  CU_ASSERT_TRUE(chime_admin_table_is_null(tb, i, "preserve_hour"));
  CU_ASSERT_TRUE(chime_admin_table_is_null(tb, i, "effective_repeat_count"));
  chime_admin_table_free(tb);
  i = trigger_row(a, "ops", "simple", &tb);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "interval_ms"), 10 * SEC);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "repeat_count"), 3);
  CU_ASSERT_EQUAL(chime_admin_table_get_int64(tb, i, "effective_repeat_count"),
                  3);
  CU_ASSERT_TRUE(chime_admin_table_is_null(tb, i, "end_ms"));
  CU_ASSERT_TRUE(chime_admin_table_is_null(tb, i, "unit"));
  CU_ASSERT_TRUE(chime_admin_table_is_null(tb, i, "days_of_week"));
  chime_admin_table_free(tb);
  chime_admin_free(a);
  sc_close(st);
}

CU_TestInfo sc_admin_ops_tests[] = {
    {"admin trigger definition", test_admin_trigger_definition},
    {"admin fire now", test_admin_fire_now},
    {"admin enqueue", test_admin_enqueue},
    {"admin limits", test_admin_limits},
    {"admin release lease", test_admin_release_lease},
    {"admin recompute zones", test_admin_recompute_zones},
    CU_TEST_INFO_NULL};
