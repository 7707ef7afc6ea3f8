/*
 * api.c: what every public entry point of the engine shares: the error
 * detail of the last failed call (per thread), the log, and the check that
 * opens a call on a scheduler.
 */
#include "engine/engine.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char tls_error[512];

const char *chime_scheduler_last_error(void) { return tls_error; }

int chime__fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tls_error, sizeof tls_error, fmt, ap);
  va_end(ap);
  return code;
}

void chime__log(const chime_scheduler *s, chime_log_level level,
                const char *fmt, ...) {
  if (!s->cfg.log || level > s->cfg.log_level)
    return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->cfg.log(s->cfg.log_user_data, level, msg);
}

int chime__api_enter(chime_scheduler *s, const char *fn) {
  if (!s)
    return chime__fail(CHIME_EINVAL, "%s: NULL scheduler", fn);
  pthread_mutex_lock(&s->mu);
  bool down = s->state == CHIME_SCHEDULER_SHUTDOWN;
  pthread_mutex_unlock(&s->mu);
  if (down)
    return chime__fail(CHIME_ESHUTDOWN, "%s: the scheduler is shut down", fn);
  return 0;
}

