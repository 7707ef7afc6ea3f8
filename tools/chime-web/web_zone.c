/*
 * web_zone.c: the zone chime-web shows times in, as the operator picks
 * it: a picker in every page's header asks GET /zone?tz=NAME&back=PATH,
 * which checks NAME with the library's own zone loader (chime_zone_get:
 * an IANA name, "UTC", "+05:30") and keeps it in the chime_tz cookie; an
 * empty NAME drops it.  Without the cookie times are in --tz's zone (UTC
 * by default) and a trigger's next fires in the trigger's own zone.
 */
#include "web.h"

#include <string.h>

/* A year: the picker is a convenience, not a secret. */
#define ZONE_COOKIE_S (365 * 24 * 3600)

/* Zones offered in the picker's list (any other may be typed). */
static const char *const common_zones[] = {"UTC",
                                           "Europe/London",
                                           "Europe/Berlin",
                                           "America/New_York",
                                           "America/Chicago",
                                           "America/Los_Angeles",
                                           "Asia/Kolkata",
                                           "Asia/Tokyo",
                                           "Australia/Sydney",
                                           NULL};

const char *web_back_path(const char *b) {
  if (!b || b[0] != '/' || b[1] == '/' || b[1] == '\\' || strlen(b) > 300)
    return "/";
  for (const char *p = b; *p; p++)
    if ((unsigned char)*p < 0x21 || *p == '\\')
      return "/";
  return b;
}

const char *web_zone_of_cookie(const char *value) {
  const chime_zone *z;
  if (!value || !*value || strlen(value) > 64 || chime_zone_get(value, &z) != 0)
    return NULL;
  return chime_zone_get_name(z);
}

int web_page_zone(web_page *p, web_reply *r) {
  const char *tz = web_param(p->q, "tz");
  const char *zone = NULL;
  if (tz && *tz && !(zone = web_zone_of_cookie(tz))) {
    web_reply_error(r, false, 400,
                    "'%.64s' is not a time zone this server knows (an IANA "
                    "name like Europe/Berlin, UTC, or +05:30)",
                    tz);
    return 400;
  }
  if (web_reply_open(r, 303, "text/plain"))
    return 500;
  /* The redirect goes to a path of ours only (web_back_path). */
  snprintf(r->location, sizeof r->location, "%s",
           web_back_path(web_param(p->q, "back")));
  if (zone)
    snprintf(r->cookie, sizeof r->cookie,
             "chime_tz=%s; Path=/; SameSite=Strict; Max-Age=%d", zone,
             ZONE_COOKIE_S);
  else
    snprintf(r->cookie, sizeof r->cookie,
             "chime_tz=; Path=/; SameSite=Strict; Max-Age=0");
  fprintf(r->out, "times in %s\n", zone ? zone : "the default zone");
  return 303;
}

void web_zone_form(web_page *p, FILE *out) {
  fputs("<form method=\"get\" action=\"/zone\" class=\"inline zone\">"
        "<label>times in <input name=\"tz\" id=\"tz\" list=\"zones\" "
        "size=\"14\" placeholder=\"",
        out);
  web_html(out, p->c->zone ? p->c->zone : "UTC");
  fputs("\" value=\"", out);
  web_html(out, p->picked_zone ? p->picked_zone : "");
  fputs("\"></label><datalist id=\"zones\">", out);
  for (const char *const *z = common_zones; *z; z++)
    fprintf(out, "<option value=\"%s\">", *z);
  fputs("</datalist><input type=\"hidden\" name=\"back\" value=\"", out);
  web_html(out, p->path);
  fputs("\"><button id=\"tz-set\">set</button></form>", out);
}
