/*
 * demo.c: the program `./dev demo` runs.  For now it connects to the
 * database named by its argument (or CHIME_DEMO_MYSQL_URL), prints the
 * server's version and a round trip through it, and exits.
 */
#include "chime.h"
#include "jobstore/mysql_conn.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : getenv("CHIME_DEMO_MYSQL_URL");
  char err[512];
  chime_mysql_url *url = NULL;
  MYSQL *db = NULL;
  if (!text) {
    fprintf(stderr, "usage: %s mysql://USER:PASSWORD@HOST:PORT/DATABASE\n", argv[0]);
    return 2;
  }
  int r = chime__mysql_url_parse(text, &url, err, sizeof err);
  if (r == 0)
    r = chime__mysql_connect(url, 5, &db, err, sizeof err);
  chime__mysql_url_free(url);
  if (r < 0) {
    fprintf(stderr, "chime-demo: %s (%s)\n", err, chime_err_name(r));
    return 1;
  }
  printf("chime %s\n", chime_version());
  printf("MariaDB server version: %s\n", mysql_get_server_info(db));
  if (mysql_query(db, "SELECT NOW(3)") == 0) {
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = res ? mysql_fetch_row(res) : NULL;
    if (row)
      printf("database clock: %s\n", row[0]);
    mysql_free_result(res);
  }
  mysql_close(db);
  return 0;
}
