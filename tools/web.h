/*
 * web.h: the pieces of chime-web, the operators' dashboard: an HTTP server
 * (libmicrohttpd, run by one thread of its own) over chimectl's queries and
 * actions
 * (chimectl.h: the same library, no second copy).  chime-web.c parses the
 * options and runs the server; web_http.c routes requests, checks their
 * parameters, the Host and Origin, the operator's session and the CSRF
 * token, and closes clients too slow to send a request; web_pages.c
 * renders the pages; web_api.c answers /api/ and /metrics and runs the
 * actions; web_out.c decodes parameters, builds responses and escapes;
 * web_assets.c holds the built-in style sheet and script.
 *
 * Terms: a *response* is built in a memory stream (open_memstream); a
 * *session* is an operator's login (a random id in a cookie, with its own
 * random CSRF token that every form carries).
 */
#ifndef CHIME_TOOLS_WEB_H
#define CHIME_TOOLS_WEB_H

#include "chimectl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest query or form value accepted (longer: 400). */
#define WEB_MAX_VALUE 512
/* The largest POST body accepted (larger: 413). */
#define WEB_MAX_BODY 8192
/* How long a sign-in lasts (12 hours). */
#define WEB_SESSION_MS (12 * 3600 * 1000)
/* Sessions kept at once (the oldest goes first). */
#define WEB_MAX_SESSIONS 32
/* Action log lines kept for the events page. */
#define WEB_LOG_LINES 50
/* Connections open at once, and of one client address (a proxy in front
 * counts as one client); more are closed at once. */
#define WEB_MAX_CONNECTIONS 512
#define WEB_MAX_PER_CLIENT 128
/* A request (its line, headers and body) arrives within this long of the
 * connection's start or of its previous answer, else the connection is
 * closed: a client that trickles its headers holds its place no longer. */
#define WEB_REQUEST_MS 10000
/* A connection that sends or takes nothing for this long is closed. */
#define WEB_IDLE_S 15
/* --allowed-host names at most. */
#define WEB_MAX_ALLOWED_HOSTS 16

typedef struct web_session {
  char id[33];   /* cookie value, hex */
  char csrf[33]; /* the forms' token, hex */
  long long created_ms;
} web_session;

/* The server's state: the daemon's thread and the check-ins of the main
 * thread, under lock. */
typedef struct web {
  pthread_mutex_t lock;
  ctl base;          /* options; its admin is the one store connection */
  const char *token; /* the operator token, NULL: read-only */
  web_session sessions[WEB_MAX_SESSIONS];
  size_t nsessions;
  char log[WEB_LOG_LINES][360]; /* the actions, newest last */
  size_t nlog;
  /* The names a request's Host may give (set before serving, then read
   * only): the --allowed-host names, lower case, and, set by web_serve,
   * the listen address as a Host gives it ("127.0.0.1", "[::1]"), whether
   * it is a loopback (then localhost, 127.0.0.1 and [::1] too) or a
   * wildcard address (then any IP address and localhost). */
  char allowed_hosts[WEB_MAX_ALLOWED_HOSTS][254];
  size_t nallowed_hosts;
  char listen_host[48];
  bool loopback, wildcard;
} web;

/* One request's parameters, decoded: the query (GET) or the form (POST). */
#define WEB_MAX_PARAMS 16
typedef struct web_params {
  size_t n;
  char key[WEB_MAX_PARAMS][32];
  char *value[WEB_MAX_PARAMS]; /* malloc'd */
} web_params;

/* The value of key (NULL: absent). */
const char *web_param(const web_params *p, const char *key);
void web_params_free(web_params *p);
/* Decodes an application/x-www-form-urlencoded body.  Returns: 0, or an
 * HTTP status (400) with a message in msg. */
int web_params_parse(const char *body, size_t len, web_params *ret, char *msg,
                     size_t msg_len);
/* Whether s is valid UTF-8 (what the database and the pages take). */
bool web_utf8_ok(const char *s);
/* Whether every key of p is one of the NULL-terminated allowed; else the
 * first unknown one into msg. */
bool web_params_known(const web_params *p, const char *const *allowed,
                      char *msg, size_t msg_len);

/* A response under construction. */
typedef struct web_reply {
  int status;
  const char *type; /* content type */
  char *body;
  size_t len;
  FILE *out;          /* writes to body */
  char location[600]; /* a redirect's target, "" none */
  char cookie[200];   /* a Set-Cookie value, "" none */
} web_reply;

/* Opens r's stream with status and type.  Returns: 0 or CHIME_ENOMEM. */
int web_reply_open(web_reply *r, int status, const char *type);
/* A plain-text error: "STATUS: MESSAGE", JSON for /api/ paths. */
void web_reply_error(web_reply *r, bool json, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The HTTP status for a chimectl exit code. */
int web_status_of(int exit_code);

/* ----------------------------------------------------------- escaping */

/* s with & < > " ' as entities (NULL: "-"). */
void web_html(FILE *out, const char *s);
/* s percent-encoded for a URL's query. */
void web_url(FILE *out, const char *s);

/* ----------------------------------------------------------- pages */

/* What a page needs of the request. */
typedef struct web_page {
  web *w;
  ctl *c;                 /* the request's copy of w->base */
  const web_params *q;    /* the query */
  const web_session *ses; /* the operator's session, NULL: read-only */
  const char *path;
  const char *msg; /* a message to show (after an action) */
} web_page;

/* Each renders a whole page into r (status 200, or an error page).
 * Returns the HTTP status. */
int web_page_overview(web_page *p, web_reply *r);
int web_page_triggers(web_page *p, web_reply *r);
int web_page_jobs(web_page *p, web_reply *r);
int web_page_history(web_page *p, web_reply *r);
int web_page_events(web_page *p, web_reply *r);
int web_page_login(web_page *p, web_reply *r);

/* The page's head and navigation, and its end. */
void web_page_begin(web_page *p, web_reply *r, const char *title);
void web_page_end(web_page *p, web_reply *r);
/* A ctl_table as an HTML table of its first shown columns. */
void web_table_html(FILE *out, const ctl_table *t, size_t ncols);
/* Cell (row, col) of t ("" for none). */
const char *web_cell(const ctl_table *t, size_t row, size_t col);
/* An action's form: POST to /api/ACTION with fields (name, value pairs,
 * NULL-terminated), a button label and, when not NULL, a confirmation. */
/* 16 random bytes as 32 hex digits into out.  Returns: 0; -1 (no
 * randomness).  web_http.c. */
int web_random_hex(char out[33]);

void web_form(web_page *p, FILE *out, const char *action,
              const char *const *fields, const char *label,
              const char *confirm);

/* ----------------------------------------------------------- the API */

/* Puts the history filter of p->q (job, outcome, since, failed, page,
 * limit) into p->c; *ret_page the page (from 1).  Returns: 0 or 400 with
 * msg. */
int web_history_params(web_page *p, long *ret_page, char *msg, size_t len);

/* GET /api/NAME: the same data as chimectl --json.  Returns the status. */
int web_api_get(web_page *p, const char *name, web_reply *r);
/* GET /metrics: Prometheus text. */
int web_metrics(web_page *p, web_reply *r);
/* POST /api/ACTION (pause, resume, fire, cancel, delete) for who; the
 * parameters are checked, nothing is written on bad input.  Returns the
 * status; msg gets what was done or why not. */
int web_api_action(web_page *p, const char *action, const char *who, char *msg,
                   size_t msg_len);
/* Appends a line to the action log (and stderr). */
void web_log(web *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ----------------------------------------------------------- assets */

extern const char web_asset_css[];
extern const char web_asset_js[];

/* ----------------------------------------------------------- server */

/* Adds name (a DNS name or an IP address, no port) to the Host names w
 * answers (--allowed-host).  Returns: 0, or CTL_USAGE with a message
 * printed. */
int web_allow_host(web *w, const char *name);

/* Serves w on address (IPv4 or IPv6) and port (0: any, printed) until
 * SIGINT or SIGTERM, checking the operator's store in meanwhile
 * (web_http.c).  Returns: 0 or an exit code (message printed). */
int web_serve(web *w, const char *address, unsigned port);

#endif /* CHIME_TOOLS_WEB_H */
