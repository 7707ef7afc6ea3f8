/*
 * store-conformance.c: the job store conformance suite (see
 * store-conformance.h), part one: the shared helpers, jobs and triggers
 * (add, replace, get, remove, cascades, key checks), group matchers,
 * pausing, calendars and trigger states.  Part two, firing, is in
 * store-conformance-fire.c.
 */
#include "store-conformance.h"
#include "store-conformance-impl.h"

#include "model/records.h"
#include "triggers/calendar.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sc_url;
void (*sc_reset)(void);
size_t sc_load_triggers = 100000, sc_thread_triggers = 20000;

void chime_store_conformance_set_reset(void (*reset)(void)) {
  sc_reset = reset;
}

void chime_store_conformance_set_sizes(size_t load_triggers,
                                       size_t thread_triggers) {
  if (load_triggers > 0)
    sc_load_triggers = load_triggers;
  if (thread_triggers > 0)
    sc_thread_triggers = thread_triggers;
}

/* ---------------------------------------------------------------- helpers */

chime_store *sc_open(void) {
  return sc_open_skewed(0);
}

chime_store *sc_open_skewed(int64_t clock_offset_ms) {
  chime_store_options o = {
      .test_clock_offset_ms = clock_offset_ms,
      .scheduler_name = "conformance",
      .instance_id = "node-a",
      .misfire_threshold_ms = THRESHOLD,
      .checkin_interval_ms = 1000,
      .connections = 2,
  };
  chime_store *st = NULL;
  char err[256] = "";
  if (sc_reset)
    sc_reset();
  int r = chime__store_open(sc_url, &o, &st, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "cannot open store %s: %s: %s\n", sc_url, chime_err_name(r),
            err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(st);
  return st;
}

void sc_close(chime_store *st) {
  if (st)
    st->ops->free(st);
}

chime_job *sc_job(const char *group, const char *name, const char *type,
                  bool durable) {
  chime_job *job = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_job_new(group, name, type, &job, NULL, 0), 0);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_durable(job, durable), 0);
  return job;
}

void sc_add_job(chime_store *st, const char *group, const char *name,
                const char *type, bool durable) {
  chime_job *job = sc_job(group, name, type, durable);
  CU_ASSERT_EQUAL_FATAL(st->ops->job_add(st, job, false), 0);
  chime_job_free(job);
}

chime_trigger *sc_simple(const char *group, const char *name,
                         const char *jgroup, const char *jname, int64_t start,
                         int64_t interval, int32_t repeat) {
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(chime_trigger_simple_new(group, name, interval, repeat,
                                                 &t, err, sizeof err),
                        0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, jgroup, jname), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, start), 0);
  return t;
}

void sc_add_simple(chime_store *st, const char *group, const char *name,
                   const char *jgroup, const char *jname, int64_t start,
                   int64_t interval, int32_t repeat) {
  chime_trigger *t =
      sc_simple(group, name, jgroup, jname, start, interval, repeat);
  char err[256] = "";
  int r = st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err);
  if (r != 0)
    fprintf(stderr, "trigger_add %s.%s: %s: %s\n", group, name,
            chime_err_name(r), err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  chime_trigger_free(t);
}

chime_trigger *sc_cron(const char *group, const char *name, const char *jgroup,
                       const char *jname, const char *expr, int64_t start) {
  chime_trigger *t = NULL;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_cron_new(group, name, expr, "UTC", &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_job(t, jgroup, jname), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, start), 0);
  return t;
}

chime_trigger_status sc_status(chime_store *st, const char *group,
                               const char *name) {
  chime_trigger_status s = (chime_trigger_status)-1;
  CU_ASSERT_EQUAL_FATAL(st->ops->trigger_status(st, group, name, &s), 0);
  return s;
}

chime_trigger *sc_get(chime_store *st, const char *group, const char *name) {
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->trigger_get(st, group, name, &t), 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  return t;
}

int64_t sc_next(chime_store *st, const char *group, const char *name) {
  chime_trigger *t = sc_get(st, group, name);
  int64_t next = chime_trigger_get_next_fire_ms(t);
  chime_trigger_free(t);
  return next;
}

size_t sc_acquire(chime_store *st, int64_t now, int64_t no_later_than,
                  size_t max, const chime_type_set *types, chime_fire ***ret) {
  chime_fire **fires = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(
      st->ops->acquire(st, now, no_later_than, max, types, &fires, &n), 0);
  *ret = fires;
  return n;
}

void sc_fires_free(chime_fire **fires, size_t n) {
  for (size_t i = 0; i < n; i++)
    chime__fire_free(fires[i]);
  free(fires);
}

chime_fire *sc_fire_next(chime_store *st, int64_t now) {
  chime_fire **fires;
  size_t n = sc_acquire(st, now, now, 1, NULL, &fires);
  if (n == 0) {
    free(fires);
    return NULL;
  }
  chime_fire *f = fires[0];
  free(fires);
  CU_ASSERT_EQUAL_FATAL(st->ops->fire(st, &f, 1, now), 0);
  CU_ASSERT_EQUAL(f->result, 0);
  return f;
}

int sc_complete(chime_store *st, const chime_fire *fire) {
  chime_run_result o = {.started_ms = T0, .finished_ms = T0};
  return st->ops->complete(st, fire, &o);
}

int sc_fail(chime_store *st, const chime_fire *fire) {
  int64_t now = st->ops->now(st);
  chime_run_result o = {.error = CHIME_EINTERNAL,
                        .message = "failed on purpose",
                        .started_ms = now,
                        .finished_ms = now};
  return st->ops->complete(st, fire, &o);
}

/* A job record built by hand, to reach the store's own checks. */
static chime_job raw_job(char *group, char *name, char *type) {
  chime_job j = {.group = group, .name = name, .type = type};
  return j;
}

/* ------------------------------------------------------------------- jobs */

static void test_store_job_crud(void) {
  chime_store *st = sc_open();
  chime_job *job = sc_job("g", "j", "type-a", true);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_description(job, "first"), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, false), CHIME_EEXISTS);
  CU_ASSERT_EQUAL_FATAL(chime_job_set_description(job, "second"), 0);
  CU_ASSERT_EQUAL(st->ops->job_add(st, job, true), 0);
  chime_job_free(job);

  chime_job *got = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "j", &got), 0);
  CU_ASSERT_STRING_EQUAL(chime_job_get_description(got), "second");
  CU_ASSERT_STRING_EQUAL(chime_job_get_type(got), "type-a");
  CU_ASSERT(chime_job_get_durable(got));
  /* A copy: changing it changes nothing in the store. */
  CU_ASSERT_EQUAL(chime_job_set_description(got, "changed"), 0);
  chime_job_free(got);
  got = NULL;
  CU_ASSERT_EQUAL_FATAL(st->ops->job_get(st, "g", "j", &got), 0);
  CU_ASSERT_STRING_EQUAL(chime_job_get_description(got), "second");
  chime_job_free(got);

  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "nope", &got), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "nope"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "j"), 0);
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "j", &got), CHIME_ENOTFOUND);
  sc_close(st);
}

static void test_store_job_remove_cascades(void) {
  chime_store *st = sc_open();
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "t1", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "t2", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "g", "j"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t1"), CHIME_TRIGGER_NONE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t2"), CHIME_TRIGGER_NONE);
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL(st->ops->trigger_get(st, "tg", "t1", &t), CHIME_ENOTFOUND);
  sc_close(st);
}

static void test_store_job_key_errors(void) {
  static const struct {
    const char *group, *name, *type;
    int code;
    int line;
  } rows[] = {
      {"", "j", "t", CHIME_EINVAL, __LINE__},
      {"g", "", "t", CHIME_EINVAL, __LINE__},
      {"g", "j", "", CHIME_EINVAL, __LINE__},
      {"g", "a\nb", "t", CHIME_EINVAL, __LINE__},
      {"g\x7f", "j", "t", CHIME_EINVAL, __LINE__},
      {"g", "\xff\xfe", "t", CHIME_EINVAL, __LINE__},
      {NULL, "j", "t", CHIME_EINVAL, __LINE__},
      {"g", "j", NULL, CHIME_EINVAL, __LINE__},
      {"g", "LONG", "t", CHIME_ELIMIT, __LINE__},
  };
  char long_name[CHIME_MAX_NAME_LEN + 2];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  chime_store *st = sc_open();
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const char *name =
        strcmp(rows[i].name, "LONG") == 0 ? long_name : rows[i].name;
    chime_job j =
        raw_job((char *)rows[i].group, (char *)name, (char *)rows[i].type);
    int r = st->ops->job_add(st, &j, false);
    if (r != rows[i].code)
      fprintf(stderr, "row at line %d: %s\n", rows[i].line, chime_err_name(r));
    CU_ASSERT_EQUAL(r, rows[i].code);
  }
  chime_job *got = NULL;
  CU_ASSERT_EQUAL(st->ops->job_add(st, NULL, false), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->job_get(st, NULL, "j", &got), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", long_name, &got), CHIME_ELIMIT);
  CU_ASSERT_EQUAL(st->ops->job_remove(st, "", "j"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "g", NULL), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "", "x"), CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->pause_job(st, "g", long_name), CHIME_ELIMIT);
  chime_trigger_status s;
  CU_ASSERT_EQUAL(st->ops->trigger_status(st, NULL, "x", &s), CHIME_EINVAL);
  sc_close(st);
}

/* --------------------------------------------------------------- triggers */

static void test_store_trigger_crud(void) {
  chime_store *st = sc_open();
  char err[256];
  int64_t first = 0;
  chime_trigger *t = sc_simple("tg", "t", "g", "j", T0 + SEC, MINUTE, 3);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, &first, err, sizeof err),
      CHIME_ENOTFOUND);
  /* The job in the same step. */
  chime_job *job = sc_job("g", "j", "type-a", false);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, job, t, false, &first, err, sizeof err), 0);
  CU_ASSERT_EQUAL(first, T0 + SEC);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, job, t, false, NULL, err, sizeof err),
      CHIME_EEXISTS);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err),
      CHIME_EEXISTS);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_priority(t, 9), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_add(st, job, t, true, NULL, err, sizeof err),
                  0);
  chime_trigger_free(t);

  chime_trigger *got = sc_get(st, "tg", "t");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_job_group(got), "g");
  CU_ASSERT_STRING_EQUAL(chime_trigger_get_job_name(got), "j");
  CU_ASSERT_EQUAL(chime_trigger_get_priority(got), 9);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(got), T0 + SEC);
  CU_ASSERT_EQUAL(chime_trigger_get_prev_fire_ms(got), CHIME_NO_FIRE_MS);
  CU_ASSERT_EQUAL(chime_trigger_get_times_triggered(got), 0);
  CU_ASSERT_EQUAL(chime_trigger_get_status(got), CHIME_TRIGGER_NORMAL);
  chime_trigger_free(got);

  /* A second trigger; the job's trigger list is sorted. */
  sc_add_simple(st, "tg", "a-second", "g", "j", T0, 0, 0);
  chime_key *keys = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL_FATAL(st->ops->trigger_list_for_job(st, "g", "j", &keys, &n),
                        0);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_STRING_EQUAL(keys[0].name, "a-second");
  CU_ASSERT_STRING_EQUAL(keys[1].name, "t");
  chime_key_free_array(keys, n);

  /* A non-durable job goes with its last trigger. */
  chime_job_free(job);
  job = NULL;
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "t"), 0);
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "t"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "j", &job), 0);
  chime_job_free(job);
  job = NULL;
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "a-second"), 0);
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "j", &job), CHIME_ENOTFOUND);

  /* A durable one stays. */
  sc_add_job(st, "g", "d", "type-a", true);
  sc_add_simple(st, "tg", "t", "g", "d", T0, 0, 0);
  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "t"), 0);
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "d", &job), 0);
  chime_job_free(job);
  sc_close(st);
}

static void test_store_trigger_add_errors(void) {
  chime_store *st = sc_open();
  char err[256];
  sc_add_job(st, "g", "j", "t", true);
  /* Names no job. */
  chime_trigger *t = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime_trigger_simple_new("tg", "t", 0, 0, &t, err, sizeof err), 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_start_ms(t, T0), 0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err),
      CHIME_EINVAL);
  chime_trigger_free(t);
  /* A job given with the trigger must be the one it fires. */
  t = sc_simple("tg", "t", "g", "j", T0, 0, 0);
  chime_job *other = sc_job("g", "other", "t", true);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, other, t, false, NULL, err, sizeof err),
      CHIME_EINVAL);
  chime_job_free(other);
  /* ... and must not exist unless replacing. */
  chime_job *same = sc_job("g", "j", "t", true);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, same, t, false, NULL, err, sizeof err),
      CHIME_EEXISTS);
  chime_job_free(same);
  /* Unknown calendar. */
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_calendar(t, "no-such"), 0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err),
      CHIME_ENOTFOUND);
  chime_trigger_free(t);
  /* Never fires: a past year. */
  t = sc_cron("tg", "c", "g", "j", "0 0 0 1 1 ? 2020", T0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err),
      CHIME_ENEVERFIRES);
  chime_trigger_free(t);
  /* Invalid schedule: ends before it starts. */
  t = sc_simple("tg", "e", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_end_ms(t, T0 - SEC), 0);
  err[0] = '\0';
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, NULL, err, sizeof err),
      CHIME_EINVAL);
  CU_ASSERT(err[0] != '\0');
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t"), CHIME_TRIGGER_NONE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "c"), CHIME_TRIGGER_NONE);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "e"), CHIME_TRIGGER_NONE);
  sc_close(st);
}

static void test_store_trigger_replace(void) {
  chime_store *st = sc_open();
  char err[256];
  int64_t first = 0;
  sc_add_job(st, "g", "j", "t", false);
  sc_add_job(st, "g", "k", "t", true);
  sc_add_simple(st, "tg", "t", "g", "j", T0, 0, 0);
  chime_trigger *t = sc_simple("other", "name", "g", "j", T0 + HOUR, 0, 0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_replace(st, "tg", "nope", t, &first, err, sizeof err),
      CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(
      st->ops->trigger_replace(st, "tg", "t", t, &first, err, sizeof err), 0);
  CU_ASSERT_EQUAL(first, T0 + HOUR);
  /* The new definition took the key; the non-durable job stayed. */
  CU_ASSERT_EQUAL(sc_next(st, "tg", "t"), T0 + HOUR);
  CU_ASSERT_EQUAL(sc_status(st, "other", "name"), CHIME_TRIGGER_NONE);
  chime_job *job = NULL;
  CU_ASSERT_EQUAL(st->ops->job_get(st, "g", "j", &job), 0);
  chime_job_free(job);
  chime_trigger_free(t);
  /* It must fire the same job. */
  t = sc_simple("tg", "t", "g", "k", T0, 0, 0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_replace(st, "tg", "t", t, NULL, err, sizeof err),
      CHIME_EINVAL);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "t"), T0 + HOUR);
  chime_trigger_free(t);
  sc_close(st);
}

/* ---------------------------------------------------------- group matchers */

static const char *const groups[] = {"alpha", "alphabet", "beta",
                                     "gamma-alpha"};
#define NGROUPS (sizeof groups / sizeof groups[0])

static const struct {
  chime_match match;
  const char *pattern;
  const char *expect; /* the matching groups, in order, joined by ' ' */
  int line;
} matchers[] = {
    {CHIME_MATCH_EQUALS, "alpha", "alpha", __LINE__},
    {CHIME_MATCH_EQUALS, "alph", "", __LINE__},
    {CHIME_MATCH_STARTS_WITH, "alpha", "alpha alphabet", __LINE__},
    {CHIME_MATCH_ENDS_WITH, "alpha", "alpha gamma-alpha", __LINE__},
    {CHIME_MATCH_CONTAINS, "ph", "alpha alphabet gamma-alpha", __LINE__},
    {CHIME_MATCH_CONTAINS, "bet", "alphabet beta", __LINE__},
    {CHIME_MATCH_ANY, NULL, "alpha alphabet beta gamma-alpha", __LINE__},
};
#define NMATCHERS (sizeof matchers / sizeof matchers[0])

static void join_groups(const chime_key *keys, size_t n, char *buf,
                        size_t len) {
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    if (i > 0)
      strncat(buf, " ", len - strlen(buf) - 1);
    strncat(buf, keys[i].group, len - strlen(buf) - 1);
  }
}

/* One job and one trigger (named "t") in each group. */
static chime_store *store_with_groups(void) {
  chime_store *st = sc_open();
  for (size_t i = 0; i < NGROUPS; i++) {
    sc_add_job(st, groups[i], "j", "t", true);
    sc_add_simple(st, groups[i], "t", groups[i], "j", T0, 0, 0);
  }
  return st;
}

static void test_store_list_by_group(void) {
  chime_store *st = store_with_groups();
  char buf[256];
  for (size_t i = 0; i < NMATCHERS; i++) {
    for (int jobs = 0; jobs < 2; jobs++) {
      chime_key *keys = NULL;
      size_t n = 99;
      int r = jobs ? st->ops->job_list(st, matchers[i].match,
                                       matchers[i].pattern, &keys, &n)
                   : st->ops->trigger_list(st, matchers[i].match,
                                           matchers[i].pattern, &keys, &n);
      CU_ASSERT_EQUAL_FATAL(r, 0);
      join_groups(keys, n, buf, sizeof buf);
      if (strcmp(buf, matchers[i].expect) != 0)
        fprintf(stderr, "matcher at line %d: '%s'\n", matchers[i].line, buf);
      CU_ASSERT_STRING_EQUAL(buf, matchers[i].expect);
      chime_key_free_array(keys, n);
    }
  }
  chime_key *keys;
  size_t n;
  CU_ASSERT_EQUAL(st->ops->job_list(st, CHIME_MATCH_EQUALS, NULL, &keys, &n),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->trigger_list(st, (chime_match)99, "a", &keys, &n),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->pause_group(st, CHIME_MATCH_CONTAINS, NULL),
                  CHIME_EINVAL);
  sc_close(st);
}

static void test_store_pause_by_group(void) {
  char buf[256];
  for (size_t i = 0; i < NMATCHERS; i++) {
    chime_store *st = store_with_groups();
    CU_ASSERT_EQUAL_FATAL(
        st->ops->pause_group(st, matchers[i].match, matchers[i].pattern), 0);
    buf[0] = '\0';
    for (size_t g = 0; g < NGROUPS; g++) {
      if (sc_status(st, groups[g], "t") != CHIME_TRIGGER_PAUSED)
        continue;
      if (buf[0])
        strncat(buf, " ", sizeof buf - strlen(buf) - 1);
      strncat(buf, groups[g], sizeof buf - strlen(buf) - 1);
    }
    if (strcmp(buf, matchers[i].expect) != 0)
      fprintf(stderr, "matcher at line %d paused '%s'\n", matchers[i].line,
              buf);
    CU_ASSERT_STRING_EQUAL(buf, matchers[i].expect);
    /* The group stays paused for triggers added later. */
    for (size_t g = 0; g < NGROUPS; g++) {
      sc_add_simple(st, groups[g], "later", groups[g], "j", T0, 0, 0);
      CU_ASSERT_EQUAL(sc_status(st, groups[g], "later"),
                      sc_status(st, groups[g], "t"));
    }
    CU_ASSERT_EQUAL_FATAL(
        st->ops->resume_group(st, matchers[i].match, matchers[i].pattern), 0);
    for (size_t g = 0; g < NGROUPS; g++) {
      CU_ASSERT_EQUAL(sc_status(st, groups[g], "t"), CHIME_TRIGGER_NORMAL);
      CU_ASSERT_EQUAL(sc_status(st, groups[g], "later"), CHIME_TRIGGER_NORMAL);
      sc_add_simple(st, groups[g], "after", groups[g], "j", T0, 0, 0);
      CU_ASSERT_EQUAL(sc_status(st, groups[g], "after"), CHIME_TRIGGER_NORMAL);
    }
    sc_close(st);
  }
}

/* ---------------------------------------------------------------- pausing */

static void test_store_pause_trigger(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "t", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "nope"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->resume_trigger(st, "tg", "nope"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "t"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0, 10, NULL, &fires), 0);
  free(fires);
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "t"), 0);
  CU_ASSERT_EQUAL(st->ops->resume_trigger(st, "tg", "t"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "t"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0, 10, NULL, &fires), 1);
  sc_fires_free(fires, 1);
  sc_close(st);
}

static void test_store_pause_job(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_job(st, "g", "k", "t", true);
  sc_add_simple(st, "tg", "j1", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "j2", "g", "j", T0, 0, 0);
  sc_add_simple(st, "tg", "k1", "g", "k", T0, 0, 0);
  CU_ASSERT_EQUAL(st->ops->pause_job(st, "g", "nope"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->pause_job(st, "g", "j"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "j1"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "j2"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "k1"), CHIME_TRIGGER_NORMAL);
  /* A trigger added to a paused job starts paused. */
  sc_add_simple(st, "tg", "j3", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "j3"), CHIME_TRIGGER_PAUSED);
  size_t n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 1);
  if (n == 1)
    CU_ASSERT_STRING_EQUAL(chime_trigger_get_name(fires[0]->trigger), "k1");
  CU_ASSERT_EQUAL(st->ops->release(st, fires, n), 0);
  sc_fires_free(fires, n);
  CU_ASSERT_EQUAL(st->ops->resume_job(st, "g", "j"), 0);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "j1"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_status(st, "tg", "j3"), CHIME_TRIGGER_NORMAL);
  n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 4);
  sc_fires_free(fires, n);
  sc_close(st);
}

static void test_store_pause_all(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "a", "t", "g", "j", T0, 0, 0);
  sc_add_simple(st, "b", "t", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL(st->ops->pause_all(st), 0);
  CU_ASSERT_EQUAL(sc_status(st, "a", "t"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_status(st, "b", "t"), CHIME_TRIGGER_PAUSED);
  sc_add_simple(st, "new-group", "t", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL(sc_status(st, "new-group", "t"), CHIME_TRIGGER_PAUSED);
  CU_ASSERT_EQUAL(sc_acquire(st, T0, T0, 10, NULL, &fires), 0);
  free(fires);
  int64_t due;
  CU_ASSERT_EQUAL(st->ops->next_due(st, NULL, INT64_MIN, &due),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->resume_all(st), 0);
  CU_ASSERT_EQUAL(sc_status(st, "a", "t"), CHIME_TRIGGER_NORMAL);
  CU_ASSERT_EQUAL(sc_status(st, "new-group", "t"), CHIME_TRIGGER_NORMAL);
  sc_add_simple(st, "c", "t", "g", "j", T0, 0, 0);
  CU_ASSERT_EQUAL(sc_status(st, "c", "t"), CHIME_TRIGGER_NORMAL);
  size_t n = sc_acquire(st, T0, T0, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 4);
  sc_fires_free(fires, n);
  sc_close(st);
}

static int misfires_seen;
static void count_misfire(void *user_data, const chime_trigger *t) {
  (void)user_data;
  (void)t;
  misfires_seen++;
}

static void test_store_resume_after_missed_time(void) {
  chime_store *st = sc_open();
  chime_fire **fires;
  size_t handled = 0;
  bool more = true;
  sc_add_job(st, "g", "j", "t", true);
  sc_add_simple(st, "tg", "t", "g", "j", T0, 0, 0); /* SMART: FIRE_NOW */
  CU_ASSERT_EQUAL(st->ops->pause_trigger(st, "tg", "t"), 0);
  /* Paused triggers are not misfire-scanned. */
  int64_t later = T0 + 10 * MINUTE;
  misfires_seen = 0;
  CU_ASSERT_EQUAL(st->ops->scan_misfires(st, later, 10, count_misfire, NULL,
                                         &handled, &more),
                  0);
  CU_ASSERT_EQUAL(handled, 0);
  CU_ASSERT_EQUAL(st->ops->resume_trigger(st, "tg", "t"), 0);
  /* Too late to acquire as it is ... */
  CU_ASSERT_EQUAL(sc_acquire(st, later, later, 10, NULL, &fires), 0);
  free(fires);
  /* ... until the scan applied its instruction. */
  CU_ASSERT_EQUAL(st->ops->scan_misfires(st, later, 10, count_misfire, NULL,
                                         &handled, &more),
                  0);
  CU_ASSERT_EQUAL(handled, 1);
  CU_ASSERT_FALSE(more);
  CU_ASSERT_EQUAL(misfires_seen, 1);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "t"), later);
  size_t n = sc_acquire(st, later, later, 10, NULL, &fires);
  CU_ASSERT_EQUAL(n, 1);
  sc_fires_free(fires, n);
  sc_close(st);
}

/* -------------------------------------------------------------- calendars */

static chime_calendar *holidays(const char *dates_text) {
  chime_calendar_date dates[4];
  size_t n = 0;
  for (const char *p = dates_text; *p && n < 4; p += 10) {
    dates[n].year = (int)strtol(p, NULL, 10);
    dates[n].month = (int)strtol(p + 5, NULL, 10);
    dates[n].day = (int)strtol(p + 8, NULL, 10);
    n++;
    if (p[10] == ',')
      p++;
    else if (p[10] == '\0')
      break;
  }
  chime_calendar *cal = NULL;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(
      chime__calendar_holiday_new(NULL, dates, n, &cal, err, sizeof err), 0);
  return cal;
}

static void test_store_calendars(void) {
  chime_store *st = sc_open();
  char err[256];
  int64_t first = 0;
  chime_calendar *jan1 = holidays("2030-01-01");
  chime_calendar *jan1_2 = holidays("2030-01-01,2030-01-02");
  chime_calendar *got = NULL;
  CU_ASSERT_EQUAL(st->ops->calendar_add(st, "hol", jan1, false, false), 0);
  CU_ASSERT_EQUAL(st->ops->calendar_add(st, "hol", jan1, false, false),
                  CHIME_EEXISTS);
  CU_ASSERT_EQUAL(st->ops->calendar_add(st, "", jan1, false, false),
                  CHIME_EINVAL);
  CU_ASSERT_EQUAL(st->ops->calendar_get(st, "nope", &got), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL_FATAL(st->ops->calendar_get(st, "hol", &got), 0);
  CU_ASSERT(chime__calendar_includes(got, T0 + DAY));
  CU_ASSERT_FALSE(chime__calendar_includes(got, T0));
  chime__calendar_unref(got);

  /* The trigger skips the excluded day. */
  sc_add_job(st, "g", "j", "t", true);
  chime_trigger *t =
      sc_simple("tg", "t", "g", "j", T0, HOUR, CHIME_REPEAT_INDEFINITELY);
  CU_ASSERT_EQUAL_FATAL(chime_trigger_set_calendar(t, "hol"), 0);
  CU_ASSERT_EQUAL(
      st->ops->trigger_add(st, NULL, t, false, &first, err, sizeof err), 0);
  chime_trigger_free(t);
  CU_ASSERT_EQUAL(first, T0 + DAY);
  CU_ASSERT_EQUAL(st->ops->calendar_remove(st, "hol"), CHIME_EBUSY);

  /* Replacing without update keeps the next fire; with update recomputes. */
  CU_ASSERT_EQUAL(st->ops->calendar_add(st, "hol", jan1_2, true, false), 0);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "t"), T0 + DAY);
  CU_ASSERT_EQUAL(st->ops->calendar_add(st, "hol", jan1_2, true, true), 0);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "t"), T0 + 2 * DAY);

  /* Fires go on skipping excluded times. */
  chime_fire *f = sc_fire_next(st, T0 + 2 * DAY);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->scheduled_ms, T0 + 2 * DAY);
  CU_ASSERT_EQUAL(chime_trigger_get_next_fire_ms(f->trigger),
                  T0 + 2 * DAY + HOUR);
  CU_ASSERT_EQUAL(sc_complete(st, f), 0);
  chime__fire_free(f);
  CU_ASSERT_EQUAL(st->ops->calendar_add(st, "hol", jan1, true, true), 0);
  CU_ASSERT_EQUAL(sc_next(st, "tg", "t"), T0 + 2 * DAY + HOUR);

  CU_ASSERT_EQUAL(st->ops->trigger_remove(st, "tg", "t"), 0);
  CU_ASSERT_EQUAL(st->ops->calendar_remove(st, "hol"), 0);
  CU_ASSERT_EQUAL(st->ops->calendar_remove(st, "hol"), CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->calendar_get(st, "hol", &got), CHIME_ENOTFOUND);
  sc_close(st);
  /* The store kept its own references. */
  CU_ASSERT(chime__calendar_includes(jan1, T0 + DAY));
  chime__calendar_unref(jan1);
  chime__calendar_unref(jan1_2);
}

/* ------------------------------------------------------------------- open */

static void test_store_open_and_basics(void) {
  chime_store *st = sc_open();
  CU_ASSERT_PTR_NOT_NULL(st->ops->name);
  int64_t now = st->ops->now(st);
  CU_ASSERT(now > INT64_C(1600000000000));
  size_t recovered = 99;
  CU_ASSERT_EQUAL(st->ops->checkin(st, now, NULL), 0);
  CU_ASSERT_EQUAL(st->ops->recover_dead_nodes(st, now, &recovered), 0);
  CU_ASSERT_EQUAL(recovered, 0);
  chime_trigger_status s = CHIME_TRIGGER_NORMAL;
  CU_ASSERT_EQUAL(st->ops->trigger_status(st, "no", "such", &s), 0);
  CU_ASSERT_EQUAL(s, CHIME_TRIGGER_NONE);
  chime__fire_free(NULL);
  sc_close(st);
}

static CU_TestInfo definition_tests[] = {
    {"open, clock and maintenance calls", test_store_open_and_basics},
    {"job add, replace, get, remove", test_store_job_crud},
    {"removing a job removes its triggers", test_store_job_remove_cascades},
    {"job and key validation", test_store_job_key_errors},
    {"trigger add, get, remove, cascades", test_store_trigger_crud},
    {"trigger add errors", test_store_trigger_add_errors},
    {"trigger replace", test_store_trigger_replace},
    {"list jobs and triggers by group matcher", test_store_list_by_group},
    {"pause and resume by group matcher", test_store_pause_by_group},
    {"pause and resume a trigger", test_store_pause_trigger},
    {"pause and resume a job", test_store_pause_job},
    {"pause and resume all", test_store_pause_all},
    {"resume after a missed time, then the misfire scan",
     test_store_resume_after_missed_time},
    {"calendars", test_store_calendars},
    CU_TEST_INFO_NULL,
};

CU_TestInfo *chime_store_conformance_tests(const char *url) {
  static CU_TestInfo all[128];
  size_t n = 0;
  sc_url = url;
  for (size_t i = 0; definition_tests[i].pName; i++)
    all[n++] = definition_tests[i];
  for (size_t i = 0; sc_fire_tests[i].pName; i++)
    all[n++] = sc_fire_tests[i];
  for (size_t i = 0; sc_lease_tests[i].pName; i++)
    all[n++] = sc_lease_tests[i];
  for (size_t i = 0; sc_policy_tests[i].pName; i++)
    all[n++] = sc_policy_tests[i];
  for (size_t i = 0; sc_time_tests[i].pName; i++)
    all[n++] = sc_time_tests[i];
  for (size_t i = 0; sc_shard_tests[i].pName; i++)
    all[n++] = sc_shard_tests[i];
  for (size_t i = 0; sc_limit_tests[i].pName; i++)
    all[n++] = sc_limit_tests[i];
  for (size_t i = 0; sc_queue_tests[i].pName; i++)
    all[n++] = sc_queue_tests[i];
  for (size_t i = 0; sc_history_tests[i].pName; i++)
    all[n++] = sc_history_tests[i];
  for (size_t i = 0; sc_drain_tests[i].pName; i++)
    all[n++] = sc_drain_tests[i];
  for (size_t i = 0; sc_admin_ops_tests[i].pName; i++)
    all[n++] = sc_admin_ops_tests[i];
  for (size_t i = 0; sc_repair_tests[i].pName; i++)
    all[n++] = sc_repair_tests[i];
  for (size_t i = 0; sc_figure_tests[i].pName; i++)
    all[n++] = sc_figure_tests[i];
  assert(n < sizeof all / sizeof all[0]);
  all[n] = (CU_TestInfo)CU_TEST_INFO_NULL;
  return all;
}
