/* Training-step estimator (issue #5): the step timeline and its peak.
 *
 * The static terms (static_terms.c) give what lives through the step:
 * weights, fp32 master weights, optimizer states, and the gradients that
 * exist from the first backward of a step until zero_grad(set_to_none=True)
 * after optimizer.step(). The programs (activations.c, logits.c) give, per
 * layer class, what forward keeps and the transient peaks of forward and
 * backward. The step is then composed in closed form over layers:
 *   forward   base + gradients (if accumulated or never cleared) + saved
 *             activations of the layers before + this layer's forward peak;
 *   backward  base + gradients so far + activations of the layers below +
 *             this layer's backward peak (its saved tensors, the incoming
 *             gradient, the new parameter gradients, the kernels' scratch);
 *             with checkpointing, the layer is recomputed first;
 *   optimizer base + all gradients + the step's temporaries.
 * Steady state (step >= 2: optimizer states exist; with grad_accum_steps > 1
 * the later micro-batches run with the gradients already allocated). The
 * peak is the largest point; the categories of the result are the breakdown
 * at that instant. */
#include <string.h>

#include "api/config.h"
#include "estimate/progcache.h"
#include "estimate/train.h"

void vx_train_knobs_default(vx_train_knobs *k)
{
    k->torch_major = 2;
    k->cpu = 0;
    k->hf_legacy = 1;
    k->shift_copy = -1;
    k->logits_held = -1;
    k->mask_bytes = 1;
    k->adapter_bytes = 0;
}

/* The context the rank callback receives: vx_for_each_rank_group passes the
 * vx_ctx, which is the first member. */
typedef struct vx_train_ctx {
    vx_ctx x;
    const vx_train_knobs *k;
} vx_train_ctx;

typedef struct vx_mem {
    uint64_t c[VX_NCAT];
} vx_mem;

static uint64_t mem_alloc(const vx_mem *m)
{
    uint64_t a = 0;
    for (int i = 0; i < VX_NCAT; i++)
        if (i != VRAMEST_CAT_FRAMEWORK && i != VRAMEST_CAT_ALLOCATOR) a = vx_sat_add(a, m->c[i]);
    return a;
}

static const int tc_cat[VX_TC_N] = {VRAMEST_CAT_ACTIVATIONS, VRAMEST_CAT_LOGITS, VRAMEST_CAT_WORKSPACE,
                                    VRAMEST_CAT_GRADIENTS, VRAMEST_CAT_ADAPTER};

/* m += v * n (tape categories) */
static void add_tc(vx_mem *m, const uint64_t v[VX_TC_N], uint64_t n)
{
    for (int i = 0; i < VX_TC_N; i++) m->c[tc_cat[i]] = vx_sat_add(m->c[tc_cat[i]], vx_sat_mul(v[i], n));
}

static void add_cat(vx_mem *m, int cat, uint64_t b)
{
    m->c[cat] = vx_sat_add(m->c[cat], b);
}

typedef struct vx_peak {
    vx_mem at;
    uint64_t total;
    int phase;
} vx_peak;

typedef struct vx_step {
    vx_peak best;
    struct vramest_result *r;
    int tl_on;
} vx_step;

static void point(vx_step *st, const vx_mem *m, int phase, int layer, const char *label, int record)
{
    uint64_t t = mem_alloc(m);
    if (t > st->best.total) {
        st->best.at = *m;
        st->best.total = t;
        st->best.phase = phase;
    }
    if (record && st->tl_on && st->r->n_timeline < VX_MAX_TIMELINE) {
        vx_timeline_point *p = &st->r->timeline[st->r->n_timeline++];
        p->phase = (uint8_t)phase;
        p->layer = layer;
        p->allocated = t;
        p->label = label;
    }
}

/* A stack of identical layers. */
typedef struct vx_stack {
    int64_t n;
    int64_t first;             /* index of its first layer in the model's stack */
    const char *name;          /* "layer", "encoder layer", "decoder layer" */
    vx_prog p;                 /* one layer: forward (saved / checkpointed) and backward (keeping / summing) */
    int ckpt;
    uint64_t kept[VX_TC_N];    /* per layer kept through forward */
} vx_stack;

static int is_llama_family(int fam)
{
    switch (fam) {
    case VX_FAM_LLAMA: case VX_FAM_MISTRAL: case VX_FAM_QWEN2: case VX_FAM_QWEN3: case VX_FAM_GEMMA:
    case VX_FAM_GEMMA2: case VX_FAM_GEMMA3: case VX_FAM_PHI3: case VX_FAM_MIXTRAL: case VX_FAM_QWEN2_MOE:
    case VX_FAM_QWEN3_MOE: case VX_FAM_DEEPSEEK_V2: case VX_FAM_DEEPSEEK_V3: case VX_FAM_PHI: return 1;
    default: return 0;
    }
}

static int style_of_family(int fam)
{
    switch (fam) {
    case VX_FAM_GPT2: case VX_FAM_GPT_BIGCODE: return VX_STYLE_GPT2;
    case VX_FAM_OPT: return VX_STYLE_OPT;
    case VX_FAM_BERT: return VX_STYLE_BERT;
    case VX_FAM_T5: case VX_FAM_MT5: return VX_STYLE_T5;
    case VX_FAM_BLOOM: return VX_STYLE_BLOOM;
    case VX_FAM_GPT_NEOX: return VX_STYLE_NEOX;
    case VX_FAM_FALCON: return VX_STYLE_FALCON;
    case VX_FAM_PHI: return VX_STYLE_PHI;
    case VX_FAM_GPTJ: case VX_FAM_CODEGEN: case VX_FAM_MOSS: return VX_STYLE_GPTJ;
    case VX_FAM_CHATGLM: return VX_STYLE_GLM;
    default: return VX_STYLE_LLAMA;
    }
}

/* Families whose Hugging Face classes have no SDPA / flash-attention path
 * (at the versions these estimates model): they run eager whatever is asked. */
static int eager_only(int fam)
{
    return fam == VX_FAM_T5 || fam == VX_FAM_MT5 || fam == VX_FAM_BLOOM || fam == VX_FAM_CHATGLM ||
           fam == VX_FAM_MOSS || fam == VX_FAM_CODEGEN;
}

static void build_cfg(const vx_ctx *x, const vx_shard *sh, const vx_train_knobs *k, const vx_train_model *tm,
                      vx_act_cfg *c)
{
    const vx_shape *s = x->s;
    const vx_config_values *cv = x->cv;
    memset(c, 0, sizeof *c);
    int64_t tp = sh->tp > 0 ? sh->tp : 1, cp = sh->cp > 0 ? sh->cp : 1;
    c->b = (uint64_t)cv->batch_size;
    c->s = (uint64_t)(cv->seq_len / cp > 0 ? cv->seq_len / cp : 1);
    c->N = c->b * c->s;
    c->Nh = sh->sequence_parallel ? vx_ceil_div(c->N, (uint64_t)tp) : c->N;
    c->h = s->hidden;
    c->a = sh->heads_rank > 0 ? sh->heads_rank : s->heads;
    c->akv = sh->kv_heads_rank > 0 ? sh->kv_heads_rank : (s->kv_heads > 0 ? s->kv_heads : s->heads);
    c->d = s->head_dim;
    c->rot = s->rotary_dim;
    c->ffn = s->ffn / tp > 0 ? s->ffn / tp : s->ffn;
    c->moe_ffn = s->moe_ffn;
    c->V = tm->lm_head.out > 0 ? tm->lm_head.out : s->vocab;
    c->e = s->embed_dim;
    c->experts = s->experts;
    c->topk = s->experts_per_tok > 0 ? s->experts_per_tok : 1;
    c->shared_ffn = s->shared_ffn;
    c->moe = s->experts > 0;
    c->skv = (int64_t)c->s + tm->prefix_len;
    c->s_enc = (int64_t)c->s;
    int fam = s->family;
    c->style = style_of_family(fam);
    if (cv->framework == VX_FW_MEGATRON && c->style == VX_STYLE_LLAMA) c->style = VX_STYLE_MEGATRON;
    if (fam == VX_FAM_T5 || fam == VX_FAM_MT5) c->norm = VX_NS_RMS_T5;
    else if (fam == VX_FAM_GEMMA || fam == VX_FAM_GEMMA2 || fam == VX_FAM_GEMMA3) c->norm = VX_NS_RMS_GEMMA;
    else if (s->norm_kind == VX_NORM_LAYER) c->norm = VX_NS_LN;
    else c->norm = VX_NS_RMS_HF;
    if (c->style == VX_STYLE_MEGATRON) c->norm = VX_NS_FUSED;
    c->post_ln = fam == VX_FAM_BERT || (fam == VX_FAM_OPT && !x->m->a.do_layer_norm_before);
    c->parallel = s->parallel_block || fam == VX_FAM_GPT_NEOX;
    c->gated = s->gated;
    c->act = s->act;
    c->qkv_fused = s->qkv_fused;
    c->p_attn = s->attn_dropout;
    c->p_hid = s->hidden_dropout;
    int cdt = x->rp.compute_dtype;
    c->cb = vx_dtype_size(cdt) ? (int)vx_dtype_size(cdt) : 2;
    c->fp16 = cdt == VRAMEST_DTYPE_FP16;
    c->amp = x->rp.amp && x->rp.param_dtype == VRAMEST_DTYPE_FP32 && c->cb < 4;
    c->cuda_autocast = !k->cpu;
    c->torch1 = k->torch_major == 1;
    c->cpu = k->cpu;
    c->legacy = k->hf_legacy > 0;
    c->mask_b = k->mask_bytes > 0 ? k->mask_bytes : 1;
    c->ckpt = (int)cv->gradient_checkpointing;
    c->lora_drop = cv->lora_dropout > 0;
    c->ab = tm->adapter_bytes;
    c->qlora = tm->finetune == VX_FT_QLORA;
    c->tp = (int)tp;
    c->rg_stream = 1;
    c->zero3_linear = vx_shard_zero3_linear(x, sh);
    int want = (int)cv->attention;
    if (eager_only(fam) || want == VX_ATTN_EAGER || k->cpu) c->attn = VX_KERN_EAGER;
    else if (want == VX_ATTN_FLASH) c->attn = VX_KERN_FLASH2;
    else c->attn = (c->cb == 2 && c->d <= 256 && !c->amp) || (c->amp && c->d <= 256) ? VX_KERN_SDPA_FLASH
                                                                                      : VX_KERN_SDPA_MEM;
    /* BERT passes its (b,1,1,s) padding mask to SDPA: the mem-efficient kernel. */
    if (c->attn == VX_KERN_SDPA_FLASH && fam == VX_FAM_BERT) c->attn = VX_KERN_SDPA_MEM;
    /* transformers < 4.48 called repeat_kv before SDPA; later ones pass
     * enable_gqa (torch >= 2.5) when there is no mask. */
    c->repeat_kv = c->attn != VX_KERN_FLASH2 && c->legacy;
}

static int run_stack(vx_pcache *pcache, const vx_act_cfg *c, const vx_part *p, int stable, int cross, int64_t n,
                     vx_stack *st)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    if (n <= 0) return VRAMEST_OK;
    st->ckpt = c->ckpt == VX_GC_FULL;
    vx_prog_call call = {.kind = VX_PK_LAYER, .c = c, .part = p, .stable = stable, .cross = cross};
    int rc = vx_prog_eval(pcache, &call, &st->p);
    if (rc) return rc;
    if (st->ckpt) {
        /* A checkpointed layer keeps its input (and, non-reentrant on the
         * CPU, the CPU RNG state: a 5056-byte ByteTensor). */
        st->kept[VX_TC_ACT] = st->p.x_bytes + (c->cpu ? 5056 : 0);
    } else {
        memcpy(st->kept, st->p.saved_cat, sizeof st->kept);
    }
    return VRAMEST_OK;
}

/* A stack whose first layer may receive a residual stream that does not
 * require grad (frozen embeddings, no input-require-grads hook): that layer
 * saves only what its trainable parameters need. */
static int add_stacks(vx_pcache *pcache, const vx_act_cfg *c, const vx_part *p, int stable, int cross, int64_t n,
                      int rg_first, int64_t first, const char *name, vx_stack *stk, int *nstk)
{
    int rc;
    if (n <= 0) return VRAMEST_OK;
    if (!rg_first) {
        vx_act_cfg c0 = *c;
        c0.rg_stream = 0;
        vx_stack *k = &stk[(*nstk)++];
        if ((rc = run_stack(pcache, &c0, p, stable, cross, 1, k))) return rc;
        k->first = first, k->name = name;
        n--, first++;
    }
    vx_stack *k = &stk[(*nstk)++];
    rc = run_stack(pcache, c, p, stable, cross, n, k);
    k->first = first, k->name = name;
    return rc;
}

static uint64_t kept_total(const vx_stack *st)
{
    uint64_t t = 0;
    for (int i = 0; i < VX_TC_N; i++) t = vx_sat_add(t, st->kept[i]);
    return t;
}

typedef struct vx_statics {
    vx_mem base;     /* always live: weights, master, states, adapters, workspaces, buffers */
    uint64_t grads;  /* full gradients on this rank (GRADIENTS) */
    uint64_t agrads; /* adapter gradients (ADAPTER) */
} vx_statics;

/* Forward of one micro-batch; returns the saved activations at its end in `carried`. */
static void forward(vx_step *st, const vx_mem *base, const vx_prog *emb, const vx_stack *stk, int nstk,
                    const vx_prog *head, uint64_t fwd_extra, uint64_t carried[VX_TC_N], int record)
{
    vx_mem m;
    memset(carried, 0, sizeof(uint64_t) * VX_TC_N);
    if (emb) {
        m = *base;
        add_tc(&m, emb->fwd_pk, 1);
        point(st, &m, VRAMEST_PHASE_FORWARD, -1, "embeddings", record);
        for (int i = 0; i < VX_TC_N; i++) carried[i] = vx_sat_add(carried[i], emb->saved_cat[i]);
    }
    for (int s = 0; s < nstk; s++) {
        const vx_stack *k = &stk[s];
        if (k->n <= 0) continue;
        const uint64_t *fpk = k->ckpt ? k->p.fwd_ns_pk : k->p.fwd_pk;
        /* The peak of a stack's forward is in its last layer. */
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, fwd_extra);
        add_tc(&m, carried, 1);
        add_tc(&m, k->kept, (uint64_t)(k->n - 1));
        add_tc(&m, fpk, 1);
        if (record && k->n > 2) {
            vx_mem mid = *base;
            add_cat(&mid, VRAMEST_CAT_ACTIVATIONS, fwd_extra);
            add_tc(&mid, carried, 1);
            add_tc(&mid, k->kept, (uint64_t)(k->n / 2));
            add_tc(&mid, fpk, 1);
            point(st, &mid, VRAMEST_PHASE_FORWARD, (int)(k->first + k->n / 2), k->name, 1);
        }
        point(st, &m, VRAMEST_PHASE_FORWARD, (int)(k->first + k->n - 1), k->name, record);
        for (int i = 0; i < VX_TC_N; i++) carried[i] = vx_sat_add(carried[i], vx_sat_mul(k->kept[i], (uint64_t)k->n));
    }
    if (head) {
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, fwd_extra);
        add_tc(&m, carried, 1);
        add_tc(&m, head->fwd_pk, 1);
        point(st, &m, VRAMEST_PHASE_FORWARD, -1, "logits and loss", record);
        for (int i = 0; i < VX_TC_N; i++) carried[i] = vx_sat_add(carried[i], head->saved_cat[i]);
    }
}

/* Backward of one micro-batch. `grads0` gradients alive when it starts;
 * `keep`: new parameter gradients stay (first micro-batch). */
static void backward(vx_step *st, const vx_mem *base, const vx_prog *emb, const vx_stack *stk, int nstk,
                     const vx_prog *head, uint64_t bwd_extra, uint64_t grads0, uint64_t agrads0, int keep, int record)
{
    /* activations below each point: embed saved + stacks' kept */
    uint64_t below[VX_TC_N] = {0};
    if (emb)
        for (int i = 0; i < VX_TC_N; i++) below[i] = emb->saved_cat[i];
    for (int s = 0; s < nstk; s++)
        for (int i = 0; i < VX_TC_N; i++) below[i] = vx_sat_add(below[i], vx_sat_mul(stk[s].kept[i], (uint64_t)(stk[s].n > 0 ? stk[s].n : 0)));
    uint64_t g = grads0, ag = agrads0;
    uint64_t held = head ? head->held_out : 0;
    vx_mem m;
    if (head) {
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, bwd_extra);
        add_cat(&m, VRAMEST_CAT_GRADIENTS, g);
        add_cat(&m, VRAMEST_CAT_ADAPTER, ag);
        add_tc(&m, below, 1);
        add_tc(&m, keep ? head->bwd_pk : head->bwd_acc_pk, 1);
        point(st, &m, VRAMEST_PHASE_BACKWARD, -1, "loss and logits backward", record);
        if (keep) g = vx_sat_add(g, head->wgrad_cat[VX_TC_GRAD]), ag = vx_sat_add(ag, head->wgrad_cat[VX_TC_ADAPT]);
    }
    for (int s = nstk - 1; s >= 0; s--) {
        const vx_stack *k = &stk[s];
        if (k->n <= 0) continue;
        const vx_prog *b = &k->p;
        for (int i = 0; i < VX_TC_N; i++) {
            uint64_t tot = vx_sat_mul(k->kept[i], (uint64_t)k->n);
            below[i] = below[i] >= tot ? below[i] - tot : 0;
        }
        /* Layer j (0-based, processed from n-1 down): below + j*kept. The
         * layer's own peak: recompute (checkpointed) or backward. */
        uint64_t lp[VX_TC_N];
        memcpy(lp, keep ? b->bwd_pk : b->bwd_acc_pk, sizeof lp);
        uint64_t lpt = 0;
        for (int i = 0; i < VX_TC_N; i++) lpt += lp[i];
        if (k->ckpt) {
            uint64_t rec = vx_sat_add(b->fwd_peak, b->y_bytes);
            if (!b->held_out) lpt = vx_sat_add(lpt, b->x_bytes), lp[VX_TC_ACT] += b->x_bytes;
            if (rec > lpt) {
                memcpy(lp, b->fwd_pk, sizeof lp);
                lp[VX_TC_ACT] = vx_sat_add(lp[VX_TC_ACT], b->y_bytes);
            }
        }
        uint64_t per_w = keep ? b->wgrad_cat[VX_TC_GRAD] : 0, per_a = keep ? b->wgrad_cat[VX_TC_ADAPT] : 0;
        for (int end = 0; end < (k->n > 1 ? 2 : 1); end++) {
            int64_t j = end ? 0 : k->n - 1;
            uint64_t done = (uint64_t)(k->n - 1 - j);
            m = *base;
            add_cat(&m, VRAMEST_CAT_ACTIVATIONS, vx_sat_add(bwd_extra, held));
            add_cat(&m, VRAMEST_CAT_GRADIENTS, vx_sat_add(g, vx_sat_mul(per_w, done)));
            add_cat(&m, VRAMEST_CAT_ADAPTER, vx_sat_add(ag, vx_sat_mul(per_a, done)));
            add_tc(&m, below, 1);
            add_tc(&m, k->kept, (uint64_t)j);
            /* the layer's kept set is inside its own peak */
            for (int i = 0; i < VX_TC_N; i++) {
                uint64_t v = lp[i];
                if (i == VX_TC_GRAD || i == VX_TC_ADAPT) {
                    add_cat(&m, tc_cat[i], v);
                    continue;
                }
                add_cat(&m, tc_cat[i], v);
            }
            point(st, &m, VRAMEST_PHASE_BACKWARD, (int)(k->first + j), k->name, record);
        }
        g = vx_sat_add(g, vx_sat_mul(per_w, (uint64_t)k->n));
        ag = vx_sat_add(ag, vx_sat_mul(per_a, (uint64_t)k->n));
    }
    if (emb) {
        m = *base;
        add_cat(&m, VRAMEST_CAT_ACTIVATIONS, vx_sat_add(bwd_extra, held));
        add_cat(&m, VRAMEST_CAT_GRADIENTS, g);
        add_cat(&m, VRAMEST_CAT_ADAPTER, ag);
        add_tc(&m, keep ? emb->bwd_pk : emb->bwd_acc_pk, 1);
        point(st, &m, VRAMEST_PHASE_BACKWARD, -1, "embedding backward", record);
    }
}

static int train_rank(vx_ctx *x, const vx_shard *sh)
{
    const vx_train_knobs *k = ((vx_train_ctx *)x)->k;
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->s;
    struct vramest_result *r = x->r;
    vx_train_model tm_buf;
    const vx_train_model *tm = NULL;
    int rc = vx_train_static_cached(x->m->pcache, x, sh, k, &tm_buf, &tm);
    if (rc) return rc;
    vx_act_cfg c;
    build_cfg(x, sh, k, tm, &c);

    int opt = (int)cv->optimizer;
    int64_t ga = cv->grad_accum_steps > 0 ? cv->grad_accum_steps : 1;
    /* ZeRO-2/3 and FSDP reduce each gradient into a sharded buffer as
     * backward produces it: the full-size ones are transients. */
    int sharded_grads = vx_shard_divisor(sh, VRAMEST_CAT_GRADIENTS) > 1;
    int grads_on_gpu = vx_shard_offload_device(sh, VRAMEST_CAT_GRADIENTS) == VRAMEST_DEV_GPU;

    /* Programs. */
    vx_prog emb_k, head_k;
    int first = sh->first_stage, last = sh->last_stage;
    int legacy = k->hf_legacy > 0;
    int upcast = legacy && is_llama_family(s->family);
    int head_kind = tm->head;
    int shift = (k->shift_copy >= 0 ? k->shift_copy : legacy) && head_kind == VX_HEAD_CAUSAL_LM;
    int held = k->logits_held >= 0 ? k->logits_held : cv->framework == VX_FW_PYTORCH;
    vx_pcache *pc = x->m->pcache;
    vx_prog_call emb_call = {.kind = VX_PK_EMBED, .c = &c, .tm = tm, .stable = tm != &tm_buf};
    vx_prog_call head_call = {.kind = VX_PK_HEAD, .c = &c, .tm = tm, .stable = tm != &tm_buf, .upcast = upcast, .shift = shift, .held = held};
    if (first && (rc = vx_prog_eval(pc, &emb_call, &emb_k))) return rc;
    if (last && (rc = vx_prog_eval(pc, &head_call, &head_k))) return rc;
    vx_stack stk[6];
    int nstk = 0;
    /* The residual stream entering the first layer requires grad when the
     * embeddings train, or when PEFT / prepare_model_for_kbit_training make
     * the embedding output require grad for (reentrant) checkpointing. */
    int rg_first = !first || tm->embed.trainable || (c.ckpt != VX_GC_NONE && !k->cpu);
    if (s->enc_dec) {
        int64_t ne = sh->pp > 1 ? (int64_t)vx_ceil_div((uint64_t)s->enc_layers * (uint64_t)sh->stage_layers, (uint64_t)s->layers)
                                : s->enc_layers;
        if ((rc = add_stacks(pc, &c, &tm->enc, tm != &tm_buf, 0, ne, rg_first, 0, "encoder layer", stk, &nstk))) return rc;
        if ((rc = add_stacks(pc, &c, &tm->dec, tm != &tm_buf, 1, sh->stage_layers, rg_first, sh->first_layer, "decoder layer", stk, &nstk)))
            return rc;
    } else {
        const vx_part *P = s->encoder_only ? &tm->enc : &tm->dec;
        int64_t n = sh->stage_layers;
        if (tm->finetune == VX_FT_FREEZE && tm->trainable_first > sh->first_layer) {
            /* Layers before the first trainable one run without a graph:
             * nothing saved, no gradient flows into them. */
            int64_t frozen = tm->trainable_first - sh->first_layer;
            if (frozen > n) frozen = n;
            vx_part fp = *P;
            for (int i = 0; i < VX_ROLE_COUNT_; i++) fp.lin[i].trainable = 0, fp.lin[i].lora_r = 0;
            fp.norm_trainable = 0;
            vx_act_cfg cf = c;
            cf.rg_stream = 0;
            cf.ckpt = VX_GC_NONE;
            if ((rc = run_stack(pc, &cf, &fp, 0, 0, frozen, &stk[nstk]))) return rc;
            stk[nstk].first = sh->first_layer, stk[nstk].name = "frozen layer";
            memset(stk[nstk].kept, 0, sizeof stk[nstk].kept);
            memset(stk[nstk].p.bwd_pk, 0, sizeof stk[nstk].p.bwd_pk);
            memset(stk[nstk].p.bwd_acc_pk, 0, sizeof stk[nstk].p.bwd_acc_pk);
            memset(stk[nstk].p.wgrad_cat, 0, sizeof stk[nstk].p.wgrad_cat);
            nstk++;
            n -= frozen;
            rg_first = 0;
        }
        if ((rc = add_stacks(pc, &c, P, tm != &tm_buf, 0, n, rg_first, sh->first_layer + (sh->stage_layers - n), "layer", stk, &nstk)))
            return rc;
    }

    /* What lives through the step. */
    vx_par_buffers pb;
    memset(&pb, 0, sizeof pb);
    /* One GPU without ZeRO, FSDP or offload has no parallel buffers. */
    if (sh->world > 1 || sh->zero_stage > 0 || sh->fsdp != VX_FSDP_NONE || sh->offload_params || sh->offload_optimizer ||
        sh->ep > 1)
        vx_parallel_buffers(x, sh, UINT64_MAX, &pb);
    vx_mem base;
    memset(&base, 0, sizeof base);
    int wdev = vx_shard_offload_device(sh, VRAMEST_CAT_WEIGHTS);
    int mdev = vx_shard_offload_device(sh, VRAMEST_CAT_MASTER_WEIGHTS);
    int odev = vx_shard_offload_device(sh, VRAMEST_CAT_OPTIMIZER_STATES);
    uint64_t w_gpu = tm->weights / (uint64_t)vx_shard_divisor(sh, VRAMEST_CAT_WEIGHTS);
    if (wdev == VRAMEST_DEV_GPU) add_cat(&base, VRAMEST_CAT_WEIGHTS, w_gpu);
    add_cat(&base, VRAMEST_CAT_WEIGHTS, pb.weights_persistent);
    if (mdev == VRAMEST_DEV_GPU) add_cat(&base, VRAMEST_CAT_MASTER_WEIGHTS, tm->master);
    if (odev == VRAMEST_DEV_GPU) add_cat(&base, VRAMEST_CAT_OPTIMIZER_STATES, vx_sat_add(tm->states, tm->step_on_device));
    add_cat(&base, VRAMEST_CAT_ADAPTER, tm->adapter_w);
    if (odev == VRAMEST_DEV_GPU) add_cat(&base, VRAMEST_CAT_ADAPTER, tm->adapter_s);
    add_cat(&base, VRAMEST_CAT_GRADIENTS, pb.grads_persistent);
    /* input ids, labels, attention mask (int64) */
    add_cat(&base, VRAMEST_CAT_ACTIVATIONS, c.cpu ? 2 * c.N * 8 : 3 * vx_alloc_round(c.N * 8));
    uint64_t ws = 0;
    if (!k->cpu) {
        /* cuBLAS + cuBLASLt workspaces of the forward thread and of the
         * autograd engine's device thread (research note §2.2). */
        ws = vx_sat_mul(vx_cublas_workspace_bytes(x), 2);
        add_cat(&base, VRAMEST_CAT_WORKSPACE, ws);
    }
    add_cat(&base, VRAMEST_CAT_WORKSPACE, pb.a2a);
    uint64_t G = grads_on_gpu ? tm->grads : 0, AG = tm->adapter_g;
    /* optimizer_in_backward: a post-accumulate-grad hook steps each
     * parameter and frees its gradient at once (ga is 1, no sharding:
     * vx_config_check), so no full set of gradients ever exists; each is a
     * transient of its own backward node, as when summing into existing
     * gradients. */
    int in_bwd = cv->optimizer_in_backward && opt != VX_OPT_NONE;
    if (in_bwd) G = AG = 0;

    /* Tensors the model holds through the forward (not saved): the eager 4-D
     * causal mask (b,1,s,s) - (s,s) when no attention_mask is passed. */
    uint64_t fwd_extra = 0, bwd_extra = 0;
    if (c.attn == VX_KERN_EAGER && c.style == VX_STYLE_LLAMA)
        fwd_extra = (k->cpu ? 1 : c.b) * c.s * (uint64_t)c.skv * (uint64_t)c.cb;
    if (c.style == VX_STYLE_T5) {
        /* T5 position bias (b, heads, s, s), shared by the layers of a stack */
        uint64_t pbias = c.b * (uint64_t)c.a * c.s * c.s * (uint64_t)c.cb;
        fwd_extra = vx_sat_add(fwd_extra, 2 * pbias);
        bwd_extra = vx_sat_add(bwd_extra, pbias);
        /* the encoder output's gradient, summed over every cross-attention */
        bwd_extra = vx_sat_add(bwd_extra, c.N * (uint64_t)c.h * (uint64_t)(c.amp ? 4 : c.cb));
    }

    /* Pipeline: the activations of earlier micro-batches still in flight. */
    uint64_t per_mb = 0;
    if (first) per_mb = vx_sat_add(per_mb, emb_k.saved);
    for (int i = 0; i < nstk; i++) per_mb = vx_sat_add(per_mb, vx_sat_mul(kept_total(&stk[i]), (uint64_t)(stk[i].n > 0 ? stk[i].n : 0)));
    uint64_t inflight = sh->inflight_microbatches > 1 ? vx_sat_mul(per_mb, (uint64_t)(sh->inflight_microbatches - 1)) : 0;
    fwd_extra = vx_sat_add(fwd_extra, inflight);
    bwd_extra = vx_sat_add(bwd_extra, inflight);

    vx_step st;
    memset(&st, 0, sizeof st);
    st.r = r;
    st.tl_on = 1;
    uint64_t carried[VX_TC_N];
    /* optimizer none: forward + backward only, with zero_grad(set_to_none)
     * each step (what benchmark loops do): no gradients before backward. */
    int grads_always = 0;
    int later = ga > 1 || grads_always;
    /* A plain PyTorch loop keeps `outputs` (the logits) through backward and
     * into the next forward, until it is rebound after that forward. */
    if (last && head_k.held_out) fwd_extra = vx_sat_add(fwd_extra, head_k.held_out);

    /* Forward (the micro-batch with the gradients allocated when accumulating). */
    vx_mem fb = base;
    fb.c[VRAMEST_CAT_WEIGHTS] = vx_sat_add(fb.c[VRAMEST_CAT_WEIGHTS], pb.weights_fwd);
    if (later) add_cat(&fb, VRAMEST_CAT_GRADIENTS, G), add_cat(&fb, VRAMEST_CAT_ADAPTER, AG);
    if (later && pb.grads_accum) add_cat(&fb, VRAMEST_CAT_GRADIENTS, pb.grads_accum);
    {
        vx_mem p0 = fb;
        point(&st, &p0, VRAMEST_PHASE_FORWARD, -1, "step start", 1);
    }
    forward(&st, &fb, first ? &emb_k : NULL, stk, nstk, last ? &head_k : NULL, fwd_extra, carried, 1);
    if (later && ga > 1) {
        /* the first micro-batch's forward, without gradients (not recorded) */
        st.tl_on = 0;
        forward(&st, &base, first ? &emb_k : NULL, stk, nstk, last ? &head_k : NULL, fwd_extra, carried, 0);
        st.tl_on = 1;
    }

    /* Backward. */
    vx_mem bb = base;
    bb.c[VRAMEST_CAT_WEIGHTS] = vx_sat_add(bb.c[VRAMEST_CAT_WEIGHTS], pb.weights_bwd);
    add_cat(&bb, VRAMEST_CAT_GRADIENTS, pb.grads_bwd);
    if (pb.grads_accum && later) add_cat(&bb, VRAMEST_CAT_GRADIENTS, pb.grads_accum);
    if (sharded_grads || in_bwd) {
        /* Sharded gradient partitions exist from the start; the full-size
         * gradients are reduced away (or stepped and freed) as they appear. */
        backward(&st, &bb, first ? &emb_k : NULL, stk, nstk, last ? &head_k : NULL, bwd_extra, G, AG, 0, 1);
    } else if (later) {
        if (ga > 1 && !grads_always) {
            st.tl_on = 0;
            backward(&st, &bb, first ? &emb_k : NULL, stk, nstk, last ? &head_k : NULL, bwd_extra, 0, 0, 1, 0);
            st.tl_on = 1;
        }
        backward(&st, &bb, first ? &emb_k : NULL, stk, nstk, last ? &head_k : NULL, bwd_extra, G, AG, 0, 1);
    } else {
        backward(&st, &bb, first ? &emb_k : NULL, stk, nstk, last ? &head_k : NULL, bwd_extra, 0, 0, 1, 1);
    }

    /* Optimizer step: every gradient, the step's temporaries (foreach sqrt
     * over a parameter group, single-tensor denominators, the ZeRO fp32
     * gradient partition). */
    if (opt != VX_OPT_NONE) {
        vx_mem om = base;
        add_cat(&om, VRAMEST_CAT_GRADIENTS, G);
        add_cat(&om, VRAMEST_CAT_ADAPTER, AG);
        /* in backward: the largest parameter's step, its gradient alive */
        if (in_bwd) add_cat(&om, VRAMEST_CAT_GRADIENTS, tm->largest_grad);
        if (pb.grads_accum && later) add_cat(&om, VRAMEST_CAT_GRADIENTS, pb.grads_accum);
        if (odev == VRAMEST_DEV_GPU) add_cat(&om, VRAMEST_CAT_WORKSPACE, tm->opt_tmp);
        add_cat(&om, VRAMEST_CAT_WORKSPACE, pb.step);
        point(&st, &om, VRAMEST_PHASE_OPTIMIZER, -1, "optimizer step", 1);
    }

    /* The result: categories at the peak instant, with bands. */
    int prov = tm->prov;
    const vx_mem *pk = &st.best.at;
    for (int cat = 0; cat < VX_NCAT; cat++) {
        uint64_t v = pk->c[cat];
        if (!v) continue;
        uint64_t lo = v, hi = v;
        int p = VRAMEST_PROV_FORMULA;
        switch (cat) {
        case VRAMEST_CAT_WEIGHTS:
        case VRAMEST_CAT_MASTER_WEIGHTS: p = prov; break;
        case VRAMEST_CAT_OPTIMIZER_STATES:
        case VRAMEST_CAT_GRADIENTS:
        case VRAMEST_CAT_ADAPTER: p = prov == VRAMEST_PROV_EXACT_FILE ? prov : VRAMEST_PROV_EXACT_ARCH; break;
        case VRAMEST_CAT_ACTIVATIONS:
            /* op-by-op program of the HF code paths: exact on the CPU harness;
             * library versions move it (kernels, copies, fused ops). */
            lo = v - v / 10, hi = vx_sat_add(v, v / 10);
            break;
        case VRAMEST_CAT_LOGITS:
            /* logits: which copies exist depends on the transformers version
             * (model-level upcast, shifted copy, chunked losses). */
            lo = v / 2, hi = vx_sat_add(v, v / 4);
            break;
        case VRAMEST_CAT_WORKSPACE:
            lo = v - v / 4, hi = vx_sat_add(v, v / 4);
            p = VRAMEST_PROV_EMPIRICAL;
            break;
        default: break;
        }
        if (cat == VRAMEST_CAT_MASTER_WEIGHTS || cat == VRAMEST_CAT_WEIGHTS || cat == VRAMEST_CAT_GRADIENTS ||
            cat == VRAMEST_CAT_OPTIMIZER_STATES)
            vx_result_add(r, VRAMEST_DEV_GPU, cat, v, lo, hi, p);
        else
            vx_result_add(r, VRAMEST_DEV_GPU, cat, v, lo, hi, p);
    }
    /* Offloaded parts live on the host / NVMe. */
    if (wdev != VRAMEST_DEV_GPU) vx_shard_add(x, sh, VRAMEST_CAT_WEIGHTS, w_gpu, w_gpu, w_gpu, prov);
    if (mdev != VRAMEST_DEV_GPU && tm->master) vx_shard_add(x, sh, VRAMEST_CAT_MASTER_WEIGHTS, tm->master, tm->master, tm->master, prov);
    if (odev != VRAMEST_DEV_GPU && (tm->states || tm->adapter_s)) {
        uint64_t o = vx_sat_add(tm->states, tm->adapter_s);
        vx_shard_add(x, sh, VRAMEST_CAT_OPTIMIZER_STATES, o, o, o, prov);
    }
    if (!grads_on_gpu && tm->grads) vx_shard_add(x, sh, VRAMEST_CAT_GRADIENTS, tm->grads, tm->grads, tm->grads, prov);
    if (pb.host_pinned)
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_WORKSPACE, vx_sat_mul(pb.host_pinned, (uint64_t)(sh->host_ranks > 0 ? sh->host_ranks : 1)),
                      pb.host_pinned, pb.host_pinned, VRAMEST_PROV_FORMULA);
    if (tm->paged_states) {
        /* bitsandbytes paged states: CUDA managed memory, outside the caching
         * allocator; they migrate to the host under pressure. */
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_OPTIMIZER_STATES, tm->paged_states, 0, tm->paged_states,
                      VRAMEST_PROV_FORMULA);
        vx_result_warn(r, "paged optimizer: %.1f MiB of optimizer states live in CUDA managed memory (not in "
                          "allocated/reserved; reported under host; resident pages show in nvidia-smi)",
                       (double)tm->paged_states / (double)VX_MIB);
    }

    /* Reserved beyond allocated: the caching allocator's segments. */
    if (!k->cpu) {
        vx_alloc_in ai = {.peak_alloc = st.best.total, .cpu = 0};
        ai.act_peak = vx_sat_add(pk->c[VRAMEST_CAT_ACTIVATIONS], pk->c[VRAMEST_CAT_LOGITS]);
        /* The largest single transient: the logits in the widest dtype the
         * loss holds them in, eager attention scores (fp32 when upcast), or
         * a dense embedding gradient. */
        uint64_t t = vx_sat_mul(c.Nh * (uint64_t)c.h, (uint64_t)(c.amp ? 4 : c.cb));
        if (last) {
            int lb = (upcast || c.amp || !legacy || c.cb == 4) ? 4 : c.cb;
            t = vx_max_u64(t, vx_sat_mul(c.N * (uint64_t)c.V, (uint64_t)lb));
        }
        if (c.attn == VX_KERN_EAGER)
            t = vx_max_u64(t, vx_sat_mul(c.b * (uint64_t)c.a * c.s * (uint64_t)c.skv, 4));
        if (first && tm->embed.trainable) t = vx_max_u64(t, tm->embed.wgrad);
        ai.largest_act = vx_alloc_round(t);
        uint64_t res, lo, hi;
        vx_alloc_reserve(&ai, &res, &lo, &hi);
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ALLOCATOR, res, lo, hi, VRAMEST_PROV_EMPIRICAL);
    }

    r->val[VRAMEST_VAL_PEAK_PHASE] = (uint64_t)st.best.phase;
    r->val[VRAMEST_VAL_PARAMS_TRAINABLE] = tm->trainable_params;
    return VRAMEST_OK;
}

/* The programs multiply sizes without checks: refuse a job whose largest
 * products (attention scores, logits, MLP activations, parameters) do not
 * fit comfortably in 64 bits, so nothing can wrap. */
static int check_sizes(const vx_ctx *x)
{
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->s;
    uint64_t n, t;
    const uint64_t lim = (uint64_t)1 << 58;
    uint64_t b = (uint64_t)cv->batch_size, q = (uint64_t)cv->seq_len + (uint64_t)(cv->prefix_len > 0 ? cv->prefix_len : 0);
    uint64_t wide = (uint64_t)(s->vocab > s->ffn ? s->vocab : s->ffn);
    if (wide < (uint64_t)s->hidden) wide = (uint64_t)s->hidden;
    if ((uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1) * (uint64_t)(s->moe_ffn > 0 ? s->moe_ffn : 1) > wide)
        wide = (uint64_t)(s->experts_per_tok > 0 ? s->experts_per_tok : 1) * (uint64_t)s->moe_ffn;
    int ok = vx_mul(b, q, &n) && vx_mul(n, wide, &t) && t < lim && vx_mul(n, q, &t) &&
             vx_mul(t, (uint64_t)(s->heads > 0 ? s->heads : 1), &t) && t < lim &&
             vx_mul(n, (uint64_t)(s->experts > 0 ? s->experts : 1) * 8, &t) && t < lim &&
             s->params_total < lim / 16;
    if (!ok)
        return vx_fail(VRAMEST_E_OVERFLOW,
                       "train: batch_size %lld x seq_len %lld with this model (hidden %lld, vocab %lld, heads %lld) "
                       "gives tensors beyond 2^58 elements",
                       (long long)cv->batch_size, (long long)cv->seq_len, (long long)s->hidden, (long long)s->vocab,
                       (long long)s->heads);
    return VRAMEST_OK;
}

int vx_estimate_train_ex(vx_ctx *x, const vx_train_knobs *k)
{
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->s;
    if (cv->batch_size < 1 || cv->seq_len < 1)
        return vx_fail(VRAMEST_E_RANGE, "train: batch_size %lld and seq_len %lld must be >= 1",
                       (long long)cv->batch_size, (long long)cv->seq_len);
    int rc0 = check_sizes(x);
    if (rc0) return rc0;
    if (cv->finetune == VX_FT_LORA || cv->finetune == VX_FT_QLORA) {
        int rc = vx_lora_check(x);
        if (rc) return rc;
    }
    if (cv->finetune == VX_FT_QLORA && x->rp.quant_method != VX_QM_BNB)
        vx_result_warn(x->r, "finetune qlora with weights that bitsandbytes does not quantize: estimated as LoRA "
                             "over the stored weights (set precision nf4 for QLoRA)");
    if (s->max_pos > 0 && cv->seq_len > s->max_pos && !s->rel_buckets)
        vx_result_warn(x->r, "seq_len %lld is longer than max_position_embeddings %lld: the model was not trained "
                             "for it (learned positions would index out of range)",
                       (long long)cv->seq_len, (long long)s->max_pos);
    if (cv->finetune == VX_FT_FREEZE && cv->trainable_layers == 0)
        vx_result_warn(x->r, "finetune freeze with trainable_layers 0: only the head and final norm train");
    vx_train_knobs kk = *k;
    if (kk.hf_legacy < 0) kk.hf_legacy = 0;
    vx_train_ctx tc = {.x = *x, .k = &kk};
    int rc = vx_for_each_rank_group(&tc.x, train_rank);
    return rc;
}

int vx_estimate_train(vx_ctx *x)
{
    vx_train_knobs k;
    vx_train_knobs_default(&k);
    return vx_estimate_train_ex(x, &k);
}
