/*
 * chimectl-test-setup.c: prepares a database for test-chimectl.py.
 *
 *   chimectl-test-setup setup URL   jobs and triggers of every kind (via
 *                                   the store), then, by SQL, a blocked
 *                                   FORBID job, a claim of a dead node,
 *                                   a node dead by the lease rule only,
 *                                   an ended trigger, history rows and
 *                                   leases (one held, one run out)
 *   chimectl-test-setup finish URL  ends the running fire 900001: its
 *                                   fired row goes, history row 104
 *                                   (what watch's refresh shows)
 *   chimectl-test-setup stats URL   history rows of job st.sync that
 *                                   stats must tell apart: scheduled
 *                                   runs (late 20, 40, 30 ms, one of them
 *                                   FAILED), a backfill, a fire-now, a
 *                                   retry, and a run a dead node lost
 *                                   (REQUEUED) that its recovery ran OK
 *   chimectl-test-setup unstats URL deletes them again (watch's checks
 *                                   count the history)
 *   chimectl-test-setup newer URL   records schema version 99
 *   chimectl-test-setup compatible URL  records the next schema version,
 *                                   compatible with the current one
 *   chimectl-test-setup stuck URL   on a fresh schema, one of each stuck
 *                                   state chimectl repair finds (issue
 *                                   35): a FORBID job blocked with no run
 *                                   (st.forbid), a fire EXECUTING on a
 *                                   live node that does not list it (fire
 *                                   900100 on busy-node, which lists its
 *                                   other fire 900101), a trigger in
 *                                   ERROR (st.err), a retry trigger whose
 *                                   job is gone (CHIME_RETRY.orphan) and
 *                                   a lease held by a node that is gone
 *                                   (stale)
 *   chimectl-test-setup drained URL busy-node says it is drained (what
 *                                   the node writes once it runs nothing)
 *   chimectl-test-setup drop URL    drops the tables of the URL's prefix
 *
 * The scheduler name is "ctltest".  Exit status 0, or 1 with a message.
 */
#include "chime.h"
#include "jobstore/mysql/admin.h"

#include <inttypes.h>
#include <mysql.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCHED "ctltest"

static int fail(const char *what, int r, const char *err) {
  fprintf(stderr, "chimectl-test-setup: %s: %s %s\n", what, chime_strerror(r),
          err ? err : "");
  return 1;
}

/* Runs printf-formatted SQL on db.  Returns 0 or 1. */
static int sql(MYSQL *db, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int sql(MYSQL *db, const char *fmt, ...) {
  char text[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (mysql_query(db, text) != 0) {
    fprintf(stderr, "chimectl-test-setup: %s: %s\n", text, mysql_error(db));
    return 1;
  }
  MYSQL_RES *res = mysql_store_result(db);
  if (res)
    mysql_free_result(res);
  return 0;
}

static int add(chime__mysql_admin *a, const char *jg, const char *jn,
               const char *type, bool forbid, chime_trigger *t) {
  chime_job *job = NULL;
  char err[256] = "";
  int r = chime_job_new(jg, jn, type, &job, NULL, 0);
  if (r == 0 && forbid)
    r = chime_job_set_concurrency(job, CHIME_CONCURRENCY_FORBID);
  if (r == 0 && forbid) /* run policies `show job` prints */
    r = chime_job_set_timeout_ms(job, 3600000);
  if (r == 0 && forbid)
    r = chime_job_set_starting_deadline_ms(job, 120000);
  if (r == 0)
    r = chime_job_set_durable(job, true);
  if (r == 0 && t)
    r = chime_trigger_set_job(t, jg, jn);
  if (r == 0)
    r = chime__mysql_admin_schedule(a, job, t, err, sizeof err);
  chime_job_free(job);
  chime_trigger_free(t);
  return r < 0 ? fail("adding a job or trigger", r, err) : 0;
}

/* The jobs and triggers, through the store; *ret_now: the database's
 * clock.  Returns 0 or 1. */
static int fill_store(const char *url, int64_t *ret_now) {
  char err[512] = "";
  chime__mysql_admin *s = NULL;
  int r = chime__mysql_admin_open(url, "auto_create=1&clear=1", SCHED,
                                  "ctl-helper", &s, err, sizeof err);
  if (r < 0)
    return fail("opening the store", r, err);
  int64_t now = chime__mysql_admin_now(s);
  *ret_now = now;
  chime_trigger *t[8] = {NULL};
  int e = 0;
  e |= chime_trigger_cron_new("rep", "daily-cron", "0 0 2 * * ?",
                              "Asia/Shanghai", &t[0], NULL, 0);
  e |= chime_trigger_simple_new("rep", "hourly", 3600000,
                                CHIME_REPEAT_INDEFINITELY, &t[1], NULL, 0);
  e |= chime_trigger_calendar_interval_new("etl", "cal", 2, CHIME_UNIT_DAY,
                                           "UTC", &t[2], NULL, 0);
  e |= chime_trigger_daily_new("etl", "window", 9 * 3600, 17 * 3600, 0x3e, 30,
                               CHIME_UNIT_MINUTE, CHIME_REPEAT_INDEFINITELY,
                               "Europe/Berlin", &t[3], NULL, 0);
  e |= chime_trigger_simple_new("ops", "late", 0, 0, &t[4], NULL, 0);
  e |= chime_trigger_simple_new("ops", "claimed", 600000,
                                CHIME_REPEAT_INDEFINITELY, &t[5], NULL, 0);
  e |= chime_trigger_simple_new("ops", "ended", 600000,
                                CHIME_REPEAT_INDEFINITELY, &t[6], NULL, 0);
  /* A jittered recurrence: show lists its jittered times (issue 23). */
  e |= chime_trigger_recurrence_new(
      "ops", "rrule",
      "DTSTART;TZID=Europe/Paris:20260105T090000 RRULE:FREQ=MONTHLY;BYDAY=-1FR",
      &t[7], NULL, 0);
  if (e) {
    chime__mysql_admin_free(s);
    return fail("building triggers", CHIME_EINVAL, NULL);
  }
  chime_trigger_set_priority(t[0], 7);
  chime_trigger_set_misfire(t[0], CHIME_MISFIRE_DO_NOTHING);
  chime_trigger_set_jitter_ms(t[2], 600000); /* shown as "jittered +..." */
  chime_trigger_set_starting_deadline_ms(t[2], 45000); /* over the job's */
  chime_trigger_set_jitter_ms(t[7], 600000);
  chime_trigger_set_start_ms(t[4], now - 600000);
  chime_trigger_set_start_ms(t[5], now + 600000);
  chime_trigger_set_start_ms(t[6], now + 600000);
  int bad = add(s, "rep", "daily", "report", false, t[0]);
  bad |= add(s, "rep", "hourly", "report", false, t[1]);
  bad |= add(s, "etl", "load", "etl", true, t[2]);
  bad |= add(s, "etl", "load", "etl", true, t[3]);
  bad |= add(s, "ops", "late", "ops", false, t[4]);
  bad |= add(s, "ops", "claimed", "ops", false, t[5]);
  bad |= add(s, "ops", "ended", "ops", false, t[6]);
  bad |= add(s, "ops", "late", "ops", false, t[7]);
  chime__mysql_admin_free(s);
  return bad ? 1 : 0;
}

/* The rest, by SQL: nodes, a running fire, states, history. */
static int setup(const char *url, MYSQL *db, const char *p) {
  int64_t now = 0;
  int bad = fill_store(url, &now);
  if (bad)
    return bad;
  const char *w = "sched_name = '" SCHED "'";
  /* Named, so that columns later migrations add keep their defaults. */
#define NODE_COLS                                                              \
  "(sched_name, instance_id, host, pid, started_ms, last_checkin_ms, "         \
  "checkin_interval_ms, version)"
  /* A live node running etl.load (FORBID): etl.cal is blocked. */
  bad |= sql(db,
             "INSERT INTO %snodes " NODE_COLS " VALUES ('" SCHED
             "', 'live-node', 'hostA', "
             "4242, %" PRId64 ", %" PRId64 ", 3600000, '0.1.0')",
             p, now - 60000, now);
  bad |= sql(db,
             "INSERT INTO %snodes " NODE_COLS " VALUES ('" SCHED
             "', 'dead-node', 'hostB', "
             "77, %" PRId64 ", %" PRId64 ", 7500, '0.1.0')",
             p, now - 7200000, now - 3600000);
  /* Dead by the store's lease rule (2 check-in intervals, no grace), which
   * chimectl follows: a rule with a grace would call it live. */
  bad |= sql(db,
             "INSERT INTO %snodes " NODE_COLS " VALUES ('" SCHED
             "', 'late-node', 'hostC', "
             "78, %" PRId64 ", %" PRId64 ", 10000, '0.1.0')",
             p, now - 7200000, now - 25000);
  bad |= sql(db,
             "INSERT INTO %sfired (fire_id, sched_name, trigger_group, "
             "trigger_name, job_group, job_name, scheduled_ms, acquired_ms, "
             "node, state, forbid) VALUES (900001, '" SCHED "', 'etl', "
             "'window', 'etl', 'load', %" PRId64 ", %" PRId64
             ", 'live-node', 'EXECUTING', 1)",
             p, now - 5000, now - 5000);
  bad |= sql(db,
             "UPDATE %striggers SET state = 'BLOCKED' WHERE %s AND "
             "trigger_group = 'etl' AND trigger_name = 'cal'",
             p, w);
  bad |= sql(db,
             "UPDATE %striggers SET state = 'ACQUIRED', owner = 'dead-node', "
             "claim_fire_id = 900002 WHERE %s AND trigger_group = 'ops' AND "
             "trigger_name = 'claimed'",
             p, w);
  bad |= sql(db,
             "UPDATE %striggers SET end_ms = %" PRId64 " WHERE %s AND "
             "trigger_group = 'ops' AND trigger_name = 'ended'",
             p, now - 3600000, w);
  /* Leases: one held (token 7), one that ran out (token 3). */
  bad |= sql(db,
             "INSERT INTO %sleases (sched_name, lease_name, token, "
             "holder_node, holder_host, holder_pid, claim, acquired_ms, "
             "expires_ms, least_until_ms) VALUES ('" SCHED "', 'nightly', 7, "
             "'live-node', 'hostA', 4242, 1, %" PRId64 ", %" PRId64
             ", 0), ('" SCHED "', 'old', 3, 'dead-node', 'hostB', 77, 2, "
             "%" PRId64 ", %" PRId64 ", 0)",
             p, now - 1000, now + 3600000, now - 7200000, now - 3600000);
  static const char *const hist[][4] = {
      {"101", "rep', 'daily", "OK", "NULL"},
      {"102", "etl', 'load", "FAILED", "'disk full'"},
      {"103", "rep', 'hourly", "OK", "NULL"}};
  for (int i = 0; i < 3; i++)
    bad |= sql(db,
               "INSERT INTO %shistory (sched_name, fire_id, trigger_group, "
               "trigger_name, job_group, job_name, scheduled_ms, node, "
               "outcome, error_code, error_text, started_ms, duration_ms, "
               "finished_ms) VALUES ('" SCHED "', %s, 'x', 'y', '%s', "
               "%" PRId64 ", 'live-node', '%s', %d, %s, %" PRId64
               ", 1500, %" PRId64 ")",
               p, hist[i][0], hist[i][1], now - 3600000 * (3 - i), hist[i][2],
               i == 1 ? -23 : 0, hist[i][3], now - 3600000 * (3 - i) + 10,
               now - 3600000 * (3 - i) + 1510);
  return bad;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Job st.sync's history (see the usage above), 5 hours ago (inside
 * stats' default window, outside --since -90m). */
static int stats_rows(MYSQL *db, const char *p) {
  static const struct {
    const char *fire, *group, *trigger, *outcome;
    int64_t scheduled_ago_ms, late_ms; /* scheduled: now - 5 h - ago */
    int recovering;
  } rows[] = {
      {"201", "st", "every", "OK", 0, 20, 0},
      {"202", "st", "every", "OK", -60000, 40, 0},
      {"203", CHIME_BACKFILL_GROUP, "bf-1", "OK", INT64_C(30) * 86400000,
       INT64_C(30) * 86400000 + 5, 0},
      {"204", "MANUAL_TRIGGER", "m-1", "OK", -120000, 3000000, 0},
      {"205", "st", "every", "REQUEUED", -180000, 30, 0},
      {"206", "CHIME_RECOVERING", "recover-205", "OK", -180000, 45000, 1},
      {"207", "st", "every", "FAILED", -240000, 30, 0},
      {"208", "CHIME_RETRY", "retry-207", "OK", -240000, 60000, 0},
  };
  int bad = 0;
  int64_t base = now_ms() - INT64_C(5) * 3600000;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int64_t scheduled = base - rows[i].scheduled_ago_ms;
    int64_t started = scheduled + rows[i].late_ms;
    bad |= sql(
        db,
        "INSERT INTO %shistory (sched_name, fire_id, trigger_group, "
        "trigger_name, job_group, job_name, scheduled_ms, node, "
        "outcome, error_code, error_text, started_ms, duration_ms, "
        "finished_ms, recovering) VALUES ('" SCHED "', %s, '%s', '%s', "
        "'st', 'sync', %" PRId64 ", '%s', '%s', %d, NULL, %" PRId64
        ", 100, %" PRId64 ", %d)",
        p, rows[i].fire, rows[i].group, rows[i].trigger, scheduled,
        strcmp(rows[i].outcome, "REQUEUED") == 0 ? "dead-node" : "live-node",
        rows[i].outcome, strcmp(rows[i].outcome, "FAILED") == 0 ? -23 : 0,
        started, started + 100, rows[i].recovering);
  }
  return bad;
}

/* One of each stuck state (see the usage above). */
static int stuck(const char *url, MYSQL *db, const char *p) {
  char err[512] = "";
  chime__mysql_admin *s = NULL;
  int r = chime__mysql_admin_open(url, NULL, SCHED, "ctl-helper", &s, err,
                                  sizeof err);
  if (r < 0)
    return fail("opening the store", r, err);
  int64_t now = chime__mysql_admin_now(s);
  static const char *const names[] = {"blocked", "err", "lost", "orphan"};
  int bad = 0;
  for (size_t i = 0; i < 4; i++) {
    chime_trigger *t = NULL;
    if (chime_trigger_simple_new("st", names[i], 3600000,
                                 CHIME_REPEAT_INDEFINITELY, &t, NULL, 0) < 0)
      bad = 1;
    else
      chime_trigger_set_start_ms(t, now + 3600000);
    bad |= t ? add(s, "st", i == 0 ? "forbid" : names[i], "st", i == 0, t) : 1;
  }
  chime__mysql_admin_free(s);
  if (bad)
    return bad;
  const char *w = "sched_name = '" SCHED "'";
  bad |= sql(db,
             "UPDATE %striggers SET state = 'BLOCKED' WHERE %s AND "
             "trigger_name = 'blocked'",
             p, w);
  bad |= sql(db,
             "UPDATE %striggers SET state = 'ERROR' WHERE %s AND "
             "trigger_name = 'err'",
             p, w);
  bad |= sql(db,
             "UPDATE %striggers SET trigger_group = 'CHIME_RETRY', "
             "trigger_name = 'orphan', job_name = 'gone' WHERE %s AND "
             "trigger_name = 'orphan'",
             p, w);
  /* busy-node: live for an hour, its list read a minute from now (a
   * check-in after any repair's look), holding 900101 only. */
  bad |= sql(db,
             "INSERT INTO %snodes (sched_name, instance_id, host, pid, "
             "started_ms, last_checkin_ms, checkin_interval_ms, version, "
             "held_ids, held_at_ms) VALUES ('" SCHED "', 'busy-node', "
             "'hostD', 99, %" PRId64 ", %" PRId64 ", 3600000, '0.1.0', "
             "'900101', %" PRId64 ")",
             p, now - 60000, now, now + 60000);
  for (int id = 900100; id <= 900101; id++)
    bad |= sql(db,
               "INSERT INTO %sfired (fire_id, sched_name, trigger_group, "
               "trigger_name, job_group, job_name, scheduled_ms, "
               "acquired_ms, node, state) VALUES (%d, '" SCHED "', 'st', "
               "'lost', 'st', 'lost', %" PRId64 ", %" PRId64
               ", 'busy-node', 'EXECUTING')",
               p, id, now - 5000, now - 5000);
  bad |= sql(db,
             "INSERT INTO %sleases (sched_name, lease_name, token, "
             "holder_node, holder_host, holder_pid, claim, acquired_ms, "
             "expires_ms, least_until_ms) VALUES ('" SCHED "', 'stale', 4, "
             "'gone-node', 'hostZ', 1, 3, %" PRId64 ", %" PRId64 ", 0)",
             p, now - 1000, now + 3600000);
  return bad;
}

/* The live node's running fire ends (OK, as history row 104). */
static int finish(MYSQL *db, const char *p) {
  return sql(db,
             "DELETE FROM %sfired WHERE sched_name = '" SCHED
             "' AND fire_id = 900001",
             p) ||
         sql(db,
             "INSERT INTO %shistory (sched_name, fire_id, trigger_group, "
             "trigger_name, job_group, job_name, scheduled_ms, node, "
             "outcome, error_code, error_text, started_ms, duration_ms, "
             "finished_ms) SELECT '" SCHED "', 104, 'etl', 'window', 'etl', "
             "'load', m - 5000, 'live-node', 'OK', 0, NULL, m - 5000, 5000, "
             "m FROM (SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) "
             "AS m) now",
             p);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: chimectl-test-setup "
                    "setup|finish|stats|unstats|newer|compatible|stuck|"
                    "drained|drop URL\n");
    return 2;
  }
  char err[512] = "", p[CHIME__MYSQL_PREFIX_MAX + 1];
  chime__mysql_url *url = NULL;
  int r = chime__mysql_url_parse(argv[2], &url, err, sizeof err);
  if (r == 0)
    r = chime__mysql_url_prefix(url, p, sizeof p, err, sizeof err);
  if (r < 0) {
    chime__mysql_url_free(url);
    return fail("parsing the URL", r, err);
  }
  MYSQL *db = NULL;
  if ((r = chime__mysql_admin_connect(url, 10, 0, &db, err, sizeof err)) < 0) {
    chime__mysql_url_free(url);
    return fail("connecting", r, err);
  }
  int bad = 0;
  if (strcmp(argv[1], "setup") == 0) {
    bad = setup(argv[2], db, p);
  } else if (strcmp(argv[1], "stuck") == 0) {
    bad = stuck(argv[2], db, p);
  } else if (strcmp(argv[1], "drained") == 0) {
    bad = sql(db,
              "UPDATE %snode_drains SET state = 'DRAINED' WHERE sched_name "
              "= '" SCHED "' AND instance_id = 'busy-node'",
              p);
  } else if (strcmp(argv[1], "finish") == 0) {
    bad = finish(db, p);
  } else if (strcmp(argv[1], "stats") == 0) {
    bad = stats_rows(db, p);
  } else if (strcmp(argv[1], "unstats") == 0) {
    bad = sql(db,
              "DELETE FROM %shistory WHERE sched_name = '" SCHED
              "' AND job_group = 'st' AND job_name = 'sync'",
              p);
  } else if (strcmp(argv[1], "newer") == 0) {
    bad = sql(db,
              "CREATE TABLE IF NOT EXISTS %sschema_version (version INT "
              "NOT NULL PRIMARY KEY, applied_ms BIGINT NOT NULL)",
              p) ||
          sql(db,
              "INSERT INTO %sschema_version (version, applied_ms) VALUES "
              "(99, 0)",
              p);
  } else if (strcmp(argv[1], "compatible") == 0) {
    bad = sql(db,
              "INSERT INTO %sschema_version (version, applied_ms, "
              "compatible_with) SELECT MAX(version) + 1, 0, MAX(version) "
              "FROM %sschema_version",
              p, p);
  } else if (strcmp(argv[1], "drop") == 0) {
    static const char *const tables[] = {
        "fired",         "triggers",      "jobs",        "calendars",
        "paused_groups", "nodes",         "history",     "schema_version",
        "leases",        "node_sessions", "checkpoints", "audit",
        "node_drains",   "limits",        "limit_keys"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
      bad |= sql(db, "DROP TABLE IF EXISTS %s%s", p, tables[i]);
  } else {
    bad = 2;
  }
  mysql_close(db);
  chime__mysql_url_free(url);
  return bad;
}
