/* jsonline.h says what a line must be. A recursive descent whose depth is
 * bounded by JL_MAX_DEPTH; the grammar is Python's json module's (strict
 * mode), so that both example schedulers refuse the same lines. */
#include "jsonline.h"

#include <stdlib.h>
#include <string.h>

typedef struct jp {
    const unsigned char *s;
    size_t n, i;
    int depth;
} jp;

static int value(jp *p);

static void ws(jp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static int digit(const jp *p)
{
    return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static int hex(unsigned c)
{
    return c - '0' < 10u ? (int)(c - '0') : (c | 0x20) - 'a' < 6u ? (int)((c | 0x20) - 'a' + 10) : -1;
}

/* Bytes of the well-formed UTF-8 sequence at s (Unicode table 3-7), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t len;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (left < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    return len;
}

static int string(jp *p)
{
    p->i++; /* the opening quote */
    while (p->i < p->n) {
        unsigned c = p->s[p->i];
        if (c == '"') {
            p->i++;
            return 1;
        }
        if (c < 0x20) return 0;
        if (c == '\\') {
            if (p->i + 1 >= p->n) return 0;
            c = p->s[p->i + 1];
            if (c == 'u') {
                if (p->n - p->i < 6) return 0;
                for (size_t k = 2; k < 6; k++)
                    if (hex(p->s[p->i + k]) < 0) return 0;
                p->i += 6;
            } else if (c && strchr("\"\\/bfnrt", (int)c)) {
                p->i += 2;
            } else {
                return 0;
            }
            continue;
        }
        size_t len = utf8_len(p->s + p->i, p->n - p->i);
        if (!len) return 0;
        p->i += len;
    }
    return 0;
}

static int word(jp *p, const char *w)
{
    size_t len = strlen(w);
    if (p->n - p->i < len || memcmp(p->s + p->i, w, len)) return 0;
    p->i += len;
    return 1;
}

static int number(jp *p)
{
    if (p->i < p->n && p->s[p->i] == '-') {
        p->i++;
        if (word(p, "Infinity")) return 1;
    }
    if (p->i < p->n && p->s[p->i] == '0')
        p->i++;
    else if (digit(p))
        while (digit(p)) p->i++;
    else
        return 0;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!digit(p)) return 0;
        while (digit(p)) p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (!digit(p)) return 0;
        while (digit(p)) p->i++;
    }
    return 1;
}

/* An object or an array: members until the closing bracket, no trailing
 * comma. */
static int container(jp *p, unsigned char close)
{
    if (++p->depth > JL_MAX_DEPTH) return 0;
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == close) {
        p->i++;
        p->depth--;
        return 1;
    }
    for (;;) {
        if (close == '}') {
            if (p->i >= p->n || p->s[p->i] != '"' || !string(p)) return 0;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') return 0;
            p->i++;
            ws(p);
        }
        if (!value(p)) return 0;
        ws(p);
        if (p->i >= p->n) return 0;
        if (p->s[p->i] == close) {
            p->i++;
            p->depth--;
            return 1;
        }
        if (p->s[p->i] != ',') return 0;
        p->i++;
        ws(p);
    }
}

static int value(jp *p)
{
    if (p->i >= p->n) return 0;
    switch (p->s[p->i]) {
    case '{': return container(p, '}');
    case '[': return container(p, ']');
    case '"': return string(p);
    case 't': return word(p, "true");
    case 'f': return word(p, "false");
    case 'n': return word(p, "null");
    case 'N': return word(p, "NaN");
    case 'I': return word(p, "Infinity");
    default: return number(p);
    }
}

int jl_check(const char *s, size_t n, jl_span *out)
{
    jp p = {(const unsigned char *)s, n, 0, 0};
    ws(&p);
    size_t start = p.i;
    if (!value(&p)) return 0;
    *out = (jl_span){s + start, p.i - start};
    ws(&p);
    return p.i == n;
}

int jl_next(jl_span obj, size_t *at, jl_span *key, jl_span *val)
{
    jp p = {(const unsigned char *)obj.s, obj.n, *at, 0};
    if (!*at) {
        if (!obj.n || obj.s[0] != '{') return 0;
        p.i = 1;
        ws(&p);
    }
    if (p.i >= p.n || p.s[p.i] != '"') return 0;
    size_t k = p.i;
    string(&p);
    *key = (jl_span){obj.s + k, p.i - k};
    ws(&p);
    p.i++; /* ':' */
    ws(&p);
    size_t v = p.i;
    value(&p);
    *val = (jl_span){obj.s + v, p.i - v};
    ws(&p);
    if (p.i < p.n && p.s[p.i] == ',') p.i++;
    ws(&p);
    *at = p.i;
    return 1;
}

int jl_key_is(jl_span key, const char *name)
{
    size_t len = strlen(name);
    if (!memchr(key.s, '\\', key.n)) return key.n == len + 2 && !memcmp(key.s + 1, name, len);
    char *k = jl_string(key);
    int same = k && !strcmp(k, name);
    free(k);
    return same;
}

int jl_member(jl_span obj, const char *name, jl_span *val)
{
    jl_span key;
    for (size_t at = 0; jl_next(obj, &at, &key, val);)
        if (jl_key_is(key, name)) return 1;
    return 0;
}

static unsigned hex4(const char *s)
{
    return (unsigned)(hex((unsigned char)s[0]) << 12 | hex((unsigned char)s[1]) << 8 |
                      hex((unsigned char)s[2]) << 4 | hex((unsigned char)s[3]));
}

/* Decoding never lengthens: an escape is at least as long as its UTF-8. */
char *jl_string(jl_span v)
{
    if (v.n < 2 || v.s[0] != '"') return NULL;
    char *out = malloc(v.n);
    size_t o = 0, end = v.n - 1;
    for (size_t i = 1; out && i < end;) {
        if (v.s[i] != '\\') {
            out[o++] = v.s[i++];
            continue;
        }
        char e = v.s[i + 1];
        if (e != 'u') {
            out[o++] = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
            i += 2;
            continue;
        }
        unsigned cp = hex4(v.s + i + 2);
        i += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && end - i >= 6 && v.s[i] == '\\' && v.s[i + 1] == 'u') {
            unsigned lo = hex4(v.s + i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), i += 6;
        }
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
            free(out);
            return NULL;
        }
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | cp >> 6);
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xE0 | cp >> 12);
            out[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | cp >> 18);
            out[o++] = (char)(0x80 | (cp >> 12 & 0x3F));
            out[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    if (out) out[o] = '\0';
    return out;
}
