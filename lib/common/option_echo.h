/* The settings echo's pieces shared by the plan (result/settings_json.c)
 * and the build-time generator of its pre-rendered defaults
 * (option_index_gen.c). */
#ifndef VX_OPTION_ECHO_H
#define VX_OPTION_ECHO_H

#include "common/json_writer.h"
#include "common/option_index.h"
#include "common/options.h"

/* The echo's groups, the job spec's objects in the plan's order. */
extern const char *const vx_echo_groups[VX_ECHO_GROUPS] VX_HIDDEN;
/* The echo group (0 .. VX_ECHO_GROUPS - 1) of an option's job-spec group,
 * -1 for one the settings do not echo (the model's). */
int vx_echo_group(const char *group) VX_HIDDEN;
/* One option's value as the echo writes it, from the values struct `base`. */
void vx_echo_value(vx_jw *w, const vx_option_def *d, const void *base) VX_HIDDEN;

#endif
