/*
 * errbuf.h: the one way a check writes its message: into a caller's
 * buffer (char *errbuf, size_t errbuf_len, either may be NULL/0), returning
 * the error code, so a check reads `return chime__errf(errbuf, len,
 * CHIME_EINVAL, "end time is before start time");`.
 */
#ifndef CHIME_CORE_ERRBUF_H
#define CHIME_CORE_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/*
 * chime__errf: formats a message into errbuf when errbuf is not NULL and
 * errbuf_len > 0 (always NUL-terminated, cut short when long).
 * Returns: code.  Thread: any.
 */
static inline int chime__errf(char *errbuf, size_t errbuf_len, int code,
                              const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int chime__errf(char *errbuf, size_t errbuf_len, int code,
                              const char *fmt, ...) {
  if (errbuf != NULL && errbuf_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, errbuf_len, fmt, ap);
    va_end(ap);
  }
  return code;
}

#endif /* CHIME_CORE_ERRBUF_H */
