/*
 * mysql/result.c: the typed, asserted accessors of a materialised result
 * (result.h).  Cells arrive as text (stmt.c, text.c, conn.c's probes),
 * numbers included; chime__mysql_rows_take copies them out of a result.
 */
#include "jobstore/mysql/result.h"

#include "chime.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const chime__mysql_cell *cell_at(const chime__mysql_rows *rows,
                                        size_t row, size_t col) {
  assert(rows);
  assert(row < rows->nrows);
  assert(col < rows->ncols);
  assert(rows->cells);
  return &rows->cells[row * rows->ncols + col];
}

const char *chime__mysql_rows_text(const chime__mysql_rows *rows, size_t row,
                                   size_t col) {
  return cell_at(rows, row, col)->v;
}

int64_t chime__mysql_rows_int64(const chime__mysql_rows *rows, size_t row,
                                size_t col) {
  const char *v = cell_at(rows, row, col)->v;
  assert(v && "an integer read from a NULL cell");
  char *end;
  long long n = strtoll(v, &end, 10);
  assert(end != v && *end == '\0' && "an integer read from a non-integer");
  (void)end;
  return (int64_t)n;
}

bool chime__mysql_rows_is_null(const chime__mysql_rows *rows, size_t row,
                               size_t col) {
  return cell_at(rows, row, col)->v == NULL;
}

size_t chime__mysql_rows_len(const chime__mysql_rows *rows, size_t row,
                             size_t col) {
  const chime__mysql_cell *c = cell_at(rows, row, col);
  assert(c->v || c->len == 0);
  return c->len;
}

void chime__mysql_rows_free(chime__mysql_rows *rows) {
  if (!rows)
    return;
  for (size_t i = 0; rows->cells && i < rows->nrows * rows->ncols; i++)
    free(rows->cells[i].v);
  free(rows->cells);
  memset(rows, 0, sizeof *rows);
}

int chime__mysql_rows_take(MYSQL_RES *res, chime__mysql_rows *ret) {
  assert(res && ret);
  memset(ret, 0, sizeof *ret);
  size_t ncols = mysql_num_fields(res), nrows = mysql_num_rows(res);
  ret->ncols = ncols;
  ret->cells =
      calloc(nrows * ncols > 0 ? nrows * ncols : 1, sizeof *ret->cells);
  if (!ret->cells)
    return CHIME_ENOMEM;
  int r = 0;
  MYSQL_ROW row;
  while (r == 0 && (row = mysql_fetch_row(res))) {
    assert(ret->nrows < nrows);
    unsigned long *lens = mysql_fetch_lengths(res);
    /* Counted first: an error frees the cells of this row too. */
    chime__mysql_cell *cells = &ret->cells[ret->nrows++ * ncols];
    for (size_t c = 0; c < ncols && r == 0; c++) {
      if (!row[c])
        continue;
      if (!(cells[c].v = malloc(lens[c] + 1))) {
        r = CHIME_ENOMEM;
        break;
      }
      memcpy(cells[c].v, row[c], lens[c]);
      cells[c].v[lens[c]] = '\0';
      cells[c].len = lens[c];
    }
  }
  if (r < 0)
    chime__mysql_rows_free(ret);
  return r;
}
