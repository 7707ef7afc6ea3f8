/*
 * random.h: random bits from OpenSSL's generator, for names no other node
 * can pick (instance ids, one-off trigger names).
 */
#ifndef CHIME_CORE_RANDOM_H
#define CHIME_CORE_RANDOM_H

#include <stdint.h>

/* 64 random bits into *ret.  Returns: 0; CHIME_EIO (no randomness).
 * Thread: any. */
int chime__random_u64(uint64_t *ret);

#endif /* CHIME_CORE_RANDOM_H */
