/*
 * harness-mysql.c: the test database.  A test that needs MariaDB and cannot
 * reach it FAILS, naming the reason: a missing database is never a skip.
 */
#define CHIME_TEST_MYSQL 1
#include "harness.h"

#include "jobstore/mysql/conn.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

const char *chime_test_mysql_url(void) {
  const char *url = getenv("CHIME_TEST_MYSQL_URL");
  if (!url || !*url) {
    fprintf(stderr, "CHIME_TEST_MYSQL_URL is not set: run the MariaDB-backed "
                    "tests through ./dev test\n");
    CU_FAIL("CHIME_TEST_MYSQL_URL is not set (run ./dev test)");
    return NULL;
  }
  return url;
}

int chime_test_mysql_url_with(char *buf, size_t len, const char *params) {
  const char *base = chime_test_mysql_url();
  if (!base)
    return 1;
  int n =
      snprintf(buf, len, "%s%c%s", base, strchr(base, '?') ? '&' : '?', params);
  return n > 0 && (size_t)n < len ? 0 : 1;
}

chime_config *chime_test_mysql_config(const char *params,
                                      const char *instance_id) {
  char url[1024];
  CU_ASSERT_EQUAL_FATAL(chime_test_mysql_url_with(url, sizeof url, params), 0);
  chime_config *cfg = NULL;
  CU_ASSERT_EQUAL_FATAL(chime_config_new(&cfg), 0);
  if (chime_config_set_store_url(cfg, url) != 0 ||
      chime_config_set_instance_id(cfg, instance_id) != 0) {
    chime_config_free(cfg);
    CU_FAIL_FATAL("the test database's configuration was refused");
  }
  return cfg;
}

MYSQL *chime_test_mysql_open(void) {
  char err[512];
  chime__mysql_url *url = NULL;
  MYSQL *conn = NULL;
  const char *text = chime_test_mysql_url();
  if (!text)
    return NULL;
  int r = chime__mysql_url_parse(text, &url, err, sizeof err);
  if (r == 0)
    r = chime__mysql_connect(url, 5, &conn, err, sizeof err);
  chime__mysql_url_free(url);
  if (r < 0) {
    fprintf(stderr,
            "MariaDB test database unreachable: %s\n"
            "Start it with ./dev db-up (./dev test does this for you).\n",
            err);
    CU_FAIL("MariaDB test database unreachable (see stderr)");
    return NULL;
  }
  return conn;
}
