/*
 * open.c: opening the store a URL names ("memory:" or "mysql://..."), and
 * reading its schema's state (chime_admin_get_schema_state).  The one file
 * of jobstore/ that knows the implementations: it sits above
 * jobstore/memory/ and jobstore/mysql/, which sit above store.h.
 */
#include "chime-admin.h"
#include "chime-config.h"
#include "jobstore/store.h"

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
    return chime__mysql_store_open(url, options, ret_store, errbuf, errbuf_len);
#else
    return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                             "this build has no MySQL store "
                             "(-Dmysql=disabled)");
#endif
  }
  /* Never echo the URL: a malformed one may hold a password anywhere.
   * Its scheme alone is safe to name, when it looks like one. */
  size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyz"
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
  if (n > 0 && n <= 16 && url[n] == ':')
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "store URL does not start with \"memory:\" or "
                             "\"mysql://\" (its scheme is '%.*s'; the rest "
                             "is not shown: it may hold a password)",
                             (int)n, url);
  return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                           "store URL is neither \"memory:\" nor "
                           "\"mysql://...\" (the URL is not shown: it may "
                           "hold a password)");
}

int chime_admin_get_schema_state(const char *url, long *ret_version,
                                 long *ret_latest, long *ret_compatible_with,
                                 char *errbuf, size_t errbuf_len) {
  if (errbuf && errbuf_len > 0)
    errbuf[0] = '\0';
  if (!url || !ret_version || !ret_latest || !ret_compatible_with)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "no store URL or no place for the answer");
  *ret_version = *ret_latest = *ret_compatible_with = 0;
  if (strncmp(url, "mysql://", 8) != 0)
    return chime__record_err(
        errbuf, errbuf_len,
        strncmp(url, "memory:", 7) == 0 ? CHIME_EUNSUPPORTED : CHIME_EURL,
        "only a mysql:// store has a schema");
#if CHIME_HAVE_MYSQL
  return chime__mysql_admin_schema_state(
      url, ret_version, ret_latest, ret_compatible_with, errbuf, errbuf_len);
#else
  return chime__record_err(errbuf, errbuf_len, CHIME_EUNSUPPORTED,
                           "this build has no MySQL store "
                           "(-Dmysql=disabled)");
#endif
}
