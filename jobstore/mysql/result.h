/*
 * result.h: a materialised result of the MySQL store: every row of a
 * statement copied out of Connector/C as text cells, read back with typed
 * accessors in the spirit of sqlite3_column_*: each asserts that the row
 * and the column are in range, and the integer accessor that the cell is
 * not NULL (a NOT NULL column; test a nullable one with
 * chime__mysql_rows_is_null first).  Decoding garbage into 0 is a bug.
 *
 * Ownership: a result is its holder's until chime__mysql_rows_free; the
 * text of a cell is borrowed from it.  Thread: a result is plain memory,
 * read by one thread at a time.
 */
#ifndef CHIME_JOBSTORE_MYSQL_RESULT_H
#define CHIME_JOBSTORE_MYSQL_RESULT_H

#include <mysql.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One cell: a NUL-terminated copy of the value, NULL for SQL NULL. */
typedef struct chime__mysql_cell {
  char *v;
  size_t len; /* bytes of v, without the NUL */
} chime__mysql_cell;

/* nrows * ncols cells, row by row.  A zeroed result is an empty one. */
typedef struct chime__mysql_rows {
  size_t nrows, ncols;
  chime__mysql_cell *cells;
} chime__mysql_rows;

/* The text of a cell, NULL for SQL NULL.  Asserts row < nrows and
 * col < ncols.  Borrowed from rows. */
const char *chime__mysql_rows_text(const chime__mysql_rows *rows, size_t row,
                                   size_t col);

/* The integer of a NOT NULL cell.  Asserts the position, that the cell is
 * not NULL and that it holds a whole decimal integer. */
int64_t chime__mysql_rows_int64(const chime__mysql_rows *rows, size_t row,
                                size_t col);

/* Whether a cell is SQL NULL.  Asserts the position. */
bool chime__mysql_rows_is_null(const chime__mysql_rows *rows, size_t row,
                               size_t col);

/* The length in bytes of a cell (0 for NULL).  Asserts the position. */
size_t chime__mysql_rows_len(const chime__mysql_rows *rows, size_t row,
                             size_t col);

/* Frees the cells and leaves rows empty (zeroed); rows may be NULL. */
void chime__mysql_rows_free(chime__mysql_rows *rows);
/* Copies every row of res (a stored result; the caller frees it) into
 * *ret.  Returns: 0; CHIME_ENOMEM (*ret empty). */
int chime__mysql_rows_take(MYSQL_RES *res, chime__mysql_rows *ret);

#endif /* CHIME_JOBSTORE_MYSQL_RESULT_H */
