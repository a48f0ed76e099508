/* The JSON plan (design.md §6 result fields, extended): every figure, its
 * band and provenance, the peak phase, the timeline, and an echo of every
 * setting with defaults resolved, so a plan is reproducible on its own. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/names.h"
#include "result/result.h"

/* A writer that counts what it would write past the end, like snprintf, so
 * one pass gives both the text and the size needed. */
typedef struct jw {
    char *buf;
    size_t cap, len;
} jw;

static void put(jw *w, const char *s, size_t n)
{
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

static void puts_(jw *w, const char *s) { put(w, s, strlen(s)); }

static void VX_PRINTF(2, 3) putf(jw *w, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void str(jw *w, const char *s)
{
    put(w, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(w, e, 2);
        } else if (c < 0x20) {
            putf(w, "\\u%04x", c);
        } else {
            put(w, (const char *)&c, 1);
        }
    }
    put(w, "\"", 1);
}

static void key(jw *w, const char *k, int *first)
{
    if (!*first) put(w, ",", 1);
    *first = 0;
    str(w, k);
    put(w, ":", 1);
}

static void u64(jw *w, uint64_t v) { putf(w, "%llu", (unsigned long long)v); }

static void categories(jw *w, const struct vramest_result *r, int dev)
{
    int f = 1;
    key(w, "categories", &f);
    put(w, "{", 1);
    int g = 1;
    for (int c = 0; c < VX_NCAT; c++) {
        key(w, vx_category_names[c], &g);
        u64(w, r->cat[dev][c]);
    }
    puts_(w, "},\"bands\":{");
    g = 1;
    for (int c = 0; c < VX_NCAT; c++) {
        key(w, vx_category_names[c], &g);
        putf(w, "[%llu,%llu]", (unsigned long long)r->cat_low[dev][c], (unsigned long long)r->cat_high[dev][c]);
    }
    puts_(w, "},\"provenance\":{");
    g = 1;
    for (int c = 0; c < VX_NCAT; c++) {
        key(w, vx_category_names[c], &g);
        str(w, vx_provenance_names[r->prov[dev][c] < VX_NPROV ? r->prov[dev][c] : 0]);
    }
    put(w, "}", 1);
}

static void headline(jw *w, const struct vramest_result *r, int v, int *first)
{
    key(w, vx_value_names[v], first);
    u64(w, r->val[v]);
    char k[48];
    snprintf(k, sizeof k, "%s_band", vx_value_names[v]);
    key(w, k, first);
    putf(w, "[%llu,%llu]", (unsigned long long)r->val_low[v], (unsigned long long)r->val_high[v]);
}

/* Echo every option of a table whose group is `group`, from `base`. */
static void echo(jw *w, const vx_option_def *rows, size_t n, const void *base, const char *group, int *first)
{
    key(w, group, first);
    put(w, "{", 1);
    int g = 1;
    for (size_t i = 0; i < n; i++) {
        const vx_option_def *d = &rows[i];
        if (strcmp(d->group, group) != 0) continue;
        key(w, d->name, &g);
        const char *p = (const char *)base + d->offset;
        int64_t iv;
        double fv;
        switch (d->type) {
        case VRAMEST_TYPE_F64:
            memcpy(&fv, p, sizeof fv);
            if (isfinite(fv))
                putf(w, "%.17g", fv);
            else
                puts_(w, "null");
            break;
        case VRAMEST_TYPE_STRING: str(w, p); break;
        case VRAMEST_TYPE_BOOL:
            memcpy(&iv, p, sizeof iv);
            puts_(w, iv ? "true" : "false");
            break;
        case VRAMEST_TYPE_ENUM: {
            memcpy(&iv, p, sizeof iv);
            const char *nm = vx_enum_name_of(d->enums, iv);
            if (nm)
                str(w, nm);
            else
                putf(w, "%lld", (long long)iv);
            break;
        }
        default:
            memcpy(&iv, p, sizeof iv);
            putf(w, "%lld", (long long)iv);
        }
    }
    put(w, "}", 1);
}

static void model_summary(jw *w, const struct vramest_result *r)
{
    const vx_shape *s = &r->shape;
    str(w, "model");
    puts_(w, ":{");
    int f = 1;
    key(w, "name", &f);
    str(w, r->model_name);
    key(w, "model_type", &f);
    const char *fam = vx_enum_name_of(vx_family_enum, s->family);
    str(w, fam ? fam : "");
    key(w, "source", &f);
    str(w, r->has_file_inv ? "file tensors" : "architecture");
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
        key(w, ints[i].name, &f);
        putf(w, "%lld", (long long)v);
    }
    key(w, "tie_word_embeddings", &f);
    puts_(w, s->tied ? "true" : "false");
    put(w, "}", 1);
}

static void write_plan(jw *w, const struct vramest_result *r)
{
    int f = 1;
    put(w, "{", 1);
    key(w, "libvramest", &f);
    str(w, VRAMEST_VERSION_STRING);
    put(w, ",", 1);
    model_summary(w, r);

    key(w, "params", &f);
    putf(w, "{\"total\":%llu,\"trainable\":%llu,\"active\":%llu}", (unsigned long long)r->val[VRAMEST_VAL_PARAMS_TOTAL],
         (unsigned long long)r->val[VRAMEST_VAL_PARAMS_TRAINABLE], (unsigned long long)r->val[VRAMEST_VAL_PARAMS_ACTIVE]);
    key(w, "checkpoint_bytes", &f);
    u64(w, r->val[VRAMEST_VAL_CHECKPOINT_BYTES]);

    key(w, "gpu", &f);
    put(w, "{", 1);
    categories(w, r, VRAMEST_DEV_GPU);
    int g = 0;
    headline(w, r, VRAMEST_VAL_PEAK_ALLOCATED, &g);
    headline(w, r, VRAMEST_VAL_PEAK_RESERVED, &g);
    headline(w, r, VRAMEST_VAL_DEVICE_TOTAL, &g);
    key(w, "peak_phase", &g);
    str(w, vx_phase_names[r->val[VRAMEST_VAL_PEAK_PHASE] < VX_NPHASE ? r->val[VRAMEST_VAL_PEAK_PHASE] : 0]);
    key(w, "capacity", &g);
    u64(w, r->device_bytes);
    key(w, "load_peak", &g);
    u64(w, r->val[VRAMEST_VAL_LOAD_PEAK]);
    put(w, "}", 1);

    key(w, "host", &f);
    put(w, "{", 1);
    categories(w, r, VRAMEST_DEV_HOST);
    g = 0;
    key(w, "total", &g);
    u64(w, r->val[VRAMEST_VAL_HOST_TOTAL]);
    put(w, "}", 1);
    key(w, "nvme", &f);
    put(w, "{", 1);
    categories(w, r, VRAMEST_DEV_NVME);
    g = 0;
    key(w, "total", &g);
    u64(w, r->val[VRAMEST_VAL_NVME_TOTAL]);
    put(w, "}", 1);

    key(w, "fits", &f);
    if (r->val_ok[VRAMEST_VAL_FITS]) {
        puts_(w, r->val[VRAMEST_VAL_FITS] ? "true" : "false");
        key(w, "margin_bytes", &f);
        uint64_t t = r->val[VRAMEST_VAL_DEVICE_TOTAL], c = r->device_bytes;
        if (c >= t)
            u64(w, c - t);
        else
            putf(w, "-%llu", (unsigned long long)(t - c));
    } else {
        puts_(w, "null");
    }

    if (r->val_ok[VRAMEST_VAL_KV_POOL_BYTES]) {
        key(w, "serving", &f);
        putf(w, "{\"kv_pool_bytes\":%llu,\"kv_blocks\":%llu,\"max_tokens\":%llu}",
             (unsigned long long)r->val[VRAMEST_VAL_KV_POOL_BYTES], (unsigned long long)r->val[VRAMEST_VAL_KV_BLOCKS],
             (unsigned long long)r->val[VRAMEST_VAL_MAX_TOKENS]);
    }

    key(w, "timeline", &f);
    put(w, "[", 1);
    for (uint32_t i = 0; i < r->n_timeline; i++) {
        const vx_timeline_point *p = &r->timeline[i];
        if (i) put(w, ",", 1);
        putf(w, "{\"phase\":\"%s\",\"layer\":%d,\"allocated\":%llu,\"label\":",
             vx_phase_names[p->phase < VX_NPHASE ? p->phase : 0], (int)p->layer, (unsigned long long)p->allocated);
        str(w, p->label);
        put(w, "}", 1);
    }
    put(w, "]", 1);

    if (r->n_ranks) {
        key(w, "ranks", &f);
        put(w, "[", 1);
        for (uint32_t i = 0; i < r->n_ranks; i++) {
            const vx_rank_group *rg = &r->ranks[i];
            if (i) put(w, ",", 1);
            puts_(w, "{\"label\":");
            str(w, rg->label);
            putf(w, ",\"ranks\":%lld,\"categories\":{", (long long)rg->ranks);
            int h = 1;
            for (int c = 0; c < VX_NCAT; c++) {
                key(w, vx_category_names[c], &h);
                u64(w, rg->cat[c]);
            }
            putf(w, "},\"peak_allocated\":%llu,\"peak_reserved\":%llu,\"device_total\":%llu}",
                 (unsigned long long)rg->peak_allocated, (unsigned long long)rg->peak_reserved,
                 (unsigned long long)rg->device_total);
        }
        put(w, "]", 1);
    }

    key(w, "warnings", &f);
    put(w, "[", 1);
    for (uint32_t i = 0; i < r->n_warn; i++) {
        if (i) put(w, ",", 1);
        str(w, r->warn[i]);
    }
    put(w, "]", 1);

    key(w, "settings", &f);
    put(w, "{", 1);
    g = 1;
    echo(w, vx_precision_options, vx_precision_option_count, &r->prec, "precision", &g);
    static const char *groups[] = {"workload", "parallel", "device", "runtime"};
    for (size_t i = 0; i < VX_ARRAY_LEN(groups); i++)
        echo(w, vx_config_options, vx_config_option_count, &r->cfg, groups[i], &g);
    key(w, "cuda_context_bytes", &g);
    u64(w, r->cuda_context_bytes);
    put(w, "}", 1);
    puts_(w, "}\n");
}

VRAMEST_API int vramest_result_json(const vramest_result *res, char *buf, size_t cap, size_t *out_needed)
{
    if (!res || res->magic != VX_MAGIC_RESULT)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_json: not a vramest_result handle");
    if (!buf && cap) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_json: buf is NULL with cap %zu", cap);
    jw w = {buf, cap, 0};
    write_plan(&w, res);
    size_t need = w.len + 1;
    if (out_needed) *out_needed = need;
    if (need > cap) {
        if (cap) buf[0] = '\0';
        return vx_fail(VRAMEST_E_BUFFER_TOO_SMALL, "vramest_result_json: %zu bytes needed, buffer has %zu", need, cap);
    }
    buf[w.len] = '\0';
    return VRAMEST_OK;
}
