/* The values of a training step (issue #5): the programs' config from the
 * model, the precision, the shard and the runtime (vx_train_cfg); then, at
 * the sizes of that config, each program's result - from `src`, the replay
 * or the estimator's cache - and the leaves: static terms, parallel
 * buffers, token tensors (vx_train_step_prepare). step.c composes them. */
#include <string.h>

#include "estimate/step/step.h"

void vx_train_cfg_sizes(const vx_config_values *cv, const vx_shard *sh, const vx_train_model *tm, vx_act_cfg *c)
{
    int64_t tp = sh->tp > 0 ? sh->tp : 1, cp = sh->cp > 0 ? sh->cp : 1;
    c->b = (uint64_t)cv->batch_size;
    c->s = (uint64_t)(cv->seq_len / cp > 0 ? cv->seq_len / cp : 1);
    c->N = c->b * c->s;
    c->Nh = sh->sequence_parallel ? vx_ceil_div(c->N, (uint64_t)tp) : c->N;
    c->skv = (int64_t)c->s + tm->prefix_len;
    c->s_enc = (int64_t)c->s;
}

void vx_train_cfg(const vx_ctx *x, const vx_shard *sh, const vx_train_model *tm, vx_act_cfg *c)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    memset(c, 0, sizeof *c);
    int64_t tp = sh->tp > 0 ? sh->tp : 1;
    vx_train_cfg_sizes(cv, sh, tm, c);
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
    const vx_family *f = s->fam;
    c->place = s->placement;
    c->ai = *vx_family_attn(f);
    c->megatron = x->rt.megatron_layer && f->megatron_gpt;
    if (c->megatron) c->norm = VX_NS_FUSED;
    else if (f->norm_impl == VX_NI_RMS_T5) c->norm = VX_NS_RMS_T5;
    else if (f->norm_impl == VX_NI_RMS_GEMMA) c->norm = VX_NS_RMS_GEMMA;
    else if (s->norm_kind == VX_NORM_LAYER || s->norm_kind == VX_NORM_NONE) c->norm = VX_NS_LN;
    else c->norm = VX_NS_RMS_HF;
    c->emb_drop = f->embed_dropout;
    c->emb_scale = f->embed_scale && !c->megatron;
    c->pos_tok = f->pos_per_token;
    c->emb_proj = f->embed_proj;
    c->mlp_drop = f->mlp_dropout;
    c->head_norm_stack = f->head_norm_in_stack;
    c->head_scale_tied = f->head_scale_tied;
    c->rel_bias = s->rel_buckets > 0;
    c->logits_scaled = f->logits_scaled;
    c->gated = s->gated;
    c->act = s->act;
    c->qkv_fused = s->qkv_fused;
    c->p_attn = s->attn_dropout;
    c->p_hid = s->hidden_dropout;
    int cdt = x->pol.rp.compute_dtype;
    c->cb = vx_dtype_size(cdt) ? (int)vx_dtype_size(cdt) : 2;
    c->fp16 = cdt == VRAMEST_DTYPE_FP16;
    c->amp = x->pol.rp.amp && x->pol.rp.param_dtype == VRAMEST_DTYPE_FP32 && c->cb < 4;
    c->cuda_autocast = !x->rt.cpu;
    c->torch1 = x->rt.torch1_mean;
    c->cpu = x->rt.cpu;
    c->legacy = x->rt.hf_legacy;
    c->mask_b = x->rt.mask_bytes > 0 ? x->rt.mask_bytes : 1;
    c->ckpt = (int)cv->gradient_checkpointing;
    c->loss = x->rt.loss_own && cv->loss == VX_LOSS_CE ? x->rt.loss_own : (int)cv->loss;
    c->loss_chunks = c->loss == VX_LOSS_CHUNKED ? (int)cv->loss_chunks : 0;
    c->compiled = c->loss == VX_LOSS_CHUNKED && cv->compile;
    c->loss_upcast = x->rt.loss_upcast;
    c->sp_save_full = x->rt.tp_save_gathered;
    c->lora_drop = cv->lora_dropout > 0;
    c->ab = tm->adapter_bytes;
    c->qlora = tm->finetune == VX_FT_QLORA && !x->rt.no_kbit_prep;
    c->tp = (int)tp;
    c->rg_stream = 1;
    c->zero3_linear = vx_shard_zero3_linear(x, sh);
    int want = (int)cv->attention;
    if (f->eager_only || want == VX_ATTN_EAGER || x->rt.cpu) c->attn = VX_KERN_EAGER;
    else if (want == VX_ATTN_FLASH) c->attn = VX_KERN_FLASH2;
    else c->attn = (c->cb == 2 && c->d <= 256 && !c->amp) || (c->amp && c->d <= 256) ? VX_KERN_SDPA_FLASH
                                                                                      : VX_KERN_SDPA_MEM;
    /* A padding mask passed to SDPA (BERT's (b,1,1,s)): the mem-efficient kernel. */
    if (c->attn == VX_KERN_SDPA_FLASH && f->sdpa_padding_mask) c->attn = VX_KERN_SDPA_MEM;
    /* transformers < 4.48 called repeat_kv before SDPA; later ones pass
     * enable_gqa (torch >= 2.5) when there is no mask. */
    c->repeat_kv = c->attn != VX_KERN_FLASH2 && x->rt.repeat_kv;
    c->attn_gate = s->attn_gate;
    if (s->ssm_kind != VX_SSM_NONE) {
        /* the recurrent mixer splits by heads (its inner width with them) */
        c->ssm_kind = s->ssm_kind;
        c->ssm_inner = (int64_t)vx_ceil_div((uint64_t)s->ssm_inner, (uint64_t)tp);
        c->ssm_conv_dim = (int64_t)vx_ceil_div((uint64_t)s->ssm_conv_dim, (uint64_t)tp);
        c->ssm_heads = s->ssm_heads > 0 ? (int64_t)vx_ceil_div((uint64_t)s->ssm_heads, (uint64_t)tp) : 0;
        c->ssm_groups = s->ssm_groups > 0 ? (int64_t)vx_ceil_div((uint64_t)s->ssm_groups, (uint64_t)tp) : 0;
        c->ssm_state = s->ssm_state, c->ssm_head_dim = s->ssm_head_dim;
        c->ssm_dt_rank = s->ssm_dt_rank, c->ssm_chunk = s->ssm_chunk;
    }
}

/* Where the stacks of a step go. */
typedef struct stacks {
    int64_t every;             /* checkpoint every k-th layer of a checkpointed range */
    const vx_train_model *tm;  /* kind_lins: the decoder's kinds differ in their linears */
    const vx_prog_source *src;
    const vx_shape *s;
    const vx_layers *L;
    vx_step_shape *sp;
    vx_step_vals *v;
    const struct vx_cprog **used;
} stacks;

/* What torchtitan's op-level selective checkpointing keeps of one layer
 * beside its input (torchtitan@9dec370 parallelize_llama.py: every odd mm
 * of the layer - wq, wv, w1, w2 in a Llama block - and the attention
 * kernel's output and logsumexp are saved, the rest recomputed):
 * A.N.(a.d + akv.d + a.d + ffn + h) + 4.b.a.s. */
static uint64_t ops_kept(const vx_act_cfg *c)
{
    uint64_t A = (uint64_t)c->cb, N = c->N, ad = (uint64_t)(c->a * c->d), kvd = (uint64_t)(c->akv * c->d);
    uint64_t ffn = (uint64_t)(c->moe ? c->moe_ffn * c->topk : c->ffn);
    uint64_t per_tok = vx_sat_add(vx_sat_add(2 * ad, kvd), vx_sat_add(ffn, (uint64_t)c->h));
    return vx_sat_add(vx_sat_mul(vx_sat_mul(A, N), per_tok), vx_sat_mul(vx_sat_mul(4, c->b), vx_sat_mul((uint64_t)c->a, c->s)));
}

static int add_stack1(stacks *st, const vx_act_cfg *c, const vx_part *p, int stable, int cross, int64_t n,
                      int64_t first, const char *name, int frozen, int ckpt);

/* One stack of identical layers: its program and its shape. With
 * checkpoint_every k, every k-th layer of it is checkpointed (torchtitan's
 * selective_ac_option k: layer_id % k == 0), the others keep what their
 * program saves: two stacks. */
static int add_stack(stacks *st, const vx_act_cfg *c, const vx_part *p, int stable, int cross, int64_t n,
                     int64_t first, const char *name, int frozen)
{
    int ck = !frozen && (c->ckpt == VX_GC_FULL || c->ckpt == VX_GC_OPS);
    if (!ck || st->every <= 1 || c->ckpt != VX_GC_FULL) return add_stack1(st, c, p, stable, cross, n, first, name, frozen, ck);
    int64_t k = st->every, nck = (first + n - 1) / k - (first - 1 + k) / k + 1;
    if (nck < 0) nck = 0;
    int rc = add_stack1(st, c, p, stable, cross, nck, first, name, frozen, 1);
    if (!rc) rc = add_stack1(st, c, p, stable, cross, n - nck, first + nck, name, frozen, 0);
    return rc;
}

static int add_stack1(stacks *st, const vx_act_cfg *c, const vx_part *p, int stable, int cross, int64_t n,
                      int64_t first, const char *name, int frozen, int ckpt)
{
    if (n <= 0) return VRAMEST_OK;
    vx_step_shape *sp = st->sp;
    if (sp->nstk >= VX_SP_NSTK)
        return vx_fail(VRAMEST_E_LIMIT, "train: more than %d distinct layer programs on one rank", VX_SP_NSTK);
    int i = sp->nstk++;
    vx_step_stack *k = &sp->stk[i];
    memset(k, 0, sizeof *k);
    k->n = n;
    k->first = first;
    k->name = name;
    k->frozen = frozen;
    k->ckpt = ckpt;
    k->ops = ckpt && c->ckpt == VX_GC_OPS;
    if (k->ops) st->v->leaf[VX_LF_OPS + i] = ops_kept(c);
    vx_prog_call call = {.kind = VX_PK_LAYER, .c = c, .part = p, .stable = stable, .cross = cross,
                         .used = st->used ? &st->used[VX_SP_STK + i] : NULL};
    int rc = st->src->eval(st->src->arg, &call, &st->v->p[VX_SP_STK + i]);
    k->held = st->v->p[VX_SP_STK + i].held_out != 0;
    return rc;
}

/* The program's config for the layers of one kind (model/family.h): its
 * MLP, its positions, its geometry when it differs from the model's. */
static void kind_cfg(const vx_act_cfg *c, const vx_shape *s, const vx_layer_kind *k, vx_act_cfg *out)
{
    *out = *c;
    out->moe = k->mlp == VX_MLPK_MOE && s->experts > 0;
    out->mixer = k->mixer;
    out->ssm_par = k->ssm_par;
    out->rot = k->rope ? s->rotary_dim : 0;
    if (k->ffn != s->ffn && k->ffn > 0) out->ffn = out->kind_ffn = k->ffn / c->tp > 0 ? k->ffn / c->tp : k->ffn;
    if (k->heads != s->heads && s->heads > 0) out->a = (k->heads * c->a + s->heads - 1) / s->heads;
    if (k->kv_heads != s->kv_heads && s->kv_heads > 0) out->akv = (k->kv_heads * c->akv + s->kv_heads - 1) / s->kv_heads;
    if (k->head_dim != s->head_dim && !s->kv_lora_rank) out->d = k->head_dim;
    out->no_mixer = k->mixer == VX_MIX_NONE || k->mixer == VX_MIX_PROJ;
    out->no_mlp = k->mlp == VX_MLPK_NONE || k->mlp == VX_MLPK_PROJ;
}

/* Kinds a and b run the same linears (static_terms.c vx_kind_row). */
static int same_lins(const vx_shape *s, const vx_layers *L, int a, int b, int64_t tp)
{
    vx_kind_lin ra[VX_KL_N], rb[VX_KL_N];
    vx_kind_row(s, &L->kind[a], tp, ra);
    vx_kind_row(s, &L->kind[b], tp, rb);
    return !memcmp(ra, rb, sizeof ra);
}

/* Layers [first, first + n) of a stack, one stack of the step per distinct
 * program (kinds that differ only where the program does not look, such as
 * a sliding window, share one), in the order of their last layer: the
 * forward's peak sits on the kept activations of everything before it.
 * When the stream entering the range does not require grad (frozen
 * embeddings, no input-require-grads hook), the range's first layer saves
 * only what its trainable parameters need: a stack of its own. */
static int add_layers(stacks *st, const vx_act_cfg *c, const vx_part *p, int stable, int cross, int stack,
                      int64_t first, int64_t n, int rg_first, const char *name, int frozen)
{
    if (n <= 0) return VRAMEST_OK;
    const vx_layers *L = st->L;
    int64_t total = L->stack[stack].layers;
    if (first + n > total) first = total > n ? total - n : 0;
    vx_tally t;
    vx_layers_tally(L, stack, first, n, &t);
    vx_act_cfg cfg[VX_MAX_KINDS];
    int64_t cnt[VX_MAX_KINDS], lo[VX_MAX_KINDS], hi[VX_MAX_KINDS], sum = 0;
    int kind[VX_MAX_KINDS];
    int np = 0, pfirst = 0, plast = 0;
    /* the decoder's kinds differ in their linears: a program per row too */
    const vx_train_model *tm = st->tm;
    int per_kind = stack == VX_STACK_DEC && tm && tm->kind_lins;
    for (int k = 0; k < L->n_kinds; k++) {
        if (!t.count[k]) continue;
        vx_act_cfg ck;
        kind_cfg(c, st->s, &L->kind[k], &ck);
        int j = 0;
        while (j < np && (memcmp(&cfg[j], &ck, sizeof ck) || (per_kind && !same_lins(st->s, L, kind[j], k, c->tp))))
            j++;
        if (j == np) cfg[np] = ck, kind[np] = k, cnt[np] = 0, lo[np] = t.first[k], hi[np] = t.last[k], np++;
        cnt[j] += t.count[k], sum += t.count[k];
        if (t.first[k] < lo[j]) lo[j] = t.first[k];
        if (t.last[k] > hi[j]) hi[j] = t.last[k];
        if (t.first[k] == first) pfirst = j;
        if (t.last[k] >= hi[plast]) plast = j;
    }
    if (!np) return VRAMEST_OK;
    cnt[plast] += n - sum; /* a range longer than the stack: its last kind repeats */
    int rc;
    vx_part kp;
    if (!rg_first) {
        vx_act_cfg c0 = cfg[pfirst];
        c0.rg_stream = 0;
        if (per_kind) vx_part_of_kind(st->s, &L->kind[kind[pfirst]], c->tp, p, &kp);
        if ((rc = add_stack(st, &c0, per_kind ? &kp : p, stable, cross, 1, first, name, frozen))) return rc;
        cnt[pfirst]--;
        if (lo[pfirst] == first) lo[pfirst]++;
    }
    /* in the order of each program's last layer */
    for (int done = 0; done < np; done++) {
        int j = -1;
        for (int i = 0; i < np; i++)
            if (cnt[i] >= 0 && (j < 0 || hi[i] < hi[j])) j = i;
        if (per_kind) vx_part_of_kind(st->s, &L->kind[kind[j]], c->tp, p, &kp);
        if ((rc = add_stack(st, &cfg[j], per_kind ? &kp : p, stable, cross, cnt[j], lo[j], name, frozen))) return rc;
        cnt[j] = -1;
    }
    return VRAMEST_OK;
}

void vx_step_head_opts(const vx_ctx *x, const vx_train_model *tm, vx_head_opts *o)
{
    o->legacy = x->rt.hf_legacy;
    o->loss_upcast = x->rt.loss_upcast && tm->head == VX_HEAD_CAUSAL_LM;
    o->upcast = x->rt.model_logits_upcast && x->pol.s->fam->logits_float;
    o->shift = x->rt.shift_copy && tm->head == VX_HEAD_CAUSAL_LM;
    o->held = x->rt.logits_held;
}

void vx_static_devices_of(const vx_shard *sh, const vx_train_model *tm, vx_static_devices *p)
{
    p->wdev = vx_shard_offload_device(sh, VRAMEST_CAT_WEIGHTS);
    p->mdev = vx_shard_offload_device(sh, VRAMEST_CAT_MASTER_WEIGHTS);
    p->odev = vx_shard_offload_device(sh, VRAMEST_CAT_OPTIMIZER_STATES);
    p->grads_on_gpu = vx_shard_offload_device(sh, VRAMEST_CAT_GRADIENTS) == VRAMEST_DEV_GPU;
    /* The rank's parameters as static_terms.c sized them: already this
     * rank's ZeRO-3 / FSDP partition (dividing again lost 2P/G - 2P/G^2). */
    p->w_gpu = tm->weights;
}

/* The step's shape and values at the sizes of `c`: the programs (replayed,
 * or from their compiled forms) and the leaves. `lraw` (may be NULL)
 * receives the leaves before allocator rounding and `lmask` the rounding of
 * each (stepcache.c fits them). */
int vx_train_step_prepare(const vx_ctx *x, const vx_shard *sh, const vx_train_model *tm,
                          const vx_prog_source *src, int stable, const vx_act_cfg *cin, vx_step_shape *sp,
                          vx_step_vals *v, uint64_t *lraw, uint64_t *lmask, const struct vx_cprog **used)
{
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->pol.s;
    const vx_act_cfg *c = cin;
    int rc;
    memset(sp, 0, sizeof *sp);
    memset(v, 0, sizeof *v);
    int opt = (int)cv->optimizer;
    int64_t ga = cv->grad_accum_steps > 0 ? cv->grad_accum_steps : 1;
    vx_static_devices pl;
    vx_static_devices_of(sh, tm, &pl);
    vx_head_opts ho;
    vx_step_head_opts(x, tm, &ho);
    sp->first = sh->first_stage, sp->last = sh->last_stage;

    /* Programs. */
    if (used) memset(used, 0, sizeof(*used) * VX_SP_N);
    vx_prog_call emb_call = {.kind = VX_PK_EMBED, .c = c, .tm = tm, .stable = stable,
                             .used = used ? &used[VX_SP_EMB] : NULL};
    vx_prog_call head_call = {.kind = VX_PK_HEAD, .c = c, .tm = tm, .stable = stable, .upcast = ho.upcast,
                              .shift = ho.shift, .held = ho.held, .used = used ? &used[VX_SP_HEAD] : NULL};
    if (sp->first && (rc = src->eval(src->arg, &emb_call, &v->p[VX_SP_EMB]))) return rc;
    if (sp->last && (rc = src->eval(src->arg, &head_call, &v->p[VX_SP_HEAD]))) return rc;
    /* The residual stream entering the first layer requires grad when the
     * embeddings train, or when PEFT / prepare_model_for_kbit_training make
     * the embedding output require grad for (reentrant) checkpointing. */
    int rg_first = !sp->first || tm->embed.trainable || (c->ckpt != VX_GC_NONE && !x->rt.cpu);
    stacks st = {.every = cv->checkpoint_every, .tm = tm, .src = src, .s = s, .L = &x->pol.m->layers, .sp = sp,
                 .v = v, .used = used};
    if (s->enc_dec) {
        int64_t ne = sh->pp > 1 ? (int64_t)vx_ceil_div((uint64_t)s->enc_layers * (uint64_t)sh->stage_layers, (uint64_t)s->layers)
                                : s->enc_layers;
        if ((rc = add_layers(&st, c, &tm->enc, stable, 0, VX_STACK_ENC, 0, ne, rg_first, "encoder layer", 0))) return rc;
        if ((rc = add_layers(&st, c, &tm->dec, stable, 1, VX_STACK_DEC, sh->first_layer, sh->stage_layers, rg_first,
                             "decoder layer", 0)))
            return rc;
    } else {
        int stack = s->encoder_only ? VX_STACK_ENC : VX_STACK_DEC;
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
            vx_act_cfg cf = *c;
            cf.rg_stream = 0;
            cf.ckpt = VX_GC_NONE;
            if ((rc = add_layers(&st, &cf, &fp, 0, 0, stack, sh->first_layer, frozen, 1, "frozen layer", 1))) return rc;
            n -= frozen;
            rg_first = 0;
        }
        if ((rc = add_layers(&st, c, P, stable, 0, stack, sh->first_layer + (sh->stage_layers - n), n, rg_first, "layer",
                             0)))
            return rc;
    }

    /* The leaves. */
    uint64_t *lf = v->leaf;
    vx_par_buffers pb;
    memset(&pb, 0, sizeof pb);
    /* One GPU without ZeRO, FSDP or offload has no parallel buffers. */
    if (sh->world > 1 || sh->zero_stage > 0 || sh->fsdp != VX_FSDP_NONE || sh->offload_params || sh->offload_optimizer ||
        sh->ep > 1)
        /* only parameters that require grad have gradients to bucket,
         * reduce or keep unsynchronized (LoRA: the adapters) */
        vx_parallel_buffers(x, sh, tm->trainable_params ? tm->trainable_params : UINT64_MAX, &pb);
    if (pl.wdev == VRAMEST_DEV_GPU) lf[VRAMEST_CAT_WEIGHTS] = pl.w_gpu;
    lf[VRAMEST_CAT_WEIGHTS] = vx_sat_add(lf[VRAMEST_CAT_WEIGHTS], pb.weights_persistent);
    if (pl.mdev == VRAMEST_DEV_GPU) lf[VRAMEST_CAT_MASTER_WEIGHTS] = tm->master;
    if (pl.odev == VRAMEST_DEV_GPU) lf[VRAMEST_CAT_OPTIMIZER_STATES] = vx_sat_add(tm->states, tm->step_on_device);
    lf[VRAMEST_CAT_ADAPTER] = tm->adapter_w;
    if (pl.odev == VRAMEST_DEV_GPU) lf[VRAMEST_CAT_ADAPTER] = vx_sat_add(lf[VRAMEST_CAT_ADAPTER], tm->adapter_s);
    lf[VRAMEST_CAT_GRADIENTS] = pb.grads_persistent;
    /* cuBLAS + cuBLASLt workspaces of the forward thread and of the
     * autograd engine's device thread (research note §2.2). */
    if (!x->rt.cpu) lf[VRAMEST_CAT_WORKSPACE] = vx_sat_mul(vx_cublas_workspace_bytes(x), 2);
    /* input ids, labels, attention mask (int64); the CPU harness holds two */
    sp->ids_mul = c->cpu ? 2 : 3;
    uint64_t ids = c->N * 8, ids_mask = c->cpu ? 0 : 511;
    lf[VX_LF_IDS] = (ids + ids_mask) & ~ids_mask;
    lf[VX_LF_A2A] = pb.a2a;
    /* Tensors the model holds through the forward (not saved): the eager 4-D
     * causal mask (b,1,s,s) - (s,s) when no attention_mask is passed. */
    if (c->attn == VX_KERN_EAGER && c->ai.mask == VX_MASK_4D && !c->megatron)
        lf[VX_LF_FWDX] = (x->rt.cpu ? 1 : c->b) * c->s * (uint64_t)c->skv * (uint64_t)c->cb;
    if (c->rel_bias) {
        /* T5 position bias (b, heads, s, s), shared by the layers of a stack */
        uint64_t pbias = c->b * (uint64_t)c->a * c->s * c->s * (uint64_t)c->cb;
        lf[VX_LF_FWDX] = vx_sat_add(lf[VX_LF_FWDX], 2 * pbias);
        lf[VX_LF_BWDX] = pbias;
        /* the encoder output's gradient, summed over every cross-attention */
        lf[VX_LF_BWDX] = vx_sat_add(lf[VX_LF_BWDX], c->N * (uint64_t)c->h * (uint64_t)(c->amp ? 4 : c->cb));
    }
    lf[VX_LF_WFWD] = pb.weights_fwd;
    lf[VX_LF_WBWD] = pb.weights_bwd;
    lf[VX_LF_GBWD] = pb.grads_bwd;
    lf[VX_LF_GACC] = pb.grads_accum;
    /* optimizer_in_backward: a post-accumulate-grad hook steps each
     * parameter and frees its gradient at once (ga is 1, no sharding:
     * vx_config_check), so no full set of gradients ever exists; each is a
     * transient of its own backward node, as when summing into existing
     * gradients. */
    sp->in_bwd = cv->optimizer_in_backward && opt != VX_OPT_NONE;
    if (!sp->in_bwd) {
        lf[VX_LF_G] = pl.grads_on_gpu ? tm->grads : 0;
        lf[VX_LF_AG] = tm->adapter_g;
    }
    lf[VX_LF_LARGEST] = tm->largest_grad;
    lf[VX_LF_OPTTMP] = tm->opt_tmp;
    lf[VX_LF_STEP] = pb.step;
    /* A checkpointed layer keeps its input (and, non-reentrant on the CPU,
     * the CPU RNG state: a 5056-byte ByteTensor). */
    lf[VX_LF_RNG] = c->cpu ? 5056 : 0;
    if (lraw) {
        memcpy(lraw, lf, sizeof v->leaf);
        memset(lmask, 0, sizeof v->leaf);
        lraw[VX_LF_IDS] = ids;
        lmask[VX_LF_IDS] = ids_mask;
    }

    /* ZeRO-2/3 and FSDP reduce each gradient into a sharded buffer as
     * backward produces it: the full-size ones are transients. */
    sp->reduce = vx_shard_divisor(sh, VRAMEST_CAT_GRADIENTS) > 1 || sp->in_bwd;
    /* optimizer none: forward + backward only, with zero_grad(set_to_none)
     * each step (what benchmark loops do): no gradients before backward. */
    sp->ga2 = ga > 1;
    sp->later = ga > 1;
    sp->opt = opt != VX_OPT_NONE;
    sp->opt_dev = pl.odev == VRAMEST_DEV_GPU;
    sp->inflight = sh->inflight_microbatches > 1 ? sh->inflight_microbatches - 1 : 0;
    sp->offload = cv->activation_offloading || cv->offload_activations;
    return VRAMEST_OK;
}
