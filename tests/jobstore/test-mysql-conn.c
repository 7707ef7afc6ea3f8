/*
 * test-mysql-conn.c: connections to the real (throwaway) MariaDB server:
 * version, a round trip, and the errors a user sees for a wrong password,
 * an unknown database and a server that is not there; the public
 * chime_mysql_url (chime-mysql.h) over the same code.
 */
#include "chime-mysql.h"
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

/* The test URL with a dead member (nothing listens on port 1) put first
 * in its host list. */
static chime__mysql_url *url_dead_first(void) {
  const char *text = chime_test_mysql_url();
  if (!text)
    return NULL;
  const char *slash = strchr(text + strlen("mysql://"), '/');
  const char *at = NULL;
  for (const char *c = text; slash && c < slash; c++)
    if (*c == '@')
      at = c;
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  char buf[2048];
  snprintf(buf, sizeof buf, "%.*s127.0.0.1:1,%s", (int)(at + 1 - text), text,
           at + 1);
  chime__mysql_url *u = NULL;
  CU_ASSERT_EQUAL(chime__mysql_url_parse(buf, &u, NULL, 0), 0);
  return u;
}

/* Several hosts: a member that does not answer is passed over. */
static void test_mysql_conn_next_member(void) {
  chime__mysql_url *u = url_dead_first();
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  CU_ASSERT_EQUAL(u->nhosts, 2);
  MYSQL *db = NULL;
  char err[512] = "x";
  chime__mysql_member_info info = {.member = 9};
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_connect_member(u, 0, 2, 0, &db, &info, err, sizeof err), 0);
  CU_ASSERT_EQUAL(info.member, 1);
  CU_ASSERT_FALSE(info.galera); /* the throwaway server has no Galera */
  CU_ASSERT_STRING_EQUAL(err, "");
  mysql_close(db);
  /* Starting from member 1 goes there first; from 2 wraps around to 0
   * (dead) and then 1. */
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_connect_member(u, 2, 2, 0, &db, &info, err, sizeof err), 0);
  CU_ASSERT_EQUAL(info.member, 1);
  mysql_close(db);
  /* Every member dead: CHIME_ECONNECT, naming each. */
  u->hosts[1].port = 1;
  CU_ASSERT_EQUAL(
      chime__mysql_connect_member(u, 0, 2, 0, &db, &info, err, sizeof err),
      CHIME_ECONNECT);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "127.0.0.1:1/"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "; "));
  CU_ASSERT_PTR_NULL(strstr(err, "chime-test-pw"));
  chime__mysql_url_free(u);
}

/* The first column of the first row of sql on db, into buf. */
static void query_text(MYSQL *db, const char *sql, char *buf, size_t len) {
  buf[0] = '\0';
  CU_ASSERT_EQUAL_FATAL(mysql_query(db, sql), 0);
  MYSQL_RES *res = mysql_store_result(db);
  MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
  if (row && row[0])
    snprintf(buf, len, "%s", row[0]);
  mysql_free_result(res);
}

/* The public URL of text, or NULL (a failed assertion). */
static chime_mysql_url *public_url(const char *text) {
  chime_mysql_url *url = NULL;
  char err[512] = "";
  CU_ASSERT_EQUAL(chime_mysql_url_new(text, &url, err, sizeof err), 0);
  if (!url)
    fprintf(stderr, "%s\n", err);
  return url;
}

/* A good URL: a plain autocommit utf8mb4 connection to its database. */
static void test_mysql_conn_public_connect(void) {
  const char *text = chime_test_mysql_url();
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  char with[2048];
  snprintf(with, sizeof with, "%s%cio_timeout_s=7&auto_create=1", text,
           strchr(text, '?') ? '&' : '?');
  const char *const texts[] = {text, with};
  for (size_t i = 0; i < 2; i++) {
    chime_mysql_url *url = public_url(texts[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(url);
    MYSQL *db = NULL;
    char err[512] = "x";
    CU_ASSERT_EQUAL_FATAL(chime_mysql_url_connect(url, &db, err, sizeof err),
                          0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(db);
    CU_ASSERT_STRING_EQUAL(err, "");
    chime_mysql_url_free(url); /* the connection stays open */
    chime__mysql_url *u = test_url();
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    char v[128];
    query_text(db, "SELECT DATABASE()", v, sizeof v);
    CU_ASSERT_STRING_EQUAL(v, u->database);
    query_text(db, "SELECT @@autocommit", v, sizeof v);
    CU_ASSERT_STRING_EQUAL(v, "1");
    query_text(db, "SELECT @@character_set_connection", v, sizeof v);
    CU_ASSERT_STRING_EQUAL(v, "utf8mb4");
    mysql_close(db);
    chime__mysql_url_free(u);
  }
  MYSQL *db = (MYSQL *)&db;
  CU_ASSERT_EQUAL(chime_mysql_url_connect(NULL, &db, NULL, 0), CHIME_EINVAL);
  CU_ASSERT_PTR_NULL(db);
}

/* A bad URL never reaches the server: CHIME_EURL, without its password. */
static void test_mysql_conn_public_bad_url(void) {
  chime_mysql_url *url = (chime_mysql_url *)&url;
  char err[512] = "";
  CU_ASSERT_EQUAL(
      chime_mysql_url_new("mysql://chime:s3cret-pw@127.0.0.1:99999/chime", &url,
                          err, sizeof err),
      CHIME_EURL);
  CU_ASSERT_PTR_NULL(url);
  CU_ASSERT(err[0] != '\0');
  CU_ASSERT_PTR_NULL(strstr(err, "s3cret"));
}

/* A wrong password is CHIME_EAUTH, the password never shown. */
static void test_mysql_conn_public_wrong_password(void) {
  char *text = NULL;
  CU_ASSERT_EQUAL_FATAL(
      chime__mysql_url_with_password(chime_test_mysql_url(),
                                     "definitely-not-the-password", &text),
      0);
  chime_mysql_url *url = public_url(text);
  free(text);
  CU_ASSERT_PTR_NOT_NULL_FATAL(url);
  MYSQL *db = (MYSQL *)&db;
  char err[512] = "";
  CU_ASSERT_EQUAL(chime_mysql_url_connect(url, &db, err, sizeof err),
                  CHIME_EAUTH);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "Access denied"));
  CU_ASSERT_PTR_NULL(strstr(err, "definitely-not"));
  chime_mysql_url_free(url);
}

/* Nothing listens: CHIME_ECONNECT, naming where. */
static void test_mysql_conn_public_not_there(void) {
  chime_mysql_url *url = public_url("mysql://chime:pw@127.0.0.1:1/chime");
  CU_ASSERT_PTR_NOT_NULL_FATAL(url);
  MYSQL *db = NULL;
  char err[512] = "";
  CU_ASSERT_EQUAL(chime_mysql_url_connect(url, &db, err, sizeof err),
                  CHIME_ECONNECT);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "127.0.0.1:1/"));
  chime_mysql_url_free(url);
}

static CU_TestInfo conn_tests[] = {
    {"server version is MariaDB >= 10.6", test_mysql_conn_server_version},
    {"round trip with utf8mb4 text", test_mysql_conn_round_trip},
    {"wrong password gives CHIME_EAUTH", test_mysql_conn_wrong_password},
    {"unknown database gives a clear error", test_mysql_conn_unknown_database},
    {"unreachable server gives CHIME_ECONNECT",
     test_mysql_conn_server_not_there},
    {"several hosts: a dead member is passed over",
     test_mysql_conn_next_member},
    {"chime_mysql_url_connect: a good URL connects",
     test_mysql_conn_public_connect},
    {"chime_mysql_url_new: a bad URL is CHIME_EURL, no password shown",
     test_mysql_conn_public_bad_url},
    {"chime_mysql_url_connect: a wrong password is CHIME_EAUTH",
     test_mysql_conn_public_wrong_password},
    {"chime_mysql_url_connect: no server is CHIME_ECONNECT",
     test_mysql_conn_public_not_there},
    CU_TEST_INFO_NULL,
};

int main(void) {
  CU_SuiteInfo suites[] = {
      {.pName = "jobstore/mysql-conn", .pTests = conn_tests},
      CU_SUITE_INFO_NULL,
  };
  return chime_test_main(suites);
}
