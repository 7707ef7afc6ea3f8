/*
 * partition.c: the partition key a run takes from its data
 * (chime_scheduler_set_partition_limit's field; docs/queue.md, "Limits"),
 * shared by both stores, which call it once as they store a run, so that
 * the key lands in the trigger's partition_key as an explicit one would
 * and the claim counts it the same way.
 *
 * Why a reader of its own: the library reads nothing else of a run's
 * data, and this needs one member of one object: it walks the top level
 * only, skipping the other members' values without building them, and
 * gives up (no key) on anything that is not well-formed JSON as far as it
 * went.  Nothing here allocates but the key.
 */
#include "jobstore/store.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd {
  const char *p, *end;
} rd;

static void ws(rd *r) {
  while (r->p < r->end &&
         (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
    r->p++;
}

/* Reads 4 hex digits at r->p. */
static long hex4(rd *r) {
  char buf[5] = {0};
  if (r->end - r->p < 4)
    return -1;
  for (int i = 0; i < 4; i++)
    if (!isxdigit((unsigned char)(buf[i] = r->p[i])))
      return -1;
  r->p += 4;
  return strtol(buf, NULL, 16);
}

/* Appends code point cp as UTF-8 to out (n bytes used of cap). */
static bool put_utf8(char *out, size_t *n, size_t cap, long cp) {
  char b[4];
  size_t k;
  if (cp < 0x80) {
    b[0] = (char)cp;
    k = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    k = 3;
  } else {
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    k = 4;
  }
  if (*n + k > cap)
    return false;
  memcpy(out + *n, b, k);
  *n += k;
  return true;
}

/* Reads a string at r->p (at its '"'), unescaped into out (up to cap
 * bytes; out NULL: skipped).  *ret_fits false when it was longer. */
static bool string(rd *r, char *out, size_t cap, size_t *ret_len,
                   bool *ret_fits) {
  size_t n = 0;
  bool fits = true;
  if (r->p >= r->end || *r->p != '"')
    return false;
  r->p++;
  while (r->p < r->end && *r->p != '"') {
    long cp = (unsigned char)*r->p++;
    if (cp < 0x20)
      return false;
    if (cp == '\\') {
      if (r->p >= r->end)
        return false;
      char e = *r->p++;
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      const char *at = e ? strchr(from, e) : NULL;
      if (at) {
        cp = (unsigned char)to[at - from];
      } else if (e == 'u') {
        if ((cp = hex4(r)) < 0)
          return false;
        if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
          if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u')
            return false;
          r->p += 2;
          long lo = hex4(r);
          if (lo < 0xDC00 || lo > 0xDFFF)
            return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
      } else {
        return false;
      }
      if (out && fits && !put_utf8(out, &n, cap, cp))
        fits = false;
      continue;
    }
    if (out && fits) {
      if (n < cap)
        out[n++] = (char)cp;
      else
        fits = false;
    }
  }
  if (r->p >= r->end)
    return false;
  r->p++;
  *ret_len = n;
  *ret_fits = fits;
  return true;
}

/* Skips one value of any kind; depth bounds the nesting. */
static bool skip_value(rd *r, int depth) {
  size_t len;
  bool fits;
  ws(r);
  if (r->p >= r->end || depth > 64)
    return false;
  char c = *r->p;
  if (c == '"')
    return string(r, NULL, 0, &len, &fits);
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == close) {
      r->p++;
      return true;
    }
    for (;;) {
      if (c == '{') {
        ws(r);
        if (!string(r, NULL, 0, &len, &fits))
          return false;
        ws(r);
        if (r->p >= r->end || *r->p++ != ':')
          return false;
      }
      if (!skip_value(r, depth + 1))
        return false;
      ws(r);
      if (r->p >= r->end)
        return false;
      if (*r->p == close) {
        r->p++;
        return true;
      }
      if (*r->p++ != ',')
        return false;
    }
  }
  /* A number or a literal: its characters up to a delimiter. */
  const char *start = r->p;
  while (r->p < r->end && !strchr(",}] \t\n\r", *r->p))
    r->p++;
  return r->p > start;
}

/* The text of a number at r->p into out, when it is one. */
static bool number(rd *r, char *out, size_t cap, size_t *ret_len) {
  const char *start = r->p;
  while (r->p < r->end && strchr("+-0123456789.eE", *r->p))
    r->p++;
  size_t n = (size_t)(r->p - start);
  if (n == 0 || n > cap ||
      !(start[0] == '-' || (start[0] >= '0' && start[0] <= '9')))
    return false;
  memcpy(out, start, n);
  *ret_len = n;
  return true;
}

int chime__limit_partition_from_data(chime_trigger *t, const chime_job *job,
                                     const char *field) {
  if (!t || t->partition_key || !field || !field[0])
    return 0;
  const char *data = t->data;
  size_t len = t->data_len;
  if ((!data || len == 0) && job) {
    data = job->data;
    len = job->data_len;
  }
  if (!data || len == 0)
    return 0;
  rd r = {data, data + len};
  char name[CHIME_MAX_NAME_LEN + 1], value[CHIME_MAX_NAME_LEN + 1];
  ws(&r);
  if (r.p >= r.end || *r.p++ != '{')
    return 0;
  size_t flen = strlen(field);
  for (;;) {
    size_t nlen = 0, vlen = 0;
    bool fits = false;
    ws(&r);
    if (!string(&r, name, sizeof name - 1, &nlen, &fits))
      return 0;
    bool match = fits && nlen == flen && memcmp(name, field, flen) == 0;
    ws(&r);
    if (r.p >= r.end || *r.p++ != ':')
      return 0;
    ws(&r);
    if (match) {
      bool ok = r.p < r.end && *r.p == '"'
                    ? string(&r, value, sizeof value - 1, &vlen, &fits) && fits
                    : number(&r, value, sizeof value - 1, &vlen);
      if (!ok || vlen == 0 || memchr(value, '\0', vlen))
        return 0;
      value[vlen] = '\0';
      int rc = chime_trigger_set_partition_key(t, value);
      /* A value that is no valid key (control characters, bad UTF-8):
       * no key, as for a missing member. */
      return rc == CHIME_ENOMEM ? rc : 0;
    }
    if (!skip_value(&r, 0))
      return 0;
    ws(&r);
    if (r.p >= r.end || *r.p == '}' || *r.p++ != ',')
      return 0;
  }
}
