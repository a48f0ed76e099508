/* Internal entry points of the solvers, shared by the public functions, the
 * advice and the job-spec "solve" question. */
#ifndef VX_SOLVE_H
#define VX_SOLVE_H

#include "estimate/estimate.h"
#include "common/json_writer.h"

/* Estimate into `r` and say whether it fits the config's device
 * (VRAMEST_E_UNSUPPORTED without a device). */
int vx_fit_at(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
              struct vramest_result *r, int *fits) VX_HIDDEN;
int vx_solve_max(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *cfg,
                 vramest_option key, int64_t *out_value, uint64_t *out_bytes) VX_HIDDEN;

/* The smallest world size that fits; *out_cfg (may be NULL) receives the
 * layout that fits (gpus, tp/pp/dp as grown). */
int vx_solve_min_gpus(const struct vramest_model *model, const struct vramest_precision *prec,
                      const struct vramest_config *cfg, int64_t max_gpus, struct vramest_config *out_cfg,
                      int64_t *out_gpus) VX_HIDDEN;
/* Append the advice array for a job (see vramest_advise_json). */
int vx_advise(const struct vramest_model *m, const struct vramest_precision *prec, const struct vramest_config *cfg,
              vx_jw *w) VX_HIDDEN;

#endif
