/*
 * mysql/log.c: the store's log lines, through the store options' log
 * callback (tx.h).  A file of its own, below the statements and the
 * transactions that both log.
 */
#include "jobstore/mysql/tx.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

void chime__mysql_log(chime__mysql_store *s, chime_log_level level,
                      const char *fmt, ...) {
  assert(s && fmt);
  if (s->log && level <= s->log_level) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->log(s->log_user_data, level, line);
  }
}
