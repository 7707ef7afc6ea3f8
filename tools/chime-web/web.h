/*
 * web.h: the pieces of chime-web, the operators' dashboard: an HTTP server
 * (libmicrohttpd, run by one thread of its own) over chimectl's queries and
 * actions
 * (chimectl.h: the same library, no second copy).  chime-web.c parses the
 * options and runs the server; web_http.c routes requests, checks their
 * parameters, the Host and Origin, the operator's session and the CSRF
 * token, and closes clients too slow to send a request; web_pages.c
 * renders the list pages, all of them drawn with web_frame.c (the frame,
 * tables, forms, links: the lowest file, calling no page); web_api.c answers
 * /api/ and /metrics and runs the actions; web_detail.c renders the pages of
 * one job, trigger, fire or node and their JSON twins; web_auth.c holds the
 * users and roles; web_zone.c the operator's zone picker; web_out.c decodes
 * parameters, builds responses and escapes; web_assets.c holds the built-in
 * style sheet and script.
 *
 * Terms: a *response* is built in a memory stream (open_memstream); a
 * *session* is a user's login (a random id in a cookie, with its own
 * random CSRF token that every form carries); a *user* is a name, a role
 * (read-only or operator) and a token.
 */
#ifndef CHIME_TOOLS_WEB_H
#define CHIME_TOOLS_WEB_H

#include "chimectl.h"
#include "chimectl_edit.h"

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
/* The next fires /api/preview and the trigger page show (?count= up to
 * 50). */
#define WEB_PREVIEW_FIRES 8
/* --allowed-host names at most. */
#define WEB_MAX_ALLOWED_HOSTS 16

/* What a signed-in user may do: read-only users see what everyone sees;
 * operators act too.  Checked on the server, for every write. */
typedef enum { WEB_READ_ONLY, WEB_OPERATOR } web_role;

/* Users at most (--users-file). */
#define WEB_MAX_USERS 64
/* A user: a name (for the pages and the actions' record), a role and a
 * secret token (at least 8 bytes, unique). */
typedef struct web_user {
  char name[64];
  char token[256];
  web_role role;
} web_user;

typedef struct web_session {
  char id[33];   /* cookie value, hex */
  char csrf[33]; /* the forms' token, hex */
  long long created_ms;
  const web_user *user; /* who signed in */
} web_session;

/* The server's state: the daemon's thread and the check-ins of the main
 * thread, under lock. */
typedef struct web {
  pthread_mutex_t lock;
  ctl base;          /* options; its admin is the one store connection */
  const char *token; /* a user's token, NULL: no users (read-only) */
  web_user users[WEB_MAX_USERS]; /* --token-file's "operator" and
                                    --users-file's */
  size_t nusers;
  web_session sessions[WEB_MAX_SESSIONS];
  size_t nsessions;
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
#define WEB_MAX_PARAMS 32
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
  /* The signed-in user's name (NULL: nobody), the name the actions are
   * recorded under; whether they may act (an operator). */
  const char *user;
  bool may_act;
  /* The zone the operator picked (the chime_tz cookie), NULL: none, so
   * times in --tz's zone and next fires in each trigger's own. */
  const char *picked_zone;
} web_page;

/* Each renders a whole page into r (status 200, or an error page).
 * Returns the HTTP status. */
int web_page_overview(web_page *p, web_reply *r);
int web_page_triggers(web_page *p, web_reply *r);
int web_page_jobs(web_page *p, web_reply *r);
int web_page_history(web_page *p, web_reply *r);
int web_page_events(web_page *p, web_reply *r);
int web_page_login(web_page *p, web_reply *r);
/* /audit: the audit table, filtered by since, who and action
 * (web_ops.c). */
int web_page_audit(web_page *p, web_reply *r);
/* The nodes of ctl_nodes_table with their drain state and, for an
 * operator, drain/undrain buttons (web_ops.c). */
void web_nodes_html(web_page *p, FILE *o, const ctl_table *nodes);
/* The latest operator actions from the audit table, with a link to
 * /audit (web_ops.c). */
void web_recent_actions_html(web_page *p, FILE *o);

/* The page's head and navigation, and its end. */
void web_page_begin(web_page *p, web_reply *r, const char *title);
void web_page_end(web_page *p, web_reply *r);
/* A ctl_table as an HTML table of its first shown columns. */
void web_table_html(FILE *out, const ctl_table *t, size_t ncols);
/* Row's cell in t's column named name (its head: the query's column,
 * chimectl's JSON key), "" for none.  Pages pick cells by name, never by
 * number, so a query's columns may move; a name t lacks is a bug (asserted;
 * "" in a build without assertions). */
const char *web_col(const ctl_table *t, size_t row, const char *name);
/* The index of t's column named name; -1 (asserted) when there is none. */
int web_col_index(const ctl_table *t, const char *name);

/* One column of a page's table, described once: the query's column it
 * shows (NULL: the page renders the cell itself), its header, the page its
 * value links to (NULL: plain text), the cell's class (NULL: none), and a
 * note after the value when column note_col holds note_if (" (dead)"). */
typedef struct web_column {
  const char *col;
  const char *head;
  const char *link;
  const char *cls;
  const char *note_col, *note_if, *note;
} web_column;
/* The header row of a table described by cols (n of them). */
void web_heads_html(FILE *out, const web_column *cols, size_t n);
/* Row's cells of the described columns from (inclusive) to (exclusive),
 * each a <td>. */
void web_cells_html(FILE *out, const ctl_table *t, size_t row,
                    const web_column *cols, size_t from, size_t to);
/* An action's form: POST to /api/ACTION with fields (name, value pairs,
 * NULL-terminated), a button label and, when not NULL, a confirmation. */
/* 16 random bytes as 32 hex digits into out.  Returns: 0; -1 (no
 * randomness).  web_frame.c. */
int web_random_hex(char out[33]);

void web_form(web_page *p, FILE *out, const char *action,
              const char *const *fields, const char *label,
              const char *confirm);

/* ----------------------------------------------------------- the API */

/* Puts the history filter of p->q (job, trigger, node, outcome, since,
 * until, failed, page, limit) into p->c; *ret_page the page (from 1).  Returns:
 * 0 or 400 with msg. */
int web_history_params(web_page *p, long *ret_page, char *msg, size_t len);

/* GET /api/NAME: the same data as chimectl --json.  Returns the status. */
int web_api_get(web_page *p, const char *name, web_reply *r);
/* GET /metrics: Prometheus text. */
int web_metrics(web_page *p, web_reply *r);
/* POST /api/ACTION (pause, resume, fire, cancel, delete, drain, undrain)
 * for who (the signed-in user's name and the client's address,
 * "alice@127.0.0.1"); only an operator's request comes here (web_http.c
 * checks the role first).  The parameters are checked, nothing is written
 * on bad input; what is done is recorded in the audit table as p->c->who
 * (the user's name) from p->c->origin.  Returns the status; msg gets what
 * was done or why not. */
int web_api_action(web_page *p, const char *action, const char *who, char *msg,
                   size_t msg_len);
/* Writes an action's line to stderr (the audit table has the record). */
void web_log(web *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ----------------------------------------------------------- edits */

/* A form's values (web_edit.c): settings, their text owned or borrowed. */
typedef struct web_vals {
  ctl_settings s;
  char *owned[CTL_MAX_SETTINGS]; /* NULL: borrowed */
} web_vals;
/* Adds a setting (its text formatted and owned). */
void web_vals_put(web_vals *v, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Adds q's parameters but those named in skip (NULL-terminated), borrowed. */
void web_vals_from_params(web_vals *v, const web_params *q,
                          const char *const *skip);
void web_vals_free(web_vals *v);

/* The edit pages (GET /edit/trigger?key=G.N or ?job=G.N for a new one,
 * /edit/job?key=G.N, /retry?fire=ID), /api/preview (a schedule's next
 * fires, JSON), /static/edit.js and /static/edit.css.  Return the HTTP status.
 */
int web_edit_trigger_page(web_page *p, web_reply *r);
int web_edit_job_page(web_page *p, web_reply *r);
int web_retry_page(web_page *p, web_reply *r);
int web_edit_preview(web_page *p, web_reply *r);
int web_edit_js(web_page *p, web_reply *r);
int web_edit_css(web_page *p, web_reply *r);
extern const char *const web_edit_preview_params[];
/* The forms filled with v, answered with status. */
int web_edit_trigger_form(web_page *p, web_reply *r, int status, bool add,
                          const char *key, const web_vals *v);
int web_edit_job_form(web_page *p, web_reply *r, int status, bool add,
                      const char *key, const web_vals *v);
/* The edit actions (web_edit_api.c): trigger-save, job-save, retry. */
bool web_edit_is_action(const char *name);
/* As web_api_action. */
int web_edit_action(web_page *p, const char *action, const char *who, char *msg,
                    size_t msg_len);
/* A browser's refused save: its form again, filled as sent, with
 * p->msg.  Returns: whether r was answered so. */
bool web_edit_rerender(web_page *p, const char *action, int status,
                       web_reply *r);
/* Links: "new job|trigger" (signed in) and a row's edit link. */
void web_edit_new_link(web_page *p, FILE *o, const char *what);
void web_edit_link(web_page *p, FILE *o, const char *what, const char *key);

/* ----------------------------------------------------------- details */

/* Whether path is a detail page's (/jobs/G.N, /triggers/G.N, /fires/ID,
 * /nodes/ID) or its JSON twin's under /api/ (without "/api"). */
bool web_detail_path(const char *path);
/* Renders the detail page of p->path (web_detail.c).  Returns the
 * status. */
int web_page_detail(web_page *p, web_reply *r);
/* The nodes' page. */
int web_page_nodes(web_page *p, web_reply *r);
/* GET /api/jobs/G.N, /api/triggers/G.N, /api/fires/ID, /api/nodes/ID:
 * the detail page's data as one JSON object.  Returns the status. */
int web_api_detail(web_page *p, const char *name, web_reply *r);
/* A table of runs (ctl_history_table's) with their attempts (from l),
 * each fire, job, trigger and node linking to its page, and a retry link
 * on each run that did not succeed. */
void web_runs_html(FILE *out, const ctl_table *t, const ctl_retry_links *l);
/* The retry chains the runs of t need for their attempts, into *ret
 * (read only when a retry's run is among them).  Returns: 0 or an exit
 * code (message in ctl_last_error). */
int web_runs_links(web_page *p, const ctl_table *t, ctl_retry_links *ret);
/* A link to a detail page: <a href="/KIND/KEY">KEY</a> (text escaped,
 * KEY percent-encoded); the text alone for a trigger of chime's own
 * one-shot groups (a retry's, a fire-now's, ...), gone once it ran. */
void web_link(FILE *out, const char *kind, const char *key);

/* ----------------------------------------------------------- zones */

/* The zone picker's page, GET /zone?tz=NAME&back=PATH: the zone checked
 * by the library's loader, kept in the chime_tz cookie (tz empty: the
 * cookie dropped), then back to PATH (web_zone.c). */
int web_page_zone(web_page *p, web_reply *r);
/* The zone of a chime_tz cookie's value when the library knows it (a
 * name that lives as long as the process), else NULL. */
const char *web_zone_of_cookie(const char *value);
/* The picker's form for the page's header. */
void web_zone_form(web_page *p, FILE *out);
/* A safe path of ours to go back to, or "/". */
const char *web_back_path(const char *back);

/* ----------------------------------------------------------- users */

/* The roles' names ("read-only", "operator"). */
const char *web_role_name(web_role role);
/* Adds a user.  Returns: 0, or CTL_USAGE / CTL_FAILED with a message
 * printed (a name or token taken, a token too short, too many). */
int web_add_user(web *w, const char *name, web_role role, const char *token);
/* Reads --users-file (web_auth.c, format in chime-web(1)).  Returns: 0 or
 * an exit code with the file's line in the message. */
int web_read_users(web *w, const char *path);
/* Whether secrets a and b are equal (and not empty), compared in a time
 * independent of where they differ. */
bool web_same_secret(const char *a, const char *b);
/* The user whose token is token (compared in constant time), NULL. */
const web_user *web_user_by_token(const web *w, const char *token);

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
