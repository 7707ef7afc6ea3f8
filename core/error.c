/*
 * error.c: the error model (codes, names, sentences), the version, and the
 * one deallocator for memory the library hands to callers.
 */
#include "chime-config.h"
#include "chime.h"

#include <stdlib.h>

const char *chime_version(void) {
  return CHIME_VERSION_STRING;
}

unsigned chime_version_hex(void) {
  return CHIME_VERSION_HEX;
}

const char *chime_strerror(int code) {
  switch (code) {
#define CHIME_XX_TEXT(name, value, text)                                       \
  case value:                                                                  \
    return text;
    CHIME_ERRNO_MAP(CHIME_XX_TEXT)
#undef CHIME_XX_TEXT
  case 0:
    return "success";
  default:
    return "unknown error";
  }
}

const char *chime_err_name(int code) {
  switch (code) {
#define CHIME_XX_NAME(name, value, text)                                       \
  case value:                                                                  \
    return "CHIME_" #name;
    CHIME_ERRNO_MAP(CHIME_XX_NAME)
#undef CHIME_XX_NAME
  case 0:
    return "CHIME_OK";
  default:
    return "CHIME_UNKNOWN";
  }
}

void chime_free(void *ptr) {
  free(ptr);
}
