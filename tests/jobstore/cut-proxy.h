/*
 * cut-proxy.h: a TCP proxy in front of the test server that cuts its first
 * connection at a chosen moment: when the client sends a statement holding
 * a given text, both ends are closed before the statement reaches the
 * server.  Every later connection is passed through untouched.  It plays
 * the network failing after a connection was made (a server restarting, a
 * proxy dropping it), where a test needs it at one exact step.
 *
 * Threads: one thread accepts and forwards; the calls below are made by the
 * test's thread.
 */
#ifndef CHIME_TESTS_CUT_PROXY_H
#define CHIME_TESTS_CUT_PROXY_H

#include <stdbool.h>

typedef struct cut_proxy cut_proxy;

/* Starts a proxy on a free loopback port to host:port that cuts its first
 * connection when the client sends text (NULL: it cuts nothing until
 * cut_proxy_cut_next).  Returns: the proxy, or NULL (a message on stderr).
 * Ownership: free it with cut_proxy_stop. */
cut_proxy *cut_proxy_start(const char *host, unsigned port, const char *text);

/* From now on, cuts the next statement holding text on any connection (the
 * statement never reaches the server), once, and from that moment refuses
 * new connections until cut_proxy_refuse(p, false), so that the test acts
 * before the client reconnects; cut_proxy_did_cut tells. */
void cut_proxy_cut_next(cut_proxy *p, const char *text);

/* While refuse is true, new connections are closed at once (the database
 * unreachable); existing ones go on. */
void cut_proxy_refuse(cut_proxy *p, bool refuse);

/* Closes every connection at once and refuses new ones until
 * cut_proxy_refuse(p, false): the database unreachable for the client (a
 * network partition), not for anyone else. */
void cut_proxy_cut_all(cut_proxy *p);

/* The loopback port the proxy listens on. */
unsigned cut_proxy_port(const cut_proxy *p);

/* Whether a connection was cut (since the last cut_proxy_cut_next); how
 * many were accepted (refused ones not counted). */
bool cut_proxy_did_cut(cut_proxy *p);
int cut_proxy_accepted(cut_proxy *p);

/* Stops the proxy, closes every connection and frees it. */
void cut_proxy_stop(cut_proxy *p);

#endif /* CHIME_TESTS_CUT_PROXY_H */
