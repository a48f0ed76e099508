/* Mode rl (issue #23): each phase of an RL step against hand arithmetic
 * (the log-prob logits, the loss buffers, the reference's weights, the
 * engine's budget and pool, what sleeps and what is offloaded between
 * phases), the training phase against the training estimator it is built
 * on, the peak over the phases, bad input, and the solvers' searches. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate.h"
#include "helpers_core.h"
#include "runtime/config.h"
#include "solve/solve.h"

typedef struct fx {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    struct vramest_result *r;
    int rc;
} fx;

static void load(fx *f, const char *spec)
{
    memset(f, 0, sizeof *f);
    f->rc = vt_estimate_spec(spec, &f->m, &f->p, &f->c, &f->r);
}

static void drop(fx *f)
{
    vt_estimate_free(f->m, f->p, f->c, f->r);
}

static uint64_t total_of(const uint64_t *cat)
{
    uint64_t t = 0;
    for (int c = 0; c < VX_NCAT; c++) t += cat[c];
    return t;
}

/* qwen2-0.5b: vocab 151936, 494,032,768 parameters in bf16 (2-byte
 * logits); each tensor rounded up by the allocator (512 B, vLLM blocks). */
#define BF16_WEIGHTS(w) ((w) >= 2ull * 494032768 && (w) < 2ull * 494032768 + (1ull << 20))
#define V 151936ull
#define TRL_JOB                                                                                                    \
    "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":\"trl\"}," \
    "\"workload\":{\"mode\":\"rl\",\"batch_size\":8,\"prompt_len\":256,\"gen_len\":256,"                        \
    "\"gradient_checkpointing\":\"full\"%s}%s}"

static void trl_job(fx *f, const char *workload_extra, const char *rest)
{
    char spec[1024];
    snprintf(spec, sizeof spec, TRL_JOB, workload_extra, rest);
    load(f, spec);
}

Test(rl, trl_defaults_no_reference_generate_in_process)
{
    fx f;
    trl_job(&f, "", "");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert(p->on);
    cr_assert_eq(p->placement, VX_PLACE_SAME_PROCESS);
    cr_assert_eq(p->reference, VX_REF_NONE, "TRL GRPOConfig beta 0.0: no reference model");
    /* one prompt x 8 completions on one GPU, one micro-batch of 8 */
    cr_assert_eq(p->prompts, 1);
    cr_assert_eq(p->seqs_per_gpu, 8);
    cr_assert_eq(p->micro_seqs, 8);
    /* loss buffers: 8 completions x 256 tokens x 4 fp32 per-token values */
    uint64_t bufs = 8ull * 256 * 16;
    cr_assert_geq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_LOGITS], bufs);
    /* no scoring forward: no reference, TRL recomputes no old log-probs */
    cr_assert_eq(p->cat[VX_RLP_SCORING][VRAMEST_CAT_ACTIVATIONS], 0);
    cr_assert_eq(p->cat[VX_RLP_SCORING][VRAMEST_CAT_LOGITS], bufs);
    /* weights resident in every phase, the same bytes */
    uint64_t w = p->cat[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS];
    cr_assert(BF16_WEIGHTS(w), "bf16 weights of qwen2-0.5b: %llu", (unsigned long long)w);
    for (int k = 0; k < VX_RLP_N; k++) cr_assert_eq(p->cat[k][VRAMEST_CAT_WEIGHTS], w);
    /* generate() of 8 sequences: a KV cache in the rollout only, no pool */
    cr_assert_gt(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_KV_CACHE], 0);
    cr_assert_eq(p->kv_pool, 0);
    cr_assert_eq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_KV_CACHE], 0);
    /* gradients are freed between steps (zero_grad set_to_none) */
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_GRADIENTS], 0);
    /* the peak and the headline */
    int peak = 0;
    for (int k = 1; k < VX_RLP_N; k++)
        if (p->total[k] > p->total[peak]) peak = k;
    cr_assert_eq(p->peak, peak);
    cr_assert_eq(f.r->val[VRAMEST_VAL_DEVICE_TOTAL], p->total[peak]);
    cr_assert_eq(p->total[peak], total_of(p->cat[peak]) + f.r->cuda_context_bytes);
    drop(&f);
}

/* The training phase is the training estimator's step on one micro-batch
 * of prompt + completion, with the fused loss (the log-prob logits are
 * counted apart), plus the loss buffers, plus what the log-prob logits take
 * the forward/backward above the step's own peak. */
Test(rl, training_phase_is_the_training_step_plus_logprob_logits)
{
    fx f, t;
    trl_job(&f, "", "");
    cr_assert_eq(f.rc, VRAMEST_OK);
    load(&t, "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":"
             "\"trl\"},\"workload\":{\"mode\":\"train\",\"batch_size\":8,\"seq_len\":512,\"gradient_checkpointing\":"
             "\"full\",\"loss\":\"fused_linear\"}}");
    cr_assert_eq(t.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    /* logits over the completion only (logits_to_keep), 2 bytes, the
     * saved log-softmax beside them: 2 x 2 B x 8 x 256 x V */
    uint64_t logits = 2ull * 2 * 8 * 256 * V, bufs = 8ull * 256 * 16;
    uint64_t fb = 0;
    for (uint32_t i = 0; i < t.r->n_timeline; i++)
        if (t.r->timeline[i].phase != VRAMEST_PHASE_OPTIMIZER && t.r->timeline[i].allocated > fb)
            fb = t.r->timeline[i].allocated;
    uint64_t peak = t.r->val[VRAMEST_VAL_PEAK_ALLOCATED];
    uint64_t over = fb + logits > peak ? fb + logits - peak : 0;
    cr_assert_gt(over, 0, "at 8 x 256 x 152K logits the log-probs raise the step's peak");
    uint64_t want = t.r->val[VRAMEST_VAL_DEVICE_TOTAL] + bufs + over;
    cr_assert_eq(p->total[VX_RLP_TRAINING], want, "%llu vs %llu", (unsigned long long)p->total[VX_RLP_TRAINING],
                 (unsigned long long)want);
    drop(&f);
    drop(&t);
}

Test(rl, reference_copy_doubles_the_weights_and_scores)
{
    fx f;
    trl_job(&f, "", "");
    uint64_t w = f.r->rl.cat[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS];
    drop(&f);
    trl_job(&f, "", ",\"rl\":{\"reference\":\"copy\",\"reward\":\"rule\",\"critic\":null}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    for (int k = 0; k < VX_RLP_N; k++)
        cr_assert_eq(p->cat[k][VRAMEST_CAT_WEIGHTS], 2 * w, "phase %d: policy + reference", k);
    /* the reference's logits over a micro-batch, one sequence's log-softmax
     * beside them: (8 + 1) x 256 x V x 2 B */
    cr_assert_eq(p->cat[VX_RLP_SCORING][VRAMEST_CAT_LOGITS], 9ull * 256 * V * 2 + 8ull * 256 * 16);
    cr_assert_gt(p->cat[VX_RLP_SCORING][VRAMEST_CAT_ACTIVATIONS], 0);
    drop(&f);

    /* offloaded, the copy is on the GPU while it scores only */
    trl_job(&f, "", ",\"rl\":{\"reference\":\"copy\",\"reference_offload\":\"cpu\"}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    p = &f.r->rl;
    cr_assert_eq(p->cat[VX_RLP_SCORING][VRAMEST_CAT_WEIGHTS], 2 * w);
    cr_assert_eq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS], w);
    cr_assert_eq(f.r->cat[VRAMEST_DEV_HOST][VRAMEST_CAT_WEIGHTS], w);
    drop(&f);
}

#define VERL_JOB                                                                                                   \
    "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"runtime\":{\"framework\":\"verl\"}," \
    "\"workload\":{\"mode\":\"rl\",\"finetune\":\"lora\",\"lora_rank\":32,\"num_generations\":5,"                 \
    "\"rollout_batch_size\":16,\"prompt_len\":512,\"gen_len\":1024,\"gradient_checkpointing\":\"full\"},"         \
    "\"parallel\":{\"gpus\":2,\"fsdp\":\"full_shard\",\"offload_params\":\"cpu\",\"offload_optimizer\":\"cpu\"},"   \
    "\"rl\":{\"rollout\":{\"engine\":\"vllm\",\"tp\":1,\"gpu_memory_utilization\":0.25%s}}}"

Test(rl, verl_hybrid_engine_sleeps_and_offloads_between_phases)
{
    fx f;
    char spec[1024];
    snprintf(spec, sizeof spec, VERL_JOB, "");
    load(&f, spec);
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert_eq(p->placement, VX_PLACE_COLOCATED);
    cr_assert(p->sleep, "verl's engine sleeps between rollouts");
    cr_assert_eq(p->reference, VX_REF_NONE, "verl 0.9: use_kl_loss and use_kl_in_reward are false by default");
    /* 16 prompts x 5 on 2 GPUs = 40 completions per GPU; the legacy global
     * micro-batch = 16 prompts / 2 GPUs = 8 sequences */
    cr_assert_eq(p->seqs_per_gpu, 40);
    cr_assert_eq(p->micro_seqs, 8);
    /* the engine's budget is 0.25 of the device */
    cr_assert_eq(p->engine_budget, (uint64_t)(0.25 * (double)f.r->device_bytes));
    cr_assert_gt(p->kv_pool, 0);
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_KV_CACHE], p->kv_pool);
    /* asleep: no pool and no engine weights while the trainer works */
    cr_assert_eq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_KV_CACHE], 0);
    cr_assert_eq(p->cat[VX_RLP_SCORING][VRAMEST_CAT_KV_CACHE], 0);
    /* offloaded between phases: in the rollout the GPU holds the engine's
     * weights (the whole model at tp 1) and no trainer shard */
    uint64_t full = p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS];
    cr_assert(BF16_WEIGHTS(full), "%llu", (unsigned long long)full);
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_OPTIMIZER_STATES], 0);
    cr_assert_gt(p->host_offload, full, "the engine's sleeping weights and the trainer's shards are on the host");
    /* verl's log-prob logits cover every position: 2 x 2 B x 8 x 1536 x V */
    cr_assert_geq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_LOGITS], 2ull * 2 * 8 * 1536 * V);
    cr_assert_lt(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_LOGITS], 2ull * 2 * 8 * 1536 * V + 40ull * 1024 * 16 + 1);
    drop(&f);

    /* awake, the engine keeps its pool and weights through training */
    snprintf(spec, sizeof spec, VERL_JOB, ",\"sleep_mode\":false,\"free_cache_engine\":false");
    load(&f, spec);
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    p = &f.r->rl;
    cr_assert_eq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_KV_CACHE], p->kv_pool);
    cr_assert_geq(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS], full);
    drop(&f);
}

Test(rl, separate_engine_gpus_are_reported_apart)
{
    fx f;
    trl_job(&f, "", ",\"rl\":{\"placement\":\"separate\",\"rollout\":{\"engine\":\"vllm\"}}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_KV_CACHE], 0, "the pool is on the engine's GPUs");
    cr_assert_geq(p->engine_total, (uint64_t)(0.899 * (double)f.r->device_bytes), "a vLLM server at 0.9: %llu of %llu",
                  (unsigned long long)p->engine_total, (unsigned long long)f.r->device_bytes);
    drop(&f);
}

static void expect_error(const char *spec, int code, const char *words)
{
    vramest_model *m = NULL;
    vramest_precision *pr = NULL;
    vramest_config *c = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), &m, &pr, &c);
    if (rc == VRAMEST_OK) {
        vramest_result *r = NULL;
        rc = vramest_estimate(m, pr, c, &r);
        vramest_result_free(r);
    }
    cr_assert_eq(rc, code, "%s: rc %d (%s)", spec, rc, vramest_last_error_message());
    cr_assert(strstr(vramest_last_error_message(), words), "%s lacks '%s'", vramest_last_error_message(), words);
    vramest_model_free(m);
    vramest_precision_free(pr);
    vramest_config_free(c);
}

Test(rl, bad_input_gets_a_specific_error)
{
    static const struct {
        const char *workload, *rest; /* added to TRL_JOB's workload and after it */
        int code;
        const char *words;
    } cases[] = {
        /* TRL: 8 completions per step cannot form groups of 3 */
        {",\"num_generations\":3", "", VRAMEST_E_CONFLICT, "num_generations 3 must divide the generation batch"},
        /* colocated: the engine cannot have the whole GPU */
        {"", ",\"rl\":{\"placement\":\"colocated\",\"rollout\":{\"engine\":\"vllm\",\"gpu_memory_utilization\":1}}",
         VRAMEST_E_CONFLICT, "must stay below 1"},
        {"", ",\"rl\":{\"rollout\":{\"gpu_memory_utilization\":1.5}}", VRAMEST_E_RANGE,
         "rollout_gpu_memory_utilization"},
        /* models of their own: a reference of another vocabulary (a reward
         * model may have one), one the settings contradict */
        {"", ",\"rl\":{\"reference\":{\"model\":\"llama-3.2-1b\"}}", VRAMEST_E_CONFLICT,
         "vocabulary of 128256 tokens, the policy 151936"},
        {",\"algorithm\":\"orpo\"", ",\"rl\":{\"reference\":{\"model\":\"qwen3-8b\"}}", VRAMEST_E_CONFLICT,
         "takes no reference model"},
        {",\"algorithm\":\"dpo\"", ",\"rl\":{\"reward\":{\"model\":\"llama-3.2-1b\"}}", VRAMEST_E_CONFLICT,
         "scores nothing with a reward model"},
        {"", ",\"rl\":{\"reward_offload\":\"cpu\"}", VRAMEST_E_CONFLICT, "without a reward model"},
        {"", ",\"rl\":{\"reward\":\"none\",\"reward_offload\":\"cpu\"}", VRAMEST_E_CONFLICT,
         "without a reward model"},
        {"", ",\"rl\":{\"rollout\":{\"engin\":\"vllm\"}}", VRAMEST_E_UNKNOWN_OPTION, "engin"},
        {"", ",\"rl\":{\"rollout\":{\"engine\":\"vllm\",\"engine_version\":\"v-next\"}}", VRAMEST_E_PARSE,
         "rollout_engine_version"},
        {"", ",\"rl\":{\"rollout\":{\"engine_version\":\"0.8.3\"}}", VRAMEST_E_CONFLICT, "is a vLLM release"},
        /* settings that contradict each other */
        {",\"algorithm\":\"ppo\"", "", VRAMEST_E_CONFLICT, "needs a value model"},
        {"", ",\"rl\":{\"critic\":\"copy\"}", VRAMEST_E_CONFLICT, "algorithm grpo has no value model"},
        {",\"algorithm\":\"orpo\"", ",\"rl\":{\"reference\":\"copy\"}", VRAMEST_E_CONFLICT, "reference-free"},
        {",\"algorithm\":\"dpo\"", ",\"rl\":{\"rollout\":{\"engine\":\"vllm\"}}", VRAMEST_E_CONFLICT,
         "generates nothing"},
        {"", ",\"rl\":{\"rollout\":{\"engine\":\"none\"}}", VRAMEST_E_CONFLICT, "samples completions"},
        {"", ",\"rl\":{\"reference\":\"adapters_disabled\"}", VRAMEST_E_CONFLICT, "needs a LoRA policy"},
        {"", ",\"rl\":{\"placement\":\"same_process\",\"rollout\":{\"engine\":\"vllm\"}}", VRAMEST_E_CONFLICT,
         "rl.placement same_process with rollout engine vllm"},
    };
    char spec[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(spec, sizeof spec, TRL_JOB, cases[i].workload, cases[i].rest);
        expect_error(spec, cases[i].code, cases[i].words);
    }
    expect_error("{\"model\":\"qwen2-0.5b\",\"workload\":{\"mode\":\"rl\"}}", VRAMEST_E_CONFLICT,
                 "framework trl, verl or openrlhf");
}

/* The solvers bisect: more prompts or more completions never take less. */
Test(rl, memory_grows_with_the_rollout_batch_and_generations)
{
    fx f;
    char spec[1024];
    uint64_t last = 0;
    for (int n = 4; n <= 64; n *= 2) {
        snprintf(spec, sizeof spec, VERL_JOB, "");
        load(&f, spec);
        cr_assert_eq(f.rc, VRAMEST_OK);
        vramest_config_set_i64(f.c, VRAMEST_CFG_ROLLOUT_BATCH_SIZE, n);
        cr_assert_eq(vx_estimate_into(f.m, f.p, f.c, f.r), VRAMEST_OK);
        cr_assert_geq(f.r->val[VRAMEST_VAL_DEVICE_TOTAL], last, "rollout_batch_size %d", n);
        last = f.r->val[VRAMEST_VAL_DEVICE_TOTAL];
        drop(&f);
    }
    snprintf(spec, sizeof spec, VERL_JOB, "");
    load(&f, spec);
    int64_t best = 0;
    cr_assert_eq(vx_solve_max(f.m, f.p, f.c, VRAMEST_CFG_ROLLOUT_BATCH_SIZE, VX_FIT_ESTIMATE, &best, NULL),
                 VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_gt(best, 0);
    /* the answer fits and one more does not */
    vramest_config_set_i64(f.c, VRAMEST_CFG_ROLLOUT_BATCH_SIZE, best);
    cr_assert_eq(vx_estimate_into(f.m, f.p, f.c, f.r), VRAMEST_OK);
    cr_assert(f.r->val[VRAMEST_VAL_FITS]);
    vramest_config_set_i64(f.c, VRAMEST_CFG_ROLLOUT_BATCH_SIZE, best + 1);
    cr_assert_eq(vx_estimate_into(f.m, f.p, f.c, f.r), VRAMEST_OK);
    cr_assert(!f.r->val[VRAMEST_VAL_FITS]);
    drop(&f);
}

/* The largest utilization is the boundary: at it every phase fits, a
 * little above it one does not (the engine awake through training). */
Test(rl, largest_engine_utilization_is_the_fit_boundary)
{
    fx f;
    char spec[1024];
    snprintf(spec, sizeof spec, VERL_JOB, ",\"sleep_mode\":false,\"free_cache_engine\":false");
    load(&f, spec);
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    double u = f.r->rl.max_util;
    cr_assert(u > 0.25 && u < 0.99, "max_util %g", u);
    double at = (double)(int)(u * 1000) / 1000;
    vramest_config_set_f64(f.c, VRAMEST_CFG_ROLLOUT_GPU_MEMORY_UTILIZATION, at);
    cr_assert_eq(vx_estimate_into(f.m, f.p, f.c, f.r), VRAMEST_OK);
    cr_assert(f.r->val[VRAMEST_VAL_FITS], "fits at %g", at);
    vramest_config_set_f64(f.c, VRAMEST_CFG_ROLLOUT_GPU_MEMORY_UTILIZATION, at + 0.01);
    cr_assert_eq(vx_estimate_into(f.m, f.p, f.c, f.r), VRAMEST_OK);
    cr_assert(!f.r->val[VRAMEST_VAL_FITS], "does not fit at %g", at + 0.01);
    drop(&f);
}

/* OpenRLHF's defaults: vLLM engines on their own GPUs at 0.95, a
 * reference copy beside the DeepSpeed actor. */
Test(rl, openrlhf_defaults_separate_engines_and_a_reference)
{
    fx f;
    load(&f, "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":"
             "\"openrlhf\"},\"workload\":{\"mode\":\"rl\",\"batch_size\":8,\"prompt_len\":256,\"gen_len\":256}}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert_eq(p->placement, VX_PLACE_SEPARATE);
    cr_assert_eq(p->reference, VX_REF_COPY);
    cr_assert_eq(p->engine_budget, (uint64_t)(0.95 * (double)f.r->device_bytes));
    /* vLLM >= 0.21 keeps everything, CUDA graphs included, inside its
     * budget; the pool is whole blocks, so the engine fills it to a block. */
    cr_assert_leq(p->engine_total, p->engine_budget);
    cr_assert_geq(p->engine_total, (uint64_t)(0.999 * (double)p->engine_budget), "engine_total %llu budget %llu",
                  (unsigned long long)p->engine_total, (unsigned long long)p->engine_budget);
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_KV_CACHE], 0);
    drop(&f);
}

/* DPO: chosen and rejected through the policy (twice the examples), the
 * reference copy inside the step, logits at every position; ORPO has no
 * reference. */
Test(rl, preference_family_runs_pairs_without_a_rollout)
{
    fx f, o;
    load(&f, "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":"
             "\"trl\"},\"workload\":{\"mode\":\"rl\",\"algorithm\":\"dpo\",\"batch_size\":4,\"seq_len\":1024}}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert_eq(p->engine, VX_ROLLOUT_NONE);
    cr_assert_eq(p->reference, VX_REF_COPY, "TRL DPOTrainer loads a reference copy (not PEFT, not precomputed)");
    cr_assert_eq(p->micro_seqs, 8, "4 pairs = 8 sequences");
    cr_assert_eq(p->peak, VX_RLP_TRAINING);
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_KV_CACHE], 0);
    /* the reference's weights are the policy's again */
    cr_assert(BF16_WEIGHTS(p->cat[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS] / 2), "policy + reference");
    load(&o, "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":"
             "\"trl\"},\"workload\":{\"mode\":\"rl\",\"algorithm\":\"orpo\",\"batch_size\":4,\"seq_len\":1024}}");
    cr_assert_eq(o.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(o.r->rl.reference, VX_REF_NONE);
    cr_assert_lt(o.r->rl.total[VX_RLP_TRAINING], p->total[VX_RLP_TRAINING], "no reference copy, no reference pass");
    drop(&f);
    drop(&o);
}

/* PPO: the critic is the policy's architecture with a one-output head,
 * trained too; its weights and optimizer states stay beside the actor's in
 * every phase, and the training phase is the larger of the two updates. */
Test(rl, ppo_critic_keeps_its_states_beside_the_actors)
{
    fx g, f;
    trl_job(&g, "", "");
    trl_job(&f, ",\"algorithm\":\"ppo\"", ",\"rl\":{\"critic\":\"copy\"}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *a = &g.r->rl, *p = &f.r->rl;
    uint64_t w = a->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS];
    /* the value head adds hidden x 1 parameters (896 x 2 B, rounded) */
    cr_assert_geq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS], 2 * w);
    cr_assert_lt(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS], 2 * w + (1u << 20));
    cr_assert_geq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_OPTIMIZER_STATES],
                  2 * a->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_OPTIMIZER_STATES]);
    for (int k = 0; k < VX_RLP_N; k++) cr_assert_gt(p->total[k], a->total[k], "phase %d holds the critic too", k);
    drop(&g);
    drop(&f);
}

/* verl >= 0.7 runs vLLM as a server process beside the trainer: its CUDA
 * context stays through every phase; before 0.7 the engine shared the
 * trainer's process. */
Test(rl, verl_async_engine_keeps_its_own_context)
{
    fx now, old;
    char spec[1024];
    snprintf(spec, sizeof spec, VERL_JOB, "");
    load(&now, spec);
    cr_assert_eq(now.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    load(&old, spec);
    vramest_config_set_str(old.c, VRAMEST_CFG_FRAMEWORK_VERSION, "0.6");
    cr_assert_eq(vx_estimate_into(old.m, old.p, old.c, old.r), VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t ctx = now.r->cuda_context_bytes;
    cr_assert_gt(ctx, 0);
    for (int k = 0; k < VX_RLP_N; k++)
        cr_assert_eq(now.r->rl.cat[k][VRAMEST_CAT_FRAMEWORK], old.r->rl.cat[k][VRAMEST_CAT_FRAMEWORK] + ctx, "phase %d",
                     k);
    drop(&now);
    drop(&old);
}

/* Under FSDP TRL gathers the whole model for generate(): the rollout
 * holds at least the replica's weights, the other phases the rank's. */
Test(rl, generate_gathers_sharded_weights)
{
    fx f;
    char spec[1024];
    snprintf(spec, sizeof spec, TRL_JOB, "", ",\"parallel\":{\"gpus\":8,\"fsdp\":\"full_shard\"}");
    load(&f, spec);
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert_geq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS], 2ull * 494032768, "%llu",
                  (unsigned long long)p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS]);
    cr_assert_lt(p->cat[VX_RLP_SCORING][VRAMEST_CAT_WEIGHTS], p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS]);
    drop(&f);
}

/* OpenRLHF's shared placement (--train.colocate_all) with the DeepSpeed
 * models asleep between phases (--ds.enable_sleep): in the rollout the
 * GPU holds the engine only; the policy, its optimizer states and the
 * reference wait on the host. */
Test(rl, openrlhf_shared_placement_with_sleeping_trainer)
{
    fx f;
    load(&f, "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":"
             "\"openrlhf\"},\"workload\":{\"mode\":\"rl\",\"batch_size\":8,\"prompt_len\":256,\"gen_len\":256},"
             "\"rl\":{\"placement\":\"shared\",\"trainer_sleep\":true,\"rollout\":{\"gpu_memory_utilization\":0.4,"
             "\"sleep_mode\":true}}}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_rl_phases *p = &f.r->rl;
    cr_assert_eq(p->placement, VX_PLACE_SHARED);
    cr_assert_eq(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_OPTIMIZER_STATES], 0);
    cr_assert(BF16_WEIGHTS(p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS]), "the engine's weights only: %llu",
              (unsigned long long)p->cat[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS]);
    /* policy + reference weights and the optimizer states on the host */
    cr_assert_geq(p->host_offload, 2 * 2ull * 494032768 + f.r->rl.cat[VX_RLP_TRAINING][VRAMEST_CAT_OPTIMIZER_STATES]);
    /* the reference is on the GPU while it scores */
    cr_assert_geq(p->cat[VX_RLP_SCORING][VRAMEST_CAT_WEIGHTS], 2ull * 494032768);
    drop(&f);
}

/* TRL recomputes the policy's log-probs when vLLM generated (importance
 * sampling correction, on by default): a scoring pass without a
 * reference; with generate() in the trainer there is none. */
Test(rl, trl_scores_old_logprobs_after_vllm)
{
    fx f;
    trl_job(&f, "", ",\"rl\":{\"rollout\":{\"engine\":\"vllm\"}}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(f.r->rl.placement, VX_PLACE_COLOCATED, "TRL vllm_mode colocate");
    cr_assert_eq(f.r->rl.cat[VX_RLP_SCORING][VRAMEST_CAT_LOGITS], 9ull * 256 * V * 2 + 8ull * 256 * 16);
    drop(&f);
}

/* The config's role models are its own copies: the caller's handles may
 * change or go right after, a clone copies them, a NULL model removes the
 * role, and bad arguments get their own error. */
Test(rl, role_models_are_the_configs_own_copies)
{
    vramest_config *c = NULL, *c2 = NULL;
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    const vramest_model *got = NULL;
    const vramest_precision *gp = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_model_new_preset("llama-3.2-1b", &m), VRAMEST_OK);
    cr_assert_eq(vramest_precision_new_preset("bf16", &p), VRAMEST_OK);
    cr_assert_eq(vramest_config_get_role_model(c, VRAMEST_ROLE_REWARD, &got, &gp), VRAMEST_OK);
    cr_assert(!got && !gp, "a new config names no role model");
    cr_assert_eq(vramest_config_set_role_model(c, VRAMEST_ROLE_REWARD, m, p), VRAMEST_OK);
    vramest_model_set_i64(m, VRAMEST_MODEL_VOCAB_SIZE, 1000); /* the config's copy does not change */
    vramest_model_free(m);
    vramest_precision_free(p);
    cr_assert_eq(vramest_config_get_role_model(c, VRAMEST_ROLE_REWARD, &got, &gp), VRAMEST_OK);
    cr_assert(got && gp);
    int64_t vocab = 0;
    cr_assert_eq(vramest_model_get_i64(got, VRAMEST_MODEL_VOCAB_SIZE, &vocab), VRAMEST_OK);
    cr_assert_eq(vocab, 128256);
    cr_assert_eq(vramest_config_clone(c, &c2), VRAMEST_OK);
    const vramest_model *got2 = NULL;
    cr_assert_eq(vramest_config_get_role_model(c2, VRAMEST_ROLE_REWARD, &got2, NULL), VRAMEST_OK);
    cr_assert(got2 && got2 != got, "a clone has copies of its own");
    vramest_config_free(c); /* c2's copies outlive c */
    cr_assert_eq(vramest_model_get_i64(got2, VRAMEST_MODEL_VOCAB_SIZE, &vocab), VRAMEST_OK);
    cr_assert_eq(vocab, 128256);
    cr_assert_eq(vramest_config_set_role_model(c2, VRAMEST_ROLE_REWARD, NULL, NULL), VRAMEST_OK);
    cr_assert_eq(vramest_config_get_role_model(c2, VRAMEST_ROLE_REWARD, &got2, NULL), VRAMEST_OK);
    cr_assert(!got2, "a NULL model removes the role's");
    /* bad arguments */
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK); /* no architecture: does not validate */
    cr_assert_eq(vramest_config_set_role_model(c2, 0, NULL, NULL), VRAMEST_E_RANGE);
    cr_assert_eq(vramest_config_set_role_model(c2, VRAMEST_ROLE_DRAFT + 1, NULL, NULL), VRAMEST_E_RANGE);
    cr_assert_eq(vramest_config_get_role_model(c2, -1, &got, NULL), VRAMEST_E_RANGE);
    cr_assert(!got, "outputs are cleared on error");
    cr_assert_eq(vramest_config_set_role_model(NULL, VRAMEST_ROLE_DRAFT, NULL, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_config_set_role_model(c2, VRAMEST_ROLE_DRAFT, (const vramest_model *)(const void *)c2, NULL),
                 VRAMEST_E_INVALID_ARG);
    cr_assert_neq(vramest_config_set_role_model(c2, VRAMEST_ROLE_DRAFT, m, NULL), VRAMEST_OK);
    vramest_precision_new(&p);
    cr_assert_eq(vramest_config_set_role_model(c2, VRAMEST_ROLE_DRAFT, NULL, p), VRAMEST_E_INVALID_ARG);
    vramest_precision_free(p);
    vramest_model_free(m);
    vramest_config_free(c2);
}

/* The spec's rl.reference / reward / critic take any model source, with a
 * precision of its own, into the config's roles. */
Test(rl, spec_role_objects_set_the_role_models)
{
    static const char spec[] = "{\"model\":\"qwen2-0.5b\",\"workload\":{\"mode\":\"rl\"},\"rl\":{"
                               "\"reference\":{\"model\":\"qwen2-0.5b\",\"precision\":\"fp32\"},"
                               "\"reward\":{\"model\":{\"arch\":{\"model_type\":\"llama\",\"hidden_size\":512,"
                               "\"num_hidden_layers\":2,\"num_attention_heads\":8,\"intermediate_size\":1024,"
                               "\"vocab_size\":32000}}},\"critic\":{\"model\":\"llama-3.2-1b\"}}}";
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), &m, &p, &c);
    cr_assert_eq(rc, VRAMEST_OK, "%s", vramest_last_error_message());
    const vramest_model *rm = NULL;
    const vramest_precision *rp = NULL;
    int64_t v = 0;
    cr_assert_eq(vramest_config_get_role_model(c, VRAMEST_ROLE_REFERENCE, &rm, &rp), VRAMEST_OK);
    cr_assert(rm && rp);
    cr_assert_eq(vramest_precision_get_i64(rp, VRAMEST_PREC_WEIGHTS, &v), VRAMEST_OK);
    cr_assert_eq(v, VRAMEST_DTYPE_FP32);
    cr_assert_eq(vramest_config_get_role_model(c, VRAMEST_ROLE_REWARD, &rm, &rp), VRAMEST_OK);
    cr_assert(rm && !rp, "no precision given: the job's");
    cr_assert_eq(vramest_model_get_i64(rm, VRAMEST_MODEL_VOCAB_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, 32000);
    cr_assert_eq(vramest_config_get_role_model(c, VRAMEST_ROLE_CRITIC, &rm, NULL), VRAMEST_OK);
    cr_assert(rm);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    static const char *const bad[] = {
        "{\"model\":\"qwen2-0.5b\",\"rl\":{\"reward\":{\"model\":\"no-such-model\"}}}",
        "{\"model\":\"qwen2-0.5b\",\"rl\":{\"reward\":{\"modle\":\"qwen2-0.5b\"}}}",
        "{\"model\":\"qwen2-0.5b\",\"rl\":{\"critic\":{\"model\":\"qwen2-0.5b\",\"precision\":\"fp7\"}}}",
        "{\"model\":\"qwen2-0.5b\",\"rl\":{\"placement\":{\"model\":\"qwen2-0.5b\"}}}",
    };
    static const char *const words[] = {"rl.reward", "rl.reward: give", "rl.critic", "expected a value"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rc = vramest_spec_parse(bad[i], strlen(bad[i]), &m, &p, &c);
        cr_assert_neq(rc, VRAMEST_OK, "%s", bad[i]);
        cr_assert(strstr(vramest_last_error_message(), words[i]), "%s: '%s'", bad[i], vramest_last_error_message());
    }
}

/* verl before 0.6 built vLLM's LLM() without rollout.max_num_seqs
 * (verl-project/verl#2960): the engine profiles at its own default, so
 * the setting changes nothing there and is said to; from 0.6 it counts. */
Test(rl, verl_before_0_6_runs_vllm_at_its_default_max_num_seqs)
{
    char spec[1024];
    uint64_t pool[2][2];
    static const char *const seqs[] = {"", ",\"max_num_seqs\":512"};
    static const char *const ver[] = {"0.4", "0.6"};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            char extra[128];
            snprintf(extra, sizeof extra, ",\"engine_version\":\"0.8.3\"%s", seqs[i]);
            snprintf(spec, sizeof spec, VERL_JOB, extra);
            fx f;
            load(&f, spec);
            cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
            cr_assert_eq(vramest_config_set_str(f.c, VRAMEST_CFG_FRAMEWORK_VERSION, ver[k]), VRAMEST_OK);
            cr_assert_eq(vx_estimate_into(f.m, f.p, f.c, f.r), VRAMEST_OK, "%s", vramest_last_error_message());
            pool[k][i] = f.r->rl.kv_pool;
            int warned = 0;
            for (uint32_t w = 0; w < f.r->n_warn; w++) warned |= strstr(f.r->warn[w], "verl#2960") != NULL;
            cr_assert_eq(warned, k == 0 && i == 1, "verl %s%s: the unpassed setting is said, only then", ver[k],
                         seqs[i]);
            drop(&f);
        }
    cr_assert_eq(pool[0][0], pool[0][1], "verl 0.4: 512 is not passed, the pool is vLLM's default's");
    cr_assert_lt(pool[1][1], pool[1][0], "verl 0.6: 512 sequences' sampler profile leaves a smaller pool than 256");
}

static void phases_of(const char *workload, const char *rest, uint64_t out[VX_RLP_N][VX_NCAT], uint64_t *host_w)
{
    fx f;
    trl_job(&f, workload, rest);
    cr_assert_eq(f.rc, VRAMEST_OK, "%s%s: %s", workload, rest, vramest_last_error_message());
    memcpy(out, f.r->rl.cat, sizeof f.r->rl.cat);
    *host_w = f.r->cat[VRAMEST_DEV_HOST][VRAMEST_CAT_WEIGHTS];
    drop(&f);
}

/* Models of their own: one identical to the policy is the copy the
 * settings name (reference copy, PPO's critic copy); a reward model adds
 * its weights to every phase, or to the scoring phase and the host when
 * offloaded; another precision changes its bytes by the element size. */
Test(rl, models_of_their_own_against_hand_arithmetic)
{
    uint64_t a[VX_RLP_N][VX_NCAT], b[VX_RLP_N][VX_NCAT], h0, h1;
    phases_of("", ",\"rl\":{\"reference\":\"copy\"}", a, &h0);
    phases_of("", ",\"rl\":{\"reference\":{\"model\":\"qwen2-0.5b\"}}", b, &h1);
    cr_assert(!memcmp(a, b, sizeof a), "a reference of its own identical to the policy is its copy");
    phases_of("", ",\"rl\":{\"reference\":{\"model\":\"qwen2-0.5b\",\"precision\":\"fp32\"}}", b, &h1);
    for (int k = 0; k < VX_RLP_N; k++) {
        uint64_t d = b[k][VRAMEST_CAT_WEIGHTS] - a[k][VRAMEST_CAT_WEIGHTS];
        cr_assert(BF16_WEIGHTS(d), "phase %d: an fp32 reference holds 2 more bytes per parameter (%llu)", k,
                  (unsigned long long)d);
    }
    phases_of(",\"algorithm\":\"ppo\"", ",\"rl\":{\"critic\":\"copy\"}", a, &h0);
    phases_of(",\"algorithm\":\"ppo\"", ",\"rl\":{\"critic\":{\"model\":\"qwen2-0.5b\"}}", b, &h1);
    cr_assert(!memcmp(a, b, sizeof a), "a critic of its own identical to the policy is its copy");

    /* a reward model: qwen2-0.5b with a Linear(896, 1) score head in place
     * of the tied head, 494,032,768 + 896 parameters */
    phases_of("", "", a, &h0);
    phases_of("", ",\"rl\":{\"reward\":{\"model\":\"qwen2-0.5b\"}}", b, &h1);
    for (int k = 0; k < VX_RLP_N; k++) {
        uint64_t d = b[k][VRAMEST_CAT_WEIGHTS] - a[k][VRAMEST_CAT_WEIGHTS];
        cr_assert(BF16_WEIGHTS(d), "phase %d: the reward model's weights stay on the GPU (%llu)", k,
                  (unsigned long long)d);
    }
    cr_assert_gt(b[VX_RLP_SCORING][VRAMEST_CAT_ACTIVATIONS] + b[VX_RLP_SCORING][VRAMEST_CAT_LOGITS], 0,
                 "the reward model's forward is the scoring phase's work");
    phases_of("", ",\"rl\":{\"reward\":{\"model\":\"qwen2-0.5b\"},\"reward_offload\":\"cpu\"}", b, &h1);
    cr_assert(BF16_WEIGHTS(h1 - h0), "offloaded, its weights are on the host (%llu)", (unsigned long long)(h1 - h0));
    cr_assert_eq(b[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS], a[VX_RLP_ROLLOUT][VRAMEST_CAT_WEIGHTS]);
    cr_assert_eq(b[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS], a[VX_RLP_TRAINING][VRAMEST_CAT_WEIGHTS]);
    cr_assert(BF16_WEIGHTS(b[VX_RLP_SCORING][VRAMEST_CAT_WEIGHTS] - a[VX_RLP_SCORING][VRAMEST_CAT_WEIGHTS]),
              "and on the GPU for its own pass");
}

/* On GPUs of their own (OpenRLHF's default placement), a model takes
 * nothing of the trainer's GPUs; each of its own GPUs holds the CUDA
 * context, its weights and its pass, which on the trainer's GPUs were the
 * scoring phase's difference; a model too large for its GPUs is refused. */
Test(rl, models_on_gpus_of_their_own)
{
    uint64_t none[VX_RLP_N][VX_NCAT], copy[VX_RLP_N][VX_NCAT], own[VX_RLP_N][VX_NCAT], h;
    phases_of("", ",\"rl\":{\"reference\":\"none\"}", none, &h);
    phases_of("", ",\"rl\":{\"reference\":\"copy\"}", copy, &h);
    phases_of("", ",\"rl\":{\"reference\":\"copy\",\"reference_gpus\":1}", own, &h);
    cr_assert(!memcmp(none, own, sizeof own), "the trainer's phases are those without a reference");
    fx f;
    trl_job(&f, "", ",\"rl\":{\"reference\":\"copy\",\"reference_gpus\":1}");
    cr_assert_eq(f.rc, VRAMEST_OK);
    uint64_t ctx = f.r->rl.total[0] - total_of(f.r->rl.cat[0]);
    uint64_t want = ctx + total_of(copy[VX_RLP_SCORING]) - total_of(none[VX_RLP_SCORING]);
    /* its weights as a forward loads them, the copy's as the trainer does
     * (buffers apart: within 1 MiB) */
    uint64_t got = f.r->rl.own_total[0], gap = got > want ? got - want : want - got;
    cr_assert_lt(gap, 1ull << 20, "its GPU: context + weights + its pass (%llu, want %llu)", (unsigned long long)got,
                 (unsigned long long)want);
    cr_assert(!f.r->refused);
    drop(&f);

    uint64_t grpo[VX_RLP_N][VX_NCAT], ppo[VX_RLP_N][VX_NCAT];
    phases_of("", "", grpo, &h);
    phases_of(",\"algorithm\":\"ppo\"", ",\"rl\":{\"critic\":\"copy\",\"critic_gpus\":2}", ppo, &h);
    cr_assert(!memcmp(grpo, ppo, sizeof ppo), "PPO with its critic elsewhere is GRPO on the trainer's GPUs");
    trl_job(&f, ",\"algorithm\":\"ppo\"", ",\"rl\":{\"critic\":\"copy\",\"critic_gpus\":2}");
    cr_assert_gt(f.r->rl.own_total[2], 2ull * 494032768, "the critic's own GPUs hold its step");
    drop(&f);

    trl_job(&f, "", ",\"rl\":{\"reward\":{\"model\":\"qwen2.5-72b\"},\"reward_gpus\":1}");
    cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert(f.r->refused, "a 72B reward model does not fit one A100-80GB of its own");
    cr_assert(strstr(f.r->refusal, "the reward model needs"), "%s", f.r->refusal);
    drop(&f);
    /* OpenRLHF: the reference copy on placement groups of its own, as many
     * GPUs as the actor's, unless every model shares them (or -1 says so) */
    static const char ORLHF[] = "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\","
                                "\"runtime\":{\"framework\":\"openrlhf\"},\"workload\":{\"mode\":\"rl\","
                                "\"batch_size\":8,\"prompt_len\":256,\"gen_len\":256},\"parallel\":{\"gpus\":2}%s}";
    static const char *const orl_rl[] = {"", ",\"rl\":{\"placement\":\"shared\"}", ",\"rl\":{\"reference_gpus\":-1}"};
    char spec[1024];
    for (int i = 0; i < 3; i++) {
        snprintf(spec, sizeof spec, ORLHF, orl_rl[i]);
        load(&f, spec);
        cr_assert_eq(f.rc, VRAMEST_OK, "%s: %s", spec, vramest_last_error_message());
        cr_assert_eq(f.r->rl.reference, VX_REF_COPY);
        cr_assert_eq(f.r->rl.own_total[0] > 0, i == 0, "%s: reference on GPUs of its own only by default", spec);
        drop(&f);
    }
    expect_error("{\"model\":\"qwen2-0.5b\",\"runtime\":{\"framework\":\"trl\"},\"workload\":{\"mode\":\"rl\"},"
                 "\"rl\":{\"reward_gpus\":2}}",
                 VRAMEST_E_CONFLICT, "without a reward model");
    expect_error("{\"model\":\"qwen2-0.5b\",\"runtime\":{\"framework\":\"trl\"},\"workload\":{\"mode\":\"rl\","
                 "\"algorithm\":\"dpo\"},\"rl\":{\"reference_gpus\":2}}",
                 VRAMEST_E_CONFLICT, "inside the policy's step");
}

/* The plan's settings echo says what the estimate used: a role given a
 * model of its own echoes "model", not the option's default (auto / rule);
 * a role without one echoes the option as set. */
Test(rl, settings_echo_names_a_role_model)
{
    static const char *const rl[] = {"", ",\"rl\":{\"reference\":{\"model\":\"qwen2-0.5b\"},\"reward\":{\"model\":"
                                         "\"qwen2-0.5b\"}}"};
    static const char *const want[][2] = {{"\"reference\":\"auto\"", "\"reward\":\"rule\""},
                                          {"\"reference\":\"model\"", "\"reward\":\"model\""}};
    for (int i = 0; i < 2; i++) {
        char spec[512];
        static char json[1 << 16];
        size_t need = 0;
        fx f;
        snprintf(spec, sizeof spec,
                 "{\"model\":\"qwen2-0.5b\",\"precision\":\"bf16\",\"device\":\"A100-80GB\",\"runtime\":{\"framework\":"
                 "\"trl\"},\"workload\":{\"mode\":\"rl\",\"batch_size\":8}%s}",
                 rl[i]);
        load(&f, spec);
        cr_assert_eq(f.rc, VRAMEST_OK, "%s", vramest_last_error_message());
        cr_assert_eq(vramest_result_json(f.r, json, sizeof json, &need), VRAMEST_OK);
        const char *set = strstr(json, "\"settings\":");
        cr_assert(set && (set = strstr(set, "\"rl\":{")), "%s", json);
        for (int k = 0; k < 2; k++) cr_expect(strstr(set, want[i][k]), "'%s' not in %.400s", want[i][k], set);
        drop(&f);
    }
}
