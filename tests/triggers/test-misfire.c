/*
 * test-misfire.c: every misfire instruction of every trigger kind, as
 * Quartz's updateAfterMisfire defines it: a state before, a "now", and the
 * exact state after.  Also which instructions each kind accepts, how SMART
 * resolves, and the misfire test the stores use.
 */
#include "harness.h"
#include "triggers/calendar.h"
#include "triggers/misfire.h"

#include <string.h>

#define ROW_ASSERT(cond, line)                                                 \
  CU_assertImplementation((cond), (unsigned)(line), #cond, __FILE__, "",       \
                          CU_FALSE)

#define S INT64_C(1000)
#define M INT64_C(60000)
#define H INT64_C(3600000)
#define T0 INT64_C(1704067200000) /* 2024-01-01T00:00:00Z */

static chime_fire_state state(int64_t next, int64_t prev, int64_t times,
                              int64_t start, int32_t repeat) {
  chime_fire_state st = {.next_fire_ms = next,
                         .prev_fire_ms = prev,
                         .times_triggered = times,
                         .start_ms = start,
                         .repeat_count = repeat};
  return st;
}

static bool same(const chime_fire_state *a, const chime_fire_state *b) {
  return a->next_fire_ms == b->next_fire_ms &&
         a->prev_fire_ms == b->prev_fire_ms &&
         a->times_triggered == b->times_triggered &&
         a->start_ms == b->start_ms && a->repeat_count == b->repeat_count;
}

static chime_schedule simple(int32_t repeat, chime_misfire m) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_SIMPLE;
  s.start_ms = T0;
  s.end_ms = CHIME_END_NONE;
  s.misfire = m;
  s.u.simple.interval_ms = M;
  s.u.simple.repeat_count = repeat;
  return s;
}

/*
 * Simple trigger every minute from T0 that fired at T0 and T0+1m (next
 * T0+2m) and is found at T0+5m30s: four fires (2, 3, 4, 5 min) missed.
 */
static void test_misfire_simple_every_instruction(void) {
  const int64_t now = T0 + 5 * M + 30 * S;
  const int64_t inf = CHIME_REPEAT_INDEFINITELY;
  static const struct {
    int line;
    int32_t repeat;
    chime_misfire m;
    int64_t now_offset; /* added to now */
    int64_t end;
    /* expected after: next (CHIME_NO_FIRE, or -1 for "now"), times,
     * start (-1 for now), repeat */
    int64_t next, times, start;
    int32_t repeat_after;
  } rows[] = {
      /* IGNORE: nothing changes; the missed fires happen at once. */
      {__LINE__, 10, CHIME_MISFIRE_IGNORE, 0, CHIME_END_NONE, T0 + 2 * M, 2, T0,
       10},
      /* SMART with a repeat count: RESCHEDULE_NOW_EXISTING_COUNT. */
      {__LINE__, 10, CHIME_MISFIRE_SMART, 0, CHIME_END_NONE, -1, 0, -1, 8},
      /* SMART repeating forever: RESCHEDULE_NEXT_REMAINING_COUNT, the four
       * missed fires counted as triggered. */
      {__LINE__, inf, CHIME_MISFIRE_SMART, 0, CHIME_END_NONE, T0 + 6 * M, 6, T0,
       inf},
      /* FIRE_NOW with a repeat count: RESCHEDULE_NOW_REMAINING_COUNT,
       * 10 - (2 fired + 3 whole intervals missed) = 5 left. */
      {__LINE__, 10, CHIME_MISFIRE_FIRE_NOW, 0, CHIME_END_NONE, -1, 0, -1, 5},
      {__LINE__, 10, CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT, 0,
       CHIME_END_NONE, -1, 0, -1, 8},
      {__LINE__, 10, CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT, 0,
       CHIME_END_NONE, -1, 0, -1, 5},
      /* More missed than remain: never below 0. */
      {__LINE__, 10, CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT, 15 * M,
       CHIME_END_NONE, -1, 0, -1, 0},
      /* Repeating forever: the count is not touched. */
      {__LINE__, inf, CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT, 0,
       CHIME_END_NONE, -1, 2, -1, inf},
      {__LINE__, inf, CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT, 0,
       CHIME_END_NONE, -1, 2, -1, inf},
      /* Past the end: finished (the counts are rewritten first, as in
       * Quartz). */
      {__LINE__, 10, CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT, 0, T0 + 5 * M,
       CHIME_NO_FIRE, 0, T0, 8},
      {__LINE__, 10, CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT, 0,
       CHIME_END_NONE, T0 + 6 * M, 6, T0, 10},
      {__LINE__, 10, CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT, 0,
       CHIME_END_NONE, T0 + 6 * M, 2, T0, 10},
      /* The next time after now is past the repeats: finished. */
      {__LINE__, 3, CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT, 0,
       CHIME_END_NONE, CHIME_NO_FIRE, 2, T0, 3},
      {__LINE__, 3, CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT, 0,
       CHIME_END_NONE, CHIME_NO_FIRE, 2, T0, 3},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime_schedule s = simple(rows[i].repeat, rows[i].m);
    s.end_ms = rows[i].end;
    int64_t n = now + rows[i].now_offset;
    chime_fire_state st = state(T0 + 2 * M, T0 + M, 2, T0, rows[i].repeat);
    ROW_ASSERT(chime__trigger_apply_misfire(&s, &st, n) == 0, rows[i].line);
    chime_fire_state want =
        state(rows[i].next == -1 ? n : rows[i].next, T0 + M, rows[i].times,
              rows[i].start == -1 ? n : rows[i].start, rows[i].repeat_after);
    ROW_ASSERT(same(&st, &want), rows[i].line);
  }
}

static void test_misfire_simple_one_shot(void) {
  /* Repeat count 0: SMART and FIRE_NOW both fire now, once. */
  static const chime_misfire ms[] = {CHIME_MISFIRE_SMART,
                                     CHIME_MISFIRE_FIRE_NOW};
  for (int i = 0; i < 2; i++) {
    chime_schedule s = simple(0, ms[i]);
    s.u.simple.interval_ms = 0;
    chime_fire_state st;
    CU_ASSERT_EQUAL_FATAL(chime__trigger_first_fire(&s, &st), 0);
    CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, T0 + 10 * S), 0);
    chime_fire_state want = state(T0 + 10 * S, CHIME_NO_FIRE, 0, T0, 0);
    CU_ASSERT(same(&st, &want));
    chime__trigger_triggered(&s, &st);
    CU_ASSERT_FALSE(chime__trigger_may_fire_again(&st));
    CU_ASSERT_EQUAL(st.times_triggered, 1);
  }
}

static void test_misfire_simple_reschedule_now_then_fires(void) {
  /* After RESCHEDULE_NOW_EXISTING_COUNT the trigger restarts at now with
   * 8 repeats: 9 fires, one a minute from now. */
  chime_schedule s = simple(10, CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT);
  chime_fire_state st = state(T0 + 2 * M, T0 + M, 2, T0, 10);
  const int64_t now = T0 + 5 * M + 30 * S;
  CU_ASSERT_EQUAL_FATAL(chime__trigger_apply_misfire(&s, &st, now), 0);
  int n = 0;
  while (chime__trigger_may_fire_again(&st) && n < 20) {
    CU_ASSERT_EQUAL(st.next_fire_ms, now + n * M);
    chime__trigger_triggered(&s, &st);
    n++;
  }
  CU_ASSERT_EQUAL(n, 9);
  int64_t t;
  CU_ASSERT_EQUAL(chime__trigger_final_fire(&s, &st, &t), 0);
  CU_ASSERT_EQUAL(t, now + 8 * M);
}

static void test_misfire_simple_next_with_calendar(void) {
  /* Hourly from Fri 2024-01-05 22:00Z, next Fri 23:00, found Sat 10:00
   * with the weekend excluded: Monday 00:00; 49 missed hours counted. */
  const int64_t fri22 = INT64_C(1704492000000), mon00 = INT64_C(1704672000000);
  const int64_t sat10 = INT64_C(1704535200000);
  chime_calendar *weekend = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(
                            NULL, CHIME__CALENDAR_WEEKEND, &weekend, NULL, 0),
                        0);
  chime_schedule s = simple(CHIME_REPEAT_INDEFINITELY,
                            CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT);
  s.start_ms = fri22;
  s.u.simple.interval_ms = H;
  s.calendar = weekend;
  chime_fire_state st = state(fri22 + H, fri22, 1, fri22, -1);
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, sat10), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, mon00);
  CU_ASSERT_EQUAL(st.times_triggered, 1);
  s.misfire = CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT;
  st = state(fri22 + H, fri22, 1, fri22, -1);
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, sat10), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, mon00);
  CU_ASSERT_EQUAL(st.times_triggered, 1 + 49);
  /* FIRE_NOW does not consult the calendar (Quartz). */
  s = simple(0, CHIME_MISFIRE_FIRE_NOW);
  s.calendar = weekend;
  st = state(T0, CHIME_NO_FIRE, 0, T0, 0);
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, sat10), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, sat10);
  chime__calendar_unref(weekend);
}

/* Cron "0 0 12 * * ?" in New York; next Mar 1 noon, found Mar 3 15:00. */
#define NY_MAR01_12 INT64_C(1709312400000)
#define NY_MAR03_15 INT64_C(1709496000000)
#define NY_MAR03_16 INT64_C(1709499600000)
#define NY_MAR04_12 INT64_C(1709571600000)
#define NY_MAR09_15 INT64_C(1710014400000)
#define NY_MAR11_12 INT64_C(1710172800000)

static void test_misfire_cron_every_instruction(void) {
  chime_cron *c = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_cron_from_string("0 0 12 * * ?", &c, NULL, NULL, 0), 0);
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_CRON;
  s.start_ms = NY_MAR01_12 - H;
  s.end_ms = CHIME_END_NONE;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("America/New_York", &s.zone), 0);
  s.u.cron.cron = c;
  const chime_fire_state before =
      state(NY_MAR01_12, CHIME_NO_FIRE, 0, s.start_ms, 0);
  static const struct {
    int line;
    chime_misfire m;
    int64_t end, now, next;
  } rows[] = {
      {__LINE__, CHIME_MISFIRE_IGNORE, CHIME_END_NONE, NY_MAR03_15,
       NY_MAR01_12},
      {__LINE__, CHIME_MISFIRE_SMART, CHIME_END_NONE, NY_MAR03_15, NY_MAR03_15},
      {__LINE__, CHIME_MISFIRE_FIRE_NOW, CHIME_END_NONE, NY_MAR03_15,
       NY_MAR03_15},
      {__LINE__, CHIME_MISFIRE_DO_NOTHING, CHIME_END_NONE, NY_MAR03_15,
       NY_MAR04_12},
      {__LINE__, CHIME_MISFIRE_DO_NOTHING, NY_MAR03_16, NY_MAR03_15,
       CHIME_NO_FIRE},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    s.misfire = rows[i].m;
    s.end_ms = rows[i].end;
    chime_fire_state st = before;
    ROW_ASSERT(chime__trigger_apply_misfire(&s, &st, rows[i].now) == 0,
               rows[i].line);
    chime_fire_state want = before;
    want.next_fire_ms = rows[i].next;
    ROW_ASSERT(same(&st, &want), rows[i].line);
  }
  /* DO_NOTHING skips what the calendar excludes. */
  chime_calendar_opts o = {.zone = s.zone};
  chime_calendar *weekend = NULL;
  CU_ASSERT_EQUAL_FATAL(chime__calendar_weekly_new(&o, CHIME__CALENDAR_WEEKEND,
                                                   &weekend, NULL, 0),
                        0);
  s.calendar = weekend;
  s.misfire = CHIME_MISFIRE_DO_NOTHING;
  s.end_ms = CHIME_END_NONE;
  chime_fire_state st = before;
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, NY_MAR09_15), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, NY_MAR11_12);
  chime__calendar_unref(weekend);
  chime_cron_free(c);
}

/* Calendar-interval daily at 09:00Z from Jan 1; next Jan 2, now Jan 5 10:00. */
#define JAN02_09 INT64_C(1704186000000)
#define JAN05_10 INT64_C(1704448800000)
#define JAN06_09 INT64_C(1704531600000)

static void test_misfire_calint_every_instruction(void) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_CALENDAR_INTERVAL;
  s.start_ms = JAN02_09 - 24 * H;
  s.end_ms = CHIME_END_NONE;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("UTC", &s.zone), 0);
  s.u.calint.interval = 1;
  s.u.calint.unit = CHIME_UNIT_DAY;
  const chime_fire_state before =
      state(JAN02_09, JAN02_09 - 24 * H, 1, s.start_ms, 0);
  static const struct {
    int line;
    chime_misfire m;
    int64_t next;
  } rows[] = {
      {__LINE__, CHIME_MISFIRE_IGNORE, JAN02_09},
      {__LINE__, CHIME_MISFIRE_SMART, JAN05_10},
      {__LINE__, CHIME_MISFIRE_FIRE_NOW, JAN05_10},
      {__LINE__, CHIME_MISFIRE_DO_NOTHING, JAN06_09},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    s.misfire = rows[i].m;
    chime_fire_state st = before;
    ROW_ASSERT(chime__trigger_apply_misfire(&s, &st, JAN05_10) == 0,
               rows[i].line);
    chime_fire_state want = before;
    want.next_fire_ms = rows[i].next;
    ROW_ASSERT(same(&st, &want), rows[i].line);
  }
  /* After firing now, the schedule returns to 09:00 (Quartz restarts each
   * computation from the start). */
  s.misfire = CHIME_MISFIRE_FIRE_NOW;
  chime_fire_state st = before;
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, JAN05_10), 0);
  chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.prev_fire_ms, JAN05_10);
  CU_ASSERT_EQUAL(st.next_fire_ms, JAN06_09);
  CU_ASSERT_EQUAL(st.times_triggered, 2);
}

/* Daily 09:00-17:00 hourly on weekdays; next Fri 09:00, now Fri 12:30. */
#define FRI_09 INT64_C(1704445200000)
#define FRI_1230 INT64_C(1704457800000)
#define FRI_13 INT64_C(1704459600000)

static void test_misfire_daily_every_instruction(void) {
  chime_schedule s;
  memset(&s, 0, sizeof s);
  s.kind = CHIME_TRIGGER_DAILY_TIME_INTERVAL;
  s.start_ms = FRI_09 - 9 * H;
  s.end_ms = CHIME_END_NONE;
  CU_ASSERT_EQUAL_FATAL(chime_zone_get("UTC", &s.zone), 0);
  s.u.daily.start_sec_of_day = 9 * 3600;
  s.u.daily.end_sec_of_day = 17 * 3600;
  s.u.daily.days_of_week = 0x3E;
  s.u.daily.interval = 1;
  s.u.daily.unit = CHIME_UNIT_HOUR;
  s.u.daily.repeat_count = CHIME_REPEAT_INDEFINITELY;
  const chime_fire_state before =
      state(FRI_09, CHIME_NO_FIRE, 0, s.start_ms, 0);
  static const struct {
    int line;
    chime_misfire m;
    int32_t repeat;
    int64_t next;
  } rows[] = {
      {__LINE__, CHIME_MISFIRE_IGNORE, -1, FRI_09},
      {__LINE__, CHIME_MISFIRE_SMART, -1, FRI_1230},
      {__LINE__, CHIME_MISFIRE_FIRE_NOW, -1, FRI_1230},
      {__LINE__, CHIME_MISFIRE_DO_NOTHING, -1, FRI_13},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    s.misfire = rows[i].m;
    s.u.daily.repeat_count = rows[i].repeat;
    chime_fire_state st = before;
    ROW_ASSERT(chime__trigger_apply_misfire(&s, &st, FRI_1230) == 0,
               rows[i].line);
    chime_fire_state want = before;
    want.next_fire_ms = rows[i].next;
    ROW_ASSERT(same(&st, &want), rows[i].line);
  }
  /* Fire now, then back on the window's grid. */
  s.misfire = CHIME_MISFIRE_FIRE_NOW;
  chime_fire_state st = before;
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, FRI_1230), 0);
  chime__trigger_triggered(&s, &st);
  CU_ASSERT_EQUAL(st.next_fire_ms, FRI_13);
  /* DO_NOTHING with the repeats used up: finished. */
  s.misfire = CHIME_MISFIRE_DO_NOTHING;
  s.u.daily.repeat_count = 2;
  st = before;
  st.times_triggered = 3;
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, FRI_1230), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, CHIME_NO_FIRE);
}

static void test_misfire_valid_per_kind(void) {
  /* Rows: instruction; accepted by simple, cron, calint, daily. */
  static const struct {
    int line;
    chime_misfire m;
    bool ok[4];
  } rows[] = {
      {__LINE__, CHIME_MISFIRE_SMART, {true, true, true, true}},
      {__LINE__, CHIME_MISFIRE_IGNORE, {true, true, true, true}},
      {__LINE__, CHIME_MISFIRE_FIRE_NOW, {true, true, true, true}},
      {__LINE__, CHIME_MISFIRE_DO_NOTHING, {false, true, true, true}},
      {__LINE__,
       CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT,
       {true, false, false, false}},
      {__LINE__,
       CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT,
       {true, false, false, false}},
      {__LINE__,
       CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT,
       {true, false, false, false}},
      {__LINE__,
       CHIME_MISFIRE_RESCHEDULE_NEXT_EXISTING_COUNT,
       {true, false, false, false}},
      {__LINE__, (chime_misfire)8, {false, false, false, false}},
      {__LINE__, (chime_misfire)-1, {false, false, false, false}},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    for (int k = 0; k < 4; k++)
      ROW_ASSERT(chime__misfire_valid((chime_trigger_kind)(k + 1), rows[i].m) ==
                     rows[i].ok[k],
                 rows[i].line);
  CU_ASSERT_FALSE(
      chime__misfire_valid((chime_trigger_kind)0, CHIME_MISFIRE_SMART));
  /* apply refuses a schedule whose instruction its kind does not accept. */
  chime_schedule s = simple(3, CHIME_MISFIRE_DO_NOTHING);
  chime_fire_state st = state(T0, CHIME_NO_FIRE, 0, T0, 3);
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, T0 + H), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st.next_fire_ms, T0);
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(NULL, &st, T0), CHIME_EINVAL);
  /* A finished trigger stays finished, whatever the instruction. */
  s = simple(0, CHIME_MISFIRE_FIRE_NOW);
  st = state(CHIME_NO_FIRE, T0, 1, T0, 0);
  CU_ASSERT_EQUAL(chime__trigger_apply_misfire(&s, &st, T0 + H), 0);
  CU_ASSERT_EQUAL(st.next_fire_ms, CHIME_NO_FIRE);
}

static void test_misfire_smart_resolution(void) {
  chime_schedule s = simple(0, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime__misfire_effective(&s, NULL), CHIME_MISFIRE_FIRE_NOW);
  s = simple(CHIME_REPEAT_INDEFINITELY, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime__misfire_effective(&s, NULL),
                  CHIME_MISFIRE_RESCHEDULE_NEXT_REMAINING_COUNT);
  s = simple(4, CHIME_MISFIRE_SMART);
  CU_ASSERT_EQUAL(chime__misfire_effective(&s, NULL),
                  CHIME_MISFIRE_RESCHEDULE_NOW_EXISTING_COUNT);
  s = simple(4, CHIME_MISFIRE_FIRE_NOW);
  CU_ASSERT_EQUAL(chime__misfire_effective(&s, NULL),
                  CHIME_MISFIRE_RESCHEDULE_NOW_REMAINING_COUNT);
  /* The effective repeat count decides: 0 left after a reschedule. */
  chime_fire_state st = state(T0, CHIME_NO_FIRE, 0, T0, 0);
  CU_ASSERT_EQUAL(chime__misfire_effective(&s, &st), CHIME_MISFIRE_FIRE_NOW);
  s.kind = CHIME_TRIGGER_CRON;
  s.misfire = CHIME_MISFIRE_SMART;
  CU_ASSERT_EQUAL(chime__misfire_effective(&s, NULL), CHIME_MISFIRE_FIRE_NOW);
}

static void test_misfire_is_misfired(void) {
  chime_schedule s = simple(3, CHIME_MISFIRE_SMART);
  const int64_t now = T0 + H;
  chime_fire_state st = state(now - M, CHIME_NO_FIRE, 0, T0, 3);
  CU_ASSERT_TRUE(chime__trigger_is_misfired(&s, &st, now, M));
  st.next_fire_ms = now - M + 1;
  CU_ASSERT_FALSE(chime__trigger_is_misfired(&s, &st, now, M));
  CU_ASSERT_TRUE(chime__trigger_is_misfired(&s, &st, now, 0));
  CU_ASSERT_TRUE(chime__trigger_is_misfired(&s, &st, now, -5));
  st.next_fire_ms = now + 1;
  CU_ASSERT_FALSE(chime__trigger_is_misfired(&s, &st, now, 0));
  st.next_fire_ms = CHIME_NO_FIRE;
  CU_ASSERT_FALSE(chime__trigger_is_misfired(&s, &st, now, 0));
  st.next_fire_ms = T0;
  s.misfire = CHIME_MISFIRE_IGNORE; /* never "misfired" for the stores */
  CU_ASSERT_FALSE(chime__trigger_is_misfired(&s, &st, now, M));
  s.misfire = CHIME_MISFIRE_SMART;
  CU_ASSERT_FALSE(chime__trigger_is_misfired(&s, &st, INT64_MIN + 5, M));
  CU_ASSERT_FALSE(chime__trigger_is_misfired(NULL, &st, now, M));
}

static CU_TestInfo misfire_tests[] = {
    {"simple: every instruction", test_misfire_simple_every_instruction},
    {"simple: one-shot fires now", test_misfire_simple_one_shot},
    {"simple: reschedule now, then fires",
     test_misfire_simple_reschedule_now_then_fires},
    {"simple: reschedule next with a calendar",
     test_misfire_simple_next_with_calendar},
    {"cron: every instruction", test_misfire_cron_every_instruction},
    {"calendar-interval: every instruction",
     test_misfire_calint_every_instruction},
    {"daily-time-interval: every instruction",
     test_misfire_daily_every_instruction},
    {"instructions valid per kind", test_misfire_valid_per_kind},
    {"smart policy resolution", test_misfire_smart_resolution},
    {"misfire test for the stores", test_misfire_is_misfired},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "triggers/misfire", .pTests = misfire_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
