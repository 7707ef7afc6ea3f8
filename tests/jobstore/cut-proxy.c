/*
 * cut-proxy.c: see cut-proxy.h.  One thread polls the listening socket and
 * both ends of every connection, forwarding what it reads; the first
 * connection's client bytes (every connection's, after cut_proxy_cut_next)
 * are searched for the text (a statement arrives whole in one read on
 * loopback, and the client waits for its reply, so one read holds it).
 * text, any_text and refuse are under mu; the pairs are the thread's own
 * (cut_proxy_cut_all asks it to close them).
 */
#include "cut-proxy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PAIRS 16

typedef struct pair {
  int client, server; /* -1: closed */
} pair;

struct cut_proxy {
  int listen_fd;
  unsigned port;
  char host[256];
  char service[16];
  pthread_mutex_t mu;
  char *text;     /* cut the first connection at it; NULL: never */
  char *any_text; /* cut any connection at it; NULL: none */
  bool refuse;
  pair pairs[MAX_PAIRS];
  int npairs;
  atomic_int accepted;
  atomic_bool cut;
  atomic_bool cut_all; /* the thread closes every pair */
  atomic_bool stop;
  pthread_t thread;
};

static int dial(const cut_proxy *p) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  struct addrinfo *res = NULL;
  if (getaddrinfo(p->host, p->service, &hints, &res) != 0)
    return -1;
  int fd = -1;
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  return fd;
}

static void close_pair(pair *q) {
  if (q->client >= 0)
    close(q->client);
  if (q->server >= 0)
    close(q->server);
  q->client = q->server = -1;
}

static bool write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n <= 0)
      return false;
    buf += n;
    len -= (size_t)n;
  }
  return true;
}

/* Whether the client bytes buf[0 .. n) of pair i are to be cut. */
static bool cuts(cut_proxy *p, int i, const char *buf, size_t n) {
  pthread_mutex_lock(&p->mu);
  const char *text = p->any_text ? p->any_text : i == 0 ? p->text : NULL;
  bool hit =
      text && !atomic_load(&p->cut) && memmem(buf, n, text, strlen(text));
  if (hit) {
    atomic_store(&p->cut, true);
    p->refuse = p->refuse || p->any_text;
    free(p->any_text);
    p->any_text = NULL;
  }
  pthread_mutex_unlock(&p->mu);
  return hit;
}

/* Forwards what fd of pair i has; closes the pair when a side ends or the
 * client sends the text. */
static void forward(cut_proxy *p, int i, bool from_client) {
  pair *q = &p->pairs[i];
  char buf[65536];
  ssize_t n = read(from_client ? q->client : q->server, buf, sizeof buf);
  if (n <= 0) {
    close_pair(q);
    return;
  }
  if (from_client && cuts(p, i, buf, (size_t)n)) {
    close_pair(q);
    return;
  }
  if (!write_all(from_client ? q->server : q->client, buf, (size_t)n))
    close_pair(q);
}

static void accept_one(cut_proxy *p) {
  int c = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (c < 0)
    return;
  pthread_mutex_lock(&p->mu);
  bool refuse = p->refuse;
  pthread_mutex_unlock(&p->mu);
  /* A closed pair's place (not the first's: its text is its own), or a
   * new one. */
  int i = p->npairs > 0 ? 1 : 0;
  while (i < p->npairs && p->pairs[i].client >= 0)
    i++;
  int s = i < MAX_PAIRS && !refuse ? dial(p) : -1;
  if (s < 0) {
    close(c);
    return;
  }
  p->pairs[i] = (pair){.client = c, .server = s};
  if (i == p->npairs)
    p->npairs++;
  atomic_fetch_add(&p->accepted, 1);
}

static void *run(void *arg) {
  cut_proxy *p = arg;
  while (!atomic_load(&p->stop)) {
    if (atomic_exchange(&p->cut_all, false))
      for (int i = 0; i < p->npairs; i++)
        close_pair(&p->pairs[i]);
    struct pollfd fds[1 + 2 * MAX_PAIRS];
    int who[1 + 2 * MAX_PAIRS]; /* 2 * pair + (1 when its server) */
    nfds_t n = 0;
    fds[n] = (struct pollfd){.fd = p->listen_fd, .events = POLLIN};
    who[n++] = -1;
    for (int i = 0; i < p->npairs; i++) {
      if (p->pairs[i].client < 0)
        continue;
      fds[n] = (struct pollfd){.fd = p->pairs[i].client, .events = POLLIN};
      who[n++] = 2 * i;
      fds[n] = (struct pollfd){.fd = p->pairs[i].server, .events = POLLIN};
      who[n++] = 2 * i + 1;
    }
    if (poll(fds, n, 50) <= 0)
      continue;
    for (nfds_t k = 0; k < n; k++) {
      if (!fds[k].revents)
        continue;
      if (who[k] < 0)
        accept_one(p);
      else if (p->pairs[who[k] / 2].client >= 0)
        forward(p, who[k] / 2, who[k] % 2 == 0);
    }
  }
  return NULL;
}

cut_proxy *cut_proxy_start(const char *host, unsigned port, const char *text) {
  cut_proxy *p = calloc(1, sizeof *p);
  if (!p || (text && !(p->text = strdup(text)))) {
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  snprintf(p->host, sizeof p->host, "%s", host);
  snprintf(p->service, sizeof p->service, "%u", port);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  p->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (p->listen_fd < 0 || bind(p->listen_fd, (struct sockaddr *)&a, len) != 0 ||
      listen(p->listen_fd, 16) != 0 ||
      getsockname(p->listen_fd, (struct sockaddr *)&a, &len) != 0 ||
      pthread_create(&p->thread, NULL, run, p) != 0) {
    perror("cut-proxy");
    if (p->listen_fd >= 0)
      close(p->listen_fd);
    free(p->text);
    free(p);
    return NULL;
  }
  p->port = ntohs(a.sin_port);
  return p;
}

unsigned cut_proxy_port(const cut_proxy *p) {
  return p->port;
}

void cut_proxy_cut_next(cut_proxy *p, const char *text) {
  pthread_mutex_lock(&p->mu);
  free(p->any_text);
  p->any_text = strdup(text);
  atomic_store(&p->cut, false);
  pthread_mutex_unlock(&p->mu);
}

void cut_proxy_refuse(cut_proxy *p, bool refuse) {
  pthread_mutex_lock(&p->mu);
  p->refuse = refuse;
  pthread_mutex_unlock(&p->mu);
}

void cut_proxy_cut_all(cut_proxy *p) {
  cut_proxy_refuse(p, true);
  atomic_store(&p->cut_all, true);
  while (atomic_load(&p->cut_all)) /* closed within one poll (50 ms) */
    usleep(5000);
}

bool cut_proxy_did_cut(cut_proxy *p) {
  return atomic_load(&p->cut);
}

int cut_proxy_accepted(cut_proxy *p) {
  return atomic_load(&p->accepted);
}

void cut_proxy_stop(cut_proxy *p) {
  if (!p)
    return;
  atomic_store(&p->stop, true);
  pthread_join(p->thread, NULL);
  for (int i = 0; i < p->npairs; i++)
    close_pair(&p->pairs[i]);
  close(p->listen_fd);
  pthread_mutex_destroy(&p->mu);
  free(p->any_text);
  free(p->text);
  free(p);
}
