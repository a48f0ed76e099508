/* Colours and drawing order shared by the terminal bar and the SVG. Keyed by
 * category name, not index, so a category the library appends later never
 * shifts the colours users have learnt; unknown names take a spare. */
#include <string.h>

#include "chart_internal.h"

static const struct {
    const char *name, *ansi, *hex;
} palette[] = {
    {"weights", "34", "#4e79a7"},      {"master_weights", "94", "#a0cbe8"}, {"gradients", "33", "#f28e2b"},
    {"optimizer_states", "31", "#e15759"}, {"activations", "32", "#59a14f"}, {"kv_cache", "36", "#76b7b2"},
    {"logits", "93", "#edc948"},       {"adapter", "35", "#b07aa1"},        {"workspace", "95", "#ff9da7"},
    {"framework", "90", "#79706e"},    {"allocator", "37", "#bab0ac"},
};
static const char *const spare_ansi[] = {"92", "96", "91", "97"};
static const char *const spare_hex[] = {"#8cd17d", "#499894", "#d37295", "#9c755f"};

#define NPAL (sizeof palette / sizeof palette[0])
#define NSPARE (sizeof spare_ansi / sizeof spare_ansi[0])

static int palette_index(const char *name)
{
    for (size_t i = 0; name && i < NPAL; i++)
        if (!strcmp(palette[i].name, name)) return (int)i;
    return -1;
}

const char *vc_cat_ansi(const char *name, size_t idx)
{
    int p = palette_index(name);
    return p >= 0 ? palette[p].ansi : spare_ansi[idx % NSPARE];
}

const char *vc_cat_hex(const char *name, size_t idx)
{
    int p = palette_index(name);
    return p >= 0 ? palette[p].hex : spare_hex[idx % NSPARE];
}

const char *vc_series_hex(size_t s)
{
    static const char *const series_hex[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                             "#b07aa1", "#76b7b2", "#9c755f", "#d37295"};
    return series_hex[s % (sizeof series_hex / sizeof series_hex[0])];
}

/* Drawing order: the allocated categories in index order, then allocator,
 * then framework, so the bar's boundaries fall at peak_allocated,
 * peak_reserved and device_total. */
size_t vc_draw_order(const char *const *names, size_t ncat, size_t *order)
{
    size_t n = 0, alloc = ncat, frame = ncat;
    for (size_t c = 0; c < ncat; c++) {
        if (names[c] && !strcmp(names[c], "allocator"))
            alloc = c;
        else if (names[c] && !strcmp(names[c], "framework"))
            frame = c;
        else
            order[n++] = c;
    }
    if (alloc < ncat) order[n++] = alloc;
    if (frame < ncat) order[n++] = frame;
    return n;
}

/* Cells of [0, x] on a bar of `width` cells spanning [0, scale]. */
size_t vc_cell_of(uint64_t x, uint64_t scale, size_t width)
{
    if (!scale) return 0;
    double v = (double)x / (double)scale * (double)width + 0.5;
    return v >= (double)width ? width : (size_t)v;
}
