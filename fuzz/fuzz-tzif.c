/*
 * fuzz-tzif.c: libFuzzer target for the TZif parser.  Any input must either
 * parse into a zone or fail with CHIME_EFORMAT (never crash, leak or read
 * out of bounds), and a zone that parses must convert instants both ways
 * with from_local's results mapping back to the same wall-clock time.
 */
#include "chime.h"
#include "triggers/tz.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_instant(const chime_zone *zone, int64_t t_ms) {
  chime_civil local;
  int32_t offset;
  chime__zone_to_local(zone, t_ms, &local, &offset);
  int64_t back[2];
  int n = chime__zone_from_local(zone, &local, back);
  assert(n >= 0 && n <= 2);
  for (int i = 0; i < n; i++) {
    chime_civil again;
    chime__zone_to_local(zone, back[i], &again, NULL);
    assert(again.year == local.year && again.month == local.month &&
           again.day == local.day && again.hour == local.hour &&
           again.minute == local.minute && again.second == local.second);
  }
  assert(n < 2 || back[0] < back[1]);
  (void)chime__zone_resolve_local(zone, &local);
  local.minute = (local.minute + 30) % 60;
  (void)chime__zone_resolve_local(zone, &local);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  chime_zone *zone = NULL;
  char why[128];
  int rc = chime__zone_from_tzif("fuzz", data, size, &zone, why, sizeof why);
  assert(rc == 0 || rc == CHIME_EFORMAT || rc == CHIME_ENOMEM);
  if (rc != 0)
    return 0;
  static const int64_t instants[] = {
      INT64_MIN,
      -62135596800000,
      -2208988800000,
      -1,
      0,
      1700000000000,
      2147483647000,
      4102444800000,
      253402300799000,
      INT64_MAX,
  };
  for (size_t i = 0; i < sizeof instants / sizeof instants[0]; i++)
    check_instant(zone, instants[i]);
  chime__zone_free(zone);
  return 0;
}
