/* The plan's "rl" member (issue #23, docs/guide.md "RL post-training"):
 * the step's phases on a trainer GPU side by side, which one is the peak,
 * and what the placement puts elsewhere (the engine's own GPUs, the host).
 * The estimator fills r->rl (estimate/rl/rl.c). */
#include "result/result.h"

static const char *const phase_names[VX_RLP_N] = {"rollout", "scoring", "training"};
static const char *const placement_names[] = {"auto", "same_process", "colocated", "separate", "shared"};
static const char *const engine_names[] = {"auto", "transformers", "vllm", "none"};
static const char *const reference_names[] = {"auto", "none", "copy", "adapters_disabled"};

static const char *name_of(const char *const *names, size_t n, int v)
{
    return v >= 0 && (size_t)v < n ? names[v] : "?";
}

void vx_result_rl_json(vx_jw *w, const struct vramest_result *r, int *first)
{
    const vx_rl_phases *p = &r->rl;
    vx_jw_name_key(w, "rl", first);
    vx_jw_put(w, "{", 1);
    int f = 1;
    vx_jw_name_key(w, "placement", &f);
    vx_jw_str(w, name_of(placement_names, VX_ARRAY_LEN(placement_names), p->placement));
    vx_jw_name_key(w, "engine", &f);
    vx_jw_str(w, name_of(engine_names, VX_ARRAY_LEN(engine_names), p->engine));
    vx_jw_name_key(w, "engine_sleeps", &f);
    vx_jw_puts(w, p->sleep ? "true" : "false");
    vx_jw_name_key(w, "reference", &f);
    vx_jw_str(w, name_of(reference_names, VX_ARRAY_LEN(reference_names), p->reference));
    vx_jw_name_key(w, "reference_model", &f);
    vx_jw_puts(w, p->reference_model ? "true" : "false");
    vx_jw_name_key(w, "reward", &f);
    vx_jw_str(w, p->reward == 2 ? "model" : r->cfg.rl_reward == VX_REWARD_NONE ? "none" : "rule");
    vx_jw_name_key(w, "critic", &f);
    vx_jw_str(w, p->critic == 2 ? "model" : p->critic ? "copy" : "none");
    vx_jw_name_key(w, "rollout_batch_size", &f);
    vx_jw_printf(w, "%lld", (long long)p->prompts);
    vx_jw_name_key(w, "sequences_per_gpu", &f);
    vx_jw_printf(w, "%lld", (long long)p->seqs_per_gpu);
    vx_jw_name_key(w, "micro_batch_sequences", &f);
    vx_jw_printf(w, "%lld", (long long)p->micro_seqs);
    vx_jw_name_key(w, "peak_phase", &f);
    vx_jw_str(w, phase_names[p->peak >= 0 && p->peak < VX_RLP_N ? p->peak : 0]);
    vx_jw_name_key(w, "phases", &f);
    vx_jw_put(w, "[", 1);
    for (int i = 0; i < VX_RLP_N; i++) {
        if (i) vx_jw_put(w, ",", 1);
        vx_jw_puts(w, "{\"name\":");
        vx_jw_str(w, phase_names[i]);
        vx_jw_printf(w, ",\"device_total\":%llu,\"categories\":{", (unsigned long long)p->total[i]);
        int g = 1;
        for (int c = 0; c < VX_NCAT; c++) {
            vx_jw_name_key(w, vx_category_names[c], &g);
            vx_jw_u64(w, p->cat[i][c]);
        }
        vx_jw_puts(w, "}}");
    }
    vx_jw_put(w, "]", 1);
    vx_jw_name_key(w, "max_gpu_memory_utilization", &f);
    if (p->max_util >= 0)
        vx_jw_printf(w, "%.3f", p->max_util);
    else
        vx_jw_puts(w, "null");
    vx_jw_printf(w, ",\"engine_budget\":%llu,\"kv_pool_bytes\":%llu,\"engine_gpu_total\":%llu,\"host_offload\":%llu",
                 (unsigned long long)p->engine_budget, (unsigned long long)p->kv_pool,
                 (unsigned long long)p->engine_total, (unsigned long long)p->host_offload);
    vx_jw_printf(w, ",\"reference_gpu_total\":%llu,\"reward_gpu_total\":%llu,\"critic_gpu_total\":%llu}",
                 (unsigned long long)p->own_total[0], (unsigned long long)p->own_total[1],
                 (unsigned long long)p->own_total[2]);
}
