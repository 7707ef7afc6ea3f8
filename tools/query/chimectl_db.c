/*
 * chimectl_db.c: chimectl's access to the database through the store's
 * public operator's interface (chime-admin.h): opens the store for the
 * URL as an operator, and parses keys and group patterns.
 */
#include "chimectl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char ctl_last_error[1024];
bool ctl_quiet;
const char *ctl_program = "chimectl";

int ctl_exit_code(int code) {
  switch (code) {
  case 0:
    return CTL_FAILED;
  case CHIME_ENOTFOUND:
    return CTL_NOTFOUND;
  case CHIME_EURL: /* a malformed URL is the caller's usage error */
    return CTL_USAGE;
  case CHIME_ECONNECT:
  case CHIME_EAUTH:
    return CTL_CONNECT;
  case CHIME_ESCHEMA:
    return CTL_SCHEMA;
  default:
    return CTL_FAILED;
  }
}

/* Keeps the message (one line: a server's may carry newlines) and prints
 * it unless quiet. */
static void report(const char *fmt, va_list ap) {
  vsnprintf(ctl_last_error, sizeof ctl_last_error, fmt, ap);
  for (char *p = ctl_last_error; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  if (!ctl_quiet)
    fprintf(stderr, "%s: %s\n", ctl_program, ctl_last_error);
}

int ctl_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(fmt, ap);
  va_end(ap);
  return ctl_exit_code(code);
}

int ctl_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(fmt, ap);
  va_end(ap);
  return CTL_USAGE;
}

int ctl_read_first_line(const char *path, const char *what, char *buf,
                        size_t len) {
  FILE *f = fopen(path, "r");
  if (!f)
    return ctl_fail(CHIME_EINVAL, "cannot read the %s file %s", what, path);
  if (!fgets(buf, (int)len, f))
    buf[0] = '\0';
  fclose(f);
  buf[strcspn(buf, "\r\n")] = '\0';
  return 0;
}

/* url with password (NULL: url as it is) put in its user part,
 * percent-encoded, into *ret (malloc'd).  The user part ends at the last
 * '@' before the path, as the store's URL parser reads it, so an unescaped
 * '@' in a password in the URL still works.  Returns: 0; CHIME_EURL (not
 * mysql://); CHIME_ENOMEM. */
static int url_with_password(const char *url, const char *password,
                             char **ret) {
  static const char scheme[] = "mysql://";
  if (strncmp(url, scheme, sizeof scheme - 1) != 0)
    return CHIME_EURL;
  const char *rest = url + sizeof scheme - 1;
  const char *at = NULL;
  for (const char *p = rest; *p && *p != '/'; p++)
    if (*p == '@')
      at = p;
  size_t len = strlen(url) + (password ? 3 * strlen(password) : 0) + 2;
  char *out = malloc(len);
  if (!out)
    return CHIME_ENOMEM;
  if (!password || !at) {
    memcpy(out, url, strlen(url) + 1);
  } else {
    size_t k = (size_t)snprintf(out, len, "%s%.*s:", scheme,
                                (int)strcspn(rest, ":@"), rest);
    for (const unsigned char *p = (const unsigned char *)password; *p; p++)
      k += (size_t)(isalnum(*p) || strchr("-_.~", *p)
                        ? snprintf(out + k, len - k, "%c", *p)
                        : snprintf(out + k, len - k, "%%%02X", *p));
    snprintf(out + k, len - k, "%s", at);
  }
  *ret = out;
  return 0;
}

int ctl_setup(ctl *c, const char *url, const char *pwfile) {
  if (!c->sched || !*c->sched)
    c->sched = "chime";
  const char *env_tz = getenv("TZ");
  const chime_zone *z;
  /* $TZ may be POSIX-style ("EST5EDT", ":/etc/localtime"): then UTC. */
  if (!c->zone || !*c->zone ||
      (c->zone == env_tz && chime_zone_get(c->zone, &z) < 0))
    c->zone = "UTC";
  if (chime_zone_get(c->zone, &z) < 0)
    return ctl_usage("unknown time zone '%s'", c->zone);
  if (!url || !*url)
    return ctl_usage("no store URL: use --url or set CHIME_URL");
  char pw[512] = "";
  const char *pwp = getenv("CHIME_PASSWORD");
  int r;
  if (pwfile) {
    if ((r = ctl_read_first_line(pwfile, "password", pw, sizeof pw)))
      return r;
    pwp = pw;
  }
  r = url_with_password(url, pwp, &c->url);
  memset(pw, 0, sizeof pw);
  if (r == CHIME_EURL)
    return ctl_fail(r, "the store URL must begin with mysql://");
  return r < 0 ? ctl_fail(r, "out of memory") : 0;
}

int ctl_open(ctl *c, const char *extra) {
  if (c->admin)
    return 0;
  snprintf(c->node, sizeof c->node, "%s-%ld", ctl_program, (long)getpid());
  char err[1024] = "", *joined = NULL;
  const char *url = c->url;
  if (extra) { /* more parameters: the URL's own end with them */
    size_t len = strlen(url) + strlen(extra) + 2;
    if (!(joined = malloc(len)))
      return ctl_fail(CHIME_ENOMEM, "out of memory");
    snprintf(joined, len, "%s%c%s", url, strchr(url, '?') ? '&' : '?', extra);
    url = joined;
  }
  int r = chime_admin_open(url, c->sched, &c->admin, err, sizeof err);
  free(joined);
  if (r == CHIME_ENOMEM && !err[0])
    return ctl_fail(r, "out of memory");
  if (r < 0) {
    c->admin = NULL;
    if (r == CHIME_ESCHEMA && strstr(err, "auto_create"))
      return ctl_fail(r, "no chime schema in this database: run 'chimectl "
                         "schema init'");
    if (r == CHIME_ESCHEMA && strstr(err, "migrate=1"))
      return ctl_fail(r, "the schema is older than this chimectl: run "
                         "'chimectl schema migrate'");
    return ctl_fail(r, "%s", err[0] ? err : chime_strerror(r));
  }
  return 0;
}

/* The message of a failed query. */
static int query_failed(int r, const char *err) {
  return ctl_fail(r, "query failed: %s", err[0] ? err : chime_strerror(r));
}

int ctl_admin(ctl *c, chime_admin **ret) {
  *ret = NULL;
  int r = ctl_open(c, NULL);
  if (r)
    return r;
  *ret = c->admin;
  return 0;
}

int ctl_list(ctl *c, chime_admin_query *q, chime_admin_table **ret) {
  *ret = NULL;
  if (!q)
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  chime_admin *a = NULL;
  int r = ctl_admin(c, &a);
  if (r == 0) {
    r = chime_admin_list(a, q, ret);
    r = r < 0 ? query_failed(r, chime_admin_errmsg(a)) : 0;
  }
  chime_admin_query_free(q);
  return r;
}

chime_admin_query *ctl_list_query(chime_admin_kind kind) {
  chime_admin_query *q = NULL;
  return chime_admin_query_new(kind, &q) < 0 ? NULL : q;
}

int64_t ctl_now(ctl *c) {
  chime_admin *a = c->admin;
  int64_t now = 0;
  return a && chime_admin_get_now_ms(a, &now) == 0 ? now : 0;
}

int ctl_check_in(ctl *c) {
  chime_admin *a = c->admin;
  return a ? chime_admin_check_in(a) : 0;
}

void ctl_close(ctl *c) {
  chime_admin_free(c->admin);
  c->admin = NULL;
}

int ctl_split_key(const char *text, char *group, char *name, size_t len) {
  const char *dot = text ? strchr(text, '.') : NULL;
  if (!dot || dot == text || !dot[1] || (size_t)(dot - text) >= len ||
      strlen(dot + 1) >= len) {
    return ctl_usage("'%s' is not a key GROUP.NAME", text ? text : "");
  }
  memcpy(group, text, (size_t)(dot - text));
  group[dot - text] = '\0';
  snprintf(name, len, "%s", dot + 1);
  return 0;
}

void ctl_pattern(const char *text, chime_match *ret_match,
                 const char **ret_pattern, char *buf, size_t len) {
  size_t n = text ? strlen(text) : 0;
  if (!text || strcmp(text, "*") == 0) {
    *ret_match = CHIME_MATCH_ANY;
    *ret_pattern = "";
  } else if (n > 0 && text[n - 1] == '*') {
    snprintf(buf, len, "%.*s", (int)(n - 1), text);
    *ret_match = CHIME_MATCH_STARTS_WITH;
    *ret_pattern = buf;
  } else {
    *ret_match = CHIME_MATCH_EQUALS;
    *ret_pattern = text;
  }
}
