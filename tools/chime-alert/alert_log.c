/*
 * alert_log.c: what every part of chime-alert uses and none calls back:
 * the monotonic clock and the operator's log line on stderr.  Kept apart
 * from alert_send.c so that the parts below it (alert_http.c,
 * alert_state.c, alert_watch.c) do not call up into it.
 */
#include "alert.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

uint64_t alert_mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void alert_log(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("chime-alert: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
