/* Post-training with reinforcement learning (issue #23): one RL step on a
 * trainer GPU as three phases, each its own peak, and the step's peak over
 * them (docs/methodology.md, "RL post-training"):
 *
 *   rollout   the engine generates num_generations completions per prompt:
 *             generate() in the trainer's process (TRL's default), or a
 *             vLLM engine at its gpu_memory_utilization on the same GPUs
 *             (colocated: TRL vllm_mode colocate, verl's hybrid engine) or
 *             on its own GPUs (separate);
 *   scoring   forward passes without gradients over prompt + completion:
 *             the reference's log-probs (and the policy's old log-probs
 *             where the stack recomputes them), logits and their scaled
 *             copy per micro-batch;
 *   training  the policy's step on micro-batches of those sequences with
 *             the log-prob logits of the loss (completion tokens only, or
 *             every position where the stack computes them all).
 *
 * Each phase is the sum of what stays between phases (the trainer's
 * weights and optimizer states unless the stack offloads them between
 * phases, a reference copy on the GPU, the sleeping or awake engine) and
 * the phase's own work, which the existing estimators size: the training
 * step (train/), generate() or the vLLM engine (infer/), a forward without
 * gradients (infer/ with no generation). The runtime row of the stack
 * (TRL, verl, OpenRLHF) says what its defaults keep where. */
#include <stddef.h>
#include <string.h>

#include "estimate/infer/infer.h"
#include "estimate/rl/rl.h"
#include "estimate/rl/rl_job.h"
#include "estimate/train/train.h"

/* What a phase estimate leaves: its GPU and host categories. */
typedef struct rl_part {
    uint64_t gpu[VX_NCAT], host[VX_NCAT];
    uint64_t total; /* device total without the CUDA context */
    uint64_t peak_alloc; /* allocated at the estimate's peak */
    uint64_t fb_alloc;   /* the most allocated before the optimizer step (forward, backward; training) */
} rl_part;

/* Run one estimate of mode train or infer for `v` into `sub` and keep its
 * categories: the phase's own work, sized by the estimators every other
 * mode uses. The CUDA context is left to the step (one per process). */
static int run_part_of(vx_ctx *x, const struct vramest_model *m, const vx_precision_values *pv,
                       const vx_config_values *v, struct vramest_result *sub, rl_part *out)
{
    struct vramest_config c;
    vx_config_from_values(&c, v);
    vx_result_begin(sub);
    sub->shape = m->shape;
    vx_values_copy(&sub->cfg, &c.v, &vx_config_layout);
    sub->device_bytes = x->r->device_bytes;
    vx_ctx sx;
    int rc = vx_ctx_init(&sx, m, pv, &c, sub);
    if (!rc) rc = c.v.mode == VX_MODE_TRAIN ? vx_estimate_train(&sx) : vx_estimate_infer(&sx);
    if (rc) return rc;
    vx_result_finish(sub);
    memcpy(out->gpu, sub->cat[VRAMEST_DEV_GPU], sizeof out->gpu);
    memcpy(out->host, sub->cat[VRAMEST_DEV_HOST], sizeof out->host);
    out->total = sub->val[VRAMEST_VAL_DEVICE_TOTAL];
    out->peak_alloc = sub->val[VRAMEST_VAL_PEAK_ALLOCATED];
    out->fb_alloc = 0;
    for (uint32_t i = 0; i < sub->n_timeline; i++)
        if (sub->timeline[i].phase != VRAMEST_PHASE_OPTIMIZER)
            out->fb_alloc = vx_max_u64(out->fb_alloc, sub->timeline[i].allocated);
    if (!sub->n_timeline) out->fb_alloc = out->peak_alloc;
    /* The sub-estimate's cautions are the job's (precision assumed, vLLM
     * would not start, ...). */
    for (uint32_t i = 0; i < sub->n_warn; i++) {
        int seen = 0;
        for (uint32_t k = 0; k < x->r->n_warn; k++) seen |= strcmp(x->r->warn[k], sub->warn[i]) == 0;
        if (!seen) vx_result_warn(x->r, "%s", sub->warn[i]);
    }
    if (sub->refused && !x->r->refused) vx_result_refuse(x->r, "%s", sub->refusal);
    return VRAMEST_OK;
}

/* The policy's own sub-estimate. */
static int run_part(vx_ctx *x, const vx_config_values *v, struct vramest_result *sub, rl_part *out)
{
    return run_part_of(x, x->pol.m, x->pol.pv, v, sub, out);
}

/* A frozen model of its own beside the policy, loaded as the policy is:
 * its weights on a trainer GPU are its whole replica's (`whole`) sharded
 * as the policy's (the policy's on a GPU in the step, `step_w`, over its
 * whole replica, `policy_w`: FSDP / ZeRO-3 shards them all alike, verl's
 * and OpenRLHF's reference and reward workers included). */
static uint64_t placed_like_policy(uint64_t whole, uint64_t step_w, uint64_t policy_w)
{
    if (!policy_w || step_w >= policy_w) return whole;
    return (uint64_t)((double)whole * ((double)step_w / (double)policy_w));
}

/* A model on GPUs of its own (OpenRLHF's default for the reference, the
 * reward model and the critic: --ref_num_gpus_per_node ...): per such GPU
 * its CUDA context, its weights (`whole`, sharded over those GPUs under
 * ZeRO-3 / FSDP as the policy's job sets them) and its pass's work. */
static uint64_t on_own_gpus(const vx_ctx *x, const rl_part *pass, uint64_t whole, int64_t gpus, const int *cats,
                            size_t n)
{
    int shard = x->cv->zero_stage == 3 || x->cv->fsdp != VX_FSDP_NONE;
    uint64_t t = vx_sat_add(vx_cuda_context_bytes(x), shard ? vx_ceil_div(whole, (uint64_t)gpus) : whole);
    for (size_t i = 0; i < n; i++) t = vx_sat_add(t, pass->gpu[cats[i]]);
    return t;
}

/* The larger of two passes' work (WORK_CATS) into `dst`: passes of the
 * scoring phase run one after another. */
static void larger_work(uint64_t *dst, const uint64_t *src, const int *cats, size_t n)
{
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i < n; i++) a = vx_sat_add(a, dst[cats[i]]), b = vx_sat_add(b, src[cats[i]]);
    if (b > a)
        for (size_t i = 0; i < n; i++) dst[cats[i]] = src[cats[i]];
}

/* Logits of the per-token log-probs over `seqs` sequences at `tokens`
 * positions, in the compute dtype, divided in place by the temperature
 * (TRL 1.9 _get_per_token_logps_and_entropies: logits.div_, then
 * selective_log_softmax row by row; verl logprobs_from_logits after
 * logits.div_). Training (`grad`): the logits and the log-softmax output
 * autograd saves, or later the logits' gradient: two elements per logit.
 * Scoring: the logits and one sequence's log-softmax at a time. */
static uint64_t logprob_logits(const vx_ctx *x, uint64_t seqs, uint64_t tokens, int grad)
{
    uint64_t A = vx_dtype_size(x->pol.rp.compute_dtype);
    if (!A) A = 2;
    uint64_t tp = (uint64_t)(x->cv->tp > 0 ? x->cv->tp : 1);
    uint64_t V = vx_ceil_div((uint64_t)x->pol.s->vocab, tp);
    uint64_t row = vx_sat_mul(vx_sat_mul(tokens, V), A);
    return grad ? vx_sat_mul(vx_sat_mul(seqs, row), 2) : vx_sat_mul(vx_sat_add(seqs, 1), row);
}

/* A forward job of one model replica (mode infer) from the RL job's
 * settings: `seqs` sequences of `prompt` tokens generating `gen` more,
 * with or without a KV cache. Only its activations, logits, cache and
 * workspace are taken: the weights are the trainer's, counted apart. */
static void forward_job(vx_config_values *v, const vx_config_values *cv, uint64_t seqs, uint64_t prompt, uint64_t gen,
                        int cache)
{
    vx_values_copy(v, cv, &vx_config_layout);
    v->mode = VX_MODE_INFER;
    v->gradient_checkpointing = VX_GC_NONE;
    v->batch_size = (int64_t)seqs;
    v->prompt_len = (int64_t)prompt;
    v->gen_len = (int64_t)gen;
    v->kv_cache = cache;
    v->offload_params = v->offload_optimizer = VX_OFFLOAD_NONE;
    v->zero_stage = 0;
    v->fsdp = VX_FSDP_NONE;
    v->fsdp_version = 0;
    v->gpus = v->tp * v->pp;
    v->dp = 0;
}

static void add_part(uint64_t *dst, const uint64_t *src, const int *cats, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[cats[i]] = vx_sat_add(dst[cats[i]], src[cats[i]]);
}

/* The stack moves a model's states to the host between phases (verl's
 * param_offload / optimizer_offload): off `keep`, onto `host`. */
static void offload_between(const vx_ctx *x, const vx_config_values *cv, uint64_t *keep, uint64_t *host)
{
    int all = cv->rl_trainer_sleep != 0; /* OpenRLHF --ds.enable_sleep: everything, whatever parallel says */
    if (!x->rt.rl_offload_between && !all) return;
    static const int params[] = {VRAMEST_CAT_WEIGHTS};
    static const int states[] = {VRAMEST_CAT_OPTIMIZER_STATES, VRAMEST_CAT_MASTER_WEIGHTS};
    const int *cats = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass ? VX_ARRAY_LEN(states) : VX_ARRAY_LEN(params);
        int on = all || (pass ? cv->offload_optimizer != VX_OFFLOAD_NONE : cv->offload_params != VX_OFFLOAD_NONE);
        cats = pass ? states : params;
        for (size_t i = 0; on && i < n; i++) {
            host[cats[i]] = vx_sat_add(host[cats[i]], keep[cats[i]]);
            keep[cats[i]] = 0;
        }
    }
}

static const int STATE_CATS[] = {VRAMEST_CAT_WEIGHTS, VRAMEST_CAT_MASTER_WEIGHTS, VRAMEST_CAT_OPTIMIZER_STATES,
                                 VRAMEST_CAT_ADAPTER};
static const int WORK_CATS[] = {VRAMEST_CAT_KV_CACHE, VRAMEST_CAT_ACTIVATIONS, VRAMEST_CAT_LOGITS,
                                VRAMEST_CAT_WORKSPACE};

/* The largest gpu_memory_utilization of a colocated engine that leaves
 * every phase within the usable memory. The engine's pool is the budget
 * less fixed terms, so a phase holding the pool (the rollout; the others
 * while the engine is awake and keeps it) moves one for one with
 * utilization x device memory, and the rest do not move at all. */
static double max_utilization(const struct vramest_result *r, const vx_rl_phases *p, const rl_job *j)
{
    uint64_t dev = r->device_bytes;
    if (j->placement != VX_PLACE_COLOCATED || !dev) return -1;
    double head = r->cfg.headroom_gib * (double)VX_GIB + r->cfg.headroom_fraction * (double)dev;
    double usable = (double)dev - head;
    double best = 0.99;
    for (int k = 0; k < VX_RLP_N; k++) {
        int holds_pool = k == VX_RLP_ROLLOUT || (!j->sleep && !j->free_kv);
        if (!holds_pool) {
            if ((double)p->total[k] > usable) return 0;
            continue;
        }
        double u = j->util + (usable - (double)p->total[k]) / (double)dev;
        if (u < best) best = u;
    }
    return best > 0 ? best : 0;
}

int vx_estimate_rl(vx_ctx *x)
{
    struct vramest_result *r = x->r;
    const vx_config_values *cv = x->cv;
    rl_job j;
    int rc = vx_rl_resolve_job(x, &j);
    if (rc) return rc;
    struct vramest_result sub;
    vx_config_values v;
    int loss_ce = cv->loss == VX_LOSS_CE && !x->rt.loss_own;

    /* training: the policy's step on one micro-batch of prompt + completion
     * tokens. The log-prob logits are added below (their size is not the
     * SFT loss's): the step runs with the fused loss, whose logits are
     * never whole. States offloaded between phases (verl) are on the GPU
     * for the step. */
    rl_part T;
    vx_values_copy(&v, cv, &vx_config_layout);
    v.mode = VX_MODE_TRAIN;
    v.batch_size = (int64_t)j.mb;
    v.seq_len = (int64_t)(j.P + j.C);
    v.prompt_len = v.gen_len = 0;
    if (loss_ce) v.loss = VX_LOSS_FUSED_LINEAR;
    if (x->rt.rl_offload_between) v.offload_params = v.offload_optimizer = VX_OFFLOAD_NONE;
    if ((rc = run_part(x, &v, &sub, &T))) return rc;
    /* Positions with logits: the completion (TRL's logits_to_keep), or
     * every position (verl's unpadded forward; the preference trainers'
     * concatenated forward, masked to the completion afterwards). */
    uint64_t Tl = x->rt.rl_logits_all || j.pref ? j.P + j.C : j.C;
    uint64_t train_logits = loss_ce ? logprob_logits(x, j.mb, Tl, 1) : 0;
    /* Per-token buffers of the whole rollout batch kept for the loss:
     * old and reference log-probs, advantages broadcast, the completion
     * mask (fp32 each). */
    uint64_t loss_bufs = vx_sat_mul(vx_sat_mul(j.seqs, j.C), 16);

    /* What stays between phases: the trainer's states (gradients are freed
     * by zero_grad(set_to_none=True) after each step), less what the stack
     * moves to the host between phases. */
    uint64_t keep[VX_NCAT] = {0}, host[VX_NCAT] = {0};
    add_part(keep, T.gpu, STATE_CATS, VX_ARRAY_LEN(STATE_CATS));
    memcpy(host, T.host, sizeof host);
    offload_between(x, cv, keep, host);
    /* PPO's critic: the policy's architecture with a value head (one output
     * per position: the sequence-classification head's Linear(h, 1)),
     * trained with the policy's settings (verl critic worker, OpenRLHF
     * CriticModel, TRL PolicyAndValueWrapper). Its states stay between
     * phases as the actor's do. */
    rl_part K;
    memset(&K, 0, sizeof K);
    uint64_t keep_c[VX_NCAT] = {0}, own_critic = 0;
    if (j.critic) {
        vx_values_copy(&v, cv, &vx_config_layout);
        v.mode = VX_MODE_TRAIN;
        v.batch_size = (int64_t)j.mb;
        v.seq_len = (int64_t)(j.P + j.C);
        v.prompt_len = v.gen_len = 0;
        v.head = VX_HEAD_SEQ_CLS;
        v.num_labels = 1;
        v.loss = VX_LOSS_CE;
        if (x->rt.rl_offload_between) v.offload_params = v.offload_optimizer = VX_OFFLOAD_NONE;
        if (j.critic_gpus) v.gpus = j.critic_gpus, v.dp = 0; /* its own data-parallel group */
        if ((rc = run_part_of(x, j.critic_m ? j.critic_m : x->pol.m, j.critic_m ? j.critic_pv : x->pol.pv, &v, &sub,
                              &K)))
            return rc;
        add_part(keep_c, K.gpu, STATE_CATS, VX_ARRAY_LEN(STATE_CATS));
        offload_between(x, cv, keep_c, host);
        if (j.critic_gpus) {
            /* its step on its own GPUs, nothing of it on the trainer's */
            own_critic = vx_sat_add(K.total, vx_cuda_context_bytes(x));
            memset(keep_c, 0, sizeof keep_c);
        }
    }
    /* rollout: generate() in the trainer, or the vLLM engine (none for
     * the preference family). */
    rl_part E;
    memset(&E, 0, sizeof E);
    forward_job(&v, cv, j.seqs, j.P, j.C, 1);
    if (j.engine == VX_ROLLOUT_NONE) {
        /* nothing generated */
    } else if (j.engine == VX_ROLLOUT_VLLM) {
        v.framework = VX_FW_VLLM;
        /* the stack's default engine TP, on as many GPUs as the job has */
        int64_t dtp = x->rt.rl_rollout_tp > 0 ? x->rt.rl_rollout_tp : 1;
        v.tp = cv->rollout_tp > 0 ? cv->rollout_tp : (dtp < cv->gpus ? dtp : cv->gpus);
        v.pp = v.cp = v.ep = 1;
        v.gpus = v.tp;
        /* The engine serves the policy's weights in the compute dtype (LoRA
         * merged or applied by vLLM's LoRA kernels). */
        v.finetune = VX_FT_FULL;
        v.gpu_memory_utilization = j.util;
        v.max_model_len = cv->rollout_max_model_len > 0 ? cv->rollout_max_model_len : (int64_t)(j.P + j.C);
        v.max_num_seqs = cv->rollout_max_num_seqs > 0 ? cv->rollout_max_num_seqs : 256;
        if (x->rt.rl_seqs_unpassed) {
            /* the engine's own default, by its version and the GPU */
            v.max_num_seqs = 0;
            if (cv->rollout_max_num_seqs > 0)
                vx_result_warn(r, "rl.rollout.max_num_seqs %lld is not passed to vLLM by this verl (before 0.6, "
                                  "verl#2960): the engine runs at its default",
                               (long long)cv->rollout_max_num_seqs);
        }
        v.max_num_batched_tokens = cv->rollout_max_num_batched_tokens;
        v.enforce_eager = cv->rollout_enforce_eager;
        memcpy(v.framework_version, cv->rollout_engine_version, sizeof v.framework_version);
        v.loss = VX_LOSS_CE;
    }
    if (j.engine != VX_ROLLOUT_NONE && (rc = run_part(x, &v, &sub, &E))) return rc;
    uint64_t engine_ctx = vx_cuda_context_bytes(x);
    /* The engine's memory while the trainer works: asleep, its KV pool is
     * freed and its weights leave the GPU - kept on the host for verl's
     * LoRA policy (vLLM sleep level 1: the base is not synced again),
     * discarded otherwise (level 2: verl
     * vllm_async_server._resolve_sleep_level, TRL vllm_generation.py);
     * without sleep, free_cache_engine frees the pool only; otherwise all
     * of it stays. CUDA graphs and the workspaces stay in every case. */
    uint64_t engine_rest[VX_NCAT] = {0};
    /* An engine in a process of its own keeps its CUDA context through
     * every phase, asleep or not. */
    uint64_t own_ctx = j.engine == VX_ROLLOUT_VLLM && j.placement == VX_PLACE_COLOCATED && x->rt.rl_engine_process
                           ? engine_ctx
                           : 0;
    if (j.engine == VX_ROLLOUT_VLLM && j.placement == VX_PLACE_COLOCATED) {
        memcpy(engine_rest, E.gpu, sizeof engine_rest);
        engine_rest[VRAMEST_CAT_ACTIVATIONS] = engine_rest[VRAMEST_CAT_LOGITS] = 0;
        if (j.free_kv || j.sleep) engine_rest[VRAMEST_CAT_KV_CACHE] = 0;
        engine_rest[VRAMEST_CAT_FRAMEWORK] = vx_sat_add(engine_rest[VRAMEST_CAT_FRAMEWORK], own_ctx);
        if (j.sleep) {
            if (x->rt.rl_sleep_lora_host && (cv->finetune == VX_FT_LORA || cv->finetune == VX_FT_QLORA))
                host[VRAMEST_CAT_WEIGHTS] = vx_sat_add(host[VRAMEST_CAT_WEIGHTS], engine_rest[VRAMEST_CAT_WEIGHTS]);
            engine_rest[VRAMEST_CAT_WEIGHTS] = 0;
        }
    }

    /* scoring: forward passes without gradients over a micro-batch of
     * prompt + completion (the reference's; the policy's old log-probs
     * where the stack recomputes them). Without either there is none. */
    rl_part F, R, W;
    memset(&F, 0, sizeof F);
    memset(&R, 0, sizeof R);
    memset(&W, 0, sizeof W);
    int old_logps = !j.pref && (x->rt.rl_old_logps == 1 || (x->rt.rl_old_logps == 2 && j.engine == VX_ROLLOUT_VLLM));
    int scores = j.reference != VX_REF_NONE || old_logps || j.reward_m;
    if (scores) {
        forward_job(&v, cv, j.mb, j.P + j.C, 0, 0);
        if ((rc = run_part(x, &v, &sub, &F))) return rc;
        F.gpu[VRAMEST_CAT_LOGITS] = logprob_logits(x, j.mb, Tl, 0);
        F.gpu[VRAMEST_CAT_KV_CACHE] = 0;
        /* A reference of its own: its forward in place of the policy's,
         * its log-prob logits over the same vocabulary. */
        if (j.ref_m) {
            if ((rc = run_part_of(x, j.ref_m, j.ref_pv, &v, &sub, &R))) return rc;
            R.gpu[VRAMEST_CAT_LOGITS] = logprob_logits(x, j.mb, Tl, 0);
            R.gpu[VRAMEST_CAT_KV_CACHE] = 0;
        }
        /* The reward model scores each prompt + completion once: a
         * sequence-classification head, one output per position
         * (AutoModelForSequenceClassification's score, OpenRLHF's
         * RewardModel value head), the last token's kept. */
        if (j.reward_m) {
            v.head = VX_HEAD_SEQ_CLS;
            v.num_labels = 1;
            if ((rc = run_part_of(x, j.reward_m, j.reward_pv, &v, &sub, &W))) return rc;
            W.gpu[VRAMEST_CAT_KV_CACHE] = 0;
        }
    }
    /* A reference: a copy of the policy (its weights again, loaded with the
     * same dtype and sharding) or a model of its own, sharded as the policy
     * is; on the GPU throughout, or only while it scores when offloaded.
     * A reward model of its own likewise (rl.reward_offload). */
    /* On GPUs of their own, a reference and a reward model take nothing of
     * the trainer's: their weights and passes are there. */
    uint64_t own_ref = 0, own_rw = 0;
    if (j.ref_gpus)
        own_ref = on_own_gpus(x, j.ref_m ? &R : &F, (j.ref_m ? R.gpu : F.gpu)[VRAMEST_CAT_WEIGHTS],
                              j.ref_gpus, WORK_CATS, VX_ARRAY_LEN(WORK_CATS));
    if (j.reward_gpus)
        own_rw = on_own_gpus(x, &W, W.gpu[VRAMEST_CAT_WEIGHTS], j.reward_gpus, WORK_CATS, VX_ARRAY_LEN(WORK_CATS));
    if (own_ref) memset(&R, 0, sizeof R);
    if (own_rw) memset(&W, 0, sizeof W);
    uint64_t ref_w = j.reference != VX_REF_COPY || own_ref ? 0
                     : j.ref_m ? placed_like_policy(R.gpu[VRAMEST_CAT_WEIGHTS], T.gpu[VRAMEST_CAT_WEIGHTS],
                                                    F.gpu[VRAMEST_CAT_WEIGHTS])
                               : T.gpu[VRAMEST_CAT_WEIGHTS];
    int ref_resident = ref_w && cv->rl_reference_offload == VX_OFFLOAD_NONE && !cv->rl_trainer_sleep;
    if (ref_w && !ref_resident) host[VRAMEST_CAT_WEIGHTS] = vx_sat_add(host[VRAMEST_CAT_WEIGHTS], ref_w);
    uint64_t rw_w = j.reward_m ? placed_like_policy(W.gpu[VRAMEST_CAT_WEIGHTS], T.gpu[VRAMEST_CAT_WEIGHTS],
                                                    F.gpu[VRAMEST_CAT_WEIGHTS])
                               : 0;
    int rw_resident = rw_w && cv->rl_reward_offload == VX_OFFLOAD_NONE && !cv->rl_trainer_sleep;
    if (rw_w && !rw_resident) host[VRAMEST_CAT_WEIGHTS] = vx_sat_add(host[VRAMEST_CAT_WEIGHTS], rw_w);
    uint64_t resident_w = vx_sat_add(ref_resident ? ref_w : 0, rw_resident ? rw_w : 0);
    /* the scoring passes run one after another: the largest one's work
     * (the policy's own pass only where it runs) */
    if (!old_logps && (j.reference == VX_REF_NONE || j.ref_m || own_ref))
        for (size_t i = 0; i < VX_ARRAY_LEN(WORK_CATS); i++) F.gpu[WORK_CATS[i]] = 0;
    larger_work(F.gpu, R.gpu, WORK_CATS, VX_ARRAY_LEN(WORK_CATS));
    larger_work(F.gpu, W.gpu, WORK_CATS, VX_ARRAY_LEN(WORK_CATS));

    /* The phases. */
    vx_rl_phases *p = &r->rl;
    memset(p, 0, sizeof *p);
    p->own_total[0] = own_ref;
    p->own_total[1] = own_rw;
    p->own_total[2] = own_critic;
    for (int k = 0; k < VX_RLP_N; k++) {
        add_part(p->cat[k], keep, STATE_CATS, VX_ARRAY_LEN(STATE_CATS));
        add_part(p->cat[k], keep_c, STATE_CATS, VX_ARRAY_LEN(STATE_CATS));
        p->cat[k][VRAMEST_CAT_WEIGHTS] = vx_sat_add(p->cat[k][VRAMEST_CAT_WEIGHTS], resident_w);
        p->cat[k][VRAMEST_CAT_LOGITS] = vx_sat_add(p->cat[k][VRAMEST_CAT_LOGITS], k ? loss_bufs : 0);
    }
    /* rollout */
    uint64_t *ro = p->cat[VX_RLP_ROLLOUT];
    if (j.placement == VX_PLACE_SAME_PROCESS) {
        add_part(ro, E.gpu, WORK_CATS, VX_ARRAY_LEN(WORK_CATS));
        /* generate() on sharded weights gathers them whole first (TRL
         * unwrap_model_for_generation: ZeRO-3 gather_deepspeed3_params,
         * FSDP summon_full_params): the replica's weights for the rollout. */
        if ((cv->zero_stage == 3 || cv->fsdp != VX_FSDP_NONE) && E.gpu[VRAMEST_CAT_WEIGHTS] > keep[VRAMEST_CAT_WEIGHTS])
            ro[VRAMEST_CAT_WEIGHTS] =
                vx_sat_add(ro[VRAMEST_CAT_WEIGHTS], E.gpu[VRAMEST_CAT_WEIGHTS] - keep[VRAMEST_CAT_WEIGHTS]);
    } else if (j.placement == VX_PLACE_COLOCATED) {
        for (int c = 0; c < VX_NCAT; c++) ro[c] = vx_sat_add(ro[c], E.gpu[c]);
        ro[VRAMEST_CAT_FRAMEWORK] = vx_sat_add(ro[VRAMEST_CAT_FRAMEWORK], own_ctx);
    } else {
        p->engine_total = vx_sat_add(E.total, engine_ctx);
    }
    /* scoring: the policy's weights come back for its own log-probs
     * (verl loads the offloaded shards for compute_log_prob) */
    uint64_t *sc = p->cat[VX_RLP_SCORING];
    /* The preference trainers run the reference inside the loss, while
     * the policy's forward is alive: its pass belongs to the training
     * phase. */
    uint64_t ref_in_step = 0;
    if (scores && j.pref) {
        for (size_t i = 0; i < VX_ARRAY_LEN(WORK_CATS); i++) ref_in_step = vx_sat_add(ref_in_step, F.gpu[WORK_CATS[i]]);
    } else if (scores) {
        if (old_logps || j.reference == VX_REF_ADAPTERS_DISABLED)
            sc[VRAMEST_CAT_WEIGHTS] = vx_sat_add(sc[VRAMEST_CAT_WEIGHTS], T.gpu[VRAMEST_CAT_WEIGHTS] - keep[VRAMEST_CAT_WEIGHTS]);
        if (ref_w && !ref_resident) sc[VRAMEST_CAT_WEIGHTS] = vx_sat_add(sc[VRAMEST_CAT_WEIGHTS], ref_w);
        if (rw_w && !rw_resident) sc[VRAMEST_CAT_WEIGHTS] = vx_sat_add(sc[VRAMEST_CAT_WEIGHTS], rw_w);
        add_part(sc, F.gpu, WORK_CATS, VX_ARRAY_LEN(WORK_CATS));
    }
    /* training: the step as estimated, in place of the resident states */
    uint64_t *tr = p->cat[VX_RLP_TRAINING];
    for (int c = 0; c < VX_NCAT; c++) {
        int state = c == VRAMEST_CAT_WEIGHTS || c == VRAMEST_CAT_MASTER_WEIGHTS || c == VRAMEST_CAT_OPTIMIZER_STATES ||
                    c == VRAMEST_CAT_ADAPTER;
        uint64_t base = state ? tr[c] - keep[c] : tr[c];
        tr[c] = vx_sat_add(base, T.gpu[c]);
    }
    /* The log-prob logits (and the preference trainers' reference pass)
     * live during the forward and backward, not at the optimizer step: they
     * raise the step's peak only by what they take it above the step's own
     * peak (a small model's peak is often its optimizer step). The excess
     * is reported as logits, then activations. */
    uint64_t level = vx_sat_add(vx_sat_add(T.fb_alloc, train_logits), ref_in_step);
    uint64_t over = level > T.peak_alloc ? level - T.peak_alloc : 0;
    uint64_t as_logits = vx_min_u64(over, vx_sat_add(train_logits, j.pref ? F.gpu[VRAMEST_CAT_LOGITS] : 0));
    tr[VRAMEST_CAT_LOGITS] = vx_sat_add(tr[VRAMEST_CAT_LOGITS], as_logits);
    tr[VRAMEST_CAT_ACTIVATIONS] = vx_sat_add(tr[VRAMEST_CAT_ACTIVATIONS], over - as_logits);
    for (int k = VX_RLP_SCORING; k < VX_RLP_N; k++)
        for (int c = 0; c < VX_NCAT; c++) p->cat[k][c] = vx_sat_add(p->cat[k][c], engine_rest[c]);
    /* The critic's update runs before or after the actor's, not with it
     * (verl update_critic, OpenRLHF's critic actor): the training phase is
     * the larger of the two steps, each beside the other's resident states. */
    if (j.critic && !own_critic) {
        uint64_t ct[VX_NCAT] = {0}, ta = 0, tc = 0;
        add_part(ct, keep, STATE_CATS, VX_ARRAY_LEN(STATE_CATS));
        ct[VRAMEST_CAT_WEIGHTS] = vx_sat_add(ct[VRAMEST_CAT_WEIGHTS], resident_w);
        ct[VRAMEST_CAT_LOGITS] = loss_bufs;
        for (int c = 0; c < VX_NCAT; c++) {
            ct[c] = vx_sat_add(vx_sat_add(ct[c], K.gpu[c]), engine_rest[c]);
            ta = vx_sat_add(ta, tr[c]);
            tc = vx_sat_add(tc, ct[c]);
        }
        if (tc > ta) memcpy(tr, ct, sizeof ct);
    }

    uint64_t ctx = vx_cuda_context_bytes(x);
    int peak = 0;
    for (int k = 0; k < VX_RLP_N; k++) {
        uint64_t t = ctx;
        for (int c = 0; c < VX_NCAT; c++) t = vx_sat_add(t, p->cat[k][c]);
        p->total[k] = t;
        if (t > p->total[peak]) peak = k;
    }
    p->on = 1;
    p->peak = peak;
    p->placement = j.shared ? VX_PLACE_SHARED : j.placement;
    p->engine = j.engine;
    p->sleep = j.sleep;
    p->reference = j.reference;
    p->reference_model = j.ref_m != NULL;
    p->reward = j.reward_m ? 2 : 0;
    p->critic = j.critic_m ? 2 : j.critic;
    p->prompts = (int64_t)j.prompts;
    p->seqs_per_gpu = (int64_t)j.seqs;
    p->micro_seqs = (int64_t)j.mb;
    p->engine_budget = j.engine == VX_ROLLOUT_VLLM ? (uint64_t)(j.util * (double)r->device_bytes) : 0;
    /* the vLLM pool as allocated, whole blocks (generate()'s cache is no pool) */
    p->kv_pool = j.engine == VX_ROLLOUT_VLLM ? E.gpu[VRAMEST_CAT_KV_CACHE] : 0;
    p->max_util = max_utilization(r, p, &j);
    /* The GPUs of their own must hold what is placed there, as the
     * trainer's do: the job does not run otherwise. */
    static const char *const own_names[] = {"the reference", "the reward model", "the critic"};
    uint64_t dev = r->device_bytes;
    double usable = (double)dev - r->cfg.headroom_gib * (double)VX_GIB - r->cfg.headroom_fraction * (double)dev;
    for (int k = 0; k < 3 && dev; k++)
        if ((double)p->own_total[k] > usable && !r->refused)
            vx_result_refuse(r, "%s needs %.2f GiB on each of its own GPUs, more than their %.2f GiB", own_names[k],
                             (double)p->own_total[k] / (double)VX_GIB, usable / (double)VX_GIB);

    /* The headline is the peak phase's breakdown (the CUDA context comes
     * with the runtime terms, once). */
    for (int c = 0; c < VX_NCAT; c++)
        if (p->cat[peak][c]) vx_result_add(r, VRAMEST_DEV_GPU, c, p->cat[peak][c], 0, 0, VRAMEST_PROV_FORMULA);
    uint64_t h = 0;
    for (int c = 0; c < VX_NCAT; c++)
        if (host[c]) {
            vx_result_add(r, VRAMEST_DEV_HOST, c, host[c], 0, 0, VRAMEST_PROV_FORMULA);
            h = vx_sat_add(h, host[c]);
        }
    p->host_offload = h;
    static const int phase_of[VX_RLP_N] = {VRAMEST_PHASE_DECODE, VRAMEST_PHASE_FORWARD, VRAMEST_PHASE_BACKWARD};
    static const char *const labels[VX_RLP_N] = {"rollout", "scoring", "training"};
    for (int k = 0; k < VX_RLP_N; k++) vx_result_point(r, phase_of[k], labels[k], p->total[k] - ctx);
    r->val[VRAMEST_VAL_PEAK_PHASE] = (uint64_t)phase_of[peak];
    return VRAMEST_OK;
}
