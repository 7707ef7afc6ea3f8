/*
 * utf8.c: text made fit for the database (utf8.h).  A character is one
 * well-formed UTF-8 sequence as RFC 3629 (and MariaDB's utf8mb4) defines
 * it; any other byte is replaced by U+FFFD, and a cut falls between two
 * characters, never inside one.
 */
#include "core/utf8.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

size_t chime__utf8_char_len(const unsigned char *s, size_t n) {
  if (n == 0)
    return 0;
  unsigned c = s[0];
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0; /* no overlong form */
    else if (c == 0xED)
      hi = 0x9F; /* no surrogate */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F; /* nothing above U+10FFFF */
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < len; i++)
    if (s[i] < 0x80 || s[i] > 0xBF)
      return 0;
  return len;
}

bool chime__utf8_valid(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    size_t l = chime__utf8_char_len(p + i, n - i);
    if (l == 0 || p[i] == 0)
      return false;
    i += l;
  }
  return true;
}

char *chime__utf8_sanitize(const char *s, size_t max_bytes) {
  if (!s)
    return NULL;
  size_t n = strlen(s);
  /* Each byte grows to at most three (one invalid byte: U+FFFD). */
  size_t cap = (n < max_bytes / 3 + 1 ? 3 * n : max_bytes) + 1;
  char *out = malloc(cap);
  if (!out)
    return NULL;
  const unsigned char *p = (const unsigned char *)s;
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    size_t l = chime__utf8_char_len(p + i, n - i);
    const char *from = l ? s + i : replacement;
    size_t w = l ? l : sizeof replacement - 1;
    if (k + w > max_bytes)
      break;
    memcpy(out + k, from, w);
    k += w;
    i += l ? l : 1;
  }
  assert(k < cap && k <= max_bytes);
  out[k] = '\0';
  return out;
}
