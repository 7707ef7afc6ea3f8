/*
 * alert_state.c: chime-alert's memory: the keys (de-duplication and firing
 * states), the history ids of the re-read overlap, the outbox, and the
 * state file that keeps all of it across restarts.
 *
 * The state file is text, one record a line, written whole to FILE.tmp,
 * flushed to disk and renamed over FILE, so a crash leaves the old file or
 * the new one.  It is saved after each poll that changed something and
 * after each delivery, before the next one: a restart resends at most the
 * one delivery that was under way (at least once, never lost).
 *
 *   chime-alert-state 1
 *   scheduler NAME
 *   last_id N                  history read up to id N ...
 *   overlap_id N               ... re-read from id N
 *   seen ID                    a failure of the overlap already counted
 *   key FIRING SENT_MS SUPPRESSED SINCE_MS STALE QUIET KEY
 *   out SINK ATTEMPTS FIELDS   an alert to deliver to sink number SINK
 *
 * Text fields are escaped (\\, \t, \n) and an alert's fields are
 * tab-separated.
 */
#include "alert.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATE_MAGIC "chime-alert-state 1"

/* Makes room for one more element in arr (n used of *cap, each size
 * bytes), doubling it.  Returns: the array, moved or not; NULL on ENOMEM
 * (arr as it was). */
static void *grow(void *arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return arr;
  size_t c = *cap ? *cap * 2 : 16;
  void *more = realloc(arr, c * size);
  if (more)
    *cap = c;
  return more;
}

/* ------------------------------------------------------- keys */

alert_key *alert_key_find(alert_ctx *x, const char *key) {
  for (size_t i = 0; i < x->nkeys; i++)
    if (strcmp(x->keys[i].key, key) == 0)
      return &x->keys[i];
  return NULL;
}

alert_key *alert_key_get(alert_ctx *x, const char *key) {
  alert_key *k = alert_key_find(x, key);
  if (k)
    return k;
  alert_key *keys = grow(x->keys, &x->keys_cap, x->nkeys, sizeof *keys);
  if (!keys)
    return NULL;
  x->keys = keys;
  char *copy = strdup(key);
  if (!copy)
    return NULL;
  k = &x->keys[x->nkeys++];
  *k = (alert_key){.key = copy};
  x->dirty = true;
  return k;
}

void alert_key_drop(alert_ctx *x, alert_key *k) {
  if (!k)
    return;
  free(k->key);
  size_t i = (size_t)(k - x->keys);
  memmove(k, k + 1, (x->nkeys - i - 1) * sizeof *k);
  x->nkeys--;
  x->dirty = true;
}

/* ------------------------------------------------------- raising */

/* Cuts a UTF-8 sequence that a bounded copy left incomplete at the end
 * of s, so that the JSON carries valid text. */
static void trim_utf8(char *s) {
  size_t n = strlen(s), i = n;
  while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
    i--; /* continuation bytes */
  if (i == 0)
    return;
  unsigned char lead = (unsigned char)s[i - 1];
  size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (n - (i - 1) < want)
    s[i - 1] = '\0';
}

/* Queues a for every sink; past ALERT_MAX_OUTBOX the oldest go. */
static int enqueue(alert_ctx *x, const alert *given) {
  alert copy = *given, *a = &copy;
  trim_utf8(a->message);
  trim_utf8(a->job);
  trim_utf8(a->trigger);
  trim_utf8(a->node);
  for (size_t s = 0; s < x->nsinks; s++) {
    if (x->nout == ALERT_MAX_OUTBOX) {
      alert_log("outbox full (%d deliveries): dropped the oldest, %s",
                ALERT_MAX_OUTBOX, x->outbox[0].a.key);
      memmove(x->outbox, x->outbox + 1, --x->nout * sizeof *x->outbox);
    }
    alert_out *out = grow(x->outbox, &x->out_cap, x->nout, sizeof *out);
    if (!out)
      return CHIME_ENOMEM;
    x->outbox = out;
    x->outbox[x->nout++] = (alert_out){.a = *a, .sink = (int)s};
  }
  alert_log("%s %s: %s", a->status, a->key, a->message);
  x->dirty = true;
  return 0;
}

static const char *const kinds[ALERT_KINDS] = {
    "run_failed", "misfire", "node_dead", "job_overdue", "store_down"};

/* The index of a kind in the per-poll counts. */
static int kind_index(const char *kind) {
  for (int i = 0; i < ALERT_KINDS; i++)
    if (strcmp(kinds[i], kind) == 0)
      return i;
  assert(!"an alert of no known kind");
  return 0;
}

/* Whether this poll's alerts of the kind and status reached
 * ALERT_MAX_PER_POLL: then a is counted for the summary (its key kept
 * as an example); else it is counted as sent. */
static bool over_cap(alert_ctx *x, const alert *a, bool firing) {
  alert_poll_count *c = &x->counts[kind_index(a->kind)][firing ? 0 : 1];
  if (c->sent < ALERT_MAX_PER_POLL) {
    c->sent++;
    return false;
  }
  if (c->more++ == 0)
    snprintf(c->example, sizeof c->example, "%s", a->key);
  return true;
}

int alert_raise(alert_ctx *x, const alert *a) {
  alert_key *k = alert_key_get(x, a->key);
  if (!k)
    return CHIME_ENOMEM;
  if (strcmp(a->kind, "run_failed") == 0) {
    x->dirty = true;
    if (k->last_sent_ms != 0 &&
        x->now_ms - k->last_sent_ms < x->dedup_window_ms) {
      k->suppressed += a->count;
      return 0;
    }
    alert out = *a;
    out.count = a->count + k->suppressed;
    k->suppressed = 0;
    k->last_sent_ms = x->now_ms; /* the summary stands for it if over */
    return over_cap(x, &out, true) ? 0 : enqueue(x, &out);
  }
  bool firing = strcmp(a->status, "firing") == 0;
  if (firing == k->firing)
    return 0;
  k->firing = firing;
  x->dirty = true;
  if (!firing && k->quiet) { /* never said one by one: nor its end */
    k->quiet = false;
    return 0;
  }
  if (!firing && !x->send_resolved)
    return 0;
  bool over = over_cap(x, a, firing);
  if (firing)
    k->quiet = over;
  return over ? 0 : enqueue(x, a);
}

void alert_poll_begin(alert_ctx *x) {
  memset(x->counts, 0, sizeof x->counts);
}

int alert_poll_end(alert_ctx *x) {
  for (int i = 0; i < ALERT_KINDS; i++) {
    for (int f = 0; f < 2; f++) {
      const alert_poll_count *c = &x->counts[i][f];
      if (c->more == 0)
        continue;
      alert a = {.time_ms = x->now_ms, .count = c->more};
      snprintf(a.kind, sizeof a.kind, "%s", kinds[i]);
      snprintf(a.status, sizeof a.status, "%s", f ? "resolved" : "firing");
      snprintf(a.key, sizeof a.key, "%s:(more)", kinds[i]);
      snprintf(a.message, sizeof a.message,
               "%" PRId64 " more %s %s alerts in this poll, past the %d sent "
               "one by one; one of them: %s",
               c->more, kinds[i], f ? "resolved" : "firing", ALERT_MAX_PER_POLL,
               c->example);
      int r = enqueue(x, &a);
      if (r)
        return r;
    }
  }
  return 0;
}

/* ------------------------------------------------------- overlap ids */

/* seen_ids is kept sorted (the history is read in id order, so an id is
 * nearly always appended): a failure storm's thousands stay cheap. */
bool alert_seen_id(alert_ctx *x, int64_t id) {
  size_t lo = 0, hi = x->nseen;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->seen_ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < x->nseen && x->seen_ids[lo] == id)
    return true;
  int64_t *ids = grow(x->seen_ids, &x->seen_cap, x->nseen, sizeof *ids);
  if (!ids)
    return false; /* counted again rather than lost */
  x->seen_ids = ids;
  memmove(ids + lo + 1, ids + lo, (x->nseen - lo) * sizeof *ids);
  ids[lo] = id;
  x->nseen++;
  return false;
}

void alert_seen_prune(alert_ctx *x) {
  size_t n = 0;
  for (size_t i = 0; i < x->nseen; i++)
    if (x->seen_ids[i] > x->overlap_id)
      x->seen_ids[n++] = x->seen_ids[i];
  x->nseen = n;
}

/* ------------------------------------------------------- the file */

static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '\\')
      fputs("\\\\", f);
    else if (*s == '\t')
      fputs("\\t", f);
    else if (*s == '\n')
      fputs("\\n", f);
    else
      fputc(*s, f);
  }
}

/* Unescapes src into dst (len bytes), in place safe. */
static void unescape(const char *src, char *dst, size_t len) {
  size_t n = 0;
  for (; *src && n + 1 < len; src++) {
    char ch = *src;
    if (ch == '\\' && src[1]) {
      src++;
      ch = *src == 't' ? '\t' : *src == 'n' ? '\n' : *src;
    }
    dst[n++] = ch;
  }
  dst[n] = '\0';
}

static void put_alert(FILE *f, const alert *a) {
  const char *texts[] = {a->kind,    a->status, a->key,    a->job,
                         a->trigger, a->node,   a->outcome};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    put_escaped(f, texts[i]);
    fputc('\t', f);
  }
  fprintf(f, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t", a->fire_id, a->time_ms,
          a->count);
  put_escaped(f, a->message);
}

/* Reads the tab-separated fields of put_alert (line modified).  Returns:
 * 0 or -1 (malformed). */
static int get_alert(char *line, alert *a) {
  char *f[11];
  size_t n = 0;
  for (char *p = line; n < 11; n++) {
    f[n] = p;
    char *tab = strchr(p, '\t');
    if (!tab) {
      n++;
      break;
    }
    *tab = '\0';
    p = tab + 1;
  }
  if (n != 11)
    return -1;
  *a = (alert){0};
  unescape(f[0], a->kind, sizeof a->kind);
  unescape(f[1], a->status, sizeof a->status);
  unescape(f[2], a->key, sizeof a->key);
  unescape(f[3], a->job, sizeof a->job);
  unescape(f[4], a->trigger, sizeof a->trigger);
  unescape(f[5], a->node, sizeof a->node);
  unescape(f[6], a->outcome, sizeof a->outcome);
  a->fire_id = strtoll(f[7], NULL, 10);
  a->time_ms = strtoll(f[8], NULL, 10);
  a->count = strtoll(f[9], NULL, 10);
  unescape(f[10], a->message, sizeof a->message);
  return 0;
}

int alert_state_save(alert_ctx *x) {
  if (!x->dirty)
    return 0;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", x->state_path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    ctl_fail(CHIME_EINVAL, "cannot write the state file %s: %s", tmp,
             strerror(errno));
    return ALERT_STATE_FAILED;
  }
  fprintf(f, STATE_MAGIC "\nscheduler ");
  put_escaped(f, x->base.sched);
  fprintf(f, "\nlast_id %" PRId64 "\noverlap_id %" PRId64 "\n", x->last_id,
          x->overlap_id);
  for (size_t i = 0; i < x->nseen; i++)
    fprintf(f, "seen %" PRId64 "\n", x->seen_ids[i]);
  for (size_t i = 0; i < x->nkeys; i++) {
    const alert_key *k = &x->keys[i];
    fprintf(f, "key %d %" PRId64 " %" PRId64 " %" PRId64 " %d %d ", k->firing,
            k->last_sent_ms, k->suppressed, k->since_ms, k->stale, k->quiet);
    put_escaped(f, k->key);
    fputc('\n', f);
  }
  for (size_t i = 0; i < x->nout; i++) {
    fprintf(f, "out %d %d ", x->outbox[i].sink, x->outbox[i].attempts);
    put_alert(f, &x->outbox[i].a);
    fputc('\n', f);
  }
  bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, x->state_path) != 0) {
    int e = errno;
    unlink(tmp);
    ctl_fail(CHIME_EINVAL, "cannot write the state file %s: %s", x->state_path,
             strerror(e));
    return ALERT_STATE_FAILED;
  }
  x->dirty = false;
  return 0;
}

/* Reads one line of the state file.  Returns: 0 or -1 (malformed). */
static int load_line(alert_ctx *x, char *line) {
  char *arg = strchr(line, ' ');
  if (!arg)
    return -1;
  *arg++ = '\0';
  if (strcmp(line, "scheduler") == 0) {
    char name[256];
    unescape(arg, name, sizeof name);
    if (strcmp(name, x->base.sched) != 0) {
      ctl_fail(CHIME_EINVAL,
               "the state file %s is of scheduler '%s', not '%s': give each "
               "cluster its own",
               x->state_path, name, x->base.sched);
      return -2;
    }
    return 0;
  }
  if (strcmp(line, "last_id") == 0)
    return sscanf(arg, "%" SCNd64, &x->last_id) == 1 ? 0 : -1;
  if (strcmp(line, "overlap_id") == 0)
    return sscanf(arg, "%" SCNd64, &x->overlap_id) == 1 ? 0 : -1;
  if (strcmp(line, "seen") == 0) {
    int64_t id;
    if (sscanf(arg, "%" SCNd64, &id) != 1)
      return -1;
    (void)alert_seen_id(x, id);
    return 0;
  }
  if (strcmp(line, "key") == 0) {
    int firing, stale, quiet, used = 0;
    int64_t sent, suppressed, since;
    if (sscanf(arg, "%d %" SCNd64 " %" SCNd64 " %" SCNd64 " %d %d %n", &firing,
               &sent, &suppressed, &since, &stale, &quiet, &used) != 6 ||
        !used)
      return -1;
    char key[512];
    unescape(arg + used, key, sizeof key);
    alert_key *k = alert_key_get(x, key);
    if (!k)
      return -1;
    *k = (alert_key){.key = k->key,
                     .firing = firing != 0,
                     .last_sent_ms = sent,
                     .suppressed = suppressed,
                     .since_ms = since,
                     .stale = stale != 0,
                     .quiet = quiet != 0};
    return 0;
  }
  if (strcmp(line, "out") == 0) {
    int sink, attempts, used = 0;
    alert a;
    if (sscanf(arg, "%d %d %n", &sink, &attempts, &used) != 2 || !used ||
        get_alert(arg + used, &a) < 0)
      return -1;
    if (sink < 0 || (size_t)sink >= x->nsinks) {
      alert_log("state: a delivery to sink %d, which is no longer given, "
                "dropped (%s)",
                sink + 1, a.key);
      return 0;
    }
    alert_out *out = grow(x->outbox, &x->out_cap, x->nout, sizeof *out);
    if (!out)
      return -1;
    x->outbox = out;
    x->outbox[x->nout++] =
        (alert_out){.a = a, .sink = sink, .attempts = attempts};
    return 0;
  }
  return -1;
}

int alert_state_load(alert_ctx *x, bool *ret_found) {
  *ret_found = false;
  FILE *f = fopen(x->state_path, "r");
  if (!f) {
    if (errno == ENOENT)
      return 0;
    ctl_fail(CHIME_EINVAL, "cannot read the state file %s: %s", x->state_path,
             strerror(errno));
    return ALERT_STATE_FAILED;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int r = 0;
  long n = 0;
  while (r == 0 && (len = getline(&line, &cap, f)) >= 0) {
    n++;
    if (len > 0 && line[len - 1] == '\n')
      line[--len] = '\0';
    if (n == 1)
      r = strcmp(line, STATE_MAGIC) == 0 ? 0 : -1;
    else
      r = load_line(x, line);
  }
  free(line);
  fclose(f);
  if (r == -1)
    ctl_fail(CHIME_EINVAL, "the state file %s is damaged at line %ld",
             x->state_path, n);
  if (r)
    return ALERT_STATE_FAILED;
  x->dirty = false;
  *ret_found = true;
  return 0;
}

void alert_state_free(alert_ctx *x) {
  for (size_t i = 0; i < x->nkeys; i++)
    free(x->keys[i].key);
  free(x->keys);
  free(x->seen_ids);
  free(x->outbox);
  x->keys = NULL;
  x->seen_ids = NULL;
  x->outbox = NULL;
  x->nkeys = x->nseen = x->nout = 0;
}
