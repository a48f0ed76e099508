/* A JSON text writer into a caller buffer that keeps counting past the end
 * (like snprintf), so one pass yields both the text and the size needed. */
#ifndef VX_JSON_WRITER_H
#define VX_JSON_WRITER_H

#include <string.h>

#include "common/internal.h"

typedef struct vx_jw {
    char *buf;
    size_t cap, len;
} vx_jw;

/* Inline: a plan is a few thousand short pieces. The whole piece is
 * copied with its own size, so that a literal's copy is a few moves
 * rather than a call. */
static inline void vx_jw_put(vx_jw *w, const char *s, size_t n)
{
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        if (n <= room)
            memcpy(w->buf + w->len, s, n);
        else
            memcpy(w->buf + w->len, s, room);
    }
    w->len += n;
}
/* Inline too: strlen of a literal folds to a constant. */
static inline void vx_jw_puts(vx_jw *w, const char *s)
{
    vx_jw_put(w, s, strlen(s));
}
/* printf into the text. %s %d %u %lld %llu %zu %% and %.17g are written
 * without the C library's printf (the plan's hot path); any other
 * conversion goes through vsnprintf, 255 bytes at most. */
void vx_jw_printf(vx_jw *w, const char *fmt, ...) VX_PRINTF(2, 3) VX_HIDDEN;
/* A JSON string literal with escapes. */
void vx_jw_str(vx_jw *w, const char *s) VX_HIDDEN;
/* `"k":` preceded by a comma unless *first (which it clears). */
void vx_jw_key(vx_jw *w, const char *k, int *first) VX_HIDDEN;
/* The same for a name the library defines (an option, category, value,
 * phase or provenance name), which never needs an escape: the option
 * table generator refuses names that would (option_index_gen.c), and the
 * other names are constants of result/names.c. Written without scanning
 * for escapes, as a plan has ~450 of them. */
static inline void vx_jw_name_key(vx_jw *w, const char *k, int *first)
{
    if (!*first) vx_jw_put(w, ",", 1);
    *first = 0;
    vx_jw_put(w, "\"", 1);
    vx_jw_put(w, k, strlen(k));
    vx_jw_put(w, "\":", 2);
}
/* `"s"` for such a name as a value. */
static inline void vx_jw_name(vx_jw *w, const char *s)
{
    vx_jw_put(w, "\"", 1);
    vx_jw_put(w, s, strlen(s));
    vx_jw_put(w, "\"", 1);
}
void vx_jw_u64(vx_jw *w, uint64_t v) VX_HIDDEN;
void vx_jw_i64(vx_jw *w, int64_t v) VX_HIDDEN;
/* `[lo,hi]`: a band. */
void vx_jw_pair(vx_jw *w, uint64_t lo, uint64_t hi) VX_HIDDEN;
/* A double as printf's "%.17g" writes it (the echo's doubles). */
void vx_jw_g17(vx_jw *w, double v) VX_HIDDEN;
/* A double as printf's "%.<digits>f" writes it, 0 <= digits <= 9. */
void vx_jw_fixed(vx_jw *w, double v, int digits) VX_HIDDEN;
/* NUL-terminate into the buffer and apply the buffer protocol of the public
 * *_json functions: VRAMEST_E_BUFFER_TOO_SMALL with *needed when it is short. */
int vx_jw_finish(vx_jw *w, size_t *out_needed, const char *fn) VX_HIDDEN;

#endif
