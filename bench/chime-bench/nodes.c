/*
 * nodes.c: the parent's side of the node processes: starting them (fork and
 * exec of this program in --node mode, readiness over a pipe), watching
 * them, killing and stopping them, and reading their CPU time and peak
 * memory from /proc; the database server's process too, and its counters
 * at a window's ends (bench_db_sample_take).  Every node still running
 * when the parent exits, for whatever reason, is killed by the exit
 * handler; a node whose parent vanishes without running it (SIGKILL) gets
 * SIGKILL from the kernel.
 *
 * Each node's stderr goes to a log file in a fresh directory under /tmp;
 * the log is printed when the node fails, and kept when it is not empty.
 */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long a node may take to open the store and start. */
#define READY_TIMEOUT_MS 60000

volatile sig_atomic_t bench_interrupted;

static char log_dir[64];
/* The nodes for the exit handler: pids only, written before each fork. */
static pid_t live_pids[BENCH_MAX_NODES];

static void on_signal(int sig) {
  (void)sig;
  bench_interrupted = 1;
}

static void kill_live_nodes(void) {
  for (int i = 0; i < BENCH_MAX_NODES; i++) {
    if (live_pids[i] > 0) {
      kill(live_pids[i], SIGKILL);
      waitpid(live_pids[i], NULL, 0);
      live_pids[i] = 0;
    }
  }
}

void bench_nodes_guard(void) {
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  atexit(kill_live_nodes);
}

int bench_nodes_logdir(void) {
  snprintf(log_dir, sizeof log_dir, "/tmp/chime-bench.XXXXXX");
  if (!mkdtemp(log_dir)) {
    fprintf(stderr, "chime-bench: cannot create a log directory: %s\n",
            strerror(errno));
    return -1;
  }
  return 0;
}

static void forget(const bench_node *node) {
  for (int i = 0; i < BENCH_MAX_NODES; i++)
    if (live_pids[i] == node->pid)
      live_pids[i] = 0;
}

static void remember(const bench_node *node) {
  for (int i = 0; i < BENCH_MAX_NODES; i++) {
    if (live_pids[i] == 0) {
      live_pids[i] = node->pid;
      return;
    }
  }
}

/* Prints the last lines of a node's log to stderr. */
static void show_log(const bench_node *node) {
  FILE *f = fopen(node->log_path, "r");
  if (!f)
    return;
  /* The tail: at most the last 8 KiB. */
  if (fseek(f, -8192, SEEK_END) != 0)
    rewind(f);
  fprintf(stderr, "---- %s (%s) ----\n", node->id, node->log_path);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    fwrite(buf, 1, n, stderr);
  fprintf(stderr, "---- end of %s ----\n", node->id);
  fclose(f);
}

/* A node's command line and environment, built before fork() so the child
 * only calls what is safe between fork and exec. */
typedef struct node_exec {
  char workers[16], batch[16], work[24], limit[16], local_queue[16];
  char *argv[24];
  char **envp;
  char *url_var;
} node_exec;

static int node_exec_build(const bench_opts *o, const bench_node *node,
                           node_exec *x) {
  snprintf(x->workers, sizeof x->workers, "%u", o->workers);
  snprintf(x->batch, sizeof x->batch, "%u", o->batch);
  snprintf(x->work, sizeof x->work, "%" PRId64, o->work_ms);
  int a = 0;
  x->argv[a++] = "chime-bench";
  x->argv[a++] = "--node";
  x->argv[a++] = (char *)node->id;
  x->argv[a++] = "--workers";
  x->argv[a++] = x->workers;
  x->argv[a++] = "--work-ms";
  x->argv[a++] = x->work;
  if (o->batch) {
    x->argv[a++] = "--batch";
    x->argv[a++] = x->batch;
  }
  if (o->local_queue >= 0) {
    snprintf(x->local_queue, sizeof x->local_queue, "%d", o->local_queue);
    x->argv[a++] = "--local-queue";
    x->argv[a++] = x->local_queue;
  }
  if (o->idle_s > 0)
    x->argv[a++] = "--node-idle";
  if (o->limit > 0) {
    snprintf(x->limit, sizeof x->limit, "%d", o->limit);
    x->argv[a++] = "--limit";
    x->argv[a++] = x->limit;
  }
  if (o->spread)
    x->argv[a++] = "--spread";
  if (o->exactly_once)
    x->argv[a++] =
        o->exactly_once == EXACTLY_TX ? "--exactly-once-tx" : "--exactly-once";
  if (node->lat_path[0]) {
    x->argv[a++] = "--lat-file";
    x->argv[a++] = (char *)node->lat_path;
  }
  x->argv[a] = NULL;
  /* The URL holds a password: it goes through the environment, which only
   * this user can read, rather than the command line, which ps shows. */
  size_t nenv = 0;
  while (environ[nenv])
    nenv++;
  size_t url_len = strlen(BENCH_URL_ENV) + strlen(o->url) + 2;
  x->envp = calloc(nenv + 2, sizeof *x->envp);
  x->url_var = malloc(url_len);
  if (!x->envp || !x->url_var) {
    free(x->envp);
    free(x->url_var);
    fprintf(stderr, "chime-bench: out of memory\n");
    return -1;
  }
  snprintf(x->url_var, url_len, "%s=%s", BENCH_URL_ENV, o->url);
  size_t e = 0;
  x->envp[e++] = x->url_var;
  for (size_t i = 0; i < nenv; i++)
    if (strncmp(environ[i], BENCH_URL_ENV "=", strlen(BENCH_URL_ENV) + 1) != 0)
      x->envp[e++] = environ[i];
  x->envp[e] = NULL;
  return 0;
}

/* In the child: wires up the fds and becomes a node.  Never returns. */
static void exec_node(const bench_node *node, const node_exec *x, int ready_w) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  /* Appended: a node started again (the soak) keeps its earlier log. */
  int log_fd = open(node->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  int null_fd = open("/dev/null", O_RDWR);
  if (log_fd < 0 || null_fd < 0 || dup2(null_fd, 0) < 0 ||
      dup2(null_fd, 1) < 0 || dup2(log_fd, 2) < 0 ||
      dup2(ready_w, BENCH_READY_FD) < 0)
    _exit(127);
  execve("/proc/self/exe", x->argv, x->envp);
  static const char failed[] = "cannot exec /proc/self/exe\n";
  if (write(2, failed, sizeof failed - 1) < 0)
    _exit(127);
  _exit(127);
}

static int spawn(const bench_opts *o, bench_node *node) {
  node_exec x;
  if (node_exec_build(o, node, &x) < 0)
    return -1;
  int fds[2] = {-1, -1};
  pid_t pid = -1;
  if (pipe2(fds, O_CLOEXEC) != 0)
    fprintf(stderr, "chime-bench: pipe: %s\n", strerror(errno));
  else if ((pid = fork()) < 0)
    fprintf(stderr, "chime-bench: fork: %s\n", strerror(errno));
  else if (pid == 0)
    exec_node(node, &x, fds[1]);
  free(x.envp);
  free(x.url_var);
  if (fds[1] >= 0)
    close(fds[1]);
  if (pid < 0) {
    if (fds[0] >= 0)
      close(fds[0]);
    return -1;
  }
  node->pid = pid;
  node->ready_fd = fds[0];
  node->started_ms = bench_real_ms();
  node->incarnation++;
  remember(node);
  return 0;
}

/* Waits for "ready" from every node.  Returns 0, or -1 after printing the
 * log of a node that failed. */
static int wait_ready(bench_node *nodes, int n) {
  int64_t deadline = bench_real_ms() + READY_TIMEOUT_MS;
  int pending = n;
  while (pending > 0) {
    struct pollfd pfd[BENCH_MAX_NODES];
    int map[BENCH_MAX_NODES], k = 0;
    for (int i = 0; i < n; i++) {
      if (nodes[i].ready_fd >= 0) {
        pfd[k] = (struct pollfd){.fd = nodes[i].ready_fd, .events = POLLIN};
        map[k++] = i;
      }
    }
    int64_t left = deadline - bench_real_ms();
    if (left <= 0 || bench_interrupted) {
      for (int j = 0; j < k; j++) {
        fprintf(stderr, "chime-bench: node %s not ready after %d s\n",
                nodes[map[j]].id, READY_TIMEOUT_MS / 1000);
        show_log(&nodes[map[j]]);
      }
      return -1;
    }
    if (poll(pfd, (nfds_t)k, (int)(left < 200 ? left : 200)) < 0 &&
        errno != EINTR)
      return -1;
    for (int j = 0; j < k; j++) {
      if (!(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      bench_node *node = &nodes[map[j]];
      char buf[16] = "";
      ssize_t got = read(node->ready_fd, buf, sizeof buf - 1);
      close(node->ready_fd);
      node->ready_fd = -1;
      pending--;
      if (got <= 0 || strncmp(buf, "ready", 5) != 0) {
        fprintf(stderr, "chime-bench: node %s failed to start\n", node->id);
        bench_sleep_ms(100); /* let it finish writing its log */
        show_log(node);
        return -1;
      }
    }
  }
  return 0;
}

int bench_nodes_start(const bench_opts *o, bench_node *nodes, int n) {
  for (int i = 0; i < n; i++) {
    nodes[i] = (bench_node){.ready_fd = -1};
    snprintf(nodes[i].id, sizeof nodes[i].id, "n%d", i + 1);
    snprintf(nodes[i].log_path, sizeof nodes[i].log_path, "%s/%s.log", log_dir,
             nodes[i].id);
    if (o->soak_minutes > 0)
      snprintf(nodes[i].lat_path, sizeof nodes[i].lat_path, "%s/%s.late",
               log_dir, nodes[i].id);
  }
  /* Started together, they open the store in parallel. */
  for (int i = 0; i < n; i++)
    if (spawn(o, &nodes[i]) < 0)
      return -1;
  return wait_ready(nodes, n);
}

/* Reaps a node that exited by itself.  Returns -1 when one did. */
static int check_alive(bench_node *nodes, int n) {
  for (int i = 0; i < n; i++) {
    if (nodes[i].pid <= 0 || nodes[i].killed)
      continue;
    int status = 0;
    if (waitpid(nodes[i].pid, &status, WNOHANG) == nodes[i].pid) {
      forget(&nodes[i]);
      nodes[i].pid = 0;
      fprintf(stderr, "chime-bench: node %s exited during the run (%s %d)\n",
              nodes[i].id, WIFSIGNALED(status) ? "signal" : "status",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
      show_log(&nodes[i]);
      return -1;
    }
  }
  return 0;
}

int bench_nodes_wait_until(bench_node *nodes, int n, int64_t until_ms) {
  for (;;) {
    if (bench_interrupted) {
      fprintf(stderr, "chime-bench: interrupted\n");
      return -1;
    }
    if (check_alive(nodes, n) < 0)
      return -1;
    int64_t left = until_ms - bench_store_ms();
    if (left <= 0)
      return 0;
    bench_sleep_ms(left < 100 ? left : 100);
  }
}

void bench_nodes_kill(bench_node *node) {
  node->killed = true;
  kill(node->pid, SIGKILL);
  waitpid(node->pid, NULL, 0);
  forget(node);
  node->pid = 0;
}

int bench_nodes_restart(const bench_opts *o, bench_node *node) {
  node->killed = false;
  if (spawn(o, node) < 0)
    return -1;
  return wait_ready(node, 1);
}

int bench_nodes_stop(bench_node *nodes, int n, int64_t timeout_ms) {
  int status = 0;
  for (int i = 0; i < n; i++)
    if (nodes[i].pid > 0)
      kill(nodes[i].pid, SIGTERM);
  int64_t deadline = bench_real_ms() + timeout_ms;
  for (int i = 0; i < n; i++) {
    if (nodes[i].pid <= 0)
      continue;
    int wstatus = 0;
    pid_t r;
    while ((r = waitpid(nodes[i].pid, &wstatus, WNOHANG)) == 0 &&
           bench_real_ms() < deadline)
      bench_sleep_ms(50);
    if (r == 0) {
      fprintf(stderr,
              "chime-bench: node %s did not stop within %" PRId64
              " ms: killing it\n",
              nodes[i].id, timeout_ms);
      kill(nodes[i].pid, SIGKILL);
      waitpid(nodes[i].pid, &wstatus, 0);
      show_log(&nodes[i]);
      status = -1;
    } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
      fprintf(stderr, "chime-bench: node %s ended badly (status %d)\n",
              nodes[i].id, wstatus);
      show_log(&nodes[i]);
      status = -1;
    }
    forget(&nodes[i]);
    nodes[i].pid = 0;
  }
  return status;
}

void bench_nodes_logs_done(const bench_node *nodes, int n) {
  bool kept = false;
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (stat(nodes[i].log_path, &st) != 0)
      continue;
    /* A log with only the shutdown line says nothing. */
    FILE *f = fopen(nodes[i].log_path, "r");
    long lines = 0, lost = 0;
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
      if (strstr(line, "shutting down"))
        continue;
      lines++;
      if (strstr(line, "RESULT-LOST"))
        lost++;
    }
    if (f)
      fclose(f);
    if (lines == 0) {
      unlink(nodes[i].log_path);
      continue;
    }
    kept = true;
    fprintf(stderr, "chime-bench: node %s logged %ld line(s)%s: %s\n",
            nodes[i].id, lines, lost ? " (some results lost: see)" : "",
            nodes[i].log_path);
    if (lost)
      fprintf(stderr,
              "chime-bench: node %s could not record %ld run(s): "
              "they count as missed\n",
              nodes[i].id, lost);
  }
  if (!kept)
    rmdir(log_dir);
}

/* ------------------------------------------------------------- /proc */

int64_t bench_proc_cpu_ticks(pid_t pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  /* The command name may hold spaces and parentheses: fields count from
   * the last ')'.  utime and stime are fields 14 and 15. */
  char *p = strrchr(buf, ')');
  if (!p)
    return -1;
  unsigned long long utime = 0, stime = 0;
  if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
             &utime, &stime) != 2)
    return -1;
  return (int64_t)(utime + stime);
}

int64_t bench_proc_hwm_kib(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  int64_t kib = -1;
  while (fgets(line, sizeof line, f)) {
    long long v;
    if (sscanf(line, "VmHWM: %lld kB", &v) == 1)
      kib = v;
  }
  fclose(f);
  return kib;
}

int64_t bench_proc_status(pid_t pid, const char *name) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  size_t len = strlen(name);
  int64_t v = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, name, len) == 0 && line[len] == ':') {
      v = strtoll(line + len + 1, NULL, 10);
      break;
    }
  }
  fclose(f);
  return v;
}

int64_t bench_proc_sockets(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
  DIR *d = opendir(path);
  if (!d)
    return -1;
  int64_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char fd_path[384], target[64];
    if (e->d_name[0] == '.')
      continue;
    snprintf(fd_path, sizeof fd_path, "%s/%s", path, e->d_name);
    ssize_t len = readlink(fd_path, target, sizeof target - 1);
    if (len > 0) {
      target[len] = '\0';
      n += strncmp(target, "socket:", 7) == 0;
    }
  }
  closedir(d);
  return n;
}

pid_t bench_db_server_pid(MYSQL *db) {
  if (!bench_db_is_local(db))
    return 0;
  if (mysql_query(db, "SELECT @@pid_file, @@datadir") != 0)
    return 0;
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
  char path[4096] = "";
  if (row && row[0] && row[1])
    snprintf(path, sizeof path, "%s%s", row[0][0] == '/' ? "" : row[1], row[0]);
  mysql_free_result(res);
  FILE *f = path[0] ? fopen(path, "r") : NULL;
  long pid = 0;
  if (!f || fscanf(f, "%ld", &pid) != 1)
    pid = 0;
  if (f)
    fclose(f);
  /* The file could be stale or another host's: believe it only when the
   * process is a server. */
  char comm_path[64], comm[64] = "";
  snprintf(comm_path, sizeof comm_path, "/proc/%ld/comm", pid);
  f = pid > 0 ? fopen(comm_path, "r") : NULL;
  if (f) {
    if (!fgets(comm, sizeof comm, f))
      comm[0] = '\0';
    fclose(f);
  }
  if (strncmp(comm, "mariadbd", 8) != 0 && strncmp(comm, "mysqld", 6) != 0)
    return 0;
  return (pid_t)pid;
}

static const char *fsync_counter;

int bench_db_sample_take(MYSQL *db, pid_t db_pid, bench_db_sample *c) {
  c->db_ticks = db_pid > 0 ? bench_proc_cpu_ticks(db_pid) : -1;
  if (bench_db_status(db, "Handler_commit", &c->handler_commits) < 0 ||
      bench_db_status(db, "Com_commit", &c->com_commits) < 0 ||
      bench_db_others_questions(db, &c->questions) < 0)
    return -1;
  /* MySQL counts the redo log's fsyncs; MariaDB 10.5+ dropped that counter,
   * and its Innodb_data_fsyncs counts every InnoDB fsync (log included). */
  if (fsync_counter == NULL)
    fsync_counter =
        bench_db_status_quiet(db, "Innodb_os_log_fsyncs", &c->fsyncs) == 0
            ? "Innodb_os_log_fsyncs"
            : "Innodb_data_fsyncs";
  if (bench_db_status(db, fsync_counter, &c->fsyncs) < 0)
    return -1;
  /* The rows the server wrote, as its handler counts them: a fire's
   * fired, trigger and history rows, the bench job's own row.  MariaDB
   * 10.5+ has no Innodb_rows_* counters; an INSERT ... ON DUPLICATE KEY
   * UPDATE of an existing row counts a write (its attempt) and an update. */
  static const char *const written[] = {"Handler_write", "Handler_update",
                                        "Handler_delete"};
  c->rows_written = 0;
  for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
    int64_t v;
    if (bench_db_status(db, written[i], &v) < 0)
      return -1;
    c->rows_written += v;
  }
  return 0;
}
