/* Charts of the vramest CLI: a stacked bar in the terminal and an SVG file.
 *
 * Presentation only. The caller fills these structures from the library
 * (result getters, rank groups, the plan's "timeline"); nothing here computes
 * a byte, it only scales and draws what it is given. */
#ifndef VRAMEST_CLI_CHART_H
#define VRAMEST_CLI_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One stacked bar: the GPU categories of one estimate, one rank group or one
 * column of a comparison. `cats`, `lo`, `hi` and `prov` have `ncat` entries
 * in category index order; lo/hi/prov may be NULL. */
typedef struct vc_bar {
    const char *label;
    const uint64_t *cats;
    const uint64_t *lo, *hi;
    const char *const *prov;
    uint64_t peak_allocated, peak_reserved, device_total;
    int fits; /* 1 fits, 0 does not, -1 no device */
} vc_bar;

/* One point of a step timeline (the plan's "timeline" array). */
typedef struct vc_point {
    const char *phase;
    int64_t layer; /* -1 when the point is not a layer */
    uint64_t allocated;
    const char *label;
} vc_point;

typedef struct vc_series {
    const char *label; /* NULL for a single series */
    const vc_point *pts;
    size_t n;
    uint64_t device_total; /* drawn as a reference line for a single series; 0 = none */
} vc_series;

typedef struct vc_chart {
    const char *title;    /* <title> and the heading */
    const char *subtitle; /* one line under the heading, may be NULL */
    const char *bars_heading;
    const char *const *cat_names; /* ncat names, category index order */
    size_t ncat;
    const vc_bar *bars;
    size_t nbars;
    const vc_series *series;
    size_t nseries;
    uint64_t capacity;  /* bytes of the device, 0 = none */
    const char *device; /* its name, may be NULL */
} vc_chart;

/* Stacked bars in the terminal with a legend. `color` turns on ANSI
 * colours; `columns` is the terminal width. */
void vc_term_bars(FILE *f, const char *const *cat_names, size_t ncat, const vc_bar *bars, size_t nbars,
                  uint64_t capacity, const char *device, int color, int columns);

/* The whole chart as a standalone SVG document. Returns 0, or -1 when the
 * stream reports a write error. */
int vc_write_svg(FILE *f, const vc_chart *c);

#endif
