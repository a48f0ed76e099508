/* Resolution of an RL job (rl_job.h): what the stack's defaults and the
 * settings make of the algorithm, the reference, the rollout engine and
 * the batches; the checks a stack itself would fail on (TRL's group rule,
 * a colocated engine with the whole GPU, a reference-free algorithm given a
 * reference). Sources: docs/methodology.md, "RL post-training". */
#include <string.h>

#include "estimate/infer/infer.h"
#include "estimate/rl/rl_job.h"

/* TRL GRPOConfig.max_completion_length and verl data.max_response_length
 * default to 512 tokens. */
#define RL_DEFAULT_COMPLETION 512

/* Data-parallel trainer ranks: the given dp, else the GPUs over the model
 * split. */
static uint64_t trainer_dp(const vx_config_values *cv)
{
    uint64_t split = (uint64_t)(cv->tp * cv->pp * cv->cp);
    return cv->dp > 0 ? (uint64_t)cv->dp : vx_max_u64((uint64_t)cv->gpus / (split ? split : 1), 1);
}

static int resolve_reference(vx_ctx *x, rl_job *j, int stack_default);
static int resolve_reference_kind(vx_ctx *x, rl_job *j, int stack_default);

/* The preference family trains on given chosen / rejected completions: no
 * rollout, each example two sequences through the policy (TRL DPOTrainer
 * concatenates chosen and rejected; KTO adds its mismatched KL batch, ORPO
 * and SimPO (CPOTrainer) the same pair), the reference - DPO and KTO only,
 * ORPO and SimPO have none - run inside the loss while the policy's
 * forward is alive (huggingface/trl@f2cd57710 dpo_trainer.py _compute_loss). */
static int resolve_preference(vx_ctx *x, rl_job *j)
{
    const vx_config_values *cv = x->cv;
    int ref_free = cv->algorithm == VX_ALG_ORPO || cv->algorithm == VX_ALG_SIMPO;
    if (cv->rollout_engine != VX_ROLLOUT_AUTO && cv->rollout_engine != VX_ROLLOUT_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm %s generates nothing: rl.rollout.engine must be none (or auto)",
                       vramest_option_value_name(VRAMEST_CFG_ALGORITHM, cv->algorithm));
    if (ref_free && (cv->rl_reference == VX_REF_COPY || cv->rl_reference == VX_REF_ADAPTERS_DISABLED))
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm %s is reference-free: rl.reference must be none",
                       vramest_option_value_name(VRAMEST_CFG_ALGORITHM, cv->algorithm));
    j->engine = VX_ROLLOUT_NONE;
    j->placement = VX_PLACE_SAME_PROCESS;
    j->sleep = j->free_kv = 0;
    j->util = 0;
    int rc = resolve_reference(x, j, ref_free ? VX_REF_NONE : VX_REF_COPY);
    if (rc) return rc;
    j->P = vx_infer_prompt_len(cv);
    j->C = cv->gen_len > 0 ? (uint64_t)cv->gen_len : 0;
    j->G = 1;
    j->dp = trainer_dp(cv);
    uint64_t examples = cv->micro_batch_size > 0 ? (uint64_t)cv->micro_batch_size : (uint64_t)cv->batch_size;
    j->prompts = vx_sat_mul(vx_sat_mul((uint64_t)cv->batch_size, j->dp), (uint64_t)cv->grad_accum_steps);
    j->mb = j->seqs = vx_sat_mul(examples, 2);
    return VRAMEST_OK;
}

static int resolve_reference(vx_ctx *x, rl_job *j, int stack_default)
{
    int rc = resolve_reference_kind(x, j, stack_default);
    if (rc || x->cv->rl_reference_gpus <= 0) return rc;
    /* GPUs of its own hold a second model: there is one only as a copy or
     * a model of its own, and the preference trainers run it inside the
     * policy's step. */
    if (j->reference != VX_REF_COPY)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reference_gpus with reference %s: no model of its own to place",
                       vramest_option_value_name(VRAMEST_CFG_RL_REFERENCE, j->reference));
    if (j->pref)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reference_gpus with algorithm %s: TRL runs the reference inside the "
                                           "policy's step, on its GPUs",
                       vramest_option_value_name(VRAMEST_CFG_ALGORITHM, x->cv->algorithm));
    return VRAMEST_OK;
}

static int resolve_reference_kind(vx_ctx *x, rl_job *j, int stack_default)
{
    const vx_config_values *cv = x->cv;
    j->reference = cv->rl_reference != VX_REF_AUTO ? (int)cv->rl_reference : stack_default;
    /* A model of its own is a second set of weights whatever the policy's
     * fine-tuning (checked against the settings in resolve_own_models). */
    if (j->ref_m) {
        j->reference = VX_REF_COPY;
        return VRAMEST_OK;
    }
    int peft = cv->finetune == VX_FT_LORA || cv->finetune == VX_FT_QLORA;
    /* A LoRA policy's reference is itself with the adapters off (verl
     * ref_in_actor, TRL's PEFT path): no second set of weights. */
    if (j->reference == VX_REF_COPY && peft) {
        if (cv->rl_reference == VX_REF_COPY)
            vx_result_warn(x->r, "rl.reference copy with a LoRA policy: TRL and verl score the reference as the "
                                 "policy with its adapters disabled, so no second copy is counted");
        j->reference = VX_REF_ADAPTERS_DISABLED;
    }
    if (j->reference == VX_REF_ADAPTERS_DISABLED && !peft)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reference adapters_disabled needs a LoRA policy (finetune lora or qlora)");
    return VRAMEST_OK;
}

/* The job's models of their own (the config's role models): a reference
 * must share the policy's tokenizer (the per-token KL compares log-probs of
 * the same tokens; a reward model scores text and need not), and each must
 * agree with the names the settings give its role. */
static int resolve_own_models(vx_ctx *x, rl_job *j)
{
    const vx_config_values *cv = x->cv;
    const struct vramest_config *c = x->cfg;
    const struct vramest_precision *p;
    j->ref_m = vx_config_role_model(c, VRAMEST_ROLE_REFERENCE);
    j->reward_m = vx_config_role_model(c, VRAMEST_ROLE_REWARD);
    j->critic_m = vx_config_role_model(c, VRAMEST_ROLE_CRITIC);
    j->ref_pv = (p = vx_config_role_prec(c, VRAMEST_ROLE_REFERENCE)) ? &p->v : x->pol.pv;
    j->reward_pv = (p = vx_config_role_prec(c, VRAMEST_ROLE_REWARD)) ? &p->v : x->pol.pv;
    j->critic_pv = (p = vx_config_role_prec(c, VRAMEST_ROLE_CRITIC)) ? &p->v : x->pol.pv;
    int64_t rvocab = j->ref_m ? j->ref_m->shape.vocab : cv->rl_reference_vocab;
    if (rvocab > 0 && rvocab != x->pol.s->vocab)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "rl.reference has a vocabulary of %lld tokens, the policy %lld: the per-token KL compares "
                       "log-probs of the same tokens, so the reference must share the policy's tokenizer",
                       (long long)rvocab, (long long)x->pol.s->vocab);
    if (!j->ref_m && rvocab > 0)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "rl.reference_vocab alone: give the reference model itself "
                                              "(vramest_config_set_role_model, the spec's rl.reference {\"model\": ...})");
    if (j->ref_m && (cv->rl_reference == VX_REF_NONE || cv->rl_reference == VX_REF_ADAPTERS_DISABLED))
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reference %s with a reference model of its own",
                       vramest_option_value_name(VRAMEST_CFG_RL_REFERENCE, cv->rl_reference));
    if (j->ref_m && (cv->algorithm == VX_ALG_ORPO || cv->algorithm == VX_ALG_SIMPO))
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm %s is reference-free: it takes no reference model",
                       vramest_option_value_name(VRAMEST_CFG_ALGORITHM, cv->algorithm));
    if (j->reward_m && cv->rl_reward == VX_REWARD_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reward none with a reward model");
    if (j->reward_m && cv->algorithm != VX_ALG_GRPO && cv->algorithm != VX_ALG_PPO)
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm %s learns from given preferences: it scores nothing with a "
                                           "reward model",
                       vramest_option_value_name(VRAMEST_CFG_ALGORITHM, cv->algorithm));
    if (cv->rl_reward_gpus > 0 && !j->reward_m)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reward_gpus without a reward model of its own");
    if (!j->reward_m && cv->rl_reward_offload != VX_OFFLOAD_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.reward_offload without a reward model of its own");
    return VRAMEST_OK;
}

/* Where the frozen and value models run: -1 on the trainer's GPUs, N on N
 * GPUs of their own, 0 the stack's default. OpenRLHF gives the reference,
 * the reward model and the critic placement groups of their own, as many
 * GPUs as the actor's by default (--ref.num_gpus_per_node 8 as
 * --actor.num_gpus_per_node 8), unless --train.colocate_all (placement
 * shared) or --train.colocate_actor_ref / colocate_critic_reward
 * (OpenRLHF/OpenRLHF@3c3be623 openrlhf/cli/train_ppo_ray.py). */
static int64_t own_gpus(const vx_ctx *x, const rl_job *j, int64_t set, int present)
{
    if (!present || set < 0) return 0;
    if (set > 0) return set;
    return x->rt.rl_own_gpus && !j->shared ? x->cv->gpus : 0;
}

static void resolve_own_gpus(const vx_ctx *x, rl_job *j)
{
    const vx_config_values *cv = x->cv;
    j->ref_gpus = own_gpus(x, j, cv->rl_reference_gpus, j->reference == VX_REF_COPY);
    j->reward_gpus = own_gpus(x, j, cv->rl_reward_gpus, j->reward_m != NULL);
    j->critic_gpus = own_gpus(x, j, cv->rl_critic_gpus, j->critic);
}

int vx_rl_resolve_job(vx_ctx *x, rl_job *j)
{
    const vx_config_values *cv = x->cv;
    const vx_runtime *rt = &x->rt;
    const char *fw = vx_enum_name_of(vx_framework_enum, cv->framework);
    /* Every path below sets only the fields its algorithm uses (the
     * preference family has no placement group, so no `shared`). */
    memset(j, 0, sizeof *j);
    if (!rt->rl_stack)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "mode rl runs on a post-training stack: framework trl, verl or openrlhf (is %s)", fw ? fw : "?");
    j->pref = cv->algorithm != VX_ALG_GRPO && cv->algorithm != VX_ALG_PPO;
    int has_critic = cv->rl_critic != VX_CRITIC_NONE || vx_config_role_model(x->cfg, VRAMEST_ROLE_CRITIC);
    if (cv->algorithm == VX_ALG_PPO && !has_critic)
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm ppo needs a value model: set rl.critic to copy or a model");
    if (cv->algorithm != VX_ALG_PPO && has_critic)
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm %s has no value model: rl.critic must be none",
                       vramest_option_value_name(VRAMEST_CFG_ALGORITHM, cv->algorithm));
    int rc;
    if ((rc = resolve_own_models(x, j))) return rc;
    j->critic = cv->rl_critic == VX_CRITIC_COPY || j->critic_m;
    if (cv->rl_critic_gpus > 0 && !j->critic)
        return vx_fail(VRAMEST_E_CONFLICT, "rl.critic_gpus without a critic (algorithm ppo)");

    if (j->pref) return resolve_preference(x, j);
    j->engine = cv->rollout_engine != VX_ROLLOUT_AUTO ? (int)cv->rollout_engine : rt->rl_engine;
    if (j->engine == VX_ROLLOUT_NONE)
        return vx_fail(VRAMEST_E_CONFLICT, "algorithm %s samples completions: rollout engine none is for the DPO "
                                           "family",
                       cv->algorithm == VX_ALG_PPO ? "ppo" : "grpo");
    j->placement = (int)cv->rl_placement;
    /* OpenRLHF's shared placement is a colocated engine with every model
     * on the same GPUs, which colocated already means here. */
    j->shared = j->placement == VX_PLACE_SHARED;
    if (j->shared) j->placement = VX_PLACE_COLOCATED;
    if (j->placement == VX_PLACE_AUTO)
        j->placement = j->engine == VX_ROLLOUT_TRANSFORMERS ? VX_PLACE_SAME_PROCESS
                       : rt->rl_placement == VX_PLACE_SAME_PROCESS ? VX_PLACE_COLOCATED
                                                                   : rt->rl_placement;
    if ((j->placement == VX_PLACE_SAME_PROCESS) != (j->engine == VX_ROLLOUT_TRANSFORMERS))
        return vx_fail(VRAMEST_E_CONFLICT,
                       "rl.placement %s with rollout engine %s: generate() runs in the trainer's process "
                       "(same_process), a vLLM engine colocated or separate",
                       j->placement == VX_PLACE_SAME_PROCESS ? "same_process"
                       : j->placement == VX_PLACE_COLOCATED  ? "colocated"
                                                             : "separate",
                       j->engine == VX_ROLLOUT_TRANSFORMERS ? "transformers" : "vllm");
    if (cv->rollout_engine_version[0]) {
        /* the engine's release, checked as runtime.framework_version is */
        int ver = 0;
        if (j->engine != VX_ROLLOUT_VLLM)
            return vx_fail(VRAMEST_E_CONFLICT, "rl.rollout.engine_version is a vLLM release: the rollout engine is "
                                               "transformers (generate() runs at transformers_version)");
        rc = vx_runtime_check_version(vx_framework_versions(VX_FW_VLLM), "rollout_engine_version",
                                          cv->rollout_engine_version, &ver);
        if (rc) return rc;
    }
    j->sleep = cv->rollout_sleep_mode == VX_TRI_AUTO ? rt->rl_sleep : cv->rollout_sleep_mode == VX_TRI_ON;
    j->free_kv = cv->rollout_free_cache_engine == VX_TRI_AUTO ? j->sleep : cv->rollout_free_cache_engine == VX_TRI_ON;
    /* A separate engine is a vLLM server: OpenRLHF's own default, else
     * vLLM's 0.9 (TRL's `trl vllm-serve`, verl's standalone rollout). */
    j->util = cv->rollout_gpu_memory_utilization > 0 ? cv->rollout_gpu_memory_utilization
              : j->placement == VX_PLACE_SEPARATE && rt->rl_placement != VX_PLACE_SEPARATE ? 0.9
                                                                                          : rt->rl_util_permille / 1000.0;
    /* The engine's budget is a fraction of the whole GPU; beside a trainer
     * that fraction cannot be all of it. */
    if (j->placement == VX_PLACE_COLOCATED && j->util >= 1.0)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "colocated rollout with gpu_memory_utilization %.2f: the engine and the trainer share each GPU, "
                       "so the engine's fraction must stay below 1",
                       j->util);

    rc = resolve_reference(x, j, rt->rl_reference);
    if (rc) return rc;

    j->P = vx_infer_prompt_len(cv);
    j->C = cv->gen_len > 0 ? (uint64_t)cv->gen_len : RL_DEFAULT_COMPLETION;
    if (cv->gen_len <= 0)
        vx_result_warn(x->r, "gen_len not given: completions of %d tokens assumed (TRL max_completion_length, verl "
                             "max_response_length defaults)",
                       RL_DEFAULT_COMPLETION);
    j->G = (uint64_t)cv->num_generations;
    j->dp = trainer_dp(cv);
    if (cv->rollout_batch_size > 0) {
        j->prompts = (uint64_t)cv->rollout_batch_size;
    } else {
        /* TRL: the generation batch is per_device_train_batch_size x
         * processes x steps_per_generation completions, num_generations
         * of each prompt (GRPOConfig.__post_init__ refuses the rest). */
        uint64_t gen = vx_sat_mul(vx_sat_mul((uint64_t)cv->batch_size, j->dp), (uint64_t)cv->grad_accum_steps);
        if (gen % j->G && x->rt.rl_group_check)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "num_generations %llu must divide the generation batch, batch_size x data-parallel GPUs x "
                           "grad_accum_steps = %llu (TRL GRPOConfig): each prompt's completions form one group",
                           (unsigned long long)j->G, (unsigned long long)gen);
        j->prompts = vx_max_u64(gen / j->G, 1);
    }
    j->seqs = vx_ceil_div(vx_sat_mul(j->prompts, j->G), j->dp);
    /* Without a micro-batch: TRL's per_device_train_batch_size, or verl's
     * legacy global ppo_micro_batch_size set to the train batch, which
     * fsdp_workers.py divides by the data-parallel size and does not
     * multiply by rollout.n (verl-project/verl@1dda039b9). */
    j->mb = cv->micro_batch_size > 0    ? (uint64_t)cv->micro_batch_size
            : cv->rollout_batch_size > 0 ? vx_ceil_div(j->prompts, j->dp)
                                         : (uint64_t)cv->batch_size;
    if (j->mb > j->seqs) j->mb = j->seqs;
    if (!j->mb) j->mb = 1;
    resolve_own_gpus(x, j);
    return VRAMEST_OK;
}
