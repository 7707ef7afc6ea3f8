/*
 * mysql/url.c: parsing of mysql:// store URLs.  Nothing here touches the
 * network; the result is handed to mysql/conn.c.
 */
#include "jobstore/mysql/url.h"

#include "chime.h"
#include "model/records.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Copies [s, s+len) percent-decoded.  NULL on a bad escape or a NUL byte. */
static char *decode(const char *s, size_t len, bool *ret_bad) {
  char *out = malloc(len + 1);
  size_t n = 0;
  *ret_bad = false;
  if (!out)
    return NULL;
  for (size_t i = 0; i < len; i++) {
    if (s[i] != '%') {
      out[n++] = s[i];
      continue;
    }
    if (i + 2 >= len || hex_value(s[i + 1]) < 0 || hex_value(s[i + 2]) < 0) {
      *ret_bad = true;
      free(out);
      return NULL;
    }
    char c = (char)(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
    if (c == '\0') {
      *ret_bad = true;
      free(out);
      return NULL;
    }
    out[n++] = c;
    i += 2;
  }
  out[n] = '\0';
  return out;
}

static int decode_part(const char *what, const char *s, size_t len, char **ret,
                       char *errbuf, size_t errbuf_len) {
  bool bad;
  *ret = decode(s, len, &bad);
  if (*ret)
    return 0;
  if (bad)
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "bad percent-escape in the %s of the store URL",
                             what);
  return CHIME_ENOMEM;
}

/* decode_part for a part that must not be empty. */
static int decode_name(const char *what, const char *s, size_t len, char **ret,
                       char *errbuf, size_t errbuf_len) {
  if (len == 0)
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "store URL has an empty %s name", what);
  return decode_part(what, s, len, ret, errbuf, errbuf_len);
}

static int parse_port(const char *s, size_t len, unsigned *ret_port) {
  unsigned port = 0;
  if (len == 0 || len > 5)
    return -1;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    port = port * 10 + (unsigned)(s[i] - '0');
  }
  if (port == 0 || port > 65535)
    return -1;
  *ret_port = port;
  return 0;
}

/* Parses "k=v&k=v" into url->params. */
static int parse_query(chime__mysql_url *url, const char *q, char *errbuf,
                       size_t errbuf_len) {
  while (*q) {
    const char *amp = strchr(q, '&');
    size_t len = amp ? (size_t)(amp - q) : strlen(q);
    const char *eq = memchr(q, '=', len);
    if (len > 0) {
      if (!eq || eq == q)
        return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                                 "store URL parameter '%.*s' is not KEY=VALUE",
                                 (int)len, q);
      if (url->nparams == CHIME__MYSQL_URL_MAX_PARAMS) {
        chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                          "store URL has more than %d parameters",
                          CHIME__MYSQL_URL_MAX_PARAMS);
        return CHIME_ELIMIT;
      }
      chime__mysql_param *p = &url->params[url->nparams];
      int r = decode_part("parameter name", q, (size_t)(eq - q), &p->key,
                          errbuf, errbuf_len);
      if (r < 0)
        return r;
      r = decode_part("parameter value", eq + 1, len - (size_t)(eq + 1 - q),
                      &p->value, errbuf, errbuf_len);
      if (r < 0) {
        free(p->key);
        p->key = NULL;
        return r;
      }
      url->nparams++;
    }
    q += len;
    if (*q == '&')
      q++;
  }
  return 0;
}

/* Splits "host[:port]" or "[v6][:port]" into h. */
static int parse_host(chime__mysql_host *h, const char *s, size_t len,
                      char *errbuf, size_t errbuf_len) {
  const char *host = s, *port = NULL;
  size_t host_len = len;
  if (len > 0 && s[0] == '[') {
    const char *close = memchr(s, ']', len);
    if (!close)
      return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                               "store URL has an unclosed '[' in its host");
    host = s + 1;
    host_len = (size_t)(close - host);
    if (close + 1 < s + len) {
      if (close[1] != ':')
        return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                                 "store URL has text after the IPv6 address");
      port = close + 2;
    }
  } else {
    const char *colon = memchr(s, ':', len);
    if (colon) {
      host_len = (size_t)(colon - s);
      port = colon + 1;
    }
  }
  if (host_len == 0)
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "store URL has no host (or an empty one in its "
                             "list of hosts)");
  h->port = 3306;
  /* Never echo the port: when it is not a number, it is most likely a
   * piece of a password with an unencoded '@' or '/'. */
  if (port && parse_port(port, (size_t)(s + len - port), &h->port) < 0)
    return chime__record_err(
        errbuf, errbuf_len, CHIME_EURL,
        "store URL port is not a number from 1 to 65535 (not shown: a "
        "password with '@', ':' or '/' in it must be percent-encoded)");
  return decode_part("host", host, host_len, &h->host, errbuf, errbuf_len);
}

/* Splits "h1[:p1],h2[:p2],..." into url->hosts (a ',' inside brackets is
 * part of an IPv6 address's text, and refused there as any other). */
static int parse_hosts(chime__mysql_url *url, const char *s, size_t len,
                       char *errbuf, size_t errbuf_len) {
  const char *end = s + len;
  for (;;) {
    const char *comma = s;
    bool bracket = false;
    while (comma < end && (*comma != ',' || bracket)) {
      if (*comma == '[')
        bracket = true;
      else if (*comma == ']')
        bracket = false;
      comma++;
    }
    if (url->nhosts == CHIME__MYSQL_URL_MAX_HOSTS) {
      chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                        "store URL has more than %d hosts",
                        CHIME__MYSQL_URL_MAX_HOSTS);
      return CHIME_ELIMIT;
    }
    int r = parse_host(&url->hosts[url->nhosts], s, (size_t)(comma - s), errbuf,
                       errbuf_len);
    if (r < 0)
      return r;
    url->nhosts++;
    if (comma == end)
      break;
    s = comma + 1;
  }
  url->port = url->hosts[0].port;
  return (url->host = strdup(url->hosts[0].host)) ? 0 : CHIME_ENOMEM;
}

int chime__mysql_url_parse(const char *text, chime__mysql_url **ret_url,
                           char *errbuf, size_t errbuf_len) {
  static const char scheme[] = "mysql://";
  if (!text || !ret_url)
    return CHIME_EINVAL;
  size_t text_len = strlen(text);
  if (text_len > CHIME__MYSQL_URL_MAX_LEN) {
    chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                      "store URL is longer than %d bytes",
                      CHIME__MYSQL_URL_MAX_LEN);
    return CHIME_ELIMIT;
  }
  if (strncmp(text, scheme, sizeof scheme - 1) != 0)
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "store URL must start with mysql:// (the URL is "
                             "not shown: it may hold a password)");

  chime__mysql_url *url = calloc(1, sizeof *url);
  if (!url)
    return CHIME_ENOMEM;
  const char *p = text + sizeof scheme - 1;
  const char *slash = strchr(p, '/');
  const char *query = strchr(p, '?');
  const char *at = NULL;
  int r;
  if (!slash || (query && query < slash)) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                          "store URL has no database: expected "
                          "mysql://USER:PASSWORD@HOST:PORT/DATABASE");
    goto fail;
  }
  /* The user part ends at the last '@' before the path, so an unescaped
   * '@' in a password still works. */
  for (const char *c = p; c < slash; c++)
    if (*c == '@')
      at = c;
  if (!at || at == p) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                          "store URL has no user: expected "
                          "mysql://USER:PASSWORD@HOST:PORT/DATABASE");
    goto fail;
  }
  const char *colon = memchr(p, ':', (size_t)(at - p));
  size_t user_len = colon ? (size_t)(colon - p) : (size_t)(at - p);
  r = decode_name("user", p, user_len, &url->user, errbuf, errbuf_len);
  if (r < 0)
    goto fail;
  if (colon)
    r = decode_part("password", colon + 1, (size_t)(at - colon - 1),
                    &url->password, errbuf, errbuf_len);
  else
    r = (url->password = strdup("")) ? 0 : CHIME_ENOMEM;
  if (r < 0)
    goto fail;
  r = parse_hosts(url, at + 1, (size_t)(slash - at - 1), errbuf, errbuf_len);
  if (r < 0)
    goto fail;
  const char *db = slash + 1;
  size_t db_len = query ? (size_t)(query - db) : strlen(db);
  r = decode_name("database", db, db_len, &url->database, errbuf, errbuf_len);
  if (r < 0)
    goto fail;
  if (query) {
    r = parse_query(url, query + 1, errbuf, errbuf_len);
    if (r < 0)
      goto fail;
  }
  const char *sock = chime__mysql_url_param(url, "socket");
  if (sock && url->nhosts > 1) {
    r = chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                          "store URL parameter socket names one server: it "
                          "cannot go with a list of hosts");
    goto fail;
  }
  if (sock && !(url->socket = strdup(sock))) {
    r = CHIME_ENOMEM;
    goto fail;
  }
  *ret_url = url;
  return 0;
fail:
  chime__mysql_url_free(url);
  return r;
}

const char *chime__mysql_url_param(const chime__mysql_url *url,
                                   const char *key) {
  for (size_t i = 0; i < url->nparams; i++)
    if (strcmp(url->params[i].key, key) == 0)
      return url->params[i].value;
  return NULL;
}

void chime__mysql_url_redacted(const chime__mysql_url *url, char *buf,
                               size_t buf_len) {
  if (!buf || buf_len == 0)
    return;
  size_t n = (size_t)snprintf(buf, buf_len, "mysql://%s%s@", url->user,
                              url->password[0] ? ":***" : "");
  for (size_t i = 0; i < url->nhosts && n < buf_len; i++) {
    const char *host = chime__mysql_url_host(url, i);
    bool v6 = strchr(host, ':') != NULL;
    n += (size_t)snprintf(buf + n, buf_len - n, "%s%s%s%s:%u", i > 0 ? "," : "",
                          v6 ? "[" : "", host, v6 ? "]" : "",
                          chime__mysql_url_port(url, i));
  }
  if (n < buf_len)
    snprintf(buf + n, buf_len - n, "/%s", url->database);
}

/* The URL of member i alone, redacted, for messages. */
void chime__mysql_url_member(const chime__mysql_url *url, size_t i, char *buf,
                             size_t buf_len) {
  assert(i < url->nhosts);
  if (!buf || buf_len == 0)
    return;
  const char *host = chime__mysql_url_host(url, i);
  bool v6 = strchr(host, ':') != NULL;
  snprintf(buf, buf_len, "mysql://%s%s@%s%s%s:%u/%s", url->user,
           url->password[0] ? ":***" : "", v6 ? "[" : "", host, v6 ? "]" : "",
           chime__mysql_url_port(url, i), url->database);
}

const char *chime__mysql_url_host(const chime__mysql_url *url, size_t i) {
  assert(i < url->nhosts);
  return i == 0 ? url->host : url->hosts[i].host;
}

unsigned chime__mysql_url_port(const chime__mysql_url *url, size_t i) {
  assert(i < url->nhosts);
  return i == 0 ? url->port : url->hosts[i].port;
}

void chime__mysql_url_free(chime__mysql_url *url) {
  if (!url)
    return;
  free(url->user);
  free(url->password);
  free(url->host);
  for (size_t i = 0; i < url->nhosts; i++)
    free(url->hosts[i].host);
  free(url->database);
  free(url->socket);
  for (size_t i = 0; i < url->nparams; i++) {
    free(url->params[i].key);
    free(url->params[i].value);
  }
  free(url);
}

int chime__mysql_url_prefix(const chime__mysql_url *url, char *buf, size_t len,
                            char *errbuf, size_t errbuf_len) {
  assert(url && buf && len > CHIME__MYSQL_PREFIX_MAX);
  const char *p = chime__mysql_url_param(url, "prefix");
  if (!p)
    p = "chime_";
  size_t n = strlen(p);
  if (n > CHIME__MYSQL_PREFIX_MAX)
    return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                             "table prefix longer than %d bytes",
                             CHIME__MYSQL_PREFIX_MAX);
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return chime__record_err(errbuf, errbuf_len, CHIME_EURL,
                               "table prefix '%s': only letters, digits and "
                               "'_' are allowed",
                               p);
  }
  memcpy(buf, p, n + 1);
  return 0;
}

/* Appends the percent-encoded s at o; returns the end. */
static char *put_encoded(char *o, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
                 ch == '.' || ch == '~';
    if (plain) {
      *o++ = (char)ch;
    } else {
      *o++ = '%';
      *o++ = hex[ch >> 4];
      *o++ = hex[ch & 15];
    }
  }
  return o;
}

int chime__mysql_url_with_password(const char *text, const char *password,
                                   char **ret_text) {
  static const char scheme[] = "mysql://";
  assert(text && ret_text);
  if (strncmp(text, scheme, sizeof scheme - 1) != 0)
    return CHIME_EURL;
  const char *rest = text + sizeof scheme - 1;
  const char *slash = strchr(rest, '/');
  const char *end = slash ? slash : rest + strlen(rest);
  /* As the parser reads it: the user part ends at the last '@' before the
   * path, so an unescaped '@' in a password in the URL still works. */
  const char *at = NULL;
  for (const char *p = rest; p < end; p++)
    if (*p == '@')
      at = p;
  size_t len = strlen(text) + (password ? 3 * strlen(password) : 0) + 2;
  char *out = malloc(len);
  if (!out)
    return CHIME_ENOMEM;
  if (!password || !at) {
    memcpy(out, text, strlen(text) + 1);
  } else {
    size_t ulen = strcspn(rest, ":@");
    char *o = out + snprintf(out, len, "%s%.*s:", scheme, (int)ulen, rest);
    o = put_encoded(o, password);
    memcpy(o, at, strlen(at) + 1);
  }
  *ret_text = out;
  return 0;
}
