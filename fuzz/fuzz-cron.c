/*
 * fuzz-cron.c: libFuzzer target for the cron parser and search.  Any input
 * is a candidate expression; a valid one is described, printed back, and
 * asked for a few fire times in UTC and in a DST zone, each of which must
 * lie strictly after the instant asked about.
 */
#include "chime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Follows a few fires from a start instant; aborts on a broken invariant. */
static void follow(const chime_cron *cron, const char *zone_name,
                   int64_t after) {
  const chime_zone *zone;
  if (chime_zone_get(zone_name, &zone) != 0)
    return;
  for (int i = 0; i < 4; i++) {
    int64_t next;
    int r = chime_cron_next(cron, zone, after, &next);
    if (r == CHIME_ENEVERFIRES)
      return;
    if (r != 0 || next <= after)
      abort();
    after = next;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 2 * CHIME_CRON_MAX_LEN)
    return 0;
  char *expr = malloc(size + 1);
  if (expr == NULL)
    return 0;
  memcpy(expr, data, size);
  expr[size] = '\0';
  chime_cron *cron = NULL;
  char err[256];
  int col = 0;
  int r = chime_cron_from_string(expr, &cron, &col, err, sizeof err);
  if (r == 0) {
    char *text = NULL;
    if (chime_cron_describe(cron, &text) == 0)
      chime_free(text);
    if (strcmp(chime_cron_to_string(cron), expr) != 0)
      abort();
    follow(cron, "UTC", INT64_C(1767225600123));              /* 2026-01-01 */
    follow(cron, "America/New_York", INT64_C(1793509800000)); /* fall-back */
    follow(cron, "Australia/Lord_Howe", INT64_C(1791041000000));
    chime_cron_free(cron);
  } else if (r == CHIME_EPARSE && (col < 1 || err[0] == '\0')) {
    abort();
  }
  free(expr);
  return 0;
}
