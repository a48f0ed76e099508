/* The JSON plan (design.md §6 result fields, extended): every figure, its
 * band and provenance, the peak phase, the timeline, and an echo of every
 * setting with defaults resolved, so a plan is reproducible on its own. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result/names.h"
#include "common/json_writer.h"
#include "result/result.h"

/* `,"name":` of each category, from the names' own list. */
#define CAT_KEY(n) {",\"" #n "\":", sizeof(",\"" #n "\":") - 1}
static const struct {
    const char *s;
    size_t n;
} cat_keys[VX_NCAT] = {VX_CATEGORY_LIST(CAT_KEY, VX_COMMA)};

/* A device nothing was added to (the host and NVMe of most jobs). */
#define ZERO_CAT(n) "\"" #n "\":0"
#define ZERO_BAND(n) "\"" #n "\":[0,0]"
#define ZERO_PROV(n) "\"" #n "\":\"" VX_PROV_NONE_NAME "\""
static const char zero_device[] = "\"categories\":{" VX_CATEGORY_LIST(ZERO_CAT, ",") "},\"bands\":{" VX_CATEGORY_LIST(
    ZERO_BAND, ",") "},\"provenance\":{" VX_CATEGORY_LIST(ZERO_PROV, ",") "}";

static void cat_key(vx_jw *w, int c)
{
    vx_jw_put(w, cat_keys[c].s + !c, cat_keys[c].n - !c);
}

static void categories(vx_jw *w, const struct vramest_result *r, int dev)
{
    int zero = 1;
    for (int c = 0; c < VX_NCAT; c++)
        zero &= !(r->cat[dev][c] | r->cat_low[dev][c] | r->cat_high[dev][c] | r->prov[dev][c]);
    if (zero) {
        vx_jw_put(w, zero_device, sizeof zero_device - 1);
        return;
    }
    vx_jw_puts(w, "\"categories\":{");
    for (int c = 0; c < VX_NCAT; c++) {
        cat_key(w, c);
        vx_jw_u64(w, r->cat[dev][c]);
    }
    vx_jw_puts(w, "},\"bands\":{");
    for (int c = 0; c < VX_NCAT; c++) {
        cat_key(w, c);
        vx_jw_pair(w, r->cat_low[dev][c], r->cat_high[dev][c]);
    }
    vx_jw_puts(w, "},\"provenance\":{");
    for (int c = 0; c < VX_NCAT; c++) {
        cat_key(w, c);
        vx_jw_name(w, vx_provenance_names[r->prov[dev][c] < VX_NPROV ? r->prov[dev][c] : 0]);
    }
    vx_jw_put(w, "}", 1);
}

static void headline(vx_jw *w, const struct vramest_result *r, int v, int *first)
{
    vx_jw_name_key(w, vx_value_names[v], first);
    vx_jw_u64(w, r->val[v]);
    vx_jw_puts(w, ",\"");
    vx_jw_puts(w, vx_value_names[v]);
    vx_jw_puts(w, "_band\":");
    vx_jw_pair(w, r->val_low[v], r->val_high[v]);
}

static void model_summary(vx_jw *w, const struct vramest_result *r)
{
    const vx_shape *s = &r->shape;
    vx_jw_str(w, "model");
    vx_jw_puts(w, ":{");
    int f = 1;
    vx_jw_name_key(w, "name", &f);
    vx_jw_str(w, r->model_name);
    vx_jw_name_key(w, "model_type", &f);
    const char *fam = vx_enum_name_of(vx_family_enum, s->family);
    vx_jw_str(w, fam ? fam : "");
    vx_jw_name_key(w, "source", &f);
    vx_jw_str(w, r->has_file_inv == 2 ? "file tensors and architecture"
                 : r->has_file_inv    ? "file tensors"
                                      : "architecture");
    static const struct {
        const char *name;
        size_t off;
    } ints[] = {
        {"num_hidden_layers", offsetof(vx_shape, layers)},    {"encoder_layers", offsetof(vx_shape, enc_layers)},
        {"hidden_size", offsetof(vx_shape, hidden)},          {"num_attention_heads", offsetof(vx_shape, heads)},
        {"num_key_value_heads", offsetof(vx_shape, kv_heads)}, {"head_dim", offsetof(vx_shape, head_dim)},
        {"intermediate_size", offsetof(vx_shape, ffn)},       {"vocab_size", offsetof(vx_shape, vocab)},
        {"max_position_embeddings", offsetof(vx_shape, max_pos)}, {"num_local_experts", offsetof(vx_shape, experts)},
        {"num_experts_per_tok", offsetof(vx_shape, experts_per_tok)},
    };
    for (size_t i = 0; i < VX_ARRAY_LEN(ints); i++) {
        int64_t v;
        memcpy(&v, (const char *)s + ints[i].off, sizeof v);
        if (!v && i != 0) continue;
        vx_jw_name_key(w, ints[i].name, &f);
        vx_jw_i64(w, v);
    }
    vx_jw_name_key(w, "tie_word_embeddings", &f);
    vx_jw_puts(w, s->tied ? "true" : "false");
    vx_jw_put(w, "}", 1);
}

/* "host" / "nvme": their categories and total. */
static void offload_device(vx_jw *w, const struct vramest_result *r, int dev, int total, int *first)
{
    vx_jw_name_key(w, vx_device_names[dev], first);
    vx_jw_put(w, "{", 1);
    categories(w, r, dev);
    int g = 0;
    vx_jw_name_key(w, "total", &g);
    vx_jw_u64(w, r->val[total]);
    vx_jw_put(w, "}", 1);
}

static void write_plan(vx_jw *w, const struct vramest_result *r, const vx_fix *fix, const char *extra)
{
    int f = 1;
    vx_jw_put(w, "{", 1);
    vx_jw_name_key(w, "libvramest", &f);
    vx_jw_str(w, VRAMEST_VERSION_STRING);
    vx_jw_put(w, ",", 1);
    model_summary(w, r);

    vx_jw_name_key(w, "params", &f);
    vx_jw_puts(w, "{\"total\":");
    vx_jw_u64(w, r->val[VRAMEST_VAL_PARAMS_TOTAL]);
    vx_jw_puts(w, ",\"trainable\":");
    vx_jw_u64(w, r->val[VRAMEST_VAL_PARAMS_TRAINABLE]);
    vx_jw_puts(w, ",\"active\":");
    vx_jw_u64(w, r->val[VRAMEST_VAL_PARAMS_ACTIVE]);
    vx_jw_put(w, "}", 1);
    vx_jw_name_key(w, "checkpoint_bytes", &f);
    vx_jw_u64(w, r->val[VRAMEST_VAL_CHECKPOINT_BYTES]);

    vx_jw_name_key(w, "gpu", &f);
    vx_jw_put(w, "{", 1);
    categories(w, r, VRAMEST_DEV_GPU);
    int g = 0;
    headline(w, r, VRAMEST_VAL_PEAK_ALLOCATED, &g);
    headline(w, r, VRAMEST_VAL_PEAK_RESERVED, &g);
    headline(w, r, VRAMEST_VAL_DEVICE_TOTAL, &g);
    vx_jw_name_key(w, "peak_phase", &g);
    vx_jw_str(w, vx_phase_names[r->val[VRAMEST_VAL_PEAK_PHASE] < VX_NPHASE ? r->val[VRAMEST_VAL_PEAK_PHASE] : 0]);
    vx_jw_name_key(w, "capacity", &g);
    vx_jw_u64(w, r->device_bytes);
    vx_jw_name_key(w, "load_peak", &g);
    vx_jw_u64(w, r->val[VRAMEST_VAL_LOAD_PEAK]);
    const vx_band_basis *b = vx_band_basis_of(r->band_kind);
    vx_jw_name_key(w, "band_basis", &g);
    vx_jw_puts(w, "{\"kind\":");
    vx_jw_name(w, b->kind);
    vx_jw_puts(w, ",\"measured_runs\":");
    vx_jw_i64(w, b->runs);
    vx_jw_puts(w, ",\"low\":");
    vx_jw_fixed(w, b->low, 3);
    vx_jw_puts(w, ",\"high\":");
    vx_jw_fixed(w, b->high, 3);
    vx_jw_puts(w, ",\"fragmentation\":");
    if (b->frag_runs) {
        vx_jw_put(w, "[", 1);
        vx_jw_fixed(w, b->frag_low, 3);
        vx_jw_put(w, ",", 1);
        vx_jw_fixed(w, b->frag_high, 3);
        vx_jw_puts(w, "],\"fragmentation_runs\":");
        vx_jw_i64(w, b->frag_runs);
        vx_jw_put(w, "}", 1);
    } else {
        vx_jw_puts(w, "null,\"fragmentation_runs\":0}");
    }
    vx_jw_put(w, "}", 1);

    offload_device(w, r, VRAMEST_DEV_HOST, VRAMEST_VAL_HOST_TOTAL, &f);
    offload_device(w, r, VRAMEST_DEV_NVME, VRAMEST_VAL_NVME_TOTAL, &f);

    vx_jw_name_key(w, "fits", &f);
    if (r->val_ok[VRAMEST_VAL_FITS]) {
        vx_jw_puts(w, r->val[VRAMEST_VAL_FITS] ? "true" : "false");
        /* The margin is against the usable memory: capacity less headroom. */
        vx_jw_name_key(w, "margin_bytes", &f);
        uint64_t t = r->val[VRAMEST_VAL_DEVICE_TOTAL];
        uint64_t c = r->device_bytes > r->headroom_bytes ? r->device_bytes - r->headroom_bytes : 0;
        if (c >= t)
            vx_jw_u64(w, c - t);
        else
            vx_jw_printf(w, "-%llu", (unsigned long long)(t - c));
    } else {
        vx_jw_puts(w, "null");
    }
    vx_jw_name_key(w, "headroom_bytes", &f);
    vx_jw_u64(w, r->headroom_bytes);
    vx_jw_name_key(w, "verdict", &f);
    if (r->val_ok[VRAMEST_VAL_VERDICT]) {
        vx_jw_str(w, vx_verdict_names[r->val[VRAMEST_VAL_VERDICT] < 3 ? r->val[VRAMEST_VAL_VERDICT] : 0]);
        if (r->val[VRAMEST_VAL_VERDICT] != VRAMEST_VERDICT_FITS) {
            vx_jw_put(w, ",", 1);
            vx_result_why(w, r, fix);
        }
    } else {
        vx_jw_puts(w, "null");
    }

    /* The serving engines' own figures, each where it applies. */
    static const int serving_vals[] = {VRAMEST_VAL_KV_POOL_BYTES,   VRAMEST_VAL_KV_BLOCKS,        VRAMEST_VAL_MAX_TOKENS,
                                       VRAMEST_VAL_MAX_CONCURRENCY, VRAMEST_VAL_CUDA_GRAPH_BYTES, VRAMEST_VAL_NON_TORCH_BYTES,
                                       VRAMEST_VAL_GPU_LAYERS,      VRAMEST_VAL_GPU_LAYERS_FIT};
    bool sfirst = true;
    for (size_t i = 0; i < VX_ARRAY_LEN(serving_vals); i++) {
        int v = serving_vals[i];
        if (!r->val_ok[v]) continue;
        if (sfirst) {
            vx_jw_name_key(w, "serving", &f);
            vx_jw_put(w, "{", 1);
        }
        vx_jw_printf(w, "%s\"%s\":%llu", sfirst ? "" : ",", vx_value_names[v], (unsigned long long)r->val[v]);
        sfirst = false;
    }
    if (r->n_engine_figs) {
        if (sfirst) {
            vx_jw_name_key(w, "serving", &f);
            vx_jw_put(w, "{", 1);
        }
        /* Figures of the engine's own estimate (Ollama's scheduler), under its name. */
        vx_jw_printf(w, "%s\"%s\":{", sfirst ? "" : ",", r->engine_name);
        for (uint32_t i = 0; i < r->n_engine_figs; i++)
            vx_jw_printf(w, "%s\"%s\":%llu", i ? "," : "", r->engine_figs[i].name,
                         (unsigned long long)r->engine_figs[i].value);
        vx_jw_put(w, "}", 1);
        sfirst = false;
    }
    if (!sfirst) vx_jw_put(w, "}", 1);
    /* A model with recurrent layers: one sequence's state (not per token). */
    if (r->val_ok[VRAMEST_VAL_STATE_PER_SEQ] && r->val[VRAMEST_VAL_STATE_PER_SEQ]) {
        vx_jw_name_key(w, vx_value_names[VRAMEST_VAL_STATE_PER_SEQ], &f);
        vx_jw_u64(w, r->val[VRAMEST_VAL_STATE_PER_SEQ]);
    }

    if (r->rl.on) vx_result_rl_json(w, r, &f);

    vx_jw_name_key(w, "timeline", &f);
    vx_jw_put(w, "[", 1);
    for (uint32_t i = 0; i < r->n_timeline; i++) {
        const vx_timeline_point *p = &r->timeline[i];
        if (i) vx_jw_put(w, ",", 1);
        vx_jw_puts(w, "{\"phase\":");
        vx_jw_name(w, vx_phase_names[p->phase < VX_NPHASE ? p->phase : 0]);
        vx_jw_puts(w, ",\"layer\":");
        vx_jw_i64(w, p->layer);
        vx_jw_puts(w, ",\"allocated\":");
        vx_jw_u64(w, p->allocated);
        vx_jw_puts(w, ",\"label\":");
        vx_jw_str(w, p->label);
        vx_jw_put(w, "}", 1);
    }
    vx_jw_put(w, "]", 1);

    if (r->n_ranks) {
        vx_jw_name_key(w, "ranks", &f);
        vx_jw_put(w, "[", 1);
        for (uint32_t i = 0; i < r->n_ranks; i++) {
            const vx_rank_group *rg = &r->ranks[i];
            if (i) vx_jw_put(w, ",", 1);
            vx_jw_puts(w, "{\"label\":");
            vx_jw_str(w, rg->label);
            vx_jw_printf(w, ",\"ranks\":%lld,\"categories\":{", (long long)rg->ranks);
            int h = 1;
            for (int c = 0; c < VX_NCAT; c++) {
                vx_jw_name_key(w, vx_category_names[c], &h);
                vx_jw_u64(w, rg->cat[c]);
            }
            vx_jw_printf(w, "},\"peak_allocated\":%llu,\"peak_reserved\":%llu,\"device_total\":%llu}",
                 (unsigned long long)rg->peak_allocated, (unsigned long long)rg->peak_reserved,
                 (unsigned long long)rg->device_total);
        }
        vx_jw_put(w, "]", 1);
    }

    vx_jw_name_key(w, "warnings", &f);
    vx_jw_put(w, "[", 1);
    for (uint32_t i = 0; i < r->n_warn; i++) {
        if (i) vx_jw_put(w, ",", 1);
        vx_jw_str(w, r->warn[i]);
    }
    vx_jw_put(w, "]", 1);

    vx_jw_name_key(w, "resolved", &f);
    vx_result_resolved_json(w, r);

    vx_jw_name_key(w, "settings", &f);
    vx_result_settings_json(w, r);
    if (extra && *extra) {
        vx_jw_put(w, ",", 1);
        vx_jw_puts(w, extra);
    }
    vx_jw_puts(w, "}\n");
}

int vx_result_json_extra(const struct vramest_result *res, const vx_fix *fix, const char *extra, char *buf,
                         size_t cap, size_t *out_needed)
{
    if (!res || res->magic != VX_MAGIC_RESULT)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_json: not a vramest_result handle");
    if (!buf && cap) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_json: buf is NULL with cap %zu", cap);
    vx_jw w = {buf, cap, 0};
    write_plan(&w, res, fix, extra);
    return vx_jw_finish(&w, out_needed, "vramest_result_json");
}

VRAMEST_API int vramest_result_json(const vramest_result *res, char *buf, size_t cap, size_t *out_needed)
{
    return vx_result_json_extra(res, NULL, NULL, buf, cap, out_needed);
}
