/*
 * test-store-mysql.c: the store conformance suite (tests/store/) against
 * the MySQL/MariaDB store on the throwaway MariaDB server.  The store URL
 * is the test database's with its own table prefix (chime_sc_, so that it
 * runs beside the other MariaDB-backed runners), auto_create=1 (the schema
 * is created on first use) and clear=1: every open deletes the rows of the
 * scheduler, so each store the suite opens starts empty, as it requires.
 */
#include "harness.h"
#include "store-conformance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kept by the suite (not copied): filled in by the suite's init. */
static char store_url[2048];

static int init_url(void) {
  return chime_test_mysql_url_with(store_url, sizeof store_url,
                                   "auto_create=1&clear=1&prefix=chime_sc_");
}

int main(void) {
  /* Every trigger added is a durable commit: 10,000 and 4,000 triggers
   * exercise ordering and concurrency as well as the memory store's
   * 100,000 do, in a fraction of the time. */
  long big = 10000, mid = 4000;
  /* The Galera suite runs it smaller (tests/galera/galera.py): every
   * commit there is certified on three members sharing two cores. */
  const char *sizes = getenv("CHIME_TEST_STORE_SIZES");
  if (sizes &&
      (sscanf(sizes, "%ld,%ld", &big, &mid) != 2 || big <= 0 || mid <= 0)) {
    fprintf(stderr, "CHIME_TEST_STORE_SIZES must be BIG,MID\n");
    return 1;
  }
  chime_store_conformance_set_sizes((size_t)big, (size_t)mid);
  CU_SuiteInfo suites[] = {
      {.pName = "store/mysql",
       .pInitFunc = init_url,
       .pTests = chime_store_conformance_tests(store_url)},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  /* Connector/C's one-time allocations, for LeakSanitizer. */
  mysql_library_end();
  return r;
}
