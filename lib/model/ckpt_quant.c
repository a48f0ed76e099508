/* The checkpoint's storage from config.json's quantization_config (see
 * ckpt_quant.h). Layouts, per quantized nn.Linear of out x in = N x K:
 * - mxfp4 (transformers Mxfp4Config, gpt-oss): only the routed experts;
 *   `*_blocks` u8 (N, K/32, 16) + `*_scales` u8 (N, K/32): 17 bytes per 32
 *   values (the ggml mxfp4 block); everything else in the float dtype.
 * - fp8 (FineGrainedFP8Config, DeepSeek-V3/V3.2, GLM-5-FP8, MiniMax-M2):
 *   e4m3 weights + fp32 weight_scale_inv of ceil(N/b0) x ceil(K/b1)
 *   blocks (weight_block_size); fbgemm_fp8: one fp32 scale per row.
 * - compressed-tensors (llm-compressor): float 8-bit (FP8) with a scale
 *   per tensor, row or block in the model dtype; int 4-bit packed 8 per
 *   int32 (weight_packed) or int 8-bit, a scale per `group_size` of a row
 *   in the model dtype and an int64 weight_shape; float 4-bit (NVFP4,
 *   nvfp4-pack-quantized): packed u8 codes, an fp8 scale per 16, an fp32
 *   global scale for the weight and one for the input.
 * - modelopt (NVIDIA ModelOpt): FP8 with one fp32 weight and input scale
 *   per tensor; NVFP4 as above (weight_scale_2, input_scale).
 * Modules the config keeps (modules_to_not_convert, ignore) are matched
 * by the role of the module they name, whatever the layer index; the
 * token embedding, the LM head and the routers always stay unquantized
 * (every scheme above keeps them). Sources: huggingface/transformers
 * src/transformers/quantizers/quantizer_{mxfp4,finegrained_fp8,
 * fbgemm_fp8,compressed_tensors,modelopt}.py; the checkpoints' totals
 * reconciled in /work/research/configs/NOTES.md ("Checkpoint realities"). */
#include <stdio.h>
#include <string.h>

#include "model/ckpt_quant.h"
#include "common/dtype.h"
#include "model/model.h"

#define BIT(r) (1ull << (r))
#define ATTN_ROLES (BIT(VX_ROLE_ATTN_Q) | BIT(VX_ROLE_ATTN_K) | BIT(VX_ROLE_ATTN_V) | BIT(VX_ROLE_ATTN_QKV) | \
                    BIT(VX_ROLE_ATTN_O) | BIT(VX_ROLE_ATTN_Q_A) | BIT(VX_ROLE_ATTN_Q_B) | BIT(VX_ROLE_ATTN_KV_A) | \
                    BIT(VX_ROLE_ATTN_KV_B) | BIT(VX_ROLE_OTHER))
#define EXPERT_ROLES (BIT(VX_ROLE_EXPERT_GATE) | BIT(VX_ROLE_EXPERT_UP) | BIT(VX_ROLE_EXPERT_DOWN))
#define SHARED_ROLES (BIT(VX_ROLE_SHARED_GATE) | BIT(VX_ROLE_SHARED_UP) | BIT(VX_ROLE_SHARED_DOWN))
#define MLP_ROLES (BIT(VX_ROLE_MLP_GATE) | BIT(VX_ROLE_MLP_UP) | BIT(VX_ROLE_MLP_GATE_UP) | BIT(VX_ROLE_MLP_DOWN) | \
                   BIT(VX_ROLE_ROUTER) | EXPERT_ROLES | SHARED_ROLES)

static bool in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list)) return true;
    return false;
}

/* The roles a module name of a keep list covers; *layered when it names
 * one layer. Vision towers, projectors and MTP modules cover none here. */
static uint64_t roles_of_entry(const char *entry, bool *layered)
{
    static const char *const side[] = {"vision_tower", "vision_model", "visual", "multi_modal_projector",
                                       "embed_vision", "vision", "audio_tower", "mm_projector", "eh_proj",
                                       "enorm", "hnorm", "shared_head", NULL};
    static const char *const skip[] = {"model", "language_model", "layers", "layer", "h", "weight", "bias", "", NULL};
    char buf[256], comp[8][64];
    int n = 0;
    *layered = false;
    if (!strncmp(entry, "re:", 3)) entry += 3;
    /* regular-expression and glob characters only separate names here */
    size_t k = 0;
    for (const char *p = entry; *p && k + 1 < sizeof buf; p++) buf[k++] = strchr("^$\\()[]?+*|", *p) ? '.' : *p;
    buf[k] = '\0';
    for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) {
        bool digits = *tok != '\0';
        for (const char *c = tok; *c; c++) digits &= *c >= '0' && *c <= '9';
        if (digits) {
            *layered = true;
            continue;
        }
        if (in(tok, side)) return 0;
        if (in(tok, skip)) continue;
        if (n < 8) snprintf(comp[n++], sizeof comp[0], "%s", tok);
    }
    if (!n) return 0;
    const char *last = comp[n - 1], *parent = n > 1 ? comp[n - 2] : "";
    static const char *const attn[] = {"self_attn", "attention", "attn", "self_attention", NULL};
    static const char *const mlp[] = {"mlp", "feed_forward", "ffn", "block_sparse_moe", "moe", NULL};
    static const char *const shared[] = {"shared_expert", "shared_experts", "shared_mlp", NULL};
    static const char *const experts[] = {"experts", NULL};
    if (in(last, attn)) return ATTN_ROLES;
    if (in(last, mlp)) return MLP_ROLES;
    if (in(last, shared)) return SHARED_ROLES;
    if (in(last, experts)) return EXPERT_ROLES;
    /* the DSA indexer: wq_b and wk are its matrices (role other), the
     * head weighting (weights_proj, GLM-5-FP8's indexers_proj) a router */
    if (!strcmp(last, "indexer")) return BIT(VX_ROLE_OTHER) | BIT(VX_ROLE_ROUTER);
    if (!strcmp(last, "weights_proj") || !strcmp(last, "indexers_proj")) return BIT(VX_ROLE_ROUTER);
    if (!strcmp(parent, "indexer")) return !strcmp(last, "wq_b") || !strcmp(last, "wk") ? BIT(VX_ROLE_OTHER) : 0;
    if (!strcmp(last, "gate") || !strcmp(last, "router") || !strcmp(last, "e_score_correction_bias"))
        return BIT(VX_ROLE_ROUTER);
    if (!strcmp(last, "lm_head") || !strcmp(last, "output_layer") || !strcmp(last, "embed_out"))
        return BIT(VX_ROLE_LM_HEAD);
    if (!strcmp(last, "embed_tokens") || !strcmp(last, "wte") || !strcmp(last, "word_embeddings"))
        return BIT(VX_ROLE_EMBED);
    static const struct {
        const char *leaf;
        int role;
    } leaves[] = {{"q_proj", VX_ROLE_ATTN_Q},          {"k_proj", VX_ROLE_ATTN_K},
                  {"v_proj", VX_ROLE_ATTN_V},          {"o_proj", VX_ROLE_ATTN_O},
                  {"out_proj", VX_ROLE_ATTN_O},        {"qkv_proj", VX_ROLE_ATTN_QKV},
                  {"query_key_value", VX_ROLE_ATTN_QKV}, {"Wqkv", VX_ROLE_ATTN_QKV},
                  {"q_a_proj", VX_ROLE_ATTN_Q_A},      {"q_b_proj", VX_ROLE_ATTN_Q_B},
                  {"kv_a_proj_with_mqa", VX_ROLE_ATTN_KV_A}, {"kv_b_proj", VX_ROLE_ATTN_KV_B}};
    for (size_t i = 0; i < VX_ARRAY_LEN(leaves); i++)
        if (!strcmp(last, leaves[i].leaf)) return BIT(leaves[i].role);
    bool ex = in(parent, experts), sh = in(parent, shared);
    if (!strcmp(last, "gate_proj") || !strcmp(last, "w1"))
        return BIT(ex ? VX_ROLE_EXPERT_GATE : sh ? VX_ROLE_SHARED_GATE : VX_ROLE_MLP_GATE);
    if (!strcmp(last, "up_proj") || !strcmp(last, "w3"))
        return BIT(ex ? VX_ROLE_EXPERT_UP : sh ? VX_ROLE_SHARED_UP : VX_ROLE_MLP_UP);
    if (!strcmp(last, "down_proj") || !strcmp(last, "w2"))
        return BIT(ex ? VX_ROLE_EXPERT_DOWN : sh ? VX_ROLE_SHARED_DOWN : VX_ROLE_MLP_DOWN);
    if (!strcmp(last, "gate_up_proj"))
        return ex ? BIT(VX_ROLE_EXPERT_GATE) | BIT(VX_ROLE_EXPERT_UP)
                  : sh ? BIT(VX_ROLE_SHARED_GATE) | BIT(VX_ROLE_SHARED_UP) : BIT(VX_ROLE_MLP_GATE_UP);
    return 0;
}

/* A value of object `o` (NULL when o is NULL or lacks the key). */
static const vx_jv *get(const vx_jdoc *d, const vx_jv *o, const char *key)
{
    return o && o->type == VX_J_OBJ ? vx_jget(d, o, key) : NULL;
}

static int64_t get_int(const vx_jdoc *d, const vx_jv *o, const char *key, int64_t dflt)
{
    const vx_jv *v = get(d, o, key);
    int64_t x;
    return v && vx_jnum_i64(v, &x) == VRAMEST_OK ? x : dflt;
}

/* A string, "" when absent, not a string or holding U+0000 (no method or
 * module name has one). */
static const char *str_of(const vx_jdoc *d, const vx_jv *v)
{
    return v && v->type == VX_J_STR && !(v->flags & VX_JF_NUL) ? vx_jstr(d, v) : "";
}

static const char *get_str(const vx_jdoc *d, const vx_jv *o, const char *key)
{
    return str_of(d, get(d, o, key));
}

/* A keep list (modules_to_not_convert, ignore, exclude_modules). */
static int keep_list(const vx_jdoc *d, const vx_jv *qc, const char *key, vx_ckpt_quant *q)
{
    const vx_jv *v = get(d, qc, key);
    if (!v || v->type == VX_J_NULL) return VRAMEST_OK;
    if (v->type != VX_J_ARR)
        return vx_fail(VRAMEST_E_TYPE, "config.json: quantization_config.%s: expected a list of module names", key);
    uint64_t all = 0, some = 0;
    for (const vx_jv *e = vx_jfirst(v); e < vx_jend(v); e = vx_jskip(e)) {
        const char *name = str_of(d, e);
        if (!name[0]) continue;
        bool layered;
        uint64_t r = roles_of_entry(name, &layered);
        if (layered) some |= r;
        else all |= r;
    }
    q->keep |= all | some;
    /* a module named layer by layer: kept everywhere, unless no layer
     * index says otherwise (a partial list is noted) */
    q->partly |= some & ~all;
    return VRAMEST_OK;
}

/* [rows, cols] of a block: VRAMEST_OK with both set, or 1 when `v` is no
 * two-integer list. */
static int pair_of(const vx_jv *v, int64_t *rows, int64_t *cols)
{
    if (!v || v->type != VX_J_ARR || v->u.c.count != 2) return 1;
    const vx_jv *e = vx_jfirst(v);
    if (vx_jnum_i64(e, rows) != VRAMEST_OK || vx_jnum_i64(vx_jskip(e), cols) != VRAMEST_OK) return 1;
    return VRAMEST_OK;
}

/* The weights scheme of the first config group (compressed-tensors,
 * modelopt's mirror of it). */
static const vx_jv *first_weights(const vx_jdoc *d, const vx_jv *qc)
{
    const vx_jv *groups = get(d, qc, "config_groups");
    if (!groups || groups->type != VX_J_OBJ) return NULL;
    for (const vx_jv *k = vx_jfirst(groups); k < vx_jend(groups); k = vx_jskip(k + 1)) {
        const vx_jv *w = get(d, k + 1, "weights");
        if (w && w->type == VX_J_OBJ) return w;
    }
    return NULL;
}

static int compressed_tensors(const vx_jdoc *d, const vx_jv *qc, vx_ckpt_quant *q)
{
    const vx_jv *w = first_weights(d, qc);
    if (!w) return VRAMEST_OK;
    int64_t bits = get_int(d, w, "num_bits", 0), gs = get_int(d, w, "group_size", 0);
    const char *type = get_str(d, w, "type"), *strategy = get_str(d, w, "strategy");
    const vx_jv *sym = get(d, w, "symmetric");
    q->asym = sym && sym->type == VX_J_FALSE;
    if (!strcmp(type, "float") && bits == 8) {
        q->method = VX_CQ_FP8;
        if (!strcmp(strategy, "tensor")) q->block_rows = q->block_cols = -1;
        if (!strcmp(strategy, "block") && pair_of(get(d, w, "block_structure"), &q->block_rows, &q->block_cols))
            q->block_rows = q->block_cols = 0;
    } else if (!strcmp(type, "float") && bits == 4) {
        q->method = VX_CQ_NVFP4;
        q->block_cols = gs > 0 ? gs : 16;
    } else if (!strcmp(type, "int") && (bits == 4 || bits == 8)) {
        q->method = VX_CQ_INT;
        q->bits = (uint8_t)bits;
        q->block_cols = !strcmp(strategy, "group") ? gs : 0;
    } else {
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "config.json: quantization_config: %lld-bit '%.40s' weights of compressed-tensors are not "
                       "modelled (float 8 / 4-bit, int 4 / 8-bit are)",
                       (long long)bits, type);
    }
    if ((q->block_rows == 0 && q->block_cols < 0) || q->block_cols > (1 << 24) || q->block_rows > (1 << 24))
        return vx_fail(VRAMEST_E_INVALID_MODEL, "config.json: quantization_config: group size %lld is not valid",
                       (long long)q->block_cols);
    return keep_list(d, qc, "ignore", q);
}

int vx_ckpt_quant_parse(const vx_jdoc *d, const vx_jv *qc, vx_ckpt_quant *q)
{
    memset(q, 0, sizeof *q);
    if (!qc || qc->type != VX_J_OBJ) return VRAMEST_OK;
    const char *m = get_str(d, qc, "quant_method");
    snprintf(q->name, sizeof q->name, "%s", m);
    q->keep = BIT(VX_ROLE_EMBED) | BIT(VX_ROLE_LM_HEAD) | BIT(VX_ROLE_ROUTER);
    q->scale_dtype = VRAMEST_DTYPE_FP32;
    int rc;
    if (!strcmp(m, "mxfp4")) {
        q->method = VX_CQ_MXFP4;
        q->experts_only = 1;
        return keep_list(d, qc, "modules_to_not_convert", q);
    }
    if (!strcmp(m, "fp8") || !strcmp(m, "fbgemm_fp8")) {
        q->method = VX_CQ_FP8;
        const vx_jv *bs = get(d, qc, "weight_block_size");
        if (bs && bs->type == VX_J_ARR) {
            if (pair_of(bs, &q->block_rows, &q->block_cols))
                return vx_fail(VRAMEST_E_INVALID_MODEL,
                               "config.json: quantization_config.weight_block_size: expected [rows, cols]");
            if (q->block_rows <= 0 || q->block_cols <= 0 || q->block_rows > (1 << 24) || q->block_cols > (1 << 24))
                return vx_fail(VRAMEST_E_INVALID_MODEL,
                               "config.json: quantization_config.weight_block_size: %lld x %lld is not a block",
                               (long long)q->block_rows, (long long)q->block_cols);
        }
        return keep_list(d, qc, "modules_to_not_convert", q);
    }
    if (!strcmp(m, "compressed-tensors")) {
        q->scale_dtype = VRAMEST_DTYPE_AUTO;
        return compressed_tensors(d, qc, q);
    }
    if (!strcmp(m, "modelopt")) {
        const char *algo = get_str(d, qc, "quant_algo");
        if (!strcmp(algo, "FP8")) {
            q->method = VX_CQ_FP8;
            q->block_rows = q->block_cols = -1;
        } else if (!strcmp(algo, "NVFP4")) {
            int64_t gs = get_int(d, first_weights(d, qc), "group_size", 16);
            q->method = VX_CQ_NVFP4;
            q->block_cols = gs > 0 ? gs : 16;
        } else {
            return vx_fail(VRAMEST_E_UNSUPPORTED,
                           "config.json: quantization_config: modelopt quant_algo '%.40s' is not modelled (FP8 and "
                           "NVFP4 are)",
                           algo);
        }
        if ((rc = keep_list(d, qc, "ignore", q))) return rc;
        return keep_list(d, qc, "exclude_modules", q);
    }
    return VRAMEST_OK;
}

bool vx_ckpt_quant_covers(const vx_ckpt_quant *q, const vx_tensor *t)
{
    if (q->method == VX_CQ_NONE || t->kind != VX_TK_MATRIX || !t->trainable_default || t->rows <= 0 || t->cols <= 1)
        return false;
    if (t->part != VX_PART_DECODER && t->part != VX_PART_ENCODER) return false;
    if (q->experts_only && !t->expert) return false;
    return t->role < 64 && !((q->keep >> t->role) & 1u);
}

/* The scale tensors of one quantized N x K group: up to 3 kinds. */
typedef struct aux {
    int64_t rows, cols;
    int dtype;
} aux;

static int aux_of(const vx_ckpt_quant *q, int fdt, int64_t N, int64_t K, aux out[3])
{
    int sd = q->scale_dtype != VRAMEST_DTYPE_AUTO ? q->scale_dtype : fdt;
    int64_t br = q->block_rows, bc = q->block_cols;
    switch (q->method) {
    case VX_CQ_FP8:
        if (br < 0) return out[0] = (aux){1, 1, sd}, 1;
        if (br == 0) return out[0] = (aux){N, 1, sd}, 1;
        return out[0] = (aux){(N + br - 1) / br, (K + bc - 1) / bc, sd}, 1;
    case VX_CQ_INT:
        out[0] = (aux){N, bc > 0 ? (K + bc - 1) / bc : 1, sd};
        out[1] = (aux){2, 1, VRAMEST_DTYPE_INT64}; /* weight_shape */
        return 2;
    case VX_CQ_NVFP4:
        out[0] = (aux){N, (K + bc - 1) / bc, VRAMEST_DTYPE_FP8_E4M3};
        out[1] = (aux){2, 1, VRAMEST_DTYPE_FP32}; /* the weight's and the input's global scales */
        return 2;
    default: return 0;
    }
}

int vx_ckpt_quant_dtype(const vx_ckpt_quant *q)
{
    switch (q->method) {
    case VX_CQ_MXFP4: return 100 + 39; /* ggml mxfp4: 32 codes + one E8M0 scale in 17 bytes */
    case VX_CQ_FP8: return VRAMEST_DTYPE_FP8_E4M3;
    case VX_CQ_INT: return q->bits == 8 ? VRAMEST_DTYPE_INT8 : VRAMEST_DTYPE_INT4;
    case VX_CQ_NVFP4: return VRAMEST_DTYPE_INT4; /* two codes per byte; its scales are aux */
    default: return VRAMEST_DTYPE_AUTO;
    }
}

uint64_t vx_ckpt_quant_group_bytes(const vx_ckpt_quant *q, int fdt, const vx_tensor *t, bool quantized,
                                   uint64_t *scale_elems)
{
    uint64_t copies = vx_sat_mul((uint64_t)(t->n_layers > 0 ? t->n_layers : 1),
                                 (uint64_t)(t->n_per_layer > 0 ? t->n_per_layer : 1));
    uint64_t elems = vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
    *scale_elems = 0;
    if (!quantized) {
        int d = t->dtype != VRAMEST_DTYPE_AUTO ? t->dtype : fdt;
        return vx_sat_mul(copies, vx_dtype_bytes(d, elems));
    }
    uint64_t b = vx_dtype_bytes(vx_ckpt_quant_dtype(q), elems), se = 0;
    aux a[3];
    int na = aux_of(q, fdt, t->rows, t->cols, a);
    for (int i = 0; i < na; i++) {
        uint64_t e = vx_sat_mul((uint64_t)a[i].rows, (uint64_t)a[i].cols);
        b = vx_sat_add(b, vx_dtype_bytes(a[i].dtype, e));
        se = vx_sat_add(se, e);
    }
    *scale_elems = vx_sat_mul(copies, se);
    return vx_sat_mul(copies, b);
}

int vx_ckpt_quant_apply(const vx_ckpt_quant *q, int fdt, vx_tensor **inv, size_t *n, size_t *cap)
{
    if (q->method == VX_CQ_NONE) return VRAMEST_OK;
    size_t n0 = *n;
    for (size_t i = 0; i < n0; i++) {
        if (!vx_ckpt_quant_covers(q, &(*inv)[i])) continue;
        vx_tensor *t = &(*inv)[i];
        aux a[3];
        int na = aux_of(q, fdt, t->rows, t->cols, a);
        t->dtype = (int16_t)vx_ckpt_quant_dtype(q);
        for (int j = 0; j < na; j++) {
            vx_tensor s = (*inv)[i];
            s.kind = VX_TK_OTHER;
            s.trainable_default = 0;
            s.rows = a[j].rows, s.cols = a[j].cols;
            s.dtype = (int16_t)a[j].dtype;
            s.file_bytes = 0;
            int rc = vx_inv_push(inv, n, cap, &s);
            if (rc) return rc;
        }
    }
    return VRAMEST_OK;
}
