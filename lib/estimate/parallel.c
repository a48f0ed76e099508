/* Parallel layout of one rank (issue #7). One place decides how each tensor
 * and category is split, so the training and inference estimators never
 * divide by world sizes themselves.
 *
 * Decisions (docs/methodology.md, "Parallelism and offload"):
 * - gpus must equal tp*pp*dp*cp; dp = 0 derives dp. EP is carved out of the
 *   tp*dp*cp ranks of a stage (Megatron expert-data-parallel groups, vLLM EP
 *   over the TP group), so it does not enter the product.
 * - tp must divide the attention heads. KV heads: kv % tp == 0 splits them;
 *   when tp > kv and tp % kv == 0 each rank keeps one KV head and the KV
 *   projections are replicated tp/kv times (vLLM, Megatron-core GQA
 *   replication); anything else is refused.
 * - Norms, position/type embeddings, routers, row-parallel biases, MLA
 *   down-projections and heads other than the LM head are replicated. */
#include <string.h>

#include "estimate/parallel.h"

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Ranks of one node: hybrid sharding shards within it and replicates across. */
#define VX_GPUS_PER_NODE 8

/* Layers of stage k when `layers` are split over `pp` stages: the remainder
 * goes to the first stages (Megatron refuses uneven splits without explicit
 * first/last stage sizes; DeepSpeed and nanotron give it to the front). */
static int64_t stage_layers(int64_t layers, int64_t pp, int64_t k, int64_t *first)
{
    int64_t base = layers / pp, extra = layers % pp;
    *first = k * base + (k < extra ? k : extra);
    return base + (k < extra ? 1 : 0);
}

static int check_layout(const vx_ctx *x, int64_t *dp_out)
{
    const vx_config_values *c = x->cv;
    const vx_shape *s = x->s;
    int64_t tp = c->tp, pp = c->pp, cp = c->cp, dp = c->dp, ep = c->ep, gpus = c->gpus;
    uint64_t mp = 0;
    if (tp < 1 || pp < 1 || cp < 1 || ep < 1 || gpus < 1 || dp < 0)
        return vx_fail(VRAMEST_E_RANGE, "parallel sizes must be >= 1: gpus %lld, tp %lld, pp %lld, dp %lld, cp %lld, ep %lld",
                       (long long)gpus, (long long)tp, (long long)pp, (long long)dp, (long long)cp, (long long)ep);
    if (!vx_mul((uint64_t)tp, (uint64_t)pp, &mp) || !vx_mul(mp, (uint64_t)cp, &mp) || mp > (uint64_t)gpus ||
        (uint64_t)gpus % mp)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "gpus %lld is not a multiple of tp %lld * pp %lld * cp %lld: the model-parallel group must "
                       "tile the world",
                       (long long)gpus, (long long)tp, (long long)pp, (long long)cp);
    if (dp == 0) dp = gpus / (int64_t)mp;
    else if ((uint64_t)dp * mp != (uint64_t)gpus)
        return vx_fail(VRAMEST_E_CONFLICT, "gpus %lld != tp %lld * pp %lld * dp %lld * cp %lld (= %llu); set dp 0 to derive it",
                       (long long)gpus, (long long)tp, (long long)pp, (long long)dp, (long long)cp,
                       (unsigned long long)((uint64_t)dp * mp));
    if (tp > 1) {
        if (s->heads > 0 && s->heads % tp)
            return vx_fail(VRAMEST_E_CONFLICT, "tp %lld does not divide num_attention_heads %lld", (long long)tp,
                           (long long)s->heads);
        int64_t kv = s->kv_heads > 0 ? s->kv_heads : s->heads;
        if (kv > 0 && kv % tp && tp % kv)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "tp %lld and num_key_value_heads %lld: tp must divide the KV heads, or be a multiple of "
                           "them (each rank then keeps one replicated KV head)",
                           (long long)tp, (long long)kv);
    }
    if (pp > s->layers)
        return vx_fail(VRAMEST_E_RANGE, "pp %lld is larger than the %lld decoder layers: a stage would hold none",
                       (long long)pp, (long long)s->layers);
    if (c->virtual_stages > 1 && pp > 1) {
        if (c->pp_schedule == VX_PPS_GPIPE)
            return vx_fail(VRAMEST_E_CONFLICT, "virtual_stages %lld needs pp_schedule interleaved (or 1f1b), not gpipe",
                           (long long)c->virtual_stages);
        if (pp * c->virtual_stages > s->layers)
            return vx_fail(VRAMEST_E_RANGE, "pp %lld * virtual_stages %lld is larger than the %lld decoder layers",
                           (long long)pp, (long long)c->virtual_stages, (long long)s->layers);
    }
    if (ep > 1) {
        if (s->experts <= 0)
            return vx_fail(VRAMEST_E_CONFLICT, "ep %lld is set but the model has no routed experts", (long long)ep);
        if (s->experts % ep)
            return vx_fail(VRAMEST_E_CONFLICT, "ep %lld does not divide the %lld routed experts", (long long)ep,
                           (long long)s->experts);
        if ((tp * dp * cp) % ep)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "ep %lld does not divide tp %lld * dp %lld * cp %lld: expert-parallel ranks come from the "
                           "data/tensor-parallel ranks of a stage",
                           (long long)ep, (long long)tp, (long long)dp, (long long)cp);
    }
    if (cp > 1 && c->mode == VX_MODE_TRAIN && c->seq_len % cp)
        return vx_fail(VRAMEST_E_CONFLICT, "cp %lld does not divide seq_len %lld", (long long)cp, (long long)c->seq_len);
    if (c->zero_stage > 0 && c->fsdp != VX_FSDP_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "zero_stage %lld and fsdp are both set: choose DeepSpeed ZeRO or FSDP",
                       (long long)c->zero_stage);
    if (c->offload_params != VX_OFFLOAD_NONE && c->zero_stage < 3 && c->fsdp != VX_FSDP_FULL_SHARD &&
        c->fsdp != VX_FSDP_HYBRID_SHARD)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "offload_params needs zero_stage 3 or fsdp full_shard/hybrid_shard (zero_stage is %lld)",
                       (long long)c->zero_stage);
    if (c->offload_optimizer != VX_OFFLOAD_NONE && c->zero_stage < 1 && c->fsdp == VX_FSDP_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "offload_optimizer needs zero_stage >= 1 or fsdp (zero_stage is 0)");
    if (c->fsdp != VX_FSDP_NONE &&
        (c->offload_optimizer == VX_OFFLOAD_NVME || c->offload_params == VX_OFFLOAD_NVME))
        return vx_fail(VRAMEST_E_CONFLICT, "NVMe offload is a DeepSpeed ZeRO-Infinity feature: it needs zero_stage, not fsdp");
    if (c->offload_params == VX_OFFLOAD_NVME && c->zero_stage < 3)
        return vx_fail(VRAMEST_E_CONFLICT, "offload_params nvme needs zero_stage 3");
    *dp_out = dp;
    return VRAMEST_OK;
}

/* In-flight micro-batches of stage k and the activation sets alive, in units
 * of (one layer, one micro-batch). */
static void inflight(const vx_config_values *c, vx_shard *sh)
{
    int64_t m = c->grad_accum_steps > 0 ? c->grad_accum_steps : 1;
    int64_t p = sh->pp, k = sh->stage, v = sh->virtual_stages;
    if (p == 1 || c->mode != VX_MODE_TRAIN) {
        sh->inflight_microbatches = 1;
        sh->inflight_layer_mb = sh->stage_layers;
        return;
    }
    if (sh->pp_schedule == VX_PPS_GPIPE) {
        /* All forwards before any backward. */
        sh->inflight_microbatches = m;
        sh->inflight_layer_mb = m * sh->stage_layers;
    } else if (v > 1) {
        /* Megatron interleaved: (p-k-1)*2 + (v-1)*p warm-up chunks, plus the
         * one of the steady state, each holding stage_layers/v layers. */
        int64_t chunks = (p - k - 1) * 2 + (v - 1) * p + 1;
        if (chunks > m * v) chunks = m * v;
        sh->inflight_microbatches = (chunks + v - 1) / v;
        sh->inflight_layer_mb = (int64_t)vx_ceil_div((uint64_t)(chunks * sh->stage_layers), (uint64_t)v);
    } else {
        int64_t n = p - k;
        if (n > m) n = m;
        sh->inflight_microbatches = n;
        sh->inflight_layer_mb = n * sh->stage_layers;
    }
}

int vx_shard_resolve(const vx_ctx *x, int64_t stage, vx_shard *out)
{
    const vx_config_values *c = x->cv;
    int64_t dp = 1;
    int rc = check_layout(x, &dp);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    out->world = c->gpus;
    out->tp = c->tp;
    out->pp = c->pp;
    out->dp = dp;
    out->cp = c->cp;
    out->ep = c->ep;
    out->sequence_parallel = c->sequence_parallel && c->tp > 1;
    out->fsdp = (int)c->fsdp;
    switch (c->fsdp) {
    case VX_FSDP_FULL_SHARD:
    case VX_FSDP_HYBRID_SHARD: out->zero_stage = 3; break;
    case VX_FSDP_SHARD_GRAD_OP: out->zero_stage = 2; break;
    default: out->zero_stage = (int)c->zero_stage;
    }
    /* Megatron's distributed optimizer and DeepSpeed (with Ulysses) shard
     * over the data-parallel ranks including the context-parallel ones. */
    out->shard_group = dp * c->cp;
    if (c->fsdp == VX_FSDP_HYBRID_SHARD && out->shard_group > VX_GPUS_PER_NODE)
        out->shard_group = gcd64(out->shard_group, VX_GPUS_PER_NODE);
    out->offload_optimizer = (int)c->offload_optimizer;
    out->offload_params = (int)c->offload_params;
    out->pp_schedule = (int)c->pp_schedule;
    out->virtual_stages = c->pp > 1 ? c->virtual_stages : 1;
    if (out->virtual_stages > 1) out->pp_schedule = VX_PPS_INTERLEAVED;
    out->kv_heads_rank = 0;
    int64_t kv = x->s->kv_heads > 0 ? x->s->kv_heads : x->s->heads;
    if (kv > 0) out->kv_heads_rank = kv >= c->tp ? kv / c->tp : 1;
    out->heads_rank = x->s->heads / c->tp;
    /* Routed experts: EP splits the experts; within an expert the remaining
     * tensor parallelism splits the FFN (Megatron expert_tensor_parallel_size
     * defaults to tp). vLLM's EP replaces TP for the experts. */
    out->etp = (c->framework == VX_FW_VLLM && c->ep > 1) ? 1 : c->tp;

    if (stage < 0) stage = 0; /* stage 0 holds the most in-flight micro-batches */
    if (stage >= c->pp)
        return vx_fail(VRAMEST_E_RANGE, "pipeline stage %lld out of range (pp %lld)", (long long)stage, (long long)c->pp);
    out->stage = stage;
    out->stage_layers = stage_layers(x->s->layers, c->pp, stage, &out->first_layer);
    out->first_stage = stage == 0;
    out->last_stage = stage == c->pp - 1;
    inflight(c, out);
    return VRAMEST_OK;
}

/* Layers of a decoder-part group that fall on this stage. Groups cover all
 * layers, or (MoE with first_k_dense_replace) the dense front or the MoE back. */
static uint64_t group_layers_here(const vx_shard *sh, const vx_shape *s, const vx_tensor *t)
{
    int64_t n = t->n_layers, lo, hi;
    if (sh->pp == 1 || n <= 0) return (uint64_t)(n > 0 ? n : 0);
    if (n == s->layers) lo = 0, hi = s->layers;
    else if (s->dense_layers > 0 && n == s->dense_layers && !t->expert) lo = 0, hi = n;
    else if (s->dense_layers > 0 && n == s->layers - s->dense_layers) lo = s->dense_layers, hi = s->layers;
    else
        /* An unknown subset: take this stage's share. */
        return vx_ceil_div((uint64_t)n * (uint64_t)sh->stage_layers, (uint64_t)s->layers);
    int64_t a = sh->first_layer, b = sh->first_layer + sh->stage_layers;
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    return b > a ? (uint64_t)(b - a) : 0;
}

/* Rows of a q/k/v or fused qkv projection kept by this rank. */
static uint64_t qkv_rows(const vx_shard *sh, const vx_shape *s, const vx_tensor *t)
{
    int64_t tp = sh->tp, kv = s->kv_heads > 0 ? s->kv_heads : s->heads, hd = s->head_dim;
    uint64_t rows = (uint64_t)t->rows;
    if (tp == 1) return rows;
    switch (t->role) {
    case VX_ROLE_ATTN_K:
    case VX_ROLE_ATTN_V:
    case VX_ROLE_CROSS_K:
    case VX_ROLE_CROSS_V:
        if (kv > 0 && rows % (uint64_t)kv == 0) return rows / (uint64_t)kv * (uint64_t)sh->kv_heads_rank;
        return vx_ceil_div(rows, (uint64_t)tp);
    case VX_ROLE_ATTN_QKV:
        if (hd > 0 && (uint64_t)((s->heads + 2 * kv) * hd) == rows)
            return (uint64_t)((sh->heads_rank + 2 * sh->kv_heads_rank) * hd);
        return vx_ceil_div(rows, (uint64_t)tp);
    default: return vx_ceil_div(rows, (uint64_t)tp);
    }
}

/* Vocab-parallel rows: Megatron pads the vocabulary to a multiple of
 * 128 * tp, vLLM to a multiple of 64 before splitting; others split the
 * rows as they are (ceil). */
static uint64_t vocab_rows(const vx_shard *sh, const vx_ctx *x, int64_t rows)
{
    uint64_t v = (uint64_t)rows, tp = (uint64_t)sh->tp;
    if (tp == 1) return v;
    if (x->cv->framework == VX_FW_MEGATRON) v = vx_round_up(v, 128 * tp);
    else if (x->cv->framework == VX_FW_VLLM) v = vx_round_up(v, 64 * tp);
    return vx_ceil_div(v, tp);
}

uint64_t vx_shard_tensor_elems(const vx_shard *sh, const vx_ctx *x, const vx_tensor *t)
{
    const vx_shape *s = x->s;
    uint64_t rows = t->rows > 0 ? (uint64_t)t->rows : 0, cols = t->cols > 0 ? (uint64_t)t->cols : 1;
    uint64_t copies = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
    uint64_t layers = 1;
    int bias = t->kind == VX_TK_BIAS;

    /* Pipeline: which of the group's layers, or whether the global tensor, live here. */
    if (t->part == VX_PART_GLOBAL) {
        if (sh->pp > 1) {
            int head = t->role == VX_ROLE_LM_HEAD || t->role == VX_ROLE_FINAL_NORM || VX_ROLE_IS_HEAD(t->role);
            /* A tied LM head is a second copy of the embedding on the last stage
             * (Megatron keeps word embeddings on both ends and all-reduces their
             * gradients), so the embedding lives on the first and, tied, on the last. */
            int here = head ? sh->last_stage
                            : (sh->first_stage || (t->role == VX_ROLE_EMBED && s->tied && sh->last_stage));
            if (!here) return 0;
        }
    } else if (t->part == VX_PART_DECODER) {
        layers = group_layers_here(sh, s, t);
    } else {
        /* Encoder layers of an encoder-decoder: this stage's share. */
        uint64_t n = t->n_layers > 0 ? (uint64_t)t->n_layers : 0;
        layers = sh->pp > 1 ? vx_ceil_div(n * (uint64_t)sh->stage_layers, (uint64_t)s->layers) : n;
    }
    if (layers == 0) return 0;

    /* Expert parallel: this rank's experts. */
    if (t->expert && sh->ep > 1) copies = vx_ceil_div(copies, (uint64_t)sh->ep);

    /* Tensor parallel. */
    if (sh->tp > 1) {
        uint64_t tp = (uint64_t)sh->tp;
        switch (t->role) {
        case VX_ROLE_ATTN_Q:
        case VX_ROLE_ATTN_K:
        case VX_ROLE_ATTN_V:
        case VX_ROLE_ATTN_QKV:
        case VX_ROLE_CROSS_Q:
        case VX_ROLE_CROSS_K:
        case VX_ROLE_CROSS_V: rows = qkv_rows(sh, s, t); break;
        case VX_ROLE_ATTN_Q_B:
        case VX_ROLE_ATTN_KV_B:
        case VX_ROLE_MLP_GATE:
        case VX_ROLE_MLP_UP:
        case VX_ROLE_MLP_GATE_UP:
        case VX_ROLE_SHARED_GATE:
        case VX_ROLE_SHARED_UP: rows = vx_ceil_div(rows, tp); break; /* column parallel */
        case VX_ROLE_ATTN_O:
        case VX_ROLE_CROSS_O:
        case VX_ROLE_MLP_DOWN:
        case VX_ROLE_SHARED_DOWN:
            /* Row parallel: the input dimension splits; the bias is added
             * after the all-reduce, whole, on every rank. */
            if (!bias) cols = vx_ceil_div(cols, tp);
            break;
        case VX_ROLE_EXPERT_GATE:
        case VX_ROLE_EXPERT_UP:
            if (sh->etp > 1) rows = vx_ceil_div(rows, (uint64_t)sh->etp);
            break;
        case VX_ROLE_EXPERT_DOWN:
            if (sh->etp > 1 && !bias) cols = vx_ceil_div(cols, (uint64_t)sh->etp);
            break;
        case VX_ROLE_REL_BIAS: cols = vx_ceil_div(cols, tp); break; /* buckets x heads: split by head */
        case VX_ROLE_EMBED:
        case VX_ROLE_LM_HEAD: rows = vocab_rows(sh, x, t->rows); break;
        default: break; /* norms, positions, routers, MLA down-projections, other heads: replicated */
        }
    }
    uint64_t e = vx_sat_mul(rows, cols);
    e = vx_sat_mul(e, copies);
    return vx_sat_mul(e, layers);
}

int64_t vx_shard_divisor(const vx_shard *sh, int category)
{
    int64_t g = sh->shard_group > 1 ? sh->shard_group : 1;
    switch (category) {
    case VRAMEST_CAT_OPTIMIZER_STATES:
    case VRAMEST_CAT_MASTER_WEIGHTS: return sh->zero_stage >= 1 ? g : 1;
    case VRAMEST_CAT_GRADIENTS: return sh->zero_stage >= 2 ? g : 1;
    case VRAMEST_CAT_WEIGHTS:
    case VRAMEST_CAT_ADAPTER: return sh->zero_stage >= 3 ? g : 1;
    default: return 1;
    }
}

int vx_shard_offload_device(const vx_shard *sh, int category)
{
    int off = VX_OFFLOAD_NONE;
    switch (category) {
    case VRAMEST_CAT_OPTIMIZER_STATES:
    case VRAMEST_CAT_MASTER_WEIGHTS:
        /* ZeRO-Offload also keeps the fp32 gradient partitions on the host,
         * where the CPU Adam step reads them; see vx_shard_grads_offloaded. */
        off = sh->offload_optimizer;
        break;
    case VRAMEST_CAT_WEIGHTS: off = sh->offload_params; break;
    case VRAMEST_CAT_GRADIENTS:
        /* Offloading the optimizer moves the fp32 gradient partitions to the
         * host (DeepSpeed) too; FSDP CPUOffload moves gradients with params. */
        off = sh->offload_optimizer != VX_OFFLOAD_NONE ? VX_OFFLOAD_CPU
              : (sh->fsdp != VX_FSDP_NONE ? sh->offload_params : VX_OFFLOAD_NONE);
        break;
    default: break;
    }
    return off == VX_OFFLOAD_NVME ? VRAMEST_DEV_NVME : off == VX_OFFLOAD_CPU ? VRAMEST_DEV_HOST : VRAMEST_DEV_GPU;
}
