/*
 * conn.h: opening MariaDB Connector/C connections from a store URL,
 * and turning client and server errors into chime error codes.  A
 * connection is used by one thread at a time.
 */
#ifndef CHIME_JOBSTORE_MYSQL_CONN_H
#define CHIME_JOBSTORE_MYSQL_CONN_H

#include "jobstore/mysql/url.h"

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>

/* Runs mysql_library_init() once per process; safe from any thread. */
int chime__mysql_library_init(void);

/*
 * chime__mysql_connect: opens a connection (utf8mb4, autocommit on, no
 * automatic reconnect: reconnecting is the store's decision).
 * connect_timeout_s bounds the TCP connect and the login.
 * Returns: 0; CHIME_ECONNECT (server unreachable); CHIME_EAUTH (access
 * denied); CHIME_ENOTFOUND (unknown database); CHIME_ESTORE (anything else);
 * CHIME_ENOMEM.  errbuf receives one line naming the redacted URL and the
 * server's message.
 * Ownership: *ret_conn is the caller's, closed with mysql_close().
 */
int chime__mysql_connect(const chime__mysql_url *url,
                         unsigned connect_timeout_s, MYSQL **ret_conn,
                         char *errbuf, size_t errbuf_len);

/* chime__mysql_connect with read and write timeouts of io_timeout_s each
 * (0: Connector/C's default, none). */
int chime__mysql_connect_io(const chime__mysql_url *url,
                            unsigned connect_timeout_s, unsigned io_timeout_s,
                            MYSQL **ret_conn, char *errbuf, size_t errbuf_len);

/* What a connection found of its member when it opened. */
typedef struct chime__mysql_member_info {
  size_t member; /* its index in the URL's host list */
  bool galera;   /* the member runs Galera replication (wsrep_on) */
} chime__mysql_member_info;

/*
 * chime__mysql_connect_member: chime__mysql_connect_io over the URL's host
 * list, trying the members in turn from index first (modulo their count).
 * A member that answers but is not ready for clients is passed over like
 * one that does not answer: a read-only server (@@read_only or
 * @@innodb_read_only set: a replica, or a primary demoted by a
 * fail-over), or a Galera member whose wsrep_ready is not ON or whose
 * wsrep_cluster_status is not Primary (it left the primary component, or
 * is still joining).  info (may be NULL) receives the
 * member used and whether it runs Galera.
 * Returns: 0; the error of the last member tried (CHIME_ECONNECT when it
 * was not ready), errbuf naming every member's failure briefly.
 * Ownership: *ret_conn is the caller's, closed with mysql_close().
 */
int chime__mysql_connect_member(const chime__mysql_url *url, size_t first,
                                unsigned connect_timeout_s,
                                unsigned io_timeout_s, MYSQL **ret_conn,
                                chime__mysql_member_info *info, char *errbuf,
                                size_t errbuf_len);

/* The chime error code for a MySQL client or server error number. */
int chime__mysql_error_code(unsigned mysql_errno);
/* Whether a MySQL error number says the server is read-only:
 * ER_OPTION_PREVENTS_STATEMENT (1290, --read-only) or
 * ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION (1792).  The statement was
 * refused: nothing of it (a refused COMMIT: nothing of its transaction)
 * was written. */
bool chime__mysql_read_only_error(unsigned mysql_errno);

#endif /* CHIME_JOBSTORE_MYSQL_CONN_H */
