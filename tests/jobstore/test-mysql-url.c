/*
 * test-mysql-url.c: store URLs, good and bad.  A bad URL must be refused
 * with a message that says what is wrong, before anything is sent.
 */
#include "chime-mysql.h"
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_mysql_url_full(void) {
  chime__mysql_url *u = NULL;
  char err[256];
  int r = chime__mysql_url_parse("mysql://chime:s%40cret@127.0.0.1:13306/"
                                 "chime_test?table_prefix=x_&socket=/tmp/s",
                                 &u, err, sizeof err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  CU_ASSERT_STRING_EQUAL(u->user, "chime");
  CU_ASSERT_STRING_EQUAL(u->password, "s@cret");
  CU_ASSERT_STRING_EQUAL(u->host, "127.0.0.1");
  CU_ASSERT_EQUAL(u->port, 13306);
  CU_ASSERT_STRING_EQUAL(u->database, "chime_test");
  CU_ASSERT_STRING_EQUAL(chime__mysql_url_param(u, "table_prefix"), "x_");
  CU_ASSERT_STRING_EQUAL(u->socket, "/tmp/s");
  CU_ASSERT_PTR_NULL(chime__mysql_url_param(u, "nope"));
  char red[256];
  chime__mysql_url_redacted(u, red, sizeof red);
  CU_ASSERT_STRING_EQUAL(red, "mysql://chime:***@127.0.0.1:13306/chime_test");
  CU_ASSERT_PTR_NULL(strstr(red, "cret"));
  chime__mysql_url_free(u);
}

static void test_mysql_url_defaults_and_ipv6(void) {
  chime__mysql_url *u = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_url_parse("mysql://root@db/app", &u, NULL, 0), 0);
  CU_ASSERT_EQUAL(u->port, 3306);
  CU_ASSERT_STRING_EQUAL(u->password, "");
  CU_ASSERT_PTR_NULL(u->socket);
  chime__mysql_url_free(u);
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_url_parse("mysql://a:b@[::1]:3307/d", &u, NULL, 0), 0);
  CU_ASSERT_STRING_EQUAL(u->host, "::1");
  CU_ASSERT_EQUAL(u->port, 3307);
  chime__mysql_url_free(u);
}

static const struct {
  int line;
  const char *url;
  int code;
  const char *says; /* a word the message must contain */
} bad_urls[] = {
    {__LINE__, "postgres://a:b@h/d", CHIME_EURL, "mysql://"},
    {__LINE__, "mysql://a:b@h", CHIME_EURL, "database"},
    {__LINE__, "mysql://a:b@h/", CHIME_EURL, "database"},
    {__LINE__, "mysql://h/d", CHIME_EURL, "user"},
    {__LINE__, "mysql://:b@h/d", CHIME_EURL, "user"},
    {__LINE__, "mysql://a:b@/d", CHIME_EURL, "host"},
    {__LINE__, "mysql://a:b@h:0/d", CHIME_EURL, "port"},
    {__LINE__, "mysql://a:b@h:70000/d", CHIME_EURL, "port"},
    {__LINE__, "mysql://a:b@h:12x/d", CHIME_EURL, "port"},
    {__LINE__, "mysql://a:b%zz@h/d", CHIME_EURL, "password"},
    {__LINE__, "mysql://a:b%00@h/d", CHIME_EURL, "password"},
    {__LINE__, "mysql://a:b@[::1/d", CHIME_EURL, "["},
    {__LINE__, "mysql://a:b@h/d?novalue", CHIME_EURL, "KEY=VALUE"},
    {__LINE__, "", CHIME_EURL, "mysql://"},
    {__LINE__, "mysql://a:b@h1,/d", CHIME_EURL, "empty one"},
    {__LINE__, "mysql://a:b@,h2/d", CHIME_EURL, "empty one"},
    {__LINE__, "mysql://a:b@h1,,h3/d", CHIME_EURL, "empty one"},
    {__LINE__, "mysql://a:b@h1:1,h2:x/d", CHIME_EURL, "port"},
    {__LINE__, "mysql://a:b@h1,[::1/d", CHIME_EURL, "["},
    {__LINE__, "mysql://a:b@h1,h2/d?socket=/tmp/s", CHIME_EURL, "socket"},
};

static void test_mysql_url_rejects_malformed(void) {
  for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
    chime__mysql_url *u = NULL;
    char err[256] = "";
    int r = chime__mysql_url_parse(bad_urls[i].url, &u, err, sizeof err);
    if (r != bad_urls[i].code || !strstr(err, bad_urls[i].says))
      fprintf(stderr, "row at line %d: %s -> %d '%s'\n", bad_urls[i].line,
              bad_urls[i].url, r, err);
    CU_ASSERT_EQUAL(r, bad_urls[i].code);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, bad_urls[i].says));
    CU_ASSERT_PTR_NULL(u);
  }
}

/* Several hosts: the members of one Galera cluster, in the URL's order. */
static void test_mysql_url_hosts(void) {
  chime__mysql_url *u = NULL;
  char err[256] = "";
  int r = chime__mysql_url_parse(
      "mysql://u:p%2Cw@db1:3307,10.0.0.2,[fe80::1]:3309/app?prefix=x_", &u, err,
      sizeof err);
  CU_ASSERT_EQUAL_FATAL(r, 0);
  CU_ASSERT_EQUAL(u->nhosts, 3);
  CU_ASSERT_STRING_EQUAL(u->hosts[0].host, "db1");
  CU_ASSERT_EQUAL(u->hosts[0].port, 3307);
  CU_ASSERT_STRING_EQUAL(u->hosts[1].host, "10.0.0.2");
  CU_ASSERT_EQUAL(u->hosts[1].port, 3306);
  CU_ASSERT_STRING_EQUAL(u->hosts[2].host, "fe80::1");
  CU_ASSERT_EQUAL(u->hosts[2].port, 3309);
  /* The first member stands for the URL where one host is expected. */
  CU_ASSERT_STRING_EQUAL(u->host, "db1");
  CU_ASSERT_EQUAL(u->port, 3307);
  CU_ASSERT_STRING_EQUAL(u->password, "p,w");
  CU_ASSERT_STRING_EQUAL(u->database, "app");
  CU_ASSERT_STRING_EQUAL(chime__mysql_url_param(u, "prefix"), "x_");
  char red[256];
  chime__mysql_url_redacted(u, red, sizeof red);
  CU_ASSERT_STRING_EQUAL(
      red, "mysql://u:***@db1:3307,10.0.0.2:3306,[fe80::1]:3309/app");
  chime__mysql_url_member(u, 2, red, sizeof red);
  CU_ASSERT_STRING_EQUAL(red, "mysql://u:***@[fe80::1]:3309/app");
  chime__mysql_url_free(u);

  /* One host is a list of one. */
  CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse("mysql://u@h/d", &u, NULL, 0),
                        0);
  CU_ASSERT_EQUAL(u->nhosts, 1);
  CU_ASSERT_STRING_EQUAL(u->host, u->hosts[0].host);
  chime__mysql_url_free(u);

  /* At most CHIME__MYSQL_URL_MAX_HOSTS members. */
  char many[1024] = "mysql://u@";
  for (int i = 0; i <= CHIME__MYSQL_URL_MAX_HOSTS; i++) {
    size_t n = strlen(many);
    snprintf(many + n, sizeof many - n, "%sh%d:%d", i ? "," : "", i, 3300 + i);
  }
  strcat(many, "/d");
  CU_ASSERT_EQUAL(chime__mysql_url_parse(many, &u, err, sizeof err),
                  CHIME_ELIMIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "hosts"));
  *strrchr(many, ',') = '\0';
  strcat(many, "/d");
  CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse(many, &u, err, sizeof err), 0);
  CU_ASSERT_EQUAL(u->nhosts, CHIME__MYSQL_URL_MAX_HOSTS);
  CU_ASSERT_EQUAL(u->hosts[CHIME__MYSQL_URL_MAX_HOSTS - 1].port,
                  3300 + CHIME__MYSQL_URL_MAX_HOSTS - 1);
  chime__mysql_url_free(u);
}

static void test_mysql_url_limits(void) {
  char big[CHIME__MYSQL_URL_MAX_LEN + 64];
  memset(big, 'a', sizeof big);
  memcpy(big, "mysql://u@h/", 12);
  big[sizeof big - 1] = '\0';
  chime__mysql_url *u = NULL;
  CU_ASSERT_EQUAL(chime__mysql_url_parse(big, &u, NULL, 0), CHIME_ELIMIT);
  CU_ASSERT_EQUAL(chime__mysql_url_parse(NULL, &u, NULL, 0), CHIME_EINVAL);
}

/* chimectl puts the password of --password-file into the URL: encoded, and
 * where the parser looks for it (the user part ends at the last '@'). */
static void test_mysql_url_with_password(void) {
  static const struct {
    int line;
    const char *url, *password, *want;
  } rows[] = {
      {__LINE__, "mysql://u:old@h/db", "n@w p", "mysql://u:n%40w%20p@h/db"},
      {__LINE__, "mysql://u@h:1/db?x=1", "pw", "mysql://u:pw@h:1/db?x=1"},
      {__LINE__, "mysql://u:p@ss@h/db", "x", "mysql://u:x@h/db"},
      {__LINE__, "mysql://u:p@h/db", NULL, "mysql://u:p@h/db"},
      {__LINE__, "mysql://h/db", "pw", "mysql://h/db"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char *out = NULL;
    int r = chime__mysql_url_with_password(rows[i].url, rows[i].password, &out);
    if (r != 0 || !out || strcmp(out, rows[i].want) != 0)
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, r,
              out ? out : "(null)");
    CU_ASSERT_EQUAL(r, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_STRING_EQUAL(out, rows[i].want);
    free(out);
  }
  chime__mysql_url *u = NULL;
  char *out = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_url_with_password("mysql://u@h/db", "a:b@c%d", &out), 0);
  CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse(out, &u, NULL, 0), 0);
  CU_ASSERT_STRING_EQUAL(u->password, "a:b@c%d");
  chime__mysql_url_free(u);
  free(out);
  CU_ASSERT_EQUAL(
      chime__mysql_url_with_password("postgres://u@h/db", "x", &out),
      CHIME_EURL);
}

static void test_mysql_url_prefix(void) {
  static const struct {
    int line;
    const char *url;
    int code;
    const char *want; /* the prefix, or a part of the message */
  } rows[] = {
      {__LINE__, "mysql://u@h/db", 0, "chime_"},
      {__LINE__, "mysql://u@h/db?prefix=Ab_9", 0, "Ab_9"},
      {__LINE__, "mysql://u@h/db?prefix=", 0, ""},
      {__LINE__, "mysql://u@h/db?prefix=a-b", CHIME_EURL, "only letters"},
      {__LINE__, "mysql://u@h/db?prefix=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
       CHIME_EURL, "longer than 32"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    chime__mysql_url *u = NULL;
    char prefix[CHIME__MYSQL_PREFIX_MAX + 1] = "", err[256] = "";
    CU_ASSERT_EQUAL_FATAL(chime__mysql_url_parse(rows[i].url, &u, NULL, 0), 0);
    int r = chime__mysql_url_prefix(u, prefix, sizeof prefix, err, sizeof err);
    const char *got = r == 0 ? prefix : err;
    if (r != rows[i].code || !strstr(got, rows[i].want))
      fprintf(stderr, "row at line %d: %d '%s'\n", rows[i].line, r, got);
    CU_ASSERT_EQUAL(r, rows[i].code);
    if (r == 0) {
      CU_ASSERT_STRING_EQUAL(prefix, rows[i].want);
    } else {
      CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].want));
    }
    chime__mysql_url_free(u);
    /* The public URL reads the same prefix, and refuses the same. */
    chime_mysql_url *pub = NULL;
    CU_ASSERT_EQUAL(chime_mysql_url_new(rows[i].url, &pub, err, sizeof err),
                    rows[i].code);
    if (rows[i].code == 0) {
      CU_ASSERT_STRING_EQUAL(chime_mysql_url_get_prefix(pub), rows[i].want);
    } else {
      CU_ASSERT_PTR_NULL(pub);
      CU_ASSERT_PTR_NOT_NULL(strstr(err, rows[i].want));
    }
    chime_mysql_url_free(pub);
  }
}

/* chime_mysql_url_new refuses a malformed URL with CHIME_EURL, its
 * password never in the message. */
static void test_mysql_url_public_refusals(void) {
  static const char *const bad[] = {
      "mysql://chime:s3cret-pw@127.0.0.1:notaport/chime",
      "mysql://chime:s3cret-pw@127.0.0.1",
      "http://chime:s3cret-pw@127.0.0.1/chime",
      "memory://",
      "mysql://chime:s3cret-pw@127.0.0.1/chime?io_timeout_s=forever",
      "mysql://chime:s3cret-pw@127.0.0.1/chime?io_timeout_s=3601",
      "mysql://chime:s3cret-pw@127.0.0.1/chime?prefix=a-b",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    chime_mysql_url *url = (chime_mysql_url *)&url; /* NULL on failure */
    char err[512] = "";
    CU_ASSERT_EQUAL(chime_mysql_url_new(bad[i], &url, err, sizeof err),
                    CHIME_EURL);
    CU_ASSERT_PTR_NULL(url);
    CU_ASSERT(err[0] != '\0');
    CU_ASSERT_PTR_NULL(strstr(err, "s3cret"));
  }
  chime_mysql_url *url = NULL;
  char err[64];
  CU_ASSERT_EQUAL(chime_mysql_url_new(NULL, &url, err, sizeof err),
                  CHIME_EINVAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "NULL"));
  CU_ASSERT_EQUAL(chime_mysql_url_new("mysql://u@h/db", NULL, NULL, 0),
                  CHIME_EINVAL);
  /* The store's own parameters are left to the store; io_timeout_s in
   * range is taken. */
  CU_ASSERT_EQUAL_FATAL(
      chime_mysql_url_new("mysql://u@h/db?io_timeout_s=0&auto_create=1", &url,
                          NULL, 0),
      0);
  chime_mysql_url_free(url);
  CU_ASSERT_STRING_EQUAL(chime_mysql_url_get_prefix(NULL), "");
  chime_mysql_url_free(NULL);
}

static CU_TestInfo url_tests[] = {
    {"chime_mysql_url_new refuses a bad URL, no password shown",
     test_mysql_url_public_refusals},
    {"full URL with escapes and parameters", test_mysql_url_full},
    {"defaults and IPv6", test_mysql_url_defaults_and_ipv6},
    {"malformed URLs are refused with a reason",
     test_mysql_url_rejects_malformed},
    {"several hosts (a Galera cluster's members)", test_mysql_url_hosts},
    {"limits", test_mysql_url_limits},
    {"a password put into a URL", test_mysql_url_with_password},
    {"the table prefix", test_mysql_url_prefix},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-url", .pTests = url_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
