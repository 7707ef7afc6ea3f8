/*
 * chimectl_json.c: checks that `chimectl fire --data` is one JSON value
 * (RFC 8259 syntax, nesting bounded), so that a typo is refused before a
 * job receives it.  Nothing is built: the text is stored as given.
 */
#include "chimectl.h"

#include <string.h>

#define MAX_DEPTH 64

static const char *value(const char *p, int depth);

static const char *ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

static bool is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}

static const char *string(const char *p) {
  for (p++; *p && *p != '"'; p++) {
    if ((unsigned char)*p < 0x20)
      return NULL;
    if (*p != '\\')
      continue;
    p++;
    if (*p == 'u') {
      for (int i = 1; i <= 4; i++) {
        char h = p[i];
        if (!is_digit(h) && !(h >= 'a' && h <= 'f') && !(h >= 'A' && h <= 'F'))
          return NULL;
      }
      p += 4;
    } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
      return NULL;
    }
  }
  return *p == '"' ? p + 1 : NULL;
}

static const char *number(const char *p) {
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (is_digit(*p))
    while (is_digit(*p))
      p++;
  else
    return NULL;
  if (*p == '.') {
    if (!is_digit(*++p))
      return NULL;
    while (is_digit(*p))
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!is_digit(*p))
      return NULL;
    while (is_digit(*p))
      p++;
  }
  return p;
}

/* The elements of an array or members of an object, after the opening. */
static const char *items(const char *p, char close, int depth) {
  p = ws(p);
  if (*p == close)
    return p + 1;
  for (;;) {
    if (close == '}') {
      if (*p != '"' || !(p = string(p)))
        return NULL;
      p = ws(p);
      if (*p++ != ':')
        return NULL;
    }
    if (!(p = value(p, depth + 1)))
      return NULL;
    if (*p == close)
      return p + 1;
    if (*p != ',')
      return NULL;
    p = ws(p + 1);
  }
}

/* One value with the white space around it; NULL when malformed. */
static const char *value(const char *p, int depth) {
  if (depth > MAX_DEPTH)
    return NULL;
  p = ws(p);
  if (*p == '{' || *p == '[')
    p = items(p + 1, *p == '{' ? '}' : ']', depth);
  else if (*p == '"')
    p = string(p);
  else if (strncmp(p, "true", 4) == 0)
    p += 4;
  else if (strncmp(p, "false", 5) == 0)
    p += 5;
  else if (strncmp(p, "null", 4) == 0)
    p += 4;
  else
    p = number(p);
  return p ? ws(p) : NULL;
}

bool ctl_json_is_valid(const char *text) {
  const char *end = value(text, 0);
  return end && *end == '\0';
}
