/* The result handle: fixed-size, so vramest_estimate allocates exactly one
 * block. It keeps an echo of the inputs for the JSON plan, never pointers. */
#ifndef VX_RESULT_H
#define VX_RESULT_H

#include "runtime/config.h"
#include "model/model.h"
#include "precision/precision.h"
#include "result/names.h"
#include "common/json_writer.h"

#define VX_MAX_WARN 8
#define VX_WARN_LEN 200
#define VX_MAX_TIMELINE 64
#define VX_MAX_RANKS 8

/* One point of the step timeline (for the plan and the CLI chart). */
typedef struct vx_timeline_point {
    uint8_t phase;     /* vramest_phase */
    int32_t layer;     /* layer index within the phase, -1 for whole-phase points */
    uint64_t allocated;/* live allocated bytes at this point */
    const char *label; /* a string literal: static storage, never copied */
} vx_timeline_point;

/* Per-rank-group breakdown (pipeline stages differ). */
typedef struct vx_rank_group {
    char label[48];   /* e.g. "pp stage 0 (first)" */
    int64_t ranks;    /* how many ranks share this breakdown */
    uint64_t cat[VX_NCAT];
    uint64_t peak_allocated, peak_reserved, device_total;
} vx_rank_group;

/* The stack the estimate assumed (issue #17): the runtime as resolved, the
 * choices the estimator made where a setting said "auto", and one note per
 * default that decided the answer. The plan writes it as "resolved"
 * (result/resolved_json.c). */
#define VX_MAX_NOTES 6
typedef struct vx_result_runtime {
    vx_runtime rt;          /* the framework, its versions (and which were defaults), its behaviours */
    int has_rt;             /* rt was filled (vx_runtime_resolved) */
    int mode_train;         /* the training fields below were filled */
    int opt_impl;           /* VX_OPTIMPL_* the optimizer step runs */
    int loss;               /* VX_LOSS_* the head runs */
    int fsdp_version;       /* 1 or 2 under FSDP, 0 without */
    const char *attention;  /* the attention kernel (a string literal), NULL if none was resolved */
    uint32_t n_notes;
    char notes[VX_MAX_NOTES][VX_WARN_LEN];
} vx_result_runtime;

/* Mode rl (issue #23): the step's phases on a trainer GPU, each with its
 * GPU categories (the CUDA context apart), and the rollout engine's GPUs
 * when they are separate. The plan writes it as "rl" (result/rl_json.c);
 * the headline figures are those of the peak phase. */
enum { VX_RLP_ROLLOUT = 0, VX_RLP_SCORING = 1, VX_RLP_TRAINING = 2, VX_RLP_N = 3 };
typedef struct vx_rl_phases {
    int on;                        /* mode rl filled it */
    int peak;                      /* VX_RLP_* of the step's peak */
    int placement, engine, sleep;  /* as resolved: VX_PLACE_*, VX_ROLLOUT_*, the engine sleeps */
    int reference;                 /* VX_REF_* as resolved */
    int reward, critic;            /* 0 none (or a rule), 1 a copy of the policy (critic), 2 a model of its own */
    int reference_model;           /* the reference is a model of its own */
    uint64_t own_total[3];         /* reference, reward, critic on GPUs of their own: per such GPU, else 0 */
    uint64_t cat[VX_RLP_N][VX_NCAT];
    uint64_t total[VX_RLP_N];      /* each phase's device total on a trainer GPU, the CUDA context included */
    uint64_t engine_total;         /* separate placement: per engine GPU, else 0 */
    uint64_t engine_budget;        /* the engine's gpu_memory_utilization x device memory (0 without a device) */
    uint64_t kv_pool;              /* the engine's KV pool per GPU */
    uint64_t host_offload;         /* host bytes of what is offloaded between phases */
    double max_util;               /* colocated: the largest gpu_memory_utilization with which every phase fits
                                      (0: none does; -1: not colocated or no device) */
    int64_t prompts, seqs_per_gpu, micro_seqs; /* the rollout batch, completions per GPU, sequences per micro-batch */
} vx_rl_phases;
/* Named figures of an engine's own estimate a result can carry. */
#define VX_MAX_ENGINE_FIGS 6

struct vramest_result {
    uint32_t magic;
    /* The figures, cat .. val_ok, stay contiguous: a rank group's estimate is
     * saved and restored as one block (parallel.c). */
    uint64_t cat[VX_NDEV][VX_NCAT];
    uint64_t cat_low[VX_NDEV][VX_NCAT];
    uint64_t cat_high[VX_NDEV][VX_NCAT];
    uint8_t prov[VX_NDEV][VX_NCAT];
    uint64_t val[VX_NVAL];
    uint64_t val_low[VX_NVAL], val_high[VX_NVAL];
    uint8_t val_ok[VX_NVAL]; /* 0: the figure does not apply (E_UNSUPPORTED) */
    uint32_t touched[VX_NDEV]; /* bit c: category c of the device was added to (finish reads only those) */
    uint32_t n_warn;
    /* An engine that would refuse the job (issue #18: vLLM would not start)
     * makes the verdict "does not fit" with its reason, whatever the bytes. */
    uint8_t refused;
    /* Figures of an engine's own estimate, as it logs them (Ollama's
     * scheduler: required KV, graph sizes), under `engine_name`; names and
     * the engine name are string literals. */
    const char *engine_name;
    uint32_t n_engine_figs;
    struct {
        const char *name;
        uint64_t value;
    } engine_figs[VX_MAX_ENGINE_FIGS];
    char warn[VX_MAX_WARN][VX_WARN_LEN];
    char refusal[VX_WARN_LEN]; /* read only when refused: not zeroed (vx_result_begin) */
    uint32_t n_timeline;
    vx_timeline_point timeline[VX_MAX_TIMELINE];
    uint32_t n_ranks;
    vx_rank_group ranks[VX_MAX_RANKS];
    /* echo of the inputs, resolved */
    char model_name[64];
    vx_shape shape;
    vx_precision_values prec;  /* with "auto" resolved */
    vx_config_values cfg;
    uint64_t device_bytes;
    uint64_t cuda_context_bytes;
    int has_file_inv; /* 1: weights from file tensors; 2: and from the architecture (files lacking some) */
    /* set by vx_result_finish */
    uint64_t headroom_bytes; /* kept free per GPU */
    int band_kind;           /* VX_BAND_*: which measured runs calibrate the headline bands */
    vx_result_runtime rrt;   /* the stack assumed (issue #17) */
    vx_rl_phases rl;         /* mode rl (issue #23); rl.on is 0 otherwise */
};

/* Kinds of job whose measured runs calibrate the headline bands (bands.c). */
enum { VX_BAND_LOAD = 0, VX_BAND_INFER = 1, VX_BAND_SERVE = 2, VX_BAND_TRAIN = 3, VX_NBAND = 4 };

/* The calibration of a kind (bands.c): the ratios measured / estimated of
 * peak_allocated that hold at least 90% of its trustworthy measurements,
 * and the fragmentation (reserved - allocated) / allocated measured in one
 * run, with how many runs and pairs each rests on (frag_runs 0: none
 * measured, the allocator term keeps its own band). */
typedef struct vx_band_basis {
    const char *kind;
    double low, high;
    int runs;
    double frag_low, frag_high;
    int frag_runs;
} vx_band_basis;
const vx_band_basis *vx_band_basis_of(int kind) VX_HIDDEN;
int vx_band_kind(const vx_config_values *c) VX_HIDDEN;
/* The headline figures' bands from the calibration of the job's kind. */
void vx_result_bands(struct vramest_result *r) VX_HIDDEN;

/* The fix a plan proposes when the verdict is not "fits": one change of the
 * advice (solve/) and the job's figures with it; `text` NULL when the advice
 * was searched and no single change helps. */
typedef struct vx_fix {
    const char *text;   /* "gradient_checkpointing=full" */
    const char *change; /* the change as job-spec JSON */
    uint64_t device_total, high;
    int verdict;        /* vramest_verdict with the change */
} vx_fix;

/* Names of the verdicts ("does_not_fit", "fits_low_end", "fits"). */
extern const char *const vx_verdict_names[3] VX_HIDDEN;

/* The engine would refuse the job: verdict "does not fit", with `fmt` as
 * the reason (truncated to VX_WARN_LEN). */
void vx_result_refuse(struct vramest_result *r, const char *fmt, ...) VX_PRINTF(2, 3) VX_HIDDEN;
/* Record a figure of the engine's own estimate (`engine` and `name` string
 * literals); dropped past VX_MAX_ENGINE_FIGS. */
static inline void vx_result_engine_fig(struct vramest_result *r, const char *engine, const char *name, uint64_t v)
{
    if (r->n_engine_figs >= VX_MAX_ENGINE_FIGS) return;
    r->engine_name = engine;
    r->engine_figs[r->n_engine_figs].name = name;
    r->engine_figs[r->n_engine_figs++].value = v;
}
/* The plan's "why" member (no leading comma): what the job needs against
 * the usable memory, the dominant categories, the fix (NULL: not searched),
 * and one sentence saying it. Only for a result with a device and a verdict
 * other than "fits". */
void vx_result_why(vx_jw *w, const struct vramest_result *r, const vx_fix *fix) VX_HIDDEN;

/* Add a note to the resolved runtime: a default that decided the answer
 * (truncated to VX_WARN_LEN; extra notes are dropped). */
void vx_result_note(struct vramest_result *r, const char *fmt, ...) VX_PRINTF(2, 3) VX_HIDDEN;
/* The plan's "resolved" member (no leading comma): the stack assumed. */
void vx_result_resolved_json(vx_jw *w, const struct vramest_result *r) VX_HIDDEN;
/* The plan's "rl" member with its leading key (mode rl only; nothing else). */
void vx_result_rl_json(vx_jw *w, const struct vramest_result *r, int *first) VX_HIDDEN;

/* The plan's "settings" object (no key): every option of the precision and
 * the config echoed by group (result/settings_json.c). */
void vx_result_settings_json(vx_jw *w, const struct vramest_result *r) VX_HIDDEN;

/* Add a warning (truncated to VX_WARN_LEN; extra warnings are dropped). */
void vx_result_warn(struct vramest_result *r, const char *fmt, ...) VX_PRINTF(2, 3) VX_HIDDEN;
/* Append a whole-phase point (VRAMEST_PHASE_*; `label` a string literal)
 * to the timeline; dropped when the timeline is full. */
static inline void vx_result_point(struct vramest_result *r, int phase, const char *label, uint64_t allocated)
{
    if (r->n_timeline >= VX_MAX_TIMELINE) return;
    vx_timeline_point *p = &r->timeline[r->n_timeline++];
    p->phase = (uint8_t)phase;
    p->layer = -1;
    p->allocated = allocated;
    p->label = label;
}
/* Add one term to a category: its bytes, its band (absolute low/high of
 * this term) and its provenance (a category keeps its least certain one). */
void vx_result_add(struct vramest_result *r, int dev, int cat, uint64_t bytes, uint64_t low, uint64_t high,
                   int prov) VX_HIDDEN;
/* The JSON plan with extra members (`"k":v,...`, no braces) appended to the
 * top-level object: the answer of a job spec's "solve" question. `fix` (may
 * be NULL) goes into the "why" of a job that does not fit. */
int vx_result_json_extra(const struct vramest_result *res, const vx_fix *fix, const char *extra, char *buf,
                         size_t cap, size_t *out_needed) VX_HIDDEN;
/* Zero the figures of a result an estimate is about to fill (warnings,
 * timeline points and rank groups are read up to their counts; the echo is
 * the caller's to copy). */
void vx_result_begin(struct vramest_result *r) VX_HIDDEN;
/* Derive peak_allocated/reserved/device_total from the GPU categories and
 * the fits verdict from the device. Call last. */
void vx_result_finish(struct vramest_result *r) VX_HIDDEN;

#endif
