/* The strict JSON reader (json_reader.h says what it accepts and why).
 * A recursive descent bounded by VX_MAX_JSON_DEPTH that appends to the
 * tape; containers are patched with their span when they close, which is
 * also when an object's keys are checked for duplicates. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_reader.h"

typedef struct jp {
    vx_jdoc *d;
    const unsigned char *s;
    size_t n, i;
    int depth;
} jp;

/* ---- messages ---- */

static int fail_at(const jp *p, size_t at, int code, const char *fmt, ...) VX_PRINTF(4, 5);
static int fail_at(const jp *p, size_t at, int code, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    size_t line, col;
    vx_json_line_col(p->d->text, at, &line, &col);
    return vx_fail(code, "%s: %s at byte %zu (line %zu, column %zu)", p->d->what, why, at, line, col);
}

static int end_of_text(const jp *p)
{
    return fail_at(p, p->n, VRAMEST_E_PARSE, "unexpected end of JSON (truncated?)");
}

/* The byte at the cursor where `expected` should be. Messages give its
 * offset, never the byte: the text may be a file the caller cannot read
 * (docs/security.md, "Messages"). Only the leniencies other parsers allow
 * are named, so their users see why. */
static int unexpected(const jp *p, const char *expected)
{
    if (p->i >= p->n) return end_of_text(p);
    unsigned c = p->s[p->i];
    if (c == 0) return fail_at(p, p->i, VRAMEST_E_PARSE, "NUL byte");
    if (c == '/') return fail_at(p, p->i, VRAMEST_E_PARSE, "a comment (JSON has none), expected %s", expected);
    if (c == '\'')
        return fail_at(p, p->i, VRAMEST_E_PARSE, "a single quote (JSON strings take double quotes), expected %s",
                       expected);
    return fail_at(p, p->i, VRAMEST_E_PARSE, "unexpected character, expected %s", expected);
}

/* ---- the tape ---- */

static void ws(jp *p)
{
    while (p->i < p->n) {
        unsigned c = p->s[p->i];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
        p->i++;
    }
}

/* Index of a new entry, or UINT32_MAX when out of memory. */
static uint32_t push(jp *p, uint8_t type, size_t at)
{
    vx_jdoc *d = p->d;
    if (d->n == d->cap) {
        uint32_t ncap = d->cap * 2;
        vx_jv *nv = d->v == d->inline_v ? malloc((size_t)ncap * sizeof *nv) : realloc(d->v, (size_t)ncap * sizeof *nv);
        if (!nv) return UINT32_MAX;
        if (d->v == d->inline_v) memcpy(nv, d->inline_v, sizeof d->inline_v);
        d->v = nv, d->cap = ncap;
    }
    vx_jv *v = &d->v[d->n];
    v->type = type, v->flags = 0, v->unused_ = 0, v->at = (uint32_t)at;
    v->u.i = 0;
    return d->n++;
}

static int count_value(jp *p, bool object)
{
    vx_jdoc *d = p->d;
    if (++d->n_values > VX_MAX_JSON_VALUES)
        return fail_at(p, p->i, VRAMEST_E_LIMIT, "more than %u JSON values; a real one has hundreds",
                       VX_MAX_JSON_VALUES);
    if (object && ++d->n_objects > VX_MAX_JSON_OBJECTS)
        return fail_at(p, p->i, VRAMEST_E_LIMIT, "more than %u JSON objects; a real one has a few",
                       VX_MAX_JSON_OBJECTS);
    return VRAMEST_OK;
}

/* Room for `need` more arena bytes. */
static bool reserve(vx_jdoc *d, size_t need)
{
    if (d->str_cap - d->str_len >= need) return true;
    size_t ncap = d->str_cap * 2;
    if (ncap - d->str_len < need) ncap = d->str_len + need + d->str_cap;
    char *ns = d->str == d->inline_str ? malloc(ncap) : realloc(d->str, ncap);
    if (!ns) return false;
    if (d->str == d->inline_str) memcpy(ns, d->inline_str, d->str_len);
    d->str = ns, d->str_cap = ncap;
    return true;
}

/* ---- strings ---- */

static int hexval(unsigned c)
{
    if (c >= '0' && c <= '9') return (int)(c - '0');
    c |= 0x20;
    if (c >= 'a' && c <= 'f') return (int)(c - 'a' + 10);
    return -1;
}

/* \uXXXX at p->i (after the backslash and 'u'); -1 if malformed. */
static long u_escape(const jp *p, size_t i)
{
    if (p->n - i < 4) return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p->s[i + (size_t)k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t encode_utf8(char *o, unsigned long cp)
{
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) return o[0] = (char)(0xC0 | (cp >> 6)), o[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of the valid UTF-8 sequence at s[i] (lead byte >= 0x80), 0 if
 * invalid: overlong, a surrogate, beyond U+10FFFF, or cut. */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t i)
{
    unsigned c = s[i];
    size_t len;
    unsigned long cp, min;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n - i < len) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[i + k] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i + k] & 0x3F);
    }
    return cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : len;
}

/* Bytes a string holds as they are: printable ASCII but the backslash (a
 * quote ends the string before the decoder sees it). */
static inline bool plain(unsigned c)
{
    return c - 0x20u < 0x60u && c != '\\';
}

/* The closing quote of the string whose contents start at i: the first
 * quote not escaped (an even run of backslashes before it), or n. */
static size_t string_end(const unsigned char *s, size_t n, size_t i)
{
    for (;;) {
        const unsigned char *q = memchr(s + i, '"', n - i);
        if (!q) return n;
        size_t at = (size_t)(q - s), k = at;
        while (k > i && s[k - 1] == '\\') k--;
        if ((at - k) % 2 == 0) return at;
        i = at + 1;
    }
}

/* The string at the cursor (its opening quote) into the arena, as entry `e`. */
static int parse_string(jp *p, uint32_t e, bool key)
{
    const unsigned char *s = p->s;
    size_t open = p->i, i = open + 1, n = p->n;
    /* Its raw length bounds the decoded one; find the end first. */
    size_t end = string_end(s, n, i);
    if (end >= n) return end_of_text(p);
    vx_jdoc *d = p->d;
    if (!reserve(d, end - i + 1)) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", d->what);
    char *o = d->str + d->str_len, *o0 = o;
    uint8_t flags = 0;
    while (i < end) {
        size_t run = i;
        while (run < end && plain(s[run])) run++;
        memcpy(o, s + i, run - i);
        o += run - i, i = run;
        if (i == end) break;
        unsigned c = s[i];
        if (c < 0x20) {
            p->i = i;
            if (c == 0) return fail_at(p, i, VRAMEST_E_PARSE, "NUL byte in a string");
            return fail_at(p, i, VRAMEST_E_PARSE, "a control character in a string (escape it)");
        }
        if (c >= 0x80) {
            size_t len = utf8_seq(s, n, i);
            if (!len) return fail_at(p, i, VRAMEST_E_PARSE, "invalid UTF-8 in a string");
            memcpy(o, s + i, len), o += len, i += len;
            continue;
        }
        /* an escape */
        unsigned x = s[i + 1];
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *f = x ? strchr(from, (int)x) : NULL;
        if (f) {
            *o++ = to[f - from], i += 2;
            continue;
        }
        if (x != 'u') return fail_at(p, i, VRAMEST_E_PARSE, "an invalid escape in a string");
        long cp = u_escape(p, i + 2);
        if (cp < 0) return fail_at(p, i, VRAMEST_E_PARSE, "invalid \\u escape (four hex digits expected)");
        size_t used = 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail_at(p, i, VRAMEST_E_PARSE, "a lone low surrogate escape in a string");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            long lo = i + 7 < end && s[i + 6] == '\\' && s[i + 7] == 'u' ? u_escape(p, i + 8) : -1;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(p, i, VRAMEST_E_PARSE, "a lone high surrogate escape in a string");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            used = 12;
        }
        if (cp == 0) {
            if (key) return fail_at(p, i, VRAMEST_E_PARSE, "\\u0000 (NUL) in an object key");
            flags |= VX_JF_NUL;
        }
        o += encode_utf8(o, (unsigned long)cp), i += used;
    }
    *o = '\0';
    vx_jv *v = &d->v[e];
    v->flags = flags;
    v->u.s.off = (uint32_t)d->str_len;
    v->u.s.len = (uint32_t)(o - o0);
    d->str_len += (size_t)(o - o0) + 1;
    p->i = end + 1;
    return VRAMEST_OK;
}

/* ---- numbers ---- */

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The double nearest to the literal's digits x 10^exp10 (digits: the
 * integer and fraction digits without the point). strtod on a form with no
 * decimal point, "<digits>e<exp>", is correctly rounded and independent of
 * the locale. 780 significant digits decide any double; a dropped non-zero
 * tail is kept as a final 1 so that rounding still sees it. */
static double slow_double(const unsigned char *digits, size_t n_int, const unsigned char *frac, size_t n_frac,
                          long exp10, bool neg)
{
    char buf[832];
    size_t o = 0, kept = 0;
    bool tail = false;
    if (neg) buf[o++] = '-';
    for (size_t k = 0; k < n_int + n_frac; k++) {
        char c = (char)(k < n_int ? digits[k] : frac[k - n_int]);
        if (k >= n_int) exp10--;
        if (o == (size_t)neg && c == '0') continue; /* leading zeros */
        if (kept < 780) {
            buf[o++] = c, kept++;
        } else {
            exp10++; /* the digit is dropped: the rest stands one place higher */
            tail |= c != '0';
        }
    }
    if (!kept) return neg ? -0.0 : 0.0;
    if (tail) buf[o++] = '1', exp10--;
    snprintf(buf + o, sizeof buf - o, "e%ld", exp10);
    return strtod(buf, NULL);
}

static int parse_number(jp *p, uint32_t e)
{
    const unsigned char *s = p->s;
    size_t n = p->n, i = p->i, start = p->i;
    bool neg = s[i] == '-';
    vx_jv *v = &p->d->v[e];
    if (neg) {
        i++;
        if (i < n && s[i] == 'I') {
            if (n - i < 8 || memcmp(s + i, "Infinity", 8) != 0) {
                p->i = i;
                return n - i < 8 && memcmp(s + i, "Infinity", n - i) == 0 ? end_of_text(p)
                                                                          : unexpected(p, "a number");
            }
            v->type = VX_J_NUM, v->flags = VX_JF_TOKEN, v->u.d = -INFINITY;
            p->i = i + 8;
            return VRAMEST_OK;
        }
    }
    if (i >= n) return p->i = i, end_of_text(p);
    if (s[i] < '0' || s[i] > '9') return p->i = i, unexpected(p, "a digit");
    size_t int_at = i;
    if (s[i] == '0') {
        i++;
        if (i < n && s[i] >= '0' && s[i] <= '9')
            return fail_at(p, start, VRAMEST_E_PARSE, "a number with a leading zero");
    } else {
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    size_t n_int = i - int_at, frac_at = i, n_frac = 0;
    bool has_frac = false, has_exp = false;
    long exp10 = 0;
    if (i < n && s[i] == '.') {
        has_frac = true;
        frac_at = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        n_frac = i - frac_at;
        if (!n_frac) return p->i = i, i < n ? unexpected(p, "a digit after the decimal point") : end_of_text(p);
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        has_exp = true;
        i++;
        bool eneg = i < n && s[i] == '-';
        if (i < n && (s[i] == '-' || s[i] == '+')) i++;
        size_t exp_at = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (exp10 < 100000) exp10 = exp10 * 10 + (s[i] - '0'); /* beyond: 0 or infinity anyway */
            i++;
        }
        if (i == exp_at) return p->i = i, i < n ? unexpected(p, "a digit in the exponent") : end_of_text(p);
        if (eneg) exp10 = -exp10;
    }
    p->i = i;

    /* Up to 19 significant digits fit a uint64 exactly. */
    uint64_t m = 0;
    size_t sig = 0;
    bool lead = true;
    for (size_t k = 0; k < n_int + n_frac; k++) {
        unsigned dgt = (unsigned)(k < n_int ? s[int_at + k] : s[frac_at + k - n_int]) - '0';
        if (lead && dgt == 0) continue;
        lead = false;
        if (++sig > 19) break;
        m = m * 10 + dgt;
    }
    if (!has_frac && !has_exp && sig <= 19) {
        if (!neg && m <= (uint64_t)INT64_MAX) {
            v->type = VX_J_INT, v->u.i = (int64_t)m;
            return VRAMEST_OK;
        }
        if (neg && m <= (uint64_t)INT64_MAX + 1) {
            v->type = VX_J_INT, v->u.i = m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
            return VRAMEST_OK;
        }
    }
    v->type = VX_J_NUM;
    v->flags = has_frac || has_exp ? VX_JF_INTLIT : VX_JF_BIG;
    /* Clinger's fast path: an exact mantissa times an exact power of ten is
     * one correctly rounded operation. */
    long e10 = exp10 - (long)n_frac;
    double d;
    if (sig <= 19 && m <= (1ull << 53) && e10 >= -22 && e10 <= 22) {
        d = e10 >= 0 ? (double)m * pow10_exact[e10] : (double)m / pow10_exact[-e10];
        if (neg) d = -d;
    } else if (m == 0) {
        d = neg ? -0.0 : 0.0;
    } else {
        d = slow_double(s + int_at, n_int, s + frac_at, n_frac, exp10, neg);
    }
    v->u.d = d;
    return VRAMEST_OK;
}

/* ---- values ---- */

static int parse_value(jp *p);

static bool keys_equal(const vx_jdoc *d, const vx_jv *a, const vx_jv *b)
{
    return a->u.s.len == b->u.s.len && memcmp(d->str + a->u.s.off, d->str + b->u.s.off, a->u.s.len) == 0;
}

static uint32_t key_hash(const vx_jdoc *d, const vx_jv *k)
{
    uint32_t h = 2166136261u;
    const unsigned char *s = (const unsigned char *)d->str + k->u.s.off;
    for (uint32_t i = 0; i < k->u.s.len; i++) h = (h ^ s[i]) * 16777619u;
    return h;
}

static int duplicate(const jp *p, const vx_jv *first, const vx_jv *again)
{
    const char *name = p->d->str + again->u.s.off;
    char shown[80];
    size_t k = 0;
    for (; name[k] && k + 4 < sizeof shown; k++)
        shown[k] = (unsigned char)name[k] < 0x20 || name[k] == 0x7f ? '?' : name[k];
    if (name[k]) memcpy(shown + k, "...", 3), k += 3;
    shown[k] = '\0';
    return fail_at(p, again->at, VRAMEST_E_PARSE, "duplicate key \"%s\" (first at byte %u)", shown,
                   (unsigned)first->at);
}

/* No two equal keys among the members of the object at tape index `o`:
 * pairwise for a few, else a hash set of key indices. */
static int check_keys(const jp *p, uint32_t o)
{
    const vx_jdoc *d = p->d;
    const vx_jv *obj = &d->v[o];
    uint32_t count = obj->u.c.count;
    if (count < 2) return VRAMEST_OK;
    if (count <= 12) {
        for (const vx_jv *a = vx_jfirst(obj); a < vx_jend(obj); a = vx_jskip(a + 1))
            for (const vx_jv *b = vx_jskip(a + 1); b < vx_jend(obj); b = vx_jskip(b + 1))
                if (keys_equal(d, a, b)) return duplicate(p, a, b);
        return VRAMEST_OK;
    }
    uint32_t local[512], slots = 32;
    while (slots < 2 * count) slots *= 2;
    uint32_t *set = slots <= VX_ARRAY_LEN(local) ? local : malloc(slots * sizeof *set);
    if (!set) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", d->what);
    memset(set, 0xff, slots * sizeof *set);
    int rc = VRAMEST_OK;
    for (const vx_jv *k = vx_jfirst(obj); k < vx_jend(obj) && !rc; k = vx_jskip(k + 1)) {
        uint32_t h = key_hash(d, k) & (slots - 1);
        for (; set[h] != UINT32_MAX; h = (h + 1) & (slots - 1))
            if (keys_equal(d, &d->v[set[h]], k)) {
                rc = duplicate(p, &d->v[set[h]], k);
                break;
            }
        set[h] = (uint32_t)(k - d->v);
    }
    if (set != local) free(set);
    return rc;
}

/* Past the opening bracket; *more: a member follows (else the closing
 * bracket was consumed). */
static int open_container(jp *p, uint8_t type, uint32_t *idx, bool *more)
{
    int rc;
    if (++p->depth > VX_MAX_JSON_DEPTH)
        return fail_at(p, p->i, VRAMEST_E_LIMIT, "nesting deeper than %d levels", VX_MAX_JSON_DEPTH);
    if ((rc = count_value(p, type == VX_J_OBJ))) return rc;
    if ((*idx = push(p, type, p->i)) == UINT32_MAX) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", p->d->what);
    p->i++;
    ws(p);
    *more = !(p->i < p->n && p->s[p->i] == (type == VX_J_OBJ ? '}' : ']'));
    if (!*more) p->i++;
    return VRAMEST_OK;
}

static void close_container(jp *p, uint32_t c, uint32_t count)
{
    vx_jv *v = &p->d->v[c];
    v->u.c.span = p->d->n - c;
    v->u.c.count = count;
    p->depth--;
}

/* After a member: ',' (and not a closing bracket next) or the closing bracket. */
static int after_member(jp *p, char close, bool *more)
{
    ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
        size_t comma = p->i++;
        ws(p);
        if (p->i < p->n && p->s[p->i] == (unsigned char)close)
            return fail_at(p, comma, VRAMEST_E_PARSE, "a trailing comma before '%c'", close);
        *more = true;
        return VRAMEST_OK;
    }
    if (p->i < p->n && p->s[p->i] == (unsigned char)close) {
        p->i++;
        *more = false;
        return VRAMEST_OK;
    }
    return unexpected(p, close == '}' ? "',' or '}'" : "',' or ']'");
}

static int parse_object(jp *p)
{
    uint32_t o, count = 0;
    bool more;
    int rc = open_container(p, VX_J_OBJ, &o, &more);
    if (rc) return rc;
    while (more) {
        ws(p);
        if (p->i >= p->n || p->s[p->i] != '"') return unexpected(p, "a key in double quotes");
        uint32_t k = push(p, VX_J_STR, p->i);
        if (k == UINT32_MAX) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", p->d->what);
        if ((rc = parse_string(p, k, true))) return rc;
        ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') return unexpected(p, "':'");
        p->i++;
        if ((rc = parse_value(p))) return rc;
        count++;
        if ((rc = after_member(p, '}', &more))) return rc;
    }
    close_container(p, o, count);
    return check_keys(p, o);
}

static int parse_array(jp *p)
{
    uint32_t a, count = 0;
    bool more;
    int rc = open_container(p, VX_J_ARR, &a, &more);
    if (rc) return rc;
    while (more) {
        if ((rc = parse_value(p))) return rc;
        count++;
        if ((rc = after_member(p, ']', &more))) return rc;
    }
    close_container(p, a, count);
    return VRAMEST_OK;
}

/* A bare word: true, false, null, NaN, Infinity. */
static int parse_word(jp *p, const char *word, uint8_t type, double d, uint8_t flags)
{
    size_t len = strlen(word), left = p->n - p->i;
    if (left < len || memcmp(p->s + p->i, word, len) != 0) {
        if (left < len && memcmp(p->s + p->i, word, left) == 0) return end_of_text(p);
        return unexpected(p, "a value");
    }
    uint32_t e = push(p, type, p->i);
    if (e == UINT32_MAX) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", p->d->what);
    p->d->v[e].flags = flags;
    if (type == VX_J_NUM) p->d->v[e].u.d = d;
    p->i += len;
    return VRAMEST_OK;
}

static int parse_value(jp *p)
{
    ws(p);
    if (p->i >= p->n) return end_of_text(p);
    unsigned c = p->s[p->i];
    if (c == '{') return parse_object(p);
    if (c == '[') return parse_array(p);
    int rc = count_value(p, false);
    if (rc) return rc;
    switch (c) {
    case '"': {
        uint32_t e = push(p, VX_J_STR, p->i);
        if (e == UINT32_MAX) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", p->d->what);
        return parse_string(p, e, false);
    }
    case 't': return parse_word(p, "true", VX_J_TRUE, 0, 0);
    case 'f': return parse_word(p, "false", VX_J_FALSE, 0, 0);
    case 'n': return parse_word(p, "null", VX_J_NULL, 0, 0);
    case 'N': return parse_word(p, "NaN", VX_J_NUM, NAN, VX_JF_TOKEN);
    case 'I': return parse_word(p, "Infinity", VX_J_NUM, INFINITY, VX_JF_TOKEN);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            uint32_t e = push(p, VX_J_NUM, p->i);
            if (e == UINT32_MAX) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", p->d->what);
            return parse_number(p, e);
        }
        return unexpected(p, "a value");
    }
}

int vx_json_parse(vx_jdoc *d, const char *text, size_t len, const char *what)
{
    d->text = text, d->len = len, d->what = what;
    d->v = d->inline_v, d->n = 0, d->cap = VX_JDOC_INLINE_VALUES;
    d->str = d->inline_str, d->str_len = 0, d->str_cap = VX_JDOC_INLINE_BYTES;
    d->n_values = d->n_objects = 0;
    if (!text && len) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: the text is NULL", what);
    if (len > UINT32_MAX - 1)
        return vx_fail(VRAMEST_E_LIMIT, "%s: %zu bytes is more than a JSON document may have", what, len);
    jp p = {d, (const unsigned char *)text, len, 0, 0};
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) p.i = 3;
    ws(&p);
    if (p.i >= len)
        return p.i == 0 ? fail_at(&p, 0, VRAMEST_E_PARSE, "empty document") : end_of_text(&p);
    int rc = parse_value(&p);
    if (rc) return rc;
    ws(&p);
    if (p.i < len) {
        if (!p.s[p.i]) return fail_at(&p, p.i, VRAMEST_E_PARSE, "NUL byte after the JSON document");
        return fail_at(&p, p.i, VRAMEST_E_PARSE, "unexpected data after the JSON document");
    }
    return VRAMEST_OK;
}

void vx_json_free(vx_jdoc *d)
{
    if (d->v && d->v != d->inline_v) free(d->v);
    if (d->str && d->str != d->inline_str) free(d->str);
    d->v = NULL, d->str = NULL, d->n = 0, d->str_len = 0;
}
