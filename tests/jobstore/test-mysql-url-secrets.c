/*
 * test-mysql-url-secrets.c: no error message about a store URL shows its
 * password (issue 22, finding 7), whether the URL is parsed by the MySQL
 * store (jobstore/mysql/url.c) or opened by scheme (jobstore/open.c).
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/url.h"
#include "jobstore/store.h"

#include <stdio.h>
#include <string.h>

#define SECRET "hunter2secret"

static const struct {
  int line;
  const char *url;
} bad_urls[] = {
    /* An unencoded '@' and '/' in the password: the host part reads
     * "ss:hunter2secret". */
    {__LINE__, "mysql://app:p@ss:" SECRET "/x@db.example:3306/chime"},
    {__LINE__, "mysql://app:p@ss:" SECRET "@db.example:3306/chime"},
    {__LINE__, "mariadb://app:" SECRET "@db.example/chime"},
    {__LINE__, "MYSQL://app:" SECRET "@db.example/chime"},
    {__LINE__, "mysql:/app:" SECRET "@db.example/chime"},
    {__LINE__, " mysql://app:" SECRET "@db.example/chime"},
    {__LINE__, "mysql://app:" SECRET "@db.example:99999/chime"},
    {__LINE__, "mysql://app:" SECRET "@[::1/chime"},
    {__LINE__, "mysql://app:" SECRET "%zz@db.example/chime"},
    {__LINE__, "mysql://app:" SECRET "@/chime"},
    {__LINE__, "mysql://app:" SECRET "@db.example/"},
};

static void test_mysql_url_secrets_never_echoed(void) {
  for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
    char err[512] = "";
    chime__mysql_url *u = NULL;
    int r = chime__mysql_url_parse(bad_urls[i].url, &u, err, sizeof err);
    if (r == 0) {
      chime__mysql_url_free(u);
      continue; /* parsed (the connection fails later, elsewhere) */
    }
    if (strstr(err, SECRET) || strlen(err) == 0)
      fprintf(stderr, "row at line %d: %s\n", bad_urls[i].line, err);
    CU_ASSERT_EQUAL(r, CHIME_EURL);
    CU_ASSERT(strlen(err) > 0);
    CU_ASSERT_PTR_NULL(strstr(err, SECRET));
    CU_ASSERT_PTR_NULL(strstr(err, "hunter"));
  }
}

static void test_mysql_url_secrets_never_echoed_at_open(void) {
  for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
    char err[512] = "";
    chime__mysql_url *u = NULL;
    if (chime__mysql_url_parse(bad_urls[i].url, &u, NULL, 0) == 0) {
      chime__mysql_url_free(u); /* opening it would reach for the host */
      continue;
    }
    chime_store *st = NULL;
    chime_store_options o = {.scheduler_name = "s", .instance_id = "n"};
    int r = chime__store_open(bad_urls[i].url, &o, &st, err, sizeof err);
    if (st)
      st->ops->free(st);
    if (strstr(err, SECRET))
      fprintf(stderr, "row at line %d: %s\n", bad_urls[i].line, err);
    CU_ASSERT(r < 0);
    CU_ASSERT_PTR_NULL(strstr(err, SECRET));
  }
}

/* The port message still says what is wrong. */
static void test_mysql_url_secrets_port_message_is_clear(void) {
  char err[512] = "";
  chime__mysql_url *u = NULL;
  CU_ASSERT_EQUAL(chime__mysql_url_parse("mysql://app:p@ss:" SECRET
                                         "/x@db.example/chime",
                                         &u, err, sizeof err),
                  CHIME_EURL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "port"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "percent-encoded"));
}

static CU_TestInfo tests[] = {
    {"finding 7: parse errors never show the password",
     test_mysql_url_secrets_never_echoed},
    {"finding 7: open errors never show the password",
     test_mysql_url_secrets_never_echoed_at_open},
    {"finding 7: the port message says what to do",
     test_mysql_url_secrets_port_message_is_clear},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-url-secrets", .pTests = tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
