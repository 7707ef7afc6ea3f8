/*
 * mysql/sql.c: the texts of the MySQL store's prepared statements ({P} is
 * the table prefix, substituted once per store by chime__mysql_sql_init),
 * and the LIKE patterns of group matchers.  Column lists come from the
 * X-macros of columns.h, the lease rule from CHIME__MYSQL_LEASE_END_SQL
 * (stmt.h): neither is written out by hand here.
 */
#include "jobstore/mysql/stmt.h"

#include "jobstore/mysql/columns.h"
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define T CHIME__MYSQL_TRIGGER_COLS_SQL
#define F CHIME__MYSQL_FIRED_COLS_SQL
#define NOW_MS CHIME__MYSQL_NOW_MS_SQL
#define LEASE_END CHIME__MYSQL_LEASE_END_SQL
#define NODE_LIVE CHIME__MYSQL_NODE_LIVE_SQL
#define SCHED_KEY "sched_name = ? AND trigger_group = ? AND trigger_name = ?"
#define JOB_KEY "sched_name = ? AND job_group = ? AND job_name = ?"
#define NO_FIRE "-9223372036854775808"
/* The nodes d judged by node me (recover.c). */
#define NODES_DEAD                                                             \
  "{P}nodes d JOIN {P}nodes me ON me.sched_name = d.sched_name AND "           \
  "me.instance_id = ? WHERE d.sched_name = ? AND d.instance_id <> "            \
  "me.instance_id AND " LEASE_END("d.") " < " NOW_MS " AND " NODE_LIVE(        \
      "me.") " AND me.last_checkin_ms >= d.last_checkin_ms + "                 \
             "d.checkin_interval_ms"
/* Leases (lease.c): a name is free once its lease ran out by the
 * database's clock; a holder's (name, token) holds while it has not run
 * out and was not released. */
#define LEASE_FREE "expires_ms <= " NOW_MS
#define LEASE_KEY "sched_name = ? AND lease_name = ? AND token = ?"
#define LEASE_HELD "released = 0 AND expires_ms > " NOW_MS
/* The least token of an acquisition now (store.h). */
#define LEASE_FLOOR                                                            \
  "(" NOW_MS " * " CHIME__MYSQL_STR(CHIME__LEASE_TOKENS_PER_MS) ")"
/* Pausing and resuming (store.h's pause_one and resume_one). */
#define PAUSE_SET                                                              \
  "UPDATE {P}triggers SET owner = NULL, claim_fire_id = NULL, state = CASE "   \
  "state WHEN 'WAITING' THEN 'PAUSED' WHEN 'ACQUIRED' THEN 'PAUSED' WHEN "     \
  "'EXECUTING' THEN 'PAUSED' WHEN 'BLOCKED' THEN 'PAUSED_BLOCKED' ELSE state " \
  "END WHERE "
#define RESUME_SET                                                             \
  "UPDATE {P}triggers t SET t.state = CASE WHEN t.state NOT IN ('PAUSED', "    \
  "'PAUSED_BLOCKED') THEN t.state WHEN t.next_fire_ms = " NO_FIRE " THEN "     \
  "'COMPLETE' WHEN EXISTS (SELECT 1 FROM {P}fired f WHERE f.sched_name = "     \
  "t.sched_name AND f.job_group = t.job_group AND f.job_name = t.job_name "    \
  "AND f.state = 'EXECUTING' AND f.forbid = 1) THEN 'BLOCKED' ELSE "           \
  "'WAITING' END WHERE "

/* recompute_zones (zones.c): a batch of triggers where column = ?. */
#define TRIG_UNCLAIMED_AFTER(column)                                           \
  "SELECT " T " FROM {P}triggers WHERE sched_name = ? AND (trigger_group > "   \
  "? OR (trigger_group = ? AND trigger_name > ?)) AND " column " = ? AND "     \
  "state IN ('WAITING', 'PAUSED', 'BLOCKED', 'PAUSED_BLOCKED') ORDER BY "      \
  "trigger_group, trigger_name LIMIT " CHIME__MYSQL_STR(                       \
      CHIME__MYSQL_ZONE_BATCH) " FOR UPDATE SKIP LOCKED"

static const char *const sql_text[CHIME__Q_COUNT] = {
    [CHIME__Q_JOB_LOCK] =
        "SELECT durable FROM {P}jobs WHERE " JOB_KEY " FOR UPDATE",
    [CHIME__Q_JOB_GET] =
        "SELECT " CHIME__MYSQL_JOB_COLS_SQL " FROM {P}jobs WHERE " JOB_KEY,
    [CHIME__Q_JOB_GET_LOCK] = "SELECT " CHIME__MYSQL_JOB_COLS_SQL
                              " FROM {P}jobs WHERE " JOB_KEY " FOR UPDATE",
    /* trigger_add: the job (locked), whether a FORBID fire of it runs,
     * and whether a remembered matcher pauses the trigger's group (the
     * ? are that group; match kinds are chime_match's values). */
    [CHIME__Q_JOB_FOR_TRIGGER] =
        "SELECT " CHIME__MYSQL_JOB_COLS_SQL
        ", EXISTS (SELECT 1 FROM {P}fired f WHERE "
        "f.sched_name = j.sched_name AND f.job_group = j.job_group AND "
        "f.job_name = j.job_name AND f.state = 'EXECUTING' AND f.forbid = 1), "
        "EXISTS (SELECT 1 FROM {P}paused_groups p WHERE p.sched_name = "
        "j.sched_name AND (p.match_kind = 4 OR (p.match_kind = 0 AND "
        "p.pattern = ?) OR (p.match_kind = 1 AND LEFT(?, "
        "CHAR_LENGTH(p.pattern)) = p.pattern) OR (p.match_kind = 2 AND "
        "RIGHT(?, CHAR_LENGTH(p.pattern)) = p.pattern) OR (p.match_kind = 3 "
        "AND LOCATE(p.pattern, ?) > 0))) FROM {P}jobs j WHERE " JOB_KEY
        " FOR UPDATE",
    [CHIME__Q_JOB_INSERT] =
        "INSERT INTO {P}jobs (sched_name, job_group, job_name, job_type, "
        "description, data, durable, requests_recovery, concurrency, "
        "persist_data, paused, timeout_ms, starting_deadline_ms, "
        "retry_max_attempts, retry_initial_delay_ms, retry_multiplier_milli, "
        "retry_max_delay_ms, retry_jitter_ms, queue_cap, retry_timed_out, "
        "shard_count, shard_params, required_tags, history_level, "
        "then_group, then_name) VALUES "
        "(?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [CHIME__Q_JOB_UPDATE] =
        "UPDATE {P}jobs SET job_type = ?, description = ?, data = ?, "
        "durable = ?, requests_recovery = ?, concurrency = ?, persist_data = ?"
        ", timeout_ms = ?, starting_deadline_ms = ?, retry_max_attempts = ?"
        ", retry_initial_delay_ms = ?, retry_multiplier_milli = ?"
        ", retry_max_delay_ms = ?, retry_jitter_ms = ?, queue_cap = ?"
        ", retry_timed_out = ?, shard_count = ?, shard_params = ?"
        ", required_tags = ?, history_level = ?, then_group = ?"
        ", then_name = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_DELETE] = "DELETE FROM {P}jobs WHERE " JOB_KEY,
    [CHIME__Q_JOB_SET_TYPE] =
        "UPDATE {P}triggers SET job_type = ?, job_tags = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_SET_DATA] = "UPDATE {P}jobs SET data = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_SET_PAUSED] = "UPDATE {P}jobs SET paused = ? WHERE " JOB_KEY,
    [CHIME__Q_JOB_HAS_TRIGGERS] =
        "SELECT 1 FROM {P}triggers WHERE " JOB_KEY " LIMIT 1",
    [CHIME__Q_JOB_LIST] =
        "SELECT job_group, job_name FROM {P}jobs WHERE sched_name "
        "= ? AND job_group LIKE ? ESCAPE '!'",
    [CHIME__Q_TRIG_GET] = "SELECT " T " FROM {P}triggers WHERE " SCHED_KEY,
    [CHIME__Q_TRIG_GET_LOCK] =
        "SELECT " T " FROM {P}triggers WHERE " SCHED_KEY " FOR UPDATE",
    [CHIME__Q_TRIG_INSERT] =
        "INSERT INTO {P}triggers (sched_name, " T
        ") VALUES (?, " CHIME__MYSQL_TRIGGER_PARAMS_SQL ")",
    [CHIME__Q_TRIG_DELETE] = "DELETE FROM {P}triggers WHERE " SCHED_KEY,
    [CHIME__Q_TRIG_DELETE_OF_JOB] = "DELETE FROM {P}triggers WHERE " JOB_KEY,
    [CHIME__Q_TRIG_LIST] =
        "SELECT trigger_group, trigger_name FROM {P}triggers "
        "WHERE sched_name = ? AND trigger_group LIKE ? ESCAPE '!'",
    [CHIME__Q_TRIG_LIST_OF_JOB] =
        "SELECT trigger_group, trigger_name FROM {P}triggers WHERE " JOB_KEY,
    [CHIME__Q_TRIG_STATUS] = "SELECT state FROM {P}triggers WHERE " SCHED_KEY,
    [CHIME__Q_TRIG_OF_CALENDAR] =
        "SELECT " T " FROM {P}triggers WHERE sched_name = "
        "? AND calendar_name = ? FOR UPDATE",
    /* recompute_zones (zones.c): the next batch of unclaimed triggers in
     * a zone, or naming a calendar, after the cursor (group, name), in key
     * order. */
    [CHIME__Q_TRIG_OF_ZONE] = TRIG_UNCLAIMED_AFTER("zone_name"),
    [CHIME__Q_TRIG_OF_CAL_BATCH] = TRIG_UNCLAIMED_AFTER("calendar_name"),
    [CHIME__Q_CAL_LIST] = "SELECT calendar_name, definition FROM "
                          "{P}calendars WHERE sched_name = ?",
    [CHIME__Q_TRIG_CALENDAR_USED] =
        "SELECT 1 FROM {P}triggers WHERE sched_name = ? "
        "AND calendar_name = ? LIMIT 1",
    [CHIME__Q_PAUSE_KEY] = PAUSE_SET SCHED_KEY,
    [CHIME__Q_PAUSE_JOB] = PAUSE_SET JOB_KEY,
    [CHIME__Q_PAUSE_LIKE] =
        PAUSE_SET "sched_name = ? AND trigger_group LIKE ? ESCAPE '!'",
    [CHIME__Q_RESUME_KEY] =
        RESUME_SET "t.sched_name = ? AND t.trigger_group = ? AND "
                   "t.trigger_name = ?",
    [CHIME__Q_RESUME_JOB] =
        RESUME_SET "t.sched_name = ? AND t.job_group = ? AND "
                   "t.job_name = ?",
    [CHIME__Q_RESUME_LIKE] =
        RESUME_SET "t.sched_name = ? AND t.trigger_group LIKE ? ESCAPE '!'",
    /* The jobs with BLOCKED triggers and no fire executing: a completion
     * passed over a trigger row another session held (tables.c)
     * (scheduler, at most). */
    [CHIME__Q_JOBS_BLOCKED_IDLE] =
        "SELECT DISTINCT t.job_group, t.job_name FROM {P}triggers t WHERE "
        "t.sched_name = ? AND t.state IN ('BLOCKED', 'PAUSED_BLOCKED') AND "
        "NOT EXISTS (SELECT 1 FROM {P}fired f WHERE f.sched_name = "
        "t.sched_name AND f.job_group = t.job_group AND f.job_name = "
        "t.job_name AND f.state = 'EXECUTING' AND f.forbid = 1) LIMIT ?",
    [CHIME__Q_JOB_EXECUTING] =
        "SELECT 1 FROM {P}fired WHERE " JOB_KEY
        " AND state = 'EXECUTING' AND forbid = 1 LIMIT 1",
    [CHIME__Q_JOB_HAS_FIRES] =
        "SELECT 1 FROM {P}fired WHERE " JOB_KEY " LIMIT 1",
    [CHIME__Q_PG_LIST] =
        "SELECT match_kind, pattern FROM {P}paused_groups WHERE "
        "sched_name = ?",
    [CHIME__Q_PG_INSERT] = "INSERT IGNORE INTO {P}paused_groups (sched_name, "
                           "match_kind, pattern) VALUES (?,?,?)",
    [CHIME__Q_PG_DELETE] =
        "DELETE FROM {P}paused_groups WHERE sched_name = ? AND "
        "match_kind = ? AND pattern = ?",
    [CHIME__Q_PG_CLEAR] = "DELETE FROM {P}paused_groups WHERE sched_name = ?",
    [CHIME__Q_JOBS_UNPAUSE] =
        "UPDATE {P}jobs SET paused = 0 WHERE sched_name = ?",
    [CHIME__Q_CAL_GET] =
        "SELECT definition FROM {P}calendars WHERE sched_name = ? "
        "AND calendar_name = ? LOCK IN SHARE MODE",
    /* Not locked: the claims, fires and scans (tables.c). */
    [CHIME__Q_CAL_READ] = "SELECT definition FROM {P}calendars WHERE "
                          "sched_name = ? AND calendar_name = ?",
    [CHIME__Q_CAL_GET_LOCK] =
        "SELECT definition FROM {P}calendars WHERE sched_name "
        "= ? AND calendar_name = ? FOR UPDATE",
    [CHIME__Q_CAL_INSERT] =
        "INSERT INTO {P}calendars (sched_name, calendar_name, "
        "definition) VALUES (?,?,?)",
    [CHIME__Q_CAL_UPDATE] = "UPDATE {P}calendars SET definition = ? WHERE "
                            "sched_name = ? AND calendar_name = ?",
    [CHIME__Q_CAL_DELETE] = "DELETE FROM {P}calendars WHERE sched_name = ? AND "
                            "calendar_name = ?",
    [CHIME__Q_FIRED_GET] =
        "SELECT " F " FROM {P}fired WHERE fire_id = ? AND sched_name = ? FOR "
        "UPDATE",
    [CHIME__Q_FIRED_DELETE] = "DELETE FROM {P}fired WHERE fire_id = ?",
    [CHIME__Q_FIRED_OWNED] =
        "SELECT 1 FROM {P}fired WHERE fire_id = ? AND "
        "sched_name = ? AND node = ? AND state = 'EXECUTING'",
    [CHIME__Q_FIRED_OF_NODE] =
        "SELECT " F " FROM {P}fired WHERE sched_name = ? AND node = ? AND "
        "state <> 'SHARDED' ORDER BY fire_id FOR UPDATE",
    [CHIME__Q_TRIG_UNCLAIM] =
        "UPDATE {P}triggers SET state = IF(next_fire_ms = " NO_FIRE ", "
        "'COMPLETE', 'WAITING'), owner = NULL, claim_fire_id = NULL "
        "WHERE " SCHED_KEY " AND state = 'ACQUIRED' AND claim_fire_id = ?",
    [CHIME__Q_MISFIRED] =
        "SELECT " T " FROM {P}triggers WHERE sched_name = ? AND "
        "state = 'WAITING' AND misfire <> 1 AND next_fire_ms <= ? "
        "AND next_fire_ms <> " NO_FIRE " ORDER BY next_fire_ms, "
        "priority DESC, trigger_group, trigger_name LIMIT ? FOR "
        "UPDATE SKIP LOCKED",
    [CHIME__Q_TRIG_SET_FIRE_STATE] =
        "UPDATE {P}triggers SET next_fire_ms = ?, prev_fire_ms = ?, "
        "times_triggered = ?, state_start_ms = ?, state_repeat_count = ?, "
        "state = ?, owner = NULL, claim_fire_id = NULL WHERE " SCHED_KEY,
    /* A shard's row (shard_parent > 0) takes its index from its trigger,
     * still there while its fire ends; every row the run's own data, its
     * trigger's (NULL: none, the run read its job's). */
    [CHIME__Q_HISTORY_INSERT] =
        "INSERT INTO {P}history (sched_name, fire_id, trigger_group, "
        "trigger_name, job_group, job_name, scheduled_ms, node, outcome, "
        "error_code, error_text, started_ms, duration_ms, recovering, "
        "finished_ms, shard_parent, shard_index, data) SELECT "
        "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?, f.p, IF(f.p > 0, COALESCE((SELECT "
        "t.shard_index FROM {P}triggers t WHERE t.sched_name = f.s AND "
        "t.trigger_group = f.g AND t.trigger_name = f.n AND t.shard_parent "
        "= f.p), -1), -1), (SELECT t.data FROM {P}triggers t WHERE "
        "t.sched_name = f.s AND t.trigger_group = f.g AND t.trigger_name = "
        "f.n AND LENGTH(t.data) > 0) FROM (SELECT ? AS p, ? AS s, ? AS g, "
        "? AS n) f",
    /* node.c: the row of a new instance id.  A plain INSERT: of two
     * processes claiming one new id at once, the primary key lets one in
     * and refuses the other (duplicate key), whatever the timing
     * (scheduler, node, host, pid, started, interval, version, tags). */
    [CHIME__Q_NODE_INSERT] =
        "INSERT INTO {P}nodes (sched_name, instance_id, host, pid, "
        "started_ms, last_checkin_ms, checkin_interval_ms, version, tags) "
        "VALUES (?,?,?,?,?," NOW_MS ",?,?,?)",
    /* node.c: an id whose row this process holds locked (a dead earlier
     * run's, or its own) now names this process (host, pid, started,
     * interval, version, tags, scheduler, node). */
    [CHIME__Q_NODE_TAKE] =
        "UPDATE {P}nodes SET host = ?, pid = ?, started_ms = ?, "
        "last_checkin_ms = " NOW_MS ", checkin_interval_ms = ?, version = ?, "
        "tags = ? WHERE sched_name = ? AND instance_id = ?",
    /* node.c: a check-in, only while the row still names this process
     * (interval, tags, scheduler, node, host, pid, started). */
    [CHIME__Q_NODE_STAMP] =
        "UPDATE {P}nodes SET last_checkin_ms = " NOW_MS
        ", checkin_interval_ms = ?, tags = ?, held_ids = ?, held_at_ms = ? "
        "WHERE sched_name = ? AND instance_id = ? AND host = ? AND pid = ? "
        "AND started_ms = ?",
    /* The database's clock, when the first lease of another node runs
     * out, and the earliest next fire of a WAITING trigger, which tells
     * an idle node of changes made elsewhere (one index lookup on
     * triggers_due) (scheduler, scheduler, this node). */
    [CHIME__Q_NODES_LEASE] = "SELECT " NOW_MS ", MIN(" LEASE_END(
        "") "), (SELECT "
            "MIN(t.next_fire_ms) FROM {P}triggers t WHERE t.sched_name = ? AND "
            "t.state = 'WAITING') FROM {P}nodes WHERE sched_name = ? AND "
            "instance_id <> ?",
    /* node.c: the row of an instance id, live or not, locked: a second
     * claimer waits for the first one's commit and then sees its row
     * (scheduler, instance id). */
    [CHIME__Q_NODE_LOCK] = "SELECT host, pid, started_ms, " NODE_LIVE(
        "") " FROM {P}nodes WHERE sched_name = ? AND instance_id = ? FOR "
            "UPDATE",
    /* node.c: whom the row of an instance id names (scheduler, id). */
    [CHIME__Q_NODE_HOLDER] =
        "SELECT host, pid, started_ms FROM {P}nodes WHERE sched_name = ? "
        "AND instance_id = ?",
    /* node.c: removes this node's row when it holds no fires and still
     * names this process (scheduler, node, host, pid, started, scheduler,
     * node). */
    [CHIME__Q_NODE_LEAVE] =
        "DELETE FROM {P}nodes WHERE sched_name = ? AND instance_id = ? AND "
        "host = ? AND pid = ? AND started_ms = ? AND NOT EXISTS (SELECT 1 "
        "FROM {P}fired WHERE sched_name = ? AND node = ?)",
    /* recover.c: the dead nodes as this node sees them: their lease ran
     * out, this node's own lease has not (a node cut off from the
     * database, or stalled, never judges others when it comes back), and
     * this node checked in at least a check-in interval after the other's
     * last check-in (after an outage of the database nobody is judged
     * until it had the time to check in again).  Arguments: this node,
     * the scheduler. */
    [CHIME__Q_NODES_DEAD] = "SELECT d.instance_id FROM " NODES_DEAD,
    /* The same for one node (one more argument), locking its row.  A
     * row another session holds is skipped, not waited for: another
     * survivor is recovering that node (a recovery under load takes a
     * while, and waiting for it held this node's loop past its own
     * check-in), or the node just checked in again. */
    [CHIME__Q_NODE_DEAD_LOCK] = "SELECT d.instance_id FROM " NODES_DEAD
                                " AND d.instance_id = ? FOR UPDATE SKIP "
                                "LOCKED",
    [CHIME__Q_NODE_DELETE] =
        "DELETE FROM {P}nodes WHERE sched_name = ? AND instance_id = ?",
    [CHIME__Q_DB_NOW] = "SELECT " NOW_MS,
    /* lease.c: takes a lease name when it is free, in one statement: a
     * new row with token 1, or the row's next token when its lease ran out
     * by the database's clock (LEASE_FREE; expires_ms is assigned last,
     * so every condition reads the old value).  Affects no row when the
     * name is held.  Arguments: scheduler, name, node, host, pid, claim,
     * at_most, at_least. */
    [CHIME__Q_LEASE_TAKE] =
        "INSERT INTO {P}leases (sched_name, lease_name, token, holder_node, "
        "holder_host, holder_pid, claim, acquired_ms, expires_ms, "
        "least_until_ms, released, extensions) VALUES (?,?," LEASE_FLOOR
        ",?,?,?,?," NOW_MS "," NOW_MS " + ?," NOW_MS " + ?,0,0) ON DUPLICATE "
        "KEY UPDATE token = IF(" LEASE_FREE ", GREATEST(token + 1, " LEASE_FLOOR
        "), token), holder_node = IF(" LEASE_FREE
        ", VALUES(holder_node), holder_node), holder_host = IF(" LEASE_FREE
        ", VALUES(holder_host), holder_host), holder_pid = IF(" LEASE_FREE
        ", VALUES(holder_pid), holder_pid), claim = IF(" LEASE_FREE
        ", VALUES(claim), claim), acquired_ms = IF(" LEASE_FREE
        ", VALUES(acquired_ms), acquired_ms), least_until_ms = "
        "IF(" LEASE_FREE ", VALUES(least_until_ms), least_until_ms), "
        "released = IF(" LEASE_FREE ", 0, released), extensions = "
        "IF(" LEASE_FREE ", 0, extensions), expires_ms = IF(" LEASE_FREE
        ", VALUES(expires_ms), expires_ms)",
    /* The row of a lease name (scheduler, name), locked by TAKE. */
    [CHIME__Q_LEASE_GET] =
        "SELECT token, acquired_ms, expires_ms, claim FROM {P}leases WHERE "
        "sched_name = ? AND lease_name = ?",
    /* Extends a held lease (at_most, scheduler, name, token); extensions
     * counts, so that a matched row is always a changed one. */
    [CHIME__Q_LEASE_EXTEND] =
        "UPDATE {P}leases SET expires_ms = " NOW_MS " + ?, extensions = "
        "extensions + 1 WHERE " LEASE_KEY " AND " LEASE_HELD,
    /* Releases a held lease: it stays taken until its at_least instant
     * (scheduler, name, token). */
    [CHIME__Q_LEASE_RELEASE] =
        "UPDATE {P}leases SET expires_ms = GREATEST(" NOW_MS
        ", least_until_ms), released = 1 WHERE " LEASE_KEY " AND " LEASE_HELD,
    [CHIME__Q_LEASE_HELD] =
        "SELECT 1 FROM {P}leases WHERE " LEASE_KEY " AND " LEASE_HELD,
    /* An operator's release (chimectl lease release): the lease ends now,
     * at_least or not; its holder's token is refused from then on
     * (scheduler, name). */
    [CHIME__Q_LEASE_EXPIRE] =
        "UPDATE {P}leases SET expires_ms = " NOW_MS ", released = 1 WHERE "
        "sched_name = ? AND lease_name = ? AND expires_ms > " NOW_MS,
    /* A run's checkpoint (shards.c), written only while its fired row is
     * this node's and EXECUTING (the SELECT locks it in share mode). */
    [CHIME__Q_CHECKPOINT_SET] =
        "INSERT INTO {P}checkpoints (sched_name, run_id, fire_id, node, data, "
        "updated_ms) SELECT ?, ?, ?, ?, ?, ? FROM {P}fired WHERE fire_id = ? "
        "AND sched_name = ? AND node = ? AND state = 'EXECUTING' "
        "LOCK IN SHARE MODE ON DUPLICATE KEY UPDATE fire_id = "
        "VALUES(fire_id), node = VALUES(node), data = VALUES(data), "
        "updated_ms = VALUES(updated_ms)",
    [CHIME__Q_CHECKPOINT_GET] =
        "SELECT data FROM {P}checkpoints WHERE sched_name = ? AND run_id = ?",
};

char *chime__mysql_subst_prefix(const char *text, const char *prefix) {
  assert(text && prefix);
  size_t plen = strlen(prefix), n = 0;
  for (const char *p = strstr(text, "{P}"); p; p = strstr(p + 3, "{P}"))
    n++;
  char *out = malloc(strlen(text) + n * plen + 1), *o = out;
  if (!out)
    return NULL;
  for (const char *p = text; *p;) {
    if (p[0] == '{' && p[1] == 'P' && p[2] == '}') {
      memcpy(o, prefix, plen);
      o += plen;
      p += 3;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

int chime__mysql_sql_init(chime__mysql_store *s) {
  for (size_t i = 0; i < CHIME__Q_COUNT; i++) {
    assert(sql_text[i] && "a statement id without its text");
    assert(!s->sql[i]);
    if (!(s->sql[i] = chime__mysql_subst_prefix(sql_text[i], s->prefix)))
      return CHIME_ENOMEM;
  }
  return 0;
}

int chime__mysql_like_pattern(chime_match match, const char *pattern, char *buf,
                              size_t len) {
  assert(buf && len >= 2);
  if (match == CHIME_MATCH_ANY) {
    memcpy(buf, "%", 2);
    return 0;
  }
  if (match != CHIME_MATCH_EQUALS && match != CHIME_MATCH_STARTS_WITH &&
      match != CHIME_MATCH_ENDS_WITH && match != CHIME_MATCH_CONTAINS)
    return CHIME_EINVAL;
  int r = chime__name_check(pattern, "group pattern", NULL, 0);
  if (r < 0)
    return r;
  size_t n = 0;
  if (match == CHIME_MATCH_ENDS_WITH || match == CHIME_MATCH_CONTAINS)
    buf[n++] = '%';
  for (const char *p = pattern; *p; p++) {
    if (n + 4 >= len)
      return CHIME_ELIMIT;
    if (*p == '%' || *p == '_' || *p == '!')
      buf[n++] = '!';
    buf[n++] = *p;
  }
  if (match == CHIME_MATCH_STARTS_WITH || match == CHIME_MATCH_CONTAINS)
    buf[n++] = '%';
  buf[n] = '\0';
  return 0;
}
