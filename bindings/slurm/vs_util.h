/* Small text helpers shared by the Slurm plugin's parsers: bounded message
 * building, UTF-8 checks, quoting user text for messages, strict numbers.
 * Everything here is pure (no Slurm, no libvramest) and re-entrant. */
#ifndef VS_UTIL_H
#define VS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Messages the plugin hands to users are cut at this size: Slurm prints them
 * on the submitting terminal, and a page of text helps nobody. */
#define VS_MSG_CAP 2048

/* Append formatted text to the NUL-terminated `buf` of `cap` bytes,
 * truncating (never overrunning); returns buf. */
char *vs_appendf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Write formatted text into `buf` (replacing it), truncating; returns -1, so
 * that `return vs_fail(err, cap, ...)` reads as a failure. */
int vs_fail(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Offset of the first byte of s[0..n) that is not well-formed UTF-8
 * (overlong forms, surrogates and code points past U+10FFFF included), or n. */
size_t vs_utf8_bad_at(const char *s, size_t n);

/* Copy s[0..n) into out as a double-quoted, printable excerpt of at most
 * `max` source bytes: control bytes and invalid UTF-8 become '?', a longer
 * text ends in "...". For echoing what a user wrote, never file contents. */
void vs_quote(char *out, size_t cap, const char *s, size_t n, size_t max);

/* Parse s[0..n) as a decimal unsigned integer: digits only, no sign, no
 * spaces, at most `max`. Returns 0, or -1 (not a number) or -2 (too large). */
int vs_parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out);

/* Bytes of s up to (not including) the first c, or strlen(s). */
size_t vs_span_to(const char *s, char c);

#endif
