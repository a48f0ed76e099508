/* The stacked bar in the terminal, with its legend. */
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"

static const char *const mono_glyphs[] = {"\u2588", "\u2593", "\u2592", "\u2591"}; /* █ ▓ ▒ ░ */
#define FULL_BLOCK "\u2588"
#define FREE_GLYPH "\u00b7" /* · */
#define BAR_END "\u2502"    /* │ */
#define UP_MARK "\u25b2"    /* ▲ */

static void put_n(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) fputs(s, f);
}

static void glyph_on(FILE *f, int color, const char *ansi)
{
    if (color) fprintf(f, "\x1b[%sm", ansi);
}

static void glyph_off(FILE *f, int color)
{
    if (color) fputs("\x1b[0m", f);
}

void vc_term_bars(FILE *f, const char *const *cat_names, size_t ncat, const vc_bar *bars, size_t nbars,
                  uint64_t capacity, const char *device, int color, int columns)
{
    if (!ncat || !nbars) return;
    size_t *order = malloc(ncat * sizeof *order);
    int *glyph = malloc(ncat * sizeof *glyph);
    if (!order || !glyph) {
        free(order);
        free(glyph);
        return;
    }
    size_t norder = vc_draw_order(cat_names, ncat, order);
    uint64_t scale = capacity;
    for (size_t b = 0; b < nbars; b++)
        if (bars[b].device_total > scale) scale = bars[b].device_total;

    /* One glyph per category across all bars (the legend's), cycling in
     * drawing order so neighbours always differ without colour. */
    int used = 0;
    for (size_t i = 0; i < norder; i++) {
        size_t c = order[i];
        glyph[c] = -1;
        for (size_t b = 0; b < nbars; b++)
            if (bars[b].cats[c]) {
                glyph[c] = used++ % 4;
                break;
            }
    }
    if (!scale || !used) {
        free(order);
        free(glyph);
        return;
    }

    size_t lw = 0;
    if (nbars > 1)
        for (size_t b = 0; b < nbars; b++) {
            size_t l = bars[b].label ? strlen(bars[b].label) : 0;
            if (l > lw) lw = l;
        }
    if (lw > 24) lw = 24;
    /* Room for " 123.45 GiB" after the bar, and "  does not fit" on a comparison. */
    long w = (long)columns - 2 - (lw ? (long)lw + 1 : 0) - 1 - 13 - (nbars > 1 ? 14 : 0);
    size_t width = w < 16 ? 16 : w > 64 ? 64 : (size_t)w;
    size_t capcol = capacity ? vc_cell_of(capacity, scale, width) : 0;
    int over = 0;

    for (size_t b = 0; b < nbars; b++) {
        const vc_bar *bar = &bars[b];
        fputs("  ", f);
        if (lw) fprintf(f, "%-*.*s ", (int)lw, (int)lw, bar->label ? bar->label : "");
        uint64_t cum = 0;
        size_t col = 0;
        for (size_t i = 0; i < norder; i++) {
            size_t c = order[i];
            if (!bar->cats[c]) continue;
            cum += bar->cats[c];
            size_t to = vc_cell_of(cum, scale, width);
            if (to > col) {
                glyph_on(f, color, vc_cat_ansi(cat_names[c], c));
                put_n(f, color ? FULL_BLOCK : mono_glyphs[glyph[c]], to - col);
                glyph_off(f, color);
                col = to;
            }
        }
        size_t printed = col;
        if (capacity && bar->device_total <= capacity) {
            if (capcol > col) {
                glyph_on(f, color, "2");
                put_n(f, FREE_GLYPH, capcol - col);
                glyph_off(f, color);
            }
            fputs(BAR_END, f);
            printed = (capcol > col ? capcol : col) + 1;
        } else if (capacity) {
            over = 1;
        }
        put_n(f, " ", width + 1 > printed ? width + 1 - printed : 0);
        fprintf(f, " %8.2f GiB", vc_gib(bar->device_total));
        if (nbars > 1 && bar->fits >= 0) fputs(bar->fits ? "  fits" : "  does not fit", f);
        fputc('\n', f);
    }

    if (over) {
        /* Where the device ends, under the bars that pass it. */
        char text[128];
        snprintf(text, sizeof text, "capacity %.2f GiB%s%s%s", vc_gib(capacity), device ? " (" : "",
                 device ? device : "", device ? ")" : "");
        size_t indent = 2 + (lw ? lw + 1 : 0), tl = strlen(text);
        if (capcol >= tl + 1) {
            put_n(f, " ", indent + capcol - tl - 1);
            fprintf(f, "%s " UP_MARK "\n", text);
        } else {
            put_n(f, " ", indent + capcol);
            fprintf(f, UP_MARK " %s\n", text);
        }
    }

    /* Legend, wrapped to the terminal. */
    int col = 2, values = nbars == 1;
    fputs("  ", f);
    for (size_t i = 0; i <= norder; i++) {
        size_t c = i < norder ? order[i] : 0;
        char item[96];
        const char *ansi = "2", *mark = FREE_GLYPH;
        if (i < norder) {
            if (glyph[c] < 0) continue;
            double g = vc_gib(bars[0].cats[c]);
            if (!values)
                snprintf(item, sizeof item, "%s", cat_names[c]);
            else if (bars[0].cats[c] && g < 0.005)
                snprintf(item, sizeof item, "%s <0.01", cat_names[c]);
            else
                snprintf(item, sizeof item, "%s %.2f", cat_names[c], g);
            ansi = vc_cat_ansi(cat_names[c], c);
            mark = color ? FULL_BLOCK : mono_glyphs[glyph[c]];
        } else if (values && capacity && bars[0].device_total < capacity) {
            snprintf(item, sizeof item, "free %.2f", vc_gib(capacity - bars[0].device_total));
        } else {
            break;
        }
        int l = (int)strlen(item);
        if (col > 2 && col + 3 + 2 + l > columns) {
            fputs("\n  ", f);
            col = 2;
        } else if (col > 2) {
            fputs("   ", f);
            col += 3;
        }
        glyph_on(f, color, ansi);
        fputs(mark, f);
        glyph_off(f, color);
        fprintf(f, " %s", item);
        col += 2 + l;
    }
    fputs(values ? "  (GiB)\n" : "\n", f);
    free(order);
    free(glyph);
}
