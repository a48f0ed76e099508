/* Reading the tape the JSON reader fills (json_reader.h): lookups, numbers
 * as the options want them, strings as C strings, and positions for
 * messages. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/json_reader.h"

void vx_json_line_col(const char *text, size_t off, size_t *line, size_t *col)
{
    size_t l = 1, start = 0;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') l++, start = i + 1;
    *line = l;
    *col = off - start + 1;
}

const vx_jv *vx_jget(const vx_jdoc *d, const vx_jv *o, const char *key)
{
    if (!o || o->type != VX_J_OBJ) return NULL;
    size_t len = strlen(key);
    for (const vx_jv *k = vx_jfirst(o); k < vx_jend(o); k = vx_jskip(k + 1))
        if (vx_jkey_is(d, k, key, len)) return k + 1;
    return NULL;
}

const char *vx_jkind(const vx_jv *v)
{
    switch (v->type) {
    case VX_J_NULL: return "null";
    case VX_J_FALSE:
    case VX_J_TRUE: return "a boolean";
    case VX_J_INT: return "an integer";
    case VX_J_NUM: return "a number";
    case VX_J_STR: return "a string";
    case VX_J_ARR: return "an array";
    case VX_J_OBJ: return "an object";
    }
    return "?";
}

void vx_jliteral(const vx_jdoc *d, const vx_jv *v, char *buf, size_t cap)
{
    size_t i = v->at, k = 0;
    while (i < d->len && k + 1 < cap) {
        char c = d->text[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
              c == '.'))
            break;
        buf[k++] = c, i++;
    }
    buf[k] = '\0';
}

/* A number's double, or why there is none. */
static int finite_of(const vx_jv *v, double *d)
{
    if (v->type == VX_J_INT) {
        *d = (double)v->u.i;
        return VRAMEST_OK;
    }
    if (v->type != VX_J_NUM) return VX_JN_NOT_NUMBER;
    *d = v->u.d;
    return isfinite(*d) ? VRAMEST_OK : VX_JN_NONFINITE;
}

int vx_jnum_i64(const vx_jv *v, int64_t *out)
{
    if (v->type == VX_J_INT) {
        *out = v->u.i;
        return VRAMEST_OK;
    }
    double d;
    int rc = finite_of(v, &d);
    if (rc) return rc;
    if (v->flags & VX_JF_BIG) return VX_JN_TOO_BIG;
    if (d != floor(d)) return VX_JN_NOT_INTEGER;
    /* Integral, but a double this large stands for many integers. */
    if (fabs(d) >= 9007199254740992.0) return VX_JN_TOO_BIG;
    *out = (int64_t)d;
    return VRAMEST_OK;
}

int vx_jnum_f64(const vx_jv *v, double *out)
{
    return finite_of(v, out);
}

int vx_jcstr(const vx_jdoc *d, const vx_jv *s, const char *where, const char **out)
{
    *out = d->str + s->u.s.off;
    if (s->flags & VX_JF_NUL) {
        size_t line, col;
        vx_json_line_col(d->text, s->at, &line, &col);
        return vx_fail(VRAMEST_E_PARSE,
                       "%s: the string holds \\u0000 (NUL), which would cut it short, at byte %u (line %zu, column "
                       "%zu)",
                       where, (unsigned)s->at, line, col);
    }
    return VRAMEST_OK;
}
