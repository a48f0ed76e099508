/* The RL job as the stack runs it (issue #23): the algorithm's models, the
 * rollout engine and its placement, the batches per GPU, resolved from the
 * settings and the stack's defaults (the runtime row), with the settings
 * that contradict each other refused. */
#ifndef VX_RL_JOB_H
#define VX_RL_JOB_H

#include "estimate/context/context.h"

typedef struct rl_job {
    int pref;                /* the preference family (DPO, KTO, ORPO, SimPO): no rollout */
    int critic;              /* PPO's value model: a trained copy of the policy's architecture */
    int shared;              /* placement "shared" (OpenRLHF colocate_all), run as colocated */
    int placement, engine, sleep, free_kv, reference;
    uint64_t P, C, G;        /* prompt tokens, completion tokens, completions per prompt */
    uint64_t dp;             /* trainer data-parallel ranks */
    uint64_t prompts;        /* prompts per step, all GPUs */
    uint64_t seqs;           /* completions per trainer GPU per step */
    uint64_t mb;             /* sequences per GPU per micro-batch (training and scoring) */
    double util;             /* the engine's gpu_memory_utilization */
    /* Models of their own (the config's role models, NULL when none),
     * each with its precision (the job's when its own is NULL). */
    const struct vramest_model *ref_m, *reward_m, *critic_m;
    const vx_precision_values *ref_pv, *reward_pv, *critic_pv;
    int64_t ref_gpus, reward_gpus, critic_gpus; /* GPUs of their own, resolved (0: on the trainer's) */
} rl_job;

/* Fill `j` from x->cv and x->rt (VRAMEST_E_CONFLICT / _UNSUPPORTED with the
 * reason for a job the stack would refuse or that is not modelled). */
int vx_rl_resolve_job(vx_ctx *x, rl_job *j) VX_HIDDEN;

#endif
