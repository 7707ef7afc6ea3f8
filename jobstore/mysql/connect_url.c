/*
 * mysql/connect_url.c: chime-mysql.h's store URL for a program's own
 * connections (chime_mysql_url), for programs (the bench, the tools) that
 * keep tables of their own beside a scheduler's: the store's own parser
 * (url.c) and connection code (conn.c), so a URL means the same to both.
 */
#include "chime-mysql.h"

#include "jobstore/mysql/conn.h"
#include "jobstore/mysql/url.h"

#include <stdio.h>
#include <stdlib.h>

/* As the store's own connections (tx.c). */
#define CONNECT_TIMEOUT_S 5
/* io_timeout_s's range, as the store reads it (store.c). */
#define MAX_IO_TIMEOUT_S 3600

_Static_assert(CHIME_MYSQL_MAX_PREFIX_LEN == CHIME__MYSQL_PREFIX_MAX,
               "the public prefix limit is the store's");

struct chime_mysql_url {
  chime__mysql_url *parsed;
  unsigned io_timeout_s;
  char prefix[CHIME_MYSQL_MAX_PREFIX_LEN + 1];
};

/* The URL's io_timeout_s, or the store's default.  Returns: 0; CHIME_EURL
 * (errbuf says why). */
static int io_timeout(const chime__mysql_url *url, unsigned *ret, char *errbuf,
                      size_t errbuf_len) {
  *ret = url->nhosts > 1 ? CHIME__MYSQL_MEMBER_IO_TIMEOUT_S : 0;
  const char *text = chime__mysql_url_param(url, "io_timeout_s");
  if (!text)
    return 0;
  char *end;
  long v = strtol(text, &end, 10);
  if (*end || end == text || v < 0 || v > MAX_IO_TIMEOUT_S) {
    if (errbuf && errbuf_len)
      snprintf(errbuf, errbuf_len,
               "store URL parameter io_timeout_s='%.32s' is not a number of "
               "seconds from 0 (none) to %d",
               text, MAX_IO_TIMEOUT_S);
    return CHIME_EURL;
  }
  *ret = (unsigned)v;
  return 0;
}

int chime_mysql_url_new(const char *text, chime_mysql_url **ret_url,
                        char *errbuf, size_t errbuf_len) {
  if (errbuf && errbuf_len)
    errbuf[0] = '\0';
  if (ret_url)
    *ret_url = NULL;
  if (!text || !ret_url) {
    if (errbuf && errbuf_len)
      snprintf(errbuf, errbuf_len, "chime_mysql_url_new: NULL %s",
               text ? "ret_url" : "text");
    return CHIME_EINVAL;
  }
  chime_mysql_url *url = calloc(1, sizeof *url);
  if (!url)
    return CHIME_ENOMEM;
  int r = chime__mysql_url_parse(text, &url->parsed, errbuf, errbuf_len);
  if (r == CHIME_ELIMIT) /* too long, too many parts: malformed too */
    r = CHIME_EURL;
  if (r == 0)
    r = chime__mysql_url_prefix(url->parsed, url->prefix, sizeof url->prefix,
                                errbuf, errbuf_len);
  if (r == 0)
    r = io_timeout(url->parsed, &url->io_timeout_s, errbuf, errbuf_len);
  if (r < 0) {
    chime_mysql_url_free(url);
    return r;
  }
  *ret_url = url;
  return 0;
}

int chime_mysql_url_connect(chime_mysql_url *url, MYSQL **ret_db, char *errbuf,
                            size_t errbuf_len) {
  if (errbuf && errbuf_len)
    errbuf[0] = '\0';
  if (ret_db)
    *ret_db = NULL;
  if (!url || !ret_db) {
    if (errbuf && errbuf_len)
      snprintf(errbuf, errbuf_len, "chime_mysql_url_connect: NULL %s",
               url ? "ret_db" : "url");
    return CHIME_EINVAL;
  }
  return chime__mysql_connect_io(url->parsed, CONNECT_TIMEOUT_S,
                                 url->io_timeout_s, ret_db, errbuf, errbuf_len);
}

const char *chime_mysql_url_get_prefix(const chime_mysql_url *url) {
  return url ? url->prefix : "";
}

void chime_mysql_url_free(chime_mysql_url *url) {
  if (!url)
    return;
  chime__mysql_url_free(url->parsed);
  free(url);
}
