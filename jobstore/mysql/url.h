/*
 * url.h: the store URL of the MySQL/MariaDB store,
 *
 *   mysql://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]...]/DATABASE[?KEY=VALUE&...]
 *
 * USER and PASSWORD may be percent-encoded; HOST may be a name, an IPv4
 * address or a bracketed IPv6 address; PORT defaults to 3306.  Several
 * hosts, separated by commas, are the members of one multi-master cluster
 * (MariaDB Galera): a connection goes to one of them and moves to the next
 * when its member fails (conn.c).  Query
 * parameters are kept as given for the store to interpret ("socket" is read
 * here: a Unix socket path used instead of TCP).
 */
#ifndef CHIME_JOBSTORE_MYSQL_URL_H
#define CHIME_JOBSTORE_MYSQL_URL_H

#include <stddef.h>

#define CHIME__MYSQL_URL_MAX_LEN 2048
#define CHIME__MYSQL_URL_MAX_PARAMS 32
#define CHIME__MYSQL_URL_MAX_HOSTS 16

/* One member of the URL's host list. */
typedef struct chime__mysql_host {
  char *host;
  unsigned port;
} chime__mysql_host;

typedef struct chime__mysql_param {
  char *key;
  char *value;
} chime__mysql_param;

typedef struct chime__mysql_url {
  char *user;
  char *password; /* "" when the URL has none */
  /* The first member (a copy of hosts[0], which it overrides: most
   * callers, and tests that point a URL elsewhere, know only one host);
   * chime__mysql_url_host/_port read member i either way. */
  char *host;
  unsigned port;
  size_t nhosts; /* 1 or more */
  chime__mysql_host hosts[CHIME__MYSQL_URL_MAX_HOSTS];
  char *database;
  char *socket; /* NULL unless ?socket=PATH */
  size_t nparams;
  chime__mysql_param params[CHIME__MYSQL_URL_MAX_PARAMS];
} chime__mysql_url;

/*
 * chime__mysql_url_parse: parses a store URL.
 * Returns: 0; CHIME_EURL with the reason in errbuf; CHIME_ELIMIT (too long,
 * too many parameters or hosts); CHIME_ENOMEM.
 * Ownership: *ret_url is the caller's, freed with chime__mysql_url_free().
 */
int chime__mysql_url_parse(const char *url, chime__mysql_url **ret_url,
                           char *errbuf, size_t errbuf_len);

/* The value of query parameter key, or NULL.  Borrowed from url. */
const char *chime__mysql_url_param(const chime__mysql_url *url,
                                   const char *key);

/*
 * chime__mysql_url_redacted: the URL with its password replaced by "***",
 * for messages.  Writes at most buf_len bytes, always NUL-terminated.
 */
void chime__mysql_url_redacted(const chime__mysql_url *url, char *buf,
                               size_t buf_len);

/* Member i's host and port (i < nhosts): member 0 is url->host, url->port.
 * Borrowed from url. */
const char *chime__mysql_url_host(const chime__mysql_url *url, size_t i);
unsigned chime__mysql_url_port(const chime__mysql_url *url, size_t i);

/* chime__mysql_url_redacted for member i of the host list alone. */
void chime__mysql_url_member(const chime__mysql_url *url, size_t i, char *buf,
                             size_t buf_len);

void chime__mysql_url_free(chime__mysql_url *url);

/*
 * chime__mysql_url_with_password: the URL text with its password replaced
 * by password (percent-encoded; NULL, or a URL without USER@: the text
 * unchanged).  Nothing else is checked: the parser does that.
 * Returns: 0; CHIME_EURL (not mysql://); CHIME_ENOMEM.
 * Ownership: *ret_text is the caller's, freed with free().
 */
int chime__mysql_url_with_password(const char *text, const char *password,
                                   char **ret_text);

/* The read and write timeout of a connection when the URL names several
 * members (unless io_timeout_s says otherwise): longer than a Galera
 * member's eviction (evs.suspect_timeout, 5 s by default), so a commit that
 * waits for the cluster to drop a member is not cut short. */
#define CHIME__MYSQL_MEMBER_IO_TIMEOUT_S 10

/* The longest table prefix (URL parameter prefix). */
#define CHIME__MYSQL_PREFIX_MAX 32

/*
 * chime__mysql_url_prefix: the table prefix the URL names ("chime_" unless
 * ?prefix=) into buf (len > CHIME__MYSQL_PREFIX_MAX bytes).
 * Returns: 0; CHIME_EURL (too long, or not only letters, digits and '_'),
 * errbuf saying why.
 */
int chime__mysql_url_prefix(const chime__mysql_url *url, char *buf, size_t len,
                            char *errbuf, size_t errbuf_len);

#endif /* CHIME_JOBSTORE_MYSQL_URL_H */
