/*
 * engine/admin.c: chime_admin_open_scheduler (chime-admin.h): an
 * operator's view of the store a scheduler runs on, borrowed from it (the
 * handle and the lists are jobstore/admin.c's).
 */
#include "engine/engine.h"
#include "jobstore/admin.h"

int chime_admin_open_scheduler(chime_scheduler *scheduler, chime_admin **ret) {
  if (!scheduler || !ret)
    return CHIME_EINVAL;
  *ret = NULL;
  return chime__admin_wrap(scheduler->store, false, false, ret);
}
