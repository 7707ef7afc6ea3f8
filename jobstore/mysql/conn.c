/*
 * mysql/conn.c: connections to MySQL/MariaDB through Connector/C.
 * mysql_library_init runs once per process, before the first connection
 * (pthread_once); a connection, once open, belongs to its caller.
 */
#include "jobstore/mysql/conn.h"

#include "chime.h"
#include "jobstore/mysql/stmt.h"

#include <assert.h>
#include <errmsg.h>
#include <mysqld_error.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int connect_host(const chime__mysql_url *url, size_t member,
                        unsigned connect_timeout_s, unsigned io_timeout_s,
                        MYSQL **ret_conn, char *errbuf, size_t errbuf_len);

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
  /* A read-only server (a replica, a demoted primary): not usable for
   * now; the store moves to the next member of the URL (tx.c). */
  case ER_OPTION_PREVENTS_STATEMENT:
  case ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION:
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

bool chime__mysql_read_only_error(unsigned e) {
  return e == ER_OPTION_PREVENTS_STATEMENT ||
         e == ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION;
}

int chime__mysql_connect(const chime__mysql_url *url,
                         unsigned connect_timeout_s, MYSQL **ret_conn,
                         char *errbuf, size_t errbuf_len) {
  return chime__mysql_connect_io(url, connect_timeout_s, 0, ret_conn, errbuf,
                                 errbuf_len);
}

/* Runs a probe of a member just connected (queries/member_*.sql: no
 * table, no slot, so its embedded text as it is) and copies its rows.
 * Returns: 0; CHIME_ESTORE (the server's error left in conn);
 * CHIME_ENOMEM. */
static int probe(MYSQL *conn, chime__mysql_stmt_id id, chime__mysql_rows *ret) {
  const char *sql = chime__mysql_sql_text[id];
  assert(sql && !strstr(sql, "{P}") && !strstr(sql, "/*:"));
  memset(ret, 0, sizeof *ret);
  if (mysql_real_query(conn, sql, (unsigned long)strlen(sql)) != 0)
    return CHIME_ESTORE;
  MYSQL_RES *res = mysql_store_result(conn);
  if (!res)
    return CHIME_ESTORE;
  int r = chime__mysql_rows_take(res, ret);
  mysql_free_result(res);
  return r;
}

/*
 * Whether the server behind conn takes writes: a server whose read_only
 * (any value but OFF: MariaDB 11 adds NO_LOCK and NO_LOCK_NO_ADMIN) or
 * innodb_read_only is set is a replica, or a primary demoted by a
 * fail-over; chime never writes there, whatever its user's privileges
 * (a user with READ_ONLY ADMIN or SUPER could), so it is passed over like
 * a member that does not answer.  A server that cannot answer the
 * question counts as writable (its statements would say otherwise).
 */
static bool writable(MYSQL *conn, char *why, size_t why_len) {
  chime__mysql_rows rows;
  if (probe(conn, CHIME__Q_MEMBER_READ_ONLY, &rows) < 0)
    return true;
  static const char *const names[] = {"read_only", "innodb_read_only"};
  bool ok = true;
  for (size_t i = 0; rows.nrows > 0 && ok && i < 2 && i < rows.ncols; i++) {
    const char *v = chime__mysql_rows_text(&rows, 0, i);
    if (v && strcmp(v, "0") != 0 && strcasecmp(v, "OFF") != 0) {
      snprintf(why, why_len, "read-only (%s %s)", names[i],
               strcmp(v, "1") == 0 ? "ON" : v);
      ok = false;
    }
  }
  chime__mysql_rows_free(&rows);
  return ok;
}

/*
 * Whether the member behind conn takes clients' transactions: a server
 * without Galera always does; a Galera member only when it is ready
 * (wsrep_ready ON) and in the primary component.  A server that cannot
 * answer the question (no such tables: not MariaDB) counts as no Galera.
 */
static bool member_ready(MYSQL *conn, bool *ret_galera, char *why,
                         size_t why_len) {
  *ret_galera = false;
  chime__mysql_rows rows;
  if (probe(conn, CHIME__Q_MEMBER_GALERA, &rows) < 0)
    return true;
  bool on = false, ready = false, primary = false;
  char status[32] = "";
  for (size_t i = 0; i < rows.nrows && rows.ncols == 2; i++) {
    const char *row[2] = {chime__mysql_rows_text(&rows, i, 0),
                          chime__mysql_rows_text(&rows, i, 1)};
    if (!row[0] || !row[1])
      continue;
    if (strcmp(row[0], "wsrep_on") == 0)
      on = strcmp(row[1], "ON") == 0;
    else if (strcmp(row[0], "wsrep_ready") == 0)
      ready = strcmp(row[1], "ON") == 0;
    else if (strcmp(row[0], "wsrep_cluster_status") == 0) {
      primary = strcmp(row[1], "Primary") == 0;
      snprintf(status, sizeof status, "%s", row[1]);
    }
  }
  chime__mysql_rows_free(&rows);
  *ret_galera = on;
  if (on && !(ready && primary)) {
    snprintf(why, why_len,
             "Galera member not ready (wsrep_ready %s, cluster status %s)",
             ready ? "ON" : "OFF", status[0] ? status : "unknown");
    return false;
  }
  return true;
}

int chime__mysql_connect_member(const chime__mysql_url *url, size_t first,
                                unsigned connect_timeout_s,
                                unsigned io_timeout_s, MYSQL **ret_conn,
                                chime__mysql_member_info *info, char *errbuf,
                                size_t errbuf_len) {
  assert(url && url->nhosts > 0 && ret_conn);
  int r = CHIME_ECONNECT;
  if (errbuf && errbuf_len)
    errbuf[0] = '\0';
  for (size_t k = 0; k < url->nhosts; k++) {
    size_t m = (first + k) % url->nhosts;
    char one[384] = "", why[160] = "";
    MYSQL *conn = NULL;
    bool galera = false;
    r = connect_host(url, m, connect_timeout_s, io_timeout_s, &conn, one,
                     sizeof one);
    if (r == 0 && (!writable(conn, why, sizeof why) ||
                   !member_ready(conn, &galera, why, sizeof why))) {
      mysql_close(conn);
      conn = NULL;
      chime__mysql_url_member(url, m, one, sizeof one);
      size_t n = strlen(one);
      snprintf(one + n, sizeof one - n, ": %s", why);
      r = CHIME_ECONNECT;
    }
    if (r == 0) {
      *ret_conn = conn;
      if (info) {
        info->member = m;
        info->galera = galera;
      }
      if (errbuf && errbuf_len)
        errbuf[0] = '\0';
      return 0;
    }
    if (errbuf && errbuf_len) {
      size_t n = strlen(errbuf);
      if (n < errbuf_len)
        snprintf(errbuf + n, errbuf_len - n, "%s%s", n ? "; " : "", one);
    }
    /* Access denied or an unknown database is the same on every member:
     * trying the others would only repeat it. */
    if (r == CHIME_EAUTH || r == CHIME_ENOTFOUND || r == CHIME_ENOMEM)
      break;
  }
  return r;
}

int chime__mysql_connect_io(const chime__mysql_url *url,
                            unsigned connect_timeout_s, unsigned io_timeout_s,
                            MYSQL **ret_conn, char *errbuf, size_t errbuf_len) {
  return chime__mysql_connect_member(url, 0, connect_timeout_s, io_timeout_s,
                                     ret_conn, NULL, errbuf, errbuf_len);
}

static int connect_host(const chime__mysql_url *url, size_t member,
                        unsigned connect_timeout_s, unsigned io_timeout_s,
                        MYSQL **ret_conn, char *errbuf, size_t errbuf_len) {
  assert(url && ret_conn && connect_timeout_s > 0 && member < url->nhosts);
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
  if (!mysql_real_connect(conn, chime__mysql_url_host(url, member), url->user,
                          url->password, url->database,
                          chime__mysql_url_port(url, member), url->socket, 0)) {
    unsigned err = mysql_errno(conn);
    chime__mysql_url_member(url, member, where, sizeof where);
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
