/* JSON text output shared by the plan and the advice. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/json_writer.h"

void vx_jw_put(vx_jw *w, const char *s, size_t n)
{
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

void vx_jw_puts(vx_jw *w, const char *s)
{
    vx_jw_put(w, s, strlen(s));
}

void vx_jw_printf(vx_jw *w, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) vx_jw_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void vx_jw_str(vx_jw *w, const char *s)
{
    vx_jw_put(w, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            vx_jw_put(w, e, 2);
        } else if (c < 0x20) {
            vx_jw_printf(w, "\\u%04x", c);
        } else {
            vx_jw_put(w, (const char *)&c, 1);
        }
    }
    vx_jw_put(w, "\"", 1);
}

void vx_jw_key(vx_jw *w, const char *k, int *first)
{
    if (!*first) vx_jw_put(w, ",", 1);
    *first = 0;
    vx_jw_str(w, k);
    vx_jw_put(w, ":", 1);
}

void vx_jw_u64(vx_jw *w, uint64_t v)
{
    vx_jw_printf(w, "%llu", (unsigned long long)v);
}

int vx_jw_finish(vx_jw *w, size_t *out_needed, const char *fn)
{
    size_t need = w->len + 1;
    if (out_needed) *out_needed = need;
    if (need > w->cap) {
        if (w->cap) w->buf[0] = '\0';
        return vx_fail(VRAMEST_E_BUFFER_TOO_SMALL, "%s: %zu bytes needed, buffer has %zu", fn, need, w->cap);
    }
    w->buf[w->len] = '\0';
    return VRAMEST_OK;
}
