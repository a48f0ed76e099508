/* Static terms of a training step, per tensor group of the inventory: the
 * weights as held, fp32 master weights, gradients, optimizer states, the
 * LoRA adapters and their gradients and states - and the per-role table of
 * linears (dimensions on this rank, trainable or frozen, adapted, quantized)
 * that the layer programs read. Being per tensor, frozen and trainable parts
 * (LoRA, freeze, QLoRA's fp32 upcasts) and bitsandbytes' small-tensor rules
 * come out right. */
#include <string.h>

#include "estimate/params/params.h"
#include "estimate/params/weights.h"

static uint64_t scale(uint64_t v, uint64_t num, uint64_t den)
{
    if (!den || num >= den) return v;
    unsigned __int128 p = (unsigned __int128)v * num;
    return (uint64_t)(p / den);
}

static int is_float_dt(int d)
{
    return d == VRAMEST_DTYPE_FP32 || d == VRAMEST_DTYPE_FP16 || d == VRAMEST_DTYPE_BF16;
}

static int column_parallel(int role)
{
    switch (role) {
    case VX_ROLE_ATTN_Q: case VX_ROLE_ATTN_K: case VX_ROLE_ATTN_V: case VX_ROLE_ATTN_QKV:
    case VX_ROLE_CROSS_Q: case VX_ROLE_CROSS_K: case VX_ROLE_CROSS_V: case VX_ROLE_ATTN_Q_B:
    case VX_ROLE_ATTN_KV_B: case VX_ROLE_MLP_GATE: case VX_ROLE_MLP_UP: case VX_ROLE_MLP_GATE_UP:
    case VX_ROLE_SHARED_GATE: case VX_ROLE_SHARED_UP: case VX_ROLE_EXPERT_GATE: case VX_ROLE_EXPERT_UP:
    case VX_ROLE_SSM_IN: case VX_ROLE_SSM_IN2: return 1;
    default: return 0;
    }
}

static int row_parallel(int role)
{
    switch (role) {
    case VX_ROLE_ATTN_O: case VX_ROLE_CROSS_O: case VX_ROLE_MLP_DOWN: case VX_ROLE_SHARED_DOWN:
    case VX_ROLE_EXPERT_DOWN: case VX_ROLE_SSM_OUT: return 1;
    default: return 0;
    }
}

/* Decoder layers of this rank that train under finetune=freeze. */
static int64_t freeze_layers_here(const vx_ctx *x, const vx_shard *sh, int64_t *first_trainable)
{
    int64_t L = x->pol.s->layers, n = x->cv->trainable_layers;
    if (n > L) n = L;
    int64_t lo = L - n, a = sh->first_layer, b = sh->first_layer + sh->stage_layers;
    *first_trainable = lo;
    if (a < lo) a = lo;
    return b > a ? b - a : 0;
}

static vx_lin *global_slot(vx_train_model *tm, const vx_tensor *t)
{
    switch (t->role) {
    case VX_ROLE_EMBED: return &tm->embed;
    case VX_ROLE_POS_EMBED: return &tm->pos;
    case VX_ROLE_TYPE_EMBED: return &tm->type;
    case VX_ROLE_EMBED_NORM: return &tm->embed_norm;
    case VX_ROLE_EMBED_PROJ: return !strcmp(t->name, "project_in") ? &tm->proj_in : &tm->proj_out;
    case VX_ROLE_FINAL_NORM: return &tm->final_norm;
    case VX_ROLE_LM_HEAD: return &tm->lm_head;
    case VX_ROLE_MLM_TRANSFORM: return t->kind == VX_TK_NORM ? &tm->mlm_norm : &tm->mlm_dense;
    case VX_ROLE_POOLER: return &tm->pooler;
    case VX_ROLE_CLASSIFIER: return &tm->classifier;
    default: return NULL;
    }
}

static const uint16_t kl_role[VX_KL_N] = {VX_ROLE_ATTN_Q,   VX_ROLE_ATTN_K,  VX_ROLE_ATTN_V,      VX_ROLE_ATTN_O,
                                          VX_ROLE_MLP_GATE, VX_ROLE_MLP_UP,  VX_ROLE_MLP_GATE_UP, VX_ROLE_MLP_DOWN};

static void kl_set(vx_kind_lin *r, int role, int64_t in, int64_t out, int64_t tp)
{
    /* this rank's share, as the per-role table splits it */
    if (column_parallel(role)) out = out / tp > 0 ? out / tp : 1;
    else if (row_parallel(role)) in = in / tp > 0 ? in / tp : 1;
    r->in = in, r->out = out;
}

static int kl_same(const vx_kind_lin *a, const vx_kind_lin *b, int from, int to)
{
    for (int i = from; i < to; i++)
        if (a[i].in != b[i].in || a[i].out != b[i].out || a[i].absent != b[i].absent) return 0;
    return 1;
}

void vx_kind_row(const vx_shape *s, const vx_layer_kind *kk, int64_t tp, vx_kind_lin r[VX_KL_N])
{
    memset(r, 0, VX_KL_N * sizeof *r);
    int64_t h = s->hidden;
    if (kk->mixer == VX_MIX_ATTN) {
        int64_t qd = kk->heads * kk->head_dim, kvd = kk->kv_heads * kk->head_dim;
        kl_set(&r[VX_KL_Q], VX_ROLE_ATTN_Q, h, (s->attn_gate ? 2 : 1) * qd, tp);
        kl_set(&r[VX_KL_K], VX_ROLE_ATTN_K, h, kvd, tp);
        kl_set(&r[VX_KL_V], VX_ROLE_ATTN_V, h, kvd, tp);
        kl_set(&r[VX_KL_O], VX_ROLE_ATTN_O, qd, h, tp);
        /* Gemma 4's KV-shared and Hunyuan's cross-layer (CLA) layers read
         * keys and values another layer projected: no module, no output;
         * K=V layers' values are k_proj's output under v_norm: no module,
         * an output of k's size */
        int reuse = kk->kv_shared || kk->kv_reuse;
        r[VX_KL_K].absent = (uint8_t)(reuse ? VX_KL_NO_OUTPUT : 0);
        r[VX_KL_V].absent = (uint8_t)(reuse ? VX_KL_NO_OUTPUT : kk->k_eq_v ? VX_KL_NO_MODULE : 0);
    }
    if (kk->mlp == VX_MLPK_DENSE) {
        kl_set(&r[VX_KL_GATE], VX_ROLE_MLP_GATE, h, kk->ffn, tp);
        kl_set(&r[VX_KL_UP], VX_ROLE_MLP_UP, h, kk->ffn, tp);
        kl_set(&r[VX_KL_GATE_UP], VX_ROLE_MLP_GATE_UP, h, 2 * kk->ffn, tp);
        kl_set(&r[VX_KL_DOWN], VX_ROLE_MLP_DOWN, kk->ffn, h, tp);
    }
}

/* Whether the decoder's kinds differ in their linears (model/inventory.c
 * builds separate q, k, v, o of heads x head_dim and kv_heads x head_dim,
 * and a dense MLP of the kind's ffn): the attention kinds, or the
 * dense-MLP kinds, compared with the first of theirs. Fused q|k|v and MLA
 * layouts keep the one row per role. The rows are recomputed where they
 * are read (vx_part_of_kind), so the model of a step stays small. */
static int kind_lins(const vx_ctx *x, int64_t tp)
{
    const vx_shape *s = x->pol.s;
    const vx_layers *L = &x->pol.m->layers;
    if (L->n_kinds < 2 || s->fam->qkv == VX_QKV_FUSED || s->fam->mla || s->encoder_only) return 0;
    /* a0 and m0 are set before they are read; initialised for gcc -O3, which
     * cannot see it */
    vx_kind_lin r[VX_KL_N], a0[VX_KL_N] = {{0}}, m0[VX_KL_N] = {{0}};
    int differ = 0, attn0 = 0, mlp0 = 0;
    for (int k = 0; k < L->n_kinds && !differ; k++) {
        const vx_layer_kind *kk = &L->kind[k];
        vx_kind_row(s, kk, tp, r);
        if (kk->mixer == VX_MIX_ATTN) {
            if (!attn0) memcpy(a0, r, sizeof r), attn0 = 1;
            else differ = !kl_same(r, a0, VX_KL_Q, VX_KL_GATE);
        }
        if (kk->mlp == VX_MLPK_DENSE && !differ) {
            if (!mlp0) memcpy(m0, r, sizeof r), mlp0 = 1;
            else differ = !kl_same(r, m0, VX_KL_GATE, VX_KL_N);
        }
    }
    return differ;
}

void vx_part_of_kind(const vx_shape *s, const vx_layer_kind *kk, int64_t tp, const vx_part *p, vx_part *out)
{
    *out = *p;
    vx_kind_lin row[VX_KL_N];
    vx_kind_row(s, kk, tp, row);
    for (int i = 0; i < VX_KL_N; i++) {
        const vx_kind_lin *r = &row[i];
        vx_lin *l = &out->lin[kl_role[i]];
        if (!l->present || (!r->in && !r->out)) continue;
        l->in = r->in, l->out = r->absent == VX_KL_NO_OUTPUT ? 0 : r->out;
        /* the table summed every shape's gradient into the row: this
         * kind's own (weight and bias), or none for a module it lacks */
        uint64_t g = vx_sat_mul(vx_sat_mul((uint64_t)r->in, (uint64_t)r->out) + (l->bias ? (uint64_t)r->out : 0),
                                p->gb);
        if (r->absent) l->trainable = 0, l->lora_r = 0, l->wgrad = 0;
        else if (l->wgrad) l->wgrad = g;
    }
}

int vx_train_static(vx_ctx *x, const vx_shard *sh, vx_train_model *tm)
{
    const vx_config_values *cv = x->cv;
    const vx_resolved_precision *rp = &x->pol.rp;
    memset(tm, 0, sizeof *tm);
    int cpu = x->rt.cpu;
    int ft = (int)cv->finetune;
    int opt = (int)cv->optimizer;
    tm->finetune = ft;
    tm->head = vx_head_resolve(x->pol.s, (int)cv->head);
    tm->tied = x->pol.s->tied;
    tm->lora = ft == VX_FT_LORA || ft == VX_FT_QLORA;
    /* get_peft_model(autocast_adapter_dtype=True) keeps adapters in fp32;
     * torchtune builds them in the model's dtype. */
    int adt = x->rt.adapter_param_dtype ? rp->param_dtype : VRAMEST_DTYPE_FP32;
    tm->adapter_bytes = x->rt.adapter_bytes > 0 ? x->rt.adapter_bytes : (int)vx_train_dsize(adt, 4);
    tm->opt_impl = vx_opt_impl(x);
    tm->prov = vx_weights_provenance(x->pol.m);
    tm->prefix_len = ft == VX_FT_PREFIX ? cv->prefix_len : 0;
    int peft = ft == VX_FT_LORA || ft == VX_FT_QLORA || ft == VX_FT_PREFIX;
    int64_t first_tr = 0, tr_here = sh->stage_layers;
    if (ft == VX_FT_FREEZE) tr_here = freeze_layers_here(x, sh, &first_tr);
    tm->trainable_first = ft == VX_FT_FREEZE ? first_tr : 0;
    int64_t lr = cv->lora_rank > 0 ? cv->lora_rank : 8;

    int gd = rp->grad_dtype, sd = rp->state_dtype;
    /* Megatron / nanotron accumulate gradients in fp32 main-grad buffers
     * when training 16-bit parameters with fp32 master weights. */
    if (x->pol.pv->gradients == VRAMEST_DTYPE_AUTO && rp->master_dtype == VRAMEST_DTYPE_FP32 &&
        x->rt.fp32_main_grads)
        gd = VRAMEST_DTYPE_FP32;
    unsigned gb = vx_train_dsize(gd, 4);
    unsigned sb = vx_train_dsize(sd, 4);
    int master = rp->master_dtype == VRAMEST_DTYPE_FP32;
    int64_t dg = vx_shard_divisor(sh, VRAMEST_CAT_GRADIENTS), ds = vx_shard_divisor(sh, VRAMEST_CAT_OPTIMIZER_STATES);
    int64_t dm = vx_shard_divisor(sh, VRAMEST_CAT_MASTER_WEIGHTS), dw = vx_shard_divisor(sh, VRAMEST_CAT_WEIGHTS);
    int64_t tp = sh->tp > 0 ? sh->tp : 1;

    uint64_t decay_bytes = 0, nodecay_bytes = 0, largest = 0, largest_elems = 0, n_train_tensors = 0;
    uint64_t grads = 0, states = 0, paged = 0, mw = 0, wexact = 0, walloc = 0;
    uint64_t ad_w = 0, ad_s = 0, ad_paged = 0;
    uint64_t tp_global = 0, ad_global = 0;

    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        uint64_t e_tot = vx_tensor_elems(t);
        uint64_t e = vx_shard_tensor_elems(sh, x, t);
        /* One pass over the policy's allocations of the group: bytes,
         * whether the method quantizes it, and its storage dtype. */
        vx_piece pc[VX_MAX_PIECES];
        size_t np = vx_tensor_pieces(&x->pol, t, pc);
        uint64_t gpu = 0;
        int quant = 0, dt = np ? pc[0].dtype : VRAMEST_DTYPE_FP32;
        for (size_t i = 0; i < np; i++) {
            gpu = vx_sat_add(gpu, vx_sat_mul(pc[i].bytes, pc[i].count));
            if (!is_float_dt(pc[i].dtype) && (t->kind == VX_TK_MATRIX || t->kind == VX_TK_EMBED)) quant = 1;
        }
        if (quant && x->pol.rp.quant_method != VX_QM_GGUF) dt = vx_policy_weight_dtype(&x->pol);
        uint64_t bytes = scale(gpu, e, e_tot);
        /* prepare_model_for_kbit_training upcasts every 16-bit parameter that
         * is not quantized (norms, embeddings, lm_head) to fp32. */
        int upcast = ft == VX_FT_QLORA && !x->rt.no_kbit_prep && !quant && is_float_dt(dt) && dt != VRAMEST_DTYPE_FP32 && t->trainable_default;
        if (upcast) {
            bytes = vx_sat_mul(bytes, 4 / vx_train_dsize(dt, 2));
            dt = VRAMEST_DTYPE_FP32;
        }
        unsigned wb = quant ? vx_train_dsize(rp->compute_dtype, 2) : vx_train_dsize(dt, 4);
        uint64_t copies_tot = (uint64_t)(t->n_layers > 0 ? t->n_layers : 1) * (uint64_t)(t->n_per_layer > 0 ? t->n_per_layer : 1);
        uint64_t copies = e_tot ? vx_ceil_div(vx_sat_mul(copies_tot, e), e_tot) : 0;
        if (tp > 1 && copies) copies = vx_ceil_div(vx_sat_mul(copies_tot, vx_sat_mul(e, (uint64_t)tp)), e_tot);
        if (copies > copies_tot) copies = copies_tot;
        if (e) {
            wexact = vx_sat_add(wexact, bytes);
            uint64_t wsh = bytes / (uint64_t)dw;
            walloc = vx_sat_add(walloc, cpu ? wsh : vx_sat_add(wsh, vx_sat_mul(copies / (uint64_t)dw + 1, 256)));
            tm->n_param_tensors = vx_sat_add(tm->n_param_tensors, copies);
        }

        /* What trains. */
        int train = 0;
        uint64_t train_e = 0, train_copies = 0;
        if (t->trainable_default && !quant) {
            if (ft == VX_FT_FULL) train = 1;
            else if (ft == VX_FT_FREEZE) {
                if (t->part == VX_PART_DECODER) train = tr_here > 0;
                else if (t->part == VX_PART_GLOBAL)
                    train = t->role == VX_ROLE_FINAL_NORM || VX_ROLE_IS_HEAD(t->role);
            } else if (peft) {
                /* PEFT trains a classification head (modules_to_save). */
                train = tm->head == VX_HEAD_SEQ_CLS && t->role == VX_ROLE_CLASSIFIER;
            }
        }
        if (train) {
            train_e = e;
            train_copies = copies;
            if (ft == VX_FT_FREEZE && t->part == VX_PART_DECODER && sh->stage_layers > 0) {
                train_e = scale(e, (uint64_t)tr_here, (uint64_t)sh->stage_layers);
                train_copies = scale(copies, (uint64_t)tr_here, (uint64_t)sh->stage_layers);
            }
            uint64_t tglob = e_tot;
            int64_t L = x->pol.s->layers;
            if (ft == VX_FT_FREEZE && t->part == VX_PART_DECODER && L > 0)
                tglob = scale(e_tot, (uint64_t)(cv->trainable_layers < L ? cv->trainable_layers : L), (uint64_t)L);
            tp_global = vx_sat_add(tp_global, tglob);
        }
        if (train_e) {
            uint64_t g = vx_sat_mul(train_e, gb);
            grads = vx_sat_add(grads, cpu ? g : vx_sat_add(g, vx_sat_mul(train_copies, 256)));
            if (master) mw = vx_sat_add(mw, vx_sat_mul(train_e, 4));
            uint64_t per_copy = train_copies ? train_e / train_copies : train_e;
            vx_opt_state os;
            if (opt == VX_OPT_ADAFACTOR && t->kind != VX_TK_BIAS && t->kind != VX_TK_NORM && t->cols > 1) {
                uint64_t rows = per_copy / (uint64_t)t->cols;
                os.device = vx_sat_mul(vx_sat_mul(rows + (uint64_t)t->cols, sb), train_copies);
                os.paged = 0;
            } else {
                vx_opt_tensor_state(opt, sd, per_copy, cpu, &os);
                os.device = vx_sat_mul(os.device, train_copies);
                os.paged = vx_sat_mul(os.paged, train_copies);
            }
            if (!cpu && opt != VX_OPT_ADAMW_8BIT && opt != VX_OPT_PAGED_ADAMW_8BIT && os.device)
                os.device = vx_sat_add(os.device, vx_sat_mul(train_copies, 256 * (opt == VX_OPT_ADAM || opt == VX_OPT_ADAMW ? 2 : 1)));
            states = vx_sat_add(states, os.device);
            paged = vx_sat_add(paged, os.paged);
            tm->step_on_device = vx_sat_add(tm->step_on_device, vx_sat_mul(train_copies, vx_opt_step_bytes(opt, tm->opt_impl, cpu)));
            uint64_t pb = vx_sat_mul(per_copy, sb);
            if (pb > largest) largest = pb, largest_elems = per_copy;
            if (t->kind == VX_TK_BIAS || t->kind == VX_TK_NORM) nodecay_bytes = vx_sat_add(nodecay_bytes, vx_sat_mul(train_e, sb));
            else decay_bytes = vx_sat_add(decay_bytes, vx_sat_mul(train_e, sb));
            n_train_tensors = vx_sat_add(n_train_tensors, train_copies);
        }

        /* LoRA adapters: lora_A (r x in) and lora_B (out x r), fp32. */
        int adapt = tm->lora && e && vx_lora_targets(x, t);
        if (adapt) {
            uint64_t per = vx_sat_mul((uint64_t)lr, (uint64_t)(t->rows + t->cols));
            uint64_t ae = vx_sat_mul(per, copies);
            uint64_t a_b = vx_sat_mul(ae, (uint64_t)tm->adapter_bytes);
            ad_w = vx_sat_add(ad_w, cpu ? a_b : vx_sat_add(a_b, vx_sat_mul(copies, 1024)));
            vx_opt_state oa, ob;
            vx_opt_tensor_state(opt, adt, vx_sat_mul((uint64_t)lr, (uint64_t)t->cols), cpu, &oa);
            vx_opt_tensor_state(opt, adt, vx_sat_mul((uint64_t)lr, (uint64_t)t->rows), cpu, &ob);
            uint64_t st = vx_sat_mul(vx_sat_add(oa.device, ob.device), copies);
            if (!cpu && st) st = vx_sat_add(st, vx_sat_mul(copies, 2048));
            ad_s = vx_sat_add(ad_s, st);
            ad_paged = vx_sat_add(ad_paged, vx_sat_mul(vx_sat_add(oa.paged, ob.paged), copies));
            tm->step_on_device = vx_sat_add(tm->step_on_device, vx_sat_mul(2 * copies, vx_opt_step_bytes(opt, tm->opt_impl, cpu)));
            uint64_t pe = vx_sat_mul((uint64_t)lr, (uint64_t)(t->rows > t->cols ? t->rows : t->cols));
            uint64_t pa = vx_sat_mul(pe, (uint64_t)tm->adapter_bytes);
            if (pa > largest) largest = pa, largest_elems = pe;
            decay_bytes = vx_sat_add(decay_bytes, vx_sat_mul(ae, (uint64_t)tm->adapter_bytes));
            ad_global = vx_sat_add(ad_global, vx_sat_mul(per, copies_tot));
            n_train_tensors = vx_sat_add(n_train_tensors, 2 * copies);
        }

        /* The per-role table the layer programs read. */
        vx_lin *L = NULL;
        vx_part *P = NULL;
        if (t->part == VX_PART_DECODER) P = &tm->dec;
        else if (t->part == VX_PART_ENCODER) P = &tm->enc;
        if (P && t->kind == VX_TK_NORM) {
            if (t->role == VX_ROLE_NORM) {
                P->norm_trainable = train;
                P->norm_wbytes = (uint8_t)wb;
                uint64_t per_layer = t->n_layers > 0 ? vx_sat_mul((uint64_t)t->rows, (uint64_t)(t->n_per_layer > 0 ? t->n_per_layer : 1)) : 0;
                if (train) P->norm_wgrad = vx_sat_add(P->norm_wgrad, vx_sat_mul(per_layer, gb));
            }
            continue;
        }
        if (P) {
            if (t->role == VX_ROLE_REL_BIAS) {
                if (train) P->other_wgrad = vx_sat_add(P->other_wgrad, vx_sat_mul(e_tot / (uint64_t)(t->n_layers > 0 ? t->n_layers : 1), gb));
                continue;
            }
            L = &P->lin[t->role];
        } else {
            L = global_slot(tm, t);
            if (x->pol.s->enc_dec && t->role == VX_ROLE_FINAL_NORM && t->kind == VX_TK_NORM && tm->final_norm.present)
                L = &tm->enc_final_norm; /* T5: the encoder's final norm comes first */
        }
        if (!L) continue;
        int64_t per_layer_copies = t->n_per_layer > 0 ? t->n_per_layer : 1;
        if (t->kind == VX_TK_BIAS) {
            L->bias = 1;
            if (train) L->wgrad = vx_sat_add(L->wgrad, vx_sat_mul(vx_sat_mul((uint64_t)t->rows, (uint64_t)per_layer_copies), gb));
            continue;
        }
        if (L->present && t->kind == VX_TK_NORM) {
            /* LayerNorm bias: the second group of the same norm. */
            if (train) L->wgrad = vx_sat_add(L->wgrad, vx_sat_mul((uint64_t)t->rows, gb));
            continue;
        }
        int dup = L->present && t->kind == VX_TK_MATRIX;
        if (dup) {
            /* A second module of the same role (Qwen2-MoE's shared-expert gate
             * beside the router): keep the larger shape, add its gradient. */
            if (train) L->wgrad = vx_sat_add(L->wgrad, vx_sat_mul(vx_sat_mul((uint64_t)(t->rows * t->cols), (uint64_t)per_layer_copies), gb));
            if ((int64_t)t->rows * t->cols <= L->in * L->out) continue;
        }
        L->present = 1;
        int64_t in = t->cols, out = t->rows;
        if (tp > 1) {
            if (column_parallel(t->role)) out = out / tp > 0 ? out / tp : 1;
            else if (row_parallel(t->role)) in = in / tp > 0 ? in / tp : 1;
            else if (t->role == VX_ROLE_EMBED || t->role == VX_ROLE_LM_HEAD) out = (int64_t)vx_ceil_div((uint64_t)out, (uint64_t)tp);
        }
        L->in = in;
        L->out = out;
        L->trainable = (uint8_t)train;
        L->quant = (uint8_t)(!quant ? VX_LQ_NONE
                             : dt == VRAMEST_DTYPE_INT8 && rp->quant_method == VX_QM_BNB ? VX_LQ_INT8
                             : (dt == VRAMEST_DTYPE_NF4 || dt == VRAMEST_DTYPE_FP4) ? VX_LQ_4BIT : VX_LQ_INT4);
        L->wbytes = (uint8_t)wb;
        L->wcat = VX_TC_GRAD;
        L->lora_r = adapt ? (int32_t)lr : 0;
        if (train && !dup) L->wgrad = vx_sat_add(L->wgrad, vx_sat_mul(vx_sat_mul((uint64_t)(in * out), (uint64_t)per_layer_copies), gb));
        if (P && adapt) P->adapter_per_layer = vx_sat_add(P->adapter_per_layer, vx_sat_mul((uint64_t)lr, (uint64_t)(t->rows + t->cols)));
    }

    /* Prefix tuning: a trainable (virtual tokens, layers * 2 * kv dim) embedding. */
    if (tm->prefix_len) {
        uint64_t kvd = (uint64_t)((x->pol.s->kv_heads > 0 ? x->pol.s->kv_heads : x->pol.s->heads) * x->pol.s->head_dim);
        uint64_t L = (uint64_t)(x->pol.s->layers + x->pol.s->enc_layers);
        uint64_t pe = vx_sat_mul(vx_sat_mul((uint64_t)tm->prefix_len, L), 2 * kvd);
        ad_w = vx_sat_add(ad_w, vx_sat_mul(pe, 4));
        vx_opt_state os;
        vx_opt_tensor_state(opt, VRAMEST_DTYPE_FP32, pe, cpu, &os);
        ad_s = vx_sat_add(ad_s, os.device);
        ad_paged = vx_sat_add(ad_paged, os.paged);
        ad_global = vx_sat_add(ad_global, pe);
        decay_bytes = vx_sat_add(decay_bytes, vx_sat_mul(pe, 4));
        if (pe * 4 > largest) largest = pe * 4, largest_elems = pe;
    }

    tm->dec.gb = tm->enc.gb = (uint8_t)gb;
    tm->kind_lins = kind_lins(x, tp);
    tm->weights_exact = wexact;
    tm->weights = walloc;
    tm->grads = grads / (uint64_t)dg;
    tm->master = mw / (uint64_t)dm;
    tm->states = states / (uint64_t)ds;
    tm->paged_states = vx_sat_add(paged, ad_paged) / (uint64_t)ds;
    tm->adapter_w = ad_w;
    tm->adapter_g = ad_w; /* fp32 gradients of fp32 adapters */
    tm->adapter_s = ad_s;
    tm->trainable_params = vx_sat_add(tp_global, ad_global);
    tm->adapter_params = ad_global;
    (void)n_train_tensors;

    /* One optimizer step's temporaries: foreach works per (device, dtype)
     * group of each param group; HF Trainer makes two param groups (with and
     * without weight decay), a plain loop one. */
    uint64_t group = vx_sat_add(decay_bytes, nodecay_bytes);
    if (x->rt.opt_decay_groups) group = decay_bytes > nodecay_bytes ? decay_bytes : nodecay_bytes;
    /* In backward, one optimizer per parameter: each group is one tensor. */
    if (cv->optimizer_in_backward) group = largest;
    tm->largest_grad = vx_sat_mul(largest_elems, gb);
    int lowp = rp->param_dtype != VRAMEST_DTYPE_FP32;
    tm->opt_tmp = opt == VX_OPT_NONE ? 0
                                     : vx_opt_step_temp(opt, tm->opt_impl, group / (uint64_t)ds, largest,
                                                        largest_elems, lowp);

    /* The tied LM head is the embedding: its table row points at it. */
    if (tm->tied && !tm->lm_head.present && tm->embed.present) {
        tm->lm_head = tm->embed;
        tm->lm_head.in = tm->embed.in;
        tm->lm_head.out = tm->embed.out;
        tm->lm_head.lora_r = 0;
    }
    return VRAMEST_OK;
}
