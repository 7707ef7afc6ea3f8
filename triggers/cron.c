/*
 * cron.c: a compiled chime_cron's own: the one format of a parse error
 * (both parsers'), giving back its dialect, zone and text, and freeing it.
 * Compiling lives in cron_compile.c (above the parsers, cron_parse.c and
 * cron_unix.c), the search in cron_next.c and the English text in
 * cron_describe.c.
 */
#include "triggers/cron.h"

#include <stdio.h>
#include <stdlib.h>

/* chime__cron_vfail (cron.h): the one format of a parse error. */
int chime__cron_vfail(int *reterr_column, char *errbuf, size_t errbuf_len,
                      const char *field, size_t col, const char *fmt,
                      va_list ap) {
  if (reterr_column != NULL)
    *reterr_column = (int)col;
  if (errbuf == NULL || errbuf_len == 0)
    return CHIME_EPARSE;
  int n = field != NULL ? snprintf(errbuf, errbuf_len,
                                   "%s field, column %zu: ", field, col)
                        : snprintf(errbuf, errbuf_len, "column %zu: ", col);
  if (n >= 0 && (size_t)n < errbuf_len)
    vsnprintf(errbuf + n, errbuf_len - (size_t)n, fmt, ap);
  return CHIME_EPARSE;
}

/* chime_cron_is_unix (chime.h): the dialect chosen at compile time. */
bool chime_cron_is_unix(const chime_cron *cron) {
  return cron != NULL && cron->unix_dialect;
}

/* chime_cron_get_zone_name (chime.h): the CRON_TZ prefix's zone. */
const char *chime_cron_get_zone_name(const chime_cron *cron) {
  return cron != NULL ? cron->zone : NULL;
}

/* chime_cron_to_string (chime.h): the text kept at compile time. */
const char *chime_cron_to_string(const chime_cron *cron) {
  return cron != NULL ? cron->text : NULL;
}

/* chime_cron_free (chime.h): NULL is allowed. */
void chime_cron_free(chime_cron *cron) {
  if (cron == NULL)
    return;
  free(cron->text);
  free(cron->zone);
  free(cron);
}
