/*
 * store.c: what every store shares: opening a store by URL ("memory:" or
 * "mysql://..."), freeing a fire, and the job type set.
 */
#include "jobstore/store.h"

#include "chime-config.h"

#include <stdlib.h>
#include <string.h>

int chime__store_open(const char *url, const chime_store_options *options,
                      chime_store **ret_store, char *errbuf,
                      size_t errbuf_len) {
  if (errbuf && errbuf_len > 0)
    errbuf[0] = '\0';
  if (!url || !ret_store)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL, "no store URL");
  if (strcmp(url, "memory:") == 0)
    return chime__memory_store_open(options, ret_store);
  if (strncmp(url, "mysql://", 8) == 0) {
#if CHIME_HAVE_MYSQL
    return chime__mysql_store_open(url, options, ret_store, errbuf,
                                   errbuf_len);
#else
    return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                             "this build has no MySQL store "
                             "(-Dmysql=disabled)");
#endif
  }
  return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                           "store URL '%.64s' is neither \"memory:\" nor "
                           "\"mysql://...\"",
                           url);
}

void chime__fire_free(chime_fire *fire) {
  if (!fire)
    return;
  chime_job_free(fire->job);
  chime_trigger_free(fire->trigger);
  free(fire);
}

static int compare_name(const void *key, const void *elem) {
  return strcmp(key, *(const char *const *)elem);
}

bool chime__type_set_has(const chime_type_set *set, const char *type) {
  if (!type)
    return false;
  if (!set)
    return true;
  if (set->count == 0)
    return false;
  return bsearch(type, set->names, set->count, sizeof *set->names,
                 compare_name) != NULL;
}
