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

extern const char *const vx_category_names[] VX_HIDDEN;
extern const char *const vx_device_names[] VX_HIDDEN;
extern const char *const vx_value_names[] VX_HIDDEN;
extern const char *const vx_phase_names[] VX_HIDDEN;
extern const char *const vx_provenance_names[] VX_HIDDEN;

#endif
