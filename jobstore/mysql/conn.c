/*
 * mysql/conn.c: connections to MySQL/MariaDB through Connector/C.
 * mysql_library_init runs once per process, before the first connection
 * (pthread_once); a connection, once open, belongs to its caller.
 */
#include "jobstore/mysql/conn.h"

#include "chime.h"

#include <assert.h>
#include <errmsg.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

static pthread_once_t library_once = PTHREAD_ONCE_INIT;
static int library_status;

static void library_init_once(void) {
  library_status = mysql_library_init(0, NULL, NULL) == 0 ? 0 : CHIME_ESTORE;
}

int chime__mysql_library_init(void) {
  pthread_once(&library_once, library_init_once);
  return library_status;
}

int chime__mysql_error_code(unsigned mysql_errno) {
  switch (mysql_errno) {
  case 0:
    return 0;
  case CR_CONNECTION_ERROR:
  case CR_CONN_HOST_ERROR:
  case CR_UNKNOWN_HOST:
  case CR_SERVER_GONE_ERROR:
  case CR_SERVER_LOST:
  case CR_SERVER_LOST_EXTENDED:
  case ER_CON_COUNT_ERROR:
    return CHIME_ECONNECT;
  case ER_ACCESS_DENIED_ERROR:
  case ER_DBACCESS_DENIED_ERROR:
  case ER_TABLEACCESS_DENIED_ERROR:
    return CHIME_EAUTH;
  case ER_BAD_DB_ERROR:
    return CHIME_ENOTFOUND;
  case CR_OUT_OF_MEMORY:
    return CHIME_ENOMEM;
  default:
    return CHIME_ESTORE;
  }
}

int chime__mysql_connect(const chime__mysql_url *url,
                         unsigned connect_timeout_s, MYSQL **ret_conn,
                         char *errbuf, size_t errbuf_len) {
  return chime__mysql_connect_io(url, connect_timeout_s, 0, ret_conn, errbuf,
                                 errbuf_len);
}

int chime__mysql_connect_io(const chime__mysql_url *url,
                            unsigned connect_timeout_s, unsigned io_timeout_s,
                            MYSQL **ret_conn, char *errbuf, size_t errbuf_len) {
  assert(url && ret_conn && connect_timeout_s > 0);
  char where[256];
  int r = chime__mysql_library_init();
  if (r < 0) {
    if (errbuf && errbuf_len)
      snprintf(errbuf, errbuf_len, "mysql_library_init() failed");
    return r;
  }
  MYSQL *conn = mysql_init(NULL);
  if (!conn)
    return CHIME_ENOMEM;
  bool no_reconnect = false;
  unsigned protocol = url->socket ? MYSQL_PROTOCOL_SOCKET : MYSQL_PROTOCOL_TCP;
  mysql_optionsv(conn, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout_s);
  mysql_optionsv(conn, MYSQL_OPT_RECONNECT, &no_reconnect);
  mysql_optionsv(conn, MYSQL_OPT_PROTOCOL, &protocol);
  mysql_optionsv(conn, MYSQL_SET_CHARSET_NAME, "utf8mb4");
  if (io_timeout_s > 0) {
    mysql_optionsv(conn, MYSQL_OPT_READ_TIMEOUT, &io_timeout_s);
    mysql_optionsv(conn, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout_s);
  }
  if (!mysql_real_connect(conn, url->host, url->user, url->password,
                          url->database, url->port, url->socket, 0)) {
    unsigned err = mysql_errno(conn);
    chime__mysql_url_redacted(url, where, sizeof where);
    if (errbuf && errbuf_len)
      snprintf(errbuf, errbuf_len, "cannot open %s: %s (MySQL error %u)", where,
               mysql_error(conn), err);
    mysql_close(conn);
    r = chime__mysql_error_code(err);
    /* Whatever goes wrong while connecting, the caller could not connect. */
    return r == CHIME_ESTORE ? CHIME_ECONNECT : r;
  }
  *ret_conn = conn;
  return 0;
}
