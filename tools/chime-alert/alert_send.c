/*
 * alert_send.c: an alert as it is delivered: its JSON object, the command
 * sink (the JSON on stdin, the fields in CHIME_ALERT_* variables), and the
 * delivery of the outbox with retries: a failed attempt is tried again
 * after the retry delay, doubled each time up to its maximum, until the
 * attempts run out (then it is dropped and said on stderr).
 */
#include "alert.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* "key": "text" (null when text is empty and nullable). */
static void json_field(FILE *f, const char *key, const char *text,
                       bool nullable) {
  fprintf(f, ",\"%s\":", key);
  if (nullable && !*text)
    fputs("null", f);
  else
    ctl_json_string_to(f, text);
}

char *alert_json(const alert_ctx *x, const alert *a) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  char when[48];
  ctl_format_time(a->time_ms, NULL, when, sizeof when);
  char *space = strchr(when, ' ');
  if (space)
    *space = 'T';
  fputs("{\"kind\":", f);
  ctl_json_string_to(f, a->kind);
  json_field(f, "status", a->status, false);
  json_field(f, "key", a->key, false);
  json_field(f, "scheduler", x->base.sched, false);
  json_field(f, "time", when, false);
  fprintf(f, ",\"time_ms\":%" PRId64, a->time_ms);
  json_field(f, "job", a->job, true);
  json_field(f, "trigger", a->trigger, true);
  json_field(f, "node", a->node, true);
  json_field(f, "outcome", a->outcome, true);
  if (a->fire_id)
    fprintf(f, ",\"fire_id\":%" PRId64, a->fire_id);
  else
    fputs(",\"fire_id\":null", f);
  if (strcmp(a->kind, "run_failed") == 0 || a->count > 0) /* a summary */
    fprintf(f, ",\"count\":%" PRId64, a->count);
  json_field(f, "message", a->message, false);
  /* One line for a chat's incoming webhook, which posts a JSON's "text"
   * as it is. */
  char *text = NULL;
  size_t tlen = 0;
  FILE *t = open_memstream(&text, &tlen);
  if (t) {
    fprintf(t, "chime %s: %s %s: %s", x->base.sched, a->kind,
            strcmp(a->status, "firing") == 0 ? "FIRING" : "RESOLVED",
            a->message);
    if (fclose(t) == 0)
      json_field(f, "text", text, false);
    free(text);
  }
  fputs("}", f);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* ------------------------------------------------------- the command */

extern char **environ;

/* The environment of the command: this process's, less any CHIME_ALERT_*
 * variable, and the alert's fields as CHIME_ALERT_* variables (built
 * before the fork: the child only execs).  NULL on ENOMEM; free with
 * free_env. */
#define ALERT_ENV_VARS 12
static char **command_env(const alert_ctx *x, const alert *a,
                          const char *json) {
  size_t n = 0;
  while (environ[n])
    n++;
  char **env = calloc(n + ALERT_ENV_VARS + 1, sizeof *env);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "CHIME_ALERT_", 12) != 0)
      env[k++] = environ[i]; /* borrowed: not freed */
  size_t own = k;
  char fire[24], time_ms[24];
  snprintf(fire, sizeof fire, "%" PRId64, a->fire_id);
  snprintf(time_ms, sizeof time_ms, "%" PRId64, a->time_ms);
  const char *vars[ALERT_ENV_VARS][2] = {{"KIND", a->kind},
                                         {"STATUS", a->status},
                                         {"KEY", a->key},
                                         {"SCHEDULER", x->base.sched},
                                         {"JOB", a->job},
                                         {"TRIGGER", a->trigger},
                                         {"NODE", a->node},
                                         {"OUTCOME", a->outcome},
                                         {"FIRE_ID", a->fire_id ? fire : ""},
                                         {"TIME_MS", time_ms},
                                         {"MESSAGE", a->message},
                                         {"JSON", json}};
  for (size_t i = 0; i < ALERT_ENV_VARS; i++) {
    size_t len = strlen(vars[i][0]) + strlen(vars[i][1]) + 14;
    char *v = malloc(len);
    if (!v) {
      for (size_t j = own; j < k; j++)
        free(env[j]);
      free(env);
      return NULL;
    }
    snprintf(v, len, "CHIME_ALERT_%s=%s", vars[i][0], vars[i][1]);
    env[k++] = v;
  }
  env[k] = NULL;
  return env;
}

static void free_env(char **env) {
  if (!env)
    return;
  size_t n = 0;
  while (env[n])
    n++;
  for (size_t i = n - ALERT_ENV_VARS; i < n; i++)
    free(env[i]);
  free(env);
}

/* Writes all of json to fd (the child may not read it: EPIPE is no
 * error of the delivery, its exit status tells). */
static void write_all(int fd, const char *json) {
  size_t n = strlen(json);
  while (n > 0) {
    ssize_t w = write(fd, json, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    json += w;
    n -= (size_t)w;
  }
}

int alert_run_command(const alert_ctx *x, const char *command, const alert *a,
                      const char *json, char *err, size_t errlen) {
  char **env = command_env(x, a, json);
  int fds[2];
  if (!env || pipe(fds) != 0) {
    snprintf(err, errlen, "%s", env ? strerror(errno) : "out of memory");
    free_env(env);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    free_env(env);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0); /* its own group: a timeout ends all it started */
    signal(SIGPIPE, SIG_DFL);
    dup2(fds[0], STDIN_FILENO);
    close_range(3, ~0u, 0); /* not the database's socket, nor the pipe */
    char *const argv[] = {"sh", "-c", (char *)command, NULL};
    execve("/bin/sh", argv, env);
    _exit(127);
  }
  free_env(env);
  close(fds[0]);
  write_all(fds[1], json);
  close(fds[1]);
  uint64_t end = alert_mono_ns() + (uint64_t)(x->timeout_s * 1e9);
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if (w < 0 && errno != EINTR) {
      snprintf(err, errlen, "waitpid: %s", strerror(errno));
      return -1;
    }
    if (alert_mono_ns() > end) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      snprintf(err, errlen, "the command ran over %.1f s: killed",
               x->timeout_s);
      return -1;
    }
    nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (WIFEXITED(status))
    snprintf(err, errlen, "the command exited %d", WEXITSTATUS(status));
  else
    snprintf(err, errlen, "the command was killed by signal %d",
             WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

/* ------------------------------------------------------- delivery */

/* One attempt of o.  Returns: 0 delivered, -1 not (err says why). */
static int attempt(alert_ctx *x, const alert_out *o, char *err, size_t errlen) {
  char *json = alert_json(x, &o->a);
  if (!json) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  const alert_sink *s = &x->sinks[o->sink];
  int r;
  if (s->is_command) {
    r = alert_run_command(x, s->target, &o->a, json, err, errlen);
  } else {
    int status = alert_http_post(s->target, x->headers, x->nheaders, json,
                                 x->ca_file, x->timeout_s, err, errlen);
    r = status >= 200 && status < 300 ? 0 : -1;
    if (status >= 0 && r < 0)
      snprintf(err, errlen, "the webhook answered HTTP %d", status);
  }
  free(json);
  return r;
}

/* The delay before attempt number attempts + 1. */
static uint64_t backoff_ns(const alert_ctx *x, int attempts) {
  double d = x->retry_initial_s;
  for (int i = 1; i < attempts && d < x->retry_max_s; i++)
    d *= 2;
  if (d > x->retry_max_s)
    d = x->retry_max_s;
  return (uint64_t)(d * 1e9);
}

size_t alert_deliver(alert_ctx *x) {
  for (size_t i = 0; i < x->nout;) {
    alert_out *o = &x->outbox[i];
    if (o->next_try_ns > alert_mono_ns()) {
      i++;
      continue;
    }
    char err[512] = "";
    const char *what = x->sinks[o->sink].is_command ? "command" : "webhook";
    alert_checkin(x);
    o->attempts++;
    bool done = attempt(x, o, err, sizeof err) == 0;
    if (done) {
      alert_log("sent %s %s to %s %d (attempt %d)", o->a.status, o->a.key, what,
                o->sink + 1, o->attempts);
    } else if (o->attempts >= x->max_attempts) {
      alert_log("gave up on %s %s to %s %d after %d attempts: %s", o->a.status,
                o->a.key, what, o->sink + 1, o->attempts, err);
      done = true;
    } else {
      alert_log("%s %d failed (attempt %d of %d): %s", what, o->sink + 1,
                o->attempts, x->max_attempts, err);
      o->next_try_ns = alert_mono_ns() + backoff_ns(x, o->attempts);
    }
    if (done) {
      memmove(o, o + 1, (x->nout - i - 1) * sizeof *o);
      x->nout--;
    } else {
      i++;
    }
    x->dirty = true;
    if (alert_state_save(x) != 0) /* tried again after the next */
      alert_log("the state is kept in memory until it can be saved");
  }
  return x->nout;
}
