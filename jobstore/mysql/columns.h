/*
 * columns.h: the column lists of the MySQL store's triggers, jobs and
 * fired tables, and records to and from them (columns.c): a trigger row
 * to a chime_trigger and back (every field of a definition and its fire
 * state round-trips: zone name, cron text, kind fields, flags, calendar
 * name, data, description), a job row to a chime_job, state names.
 *
 * Each list is one X-macro: it generates both the SQL text of the columns
 * and the enum of their positions, so the two cannot drift apart.  A list
 * takes two macros, FIRST for the first column and NEXT for the others,
 * each called as (ID, column_name).  docs/schema.md describes the columns.
 */
#ifndef CHIME_JOBSTORE_MYSQL_COLUMNS_H
#define CHIME_JOBSTORE_MYSQL_COLUMNS_H

#include "jobstore/mysql/result.h"
#include "jobstore/mysql/stmt.h"
#include "jobstore/store.h"

#include <stdbool.h>
#include <stddef.h>

/* The columns every trigger SELECT returns, in this order; the trigger
 * INSERT takes sched_name and then these. */
#define CHIME__MYSQL_TRIGGER_COLUMNS(FIRST, NEXT)                              \
  FIRST(GROUP, trigger_group)                                                  \
  NEXT(NAME, trigger_name)                                                     \
  NEXT(JOB_GROUP, job_group)                                                   \
  NEXT(JOB_NAME, job_name)                                                     \
  NEXT(KIND, kind)                                                             \
  NEXT(DESCRIPTION, description)                                               \
  NEXT(CALENDAR_NAME, calendar_name)                                           \
  NEXT(DATA, data)                                                             \
  NEXT(ZONE_NAME, zone_name)                                                   \
  NEXT(CRON_TEXT, cron_text)                                                   \
  NEXT(START_SET, start_set)                                                   \
  NEXT(START_MS, start_ms)                                                     \
  NEXT(END_MS, end_ms)                                                         \
  NEXT(MISFIRE, misfire)                                                       \
  NEXT(PRIORITY, priority)                                                     \
  NEXT(INTERVAL_MS, interval_ms)                                               \
  NEXT(REPEAT_COUNT, repeat_count)                                             \
  NEXT(INTERVAL_N, interval_n)                                                 \
  NEXT(INTERVAL_UNIT, interval_unit)                                           \
  NEXT(PRESERVE_HOUR, preserve_hour)                                           \
  NEXT(SKIP_DAY, skip_day)                                                     \
  NEXT(DAY_START_S, day_start_s)                                               \
  NEXT(DAY_END_S, day_end_s)                                                   \
  NEXT(DAYS_OF_WEEK, days_of_week)                                             \
  NEXT(NEXT_FIRE_MS, next_fire_ms)                                             \
  NEXT(PREV_FIRE_MS, prev_fire_ms)                                             \
  NEXT(TIMES_TRIGGERED, times_triggered)                                       \
  NEXT(STATE_START_MS, state_start_ms)                                         \
  NEXT(STATE_REPEAT_COUNT, state_repeat_count)                                 \
  NEXT(STATE, state)                                                           \
  NEXT(OWNER, owner)                                                           \
  NEXT(CLAIM_FIRE_ID, claim_fire_id)                                           \
  NEXT(RECOVERING, recovering)                                                 \
  NEXT(RECOVER_SCHEDULED_MS, recover_scheduled_ms)                             \
  NEXT(TIMEOUT_MS, timeout_ms)                                                 \
  NEXT(JITTER_MS, jitter_ms)                                                   \
  NEXT(RETRY_ATTEMPT, retry_attempt)                                           \
  NEXT(RETRY_SCHEDULED_MS, retry_scheduled_ms)                                 \
  NEXT(STARTING_DEADLINE_MS, starting_deadline_ms)                             \
  NEXT(SHARD_PARENT, shard_parent)                                             \
  NEXT(SHARD_INDEX, shard_index)                                               \
  NEXT(SHARD_TOTAL, shard_total)                                               \
  NEXT(SHARD_PARAM, shard_param)                                               \
  NEXT(ORIGIN_FIRE_ID, origin_fire_id)                                         \
  NEXT(PARTITION_KEY, partition_key)                                           \
  NEXT(UNIQUE_FOR_MS, unique_for_ms)                                           \
  NEXT(HELD_UNTIL_MS, held_until_ms)                                           \
  NEXT(RUN_RETRY_MAX_ATTEMPTS, run_retry_max_attempts)                         \
  NEXT(RUN_RETRY_INITIAL_DELAY_MS, run_retry_initial_delay_ms)                 \
  NEXT(RUN_RETRY_MULTIPLIER_MILLI, run_retry_multiplier_milli)                 \
  NEXT(RUN_RETRY_MAX_DELAY_MS, run_retry_max_delay_ms)                         \
  NEXT(RUN_RETRY_JITTER_MS, run_retry_jitter_ms)                               \
  NEXT(RUN_RETRY_TIMED_OUT, run_retry_timed_out)                               \
  NEXT(JOB_TAGS, job_tags)                                                     \
  NEXT(JOB_TYPE, job_type)

/* The columns of a job row (CHIME__Q_JOB_GET). */
#define CHIME__MYSQL_JOB_COLUMNS(FIRST, NEXT)                                  \
  FIRST(GROUP, job_group)                                                      \
  NEXT(NAME, job_name)                                                         \
  NEXT(TYPE, job_type)                                                         \
  NEXT(DESCRIPTION, description)                                               \
  NEXT(DATA, data)                                                             \
  NEXT(DURABLE, durable)                                                       \
  NEXT(REQUESTS_RECOVERY, requests_recovery)                                   \
  NEXT(CONCURRENCY, concurrency)                                               \
  NEXT(PERSIST_DATA, persist_data)                                             \
  NEXT(PAUSED, paused)                                                         \
  NEXT(TIMEOUT_MS, timeout_ms)                                                 \
  NEXT(STARTING_DEADLINE_MS, starting_deadline_ms)                             \
  NEXT(RETRY_MAX_ATTEMPTS, retry_max_attempts)                                 \
  NEXT(RETRY_INITIAL_DELAY_MS, retry_initial_delay_ms)                         \
  NEXT(RETRY_MULTIPLIER_MILLI, retry_multiplier_milli)                         \
  NEXT(RETRY_MAX_DELAY_MS, retry_max_delay_ms)                                 \
  NEXT(RETRY_JITTER_MS, retry_jitter_ms)                                       \
  NEXT(QUEUE_CAP, queue_cap)                                                   \
  NEXT(RETRY_TIMED_OUT, retry_timed_out)                                       \
  NEXT(SHARD_COUNT, shard_count)                                               \
  NEXT(SHARD_PARAMS, shard_params)                                             \
  NEXT(REQUIRED_TAGS, required_tags)                                           \
  NEXT(HISTORY_LEVEL, history_level)                                           \
  NEXT(THEN_GROUP, then_group)                                                 \
  NEXT(THEN_NAME, then_name)

/* The columns of a fired row (CHIME__Q_FIRED_GET, CHIME__Q_FIRED_OF_NODE,
 * the completion batch). */
#define CHIME__MYSQL_FIRED_COLUMNS(FIRST, NEXT)                                \
  FIRST(ID, fire_id)                                                           \
  NEXT(TRIGGER_GROUP, trigger_group)                                           \
  NEXT(TRIGGER_NAME, trigger_name)                                             \
  NEXT(JOB_GROUP, job_group)                                                   \
  NEXT(JOB_NAME, job_name)                                                     \
  NEXT(SCHEDULED_MS, scheduled_ms)                                             \
  NEXT(NODE, node)                                                             \
  NEXT(STATE, state)                                                           \
  NEXT(FORBID, forbid)                                                         \
  NEXT(REQUESTS_RECOVERY, requests_recovery)                                   \
  NEXT(RECOVERING, recovering)                                                 \
  NEXT(PRIORITY, priority)                                                     \
  NEXT(SHARD_PARENT, shard_parent)                                             \
  NEXT(SHARDS_TOTAL, shards_total)                                             \
  NEXT(SHARDS_LEFT, shards_left)                                               \
  NEXT(SHARDS_FAILED, shards_failed)                                           \
  NEXT(FAILED_LIST, failed_list)                                               \
  NEXT(SPLIT_MS, split_ms)

/* The generators: positions, "a, b, c", "t.a, t.b, t.c" and "?,?,?". */
#define CHIME__TRIG_COL_ENUM_(id, name) CHIME__TRIG_COL_##id,
#define CHIME__JOB_COL_ENUM_(id, name) CHIME__JOB_COL_##id,
#define CHIME__FIRED_COL_ENUM_(id, name) CHIME__FIRED_COL_##id,
#define CHIME__MYSQL_COL_FIRST_(id, name) #name
#define CHIME__MYSQL_COL_NEXT_(id, name) ", " #name
#define CHIME__MYSQL_COL_FIRST_T_(id, name) "t." #name
#define CHIME__MYSQL_COL_NEXT_T_(id, name) ", t." #name
#define CHIME__MYSQL_COL_FIRST_F_(id, name) "f." #name
#define CHIME__MYSQL_COL_NEXT_F_(id, name) ", f." #name
#define CHIME__MYSQL_COL_FIRST_Q_(id, name) "?"
#define CHIME__MYSQL_COL_NEXT_Q_(id, name) ",?"
#define CHIME__MYSQL_COL_FIRST_S_(id, name) "/*:" #name "*/"
#define CHIME__MYSQL_COL_NEXT_S_(id, name) ", /*:" #name "*/"
#define CHIME__MYSQL_COL_NAME_(id, name) #name,

/* Positions in a trigger row: CHIME__TRIG_COL_GROUP ... _JOB_TYPE. */
enum {
  CHIME__MYSQL_TRIGGER_COLUMNS(CHIME__TRIG_COL_ENUM_, CHIME__TRIG_COL_ENUM_)
      CHIME__TRIG_COL_COUNT
};
/* Positions in a job row: CHIME__JOB_COL_GROUP ... _HISTORY_LEVEL. */
enum {
  CHIME__MYSQL_JOB_COLUMNS(CHIME__JOB_COL_ENUM_, CHIME__JOB_COL_ENUM_)
      CHIME__JOB_COL_COUNT
};
/* Positions in a fired row: CHIME__FIRED_COL_ID ... _SPLIT_MS. */
enum {
  CHIME__MYSQL_FIRED_COLUMNS(CHIME__FIRED_COL_ENUM_, CHIME__FIRED_COL_ENUM_)
      CHIME__FIRED_COL_COUNT
};

/* The column lists as SQL text, plain and qualified by a table alias. */
#define CHIME__MYSQL_TRIGGER_COLS_SQL                                          \
  CHIME__MYSQL_TRIGGER_COLUMNS(CHIME__MYSQL_COL_FIRST_, CHIME__MYSQL_COL_NEXT_)
#define CHIME__MYSQL_TRIGGER_COLS_T_SQL                                        \
  CHIME__MYSQL_TRIGGER_COLUMNS(CHIME__MYSQL_COL_FIRST_T_,                      \
                               CHIME__MYSQL_COL_NEXT_T_)
#define CHIME__MYSQL_TRIGGER_PARAMS_SQL                                        \
  CHIME__MYSQL_TRIGGER_COLUMNS(CHIME__MYSQL_COL_FIRST_Q_,                      \
                               CHIME__MYSQL_COL_NEXT_Q_)
/* The columns as the slots of a text statement's row, each named by its
 * column (stmt.h, chime__mysql_sqlbuf_at), and the slots' names in order. */
#define CHIME__MYSQL_TRIGGER_SLOTS_SQL                                         \
  CHIME__MYSQL_TRIGGER_COLUMNS(CHIME__MYSQL_COL_FIRST_S_,                      \
                               CHIME__MYSQL_COL_NEXT_S_)
#define CHIME__MYSQL_TRIGGER_SLOT_NAMES                                        \
  CHIME__MYSQL_TRIGGER_COLUMNS(CHIME__MYSQL_COL_NAME_, CHIME__MYSQL_COL_NAME_)
#define CHIME__MYSQL_JOB_COLS_SQL                                              \
  CHIME__MYSQL_JOB_COLUMNS(CHIME__MYSQL_COL_FIRST_, CHIME__MYSQL_COL_NEXT_)
#define CHIME__MYSQL_FIRED_COLS_SQL                                            \
  CHIME__MYSQL_FIRED_COLUMNS(CHIME__MYSQL_COL_FIRST_, CHIME__MYSQL_COL_NEXT_)
#define CHIME__MYSQL_FIRED_COLS_F_SQL                                          \
  CHIME__MYSQL_FIRED_COLUMNS(CHIME__MYSQL_COL_FIRST_F_,                        \
                             CHIME__MYSQL_COL_NEXT_F_)

/* The arguments of CHIME__Q_TRIG_INSERT: sched_name, then the columns;
 * the value of column CHIME__TRIG_COL_X is args[CHIME__TRIG_ARG(X)]. */
#define CHIME__MYSQL_TRIGGER_INSERT_ARGS (1 + CHIME__TRIG_COL_COUNT)
#define CHIME__TRIG_ARG(id) (1 + CHIME__TRIG_COL_##id)

/* The name of a store state as the state columns hold it. */
const char *chime__mysql_state_name(chime_store_state state);
/* The state of a name; CHIME_STATE_ERROR for an unknown one or NULL. */
chime_store_state chime__mysql_state_parse(const char *name);

/* A trigger from row i of a result whose first CHIME__TRIG_COL_COUNT
 * columns are CHIME__MYSQL_TRIGGER_COLS_SQL (its calendar not resolved).
 * Returns: 0; CHIME_EFORMAT (a bad row: unknown zone, bad cron text);
 * CHIME_ENOMEM.  Ownership: *ret is the caller's. */
int chime__mysql_trigger_from_row(const chime__mysql_rows *r, size_t i,
                                  chime_trigger **ret);

/* A job from row i of a result whose first CHIME__JOB_COL_COUNT columns
 * are CHIME__MYSQL_JOB_COLS_SQL; *ret_paused (may be NULL) gets its
 * paused flag.  Returns: 0; CHIME_ENOMEM. */
int chime__mysql_job_from_row(const chime__mysql_rows *r, size_t i,
                              chime_job **ret, bool *ret_paused);

/* Sets the arguments of what an enqueued run t carries of its own (its
 * unique period, its retry policy: migration 016) in args, as
 * chime__mysql_trigger_to_args does; a recovery trigger copies them from
 * the run's. */
void chime__mysql_trigger_own_args(const chime_trigger *t,
                                   chime__mysql_arg *args);

/* Fills args[0 .. CHIME__MYSQL_TRIGGER_INSERT_ARGS) for
 * CHIME__Q_TRIG_INSERT of trigger t of scheduler sched, of job (its type
 * and required tags), unclaimed.  The arguments borrow from t and job. */
void chime__mysql_trigger_to_args(const char *sched, const chime_trigger *t,
                                  const chime_job *job, chime__mysql_arg *args);

#endif /* CHIME_JOBSTORE_MYSQL_COLUMNS_H */
