/* vramest_spec_plan: a job spec in, a plan out. Reading the spec
 * (spec/spec.c), answering its "solve" question (solve/) and estimating
 * at the answer are separate floors; this entry point puts them together. */
#include <stdlib.h>

#include "solve/solve.h"
#include "spec/spec.h"

/* The answer to a spec's "solve" question, as extra plan members, and the
 * configuration the plan should describe (the one at the answer). */
static int answer(const vramest_model *m, const vramest_precision *p, const vramest_config *c,
                  const vx_spec_solve *solve, struct vramest_config *at, vx_jw *w)
{
    *at = *c;
    if (solve->kind == VX_SOLVE_ADVICE) {
        vx_jw_puts(w, "\"advice\":");
        return vx_advise(m, p, c, w);
    }
    int64_t value = 0;
    int rc;
    if (solve->key == VRAMEST_CFG_GPUS)
        rc = vx_solve_min_gpus(m, p, c, 65536, at, &value);
    else if (!(rc = vx_solve_max(m, p, c, solve->key, &value, NULL)))
        rc = vx_opt_set_i64(&at->v, at->set_bits, VRAMEST_HANDLE_CONFIG, solve->key, value);
    vx_jw_puts(w, "\"solution\":{\"key\":");
    vx_jw_str(w, solve->name);
    if (rc == VRAMEST_E_DOES_NOT_FIT) {
        /* Nothing fits: the plan describes the configuration as given, and
         * says why no value was found. */
        vx_jw_puts(w, ",\"value\":null,\"fits\":false,\"reason\":");
        vx_jw_str(w, vramest_last_error_message());
        vx_jw_puts(w, "}");
        return VRAMEST_OK;
    }
    if (rc) return rc;
    vx_jw_printf(w, ",\"value\":%lld,\"fits\":true}", (long long)value);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_spec_plan(const char *json, size_t len, char *buf, size_t cap, size_t *out_needed)
{
    if (!buf && cap) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_spec_plan: buf is NULL but cap is %zu", cap);
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    vx_spec_solve solve;
    int rc = vx_spec_read(json, len, &m, &p, &c, &solve);
    if (rc) return rc;
    struct vramest_config at = *c;
    /* The answer is small (advice: a few KiB); grow once if it is not. */
    char small[8192];
    vx_jw extra = {small, sizeof small, 0};
    char *heap = NULL;
    if (solve.kind != VX_SOLVE_NONE) {
        rc = answer(m, p, c, &solve, &at, &extra);
        if (!rc && extra.len >= sizeof small) {
            heap = malloc(extra.len + 1);
            if (!heap) {
                rc = vx_fail(VRAMEST_E_NOMEM, "vramest_spec_plan: out of memory");
            } else {
                extra = (vx_jw){heap, extra.len + 1, 0};
                rc = answer(m, p, c, &solve, &at, &extra);
            }
        }
        if (!rc) extra.buf[extra.len < extra.cap ? extra.len : extra.cap - 1] = '\0';
    } else {
        small[0] = '\0';
    }
    if (!rc) {
        vramest_result *r = NULL;
        rc = vramest_estimate(m, p, &at, &r);
        if (!rc) rc = vx_result_json_extra(r, extra.buf, buf, cap, out_needed);
        vramest_result_free(r);
    }
    free(heap);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}
