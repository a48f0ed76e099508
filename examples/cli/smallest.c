/* --smallest-device: the GPU preset with the least memory on which the job
 * fits, every other setting (GPU count included) as given. "Fits" means the
 * verdict "fits" (the band's high end); when no preset gets there, the
 * smallest one that fits only at the low end is named as such. There is no
 * --cheapest: vramest has no prices, and an invented price table would be
 * a number nobody measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct tried {
    const char *name;
    uint64_t bytes, total, high;
    int verdict; /* vramest_verdict, -1 when the job cannot run there */
} tried;

static int by_memory(const void *a, const void *b)
{
    const tried *x = a, *y = b;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static const char *verdict_word(int v)
{
    return v == VRAMEST_VERDICT_FITS ? "fits" : v == VRAMEST_VERDICT_FITS_LOW_END ? "fits only at the low end"
                                              : v == VRAMEST_VERDICT_DOES_NOT_FIT ? "does not fit"
                                                                                  : "error";
}

int run_smallest_device(handles *h, const char *model_arg, const out_opts *o)
{
    uint32_t n = vramest_gpu_count();
    if (!n) return lib_error(VRAMEST_E_INTERNAL);
    tried *t = calloc(n, sizeof *t);
    if (!t) return lib_error(VRAMEST_E_NOMEM);
    for (uint32_t i = 0; i < n; i++) {
        vramest_result *r = NULL;
        t[i].verdict = -1;
        if (vramest_gpu_info(i, &t[i].name, &t[i].bytes) || vramest_config_set_str(h->c, VRAMEST_CFG_DEVICE, t[i].name))
            continue;
        /* memory_gib would override every preset's size */
        vramest_config_reset(h->c, VRAMEST_CFG_MEMORY_GIB);
        if (vramest_estimate(h->m, h->p, h->c, &r) == VRAMEST_OK) {
            t[i].verdict = (int)value_or_zero(r, VRAMEST_VAL_VERDICT, NULL);
            t[i].total = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL);
            vramest_result_value_band(r, VRAMEST_VAL_DEVICE_TOTAL, &(uint64_t){0}, &t[i].high);
        }
        vramest_result_free(r);
    }
    qsort(t, n, sizeof *t, by_memory);
    int pick = -1;
    for (int want = VRAMEST_VERDICT_FITS; pick < 0 && want >= VRAMEST_VERDICT_FITS_LOW_END; want--)
        for (uint32_t i = 0; pick < 0 && i < n; i++)
            if (t[i].verdict == want) pick = (int)i;
    /* None fits: the largest preset's plan says why and what would help. */
    int none = pick < 0;
    if (none) pick = (int)n - 1;
    if (!o->json) {
        printf("smallest device (each GPU preset, the job as given otherwise):\n");
        printf("  %-18s %9s %14s %14s  %s\n", "device", "GiB", "device_total", "band high", "verdict");
        for (uint32_t i = 0; i < n; i++)
            printf("  %-18s %9.2f %14.2f %14.2f  %s%s\n", t[i].name ? t[i].name : "?", gib(t[i].bytes),
                   gib(t[i].total), gib(t[i].high), verdict_word(t[i].verdict),
                   (int)i == pick && !none ? "   <- smallest" : "");
        printf(none ? "\nno GPU preset fits; the plan on the largest, %s:\n\n" : "\nthe plan on %s:\n\n",
               t[pick].name);
    }
    int lrc = vramest_config_set_str(h->c, VRAMEST_CFG_DEVICE, t[pick].name);
    int rc = lrc ? lib_error(lrc) : plan_and_report(h, (question){VRAMEST_ASK_NONE, (vramest_option)0}, model_arg, o);
    free(t);
    return rc;
}
