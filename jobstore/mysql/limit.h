/*
 * mysql/limit.h: the MySQL store's limits of job types (limit.c): the
 * store operations and what a claim transaction (acquire.c) and the
 * misfire scan (maint.c) ask of them.  docs/queue.md, "Limits".
 */
#ifndef CHIME_JOBSTORE_MYSQL_LIMIT_H
#define CHIME_JOBSTORE_MYSQL_LIMIT_H

#include "jobstore/mysql/ops.h"

#include <stdbool.h>
#include <stdint.h>

/* One partition's running fires, counted once per claim, and its rate's
 * state (limit_keys), read once per claim. */
typedef struct chime__mysql_part {
  char *key;
  int64_t running;
  bool counted;     /* running was counted */
  bool tat_read;    /* tat_ms was read */
  bool tat_changed; /* to write before the claim commits */
  bool full;        /* a fire was passed over for this partition's limit */
  int64_t tat_ms;
} chime__mysql_part;

/* A limited type met by one claim transaction: its row, locked. */
typedef struct chime__mysql_limit {
  char *type;
  bool limited; /* its row was locked and read */
  bool skip;    /* another session holds its row: passed over this time */
  bool full;    /* a fire was passed over for the type's own limit */
  bool tat_changed;
  chime_limit_def def;
  int64_t tat_ms;  /* the rate's state: its theoretical arrival time */
  int64_t now_ms;  /* the database's NOW(3) when the row was locked */
  int64_t running; /* with this batch's claims */
  chime__mysql_part *parts;
  size_t nparts;
} chime__mysql_limit;

/* The limits of one claim transaction (reset before a retry). */
typedef struct chime__mysql_limits {
  chime__mysql_limit *v;
  size_t n, cap;
  int64_t wait_ms; /* store.h's limit_wait_ms; -1: nothing passed over */
} chime__mysql_limits;

/* Reads which types have a limit when the last reading is a second old
 * (or a limit was set by this node since).  Loop thread only. */
int chime__mysql_limits_refresh(chime__mysql_tx *tx);
/* Whether type has a limit, as last read; frees the list (store free). */
bool chime__mysql_type_limited(const chime__mysql_store *s, const char *type);
void chime__mysql_limits_free(chime__mysql_store *s);
/* Fills the rows limited ("/+{limited+/ /+:type+/ /+}+/", '*' for '+')
 * with the limited types (some). */
void chime__mysql_sqlbuf_limited(chime__mysql_sqlbuf *b);

/* Whether the claim may take trigger t of job now (*ret_ok), counting it
 * when so: always for an unlimited type or a shard; for a limited one,
 * when its row is free and the type, the trigger's partition and the rate
 * have room.  Returns: 0; a statement's error. */
int chime__mysql_limit_admit(chime__mysql_tx *tx, chime__mysql_limits *ls,
                             const chime_job *job, const chime_trigger *t,
                             bool *ret_ok);
/* Gives each of ts[0 .. n) (runs of job, about to be stored) the partition
 * key its data names when job's type has a limit with a partition field
 * (chime__limit_partition_from_data): one SELECT, none when no run lacks
 * a key and has data (its own or job's).  Returns: 0; a statement's
 * error; CHIME_ENOMEM. */
int chime__mysql_limit_partition(chime__mysql_tx *tx, chime_trigger *const *ts,
                                 size_t n, const chime_job *job);
/* Writes the rates' new state before the claim commits. */
int chime__mysql_limits_write(chime__mysql_tx *tx, chime__mysql_limits *ls);
/* Whether some type (or partition of one) was passed over, and the parts
 * full and full_keys of the claim's second look (claim_due.sql,
 * acquire.c): a row per type full as a whole, a row (type, key) per full
 * partition of another type, each part left out when it has none, so one
 * tenant's queue does not hold up the others'. */
bool chime__mysql_limits_full(const chime__mysql_limits *ls);
void chime__mysql_sqlbuf_full(chime__mysql_sqlbuf *b,
                              const chime__mysql_limits *ls);
void chime__mysql_limits_clear(chime__mysql_limits *ls);

/* The store operations (store.h). */
int chime__mysql_limit_set(chime_store *store, const char *job_type,
                           const chime_limit_def *def);
int chime__mysql_limit_get(chime_store *store, const char *job_type,
                           chime_limit_def *ret);
int64_t chime__mysql_limit_wait_ms(chime_store *store);
int chime__mysql_limit_stats(chime_store *store, int64_t now_ms,
                             chime_limit_stat **ret_stats, size_t *ret_count);

#endif /* CHIME_JOBSTORE_MYSQL_LIMIT_H */
