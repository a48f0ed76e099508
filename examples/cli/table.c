/* The table of one estimate: parameters, the GPU categories with bands and
 * provenance, the headline figures, the bar, rank groups, host and NVMe, a
 * solver's answer or advice, the verdict and the warnings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_count(uint64_t v)
{
    char digits[32], out[48];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    fputs(out, stdout);
}

static void print_row(const char *label, uint64_t bytes, uint64_t lo, uint64_t hi, const char *prov)
{
    printf("  %-18s %10.3f %12.1f   %9.3f .. %-9.3f  %s\n", label, gib(bytes), mib(bytes), gib(lo), gib(hi),
           prov ? prov : "");
}

static void print_device(const vramest_result *r, vramest_device dev, int all)
{
    uint32_t n = vramest_category_count();
    for (uint32_t c = 0; c < n; c++) {
        uint64_t b = 0, lo = 0, hi = 0;
        int prov = 0;
        if (vramest_result_get(r, dev, (vramest_category)c, &b) != VRAMEST_OK) continue;
        if (!all && b == 0) continue;
        if (vramest_result_get_band(r, dev, (vramest_category)c, &lo, &hi) != VRAMEST_OK) lo = hi = b;
        if (vramest_result_provenance(r, dev, (vramest_category)c, &prov) != VRAMEST_OK) prov = 0;
        print_row(vramest_category_name((vramest_category)c), b, lo, hi,
                  vramest_provenance_name((vramest_provenance)prov));
    }
}

/* ---- the table of one estimate ---- */

static void print_ranks(const vramest_result *r, const char *const *names, uint64_t capacity, const char *device,
                        const out_opts *o)
{
    uint32_t n = vramest_result_rank_count(r);
    if (n < 2) return;
    bar_store *bs = calloc(n, sizeof *bs);
    vc_bar *bars = calloc(n, sizeof *bars);
    if (!bs || !bars) {
        free(bs);
        free(bars);
        return;
    }
    printf("\nrank groups: %u (GPUs of one group hold the same bytes; the table above is the worst)\n", n);
    printf("  %-4s %6s %15s %14s %13s  %s\n", "", "ranks", "peak_allocated", "peak_reserved", "device_total",
           "group");
    uint32_t made = 0;
    for (uint32_t g = 0; g < n; g++) {
        char tag[16];
        uint64_t ranks = 0;
        snprintf(tag, sizeof tag, "#%u", g + 1);
        if (bar_from_rank(&bs[made], r, g, tag, capacity)) break;
        vramest_result_rank_get(r, g, VRAMEST_RANK_COUNT, &ranks);
        const char *label = vramest_result_rank_label(r, g);
        printf("  %-4s %6llu %15.3f %14.3f %13.3f  %s\n", tag, (unsigned long long)ranks,
               gib(bs[made].bar.peak_allocated), gib(bs[made].bar.peak_reserved), gib(bs[made].bar.device_total),
               label ? label : "");
        bars[made] = bs[made].bar;
        made++;
    }
    printf("\n");
    vc_term_bars(stdout, names, vramest_category_count(), bars, made, capacity, device, o->color, o->columns);
    for (uint32_t g = 0; g < made; g++) bar_free(&bs[g]);
    free(bs);
    free(bars);
}

/* The verdict line: the verdict, and for a job that does not fit (or only
 * at its band's low end) the library's sentence of why and what to do. */
static void print_verdict(const vramest_result *r, json_object *plan)
{
    int ok;
    uint64_t v = value_or_zero(r, VRAMEST_VAL_VERDICT, &ok);
    if (!ok) {
        printf("\nfits: no device given (--device or \"device\" in the spec)\n");
        return;
    }
    uint64_t dt = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL), cap = value_or_zero(r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    uint64_t head = value_or_zero(r, VRAMEST_VAL_HEADROOM, NULL), lo = dt, hi = dt;
    vramest_result_value_band(r, VRAMEST_VAL_DEVICE_TOTAL, &lo, &hi);
    uint64_t usable = cap > head ? cap - head : 0;
    const char *why = jstr(plan, "why.text");
    if (v == VRAMEST_VERDICT_FITS)
        printf("\nfits: yes, %.3f GiB (band %.2f-%.2f) of %.3f GiB%s (margin %.3f GiB)\n", gib(dt), gib(lo), gib(hi),
               gib(usable), head ? " usable" : "", gib(usable - dt));
    else
        printf("\nfits: %s, %s\n", v == VRAMEST_VERDICT_FITS_LOW_END ? "ONLY AT THE LOW END of its band" : "NO",
               why ? why : "");
}

static const char *verdict_words(const char *v)
{
    return !v ? "?" : !strcmp(v, "fits") ? "fits" : !strcmp(v, "fits_low_end") ? "fits only at the low end"
                                                                                : "does not fit";
}

/* A spec's "solve" question, answered in the plan. */
static void print_solution(json_object *plan)
{
    json_object *sol = jget(plan, "solution"), *adv = jget(plan, "advice");
    if (sol && json_object_is_type(sol, json_type_object)) {
        const char *key = jstr(sol, "key"), *reason = jstr(sol, "reason");
        json_object *val = jget(sol, "value");
        json_object *safe = jget(sol, "safe_value");
        int gpus = key && !strcmp(key, "gpus");
        if (val && json_object_is_type(val, json_type_double)) {
            /* a serving engine's share of the GPU */
            printf("\nsolution: %s = %.2f (the smallest value at which the engine starts and fits; the figures above "
                   "are at it)\n",
                   key ? key : "?", json_object_get_double(val));
            if (safe && json_object_is_type(safe, json_type_double))
                printf("          %s = %.2f fits even at the band's high end\n", key ? key : "?",
                       json_object_get_double(safe));
            else
                printf("          no %s fits at the band's high end\n", key ? key : "value");
        } else if (val && json_object_is_type(val, json_type_int)) {
            printf("\nsolution: %s = %lld (the %s value whose estimate fits the device; the figures above are at it)\n",
                   key ? key : "?", (long long)json_object_get_int64(val), gpus ? "smallest" : "largest");
            if (safe && json_object_is_type(safe, json_type_int))
                printf("          %s = %lld fits even at the band's high end\n", key ? key : "?",
                       (long long)json_object_get_int64(safe));
            else
                printf("          no %s fits at the band's high end\n", key ? key : "value");
        } else
            printf("\nsolution: no %s fits%s%s\n", key ? key : "value", reason ? ": " : "", reason ? reason : "");
    }
    if (adv && json_object_is_type(adv, json_type_array)) {
        size_t n = json_object_array_length(adv);
        printf("\nadvice (cheapest change first):\n");
        if (!n) printf("  nothing to change\n");
        for (size_t i = 0; i < n; i++) {
            json_object *a = json_object_array_get_idx(adv, i);
            json_object *saves = jget(a, "saves_bytes"), *dt = jget(a, "device_total");
            const char *text = jstr(a, "text"), *verdict = jstr(a, "verdict");
            printf("  - %-36s saves %8.2f GiB, then %8.2f GiB: %s\n", text ? text : "?",
                   saves ? gib(json_object_get_uint64(saves)) : 0.0, dt ? gib(json_object_get_uint64(dt)) : 0.0,
                   verdict_words(verdict));
        }
    }
}

int print_table(const vramest_result *r, json_object *plan, const out_opts *o)
{
    print_header(plan, NULL);
    uint64_t total = value_or_zero(r, VRAMEST_VAL_PARAMS_TOTAL, NULL);
    uint64_t trainable = value_or_zero(r, VRAMEST_VAL_PARAMS_TRAINABLE, NULL);
    int ok_active;
    uint64_t active = value_or_zero(r, VRAMEST_VAL_PARAMS_ACTIVE, &ok_active);
    printf("parameters: ");
    print_count(total);
    printf(" total, ");
    print_count(trainable);
    printf(" trainable");
    if (ok_active && active && active != total) {
        printf(", ");
        print_count(active);
        printf(" active per token");
    }
    printf("\n");
    int ok_ckpt;
    uint64_t ckpt = value_or_zero(r, VRAMEST_VAL_CHECKPOINT_BYTES, &ok_ckpt);
    if (ok_ckpt && ckpt) printf("checkpoint: %.3f GiB\n", gib(ckpt));

    int ok_phase;
    uint64_t phase = value_or_zero(r, VRAMEST_VAL_PEAK_PHASE, &ok_phase);
    const char *pname = ok_phase ? vramest_phase_name((vramest_phase)phase) : NULL;
    printf("\nGPU (each GPU, the worst rank)%s%s\n", pname ? ", peak during " : "", pname ? pname : "");
    printf("  %-18s %10s %12s   %-21s  %s\n", "category", "GiB", "MiB", "band (GiB)", "provenance");
    print_device(r, VRAMEST_DEV_GPU, 1);
    static const vramest_value heads[] = {VRAMEST_VAL_PEAK_ALLOCATED, VRAMEST_VAL_PEAK_RESERVED,
                                          VRAMEST_VAL_DEVICE_TOTAL};
    printf("  %s\n", "------------------");
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        uint64_t b = value_or_zero(r, heads[i], NULL), lo = b, hi = b;
        if (vramest_result_value_band(r, heads[i], &lo, &hi) != VRAMEST_OK) lo = hi = b;
        print_row(vramest_value_name(heads[i]), b, lo, hi, NULL);
    }
    json_object *basis = jget(plan, "gpu.band_basis"), *runs = jget(basis, "measured_runs");
    if (basis && runs)
        printf("  (peak_allocated's band holds 90%% of %d measured %s runs; reserved and total add the measured "
               "fragmentation; a category's band is its own term's)\n",
               json_object_get_int(runs), jstr(basis, "kind") ? jstr(basis, "kind") : "?");
    int ok_load;
    uint64_t load_peak = value_or_zero(r, VRAMEST_VAL_LOAD_PEAK, &ok_load);
    if (ok_load && load_peak) printf("  %-18s %10.3f %12.1f   (transient, while loading)\n", "load_peak",
                                     gib(load_peak), mib(load_peak));

    uint64_t cap = value_or_zero(r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    const char **names = category_names();
    bar_store bs;
    if (names && !bar_from_result(&bs, r, NULL)) {
        printf("\n");
        vc_term_bars(stdout, names, vramest_category_count(), &bs.bar, 1, cap, plan_device(plan), o->color,
                     o->columns);
        bar_free(&bs);
        print_ranks(r, names, cap, plan_device(plan), o);
    }
    free(names);

    static const struct {
        vramest_device dev;
        vramest_value total;
        const char *title;
    } others[] = {{VRAMEST_DEV_HOST, VRAMEST_VAL_HOST_TOTAL, "host RAM"}, {VRAMEST_DEV_NVME, VRAMEST_VAL_NVME_TOTAL, "NVMe"}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        uint64_t t = value_or_zero(r, others[i].total, NULL);
        if (!t) continue;
        printf("\n%s: %.3f GiB\n", others[i].title, gib(t));
        print_device(r, others[i].dev, 0);
    }

    int ok_pool, ok_blocks, ok_tokens;
    uint64_t pool = value_or_zero(r, VRAMEST_VAL_KV_POOL_BYTES, &ok_pool);
    uint64_t blocks = value_or_zero(r, VRAMEST_VAL_KV_BLOCKS, &ok_blocks);
    uint64_t tokens = value_or_zero(r, VRAMEST_VAL_MAX_TOKENS, &ok_tokens);
    if ((ok_pool && pool) || (ok_blocks && blocks) || (ok_tokens && tokens)) {
        printf("\nserving: KV pool %.3f GiB, %llu blocks, %llu tokens\n", gib(pool), (unsigned long long)blocks,
               (unsigned long long)tokens);
    }
    int ok_conc, ok_layers, ok_fit;
    uint64_t conc = value_or_zero(r, VRAMEST_VAL_MAX_CONCURRENCY, &ok_conc);
    uint64_t layers = value_or_zero(r, VRAMEST_VAL_GPU_LAYERS, &ok_layers);
    uint64_t fit = value_or_zero(r, VRAMEST_VAL_GPU_LAYERS_FIT, &ok_fit);
    if (ok_conc) printf("         %llu sequences of max_model_len at once\n", (unsigned long long)conc);
    int ok_state;
    uint64_t state = value_or_zero(r, VRAMEST_VAL_STATE_PER_SEQ, &ok_state);
    if (ok_state && state)
        printf("\nrecurrent state: %.3f MiB per sequence (state_cache, whatever its length)\n", (double)state / 1048576.0);
    if (ok_layers && ok_fit)
        printf("\nserving: the engine puts %llu layers on the GPU; %llu fit\n", (unsigned long long)layers,
               (unsigned long long)fit);
    else if (ok_layers)
        printf("\nserving: %llu layers on the GPU\n", (unsigned long long)layers);

    print_rl_phases(plan);

    print_solution(plan);

    print_verdict(r, plan);
    int exit_code = exit_for_verdict(r);

    uint32_t nw = vramest_result_warning_count(r);
    if (nw) printf("\nwarnings:\n");
    for (uint32_t i = 0; i < nw; i++) {
        const char *w = vramest_result_warning(r, i);
        if (w) printf("  - %s\n", w);
    }
    return exit_code;
}
