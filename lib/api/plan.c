/* The plan: a job (from handles, or a job spec) in, its JSON plan out, with
 * the answer to its question and, when it does not fit, the fix. Reading
 * the spec (spec/spec.c), answering (solve/) and estimating are separate
 * floors; these entry points put them together, so vramest_plan_json(),
 * vramest_spec_plan() and vramest_spec_plan_cached() write the same plan for
 * the same job. The _cached calls take the model from a cache handle
 * (model_cache.c). */
#include <stdbool.h>
#include <stdlib.h>

#include "api/model_cache.h"
#include "solve/solve.h"
#include "spec/spec.h"

typedef struct question {
    int kind;           /* VRAMEST_ASK_* */
    vramest_option key; /* what a MAX / MIN question searches */
    const char *name;   /* its name in the plan */
} question;

/* The engine's share of the GPU: a smallest value in hundredths. */
static bool is_fraction(vramest_option key)
{
    return key == VRAMEST_CFG_GPU_MEMORY_UTILIZATION || key == VRAMEST_CFG_MEM_FRACTION_STATIC;
}

/* "safe_value": the same search with the band's high end as the measure. */
static void safe_value(const vramest_model *m, const vramest_precision *p, const vramest_config *c,
                       const question *q, vx_jw *w)
{
    int64_t safe = 0;
    struct vramest_config grown;
    if (is_fraction(q->key)) {
        double f = 0;
        if (vx_solve_min_fraction(m, p, c, q->key, VX_FIT_BAND, &f))
            vx_jw_puts(w, ",\"safe_value\":null");
        else
            vx_jw_printf(w, ",\"safe_value\":%.2f", f);
        return;
    }
    int rc = q->key == VRAMEST_CFG_GPUS ? vx_solve_min_gpus(m, p, c, 65536, VX_FIT_BAND, &grown, &safe)
                                        : vx_solve_max(m, p, c, q->key, VX_FIT_BAND, &safe, NULL);
    if (rc)
        vx_jw_puts(w, ",\"safe_value\":null");
    else
        vx_jw_printf(w, ",\"safe_value\":%lld", (long long)safe);
}

/* The answer to the question, as extra plan members, and the configuration
 * the plan should describe (the one at the answer). */
static int answer(const vramest_model *m, const vramest_precision *p, const vramest_config *c, const question *q,
                  struct vramest_config *at, vx_jw *w)
{
    *at = *c;
    if (q->kind == VRAMEST_ASK_ADVICE) {
        vx_jw_puts(w, "\"advice\":");
        return vx_advise(m, p, c, w);
    }
    int64_t value = 0;
    double fvalue = 0;
    int rc;
    if (is_fraction(q->key)) {
        if (!(rc = vx_solve_min_fraction(m, p, c, q->key, VX_FIT_ESTIMATE, &fvalue)))
            rc = vx_opt_set_f64(&at->v, at->set_bits, VRAMEST_HANDLE_CONFIG, q->key, fvalue);
    } else if (q->key == VRAMEST_CFG_GPUS)
        rc = vx_solve_min_gpus(m, p, c, 65536, VX_FIT_ESTIMATE, at, &value);
    else if (!(rc = vx_solve_max(m, p, c, q->key, VX_FIT_ESTIMATE, &value, NULL)))
        rc = vx_opt_set_i64(&at->v, at->set_bits, VRAMEST_HANDLE_CONFIG, q->key, value);
    vx_jw_puts(w, "\"solution\":{\"key\":");
    vx_jw_str(w, q->name);
    if (rc == VRAMEST_E_DOES_NOT_FIT) {
        /* Nothing fits: the plan describes the configuration as given, and
         * says why no value was found. */
        vx_jw_puts(w, ",\"value\":null,\"fits\":false,\"safe_value\":null,\"reason\":");
        vx_jw_str(w, vramest_last_error_message());
        vx_jw_puts(w, "}");
        return VRAMEST_OK;
    }
    if (rc) return rc;
    if (is_fraction(q->key))
        vx_jw_printf(w, ",\"value\":%.2f,\"fits\":true", fvalue);
    else
        vx_jw_printf(w, ",\"value\":%lld,\"fits\":true", (long long)value);
    safe_value(m, p, c, q, w);
    vx_jw_puts(w, "}");
    return VRAMEST_OK;
}

/* The plan of (m, p, c) answering `q`: the answer is small (advice: a few
 * KiB) and written to the stack; the heap only when it is not. */
static int plan(const vramest_model *m, const vramest_precision *p, const vramest_config *c, const question *q,
                char *buf, size_t cap, size_t *out_needed)
{
    /* The configuration at the answer: a copy only when a question changes it. */
    struct vramest_config at;
    const struct vramest_config *use = c;
    char small[8192];
    vx_jw extra = {small, sizeof small, 0};
    char *heap = NULL;
    int rc = VRAMEST_OK;
    small[0] = '\0';
    if (q->kind != VRAMEST_ASK_NONE) {
        rc = answer(m, p, c, q, &at, &extra);
        if (!rc && extra.len >= sizeof small) {
            heap = malloc(extra.len + 1);
            if (!heap) {
                rc = vx_fail(VRAMEST_E_NOMEM, "vramest_plan_json: out of memory");
            } else {
                extra = (vx_jw){heap, extra.len + 1, 0};
                rc = answer(m, p, c, q, &at, &extra);
            }
        }
        if (!rc) extra.buf[extra.len < extra.cap ? extra.len : extra.cap - 1] = '\0';
        use = &at;
    }
    struct vramest_result *r = NULL;
    if (!rc) rc = vramest_estimate(m, p, use, &r);
    if (!rc) {
        /* A job that does not fit (or only at its band's low end) comes
         * with the change that makes it fit. */
        vx_fix fix, *pfix = NULL;
        char text[128], change[256];
        if (r->val_ok[VRAMEST_VAL_VERDICT] && r->val[VRAMEST_VAL_VERDICT] != VRAMEST_VERDICT_FITS && !r->refused &&
            !vx_find_fix(m, p, use, &fix, text, sizeof text, change, sizeof change))
            pfix = &fix;
        rc = vx_result_json_extra(r, pfix, extra.buf, buf, cap, out_needed);
    }
    vramest_result_free(r);
    free(heap);
    return rc;
}

VRAMEST_API int vramest_plan_json(const vramest_model *model, const vramest_precision *prec,
                                  const vramest_config *cfg, int question_kind, vramest_option key, char *buf,
                                  size_t cap, size_t *out_needed)
{
    if (!buf && cap) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_plan_json: buf is NULL but cap is %zu", cap);
    if (!model) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_plan_json: model is NULL");
    if (cfg && cfg->magic != VX_MAGIC_CONFIG)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_plan_json: cfg is not a vramest_config handle");
    struct vramest_config cdef;
    if (!cfg) vx_config_init(&cdef), cfg = &cdef;
    question q = {question_kind, key, NULL};
    switch (question_kind) {
    case VRAMEST_ASK_NONE:
    case VRAMEST_ASK_ADVICE: break;
    case VRAMEST_ASK_MIN:
        if (key != VRAMEST_CFG_GPUS && !is_fraction(key))
            return vx_fail(VRAMEST_E_UNSUPPORTED, "vramest_plan_json: the smallest value is asked of gpus, "
                                                  "gpu_memory_utilization and mem_fraction_static only");
        /* fall through */
    case VRAMEST_ASK_MAX: {
        const vx_option_def *d = vx_option_find(key, NULL);
        if (!d) return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "vramest_plan_json: unknown option key %d", (int)key);
        q.name = d->name;
        break;
    }
    default: return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_plan_json: unknown question %d", question_kind);
    }
    return plan(model, prec, cfg, &q, buf, cap, out_needed);
}

/* A spec's "solve" question as the plan asks it. */
static question question_of(const vx_spec_solve *solve)
{
    return (question){solve->kind == VX_SOLVE_ADVICE ? VRAMEST_ASK_ADVICE
                      : solve->kind == VX_SOLVE_MAX  ? VRAMEST_ASK_MAX
                                                     : VRAMEST_ASK_NONE,
                      solve->key, solve->name};
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
    question q = question_of(&solve);
    rc = plan(m, p, c, &q, buf, cap, out_needed);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}

/* A spec read with its model from the cache: the handles and the lease are
 * the caller's to release (release_cached) whatever this returns. */
typedef struct cached_spec {
    vx_jdoc doc;
    vramest_precision *p;
    vramest_config *c;
    vx_spec_solve solve;
    const vramest_model *m;
    vx_lease *lease;
} cached_spec;

static int read_cached(vramest_cache *cache, const char *json, size_t len, cached_spec *s, const char *fn)
{
    s->p = NULL, s->c = NULL, s->m = NULL, s->lease = NULL;
    int rc = vx_cache_check(cache, fn);
    if (rc) {
        s->doc.v = NULL, s->doc.str = NULL;
        return rc;
    }
    /* The same reading, in the same order, as vx_spec_read: the model last. */
    if ((rc = vx_spec_open(&s->doc, json, len))) return rc;
    if ((rc = vx_spec_settings(&s->doc, &s->p, &s->c, &s->solve))) return rc;
    return vx_cache_get(cache, &s->doc, vx_jget(&s->doc, vx_jroot(&s->doc), "model"), &s->m, &s->lease);
}

static void release_cached(vramest_cache *cache, cached_spec *s)
{
    vx_cache_put(cache, s->lease);
    vramest_precision_free(s->p);
    vramest_config_free(s->c);
    vx_json_free(&s->doc);
}

VRAMEST_API int vramest_spec_plan_cached(vramest_cache *cache, const char *json, size_t len, char *buf, size_t cap,
                                         size_t *out_needed)
{
    if (!buf && cap)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_spec_plan_cached: buf is NULL but cap is %zu", cap);
    cached_spec s;
    int rc = read_cached(cache, json, len, &s, "vramest_spec_plan_cached");
    if (!rc) {
        question q = question_of(&s.solve);
        rc = plan(s.m, s.p, s.c, &q, buf, cap, out_needed);
    }
    release_cached(cache, &s);
    return rc;
}

VRAMEST_API int vramest_spec_estimate_cached(vramest_cache *cache, const char *json, size_t len,
                                             vramest_result **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_spec_estimate_cached: out is NULL");
    *out = NULL;
    cached_spec s;
    int rc = read_cached(cache, json, len, &s, "vramest_spec_estimate_cached");
    if (!rc && s.solve.kind != VX_SOLVE_NONE)
        rc = vx_fail(VRAMEST_E_UNSUPPORTED, "vramest_spec_estimate_cached: the spec asks \"solve\"; its answer is a "
                                            "plan member (vramest_spec_plan_cached)");
    if (!rc) rc = vramest_estimate(s.m, s.p, s.c, out);
    release_cached(cache, &s);
    return rc;
}
