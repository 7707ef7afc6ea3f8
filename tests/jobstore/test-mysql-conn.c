/*
 * test-mysql-conn.c: connections to the real (throwaway) MariaDB server:
 * version, a round trip, and the errors a user sees for a wrong password,
 * an unknown database and a server that is not there.
 */
#include "chime.h"
#include "harness.h"
#include "jobstore/mysql/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static chime__mysql_url *test_url(void) {
  chime__mysql_url *u = NULL;
  const char *text = chime_test_mysql_url();
  if (text)
    CU_ASSERT_EQUAL(chime__mysql_url_parse(text, &u, NULL, 0), 0);
  return u;
}

static void test_mysql_conn_server_version(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  unsigned long v = mysql_get_server_version(db);
  /* The store needs SKIP LOCKED: MariaDB 10.6 or MySQL 8. */
  CU_ASSERT(v >= 100600);
  CU_ASSERT_PTR_NOT_NULL(strstr(mysql_get_server_info(db), "MariaDB"));
  mysql_close(db);
}

static void test_mysql_conn_round_trip(void) {
  MYSQL *db = chime_test_mysql_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL_FATAL(
      mysql_query(db,
                  "CREATE TEMPORARY TABLE t (k INT PRIMARY KEY, v VARCHAR(32)) "
                  "CHARACTER SET utf8mb4"),
      0);
  CU_ASSERT_EQUAL(mysql_query(db, "INSERT INTO t VALUES (1, 'zürich ☃')"), 0);
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, "SELECT v, 40 + 2 FROM t WHERE k = 1"),
                        0);
  MYSQL_RES *res = mysql_store_result(db);
  CU_ASSERT_PTR_NOT_NULL_FATAL(res);
  MYSQL_ROW row = mysql_fetch_row(res);
  CU_ASSERT_PTR_NOT_NULL_FATAL(row);
  CU_ASSERT_STRING_EQUAL(row[0], "zürich ☃");
  CU_ASSERT_STRING_EQUAL(row[1], "42");
  mysql_free_result(res);
  mysql_close(db);
}

static void test_mysql_conn_wrong_password(void) {
  chime__mysql_url *u = test_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  free(u->password);
  u->password = strdup("definitely-not-the-password");
  MYSQL *db = NULL;
  char err[512] = "";
  CU_ASSERT_EQUAL(chime__mysql_connect(u, 5, &db, err, sizeof err),
                  CHIME_EAUTH);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "Access denied"));
  CU_ASSERT_PTR_NULL(strstr(err, "definitely-not")); /* never print secrets */
  chime__mysql_url_free(u);
}

static void test_mysql_conn_unknown_database(void) {
  chime__mysql_url *u = test_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  free(u->database);
  u->database = strdup("chime_no_such_db");
  MYSQL *db = NULL;
  char err[512] = "";
  int r = chime__mysql_connect(u, 5, &db, err, sizeof err);
  /* A user without rights on a database may be told "access denied". */
  CU_ASSERT(r == CHIME_ENOTFOUND || r == CHIME_EAUTH);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "chime_no_such_db"));
  chime__mysql_url_free(u);
}

static void test_mysql_conn_server_not_there(void) {
  chime__mysql_url *u = test_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  u->port = 1; /* nothing listens on tcpmux */
  MYSQL *db = NULL;
  char err[512] = "";
  CU_ASSERT_EQUAL(chime__mysql_connect(u, 2, &db, err, sizeof err),
                  CHIME_ECONNECT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "127.0.0.1:1/"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "Can't connect"));
  chime__mysql_url_free(u);
}

static CU_TestInfo conn_tests[] = {
    {"server version is MariaDB >= 10.6", test_mysql_conn_server_version},
    {"round trip with utf8mb4 text", test_mysql_conn_round_trip},
    {"wrong password gives CHIME_EAUTH", test_mysql_conn_wrong_password},
    {"unknown database gives a clear error", test_mysql_conn_unknown_database},
    {"unreachable server gives CHIME_ECONNECT",
     test_mysql_conn_server_not_there},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-conn", .pTests = conn_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
