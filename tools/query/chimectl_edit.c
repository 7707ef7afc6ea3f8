/*
 * chimectl_edit.c: the edits (chimectl_edit.h) through the public API: a
 * client scheduler (opened on the store, never started, freed after the
 * one operation) adds, replaces, reschedules, removes and fires, so the
 * library checks everything and writes all or nothing.
 *
 * A retry fires the recorded run's job now with the run's own data: the
 * bytes its trigger gave it, which the history keeps (migration 015) also
 * once a fire-now's or a retry's one-off trigger is gone; a run that read
 * its job's data recorded none, and its retry reads the job's data as it
 * is now.  The operator may give other data.
 */
#include "chimectl_edit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ctl_client_open(ctl *c, chime_scheduler **ret) {
  if (!c->node[0])
    snprintf(c->node, sizeof c->node, "%s-%ld", ctl_program, (long)getpid());
  char id[96], err[1024] = "";
  snprintf(id, sizeof id, "%s-client", c->node);
  chime_config *cfg = NULL;
  int r = chime_config_new(&cfg);
  if (!r)
    r = chime_config_set_store_url(cfg, c->url);
  if (!r)
    r = chime_config_set_scheduler_name(cfg, c->sched);
  if (!r)
    r = chime_config_set_instance_id(cfg, id);
  if (!r)
    r = chime_config_set_workers(cfg, 1);
  if (!r)
    r = chime_scheduler_new(cfg, ret, err, sizeof err);
  chime_config_free(cfg);
  if (r < 0)
    return ctl_fail(r, "%s", err[0] ? err : chime_strerror(r));
  return 0;
}

int ctl_client_fail(chime_scheduler *s, int r, const char *what,
                    const char *key) {
  const char *detail = chime_scheduler_errmsg(s);
  if (r == CHIME_ENOTFOUND && !*detail)
    return ctl_fail(r, "no %s %s", what, key);
  if (r == CHIME_EEXISTS)
    return ctl_fail(r, "%s %s exists already (edit it instead)", what, key);
  return ctl_fail(r, "%s %s: %s", what, key,
                  *detail ? detail : chime_strerror(r));
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Records an edit that succeeded in the audit trail: target "what G.N". */
static void audit_key(ctl *c, const char *action, const char *what,
                      const char *key) {
  char target[400];
  snprintf(target, sizeof target, "%s %s", what, key);
  ctl_audit(c, action, target, NULL);
}

int ctl_job_save(ctl *c, bool add, const char *key, const ctl_settings *s) {
  char g[256], n[256];
  int r = ctl_split_key(key, g, n, sizeof g);
  chime_scheduler *sch = NULL;
  chime_job *old = NULL, *job = NULL;
  if (r || (r = ctl_client_open(c, &sch)))
    return r;
  if (!add && (r = chime_scheduler_get_job(sch, g, n, &old)) < 0)
    r = ctl_client_fail(sch, r, "job", key);
  else if ((r = ctl__job_build(g, n, old, s, &job)) == 0 &&
           (r = chime_scheduler_add_job(sch, job, !add)) < 0)
    r = ctl_client_fail(sch, r, "job", key);
  chime_job_free(job);
  chime_job_free(old);
  chime_scheduler_free(sch);
  if (r == 0)
    audit_key(c, add ? "job add" : "job edit", "job", key);
  return r;
}

/* A new schedule for a stored trigger, given without a zone, keeps the
 * trigger's zone (chime_trigger has no getter for it: the store's row
 * says).  *s2 is s with the zone added when it needs one. */
static int keep_zone(ctl *c, const char *g, const char *n, const char *key,
                     const ctl_settings *s, ctl_settings *s2, char *zone,
                     size_t len) {
  *s2 = *s;
  bool schedule = ctl_setting(s, "kind") != NULL;
  for (int i = 0; ctl_schedule_kinds[i]; i++)
    schedule |= ctl_setting(s, ctl_schedule_kinds[i]) != NULL;
  if (!schedule || ctl_setting(s, "zone") || ctl_setting(s, "rrule") ||
      ctl_setting(s, "simple"))
    return 0;
  chime_admin_table *t = NULL;
  size_t row = 0;
  int r = ctl_key_row(c, false, g, n, key, &t, &row);
  if (r)
    return r;
  const char *z = chime_admin_table_get_text(t, row, "zone");
  snprintf(zone, len, "%s", z ? z : "");
  chime_admin_table_free(t);
  /* A Unix expression may name its own zone (CRON_TZ=). */
  const char *ux = ctl_setting(s, "unix-cron");
  bool named =
      ux && (strncmp(ux, "CRON_TZ=", 8) == 0 || strncmp(ux, "TZ=", 3) == 0);
  return zone[0] && !named ? ctl_setting_add(s2, "zone", zone) : 0;
}

int ctl_trigger_save(ctl *c, bool add, const char *key, const ctl_settings *s0,
                     int64_t *ret_first_ms) {
  char g[256], n[256], zone[128];
  ctl_settings s1 = *s0, *s = &s1;
  int r = ctl_split_key(key, g, n, sizeof g);
  chime_scheduler *sch = NULL;
  chime_trigger *old = NULL, *t = NULL;
  if (!r && !add)
    r = keep_zone(c, g, n, key, s0, s, zone, sizeof zone);
  if (r || (r = ctl_client_open(c, &sch)))
    return r;
  if (!add && (r = chime_scheduler_get_trigger(sch, g, n, &old)) < 0) {
    r = ctl_client_fail(sch, r, "trigger", key);
  } else if ((r = ctl__trigger_build(g, n, old, s, wall_ms(), &t)) == 0) {
    if (add && !chime_trigger_get_job_name(t))
      r = ctl_usage("a new trigger wants its job (--job GROUP.NAME)");
    else if (add)
      r = chime_scheduler_schedule(sch, NULL, t, 0, ret_first_ms);
    else
      r = chime_scheduler_reschedule(sch, g, n, t, ret_first_ms);
    if (r < 0)
      r = ctl_client_fail(sch, r, "trigger", key);
  }
  if (t != old)
    chime_trigger_free(t);
  chime_trigger_free(old);
  chime_scheduler_free(sch);
  if (r == 0)
    audit_key(c, add ? "trigger add" : "trigger edit", "trigger", key);
  return r;
}

/* Removes a job or trigger. */
static int remove_key(ctl *c, bool job, const char *key) {
  char g[256], n[256];
  int r = ctl_split_key(key, g, n, sizeof g);
  chime_scheduler *sch = NULL;
  if (r || (r = ctl_client_open(c, &sch)))
    return r;
  r = job ? chime_scheduler_remove_job(sch, g, n)
          : chime_scheduler_unschedule(sch, g, n);
  if (r < 0)
    r = ctl_client_fail(sch, r, job ? "job" : "trigger", key);
  chime_scheduler_free(sch);
  if (r == 0)
    audit_key(c, job ? "job delete" : "trigger delete", job ? "job" : "trigger",
              key);
  return r;
}

int ctl_job_remove(ctl *c, const char *key) {
  return remove_key(c, true, key);
}

int ctl_trigger_remove(ctl *c, const char *key) {
  return remove_key(c, false, key);
}

/* ------------------------------------------------------------ retry */

/* The newest history row of fire_id: its job and outcome into ret, its
 * own data (migration 015; malloc'd, NULL: it read its job's) into
 * *ret_data and *ret_len. */
static int run_row(ctl *c, const char *fire_id, ctl_retried *ret,
                   void **ret_data, size_t *ret_len) {
  *ret_data = NULL;
  *ret_len = 0;
  size_t digits = strspn(fire_id, "0123456789");
  if (!digits || fire_id[digits] || digits > 18 || fire_id[0] == '0')
    return ctl_usage("'%.40s' is not a run (the fire id history shows)",
                     fire_id);
  /* The newest run of the fire: the history's first row. */
  chime_admin_query *q = ctl_list_query(CHIME_ADMIN_HISTORY);
  if (q && (chime_admin_query_set_fire(q, strtoll(fire_id, NULL, 10)) < 0 ||
            chime_admin_query_set_page(q, 0, 1) < 0)) {
    chime_admin_query_free(q);
    q = NULL;
  }
  chime_admin_table *t = NULL;
  int r = ctl_list(c, q, &t);
  if (r)
    return r;
  if (chime_admin_table_get_row_count(t) == 0) {
    chime_admin_table_free(t);
    return ctl_fail(CHIME_ENOTFOUND, "no run %s in the history", fire_id);
  }
  snprintf(ret->job, sizeof ret->job, "%s.%s",
           chime_admin_table_get_text(t, 0, "job_group"),
           chime_admin_table_get_text(t, 0, "job_name"));
  snprintf(ret->outcome, sizeof ret->outcome, "%s",
           chime_admin_table_get_text(t, 0, "outcome"));
  size_t len = 0;
  const void *data = chime_admin_table_get_bytes(t, 0, "data", &len);
  ret->data_from = "the job's";
  if (data && len > 0 && !(*ret_data = malloc(len + 1)))
    r = ctl_fail(CHIME_ENOMEM, "out of memory");
  if (*ret_data) {
    memcpy(*ret_data, data, len);
    ((char *)*ret_data)[len] = '\0'; /* text data reads as a string */
    *ret_len = len;
    ret->data_from = "the run's own";
  }
  chime_admin_table_free(t);
  return r;
}

int ctl_run_data(ctl *c, const char *fire_id, void **ret_data, size_t *ret_len,
                 ctl_retried *ret) {
  *ret_data = NULL;
  *ret_len = 0;
  int r = ctl_open(c, NULL);
  return r ? r : run_row(c, fire_id, ret, ret_data, ret_len);
}

int ctl_retry_run(ctl *c, const char *fire_id, const char *data,
                  ctl_retried *ret) {
  if (data && !ctl_json_is_valid(data))
    return ctl_usage("--data is not valid JSON");
  char g[256], n[256];
  void *stored = NULL;
  size_t stored_len = 0;
  chime_scheduler *sch = NULL;
  int r = ctl_open(c, NULL);
  if (!r)
    r = run_row(c, fire_id, ret, &stored, &stored_len);
  if (!r && strcmp(ret->outcome, "OK") == 0)
    r = ctl_fail(CHIME_EINVAL,
                 "run %s of job %s succeeded (OK): nothing to retry (fire the "
                 "job to run it again)",
                 fire_id, ret->job);
  if (!r)
    r = ctl_split_key(ret->job, g, n, sizeof g);
  if (!r)
    r = ctl_client_open(c, &sch);
  if (!r) {
    /* The operator's data, else the run's own bytes, else the job's. */
    if (data)
      ret->data_from = "given";
    const void *d = data ? data : stored;
    size_t len = data ? strlen(data) : stored_len;
    r = chime_scheduler_run_job(sch, g, n, d, len, NULL);
    if (r < 0)
      r = ctl_client_fail(sch, r, "job", ret->job);
  }
  free(stored);
  chime_scheduler_free(sch);
  if (r == 0) {
    char target[64];
    snprintf(target, sizeof target, "run %s", fire_id);
    ctl_audit(c, "retry", target, ret->job);
  }
  return r;
}

int ctl_job_get(ctl *c, const char *key, chime_job **ret) {
  char g[256], n[256];
  int r = ctl_split_key(key, g, n, sizeof g);
  chime_scheduler *sch = NULL;
  if (r || (r = ctl_client_open(c, &sch)))
    return r;
  if ((r = chime_scheduler_get_job(sch, g, n, ret)) < 0)
    r = ctl_client_fail(sch, r, "job", key);
  chime_scheduler_free(sch);
  return r;
}
