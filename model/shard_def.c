/*
 * shard_def.c: a job's sharding (chime_job_set_shards) and required tags
 * (chime_job_add_required_tag), and the one-shot triggers that carry the
 * shards of a sharded fire (docs/batch.md).
 *
 * Terms: a sharded fire is one fire of a sharded job; when it runs, the
 * store turns it into `total` shard triggers, each fired, fenced, retried
 * and recovered like any fire.  A shard parameter list is ElasticJob's
 * "0=Beijing,1=Shanghai": an index, '=', a text without ',' or '='.
 * A tag list is kept sorted and comma-separated ("gpu,ssd"), so that both
 * stores and SQL compare lists as text.
 */
#include "model/records.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses "i=text" items; calls found for each.  Returns false on a
 * malformed list (an index out of [0, count), twice, an empty item). */
static bool params_parse(const char *params, int count, int want, char *buf,
                         size_t len, bool *ret_found) {
  unsigned char seen[CHIME_MAX_SHARDS / 8 + 1] = {0};
  const char *p = params;
  while (*p) {
    char *end = NULL;
    if (*p < '0' || *p > '9')
      return false;
    long idx = strtol(p, &end, 10);
    if (end == p || *end != '=' || idx < 0 || idx >= count ||
        idx >= CHIME_MAX_SHARDS || (seen[idx / 8] & (1u << (idx % 8))))
      return false;
    seen[idx / 8] |= (unsigned char)(1u << (idx % 8));
    const char *v = end + 1;
    size_t n = strcspn(v, ",=");
    if (v[n] == '=')
      return false;
    if (idx == want && buf && len > 0) {
      size_t c = n < len - 1 ? n : len - 1;
      memcpy(buf, v, c);
      buf[c] = '\0';
      *ret_found = true;
    }
    p = v + n;
    if (*p == ',' && *++p == '\0')
      return false; /* a trailing comma */
  }
  return true;
}

int chime_job_set_shards(chime_job *job, int count, const char *params) {
  if (!job || count < CHIME_SHARDS_BROADCAST || count > CHIME_MAX_SHARDS)
    return CHIME_EINVAL;
  if (params && *params == '\0')
    params = NULL;
  if (params && (count == 0 || strlen(params) > CHIME_MAX_DESCRIPTION_LEN))
    return CHIME_EINVAL;
  bool found = false;
  /* A broadcast's count is known at fire time: indexes are only bounded. */
  int bound = count == CHIME_SHARDS_BROADCAST ? CHIME_MAX_SHARDS : count;
  if (params && !params_parse(params, bound, -1, NULL, 0, &found))
    return CHIME_EINVAL;
  int r =
      chime__set_text(&job->shard_params, params, CHIME_MAX_DESCRIPTION_LEN);
  if (r < 0)
    return r;
  job->shard_count = count;
  return 0;
}

int chime_job_set_shards_then(chime_job *job, const char *group,
                              const char *name) {
  if (!job || (!group) != (!name))
    return CHIME_EINVAL;
  int r = group ? chime__key_check(group, name) : 0;
  if (r == 0)
    r = chime__set_text(&job->then_group, group, CHIME_MAX_NAME_LEN);
  if (r == 0)
    r = chime__set_text(&job->then_name, name, CHIME_MAX_NAME_LEN);
  return r;
}

const char *chime_job_get_shards_then_group(const chime_job *job) {
  return job ? job->then_group : NULL;
}

const char *chime_job_get_shards_then_name(const chime_job *job) {
  return job ? job->then_name : NULL;
}

int chime_job_get_shard_count(const chime_job *job) {
  return job ? job->shard_count : 0;
}

const char *chime_job_get_shard_params(const chime_job *job) {
  return job ? job->shard_params : NULL;
}

bool chime__shard_param(const char *params, int index, char *buf, size_t len) {
  bool found = false;
  if (params && buf && len > 0)
    (void)params_parse(params, CHIME_MAX_SHARDS, index, buf, len, &found);
  return found;
}

static bool tag_valid(const char *tag) {
  size_t n = tag ? strlen(tag) : 0;
  if (n == 0 || n > CHIME_MAX_TAG_LEN)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = tag[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
          c == '-'))
      return false;
  }
  return true;
}

/* Whether list (sorted, comma-separated) holds tag. */
static bool tags_has(const char *list, const char *tag, size_t n) {
  for (const char *p = list; p && *p;) {
    size_t k = strcspn(p, ",");
    if (k == n && memcmp(p, tag, n) == 0)
      return true;
    p += k;
    if (*p == ',')
      p++;
  }
  return false;
}

bool chime__tags_cover(const char *have, const char *required) {
  for (const char *p = required; p && *p;) {
    size_t k = strcspn(p, ",");
    if (!tags_has(have, p, k))
      return false;
    p += k;
    if (*p == ',')
      p++;
  }
  return true;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int chime__tags_add(char **list, const char *tag) {
  if (!list || !tag_valid(tag))
    return CHIME_EINVAL;
  if (tags_has(*list, tag, strlen(tag)))
    return 0;
  char *items[CHIME_MAX_TAGS + 1];
  size_t n = 0;
  size_t total = strlen(tag) + 1;
  char *copy = *list ? strdup(*list) : NULL;
  if (*list && !copy)
    return CHIME_ENOMEM;
  for (char *p = copy; p && *p;) {
    size_t k = strcspn(p, ",");
    bool more = p[k] == ',';
    p[k] = '\0';
    if (n == CHIME_MAX_TAGS) {
      free(copy);
      return CHIME_ELIMIT;
    }
    items[n++] = p;
    total += k + 1;
    p += k + (more ? 1 : 0);
  }
  items[n++] = (char *)tag;
  qsort(items, n, sizeof items[0], cmp_str);
  char *out = malloc(total);
  if (!out) {
    free(copy);
    return CHIME_ENOMEM;
  }
  out[0] = '\0';
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = strlen(items[i]);
    if (i > 0)
      out[at++] = ',';
    memcpy(out + at, items[i], k);
    at += k;
  }
  out[at] = '\0';
  free(copy);
  free(*list);
  *list = out;
  return 0;
}

int chime_job_add_required_tag(chime_job *job, const char *tag) {
  return job ? chime__tags_add(&job->required_tags, tag) : CHIME_EINVAL;
}

const char *chime_job_get_required_tags(const chime_job *job) {
  return job ? job->required_tags : NULL;
}

int chime__trigger_shard_new(const chime_trigger *t, int64_t fire_id,
                             int64_t scheduled_ms, int index, int total,
                             const char *param, int64_t at_ms,
                             chime_trigger **ret) {
  if (!t || !ret || fire_id <= 0 || index < 0 || index >= total)
    return CHIME_EINVAL;
  char name[64], desc[CHIME_MAX_NAME_LEN * 2 + 64];
  snprintf(name, sizeof name, "%" PRId64 ".%d", fire_id, index);
  snprintf(desc, sizeof desc, "shard %d of %d of %s.%s", index, total, t->group,
           t->name);
  chime_trigger *st = NULL;
  int r = chime__trigger_one_shot_new(t, CHIME__SHARD_GROUP, name, at_ms,
                                      CHIME_MISFIRE_IGNORE,
                                      chime_trigger_get_priority(t), desc, &st);
  if (r == 0 && param)
    r = chime__set_text(&st->shard_param, param, CHIME_MAX_DESCRIPTION_LEN);
  if (r < 0) {
    chime_trigger_free(st);
    return r;
  }
  st->timeout_ms = t->timeout_ms;
  st->retry_scheduled_ms = scheduled_ms;
  st->shard_parent = fire_id;
  st->shard_index = index;
  st->shard_total = total;
  *ret = st;
  return 0;
}
