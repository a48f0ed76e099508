/* Name tables shared by the getters and the JSON plan. */
#ifndef VX_NAMES_H
#define VX_NAMES_H

#include "common/internal.h"

/* How many of each the public enums have (vramest.h). */
#define VX_NDEV 3
#define VX_NCAT 12
#define VX_NVAL 24
#define VX_NPHASE 6
#define VX_NPROV 6

/* The categories in vramest_category order, X(name) separated by S: the
 * names and the plan's pre-rendered keys (result_json.c) come from this one
 * list. */
#define VX_CATEGORY_LIST(X, S)                                                                                    \
    X(weights) S X(master_weights) S X(gradients) S X(optimizer_states) S X(activations) S X(kv_cache) S X(logits) \
    S X(adapter) S X(workspace) S X(framework) S X(allocator) S X(state_cache)
#define VX_COMMA ,
#define VX_PROV_NONE_NAME "none" /* provenance 0: nothing was added */

extern const char *const vx_category_names[] VX_HIDDEN;
extern const char *const vx_device_names[] VX_HIDDEN;
extern const char *const vx_value_names[] VX_HIDDEN;
extern const char *const vx_phase_names[] VX_HIDDEN;
extern const char *const vx_provenance_names[] VX_HIDDEN;

#endif
