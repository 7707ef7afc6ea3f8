/*
 * chimectl_out.c: chimectl's output: tables of text cells printed with
 * aligned columns or as a JSON array of objects, JSON strings, and times
 * and durations for people (computed with chime's zones: no libc time
 * conversion).
 */
#include "chimectl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctl_table_init(ctl_table *t, const char *const *heads, const bool *numeric,
                    size_t ncols) {
  memset(t, 0, sizeof *t);
  t->heads = heads;
  t->numeric = numeric;
  t->ncols = ncols;
}

int ctl_table_add(ctl_table *t, const char *const *cells) {
  if (t->nrows == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    char **grown = realloc(t->cells, cap * t->ncols * sizeof *grown);
    if (!grown)
      return CHIME_ENOMEM;
    t->cells = grown;
    t->cap = cap;
  }
  char **row = t->cells + t->nrows * t->ncols;
  for (size_t i = 0; i < t->ncols; i++) {
    row[i] = cells[i] ? strdup(cells[i]) : NULL;
    if (cells[i] && !row[i]) {
      while (i-- > 0)
        free(row[i]);
      return CHIME_ENOMEM;
    }
  }
  t->nrows++;
  return 0;
}

void ctl_json_string_to(FILE *out, const char *s) {
  putc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", out);
    else if (*p == '\t')
      fputs("\\t", out);
    else if (*p == '\r')
      fputs("\\r", out);
    else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
      /* < > & escaped too: the text may end up inside an HTML page. */
      fprintf(out, "\\u%04x", *p);
    else
      putc(*p, out);
  }
  putc('"', out);
}

void ctl_json_string(const char *s) {
  ctl_json_string_to(stdout, s);
}

void ctl_table_print_json(const ctl_table *t, FILE *out) {
  fputs("[", out);
  for (size_t r = 0; r < t->nrows; r++) {
    fputs(r ? ",\n {" : "\n {", out);
    for (size_t i = 0; i < t->ncols; i++) {
      const char *v = t->cells[r * t->ncols + i];
      if (i)
        fputs(", ", out);
      ctl_json_string_to(out, t->heads[i]);
      fputs(": ", out);
      if (!v)
        fputs("null", out);
      else if (t->numeric && t->numeric[i])
        fputs(v, out);
      else
        ctl_json_string_to(out, v);
    }
    fputs("}", out);
  }
  fputs(t->nrows ? "\n]\n" : "]\n", out);
}

/* Display width of UTF-8 text: its code points. */
static size_t width(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    w += ((unsigned char)*s & 0xC0) != 0x80;
  return w;
}

void ctl_table_print(const ctl_table *t, bool json) {
  if (json) {
    ctl_table_print_json(t, stdout);
    return;
  }
  size_t w[32] = {0};
  size_t n = t->shown && t->shown < t->ncols ? t->shown : t->ncols;
  n = n < 32 ? n : 32;
  for (size_t i = 0; i < n; i++)
    w[i] = width(t->heads[i]);
  for (size_t r = 0; r < t->nrows; r++)
    for (size_t i = 0; i < n; i++) {
      const char *v = t->cells[r * t->ncols + i];
      size_t vw = width(v ? v : "-");
      if (vw > w[i])
        w[i] = vw;
    }
  for (size_t i = 0; i < n; i++) {
    char head[64];
    snprintf(head, sizeof head, "%s", t->heads[i]);
    for (char *p = head; *p; p++)
      if (*p >= 'a' && *p <= 'z')
        *p = (char)(*p - 'a' + 'A');
    if (i + 1 < n)
      printf("%-*s  ", (int)w[i], head);
    else
      printf("%s\n", head);
  }
  for (size_t r = 0; r < t->nrows; r++)
    for (size_t i = 0; i < n; i++) {
      const char *v = t->cells[r * t->ncols + i];
      v = v ? v : "-";
      /* Keep one row per line: control characters print as spaces. */
      for (const char *p = v; *p; p++)
        putchar((unsigned char)*p < 0x20 ? ' ' : *p);
      if (i + 1 < n)
        printf("%*s", (int)(w[i] - width(v) + 2), "");
      else
        putchar('\n');
    }
  if (t->nrows == 0)
    puts("(none)");
}

void ctl_table_free(ctl_table *t) {
  for (size_t i = 0; i < t->nrows * t->ncols; i++)
    free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}

void ctl_lower(const char *s, char *buf, size_t len) {
  snprintf(buf, len, "%s", s ? s : "?");
  for (char *p = buf; *p; p++)
    if (*p >= 'A' && *p <= 'Z')
      *p = (char)(*p - 'A' + 'a');
}

int ctl_table_end(const ctl *c, ctl_table *t, int r) {
  if (r == 0)
    ctl_table_print(t, c->json);
  ctl_table_free(t);
  return r;
}

void ctl_format_time(int64_t t_ms, const char *zone, char *buf, size_t len) {
  if (t_ms == CHIME_NO_FIRE_MS || t_ms == INT64_MAX) {
    snprintf(buf, len, "-");
    return;
  }
  if (chime_zone_format_time(zone, t_ms, 0, buf, len) != 0)
    (void)chime_zone_format_time(NULL, t_ms, 0, buf, len); /* then in UTC */
}

void ctl_format_age(int64_t ms, char *buf, size_t len) {
  const char *sign = ms < 0 ? "-" : "";
  if (ms < 0)
    ms = -ms;
  int64_t s = ms / 1000;
  if (ms < 60000)
    snprintf(buf, len, "%s%" PRId64 ".%01" PRId64 "s", sign, s,
             ms % 1000 / 100);
  else if (s < 3600)
    snprintf(buf, len, "%s%" PRId64 "m%02" PRId64 "s", sign, s / 60, s % 60);
  else if (s < 86400)
    snprintf(buf, len, "%s%" PRId64 "h%02" PRId64 "m", sign, s / 3600,
             s % 3600 / 60);
  else
    snprintf(buf, len, "%s%" PRId64 "d%02" PRId64 "h", sign, s / 86400,
             s % 86400 / 3600);
}

int ctl_parse_time(const char *text, int64_t now_ms, int64_t *ret_ms) {
  char *end;
  if (text[0] == '-' && text[1]) {
    long long n = strtoll(text + 1, &end, 10);
    int64_t unit = 0;
    if (end != text + 1 && n >= 0 && end[0] && !end[1]) {
      unit = end[0] == 's'   ? 1000
             : end[0] == 'm' ? 60000
             : end[0] == 'h' ? 3600000
             : end[0] == 'd' ? 86400000
                             : 0;
    }
    if (!unit || n > INT64_C(1000000000))
      return CHIME_EINVAL;
    *ret_ms = now_ms - (int64_t)n * unit;
    return 0;
  }
  long long v = strtoll(text, &end, 10);
  if (end != text && !*end) {
    *ret_ms = v;
    return 0;
  }
  return chime_zone_parse_time(NULL, text, ret_ms) == 0 ? 0 : CHIME_EINVAL;
}
