/*
 * calendar_api.c: the public calendar functions of chime.h, thin wrappers
 * over triggers/calendar.h (the public chime_calendar is the internal one).
 */
#include "chime.h"
#include "triggers/calendar.h"

#include <stdio.h>

int chime_calendar_from_string(const char *text, chime_calendar **ret_calendar,
                               char *errbuf, size_t errbuf_len) {
  if (errbuf && errbuf_len > 0)
    errbuf[0] = '\0';
  if (!text || !ret_calendar) {
    if (errbuf && errbuf_len > 0)
      snprintf(errbuf, errbuf_len, "%s", "NULL argument");
    return CHIME_EINVAL;
  }
  return chime__calendar_from_string(text, ret_calendar, errbuf, errbuf_len);
}

int chime_calendar_to_string(const chime_calendar *calendar, char **ret_text) {
  if (!calendar || !ret_text)
    return CHIME_EINVAL;
  return chime__calendar_to_string(calendar, ret_text);
}

bool chime_calendar_is_included(const chime_calendar *calendar, int64_t t_ms) {
  return chime__calendar_includes(calendar, t_ms);
}

void chime_calendar_free(chime_calendar *calendar) {
  chime__calendar_unref(calendar);
}
