/*
 * web_http.c: chime-web's HTTP side on libmicrohttpd: one thread (below)
 * answers every request in turn.  Requests are routed by method and path;
 * GET parameters are checked against each route's names, POST bodies are
 * read up to WEB_MAX_BODY and decoded here.  Writes need a user's
 * session cookie and its CSRF token (a browser), or a user's token as
 * "Authorization: Bearer" (a script), and that user must be an operator
 * (web_auth.c); without users every write is refused.  A GET's zone is
 * the chime_tz cookie's when the library knows it (web_zone.c).  Every answer
 * carries headers that keep the page from being framed or sniffed, and a
 * content security policy that allows only the built-in assets.
 *
 * Before any of that, as soon as a request's headers are in: its Host
 * must name this server (web.h: the listen address, the loopback names,
 * --allowed-host; else 421), so a page of another site whose name was
 * rebound to this address (DNS rebinding) reads nothing; and a request
 * that may change something (any method but GET and HEAD) that carries an
 * Origin must come from this server's own origin (else 403).
 *
 * Threads: one thread of ours (serve_loop) runs the daemon (libmicrohttpd
 * without a thread of its own, on epoll) and answers every request in
 * turn, so the one store connection and the session table need no other
 * lock than w->lock, which the main thread's check-ins share.  That
 * thread also keeps the open connections' list (conn_state: notified by
 * the daemon) and closes (shutdown) every connection whose request has
 * not all arrived within WEB_REQUEST_MS: with the daemon's own limits
 * (WEB_MAX_CONNECTIONS, WEB_MAX_PER_CLIENT, WEB_IDLE_S) clients that
 * trickle their headers cannot hold the places real requests need.
 */
#include "web.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

/* How often chime-web checks in (well within any node's lease). */
#define CHECKIN_MS CHIME_ADMIN_CHECK_IN_MS

/* The one body type taken. */
#define FORM_TYPE "application/x-www-form-urlencoded"

/* A request's state across the handler's calls (its POST body). */
typedef struct request {
  char *body;
  size_t len;
  bool too_big;
} request;

typedef struct handler_ctx {
  web *w;
  struct MHD_Connection *conn;
  const char *url;
  web_params query;
  bool query_bad;
  char query_msg[200];
} handler_ctx;

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------- host and origin */

/* The canonical text of a host name: lower case, no final dot, an IP
 * address as inet_ntop writes it (IPv6 in brackets).  Returns: whether
 * name (len bytes) is a well-formed host name or IP address. */
static bool canonical_host(const char *name, size_t len, char *out,
                           size_t out_len) {
  char buf[256];
  if (len && name[len - 1] == '.')
    len--;
  if (len == 0 || len >= sizeof buf || len >= out_len)
    return false;
  memcpy(buf, name, len);
  buf[len] = '\0';
  unsigned char a[16];
  if (buf[0] == '[') {
    if (buf[len - 1] != ']')
      return false;
    buf[len - 1] = '\0';
    char t[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET6, buf + 1, a) != 1 ||
        !inet_ntop(AF_INET6, a, t, sizeof t))
      return false;
    return (size_t)snprintf(out, out_len, "[%s]", t) < out_len;
  }
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)buf[i];
    if (!isalnum(ch) && ch != '-' && ch != '.' && ch != '_')
      return false;
    out[i] = (char)tolower(ch);
  }
  out[len] = '\0';
  return true;
}

/* Whether canonical host name h is an IP address. */
static bool is_ip(const char *h) {
  unsigned char a[4];
  return h[0] == '[' || inet_pton(AF_INET, h, a) == 1;
}

/* Splits an authority, "host[:port]" or "[v6][:port]": *ret_len the
 * host's length (brackets included).  Returns: whether it is well formed. */
static bool split_authority(const char *a, size_t *ret_len) {
  size_t n;
  if (a[0] == '[') {
    const char *end = strchr(a, ']');
    if (!end)
      return false;
    n = (size_t)(end - a) + 1;
  } else {
    n = strcspn(a, ":");
  }
  const char *rest = a + n;
  if (*rest == ':') {
    size_t digits = strspn(rest + 1, "0123456789");
    if (digits == 0 || digits > 5 || rest[1 + digits])
      return false;
  } else if (*rest) {
    return false;
  }
  *ret_len = n;
  return n > 0;
}

/* Whether canonical host name h is an --allowed-host name. */
static bool host_listed(const web *w, const char *h) {
  for (size_t i = 0; i < w->nallowed_hosts; i++)
    if (strcmp(h, w->allowed_hosts[i]) == 0)
      return true;
  return false;
}

/* Whether a Host header names this server (its port is not compared). */
static bool host_ok(const web *w, const char *host) {
  size_t n;
  char h[256];
  if (!host || !split_authority(host, &n) ||
      !canonical_host(host, n, h, sizeof h))
    return false;
  if (host_listed(w, h) || strcmp(h, w->listen_host) == 0)
    return true;
  if ((w->loopback || w->wildcard) &&
      (strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 ||
       strcmp(h, "[::1]") == 0))
    return true;
  /* Bound to every address: any of them (an address is never rebound). */
  return w->wildcard && is_ip(h);
}

/* Whether a request's Origin is this server's own: the page's origin is
 * the Host it was asked for (checked before), or an --allowed-host name
 * (a proxy in front that rewrites Host).  "null" and any other are not. */
static bool origin_ok(const web *w, const char *origin, const char *host) {
  const char *a = strncmp(origin, "http://", 7) == 0    ? origin + 7
                  : strncmp(origin, "https://", 8) == 0 ? origin + 8
                                                        : NULL;
  size_t n;
  char h[256];
  if (!a || !split_authority(a, &n) || !canonical_host(a, n, h, sizeof h))
    return false;
  return (host && strcasecmp(a, host) == 0) || host_listed(w, h);
}

/* A header's value to quote in a message: at most len - 1 bytes, each
 * byte that is not printable ASCII as '?'.  Returns: out. */
static const char *printable(const char *value, char *out, size_t len) {
  snprintf(out, len, "%s", value ? value : "");
  for (char *c = out; *c; c++)
    if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
      *c = '?';
  return out;
}

int web_allow_host(web *w, const char *name) {
  char h[256];
  if (w->nallowed_hosts == WEB_MAX_ALLOWED_HOSTS)
    return ctl_usage("--allowed-host: at most %d names", WEB_MAX_ALLOWED_HOSTS);
  if (!canonical_host(name, strlen(name), h, sizeof w->allowed_hosts[0]))
    return ctl_usage("--allowed-host '%.100s' is not a host name or IP "
                     "address (no port, IPv6 in brackets)",
                     name);
  memcpy(w->allowed_hosts[w->nallowed_hosts++], h, strlen(h) + 1);
  return 0;
}

/* ------------------------------------------------------- connections */

/* An open connection (the serving thread's only): its socket, and since
 * when its current request has been arriving. */
typedef struct conn_state {
  struct conn_state *prev, *next;
  int fd;
  long long since_ms; /* monotonic: accepted, or its previous answer done */
  bool received;      /* its current request is all in */
  bool closed;        /* shut down for being too slow */
} conn_state;

/* The server: the daemon and its connections. */
typedef struct server {
  struct MHD_Daemon *d;
  conn_state *conns;
  atomic_bool stop;
} server;

static void notify_connection(void *cls, struct MHD_Connection *conn,
                              void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
  server *s = cls;
  conn_state *cs = *socket_context;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci || !(cs = calloc(1, sizeof *cs)))
      return; /* untracked: the daemon's idle timeout still applies */
    cs->fd = ci->connect_fd;
    cs->since_ms = mono_ms();
    cs->next = s->conns;
    if (s->conns)
      s->conns->prev = cs;
    s->conns = cs;
    *socket_context = cs;
  } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && cs) {
    if (cs->prev)
      cs->prev->next = cs->next;
    else
      s->conns = cs->next;
    if (cs->next)
      cs->next->prev = cs->prev;
    free(cs);
    *socket_context = NULL;
  }
}

static conn_state *conn_state_of(struct MHD_Connection *conn) {
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return ci ? ci->socket_context : NULL;
}

/* Shuts down every connection whose request has been arriving for longer
 * than WEB_REQUEST_MS; the daemon then sees its end and closes it.  On
 * the serving thread, so no connection closes meanwhile (its socket
 * stays open until the daemon's CLOSED notice, which comes after). */
static void close_slow(server *s) {
  long long now = mono_ms();
  for (conn_state *cs = s->conns; cs; cs = cs->next)
    if (!cs->received && !cs->closed && now - cs->since_ms > WEB_REQUEST_MS) {
      shutdown(cs->fd, SHUT_RDWR);
      cs->closed = true;
    }
}

static const web_session *find_session(web *w, const char *id) {
  long long now = now_ms();
  for (size_t i = 0; id && i < w->nsessions; i++)
    if (web_same_secret(w->sessions[i].id, id) &&
        now - w->sessions[i].created_ms < WEB_SESSION_MS)
      return &w->sessions[i];
  return NULL;
}

static const web_session *new_session(web *w, const web_user *u) {
  if (w->nsessions == WEB_MAX_SESSIONS) {
    memmove(&w->sessions[0], &w->sessions[1],
            (WEB_MAX_SESSIONS - 1) * sizeof w->sessions[0]);
    w->nsessions--;
  }
  web_session *s = &w->sessions[w->nsessions];
  if (web_random_hex(s->id) || web_random_hex(s->csrf))
    return NULL;
  s->created_ms = now_ms();
  s->user = u;
  w->nsessions++;
  return s;
}

static void drop_session(web *w, const web_session *s) {
  size_t i = (size_t)(s - w->sessions);
  memmove(&w->sessions[i], &w->sessions[i + 1],
          (w->nsessions - i - 1) * sizeof w->sessions[0]);
  w->nsessions--;
}

/* Where a request comes from: the client's address (the proxy's behind
 * one, with the forwarded address it names). */
static void who(struct MHD_Connection *conn, char *buf, size_t len) {
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  char addr[INET6_ADDRSTRLEN] = "?";
  if (ci && ci->client_addr->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)ci->client_addr)->sin_addr,
              addr, sizeof addr);
  else if (ci && ci->client_addr->sa_family == AF_INET6)
    inet_ntop(AF_INET6,
              &((const struct sockaddr_in6 *)ci->client_addr)->sin6_addr, addr,
              sizeof addr);
  const char *fwd =
      MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Forwarded-For");
  snprintf(buf, len, "%s%s%.60s%s", addr, fwd ? " (for " : "", fwd ? fwd : "",
           fwd ? ")" : "");
  for (char *p = buf; *p; p++)
    if ((unsigned char)*p < 0x20)
      *p = ' ';
}

/* Collects the query's parameters (MHD decoded them). */
static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind,
                                 const char *key, const char *value) {
  (void)kind;
  handler_ctx *h = cls;
  web_params *q = &h->query;
  if (h->query_bad)
    return MHD_NO;
  if (q->n == WEB_MAX_PARAMS) {
    snprintf(h->query_msg, sizeof h->query_msg,
             "too many parameters (at most %d)", WEB_MAX_PARAMS);
  } else if (strlen(key) >= sizeof q->key[0] || !*key) {
    snprintf(h->query_msg, sizeof h->query_msg,
             "a malformed or too long parameter name");
  } else if (value && strlen(value) > WEB_MAX_VALUE) {
    snprintf(h->query_msg, sizeof h->query_msg,
             "parameter '%s' is longer than %d bytes", key, WEB_MAX_VALUE);
  } else if (!web_utf8_ok(key) || (value && !web_utf8_ok(value))) {
    snprintf(h->query_msg, sizeof h->query_msg,
             "parameter '%.40s' is not valid UTF-8",
             web_utf8_ok(key) ? key : "?");
  } else if (web_param(q, key)) {
    snprintf(h->query_msg, sizeof h->query_msg, "parameter '%s' given twice",
             key);
  } else {
    snprintf(q->key[q->n], sizeof q->key[0], "%s", key);
    if (!(q->value[q->n] = strdup(value ? value : "")))
      snprintf(h->query_msg, sizeof h->query_msg, "out of memory");
    else
      q->n++;
  }
  h->query_bad = h->query_msg[0] != '\0';
  return h->query_bad ? MHD_NO : MHD_YES;
}

/* Sends r (and frees its body). */
static enum MHD_Result send_reply(struct MHD_Connection *conn, web_reply *r,
                                  const char *allow) {
  if (r->out)
    fclose(r->out);
  r->out = NULL;
  struct MHD_Response *resp =
      r->body ? MHD_create_response_from_buffer(r->len, r->body,
                                                MHD_RESPMEM_MUST_FREE)
              : MHD_create_response_from_buffer(0, (void *)"",
                                                MHD_RESPMEM_PERSISTENT);
  if (!resp)
    return MHD_NO;
  MHD_add_response_header(resp, "Content-Type",
                          r->type ? r->type : "text/plain");
  MHD_add_response_header(resp, "Cache-Control", "no-store");
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(resp, "X-Frame-Options", "DENY");
  MHD_add_response_header(resp, "Referrer-Policy", "same-origin");
  MHD_add_response_header(
      resp, "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src "
      "'self' data:; connect-src 'self'; form-action 'self'; "
      "frame-ancestors 'none'; base-uri 'none'");
  if (r->location[0])
    MHD_add_response_header(resp, "Location", r->location);
  if (r->cookie[0])
    MHD_add_response_header(resp, "Set-Cookie", r->cookie);
  if (allow)
    MHD_add_response_header(resp, "Allow", allow);
  enum MHD_Result ok = MHD_queue_response(conn, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ok;
}

/* The route table: path, what it answers, its GET parameters. */
typedef enum { R_PAGE, R_API, R_ACTION, R_ASSET, R_LOGIN, R_LOGOUT } kind;
typedef struct route {
  const char *path;
  kind kind;
  const char *const *params;
  int (*page)(web_page *, web_reply *);
} route;

static const char *const no_params[] = {"msg", NULL};
static const char *const audit_params[] = {"since", "who", "action",
                                           "page",  "msg", NULL};
static const char *const history_params[] = {
    "job",   "trigger", "node", "outcome", "since",
    "until", "failed",  "page", "msg",     NULL};
static const char *const zone_params[] = {"tz", "back", NULL};
static const char *const api_params[] = {
    "job",   "outcome", "since", "failed", "page",
    "limit", "trigger", "node",  "until",  NULL};
static const char *const edit_params[] = {"key", "job", "msg", NULL};
static const char *const retry_params[] = {"fire", "msg", NULL};

static const route routes[] = {
    {"/", R_PAGE, no_params, web_page_overview},
    {"/triggers", R_PAGE, no_params, web_page_triggers},
    {"/jobs", R_PAGE, no_params, web_page_jobs},
    {"/history", R_PAGE, history_params, web_page_history},
    {"/events", R_PAGE, no_params, web_page_events},
    {"/nodes", R_PAGE, no_params, web_page_nodes},
    {"/zone", R_PAGE, zone_params, web_page_zone},
    {"/audit", R_PAGE, audit_params, web_page_audit},
    {"/login", R_LOGIN, no_params, web_page_login},
    {"/logout", R_LOGOUT, no_params, NULL},
    {"/metrics", R_API, no_params, NULL},
    {"/static/app.css", R_ASSET, no_params, NULL},
    {"/static/app.js", R_ASSET, no_params, NULL},
    /* The edit pages (web_edit.c). */
    {"/edit/trigger", R_PAGE, edit_params, web_edit_trigger_page},
    {"/edit/job", R_PAGE, edit_params, web_edit_job_page},
    {"/retry", R_PAGE, retry_params, web_retry_page},
    {"/api/preview", R_PAGE, web_edit_preview_params, web_edit_preview},
    {"/static/edit.js", R_PAGE, no_params, web_edit_js},
    {"/static/edit.css", R_PAGE, no_params, web_edit_css},
};

static const char *const actions[] = {"pause",  "resume", "fire",    "cancel",
                                      "delete", "drain",  "undrain", NULL};

/* Every detail page (/jobs/G.N, ...: web_detail.c). */
static const route detail_route = {"/*", R_PAGE, no_params, web_page_detail};

static bool is_action(const char *name) {
  for (const char *const *a = actions; *a; a++)
    if (strcmp(*a, name) == 0)
      return true;
  return web_edit_is_action(name);
}

/* The session of the request's cookie, NULL: none. */
static const web_session *session_of(handler_ctx *h) {
  const char *id =
      MHD_lookup_connection_value(h->conn, MHD_COOKIE_KIND, "chime_session");
  return find_session(h->w, id);
}

/* The user whose token the request carries as a bearer, NULL: none. */
static const web_user *bearer_user(handler_ctx *h) {
  const char *a =
      MHD_lookup_connection_value(h->conn, MHD_HEADER_KIND, "Authorization");
  return a && strncmp(a, "Bearer ", 7) == 0 ? web_user_by_token(h->w, a + 7)
                                            : NULL;
}

/* A safe place to go back to after a browser's action: a path of ours. */
static const char *back_of(const web_params *form) {
  return web_back_path(web_param(form, "back"));
}

/* A POST: login, logout, or an action. */
static void handle_post(handler_ctx *h, const route *rt, const char *action,
                        request *req, web_reply *r) {
  bool json = action != NULL;
  if (req->too_big) {
    web_reply_error(r, json, 413, "the body is larger than %d bytes",
                    WEB_MAX_BODY);
    return;
  }
  const char *type =
      MHD_lookup_connection_value(h->conn, MHD_HEADER_KIND, "Content-Type");
  if (req->len && (!type || strncmp(type, FORM_TYPE, strlen(FORM_TYPE)) != 0)) {
    web_reply_error(r, json, 415, "the body must be %s", FORM_TYPE);
    return;
  }
  web_params form;
  char msg[1200] = "";
  int st = web_params_parse(req->body ? req->body : "", req->len, &form, msg,
                            sizeof msg);
  if (st) {
    web_reply_error(r, json, st, "%s", msg);
    return;
  }
  const web_session *ses = session_of(h);
  if (rt && rt->kind == R_LOGIN) {
    const char *tok = web_param(&form, "token");
    const web_user *u = web_user_by_token(h->w, tok);
    if (!h->w->token) {
      web_reply_error(r, false, 403,
                      "read-only: chime-web was started "
                      "without --token-file or --users-file");
    } else if (!u) {
      web_reply_error(r, false, 403, "wrong token");
    } else if (!(ses = new_session(h->w, u))) {
      web_reply_error(r, false, 500, "no random bytes for a session");
    } else if (web_reply_open(r, 303, "text/plain") == 0) {
      snprintf(r->location, sizeof r->location, "/");
      /* Secure when the proxy in front says the page came over TLS. */
      const char *proto = MHD_lookup_connection_value(h->conn, MHD_HEADER_KIND,
                                                      "X-Forwarded-Proto");
      snprintf(r->cookie, sizeof r->cookie,
               "chime_session=%s; Path=/; HttpOnly; SameSite=Strict; "
               "Max-Age=%d%s",
               ses->id, WEB_SESSION_MS / 1000,
               proto && strcmp(proto, "https") == 0 ? "; Secure" : "");
      fputs("signed in\n", r->out);
    }
    web_params_free(&form);
    return;
  }
  const char *csrf = web_param(&form, "csrf");
  bool browser = csrf != NULL;
  const web_user *u = browser ? (ses ? ses->user : NULL) : bearer_user(h);
  if (!h->w->token) {
    web_reply_error(r, !browser, 403,
                    "read-only: chime-web was started without --token-file "
                    "or --users-file");
  } else if (browser && (!ses || !web_same_secret(csrf, ses->csrf))) {
    web_reply_error(r, false, 403,
                    "refused: the form's CSRF token is missing, stale or not "
                    "this session's (sign in again)");
  } else if (!browser && !u) {
    web_reply_error(r, true, 403,
                    "refused: a write needs a user's token "
                    "(Authorization: Bearer) or a signed-in page's CSRF "
                    "token");
  } else if (action && (!u || u->role != WEB_OPERATOR)) {
    /* The role is the server's to check: a read-only user's form or
     * script is refused here, whatever its page showed. */
    web_reply_error(r, !browser, 403,
                    "refused: user %s is read-only (an operator's token "
                    "acts)",
                    u ? u->name : "?");
  } else if (!action) { /* logout */
    if (ses)
      drop_session(h->w, ses);
    if (web_reply_open(r, 303, "text/plain") == 0) {
      snprintf(r->location, sizeof r->location, "/");
      snprintf(r->cookie, sizeof r->cookie,
               "chime_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    }
  } else {
    char from[200], by[sizeof u->name + sizeof from + 1];
    who(h->conn, from, sizeof from);
    snprintf(by, sizeof by, "%s@%s", u->name, from);
    ctl c = h->w->base;
    /* The audit's who and from where: the signed-in user, the client's
     * address (and its proxy's X-Forwarded-For). */
    c.who = u->name;
    c.origin = from;
    web_page p = {.w = h->w,
                  .c = &c,
                  .q = &form,
                  .ses = ses,
                  .path = h->url,
                  .user = u->name,
                  .may_act = true};
    st = web_edit_is_action(action)
             ? web_edit_action(&p, action, by, msg, sizeof msg)
             : web_api_action(&p, action, by, msg, sizeof msg);
    h->w->base.admin = c.admin;
    p.msg = msg;
    if (browser && web_edit_rerender(&p, action, st, r)) {
      /* the form again, with the library's message */
    } else if (browser && web_reply_open(r, 303, "text/plain") == 0) {
      /* Back to the page, with what happened (its own escaping). */
      FILE *loc = fmemopen(r->location, sizeof r->location - 1, "w");
      if (loc) {
        const char *back = back_of(&form);
        fprintf(loc, "%s%cmsg=", back, strchr(back, '?') ? '&' : '?');
        web_url(loc, msg);
        fclose(loc);
      }
      fprintf(r->out, "%s\n", msg);
    } else if (!browser && web_reply_open(r, st, "application/json") == 0) {
      fprintf(r->out, "{\"ok\": %s, \"status\": %d, \"%s\": ",
              st == 200 ? "true" : "false", st,
              st == 200 ? "message" : "error");
      ctl_json_string_to(r->out, msg);
      fputs("}\n", r->out);
    }
  }
  web_params_free(&form);
}

/* A GET. */
static void handle_get(handler_ctx *h, const route *rt, const char *api,
                       web_reply *r) {
  char msg[200];
  if (!web_params_known(&h->query, rt ? rt->params : api_params, msg,
                        sizeof msg)) {
    web_reply_error(r, api != NULL, 400, "%s", msg);
    return;
  }
  ctl c = h->w->base;
  const web_session *ses = session_of(h);
  web_page p = {.w = h->w,
                .c = &c,
                .q = &h->query,
                .ses = ses,
                .path = h->url,
                .msg = web_param(&h->query, "msg"),
                .user = ses ? ses->user->name : NULL,
                .may_act = ses && ses->user->role == WEB_OPERATOR};
  /* The operator's zone, when they picked one the library knows. */
  p.picked_zone = web_zone_of_cookie(
      MHD_lookup_connection_value(h->conn, MHD_COOKIE_KIND, "chime_tz"));
  if (p.picked_zone)
    c.zone = p.picked_zone;
  c.own_zone_next = !p.picked_zone;
  if (api && !rt)
    web_api_get(&p, api, r);
  else if (rt->kind == R_ASSET &&
           web_reply_open(r, 200,
                          strstr(rt->path, ".js") ? "text/javascript"
                                                  : "text/css") == 0)
    fputs(strstr(rt->path, ".js") ? web_asset_js : web_asset_css, r->out);
  else if (rt->kind == R_API)
    web_metrics(&p, r);
  else if (rt->page)
    rt->page(&p, r);
  else
    web_reply_error(r, false, 405, "use POST");
  h->w->base.admin = c.admin;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
                              const char *url, const char *method,
                              const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
  (void)version;
  web *w = cls;
  bool post = strcmp(method, "POST") == 0;
  bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
  if (!*con_cls) { /* the headers: state for the body to come */
    /* Another site's page, through a name rebound to this address, or a
     * form of another origin: refused before anything is read. */
    const char *host =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
    const char *origin =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
    bool json = strncmp(url, "/api/", 5) == 0;
    web_reply r = {0};
    if (!host_ok(w, host)) {
      char shown[101];
      web_reply_error(&r, json, 421,
                      "this server does not answer to Host '%s' "
                      "(chime-web --allowed-host NAME adds a name)",
                      printable(host, shown, sizeof shown));
      return send_reply(conn, &r, NULL);
    }
    if (!get && origin && !origin_ok(w, origin, host)) {
      char shown[101];
      web_reply_error(&r, json, 403,
                      "refused: a request from another origin (%s)",
                      printable(origin, shown, sizeof shown));
      return send_reply(conn, &r, NULL);
    }
    request *req = calloc(1, sizeof *req);
    if (!req)
      return MHD_NO;
    *con_cls = req;
    return MHD_YES;
  }
  request *req = *con_cls;
  if (*upload_data_size) { /* a piece of the body */
    if (req->len + *upload_data_size > WEB_MAX_BODY) {
      req->too_big = true;
    } else {
      char *grown = realloc(req->body, req->len + *upload_data_size + 1);
      if (!grown)
        return MHD_NO;
      memcpy(grown + req->len, upload_data, *upload_data_size);
      req->body = grown;
      req->len += *upload_data_size;
      req->body[req->len] = '\0';
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  conn_state *cs = conn_state_of(conn);
  if (cs) /* all in: no longer subject to WEB_REQUEST_MS */
    cs->received = true;
  pthread_mutex_lock(&w->lock);
  handler_ctx h = {.w = w, .conn = conn, .url = url};
  web_reply r = {0};
  const route *rt = NULL;
  for (size_t i = 0; i < sizeof routes / sizeof routes[0] && !rt; i++)
    if (strcmp(routes[i].path, url) == 0)
      rt = &routes[i];
  if (!rt && web_detail_path(url))
    rt = &detail_route;
  const char *api = strncmp(url, "/api/", 5) == 0 ? url + 5 : NULL;
  const char *action = api && is_action(api) ? api : NULL;
  const char *allow = NULL;
  MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, query_arg, &h);
  if (strlen(url) > 200) {
    web_reply_error(&r, api != NULL, 414, "the path is too long");
  } else if (!rt && !api) {
    web_reply_error(&r, false, 404, "no page %.100s", url);
  } else if (h.query_bad) {
    web_reply_error(&r, api != NULL, 400, "%s", h.query_msg);
  } else if (action || (rt && rt->kind == R_LOGOUT)) {
    if (!post) {
      allow = "POST";
      web_reply_error(&r, api != NULL, 405, "%s takes POST only", url);
    } else if (h.query.n) {
      web_reply_error(&r, api != NULL, 400,
                      "an action takes its parameters in the body, not the "
                      "URL");
    } else {
      handle_post(&h, rt, action, req, &r);
    }
  } else if (rt && rt->kind == R_LOGIN && post) {
    handle_post(&h, rt, NULL, req, &r);
  } else if (!get) {
    allow = rt && rt->kind == R_LOGIN ? "GET, HEAD, POST" : "GET, HEAD";
    web_reply_error(&r, api != NULL, 405, "%s takes GET only", url);
  } else {
    handle_get(&h, rt, api, &r);
  }
  web_params_free(&h.query);
  pthread_mutex_unlock(&w->lock);
  if (!r.out && !r.body)
    web_reply_error(&r, false, 500, "out of memory");
  return send_reply(conn, &r, allow);
}

static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code) {
  (void)cls;
  (void)code;
  conn_state *cs = conn_state_of(conn);
  if (cs) { /* the next request on this connection starts arriving now */
    cs->received = false;
    cs->since_ms = mono_ms();
  }
  request *req = *con_cls;
  if (req)
    free(req->body);
  free(req);
  *con_cls = NULL;
}

/* The serving thread: runs the daemon until s->stop, closing the
 * connections too slow to send their request (at least every 250 ms). */
static void *serve_loop(void *arg) {
  server *s = arg;
  const union MHD_DaemonInfo *di =
      MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
  struct pollfd pfd = {.fd = di ? di->epoll_fd : -1, .events = POLLIN};
  while (!atomic_load(&s->stop)) {
    MHD_UNSIGNED_LONG_LONG wait = 250;
    if (MHD_get_timeout(s->d, &wait) != MHD_YES || wait > 250)
      wait = 250;
    poll(&pfd, 1, (int)wait);
    MHD_run(s->d);
    close_slow(s);
  }
  return NULL;
}

/* Sets what w answers to for its listen address (web.h): the address as
 * a Host gives it, and whether it is a loopback or wildcard address. */
static void listen_names(web *w, const struct sockaddr *sa) {
  char t[INET6_ADDRSTRLEN] = "";
  if (sa->sa_family == AF_INET6) {
    const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    w->loopback = IN6_IS_ADDR_LOOPBACK(a);
    w->wildcard = IN6_IS_ADDR_UNSPECIFIED(a);
    inet_ntop(AF_INET6, a, t, sizeof t);
    snprintf(w->listen_host, sizeof w->listen_host, "[%s]", t);
  } else {
    const struct in_addr *a = &((const struct sockaddr_in *)sa)->sin_addr;
    w->loopback = (ntohl(a->s_addr) >> 24) == 127;
    w->wildcard = a->s_addr == htonl(INADDR_ANY);
    inet_ntop(AF_INET, a, t, sizeof t);
    snprintf(w->listen_host, sizeof w->listen_host, "%s", t);
  }
}

int web_serve(web *w, const char *address, unsigned port) {
  struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6,
                             .sin6_port = htons((uint16_t)port)};
  struct sockaddr_in sa4 = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port)};
  const struct sockaddr *sa = (const struct sockaddr *)&sa4;
  /* No thread of the daemon's own: serve_loop runs it (on epoll, so the
   * number of connections is not bound by select's FD_SETSIZE). */
  unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
  if (inet_pton(AF_INET6, address, &sa6.sin6_addr) == 1) {
    sa = (const struct sockaddr *)&sa6;
    flags |= MHD_USE_IPv6;
  } else if (inet_pton(AF_INET, address, &sa4.sin_addr) != 1) {
    fprintf(stderr, "chime-web: --listen '%s' is not an IP address\n", address);
    return CTL_USAGE;
  }
  listen_names(w, sa);
  /* The serving thread inherits the mask: the signals come to sigwait. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  static server s; /* the callbacks' until the daemon stops */
  s.d = MHD_start_daemon(
      flags, (uint16_t)port, NULL, NULL, handle, w, MHD_OPTION_SOCK_ADDR, sa,
      MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
      MHD_OPTION_NOTIFY_CONNECTION, notify_connection, &s,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)WEB_MAX_CONNECTIONS,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)WEB_MAX_PER_CLIENT,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WEB_IDLE_S,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536, MHD_OPTION_END);
  if (!s.d) {
    fprintf(stderr, "chime-web: cannot listen on %s port %u\n", address, port);
    return CTL_FAILED;
  }
  pthread_t loop;
  if (pthread_create(&loop, NULL, serve_loop, &s) != 0) {
    MHD_stop_daemon(s.d);
    fprintf(stderr, "chime-web: cannot start the serving thread\n");
    return CTL_FAILED;
  }
  const union MHD_DaemonInfo *di =
      MHD_get_daemon_info(s.d, MHD_DAEMON_INFO_BIND_PORT);
  fprintf(stderr, "chime-web: listening on http://%s%s%s:%u/ (%s)\n",
          sa == (const struct sockaddr *)&sa6 ? "[" : "", address,
          sa == (const struct sockaddr *)&sa6 ? "]" : "", di ? di->port : port,
          w->token ? "operator actions with the token" : "read-only");
  fflush(stderr);
  /* Checks in every CHECKIN_MS until SIGINT or SIGTERM: the cluster sees
   * chime-web as a live node that claims nothing. */
  struct timespec every = {.tv_sec = CHECKIN_MS / 1000,
                           .tv_nsec = CHECKIN_MS % 1000 * 1000000L};
  while (sigtimedwait(&set, NULL, &every) < 0) {
    pthread_mutex_lock(&w->lock);
    int r = ctl_check_in(&w->base);
    pthread_mutex_unlock(&w->lock);
    if (r < 0)
      fprintf(stderr, "chime-web: check-in failed: %s\n", chime_strerror(r));
  }
  atomic_store(&s.stop, true);
  pthread_join(loop, NULL);
  MHD_stop_daemon(s.d);
  return CTL_OK;
}
