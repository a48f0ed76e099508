/* Copying and comparing handle values (see values.h). */
#include <string.h>

#include "common/values.h"

void vx_values_copy(void *dst, const void *src, const vx_layout *l)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t at = 0;
    for (int i = 0; i < l->n; i++) {
        const vx_hole *h = &l->h[i];
        memcpy(d + at, s + at, h->off - at);
        if (h->is_string && !s[h->off]) { /* most are empty: no call */
            d[h->off] = 0;
        } else if (h->is_string) {
            size_t n = strnlen((const char *)s + h->off, h->len - 1);
            memcpy(d + h->off, s + h->off, n);
            d[h->off + n] = 0;
        }
        at = h->off + h->len;
    }
    memcpy(d + at, s + at, l->size - at);
}

int vx_values_equal(const void *a, const void *b, const vx_layout *l)
{
    const unsigned char *x = a, *y = b;
    size_t at = 0;
    for (int i = 0; i < l->n; i++) {
        const vx_hole *h = &l->h[i];
        if (memcmp(x + at, y + at, h->off - at)) return 0;
        if (h->is_string && (x[h->off] != y[h->off] ||
                             (x[h->off] && strncmp((const char *)x + h->off, (const char *)y + h->off, h->len))))
            return 0;
        at = h->off + h->len;
    }
    return !memcmp(x + at, y + at, l->size - at);
}
