/*
 * test-utf8.c: text made fit for the database (core/utf8.h): invalid bytes
 * replaced, long text cut on a character boundary (issue 22, finding 2).
 */
#include "core/utf8.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  int line;
  const char *in;
  bool valid;
} validity[] = {
    {__LINE__, "", true},
    {__LINE__, "plain ascii", true},
    {__LINE__,
     "\xC3\xA9"
     "chec \xE2\x82\xAC \xF0\x9F\x98\x80",
     true},
    {__LINE__,
     "\xE9"
     "chec",
     false},                               /* Latin-1 e-acute */
    {__LINE__, "\xC0\x80", false},         /* overlong NUL */
    {__LINE__, "\xED\xA0\x80", false},     /* a surrogate */
    {__LINE__, "\xF4\x90\x80\x80", false}, /* above U+10FFFF */
    {__LINE__, "\xE2\x82", false},         /* cut inside a character */
    {__LINE__, "\x80", false},             /* a lone continuation */
};

static void test_utf8_validity(void) {
  for (size_t i = 0; i < sizeof validity / sizeof validity[0]; i++) {
    bool v = chime__utf8_valid(validity[i].in, strlen(validity[i].in));
    if (v != validity[i].valid)
      fprintf(stderr, "row at line %d\n", validity[i].line);
    CU_ASSERT_EQUAL(v, validity[i].valid);
  }
}

static void test_utf8_invalid_bytes_replaced(void) {
  char *s = chime__utf8_sanitize("\xE9"
                                 "chec \xFF",
                                 100);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s, "\xEF\xBF\xBD"
                            "chec \xEF\xBF\xBD");
  CU_ASSERT(chime__utf8_valid(s, strlen(s)));
  free(s);
  CU_ASSERT_PTR_NULL(chime__utf8_sanitize(NULL, 10));
}

static void test_utf8_cut_on_character_boundary(void) {
  /* 1,366 euro signs are 4,098 bytes: a cut at 4,096 would split one. */
  size_t n = 1366;
  char *in = malloc(3 * n + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  for (size_t i = 0; i < n; i++)
    memcpy(in + 3 * i, "\xE2\x82\xAC", 3);
  in[3 * n] = '\0';
  char *s = chime__utf8_sanitize(in, 4096);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(strlen(s), 4095);
  CU_ASSERT(chime__utf8_valid(s, strlen(s)));
  free(s);
  s = chime__utf8_sanitize("ab\xE2\x82\xAC", 4); /* room for "ab" only */
  CU_ASSERT_STRING_EQUAL(s, "ab");
  free(s);
  s = chime__utf8_sanitize("ab\xFF", 4); /* the replacement does not fit */
  CU_ASSERT_STRING_EQUAL(s, "ab");
  free(s);
  free(in);
}

static CU_TestInfo utf8_tests[] = {
    {"validity", test_utf8_validity},
    {"invalid bytes are replaced", test_utf8_invalid_bytes_replaced},
    {"cut on a character boundary", test_utf8_cut_on_character_boundary},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "core/utf8", .pTests = utf8_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
