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
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "estimate/parallel/parallel.h"
#include "precision/policy.h"

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int64_t vx_attn_dp(const vx_ctx *x)
{
    const vx_config_values *c = x->cv;
    if (!c->enable_dp_attention || !x->rt.attn_dp_in_tp || c->device_map != VX_DMAP_NONE || c->dp == 1) return 1;
    return c->dp > 1 ? c->dp : c->tp;
}

/* The attention tensor-parallel width of a shard (see vx_shard). */
static int64_t attn_tp_of(const vx_shard *sh)
{
    return sh->attn_tp > 0 ? sh->attn_tp : sh->tp;
}

static int check_layout(const vx_ctx *x, int64_t *dp_out)
{
    const vx_config_values *c = x->cv;
    const vx_shape *s = x->pol.s;
    int64_t tp = c->tp, pp = c->pp, cp = c->cp, dp = c->dp, ep = c->ep, gpus = c->gpus;
    uint64_t mp = 0;
    if (tp < 1 || pp < 1 || cp < 1 || ep < 1 || gpus < 1 || dp < 0)
        return vx_fail(VRAMEST_E_RANGE, "parallel sizes must be >= 1: gpus %lld, tp %lld, pp %lld, dp %lld, cp %lld, ep %lld",
                       (long long)gpus, (long long)tp, (long long)pp, (long long)dp, (long long)cp, (long long)ep);
    if (c->device_map != VX_DMAP_NONE) {
        /* One process drives every GPU of a placement: no replicas, no shards. */
        if (tp > 1 || pp > 1 || cp > 1 || ep > 1 || dp > 1 || c->zero_stage > 0 || c->fsdp != VX_FSDP_NONE)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "device_map places whole layers from one process; it does not combine with tp %lld, pp %lld, "
                           "dp %lld, cp %lld, ep %lld, zero_stage %lld or fsdp",
                           (long long)tp, (long long)pp, (long long)dp, (long long)cp, (long long)ep,
                           (long long)c->zero_stage);
        if (s->enc_layers > 0)
            return vx_fail(VRAMEST_E_UNSUPPORTED, "device_map placement of encoder-decoder models is not modelled");
        *dp_out = 1;
        return VRAMEST_OK;
    }
    if (c->max_memory[0])
        return vx_fail(VRAMEST_E_CONFLICT, "max_memory '%s' is set but device_map is none", c->max_memory);
    if (!vx_mul((uint64_t)tp, (uint64_t)pp, &mp) || !vx_mul(mp, (uint64_t)cp, &mp) || mp > (uint64_t)gpus ||
        (uint64_t)gpus % mp)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "gpus %lld is not a multiple of tp %lld * pp %lld * cp %lld: the model-parallel group must "
                       "tile the world",
                       (long long)gpus, (long long)tp, (long long)pp, (long long)cp);
    /* SGLang's DP attention carves dp out of the tp ranks (dp_attention.py
     * compute_dp_attention_world_info: attn_tp_size = tp_size // dp_size,
     * the process grid is tp x pp): an explicit dp is no replica count. */
    int64_t adp = vx_attn_dp(x), atp = tp;
    if (adp > 1) {
        if (tp % adp)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "enable_dp_attention: dp %lld does not divide tp %lld (SGLang splits the tp ranks into dp "
                           "attention groups of tp / dp ranks)",
                           (long long)adp, (long long)tp);
        if (dp > 1 && mp != (uint64_t)gpus)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "enable_dp_attention: gpus %lld != tp %lld * pp %lld * cp %lld (= %llu): SGLang's DP "
                           "attention carves dp %lld out of the tp ranks, so the world is tp x pp",
                           (long long)gpus, (long long)tp, (long long)pp, (long long)cp, (unsigned long long)mp,
                           (long long)dp);
        if (dp > 1) dp = 1;
        atp = tp / adp;
    }
    if (dp == 0) dp = gpus / (int64_t)mp;
    else if ((uint64_t)dp * mp != (uint64_t)gpus)
        return vx_fail(VRAMEST_E_CONFLICT, "gpus %lld != tp %lld * pp %lld * dp %lld * cp %lld (= %llu); set dp 0 to derive it",
                       (long long)gpus, (long long)tp, (long long)pp, (long long)dp, (long long)cp,
                       (unsigned long long)((uint64_t)dp * mp));
    if (atp > 1) {
        const char *what = adp > 1 ? "tp / dp (attention tp)" : "tp";
        if (s->heads > 0 && s->heads % atp)
            return vx_fail(VRAMEST_E_CONFLICT, "%s %lld does not divide num_attention_heads %lld", what,
                           (long long)atp, (long long)s->heads);
        int64_t kv = s->kv_heads > 0 ? s->kv_heads : s->heads;
        if (kv > 0 && kv % atp && atp % kv)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "%s %lld and num_key_value_heads %lld: it must divide the KV heads, or be a multiple of "
                           "them (each rank then keeps one replicated KV head)",
                           what, (long long)atp, (long long)kv);
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
    if (c->fsdp != VX_FSDP_NONE && c->offload_optimizer != c->offload_params)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "FSDP CPUOffload moves parameters, gradients and the optimizer step together: set "
                       "offload_params and offload_optimizer both to cpu, or both to none");
    if (c->offload_params == VX_OFFLOAD_NVME && c->zero_stage < 3)
        return vx_fail(VRAMEST_E_CONFLICT, "offload_params nvme needs zero_stage 3");
    *dp_out = dp;
    return VRAMEST_OK;
}

/* ---- pipeline stages ---- */

/* Compute cost of one decoder layer and of the LM head, in parameters (the
 * matmul FLOPs per token are twice that): nanotron's get_block_compute_costs
 * (4*a*d*h + 3*ffn*h per Llama layer, V*h for the head, 0 for the embedding). */
static void stage_costs(const vx_ctx *x, uint64_t *layer, uint64_t *head)
{
    const vx_shape *s = x->pol.s;
    uint64_t l = 0;
    for (size_t i = 0; i < x->pol.m->n_inv; i++) {
        const vx_tensor *t = &x->pol.m->inv[i];
        if (t->part != VX_PART_DECODER || t->kind != VX_TK_MATRIX || t->n_layers <= 0) continue;
        uint64_t e = vx_tensor_elems(t) / (uint64_t)t->n_layers;
        /* Routed experts cost what the active ones compute. */
        if (t->expert && s->experts > 0) e = e / (uint64_t)s->experts * (uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1);
        l = vx_sat_add(l, e);
    }
    *layer = l ? l : 1;
    *head = vx_sat_mul((uint64_t)(s->vocab > 0 ? s->vocab : 0), (uint64_t)(s->hidden > 0 ? s->hidden : 0));
}

/* How the layers split over the stages. uniform: layers / pp, the
 * remainder to the first stages (Megatron-LM asks for an even split;
 * picotron gives the remainder to the front). balanced: nanotron's greedy
 * split over cumulative costs -- a block goes to the current stage, which
 * closes once the cumulative cost passes (k+1)/pp of the total -- so stages
 * before the LM head take more. Stage k ends after layer e(k) (1-based),
 * each stage keeping at least one layer:
 *   e(k) = min(floor(T (k+1) / D) + 1, L - (pp-1-k)),  e(pp-1) = L,
 * T = L*c + h (layer cost c, head cost h), D = pp*c, in exact integer
 * arithmetic. As L >= pp (check_layout), T >= D: consecutive unclamped
 * stages differ by floor(T/D) or floor(T/D) + 1 layers, and once the clamp
 * holds it holds for every later stage (one layer each). */
typedef struct stage_split {
    int64_t L, pp;
    int uniform;
    unsigned __int128 T, D;
} stage_split;

static void split_init(const vx_ctx *x, int64_t pp, stage_split *sp)
{
    sp->L = x->pol.s->layers;
    sp->pp = pp;
    sp->uniform = pp <= 1 || x->cv->pp_split == VX_PPSPLIT_UNIFORM;
    sp->T = sp->D = 1;
    if (!sp->uniform) {
        uint64_t c, h;
        stage_costs(x, &c, &h);
        sp->T = (unsigned __int128)(uint64_t)sp->L * c + h;
        sp->D = (unsigned __int128)(uint64_t)pp * c;
    }
}

/* e(k): the layers on stages 0..k. */
static int64_t split_end(const stage_split *sp, int64_t k)
{
    if (k < 0) return 0;
    if (k >= sp->pp - 1) return sp->L;
    if (sp->uniform) {
        int64_t base = sp->L / sp->pp, extra = sp->L % sp->pp;
        return (k + 1) * base + (k + 1 < extra ? k + 1 : extra);
    }
    unsigned __int128 f = sp->T * (unsigned __int128)(uint64_t)(k + 1) / sp->D;
    int64_t cap = sp->L - (sp->pp - 1 - k);
    return f + 1 > (unsigned __int128)(uint64_t)cap ? cap : (int64_t)f + 1;
}

/* The fewest layers an unclamped stage other than the first and the last
 * holds (the others hold one more). */
static int64_t split_min_layers(const stage_split *sp)
{
    if (sp->uniform) return sp->L / sp->pp;
    return (int64_t)(sp->T / sp->D);
}

/* The first stage from which the clamp holds (pp - 1 when it never does
 * before the last stage): e(k) - k is non-decreasing. */
static int64_t split_clamped_from(const stage_split *sp)
{
    if (sp->uniform) return sp->pp - 1;
    int64_t lo = 0, hi = sp->pp - 1; /* the answer is in [lo, hi] */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        unsigned __int128 f = sp->T * (unsigned __int128)(uint64_t)(mid + 1) / sp->D;
        if (f + 1 > (unsigned __int128)(uint64_t)(sp->L - (sp->pp - 1 - mid))) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* What sets stage k's in-flight activations apart from its layers: the
 * micro-batches in flight (1F1B, GPipe) or the warm-up chunks (interleaved);
 * 0 without a pipeline. Non-increasing in k. */
static int64_t inflight_factor(const vx_config_values *c, const vx_shard *sh, int64_t k)
{
    int64_t m = c->grad_accum_steps > 0 ? c->grad_accum_steps : 1;
    int64_t p = sh->pp, v = sh->virtual_stages;
    if (p == 1 || c->mode != VX_MODE_TRAIN || sh->placement) return 0;
    if (sh->pp_schedule == VX_PPS_GPIPE) return m; /* all forwards before any backward */
    if (v > 1) {
        /* Megatron interleaved: (p-k-1)*2 + (v-1)*p warm-up chunks, plus the
         * one of the steady state */
        int64_t chunks = (p - k - 1) * 2 + (v - 1) * p + 1;
        return chunks > m * v ? m * v : chunks;
    }
    /* 1F1B: stage k runs p-k warm-up forwards before its first backward. */
    return p - k < m ? p - k : m;
}

/* In-flight micro-batches of stage k and the activation sets alive, in units
 * of (one layer, one micro-batch). */
static void inflight(const vx_config_values *c, vx_shard *sh)
{
    int64_t f = inflight_factor(c, sh, sh->stage);
    if (f == 0) {
        sh->inflight_microbatches = 1;
        sh->inflight_layer_mb = sh->stage_layers;
    } else if (sh->pp_schedule != VX_PPS_GPIPE && sh->virtual_stages > 1) {
        int64_t v = sh->virtual_stages;
        sh->inflight_microbatches = (f + v - 1) / v;
        sh->inflight_layer_mb = (int64_t)vx_ceil_div((uint64_t)f * (uint64_t)sh->stage_layers, (uint64_t)v);
    } else {
        sh->inflight_microbatches = f;
        sh->inflight_layer_mb = f * sh->stage_layers;
    }
}

/* ---- device_map placement (Hugging Face accelerate) ---- */

#define VX_UNBOUNDED (UINT64_MAX / 4)

typedef struct place_dev {
    int64_t id;                /* cuda index; -1 cpu, -2 disk */
    uint64_t budget, used;
    int64_t first_layer, layers;
    int front, back;           /* embeddings / final norm + head placed here */
} place_dev;

typedef struct vx_placement {
    int n;                     /* devices: the GPUs, then cpu, then disk */
    int n_gpu;
    place_dev d[VX_MAX_RANKS + 2];
    uint64_t layer_bytes_dense, layer_bytes_moe, front_bytes, norm_bytes, head_bytes;
    uint64_t exec_buffer;      /* largest unit on cpu/disk, run on cuda:0 */
    int head_dev;              /* device index of the head (tied: the embedding's) */
} vx_placement;

/* "10GiB", "10GB", "500MiB", "1e9", "123" -> bytes (accelerate's
 * convert_file_size_to_int: GB = 1e9, GiB = 2^30). */
static int parse_size(const char *p, const char **end, uint64_t *out)
{
    char *e;
    double v = strtod(p, &e);
    if (e == p || v < 0) return -1;
    double mul = 1;
    const char *u = e;
    static const struct { const char *s; double m; } units[] = {
        {"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0},
        {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
    };
    for (size_t i = 0; i < VX_ARRAY_LEN(units); i++) {
        size_t n = strlen(units[i].s), k = 0;
        while (k < n && u[k] && (u[k] | 32) == (units[i].s[k] | 32)) k++;
        if (k == n) {
            mul = units[i].m;
            e += n;
            break;
        }
    }
    double b = v * mul;
    if (b >= 1.8e19) return -1;
    *out = (uint64_t)b;
    *end = e;
    return 0;
}

static int parse_max_memory(const vx_ctx *x, vx_placement *pl, int *have_cpu, int *have_disk)
{
    const char *str = x->cv->max_memory, *p = str;
    int n_gpu = 0;
    uint64_t gpu_budget[VX_MAX_RANKS];
    int64_t gpu_id[VX_MAX_RANKS];
    uint64_t cpu = VX_UNBOUNDED, disk = VX_UNBOUNDED;
    *have_cpu = *have_disk = 0;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        const char *key = p;
        int64_t id;
        if (!strncmp(p, "cpu", 3)) id = -1, p += 3;
        else if (!strncmp(p, "disk", 4)) id = -2, p += 4;
        else {
            if (!strncmp(p, "cuda:", 5)) p += 5;
            char *e;
            long v = strtol(p, &e, 10);
            if (e == p || v < 0 || v > 65535) goto bad;
            id = v;
            p = e;
        }
        while (*p == ' ') p++;
        if (*p != ':' && *p != '=') goto bad;
        p++;
        while (*p == ' ') p++;
        uint64_t b;
        if (parse_size(p, &p, &b)) goto bad;
        while (*p == ' ') p++;
        if (*p && *p != ',') goto bad;
        if (id == -1) cpu = b, *have_cpu = 1;
        else if (id == -2) disk = b, *have_disk = 1;
        else {
            for (int i = 0; i < n_gpu; i++)
                if (gpu_id[i] == id)
                    return vx_fail(VRAMEST_E_CONFLICT, "max_memory: GPU %lld is listed twice in '%s'", (long long)id, str);
            if (n_gpu == VX_MAX_RANKS)
                return vx_fail(VRAMEST_E_LIMIT, "max_memory: more than %d GPUs in '%s'", VX_MAX_RANKS, str);
            if (id >= x->cv->gpus)
                return vx_fail(VRAMEST_E_CONFLICT, "max_memory names GPU %lld but gpus is %lld", (long long)id,
                               (long long)x->cv->gpus);
            gpu_id[n_gpu] = id;
            gpu_budget[n_gpu++] = b;
        }
        continue;
    bad:
        return vx_fail(VRAMEST_E_PARSE,
                       "max_memory: cannot read the entry at offset %d of '%s' (expected DEVICE:SIZE, DEVICE a GPU "
                       "index, cpu or disk, SIZE like 10GiB or 20GB)",
                       (int)(key - str), str);
    }
    /* GPUs in index order, as accelerate sorts them. */
    for (int i = 1; i < n_gpu; i++)
        for (int j = i; j > 0 && gpu_id[j - 1] > gpu_id[j]; j--) {
            int64_t t = gpu_id[j];
            gpu_id[j] = gpu_id[j - 1], gpu_id[j - 1] = t;
            uint64_t u = gpu_budget[j];
            gpu_budget[j] = gpu_budget[j - 1], gpu_budget[j - 1] = u;
        }
    pl->n_gpu = n_gpu;
    for (int i = 0; i < n_gpu; i++) pl->d[i].id = gpu_id[i], pl->d[i].budget = gpu_budget[i];
    pl->d[n_gpu].id = -1, pl->d[n_gpu].budget = cpu;
    pl->d[n_gpu + 1].id = -2, pl->d[n_gpu + 1].budget = disk;
    pl->n = n_gpu + 2;
    return VRAMEST_OK;
}

static uint64_t unit_bytes(const vx_placement *pl, const vx_shape *s, int64_t i)
{
    return i < s->dense_layers ? pl->layer_bytes_dense : pl->layer_bytes_moe;
}

/* infer_auto_device_map over the units embeddings, layer 0..L-1, final
 * norm, head (a tied head travels with the embedding); get_balanced_memory
 * first for auto / balanced / balanced_low_0. */
static int placement_resolve(const vx_ctx *x, vx_placement *pl)
{
    const vx_config_values *c = x->cv;
    const vx_shape *s = x->pol.s;
    memset(pl, 0, sizeof *pl);
    int user = c->max_memory[0] != 0, have_cpu = 0, have_disk = 0;
    if (user) {
        int rc = parse_max_memory(x, pl, &have_cpu, &have_disk);
        if (rc) return rc;
    } else {
        if (c->gpus > VX_MAX_RANKS)
            return vx_fail(VRAMEST_E_LIMIT, "device_map: at most %d GPUs are placed (gpus is %lld)", VX_MAX_RANKS,
                           (long long)c->gpus);
        /* torch.cuda.mem_get_info: the device minus the CUDA context. */
        uint64_t dev = x->r->device_bytes, ctx = vx_cuda_context_bytes(x);
        uint64_t b = dev ? (dev > ctx ? dev - ctx : 0) : VX_UNBOUNDED;
        pl->n_gpu = (int)c->gpus;
        for (int i = 0; i < pl->n_gpu; i++) pl->d[i].id = i, pl->d[i].budget = b;
        pl->d[pl->n_gpu].id = -1, pl->d[pl->n_gpu].budget = VX_UNBOUNDED;
        pl->d[pl->n_gpu + 1].id = -2, pl->d[pl->n_gpu + 1].budget = VX_UNBOUNDED;
        pl->n = pl->n_gpu + 2;
    }
    /* Unit sizes under the precision policy. */
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    uint64_t dense = 0, moe = 0;
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        uint64_t b = vx_tensor_gpu_bytes(&x->pol, t);
        if (t->part == VX_PART_GLOBAL) {
            if (VX_ROLE_IS_HEAD(t->role)) pl->head_bytes = vx_sat_add(pl->head_bytes, b);
            else if (t->role == VX_ROLE_FINAL_NORM) pl->norm_bytes = vx_sat_add(pl->norm_bytes, b);
            else pl->front_bytes = vx_sat_add(pl->front_bytes, b);
            continue;
        }
        if (t->n_layers <= 0) continue;
        uint64_t per = b / (uint64_t)t->n_layers;
        if (s->dense_layers > 0 && t->n_layers == s->dense_layers && !t->expert) dense = vx_sat_add(dense, per);
        else if (s->dense_layers > 0 && t->n_layers == s->layers - s->dense_layers) moe = vx_sat_add(moe, per);
        else dense = vx_sat_add(dense, per), moe = vx_sat_add(moe, per);
    }
    pl->layer_bytes_dense = dense;
    pl->layer_bytes_moe = moe;
    int64_t L = s->layers;
    uint64_t max_layer = vx_max_u64(s->dense_layers > 0 ? dense : 0, s->dense_layers < L ? moe : 0);
    uint64_t total = vx_sat_add(vx_sat_add(pl->front_bytes, pl->norm_bytes), pl->head_bytes);
    total = vx_sat_add(total, vx_sat_add(vx_sat_mul(dense, (uint64_t)s->dense_layers),
                                         vx_sat_mul(moe, (uint64_t)(L - s->dense_layers))));

    if (c->device_map != VX_DMAP_SEQUENTIAL && pl->n_gpu > 0) {
        int low_zero = c->device_map == VX_DMAP_BALANCED_LOW_0;
        int n = pl->n_gpu;
        if (n == 1) {
            low_zero = 0;
            if (!user) pl->d[0].budget = (uint64_t)((long double)pl->d[0].budget * 0.9L);
        }
        /* per GPU: the model over the GPUs plus 1.25 x the largest no-split
         * block (a decoder layer; the mean leaf module is smaller). */
        uint64_t per = total / (uint64_t)(low_zero ? n - 1 : n);
        per = vx_sat_add(per, (uint64_t)(1.25L * (long double)max_layer));
        for (int i = 0; i < n - 1; i++)
            pl->d[i].budget = vx_min_u64(low_zero && i == 0 ? pl->d[0].budget : per, pl->d[i].budget);
        if (low_zero) {
            uint64_t rest = 0;
            for (int i = 1; i < n; i++) rest = vx_sat_add(rest, pl->d[i].budget);
            pl->d[0].budget = vx_min_u64(total > rest ? total - rest : 0, pl->d[0].budget);
        }
    }

    /* Greedy, in module order. The first GPU and the CPU keep room for the
     * largest unit still to come (an offloaded layer is brought there to run). */
    int cur = 0;
    int64_t units = L + 3; /* front, layers, norm, head */
    pl->head_dev = -1;
    for (int64_t u = 0; u < units; u++) {
        uint64_t size;
        if (u == 0) size = pl->front_bytes;
        else if (u <= L) size = unit_bytes(pl, s, u - 1);
        else if (u == L + 1) size = pl->norm_bytes;
        else size = pl->head_bytes;
        if (u == L + 2 && (s->tied || !size)) break; /* a tied head went with the embedding */
        /* largest unit after this one */
        uint64_t rest = 0;
        int64_t li = u; /* layers u.. (0-based index u) remain when u < L */
        if (li < L) {
            if (li < s->dense_layers) rest = dense;
            if (s->dense_layers < L) rest = vx_max_u64(rest, moe);
        }
        if (u <= L) rest = vx_max_u64(rest, pl->norm_bytes);
        if (u <= L + 1 && !s->tied) rest = vx_max_u64(rest, pl->head_bytes);
        for (;;) {
            place_dev *d = &pl->d[cur];
            uint64_t cap = d->budget;
            int main_dev = (cur == 0 && pl->n_gpu > 0) || d->id == -1;
            if (main_dev) cap = cap > rest ? cap - rest : 0;
            if (d->id == -2 || vx_sat_add(d->used, size) <= cap) {
                d->used = vx_sat_add(d->used, size);
                if (u == 0) d->front = 1;
                else if (u <= L) {
                    if (!d->layers) d->first_layer = u - 1;
                    d->layers++;
                } else {
                    d->back = 1;
                    if (u == L + 2 || s->tied) pl->head_dev = cur;
                }
                if (d->id < 0) pl->exec_buffer = vx_max_u64(pl->exec_buffer, size);
                break;
            }
            cur++;
        }
    }
    /* A tied head is computed where the embedding lives. */
    if (s->tied || !pl->head_bytes)
        for (int i = 0; i < pl->n; i++)
            if (pl->d[i].front) pl->head_dev = i;
    return VRAMEST_OK;
}

static void fill_common(const vx_ctx *x, int64_t dp, vx_shard *out)
{
    const vx_config_values *c = x->cv;
    memset(out, 0, sizeof *out);
    out->world = c->gpus;
    out->tp = c->tp;
    out->pp = c->pp;
    out->dp = dp;
    out->cp = c->cp;
    out->ep = c->ep;
    out->sequence_parallel = c->sequence_parallel && c->tp > 1;
    out->fsdp = (int)c->fsdp;
    out->fsdp2 = c->fsdp != VX_FSDP_NONE && (c->fsdp_version == 2 || (c->fsdp_version == 0 && x->rt.fsdp2));
    switch (c->fsdp) {
    case VX_FSDP_FULL_SHARD:
    case VX_FSDP_HYBRID_SHARD: out->zero_stage = 3; break;
    case VX_FSDP_SHARD_GRAD_OP: out->zero_stage = 2; break;
    default: out->zero_stage = (int)c->zero_stage;
    }
    /* Megatron's distributed optimizer and DeepSpeed (with Ulysses) shard
     * over the data-parallel ranks including the context-parallel ones. */
    out->shard_group = dp * c->cp;
    int64_t node = c->gpus_per_node > 0 ? c->gpus_per_node : 8;
    if (c->fsdp == VX_FSDP_HYBRID_SHARD && out->shard_group > node)
        out->shard_group = gcd64(out->shard_group, node);
    out->host_ranks = c->device_map != VX_DMAP_NONE ? 1 : (c->gpus < node ? c->gpus : node);
    out->offload_optimizer = (int)c->offload_optimizer;
    out->offload_params = (int)c->offload_params;
    out->offload_activations = (int)c->offload_activations;
    out->pp_schedule = (int)c->pp_schedule;
    out->virtual_stages = c->pp > 1 ? c->virtual_stages : 1;
    if (out->virtual_stages > 1) out->pp_schedule = VX_PPS_INTERLEAVED;
    out->attn_dp = vx_attn_dp(x);
    out->attn_tp = c->tp / out->attn_dp;
    int64_t kv = x->pol.s->kv_heads > 0 ? x->pol.s->kv_heads : x->pol.s->heads;
    if (kv > 0) out->kv_heads_rank = kv >= out->attn_tp ? kv / out->attn_tp : 1;
    out->heads_rank = x->pol.s->heads / out->attn_tp;
    /* Routed experts: EP splits the experts; within an expert the remaining
     * tensor parallelism splits the FFN (Megatron expert_tensor_parallel_size
     * defaults to tp). vLLM's EP replaces TP for the experts. */
    out->etp = (x->rt.ep_replaces_tp && c->ep > 1) ? 1 : c->tp;
    out->grads_whole = x->rt.contiguous_grads && c->fsdp == VX_FSDP_NONE;
}

/* The shard of GPU `k` (index into the placement's devices). */
static void placement_shard(const vx_ctx *x, const vx_placement *pl, int k, vx_shard *out)
{
    fill_common(x, 1, out);
    const place_dev *d = &pl->d[k];
    out->placement = 1;
    out->pp = pl->n_gpu;
    out->stage = k;
    out->device_index = d->id;
    out->first_layer = d->layers ? d->first_layer : 0;
    out->stage_layers = d->layers;
    out->first_stage = d->front;
    out->last_stage = pl->head_dev == k || (pl->head_dev >= pl->n_gpu && k == 0);
    out->exec_layers = d->layers;
    if (k == 0) /* cuda:0 runs the layers accelerate offloaded */
        out->exec_layers += pl->d[pl->n_gpu].layers + pl->d[pl->n_gpu + 1].layers;
    inflight(x->cv, out);
}

/* Stage k's fields of a shard filled by fill_common; `first` is e(k-1)
 * when known (else -1). */
static void set_stage_at(const vx_ctx *x, const stage_split *sp, int64_t k, int64_t first, vx_shard *out)
{
    out->stage = k;
    out->first_layer = first >= 0 ? first : split_end(sp, k - 1);
    out->stage_layers = split_end(sp, k) - out->first_layer;
    out->exec_layers = out->stage_layers;
    out->first_stage = k == 0;
    out->last_stage = k == sp->pp - 1;
    inflight(x->cv, out);
}

static void set_stage(const vx_ctx *x, const stage_split *sp, int64_t k, vx_shard *out)
{
    set_stage_at(x, sp, k, -1, out);
}

int vx_shard_resolve(const vx_ctx *x, int64_t stage, vx_shard *out)
{
    const vx_config_values *c = x->cv;
    int64_t dp = 1;
    int rc = check_layout(x, &dp);
    if (rc) return rc;
    if (c->device_map != VX_DMAP_NONE) {
        vx_placement pl;
        if ((rc = placement_resolve(x, &pl))) return rc;
        if (stage < 0) stage = 0;
        if (stage >= pl.n_gpu)
            return vx_fail(VRAMEST_E_RANGE, "placement GPU %lld out of range (%d GPUs)", (long long)stage, pl.n_gpu);
        placement_shard(x, &pl, (int)stage, out);
        return VRAMEST_OK;
    }
    fill_common(x, dp, out);
    if (stage < 0) stage = 0; /* stage 0 holds the most in-flight micro-batches */
    if (stage >= c->pp)
        return vx_fail(VRAMEST_E_RANGE, "pipeline stage %lld out of range (pp %lld)", (long long)stage, (long long)c->pp);
    if (c->pp == 1) {
        /* one stage: all layers (the split is not needed) */
        out->stage = 0;
        out->first_layer = 0;
        out->stage_layers = out->exec_layers = x->pol.s->layers;
        out->first_stage = out->last_stage = 1;
        inflight(c, out);
        return VRAMEST_OK;
    }
    stage_split sp;
    split_init(x, c->pp, &sp);
    set_stage(x, &sp, stage, out);
    return VRAMEST_OK;
}

/* Layers of a decoder-part group that fall on this stage. Groups cover all
 * layers, or (MoE with first_k_dense_replace) the dense front or the MoE back. */
static uint64_t group_layers_here(const vx_shard *sh, const vx_shape *s, const vx_tensor *t)
{
    int64_t n = t->n_layers, lo, hi;
    if ((sh->pp == 1 && !sh->placement) || n <= 0) return (uint64_t)(n > 0 ? n : 0);
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
    int64_t tp = attn_tp_of(sh), kv = s->kv_heads > 0 ? s->kv_heads : s->heads, hd = s->head_dim;
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

/* Vocab-parallel rows: Megatron and vLLM pad the vocabulary to a multiple
 * of the runtime's vocab_pad x tp before splitting; others split the rows
 * as they are (ceil). */
static uint64_t vocab_rows(const vx_shard *sh, const vx_ctx *x, int64_t rows)
{
    uint64_t v = (uint64_t)rows, tp = (uint64_t)sh->tp;
    if (tp == 1) return v;
    if (x->rt.vocab_pad) v = vx_round_up(v, (uint64_t)x->rt.vocab_pad * tp);
    return vx_ceil_div(v, tp);
}

uint64_t vx_shard_tensor_elems(const vx_shard *sh, const vx_ctx *x, const vx_tensor *t)
{
    const vx_shape *s = x->pol.s;
    uint64_t rows = t->rows > 0 ? (uint64_t)t->rows : 0, cols = t->cols > 0 ? (uint64_t)t->cols : 1;
    uint64_t copies = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
    uint64_t layers = 1;
    int bias = t->kind == VX_TK_BIAS;

    /* Pipeline: which of the group's layers, or whether the global tensor, live here. */
    if (t->part == VX_PART_GLOBAL) {
        if (sh->pp > 1 || sh->placement) {
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
        uint64_t tp = (uint64_t)sh->tp, atp = (uint64_t)attn_tp_of(sh);
        switch (t->role) {
        case VX_ROLE_ATTN_Q:
        case VX_ROLE_ATTN_K:
        case VX_ROLE_ATTN_V:
        case VX_ROLE_ATTN_QKV:
        case VX_ROLE_CROSS_Q:
        case VX_ROLE_CROSS_K:
        case VX_ROLE_CROSS_V: rows = qkv_rows(sh, s, t); break;
        case VX_ROLE_ATTN_Q_B:
        case VX_ROLE_ATTN_KV_B: rows = vx_ceil_div(rows, atp); break; /* column parallel in the attention group */
        case VX_ROLE_MLP_GATE:
        case VX_ROLE_MLP_UP:
        case VX_ROLE_MLP_GATE_UP:
        case VX_ROLE_SHARED_GATE:
        case VX_ROLE_SHARED_UP:
        /* recurrent mixers split by heads: their projections, convolution
         * channels and per-head vectors (vLLM, Megatron) */
        case VX_ROLE_SSM_IN:
        case VX_ROLE_SSM_IN2:
        case VX_ROLE_SSM_CONV:
        case VX_ROLE_SSM_DT:
        case VX_ROLE_SSM_PARAM: rows = vx_ceil_div(rows, tp); break; /* column parallel */
        case VX_ROLE_ATTN_O:
        case VX_ROLE_CROSS_O:
            if (!bias) cols = vx_ceil_div(cols, atp);
            break;
        case VX_ROLE_SSM_X:
        case VX_ROLE_MLP_DOWN:
        case VX_ROLE_SHARED_DOWN:
        case VX_ROLE_SSM_OUT:
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
        case VX_ROLE_REL_BIAS: cols = vx_ceil_div(cols, atp); break; /* buckets x heads: split by head */
        case VX_ROLE_EMBED:
            /* DP attention embeds each group's own tokens: SGLang builds
             * VocabParallelEmbedding(enable_tp=not is_dp_attention_enabled()) */
            if (sh->attn_dp <= 1) rows = vocab_rows(sh, x, t->rows);
            break;
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
    case VRAMEST_CAT_GRADIENTS: return sh->zero_stage >= 3 || (sh->zero_stage == 2 && !sh->grads_whole) ? g : 1;
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

uint64_t vx_shard_tensor_bytes(const vx_shard *sh, const vx_ctx *x, const vx_tensor *t)
{
    uint64_t full = vx_tensor_elems(t), part = vx_shard_tensor_elems(sh, x, t), b = vx_tensor_gpu_bytes(&x->pol, t);
    if (!full || !part) return 0;
    if (part >= full) return b;
    /* Same layout, fewer rows/layers/experts: scale exactly in 128 bits. */
    unsigned __int128 v = (unsigned __int128)b * part / full;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void vx_shard_add(vx_ctx *x, const vx_shard *sh, int category, uint64_t bytes, uint64_t low, uint64_t high, int prov)
{
    int dev = vx_shard_offload_device(sh, category);
    if (dev != VRAMEST_DEV_GPU) {
        uint64_t n = sh->host_ranks > 0 ? (uint64_t)sh->host_ranks : 1;
        bytes = vx_sat_mul(bytes, n), low = vx_sat_mul(low, n), high = vx_sat_mul(high, n);
    }
    vx_result_add(x->r, dev, category, bytes, low, high, prov);
}

void vx_shard_largest(const vx_ctx *x, const vx_shard *sh, uint64_t *layer_elems, uint64_t *module_elems)
{
    const vx_shape *s = x->pol.s;
    uint64_t dense = 0, moe = 0, module = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        uint64_t e = vx_shard_tensor_elems(sh, x, t);
        if (!e) continue;
        if (t->part != VX_PART_GLOBAL) {
            /* elements of one layer of the group on this rank */
            uint64_t here = t->part == VX_PART_DECODER ? group_layers_here(sh, s, t) : 0;
            if (!here) here = t->n_layers > 0 ? vx_min_u64((uint64_t)t->n_layers, vx_max_u64(1, (uint64_t)sh->stage_layers)) : 1;
            uint64_t one = e / here;
            if (s->dense_layers > 0 && t->n_layers == s->dense_layers && !t->expert) dense = vx_sat_add(dense, one);
            else if (s->dense_layers > 0 && t->n_layers == s->layers - s->dense_layers) moe = vx_sat_add(moe, one);
            else dense = vx_sat_add(dense, one), moe = vx_sat_add(moe, one);
            e = one;
        }
        /* one module = one copy (an expert's linear, the embedding) */
        uint64_t copies = t->n_per_layer > 0 ? (uint64_t)t->n_per_layer : 1;
        if (t->expert && sh->ep > 1) copies = vx_ceil_div(copies, (uint64_t)sh->ep);
        module = vx_max_u64(module, e / copies);
    }
    if (layer_elems) *layer_elems = vx_max_u64(dense, moe);
    if (module_elems) *module_elems = module;
}

int vx_shard_zero3_linear(const vx_ctx *x, const vx_shard *sh)
{
    return sh->zero_stage >= 3 && sh->fsdp == VX_FSDP_NONE && x->rt.zero == VX_ZERO_DEEPSPEED;
}

uint64_t vx_nccl_bytes(const vx_ctx *x, const vx_shard *sh)
{
    if (x->cv->nccl_mib >= 0) return (uint64_t)(x->cv->nccl_mib * (double)VX_MIB);
    /* Communicators are created on the first collective; loading runs none. */
    if (sh->world <= 1 || sh->placement || x->cv->mode == VX_MODE_LOAD) return 0;
    /* ggml's CUDA backend moves activations between GPUs with peer copies,
     * no NCCL communicators (llama.cpp, Ollama's runner). */
    if (x->rt.ggml_alloc) return 0;
    /* Research note §2.4: ~512 MiB for the first communicator on an NVLink
     * node, ~256 MiB per further process group (lazily created). */
    int groups = (sh->dp * sh->cp > 1) + (sh->tp > 1) + (sh->pp > 1) + (sh->cp > 1) + (sh->ep > 1) +
                 (sh->fsdp == VX_FSDP_HYBRID_SHARD);
    if (groups < 1) groups = 1;
    return 512 * VX_MIB + (uint64_t)(groups - 1) * 256 * VX_MIB;
}

static unsigned dsize(int dtype, unsigned dflt)
{
    unsigned b = vx_dtype_size(dtype);
    return b ? b : dflt;
}

void vx_parallel_buffers(const vx_ctx *x, const vx_shard *sh, uint64_t trainable, vx_par_buffers *o)
{
    const vx_config_values *c = x->cv;
    const vx_shape *s = x->pol.s;
    memset(o, 0, sizeof *o);
    o->nccl = vx_nccl_bytes(x, sh);
    const vx_resolved_precision *rp = &x->pol.rp;
    unsigned pb = dsize(rp->param_dtype, 2), gb = dsize(rp->grad_dtype, pb), ab = dsize(rp->compute_dtype, 2);
    uint64_t g = sh->shard_group > 1 ? (uint64_t)sh->shard_group : 1;

    /* Parameters on this rank after TP/PP/EP, and the largest units; the
     * layers' parameters (`body`) and the output head's (`head`, the
     * embedding matrix when tied). */
    uint64_t params = 0, small = 0, body = 0, head = 0, embed = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        uint64_t e = vx_shard_tensor_elems(sh, x, t);
        params = vx_sat_add(params, e);
        if (t->part != VX_PART_GLOBAL) body = vx_sat_add(body, e);
        else if (VX_ROLE_IS_HEAD(t->role)) head = vx_sat_add(head, e);
        else if (t->role == VX_ROLE_EMBED) embed = vx_sat_add(embed, e);
        uint64_t per = (uint64_t)(t->rows > 0 ? t->rows : 0) * (uint64_t)(t->cols > 0 ? t->cols : 1);
        if (per < (uint64_t)c->param_persistence_threshold) small = vx_sat_add(small, e);
    }
    if (trainable == UINT64_MAX || trainable > params) trainable = params;
    if (!head && s->tied && sh->last_stage) head = embed; /* a tied head has no tensor of its own */
    uint64_t layer = 0, module = 0;
    vx_shard_largest(x, sh, &layer, &module);
    uint64_t root = 0; /* FSDP root unit: everything outside the decoder layers */
    if (sh->fsdp != VX_FSDP_NONE) {
        vx_tensor_iter_init(&it, &x->pol);
        for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));)
            if (t->part == VX_PART_GLOBAL) root = vx_sat_add(root, vx_shard_tensor_elems(sh, x, t));
    }
    int train = c->mode == VX_MODE_TRAIN;
    int overlap = c->overlap_comm == VX_OVERLAP_ON || (c->overlap_comm == VX_OVERLAP_AUTO && sh->zero_stage >= 3);
    uint64_t rbucket = (uint64_t)c->reduce_bucket_size;

    if (sh->fsdp2 && sh->fsdp != VX_FSDP_SHARD_GRAD_OP) {
        /* FSDP2 (torch/distributed/fsdp/_fully_shard; torchtitan's
         * apply_fsdp; research runtimes-2026 §3.3): parameters are
         * all-gathered in MixedPrecisionPolicy's param_dtype (the compute
         * dtype); the root module is never resharded after forward (its
         * own parameters - embeddings, final norm, output head outside the
         * blocks - stay gathered all step); forward holds the current and
         * the prefetched block; the last block is not resharded, so
         * backward holds it, the current block, the prefetched one and one
         * all-gather in flight. */
        if (g > 1 || sh->offload_params) {
            uint64_t rootb = vx_sat_mul(root, ab), lay = vx_sat_mul(layer, ab);
            o->weights_fwd = vx_sat_add(rootb, vx_sat_mul(2, lay));
            o->weights_bwd = vx_sat_add(rootb, vx_sat_mul(3, lay));
            /* each block's unsharded gradient, copied into the fp32 (reduce_dtype)
             * reduce-scatter input until the next reduce-scatter */
            if (train) o->grads_bwd = vx_sat_mul(layer, gb);
        }
        if (train && c->grad_accum_steps > 1 && g > 1)
            o->grads_accum = vx_sat_mul(trainable - trainable / g, gb);
        return;
    }
    if (sh->fsdp != VX_FSDP_NONE) {
        /* FSDP1 flat parameters: the root unit stays unsharded through the
         * forward; limit_all_gathers keeps the current and one prefetched
         * unit, without it a third may be in flight. */
        uint64_t units = c->limit_all_gathers ? 2 : 3;
        uint64_t gathered = vx_sat_add(root, vx_sat_mul(units, layer));
        if (g > 1 || sh->offload_params) {
            if (sh->fsdp == VX_FSDP_SHARD_GRAD_OP)
                /* Not resharded after forward: every unit stays gathered until its backward. */
                gathered = params;
            o->weights_fwd = vx_sat_mul(gathered, pb);
            o->weights_bwd = o->weights_fwd;
            /* minus the shard each rank holds anyway */
            if (train) o->grads_bwd = vx_sat_mul(layer, gb); /* unsharded grad of one unit before reduce-scatter */
        }
        /* Gradient accumulation under no_sync (accelerate's default for FSDP
         * unless sync_each_batch): the unsharded gradients of every unit stay
         * until the synchronizing micro-batch, minus the shard kept anyway. */
        if (train && c->grad_accum_steps > 1 && g > 1)
            o->grads_accum = vx_sat_mul(trainable - trainable / g, gb);
        return;
    }
    if (sh->zero_stage >= 3 && x->rt.zero == VX_ZERO_DEEPSPEED) {
        /* DeepSpeed ZeRO-3: small parameters persist whole; the coordinator
         * gathers the current module and prefetches up to prefetch_bucket_size
         * more elements, under max_live_parameters. */
        if (g > 1 || sh->offload_params) {
            o->weights_persistent = vx_sat_mul(small - small / g, pb);
            uint64_t live = vx_sat_add(layer, vx_min_u64((uint64_t)c->prefetch_bucket_size, layer));
            live = vx_max_u64(vx_min_u64(live, (uint64_t)c->max_live_parameters), vx_max_u64(layer, module));
            if (train) {
                /* max_reuse_distance D (partitioned_param_coordinator.py,
                 * __params_to_release): after a module runs, the trace is
                 * walked forward until D elements of parameters were passed;
                 * parameters met again on the way are not released. A
                 * layer's next use is its backward: between the two lie the
                 * modules after it (S), the head forward and backward (2H)
                 * and S again, so the modules with 2S + 2H < D (a suffix of
                 * the layers, (D - 2H) / 2 elements) stay gathered from
                 * forward to backward, and so does the head itself. The
                 * release ignores max_live_parameters. */
                uint64_t D = (uint64_t)c->max_reuse_distance, twoh = vx_sat_mul(head, 2);
                uint64_t kept = D > twoh ? vx_min_u64(body, (D - twoh) / 2) : 0;
                live = vx_max_u64(live, vx_sat_add(head, kept));
            }
            o->weights_fwd = vx_sat_mul(live, pb);
            o->weights_bwd = o->weights_fwd;
        }
        if (train && trainable) {
            /* __ipg_bucket_flat_buffer: reduce_bucket_size elements of the
             * model dtype, allocated whole with contiguous_gradients when the
             * optimizer is built (stage3.py _setup_for_real_optimizer) and
             * kept for the optimizer's life: it exists through the whole
             * step, forward included (ZeRO-1/2 allocate theirs in backward). */
            o->grads_persistent = vx_sat_mul(rbucket, pb);
            /* fp32 gradient buffer of the largest optimizer sub-group, on the
             * GPU unless the optimizer is offloaded. */
            if (!sh->offload_optimizer)
                o->step = vx_sat_mul(vx_min_u64(vx_ceil_div(trainable, g), (uint64_t)c->sub_group_size), 4);
        }
    } else if (sh->zero_stage >= 1 && x->rt.zero == VX_ZERO_DEEPSPEED) {
        if (train && trainable) {
            /* ipg_buffer: reduce_bucket_size elements, twice with overlap_comm. */
            o->grads_bwd = vx_sat_mul(vx_sat_mul(rbucket, pb), overlap ? 2 : 1);
            /* single_grad_partition: the fp32 copy of this rank's gradient
             * partition for the step (on the host when offloaded). */
            if (!sh->offload_optimizer) o->step = vx_sat_mul(vx_ceil_div(trainable, g), 4);
        }
    } else if (train && trainable && sh->dp * sh->cp > 1) {
        if (x->rt.ddp == VX_DDP_DEEPSPEED)
            /* buffered_allreduce_fallback flattens up to 5e8 elements at a time */
            o->grads_bwd = vx_sat_mul(vx_min_u64(trainable, 500000000u), gb);
        else if (x->rt.ddp == VX_DDP_TORCH)
            /* torch DDP: bucket tensors the size of all gradients
             * (gradient_as_bucket_view=False), allocated at wrap time. */
            o->grads_persistent = vx_round_up(vx_sat_mul(trainable, gb), 512);
        /* Megatron DDP reduces in place in its contiguous main_grad buffer. */
    }
    if (s->experts > 0 && sh->ep > 1) {
        /* dispatch + combine of this rank's tokens, top-k copies each */
        uint64_t tok = vx_sat_mul((uint64_t)c->batch_size, (uint64_t)(train ? c->seq_len : (c->prompt_len ? c->prompt_len : c->seq_len)));
        tok /= (uint64_t)sh->cp * (uint64_t)(sh->sequence_parallel ? sh->tp : 1);
        uint64_t k = (uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1);
        o->a2a = vx_sat_mul(vx_sat_mul(vx_sat_mul(tok, k), (uint64_t)s->hidden), 2u * ab);
    }
    o->host_pinned = vx_parallel_host_pinned(x, sh);
}

uint64_t vx_parallel_host_pinned(const vx_ctx *x, const vx_shard *sh)
{
    uint64_t h = 0;
    if (sh->offload_params == VX_OFFLOAD_NVME) /* param swapper: buffer_count 5 x buffer_size 1e8 */
        h = vx_sat_add(h, vx_sat_mul(500000000u, dsize(x->pol.rp.param_dtype, 2)));
    if (sh->offload_optimizer == VX_OFFLOAD_NVME) /* pipelined optimizer swapper: 4 x 1e8 fp32 */
        h = vx_sat_add(h, vx_sat_mul(400000000u, 4));
    return h;
}

/* ---- several ranks ---- */

/* What one rank's estimate writes: the figures block of the result (the
 * categories, bands, provenance and values, contiguous from `cat` to
 * `n_warn`) and the timeline up to its count. */
#define VX_FIG_BEGIN offsetof(struct vramest_result, cat)
#define VX_FIG_END offsetof(struct vramest_result, n_warn)
typedef struct rank_snap {
    unsigned char figures[VX_FIG_END - VX_FIG_BEGIN];
    uint32_t n_timeline;
    vx_timeline_point timeline[VX_MAX_TIMELINE];
} rank_snap;

static void snap_save(rank_snap *d, const struct vramest_result *r)
{
    memcpy(d->figures, (const unsigned char *)r + VX_FIG_BEGIN, sizeof d->figures);
    d->n_timeline = r->n_timeline;
    memcpy(d->timeline, r->timeline, r->n_timeline * sizeof r->timeline[0]);
}

static void snap_load(struct vramest_result *r, const rank_snap *d)
{
    memcpy((unsigned char *)r + VX_FIG_BEGIN, d->figures, sizeof d->figures);
    r->n_timeline = d->n_timeline;
    memcpy(r->timeline, d->timeline, d->n_timeline * sizeof r->timeline[0]);
}

/* Drop warnings a later rank repeated. */
static void dedupe_warnings(struct vramest_result *r, uint32_t before)
{
    uint32_t w = before;
    for (uint32_t i = before; i < r->n_warn; i++) {
        int dup = 0;
        for (uint32_t j = 0; j < before && !dup; j++) dup = !strcmp(r->warn[i], r->warn[j]);
        if (!dup) {
            if (w != i) memcpy(r->warn[w], r->warn[i], VX_WARN_LEN);
            w++;
        }
    }
    r->n_warn = w;
}

static uint64_t gpu_total(const struct vramest_result *r)
{
    uint64_t t = 0;
    for (int c = 0; c < VX_NCAT; c++) t = vx_sat_add(t, r->cat[VRAMEST_DEV_GPU][c]);
    return t;
}

static void record_group(const vx_ctx *x, vx_rank_group *g, const char *label, int64_t ranks)
{
    const struct vramest_result *r = x->r;
    memset(g, 0, sizeof *g);
    vx_strlcpy(g->label, label, sizeof g->label);
    g->ranks = ranks;
    uint64_t a = 0;
    for (int c = 0; c < VX_NCAT; c++) {
        g->cat[c] = r->cat[VRAMEST_DEV_GPU][c];
        if (c != VRAMEST_CAT_FRAMEWORK && c != VRAMEST_CAT_ALLOCATOR) a = vx_sat_add(a, g->cat[c]);
    }
    /* The CUDA context is added to the headline after the mode estimator
     * (vx_runtime_terms); every rank has one. */
    g->cat[VRAMEST_CAT_FRAMEWORK] = vx_sat_add(g->cat[VRAMEST_CAT_FRAMEWORK], vx_cuda_context_bytes(x));
    g->peak_allocated = a;
    g->peak_reserved = vx_sat_add(a, g->cat[VRAMEST_CAT_ALLOCATOR]);
    g->device_total = vx_sat_add(g->peak_reserved, g->cat[VRAMEST_CAT_FRAMEWORK]);
}

/* Candidate ranks: pipeline stages that differ, or the GPUs of a placement. */
typedef struct cand {
    vx_shard sh;
    int64_t ranks;
    char label[48];
} cand;

static int same_stage(const vx_shard *a, const vx_shard *b)
{
    return a->stage_layers == b->stage_layers && a->inflight_layer_mb == b->inflight_layer_mb &&
           a->inflight_microbatches == b->inflight_microbatches && a->first_stage == b->first_stage &&
           a->last_stage == b->last_stage;
}

/* Stage `sh` into its group: the first group of the same load, else a new
 * one; with every group taken, the middle stages join the last middle
 * group, whose breakdown is the heavier. */
static void add_stage(cand *cs, int *n, const vx_shard *sh, int64_t per_stage)
{
    int j = 0;
    while (j < *n && !same_stage(&cs[j].sh, sh)) j++;
    if (j < *n) {
        cs[j].ranks += per_stage;
        return;
    }
    if (*n == VX_MAX_RANKS) {
        int m = *n - 2 >= 1 ? *n - 2 : *n - 1;
        if (sh->inflight_layer_mb > cs[m].sh.inflight_layer_mb) cs[m].sh = *sh;
        cs[m].ranks += per_stage;
        return;
    }
    cs[*n].sh = *sh;
    cs[*n].ranks = per_stage;
    (*n)++;
}

/* Runs of middle stages (issue #21: grouping 4096 stages one by one took
 * 21.9 ms). Between the first and the last stage, stages of the same
 * in-flight factor whose layers are not clamped hold q or q + 1 layers;
 * clamped ones hold one. Once each layer count that a run still holds
 * matches a group, the rest of the run only adds ranks to those groups,
 * counted from e() in O(1) - as the stages one by one would. */
typedef struct stage_runs {
    const stage_split *sp;
    int64_t clamped; /* split_clamped_from */
    int64_t q;       /* split_min_layers */
    int64_t end;     /* the current run's end (exclusive); 0: none yet */
} stage_runs;

/* The group of a stage like `sh` with `layers` layers, or -1. */
static int group_of(const vx_ctx *x, const cand *cs, int n, const vx_shard *sh, int64_t layers)
{
    vx_shard t = *sh;
    t.stage_layers = layers;
    inflight(x->cv, &t);
    for (int j = 0; j < n; j++)
        if (same_stage(&cs[j].sh, &t)) return j;
    return -1;
}

/* A 1F1B tail: from stage k on, each stage holds one micro-batch fewer
 * than the one before (grad_accum_steps >= pp - k), so none can match a
 * group; with every group taken, each joins the last middle group, which
 * keeps the first stage of the largest load (strictly larger than its own).
 * Up to the clamp or the last stage, that is stage k or the first stage
 * from k with q + 1 layers (the load is micro-batches x layers). */
static int64_t tail_run(const vx_ctx *x, const stage_runs *r, const vx_shard *sh, int64_t k, cand *cs, int n,
                        int64_t per_stage)
{
    const stage_split *sp = r->sp;
    if (n < VX_MAX_RANKS || sh->pp_schedule == VX_PPS_GPIPE || sh->virtual_stages > 1) return k;
    int64_t f = inflight_factor(x->cv, sh, k);
    if (f == 0 || inflight_factor(x->cv, sh, k - 1) == f) return k; /* stage k may still match the run before */
    int64_t hi = k < r->clamped ? r->clamped : sp->pp - 1;
    if (hi - k < 2) return k;
    int64_t lk = split_end(sp, k) - split_end(sp, k - 1), best = k, load = f * lk;
    if (k < r->clamped && lk == r->q && !sp->uniform) {
        /* layers(j) = q + floor(R(j+1)/D) - floor(Rj/D), R = T mod D */
        unsigned __int128 R = sp->T % sp->D;
        if (R) {
            unsigned __int128 g = R * (unsigned __int128)(uint64_t)k / sp->D;
            unsigned __int128 j1 = (sp->D * (g + 1) + R - 1) / R - 1;
            if (j1 < (unsigned __int128)(uint64_t)hi) {
                int64_t k1 = (int64_t)j1;
                if (k1 <= k || split_end(sp, k1) - split_end(sp, k1 - 1) != r->q + 1 ||
                    split_end(sp, k1 - 1) - split_end(sp, k1 - 2) != r->q)
                    return k; /* not the arithmetic above: group one by one */
                int64_t l1 = inflight_factor(x->cv, sh, k1) * (r->q + 1);
                if (l1 > load) best = k1, load = l1;
            }
        }
    }
    int g6 = VX_MAX_RANKS - 2;
    if (load > cs[g6].sh.inflight_layer_mb) {
        vx_shard t = *sh;
        set_stage_at(x, sp, best, -1, &t);
        cs[g6].sh = t;
    }
    cs[g6].ranks += (hi - k) * per_stage;
    return hi;
}

/* Stage k is next; `sh` is stage k-1 (just grouped). Returns the next stage
 * to group one by one: k, or the end of a run counted whole. */
static int64_t skip_run(const vx_ctx *x, stage_runs *r, const vx_shard *sh, int64_t k, cand *cs, int n,
                        int64_t per_stage)
{
    const stage_split *sp = r->sp;
    int64_t last = sp->pp - 1;
    if (k <= 1 || k >= last || k == r->clamped) return k;
    if (k >= r->end) {
        /* This run: the stages from k with stage k's in-flight factor, on
         * one side of the clamp, before the last stage. */
        int64_t f = inflight_factor(x->cv, sh, k);
        if (inflight_factor(x->cv, sh, k + 1) != f) return tail_run(x, r, sh, k, cs, n, per_stage);
        int64_t lo = k, hi = k < r->clamped ? r->clamped : last; /* the end is in (lo, hi] */
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (inflight_factor(x->cv, sh, mid) == f) lo = mid;
            else hi = mid;
        }
        r->end = hi;
    }
    int64_t len = r->end - k;
    if (len < 2) return k;
    /* Layers on stages k..end-1, and how many of them hold q + 1. */
    int64_t q = k > r->clamped ? 1 : r->q;
    int64_t sum = split_end(sp, r->end - 1) - split_end(sp, k - 1);
    int64_t more = sum - q * len, fewer = len - more;
    if (more < 0 || fewer < 0) return k;
    vx_shard t = *sh;
    t.stage = k;
    t.first_stage = 0;
    int jq = fewer ? group_of(x, cs, n, &t, q) : 0, jm = more ? group_of(x, cs, n, &t, q + 1) : 0;
    if (jq < 0 || jm < 0) return k;
    if (fewer) cs[jq].ranks += fewer * per_stage;
    if (more) cs[jm].ranks += more * per_stage;
    return r->end;
}

/* Append `str` / the decimal `v` at out[o], within cap (always terminated);
 * returns the new length. */
static size_t put_str(char *out, size_t cap, size_t o, const char *str)
{
    while (*str && o + 1 < cap) out[o++] = *str++;
    out[o < cap ? o : cap - 1] = 0;
    return o;
}

static size_t put_i64(char *out, size_t cap, size_t o, int64_t v)
{
    char d[24];
    int n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do d[n++] = (char)('0' + u % 10), u /= 10;
    while (u);
    if (v < 0) d[n++] = '-';
    char rev[24];
    for (int i = 0; i < n; i++) rev[i] = d[n - 1 - i];
    rev[n] = 0;
    return put_str(out, cap, o, rev);
}

/* "<head>embed, layers 0-15, head<tail>", cut to fit `cap` (a rank
 * group's label is short, 48 bytes); the layer range alone to 31. */
static void layers_label(char *out, size_t cap, const char *head, const vx_shard *sh, const char *tail)
{
    char lay[32] = "no layers";
    if (sh->stage_layers == 1) {
        put_i64(lay, sizeof lay, put_str(lay, sizeof lay, 0, "layer "), sh->first_layer);
    } else if (sh->stage_layers > 1) {
        size_t l = put_i64(lay, sizeof lay, put_str(lay, sizeof lay, 0, "layers "), sh->first_layer);
        put_i64(lay, sizeof lay, put_str(lay, sizeof lay, l, "-"), sh->first_layer + sh->stage_layers - 1);
    }
    size_t o = put_str(out, cap, 0, head);
    if (sh->first_stage) o = put_str(out, cap, o, "embed, ");
    o = put_str(out, cap, o, lay);
    if (sh->last_stage) o = put_str(out, cap, o, ", head");
    put_str(out, cap, o, tail);
}

int vx_for_each_rank_group(vx_ctx *x, vx_rank_fn estimate_one)
{
    const vx_config_values *c = x->cv;
    struct vramest_result *r = x->r;
    vx_shard one;
    int rc;
    vx_placement pl;
    int placed = c->device_map != VX_DMAP_NONE;
    if (!placed && c->gpus == 1) {
        /* The common case: one GPU, one call, nothing to compare. */
        if ((rc = vx_shard_resolve(x, 0, &one))) return rc;
        return estimate_one(x, &one);
    }
    cand cs[VX_MAX_RANKS];
    int n = 0;
    if (placed) {
        int64_t dp = 1;
        if ((rc = check_layout(x, &dp))) return rc;
        if ((rc = placement_resolve(x, &pl))) return rc;
        if (!pl.n_gpu)
            return vx_fail(VRAMEST_E_CONFLICT, "max_memory '%s' lists no GPU: nothing would run on a GPU", c->max_memory);
        for (int k = 0; k < pl.n_gpu && n < VX_MAX_RANKS; k++) {
            if (!pl.d[k].used && k > 0) continue; /* an empty GPU holds only the context */
            placement_shard(x, &pl, k, &cs[n].sh);
            cs[n].ranks = 1;
            char head[16];
            snprintf(head, sizeof head, "cuda:%lld (", (long long)pl.d[k].id);
            layers_label(cs[n].label, sizeof cs[n].label, head, &cs[n].sh, ")");
            n++;
        }
    } else {
        int64_t per_stage = c->gpus / c->pp;
        vx_shard base;
        if ((rc = vx_shard_resolve(x, 0, &base))) return rc; /* checks the layout once */
        if (c->pp == 1) {
            add_stage(cs, &n, &base, per_stage);
        } else {
            stage_split sp;
            split_init(x, c->pp, &sp);
            stage_runs runs = {.sp = &sp, .clamped = split_clamped_from(&sp), .q = split_min_layers(&sp)};
            vx_shard st = base;
            for (int64_t k = 0; k < c->pp;) {
                /* stage k: stage k-1's shard but for the stage's own fields */
                set_stage_at(x, &sp, k, k > 0 && st.stage == k - 1 ? st.first_layer + st.stage_layers : -1, &st);
                add_stage(cs, &n, &st, per_stage);
                k = skip_run(x, &runs, &st, k + 1, cs, n, per_stage);
            }
        }
        /* The last stage must keep its own group when groups overflowed. */
        for (int i = 0; i < n; i++) {
            const vx_shard *sh = &cs[i].sh;
            char head[40];
            if (c->pp == 1) {
                /* every rank alike: name the layout, "all 64 ranks (tp 8 dp 8)"
                 * (built by hand: snprintf was a tenth of such an estimate) */
                char *l = cs[i].label;
                size_t cap = sizeof cs[i].label, o = 0;
                o = put_str(l, cap, o, "all ");
                o = put_i64(l, cap, o, c->gpus);
                o = put_str(l, cap, o, " ranks (");
                const char *sep = "";
                if (c->tp > 1) o = put_i64(l, cap, put_str(l, cap, o, "tp "), c->tp), sep = " ";
                if (sh->attn_dp > 1) o = put_i64(l, cap, put_str(l, cap, o, " attention dp "), sh->attn_dp);
                if (c->cp > 1) o = put_i64(l, cap, put_str(l, cap, put_str(l, cap, o, sep), "cp "), c->cp), sep = " ";
                if (sh->dp > 1) o = put_i64(l, cap, put_str(l, cap, put_str(l, cap, o, sep), "dp "), sh->dp);
                put_str(l, cap, o, ")");
                continue;
            }
            else if (cs[i].ranks == per_stage)
                snprintf(head, sizeof head, "pp stage %lld (", (long long)sh->stage);
            else
                snprintf(head, sizeof head, "pp stages like %lld (x%lld, ", (long long)sh->stage,
                         (long long)(cs[i].ranks / per_stage));
            layers_label(cs[i].label, sizeof cs[i].label, head, sh, ")");
        }
    }

    rank_snap base, worst;
    if (n > 1) snap_save(&base, r);
    uint32_t warn0 = r->n_warn;
    uint64_t worst_total = 0;
    int worst_i = -1;
    r->n_ranks = 0;
    for (int i = 0; i < n; i++) {
        if (i) snap_load(r, &base);
        uint32_t before = r->n_warn;
        if ((rc = estimate_one(x, &cs[i].sh))) return rc;
        if (i) dedupe_warnings(r, before > warn0 ? before : warn0);
        uint64_t nccl = vx_nccl_bytes(x, &cs[i].sh);
        if (nccl)
            vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_FRAMEWORK, nccl, nccl / 2, vx_sat_mul(nccl, 2),
                          VRAMEST_PROV_EMPIRICAL);
        if (placed && cs[i].sh.device_index == pl.d[0].id && pl.exec_buffer)
            /* accelerate's hooks bring each offloaded layer to cuda:0 to run it */
            vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, pl.exec_buffer, pl.exec_buffer, pl.exec_buffer,
                          VRAMEST_PROV_FORMULA);
        record_group(x, &r->ranks[r->n_ranks++], cs[i].label, cs[i].ranks);
        uint64_t tot = gpu_total(r);
        if (worst_i < 0 || tot > worst_total) {
            worst_total = tot;
            worst_i = i;
            if (i < n - 1) snap_save(&worst, r);
        } else if (i == n - 1) {
            snap_load(r, &worst);
        }
    }
    if (worst_i >= 0 && n > 1) {
        size_t len = strlen(r->ranks[worst_i].label);
        if (len + 8 < sizeof r->ranks[worst_i].label) memcpy(r->ranks[worst_i].label + len, " worst", 7);
    }
    if (placed) {
        /* Layers accelerate put on the CPU and the disk. */
        uint64_t host = 0, disk = 0;
        for (int k = pl.n_gpu; k < pl.n; k++) {
            const place_dev *d = &pl.d[k];
            uint64_t b = d->used;
            if (d->id == -1) host = b;
            else disk = b;
        }
        if (host) vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_WEIGHTS, host, host, host, VRAMEST_PROV_FORMULA);
        if (disk) {
            vx_result_add(r, VRAMEST_DEV_NVME, VRAMEST_CAT_WEIGHTS, disk, disk, disk, VRAMEST_PROV_FORMULA);
            vx_result_warn(r, "device_map: %llu bytes of layers do not fit the GPUs and the CPU budget and are "
                              "offloaded to disk (needs offload_folder)",
                           (unsigned long long)disk);
        }
    }
    return VRAMEST_OK;
}
