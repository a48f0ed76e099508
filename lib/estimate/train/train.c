/* Training-step estimator (issue #5): a rank's step and its result.
 *
 * The static terms (params/static_terms.c) give what lives through the step:
 * weights, fp32 master weights, optimizer states, and the gradients that
 * exist from the first backward of a step until zero_grad(set_to_none=True)
 * after optimizer.step(). The programs (graph/activations.c, logits.c) give, per
 * layer class, what forward keeps and the transient peaks of forward and
 * backward. They become the step's values (step/prepare.c), step/step.c
 * composes them over the layers into the step's points and its peak - or
 * the cache's compiled step gives that peak at once - and train_finish
 * turns the peak into the result. */
#include <string.h>

#include "estimate/cache/progcache.h"
#include "estimate/cache/stepcache.h"
#include "estimate/step/images.h"
#include "estimate/train/train.h"

/* The result of a rank from its step: the categories at the peak with their
 * bands, the offloaded terms on the host / NVMe, the allocator's reserve. */
static void train_finish(vx_ctx *x, const vx_shard *sh, const vx_train_model *tm,
                         const vx_act_cfg *cp, const vx_step_out *st)
{
    struct vramest_result *r = x->r;
    const vx_act_cfg *c = cp;
    vx_static_devices pl;
    vx_static_devices_of(sh, tm, &pl);
    /* the step wrote its timeline after what was there */
    r->n_timeline += st->ntl;

    /* The result: categories at the peak instant, with bands. */
    int prov = tm->prov;
    const uint64_t *pk = st->at;
    for (int cat = 0; cat < VX_NCAT; cat++) {
        uint64_t v = pk[cat];
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
        vx_result_add(r, VRAMEST_DEV_GPU, cat, v, lo, hi, p);
    }
    /* Offloaded parts live on the host / NVMe. */
    if (pl.wdev != VRAMEST_DEV_GPU) vx_shard_add(x, sh, VRAMEST_CAT_WEIGHTS, pl.w_gpu, pl.w_gpu, pl.w_gpu, prov);
    if (pl.mdev != VRAMEST_DEV_GPU && tm->master) vx_shard_add(x, sh, VRAMEST_CAT_MASTER_WEIGHTS, tm->master, tm->master, tm->master, prov);
    if (pl.odev != VRAMEST_DEV_GPU && (tm->states || tm->adapter_s)) {
        uint64_t o = vx_sat_add(tm->states, tm->adapter_s);
        vx_shard_add(x, sh, VRAMEST_CAT_OPTIMIZER_STATES, o, o, o, prov);
    }
    if (!pl.grads_on_gpu && tm->grads) vx_shard_add(x, sh, VRAMEST_CAT_GRADIENTS, tm->grads, tm->grads, tm->grads, prov);
    if (st->host_act) {
        /* pinned host memory, per node (every rank of it offloads its own) */
        uint64_t h = vx_sat_mul(st->host_act, (uint64_t)(sh->host_ranks > 0 ? sh->host_ranks : 1));
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_ACTIVATIONS, h, h - h / 10, vx_sat_add(h, h / 10),
                      VRAMEST_PROV_FORMULA);
    }
    uint64_t pinned = vx_parallel_host_pinned(x, sh);
    if (pinned)
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_WORKSPACE, vx_sat_mul(pinned, (uint64_t)(sh->host_ranks > 0 ? sh->host_ranks : 1)),
                      pinned, pinned, VRAMEST_PROV_FORMULA);
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
    if (!x->rt.cpu) {
        vx_head_opts ho;
        vx_step_head_opts(x, tm, &ho);
        vx_alloc_in ai = {.peak_alloc = st->total, .cpu = 0, .static_shapes = x->rt.static_shapes};
        ai.act_peak = vx_sat_add(pk[VRAMEST_CAT_ACTIVATIONS], pk[VRAMEST_CAT_LOGITS]);
        /* The largest single transient: the logits in the widest dtype the
         * loss holds them in, eager attention scores (fp32 when upcast), or
         * a dense embedding gradient. */
        uint64_t t = vx_sat_mul(c->Nh * (uint64_t)c->h, (uint64_t)(c->amp ? 4 : c->cb));
        if (sh->last_stage) {
            int lb = (ho.upcast || c->amp || ho.loss_upcast || c->cb == 4) ? 4 : c->cb;
            /* the loss path decides the widest logits-sized block: a chunk
             * of fp32 logits (chunked), about N x H (fused), none wider
             * than the compute dtype (sum) */
            uint64_t rows = c->N;
            if (c->loss == VX_LOSS_CHUNKED) rows = vx_ceil_div(c->N, (uint64_t)(c->loss_chunks > 0 ? c->loss_chunks : 1)), lb = 4;
            if (c->loss == VX_LOSS_FUSED_LINEAR)
                rows = vx_min_u64(c->N, vx_ceil_div(c->N * (uint64_t)c->h, (uint64_t)(c->V > 0 ? c->V : 1)) * 2);
            if (c->loss == VX_LOSS_SUM) lb = (ho.upcast || c->amp) ? 4 : c->cb;
            t = vx_max_u64(t, vx_sat_mul(rows * (uint64_t)c->V, (uint64_t)lb));
        }
        if (c->attn == VX_KERN_EAGER)
            t = vx_max_u64(t, vx_sat_mul(c->b * (uint64_t)c->a * c->s * (uint64_t)c->skv, 4));
        if (sh->first_stage && tm->embed.trainable) t = vx_max_u64(t, tm->embed.wgrad);
        ai.largest_act = vx_alloc_round(t);
        uint64_t res, lo, hi;
        vx_alloc_reserve(&ai, &res, &lo, &hi);
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ALLOCATOR, res, lo, hi, VRAMEST_PROV_EMPIRICAL);
    }

    r->val[VRAMEST_VAL_PEAK_PHASE] = (uint64_t)st->phase;
    r->val[VRAMEST_VAL_PARAMS_TRAINABLE] = tm->trainable_params;
}

/* What the step assumed where a setting said "auto", and the notes of the
 * defaults that decided it (the first rank group fills them). */
static void resolved_train(vx_ctx *x, const vx_shard *sh, const vx_train_model *tm, const vx_act_cfg *c)
{
    static const char *const kernels[] = {"eager", "sdpa_flash", "sdpa_mem_efficient", "flash_attention_2"};
    struct vramest_result *r = x->r;
    vx_result_runtime *q = &r->rrt;
    if (q->mode_train) return;
    const vx_runtime *rt = &x->rt;
    const vx_config_values *cv = x->cv;
    const char *fw = vx_enum_name_of(vx_framework_enum, rt->framework);
    q->mode_train = 1;
    q->opt_impl = tm->opt_impl;
    q->loss = c->loss;
    q->fsdp_version = sh->fsdp == VX_FSDP_NONE ? 0 : sh->fsdp2 ? 2 : 1;
    q->attention = c->attn >= 0 && c->attn < 4 ? kernels[c->attn] : NULL;
    if (c->loss != (int)cv->loss)
        vx_result_note(r, "loss: %s fuses its loss with the output projection (fused_linear): no logits tensor",
                       fw ? fw : "the framework");
    if (sh->fsdp != VX_FSDP_NONE && !cv->fsdp_version)
        vx_result_note(r, "fsdp_version: FSDP%d, %s's default", q->fsdp_version, fw ? fw : "the framework's");
    if (rt->hf_code && (rt->defaulted & VX_RTV_TRANSFORMERS) && tm->head == VX_HEAD_CAUSAL_LM &&
        c->loss == VX_LOSS_CE) {
        char v[24];
        vx_version_format(rt->transformers, vx_transformers_versions.form, v, sizeof v);
        vx_result_note(r, "logits: transformers %s (the default) upcasts them inside the loss, no shifted copy; "
                          "<= 4.48 copied them, <= 4.45 upcast them in the model (runtime.transformers_version)",
                       v);
    }
}

static int train_rank(vx_ctx *x, const vx_shard *sh)
{
    vx_train_model tm_buf;
    const vx_train_model *tm = NULL;
    vx_pcache *pc = vx_pcache_of(x->pol.m);
    int rc = vx_train_static_cached(pc, x, sh, &tm_buf, &tm);
    if (rc) return rc;
    /* The config of the programs: the cached one with this step's sizes. */
    vx_act_cfg c;
    int stable = tm != &tm_buf;
    if (stable) {
        c = *vx_pcache_cfg(tm);
        vx_train_cfg_sizes(x->cv, sh, tm, &c);
    } else {
        vx_train_cfg(x, sh, tm, &c);
    }
    resolved_train(x, sh, tm, &c);
    vx_step_out out = {.tl = x->r->timeline + x->r->n_timeline, .cap = VX_MAX_TIMELINE - x->r->n_timeline};
    /* A rank whose step is compiled for this size class evaluates it. */
    vx_stepslots *ss = stable ? vx_pcache_steps(tm) : NULL;
    vx_pclass cl;
    vx_pclass_of(c.b, c.s, &cl);
    const vx_stepslot *slot = ss ? vx_step_find(ss, &cl) : NULL;
    /* Offloaded activations are reported on the host: only the composed
     * step gives them. */
    int offload = x->cv->activation_offloading || x->cv->offload_activations;
    if (offload) ss = NULL, slot = NULL;
    if (slot && slot->cs && vx_cstep_eval(slot->cs, c.b, c.s, &out)) {
        vx_images_train(x, sh, &out);
        train_finish(x, sh, tm, &c, &out);
        return VRAMEST_OK;
    }
    /* Otherwise the step is composed from its programs, each one compiled
     * or replayed by the cache. */
    vx_prog_source src;
    vx_pcache_source(pc, &src);
    vx_step_shape sp;
    vx_step_vals v;
    const struct vx_cprog *used[VX_SP_N];
    if ((rc = vx_train_step_prepare(x, sh, tm, &src, stable, &c, &sp, &v, NULL, NULL, used))) return rc;
    vx_step_compose(&sp, &v, &out, NULL);
    /* Every program compiled (the second sight of each): compile the step. */
    if (ss && !slot) {
        int all = 1;
        for (int q = 0; q < VX_SP_N; q++)
            if (vx_step_has_prog(&sp, q)) all &= used[q] != NULL;
        if (all) vx_step_compile(ss, &src, x, sh, tm, &c, &sp, used);
    }
    vx_images_train(x, sh, &out);
    train_finish(x, sh, tm, &c, &out);
    return VRAMEST_OK;
}

/* The programs multiply sizes without checks: refuse a job whose largest
 * products (attention scores, logits, MLP activations, parameters) do not
 * fit comfortably in 64 bits, so nothing can wrap. */
static int check_sizes(const vx_ctx *x)
{
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->pol.s;
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

int vx_estimate_train(vx_ctx *x)
{
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->pol.s;
    if (cv->batch_size < 1 || cv->seq_len < 1)
        return vx_fail(VRAMEST_E_RANGE, "train: batch_size %lld and seq_len %lld must be >= 1",
                       (long long)cv->batch_size, (long long)cv->seq_len);
    int rc0 = check_sizes(x);
    if (rc0) return rc0;
    if (cv->finetune == VX_FT_LORA || cv->finetune == VX_FT_QLORA) {
        int rc = vx_lora_check(x);
        if (rc) return rc;
    }
    if (cv->finetune == VX_FT_QLORA && x->pol.rp.quant_method != VX_QM_BNB)
        vx_result_warn(x->r, "finetune qlora with weights that bitsandbytes does not quantize: estimated as LoRA "
                             "over the stored weights (set precision nf4 for QLoRA)");
    if (s->max_pos > 0 && cv->seq_len > s->max_pos && !s->rel_buckets)
        vx_result_warn(x->r, "seq_len %lld is longer than max_position_embeddings %lld: the model was not trained "
                             "for it (learned positions would index out of range)",
                       (long long)cv->seq_len, (long long)s->max_pos);
    if (cv->finetune == VX_FT_FREEZE && cv->trainable_layers == 0)
        vx_result_warn(x->r, "finetune freeze with trainable_layers 0: only the head and final norm train");
    return vx_for_each_rank_group(x, train_rank);
}
