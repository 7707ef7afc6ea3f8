/*
 * chime-uv.h: running a chime scheduler inside a host application's own
 * libuv loop instead of on a thread of its own.  Optional: include it only
 * where libuv's types are welcome; chime.h never includes libuv.
 *
 * Who calls what, when attached:
 *   - chime_scheduler_attach() and chime_scheduler_detach() are called on
 *     the loop's thread;
 *   - the scheduler's timers and async handle run on that loop, so the
 *     scheduler's decisions (claiming fires, maintenance) happen on the
 *     loop's thread whenever the host runs the loop;
 *   - jobs still run on the scheduler's own worker threads, never on the
 *     host's loop or libuv's shared thread pool;
 *   - every other chime function may still be called from any thread.
 */
#ifndef CHIME_UV_H
#define CHIME_UV_H

#include "chime.h"

#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * chime_scheduler_attach: starts firing with the scheduler's handles on
 * loop (instead of chime_scheduler_start's own thread).  The detail of a
 * failure is chime_scheduler_errmsg(scheduler).
 * Returns: 0; CHIME_EINVAL (NULL scheduler or loop); CHIME_ESTATE (already
 * started or attached); CHIME_ESHUTDOWN; CHIME_ENOMEM (no worker threads);
 * CHIME_EINTERNAL (libuv refused).
 * Ownership: loop stays the host's; it must outlive the scheduler's handles
 * (until chime_scheduler_detach and the loop run that closes them).
 * Thread: the loop's thread.
 */
CHIME_EXTERN int chime_scheduler_attach(chime_scheduler *scheduler,
                                        uv_loop_t *loop);

/*
 * chime_scheduler_detach: shuts the scheduler down (as
 * chime_scheduler_shutdown(scheduler, wait_for_jobs)) and closes its
 * handles on the host loop; the host must let the loop run once more for
 * the close callbacks (uv_run(loop, UV_RUN_NOWAIT)) before calling
 * chime_scheduler_free(), which waits for them.  While attached,
 * chime_scheduler_start() resumes from standby (CHIME_ESTATE when already
 * started).
 * Returns: 0; CHIME_EINVAL (NULL); CHIME_ESTATE (not attached).
 * Ownership: the loop is the host's again once its close callbacks ran.
 * Thread: the loop's thread.
 */
CHIME_EXTERN int chime_scheduler_detach(chime_scheduler *scheduler,
                                        bool wait_for_jobs);

#ifdef __cplusplus
}
#endif

#endif /* CHIME_UV_H */
