/*
 * tz_load.c: finding zones by name (chime_zone_get) and the process-wide
 * zone cache.
 *
 * A name is either special ("UTC", "GMT", "Z"), a fixed offset written the
 * way Java's custom zone ids are ("GMT+8", "GMT-03:30", "UTC+05:30",
 * "+05:30", "-0800": a positive offset is EAST of Greenwich), or an IANA
 * name read from CHIME_ZONEINFO_DIR, a build-time path (never the TZ or
 * TZDIR environment variables).  Every zone found is kept in the cache for
 * the life of the process, so the pointers handed out never dangle; one
 * mutex guards lookup and insertion, and zones themselves are immutable.
 */
#include "triggers/tz_impl.h"

#include <errno.h>
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

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static chime_zone **cache;
static size_t cache_len, cache_cap;

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
static int read_file(const char *path, uint8_t **ret_data, size_t *ret_len) {
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
  return 0;
}

static int load_file_zone(const char *name, chime_zone **ret_zone) {
  char path[sizeof CHIME_ZONEINFO_DIR + CHIME_TZ_MAX_NAME + 2];
  int n = snprintf(path, sizeof path, "%s/%s", CHIME_ZONEINFO_DIR, name);
  if (n < 0 || (size_t)n >= sizeof path)
    return CHIME_EINVAL;
  uint8_t *data;
  size_t len;
  int rc = read_file(path, &data, &len);
  if (rc != 0)
    return rc;
  /* Other files live in zoneinfo too ("leapseconds"): not zones at all. */
  if (len < 4 || memcmp(data, "TZif", 4) != 0) {
    free(data);
    return CHIME_EUNKNOWNZONE;
  }
  char why[128];
  rc = chime__zone_from_tzif(name, data, len, ret_zone, why, sizeof why);
  free(data);
  return rc;
}

static int load_zone(const char *name, chime_zone **ret_zone) {
  int32_t offset;
  if (parse_fixed(name, &offset))
    return chime__zone_new_fixed(name, offset, ret_zone);
  if (!is_zone_file_name(name))
    return CHIME_EUNKNOWNZONE;
  return load_file_zone(name, ret_zone);
}

static int cache_add(chime_zone *zone) {
  if (cache_len == cache_cap) {
    size_t cap = cache_cap == 0 ? 16 : cache_cap * 2;
    chime_zone **grown = realloc(cache, cap * sizeof *grown);
    if (grown == NULL)
      return CHIME_ENOMEM;
    cache = grown;
    cache_cap = cap;
  }
  cache[cache_len++] = zone;
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
    if (strcmp(cache[i]->name, name) == 0)
      found = cache[i];
  /* Loading under the lock makes every thread see the same zone object. */
  if (found == NULL && (rc = load_zone(name, &found)) == 0 &&
      (rc = cache_add(found)) != 0) {
    chime__zone_free(found);
    found = NULL;
  }
  pthread_mutex_unlock(&cache_lock);
  if (rc != 0)
    return rc;
  *ret_zone = found;
  return 0;
}
