/* The SVG file of one estimate (the chart module draws it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int write_svg(const char *path, const vc_chart *c)
{
    int to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vramest: i/o error: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_BAD;
    }
    int bad = vc_write_svg(f, c);
    if (!to_stdout && fclose(f) != 0) bad = -1;
    if (bad) {
        fprintf(stderr, "vramest: i/o error: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_BAD;
    }
    return 0;
}

/* ---- the SVG of one estimate ---- */

int svg_single(const vramest_result *r, json_object *plan, const char *model_arg, const char *path)
{
    char title[320], sub[512];
    describe(plan, model_arg, 1, title, sizeof title);
    uint64_t cap = value_or_zero(r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    uint64_t dt = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL);
    int ok_fits, ok_phase;
    uint64_t fits = value_or_zero(r, VRAMEST_VAL_FITS, &ok_fits);
    uint64_t phase = value_or_zero(r, VRAMEST_VAL_PEAK_PHASE, &ok_phase);
    size_t l = 0;
    if (ok_fits && fits)
        l = (size_t)snprintf(sub, sizeof sub, "device_total %.2f GiB of %.2f GiB: fits (margin %.2f GiB)", gib(dt),
                             gib(cap), gib(cap - dt));
    else if (ok_fits)
        l = (size_t)snprintf(sub, sizeof sub, "device_total %.2f GiB of %.2f GiB: does not fit (short by %.2f GiB)",
                             gib(dt), gib(cap), gib(dt - cap));
    else
        l = (size_t)snprintf(sub, sizeof sub, "device_total %.2f GiB (no device given)", gib(dt));
    const char *pname = ok_phase ? vramest_phase_name((vramest_phase)phase) : NULL;
    if (pname && l < sizeof sub) l += (size_t)snprintf(sub + l, sizeof sub - l, " \u00b7 peak during %s", pname);
    uint64_t params = value_or_zero(r, VRAMEST_VAL_PARAMS_TOTAL, NULL);
    uint64_t trainable = value_or_zero(r, VRAMEST_VAL_PARAMS_TRAINABLE, NULL);
    if (l < sizeof sub)
        l += (size_t)snprintf(sub + l, sizeof sub - l, " \u00b7 %.2fB parameters, %.2fB trainable", (double)params / 1e9,
                              (double)trainable / 1e9);
    uint64_t host = value_or_zero(r, VRAMEST_VAL_HOST_TOTAL, NULL);
    if (host && l < sizeof sub) snprintf(sub + l, sizeof sub - l, " \u00b7 host RAM %.2f GiB", gib(host));

    const char **names = category_names();
    uint32_t ngroups = vramest_result_rank_count(r), nbars = ngroups >= 2 ? ngroups : 1;
    bar_store *bs = calloc(nbars, sizeof *bs);
    vc_bar *bars = calloc(nbars, sizeof *bars);
    size_t npts = 0;
    vc_point *pts = plan_timeline(plan, &npts);
    int rc = names && bs && bars ? 0 : EXIT_BAD;
    uint32_t made = 0;
    if (!rc && ngroups >= 2) {
        for (; made < ngroups; made++) {
            char label[192];
            uint64_t ranks = 0;
            const char *gl = vramest_result_rank_label(r, made);
            vramest_result_rank_get(r, made, VRAMEST_RANK_COUNT, &ranks);
            snprintf(label, sizeof label, "#%u %s (%llu rank%s)", made + 1, gl ? gl : "",
                     (unsigned long long)ranks, ranks == 1 ? "" : "s");
            if (bar_from_rank(&bs[made], r, made, label, cap)) break;
            bars[made] = bs[made].bar;
        }
    } else if (!rc && !bar_from_result(&bs[0], r, NULL)) {
        bars[made++] = bs[0].bar;
    }
    if (!rc && made == nbars) {
        vc_series s = {NULL, pts, npts, dt};
        vc_chart c = {title, sub,
                      ngroups >= 2 ? "GPU memory at the peak, per rank group" : "GPU memory at the peak (each GPU)",
                      names, vramest_category_count(), bars, made, &s, pts ? 1 : 0, cap, plan_device(plan)};
        rc = write_svg(path, &c);
    } else {
        rc = EXIT_BAD;
    }
    for (uint32_t i = 0; i < made; i++) bar_free(&bs[i]);
    free(bs);
    free(bars);
    free(pts);
    free(names);
    return rc;
}
