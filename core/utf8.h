/*
 * utf8.h: text made fit for the database.  A message a job hands in (its
 * failure text) may hold any bytes and any length; the database stores
 * only valid UTF-8 (utf8mb4) and refuses the whole statement otherwise.
 * Terms: a "character" is one well-formed UTF-8 sequence (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF); an "invalid
 * byte" is a byte that starts no character.
 */
#ifndef CHIME_CORE_UTF8_H
#define CHIME_CORE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the well-formed character at s (1-4), or 0 when s[0]
 * starts none; reads at most n bytes.  Thread: any. */
size_t chime__utf8_char_len(const unsigned char *s, size_t n);

/* Whether the n bytes at s are valid UTF-8 (and hold no NUL).  Thread: any. */
bool chime__utf8_valid(const char *s, size_t n);

/*
 * chime__utf8_sanitize: a copy of the NUL-terminated s that is valid UTF-8:
 * each invalid byte becomes U+FFFD, and the copy is cut on a character
 * boundary so that it holds at most max_bytes bytes (the NUL not counted).
 * A NULL s gives NULL.
 * Returns: the copy (malloc'd), or NULL when s is NULL or memory ran out.
 * Ownership: the caller frees it with free().  Thread: any.
 */
char *chime__utf8_sanitize(const char *s, size_t max_bytes);

#endif /* CHIME_CORE_UTF8_H */
