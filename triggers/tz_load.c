/*
 * tz_load.c: finding zones by name (chime_zone_get) and the process-wide
 * zone cache.
 *
 * A name is either special ("UTC", "GMT", "Z"), a fixed offset written the
 * way Java's custom zone ids are ("GMT+8", "GMT-03:30", "UTC+05:30",
 * "+05:30", "-0800": a positive offset is EAST of Greenwich), or an IANA
 * name read from CHIME_ZONEINFO_DIR, a build-time path (never the TZ or
 * TZDIR environment variables; tests point it elsewhere with
 * chime__zone_set_dir).  Every zone found is kept for the life of the
 * process, so the pointers handed out never dangle; one mutex (cache_lock)
 * guards the cache, and zones themselves are immutable.
 *
 * Reloading (tzdata updated while the process runs): the cache maps a name
 * to an entry holding the NEWEST zone object of that name, the identity of
 * the file it was read from (device, inode, size, modification time) and a
 * fingerprint of the file's bytes (64-bit FNV-1a).  chime__zone_check stats
 * each file zone's file and reads again those whose identity changed (or
 * every one, when forced); when the bytes differ, a new zone object is
 * parsed and becomes the entry's zone, and the old one is retired: kept, as
 * borrowed pointers to it may still be in use, but no longer handed out.
 * Each change stamps the entry with the next value of a process-wide
 * generation counter, so that each consumer (a scheduler) asks for the
 * zones changed since the generation it last acted on
 * (chime__zone_changed_since) and recomputes what it stored with the old
 * rules.  Why file identity and not inotify: it is portable, costs one
 * stat() per cached zone, and tzdata packages replace files by rename,
 * which changes the inode even within one second.  A file that vanished or
 * no longer parses keeps its old rules (a half-installed package must not
 * break firing).
 */
#include "triggers/tz_impl.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CHIME_ZONEINFO_DIR
#define CHIME_ZONEINFO_DIR "/usr/share/zoneinfo"
#endif

/* Real zone files are under 100 KiB; anything this large is not one. */
#define CHIME_TZ_MAX_FILE (1024 * 1024)

/* One cached name: its newest zone, and for a file zone what the file was. */
typedef struct zone_entry {
  chime_zone *zone; /* newest; immutable */
  bool file;        /* read from the zoneinfo dir (not a fixed offset) */
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  uint64_t fingerprint; /* FNV-1a of the bytes the zone was parsed from */
  uint64_t gen;         /* generation of the last change; 0: never changed */
} zone_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static zone_entry *cache;
static size_t cache_len, cache_cap;
/* Zones replaced by a reload: never freed (borrowed pointers may remain). */
static chime_zone **retired;
static size_t retired_len, retired_cap;
static uint64_t zone_gen; /* the last generation handed out */
static char *zone_dir;    /* NULL: CHIME_ZONEINFO_DIR */

static bool is_digit(char ch) {
  return ch >= '0' && ch <= '9';
}

/*
 * Java's custom id after "GMT": a sign, then hours (one or two digits),
 * optionally ":" and two minute digits, or three or four digits hhmm.
 * Hours 0-23, minutes 0-59.  Returns false when text is not of that form.
 */
static bool parse_custom_offset(const char *text, int32_t *ret_offset) {
  int sign;
  if (*text == '+')
    sign = 1;
  else if (*text == '-')
    sign = -1;
  else
    return false;
  text++;
  int num = 0, len = 0, hours = 0;
  bool colon = false;
  for (; *text != '\0'; text++) {
    if (*text == ':') {
      if (colon || len == 0 || len > 2)
        return false;
      hours = num;
      colon = true;
      num = 0;
      len = 0;
      continue;
    }
    if (!is_digit(*text) || len == 4)
      return false;
    num = num * 10 + (*text - '0');
    len++;
  }
  if (len == 0 || (colon && len != 2))
    return false;
  if (!colon) {
    hours = len <= 2 ? num : num / 100;
    num = len <= 2 ? 0 : num % 100;
  }
  if (hours > 23 || num > 59)
    return false;
  *ret_offset = sign * (hours * 3600 + num * 60);
  return true;
}

/* Whether name is a UTC alias or a fixed offset, and which offset. */
static bool parse_fixed(const char *name, int32_t *ret_offset) {
  if (strcmp(name, "UTC") == 0 || strcmp(name, "GMT") == 0 ||
      strcmp(name, "Z") == 0) {
    *ret_offset = 0;
    return true;
  }
  if (strncmp(name, "GMT", 3) == 0 || strncmp(name, "UTC", 3) == 0)
    name += 3;
  return parse_custom_offset(name, ret_offset);
}

/* IANA names: [A-Za-z0-9_+-] components separated by single slashes. */
static bool is_zone_file_name(const char *name) {
  if (name[0] == '/' || name[0] == '\0')
    return false;
  for (const char *p = name; *p != '\0'; p++) {
    char ch = *p;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              is_digit(ch) || ch == '_' || ch == '+' || ch == '-' || ch == '/';
    if (!ok || (ch == '/' && (p[1] == '/' || p[1] == '\0')))
      return false;
  }
  return true;
}

/* Reads a whole regular file of at most CHIME_TZ_MAX_FILE bytes. */
static int read_file(const char *path, uint8_t **ret_data, size_t *ret_len,
                     struct stat *ret_st) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOMEM ? CHIME_ENOMEM : CHIME_EUNKNOWNZONE;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return CHIME_EUNKNOWNZONE;
  }
  if (st.st_size > CHIME_TZ_MAX_FILE) {
    close(fd);
    return CHIME_EFORMAT;
  }
  size_t cap = (size_t)st.st_size + 1, len = 0;
  uint8_t *data = malloc(cap);
  if (data == NULL) {
    close(fd);
    return CHIME_ENOMEM;
  }
  /* Read one byte past the size seen, to notice a file that grew. */
  for (;;) {
    ssize_t n = read(fd, data + len, cap - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      free(data);
      close(fd);
      return CHIME_EIO;
    }
    if (n == 0 || (len += (size_t)n) == cap)
      break;
  }
  close(fd);
  if (len == cap) {
    free(data);
    return CHIME_EFORMAT;
  }
  *ret_data = data;
  *ret_len = len;
  *ret_st = st;
  return 0;
}

/* 64-bit FNV-1a: a change detector, not a defence against forgery. */
static uint64_t fingerprint(const uint8_t *data, size_t len) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (size_t i = 0; i < len; i++) {
    h ^= data[i];
    h *= UINT64_C(1099511628211);
  }
  return h;
}

static void entry_set_file(zone_entry *e, const struct stat *st, uint64_t fp) {
  e->file = true;
  e->dev = st->st_dev;
  e->ino = st->st_ino;
  e->size = st->st_size;
  e->mtime = st->st_mtim;
  e->fingerprint = fp;
}

static bool entry_same_file(const zone_entry *e, const struct stat *st) {
  return e->dev == st->st_dev && e->ino == st->st_ino &&
         e->size == st->st_size && e->mtime.tv_sec == st->st_mtim.tv_sec &&
         e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The file of zone name; false when the path does not fit.  Lock held. */
static bool zone_path(const char *name, char *buf, size_t len) {
  int n = snprintf(buf, len, "%s/%s", zone_dir ? zone_dir : CHIME_ZONEINFO_DIR,
                   name);
  return n >= 0 && (size_t)n < len;
}

/* Reads zone name's file into a new zone; e receives what the file was. */
static int load_file_zone(const char *name, chime_zone **ret_zone,
                          zone_entry *e) {
  char path[PATH_MAX];
  if (!zone_path(name, path, sizeof path))
    return CHIME_EINVAL;
  uint8_t *data;
  size_t len;
  struct stat st;
  int rc = read_file(path, &data, &len, &st);
  if (rc != 0)
    return rc;
  /* Other files live in zoneinfo too ("leapseconds"): not zones at all. */
  if (len < 4 || memcmp(data, "TZif", 4) != 0) {
    free(data);
    return CHIME_EUNKNOWNZONE;
  }
  uint64_t fp = fingerprint(data, len);
  /* Unchanged bytes (a package reinstalled): keep the zone in use. */
  if (e->file && e->zone != NULL && e->fingerprint == fp) {
    free(data);
    entry_set_file(e, &st, fp);
    *ret_zone = NULL;
    return 0;
  }
  char why[128];
  rc = chime__zone_from_tzif(name, data, len, ret_zone, why, sizeof why);
  free(data);
  if (rc == 0)
    entry_set_file(e, &st, fp);
  return rc;
}

static int load_zone(const char *name, chime_zone **ret_zone, zone_entry *e) {
  int32_t offset;
  if (parse_fixed(name, &offset))
    return chime__zone_new_fixed(name, offset, ret_zone);
  if (!is_zone_file_name(name))
    return CHIME_EUNKNOWNZONE;
  return load_file_zone(name, ret_zone, e);
}

static int cache_add(const zone_entry *e) {
  if (cache_len == cache_cap) {
    size_t cap = cache_cap == 0 ? 16 : cache_cap * 2;
    zone_entry *grown = realloc(cache, cap * sizeof *grown);
    if (grown == NULL)
      return CHIME_ENOMEM;
    cache = grown;
    cache_cap = cap;
  }
  cache[cache_len++] = *e;
  return 0;
}

static int retire(chime_zone *zone) {
  if (retired_len == retired_cap) {
    size_t cap = retired_cap == 0 ? 8 : retired_cap * 2;
    chime_zone **grown = realloc(retired, cap * sizeof *grown);
    if (grown == NULL)
      return CHIME_ENOMEM;
    retired = grown;
    retired_cap = cap;
  }
  retired[retired_len++] = zone;
  return 0;
}

int chime_zone_get(const char *name, const chime_zone **ret_zone) {
  if (name == NULL || ret_zone == NULL || name[0] == '\0' ||
      strlen(name) > CHIME_TZ_MAX_NAME)
    return CHIME_EINVAL;
  int rc = 0;
  chime_zone *found = NULL;
  pthread_mutex_lock(&cache_lock);
  for (size_t i = 0; i < cache_len && found == NULL; i++)
    if (strcmp(cache[i].zone->name, name) == 0)
      found = cache[i].zone;
  /* Loading under the lock makes every thread see the same zone object. */
  zone_entry e = {0};
  if (found == NULL && (rc = load_zone(name, &found, &e)) == 0) {
    e.zone = found;
    if ((rc = cache_add(&e)) != 0) {
      chime__zone_free(found);
      found = NULL;
    }
  }
  pthread_mutex_unlock(&cache_lock);
  if (rc != 0)
    return rc;
  *ret_zone = found;
  return 0;
}

int chime__zone_set_dir(const char *dir) {
  char *copy = NULL;
  if (dir != NULL && (copy = strdup(dir)) == NULL)
    return CHIME_ENOMEM;
  pthread_mutex_lock(&cache_lock);
  free(zone_dir);
  zone_dir = copy;
  pthread_mutex_unlock(&cache_lock);
  return 0;
}

/* Checks one file zone's file; replaces its zone when the bytes changed.
 * Returns 1 (changed), 0 (unchanged), or an error (the old rules stay).
 * Lock held. */
static int check_entry(zone_entry *e, bool force) {
  assert(e->file);
  char path[PATH_MAX];
  if (!zone_path(e->zone->name, path, sizeof path))
    return CHIME_EINVAL;
  struct stat st;
  if (stat(path, &st) != 0)
    return errno == ENOMEM ? CHIME_ENOMEM : CHIME_EUNKNOWNZONE;
  if (!force && entry_same_file(e, &st))
    return 0;
  zone_entry next = *e;
  chime_zone *fresh = NULL;
  int rc = load_file_zone(e->zone->name, &fresh, &next);
  if (rc != 0)
    return rc;
  if (fresh == NULL) { /* same bytes: only the identity moved */
    *e = next;
    return 0;
  }
  if ((rc = retire(e->zone)) != 0) {
    chime__zone_free(fresh);
    return rc;
  }
  next.zone = fresh;
  next.gen = ++zone_gen;
  *e = next;
  return 1;
}

int chime__zone_check(bool force, size_t *ret_changed, size_t *ret_failed) {
  size_t changed = 0, failed = 0;
  int first_error = 0;
  pthread_mutex_lock(&cache_lock);
  for (size_t i = 0; i < cache_len; i++) {
    if (!cache[i].file)
      continue;
    int rc = check_entry(&cache[i], force);
    if (rc > 0)
      changed++;
    if (rc < 0) {
      failed++;
      if (first_error == 0 || rc == CHIME_ENOMEM)
        first_error = rc;
    }
  }
  pthread_mutex_unlock(&cache_lock);
  if (ret_changed)
    *ret_changed = changed;
  if (ret_failed)
    *ret_failed = failed;
  return first_error == CHIME_ENOMEM ? CHIME_ENOMEM : 0;
}

int chime__zone_changed_since(uint64_t since, char ***ret_names,
                              size_t *ret_count, uint64_t *ret_gen) {
  assert(ret_names && ret_count && ret_gen);
  int rc = 0;
  size_t n = 0;
  char **names = NULL;
  pthread_mutex_lock(&cache_lock);
  uint64_t gen = zone_gen;
  for (size_t i = 0; i < cache_len; i++)
    n += cache[i].gen > since;
  if (n > 0 && (names = calloc(n, sizeof *names)) == NULL)
    rc = CHIME_ENOMEM;
  for (size_t i = 0, k = 0; rc == 0 && i < cache_len; i++) {
    if (cache[i].gen <= since)
      continue;
    if ((names[k++] = strdup(cache[i].zone->name)) == NULL)
      rc = CHIME_ENOMEM;
  }
  pthread_mutex_unlock(&cache_lock);
  if (rc != 0) {
    chime__zone_names_free(names, n);
    return rc;
  }
  *ret_names = names;
  *ret_count = n;
  *ret_gen = gen;
  return 0;
}

uint64_t chime__zone_generation(void) {
  pthread_mutex_lock(&cache_lock);
  uint64_t gen = zone_gen;
  pthread_mutex_unlock(&cache_lock);
  return gen;
}

void chime__zone_names_free(char **names, size_t count) {
  for (size_t i = 0; names != NULL && i < count; i++)
    free(names[i]);
  free(names);
}

int chime__zone_fingerprint(const char *name, uint64_t *ret_fingerprint) {
  const chime_zone *zone;
  int rc = chime_zone_get(name, &zone);
  if (rc != 0)
    return rc;
  uint64_t fp = 0;
  pthread_mutex_lock(&cache_lock);
  for (size_t i = 0; i < cache_len; i++)
    if (cache[i].zone == zone)
      fp = cache[i].fingerprint;
  pthread_mutex_unlock(&cache_lock);
  *ret_fingerprint = fp;
  return 0;
}
