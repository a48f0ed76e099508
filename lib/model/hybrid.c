/* Families with a recurrent token mixer (issue #16): Mamba, Mamba-2, gated
 * DeltaNet, and the hybrids that interleave them with attention (Jamba,
 * Nemotron-H, Falcon-H1, Qwen3-Next / Qwen3.5). Shape resolution hands
 * them here (row.ssm != VX_SSM_NONE) for
 * - the mixer's geometry (vx_shape.ssm_*) from the config values, with the
 *   defaults of each Hugging Face config class where the row says so;
 * - the per-layer layout from layer_pattern / mlp_pattern, one letter per
 *   layer (the config reader turns layer_types, hybrid_override_pattern or
 *   an attention period into them: model/families/hybrid.c), stored as the
 *   runs of the pattern's shortest period, so a 48-layer "LLLA" model is
 *   two runs and Nemotron-H's irregular pattern one run per change.
 * Families without a recurrent mixer go to vx_layers_resolve unchanged. */
#include <string.h>

#include "model/model.h"

#define H_MODEL VRAMEST_HANDLE_MODEL

static bool is_set(const struct vramest_model *m, vramest_option k)
{
    return vx_opt_is_set(m->set_bits, H_MODEL, k);
}

/* An option's value when given, else `dflt` (the config class default). */
static int64_t given_or(const struct vramest_model *m, vramest_option k, int64_t v, int64_t dflt)
{
    return is_set(m, k) ? v : dflt;
}

static int resolve_mamba1(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    /* MambaConfig: state_size 16, conv_kernel 4, expand 2, time_step_rank
     * "auto" = ceil(hidden / 16); MambaMixer's width is the config's
     * intermediate_size (saved as expand x hidden); JambaMambaMixer's is
     * mamba_expand x hidden (intermediate_size is Jamba's MLP). */
    s->ssm_state = given_or(m, VRAMEST_MODEL_SSM_STATE_SIZE, a->ssm_state_size, 16);
    int64_t expand = given_or(m, VRAMEST_MODEL_MAMBA_EXPAND, a->mamba_expand, 2);
    s->ssm_inner = s->fam->ssm_only && is_set(m, VRAMEST_MODEL_INTERMEDIATE_SIZE) ? a->intermediate_size
                                                                                  : expand * s->hidden;
    s->ssm_dt_rank = a->time_step_rank > 0 ? a->time_step_rank : (s->hidden + 15) / 16;
    s->ssm_conv_dim = s->ssm_inner;
    return VRAMEST_OK;
}

static int resolve_mamba2(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    int fam = s->family;
    if (!is_set(m, VRAMEST_MODEL_MAMBA_NUM_HEADS)) return vx_shape_missing(fam, VRAMEST_MODEL_MAMBA_NUM_HEADS);
    s->ssm_heads = a->mamba_num_heads;
    s->ssm_state = given_or(m, VRAMEST_MODEL_SSM_STATE_SIZE, a->ssm_state_size, 128);
    s->ssm_groups = given_or(m, VRAMEST_MODEL_MAMBA_N_GROUPS, a->mamba_n_groups, 1);
    if (s->fam->ssm_inner_heads) {
        /* NemotronHMamba2Mixer: intermediate = mamba_num_heads x mamba_head_dim. */
        if (!is_set(m, VRAMEST_MODEL_MAMBA_HEAD_DIM)) return vx_shape_missing(fam, VRAMEST_MODEL_MAMBA_HEAD_DIM);
        s->ssm_head_dim = a->mamba_head_dim;
        s->ssm_inner = s->ssm_heads * s->ssm_head_dim;
    } else {
        /* Mamba2Mixer / FalconH1Mixer: mamba_d_ssm, else expand x hidden;
         * the head width defaults to what divides it ("auto"), and the
         * config class refuses a head count that does not tile it. */
        int64_t expand = given_or(m, VRAMEST_MODEL_MAMBA_EXPAND, a->mamba_expand, 2);
        s->ssm_inner = is_set(m, VRAMEST_MODEL_MAMBA_D_SSM) ? a->mamba_d_ssm : expand * s->hidden;
        s->ssm_head_dim = is_set(m, VRAMEST_MODEL_MAMBA_HEAD_DIM) ? a->mamba_head_dim : s->ssm_inner / s->ssm_heads;
        if (s->ssm_heads * s->ssm_head_dim != s->ssm_inner)
            return vx_fail(VRAMEST_E_INVALID_MODEL,
                           "Mamba-2 heads (%lld) x head width (%lld) must equal the inner width %lld (mamba_d_ssm, "
                           "else mamba_expand x hidden_size)",
                           (long long)s->ssm_heads, (long long)s->ssm_head_dim, (long long)s->ssm_inner);
    }
    if (s->ssm_groups < 1 || s->ssm_heads % s->ssm_groups)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "Mamba-2 n_groups (%lld) must divide its heads (%lld)",
                       (long long)s->ssm_groups, (long long)s->ssm_heads);
    s->ssm_conv_dim = s->ssm_inner + 2 * s->ssm_groups * s->ssm_state;
    return VRAMEST_OK;
}

static int resolve_gdn(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    static const vramest_option need[] = {VRAMEST_MODEL_LINEAR_NUM_KEY_HEADS, VRAMEST_MODEL_LINEAR_NUM_VALUE_HEADS,
                                          VRAMEST_MODEL_LINEAR_KEY_HEAD_DIM, VRAMEST_MODEL_LINEAR_VALUE_HEAD_DIM};
    for (size_t i = 0; i < VX_ARRAY_LEN(need); i++)
        if (!is_set(m, need[i])) return vx_shape_missing(s->family, need[i]);
    s->ssm_groups = a->linear_num_key_heads;
    s->ssm_heads = a->linear_num_value_heads;
    s->ssm_state = a->linear_key_head_dim;
    s->ssm_head_dim = a->linear_value_head_dim;
    if (s->ssm_heads % s->ssm_groups)
        return vx_fail(VRAMEST_E_INVALID_MODEL,
                       "linear_num_value_heads (%lld) must be a multiple of linear_num_key_heads (%lld)",
                       (long long)s->ssm_heads, (long long)s->ssm_groups);
    s->ssm_inner = s->ssm_heads * s->ssm_head_dim;
    s->ssm_conv = given_or(m, VRAMEST_MODEL_LINEAR_CONV_KERNEL_DIM, a->linear_conv_kernel_dim, 4);
    /* q and k of the key heads, v of the value heads go through the conv */
    s->ssm_conv_dim = 2 * s->ssm_groups * s->ssm_state + s->ssm_inner;
    return VRAMEST_OK;
}

static int resolve_shortconv(vx_shape *s)
{
    /* Lfm2ShortConv: every projection and the convolution over hidden
     * channels, biased when conv_bias; no recurrent state beside the
     * convolution's */
    s->ssm_inner = s->ssm_conv_dim = s->hidden;
    s->ssm_state = 1;
    s->ssm_proj_bias = s->ssm_conv_bias;
    return VRAMEST_OK;
}

static int resolve_ssm(const struct vramest_model *m, vx_shape *s)
{
    const vx_arch *a = &m->a;
    const vx_family *f = s->fam;
    s->ssm_kind = f->ssm;
    s->ssm_conv = given_or(m, VRAMEST_MODEL_CONV_KERNEL, a->conv_kernel, 4);
    s->ssm_chunk = given_or(m, VRAMEST_MODEL_CHUNK_SIZE, a->chunk_size, f->ssm == VX_SSM_GDN ? 64 : 256);
    s->ssm_conv_bias = (int)a->mamba_conv_bias;
    s->ssm_proj_bias = (int)a->mamba_proj_bias;
    s->ssm_norm = f->ssm != VX_SSM_MAMBA1 && f->ssm != VX_SSM_SHORTCONV && (f->ssm_norm_flag ? is_set(m, VRAMEST_MODEL_MAMBA_RMS_NORM) &&
                                                                      a->mamba_rms_norm
                                                                : a->mamba_rms_norm != 0);
    s->ssm_state_dtype = (int)a->ssm_state_dtype;
    s->attn_gate = f->q_gate && (!is_set(m, VRAMEST_MODEL_ATTN_OUTPUT_GATE) || a->attn_output_gate);
    s->moe_latent = a->moe_latent_size;
    int rc;
    switch (f->ssm) {
    case VX_SSM_MAMBA1: rc = resolve_mamba1(m, s); break;
    case VX_SSM_MAMBA2: rc = resolve_mamba2(m, s); break;
    case VX_SSM_SHORTCONV: rc = resolve_shortconv(s); break;
    default: rc = resolve_gdn(m, s); s->ssm_conv_bias = 0; break;
    }
    if (rc) return rc;
    if (s->ssm_conv < 1) return vx_fail(VRAMEST_E_INVALID_MODEL, "the convolution width must be at least 1");
    if (s->ssm_inner <= 0 || s->ssm_state <= 0)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "the recurrent mixer has no width (inner %lld, state %lld)",
                       (long long)s->ssm_inner, (long long)s->ssm_state);
    return VRAMEST_OK;
}

/* ---- the per-layer layout from its letters ---- */

/* The kind of a layer from its two letters; -1 for a letter no layer has. */
static int kind_of_letters(const vx_shape *s, char mix, char mlp, vx_layer_kind *k)
{
    memset(k, 0, sizeof *k);
    k->heads = s->heads, k->kv_heads = s->kv_heads, k->head_dim = s->head_dim;
    k->v_head_dim = s->v_head_dim > 0 ? s->v_head_dim : s->head_dim;
    switch (mix) {
    case 'A': k->mixer = VX_MIX_ATTN; break;
    case 'H': k->mixer = VX_MIX_ATTN, k->ssm_par = 1; break;
    case 'M':
    case 'L': k->mixer = s->ssm_kind == VX_SSM_GDN ? VX_MIX_LINEAR : VX_MIX_SSM; break;
    case 'N': k->mixer = VX_MIX_NONE; break;
    default: return -1;
    }
    k->rope = k->mixer == VX_MIX_ATTN && s->rotary_dim > 0;
    switch (mlp) {
    case 'D': k->mlp = VX_MLPK_DENSE, k->ffn = s->ffn; break;
    case 'E': k->mlp = VX_MLPK_MOE; break;
    case 'N': k->mlp = VX_MLPK_NONE; break;
    default: return -2;
    }
    return 0;
}

static int check_letters(const vx_shape *s, const char *mix, const char *mlp, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        vx_layer_kind k;
        int rc = kind_of_letters(s, mix[i], mlp[i], &k);
        if (rc == -1)
            return vx_fail(VRAMEST_E_INVALID_MODEL,
                           "layer_pattern: layer %lld is '%c', not a token mixer (A attention, M Mamba, L linear "
                           "attention, H attention and Mamba, N none)",
                           (long long)i, mix[i]);
        if (rc == -2)
            return vx_fail(VRAMEST_E_INVALID_MODEL, "mlp_pattern: layer %lld is '%c', not an MLP (D dense, E experts, "
                           "N none)", (long long)i, mlp[i]);
        if (k.mixer == VX_MIX_ATTN && s->heads <= 0)
            return vx_fail(VRAMEST_E_INVALID_MODEL, "layer_pattern: layer %lld is attention, which model_type '%s' "
                           "does not have", (long long)i, s->fam->name);
        if (k.mlp == VX_MLPK_MOE && s->experts <= 0)
            return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "mlp_pattern: layer %lld has experts, but 'num_local_experts' "
                           "(also num_experts, n_routed_experts) is not set", (long long)i);
        if (k.mlp == VX_MLPK_DENSE && s->ffn <= 0)
            return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "mlp_pattern: layer %lld has a dense MLP, but "
                           "'intermediate_size' is not set", (long long)i);
    }
    return VRAMEST_OK;
}

/* The shortest p with every letter equal to the one p layers before. */
static int64_t period_of(const char *mix, const char *mlp, int64_t n)
{
    for (int64_t p = 1; p < n; p++) {
        int64_t i = p;
        while (i < n && mix[i] == mix[i - p] && mlp[i] == mlp[i - p]) i++;
        if (i == n) return p;
    }
    return n;
}

/* One letter per layer: the given pattern, else the family's letter for
 * every layer. */
static int letters(const vx_shape *s, vramest_option k, const char *given, char dflt, char *out, int64_t n)
{
    const vx_option_def *d = vx_option_find(k, NULL);
    size_t len = strlen(given);
    if (!len) {
        if (!dflt)
            return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "model_type '%s' needs '%s' (one letter per layer), which is "
                           "not set", s->fam->name, d ? d->name : "?");
        memset(out, dflt, (size_t)n);
        return VRAMEST_OK;
    }
    if ((int64_t)len != n)
        return vx_fail(VRAMEST_E_INVALID_MODEL, "%s lists %zu layers, num_hidden_layers is %lld", d ? d->name : "?",
                       len, (long long)n);
    memcpy(out, given, len);
    return VRAMEST_OK;
}

static int layout(const struct vramest_model *m, const vx_shape *s, vx_layers *L)
{
    const vx_family *f = s->fam;
    int64_t n = s->layers;
    if (n >= VX_STR_MAX)
        return vx_fail(VRAMEST_E_LIMIT, "num_hidden_layers %lld: a per-layer pattern holds at most %d layers",
                       (long long)n, VX_STR_MAX - 1);
    char mix[VX_STR_MAX], mlp[VX_STR_MAX];
    int rc = letters(s, VRAMEST_MODEL_LAYER_PATTERN, m->a.layer_pattern, (char)f->layer_default, mix, n);
    if (!rc) rc = letters(s, VRAMEST_MODEL_MLP_PATTERN, m->a.mlp_pattern, (char)f->mlp_default, mlp, n);
    if (!rc) rc = check_letters(s, mix, mlp, n);
    if (rc) return rc;
    memset(L, 0, offsetof(vx_layers, kind));
    int64_t p = period_of(mix, mlp, n);
    vx_layer_stack *st = &L->stack[VX_STACK_DEC];
    st->layers = n;
    st->run0 = 0;
    for (int64_t i = 0; i < p;) {
        int64_t j = i + 1;
        while (j < p && mix[j] == mix[i] && mlp[j] == mlp[i]) j++;
        vx_layer_kind k;
        kind_of_letters(s, mix[i], mlp[i], &k);
        int ki = 0;
        while (ki < L->n_kinds && memcmp(&L->kind[ki], &k, sizeof k)) ki++;
        if (ki == L->n_kinds) {
            if (L->n_kinds >= VX_MAX_KINDS)
                return vx_fail(VRAMEST_E_LIMIT, "more than %d distinct layer kinds", VX_MAX_KINDS);
            L->kind[L->n_kinds++] = k;
        }
        if (L->n_runs >= VX_MAX_RUNS)
            return vx_fail(VRAMEST_E_LIMIT, "more than %d runs of layer kinds", VX_MAX_RUNS);
        L->run[L->n_runs++] = (vx_layer_run){.kind = (uint16_t)ki, .count = (uint32_t)(j - i)};
        st->nrun++;
        st->period += j - i;
        i = j;
    }
    return VRAMEST_OK;
}

/* Whether any layer has the recurrent mixer (Granite 4.0's dense models,
 * all attention, have none: its geometry keys are then not needed). */
static bool recurrent_layers(const struct vramest_model *m, const vx_shape *s)
{
    const char *p = m->a.layer_pattern;
    if (!p[0]) return s->fam->layer_default && strchr("MLH", s->fam->layer_default);
    return strpbrk(p, "MLH") != NULL;
}

int vx_hybrid_resolve(const struct vramest_model *m, vx_shape *s, vx_layers *L)
{
    if (s->fam->ssm == VX_SSM_NONE) return vx_layers_resolve(s, &m->a, L);
    int rc = recurrent_layers(m, s) ? resolve_ssm(m, s) : VRAMEST_OK;
    return rc ? rc : layout(m, s, L);
}
