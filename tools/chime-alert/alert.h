/*
 * alert.h: the pieces of chime-alert, the process that watches a chime
 * cluster's database and delivers alerts to webhooks and commands.
 * chime-alert.c parses the options and runs the loop; alert_watch.c reads
 * the store (a few index-backed statements a poll) and raises alerts;
 * alert_state.c de-duplicates them, queues them for each sink and keeps
 * all of it in a state file across restarts; alert_send.c writes an
 * alert's JSON and runs the command sink; alert_http.c posts to a webhook
 * (http, or https through OpenSSL); alert_log.c holds the clock and the
 * log line they all use.
 *
 * Terms: an *alert* is one message about one *key* ("run_failed:G.N",
 * "node_dead:ID", "misfire:G.N", "job_overdue:G.N", "store_down:SCHED");
 * a *state alert* (all but run_failed) fires once when its condition begins
 * and is *resolved* once when it ends; an *event alert* (run_failed) is
 * sent at most once per key per de-duplication window, the runs it
 * suppressed counted in the next one.  A *sink* is a webhook URL or a
 * command; the *outbox* holds each alert for each sink until it is
 * delivered or its attempts run out.  Times are the database's clock,
 * epoch ms; retry delays are the monotonic clock's.
 */
#ifndef CHIME_TOOLS_ALERT_H
#define CHIME_TOOLS_ALERT_H

#include "chimectl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes beyond chimectl's: the state file cannot be read or written. */
#define ALERT_STATE_FAILED 6

/* Bounds: past an option's, a usage error; past the outbox's, its oldest
 * delivery is dropped and said on stderr. */
#define ALERT_MAX_SINKS 16
#define ALERT_MAX_EXPECT 64
#define ALERT_MAX_HEADERS 8
#define ALERT_MAX_OUTBOX 10000    /* queued deliveries: the oldest dropped */
#define ALERT_HISTORY_BATCH 1000  /* history rows read per statement */
#define ALERT_JOBS_EVERY_MS 30000 /* --expect: the jobs list read anew */
/* Alerts of one kind and status sent one by one in a poll; the rest are
 * counted in one summary alert (every node down makes every trigger a
 * misfire: one message, not thousands). */
#define ALERT_MAX_PER_POLL 10
#define ALERT_KINDS 5

/* One alert, as queued, stored and sent. */
typedef struct alert {
  char kind[16];   /* run_failed, misfire, node_dead, job_overdue,
                      store_down */
  char status[12]; /* firing, resolved */
  char key[512];
  char job[400];     /* GROUP.NAME, or "" */
  char trigger[400]; /* GROUP.NAME, or "" */
  char node[192];    /* the node, or "" */
  char outcome[16];  /* run_failed: the history's outcome */
  int64_t fire_id;   /* run_failed: the fire, else 0 */
  int64_t time_ms;   /* when it happened (the database's clock) */
  int64_t count;     /* run_failed: failures this alert stands for (a
                        raised one: its own, 1, or those a window
                        suppressed); a summary: the alerts it counts */
  char message[2048];
} alert;

/* A sink: a webhook or a command. */
typedef struct alert_sink {
  bool is_command;
  const char *target; /* the URL or the shell command */
} alert_sink;

/* A job pattern and the period within which its jobs must succeed. */
typedef struct alert_expect {
  char group[192], name[192]; /* exact, "abc*" or "*" each */
  int64_t period_ms;
} alert_expect;

/* One remembered key: its de-duplication and its firing state. */
typedef struct alert_key {
  char *key;
  bool firing;          /* a state alert that fired and is not resolved */
  int64_t last_sent_ms; /* an event alert's last alert (0: never) */
  int64_t suppressed;   /* events since, not sent */
  int64_t since_ms;     /* job_overdue: last success or first sight;
                           node_dead: when its row was last seen */
  bool stale;           /* node_dead: its check-in was over 1.5 check-in
                           intervals old when last seen */
  bool quiet;           /* firing, counted in a summary, not sent: its
                           end is not sent either */
  bool paused;          /* job_overdue: the job is paused (not stored) */
  bool seen;            /* found in this poll (not stored) */
} alert_key;

/* One delivery waiting. */
typedef struct alert_out {
  alert a;
  int sink;             /* index into the sinks */
  int attempts;         /* made so far */
  uint64_t next_try_ns; /* the monotonic clock; 0: now */
} alert_out;

/* A poll's alerts of one kind and status (alert_state.c). */
typedef struct alert_poll_count {
  int sent;          /* one by one */
  int64_t more;      /* past ALERT_MAX_PER_POLL: for the summary */
  char example[512]; /* the key of the first of those */
} alert_poll_count;

/* Everything chime-alert holds. */
typedef struct alert_ctx {
  ctl base; /* the store, as chimectl opens it */
  /* Options. */
  alert_sink sinks[ALERT_MAX_SINKS];
  size_t nsinks;
  const char *headers[ALERT_MAX_HEADERS]; /* "Name: value" for webhooks */
  size_t nheaders;
  alert_expect expect[ALERT_MAX_EXPECT];
  size_t nexpect;
  const char *state_path;
  const char *ca_file; /* extra CA certificates for https, or NULL */
  double interval_s;
  int64_t misfire_threshold_ms;
  int64_t dedup_window_ms;
  double retry_initial_s, retry_max_s, timeout_s;
  int max_attempts;
  bool send_resolved;
  bool once; /* one poll, deliveries until done or given up, exit */
  /* State (alert_state.c). */
  int64_t last_id;    /* history rows up to this id are read */
  int64_t overlap_id; /* the previous poll's last_id: re-read, as a
                         row with a smaller id may commit later */
  int64_t *seen_ids;  /* failures above overlap_id already counted */
  size_t nseen, seen_cap;
  alert_key *keys;
  size_t nkeys, keys_cap;
  alert_out *outbox;
  size_t nout, out_cap;
  alert_poll_count counts[ALERT_KINDS][2]; /* [kind][firing, resolved] */
  bool dirty;             /* the state changed since it was saved */
  uint64_t checkin_ns;    /* the next check-in of the nodes row (monotonic) */
  uint64_t jobs_read_ns;  /* the next read of the jobs list (monotonic) */
  int64_t nodes_every_ms; /* the nodes' reads: a quarter of the shortest
                             check-in interval, at most --interval */
  int64_t now_ms;
} alert_ctx;

/* ------------------------------------------------ alert_watch.c */

/* One poll of the store: new failed runs, triggers late past the misfire
 * threshold, jobs overdue.  Alerts go through alert_raise.  Returns: 0 or
 * an exit code (message in ctl_last_error). */
int alert_poll(alert_ctx *x);
/* The nodes: dead by the lease, or removed while stale; sets
 * nodes_every_ms, when to read them again.  Returns: as alert_poll. */
int alert_poll_nodes(alert_ctx *x);

/* A store_down alert: firing when a poll failed (why: its message),
 * resolved when one works again.  Its time is this host's clock.
 * Returns: 0 or an exit code. */
int alert_store_down(alert_ctx *x, bool down, const char *why);

/* Whether a job's key matches an --expect pattern. */
bool alert_expect_matches(const alert_expect *e, const char *group,
                          const char *name);

/* ------------------------------------------------ alert_state.c */

/* The key's entry, added (not firing, never sent) when absent; NULL on
 * ENOMEM. */
alert_key *alert_key_get(alert_ctx *x, const char *key);
/* The key's entry or NULL. */
alert_key *alert_key_find(alert_ctx *x, const char *key);
/* Forgets entry k (the array is compacted). */
void alert_key_drop(alert_ctx *x, alert_key *k);
/* An event alert: queued when its key's window has passed, else counted.
 * A state alert: queued when its status changes the key's state (a
 * resolved one only with --send-resolved on, and only for a key whose
 * firing was sent).  Past ALERT_MAX_PER_POLL of its kind and status in
 * this poll, counted for the summary instead.  Returns: 0; CHIME_ENOMEM. */
int alert_raise(alert_ctx *x, const alert *a);
/* A poll's beginning: nothing sent of any kind yet. */
void alert_poll_begin(alert_ctx *x);
/* A poll's end: a summary alert for each kind and status that had more
 * than ALERT_MAX_PER_POLL.  Returns: 0; CHIME_ENOMEM. */
int alert_poll_end(alert_ctx *x);
/* Whether history row id was counted already (it is in the re-read
 * overlap); marks it counted. */
bool alert_seen_id(alert_ctx *x, int64_t id);
/* Drops the ids at or below overlap_id. */
void alert_seen_prune(alert_ctx *x);
/* Reads the state file (absent: a first start, *ret_found false).
 * Returns: 0 or ALERT_STATE_FAILED (said why). */
int alert_state_load(alert_ctx *x, bool *ret_found);
/* Writes the state file atomically (a temporary file renamed over it)
 * when dirty.  Returns: 0 or ALERT_STATE_FAILED (said why). */
int alert_state_save(alert_ctx *x);
void alert_state_free(alert_ctx *x);

/* ------------------------------------------------ alert_send.c */

/* The alert's JSON object (malloc'd; NULL on ENOMEM). */
char *alert_json(const alert_ctx *x, const alert *a);
/* Tries the deliveries that are due; reschedules a failed one with
 * back-off, drops one whose attempts ran out.  Returns how many are
 * left. */
size_t alert_deliver(alert_ctx *x);
/* Runs command with the alert's JSON on stdin and its fields in the
 * environment, for at most timeout_s.  Returns: 0 (it exited 0) or -1,
 * why in err. */
int alert_run_command(const alert_ctx *x, const char *command, const alert *a,
                      const char *json, char *err, size_t errlen);

/* ------------------------------------------------ alert_http.c */

/* POSTs body (application/json) to url (http:// or https://), with the
 * extra header lines, within timeout_s.  Returns: the HTTP status (a
 * 2xx is delivered) or -1, why in err. */
int alert_http_post(const char *url, const char *const *headers,
                    size_t nheaders, const char *body, const char *ca_file,
                    double timeout_s, char *err, size_t errlen);

/* Checks chime-alert's own nodes row in when it is time (every quarter
 * of its check-in interval), so that the cluster does not judge it dead:
 * between polls and before each delivery attempt (chime-alert.c). */
void alert_checkin(alert_ctx *x);

/* Whether url is one alert_http_post can use.  Returns: 0 or -1, why in
 * err. */
int alert_http_check_url(const char *url, char *err, size_t errlen);

/* ------------------------------------------------ alert_log.c */

/* A monotonic clock in nanoseconds. */
uint64_t alert_mono_ns(void);

/* Prints "chime-alert: MESSAGE" on stderr (the operator's log). */
void alert_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif /* CHIME_TOOLS_ALERT_H */
