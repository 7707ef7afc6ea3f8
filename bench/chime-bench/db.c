/*
 * db.c: the bench's own database connections (results, server status), the
 * store URL they are opened from, and the store clock.
 *
 * The URL syntax is chime's (jobstore/mysql/url.c), parsed here again so the
 * bench needs nothing but the public header:
 *   mysql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?KEY=VALUE&...]
 * with percent-escapes, an IPv6 host in brackets, the user part ending at
 * the last '@', and socket=PATH selecting a Unix socket.  The other
 * parameters are chime's and are ignored here.
 */
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONNECT_TIMEOUT_S 5
/* Long enough for reading a large bench_results, short enough that a dead
 * server fails the run instead of hanging it. */
#define READ_WRITE_TIMEOUT_S 30

static int hex(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Copies [s, s+len) percent-decoded; NULL on a bad escape. */
static char *decode(const char *s, size_t len) {
  char *out = malloc(len + 1);
  size_t n = 0;
  if (!out)
    return NULL;
  for (size_t i = 0; i < len; i++) {
    if (s[i] != '%') {
      out[n++] = s[i];
    } else if (i + 2 < len && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0 &&
               hex(s[i + 1]) * 16 + hex(s[i + 2]) != 0) {
      out[n++] = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else { /* a bad escape, or %00 */
      free(out);
      return NULL;
    }
  }
  out[n] = '\0';
  return out;
}

static int fail(char *errbuf, size_t errbuf_len, const char *why) {
  snprintf(errbuf, errbuf_len, "%s", why);
  return -1;
}

/* Finds parameter key in "k=v&k=v" and decodes its value; NULL if absent. */
static char *query_param(const char *q, const char *key) {
  size_t key_len = strlen(key);
  while (q && *q) {
    const char *amp = strchr(q, '&');
    size_t len = amp ? (size_t)(amp - q) : strlen(q);
    if (len > key_len && strncmp(q, key, key_len) == 0 && q[key_len] == '=')
      return decode(q + key_len + 1, len - key_len - 1);
    q = amp ? amp + 1 : NULL;
  }
  return NULL;
}

static int parse_host(bench_url *url, const char *s, size_t len, char *errbuf,
                      size_t errbuf_len) {
  const char *host = s, *port = NULL;
  size_t host_len = len;
  if (len > 0 && s[0] == '[') {
    const char *close = memchr(s, ']', len);
    if (!close)
      return fail(errbuf, errbuf_len, "unclosed '[' in the URL's host");
    host = s + 1;
    host_len = (size_t)(close - host);
    if (close + 1 < s + len && close[1] == ':')
      port = close + 2;
  } else {
    const char *colon = memchr(s, ':', len);
    if (colon) {
      host_len = (size_t)(colon - s);
      port = colon + 1;
    }
  }
  url->port = 3306;
  if (port) {
    char *end = NULL;
    long v = strtol(port, &end, 10);
    if (end != s + len || v < 1 || v > 65535)
      return fail(errbuf, errbuf_len, "the URL's port is not 1 to 65535");
    url->port = (unsigned)v;
  }
  if (host_len == 0 || !(url->host = decode(host, host_len)))
    return fail(errbuf, errbuf_len, "the URL has no valid host");
  return 0;
}

int bench_url_parse(const char *text, bench_url *url, char *errbuf,
                    size_t errbuf_len) {
  static const char scheme[] = "mysql://";
  *url = (bench_url){0};
  if (strncmp(text, scheme, sizeof scheme - 1) != 0)
    return fail(errbuf, errbuf_len, "the URL must start with mysql://");
  const char *p = text + sizeof scheme - 1;
  const char *slash = strchr(p, '/');
  const char *query = strchr(p, '?');
  if (!slash || (query && query < slash))
    return fail(errbuf, errbuf_len, "the URL has no /DATABASE");
  const char *at = NULL;
  for (const char *c = p; c < slash; c++)
    if (*c == '@')
      at = c;
  if (!at || at == p)
    return fail(errbuf, errbuf_len, "the URL has no USER@");
  const char *colon = memchr(p, ':', (size_t)(at - p));
  const char *user_end = colon ? colon : at;
  url->user = decode(p, (size_t)(user_end - p));
  url->password =
      colon ? decode(colon + 1, (size_t)(at - colon - 1)) : strdup("");
  if (!url->user || !url->password) {
    bench_url_clear(url);
    return fail(errbuf, errbuf_len, "bad user or password in the URL");
  }
  if (parse_host(url, at + 1, (size_t)(slash - at - 1), errbuf, errbuf_len) <
      0) {
    bench_url_clear(url);
    return -1;
  }
  const char *db = slash + 1;
  size_t db_len = query ? (size_t)(query - db) : strlen(db);
  if (db_len == 0 || !(url->database = decode(db, db_len))) {
    bench_url_clear(url);
    return fail(errbuf, errbuf_len, "the URL has no valid database name");
  }
  if (query)
    url->socket = query_param(query + 1, "socket");
  return 0;
}

void bench_url_clear(bench_url *url) {
  free(url->user);
  free(url->password);
  free(url->host);
  free(url->database);
  free(url->socket);
  *url = (bench_url){0};
}

bool bench_url_is_local(const bench_url *url) {
  return url->socket || strcmp(url->host, "localhost") == 0 ||
         strncmp(url->host, "127.", 4) == 0 || strcmp(url->host, "::1") == 0;
}

MYSQL *bench_db_connect(const bench_url *url, char *errbuf, size_t errbuf_len) {
  MYSQL *db = mysql_init(NULL);
  if (!db) {
    snprintf(errbuf, errbuf_len, "out of memory");
    return NULL;
  }
  unsigned connect_s = CONNECT_TIMEOUT_S, io_s = READ_WRITE_TIMEOUT_S;
  unsigned protocol = url->socket ? MYSQL_PROTOCOL_SOCKET : MYSQL_PROTOCOL_TCP;
  mysql_optionsv(db, MYSQL_OPT_CONNECT_TIMEOUT, &connect_s);
  mysql_optionsv(db, MYSQL_OPT_READ_TIMEOUT, &io_s);
  mysql_optionsv(db, MYSQL_OPT_WRITE_TIMEOUT, &io_s);
  mysql_optionsv(db, MYSQL_OPT_PROTOCOL, &protocol);
  mysql_optionsv(db, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  if (!mysql_real_connect(db, url->host, url->user, url->password,
                          url->database, url->port, url->socket, 0) ||
      mysql_autocommit(db, 1) != 0) {
    snprintf(errbuf, errbuf_len, "cannot connect to %s@%s:%u/%s: %s", url->user,
             url->socket ? url->socket : url->host, url->port, url->database,
             mysql_error(db));
    mysql_close(db);
    return NULL;
  }
  return db;
}

int bench_db_exec(MYSQL *db, const char *what, const char *sql) {
  if (mysql_real_query(db, sql, (unsigned long)strlen(sql)) != 0) {
    fprintf(stderr, "chime-bench: %s: %s\n", what, mysql_error(db));
    return -1;
  }
  /* Drain a result so the connection is ready for the next statement. */
  MYSQL_RES *res = mysql_store_result(db);
  mysql_free_result(res);
  return 0;
}

MYSQL *bench_db_open(const char *text, bench_url *url) {
  char err[512];
  if (bench_url_parse(text, url, err, sizeof err) < 0) {
    fprintf(stderr, "chime-bench: %s\n", err);
    return NULL;
  }
  MYSQL *db = bench_db_connect(url, err, sizeof err);
  if (!db) {
    fprintf(stderr, "chime-bench: %s\n", err);
    bench_url_clear(url);
  }
  return db;
}

/* The first column of the first row of sql; quiet: no message when the
 * query returns no value. */
static int query_int(MYSQL *db, const char *sql, bool quiet, int64_t *ret) {
  if (mysql_real_query(db, sql, (unsigned long)strlen(sql)) != 0) {
    fprintf(stderr, "chime-bench: %s: %s\n", sql, mysql_error(db));
    return -1;
  }
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
  int r = -1;
  if (row && row[0]) {
    *ret = strtoll(row[0], NULL, 10);
    r = 0;
  } else if (!quiet) {
    fprintf(stderr, "chime-bench: %s: no value\n", sql);
  }
  mysql_free_result(res);
  return r;
}

int bench_db_int(MYSQL *db, const char *sql, int64_t *ret) {
  return query_int(db, sql, false, ret);
}

/* Reads a global status counter; quiet: no message when it is absent. */
static int status(MYSQL *db, const char *name, bool quiet, int64_t *ret) {
  char sql[160];
  snprintf(sql, sizeof sql,
           "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
           "WHERE VARIABLE_NAME = '%s'",
           name);
  return query_int(db, sql, quiet, ret);
}

int bench_db_status(MYSQL *db, const char *name, int64_t *ret) {
  return status(db, name, false, ret);
}

int bench_db_status_quiet(MYSQL *db, const char *name, int64_t *ret) {
  return status(db, name, true, ret);
}

/* ------------------------------------------------------------- clocks */

static int64_t clock_offset_ms;

int64_t bench_real_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int bench_clock_sync(MYSQL *db) {
  /* The expression chime's store reads the database clock with, halfway
   * through the round trip, as chime does. */
  int64_t before = bench_real_ms(), db_ms = 0;
  if (bench_db_int(db, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
                   &db_ms) < 0)
    return -1;
  int64_t after = bench_real_ms();
  clock_offset_ms = db_ms - (before + (after - before) / 2);
  return 0;
}

int64_t bench_store_ms(void) {
  return bench_real_ms() + clock_offset_ms;
}

void bench_sleep_ms(int64_t ms) {
  if (ms <= 0)
    return;
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !bench_interrupted) {
  }
}
