/* Why a job does not fit (or fits only at the low end of its band), in
 * terms a person can act on: what it needs against what the GPU offers,
 * the categories that take the memory, and the cheapest change that makes
 * it fit, in one sentence, e.g.
 *
 *   needs 166.90 GiB (band 158.89-267.88) of 80.00 GiB: activations 68.85 GiB,
 *   optimizer_states 50.21 GiB, weights 25.10 GiB; finetune=lora brings it to
 *   69.30 GiB (band up to 111.23): fits only at the low end
 *
 * The verdict itself is the plan's "verdict"; the sentence follows it on
 * the CLI's verdict line and in the example schedulers' rejections, so every
 * caller says the same thing. */
#include <string.h>

#include "result/result.h"

static double gib(uint64_t b) { return (double)b / (double)VX_GIB; }

/* Categories that hold at least a tenth of device_total, largest first, at
 * most three, at least one. */
static int dominant(const struct vramest_result *r, int out[3])
{
    uint64_t total = r->val[VRAMEST_VAL_DEVICE_TOTAL];
    int n = 0;
    int used[VX_NCAT] = {0};
    for (; n < 3; n++) {
        int best = -1;
        for (int c = 0; c < VX_NCAT; c++)
            if (!used[c] && r->cat[VRAMEST_DEV_GPU][c] && (best < 0 || r->cat[VRAMEST_DEV_GPU][c] > r->cat[VRAMEST_DEV_GPU][best]))
                best = c;
        if (best < 0 || (n > 0 && r->cat[VRAMEST_DEV_GPU][best] < total / 10)) break;
        used[best] = 1;
        out[n] = best;
    }
    return n;
}

static const char *verdict_words(int v)
{
    return v == VRAMEST_VERDICT_FITS ? "fits" : v == VRAMEST_VERDICT_FITS_LOW_END ? "fits only at the low end"
                                                                                   : "still does not fit";
}

static void sentence(char *buf, size_t cap, const struct vramest_result *r, const int *dom, int ndom, const vx_fix *fix)
{
    /* The writer's printf: %.2f exactly as printf, without its cost (a plan
     * that does not fit writes one per job). Truncated at cap - 1 bytes. */
    vx_jw s = {buf, cap - 1, 0};
#define ADD(...) vx_jw_printf(&s, __VA_ARGS__)
    uint64_t t = r->val[VRAMEST_VAL_DEVICE_TOTAL], cap_b = r->device_bytes, head = r->headroom_bytes;
    if (r->refused) {
        ADD("the engine refuses it: %s", r->refusal);
        buf[s.len < cap - 1 ? s.len : cap - 1] = '\0';
        return;
    }
    ADD("needs %.2f GiB (band %.2f-%.2f) of %.2f GiB", gib(t), gib(r->val_low[VRAMEST_VAL_DEVICE_TOTAL]),
        gib(r->val_high[VRAMEST_VAL_DEVICE_TOTAL]), gib(cap_b > head ? cap_b - head : 0));
    if (head) ADD(" (%.2f GiB less %.2f GiB headroom)", gib(cap_b), gib(head));
    for (int i = 0; i < ndom; i++)
        ADD("%s%s %.2f GiB", i ? ", " : ": ", vx_category_names[dom[i]], gib(r->cat[VRAMEST_DEV_GPU][dom[i]]));
    if (fix && fix->text)
        ADD("; %s brings it to %.2f GiB (band up to %.2f): %s", fix->text, gib(fix->device_total), gib(fix->high),
            verdict_words(fix->verdict));
    else if (fix)
        ADD("; no single change of the advice makes it fit");
#undef ADD
    buf[s.len < cap - 1 ? s.len : cap - 1] = '\0';
}

void vx_result_why(vx_jw *w, const struct vramest_result *r, const vx_fix *fix)
{
    int dom[3], ndom = dominant(r, dom), f = 1;
    uint64_t cap = r->device_bytes, head = r->headroom_bytes;
    vx_jw_puts(w, "\"why\":{");
    vx_jw_name_key(w, "needed_bytes", &f);
    vx_jw_u64(w, r->val[VRAMEST_VAL_DEVICE_TOTAL]);
    vx_jw_name_key(w, "band", &f);
    vx_jw_printf(w, "[%llu,%llu]", (unsigned long long)r->val_low[VRAMEST_VAL_DEVICE_TOTAL],
                 (unsigned long long)r->val_high[VRAMEST_VAL_DEVICE_TOTAL]);
    vx_jw_name_key(w, "usable_bytes", &f);
    vx_jw_u64(w, cap > head ? cap - head : 0);
    vx_jw_name_key(w, "dominant", &f);
    vx_jw_put(w, "[", 1);
    for (int i = 0; i < ndom; i++)
        vx_jw_printf(w, "%s{\"category\":\"%s\",\"bytes\":%llu}", i ? "," : "", vx_category_names[dom[i]],
                     (unsigned long long)r->cat[VRAMEST_DEV_GPU][dom[i]]);
    vx_jw_put(w, "]", 1);
    vx_jw_name_key(w, "refusal", &f);
    if (r->refused)
        vx_jw_str(w, r->refusal);
    else
        vx_jw_puts(w, "null");
    if (fix) {
        vx_jw_name_key(w, "fix", &f);
        if (!fix->text) vx_jw_puts(w, "null");
    }
    if (fix && fix->text) {
        vx_jw_puts(w, "{\"change\":");
        vx_jw_puts(w, fix->change);
        vx_jw_puts(w, ",\"text\":");
        vx_jw_str(w, fix->text);
        vx_jw_printf(w, ",\"device_total\":%llu,\"band_high\":%llu,\"verdict\":\"%s\"}",
                     (unsigned long long)fix->device_total, (unsigned long long)fix->high,
                     vx_verdict_names[fix->verdict >= 0 && fix->verdict < 3 ? fix->verdict : 0]);
    }
    char text[512];
    sentence(text, sizeof text, r, dom, ndom, fix);
    vx_jw_name_key(w, "text", &f);
    vx_jw_str(w, text);
    vx_jw_put(w, "}", 1);
}
