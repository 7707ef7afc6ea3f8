/*
 * records.c: job and trigger definitions: the public builders and getters
 * of chime_job and chime_trigger, deep copies for the stores, key checks
 * and group matching.
 */
#include "core/utf8.h"
#include "model/records.h"

#include "triggers/cron.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Quartz's default priority. */
#define DEFAULT_PRIORITY 5

int chime__record_err(char *errbuf, size_t errbuf_len, int code,
                      const char *fmt, ...) {
  if (errbuf && errbuf_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, errbuf_len, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* Length of the UTF-8 sequence at s, or 0 when it is not valid UTF-8. */
static size_t utf8_sequence(const unsigned char *s) {
  if (s[0] < 0x80)
    return 1;
  size_t n = (s[0] & 0xE0) == 0xC0   ? 2
             : (s[0] & 0xF0) == 0xE0 ? 3
             : (s[0] & 0xF8) == 0xF0 ? 4
                                     : 0;
  if (n == 0 || (n == 2 && s[0] < 0xC2) || (n == 4 && s[0] > 0xF4))
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  /* Overlong three- and four-byte forms, surrogates, past U+10FFFF. */
  if (n == 3 &&
      ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
    return 0;
  if (n == 4 &&
      ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
    return 0;
  return n;
}

int chime__name_check(const char *value, const char *what, char *errbuf,
                      size_t errbuf_len) {
  if (!value)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL, "%s is missing",
                             what);
  size_t len = strlen(value);
  if (len == 0)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL, "%s is empty",
                             what);
  if (len > CHIME_MAX_NAME_LEN)
    return chime__record_err(errbuf, errbuf_len, CHIME_ELIMIT,
                             "%s is %zu bytes long; at most %d are allowed",
                             what, len, CHIME_MAX_NAME_LEN);
  const unsigned char *s = (const unsigned char *)value;
  for (size_t i = 0; i < len;) {
    if (s[i] < 0x20 || s[i] == 0x7F)
      return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                               "%s has a control character at byte %zu", what,
                               i + 1);
    size_t n = utf8_sequence(s + i);
    if (n == 0)
      return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                               "%s is not valid UTF-8 at byte %zu", what,
                               i + 1);
    /* The C1 controls U+0080..U+009F (U+0085 is NEXT LINE): C2 80..9F. */
    if (n == 2 && s[i] == 0xC2 && s[i + 1] <= 0x9F)
      return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                               "%s has a control character at byte %zu", what,
                               i + 1);
    i += n;
  }
  return 0;
}

int chime__key_check(const char *group, const char *name) {
  int r = chime__name_check(group, "group", NULL, 0);
  return r < 0 ? r : chime__name_check(name, "name", NULL, 0);
}

int chime__job_check(const chime_job *job) {
  int r;
  if (!job)
    return CHIME_EINVAL;
  if ((r = chime__key_check(job->group, job->name)) < 0 ||
      (r = chime__name_check(job->type, "job type", NULL, 0)) < 0)
    return r;
  if (!chime__concurrency_valid(job->concurrency))
    return CHIME_EINVAL;
  if (job->data_len > CHIME_MAX_DATA_LEN)
    return CHIME_ELIMIT;
  if (job->timeout_ms < 0 || job->timeout_ms > CHIME_MAX_TIMEOUT_MS ||
      job->starting_deadline_ms < 0 ||
      job->starting_deadline_ms > CHIME_MAX_TIMEOUT_MS || job->queue_cap < 0 ||
      job->queue_cap > CHIME_MAX_QUEUE_CAP ||
      (unsigned)job->history_level > CHIME_HISTORY_NONE)
    return CHIME_EINVAL;
  return chime__job_retry_check(job);
}

/* Replaces *slot with a copy of [data, data + len). */
int chime__set_bytes(void **slot, size_t *slot_len, const void *data,
                     size_t len) {
  void *copy = NULL;
  if (len > CHIME_MAX_DATA_LEN)
    return CHIME_ELIMIT;
  if (len > 0) {
    if (!data)
      return CHIME_EINVAL;
    copy = malloc(len);
    if (!copy)
      return CHIME_ENOMEM;
    memcpy(copy, data, len);
  }
  free(*slot);
  *slot = copy;
  *slot_len = len;
  return 0;
}

/* Replaces *slot with a copy of text (NULL clears it). */
int chime__set_text(char **slot, const char *text, size_t max) {
  char *copy = NULL;
  if (text) {
    if (strlen(text) > max)
      return CHIME_ELIMIT;
    copy = strdup(text);
    if (!copy)
      return CHIME_ENOMEM;
  }
  free(*slot);
  *slot = copy;
  return 0;
}

char *chime__dup_text(const char *s, bool *ok) {
  if (!s)
    return NULL;
  char *d = strdup(s);
  if (!d)
    *ok = false;
  return d;
}

void *chime__dup_bytes(const void *data, size_t len, bool *ok) {
  if (len == 0)
    return NULL;
  void *d = malloc(len);
  if (!d) {
    *ok = false;
    return NULL;
  }
  memcpy(d, data, len);
  return d;
}

/* ------------------------------------------------------------------ jobs */

int chime_job_new(const char *group, const char *name, const char *type,
                  chime_job **ret_job, char *errbuf, size_t errbuf_len) {
  int r;
  if (errbuf && errbuf_len > 0)
    errbuf[0] = '\0';
  if (!ret_job)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "no place to return the job");
  if ((r = chime__name_check(group, "job group", errbuf, errbuf_len)) < 0 ||
      (r = chime__name_check(name, "job name", errbuf, errbuf_len)) < 0 ||
      (r = chime__name_check(type, "job type", errbuf, errbuf_len)) < 0)
    return r;
  chime_job *job = calloc(1, sizeof *job);
  if (!job)
    return chime__record_err(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  job->group = strdup(group);
  job->name = strdup(name);
  job->type = strdup(type);
  job->concurrency = CHIME_CONCURRENCY_ALLOW;
  chime__retry_defaults(&job->retry);
  if (!job->group || !job->name || !job->type) {
    chime_job_free(job);
    return chime__record_err(errbuf, errbuf_len, CHIME_ENOMEM, "out of memory");
  }
  *ret_job = job;
  return 0;
}

void chime_job_free(chime_job *job) {
  if (!job)
    return;
  free(job->group);
  free(job->name);
  free(job->type);
  free(job->description);
  free(job->data);
  free(job->shard_params);
  free(job->required_tags);
  free(job->then_group);
  free(job->then_name);
  free(job);
}

chime_job *chime__job_copy(const chime_job *job) {
  /* Only a job that passed chime_job_new is ever copied. */
  assert(job && job->group && job->name && job->type);
  assert(job->data_len == 0 || job->data);
  bool ok = true;
  chime_job *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  *c = *job;
  c->group = chime__dup_text(job->group, &ok);
  c->name = chime__dup_text(job->name, &ok);
  c->type = chime__dup_text(job->type, &ok);
  c->description = chime__dup_text(job->description, &ok);
  c->data = chime__dup_bytes(job->data, job->data_len, &ok);
  c->shard_params = chime__dup_text(job->shard_params, &ok);
  c->required_tags = chime__dup_text(job->required_tags, &ok);
  c->then_group = chime__dup_text(job->then_group, &ok);
  c->then_name = chime__dup_text(job->then_name, &ok);
  if (!ok) {
    chime_job_free(c);
    return NULL;
  }
  return c;
}

int chime_job_set_description(chime_job *job, const char *text) {
  /* Stored as utf8mb4 text: other bytes would fail only at the store. */
  if (!job || (text && !chime__utf8_valid(text, strlen(text))))
    return CHIME_EINVAL;
  return chime__set_text(&job->description, text, CHIME_MAX_DESCRIPTION_LEN);
}

int chime_job_set_data(chime_job *job, const void *data, size_t len) {
  return job ? chime__set_bytes(&job->data, &job->data_len, data, len)
             : CHIME_EINVAL;
}

int chime_job_set_durable(chime_job *job, bool durable) {
  if (!job)
    return CHIME_EINVAL;
  job->durable = durable;
  return 0;
}

int chime_job_set_requests_recovery(chime_job *job, bool yes) {
  if (!job)
    return CHIME_EINVAL;
  job->requests_recovery = yes;
  return 0;
}

int chime_job_set_concurrency(chime_job *job, chime_concurrency concurrency) {
  if (!job || !chime__concurrency_valid(concurrency))
    return CHIME_EINVAL;
  job->concurrency = concurrency;
  return 0;
}

int chime_job_set_persist_data(chime_job *job, bool yes) {
  if (!job)
    return CHIME_EINVAL;
  job->persist_data = yes;
  return 0;
}

int chime_job_set_timeout_ms(chime_job *job, int64_t ms) {
  if (!job || ms < 0 || ms > CHIME_MAX_TIMEOUT_MS)
    return CHIME_EINVAL;
  job->timeout_ms = ms;
  return 0;
}

int64_t chime_job_get_timeout_ms(const chime_job *job) {
  return job ? job->timeout_ms : 0;
}

int chime_job_set_starting_deadline_ms(chime_job *job, int64_t ms) {
  if (!job || ms < 0 || ms > CHIME_MAX_TIMEOUT_MS)
    return CHIME_EINVAL;
  job->starting_deadline_ms = ms;
  return 0;
}

int64_t chime_job_get_starting_deadline_ms(const chime_job *job) {
  return job ? job->starting_deadline_ms : 0;
}

int chime_job_set_history_level(chime_job *job, chime_history_level level) {
  if (!job || (level != CHIME_HISTORY_ALL && level != CHIME_HISTORY_FAILURES &&
               level != CHIME_HISTORY_NONE))
    return CHIME_EINVAL;
  job->history_level = level;
  return 0;
}

chime_history_level chime_job_get_history_level(const chime_job *job) {
  return job ? job->history_level : CHIME_HISTORY_ALL;
}

bool chime__history_wanted(const chime_job *job, bool ok) {
  chime_history_level level = job ? job->history_level : CHIME_HISTORY_ALL;
  return level == CHIME_HISTORY_ALL || (level == CHIME_HISTORY_FAILURES && !ok);
}

int chime_job_set_queue_cap(chime_job *job, int64_t cap) {
  if (!job || cap < 0 || cap > CHIME_MAX_QUEUE_CAP)
    return CHIME_EINVAL;
  job->queue_cap = cap;
  return 0;
}

int64_t chime_job_get_queue_cap(const chime_job *job) {
  return job ? job->queue_cap : 0;
}

const char *chime_job_get_group(const chime_job *job) {
  return job ? job->group : NULL;
}
const char *chime_job_get_name(const chime_job *job) {
  return job ? job->name : NULL;
}
const char *chime_job_get_type(const chime_job *job) {
  return job ? job->type : NULL;
}
const char *chime_job_get_description(const chime_job *job) {
  return job ? job->description : NULL;
}

const void *chime_job_get_data(const chime_job *job, size_t *ret_len) {
  if (ret_len)
    *ret_len = job ? job->data_len : 0;
  return job ? job->data : NULL;
}

bool chime_job_get_durable(const chime_job *job) {
  return job && job->durable;
}
bool chime_job_get_requests_recovery(const chime_job *job) {
  return job && job->requests_recovery;
}
chime_concurrency chime_job_get_concurrency(const chime_job *job) {
  return job ? job->concurrency : CHIME_CONCURRENCY_ALLOW;
}
bool chime_job_get_persist_data(const chime_job *job) {
  return job && job->persist_data;
}

/* ------------------------------------------------------------ keys, states */

bool chime__group_matches(chime_match match, const char *pattern,
                          const char *group) {
  size_t plen = pattern ? strlen(pattern) : 0, glen = strlen(group);
  switch (match) {
  case CHIME_MATCH_ANY:
    return true;
  case CHIME_MATCH_EQUALS:
    return pattern && strcmp(pattern, group) == 0;
  case CHIME_MATCH_STARTS_WITH:
    return pattern && glen >= plen && memcmp(group, pattern, plen) == 0;
  case CHIME_MATCH_ENDS_WITH:
    return pattern && glen >= plen &&
           memcmp(group + glen - plen, pattern, plen) == 0;
  case CHIME_MATCH_CONTAINS:
    return pattern && strstr(group, pattern) != NULL;
  }
  return false;
}

int chime__key_compare(const void *a, const void *b) {
  const chime_key *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  return c ? c : strcmp(x->name, y->name);
}

void chime_key_free_array(chime_key *keys, size_t count) {
  if (!keys)
    return;
  for (size_t i = 0; i < count; i++) {
    free(keys[i].group);
    free(keys[i].name);
  }
  free(keys);
}

chime_trigger_status chime__store_state_status(chime_store_state state) {
  switch (state) {
  case CHIME_STATE_WAITING:
  case CHIME_STATE_ACQUIRED:
  case CHIME_STATE_EXECUTING:
    return CHIME_TRIGGER_NORMAL;
  case CHIME_STATE_BLOCKED:
    return CHIME_TRIGGER_BLOCKED;
  case CHIME_STATE_PAUSED:
  case CHIME_STATE_PAUSED_BLOCKED:
    return CHIME_TRIGGER_PAUSED;
  case CHIME_STATE_COMPLETE:
    return CHIME_TRIGGER_COMPLETE;
  case CHIME_STATE_ERROR:
    return CHIME_TRIGGER_ERROR;
  }
  return CHIME_TRIGGER_NONE;
}
