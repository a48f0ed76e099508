/* Bundled model presets (presets.c, presets_2026.c): real config.json files
 * compiled in and read through the same config.json reader as a user's. */
#ifndef VX_PRESETS_H
#define VX_PRESETS_H

#include "model/model.h"

typedef struct vx_preset {
    const char *name;
    const char *aliases; /* comma-separated: short names and the HF repo id */
    const char *config;  /* config.json */
} vx_preset;

/* The models released in 2025-2026 and the zoo of issue #16 (presets_2026.c). */
extern const vx_preset vx_presets_2026[] VX_HIDDEN;
extern const size_t vx_presets_2026_count VX_HIDDEN;

#endif
