/*
 * chimectl_watch.c: `chimectl watch [--interval S]`: a live view of the
 * cluster, like top: the nodes, the fires claimed or running now and the
 * latest outcomes, redrawn every S seconds (default 2) with ANSI
 * clear/home, so any terminal shows it without curses.  q quits; so do
 * Ctrl-C and the end of the input.  The frames come from the same
 * queries as `chimectl nodes`, `running` and `history`.  A store error
 * is shown in the frame and the view goes on (the database may come
 * back); only the first connection's failure ends the command.
 */
#include "chimectl.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_INTERVAL_S 2.0
#define RECENT_OUTCOMES 10

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

/* One section: a title with its row count and the table, or the error. */
static void section(const char *title, int r, ctl_table *t) {
  if (r) {
    printf("%s: %s\n\n", title, ctl_last_error);
    return;
  }
  printf("%s (%zu)\n", title, t->nrows);
  if (t->nrows)
    ctl_table_print(t, false);
  putchar('\n');
  ctl_table_free(t);
}

static void frame(ctl *c, double interval) {
  char now[48];
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ctl_format_time((int64_t)ts.tv_sec * 1000, c->zone, now, sizeof now);
  /* Home, clear the screen: the frame replaces the last one. */
  fputs("\033[H\033[2J", stdout);
  printf("chimectl watch: scheduler %s  %s  every %gs, q quits\n\n", c->sched,
         now, interval);
  ctl_table t;
  section("Nodes", ctl_nodes_table(c, &t), &t);
  int r = ctl_running_table(c, &t);
  if (r == 0)
    t.shown = 6; /* the columns for people; the raw ms are in --json */
  section("Running", r, &t);
  c->limit = RECENT_OUTCOMES;
  c->offset = 0;
  section("Recent outcomes", ctl_history_table(c, &t), &t);
  fflush(stdout);
}

/* Waits up to ms for a key; whether the user asked to quit.  *input is
 * cleared at the end of the input (then only the time is waited for). */
static bool wait_quit(int ms, bool *input) {
  struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
  int n = poll(&p, *input ? 1 : 0, ms);
  if (n < 0)
    return errno == EINTR && stop;
  if (n == 0)
    return stop;
  char buf[64];
  ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
  if (got <= 0) {
    *input = false;
    return stop;
  }
  return memchr(buf, 'q', (size_t)got) || memchr(buf, 'Q', (size_t)got);
}

int ctl_cmd_watch(ctl *c) {
  if (c->argc > 0)
    return ctl_usage("usage: chimectl watch [--interval S]");
  if (c->json)
    return ctl_usage("watch is for a terminal; use nodes, running and "
                     "history with --json");
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  double interval = c->interval > 0 ? c->interval : DEFAULT_INTERVAL_S;
  /* A terminal gives each key at once, unechoed, restored at the end. */
  struct termios saved;
  bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {
    struct termios raw = saved;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  }
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* The errors go into the frame, not over it. */
  ctl_quiet = true;
  bool input = true, quit = false;
  while (!quit && !stop) {
    frame(c, interval);
    quit = wait_quit((int)(interval * 1000), &input);
  }
  ctl_quiet = false;
  if (tty)
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
  return CTL_OK;
}
