/*
 * trigger-corpus.h: replays tests/data/triggers/quartz-2.3.2.tsv, fire
 * times computed by Quartz 2.3.2 itself (see the README there).
 */
#ifndef CHIME_TESTS_TRIGGER_CORPUS_H
#define CHIME_TESTS_TRIGGER_CORPUS_H

/*
 * chime_test_trigger_corpus: replays every line of the corpus whose kind
 * is `kind` ("calint" or "daily"), recording a CUnit failure naming the
 * corpus line for each difference.  Returns how many lines it replayed.
 */
int chime_test_trigger_corpus(const char *kind);

#endif /* CHIME_TESTS_TRIGGER_CORPUS_H */
