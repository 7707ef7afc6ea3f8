/*
 * cron.c: the life cycle of a public chime_cron: compiling an expression
 * (cron_parse.c does the parsing), giving back its text, and freeing it.
 * The search lives in cron_next.c and the English text in cron_describe.c.
 */
#include "triggers/cron.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* chime_cron_from_string (chime.h): checks the length, parses, copies. */
int chime_cron_from_string(const char *expr, chime_cron **ret_cron,
                           int *reterr_column, char *errbuf,
                           size_t errbuf_len) {
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
  int r = chime__cron_parse(expr, &parsed, reterr_column, errbuf, errbuf_len);
  if (r < 0)
    return r;
  chime_cron *cron = malloc(sizeof *cron);
  char *text = malloc(len + 1);
  if (cron == NULL || text == NULL) {
    free(cron);
    free(text);
    return CHIME_ENOMEM;
  }
  memcpy(text, expr, len + 1);
  *cron = parsed;
  cron->text = text;
  *ret_cron = cron;
  return 0;
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
  free(cron);
}
