/*
 * tz_tzif.c: reading a TZif image (RFC 8536, versions 1-4) into a zone.
 *
 * A TZif file holds a 44-byte header, a data block with 32-bit times, and,
 * from version 2 on, a second header and data block with 64-bit times and a
 * footer "\n<POSIX TZ rule>\n".  Version 1 images use the first block;
 * later ones skip it and use the second.  Every count is checked against a
 * limit and the image's length before it is used, because the fuzzer and
 * damaged files feed this code.  Images with leap-second records ("right/"
 * zones) are refused: instants here are POSIX time, as in Java.
 */
#include "triggers/tz_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_LEN 44

typedef struct tzif_header {
  int version; /* 1, 2, 3 or 4 */
  size_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
} tzif_header;

/* The transitions of a data block, before they become a zone. */
typedef struct tzif_table {
  size_t count;
  int64_t *at;
  int32_t *offset;
  int32_t initial_offset;
  bool dropped_late; /* transitions past CHIME_TZ_LIMIT_S were left out */
} tzif_table;

static int fail(char *errbuf, size_t errbuf_len, const char *reason) {
  if (errbuf != NULL && errbuf_len > 0)
    snprintf(errbuf, errbuf_len, "%s", reason);
  return CHIME_EFORMAT;
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}

static int64_t be64(const uint8_t *p) {
  return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

static const char *read_header(const uint8_t *p, size_t avail, tzif_header *h) {
  if (avail < HEADER_LEN)
    return "truncated header";
  if (memcmp(p, "TZif", 4) != 0)
    return "bad magic (not a TZif file)";
  if (p[4] == 0)
    h->version = 1;
  else if (p[4] >= '2' && p[4] <= '4')
    h->version = p[4] - '0';
  else
    return "unsupported TZif version";
  h->isutcnt = be32(p + 20);
  h->isstdcnt = be32(p + 24);
  h->leapcnt = be32(p + 28);
  h->timecnt = be32(p + 32);
  h->typecnt = be32(p + 36);
  h->charcnt = be32(p + 40);
  if (h->timecnt > CHIME_TZ_MAX_TRANSITIONS)
    return "too many transitions";
  if (h->typecnt == 0 || h->typecnt > CHIME_TZ_MAX_TYPES)
    return "bad number of local time types";
  if (h->charcnt == 0 || h->charcnt > 65536)
    return "bad time zone designation count";
  /* Their transition times count leap seconds, unlike POSIX time. */
  if (h->leapcnt != 0)
    return "leap-second zones (\"right/\") are not supported";
  if ((h->isutcnt != 0 && h->isutcnt != h->typecnt) ||
      (h->isstdcnt != 0 && h->isstdcnt != h->typecnt))
    return "bad standard/UT indicator count";
  return NULL;
}

/* Bytes of a data block; the limits above keep this far from overflow. */
static size_t block_len(const tzif_header *h, size_t time_size) {
  return h->timecnt * time_size + h->timecnt + h->typecnt * 6 + h->charcnt +
         h->leapcnt * (time_size + 4) + h->isstdcnt + h->isutcnt;
}

/* Reads a data block's transitions and types into t (allocated here). */
static const char *read_block(const uint8_t *p, const tzif_header *h,
                              size_t time_size, tzif_table *t) {
  const uint8_t *idx = p + h->timecnt * time_size;
  const uint8_t *types = idx + h->timecnt;
  int32_t offs[CHIME_TZ_MAX_TYPES];
  for (size_t i = 0; i < h->typecnt; i++) {
    const uint8_t *tt = types + i * 6;
    int32_t utoff = (int32_t)be32(tt);
    if (utoff < -CHIME_TZ_MAX_OFFSET_S || utoff > CHIME_TZ_MAX_OFFSET_S)
      return "UTC offset out of range";
    if (tt[4] > 1 || tt[5] >= h->charcnt)
      return "bad local time type";
    offs[i] = utoff;
  }
  t->initial_offset = offs[0];
  t->count = 0;
  t->at = malloc((h->timecnt + 1) * sizeof *t->at);
  t->offset = malloc((h->timecnt + 1) * sizeof *t->offset);
  if (t->at == NULL || t->offset == NULL)
    return "out of memory";
  int64_t prev = 0;
  for (size_t i = 0; i < h->timecnt; i++) {
    const uint8_t *tp = p + i * time_size;
    int64_t at = time_size == 8 ? be64(tp) : (int64_t)(int32_t)be32(tp);
    if (idx[i] >= h->typecnt)
      return "bad transition type index";
    if (i > 0 && at <= prev)
      return "transitions out of order";
    prev = at;
    /* Instants past the supported range are never asked about. */
    if (at < -CHIME_TZ_LIMIT_S) {
      t->initial_offset = offs[idx[i]];
      continue;
    }
    if (at > CHIME_TZ_LIMIT_S) {
      t->dropped_late = true;
      break;
    }
    t->at[t->count] = at;
    t->offset[t->count] = offs[idx[i]];
    t->count++;
  }
  return NULL;
}

/* The footer after a v2+ data block: "\n", a rule of any length, "\n". */
static const char *read_footer(const uint8_t *p, size_t avail,
                               chime_tz_rule *rule, bool *has_rule) {
  if (avail < 2 || p[0] != '\n')
    return "missing footer";
  const uint8_t *nl = memchr(p + 1, '\n', avail - 1);
  if (nl == NULL)
    return "unterminated footer";
  size_t len = (size_t)(nl - (p + 1));
  if (len > CHIME_TZ_MAX_FOOTER)
    return "footer too long";
  *has_rule = len > 0;
  if (len > 0 && chime__tz_rule_parse((const char *)p + 1, len, rule) != 0)
    return "bad POSIX TZ rule in footer";
  return NULL;
}

/*
 * Appends the rule's transitions after the table's last one up to
 * CHIME_TZ_PRECOMPUTE_YEAR, skipping those that do not change the offset.
 */
static const char *precompute(chime_zone *z) {
  if (!z->has_rule || !z->rule.has_dst || z->count == 0)
    return NULL;
  int64_t first;
  int m, d;
  chime__civil_from_days(chime__floor_div(z->at[z->count - 1], 86400), &first,
                         &m, &d);
  if (first < 1800 || first > CHIME_TZ_PRECOMPUTE_YEAR)
    return NULL;
  size_t extra = (size_t)(CHIME_TZ_PRECOMPUTE_YEAR - first + 2) * 2;
  int64_t *at = realloc(z->at, (z->count + extra) * sizeof *at);
  if (at == NULL)
    return "out of memory";
  z->at = at;
  int32_t *off = realloc(z->offset, (z->count + extra) * sizeof *off);
  if (off == NULL)
    return "out of memory";
  z->offset = off;
  int64_t last = z->at[z->count - 1];
  for (int64_t y = first - 1; y <= CHIME_TZ_PRECOMPUTE_YEAR; y++) {
    int64_t e[2];
    chime__tz_rule_transitions(&z->rule, y, e);
    int order = e[0] <= e[1] ? 0 : 1;
    for (int k = 0; k < 2; k++) {
      int i = (order + k) % 2;
      int32_t o = i == 0 ? z->rule.dst_offset : z->rule.std_offset;
      if (e[i] <= last || o == z->offset[z->count - 1])
        continue;
      z->at[z->count] = e[i];
      z->offset[z->count] = o;
      z->count++;
      last = e[i];
    }
  }
  return NULL;
}

/* Parses the image into z's table and rule; returns a reason on failure. */
static const char *parse_image(const uint8_t *data, size_t len, chime_zone *z) {
  tzif_header h;
  const char *why = read_header(data, len, &h);
  if (why != NULL)
    return why;
  size_t pos = HEADER_LEN, time_size = 4;
  if (h.version >= 2) {
    if (len - pos < block_len(&h, 4))
      return "truncated version 1 data block";
    pos += block_len(&h, 4);
    if ((why = read_header(data + pos, len - pos, &h)) != NULL)
      return why;
    pos += HEADER_LEN;
    time_size = 8;
  }
  size_t blen = block_len(&h, time_size);
  if (len - pos < blen)
    return "truncated data block";
  tzif_table t = {0};
  why = read_block(data + pos, &h, time_size, &t);
  z->at = t.at;
  z->offset = t.offset;
  z->count = t.count;
  z->initial_offset = t.initial_offset;
  if (why != NULL)
    return why;
  pos += blen;
  if (h.version >= 2) {
    if ((why = read_footer(data + pos, len - pos, &z->rule, &z->has_rule)))
      return why;
    /* The rule follows the last transition, which is out of reach. */
    if (t.dropped_late)
      z->has_rule = false;
  }
  return precompute(z);
}

int chime__zone_from_tzif(const char *name, const uint8_t *data, size_t len,
                          chime_zone **ret_zone, char *errbuf,
                          size_t errbuf_len) {
  if (name == NULL || (data == NULL && len > 0) || ret_zone == NULL)
    return CHIME_EINVAL;
  chime_zone *z = calloc(1, sizeof *z);
  if (z == NULL || (z->name = strdup(name)) == NULL) {
    free(z);
    return CHIME_ENOMEM;
  }
  const char *why = data == NULL ? "empty image" : parse_image(data, len, z);
  if (why != NULL) {
    bool oom = strcmp(why, "out of memory") == 0;
    chime__zone_free(z);
    if (oom)
      return CHIME_ENOMEM;
    return fail(errbuf, errbuf_len, why);
  }
  *ret_zone = z;
  return 0;
}
