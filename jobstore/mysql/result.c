/*
 * mysql/result.c: the typed, asserted accessors of a materialised result
 * (result.h).  Cells arrive as text (stmt.c, text.c), numbers included.
 */
#include "jobstore/mysql/result.h"

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
