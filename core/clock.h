/*
 * clock.h: the two clocks every layer reads, and a sleep.
 *
 * The wall clock (CLOCK_REALTIME) says what time it is; it may step.  The
 * monotonic clock (CLOCK_MONOTONIC) measures durations, deadlines and
 * back-off; it never steps.  Both in milliseconds.
 */
#ifndef CHIME_CORE_CLOCK_H
#define CHIME_CORE_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch by this host's wall clock.  Thread: any. */
int64_t chime__wall_ms(void);

/* Milliseconds of the monotonic clock (an arbitrary origin).  Thread: any. */
int64_t chime__mono_ms(void);

/* Sleeps ms milliseconds (nothing for ms <= 0), resuming after signals.
 * Thread: any; blocks the calling thread. */
void chime__sleep_ms(int64_t ms);

#endif /* CHIME_CORE_CLOCK_H */
