/*
 * jobstore/admin.h: the stores' side of chime-admin.h.  A query
 * (chime_admin_query, public fields here) goes to a store's admin_list
 * operation, which fills a table through the builder below: columns first
 * (named, typed), then rows, cell by cell.  The table and query live in
 * admin_table.c and admin_query.c; the handle in admin.c.
 *
 * Each list's columns are the store's promise to the tools
 * (docs/man/chime-admin.3.scd): both stores fill the same
 * CHIME__ADMIN_*_COLUMNS below, so they cannot drift apart.
 */
#ifndef CHIME_JOBSTORE_ADMIN_H
#define CHIME_JOBSTORE_ADMIN_H

#include "chime-admin.h"
#include "jobstore/store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chime_admin_query {
  chime_admin_kind kind;
  chime_match match; /* the group pattern as a matcher */
  char *pattern;     /* NULL for CHIME_MATCH_ANY */
  char *job_group, *job_name;
  char *trigger_group, *trigger_name;
  char *node;
  char *outcome; /* upper case, NULL: any */
  bool failed_only;
  int64_t fire_id;           /* 0: any */
  int64_t from_ms, to_ms;    /* 0: open */
  size_t offset, limit;      /* limit 1 .. CHIME_ADMIN_MAX_LIMIT */
  bool by_id;                /* history: ids in (after_id, upto_id], oldest
                                first (chime_admin_query_set_ids) */
  int64_t after_id, upto_id; /* upto_id 0: open */
  int64_t late_before_ms;    /* triggers: late ones only (0: any) */
  char *who, *action;        /* audit: NULL: any */
};

/*
 * The lists' columns, in order, each written once as X(ENUM, "name",
 * TYPE): the enum names a column for the stores that fill it (a store sets
 * a cell by CHIME__AC_NODE_HOST, never by a bare number), the name is the
 * tools'.  Every store fills every column (null where it has no value).
 */
#define CHIME__ADMIN_NODE_COLUMNS(X)                                           \
  X(NODE_ID, "id", TEXT)                                                       \
  X(NODE_HOST, "host", TEXT)                                                   \
  X(NODE_PID, "pid", INT64)                                                    \
  X(NODE_VERSION, "version", TEXT)                                             \
  X(NODE_STARTED_MS, "started_ms", INT64)                                      \
  X(NODE_LAST_CHECKIN_MS, "last_checkin_ms", INT64)                            \
  X(NODE_CHECKIN_INTERVAL_MS, "checkin_interval_ms", INT64)                    \
  X(NODE_CHECKIN_AGE_MS, "checkin_age_ms", INT64)                              \
  X(NODE_LIVE, "live", INT64)                                                  \
  X(NODE_DRAIN, "drain", TEXT)                                                 \
  X(NODE_RUNNING, "running", INT64)                                            \
  X(NODE_TAGS, "tags", TEXT)
#define CHIME__ADMIN_JOB_COLUMNS(X)                                            \
  X(JOB_GROUP, "group", TEXT)                                                  \
  X(JOB_NAME, "name", TEXT)                                                    \
  X(JOB_TYPE, "type", TEXT)                                                    \
  X(JOB_CONCURRENCY, "concurrency", TEXT)                                      \
  X(JOB_DURABLE, "durable", INT64)                                             \
  X(JOB_RECOVERY, "recovery", INT64)                                           \
  X(JOB_PERSIST, "persist", INT64)                                             \
  X(JOB_PAUSED, "paused", INT64)                                               \
  X(JOB_TRIGGERS, "triggers", INT64)                                           \
  X(JOB_DESCRIPTION, "description", TEXT)                                      \
  X(JOB_TIMEOUT_MS, "timeout_ms", INT64)                                       \
  X(JOB_DEADLINE_MS, "deadline_ms", INT64)                                     \
  X(JOB_HISTORY_LEVEL, "history_level", INT64)                                 \
  X(JOB_DATA, "data", BYTES)
#define CHIME__ADMIN_TRIGGER_COLUMNS(X)                                        \
  X(TRIGGER_GROUP, "group", TEXT)                                              \
  X(TRIGGER_NAME, "name", TEXT)                                                \
  X(TRIGGER_JOB_GROUP, "job_group", TEXT)                                      \
  X(TRIGGER_JOB_NAME, "job_name", TEXT)                                        \
  X(TRIGGER_KIND, "kind", TEXT)                                                \
  X(TRIGGER_STATE, "state", TEXT)                                              \
  X(TRIGGER_ZONE, "zone", TEXT)                                                \
  X(TRIGGER_CALENDAR, "calendar", TEXT)                                        \
  X(TRIGGER_CRON, "cron", TEXT)                                                \
  X(TRIGGER_DESCRIPTION, "description", TEXT)                                  \
  X(TRIGGER_PRIORITY, "priority", INT64)                                       \
  X(TRIGGER_MISFIRE, "misfire", TEXT)                                          \
  X(TRIGGER_NEXT_FIRE_MS, "next_fire_ms", INT64)                               \
  X(TRIGGER_PREV_FIRE_MS, "prev_fire_ms", INT64)                               \
  X(TRIGGER_OWNER, "owner", TEXT)                                              \
  X(TRIGGER_DATA, "data", BYTES)                                               \
  X(TRIGGER_START_MS, "start_ms", INT64)                                       \
  X(TRIGGER_END_MS, "end_ms", INT64)                                           \
  X(TRIGGER_INTERVAL_MS, "interval_ms", INT64)                                 \
  X(TRIGGER_REPEAT_COUNT, "repeat_count", INT64)                               \
  X(TRIGGER_INTERVAL, "interval", INT64)                                       \
  X(TRIGGER_UNIT, "unit", TEXT)                                                \
  X(TRIGGER_PRESERVE_HOUR, "preserve_hour", INT64)                             \
  X(TRIGGER_DAY_START_S, "day_start_s", INT64)                                 \
  X(TRIGGER_DAY_END_S, "day_end_s", INT64)                                     \
  X(TRIGGER_DAYS_OF_WEEK, "days_of_week", INT64)                               \
  X(TRIGGER_JITTER_MS, "jitter_ms", INT64)                                     \
  X(TRIGGER_TIMEOUT_MS, "timeout_ms", INT64)                                   \
  X(TRIGGER_DEADLINE_MS, "deadline_ms", INT64)                                 \
  X(TRIGGER_JOB_TYPE, "job_type", TEXT)                                        \
  X(TRIGGER_JOB_TAGS, "job_tags", TEXT)                                        \
  X(TRIGGER_CLAIM_FIRE_ID, "claim_fire_id", INT64)                             \
  X(TRIGGER_EFFECTIVE_REPEAT_COUNT, "effective_repeat_count", INT64)
#define CHIME__ADMIN_FIRE_COLUMNS(X)                                           \
  X(FIRE_ID, "fire_id", INT64)                                                 \
  X(FIRE_JOB_GROUP, "job_group", TEXT)                                         \
  X(FIRE_JOB_NAME, "job_name", TEXT)                                           \
  X(FIRE_TRIGGER_GROUP, "trigger_group", TEXT)                                 \
  X(FIRE_TRIGGER_NAME, "trigger_name", TEXT)                                   \
  X(FIRE_NODE, "node", TEXT)                                                   \
  X(FIRE_STATE, "state", TEXT)                                                 \
  X(FIRE_SCHEDULED_MS, "scheduled_ms", INT64)                                  \
  X(FIRE_ACQUIRED_MS, "acquired_ms", INT64)                                    \
  X(FIRE_RUNNING_MS, "running_ms", INT64)                                      \
  X(FIRE_RECOVERING, "recovering", INT64)                                      \
  X(FIRE_NODE_LIVE, "node_live", INT64)
#define CHIME__ADMIN_HISTORY_COLUMNS(X)                                        \
  X(HISTORY_ID, "id", INT64)                                                   \
  X(HISTORY_FIRE_ID, "fire_id", INT64)                                         \
  X(HISTORY_JOB_GROUP, "job_group", TEXT)                                      \
  X(HISTORY_JOB_NAME, "job_name", TEXT)                                        \
  X(HISTORY_TRIGGER_GROUP, "trigger_group", TEXT)                              \
  X(HISTORY_TRIGGER_NAME, "trigger_name", TEXT)                                \
  X(HISTORY_NODE, "node", TEXT)                                                \
  X(HISTORY_OUTCOME, "outcome", TEXT)                                          \
  X(HISTORY_SCHEDULED_MS, "scheduled_ms", INT64)                               \
  X(HISTORY_STARTED_MS, "started_ms", INT64)                                   \
  X(HISTORY_DURATION_MS, "duration_ms", INT64)                                 \
  X(HISTORY_ERROR_CODE, "error_code", INT64)                                   \
  X(HISTORY_MESSAGE, "message", TEXT)                                          \
  X(HISTORY_RECOVERING, "recovering", INT64)                                   \
  X(HISTORY_DATA_BYTES, "data_bytes", INT64)                                   \
  X(HISTORY_DATA, "data", BYTES)                                               \
  X(HISTORY_FINISHED_MS, "finished_ms", INT64)                                 \
  X(HISTORY_SHARD_PARENT, "shard_parent", INT64)                               \
  X(HISTORY_SHARD_INDEX, "shard_index", INT64)
#define CHIME__ADMIN_LEASE_COLUMNS(X)                                          \
  X(LEASE_NAME, "name", TEXT)                                                  \
  X(LEASE_HOLDER, "holder", TEXT)                                              \
  X(LEASE_HOST, "host", TEXT)                                                  \
  X(LEASE_PID, "pid", INT64)                                                   \
  X(LEASE_ACQUIRED_MS, "acquired_ms", INT64)                                   \
  X(LEASE_EXPIRES_MS, "expires_ms", INT64)                                     \
  X(LEASE_TOKEN, "token", INT64)                                               \
  X(LEASE_RELEASED, "released", INT64)                                         \
  X(LEASE_EXPIRED, "expired", INT64)
#define CHIME__ADMIN_AUDIT_COLUMNS(X)                                          \
  X(AUDIT_ID, "id", INT64)                                                     \
  X(AUDIT_AT_MS, "at_ms", INT64)                                               \
  X(AUDIT_WHO, "who", TEXT)                                                    \
  X(AUDIT_ORIGIN, "origin", TEXT)                                              \
  X(AUDIT_ACTION, "action", TEXT)                                              \
  X(AUDIT_TARGET, "target", TEXT)                                              \
  X(AUDIT_DETAILS, "details", TEXT)
#define CHIME__ADMIN_LIMIT_COLUMNS(X)                                          \
  X(LIMIT_JOB_TYPE, "job_type", TEXT)                                          \
  X(LIMIT_PARTITION, "partition", TEXT)                                        \
  X(LIMIT_MAX_RUNNING, "max_running", INT64)                                   \
  X(LIMIT_MAX_PER_PARTITION, "max_per_partition", INT64)                       \
  X(LIMIT_RATE_COUNT, "rate_count", INT64)                                     \
  X(LIMIT_RATE_PERIOD_MS, "rate_period_ms", INT64)                             \
  X(LIMIT_KEY_RATE_COUNT, "key_rate_count", INT64)                             \
  X(LIMIT_KEY_RATE_PERIOD_MS, "key_rate_period_ms", INT64)                     \
  X(LIMIT_PARTITION_FIELD, "partition_field", TEXT)                            \
  X(LIMIT_WAITING, "waiting", INT64)                                           \
  X(LIMIT_RUNNING, "running", INT64)

/* CHIME_ADMIN_STUCK: one row per stuck state, the cells its kind has
 * (chime-admin(3)); the others null. */
#define CHIME__ADMIN_STUCK_COLUMNS(X)                                          \
  X(STUCK_KIND, "kind", TEXT)                                                  \
  X(STUCK_GROUP, "group", TEXT)                                                \
  X(STUCK_NAME, "name", TEXT)                                                  \
  X(STUCK_FIRE_ID, "fire_id", INT64)                                           \
  X(STUCK_NODE, "node", TEXT)                                                  \
  X(STUCK_JOB_GROUP, "job_group", TEXT)                                        \
  X(STUCK_JOB_NAME, "job_name", TEXT)                                          \
  X(STUCK_TRIGGERS, "count", INT64)                                            \
  X(STUCK_REASON, "reason", TEXT)                                              \
  X(STUCK_HOST, "host", TEXT)                                                  \
  X(STUCK_PID, "pid", INT64)                                                   \
  X(STUCK_HELD_AT_MS, "held_at_ms", INT64)                                     \
  X(STUCK_CHECKIN_INTERVAL_MS, "checkin_interval_ms", INT64)                   \
  X(STUCK_NOW_MS, "now_ms", INT64)
/* CHIME_ADMIN_JOB_STATS: one row per job with runs started in the window. */
#define CHIME__ADMIN_JOB_STATS_COLUMNS(X)                                      \
  X(JSTAT_JOB_GROUP, "job_group", TEXT)                                        \
  X(JSTAT_JOB_NAME, "job_name", TEXT)                                          \
  X(JSTAT_RUNS, "runs", INT64)                                                 \
  X(JSTAT_FAILURES, "failures", INT64)                                         \
  X(JSTAT_RECOVERED, "recovered", INT64)                                       \
  X(JSTAT_LATE_P50_MS, "late_p50_ms", INT64)                                   \
  X(JSTAT_LATE_P99_MS, "late_p99_ms", INT64)                                   \
  X(JSTAT_LAST_STARTED_MS, "last_started_ms", INT64)                           \
  X(JSTAT_NEXT_FIRE_MS, "next_fire_ms", INT64)
/* The cluster's figures (t1: chimectl metrics, chime-web's /metrics;
 * admin_stats.c, mysql/admin_stats.c, memory/admin_stats.c). */
#define CHIME__ADMIN_RUN_COUNT_COLUMNS(X)                                      \
  X(RUNS_JOB_GROUP, "job_group", TEXT)                                         \
  X(RUNS_JOB_NAME, "job_name", TEXT)                                           \
  X(RUNS_OUTCOME, "outcome", TEXT)                                             \
  X(RUNS_COUNT, "runs", INT64)
#define CHIME__ADMIN_LATENESS_COLUMNS(X)                                       \
  X(LATE_LE_MS, "le_ms", INT64)                                                \
  X(LATE_RUNS, "runs", INT64)                                                  \
  X(LATE_SUM_MS, "late_ms", INT64)
#define CHIME__ADMIN_STATE_COUNT_COLUMNS(X)                                    \
  X(STATES_STATE, "state", TEXT)                                               \
  X(STATES_COUNT, "count", INT64)
#define CHIME__ADMIN_DRAIN_COLUMNS(X)                                          \
  X(DRAIN_NODE, "node", TEXT)                                                  \
  X(DRAIN_STATE, "state", TEXT)                                                \
  X(DRAIN_REQUESTED_MS, "requested_ms", INT64)                                 \
  X(DRAIN_TIMEOUT_MS, "timeout_ms", INT64)
#define CHIME__ADMIN_ACTIVITY_COLUMNS(X)                                       \
  X(ACT_MINUTE_MS, "minute_ms", INT64)                                         \
  X(ACT_FIRES, "fires", INT64)                                                 \
  X(ACT_FAILURES, "failures", INT64)                                           \
  X(ACT_LATE_AVG_MS, "late_avg_ms", INT64)                                     \
  X(ACT_LATE_MAX_MS, "late_max_ms", INT64)
#define CHIME__ADMIN_EVENT_COLUMNS(X)                                          \
  X(EVENT_TIME_MS, "time_ms", INT64)                                           \
  X(EVENT_NODE, "node", TEXT)                                                  \
  X(EVENT_EVENT, "event", TEXT)                                                \
  X(EVENT_DETAIL, "detail", TEXT)
#define CHIME__ADMIN_RETRY_COLUMNS(X)                                          \
  X(RETRY_FIRE_ID, "fire_id", INT64)                                           \
  X(RETRY_RETRIED_FIRE_ID, "retried_fire_id", INT64)
#define CHIME__ADMIN_SHARD_COLUMNS(X)                                          \
  X(SHARD_INDEX, "shard", INT64)                                               \
  X(SHARD_STATE, "state", TEXT)                                                \
  X(SHARD_NODE, "node", TEXT)                                                  \
  X(SHARD_FIRE_ID, "fire_id", INT64)                                           \
  X(SHARD_PROGRESS, "progress", TEXT)                                          \
  X(SHARD_OUTCOME, "outcome", TEXT)                                            \
  X(SHARD_FINISHED_MS, "finished_ms", INT64)
#define CHIME__ADMIN_STORAGE_COLUMNS(X)                                        \
  X(STORAGE_TABLE, "table", TEXT)                                              \
  X(STORAGE_ROWS, "rows", INT64)                                               \
  X(STORAGE_EST_ROWS, "est_rows", INT64)                                       \
  X(STORAGE_BYTES, "bytes", INT64)
#define CHIME__ADMIN_SESSION_COLUMNS(X)                                        \
  X(SESSION_NODE, "node", TEXT)                                                \
  X(SESSION_SESSIONS, "sessions", INT64)
#define CHIME__ADMIN_PAUSED_GROUP_COLUMNS(X)                                   \
  X(PAUSED_MATCH, "match", TEXT)                                               \
  X(PAUSED_PATTERN, "pattern", TEXT)

#define CHIME__ADMIN_ENUM(e, name, type) CHIME__AC_##e,
enum { CHIME__ADMIN_NODE_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_NODE_COUNT };
enum { CHIME__ADMIN_JOB_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_JOB_COUNT };
enum {
  CHIME__ADMIN_TRIGGER_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_TRIGGER_COUNT
};
enum { CHIME__ADMIN_FIRE_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_FIRE_COUNT };
enum {
  CHIME__ADMIN_HISTORY_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_HISTORY_COUNT
};
enum { CHIME__ADMIN_LEASE_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_LEASE_COUNT };
enum { CHIME__ADMIN_AUDIT_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_AUDIT_COUNT };
enum { CHIME__ADMIN_LIMIT_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_LIMIT_COUNT };
enum { CHIME__ADMIN_STUCK_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_STUCK_COUNT };
enum {
  CHIME__ADMIN_JOB_STATS_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_JSTAT_COUNT
};
enum {
  CHIME__ADMIN_RUN_COUNT_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_RUNS_COUNT_N
};
enum {
  CHIME__ADMIN_LATENESS_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_LATENESS_COUNT
};
enum {
  CHIME__ADMIN_STATE_COUNT_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_STATES_COUNT_N
};
enum { CHIME__ADMIN_DRAIN_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_DRAIN_COUNT };
enum {
  CHIME__ADMIN_PAUSED_GROUP_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_PAUSED_COUNT
};
enum {
  CHIME__ADMIN_ACTIVITY_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_ACTIVITY_COUNT
};
enum { CHIME__ADMIN_EVENT_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_EVENT_COUNT };
enum { CHIME__ADMIN_RETRY_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_RETRY_COUNT };
enum { CHIME__ADMIN_SHARD_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_SHARD_COUNT };
enum {
  CHIME__ADMIN_STORAGE_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_STORAGE_COUNT
};
enum {
  CHIME__ADMIN_SESSION_COLUMNS(CHIME__ADMIN_ENUM) CHIME__AC_SESSION_COUNT
};
#undef CHIME__ADMIN_ENUM

/*
 * The builder.  chime__admin_table_new makes an empty table with kind's
 * columns; chime__admin_row_add appends a row of null cells; the setters
 * fill the last row's cell col (an index into the columns).  A setter that
 * runs out of memory marks the table failed: chime__admin_table_failed
 * says so once at the end, so a store's loop checks once.
 */
chime_admin_table *chime__admin_table_new(chime_admin_kind kind);
int chime__admin_row_add(chime_admin_table *t);
void chime__admin_set_text(chime_admin_table *t, size_t col, const char *text);
void chime__admin_set_int(chime_admin_table *t, size_t col, int64_t v);
/* A bytes cell: len bytes of data (NULL: null). */
void chime__admin_set_bytes(chime_admin_table *t, size_t col, const void *data,
                            size_t len);
bool chime__admin_table_failed(const chime_admin_table *t);
/* The row count; the query's page applied to a table filled in order
 * (a store that cannot page in its query drops rows here). */
size_t chime__admin_table_rows(const chime_admin_table *t);
void chime__admin_table_page(chime_admin_table *t, size_t offset, size_t limit);

/* The "state" column's word of a trigger's store state ("WAITING",
 * "PAUSED", ...: the MySQL store's own words). */
const char *chime__admin_state_name(int state);
/* The "concurrency" column's word of a job's policy ("allow", ...). */
const char *chime__admin_concurrency_name(int concurrency);
/* The "kind" column's word of a trigger kind ("cron", ...). */
const char *chime__admin_kind_name(chime_trigger_kind kind);
/* The "misfire" column's word ("smart", ...). */
const char *chime__admin_misfire_name(chime_misfire misfire);

/* Fills the last row of a CHIME_ADMIN_TRIGGERS table from trigger tr (a
 * store's record), its state word and its owner (NULL: unclaimed): the
 * one reading of a trigger both stores share (the store sets job_type,
 * job_tags and claim_fire_id, which its record does not hold). */
void chime__admin_put_trigger(chime_admin_table *t, const chime_trigger *tr,
                              const char *state, const char *owner);

/* The figures' lists both stores share (admin_stats.c). */
/* The lateness buckets of CHIME_ADMIN_LATENESS, in ms (the library's
 * histogram buckets, chime_scheduler_metrics). */
#define CHIME__ADMIN_LATENESS_BUCKETS                                          \
  1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000
#define CHIME__ADMIN_NBUCKETS 15
extern const int64_t chime__admin_lateness_ms[CHIME__ADMIN_NBUCKETS];
/* Whether a recorded run was a scheduled one, whose lateness counts: not a
 * fire-now, backfill, retry or recovery (its trigger's group says so, or
 * recovering). */
bool chime__admin_scheduled_run(const char *trigger_group, bool recovering);
/* Fills t, a CHIME_ADMIN_LATENESS table, from the counts: runs[b] of the
 * runs late by at most bucket b, late[b] their lateness summed, b ==
 * CHIME__ADMIN_NBUCKETS for every run (le_ms null). */
void chime__admin_put_lateness(chime_admin_table *t, const int64_t *runs,
                               const int64_t *late);
/* Adds a CHIME_ADMIN_PAUSED_GROUPS row for a group pause (match, pattern)
 * when it covers q's trigger (any pause when q names none). */
void chime__admin_put_paused_group(chime_admin_table *t,
                                   const chime_admin_query *q,
                                   chime_match match, const char *pattern);

/* An operator's view of store (admin.c): owned, freed with the handle
 * (else borrowed: a scheduler's, an operator's store of the tools);
 * operator, a store opened for an operator, whose own node is no node of
 * the cluster (left out of CHIME_ADMIN_NODES).  Returns: 0; CHIME_ENOMEM. */
int chime__admin_wrap(chime_store *store, bool owned, bool operator,
                      chime_admin ** ret);

/* admin's store, and its last failure's message buffer (len bytes): for
 * the actions kept in files of their own (admin_ops.c). */
chime_store *chime__admin_store(chime_admin *admin);
char *chime__admin_err(chime_admin *admin, size_t *ret_len);

/* CHIME_ADMIN_LIMITS (admin_ops.c): every store's limit_stats, by its
 * clock, as rows of t, paged by q.  Returns: 0; the store's errors. */
int chime__admin_list_limits(chime_store *store, const chime_admin_query *q,
                             chime_admin_table *t);

#endif /* CHIME_JOBSTORE_ADMIN_H */
