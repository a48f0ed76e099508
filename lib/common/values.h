/* Copying and comparing a handle's values (vx_config_values,
 * vx_precision_values) by what they mean: a STRING member counts up to its
 * NUL, and the bytes after it are neither copied nor compared. Most of
 * those structs are string buffers (VX_STR_MAX each), nearly always short
 * or empty: the result's echo and the estimate caches would otherwise move
 * kilobytes of zeros per estimate. */
#ifndef VX_VALUES_H
#define VX_VALUES_H

#include <stddef.h>

#include "common/options.h" /* VX_STR_MAX */

/* A member the comparison or copy treats apart. */
typedef struct vx_hole {
    size_t off, len;
    int is_string; /* 1: compared / copied up to its NUL; 0: skipped */
} vx_hole;

/* The layout of a values struct: its size and its holes, by offset. */
typedef struct vx_layout {
    size_t size;
    int n;
    vx_hole h[10];
} vx_layout;

/* Holes of a layout, written next to the struct they describe
 * (runtime/config.c, precision/precision.c). */
#define VX_LAYOUT_STR(T, m) {offsetof(T, m), VX_STR_MAX, 1}
#define VX_LAYOUT_SKIP(T, m) {offsetof(T, m), sizeof(((T *)0)->m), 0}

/* dst = src: every byte outside the holes, each string up to its NUL
 * (skipped holes are left as they are). */
void vx_values_copy(void *dst, const void *src, const vx_layout *l) VX_HIDDEN;
/* Whether a and b are equal outside the skipped holes, strings as strings. */
int vx_values_equal(const void *a, const void *b, const vx_layout *l) VX_HIDDEN;

#endif
