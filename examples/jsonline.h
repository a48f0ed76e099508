/* One line of JSON Lines input for the example scheduler: checked as
 * Python's json.loads checks it (so the C and the Python scheduler call the
 * same lines malformed), its members found by name, its strings decoded.
 * Spans point into the caller's text; nothing is copied but decoded
 * strings. */
#ifndef VRAMEST_EXAMPLE_JSONLINE_H
#define VRAMEST_EXAMPLE_JSONLINE_H

#include <stddef.h>

/* Containers nested deeper than this make a line malformed (the library's
 * reader takes 64 levels; Python's has no fixed bound). */
#define JL_MAX_DEPTH 64

typedef struct jl_span {
    const char *s;
    size_t n;
} jl_span;

/* 1 when s[0..n) is one JSON value between spaces, tabs, CRs and LFs:
 * RFC 8259 plus NaN, Infinity and -Infinity (the spellings Python writes
 * and the library takes), well-formed UTF-8, nesting at most JL_MAX_DEPTH.
 * Duplicate keys, lone surrogates and \u0000 are the library's to refuse
 * where they matter. *value is the value without the spaces. */
int jl_check(const char *s, size_t n, jl_span *value);

/* The next member of `obj` (a value jl_check accepted, or one inside it)
 * from *at (start with 0): 1 with its key (quotes included) and its value,
 * 0 after the last member or when `obj` is not an object. */
int jl_next(jl_span obj, size_t *at, jl_span *key, jl_span *value);

/* Whether `key` (a string value, quotes included) decodes to `name`. */
int jl_key_is(jl_span key, const char *name);

/* The first member of `obj` named `name`: 1 and *value, or 0. */
int jl_member(jl_span obj, const char *name, jl_span *value);

/* A string value decoded to UTF-8 (malloc'd, NUL-terminated): NULL when `v`
 * is not a string, holds U+0000 or a lone surrogate (no C string can carry
 * it as the line means it), or memory ran out. */
char *jl_string(jl_span v);

#endif
