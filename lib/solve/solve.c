/* Fit checks and the max / min solvers. Each runs estimates into a result on
 * the stack with a copy of the config, so a solve allocates nothing and
 * leaves the caller's handles untouched. Memory is monotone in the options
 * searched, which makes doubling + bisection exact: the answer fits and the
 * answer + 1 does not. */
#include <stdio.h>
#include <string.h>

#include "solve/solve.h"

int vx_fit_by(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
              int criterion, struct vramest_result *r, int *fits)
{
    int rc = vx_estimate_into(m, p, c, r);
    if (rc) return rc;
    if (!r->val_ok[VRAMEST_VAL_FITS])
        return vx_fail(VRAMEST_E_UNSUPPORTED, "no device: set `device` (a GPU preset) or `memory_gib` to ask whether it fits");
    *fits = criterion == VX_FIT_BAND ? r->val[VRAMEST_VAL_VERDICT] == VRAMEST_VERDICT_FITS
                                     : (int)r->val[VRAMEST_VAL_FITS];
    return VRAMEST_OK;
}

int vx_fit_at(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *c,
              struct vramest_result *r, int *fits)
{
    return vx_fit_by(m, p, c, VX_FIT_ESTIMATE, r, fits);
}

static int check_inputs(const vramest_model *m, const vramest_config *c, const char *fn)
{
    if (!m) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: model is NULL", fn);
    if (!c) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: config is NULL (a device is needed)", fn);
    if (c->magic != VX_MAGIC_CONFIG) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a vramest_config handle", fn);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_check_fit(const vramest_model *model, const vramest_precision *prec,
                                  const vramest_config *cfg, int *out_fits, int64_t *out_margin_bytes)
{
    int rc = check_inputs(model, cfg, "vramest_check_fit");
    if (rc) return rc;
    if (!out_fits) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_check_fit: out_fits is NULL");
    struct vramest_result r;
    int fits = 0;
    if ((rc = vx_fit_at(model, prec, cfg, &r, &fits))) return rc;
    *out_fits = fits;
    if (out_margin_bytes) {
        uint64_t t = r.val[VRAMEST_VAL_DEVICE_TOTAL], d = r.device_bytes > r.headroom_bytes ? r.device_bytes - r.headroom_bytes : 0;
        *out_margin_bytes = d >= t ? (int64_t)vx_min_u64(d - t, INT64_MAX) : -(int64_t)vx_min_u64(t - d, INT64_MAX);
    }
    return VRAMEST_OK;
}

static const vramest_option solvable[] = {
    VRAMEST_CFG_BATCH_SIZE, VRAMEST_CFG_SEQ_LEN,       VRAMEST_CFG_PROMPT_LEN,    VRAMEST_CFG_GEN_LEN,
    VRAMEST_CFG_BEAMS,      VRAMEST_CFG_LORA_RANK,     VRAMEST_CFG_MAX_NUM_SEQS,  VRAMEST_CFG_MAX_MODEL_LEN,
    VRAMEST_CFG_N_CTX,      VRAMEST_CFG_N_GPU_LAYERS,
    /* mode rl (issue #23) */
    VRAMEST_CFG_ROLLOUT_BATCH_SIZE, VRAMEST_CFG_NUM_GENERATIONS, VRAMEST_CFG_MICRO_BATCH_SIZE,
};

/* The key has the same device_total at its lowest and highest values: a
 * search would answer the bound (or "nothing fits") for a question the mode
 * does not ask. */
static int no_effect(const vx_option_def *d, const struct vramest_config *cfg)
{
    const char *mode = NULL;
    if (vx_opt_get_str(&cfg->v, VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_MODE, &mode) || !mode) mode = "?";
    return vx_fail(VRAMEST_E_UNSUPPORTED, "%s does not change memory in mode %s: nothing to solve", d->name, mode);
}

int vx_solve_max(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *cfg,
                 vramest_option key, int criterion, int64_t *out_value, uint64_t *out_bytes)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    bool ok = false;
    for (size_t i = 0; i < VX_ARRAY_LEN(solvable); i++) ok |= solvable[i] == key;
    if (!d || !ok)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "cannot solve for '%s': valid keys are batch_size, seq_len, prompt_len, gen_len, beams, "
                       "lora_rank, max_num_seqs, max_model_len, n_ctx, n_gpu_layers, rollout_batch_size, num_generations, "
                       "micro_batch_size",
                       d ? d->name : "?");
    struct vramest_config c = *cfg;
    struct vramest_result r;
    int fits = 0, rc;
    /* Options whose 0 means "auto" start the search at 1. */
    int64_t lo = d->min < 1 ? 1 : (int64_t)d->min, hi_bound = (int64_t)d->max;
    /* llama.cpp offloads at most every layer and the output layer: past
     * that, more "layers" change nothing and the bound would be the answer. */
    if (key == VRAMEST_CFG_N_GPU_LAYERS) hi_bound = m->shape.layers + 1;
    if ((rc = vx_opt_set_i64(&c.v, c.set_bits, VRAMEST_HANDLE_CONFIG, key, lo))) return rc;
    if ((rc = vx_fit_by(m, p, &c, criterion, &r, &fits))) return rc;
    if (!fits) {
        /* A key that does not change memory in this mode is the first thing
         * to say, not "no value fits" (gen_len of a training job). */
        uint64_t at_lo = r.val[VRAMEST_VAL_DEVICE_TOTAL];
        struct vramest_config probe = c;
        struct vramest_result pr;
        int pf = 0;
        if (hi_bound > lo && !vx_opt_set_i64(&probe.v, probe.set_bits, VRAMEST_HANDLE_CONFIG, key, hi_bound) &&
            !vx_fit_by(m, p, &probe, criterion, &pr, &pf) && pr.val[VRAMEST_VAL_DEVICE_TOTAL] == at_lo)
            return no_effect(d, cfg);
        char need[32], have[32];
        vx_format_bytes(criterion == VX_FIT_BAND ? r.val_high[VRAMEST_VAL_DEVICE_TOTAL] : r.val[VRAMEST_VAL_DEVICE_TOTAL],
                        need, sizeof need);
        vx_format_bytes(r.device_bytes > r.headroom_bytes ? r.device_bytes - r.headroom_bytes : 0, have, sizeof have);
        return vx_fail(VRAMEST_E_DOES_NOT_FIT, "does not fit even at %s %lld: needs %s%s, has %s%s", d->name,
                       (long long)lo, need, criterion == VX_FIT_BAND ? " at the band's high end" : "", have,
                       r.headroom_bytes ? " after the headroom" : "");
    }
    uint64_t lo_bytes = r.val[VRAMEST_VAL_DEVICE_TOTAL], first_bytes = lo_bytes;
    /* Doubling finds a value that does not fit; bisection closes the gap. */
    int64_t hi = lo;
    for (;;) {
        int64_t next = hi > hi_bound / 2 ? hi_bound : hi * 2;
        if (next == hi) { /* the bound itself fits */
            if (r.val[VRAMEST_VAL_DEVICE_TOTAL] == first_bytes)
                return no_effect(d, cfg);
            *out_value = hi;
            if (out_bytes) *out_bytes = lo_bytes;
            return VRAMEST_OK;
        }
        if ((rc = vx_opt_set_i64(&c.v, c.set_bits, VRAMEST_HANDLE_CONFIG, key, next))) return rc;
        rc = vx_fit_by(m, p, &c, criterion, &r, &fits);
        if (rc == VRAMEST_E_OVERFLOW) fits = 0, rc = VRAMEST_OK;
        if (rc) return rc;
        if (!fits) {
            lo = hi;
            hi = next;
            break;
        }
        hi = next;
        lo_bytes = r.val[VRAMEST_VAL_DEVICE_TOTAL];
    }
    /* Invariant: lo fits, hi does not. */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((rc = vx_opt_set_i64(&c.v, c.set_bits, VRAMEST_HANDLE_CONFIG, key, mid))) return rc;
        rc = vx_fit_by(m, p, &c, criterion, &r, &fits);
        if (rc == VRAMEST_E_OVERFLOW) fits = 0, rc = VRAMEST_OK;
        if (rc) return rc;
        if (fits)
            lo = mid, lo_bytes = r.val[VRAMEST_VAL_DEVICE_TOTAL];
        else
            hi = mid;
    }
    *out_value = lo;
    if (out_bytes) *out_bytes = lo_bytes;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_solve_max(const vramest_model *model, const vramest_precision *prec,
                                  const vramest_config *cfg, vramest_option key, int64_t *out_value,
                                  uint64_t *out_bytes)
{
    int rc = check_inputs(model, cfg, "vramest_solve_max");
    if (rc) return rc;
    if (!out_value) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_solve_max: out_value is NULL");
    return vx_solve_max(model, prec, cfg, key, VX_FIT_ESTIMATE, out_value, out_bytes);
}

/* Estimate with one layout dimension (tp, pp or dp) at `k` and the others
 * as configured. *fits = -1 when the model cannot take that layout (tp not
 * dividing the heads, pp beyond the layers): skipped, not an error. */
static int fit_dim(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *cfg,
                   vramest_option dim, int64_t k, int64_t max_gpus, int criterion, struct vramest_config *c, int *fits)
{
    const vx_config_values *v = &cfg->v;
    int64_t tp = dim == VRAMEST_CFG_TP ? k : v->tp, pp = dim == VRAMEST_CFG_PP ? k : v->pp;
    int64_t dp = dim == VRAMEST_CFG_DP ? k : (v->dp ? v->dp : 1);
    uint64_t gpus;
    *fits = -1;
    if (!vx_mul((uint64_t)tp, (uint64_t)pp, &gpus) || !vx_mul(gpus, (uint64_t)(v->cp * dp), &gpus) ||
        gpus > (uint64_t)max_gpus)
        return VRAMEST_E_RANGE;
    *c = *cfg;
    int rc = vx_opt_set_i64(&c->v, c->set_bits, VRAMEST_HANDLE_CONFIG, dim, k);
    if (!rc) rc = vx_opt_set_i64(&c->v, c->set_bits, VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_DP, dp);
    if (!rc) rc = vx_opt_set_i64(&c->v, c->set_bits, VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_GPUS, (int64_t)gpus);
    if (rc) return rc;
    struct vramest_result r;
    rc = vx_fit_by(m, p, c, criterion, &r, fits);
    if (rc == VRAMEST_E_CONFLICT || rc == VRAMEST_E_RANGE || rc == VRAMEST_E_INVALID_MODEL) {
        *fits = -1;
        return VRAMEST_OK;
    }
    return rc;
}

/* Grow one layout dimension until the job fits. The candidates are bounded
 * so that a hostile spec cannot make a solve run for minutes: tp over the
 * divisors of the attention heads, pp over 1, 2, 3, 4, 6, 8, 12, ... (the
 * splits people run) up to the layers, and dp — where ZeRO/FSDP make memory
 * fall monotonically with more ranks — by doubling, then bisection. */
static int try_dim(const struct vramest_model *m, const struct vramest_precision *p, const struct vramest_config *cfg,
                   vramest_option dim, int64_t max_gpus, int criterion, int64_t *out_gpus, struct vramest_config *out_cfg,
                   int *found)
{
    struct vramest_config c;
    int fits = 0, rc;
    *found = 0;
    if (dim == VRAMEST_CFG_DP) {
        int64_t lo = 0, hi = 1; /* lo: largest known not to fit (0 = none), hi: candidate */
        for (;;) {
            rc = fit_dim(m, p, cfg, dim, hi, max_gpus, criterion, &c, &fits);
            if (rc == VRAMEST_E_RANGE) break; /* beyond max_gpus: try the bound below */
            if (rc) return rc;
            if (fits == 1) break;
            lo = hi;
            if (hi > INT64_MAX / 2) return VRAMEST_OK;
            hi *= 2;
        }
        if (fits != 1) { /* the doubling overshot max_gpus: bisect up to the largest dp allowed */
            int64_t per = cfg->v.tp * cfg->v.pp * cfg->v.cp;
            hi = max_gpus / (per > 0 ? per : 1);
            if (hi <= lo || fit_dim(m, p, cfg, dim, hi, max_gpus, criterion, &c, &fits) || fits != 1) return VRAMEST_OK;
        }
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if ((rc = fit_dim(m, p, cfg, dim, mid, max_gpus, criterion, &c, &fits))) return rc;
            if (fits == 1)
                hi = mid;
            else
                lo = mid;
        }
        if ((rc = fit_dim(m, p, cfg, dim, hi, max_gpus, criterion, &c, &fits))) return rc;
        *out_gpus = c.v.gpus;
        if (out_cfg) *out_cfg = c;
        *found = fits == 1;
        return VRAMEST_OK;
    }
    const vx_shape *s = &m->shape;
    /* Real pipelines stop well before 1024 stages; the bound keeps a solve
     * over a hostile 100,000-layer spec to a few dozen estimates. */
    int64_t depth = s->layers + s->enc_layers;
    /* A tensor-parallel group stays inside a node: its all-reduces run in
     * every layer and need the NVLink domain, so no one launches tp 32. */
    int64_t tp_limit = s->heads < cfg->v.gpus_per_node ? s->heads : cfg->v.gpus_per_node;
    int64_t limit = dim == VRAMEST_CFG_TP ? tp_limit : (depth < 1024 ? depth : 1024);
    for (int64_t k = 1; k <= limit;) {
        rc = fit_dim(m, p, cfg, dim, k, max_gpus, criterion, &c, &fits);
        if (rc == VRAMEST_E_RANGE) return VRAMEST_OK; /* the world size passed max_gpus */
        if (rc) return rc;
        if (fits == 1) {
            *out_gpus = c.v.gpus;
            if (out_cfg) *out_cfg = c;
            *found = 1;
            return VRAMEST_OK;
        }
        if (dim == VRAMEST_CFG_TP) { /* next divisor of the heads */
            do k++;
            while (k <= limit && s->heads % k);
        } else { /* 1, 2, 3, 4, 6, 8, 12, 16, 24, ... */
            k = k < 2 ? 2 : (k & (k - 1)) == 0 ? k + k / 2 : k + k / 3;
        }
    }
    return VRAMEST_OK;
}

/* Beyond one node's tensor parallelism: pipeline stages over nodes, each
 * stage a tensor-parallel group of the node's size (the largest divisor of
 * the heads within gpus_per_node). Replaces the answer found so far when it
 * needs fewer GPUs (pp alone may need more stages than tp x pp GPUs). */
static int pipeline_over_nodes(const struct vramest_model *m, const struct vramest_precision *p,
                               const struct vramest_config *cfg, int64_t max_gpus, int criterion,
                               struct vramest_config *out_cfg, int64_t *out_gpus, int *found)
{
    int64_t tp = m->shape.heads < cfg->v.gpus_per_node ? m->shape.heads : cfg->v.gpus_per_node;
    while (tp > 1 && m->shape.heads % tp) tp--;
    if (tp <= 1) return VRAMEST_OK;
    struct vramest_config node = *cfg, c;
    int rc = vx_opt_set_i64(&node.v, node.set_bits, VRAMEST_HANDLE_CONFIG, VRAMEST_CFG_TP, tp);
    if (rc) return rc;
    int64_t gpus = 0;
    int ok = 0;
    if ((rc = try_dim(m, p, &node, VRAMEST_CFG_PP, max_gpus, criterion, &gpus, &c, &ok))) return rc;
    if (ok && (!*found || gpus < *out_gpus)) {
        *out_gpus = gpus;
        if (out_cfg) *out_cfg = c;
        *found = 1;
    }
    return VRAMEST_OK;
}

int vx_solve_min_gpus(const struct vramest_model *model, const struct vramest_precision *prec,
                      const struct vramest_config *cfg, int64_t max_gpus, int criterion, struct vramest_config *out_cfg,
                      int64_t *out_gpus)
{
    if (max_gpus < 1 || max_gpus > 10000000)
        return vx_fail(VRAMEST_E_RANGE, "vramest_solve_min_gpus: max_gpus %lld out of range [1, 10000000]",
                       (long long)max_gpus);
    const vx_config_values *v = &cfg->v;
    vramest_option dims[2];
    size_t nd = 0;
    if (v->mode == VX_MODE_INFER || v->mode == VX_MODE_LOAD) {
        dims[nd++] = VRAMEST_CFG_TP;
    } else if (v->zero_stage > 0 || v->fsdp != VX_FSDP_NONE) {
        dims[nd++] = VRAMEST_CFG_DP;
    } else {
        dims[nd++] = VRAMEST_CFG_TP;
        dims[nd++] = VRAMEST_CFG_PP;
    }
    int found = 0, rc;
    size_t i = 0;
    for (; i < nd && !found; i++)
        if ((rc = try_dim(model, prec, cfg, dims[i], max_gpus, criterion, out_gpus, out_cfg, &found))) return rc;
    /* tp within a node did not fit, or pp alone did at some count */
    int by_tp = found && dims[i - 1] == VRAMEST_CFG_TP;
    if (dims[0] == VRAMEST_CFG_TP && !by_tp &&
        (rc = pipeline_over_nodes(model, prec, cfg, max_gpus, criterion, out_cfg, out_gpus, &found)))
        return rc;
    if (found) return VRAMEST_OK;
    if (v->mode == VX_MODE_TRAIN && v->zero_stage == 0 && v->fsdp == VX_FSDP_NONE)
        return vx_fail(VRAMEST_E_DOES_NOT_FIT,
                       "no tensor/pipeline layout up to %lld GPUs fits; plain data parallelism replicates the model, "
                       "so set zero_stage or fsdp to let more GPUs share it",
                       (long long)max_gpus);
    return vx_fail(VRAMEST_E_DOES_NOT_FIT, "does not fit on up to %lld GPUs", (long long)max_gpus);
}

VRAMEST_API int vramest_solve_min_gpus(const vramest_model *model, const vramest_precision *prec,
                                       const vramest_config *cfg, int64_t max_gpus, int64_t *out_gpus)
{
    int rc = check_inputs(model, cfg, "vramest_solve_min_gpus");
    if (rc) return rc;
    if (!out_gpus) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_solve_min_gpus: out_gpus is NULL");
    return vx_solve_min_gpus(model, prec, cfg, max_gpus, VX_FIT_ESTIMATE, NULL, out_gpus);
}

int vx_solve_min_fraction(const struct vramest_model *m, const struct vramest_precision *p,
                          const struct vramest_config *cfg, vramest_option key, int criterion, double *out)
{
    int fw = (int)cfg->v.framework;
    bool ok = (key == VRAMEST_CFG_GPU_MEMORY_UTILIZATION && fw == VX_FW_VLLM) ||
              (key == VRAMEST_CFG_MEM_FRACTION_STATIC && fw == VX_FW_SGLANG);
    if (!ok)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "the smallest fraction is asked of gpu_memory_utilization (framework vllm) or "
                       "mem_fraction_static (framework sglang)");
    struct vramest_config c = *cfg;
    struct vramest_result r;
    int fits = 0, rc;
    /* The context must be served whole: vLLM refuses a shorter pool itself,
     * SGLang starts and caps each request, which does not serve it. */
    uint64_t ctx = (uint64_t)(cfg->v.max_model_len > 0 ? cfg->v.max_model_len : m->shape.max_pos);
    for (int k = 1; k <= 100; k++) {
        if ((rc = vx_opt_set_f64(&c.v, c.set_bits, VRAMEST_HANDLE_CONFIG, key, k / 100.0))) return rc;
        if ((rc = vx_fit_by(m, p, &c, criterion, &r, &fits))) return rc;
        if (fits && r.val[VRAMEST_VAL_MAX_TOKENS] >= ctx) {
            *out = k / 100.0;
            return VRAMEST_OK;
        }
    }
    return vx_fail(VRAMEST_E_DOES_NOT_FIT, "does not fit at any %s from 0.01 to 1.00",
                   key == VRAMEST_CFG_GPU_MEMORY_UTILIZATION ? "gpu_memory_utilization" : "mem_fraction_static");
}
