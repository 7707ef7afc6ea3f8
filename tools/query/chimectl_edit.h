/*
 * chimectl_edit.h: creating, changing and deleting jobs and triggers, and
 * retrying a run, for chimectl (`job add|edit|delete`, `trigger
 * add|edit|delete`, `retry`) and chime-web (its edit pages), one copy of
 * each rule.
 *
 * Everything goes through the public API (chime.h): a scheduler opened on
 * the store and never started is a client, as Quartz's is, so every check
 * the library makes applies (a bad cron expression, an unknown zone, a
 * job without a durable flag and no trigger, ...), its message is what the
 * operator reads, and a definition the library refuses is not written at
 * all.  The client is opened for one operation and freed at once, as node
 * "<the tool's node>-client" (it claims nothing).
 *
 * Terms: a *setting* is an option's name without its dashes and a value,
 * as `chimectl trigger add ... --cron EXPR` and chime-web's forms give
 * them (the same names in both; an empty value counts as absent).
 */
#ifndef CHIME_TOOLS_CHIMECTL_EDIT_H
#define CHIME_TOOLS_CHIMECTL_EDIT_H

#include "chimectl.h"

/* The settings of one edit. */
#define CTL_MAX_SETTINGS 40
typedef struct ctl_settings {
  size_t n;
  const char *key[CTL_MAX_SETTINGS];
  const char *value[CTL_MAX_SETTINGS]; /* borrowed */
} ctl_settings;

/* The value of setting key, NULL when absent or empty. */
const char *ctl_setting(const ctl_settings *s, const char *key);
/* Adds a setting.  Returns: 0 or CTL_USAGE (too many; said why). */
int ctl_setting_add(ctl_settings *s, const char *key, const char *value);

/* The names a job's and a trigger's settings may have (NULL-terminated),
 * and the schedule kinds (cron, unix-cron, rrule, simple,
 * calendar-interval, daily). */
extern const char *const ctl_job_setting_names[];
extern const char *const ctl_trigger_setting_names[];
extern const char *const ctl_schedule_kinds[];

/* A job from settings: add (type required) or edit (the stored job with
 * the settings applied).  Returns: 0 or an exit code (ctl_last_error). */
int ctl_job_save(ctl *c, bool add, const char *key, const ctl_settings *s);
/* A trigger from settings: add (job and a schedule required) or edit (the
 * stored trigger with the settings applied; a schedule given replaces its
 * schedule).  *ret_first_ms its first fire.  Returns: 0 or an exit code. */
int ctl_trigger_save(ctl *c, bool add, const char *key, const ctl_settings *s,
                     int64_t *ret_first_ms);
/* A copy of the stored job key (chime_job_free).  Returns: 0 or an exit
 * code. */
int ctl_job_get(ctl *c, const char *key, chime_job **ret);
/* Deletes a job (with its triggers) or a trigger.  Returns: 0 or an exit
 * code (CTL_NOTFOUND). */
int ctl_job_remove(ctl *c, const char *key);
int ctl_trigger_remove(ctl *c, const char *key);

/* The values of settings (chimectl_edit_values.c), for the builders: a
 * whole number in [lo, hi], a boolean, "N UNIT", a daily window "HH:MM-
 * HH:MM", days "mon-fri", a misfire, concurrency or history name, a
 * duration setting into *ms (empty: 0; absent: *ms kept).  Each returns 0
 * or -1 (the parsers) or an exit code (said why). */
int ctl__whole(const char *text, long long lo, long long hi, long long *ret);
int ctl__boolean(const char *text, bool *ret);
int ctl__interval_of(const char *text, int32_t *ret_n,
                     chime_interval_unit *ret_unit);
int ctl__between_of(const char *text, int32_t *ret_from, int32_t *ret_to);
int ctl__days_of(const char *text, unsigned *ret);
int ctl__misfire_of(const char *text, chime_misfire *ret);
int ctl__concurrency_of(const char *text, chime_concurrency *ret);
int ctl__history_of(const char *text, chime_history_level *ret);
int ctl__duration_setting(const ctl_settings *s, const char *name, int64_t *ms);
/* A value the library refused ("NAME 'VALUE': why"), one that is not what
 * the setting wants, a setting the definition does not have.  Returns the
 * exit code. */
int ctl__refused(int r, const char *name, const char *value);
int ctl__malformed(const char *name, const char *value, const char *want);
int ctl__known(const ctl_settings *s, const char *const *names,
               const char *what);

/* The definitions the settings make (chimectl_edit_job.c,
 * chimectl_edit_trigger.c): a job with
 * key (group, name), from old (NULL: a new one); a trigger, from old (NULL:
 * a new one; else old itself is changed and returned unless the settings
 * give a new schedule), times relative to now_ms.  Returns: 0 or an exit
 * code (ctl_last_error: the library's message). */
int ctl__job_build(const char *group, const char *name, const chime_job *old,
                   const ctl_settings *s, chime_job **ret);
int ctl__trigger_build(const char *group, const char *name, chime_trigger *old,
                       const ctl_settings *s, int64_t now_ms,
                       chime_trigger **ret);

/* The next fire times of the schedule in settings s (no store: the
 * library's own parser and stepping), at most n into times (*ret_n of
 * them, fewer when the schedule ends), after now_ms; zone (len bytes) the
 * zone the schedule reads its times in.  Returns: 0 or an exit code
 * (ctl_last_error: the library's message). */
int ctl_schedule_preview(const ctl_settings *s, int64_t now_ms, int n,
                         int64_t *times, int *ret_n, char *zone, size_t len);

/* A cron or Unix cron schedule of s in words ("at 02:00:00, every day"),
 * "" for other kinds or an expression the parser refuses. */
void ctl_schedule_words(const ctl_settings *s, char *buf, size_t len);

/* What a retry did. */
typedef struct ctl_retried {
  char job[2 * CHIME_MAX_NAME_LEN + 2]; /* the run's job, G.N */
  char outcome[24];                     /* the run's outcome */
  const char *data_from; /* "given", "the run's own", "the job's" */
} ctl_retried;

/* The data a retry of run fire_id would use: the run's own, as history
 * recorded it (malloc'd into *ret_data, NUL-terminated past *ret_len
 * bytes; NULL: the run read its job's data, and so does its retry) and
 * where it comes from; the run's job and outcome.  Returns: 0 or an exit
 * code (CTL_NOTFOUND: no such run in the history). */
int ctl_run_data(ctl *c, const char *fire_id, void **ret_data, size_t *ret_len,
                 ctl_retried *ret);
/* Runs the job of recorded run fire_id again now (a fire-now) with data
 * (JSON text; NULL: ctl_run_data's).  A run that succeeded is refused.
 * Returns: 0 or an exit code. */
int ctl_retry_run(ctl *c, const char *fire_id, const char *data,
                  ctl_retried *ret);

/* Parses a duration: whole ms, or a number with ms, s, m, h, d or w.
 * Returns: 0 or -1. */
int ctl_parse_duration(const char *text, int64_t *ret_ms);

/* The chimectl commands (chimectl_edit_cmd.c). */
int ctl_cmd_job(ctl *c);
int ctl_cmd_trigger(ctl *c);
int ctl_cmd_retry(ctl *c);
/* For the commands job and trigger, takes their settings (--cron EXPR,
 * ...) out of argv before the common options (common: getopt_long's
 * table) are parsed; *argc shrinks.  Returns: 0 or CTL_USAGE (said why: an
 * option without its value). */
struct option;
int ctl_edit_take_options(int *argc, char **argv, const struct option *common);

/* Opens the client (chimectl_edit.c): a scheduler on c's store, never
 * started, as node "<c's node>-client".  Returns: 0 or an exit code
 * (message printed). */
int ctl_client_open(ctl *c, chime_scheduler **ret);
/* A failed call r on the client s about what ("job", "trigger") key: the
 * library's detail, else the code's words ("no trigger KEY").  Returns:
 * the exit code (message printed). */
int ctl_client_fail(chime_scheduler *s, int r, const char *what,
                    const char *key);

/* The row of the job (is_job) or trigger (group, name) in its list
 * (chime-admin.h's CHIME_ADMIN_JOBS or _TRIGGERS, chimectl_ctl.c): *ret
 * the table (chime_admin_table_free), *ret_row the row.  key is how the
 * user named it.  Returns: 0 or an exit code ("no job KEY", "no trigger
 * KEY" printed when there is none; *ret NULL). */
int ctl_key_row(ctl *c, bool is_job, const char *group, const char *name,
                const char *key, chime_admin_table **ret, size_t *ret_row);

#endif /* CHIME_TOOLS_CHIMECTL_EDIT_H */
