/*
 * random.c: random bits from OpenSSL (random.h).
 */
#include "core/random.h"

#include "chime.h"

#include <openssl/rand.h>

int chime__random_u64(uint64_t *ret) {
  unsigned char b[8];
  if (RAND_bytes(b, (int)sizeof b) != 1)
    return CHIME_EIO;
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof b; i++)
    v = (v << 8) | b[i];
  *ret = v;
  return 0;
}
