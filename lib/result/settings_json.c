/* The plan's "settings": every option of the precision and the config as
 * the estimate used it, grouped as the job spec groups them (design.md §6:
 * defaults are echoed too, so a plan is reproducible on its own).
 *
 * Most of the ~170 settings hold their defaults. Their text is rendered at
 * build time by option_index_gen.c, which calls vx_echo_value
 * (common/option_echo.c) on the tables' defaults (vx_optecho_of): a setting
 * at its default costs a comparison, and a run of them one copy. The
 * others are written here. */
#include <stdint.h>
#include <string.h>

#include "common/option_echo.h"
#include "common/option_index.h"
#include "result/result.h"

/* Whether string position e holds its default, so that its text is the
 * pre-rendered one (a number is at its default when its 8 bytes are
 * e->bits: doubles bit for bit, as -0.0 is not 0.0 in text; see echo). */
static int string_at_default(const vx_optecho_row *e, const vx_option_def *rows, const void *base)
{
    const char *p = (const char *)base + e->field;
    const char *s = rows[e->row].def_str ? rows[e->row].def_str : "";
    return p[0] == s[0] && (!s[0] || !strcmp(p, s));
}

/* A role the job gave a model of its own (vramest_config_set_role_model):
 * its option is left at its default, the estimate used the model, and the
 * echo says "model". */
static int own_model(const vx_rl_phases *rl, int key)
{
    switch (key) {
    case VRAMEST_CFG_RL_REFERENCE: return rl->reference_model;
    case VRAMEST_CFG_RL_REWARD: return rl->reward == 2;
    case VRAMEST_CFG_RL_CRITIC: return rl->critic == 2;
    default: return 0;
    }
}

/* The version the estimate ran at, into buf (24 bytes), for a version
 * option the job left empty: the plan names it (estimate/context/context.c
 * resolved it into rrt). 0: the option keeps its own (empty) text. */
static int ran_at(const struct vramest_result *r, int key, char *buf)
{
    const vx_runtime *rt = &r->rrt.rt;
    const vx_version_info *vi;
    int v, applies;
    switch (key) {
    case VRAMEST_CFG_TORCH_VERSION: vi = &vx_torch_versions, v = rt->torch, applies = !rt->ggml_alloc; break;
    case VRAMEST_CFG_TRANSFORMERS_VERSION:
        vi = &vx_transformers_versions, v = rt->transformers, applies = rt->hf_code;
        break;
    case VRAMEST_CFG_FRAMEWORK_VERSION:
        vi = vx_framework_versions(rt->framework), v = rt->framework_version, applies = 1;
        break;
    default: return 0;
    }
    if (!r->rrt.has_rt || !applies || !vi || !vi->forms || v <= 0) return 0;
    vx_version_format(v, vi->form, buf, 24);
    return 1;
}

/* Echo group g of table `t` (a handle kind - 1) from `base`. The text of
 * consecutive positions is contiguous, so a run of rows at their defaults
 * is one copy; the group's first row drops its comma. A row's option
 * (`rows[e->row]`) is only looked at where its text is written or may be
 * what the estimate used instead of the default. */
static void echo(vx_jw *w, int t, const void *base, int group, const struct vramest_result *r, int *first)
{
    const vx_option_def *rows = t == 1 ? vx_precision_options : vx_config_options;
    const vx_optecho *pre = &vx_optecho_of[t];
    const int roles = r && r->rl.on;
    vx_jw_name_key(w, vx_echo_groups[group], first);
    vx_jw_put(w, "{", 1);
    int g = 1;
    size_t k = pre->group_start[group], end = pre->group_start[group + 1], run = SIZE_MAX;
    for (; k < end; k++) {
        const vx_optecho_row *e = &pre->rows[k];
        /* What the estimate used where the option kept its default: a
         * version it resolved, a role's own model. */
        char ver[24];
        const char *used = NULL;
        if (!e->string) {
            uint64_t v;
            memcpy(&v, (const char *)base + e->field, sizeof v);
            if (roles && own_model(&r->rl, (int)rows[e->row].key))
                used = "model";
            else if (v == e->bits)
                goto at_default;
        } else {
            if (r && !((const char *)base)[e->field] && ran_at(r, (int)rows[e->row].key, ver))
                used = ver;
            else if (string_at_default(e, rows, base))
                goto at_default;
        }
        if (run != SIZE_MAX) vx_jw_put(w, pre->text + run, pre->off[k] - run);
        run = SIZE_MAX;
        vx_jw_name_key(w, rows[e->row].name, &g);
        if (used)
            vx_jw_str(w, used);
        else
            vx_echo_value(w, &rows[e->row], base);
        continue;
    at_default:
        if (run == SIZE_MAX) run = pre->off[k] + (size_t)g;
        g = 0;
    }
    if (run != SIZE_MAX) vx_jw_put(w, pre->text + run, pre->off[end] - run);
    vx_jw_put(w, "}", 1);
}

void vx_result_settings_json(vx_jw *w, const struct vramest_result *r)
{
    int g = 1;
    vx_jw_put(w, "{", 1);
    echo(w, 1, &r->prec, 0, NULL, &g);
    for (int i = 1; i < VX_ECHO_GROUPS; i++) echo(w, 2, &r->cfg, i, r, &g);
    vx_jw_name_key(w, "cuda_context_bytes", &g);
    vx_jw_u64(w, r->cuda_context_bytes);
    vx_jw_put(w, "}", 1);
}
