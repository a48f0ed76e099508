/* The stack an estimate assumed, in the plan (issue #17 item 4): the
 * framework and the versions it ran at (each marked when a default decided
 * it), the choices made for "auto" settings (optimizer implementation,
 * attention kernel, loss, FSDP version), and the notes of the defaults
 * that decided the answer. The CLI's header and the Python binding read
 * it from the plan; the estimator fills it (estimate/estimate.c,
 * train/train.c, infer/infer.c). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "result/result.h"

/* Notes are written on every estimate that takes a default (most do) and
 * say only %s and %d: those are copied here in runs, a fifth of what
 * vsnprintf costs; any other conversion takes vsnprintf. Truncated at
 * VX_WARN_LEN - 1 bytes as vsnprintf truncates. */
static int note_fast(char *dst, const char *fmt, va_list ap)
{
    size_t at = 0, cap = VX_WARN_LEN - 1;
    for (;;) {
        const char *pc = strchr(fmt, '%');
        size_t run = pc ? (size_t)(pc - fmt) : strlen(fmt);
        const char *arg = fmt;
        char num[12];
        if (pc && pc[1] == 's') {
            arg = va_arg(ap, const char *);
            if (!arg) return -1;
        } else if (pc && pc[1] == 'd') {
            int v = va_arg(ap, int);
            if (v < 0) return -1;
            char *e = num + sizeof num, *q = e;
            do *--q = (char)('0' + v % 10), v /= 10;
            while (v);
            memmove(num, q, (size_t)(e - q));
            num[e - q] = 0;
            arg = num;
        } else if (pc) {
            return -1;
        }
        size_t n = run < cap - at ? run : cap - at;
        memcpy(dst + at, fmt, n);
        at += n;
        if (!pc) break;
        size_t m = strlen(arg);
        n = m < cap - at ? m : cap - at;
        memcpy(dst + at, arg, n);
        at += n;
        fmt = pc + 2;
    }
    dst[at] = 0;
    return 0;
}

void vx_result_note(struct vramest_result *r, const char *fmt, ...)
{
    if (r->rrt.n_notes >= VX_MAX_NOTES) return;
    char *dst = r->rrt.notes[r->rrt.n_notes++];
    va_list ap;
    va_start(ap, fmt);
    int fast = note_fast(dst, fmt, ap);
    va_end(ap);
    if (fast) {
        va_start(ap, fmt);
        vsnprintf(dst, VX_WARN_LEN, fmt, ap);
        va_end(ap);
    }
}

/* "name": {"version": "2.13", "default": true}, or null when the component
 * plays no part (transformers under Megatron, torch under llama.cpp). */
static void version(vx_jw *w, const char *key, const vx_version_info *vi, int v, int defaulted, int applies, int *f)
{
    vx_jw_name_key(w, key, f);
    if (!applies || !vi || !vi->forms || v <= 0) {
        vx_jw_puts(w, "null");
        return;
    }
    char buf[24];
    vx_version_format(v, vi->form, buf, sizeof buf);
    vx_jw_puts(w, "{\"version\":");
    vx_jw_str(w, buf);
    vx_jw_printf(w, ",\"default\":%s}", defaulted ? "true" : "false");
}

void vx_result_resolved_json(vx_jw *w, const struct vramest_result *r)
{
    static const char *const impls[] = {"auto", "foreach", "fused", "single_tensor"};
    static const char *const losses[VX_LOSS_COUNT_] = {"cross_entropy", "chunked", "fused_linear", "sum"};
    const vx_result_runtime *q = &r->rrt;
    const vx_runtime *rt = &q->rt;
    int f = 1;
    vx_jw_put(w, "{", 1);
    const char *fw = vx_enum_name_of(vx_framework_enum, rt->framework);
    vx_jw_name_key(w, "framework", &f);
    vx_jw_str(w, fw ? fw : "?");
    version(w, "torch", &vx_torch_versions, rt->torch, rt->defaulted & VX_RTV_TORCH, !rt->ggml_alloc, &f);
    version(w, "transformers", &vx_transformers_versions, rt->transformers, rt->defaulted & VX_RTV_TRANSFORMERS,
            rt->hf_code, &f);
    version(w, "framework_version", vx_framework_versions(rt->framework), rt->framework_version,
            rt->defaulted & VX_RTV_FRAMEWORK, 1, &f);
    if (q->mode_train) {
        vx_jw_name_key(w, "optimizer_impl", &f);
        vx_jw_str(w, q->opt_impl >= 0 && q->opt_impl < 4 ? impls[q->opt_impl] : "?");
        vx_jw_name_key(w, "loss", &f);
        vx_jw_str(w, q->loss >= 0 && q->loss < VX_LOSS_COUNT_ ? losses[q->loss] : "?");
        vx_jw_name_key(w, "fsdp_version", &f);
        vx_jw_printf(w, "%d", q->fsdp_version);
    }
    vx_jw_name_key(w, "attention_kernel", &f);
    if (q->attention)
        vx_jw_str(w, q->attention);
    else
        vx_jw_puts(w, "null");
    vx_jw_name_key(w, "notes", &f);
    vx_jw_put(w, "[", 1);
    for (uint32_t i = 0; i < q->n_notes; i++) {
        if (i) vx_jw_put(w, ",", 1);
        vx_jw_str(w, q->notes[i]);
    }
    vx_jw_puts(w, "]}");
}
