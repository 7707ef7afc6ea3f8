/*
 * test-records.c: job and trigger definitions as a user builds them:
 * key validation, the four constructors and their errors, setters that a
 * kind does not accept, deep copies, and the preparation a store runs.
 */
#include "chime.h"
#include "harness.h"
#include "model/records.h"

#include <string.h>

static void test_records_name_check(void) {
  static const struct {
    int line;
    const char *value;
    int code;
    const char *says;
  } rows[] = {
      {__LINE__, "reports", 0, ""},
      {__LINE__, "zürich-☃", 0, ""},
      {__LINE__, "", CHIME_EINVAL, "empty"},
      {__LINE__, "tab\there", CHIME_EINVAL, "control character at byte 4"},
      {__LINE__, "bad\xC3(utf8", CHIME_EINVAL, "not valid UTF-8 at byte 4"},
      {__LINE__, "overlong\xC0\xAF", CHIME_EINVAL, "UTF-8"},
      {__LINE__, "surrogate\xED\xA0\x80", CHIME_EINVAL, "UTF-8"},
      /* Issue 22, finding 8: C1 controls (U+0085 NEXT LINE, U+0080,
       * U+009F) are control characters too; U+00A0 is not. */
      {__LINE__, "next\xC2\x85line", CHIME_EINVAL,
       "control character at byte 5"},
      {__LINE__, "\xC2\x80", CHIME_EINVAL, "control character at byte 1"},
      {__LINE__, "x\xC2\x9F", CHIME_EINVAL, "control character at byte 2"},
      {__LINE__, "nbsp\xC2\xA0ok", 0, ""},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char err[128] = "";
    int r = chime__name_check(rows[i].value, "job name", err, sizeof err);
    if (r != rows[i].code || !strstr(err, rows[i].says))
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, r, err);
    CU_ASSERT_EQUAL(r, rows[i].code);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].says));
  }
  char longname[CHIME_MAX_NAME_LEN + 2];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CU_ASSERT_EQUAL(chime__name_check(longname, "job name", NULL, 0),
                  CHIME_ELIMIT);
  longname[CHIME_MAX_NAME_LEN] = '\0';
  CU_ASSERT_EQUAL(chime__name_check(longname, "job name", NULL, 0), 0);
  CU_ASSERT_EQUAL(chime__name_check(NULL, "job name", NULL, 0), CHIME_EINVAL);
}

static void test_records_job_builder(void) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL(chime_job_new("g", "", "t", &job, NULL, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_new("g", "n", NULL, &job, NULL, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_new("g", "n", "t", NULL, NULL, 0), CHIME_EINVAL);
  CU_ASSERT_EQUAL_FATAL(
      chime_job_new("billing", "settle", "settle-day", &job, NULL, 0), 0);
  CU_ASSERT_FALSE(chime_job_get_durable(job));
  CU_ASSERT_EQUAL(chime_job_get_concurrency(job), CHIME_CONCURRENCY_ALLOW);
  CU_ASSERT_EQUAL(chime_job_set_data(job, "{\"a\":1}", 7), 0);
  CU_ASSERT_EQUAL(chime_job_set_description(job, "settles the day"), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID), 0);
  CU_ASSERT_EQUAL(chime_job_set_concurrency(job, (chime_concurrency)7),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_data(job, NULL, 5), CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_job_set_data(job, "x", (size_t)CHIME_MAX_DATA_LEN + 1),
                  CHIME_ELIMIT);
  chime_job_set_durable(job, true);
  chime_job_set_requests_recovery(job, true);
  chime_job *copy = chime__job_copy(job);
  chime_job_free(job);
  CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
  size_t len = 0;
  const char *data = chime_job_get_data(copy, &len);
  CU_ASSERT_EQUAL(len, 7);
  CU_ASSERT_NSTRING_EQUAL(data, "{\"a\":1}", 7);
  CU_ASSERT_STRING_EQUAL(chime_job_get_group(copy), "billing");
  CU_ASSERT_STRING_EQUAL(chime_job_get_type(copy), "settle-day");
  CU_ASSERT_STRING_EQUAL(chime_job_get_description(copy), "settles the day");
  CU_ASSERT_TRUE(chime_job_get_durable(copy));
  CU_ASSERT_TRUE(chime_job_get_requests_recovery(copy));
  CU_ASSERT_EQUAL(chime_job_get_concurrency(copy), CHIME_CONCURRENCY_FORBID);
  chime_job_free(copy);
  chime_job_free(NULL);
}

/* chime_job_new says in errbuf which argument is wrong, and empties it on
 * success; errbuf may be NULL or too short (then cut, NUL-terminated). */
static void test_records_job_new_errbuf(void) {
  static const struct {
    int line;
    const char *group, *name, *type;
    int code;
    const char *says;
  } rows[] = {
      {__LINE__, "", "n", "t", CHIME_EINVAL, "job group is empty"},
      {__LINE__, "g", NULL, "t", CHIME_EINVAL, "job name is missing"},
      {__LINE__, "g", "n", "a\tb", CHIME_EINVAL,
       "job type has a control character at byte 2"},
      {__LINE__, "g", "n", "ok", 0, ""},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_job *job = NULL;
    char err[128] = "stale";
    int r = chime_job_new(rows[i].group, rows[i].name, rows[i].type, &job, err,
                          sizeof err);
    if (r != rows[i].code || strcmp(err, rows[i].says) != 0)
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, r, err);
    CU_ASSERT_EQUAL(r, rows[i].code);
    CU_ASSERT_STRING_EQUAL(err, rows[i].says);
    CU_ASSERT((job != NULL) == (r == 0));
    chime_job_free(job);
  }
  char err[4] = "";
  CU_ASSERT_EQUAL(chime_job_new("g", "n", "t", NULL, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_STRING_EQUAL(err, "no ");
  CU_ASSERT_EQUAL(chime_job_new("", "n", "t", NULL, NULL, 0), CHIME_EINVAL);
}

static void test_records_trigger_constructor_errors(void) {
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL(chime_trigger_cron_new("g", "n", "0 0 25 * * ?", "UTC", &t,
                                         err, sizeof err),
                  CHIME_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "hour"));
  CU_ASSERT_PTR_NULL(t);
  CU_ASSERT_EQUAL(chime_trigger_cron_new("g", "n", "0 0 12 * * ?",
                                         "Mars/Olympus", &t, err, sizeof err),
                  CHIME_EUNKNOWNZONE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "Mars/Olympus"));
  CU_ASSERT_EQUAL(chime_trigger_simple_new("g", "n", 0, 3, &t, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_trigger_simple_new("g", "n", 1000, -2, &t, err, sizeof err),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(
      chime_trigger_simple_new("", "n", 1000, 1, &t, err, sizeof err),
      CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "trigger group"));
  CU_ASSERT_EQUAL(chime_trigger_calendar_interval_new(
                      "g", "n", 0, CHIME_UNIT_DAY, "UTC", &t, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_daily_new("g", "n", 3600, 7200, 0x80, 10,
                                          CHIME_UNIT_MINUTE, -1, "UTC", &t, err,
                                          sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_daily_new("g", "n", 7200, 3600, 0x7F, 10,
                                          CHIME_UNIT_MINUTE, -1, "UTC", &t, err,
                                          sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(t);
}

static void test_records_misfire_per_kind(void) {
  chime_trigger *simple = NULL, *cron = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("g", "s", 1000, 5, &simple, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_cron_new("g", "c", "0 * * * * ?", NULL, &cron, NULL, 0), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(
                      simple, CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT),
                  0);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(simple, CHIME_MISFIRE_DO_NOTHING),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(cron, CHIME_MISFIRE_DO_NOTHING), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(
                      cron, CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_misfire(cron, (chime_misfire)99),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_get_misfire(cron), CHIME_MISFIRE_DO_NOTHING);
  /* Calendar-interval flags belong to that kind only. */
  CU_ASSERT_EQUAL(chime_trigger_set_preserve_hour_of_day(cron, true),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(chime_trigger_set_skip_day_if_hour_missing(simple, true),
                  CHIME_EINVAL);
  chime_trigger_free(simple);
  chime_trigger_free(cron);
}

/* The names the tools and chime-admin(3) write for kinds and misfire
 * instructions come from the library, one per value, none outside. */
static void test_records_kind_and_misfire_names(void) {
  CU_ASSERT_STRING_EQUAL(chime_trigger_kind_to_string(CHIME_TRIGGER_SIMPLE),
                         "simple");
  CU_ASSERT_STRING_EQUAL(
      chime_trigger_kind_to_string(CHIME_TRIGGER_DAILY_TIME_INTERVAL),
      "daily-time-interval");
  CU_ASSERT_STRING_EQUAL(chime_trigger_kind_to_string(CHIME_TRIGGER_RECURRENCE),
                         "recurrence");
  CU_ASSERT_PTR_NULL(chime_trigger_kind_to_string((chime_trigger_kind)0));
  CU_ASSERT_PTR_NULL(chime_trigger_kind_to_string((chime_trigger_kind)6));
  CU_ASSERT_PTR_NULL(chime_trigger_kind_to_string((chime_trigger_kind)-1));
  CU_ASSERT_STRING_EQUAL(chime_misfire_to_string(CHIME_MISFIRE_SMART), "smart");
  CU_ASSERT_STRING_EQUAL(chime_misfire_to_string(CHIME_MISFIRE_FIRE_NOW),
                         "fire-now");
  CU_ASSERT_STRING_EQUAL(
      chime_misfire_to_string(CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT),
      "reschedule-next-existing-count");
  CU_ASSERT_PTR_NULL(chime_misfire_to_string((chime_misfire)8));
  CU_ASSERT_PTR_NULL(chime_misfire_to_string((chime_misfire)-1));
}

static void test_records_trigger_copy_is_deep(void) {
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_trigger_cron_new("reports", "nightly",
                                               "0 30 2 * * ?", "Europe/Berlin",
                                               &t, NULL, 0),
                        0);
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "reports", "build"), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_data(t, "abc", 3), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_calendar(t, "holidays"), 0);
  CU_ASSERT_EQUAL(chime_trigger_set_priority(t, 9), 0);
  chime_trigger *c = chime__trigger_copy(t);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(chime_trigger_get_kind(c), CHIME_TRIGGER_CRON);
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_group(c), "reports");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_job_name(c), "build");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_calendar(c), "holidays");
  CU_ASSERT_EQUAL(chime_trigger_get_priority(c), 9);
  size_t len;
  CU_ASSERT_NSTRING_EQUAL(chime_trigger_get_data(c, &len), "abc", 3);
  /* The copy's schedule points at its own compiled expression. */
  CU_ASSERT_PTR_EQUAL(c->schedule.u.cron.cron, c->cron);
  CU_ASSERT_STRING_EQUAL(chime_cron_to_string(c->cron), "0 30 2 * * ?");
  chime_trigger_free(c);
}

static void test_records_prepare_computes_first_fire(void) {
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_cron_new("g", "n", "0 0 12 * * ?", "UTC", &t, NULL, 0), 0);
  /* No job named: refused with a reason. */
  CU_ASSERT_EQUAL(chime__trigger_prepare(t, NULL, 0, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "names no job"));
  CU_ASSERT_EQUAL(chime_trigger_set_job(t, "g", "j"), 0);
  /* 2026-03-01T10:00:00Z: the first fire is noon that day. */
  CU_ASSERT_EQUAL(
      chime__trigger_prepare(t, NULL, INT64_C(1772359200000), err, sizeof err),
      0);
  CU_ASSERT_EQUAL(chime_trigger_get_start_ms(t), INT64_C(1772359200000));
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(t), INT64_C(1772366400000));
  CU_ASSERT_EQUAL(chime_trigger_get_status(t), CHIME_TRIGGER_NORMAL);
  chime_trigger_free(t);

  /* A trigger whose end is before its first fire never fires. */
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("g", "once", 0, 0, &t, NULL, 0), 0);
  chime_trigger_set_job(t, "g", "j");
  chime_trigger_set_start_ms(t, 2000);
  chime_trigger_set_end_ms(t, 1000);
  CU_ASSERT_EQUAL(chime__trigger_prepare(t, NULL, 0, err, sizeof err),
                  CHIME_EINVAL);
  chime_trigger_free(t);
}

static void test_records_group_matchers(void) {
  CU_ASSERT_TRUE(
      chime__group_matches(CHIME_MATCH_EQUALS, "billing", "billing"));
  CU_ASSERT_FALSE(
      chime__group_matches(CHIME_MATCH_EQUALS, "billing", "billing-eu"));
  CU_ASSERT_TRUE(
      chime__group_matches(CHIME_MATCH_STARTS_WITH, "bill", "billing"));
  CU_ASSERT_FALSE(
      chime__group_matches(CHIME_MATCH_STARTS_WITH, "billing-eu", "billing"));
  CU_ASSERT_TRUE(
      chime__group_matches(CHIME_MATCH_ENDS_WITH, "-eu", "billing-eu"));
  CU_ASSERT_FALSE(chime__group_matches(CHIME_MATCH_ENDS_WITH, "-eu", "eu"));
  CU_ASSERT_TRUE(chime__group_matches(CHIME_MATCH_CONTAINS, "ll", "billing"));
  CU_ASSERT_TRUE(chime__group_matches(CHIME_MATCH_ANY, NULL, "anything"));
  CU_ASSERT_FALSE(chime__group_matches(CHIME_MATCH_EQUALS, NULL, "x"));
}

static CU_TestInfo records_tests[] = {
    {"key validation", test_records_name_check},
    {"job builder and copy", test_records_job_builder},
    {"chime_job_new says what is wrong in errbuf", test_records_job_new_errbuf},
    {"trigger constructor errors", test_records_trigger_constructor_errors},
    {"misfire instructions per kind", test_records_misfire_per_kind},
    {"kind and misfire names", test_records_kind_and_misfire_names},
    {"trigger copies are deep", test_records_trigger_copy_is_deep},
    {"prepare computes the first fire",
     test_records_prepare_computes_first_fire},
    {"group matchers", test_records_group_matchers},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "model/records", .pTests = records_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
