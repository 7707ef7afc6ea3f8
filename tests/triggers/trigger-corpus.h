/*
 * trigger-corpus.h: what the trigger-kind runners share: replaying
 * tests/data/triggers/quartz-2.3.2.tsv, fire times computed by Quartz 2.3.2
 * itself (see the README there), and collecting a trigger's fire times.
 */
#ifndef CHIME_TESTS_TRIGGER_CORPUS_H
#define CHIME_TESTS_TRIGGER_CORPUS_H

#include "triggers/trigger.h"

#include <stdint.h>

/*
 * chime_test_trigger_corpus: replays every line of the corpus whose kind
 * is `kind` ("calint" or "daily"), recording a CUnit failure naming the
 * corpus line for each difference.  Returns how many lines it replayed.
 */
int chime_test_trigger_corpus(const char *kind);

/*
 * chime_test_trigger_fires: the fire times of s from its first fire on,
 * through triggered(), at most max of them, into fires[].  Returns how many
 * (0 when it never fires).
 */
int chime_test_trigger_fires(const chime_schedule *s, int64_t *fires, int max);

#endif /* CHIME_TESTS_TRIGGER_CORPUS_H */
