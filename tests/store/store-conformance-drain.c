/*
 * store-conformance-drain.c: the job store conformance suite: draining
 * the store's own node (store.h's drain_* ops; include/chime.h:
 * chime_scheduler_drain).  A request makes the node DRAINING (read by
 * its check-in), its report DRAINED, undraining it ACTIVE; an unknown
 * node is not found; a timeout that passed hands the node's executing
 * fire over (its completion refused) while the node stays.  The timeout
 * is judged by the store's clock (the database's on MySQL), so its wait
 * polls real time with a wide deadline.  Also release_fired, the other way
 * a node gives fires back (its local queue's).
 */
#include "store-conformance-impl.h"

#include "core/clock.h"

#include <stdlib.h>

/* How long a wait for a 1 ms drain timeout to pass may take, at most. */
#define DRAIN_WAIT_MAX_MS (20 * SEC)

static int node_state(chime_store *st, const char *node) {
  int state = -1;
  CU_ASSERT_EQUAL_FATAL(st->ops->drain_get(st, node, &state), 0);
  return state;
}

/* The node's state as a check-in reads it now. */
static int checked_in_state(chime_store *st, bool *ret_overdue) {
  CU_ASSERT_EQUAL_FATAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  return st->ops->checkin_drain(st, ret_overdue);
}

static void test_store_drain_states(void) {
  chime_store *st = sc_open();
  CU_ASSERT_PTR_NOT_NULL_FATAL(st->ops->drain_set);
  bool overdue = true;
  CU_ASSERT_EQUAL(checked_in_state(st, &overdue), CHIME_NODE_ACTIVE);
  CU_ASSERT_FALSE(overdue);
  CU_ASSERT_EQUAL(node_state(st, NULL), CHIME_NODE_ACTIVE);
  /* Undraining a node not drained, or draining one not in the cluster. */
  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, false, 0, NULL, NULL),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(st->ops->drain_set(st, "no-such-node", true, 0, NULL, NULL),
                  CHIME_ENOTFOUND);
  CU_ASSERT_EQUAL(node_state(st, "no-such-node"), CHIME_NODE_ACTIVE);

  /* By its id or as "this node": the same node. */
  CU_ASSERT_EQUAL(st->ops->drain_set(st, "node-a", true, 0, "tester", NULL), 0);
  CU_ASSERT_EQUAL(node_state(st, NULL), CHIME_NODE_DRAINING);
  CU_ASSERT_EQUAL(node_state(st, "node-a"), CHIME_NODE_DRAINING);
  CU_ASSERT_EQUAL(checked_in_state(st, &overdue), CHIME_NODE_DRAINING);
  CU_ASSERT_FALSE(overdue); /* no timeout */
  CU_ASSERT_EQUAL(st->ops->drain_report(st, 0), 0);
  CU_ASSERT_EQUAL(node_state(st, NULL), CHIME_NODE_DRAINED);
  CU_ASSERT_EQUAL(checked_in_state(st, NULL), CHIME_NODE_DRAINED);
  /* Asked again: a new timeout, still drained. */
  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, true, HOUR, NULL, NULL), 0);
  CU_ASSERT_EQUAL(node_state(st, NULL), CHIME_NODE_DRAINED);

  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, false, 0, NULL, NULL), 0);
  CU_ASSERT_EQUAL(node_state(st, NULL), CHIME_NODE_ACTIVE);
  CU_ASSERT_EQUAL(checked_in_state(st, &overdue), CHIME_NODE_ACTIVE);
  CU_ASSERT_FALSE(overdue);
  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, false, 0, NULL, NULL),
                  CHIME_ENOTFOUND);
  sc_close(st);
}

typedef struct told {
  int count;
  int64_t fire_id;
  bool requeued;
} told;

static void on_handed(void *user_data, const chime_recovery *rec) {
  told *t = user_data;
  t->count++;
  t->fire_id = rec->fire_id;
  t->requeued = rec->requeued;
  CU_ASSERT_STRING_EQUAL(rec->trigger_group, "tg");
  CU_ASSERT_STRING_EQUAL(rec->trigger_name, "t");
  CU_ASSERT_STRING_EQUAL(rec->job_group, "g");
  CU_ASSERT_STRING_EQUAL(rec->job_name, "j");
}

/* The node checked in, and the one fire of trigger tg.t (job g.j, which
 * does not request recovery) fired: EXECUTING. */
static chime_fire *checked_in_executing(chime_store *st) {
  CU_ASSERT_EQUAL_FATAL(st->ops->checkin(st, st->ops->now(st), NULL), 0);
  sc_add_job(st, "g", "j", "type-a", true);
  sc_add_simple(st, "tg", "t", "g", "j", T0, 0, 0);
  chime_fire *f = sc_fire_next(st, T0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(f->phase, CHIME_FIRE_EXECUTING);
  return f;
}

static void test_store_drain_timeout_hands_over(void) {
  chime_store *st = sc_open();
  chime_fire *f = checked_in_executing(st);

  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, true, 1, NULL, NULL), 0);
  int64_t start = chime__mono_ms();
  bool overdue = false;
  while (checked_in_state(st, &overdue) == CHIME_NODE_DRAINING && !overdue) {
    CU_ASSERT_FATAL(chime__mono_ms() - start < DRAIN_WAIT_MAX_MS);
    chime__sleep_ms(10);
  }
  CU_ASSERT_TRUE(overdue);

  told t = {0};
  size_t handed = 0;
  CU_ASSERT_EQUAL(
      st->ops->drain_hand_over(st, 10 * SEC, on_handed, &t, &handed), 0);
  CU_ASSERT_EQUAL(handed, 1);
  CU_ASSERT_EQUAL(t.count, 1);
  CU_ASSERT_EQUAL(t.fire_id, f->fire_id);
  CU_ASSERT_FALSE(t.requeued); /* the job does not request recovery */
  bool owned = true;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, f, &owned), 0);
  CU_ASSERT_FALSE(owned);
  CU_ASSERT_EQUAL(sc_complete(st, f), CHIME_ENOTOWNER); /* fenced */
  chime__fire_free(f);

  /* The node stays: it reports itself drained, and undrained it is
   * active again. */
  CU_ASSERT_EQUAL(st->ops->drain_report(st, handed), 0);
  CU_ASSERT_EQUAL(node_state(st, NULL), CHIME_NODE_DRAINED);
  CU_ASSERT_EQUAL(st->ops->drain_set(st, NULL, false, 0, NULL, NULL), 0);
  CU_ASSERT_EQUAL(checked_in_state(st, NULL), CHIME_NODE_ACTIVE);
  sc_close(st);
}

/* release_fired: a fired fire whose run never started (a node's local
 * queue, engine/localq.c) goes back to the cluster: run again at once as
 * a recovered fire with its original time, though its job does not
 * request recovery; the node's completion of it is refused; a fire no
 * longer the node's is left alone.  A store nobody else shares (memory)
 * has no release_fired: nothing to test there. */
static void test_store_release_fired(void) {
  chime_store *st = sc_open();
  if (!st->ops->release_fired) {
    sc_close(st);
    return;
  }
  chime_fire *f = checked_in_executing(st);
  CU_ASSERT_FALSE(f->recovering);

  size_t released = 9;
  CU_ASSERT_EQUAL(st->ops->release_fired(st, &f, 1, &released), 0);
  CU_ASSERT_EQUAL(released, 1);
  bool owned = true;
  CU_ASSERT_EQUAL(st->ops->still_owned(st, f, &owned), 0);
  CU_ASSERT_FALSE(owned);
  CU_ASSERT_EQUAL(sc_complete(st, f), CHIME_ENOTOWNER); /* fenced */
  /* Not the node's any more: a second release leaves it alone. */
  CU_ASSERT_EQUAL(st->ops->release_fired(st, &f, 1, &released), 0);
  CU_ASSERT_EQUAL(released, 0);

  /* It runs again, once, as a recovered fire with its original time. */
  chime_fire *again = sc_fire_next(st, st->ops->now(st));
  CU_ASSERT_PTR_NOT_NULL_FATAL(again);
  CU_ASSERT_TRUE(again->recovering);
  CU_ASSERT_EQUAL(again->scheduled_ms, f->scheduled_ms);
  CU_ASSERT_NOT_EQUAL(again->fire_id, f->fire_id);
  CU_ASSERT_STRING_EQUAL(again->job->name, "j");
  CU_ASSERT_EQUAL(sc_complete(st, again), 0);
  CU_ASSERT_PTR_NULL(sc_fire_next(st, st->ops->now(st)));
  chime__fire_free(again);
  chime__fire_free(f);
  sc_close(st);
}

CU_TestInfo sc_drain_tests[] = {
    {"release_fired gives a fire that never started back",
     test_store_release_fired},
    {"drain states of the store's node", test_store_drain_states},
    {"a drain timeout hands the node's fires over",
     test_store_drain_timeout_hands_over},
    CU_TEST_INFO_NULL,
};
