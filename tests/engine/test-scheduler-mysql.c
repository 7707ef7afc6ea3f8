/*
 * test-scheduler-mysql.c: the engine suite (test-scheduler.c) once more,
 * with every scheduler on the MySQL/MariaDB store of the throwaway server:
 * the same behaviours must hold when every claim, fire and completion is a
 * durable transaction.  Its tables have their own prefix (chime_es_), and
 * clear=1 empties them whenever a scheduler opens the store.
 */
#define CHIME_SCHEDULER_TEST_MAIN 1
#include "test-scheduler.c"

#include <mysql.h>

static int init_url(void) {
  const char *base = chime_test_mysql_url();
  if (!base)
    return 1;
  int n = snprintf(store_url, sizeof store_url,
                   "%s%cauto_create=1&clear=1&prefix=chime_es_", base,
                   strchr(base, '?') ? '&' : '?');
  return n > 0 && (size_t)n < sizeof store_url ? 0 : 1;
}

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "engine/scheduler-mysql",
       .pInitFunc = init_url,
       .pTests = scheduler_tests},
      CU_SUITE_INFO_NULL,
  };
  int r = chime_test_main(suites);
  mysql_library_end(); /* Connector/C's one-time allocations */
  return r;
}
