/*
 * cron.c: the life cycle of a public chime_cron: compiling an expression
 * (cron_parse.c does the parsing), giving back its text, and freeing it.
 * The search lives in cron_next.c and the English text in cron_describe.c.
 */
#include "triggers/cron.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
