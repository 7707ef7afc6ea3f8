/*
 * store-conformance-impl.h: helpers shared by the files of the store
 * conformance suite (store-conformance.c: definitions, lists, pausing,
 * calendars; store-conformance-fire.c: acquire, fire, complete, misfires,
 * load and threads).  Every helper asserts fatally on failure.
 */
#ifndef CHIME_TESTS_STORE_CONFORMANCE_IMPL_H
#define CHIME_TESTS_STORE_CONFORMANCE_IMPL_H

#include "chime.h"
#include "jobstore/store.h"

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2030-01-01T00:00:00Z: far enough ahead that the wall clock never
 * matters; every time a test passes is explicit. */
#define T0 INT64_C(1893456000000)
#define SEC INT64_C(1000)
#define MINUTE (60 * SEC)
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)
/* The misfire threshold the suite opens stores with. */
#define THRESHOLD MINUTE

extern const char *sc_url;
extern void (*sc_reset)(void);
/* Sizes of the load and multi-threaded tests. */
extern size_t sc_load_triggers, sc_thread_triggers;

chime_store *sc_open(void);
/* A store whose node clock is off by clock_offset_ms (the test skew). */
chime_store *sc_open_skewed(int64_t clock_offset_ms);
void sc_close(chime_store *st);

chime_job *sc_job(const char *group, const char *name, const char *type,
                  bool durable);
void sc_add_job(chime_store *st, const char *group, const char *name,
                const char *type, bool durable);
/* A simple trigger of job (jgroup, jname) starting at start. */
chime_trigger *sc_simple(const char *group, const char *name,
                         const char *jgroup, const char *jname, int64_t start,
                         int64_t interval, int32_t repeat);
void sc_add_simple(chime_store *st, const char *group, const char *name,
                   const char *jgroup, const char *jname, int64_t start,
                   int64_t interval, int32_t repeat);
/* A cron trigger (UTC) of job (jgroup, jname) starting at start. */
chime_trigger *sc_cron(const char *group, const char *name, const char *jgroup,
                       const char *jname, const char *expr, int64_t start);

chime_trigger_status sc_status(chime_store *st, const char *group,
                               const char *name);
/* The stored trigger (the caller frees it). */
chime_trigger *sc_get(chime_store *st, const char *group, const char *name);
int64_t sc_next(chime_store *st, const char *group, const char *name);

/* Acquires; returns the count and the fires in *ret (freed with
 * sc_fires_free). */
size_t sc_acquire(chime_store *st, int64_t now, int64_t no_later_than,
                  size_t max, const chime_type_set *types, chime_fire ***ret);
void sc_fires_free(chime_fire **fires, size_t n);
/* Acquires at most one fire due by now and fires it; NULL when none. */
chime_fire *sc_fire_next(chime_store *st, int64_t now);
/* Completes a fire without an outcome. */
int sc_complete(chime_store *st, const chime_fire *fire);
/* Completes fire as a failed run (an error, at the store's now). */
int sc_fail(chime_store *st, const chime_fire *fire);

/* The tests of store-conformance-fire.c. */
extern CU_TestInfo sc_fire_tests[];
/* The tests of store-conformance-lease.c. */
extern CU_TestInfo sc_lease_tests[];
/* The tests of store-conformance-policies.c. */
extern CU_TestInfo sc_policy_tests[];
/* The tests of store-conformance-time.c. */
extern CU_TestInfo sc_time_tests[];
/* The tests of store-conformance-shards.c. */
extern CU_TestInfo sc_shard_tests[];
/* The tests of store-conformance-limits.c. */
extern CU_TestInfo sc_limit_tests[];
/* The tests of store-conformance-queue.c. */
extern CU_TestInfo sc_queue_tests[];
/* The tests of store-conformance-history.c. */
extern CU_TestInfo sc_history_tests[];
/* The tests of store-conformance-drain.c. */
extern CU_TestInfo sc_drain_tests[];
/* The tests of store-conformance-admin-ops.c. */
extern CU_TestInfo sc_admin_ops_tests[];
/* The tests of store-conformance-repair.c. */
extern CU_TestInfo sc_repair_tests[];
/* The tests of store-conformance-figures.c. */
extern CU_TestInfo sc_figure_tests[];

#endif /* CHIME_TESTS_STORE_CONFORMANCE_IMPL_H */
