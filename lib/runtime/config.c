/* The workload configuration handle: public new/clone/free/set/get/reset. */
#include <stdlib.h>
#include <string.h>

#include "precision/precision.h"
#include "runtime/config.h"
#include "runtime/gpus.h"

#define H VRAMEST_HANDLE_CONFIG

#define VERSION_HOLES                                                                                         \
    VX_LAYOUT_STR(vx_config_values, torch_version), VX_LAYOUT_STR(vx_config_values, transformers_version),     \
        VX_LAYOUT_STR(vx_config_values, framework_version), VX_LAYOUT_STR(vx_config_values, tensor_split),    \
        VX_LAYOUT_STR(vx_config_values, rollout_engine_version)
const vx_layout vx_config_layout = {sizeof(vx_config_values),
                                    8,
                                    {VX_LAYOUT_STR(vx_config_values, lora_targets),
                                     VX_LAYOUT_STR(vx_config_values, device),
                                     VX_LAYOUT_STR(vx_config_values, max_memory), VERSION_HOLES}};

/* Holes go in increasing offset order. */
_Static_assert(offsetof(vx_config_values, batch_size) < offsetof(vx_config_values, seq_len) &&
                   offsetof(vx_config_values, seq_len) < offsetof(vx_config_values, lora_targets) &&
                   offsetof(vx_config_values, lora_targets) < offsetof(vx_config_values, device) &&
                   offsetof(vx_config_values, device) < offsetof(vx_config_values, max_memory) &&
                   offsetof(vx_config_values, max_memory) < offsetof(vx_config_values, torch_version) &&
                   offsetof(vx_config_values, torch_version) < offsetof(vx_config_values, transformers_version) &&
                   offsetof(vx_config_values, transformers_version) <
                       offsetof(vx_config_values, framework_version) &&
                   offsetof(vx_config_values, framework_version) < offsetof(vx_config_values, tensor_split) &&
                   offsetof(vx_config_values, tensor_split) < offsetof(vx_config_values, rollout_engine_version),
               "vx_config_layout lists its holes by offset");
const vx_layout vx_config_key_layout = {
    sizeof(vx_config_values),
    10,
    {VX_LAYOUT_SKIP(vx_config_values, batch_size), VX_LAYOUT_SKIP(vx_config_values, seq_len),
     VX_LAYOUT_STR(vx_config_values, lora_targets), VX_LAYOUT_STR(vx_config_values, device),
     VX_LAYOUT_STR(vx_config_values, max_memory), VERSION_HOLES}};

static void keep_runtime(vramest_config *c);

void vx_config_init(struct vramest_config *c)
{
    memset(c, 0, sizeof *c);
    c->magic = VX_MAGIC_CONFIG;
    vx_opt_defaults_zeroed(&c->v, c->set_bits, H);
    c->v.gpu_index = -1;
    keep_runtime(c);
}

/* The versions the values ask for (0 where the default decides). */
static vx_runtime_versions asked(const vx_config_values *v)
{
    return (vx_runtime_versions){(int)v->torch_v, (int)v->transformers_v, v->framework_v > 0 ? (int)v->framework_v : 0};
}

/* The runtime the values ask for, at the versions they name. */
static void resolve_runtime(const vx_config_values *v, vx_runtime *rt)
{
    vx_runtime_versions ver = asked(v);
    vx_runtime_resolve((int)v->framework, &ver, rt);
}

static void keep_runtime(vramest_config *c)
{
    c->rt_asked = asked(&c->v);
    resolve_runtime(&c->v, &c->rt);
}

void vx_config_from_values(struct vramest_config *c, const vx_config_values *v)
{
    vx_config_init(c);
    vx_values_copy(&c->v, v, &vx_config_layout);
    vx_config_resolve_versions(&c->v);
    keep_runtime(c);
}

const vx_runtime *vx_config_runtime(const struct vramest_config *c, vx_runtime *buf)
{
    vx_runtime_versions a = asked(&c->v);
    if (c->rt.framework == c->v.framework && !memcmp(&a, &c->rt_asked, sizeof a)) return &c->rt;
    resolve_runtime(&c->v, buf);
    return buf;
}

void vx_config_resolve_versions(vx_config_values *v)
{
    int t = 0, tf = 0, fw = 0;
    /* Set-time checks reject what does not parse; values written directly
     * may still be anything. */
    v->torch_v = vx_version_parse(v->torch_version, vx_torch_versions.forms, &t, NULL) ? 0 : t;
    v->transformers_v =
        vx_version_parse(v->transformers_version, vx_transformers_versions.forms, &tf, NULL) ? 0 : tf;
    const vx_version_info *fi = vx_framework_versions((int)v->framework);
    if (!v->framework_version[0])
        v->framework_v = 0;
    else
        v->framework_v = fi && fi->forms && !vx_runtime_parse_version(fi, v->framework_version, &fw, NULL) &&
                                 fw >= fi->oldest
                             ? fw
                             : -1;
}

/* Keep what the config derives from its values current after `key` changed. */
static void derive(vramest_config *cfg, vramest_option key)
{
    if (key == VRAMEST_CFG_DEVICE) vx_config_resolve_device(&cfg->v);
    if (key == VRAMEST_CFG_FRAMEWORK || key == VRAMEST_CFG_TORCH_VERSION || key == VRAMEST_CFG_TRANSFORMERS_VERSION ||
        key == VRAMEST_CFG_FRAMEWORK_VERSION) {
        vx_config_resolve_versions(&cfg->v);
        keep_runtime(cfg);
    }
}

/* The device is preset g (NULL: none). */
static void set_gpu(vx_config_values *v, const vx_gpu *g)
{
    v->gpu_index = g ? (int64_t)(g - vx_gpus) : -1;
    /* The plan echoes the preset's own name, whatever form the user wrote. */
    if (g) vx_strlcpy(v->device, g->name, sizeof v->device);
}

void vx_config_resolve_device(vx_config_values *v)
{
    set_gpu(v, v->device[0] ? vx_gpu_find(v->device) : NULL);
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
    /* The role models are the handle's own: the clone gets copies. */
    for (int i = 0; i < VX_NROLES; i++) {
        c->role_model[i] = NULL;
        c->role_prec[i] = NULL;
        if (cfg->role_model[i] && (rc = vramest_model_clone(cfg->role_model[i], &c->role_model[i]))) break;
        if (cfg->role_prec[i] && (rc = vramest_precision_clone(cfg->role_prec[i], &c->role_prec[i]))) break;
    }
    if (rc) {
        vramest_config_free(c);
        return rc;
    }
    *out = c;
    return VRAMEST_OK;
}

VRAMEST_API void vramest_config_free(vramest_config *cfg)
{
    if (!cfg || cfg->magic != VX_MAGIC_CONFIG) return;
    cfg->magic = VX_MAGIC_DEAD;
    for (int i = 0; i < VX_NROLES; i++) {
        vramest_model_free(cfg->role_model[i]);
        vramest_precision_free(cfg->role_prec[i]);
    }
    free(cfg);
}

static int check_role(int role, const char *fn)
{
    if (role < VRAMEST_ROLE_REFERENCE || role > VRAMEST_ROLE_DRAFT)
        return vx_fail(VRAMEST_E_RANGE, "%s: role %d is not a vramest_role (1 reference, 2 reward, 3 critic, 4 draft)",
                       fn, role);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_set_role_model(vramest_config *cfg, int role, const vramest_model *model,
                                              const vramest_precision *prec)
{
    static const char fn[] = "vramest_config_set_role_model";
    int rc = check(cfg, fn);
    if (rc || (rc = check_role(role, fn))) return rc;
    if (prec && !model) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: a precision without a model", fn);
    if (model && model->magic != VX_MAGIC_MODEL)
        return vx_fail(VRAMEST_E_INVALID_ARG, "%s: model is not a vramest_model handle", fn);
    if (prec && prec->magic != VX_MAGIC_PREC)
        return vx_fail(VRAMEST_E_INVALID_ARG, "%s: prec is not a vramest_precision handle", fn);
    /* A role model that cannot be estimated is refused now, not at every
     * estimate that would read it. */
    if (model && model->status != VRAMEST_OK) return vx_fail(model->status, "%s: model: %s", fn, model->status_msg);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    if (model && (rc = vramest_model_clone(model, &m))) return rc;
    if (prec && (rc = vramest_precision_clone(prec, &p))) {
        vramest_model_free(m);
        return rc;
    }
    vramest_model_free(cfg->role_model[role - 1]);
    vramest_precision_free(cfg->role_prec[role - 1]);
    cfg->role_model[role - 1] = m;
    cfg->role_prec[role - 1] = p;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_get_role_model(const vramest_config *cfg, int role, const vramest_model **out_model,
                                              const vramest_precision **out_prec)
{
    static const char fn[] = "vramest_config_get_role_model";
    if (out_model) *out_model = NULL;
    if (out_prec) *out_prec = NULL;
    int rc = check(cfg, fn);
    if (rc || (rc = check_role(role, fn))) return rc;
    if (out_model) *out_model = cfg->role_model[role - 1];
    if (out_prec) *out_prec = cfg->role_prec[role - 1];
    return VRAMEST_OK;
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

/* torch_version and transformers_version are checked when set (their
 * forms never change); framework_version depends on the framework, which
 * a spec may set after it: it is checked by vx_config_check. */
static int check_version(vramest_option key, const char *value)
{
    int v;
    if (key == VRAMEST_CFG_TORCH_VERSION)
        return vx_runtime_check_version(&vx_torch_versions, "torch_version", value, &v);
    if (key == VRAMEST_CFG_TRANSFORMERS_VERSION)
        return vx_runtime_check_version(&vx_transformers_versions, "transformers_version", value, &v);
    if (key == VRAMEST_CFG_FRAMEWORK_VERSION && value[0] &&
        vx_version_parse(value, VX_VS_RELEASE | VX_VS_BUILD | VX_VS_DATE, &v, NULL))
        return vx_fail(VRAMEST_E_PARSE,
                       "framework_version: '%.40s' is not a version (a release such as 0.6.1, a build such as b4823, "
                       "or a date such as 2024-06)",
                       value);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_config_set_str(vramest_config *cfg, vramest_option key, const char *value)
{
    int rc = check(cfg, "vramest_config_set_str");
    if (rc) return rc;
    /* A device name must name one preset: an unknown or ambiguous GPU is an
     * error, never a silent "no device" or a guess. Looked up once: the
     * preset found is the one the config keeps (a scheduler sets the
     * device of every job). */
    const vx_gpu *gpu = NULL;
    if (key == VRAMEST_CFG_DEVICE && value && value[0] && (rc = vx_gpu_lookup(value, &gpu))) return rc;
    if (value && (rc = check_version(key, value))) return rc;
    if ((rc = vx_opt_set_str(&cfg->v, cfg->set_bits, H, key, value))) return rc;
    if (key == VRAMEST_CFG_DEVICE)
        set_gpu(&cfg->v, gpu);
    else
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
