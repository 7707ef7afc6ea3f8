/*
 * mysql/audit.c: the audit trail of operator actions (sql/014): one row
 * per action, written in the transaction of the caller (an admin action,
 * a drain request), stamped with the database's clock.  Its rows are
 * swept by retain.c (audit_retention_ms, audit_max_rows).  An operator's
 * tool records its own actions in a transaction of their own
 * (chime__mysql_audit_add: store.h's audit_add, chime_admin_audit).
 *
 * Threads: whichever runs the transaction.
 */
#include "jobstore/mysql/ops.h"

#include "jobstore/mysql/tx.h"

#include <string.h>

/* The longest text kept of each field (the columns' sizes). */
#define WHO_MAX 190
#define TARGET_MAX 400
#define DETAILS_MAX 4000

/* s cut to at most max bytes at a UTF-8 boundary, into buf. */
static const char *cut(const char *s, size_t max, char *buf) {
  size_t n = strlen(s);
  if (n <= max)
    return s;
  while (n > max || (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80))
    n--;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return buf;
}

int chime__mysql_audit_tx(chime__mysql_tx *tx, const char *who,
                          const char *origin, const char *action,
                          const char *target, const char *details) {
  char w[WHO_MAX + 1], o[WHO_MAX + 1], a[65], t[TARGET_MAX + 1];
  char d[DETAILS_MAX + 1];
  chime__mysql_sqlbuf b;
  chime__mysql_sqlbuf_init(&b, tx);
  chime__mysql_sqlbuf_stmt(&b, CHIME__Q_AUDIT_INSERT);
  chime__mysql_sqlbuf_at(&b, "sched_name");
  chime__mysql_sqlbuf_text(&b, tx->s->sched);
  chime__mysql_sqlbuf_at(&b, "who");
  chime__mysql_sqlbuf_text(&b, cut(who ? who : "?", WHO_MAX, w));
  chime__mysql_sqlbuf_at(&b, "origin");
  chime__mysql_sqlbuf_text(&b, cut(origin ? origin : "?", WHO_MAX, o));
  chime__mysql_sqlbuf_at(&b, "action");
  chime__mysql_sqlbuf_text(&b, cut(action, 64, a));
  chime__mysql_sqlbuf_at(&b, "target");
  chime__mysql_sqlbuf_text(&b, cut(target ? target : "", TARGET_MAX, t));
  chime__mysql_sqlbuf_at(&b, "details");
  chime__mysql_sqlbuf_text(&b, details ? cut(details, DETAILS_MAX, d) : NULL);
  return chime__mysql_sqlbuf_run(&b, NULL, NULL);
}

typedef struct audit_op {
  const char *who, *origin, *action, *target, *details;
} audit_op;

static int audit_fn(chime__mysql_tx *tx, void *arg) {
  const audit_op *op = arg;
  return chime__mysql_audit_tx(tx, op->who, op->origin, op->action, op->target,
                               op->details);
}

int chime__mysql_audit_add(chime_store *store, const char *who,
                           const char *origin, const char *action,
                           const char *target, const char *details,
                           char *errbuf, size_t errbuf_len) {
  if (!action || !*action)
    return chime__record_err(errbuf, errbuf_len, CHIME_EINVAL,
                             "an audit row needs an action");
  audit_op op = {who, origin, action, target, details};
  return chime__mysql_tx_run(chime__mysql_store_of(store), audit_fn, NULL, &op,
                             errbuf, errbuf_len);
}
