/*
 * cron_parse.c: the parser for Quartz's cron dialect.  It reads the seven
 * fields (the year is optional), each a comma-separated list of elements
 * ('*', '?', a value, a range "a-b" that may wrap, each with an optional
 * increment "/n", and the day forms L, L-n, LW, nW, nL, n#k) and compiles
 * them into the bit sets of cron.h.  An "element" is one item of a list.
 * Errors name the field and the 1-based column of the offending character.
 * Where Quartz silently ignores part of an input, this parser rejects it
 * (docs/cron.md lists those cases).
 */
#include "triggers/cron.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { F_SEC, F_MIN, F_HOUR, F_DOM, F_MONTH, F_DOW, F_YEAR, F_COUNT };

/* A field's name, its value range, and the largest increment Quartz allows. */
static const struct field_spec {
  const char *name;
  int min;
  int max;
  int max_incr;
} specs[F_COUNT] = {
    {"second", 0, 59, 59},
    {"minute", 0, 59, 59},
    {"hour", 0, 23, 23},
    {"day-of-month", 1, 31, 31},
    {"month", 1, 12, 12},
    {"day-of-week", 1, 7, 7},
    {"year", CHIME_CRON_YEAR_MIN, CHIME_CRON_YEAR_MAX,
     CHIME_CRON_YEAR_MAX - CHIME_CRON_YEAR_MIN},
};

static const char *const month_names[12] = {"JAN", "FEB", "MAR", "APR",
                                            "MAY", "JUN", "JUL", "AUG",
                                            "SEP", "OCT", "NOV", "DEC"};
static const char *const day_names[7] = {"SUN", "MON", "TUE", "WED",
                                         "THU", "FRI", "SAT"};

/* The parser's state: where it is, and the current field's values. */
typedef struct parser {
  const char *expr;
  int field;
  size_t pos;       /* index into expr */
  size_t tok_end;   /* index just past the current field's text */
  uint64_t bits[4]; /* bit (value - spec.min) for the current field */
  bool question;    /* the current field is '?' */
  chime_cron *out;
  int *reterr_column;
  char *errbuf;
  size_t errbuf_len;
} parser;

/* Records an error at index pos of the expression and returns CHIME_EPARSE. */
static int fail(parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(parser *p, size_t pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = chime__cron_vfail(p->reterr_column, p->errbuf, p->errbuf_len,
                            specs[p->field].name, pos + 1, fmt, ap);
  va_end(ap);
  return r;
}

/* A character for a message: itself in quotes, or its byte value. */
typedef struct shown {
  char text[12];
} shown;

static shown show(char c) {
  shown s;
  unsigned char u = (unsigned char)c;
  if (u > 32 && u < 127)
    snprintf(s.text, sizeof s.text, "'%c'", c);
  else
    snprintf(s.text, sizeof s.text, "byte 0x%02x", u);
  return s;
}

#define upper chime__cron_upper
#define is_alpha chime__cron_is_alpha
#define is_digit chime__cron_is_digit

/* The character at the cursor, or NUL at the end of the field. */
static char peek(const parser *p) {
  return p->pos < p->tok_end ? p->expr[p->pos] : '\0';
}

static void set_bit(parser *p, int value) {
  int b = value - specs[p->field].min;
  p->bits[b / 64] |= UINT64_C(1) << (b % 64);
}

/* Reads a decimal number of at most 4 digits at the cursor. */
static int read_number(parser *p, int *ret) {
  size_t start = p->pos;
  int v = 0;
  while (is_digit(peek(p))) {
    if (p->pos - start >= 4)
      return fail(p, start, "number '%.*s...' is too long", 4, p->expr + start);
    v = v * 10 + (p->expr[p->pos] - '0');
    p->pos++;
  }
  if (p->pos == start) {
    char c = peek(p);
    if (c == '\0')
      return fail(p, start, "a number is missing at the end of the field");
    return fail(p, start, "expected a number, found %s", show(c).text);
  }
  *ret = v;
  return 0;
}

/*
 * Reads a month or day name at the cursor (3 letters, any case).  In the
 * day-of-week field a trailing 'L' ("FRIL") is left for the caller.
 */
static int read_name(parser *p, int *ret) {
  size_t start = p->pos, n = 0;
  while (is_alpha(peek(p)))
    p->pos++, n++;
  bool dow = p->field == F_DOW;
  if (dow && n == 4 && upper(p->expr[start + 3]) == 'L')
    p->pos--, n--;
  const char *const *names = dow ? day_names : month_names;
  int count = dow ? 7 : 12;
  if (n == 3) {
    char w[3] = {upper(p->expr[start]), upper(p->expr[start + 1]),
                 upper(p->expr[start + 2])};
    for (int i = 0; i < count; i++)
      if (memcmp(w, names[i], 3) == 0) {
        *ret = i + 1;
        return 0;
      }
  }
  return fail(p, start, "unknown %s name '%.*s'", dow ? "day" : "month",
              (int)(n > 16 ? 16 : n), p->expr + start);
}

/* Reads a value (a number, or a name where the field has names). */
static int read_value(parser *p, int *ret, bool *ret_is_name) {
  size_t start = p->pos;
  int r;
  *ret_is_name = is_alpha(peek(p));
  if (*ret_is_name) {
    if (p->field != F_MONTH && p->field != F_DOW)
      return fail(p, start, "names are not allowed here, found %s",
                  show(peek(p)).text);
    r = read_name(p, ret);
  } else {
    r = read_number(p, ret);
  }
  if (r < 0)
    return r;
  const struct field_spec *s = &specs[p->field];
  if (*ret < s->min || *ret > s->max)
    return fail(p, start, "value %d is out of range %d-%d", *ret, s->min,
                s->max);
  return 0;
}

/*
 * Reads "/n" at the cursor into *ret_incr (left alone when absent).  Quartz
 * bounds the increment by the field's size after '*' and after a single
 * value, but not after a range ("1-31/40" is day 1), so neither does this.
 */
static int read_increment(parser *p, bool bounded, int *ret_incr) {
  if (peek(p) != '/')
    return 0;
  p->pos++;
  size_t start = p->pos;
  int incr, r = read_number(p, &incr);
  if (r < 0)
    return r;
  if (incr < 1)
    return fail(p, start, "increment must be at least 1");
  if (bounded && incr > specs[p->field].max_incr)
    return fail(p, start, "increment %d is out of range 1-%d", incr,
                specs[p->field].max_incr);
  *ret_incr = incr;
  return 0;
}

/* Adds start, start+incr, ... up to stop, wrapping past the field's end. */
static void add_range(parser *p, int start, int stop, int incr) {
  const struct field_spec *s = &specs[p->field];
  int span = s->max - s->min + 1;
  if (stop < start)
    stop += span;
  for (int v = start; v <= stop; v += incr)
    set_bit(p, v > s->max ? v - span : v);
}

/* Records the day-of-month forms L, L-n, LW and L-nW (the cursor is on L). */
static int parse_dom_last(parser *p, bool whole) {
  size_t start = p->pos;
  int offset = 0;
  p->pos++;
  if (peek(p) == '-') {
    p->pos++;
    size_t at = p->pos;
    int r = read_number(p, &offset);
    if (r < 0)
      return r;
    if (offset > 30)
      return fail(p, at, "offset from the last day %d is out of range 0-30",
                  offset);
  }
  bool weekday = upper(peek(p)) == 'W';
  if (weekday)
    p->pos++;
  if (!whole)
    return fail(p, start, "'L' cannot be combined with other days in a list");
  p->out->dom_kind =
      weekday ? CHIME_CRON_DOM_LAST_WEEKDAY : CHIME_CRON_DOM_LAST;
  p->out->dom_offset = (uint8_t)offset;
  set_bit(p, 1); /* keeps the field non-empty; the kind decides */
  return 0;
}

/* Parses what may follow a single value: '-' range, '/', W, L, '#'. */
static int parse_value_suffix(parser *p, int value, bool is_name, bool whole,
                              size_t start) {
  const struct field_spec *s = &specs[p->field];
  int end = value, incr = 1, r;
  char c = upper(peek(p));
  if (c == '-' || c == '/') {
    if (c == '-') {
      bool end_is_name;
      p->pos++;
      if ((r = read_value(p, &end, &end_is_name)) < 0)
        return r;
      if (end_is_name != is_name)
        return fail(p, start, "a range mixes a name and a number");
      if (p->field == F_YEAR && end < value)
        return fail(p, start, "year range %d-%d ends before it starts", value,
                    end);
    } else {
      end = s->max;
    }
    if (is_name && peek(p) == '/')
      return fail(p, p->pos,
                  "an increment after a name is not supported "
                  "(Quartz ignores it); use numbers");
    if ((r = read_increment(p, c == '/', &incr)) < 0)
      return r;
    add_range(p, value, end, incr);
    return 0;
  }
  if ((c == 'W' && p->field == F_DOM && !is_name) ||
      (c == 'L' && p->field == F_DOW) || (c == '#' && p->field == F_DOW)) {
    p->pos++;
    if (!whole)
      return fail(p, start, "'%c' cannot be combined with other days in a list",
                  c);
    if (c == 'W') {
      p->out->dom_kind = CHIME_CRON_DOM_NEAREST_WEEKDAY;
      p->out->dom_day = (uint8_t)value;
    } else {
      p->out->dow_kind = c == 'L' ? CHIME_CRON_DOW_LAST : CHIME_CRON_DOW_NTH;
      p->out->dow_day = (uint8_t)(value - 1);
    }
    if (c == '#') {
      size_t at = p->pos;
      int nth;
      if ((r = read_number(p, &nth)) < 0)
        return r;
      if (nth < 1 || nth > 5)
        return fail(p, at, "'#' must be followed by 1-5, found %d", nth);
      p->out->dow_nth = (uint8_t)nth;
    }
  }
  set_bit(p, value);
  return 0;
}

/* Parses one list element, which ends at p->tok_end. */
static int parse_element(parser *p, bool whole) {
  size_t start = p->pos;
  char c = upper(peek(p));
  if (c == '?') {
    p->pos++;
    if (p->field != F_DOM && p->field != F_DOW)
      return fail(p, start,
                  "'?' is allowed only in the day-of-month and "
                  "day-of-week fields");
    if (!whole)
      return fail(p, start, "'?' must stand alone");
    p->question = true;
    return 0;
  }
  if (c == '*' || c == '/') {
    int incr = 1, r;
    if (c == '*')
      p->pos++;
    else if (p->pos + 1 >= p->tok_end)
      return fail(p, start, "'/' must be followed by an increment");
    if ((r = read_increment(p, true, &incr)) < 0)
      return r;
    add_range(p, specs[p->field].min, specs[p->field].max, incr);
    return 0;
  }
  if (c == 'L' && p->field == F_DOM)
    return parse_dom_last(p, whole);
  if (c == 'L' && p->field == F_DOW && !is_alpha(p->expr[p->pos + 1])) {
    /* Quartz reads a lone 'L' in day-of-week as 7, Saturday. */
    p->pos++;
    if (!whole)
      return fail(p, start, "'L' cannot be combined with other days in a list");
    set_bit(p, 7);
    return 0;
  }
  int value, r;
  bool is_name;
  if ((r = read_value(p, &value, &is_name)) < 0)
    return r;
  return parse_value_suffix(p, value, is_name, whole, start);
}

/* Parses the field at p->pos .. field_end, a comma-separated list. */
static int parse_field(parser *p, size_t field_end) {
  size_t field_start = p->pos;
  memset(p->bits, 0, sizeof p->bits);
  p->question = false;
  while (p->pos <= field_end) {
    size_t elem_end = p->pos;
    while (elem_end < field_end && p->expr[elem_end] != ',')
      elem_end++;
    if (elem_end == p->pos)
      return fail(p, p->pos, "empty element in a list");
    p->tok_end = elem_end;
    bool whole = p->pos == field_start && elem_end == field_end;
    int r = parse_element(p, whole);
    if (r < 0)
      return r;
    if (p->pos < elem_end)
      return fail(p, p->pos, "unexpected character %s",
                  show(p->expr[p->pos]).text);
    p->pos = elem_end + 1;
  }
  p->pos = field_end;
  return 0;
}

/* Moves the current field's values into the compiled expression. */
static void store_field(parser *p) {
  chime_cron *c = p->out;
  uint64_t b = p->bits[0];
  switch (p->field) {
  case F_SEC:
    c->seconds = b;
    break;
  case F_MIN:
    c->minutes = b;
    break;
  case F_HOUR:
    c->hours = (uint32_t)b;
    break;
  case F_DOM:
    c->dom = (uint32_t)(b << 1);
    break;
  case F_MONTH:
    c->months = (uint16_t)(b << 1);
    break;
  case F_DOW:
    c->dow = (uint8_t)b;
    break;
  default:
    memcpy(c->years, p->bits, sizeof c->years);
    break;
  }
}

/* Checks that exactly one of day-of-month and day-of-week is '?'. */
static int check_day_fields(parser *p, bool dom_question, bool dow_question,
                            size_t dow_start) {
  if (dom_question == dow_question) {
    p->field = F_DOW;
    return fail(p, dow_start,
                "exactly one of day-of-month and day-of-week "
                "must be '?'");
  }
  p->out->day_mode = dom_question ? CHIME_CRON_BY_DOW : CHIME_CRON_BY_DOM;
  return 0;
}

/*
 * chime__cron_parse (cron.h): the fields are read left to right; the
 * day-of-month/day-of-week rule is checked once both are known.
 */
int chime__cron_parse(const char *expr, chime_cron *ret, int *reterr_column,
                      char *errbuf, size_t errbuf_len) {
  parser p = {.expr = expr,
              .out = ret,
              .reterr_column = reterr_column,
              .errbuf = errbuf,
              .errbuf_len = errbuf_len};
  size_t len = strlen(expr), dow_start = 0;
  bool dom_question = false, dow_question = false;
  memset(ret, 0, sizeof *ret);
  for (p.field = 0;; p.field++) {
    while (p.pos < len && (expr[p.pos] == ' ' || expr[p.pos] == '\t'))
      p.pos++;
    if (p.pos == len)
      break;
    if (p.field == F_COUNT) {
      p.field = F_YEAR;
      return fail(&p, p.pos,
                  "unexpected text after the year field "
                  "(an expression has 6 or 7 fields)");
    }
    size_t end = p.pos;
    while (end < len && expr[end] != ' ' && expr[end] != '\t')
      end++;
    if (p.field == F_DOW)
      dow_start = p.pos;
    int r = parse_field(&p, end);
    if (r < 0)
      return r;
    if (p.field == F_DOM)
      dom_question = p.question;
    if (p.field == F_DOW)
      dow_question = p.question;
    store_field(&p);
  }
  if (p.field < F_YEAR)
    return fail(&p, len,
                "field is missing (an expression has 6 or 7 "
                "fields: second minute hour day-of-month month "
                "day-of-week [year])");
  if (p.field == F_YEAR) {
    memset(p.bits, 0, sizeof p.bits);
    add_range(&p, CHIME_CRON_YEAR_MIN, CHIME_CRON_YEAR_MAX, 1);
    store_field(&p);
  }
  int r = check_day_fields(&p, dom_question, dow_question, dow_start);
  if (r < 0)
    return r;
  ret->hour_all = ret->hours == UINT32_C(0xFFFFFF);
  return 0;
}
