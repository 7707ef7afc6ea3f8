/*
 * bench.h: the pieces of chime-bench, the cluster benchmark (issue 7).
 *
 * Terms used throughout:
 *   - the *parent* is the chime-bench process the user runs: it sets up the
 *     store, starts the nodes, watches the clock and reports;
 *   - a *node* is a child chime-bench started in the hidden --node mode: one
 *     full chime scheduler that runs the "bench" job;
 *   - a *row* is one run of the job as the node recorded it in the
 *     bench_results table;
 *   - a *fire* is one (trigger, scheduled time) pair; a fire may have several
 *     rows (a recovered run, or a duplicate: a bug);
 *   - *store time* is the database's clock in epoch milliseconds, the clock
 *     chime schedules by; the parent reads it as its real-time clock plus an
 *     offset measured against the server.
 */
#ifndef CHIME_BENCH_H
#define CHIME_BENCH_H

#include "chime-mysql.h"
#include "chime.h"

#include <mysql.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The scheduler name every bench process uses: the cluster's name. */
#define BENCH_SCHEDULER_NAME "chime-bench"
/* Job group, name and type of the one bench job. */
#define BENCH_JOB "bench"
/* How long after the window a run still counts, and how long the parent
 * keeps the nodes running after the window. */
#define BENCH_GRACE_MS 5000
/* The fd on which a node says "ready" to its parent. */
#define BENCH_READY_FD 3
/* The environment variable that hands a node the store URL. */
#define BENCH_URL_ENV "CHIME_BENCH_NODE_URL"
/* Most nodes one run starts. */
#define BENCH_MAX_NODES 64

/* Everything the command line says. */
typedef struct bench_opts {
  const char *url;
  int nodes;
  long triggers;
  int64_t interval_ms;
  int seconds;
  unsigned workers; /* 0: chosen from the load (options.c) */
  unsigned batch;   /* 0: chime's default, W plus the local queue */
  int local_queue;  /* -1: chime's default (chime_config_set_local_queue) */
  int64_t work_ms;  /* -1: not given */
  int kill_at_s;    /* -1: no kill */
  int warmup_s;
  int idle_s;        /* -1: not the idle mode */
  bool burst;        /* every trigger on the same instants (not spread) */
  bool spread;       /* node k starts on member k of a multi-host URL */
  int lease_clients; /* 0: not the leases mode (leases.c) */
  long enqueue_runs; /* 0: not the enqueue mode (enqueue.c) */
  /* The soak mode (soak.c); soak_minutes 0: not the soak. */
  int soak_minutes;
  long rate;            /* fires a second, the whole mix */
  int64_t retention_ms; /* the store's history_retention_ms */
  int kill_every_s;     /* 0: no kills */
  int sample_s;         /* seconds between two samples */
  int64_t max_p99_ms;   /* the bound on a sample's p99 lateness */
  bool nodes_given;     /* --nodes on the command line */
  int limit;            /* --limit N: the job type's limit (0: none) */
  /* The job writes its row in its fire's completion transaction
   * (chime-mysql.h), one row a run: given to the completion
   * (--exactly-once), or in a transaction of its own (--exactly-once-tx). */
  enum { EXACTLY_NO, EXACTLY_WITH, EXACTLY_TX } exactly_once;
  /* The hidden node mode. */
  const char *node_id;  /* NULL: the parent */
  bool node_idle;       /* the node of the idle mode: chime's defaults */
  const char *lat_file; /* the node of the soak: its lateness file */
} bench_opts;

/* ------------------------------------------------------------ options.c */

/* Parses argv into *opts and fills in the defaults that depend on other
 * options.  Prints the reason and returns -1 on a usage error. */
int bench_opts_parse(int argc, char **argv, bench_opts *opts);

/* ---------------------------------------------------------------- db.c */

/* Whether db's server runs on this machine (a socket, or a loopback host,
 * as the client library says it connected), so its process can be found
 * in /proc. */
bool bench_db_is_local(MYSQL *db);

/* Reads store URL text for the bench's own connections (chime-mysql.h:
 * the store's parser), with read and write timeouts unless it names its
 * own.  NULL on failure, the reason printed. */
chime_mysql_url *bench_db_url(const char *text);
/* Opens an autocommit connection to url's database (chime_mysql_url_connect:
 * the store's settings), reconnecting by itself.  NULL on failure, with
 * the reason in errbuf. */
MYSQL *bench_db_connect(chime_mysql_url *url, char *errbuf, size_t errbuf_len);
/* Reads store URL text into *ret_url and connects; NULL (the error
 * printed, *ret_url NULL) on failure.  *ret_url is freed with
 * chime_mysql_url_free. */
MYSQL *bench_db_open(const char *text, chime_mysql_url **ret_url);
/* Runs one statement and discards any result.  Returns 0 or -1 (the
 * reason is printed to stderr, prefixed with what). */
int bench_db_exec(MYSQL *db, const char *what, const char *sql);
/* Runs a query whose first row's first column is an integer. */
int bench_db_int(MYSQL *db, const char *sql, int64_t *ret);
/* Statements sent by every session but db's own, so far (the server's
 * Questions less this session's). */
int bench_db_others_questions(MYSQL *db, int64_t *ret);
/* The value of a global status counter such as Handler_commit. */
int bench_db_status(MYSQL *db, const char *name, int64_t *ret);
/* The same, without a message when the server has no such counter. */
int bench_db_status_quiet(MYSQL *db, const char *name, int64_t *ret);
/* Measures the offset of the store clock to this process's real-time
 * clock, so bench_store_ms() can read store time without a round trip. */
int bench_clock_sync(MYSQL *db);
int64_t bench_store_ms(void);
int64_t bench_real_ms(void);
void bench_sleep_ms(int64_t ms);

/* Where trigger i fires within each interval: the triggers are spread
 * evenly over it (a steady rate), or with --burst all at its start. */
int64_t bench_offset_ms(const bench_opts *o, long i);

/* ------------------------------------------------------------ leases.c */

/* The --leases mode: acquire + release pairs per second and statements
 * per pair.  Returns the exit status. */
int bench_leases_main(const bench_opts *o);

/* ----------------------------------------------------------- enqueue.c */

/* The --enqueue mode: runs/s handed in with chime_scheduler_enqueue_many,
 * then the burn-down of those runs, all due at once, by N nodes.  Returns
 * the exit status. */
int bench_enqueue_main(const bench_opts *o);

/* ------------------------------------------------------------- setup.c */

/* Opens a scheduler (never started) on the URL plus auto_create=1,
 * migrate=1 and, with fresh, clear=1 (every row of the bench's scheduler
 * name deleted), with a connection for each of `threads` threads.  NULL on
 * failure (printed). */
chime_scheduler *bench_setup_open(const char *url, bool fresh,
                                  unsigned threads);
/* Creates a fresh chime schema for the bench's scheduler, the bench job and
 * `count` triggers firing every interval_ms from start_ms, and frees that
 * scheduler.  Prints how long scheduling took.  Returns 0 or -1. */
int bench_setup_store(const bench_opts *o, long count, int64_t start_ms,
                      int64_t interval_ms);
/* (Re)creates the empty bench_results table.  Returns 0 or -1. */
int bench_setup_results(MYSQL *db);

/* -------------------------------------------------------- node-start.c */

/* What both kinds of node (node.c, soak-node.c) do around their jobs. */
/* Blocks SIGINT and SIGTERM in this thread and so in every thread started
 * after (bench_node_ready_wait takes them with sigwait), into *ret_stop,
 * and initialises the client library.  Returns 0 or -1 (printed). */
int bench_node_prepare(const char *id, sigset_t *ret_stop);
/* Starts a scheduler of the bench's cluster on store URL url as instance
 * id (borrowed while it runs): o's workers and batch, chime's log at WARN
 * and above on stderr, then configure's settings (NULL: none), running
 * job BENCH_JOB with job(ctx, user_data).  NULL on failure (printed). */
chime_scheduler *
bench_node_start(const bench_opts *o, const char *id, const char *url,
                 int (*configure)(chime_config *cfg, const bench_opts *o),
                 chime_job_fn job, void *user_data);
/* Says "ready" to the parent (BENCH_READY_FD) and waits for a signal of
 * stop (bench_node_prepare's), said on stderr. */
void bench_node_ready_wait(const char *id, const sigset_t *stop);

/* -------------------------------------------------------------- node.c */

/* The --node mode: runs one scheduler until SIGTERM.  Returns the exit
 * status. */
int bench_node_main(const bench_opts *o);

/* --------------------------------------------------------- soak-node.c */

/* The node of the soak: the mix's jobs and a lease holder until SIGTERM.
 * Returns the exit status. */
int bench_soak_node_main(const bench_opts *o);

/* Lateness histograms, written by the soak's nodes and read by the parent:
 * bucket k < BENCH_LAT_BUCKETS - 1 counts runs k ms late, the last one
 * runs later than that. */
#define BENCH_LAT_BUCKETS 10001

/* ------------------------------------------------------------- nodes.c */

/* The nodes the parent started, and what it measured of them. */
typedef struct bench_node {
  char id[16];
  pid_t pid; /* 0 once reaped */
  int ready_fd;
  char log_path[256];
  bool killed; /* killed on purpose (--kill-one-at) */
  int64_t cpu_ticks_at_w0;
  int64_t cpu_ticks_last; /* at W1, or just before the kill */
  int64_t hwm_kib;        /* VmHWM just before SIGTERM or the kill */
  int64_t started_ms;     /* real time the process was started */
  int incarnation;        /* 1 for the first process, +1 a restart */
  char lat_path[256];     /* the soak's lateness file */
} bench_node;

/* Set by SIGINT, SIGTERM and SIGHUP in the parent. */
extern volatile sig_atomic_t bench_interrupted;

/* Installs the parent's signal handlers and the exit handler that kills
 * every node still running. */
void bench_nodes_guard(void);
/* Creates the directory for the nodes' logs.  Returns 0 or -1. */
int bench_nodes_logdir(void);
/* Starts nodes[0..n) (fork and exec of this program in --node mode) and
 * waits until each says it is ready.  On failure prints the failing
 * node's log and returns -1 (the exit handler stops the others). */
int bench_nodes_start(const bench_opts *o, bench_node *nodes, int n);
/* Sleeps until store time until_ms; returns -1 early when interrupted or
 * when a node not killed on purpose exited (its log is printed). */
int bench_nodes_wait_until(bench_node *nodes, int n, int64_t until_ms);
/* SIGKILLs one node and reaps it. */
void bench_nodes_kill(bench_node *node);
/* Starts a node killed before again, under the same id, and waits until
 * it is ready.  Returns 0 or -1 (its log printed). */
int bench_nodes_restart(const bench_opts *o, bench_node *node);
/* SIGTERMs every node and reaps them, SIGKILLing any that take longer than
 * timeout_ms.  Returns 0 when every node exited with status 0. */
int bench_nodes_stop(bench_node *nodes, int n, int64_t timeout_ms);
/* Reports the nodes' log files: keeps them when they have content. */
void bench_nodes_logs_done(const bench_node *nodes, int n);

/* /proc readings.  All return -1 when the process cannot be read. */
int64_t bench_proc_cpu_ticks(pid_t pid);
int64_t bench_proc_hwm_kib(pid_t pid);
/* A line "NAME: <number>" of /proc/PID/status (VmRSS, Threads). */
int64_t bench_proc_status(pid_t pid, const char *name);
/* The process's open sockets (its database connections). */
int64_t bench_proc_sockets(pid_t pid);
/* The database server's pid when it runs here, else 0. */
pid_t bench_db_server_pid(MYSQL *db);

/* -------------------------------------------------------------- cost.c */

/* The database's counters at one end of the window; -1: unknown. */
typedef struct bench_db_sample {
  int64_t handler_commits; /* Handler_commit */
  int64_t com_commits;     /* Com_commit: COMMIT statements */
  int64_t questions;       /* Questions of every session but the bench's */
  int64_t fsyncs;          /* Innodb_os_log_fsyncs or Innodb_data_fsyncs */
  int64_t rows_written;    /* Handler_write + _update + _delete */
  int64_t db_ticks;        /* the server process's utime + stime */
} bench_db_sample;

/* What the database did over the window: the counters' deltas (-1:
 * unknown, or the server restarted in the window) and its CPU time. */
typedef struct bench_db_cost {
  int64_t handler_commits, com_commits, questions, fsyncs, rows_written;
  double db_cpu_s; /* < 0: unknown (the server is not on this machine) */
  double window_s; /* the window's length (the rates' divisor) */
  double wall_s;   /* the time between the samples (the CPU's divisor) */
} bench_db_cost;

/* nodes.c: reads the server-wide counters at one end of a window (cost.c does
 * the arithmetic) on db, the parent's own connection (its own statements are
 * left out of Questions), and the CPU time of the server process db_pid
 * (0: not on this machine).  Returns 0 or -1 (the reason printed). */
int bench_db_sample_take(MYSQL *db, pid_t db_pid, bench_db_sample *c);
/* The cost between samples a and b. */
void bench_cost_between(const bench_db_sample *a, const bench_db_sample *b,
                        double window_s, double wall_s, long ticks_per_s,
                        bench_db_cost *ret);
/* The database's CPU in % of one core, Handler_commit and fsyncs per
 * second; each < 0 when unknown. */
double bench_cost_db_cpu_pct(const bench_db_cost *c);
double bench_cost_commits_per_s(const bench_db_cost *c);
double bench_cost_fsyncs_per_s(const bench_db_cost *c);
/* Writes the summary line's cost keys for `runs` fires into buf (each
 * "\tkey=value", NA when unknown): com_commit_per_s, commits_per_fire,
 * com_commit_per_fire, statements_per_fire, rows_written_per_fire,
 * db_cpu_us_per_fire.  Returns the length written (truncated to len - 1). */
size_t bench_cost_format(const bench_db_cost *c, int64_t runs, char *buf,
                         size_t len);

/* ----------------------------------------------------------- analyse.c */

/* What the parent knows about the run, for the analysis. */
typedef struct bench_run {
  const bench_opts *o;
  int64_t t0_ms, w0_ms, w1_ms; /* store time */
  int64_t kill_ms;             /* store time, 0 without --kill-one-at */
  int killed_node;             /* 1-based, 0: none */
  double node_cpu_pct;
  bench_db_cost db; /* the database over the window */
  int64_t node_rss_max_kib;
} bench_run;

/* Reads bench_results, prints the summary line to stdout.  Returns the
 * exit status: 0, 1 (could not read), 2 (duplicates or lost fires, or
 * with --limit more runs at once than the limit). */
int bench_analyse(MYSQL *db, const bench_run *run);
/* --limit: the most runs at once in any millisecond, from the runs'
 * recorded starts and ends (a run [start, end) holds its slot).  Returns
 * it, or -1 (could not read: printed). */
int64_t bench_most_running(MYSQL *db);

/* ------------------------------------------------------------ runs */

/* The measured run (run.c) and the idle run (idle.c); return the exit
 * status. */
int bench_run_main(const bench_opts *o);
int bench_idle_main(const bench_opts *o);
/* The soak (soak.c); returns the exit status. */
int bench_soak_main(const bench_opts *o);

/* ---------------------------------------------------------- soak-judge.c */

/* A sample the metric has no value for (a node not running, or still
 * warming up). */
#define BENCH_NO_SAMPLE INT64_MIN

/* One metric's samples, one per sample of the run, in order (missing ones
 * BENCH_NO_SAMPLE).  The run's samples fall in thirds by position: [0,
 * n/3) the first (not judged: the warm-up and the retention filling up),
 * [n/3, 2n/3) the middle, [2n/3, n) the last. */
typedef struct bench_series {
  const int64_t *v;
  size_t n;
} bench_series;

/* The rule (soak-judge.c says why): true when every sample of the last
 * third exceeds every sample of the middle third by more than slack, with
 * the figures in why; false when not, or when a third has no sample (why
 * then says so). */
bool bench_judge_grows(const bench_series *s, int64_t slack, char *why,
                       size_t why_len);
/* The median of v[from, to); 0 when empty. */
int64_t bench_median(const int64_t *v, size_t from, size_t to);

#endif /* CHIME_BENCH_H */
