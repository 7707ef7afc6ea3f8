/*
 * tz_impl.h: the private layout of a chime_zone and the POSIX TZ rule that
 * extends a zone past its transition table (tz_posix.c).
 *
 * Terms: a "transition" is the instant (UTC seconds) at which a new UTC
 * offset takes effect; a "period" is the half-open span of instants between
 * two transitions, during which one offset is in force; the "rule" is the
 * POSIX TZ string of a TZif footer ("EST5EDT,M3.2.0,M11.1.0").
 */
#ifndef CHIME_TRIGGERS_TZ_IMPL_H
#define CHIME_TRIGGERS_TZ_IMPL_H

#include "triggers/tz.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on what a zone may hold (RFC 8536 allows more; real zones use less).
 */
#define CHIME_TZ_MAX_TRANSITIONS 10000
#define CHIME_TZ_MAX_TYPES 256
#define CHIME_TZ_MAX_FOOTER 255
#define CHIME_TZ_MAX_NAME 255
/* |UTC offset| is below 26 hours (RFC 8536 section 3.2 recommends this). */
#define CHIME_TZ_MAX_OFFSET_S 93599
/* Rule times may be -167..167 hours (RFC 8536 section 3.3.1). */
#define CHIME_TZ_MAX_RULE_TIME_S (167 * 3600 + 59 * 60 + 59)
/*
 * Instants are clamped to +-2^50 s (about 35 million years) before any
 * arithmetic, so offsets can never overflow an int64_t.  The limit in
 * milliseconds is a whole number of seconds, so a clamped instant floored
 * to seconds stays within the limit in seconds.
 */
#define CHIME_TZ_LIMIT_S (INT64_C(1) << 50)
#define CHIME_TZ_LIMIT_MS (CHIME_TZ_LIMIT_S * 1000)

/* One end of a DST period in a rule: a day of the year and a local time. */
typedef struct chime_tz_rule_date {
  char kind;      /* 'J': Julian 1-365 without Feb 29; 'D': 0-365; 'M' */
  int day;        /* for 'J' and 'D' */
  int month;      /* for 'M': 1-12 */
  int week;       /* for 'M': 1-5, 5 meaning the last */
  int wday;       /* for 'M': 0 (Sunday) - 6 */
  int32_t time_s; /* local time of day, -167 h .. 167 h */
} chime_tz_rule_date;

/* A POSIX TZ rule.  Offsets are seconds EAST of UTC (the string says west). */
typedef struct chime_tz_rule {
  int32_t std_offset;
  int32_t dst_offset;
  bool has_dst;
  chime_tz_rule_date start; /* enters DST, in standard local time */
  chime_tz_rule_date end;   /* leaves DST, in daylight local time */
} chime_tz_rule;

/*
 * A zone.  The table lists transitions at[0] < at[1] < ... with offset[i] in
 * force from at[i] on; initial_offset is in force before at[0].  When
 * has_rule, the rule decides every instant at or after the last table entry
 * (or every instant, if the table is empty).  The loader appends the rule's
 * transitions up to CHIME_TZ_PRECOMPUTE_YEAR to the table so that the common
 * case is one binary search; later instants are computed from the rule.
 */
struct chime_zone {
  char *name;
  size_t count;
  int64_t *at;
  int32_t *offset;
  int32_t initial_offset;
  bool has_rule;
  chime_tz_rule rule;
};

#define CHIME_TZ_PRECOMPUTE_YEAR 2100

/*
 * chime__tz_rule_parse: parses a POSIX TZ string with the RFC 8536
 * extensions (hours up to 167 and negative in rule times).
 * Returns: 0; CHIME_EFORMAT when text is not a valid rule.
 */
int chime__tz_rule_parse(const char *text, size_t len, chime_tz_rule *ret_rule);

/*
 * chime__tz_rule_transitions: the rule's two transitions of a year, as UTC
 * seconds: ret_at[0] enters DST and ret_at[1] leaves it.  Only for rules
 * with DST; year must be within +-100,000,000.
 */
void chime__tz_rule_transitions(const chime_tz_rule *rule, int64_t year,
                                int64_t ret_at[2]);

/*
 * chime__tz_rule_period: the period of the rule containing instant t_s
 * (seconds, within +-CHIME_TZ_LIMIT_S): its offset, and its bounds
 * [*ret_start, *ret_end) (INT64_MIN / INT64_MAX when unbounded).
 */
void chime__tz_rule_period(const chime_tz_rule *rule, int64_t t_s,
                           int32_t *ret_offset, int64_t *ret_start,
                           int64_t *ret_end);

/*
 * chime__zone_new_fixed: a zone with one offset forever.  name is copied.
 * Returns: 0; CHIME_ENOMEM.
 */
int chime__zone_new_fixed(const char *name, int32_t offset_s,
                          chime_zone **ret_zone);

#endif /* CHIME_TRIGGERS_TZ_IMPL_H */
