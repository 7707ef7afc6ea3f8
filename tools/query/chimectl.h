/*
 * chimectl.h: the pieces of chimectl, the operators' command-line tool for
 * a chime cluster's MySQL/MariaDB database.  chimectl.c parses the command
 * line and maps errors to exit codes; chimectl_out.c prints tables, JSON
 * and times; chimectl_db.c opens the store (chime_admin_open);
 * chimectl_options.c takes the options every tool on the store takes;
 * chimectl_describe.c puts schedules in words; chimectl_schema.c,
 * chimectl_list.c, chimectl_history.c, chimectl_ctl.c, chimectl_cancel.c,
 * chimectl_explain.c, chimectl_leases.c, chimectl_stats.c,
 * chimectl_metrics.c, chimectl_show.c, chimectl_watch.c and
 * chimectl_shards.c and chimectl_limits.c hold the command
 * groups; chimectl_detail.c reads retry chains and shards for chime-web's
 * pages of one fire.  Everything it knows of the store comes from the
 * store's public operator's interface (chime-admin.h): the same rules as
 * the nodes', the same lease rule.
 *
 * Terms: a *key* is GROUP.NAME, split at the first dot; a *group pattern*
 * is exact, "abc*" (starts with) or "*" (any).  chimectl opens the store
 * with chime_admin_open: a node that never fires anything and that the
 * lists leave out.
 */
#ifndef CHIME_TOOLS_CHIMECTL_H
#define CHIME_TOOLS_CHIMECTL_H

#include "chime-admin.h"
#include "chime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in --help and README.md). */
#define CTL_OK 0
#define CTL_FAILED 1
#define CTL_USAGE 2
#define CTL_NOTFOUND 3
#define CTL_CONNECT 4
#define CTL_SCHEMA 5

/* What every command receives. */
typedef struct ctl {
  char *url;         /* the store URL with the password inserted */
  const char *sched; /* scheduler (cluster) name */
  const char *zone;  /* the zone for "local" times */
  bool json;
  bool yes;
  const char *job;        /* history --job GROUP.NAME */
  const char *since;      /* history --since TIME */
  bool failed;            /* history --failed */
  long limit;             /* history --limit N */
  const char *data;       /* fire --data JSON */
  const char *key;        /* fire, enqueue --key K (request / unique key) */
  const char *at;         /* enqueue --at TIME */
  const char *partition;  /* enqueue --partition P */
  const char *unique_for; /* enqueue --unique-for DURATION */
  const char *retry;      /* enqueue --retry N[,DELAY[,MULT[,MAX[,JITTER]]]] */
  long priority;          /* enqueue --priority N */
  bool has_priority;
  const char *outcome; /* history: only this outcome (chime-web's filter) */
  long offset;         /* history: rows skipped (--page, chime-web's pages) */
  const char *trigger; /* history --trigger GROUP.NAME */
  const char *on_node; /* history --node ID: runs of that node only */
  const char *until;   /* history --until TIME: started before it */
  const char *fire_id; /* history: the runs of this fire id (decimal) */
  bool own_zone_next;  /* triggers: next fires in each trigger's own zone */
  const char *from;    /* backfill --from TIME */
  const char *to;      /* backfill --to TIME */
  long long pace_ms;   /* backfill --pace MS (0: all at once) */
  bool cancel;         /* backfill --cancel */
  double interval;     /* watch --interval S (0: the default) */
  long max_running;    /* limit set --max N */
  long max_per_partition;      /* limit set --per-partition M */
  const char *rate;            /* limit set --rate R/PERIOD */
  const char *partition_rate;  /* limit set --partition-rate R/PERIOD */
  const char *partition_field; /* limit set --partition-field F */
  int argc; /* the command's arguments, after the command word */
  char **argv;
  const char *who;           /* the audit's who (ctl_who_default) */
  const char *origin;        /* the audit's origin ("chimectl") */
  char who_buf[200];         /* who's text for chimectl */
  const char *who_filter;    /* audit --who */
  const char *action_filter; /* audit --action */
  long long timeout_ms;      /* drain --timeout S, in ms (-1: none) */
  bool wait;                 /* drain --wait */
  bool apply;                /* repair --apply */
  char node[64];             /* "chimectl-PID": names its editing node */
  chime_admin *admin;        /* opened on demand by ctl_open */
} ctl;

/* ----------------------------------------------------------- errors */

/* Prints "chimectl: MESSAGE" on stderr, the password never included, and
 * returns the exit code for the chime error code (0 maps to CTL_FAILED). */
int ctl_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The exit code for a chime error code. */
int ctl_exit_code(int code);
/* Prints "chimectl: MESSAGE" on stderr like ctl_fail; returns CTL_USAGE. */
int ctl_usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* The last message of ctl_fail or ctl_usage (chime-web shows it); with
 * ctl_quiet set nothing is printed.  One thread uses the queries. */
extern char ctl_last_error[1024];
extern bool ctl_quiet;
/* The name messages begin with ("chimectl"). */
extern const char *ctl_program;

/* ----------------------------------------------------------- history rules */

/* What the statistics (stats, metrics, chime-web's charts) count is the
 * store's rule (chime-admin(3): CHIME_ADMIN_JOB_STATS and its kin), never
 * restated here.  A *scheduled run* is a run of a schedule's own fire, the
 * only kind whose lateness says how punctual the cluster is: not a
 * fire-now, a backfill, a retry nor a recovery.  A *failure* is a run
 * whose outcome is neither OK nor REQUEUED; a REQUEUED row (a dead node's
 * record of a run put back and run again elsewhere) counts as *recovered*,
 * never as a run or a failure. */

/* ----------------------------------------------------------- database */

/* The options every tool on the store takes (chimectl_options.c): their
 * ids (a tool's own ones number from CTL_O_OWN), their rows of a
 * getopt_long table (CTL_STORE_OPTIONS, and CTL_HELP_OPTIONS: --help 'h'
 * and --version 'V') and their help (--url, --password-file, --scheduler,
 * --tz). */
enum { CTL_O_URL = 256, CTL_O_PWFILE, CTL_O_SCHED, CTL_O_TZ, CTL_O_OWN };
/* One row a line (clang-format would join them). */
/* clang-format off */
#define CTL_STORE_OPTIONS                                                      \
  {"url", required_argument, NULL, CTL_O_URL},                                 \
  {"password-file", required_argument, NULL, CTL_O_PWFILE},                    \
  {"scheduler", required_argument, NULL, CTL_O_SCHED},                         \
  {"tz", required_argument, NULL, CTL_O_TZ}
#define CTL_HELP_OPTIONS                                                       \
  {"help", no_argument, NULL, 'h'},                                            \
  {"version", no_argument, NULL, 'V'}
/* clang-format on */
extern const char ctl_options_help[];
/* Takes what getopt_long returned that a tool's own options are not (the
 * default of its switch): a store option with its value arg (into
 * c->sched, c->zone, and *url and *pwfile for ctl_setup), --help (usage
 * printed on stdout), --version (of ctl_program), or an unknown or
 * incomplete option (argv[optind - 1]).  Returns: 0; -1 (help or version
 * printed); CTL_USAGE (message printed). */
int ctl_option(ctl *c, int opt, const char *arg, const char **url,
               const char **pwfile, void (*usage)(FILE *out), char **argv);
/* Reads the first line of file path (a what: "password") into buf (len
 * bytes).  Returns: 0 or an exit code (message printed). */
int ctl_read_first_line(const char *path, const char *what, char *buf,
                        size_t len);
/* Completes c after the options: the scheduler name (default "chime"),
 * the zone ($TZ when it names one, else UTC), c->url from url with the
 * password of pwfile (NULL: $CHIME_PASSWORD, else the URL's).
 * Returns: 0 or an exit code (message printed). */
int ctl_setup(ctl *c, const char *url, const char *pwfile);
/* Opens c->store (extra URL parameters appended when extra is not NULL,
 * e.g. "auto_create=1").  Returns: 0 or an exit code (message printed). */
int ctl_open(ctl *c, const char *extra);
/* c's store as chime-admin.h's operator's view (opened on demand; the
 * same connection as ctl_open's).  Returns: 0 or an exit code (message
 * printed). */
int ctl_admin(ctl *c, chime_admin **ret);
/* A new query of list kind (chime-admin.h), NULL when out of memory (which
 * ctl_list says). */
chime_admin_query *ctl_list_query(chime_admin_kind kind);
/* Lists q (NULL: out of memory) on c's store through the public lists of
 * chime-admin.h, and frees q (so ctl_list(c, ctl_list_query(kind), ...)
 * lists a whole kind); *ret the table (chime_admin_table_free).
 * Returns: 0 or an exit code (message printed). */
int ctl_list(ctl *c, chime_admin_query *q, chime_admin_table **ret);
/* A trigger as chimectl shows it: row `row` of a CHIME_ADMIN_TRIGGERS
 * list (chime-admin.h) read into fields (chimectl_trigger.c), and a public
 * chime_trigger built from its definition to step its next fires. */
typedef struct ctl_trigger {
  const char *group, *name, *job_group, *job_name, *job_type;
  const char *description;   /* NULL: none */
  const char *calendar_name; /* NULL: none */
  const char *zone_name;     /* NULL: UTC or none */
  chime_trigger_kind kind;   /* -1: a kind this chimectl does not know */
  const char *cron_text;     /* cron, recurrence: the expression */
  chime_misfire misfire;
  int priority;
  int64_t start_ms, end_ms; /* CHIME_NO_FIRE_MS, INT64_MAX: none */
  int64_t interval_ms;      /* simple */
  int32_t repeat_count;     /* simple, daily: as defined */
  int32_t interval;         /* calendar-interval, daily */
  chime_interval_unit unit; /* calendar-interval, daily */
  bool preserve_hour_of_day;
  int32_t day_start_s, day_end_s; /* daily: the window */
  unsigned days_of_week;          /* daily: bit 0 Sunday ... bit 6 */
  int64_t jitter_ms, jitter_offset_ms;
  int64_t next_fire_ms, prev_fire_ms; /* CHIME_NO_FIRE_MS: none */
  int32_t state_repeat_count;         /* simple: the effective repeat count */
  const char *state;                  /* "WAITING", "PAUSED", ... */
  const char *owner;                  /* the claiming node, NULL: none */
  int64_t claim_fire_id;              /* 0: none */
  int64_t timeout_ms;                 /* 0: the job's */
  int64_t starting_deadline_ms;       /* 0: the job's */
  chime_trigger *record;   /* cron, recurrence, simple: to step; else NULL */
  chime_admin_table *list; /* the strings' owner when ctl_trigger_by_key */
} ctl_trigger;
/* Reads row `row` of the CHIME_ADMIN_TRIGGERS list l into *ret, which
 * borrows l's strings.  Returns: 0 or CHIME_ENOMEM. */
int ctl_trigger_read(const chime_admin_table *l, size_t row, ctl_trigger *ret);
/* Frees what *t owns (its record, its list when ctl_trigger_by_key's). */
void ctl_trigger_clear(ctl_trigger *t);
/* The trigger group.name of c's scheduler into *ret; key is how the user
 * named it, for the messages.  The caller clears *ret (ctl_trigger_clear).
 * Returns: 0 or an exit code (message printed: "no trigger KEY" when
 * there is none). */
int ctl_trigger_by_key(ctl *c, const char *group, const char *name,
                       const char *key, ctl_trigger *ret);
/* The database clock now (chime_admin_get_now_ms; 0 before ctl_open). */
int64_t ctl_now(ctl *c);
/* Checks c's store in (chime_admin_check_in), for a long-lived tool every
 * CHIME_ADMIN_CHECK_IN_MS.  Returns: 0 (also before ctl_open) or the
 * store's error, nothing printed. */
int ctl_check_in(ctl *c);
/* Closes c's store (its nodes row goes); nothing when not open. */
void ctl_close(ctl *c);
/* Splits "GROUP.NAME" at its first dot into buffers of len bytes.
 * Returns: 0 or CTL_USAGE (message printed). */
int ctl_split_key(const char *text, char *group, char *name, size_t len);
/* Turns a GROUP_PATTERN (exact, "abc*" or "*") into a matcher. */
void ctl_pattern(const char *text, chime_match *ret_match,
                 const char **ret_pattern, char *buf, size_t len);

/* ----------------------------------------------------------- output */

/* A table of text cells, printed aligned or as a JSON array of objects. */
typedef struct ctl_table {
  size_t ncols, nrows, cap;
  const char *const *heads; /* column titles (also the JSON keys) */
  const bool *numeric;      /* per column: a JSON number (may be NULL) */
  char **cells;             /* nrows * ncols, NULL for null */
  size_t shown;             /* columns the text table shows (0: all) */
} ctl_table;

void ctl_table_init(ctl_table *t, const char *const *heads, const bool *numeric,
                    size_t ncols);
/* Appends a row of ncols cells (copied; NULL for none).  0 or ENOMEM. */
int ctl_table_add(ctl_table *t, const char *const *cells);
void ctl_table_print(const ctl_table *t, bool json);
void ctl_table_free(ctl_table *t);
/* Prints t (when r is 0), frees t; returns r. */
int ctl_table_end(const ctl *c, ctl_table *t, int r);
/* s (NULL: "?") in lower case into buf (len bytes). */
void ctl_lower(const char *s, char *buf, size_t len);

/* A run's own data (len bytes; chimectl_data.c): whether it is text
 * (UTF-8 without NUL or control characters but tab and line ends), and
 * how it is shown: *ret_text (malloc'd) the text itself, or the bytes in
 * lowercase hex, *ret_encoding "text" or "hex"; both NULL for no data.
 * Returns: 0 or an exit code (out of memory). */
bool ctl_data_is_text(const void *data, size_t len);
int ctl_data_show(const void *data, size_t len, char **ret_text,
                  const char **ret_encoding);

/* Whether text is exactly one JSON value (chimectl_json.c). */
bool ctl_json_is_valid(const char *text);
/* Writes s as a JSON string (quotes included) to stdout or out. */
void ctl_json_string(const char *s);
void ctl_json_string_to(FILE *out, const char *s);
/* Writes t as a JSON array of objects to out. */
void ctl_table_print_json(const ctl_table *t, FILE *out);
/* Formats t_ms as "YYYY-MM-DD HH:MM:SS" in zone (NULL, or a zone it cannot
 * load: UTC) with the zone's offset when local (chime_zone_format_time);
 * "-" for CHIME_NO_FIRE_MS. */
void ctl_format_time(int64_t t_ms, const char *zone, char *buf, size_t len);
/* Formats a duration in ms as "1.5s", "3m12s", "2h05m", "4d03h". */
void ctl_format_age(int64_t ms, char *buf, size_t len);
/* Parses TIME: epoch ms, "YYYY-MM-DD[ T]HH:MM[:SS][Z]" (UTC; what
 * chime_zone_parse_time reads) or "-10m",
 * "-2h", "-1d" (relative to now_ms).  Returns: 0; CHIME_EINVAL. */
int ctl_parse_time(const char *text, int64_t now_ms, int64_t *ret_ms);

/* ----------------------------------------------------------- queries */

/* The queries behind chimectl's listings and chime-web's pages: each fills
 * t (initialised here; the caller frees it on 0, it is empty on error).
 * pattern: a GROUP_PATTERN, NULL for all.  Returns: 0 or an exit code
 * (message in ctl_last_error). */
int ctl_nodes_table(ctl *c, ctl_table *t);
int ctl_jobs_table(ctl *c, const char *pattern, ctl_table *t);
int ctl_triggers_table(ctl *c, const char *pattern, ctl_table *t);
/* c->job, c->trigger, c->on_node, c->fire_id, c->since, c->until,
 * c->failed, c->outcome, c->limit, c->offset.  Columns past the shown
 * ones: ..., recovering, data, data_encoding, data_bytes (the run's own
 * data, ctl_data_show; null, null, 0 when it read its job's). */
int ctl_history_table(ctl *c, ctl_table *t);
/* The fires claimed or running now (chimectl_running.c). */
int ctl_running_table(ctl *c, ctl_table *t);
/* The shards of sharded fire fire_id (chimectl_shards.c). */
int ctl_shards_table(ctl *c, const char *fire_id, ctl_table *t);
int ctl_cmd_shards(ctl *c);
/* Per minute of the last hour: fires, failures, mean and worst lateness. */
int ctl_activity_table(ctl *c, ctl_table *t);
/* Node events, newest first: joins (a nodes row's start) and deaths (the
 * fires a recovery ended). */
int ctl_events_table(ctl *c, ctl_table *t);

/* ----------------------------------------------------------- details */

/* The retry chains of the recorded and running fires (chimectl_detail.c):
 * a retry's fire runs trigger CHIME_RETRY.retry-F, F the fire it retries,
 * so each retry fire links to its previous attempt's fire. */
typedef struct ctl_retry_links {
  size_t n;
  int64_t *fire; /* a retry's fire id */
  int64_t *prev; /* the fire it retried */
} ctl_retry_links;
/* Loads the links of the newest 10,000 retries.  Returns: 0 or an exit
 * code (message in ctl_last_error; *ret empty). */
int ctl_retry_links_load(ctl *c, ctl_retry_links *ret);
/* Loads the links of fire's own retry chain only: the attempts before and
 * after it (a fire's page), each found by fire id.  Returns: as
 * ctl_retry_links_load. */
int ctl_retry_chain_load(ctl *c, int64_t fire, ctl_retry_links *ret);
void ctl_retry_links_free(ctl_retry_links *l);
/* The fire that fire retried, or the retry of fire (0: none). */
int64_t ctl_retry_prev(const ctl_retry_links *l, int64_t fire);
int64_t ctl_retry_next(const ctl_retry_links *l, int64_t fire);
/* The attempt fire ran: 1, or 1 + the attempts before it. */
int ctl_retry_attempt(const ctl_retry_links *l, int64_t fire);
/* Of a recorded fire: the sharded fire it is a shard of and its index
 * (*ret_parent 0: not a shard).  Returns: 0 or an exit code. */
int ctl_fire_shard(ctl *c, const char *fire_id, int64_t *ret_parent,
                   int *ret_index);
/* A retry waiting to run fire fire_id again: its trigger's next fire time
 * (CHIME_NO_FIRE_MS: none).  Returns: 0 or an exit code. */
int ctl_retry_pending(ctl *c, int64_t fire_id, int64_t *ret_next_ms);

/* The misfire threshold explain judges a late trigger by: the library's
 * default (chime_config_set_misfire_threshold_ms, include/chime.h), as the
 * nodes' own setting is not in the store. */
#define CTL_MISFIRE_THRESHOLD_MS INT64_C(60000)

/* Why a trigger is (not) firing: explain's answer. */
typedef struct ctl_explanation {
  char state[24];  /* the trigger's state */
  char reason[24]; /* "paused", "due", ... */
  char msg[1024];  /* the sentence */
  size_t hint_at;  /* where in msg the advice in chimectl's terms begins
                      (" (resume with 'chimectl resume ...')"), strlen(msg)
                      when none: chime-web gives its own */
  int64_t next_ms; /* CHIME_NO_FIRE_MS: none */
} ctl_explanation;
int ctl_explain_key(ctl *c, const char *key, ctl_explanation *ret);

/* Prints what an action did, as text or JSON (--json): action a verb in
 * the past ("paused"), what it acted on ("trigger", "job", "group" or
 * "all"), target (a key or pattern), and first_ms a trigger's first fire
 * (CHIME_NO_FIRE_MS: none shown).  Returns: 0. */
int ctl_done(const ctl *c, const char *action, const char *what,
             const char *target, int64_t first_ms);
/* The actions (chimectl_ctl.c).  what: "trigger", "job", "group" or
 * "all".  Returns: 0 or an exit code (message in ctl_last_error). */
int ctl_pause_target(ctl *c, bool pause, const char *what, const char *arg);
/* Fires job key now with data (NULL: none); the one-off trigger's key into
 * trigger (len bytes), its due time into *ret_due_ms.  With request_key
 * (NULL: none) the run is the enqueued run with that unique key:
 * *ret_existed (may be NULL without a request key) says whether it
 * existed already (nothing stored). */
int ctl_fire_key(ctl *c, const char *key, const char *data,
                 const char *request_key, char *trigger, size_t len,
                 int64_t *ret_due_ms, bool *ret_existed);
int ctl_delete_key(ctl *c, bool is_job, const char *key);
/* Interrupts running fire fire_id (decimal text), as `chimectl cancel
 * fire` and chime_scheduler_interrupt_fire do: the store flags it, the
 * node running it tells the run at its next check-in, and the run is
 * recorded CANCELLED when it returns.  Returns: 0 or an exit code
 * (CTL_USAGE: not a fire id; CTL_NOTFOUND: not running). */
int ctl_cancel_fire(ctl *c, const char *fire_id);
/* Drains node (drain) with timeout_ms (<= 0: none), or undrains it, as
 * chime_scheduler_drain does; recorded in the audit table as c->who from
 * c->origin (chimectl_drain.c).  Returns: 0 or an exit code (CTL_NOTFOUND:
 * no such node; not drained). */
int ctl_drain_node(ctl *c, const char *node, bool drain, long long timeout_ms);
/* Node's drain row state ("DRAINING", "DRAINED", "" none) into ret_state
 * (len bytes), whether it is live, how many fires it holds. */
int ctl_drain_state(ctl *c, const char *node, char *ret_state, size_t len,
                    bool *ret_live, long long *ret_fires);

/* ----------------------------------------------------------- audit */

/* Sets c->who to "USER@HOST" (the OS user running the tool) and
 * c->origin to ctl_program (chimectl_audit.c). */
void ctl_who_default(ctl *c);
/* Records an action that succeeded in the audit table
 * (chime_admin_audit) as c->who from c->origin: action a verb
 * ("pause"), target what it acted on ("trigger G.N"), details NULL or
 * free text.  A failure is said on stderr (the action was done).
 * Returns: 0 or the store's error. */
int ctl_audit(ctl *c, const char *action, const char *target,
              const char *details);
/* The audit rows, newest first: c->since, c->who_filter,
 * c->action_filter, c->limit, c->offset (chime-web's pages). */
int ctl_audit_table(ctl *c, ctl_table *t);

/* ----------------------------------------------------------- commands */

int ctl_cmd_schema(ctl *c);
int ctl_cmd_nodes(ctl *c);
int ctl_cmd_jobs(ctl *c);
int ctl_cmd_triggers(ctl *c);
/* ctl_job_and_since (chimectl_history.c): --job split into group and name
 * (buffers of len), the store opened, --since read into *since_ms (left
 * as it is without --since).  Returns: 0 or an exit code (said why). */
int ctl_job_and_since(ctl *c, char *group, char *name, size_t len,
                      int64_t *since_ms);
int ctl_cmd_history(ctl *c);
int ctl_cmd_stats(ctl *c);
int ctl_cmd_metrics(ctl *c);
/* The cluster-wide figures in the Prometheus text format to out: what
 * `chimectl metrics` prints and chime-web's /metrics serves.  Returns: 0
 * or an exit code (message in ctl_last_error; out may hold a part). */
int ctl_metrics_write(ctl *c, FILE *out);
int ctl_cmd_pause(ctl *c, bool pause);
int ctl_cmd_fire(ctl *c);
int ctl_cmd_enqueue(ctl *c);
int ctl_cmd_delete(ctl *c);
int ctl_cmd_explain(ctl *c);
int ctl_cmd_show(ctl *c);
int ctl_cmd_watch(ctl *c);
int ctl_cmd_leases(ctl *c);
/* limit set|clear|show, and `limits` (listing) (chimectl_limits.c). */
int ctl_cmd_limit(ctl *c, bool listing);
/* The limited types and their partitions: figures, waiting, running. */
int ctl_limits_table(ctl *c, ctl_table *t);
int ctl_cmd_lease(ctl *c);
int ctl_cmd_zones(ctl *c);
int ctl_cmd_running(ctl *c);
int ctl_cmd_events(ctl *c);
int ctl_cmd_cancel(ctl *c);
int ctl_cmd_backfill(ctl *c);
int ctl_cmd_audit(ctl *c);
/* drain (drain true) or undrain NODE (chimectl_drain.c). */
int ctl_cmd_drain(ctl *c, bool drain);
int ctl_cmd_repair(ctl *c);

/* A trigger's schedule in words (malloc'd; NULL on ENOMEM). */
char *ctl_describe_trigger(const ctl_trigger *t);
const char *ctl_misfire_name(chime_misfire m);
/* The trigger's next n fire times in zone, comma-separated, into buf (len
 * bytes): cron and simple schedules stepped, others their next only. */
void ctl_next_times(const ctl_trigger *t, const char *zone, int n, char *buf,
                    size_t len);
const char *ctl_kind_name(chime_trigger_kind k);
/* "second", "minute", ...: a unit's name ("unit" for none). */
const char *ctl_unit_name(chime_interval_unit u);

#endif /* CHIME_TOOLS_CHIMECTL_H */
