/*
 * web_auth.c: chime-web's users and roles.  A user is a name, a role and
 * a secret token; --token-file gives one user, "operator", with the
 * operator role (as before users), --users-file any number:
 *
 *   # NAME ROLE TOKEN
 *   alice operator 3f9c...
 *   bob read-only 81d2...
 *
 * one user a line, fields separated by blanks, '#' lines and blank lines
 * ignored.  A token signs its user in (the sign-in page, or
 * "Authorization: Bearer" for a script), so tokens are unique.  A
 * read-only user sees what anyone sees; web_http.c refuses their writes
 * (403) before any is looked at.  Secrets come from files only, never
 * the command line, which ps shows.
 */
#include "web.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* A token's shortest length. */
#define MIN_TOKEN 8

const char *web_role_name(web_role role) {
  return role == WEB_OPERATOR ? "operator" : "read-only";
}

/* Whether name is a user's name: 1-63 of letters, digits, . _ @ -. */
static bool name_ok(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 63)
    return false;
  for (const char *p = name; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("._@-", *p))
      return false;
  return true;
}

bool web_same_secret(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  unsigned char d = la != lb;
  for (size_t i = 0; i < la && i < lb; i++)
    d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0 && la > 0;
}

int web_add_user(web *w, const char *name, web_role role, const char *token) {
  if (w->nusers == WEB_MAX_USERS)
    return ctl_usage("at most %d users", WEB_MAX_USERS);
  if (!name_ok(name))
    return ctl_usage("user name '%.80s' is not 1-63 letters, digits, '.', "
                     "'_', '@' or '-'",
                     name);
  if (strlen(token) < MIN_TOKEN || strlen(token) >= sizeof w->users[0].token)
    return ctl_fail(CHIME_EINVAL,
                    "the token of user %s is shorter than %d or longer "
                    "than %zu characters",
                    name, MIN_TOKEN, sizeof w->users[0].token - 1);
  for (size_t i = 0; i < w->nusers; i++) {
    if (strcmp(w->users[i].name, name) == 0)
      return ctl_usage("user %s is given twice", name);
    if (web_same_secret(w->users[i].token, token))
      return ctl_fail(CHIME_EINVAL,
                      "users %s and %s have the same token (a token "
                      "names its user: each needs its own)",
                      w->users[i].name, name);
  }
  web_user *u = &w->users[w->nusers++];
  snprintf(u->name, sizeof u->name, "%s", name);
  snprintf(u->token, sizeof u->token, "%s", token);
  u->role = role;
  w->token = w->users[0].token;
  return 0;
}

int web_read_users(web *w, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return ctl_fail(CHIME_EIO, "cannot read users file %s: %s", path,
                    strerror(errno));
  char line[512];
  int r = 0, n = 0;
  while (r == 0 && fgets(line, sizeof line, f)) {
    n++;
    if (!strchr(line, '\n') && !feof(f)) {
      r = ctl_usage("%s:%d: the line is longer than %zu bytes", path, n,
                    sizeof line - 2);
      break;
    }
    char *save = NULL;
    char *name = strtok_r(line, " \t\r\n", &save);
    if (!name || name[0] == '#')
      continue;
    char *role = strtok_r(NULL, " \t\r\n", &save);
    char *token = strtok_r(NULL, " \t\r\n", &save);
    if (!role || !token || strtok_r(NULL, " \t\r\n", &save)) {
      r = ctl_usage("%s:%d: wants NAME ROLE TOKEN", path, n);
      break;
    }
    bool op = strcmp(role, "operator") == 0;
    if (!op && strcmp(role, "read-only") != 0) {
      r = ctl_usage("%s:%d: role '%.40s' is neither operator nor read-only",
                    path, n, role);
      break;
    }
    r = web_add_user(w, name, op ? WEB_OPERATOR : WEB_READ_ONLY, token);
  }
  if (r == 0 && ferror(f))
    r = ctl_fail(CHIME_EIO, "cannot read users file %s", path);
  fclose(f);
  return r;
}

const web_user *web_user_by_token(const web *w, const char *token) {
  const web_user *found = NULL;
  /* Every user compared: the time says nothing of which matched. */
  for (size_t i = 0; token && i < w->nusers; i++)
    if (web_same_secret(w->users[i].token, token))
      found = &w->users[i];
  return found;
}
