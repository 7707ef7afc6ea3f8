/*
 * jitter.c: the deterministic jitter of a trigger
 * (chime_key_get_jitter_offset_ms): an offset in [0, J) derived from the
 * trigger's key alone, so every node and every restart moves the trigger's
 * fires by the same amount (as systemd's FixedRandomDelay does) while a
 * thousand triggers with the same schedule spread over the window.  The hash is
 * FNV-1a 64 over the group's bytes, one 0x00 byte and the name's bytes; the
 * offset is the hash modulo J.  docs/recurrence.md states it so other tools can
 * reproduce it.
 */
#include "chime.h"

#define FNV_OFFSET UINT64_C(14695981039346656037)
#define FNV_PRIME UINT64_C(1099511628211)

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (; *s != '\0'; s++) {
    h ^= (unsigned char)*s;
    h *= FNV_PRIME;
  }
  return h;
}

/* chime_key_get_jitter_offset_ms (chime.h). */
int64_t chime_key_get_jitter_offset_ms(const char *group, const char *name,
                                       int64_t jitter_ms) {
  if (group == NULL || name == NULL || jitter_ms <= 0)
    return 0;
  uint64_t h = fnv1a(FNV_OFFSET, group);
  h *= FNV_PRIME; /* the 0x00 separator: XOR with 0 is a no-op */
  h = fnv1a(h, name);
  return (int64_t)(h % (uint64_t)jitter_ms);
}
