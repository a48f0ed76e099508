/* Internal entry points of the solvers, shared by the public functions, the
 * advice, the plan's fix and the job-spec "solve" question. */
#ifndef VX_SOLVE_H
#define VX_SOLVE_H

#include "estimate/estimate.h"
#include "common/json_writer.h"

/* What "fits" means to a solver: the estimate within the usable memory
 * (capacity less headroom; the public solvers, a spec's "value"), or the
 * band's high end within it (verdict "fits"; a solution's "safe_value"). */
enum { VX_FIT_ESTIMATE = 0, VX_FIT_BAND = 1 };

/* Estimate into `r` and say whether it fits the config's device by
 * `criterion` (VRAMEST_E_UNSUPPORTED without a device). */
int vx_fit_by(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
              int criterion, struct vramest_result *r, int *fits) VX_HIDDEN;
int vx_fit_at(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
              struct vramest_result *r, int *fits) VX_HIDDEN;
int vx_solve_max(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *cfg,
                 vramest_option key, int criterion, int64_t *out_value, uint64_t *out_bytes) VX_HIDDEN;

/* The smallest world size that fits; *out_cfg (may be NULL) receives the
 * layout that fits (gpus, tp/pp/dp as grown). */
/* The smallest fraction of the GPU a serving engine may take
 * (gpu_memory_utilization for vLLM, mem_fraction_static for SGLang), in
 * hundredths, at which the job fits by `criterion` (the engine starts and
 * the process fits the memory less the headroom): every hundredth is tried
 * in order, since too large a fraction stops fitting again (vLLM's graphs
 * on top of the budget). VRAMEST_E_DOES_NOT_FIT when none does. */
int vx_solve_min_fraction(const struct vramest_model *m, const struct vramest_precision *p,
                          const struct vramest_config *cfg, vramest_option key, int criterion, double *out) VX_HIDDEN;
int vx_solve_min_gpus(const struct vramest_model *model, const struct vramest_precision *prec,
                      const struct vramest_config *cfg, int64_t max_gpus, int criterion, struct vramest_config *out_cfg,
                      int64_t *out_gpus) VX_HIDDEN;

/* Each one-change candidate of the advice that applies and saves memory,
 * cheapest first: `fn` gets the change as job-spec JSON and as text
 * ("gradient_checkpointing=full"), and the estimate with it; a non-zero
 * return stops the walk. */
typedef int (*vx_advice_fn)(void *ctx, const char *change, const char *text, const struct vramest_result *with,
                            uint64_t base_total);
int vx_advice_each(const struct vramest_model *m, const struct vramest_precision *prec,
                   const struct vramest_config *cfg, vx_advice_fn fn, void *ctx) VX_HIDDEN;
/* Append the advice array for a job (see vramest_advise_json). */
int vx_advise(const struct vramest_model *m, const struct vramest_precision *prec, const struct vramest_config *cfg,
              vx_jw *w) VX_HIDDEN;

/* The fix of a job that does not fit (or only at its band's low end): the
 * first change of the advice whose verdict is "fits", else the first that
 * reaches "fits_low_end"; fix->text NULL when none does. The strings are
 * written into `text` and `change`. */
int vx_find_fix(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
                vx_fix *fix, char *text, size_t text_cap, char *change, size_t change_cap) VX_HIDDEN;

#endif
