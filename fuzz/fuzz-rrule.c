/*
 * fuzz-rrule.c: libFuzzer target for RFC 5545 recurrences (chime's own
 * expansion, triggers/rrule*.c).  Any input is a candidate recurrence; a
 * valid one is asked for a few instances from before DTSTART and from far
 * ahead, each of which must lie strictly after the instant asked about (a
 * rule that never matches must answer CHIME_ENEVERFIRES, not hang: the
 * fuzzer's timeout catches a hang).
 */
#include "chime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Follows a few instances; aborts on a broken invariant. */
static void follow(const chime_rrule *rule, int64_t after) {
  for (int i = 0; i < 4; i++) {
    int64_t next;
    int r = chime_rrule_next(rule, after, &next);
    if (r == CHIME_ENEVERFIRES)
      return;
    if (r != 0 || next <= after)
      abort();
    after = next;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > CHIME_RRULE_MAX_LEN)
    return 0;
  char *text = malloc(size + 1);
  if (text == NULL)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  chime_rrule *rule = NULL;
  char err[256];
  int r = chime_rrule_from_string(text, &rule, err, sizeof err);
  if (r == 0) {
    if (strcmp(chime_rrule_to_string(rule), text) != 0)
      abort();
    follow(rule, INT64_C(-62135596800000)); /* year 1 */
    follow(rule, INT64_C(1767225600123));   /* 2026-01-01 */
    follow(rule, INT64_C(32503680000000));  /* 3000-01-01 */
    chime_rrule_free(rule);
  } else if (r == CHIME_EPARSE && err[0] == '\0') {
    abort();
  }
  free(text);
  return 0;
}
