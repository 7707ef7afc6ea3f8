/*
 * instance_id.c: a node's automatic instance id, the host name plus 64
 * random bits (core/random.h) ("web-3-9f2c41d07be85a13"), so two processes on
 * one host, or one host restarted, never share an id.
 */
#include "core/random.h"
#include "engine/engine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Room for the host name: the id's limit less "-" and 16 hex digits. */
#define HOST_MAX (CHIME_MAX_NAME_LEN - 17)

int chime__instance_id_generate(char **ret_id) {
  char host[256];
  if (gethostname(host, sizeof host) != 0 || host[0] == '\0')
    snprintf(host, sizeof host, "%s", "localhost");
  host[sizeof host - 1] = '\0';
  /* Cut on a byte boundary that keeps UTF-8 whole, and keep the id free of
   * control characters and spaces (the store checks names). */
  size_t n = strlen(host);
  if (n > HOST_MAX) {
    n = HOST_MAX;
    while (n > 0 && ((unsigned char)host[n] & 0xC0) == 0x80)
      n--;
    host[n] = '\0';
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)host[i];
    if (c < 0x20 || c == 0x7F || c == ' ')
      host[i] = '_';
  }
  uint64_t bits;
  int r = chime__random_u64(&bits);
  if (r < 0)
    return r;
  size_t len = n + 1 + 16 + 1;
  char *id = malloc(len);
  if (!id)
    return CHIME_ENOMEM;
  int w = snprintf(id, len, "%s-%016llx", host, (unsigned long long)bits);
  assert(w > 0 && (size_t)w == len - 1 && (size_t)w <= CHIME_MAX_NAME_LEN);
  (void)w;
  *ret_id = id;
  return 0;
}
