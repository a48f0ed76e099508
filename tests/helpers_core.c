#include "helpers_core.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/estimate.h"

int vt_estimate_spec(const char *spec, vramest_model **m, vramest_precision **p, vramest_config **c,
                     struct vramest_result **r)
{
    int rc = vramest_spec_parse(spec, strlen(spec), m, p, c);
    cr_assert_eq(rc, VRAMEST_OK, "spec: %s (%s)", vramest_last_error_message(), spec);
    *r = calloc(1, sizeof **r);
    cr_assert(*r);
    return vx_estimate_into(*m, *p, *c, *r);
}

void vt_estimate_free(vramest_model *m, vramest_precision *p, vramest_config *c, struct vramest_result *r)
{
    free(r);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}
