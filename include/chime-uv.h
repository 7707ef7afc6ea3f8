/*
 * chime-uv.h: running a chime scheduler inside a host application's own
 * libuv loop instead of on a thread of its own.  Optional: include it only
 * where libuv's types are welcome; chime.h never includes libuv.
 *
 * What runs on which thread, when attached:
 *   - chime_scheduler_attach() and chime_scheduler_detach() are called on
 *     the host loop's thread (they tie the scheduler's life to the host's:
 *     attach starts it, detach shuts it down);
 *   - nothing of chime's runs on the host's loop: chime adds no handle to
 *     it and never blocks it.  The scheduler's own loop (claiming fires,
 *     check-ins, misfire scans, dead-node recovery and the store's
 *     reconnect back-off) runs on a thread of chime's, exactly as after
 *     chime_scheduler_start(); so a slow or unreachable database never
 *     holds up the host's timers or I/O;
 *   - jobs run on the scheduler's own worker threads, completions are
 *     written by its completer thread, never on the host's loop or
 *     libuv's shared thread pool;
 *   - listeners are called on those threads too (the worker running the
 *     job, or the scheduler's loop thread), never on the host's loop: a
 *     listener that must act on the host's thread hands the event over
 *     itself (for instance with a uv_async_t of the host's);
 *   - every other chime function may be called from any thread.
 */
#ifndef CHIME_UV_H
#define CHIME_UV_H

#include "chime.h"

#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * chime_scheduler_attach: starts firing, the scheduler's life tied to
 * loop's (instead of chime_scheduler_start); chime's own thread does the
 * work, nothing runs on loop.  The detail of a
 * failure is chime_scheduler_errmsg(scheduler).
 * Returns: 0; CHIME_EINVAL (NULL scheduler or loop); CHIME_ESTATE (already
 * started or attached); CHIME_ESHUTDOWN; CHIME_ENOMEM (no worker threads);
 * CHIME_EINTERNAL (libuv refused).
 * Ownership: loop stays the host's; chime keeps no handle on it, so the
 * host may close it whenever it likes (uv_loop_close() succeeds whether
 * or not the scheduler is still attached).
 * Thread: the loop's thread.
 */
CHIME_EXTERN int chime_scheduler_attach(chime_scheduler *scheduler,
                                        uv_loop_t *loop);

/*
 * chime_scheduler_detach: shuts the scheduler down, as
 * chime_scheduler_shutdown(scheduler, CHIME_SHUTDOWN_WAIT_FOREVER) when
 * wait_for_jobs, else as with CHIME_SHUTDOWN_NO_WAIT.  The host need not
 * run its loop again: chime_scheduler_free() may follow at once.
 * chime_scheduler_free() on a scheduler still attached detaches it
 * (waiting for running jobs) and never hangs.  While attached,
 * chime_scheduler_start() resumes from standby (CHIME_ESTATE when already
 * started); a second chime_scheduler_attach() is CHIME_ESTATE.
 * Returns: 0; CHIME_EINVAL (NULL); CHIME_ESTATE (not attached, or
 * detached already).
 * Ownership: the loop was the host's throughout.
 * Thread: the loop's thread.
 */
CHIME_EXTERN int chime_scheduler_detach(chime_scheduler *scheduler,
                                        bool wait_for_jobs);

#ifdef __cplusplus
}
#endif

#endif /* CHIME_UV_H */
