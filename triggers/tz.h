/*
 * tz.h: time zones (the public chime_zone).  A zone maps UTC instants to
 * wall-clock ("local") time and back.  IANA zones are read from the
 * system's TZif files (RFC 8536, versions 1-4), including the POSIX TZ
 * footer rule that extends a zone past its last listed transition; fixed
 * offsets ("UTC", "GMT+8", "+05:30") need no file.  Loaded zones are cached
 * and immutable, so every thread may share them without locks.
 */
#ifndef CHIME_TRIGGERS_TZ_H
#define CHIME_TRIGGERS_TZ_H

#include "chime.h"
#include "triggers/civil.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * chime__zone_to_local: the wall-clock fields at instant t_ms, and the UTC
 * offset in force then (seconds east), if ret_offset_s is not NULL.
 * Instants beyond +-2^50 s are clamped.  Thread: any (zones are immutable).
 */
void chime__zone_to_local(const chime_zone *zone, int64_t t_ms,
                          chime_civil *ret_local, int32_t *ret_offset_s);

/*
 * chime__zone_from_local: every instant whose wall-clock time in zone is
 * `local` (its weekday is ignored), ascending.  Returns how many there are:
 * 0 inside a DST gap, 1 normally, 2 in the repeated hour of a fall-back
 * (a zone with several transitions within a day could have more: only the
 * first two are returned).  Years beyond +-10,000,000 give 0.  Thread: any.
 */
int chime__zone_from_local(const chime_zone *zone, const chime_civil *local,
                           int64_t ret_ms[2]);

/*
 * chime__zone_resolve_local: one instant for a wall-clock time, the way
 * java.util.Calendar (lenient) resolves it and so the way Quartz computes
 * calendar-based schedules: inside a gap the time moves forward by the
 * gap's length (02:30 on a spring-forward day becomes 03:30); in an overlap
 * it takes the LATER instant, the second pass (01:30 on a fall-back day is
 * 01:30 standard time).  Why: GregorianCalendar.computeTime gets the offset
 * from ZoneInfo.getOffsetsByWall, which finds the last transition whose
 * wall-clock time in the offset AFTER it is at or before the wall time
 * (and, past its table, reads the wall time as standard time); OpenJDK's
 * comment there says "we assume standard time" for both cases.  Years
 * beyond +-10,000,000 are clamped.
 */
int64_t chime__zone_resolve_local(const chime_zone *zone,
                                  const chime_civil *local);

/*
 * chime__zone_from_tzif: parses a TZif image (for the fuzzer and tests;
 * chime_zone_get reads files).  name is copied.
 * Returns: 0; CHIME_EFORMAT with a reason in errbuf; CHIME_ENOMEM.
 * Ownership: *ret_zone is the caller's, freed with chime__zone_free().
 */
int chime__zone_from_tzif(const char *name, const uint8_t *data, size_t len,
                          chime_zone **ret_zone, char *errbuf,
                          size_t errbuf_len);

/* Frees a zone made by chime__zone_from_tzif (never a cached one). */
void chime__zone_free(chime_zone *zone);

/*
 * Reloading zones whose file changed (tz_load.c says how).  A reload never
 * changes a zone object: the cache hands out a new one for the name from
 * then on, and the old one stays valid for whoever still borrows it.
 */

/*
 * chime__zone_set_dir: the zoneinfo folder that later loads and checks
 * read (NULL: the build's CHIME_ZONEINFO_DIR).  For tests, which need a
 * folder they can write; zones already cached keep their names.
 * Returns: 0; CHIME_ENOMEM.  Thread: any.
 */
int chime__zone_set_dir(const char *dir);

/*
 * chime__zone_check: stats the file of every cached file zone (when force,
 * reads every one) and reloads those whose bytes changed.  *ret_changed
 * (may be NULL) receives how many zones changed, *ret_failed (may be NULL)
 * how many files could not be read or parsed (those keep their old rules).
 * Returns: 0; CHIME_ENOMEM.  Thread: any (takes the cache's lock; does
 * file I/O).
 */
int chime__zone_check(bool force, size_t *ret_changed, size_t *ret_failed);

/*
 * chime__zone_changed_since: the names of the zones whose rules changed in
 * a generation after `since` (0: since the process started), and the
 * current generation, to pass as `since` next time.
 * Returns: 0; CHIME_ENOMEM.  Thread: any.
 * Ownership: *ret_names is the caller's (chime__zone_names_free); NULL
 * when *ret_count is 0.
 */
int chime__zone_changed_since(uint64_t since, char ***ret_names,
                              size_t *ret_count, uint64_t *ret_gen);

/* chime__zone_generation: the current generation (0: nothing reloaded).
 * Thread: any. */
uint64_t chime__zone_generation(void);

/* Frees what chime__zone_changed_since returned. */
void chime__zone_names_free(char **names, size_t count);

/*
 * chime__zone_fingerprint: a 64-bit fingerprint of the bytes zone name was
 * last read from (0 for a fixed offset), loading it when not cached.
 * Returns: 0; chime_zone_get's errors.  Thread: any.
 */
int chime__zone_fingerprint(const char *name, uint64_t *ret_fingerprint);

#endif /* CHIME_TRIGGERS_TZ_H */
