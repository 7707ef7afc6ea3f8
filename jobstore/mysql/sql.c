/*
 * mysql/sql.c: the texts of the MySQL store's statements for one store
 * ({P}, the table prefix, substituted once per store by
 * chime__mysql_sql_init), and the LIKE patterns of group matchers.  The
 * texts themselves are the files jobstore/mysql/queries/NAME.sql, one
 * statement each, embedded at build time (queries/embed.py) as
 * chime__mysql_sql_text[CHIME__Q_NAME].
 */
#include "jobstore/mysql/stmt.h"

#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

char *chime__mysql_subst_prefix(const char *text, const char *prefix) {
  assert(text && prefix);
  size_t plen = strlen(prefix), n = 0;
  for (const char *p = strstr(text, "{P}"); p; p = strstr(p + 3, "{P}"))
    n++;
  char *out = malloc(strlen(text) + n * plen + 1), *o = out;
  if (!out)
    return NULL;
  for (const char *p = text; *p;) {
    if (p[0] == '{' && p[1] == 'P' && p[2] == '}') {
      memcpy(o, prefix, plen);
      o += plen;
      p += 3;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

int chime__mysql_sql_init(chime__mysql_store *s) {
  for (size_t i = 0; i < CHIME__Q_COUNT; i++) {
    assert(chime__mysql_sql_text[i] && "a statement id without its text");
    assert(!s->sql[i]);
    if (!(s->sql[i] =
              chime__mysql_subst_prefix(chime__mysql_sql_text[i], s->prefix)))
      return CHIME_ENOMEM;
  }
  return 0;
}

int chime__mysql_like_pattern(chime_match match, const char *pattern, char *buf,
                              size_t len) {
  assert(buf && len >= 2);
  if (match == CHIME_MATCH_ANY) {
    memcpy(buf, "%", 2);
    return 0;
  }
  if (match != CHIME_MATCH_EQUALS && match != CHIME_MATCH_STARTS_WITH &&
      match != CHIME_MATCH_ENDS_WITH && match != CHIME_MATCH_CONTAINS)
    return CHIME_EINVAL;
  int r = chime__name_check(pattern, "group pattern", NULL, 0);
  if (r < 0)
    return r;
  size_t n = 0;
  if (match == CHIME_MATCH_ENDS_WITH || match == CHIME_MATCH_CONTAINS)
    buf[n++] = '%';
  for (const char *p = pattern; *p; p++) {
    if (n + 4 >= len)
      return CHIME_ELIMIT;
    if (*p == '%' || *p == '_' || *p == '!')
      buf[n++] = '!';
    buf[n++] = *p;
  }
  if (match == CHIME_MATCH_STARTS_WITH || match == CHIME_MATCH_CONTAINS)
    buf[n++] = '%';
  buf[n] = '\0';
  return 0;
}
