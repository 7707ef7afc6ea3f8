/*
 * clock.c: the wall and monotonic clocks in milliseconds, and a sleep that
 * survives signals (clock.h).
 */
#include "core/clock.h"

#include <errno.h>
#include <time.h>

static int64_t clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t chime__wall_ms(void) {
  return clock_ms(CLOCK_REALTIME);
}

int64_t chime__mono_ms(void) {
  return clock_ms(CLOCK_MONOTONIC);
}

void chime__sleep_ms(int64_t ms) {
  if (ms <= 0)
    return;
  struct timespec ts = {.tv_sec = ms / 1000,
                        .tv_nsec = (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}
