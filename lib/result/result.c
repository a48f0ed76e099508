/* The result handle: immutable getters, and the derivation of the headline
 * figures from the categories so that their sums always agree. */
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "result/names.h"
#include "result/result.h"

void vx_result_warn(struct vramest_result *r, const char *fmt, ...)
{
    if (r->n_warn >= VX_MAX_WARN) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->warn[r->n_warn++], VX_WARN_LEN, fmt, ap);
    va_end(ap);
}

void vx_result_refuse(struct vramest_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->refusal, VX_WARN_LEN, fmt, ap);
    va_end(ap);
    r->refused = 1;
}

void vx_result_add(struct vramest_result *r, int dev, int cat, uint64_t bytes, uint64_t low, uint64_t high, int prov)
{
    r->cat[dev][cat] = vx_sat_add(r->cat[dev][cat], bytes);
    r->cat_low[dev][cat] = vx_sat_add(r->cat_low[dev][cat], low < bytes ? low : bytes);
    r->cat_high[dev][cat] = vx_sat_add(r->cat_high[dev][cat], high > bytes ? high : bytes);
    if (prov > r->prov[dev][cat]) r->prov[dev][cat] = (uint8_t)prov;
    r->touched[dev] |= 1u << cat;
}

/* Allocated, reserved and device total of one device's categories. */
static void sum_device(const uint64_t cat[VX_NCAT], uint32_t touched, uint64_t *alloc, uint64_t *reserved,
                       uint64_t *total)
{
    uint64_t a = 0;
    uint32_t counted = touched & ~(1u << VRAMEST_CAT_FRAMEWORK | 1u << VRAMEST_CAT_ALLOCATOR);
    for (uint32_t b = counted; b; b &= b - 1) a = vx_sat_add(a, cat[__builtin_ctz(b)]);
    *alloc = a;
    *reserved = vx_sat_add(a, cat[VRAMEST_CAT_ALLOCATOR]);
    *total = vx_sat_add(*reserved, cat[VRAMEST_CAT_FRAMEWORK]);
}

void vx_result_begin(struct vramest_result *r)
{
    memset(r, 0, offsetof(struct vramest_result, warn));
    r->n_timeline = 0;
    r->n_ranks = 0;
    r->cuda_context_bytes = 0;
    r->rl.on = 0;
    /* The stack assumed is read up to its note count and the finishing
     * figures are set late: a result on the stack (the RL phases' own
     * estimates) starts with garbage there. */
    memset(&r->rrt, 0, offsetof(vx_result_runtime, notes));
    r->has_file_inv = 0;
    r->headroom_bytes = 0;
    r->band_kind = 0;
    r->magic = VX_MAGIC_RESULT;
}

void vx_result_finish(struct vramest_result *r)
{
    /* Only categories something was added to can hold bytes or a band. */
    for (int d = 0; d < VX_NDEV; d++)
        for (uint32_t b = r->touched[d]; b; b &= b - 1) {
            int c = __builtin_ctz(b);
            uint64_t v = r->cat[d][c], lo = r->cat_low[d][c], hi = r->cat_high[d][c];
            /* A category without an explicit band is as certain as its value. */
            if (!lo && !hi) lo = hi = v;
            if (lo > v) lo = v;
            if (hi < v) hi = v;
            r->cat_low[d][c] = lo;
            r->cat_high[d][c] = hi;
            if (v && !r->prov[d][c]) r->prov[d][c] = VRAMEST_PROV_FORMULA;
        }
    static const int heads[] = {VRAMEST_VAL_PEAK_ALLOCATED, VRAMEST_VAL_PEAK_RESERVED, VRAMEST_VAL_DEVICE_TOTAL};
    sum_device(r->cat[VRAMEST_DEV_GPU], r->touched[VRAMEST_DEV_GPU], &r->val[heads[0]], &r->val[heads[1]],
               &r->val[heads[2]]);
    for (int k = 0; k < 3; k++) r->val_ok[heads[k]] = 1;
    vx_result_bands(r);

    uint64_t h = 0, n = 0;
    for (uint32_t b = r->touched[VRAMEST_DEV_HOST]; b; b &= b - 1)
        h = vx_sat_add(h, r->cat[VRAMEST_DEV_HOST][__builtin_ctz(b)]);
    for (uint32_t b = r->touched[VRAMEST_DEV_NVME]; b; b &= b - 1)
        n = vx_sat_add(n, r->cat[VRAMEST_DEV_NVME][__builtin_ctz(b)]);
    r->val[VRAMEST_VAL_HOST_TOTAL] = h;
    r->val[VRAMEST_VAL_NVME_TOTAL] = n;
    r->val_ok[VRAMEST_VAL_HOST_TOTAL] = r->val_ok[VRAMEST_VAL_NVME_TOTAL] = 1;
    r->val[VRAMEST_VAL_DEVICE_CAPACITY] = r->device_bytes;
    r->val_ok[VRAMEST_VAL_DEVICE_CAPACITY] = 1;
    /* The headroom is the user's: memory the job must leave free. */
    double head = r->cfg.headroom_gib * (double)VX_GIB + r->cfg.headroom_fraction * (double)r->device_bytes;
    r->headroom_bytes = head >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)head;
    r->val[VRAMEST_VAL_HEADROOM] = r->headroom_bytes;
    r->val_ok[VRAMEST_VAL_HEADROOM] = 1;
    if (r->device_bytes) {
        uint64_t usable = r->device_bytes > r->headroom_bytes ? r->device_bytes - r->headroom_bytes : 0;
        uint64_t t = r->val[VRAMEST_VAL_DEVICE_TOTAL], lo = r->val_low[VRAMEST_VAL_DEVICE_TOTAL];
        uint64_t hi = r->val_high[VRAMEST_VAL_DEVICE_TOTAL];
        r->val[VRAMEST_VAL_FITS] = !r->refused && t <= usable;
        r->val[VRAMEST_VAL_VERDICT] = r->refused ? VRAMEST_VERDICT_DOES_NOT_FIT
                                      : hi <= usable ? VRAMEST_VERDICT_FITS
                                      : lo <= usable ? VRAMEST_VERDICT_FITS_LOW_END
                                                     : VRAMEST_VERDICT_DOES_NOT_FIT;
        r->val_ok[VRAMEST_VAL_FITS] = r->val_ok[VRAMEST_VAL_VERDICT] = 1;
    }
    r->val_ok[VRAMEST_VAL_PARAMS_TOTAL] = r->val_ok[VRAMEST_VAL_PARAMS_TRAINABLE] = 1;
    r->val_ok[VRAMEST_VAL_PARAMS_ACTIVE] = r->val_ok[VRAMEST_VAL_PEAK_PHASE] = 1;
    r->val_ok[VRAMEST_VAL_CHECKPOINT_BYTES] = 1;
    for (int k = 0; k < VX_NVAL; k++)
        if (!r->val_low[k] && !r->val_high[k]) r->val_low[k] = r->val_high[k] = r->val[k];
}

static int check(const vramest_result *r, const char *fn)
{
    if (!r) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: result is NULL", fn);
    if (r->magic != VX_MAGIC_RESULT) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a vramest_result handle", fn);
    return VRAMEST_OK;
}

static int check_cat(const vramest_result *r, vramest_device dev, vramest_category cat, const void *out,
                     const char *fn)
{
    int rc = check(r, fn);
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: out is NULL", fn);
    if ((unsigned)dev >= VX_NDEV) return vx_fail(VRAMEST_E_UNKNOWN_CATEGORY, "%s: unknown device %d", fn, (int)dev);
    if ((unsigned)cat >= VX_NCAT)
        return vx_fail(VRAMEST_E_UNKNOWN_CATEGORY, "%s: unknown category %d (there are %d)", fn, (int)cat, VX_NCAT);
    return VRAMEST_OK;
}

VRAMEST_API void vramest_result_free(vramest_result *res)
{
    if (!res || res->magic != VX_MAGIC_RESULT) return;
    res->magic = VX_MAGIC_DEAD;
    free(res);
}

VRAMEST_API int vramest_result_get(const vramest_result *res, vramest_device dev, vramest_category cat,
                                   uint64_t *out_bytes)
{
    int rc = check_cat(res, dev, cat, out_bytes, "vramest_result_get");
    if (rc) return rc;
    *out_bytes = res->cat[dev][cat];
    return VRAMEST_OK;
}

VRAMEST_API int vramest_result_get_band(const vramest_result *res, vramest_device dev, vramest_category cat,
                                        uint64_t *out_low, uint64_t *out_high)
{
    int rc = check_cat(res, dev, cat, out_low, "vramest_result_get_band");
    if (rc) return rc;
    if (!out_high) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_get_band: out_high is NULL");
    *out_low = res->cat_low[dev][cat];
    *out_high = res->cat_high[dev][cat];
    return VRAMEST_OK;
}

VRAMEST_API int vramest_result_provenance(const vramest_result *res, vramest_device dev, vramest_category cat,
                                          int *out)
{
    int rc = check_cat(res, dev, cat, out, "vramest_result_provenance");
    if (rc) return rc;
    *out = res->prov[dev][cat];
    return VRAMEST_OK;
}

VRAMEST_API int vramest_result_get_all(const vramest_result *res, vramest_device dev, uint64_t *out_bytes,
                                       size_t capacity, size_t *out_count)
{
    int rc = check(res, "vramest_result_get_all");
    if (rc) return rc;
    if ((unsigned)dev >= VX_NDEV)
        return vx_fail(VRAMEST_E_UNKNOWN_CATEGORY, "vramest_result_get_all: unknown device %d", (int)dev);
    if (out_count) *out_count = VX_NCAT;
    if (capacity < VX_NCAT || !out_bytes)
        return vx_fail(VRAMEST_E_BUFFER_TOO_SMALL, "vramest_result_get_all: capacity %zu < %d categories", capacity,
                       VX_NCAT);
    for (int c = 0; c < VX_NCAT; c++) out_bytes[c] = res->cat[dev][c];
    return VRAMEST_OK;
}

static int check_val(const vramest_result *r, vramest_value key, const void *out, const char *fn)
{
    int rc = check(r, fn);
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: out is NULL", fn);
    if ((unsigned)key >= VX_NVAL) return vx_fail(VRAMEST_E_UNKNOWN_CATEGORY, "%s: unknown value %d", fn, (int)key);
    if (!r->val_ok[key])
        return vx_fail(VRAMEST_E_UNSUPPORTED, "%s: '%s' does not apply to this estimate%s", fn, vx_value_names[key],
                       key == VRAMEST_VAL_FITS ? " (no device given)" : "");
    return VRAMEST_OK;
}

VRAMEST_API int vramest_result_value(const vramest_result *res, vramest_value key, uint64_t *out)
{
    int rc = check_val(res, key, out, "vramest_result_value");
    if (rc) return rc;
    *out = res->val[key];
    return VRAMEST_OK;
}

VRAMEST_API int vramest_result_value_band(const vramest_result *res, vramest_value key, uint64_t *out_low,
                                          uint64_t *out_high)
{
    int rc = check_val(res, key, out_low, "vramest_result_value_band");
    if (rc) return rc;
    if (!out_high) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_result_value_band: out_high is NULL");
    *out_low = res->val_low[key];
    *out_high = res->val_high[key];
    return VRAMEST_OK;
}

VRAMEST_API uint32_t vramest_result_warning_count(const vramest_result *res)
{
    return res && res->magic == VX_MAGIC_RESULT ? res->n_warn : 0;
}

VRAMEST_API const char *vramest_result_warning(const vramest_result *res, uint32_t index)
{
    if (!res || res->magic != VX_MAGIC_RESULT || index >= res->n_warn) return NULL;
    return res->warn[index];
}
