/* A strict, allocation-free JSON scanner for the file readers. It exists
 * because the readers must (a) reject duplicate keys, which json-c silently
 * collapses to the last one, and (b) name the byte offset of every error,
 * which json-c does not report for values. It validates RFC 8259 syntax and
 * UTF-8 as it goes; values the readers do not need are skipped, not built. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/files.h"

bool vx_utf8_valid(const char *str, size_t n, size_t *bad_at)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned min, cp;
        if (c >= 0xC2 && c <= 0xDF)
            len = 2, min = 0x80, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            len = 3, min = 0x800, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            len = 4, min = 0x10000, cp = c & 0x07;
        else
            goto bad;
        if (n - i < len) goto bad;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) goto bad;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) goto bad;
        i += len;
    }
    return true;
bad:
    if (bad_at) *bad_at = i;
    return false;
}

void vx_js_ws(vx_jscan *j)
{
    while (j->i < j->n) {
        char c = j->s[j->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        j->i++;
    }
}

int vx_js_peek(vx_jscan *j)
{
    vx_js_ws(j);
    return j->i < j->n ? (unsigned char)j->s[j->i] : -1;
}

/* Messages name offsets, never the bytes found there: the text may be a
 * file the caller cannot read (docs/security.md, "Messages"). */
static int unexpected(vx_jscan *j, const char *expected, const char *ctx)
{
    if (j->i >= j->n)
        return vx_fail(VRAMEST_E_PARSE, "%s: the text ends at byte %llu where %s was expected (in %s)", j->what,
                       (unsigned long long)vx_js_at(j), expected, ctx);
    return vx_fail(VRAMEST_E_PARSE, "%s: expected %s at byte %llu (in %s)", j->what, expected,
                   (unsigned long long)vx_js_at(j), ctx);
}

int vx_js_expect(vx_jscan *j, char c, const char *ctx)
{
    if (vx_js_peek(j) != (unsigned char)c) {
        char what[8] = {'\'', c, '\'', 0};
        return unexpected(j, what, ctx);
    }
    j->i++;
    return VRAMEST_OK;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* One scanner for both decode and skip: `out` NULL skips. */
static int scan_string(vx_jscan *j, char *out, size_t *out_len, const char *ctx)
{
    if (vx_js_peek(j) != '"') return unexpected(j, "a string", ctx);
    uint64_t start = vx_js_at(j);
    j->i++;
    size_t o = 0;
    for (;;) {
        if (j->i >= j->n)
            return vx_fail(VRAMEST_E_PARSE, "%s: unterminated string starting at byte %llu (%s)", j->what,
                           (unsigned long long)start, ctx);
        unsigned char c = (unsigned char)j->s[j->i];
        if (c == '"') {
            j->i++;
            break;
        }
        if (c < 0x20)
            return vx_fail(VRAMEST_E_PARSE, "%s: a control byte inside a string at byte %llu (%s)", j->what,
                           (unsigned long long)vx_js_at(j), ctx);
        if (c == '\\') {
            if (j->n - j->i < 2) {
                j->i = j->n;
                continue;
            }
            char e = j->s[j->i + 1];
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e && simple) {
                static const char map[] = "\"\\/\b\f\n\r\t";
                if (out) out[o] = map[simple - "\"\\/bfnrt"];
                o++;
                j->i += 2;
                continue;
            }
            unsigned cp, lo;
            if (e != 'u' || j->n - j->i < 6 || hex4(j->s + j->i + 2, &cp))
                return vx_fail(VRAMEST_E_PARSE, "%s: invalid escape at byte %llu (%s)", j->what,
                               (unsigned long long)vx_js_at(j), ctx);
            size_t esc_at = j->i;
            j->i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                /* A high surrogate must be followed by an escaped low one. */
                if (j->n - j->i < 6 || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u' || hex4(j->s + j->i + 2, &lo) ||
                    lo < 0xDC00 || lo > 0xDFFF)
                    return vx_fail(VRAMEST_E_PARSE, "%s: %s at byte %llu is not valid UTF-8 (an unpaired surrogate)",
                                   j->what, ctx, (unsigned long long)(j->base + esc_at));
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                j->i += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return vx_fail(VRAMEST_E_PARSE, "%s: %s at byte %llu is not valid UTF-8 (an unpaired surrogate)",
                               j->what, ctx, (unsigned long long)(j->base + esc_at));
            } else if (cp == 0) {
                /* Names are C strings here; an embedded NUL would silently cut them. */
                return vx_fail(VRAMEST_E_PARSE, "%s: %s at byte %llu contains \\u0000", j->what, ctx,
                               (unsigned long long)(j->base + esc_at));
            }
            if (out)
                o += put_utf8(out + o, cp);
            else
                o += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            continue;
        }
        /* A run of raw bytes up to the next quote, backslash or control byte. */
        size_t k = j->i;
        while (k < j->n) {
            unsigned char d = (unsigned char)j->s[k];
            if (d == '"' || d == '\\' || d < 0x20) break;
            k++;
        }
        size_t bad;
        if (!vx_utf8_valid(j->s + j->i, k - j->i, &bad)) {
            /* A sequence cut by the end of the run is invalid too: quotes,
             * backslashes and controls are never continuation bytes. */
            return vx_fail(VRAMEST_E_PARSE, "%s: %s starting at byte %llu is not valid UTF-8 (byte %llu)", j->what, ctx,
                           (unsigned long long)start, (unsigned long long)(vx_js_at(j) + bad));
        }
        if (out) memcpy(out + o, j->s + j->i, k - j->i);
        o += k - j->i;
        j->i = k;
    }
    if (out) out[o] = '\0';
    if (out_len) *out_len = o;
    return VRAMEST_OK;
}

int vx_js_string(vx_jscan *j, char *out, size_t *out_len, const char *ctx)
{
    return scan_string(j, out, out_len, ctx);
}

int vx_js_skip_string(vx_jscan *j, const char *ctx)
{
    return scan_string(j, NULL, NULL, ctx);
}

int vx_js_number(vx_jscan *j, vx_jnum *out, const char *ctx)
{
    int c = vx_js_peek(j);
    if (c != '-' && !(c >= '0' && c <= '9')) return unexpected(j, "a number", ctx);
    size_t start = j->i;
    vx_jnum r = {0, false, false, false, false};
    if (c == '-') {
        r.neg = true;
        j->i++;
    }
    if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9') return unexpected(j, "a digit", ctx);
    if (j->s[j->i] == '0' && j->i + 1 < j->n && j->s[j->i + 1] >= '0' && j->s[j->i + 1] <= '9')
        return vx_fail(VRAMEST_E_PARSE, "%s: number with a leading zero at byte %llu (%s)", j->what,
                       (unsigned long long)vx_js_at(j), ctx);
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') {
        uint64_t d = (uint64_t)(j->s[j->i] - '0');
        if (!r.big && (!vx_mul(r.mag, 10, &r.mag) || !vx_add(r.mag, d, &r.mag))) r.big = true;
        j->i++;
    }
    bool fe = false;
    if (j->i < j->n && j->s[j->i] == '.') {
        fe = true;
        j->i++;
        if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9') return unexpected(j, "a digit", ctx);
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    }
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        fe = true;
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
        if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9') return unexpected(j, "a digit", ctx);
        while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    }
    r.floaty = fe;
    if (fe) {
        /* Exact integers written as 1.3e10 or 42.0 keep their value; the
         * caller decides whether that spelling is allowed. */
        char tmp[64];
        size_t len = j->i - start;
        if (len >= sizeof tmp) {
            r.frac = true;
        } else {
            memcpy(tmp, j->s + start, len);
            tmp[len] = '\0';
            double v = strtod(tmp, NULL);
            double a = fabs(v);
            if (v != floor(v) || !isfinite(v))
                r.frac = true;
            else if (a >= 18446744073709551616.0)
                r.big = true, r.mag = UINT64_MAX;
            else
                r.mag = (uint64_t)a, r.big = false;
        }
    }
    if (r.mag == 0 && !r.big) r.neg = false;
    *out = r;
    return VRAMEST_OK;
}

static int skip_value(vx_jscan *j)
{
    int c = vx_js_peek(j);
    switch (c) {
    case '"': return vx_js_skip_string(j, "a value");
    case '{':
    case '[': {
        char close = c == '{' ? '}' : ']';
        int rc = vx_js_open(j, (char)c, "a value");
        if (rc) return rc;
        for (size_t k = 0;; k++) {
            int more;
            if ((rc = vx_js_next(j, close, k, &more, "a value"))) return rc;
            if (!more) break;
            if (c == '{') {
                if ((rc = vx_js_skip_string(j, "an object key")) || (rc = vx_js_expect(j, ':', "an object"))) return rc;
            }
            if ((rc = skip_value(j))) return rc;
        }
        return VRAMEST_OK;
    }
    case 't':
    case 'f':
    case 'n': {
        const char *lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
        size_t len = strlen(lit);
        if (j->n - j->i < len || memcmp(j->s + j->i, lit, len) != 0) return unexpected(j, "a value", "a literal");
        j->i += len;
        return VRAMEST_OK;
    }
    default: {
        vx_jnum num;
        return vx_js_number(j, &num, "a value");
    }
    }
}

int vx_js_skip(vx_jscan *j)
{
    return skip_value(j);
}

int vx_js_open(vx_jscan *j, char open, const char *ctx)
{
    int rc = vx_js_expect(j, open, ctx);
    if (rc) return rc;
    if (++j->depth > VX_MAX_JSON_DEPTH)
        return vx_fail(VRAMEST_E_LIMIT, "%s: nesting deeper than %d levels at byte %llu", j->what, VX_MAX_JSON_DEPTH,
                       (unsigned long long)(vx_js_at(j) - 1));
    return VRAMEST_OK;
}

int vx_js_next(vx_jscan *j, char close, size_t count, int *more, const char *ctx)
{
    int c = vx_js_peek(j);
    if (c == (unsigned char)close) {
        j->i++;
        j->depth--;
        *more = 0;
        return VRAMEST_OK;
    }
    if (count > 0) {
        if (c != ',') return unexpected(j, close == '}' ? "',' or '}'" : "',' or ']'", ctx);
        j->i++;
        /* No trailing comma: a member must follow. */
        if (vx_js_peek(j) == (unsigned char)close) return unexpected(j, "a value after ','", ctx);
    }
    *more = 1;
    return VRAMEST_OK;
}
