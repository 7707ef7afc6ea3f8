/*
 * test-error.c: the error model and the version, which every binding and
 * every message a user reads depend on.
 */
#include "chime.h"
#include "harness.h"

#include <stdio.h>
#include <string.h>

static const struct {
  int code;
  const char *name;
} all_codes[] = {
#define XX(name, code, text) {code, "CHIME_" #name},
    CHIME_ERRNO_MAP(XX)
#undef XX
};
#define NCODES (sizeof all_codes / sizeof all_codes[0])

static void test_error_codes_are_negative_and_distinct(void) {
  for (size_t i = 0; i < NCODES; i++) {
    CU_ASSERT(all_codes[i].code < 0);
    for (size_t j = i + 1; j < NCODES; j++)
      CU_ASSERT(all_codes[i].code != all_codes[j].code);
  }
}

static void test_error_every_code_has_name_and_sentence(void) {
  for (size_t i = 0; i < NCODES; i++) {
    const char *text = chime_strerror(all_codes[i].code);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT(strlen(text) > 5);
    CU_ASSERT_STRING_NOT_EQUAL(text, "unknown error");
    CU_ASSERT_STRING_EQUAL(chime_err_name(all_codes[i].code),
                           all_codes[i].name);
  }
}

static void test_error_numbers_are_stable(void) {
  /* Published numbers never change: bindings and logs depend on them. */
  CU_ASSERT_EQUAL(CHIME_EINVAL, -1);
  CU_ASSERT_EQUAL(CHIME_EPARSE, -5);
  CU_ASSERT_EQUAL(CHIME_EUNKNOWNZONE, -6);
  CU_ASSERT_EQUAL(CHIME_ENEVERFIRES, -7);
  CU_ASSERT_EQUAL(CHIME_ECONNECT, -11);
  CU_ASSERT_EQUAL(CHIME_ESCHEMA, -13);
  CU_ASSERT_EQUAL(CHIME_ENOTOWNER, -14);
  CU_ASSERT_STRING_EQUAL(chime_strerror(CHIME_EUNKNOWNZONE),
                         "unknown time zone");
}

static void test_error_unknown_and_success(void) {
  CU_ASSERT_STRING_EQUAL(chime_strerror(0), "success");
  CU_ASSERT_STRING_EQUAL(chime_err_name(0), "CHIME_OK");
  CU_ASSERT_STRING_EQUAL(chime_strerror(-9999), "unknown error");
  CU_ASSERT_STRING_EQUAL(chime_err_name(12345), "CHIME_UNKNOWN");
}

static void test_error_version_matches_header(void) {
  char expected[32];
  snprintf(expected, sizeof expected, "%d.%d.%d", CHIME_VERSION_MAJOR,
           CHIME_VERSION_MINOR, CHIME_VERSION_PATCH);
  CU_ASSERT_STRING_EQUAL(chime_version(), expected);
  CU_ASSERT_EQUAL(chime_version_hex(), (unsigned)CHIME_VERSION_HEX);
}

static void test_error_free_accepts_null(void) {
  chime_free(NULL);
  CU_PASS("chime_free(NULL) is a no-op");
}

static CU_TestInfo error_tests[] = {
    {"codes are negative and distinct",
     test_error_codes_are_negative_and_distinct},
    {"every code has a name and a sentence",
     test_error_every_code_has_name_and_sentence},
    {"published numbers are stable", test_error_numbers_are_stable},
    {"unknown code and success", test_error_unknown_and_success},
    {"version matches the header", test_error_version_matches_header},
    {"chime_free accepts NULL", test_error_free_accepts_null},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "core/error", .pTests = error_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
