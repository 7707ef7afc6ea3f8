/*
 * alert_http.c: one HTTP/1.1 POST of a JSON body, for chime-alert's
 * webhooks: http over a plain socket, https through OpenSSL (the library
 * links libcrypto already; libssl is of the same package), the server's
 * certificate checked against the system's CAs (and --ca-file) and its
 * name.  One request per connection ("Connection: close"); the answer's
 * status line is all that is read.  Every step is bounded by the timeout.
 */
#include "alert.h"

#include <errno.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A parsed URL: scheme://host[:port][/path]. */
typedef struct url_parts {
  bool tls;
  char host[256];
  char port[8];
  const char *path; /* borrowed from the URL; "/" when it has none */
} url_parts;

static int parse_url(const char *url, url_parts *u, char *err, size_t errlen) {
  const char *p;
  if (strncmp(url, "http://", 7) == 0) {
    u->tls = false;
    p = url + 7;
  } else if (strncmp(url, "https://", 8) == 0) {
    u->tls = true;
    p = url + 8;
  } else {
    snprintf(err, errlen, "not an http:// or https:// URL");
    return -1;
  }
  size_t hl = strcspn(p, "/?#");
  const char *host_end = p + hl;
  const char *colon = NULL;
  if (*p == '[') { /* [v6]:port */
    const char *close = memchr(p, ']', hl);
    if (!close) {
      snprintf(err, errlen, "a malformed IPv6 address in the URL");
      return -1;
    }
    snprintf(u->host, sizeof u->host, "%.*s", (int)(close - p - 1), p + 1);
    colon = close[1] == ':' ? close + 1 : NULL;
  } else {
    colon = memchr(p, ':', hl);
    size_t n = colon ? (size_t)(colon - p) : hl;
    if (n == 0 || n >= sizeof u->host) {
      snprintf(err, errlen, "no host in the URL");
      return -1;
    }
    snprintf(u->host, sizeof u->host, "%.*s", (int)n, p);
  }
  if (colon) {
    size_t n = (size_t)(host_end - colon - 1);
    if (n == 0 || n >= sizeof u->port || strspn(colon + 1, "0123456789") < n) {
      snprintf(err, errlen, "a malformed port in the URL");
      return -1;
    }
    snprintf(u->port, sizeof u->port, "%.*s", (int)n, colon + 1);
  } else {
    snprintf(u->port, sizeof u->port, "%s", u->tls ? "443" : "80");
  }
  u->path = *host_end == '/' ? host_end : "/";
  return 0;
}

int alert_http_check_url(const char *url, char *err, size_t errlen) {
  const char *auth = strstr(url, "://");
  if (auth && memchr(auth + 3, '@', strcspn(auth + 3, "/?#"))) {
    snprintf(err, errlen,
             "credentials in the URL: use --header "
             "'Authorization: ...'");
    return -1;
  }
  url_parts u;
  return parse_url(url, &u, err, errlen);
}

/* Waits until fd is ready for events or the deadline.  Returns 0 or -1. */
static int wait_fd(int fd, short events, uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = alert_mono_ns();
    if (now >= deadline_ns)
      return -1;
    struct pollfd p = {.fd = fd, .events = events};
    int ms = (int)((deadline_ns - now) / 1000000) + 1;
    int r = poll(&p, 1, ms);
    if (r > 0)
      return 0;
    if (r < 0 && errno != EINTR)
      return -1;
  }
}

/* Connects to the first address that answers, non-blocking.  Returns the
 * socket or -1. */
static int connect_to(const url_parts *u, uint64_t deadline_ns, char *err,
                      size_t errlen) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
  int g = getaddrinfo(u->host, u->port, &hints, &res);
  if (g != 0) {
    snprintf(err, errlen, "cannot resolve %s: %s", u->host, gai_strerror(g));
    return -1;
  }
  int fd = -1;
  snprintf(err, errlen, "cannot connect to %s:%s", u->host, u->port);
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                a->ai_protocol);
    if (fd < 0)
      continue;
    int c = connect(fd, a->ai_addr, a->ai_addrlen);
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (c != 0 &&
        (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline_ns) != 0 ||
         getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 ||
         soerr != 0)) {
      snprintf(err, errlen, "cannot connect to %s:%s: %s", u->host, u->port,
               soerr                            ? strerror(soerr)
               : c != 0 && errno != EINPROGRESS ? strerror(errno)
                                                : "timed out");
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

/* A connection, plain or TLS. */
typedef struct conn {
  int fd;
  SSL_CTX *ctx;
  SSL *ssl;
  uint64_t deadline_ns;
} conn;

/* Waits for what an SSL call that returned r wants.  Returns 0 (try
 * again) or -1. */
static int ssl_wait(conn *c, int r) {
  int e = SSL_get_error(c->ssl, r);
  if (e == SSL_ERROR_WANT_READ)
    return wait_fd(c->fd, POLLIN, c->deadline_ns);
  if (e == SSL_ERROR_WANT_WRITE)
    return wait_fd(c->fd, POLLOUT, c->deadline_ns);
  return -1;
}

static int tls_start(conn *c, const url_parts *u, const char *ca_file,
                     char *err, size_t errlen) {
  c->ctx = SSL_CTX_new(TLS_client_method());
  if (!c->ctx || SSL_CTX_set_default_verify_paths(c->ctx) != 1 ||
      (ca_file && SSL_CTX_load_verify_locations(c->ctx, ca_file, NULL) != 1)) {
    snprintf(err, errlen, "cannot set up TLS%s%s", ca_file ? " with " : "",
             ca_file ? ca_file : "");
    return -1;
  }
  SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
  SSL_CTX_set_min_proto_version(c->ctx, TLS1_2_VERSION);
  c->ssl = SSL_new(c->ctx);
  if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1 ||
      SSL_set_tlsext_host_name(c->ssl, u->host) != 1 ||
      SSL_set1_host(c->ssl, u->host) != 1) {
    snprintf(err, errlen, "cannot set up TLS for %s", u->host);
    return -1;
  }
  int r;
  while ((r = SSL_connect(c->ssl)) != 1) {
    if (ssl_wait(c, r) != 0) {
      long v = SSL_get_verify_result(c->ssl);
      unsigned long e = ERR_get_error();
      char why[256] = "timed out or closed";
      if (v != X509_V_OK)
        snprintf(why, sizeof why, "%s", X509_verify_cert_error_string(v));
      else if (e)
        ERR_error_string_n(e, why, sizeof why);
      snprintf(err, errlen, "TLS with %s failed: %s", u->host, why);
      return -1;
    }
  }
  return 0;
}

static int conn_write(conn *c, const char *buf, size_t n) {
  while (n > 0) {
    ssize_t w;
    if (c->ssl) {
      int r = SSL_write(c->ssl, buf, (int)n);
      if (r <= 0) {
        if (ssl_wait(c, r) != 0)
          return -1;
        continue;
      }
      w = r;
    } else {
      w = send(c->fd, buf, n, MSG_NOSIGNAL);
      if (w < 0) {
        if ((errno != EAGAIN && errno != EINTR) ||
            wait_fd(c->fd, POLLOUT, c->deadline_ns) != 0)
          return -1;
        continue;
      }
    }
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads what comes until buf holds a line or is full.  Returns the bytes
 * read or -1. */
static ssize_t conn_read_line(conn *c, char *buf, size_t len) {
  size_t n = 0;
  while (n + 1 < len && !memchr(buf, '\n', n)) {
    ssize_t r;
    if (c->ssl) {
      int s = SSL_read(c->ssl, buf + n, (int)(len - 1 - n));
      if (s <= 0) {
        if (SSL_get_error(c->ssl, s) == SSL_ERROR_ZERO_RETURN ||
            ssl_wait(c, s) != 0)
          break;
        continue;
      }
      r = s;
    } else {
      r = recv(c->fd, buf + n, len - 1 - n, 0);
      if (r < 0) {
        if ((errno != EAGAIN && errno != EINTR) ||
            wait_fd(c->fd, POLLIN, c->deadline_ns) != 0)
          return -1;
        continue;
      }
      if (r == 0)
        break;
    }
    n += (size_t)r;
    buf[n] = '\0';
  }
  buf[n] = '\0';
  return (ssize_t)n;
}

static void conn_close(conn *c) {
  if (c->ssl) {
    SSL_shutdown(c->ssl);
    SSL_free(c->ssl);
  }
  SSL_CTX_free(c->ctx);
  if (c->fd >= 0)
    close(c->fd);
}

/* The request's head: the POST line, Host, the type and length, the
 * extra headers. */
static char *request_head(const url_parts *u, const char *const *headers,
                          size_t nheaders, size_t body_len) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  bool v6 = strchr(u->host, ':') != NULL;
  bool default_port = strcmp(u->port, u->tls ? "443" : "80") == 0;
  fprintf(f,
          "POST %s HTTP/1.1\r\nHost: %s%s%s%s%s\r\nUser-Agent: chime-alert/%s"
          "\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
          "Connection: close\r\n",
          u->path, v6 ? "[" : "", u->host, v6 ? "]" : "",
          default_port ? "" : ":", default_port ? "" : u->port, CHIME_VERSION,
          body_len);
  for (size_t i = 0; i < nheaders; i++)
    fprintf(f, "%s\r\n", headers[i]);
  fputs("\r\n", f);
  if (fclose(f) != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

int alert_http_post(const char *url, const char *const *headers,
                    size_t nheaders, const char *body, const char *ca_file,
                    double timeout_s, char *err, size_t errlen) {
  url_parts u;
  if (parse_url(url, &u, err, errlen) < 0)
    return -1;
  conn c = {.fd = -1,
            .deadline_ns = alert_mono_ns() + (uint64_t)(timeout_s * 1e9)};
  int status = -1;
  char *head = NULL;
  if ((c.fd = connect_to(&u, c.deadline_ns, err, errlen)) < 0 ||
      (u.tls && tls_start(&c, &u, ca_file, err, errlen) < 0))
    goto done;
  head = request_head(&u, headers, nheaders, strlen(body));
  if (!head) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  if (conn_write(&c, head, strlen(head)) < 0 ||
      conn_write(&c, body, strlen(body)) < 0) {
    snprintf(err, errlen, "sending to %s:%s failed or timed out", u.host,
             u.port);
    goto done;
  }
  char line[256];
  int code;
  if (conn_read_line(&c, line, sizeof line) <= 0 ||
      sscanf(line, "HTTP/%*d.%*d %d", &code) != 1 || code < 100 || code > 999) {
    snprintf(err, errlen, "no HTTP answer from %s:%s", u.host, u.port);
    goto done;
  }
  status = code;
done:
  free(head);
  conn_close(&c);
  return status;
}
