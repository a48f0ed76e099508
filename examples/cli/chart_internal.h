/* What the terminal bar and the SVG share: colours and drawing order. */
#ifndef VRAMEST_CLI_CHART_INTERNAL_H
#define VRAMEST_CLI_CHART_INTERNAL_H

#include "chart.h"

static inline double vc_gib(uint64_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }

/* ANSI colour code and hex colour of a category (by name; spares by index). */
const char *vc_cat_ansi(const char *name, size_t idx);
const char *vc_cat_hex(const char *name, size_t idx);
/* The colour of the s-th timeline series. */
const char *vc_series_hex(size_t s);
/* Drawing order: the allocated categories in index order, then allocator,
 * then framework, so the bar's boundaries fall at peak_allocated,
 * peak_reserved and device_total. Returns the number of entries of `order`. */
size_t vc_draw_order(const char *const *names, size_t ncat, size_t *order);
/* Cells of [0, x] on a bar of `width` cells spanning [0, scale]. */
size_t vc_cell_of(uint64_t x, uint64_t scale, size_t width);

#endif
