/* Helpers of the white-box Criterion suites, those that link the static
 * core (`vramest_core_dep`) and read a result's internals
 * (tests/helpers_core.c, in `test_core_helpers` of tests/meson.build).
 * Kept apart from helpers.h, whose suites link the public library only. */
#ifndef VT_HELPERS_CORE_H
#define VT_HELPERS_CORE_H

#include <vramest/vramest.h>

struct vramest_result;

/* Parse job spec `spec` (the current test fails when it does not parse)
 * and estimate it into a result of the caller's (calloc'd, so that it is
 * there to inspect whatever the estimate returned). The handles go to the
 * out pointers; the estimate's status is returned. vt_estimate_free()
 * releases all four. */
int vt_estimate_spec(const char *spec, vramest_model **m, vramest_precision **p, vramest_config **c,
                     struct vramest_result **r);
void vt_estimate_free(vramest_model *m, vramest_precision *p, vramest_config *c, struct vramest_result *r);

#endif
