/*
 * cron_compile.c: compiling a public chime_cron: the length checked, the
 * dialect chosen (Quartz's, or Unix's for a CRON_TZ= or TZ= prefix or when
 * asked), the expression parsed (cron_parse.c, cron_unix.c), its text and
 * zone name kept.  Above the parsers, so that they and cron.c, whose
 * header both use, never call each other.
 */
#include "triggers/cron.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when expr starts (after blanks) with a CRON_TZ= or TZ= prefix. */
static bool has_zone_prefix(const char *expr) {
  while (*expr == ' ' || *expr == '\t')
    expr++;
  return strncmp(expr, "CRON_TZ=", 8) == 0 || strncmp(expr, "TZ=", 3) == 0;
}

/*
 * Checks the length, parses in the dialect asked for, copies the text and
 * the CRON_TZ zone name.
 */
static int compile(const char *expr, bool unix_dialect, chime_cron **ret_cron,
                   int *reterr_column, char *errbuf, size_t errbuf_len) {
  if (errbuf != NULL && errbuf_len > 0)
    errbuf[0] = '\0';
  if (expr == NULL || ret_cron == NULL)
    return CHIME_EINVAL;
  size_t len = strnlen(expr, CHIME_CRON_MAX_LEN + 1);
  if (len > CHIME_CRON_MAX_LEN) {
    if (reterr_column != NULL)
      *reterr_column = CHIME_CRON_MAX_LEN + 1;
    if (errbuf != NULL && errbuf_len > 0)
      snprintf(errbuf, errbuf_len,
               "expression, column %d: longer than %d bytes",
               CHIME_CRON_MAX_LEN + 1, CHIME_CRON_MAX_LEN);
    return CHIME_ELIMIT;
  }
  chime_cron parsed;
  size_t zone_at = 0, zone_len = 0;
  int r =
      unix_dialect
          ? chime__cron_parse_unix(expr, &parsed, &zone_at, &zone_len,
                                   reterr_column, errbuf, errbuf_len)
          : chime__cron_parse(expr, &parsed, reterr_column, errbuf, errbuf_len);
  if (r < 0)
    return r;
  chime_cron *cron = malloc(sizeof *cron);
  char *text = malloc(len + 1);
  char *zone = zone_len > 0 ? strndup(expr + zone_at, zone_len) : NULL;
  if (cron == NULL || text == NULL || (zone_len > 0 && zone == NULL)) {
    free(cron);
    free(text);
    free(zone);
    return CHIME_ENOMEM;
  }
  memcpy(text, expr, len + 1);
  *cron = parsed;
  cron->text = text;
  cron->zone = zone;
  *ret_cron = cron;
  return 0;
}

/*
 * chime_cron_from_string (chime.h): Quartz's dialect, or Unix's when the
 * text says so with a CRON_TZ= or TZ= prefix.
 */
int chime_cron_from_string(const char *expr, chime_cron **ret_cron,
                           int *reterr_column, char *errbuf,
                           size_t errbuf_len) {
  bool unix_dialect = expr != NULL && has_zone_prefix(expr);
  return compile(expr, unix_dialect, ret_cron, reterr_column, errbuf,
                 errbuf_len);
}

/* chime_cron_from_unix (chime.h): always the Unix dialect. */
int chime_cron_from_unix(const char *expr, chime_cron **ret_cron,
                         int *reterr_column, char *errbuf, size_t errbuf_len) {
  return compile(expr, true, ret_cron, reterr_column, errbuf, errbuf_len);
}
