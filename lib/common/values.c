/* Copying and comparing handle values (see values.h). */
#include <string.h>

#include "runtime/config.h"
#include "common/values.h"
#include "precision/precision.h"

#define STR(T, m) {offsetof(T, m), VX_STR_MAX, 1}
#define SKIP(T, m) {offsetof(T, m), sizeof(((T *)0)->m), 0}

const vx_layout vx_config_layout = {
    sizeof(vx_config_values),
    3,
    {STR(vx_config_values, lora_targets), STR(vx_config_values, device), STR(vx_config_values, max_memory)}};

const vx_layout vx_precision_layout = {sizeof(vx_precision_values), 1, {STR(vx_precision_values, skip_modules)}};

/* Holes go in increasing offset order. */
_Static_assert(offsetof(vx_config_values, batch_size) < offsetof(vx_config_values, seq_len) &&
                   offsetof(vx_config_values, seq_len) < offsetof(vx_config_values, lora_targets) &&
                   offsetof(vx_config_values, lora_targets) < offsetof(vx_config_values, device) &&
                   offsetof(vx_config_values, device) < offsetof(vx_config_values, max_memory),
               "vx_config_layout lists its holes by offset");
const vx_layout vx_config_key_layout = {
    sizeof(vx_config_values),
    5,
    {SKIP(vx_config_values, batch_size), SKIP(vx_config_values, seq_len), STR(vx_config_values, lora_targets),
     STR(vx_config_values, device), STR(vx_config_values, max_memory)}};

void vx_values_copy(void *dst, const void *src, const vx_layout *l)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t at = 0;
    for (int i = 0; i < l->n; i++) {
        const vx_hole *h = &l->h[i];
        memcpy(d + at, s + at, h->off - at);
        if (h->is_string) {
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
        if (h->is_string && strncmp((const char *)x + h->off, (const char *)y + h->off, h->len)) return 0;
        at = h->off + h->len;
    }
    return !memcmp(x + at, y + at, l->size - at);
}
