/* Bars for the charts, filled from the result's getters (the worst rank, or
 * one rank group), and what the terminal allows (colour, width). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

void bar_free(bar_store *b)
{
    free(b->cats);
    free(b->lo);
    free(b->hi);
    free(b->prov);
    memset(b, 0, sizeof *b);
}

int bar_alloc(bar_store *b, uint32_t ncat, int bands)
{
    memset(b, 0, sizeof *b);
    b->cats = calloc(ncat ? ncat : 1, sizeof *b->cats);
    if (bands) {
        b->lo = calloc(ncat ? ncat : 1, sizeof *b->lo);
        b->hi = calloc(ncat ? ncat : 1, sizeof *b->hi);
        b->prov = calloc(ncat ? ncat : 1, sizeof *b->prov);
    }
    if (!b->cats || (bands && (!b->lo || !b->hi || !b->prov))) {
        bar_free(b);
        fputs("vramest: out of memory\n", stderr);
        return -1;
    }
    b->bar.cats = b->cats;
    b->bar.lo = b->lo;
    b->bar.hi = b->hi;
    b->bar.prov = b->prov;
    b->bar.label = b->label;
    return 0;
}

/* The result's GPU breakdown (the worst rank) with bands and provenance. */
int bar_from_result(bar_store *b, const vramest_result *r, const char *label)
{
    uint32_t ncat = vramest_category_count();
    if (bar_alloc(b, ncat, 1)) return -1;
    for (uint32_t c = 0; c < ncat; c++) {
        int prov = 0;
        vramest_result_get(r, VRAMEST_DEV_GPU, (vramest_category)c, &b->cats[c]);
        if (vramest_result_get_band(r, VRAMEST_DEV_GPU, (vramest_category)c, &b->lo[c], &b->hi[c]))
            b->lo[c] = b->hi[c] = b->cats[c];
        if (!vramest_result_provenance(r, VRAMEST_DEV_GPU, (vramest_category)c, &prov))
            b->prov[c] = vramest_provenance_name((vramest_provenance)prov);
    }
    snprintf(b->label, sizeof b->label, "%s", label ? label : "");
    b->bar.peak_allocated = value_or_zero(r, VRAMEST_VAL_PEAK_ALLOCATED, NULL);
    b->bar.peak_reserved = value_or_zero(r, VRAMEST_VAL_PEAK_RESERVED, NULL);
    b->bar.device_total = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL);
    int ok;
    uint64_t fits = value_or_zero(r, VRAMEST_VAL_FITS, &ok);
    b->bar.fits = ok ? (int)fits : -1;
    return 0;
}

/* One rank group of a multi-GPU estimate. */
int bar_from_rank(bar_store *b, const vramest_result *r, uint32_t group, const char *label,
                         uint64_t capacity)
{
    uint32_t ncat = vramest_category_count();
    if (bar_alloc(b, ncat, 0)) return -1;
    for (uint32_t c = 0; c < ncat; c++) vramest_result_rank_get(r, group, (int)c, &b->cats[c]);
    vramest_result_rank_get(r, group, VRAMEST_RANK_VALUE(VRAMEST_VAL_PEAK_ALLOCATED), &b->bar.peak_allocated);
    vramest_result_rank_get(r, group, VRAMEST_RANK_VALUE(VRAMEST_VAL_PEAK_RESERVED), &b->bar.peak_reserved);
    vramest_result_rank_get(r, group, VRAMEST_RANK_VALUE(VRAMEST_VAL_DEVICE_TOTAL), &b->bar.device_total);
    snprintf(b->label, sizeof b->label, "%s", label);
    b->bar.fits = capacity ? b->bar.device_total <= capacity : -1;
    return 0;
}

const char **category_names(void)
{
    uint32_t n = vramest_category_count();
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) {
        fputs("vramest: out of memory\n", stderr);
        return NULL;
    }
    for (uint32_t c = 0; c < n; c++) {
        names[c] = vramest_category_name((vramest_category)c);
        if (!names[c]) names[c] = "?";
    }
    return names;
}


int use_color(void)
{
    /* Colour only for a person at a terminal, and never against NO_COLOR
     * (set to anything) or a terminal that says it cannot. */
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

int term_columns(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    const char *env = getenv("COLUMNS");
    long v = env ? strtol(env, NULL, 10) : 0;
    return v >= 20 && v <= 1000 ? (int)v : 80;
}
