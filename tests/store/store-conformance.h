/*
 * store-conformance.h: the job store conformance suite, written against
 * jobstore/store.h only, so that every store (memory, MySQL/MariaDB) runs
 * the very same tests.  A runner names the store by URL.
 */
#ifndef CHIME_TESTS_STORE_CONFORMANCE_H
#define CHIME_TESTS_STORE_CONFORMANCE_H

#include <CUnit/CUnit.h>
#include <stddef.h>

/*
 * chime_store_conformance_tests: the tests (a CU_TEST_INFO_NULL-terminated
 * array), run against stores opened with url.  Every test opens its own
 * store and expects it empty: a database store's runner must hand out a
 * clean database (url is kept, not copied).
 */
CU_TestInfo *chime_store_conformance_tests(const char *url);

/*
 * chime_store_conformance_set_reset: a function every test calls before it
 * opens its store (a database runner empties its tables there); NULL for
 * none (the memory store starts empty anyway).
 */
void chime_store_conformance_set_reset(void (*reset)(void));

/*
 * chime_store_conformance_set_sizes: how many triggers the load test
 * (default 100000) and the multi-threaded test (default 20000) create; a
 * slower store may ask for fewer.  0 keeps a default.
 */
void chime_store_conformance_set_sizes(size_t load_triggers,
                                       size_t thread_triggers);

#endif /* CHIME_TESTS_STORE_CONFORMANCE_H */
