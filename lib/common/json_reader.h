/* The strict JSON reader of job specs and config.json files (RFC 8259).
 *
 * One pass over the text fills a flat tape: one 16-byte entry per value and
 * per object key, in document order, each container followed by its
 * members; strings decoded once into one arena; numbers parsed once. There
 * is no tree of heap objects (a small document lives in the vx_jdoc itself,
 * on the caller's stack), and a consumer walks the tape to set handle
 * options directly.
 *
 * Strict: no comments, no trailing commas, no single quotes, no leading
 * zeros or '+' signs, no control characters in strings, no invalid UTF-8
 * (overlongs, surrogates, beyond U+10FFFF, lone \\u surrogate escapes),
 * nothing after the document, and no two equal keys in one object (the
 * error names the key and both byte offsets). Two deliberate extensions:
 *   - the bare tokens NaN, Infinity and -Infinity where a number is
 *     expected, because Python's json.dumps writes them into real
 *     config.json files (Nemotron-H's "time_step_limit": [0.0, Infinity]);
 *     a consumer that needs a finite value refuses them naming its key;
 *   - a UTF-8 byte-order mark before the document (RFC 8259 §8.1 lets a
 *     parser ignore it).
 * A string may hold \\u0000: it is flagged (VX_JF_NUL), and every consumer
 * that uses the string as a name or value refuses it (vx_jcstr); keys may
 * never hold one.
 *
 * Limits: VX_MAX_JSON_DEPTH nesting, VX_MAX_JSON_VALUES values and
 * VX_MAX_JSON_OBJECTS objects (VRAMEST_E_LIMIT), so a document of n bytes
 * costs at most 2 * VX_MAX_JSON_VALUES * 16 bytes of tape plus n bytes of
 * strings. Errors: VRAMEST_E_PARSE or _LIMIT, "<what>: <why> at byte N
 * (line L, column C)". Re-entrant; no global state. */
#ifndef VX_JSON_READER_H
#define VX_JSON_READER_H

#include <string.h>

#include "common/internal.h"

#define VX_MAX_JSON_VALUES 100000u /* values (scalars, arrays, objects) in one document */
#define VX_MAX_JSON_OBJECTS 10000u /* objects in one document */

enum {
    VX_J_NULL = 0,
    VX_J_FALSE,
    VX_J_TRUE,
    VX_J_INT, /* an integer literal within int64: u.i exact */
    VX_J_NUM, /* any other number: u.d (a literal beyond int64 is VX_JF_BIG) */
    VX_J_STR, /* u.s: decoded, NUL-terminated in the arena */
    VX_J_ARR, /* u.c: the elements follow */
    VX_J_OBJ, /* u.c: key, value, key, value... follow */
};

/* flags */
#define VX_JF_NUL 1u    /* STR: holds U+0000 */
#define VX_JF_BIG 2u    /* NUM: an integer literal beyond int64 (u.d approximates it) */
#define VX_JF_TOKEN 4u  /* NUM: NaN, Infinity or -Infinity written as such */
#define VX_JF_INTLIT 8u /* NUM: written with a fraction or exponent (INT never is) */

typedef struct vx_jv {
    uint8_t type, flags;
    uint16_t unused_;
    uint32_t at; /* byte offset of the value (of a string: its opening quote) */
    union {
        int64_t i;
        double d;
        struct {
            uint32_t off, len; /* in the arena; len excludes the NUL */
        } s;
        struct {
            uint32_t span;  /* entries of the container, itself included */
            uint32_t count; /* members (objects) or elements (arrays) */
        } c;
    } u;
} vx_jv;

#define VX_JDOC_INLINE_VALUES 96
#define VX_JDOC_INLINE_BYTES 1024

typedef struct vx_jdoc {
    const char *text;
    size_t len;
    const char *what; /* "spec", "config.json": the subject of messages */
    vx_jv *v;         /* the tape; v[0] is the document's value */
    uint32_t n, cap;
    char *str; /* the string arena */
    size_t str_len, str_cap;
    uint32_t n_values, n_objects;
    vx_jv inline_v[VX_JDOC_INLINE_VALUES];
    char inline_str[VX_JDOC_INLINE_BYTES];
} vx_jdoc;

/* Parse text[0..len) (need not be NUL-terminated; a NUL byte in it is an
 * error). On success the tape is in `doc`, which the caller releases with
 * vx_json_free (also after a failure, harmlessly). `what` must outlive doc. */
int vx_json_parse(vx_jdoc *doc, const char *text, size_t len, const char *what) VX_HIDDEN;
void vx_json_free(vx_jdoc *doc) VX_HIDDEN;

static inline const vx_jv *vx_jroot(const vx_jdoc *d) { return d->v; }
/* The next entry after v and everything inside it. */
static inline const vx_jv *vx_jskip(const vx_jv *v)
{
    return v + (v->type >= VX_J_ARR ? v->u.c.span : 1);
}
/* Members of an object: for (k = vx_jfirst(o); k < vx_jend(o); k = vx_jskip(k + 1)), value k + 1.
 * Elements of an array:  for (e = vx_jfirst(a); e < vx_jend(a); e = vx_jskip(e)). */
static inline const vx_jv *vx_jfirst(const vx_jv *c) { return c + 1; }
static inline const vx_jv *vx_jend(const vx_jv *c) { return c + c->u.c.span; }

static inline const char *vx_jstr(const vx_jdoc *d, const vx_jv *s) { return d->str + s->u.s.off; }
static inline bool vx_jkey_is(const vx_jdoc *d, const vx_jv *k, const char *name, size_t len)
{
    return k->u.s.len == len && memcmp(d->str + k->u.s.off, name, len) == 0;
}
/* The value of `key` in object `o`, or NULL. */
const vx_jv *vx_jget(const vx_jdoc *d, const vx_jv *o, const char *key) VX_HIDDEN;
/* "a string", "an integer", "null", ...: what a value is, for messages. */
const char *vx_jkind(const vx_jv *v) VX_HIDDEN;
/* The literal text of a scalar as written (a number, NaN), cut to cap. */
void vx_jliteral(const vx_jdoc *d, const vx_jv *v, char *buf, size_t cap) VX_HIDDEN;

/* Numbers as the options want them. An integer is an INT, or a NUM written
 * with a fraction or exponent whose value is integral and exactly
 * representable (|x| < 2^53: "4.0", "1e3"). Return VRAMEST_OK, or
 * VX_JN_NOT_NUMBER, VX_JN_NOT_INTEGER (4.5), VX_JN_TOO_BIG (beyond int64,
 * or an inexact integral double), VX_JN_NONFINITE (NaN, +-Infinity, 1e400). */
enum { VX_JN_NOT_NUMBER = 1, VX_JN_NOT_INTEGER, VX_JN_TOO_BIG, VX_JN_NONFINITE };
int vx_jnum_i64(const vx_jv *v, int64_t *out) VX_HIDDEN;
/* A finite double (an INT converts to the nearest double). */
int vx_jnum_f64(const vx_jv *v, double *out) VX_HIDDEN;
/* A string as a C string: VRAMEST_OK, or VRAMEST_E_PARSE ("<where>: ...
 * at byte N") when it holds U+0000, which would silently cut it. */
int vx_jcstr(const vx_jdoc *d, const vx_jv *s, const char *where, const char **out) VX_HIDDEN;
/* 1-based line and column of a byte offset, for messages. */
void vx_json_line_col(const char *text, size_t off, size_t *line, size_t *col) VX_HIDDEN;

#endif
