/*
 * web_out.c: chime-web's building blocks: decoding form bodies, checking
 * parameter names, responses in memory streams, the status of an error,
 * and escaping for HTML and URLs (everything a page shows goes through
 * web_html: names, descriptions and error texts are anyone's text).
 */
#include "web.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *web_param(const web_params *p, const char *key) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->key[i], key) == 0)
      return p->value[i];
  return NULL;
}

void web_params_free(web_params *p) {
  for (size_t i = 0; i < p->n; i++)
    free(p->value[i]);
  p->n = 0;
}

static int hex(char ch) {
  if (ch >= '0' && ch <= '9')
    return ch - '0';
  if (ch >= 'a' && ch <= 'f')
    return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F')
    return ch - 'A' + 10;
  return -1;
}

/* Decodes len bytes of s (%XX, '+') into out (cap bytes).  Returns the
 * length, or -1 when malformed, too long or holding a NUL. */
static long decode(const char *s, size_t len, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < len; i++) {
    int ch = (unsigned char)s[i];
    if (ch == '+') {
      ch = ' ';
    } else if (ch == '%') {
      if (i + 2 >= len)
        return -1;
      int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi < 0 || lo < 0)
        return -1;
      ch = hi * 16 + lo;
      i += 2;
    }
    if (ch == 0 || k + 1 >= cap)
      return -1;
    out[k++] = (char)ch;
  }
  out[k] = '\0';
  return (long)k;
}

bool web_utf8_ok(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    int n = *p < 0x80             ? 0
            : (*p & 0xE0) == 0xC0 ? 1
            : (*p & 0xF0) == 0xE0 ? 2
            : (*p & 0xF8) == 0xF0 ? 3
                                  : -1;
    if (n < 0 || (n == 1 && *p < 0xC2) || (n == 3 && *p > 0xF4))
      return false;
    unsigned cp = n == 0 ? *p : *p & (0x3F >> n);
    for (int i = 1; i <= n; i++) {
      if ((p[i] & 0xC0) != 0x80)
        return false;
      cp = cp << 6 | (p[i] & 0x3Fu);
    }
    /* Overlong forms, surrogates and beyond U+10FFFF are not text. */
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    p += n + 1;
  }
  return true;
}

int web_params_parse(const char *body, size_t len, web_params *ret, char *msg,
                     size_t msg_len) {
  memset(ret, 0, sizeof *ret);
  size_t i = 0;
  while (i < len) {
    size_t end = i;
    while (end < len && body[end] != '&')
      end++;
    size_t eq = i;
    while (eq < end && body[eq] != '=')
      eq++;
    if (end > i) {
      char value[WEB_MAX_VALUE + 1];
      if (ret->n == WEB_MAX_PARAMS) {
        snprintf(msg, msg_len, "too many parameters (at most %d)",
                 WEB_MAX_PARAMS);
        goto bad;
      }
      if (decode(body + i, eq - i, ret->key[ret->n], sizeof ret->key[0]) <= 0) {
        snprintf(msg, msg_len, "a malformed or too long parameter name");
        goto bad;
      }
      if (decode(body + (eq < end ? eq + 1 : end), eq < end ? end - eq - 1 : 0,
                 value, sizeof value) < 0) {
        snprintf(msg, msg_len,
                 "parameter '%s' is malformed or longer than %d bytes",
                 ret->key[ret->n], WEB_MAX_VALUE);
        goto bad;
      }
      if (!web_utf8_ok(ret->key[ret->n]) || !web_utf8_ok(value)) {
        snprintf(msg, msg_len, "parameter '%.40s' is not valid UTF-8",
                 web_utf8_ok(ret->key[ret->n]) ? ret->key[ret->n] : "?");
        goto bad;
      }
      if (web_param(ret, ret->key[ret->n])) {
        snprintf(msg, msg_len, "parameter '%s' given twice", ret->key[ret->n]);
        goto bad;
      }
      if (!(ret->value[ret->n] = strdup(value))) {
        snprintf(msg, msg_len, "out of memory");
        goto bad;
      }
      ret->n++;
    }
    i = end + 1;
  }
  return 0;
bad:
  web_params_free(ret);
  return 400;
}

bool web_params_known(const web_params *p, const char *const *allowed,
                      char *msg, size_t msg_len) {
  for (size_t i = 0; i < p->n; i++) {
    bool ok = false;
    for (const char *const *a = allowed; *a && !ok; a++)
      ok = strcmp(*a, p->key[i]) == 0;
    if (!ok) {
      snprintf(msg, msg_len, "unknown parameter '%s'", p->key[i]);
      return false;
    }
  }
  return true;
}

int web_reply_open(web_reply *r, int status, const char *type) {
  if (r->out) { /* an earlier start: begin again */
    fclose(r->out);
    free(r->body);
  }
  r->status = status;
  r->type = type;
  r->body = NULL;
  r->len = 0;
  r->out = open_memstream(&r->body, &r->len);
  return r->out ? 0 : CHIME_ENOMEM;
}

void web_reply_error(web_reply *r, bool json, int status, const char *fmt,
                     ...) {
  char msg[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (web_reply_open(r, status,
                     json ? "application/json"
                          : "text/plain; "
                            "charset=utf-8"))
    return;
  if (json) {
    fprintf(r->out, "{\"ok\": false, \"status\": %d, \"error\": ", status);
    ctl_json_string_to(r->out, msg);
    fputs("}\n", r->out);
  } else {
    fprintf(r->out, "%d: %s\n", status, msg);
  }
}

int web_status_of(int exit_code) {
  switch (exit_code) {
  case CTL_OK:
    return 200;
  case CTL_USAGE:
    return 400;
  case CTL_NOTFOUND:
    return 404;
  case CTL_CONNECT:
  case CTL_SCHEMA:
    return 503;
  default:
    return 500;
  }
}

void web_html(FILE *out, const char *s) {
  if (!s) {
    putc('-', out);
    return;
  }
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", out);
      break;
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    case '\'':
      fputs("&#39;", out);
      break;
    default:
      putc(*s, out);
    }
  }
}

void web_url(FILE *out, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
        (*p >= '0' && *p <= '9') || strchr("-_.~", *p))
      putc(*p, out);
    else
      fprintf(out, "%%%02X", *p);
  }
}
