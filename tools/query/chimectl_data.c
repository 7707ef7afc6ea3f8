/*
 * chimectl_data.c: how chimectl and chime-web show a run's own data (the
 * history's data column, migration 015: the bytes its trigger gave the
 * job).  Data is any bytes: shown as it is when it is text (UTF-8 without
 * NUL or control characters but tab and line ends), otherwise as
 * lowercase hex, and always with its length, so nothing an operator sees
 * is garbled or cut, and a page escapes only text.
 */
#include "chimectl.h"

#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at p (n bytes left) when it is one
 * well-formed character (no overlong form, no surrogate, at most
 * U+10FFFF), else 0. */
static size_t utf8_char(const unsigned char *p, size_t n) {
  static const struct {
    unsigned char mask, lead;
    size_t len;
    unsigned long min;
  } forms[] = {
      {0xe0, 0xc0, 2, 0x80}, {0xf0, 0xe0, 3, 0x800}, {0xf8, 0xf0, 4, 0x10000}};
  if (p[0] < 0x80)
    return 1;
  for (size_t f = 0; f < 3; f++) {
    if ((p[0] & forms[f].mask) != forms[f].lead)
      continue;
    size_t len = forms[f].len;
    if (len > n)
      return 0;
    unsigned long cp = p[0] & (0x7fu >> len);
    for (size_t k = 1; k < len; k++) {
      if ((p[k] & 0xc0) != 0x80)
        return 0;
      cp = cp << 6 | (p[k] & 0x3fu);
    }
    bool ok =
        cp >= forms[f].min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    return ok ? len : 0;
  }
  return 0;
}

bool ctl_data_is_text(const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len;) {
    if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') ||
        p[i] == 0x7f)
      return false;
    size_t k = utf8_char(p + i, len - i);
    if (!k)
      return false;
    i += k;
  }
  return true;
}

int ctl_data_show(const void *data, size_t len, char **ret_text,
                  const char **ret_encoding) {
  static const char hex[] = "0123456789abcdef";
  *ret_text = NULL;
  *ret_encoding = NULL;
  if (!data || len == 0)
    return 0;
  bool text = ctl_data_is_text(data, len);
  char *out = malloc(text ? len + 1 : 2 * len + 1);
  if (!out)
    return ctl_fail(CHIME_ENOMEM, "out of memory");
  const unsigned char *p = data;
  if (text) {
    memcpy(out, p, len);
    out[len] = '\0';
  } else {
    for (size_t i = 0; i < len; i++) {
      out[2 * i] = hex[p[i] >> 4];
      out[2 * i + 1] = hex[p[i] & 15];
    }
    out[2 * len] = '\0';
  }
  *ret_text = out;
  *ret_encoding = text ? "text" : "hex";
  return 0;
}
