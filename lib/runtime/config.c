/* The workload configuration handle: public new/clone/free/set/get/reset. */
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "runtime/gpus.h"

#define H VRAMEST_HANDLE_CONFIG

const vx_layout vx_config_layout = {sizeof(vx_config_values),
                                    3,
                                    {VX_LAYOUT_STR(vx_config_values, lora_targets),
                                     VX_LAYOUT_STR(vx_config_values, device),
                                     VX_LAYOUT_STR(vx_config_values, max_memory)}};

/* Holes go in increasing offset order. */
_Static_assert(offsetof(vx_config_values, batch_size) < offsetof(vx_config_values, seq_len) &&
                   offsetof(vx_config_values, seq_len) < offsetof(vx_config_values, lora_targets) &&
                   offsetof(vx_config_values, lora_targets) < offsetof(vx_config_values, device) &&
                   offsetof(vx_config_values, device) < offsetof(vx_config_values, max_memory),
               "vx_config_layout lists its holes by offset");
const vx_layout vx_config_key_layout = {
    sizeof(vx_config_values),
    5,
    {VX_LAYOUT_SKIP(vx_config_values, batch_size), VX_LAYOUT_SKIP(vx_config_values, seq_len),
     VX_LAYOUT_STR(vx_config_values, lora_targets), VX_LAYOUT_STR(vx_config_values, device),
     VX_LAYOUT_STR(vx_config_values, max_memory)}};

void vx_config_init(struct vramest_config *c)
{
    memset(c, 0, sizeof *c);
    c->magic = VX_MAGIC_CONFIG;
    vx_opt_defaults(&c->v, c->set_bits, H);
    c->v.gpu_index = -1;
    vx_runtime_resolve((int)c->v.framework, NULL, &c->rt);
}

const vx_runtime *vx_config_runtime(const struct vramest_config *c, vx_runtime *buf)
{
    if (c->rt.framework == c->v.framework) return &c->rt;
    vx_runtime_resolve((int)c->v.framework, NULL, buf);
    return buf;
}

/* Keep what the config derives from its values current after `key` changed. */
static void derive(vramest_config *cfg, vramest_option key)
{
    if (key == VRAMEST_CFG_DEVICE) vx_config_resolve_device(&cfg->v);
    if (key == VRAMEST_CFG_FRAMEWORK) vx_runtime_resolve((int)cfg->v.framework, NULL, &cfg->rt);
}

void vx_config_resolve_device(vx_config_values *v)
{
    const vx_gpu *g = v->device[0] ? vx_gpu_find(v->device) : NULL;
    v->gpu_index = g ? (int64_t)(g - vx_gpus) : -1;
    /* The plan echoes the preset's own name, whatever form the user wrote. */
    if (g) vx_strlcpy(v->device, g->name, sizeof v->device);
}

static int check(const vramest_config *c, const char *fn)
{
    if (!c) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: config is NULL", fn);
    if (c->magic != VX_MAGIC_CONFIG) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a vramest_config handle", fn);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_new(vramest_config **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_config_new: out is NULL");
    *out = NULL;
    vramest_config *c = malloc(sizeof *c);
    if (!c) return vx_fail(VRAMEST_E_NOMEM, "vramest_config_new: out of memory");
    vx_config_init(c);
    *out = c;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_clone(const vramest_config *cfg, vramest_config **out)
{
    int rc = check(cfg, "vramest_config_clone");
    if (rc) return rc;
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_config_clone: out is NULL");
    *out = NULL;
    vramest_config *c = malloc(sizeof *c);
    if (!c) return vx_fail(VRAMEST_E_NOMEM, "vramest_config_clone: out of memory");
    memcpy(c, cfg, sizeof *c);
    *out = c;
    return VRAMEST_OK;
}

VRAMEST_API void vramest_config_free(vramest_config *cfg)
{
    if (!cfg || cfg->magic != VX_MAGIC_CONFIG) return;
    cfg->magic = VX_MAGIC_DEAD;
    free(cfg);
}

VRAMEST_API int vramest_config_set_i64(vramest_config *cfg, vramest_option key, int64_t value)
{
    int rc = check(cfg, "vramest_config_set_i64");
    if (rc || (rc = vx_opt_set_i64(&cfg->v, cfg->set_bits, H, key, value))) return rc;
    derive(cfg, key);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_set_f64(vramest_config *cfg, vramest_option key, double value)
{
    int rc = check(cfg, "vramest_config_set_f64");
    if (rc || (rc = vx_opt_set_f64(&cfg->v, cfg->set_bits, H, key, value))) return rc;
    derive(cfg, key);
    return VRAMEST_OK;
}

/* A device name must name one preset: an unknown or ambiguous GPU is an
 * error, never a silent "no device" or a guess. */
static int check_device(const char *name)
{
    const vx_gpu *g;
    return name[0] ? vx_gpu_lookup(name, &g) : VRAMEST_OK;
}

VRAMEST_API int vramest_config_set_str(vramest_config *cfg, vramest_option key, const char *value)
{
    int rc = check(cfg, "vramest_config_set_str");
    if (rc) return rc;
    if (key == VRAMEST_CFG_DEVICE && value && (rc = check_device(value))) return rc;
    if ((rc = vx_opt_set_str(&cfg->v, cfg->set_bits, H, key, value))) return rc;
    derive(cfg, key);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_get_i64(const vramest_config *cfg, vramest_option key, int64_t *out)
{
    int rc = check(cfg, "vramest_config_get_i64");
    if (!rc && !out) rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_config_get_i64: out is NULL");
    return rc ? rc : vx_opt_get_i64(&cfg->v, H, key, out);
}

VRAMEST_API int vramest_config_get_f64(const vramest_config *cfg, vramest_option key, double *out)
{
    int rc = check(cfg, "vramest_config_get_f64");
    if (!rc && !out) rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_config_get_f64: out is NULL");
    return rc ? rc : vx_opt_get_f64(&cfg->v, H, key, out);
}

VRAMEST_API int vramest_config_get_str(const vramest_config *cfg, vramest_option key, const char **out)
{
    int rc = check(cfg, "vramest_config_get_str");
    if (!rc && !out) rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_config_get_str: out is NULL");
    return rc ? rc : vx_opt_get_str(&cfg->v, H, key, out);
}

VRAMEST_API int vramest_config_reset(vramest_config *cfg, vramest_option key)
{
    int rc = check(cfg, "vramest_config_reset");
    if (rc || (rc = vx_opt_reset(&cfg->v, cfg->set_bits, H, key))) return rc;
    derive(cfg, key);
    return VRAMEST_OK;
}
