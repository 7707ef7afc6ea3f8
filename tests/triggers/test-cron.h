/*
 * test-cron.h: the parts of the triggers/cron suite that live outside
 * test-cron.c (cron-quartz-cases.c: the Quartz conformance replay;
 * cron-parse-cases.c: the parser's errors, limits, round trip and
 * descriptions), and what the files share.
 */
#ifndef CHIME_TESTS_TRIGGERS_TEST_CRON_H
#define CHIME_TESTS_TRIGGERS_TEST_CRON_H

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

void test_cron_quartz_conformance(void);
void test_cron_unix_conformance(void);
void test_cron_errors_name_field_and_column(void);
void test_cron_limits_and_arguments(void);
void test_cron_round_trip_and_case(void);
void test_cron_describe(void);

#endif /* CHIME_TESTS_TRIGGERS_TEST_CRON_H */
