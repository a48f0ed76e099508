/* Speculative decoding in the paged engines (vLLM, SGLang): the second
 * model beside the served one, what it adds to the GPU and to every KV
 * block or token cell (docs/methodology.md, "Speculative decoding").
 *
 *   draft_model  a model of its own (VRAMEST_ROLE_DRAFT): all its weights,
 *                its layers' K and V for every token of the pool (vLLM V1
 *                registers the drafter's attention layers in the same KV
 *                cache config; V0 split the blocks evenly between the two
 *                cache engines, the same count; SGLang sizes the token pool
 *                over target + draft cells), its forward in the profile run
 *   eagle/eagle3 a draft head given as a model (its config: one or a few
 *                decoder layers): as draft_model, with the target's token
 *                embedding shared, and its LM head too for eagle (vLLM
 *                v1/spec_decode/eagle.py load_model), plus the fc that
 *                fuses 2 (eagle) or 3 (eagle3) hidden states
 *   mtp          the served model's own num_nextn_predict_layers layers
 *                (DeepSeek-V3 style, not in its inventory): one more
 *                decoder layer each, as its last one, with eh_proj
 *                (2h -> h) and two norms; embedding and head shared
 *   ngram        proposes on the host: nothing on the GPU
 *
 * The rejection sampler of the profile run (one dummy draft token per
 * request) stays under the sampler's own peak, so it adds no term. */
#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"
#include "runtime/config.h"

/* Bytes on this rank of the tensors the head shares with the target. */
static uint64_t shared_bytes(const vx_ctx *d, const vx_shard *sh, int with_head)
{
    uint64_t b = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &d->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));)
        if (t->role == VX_ROLE_EMBED || (with_head && t->role == VX_ROLE_LM_HEAD))
            b = vx_sat_add(b, vx_shard_tensor_bytes(sh, d, t));
    return b;
}

/* One more decoder layer like the served model's last one: the groups
 * that cover it (every layer's, or the MoE part's, which DeepSeek places
 * after its first dense layers), a layer's share of each. */
static uint64_t last_layer_bytes(const vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    uint64_t b = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        if (t->n_layers <= 0) continue;
        bool moe = t->expert || t->role == VX_ROLE_ROUTER ||
                   (t->role >= VX_ROLE_SHARED_GATE && t->role <= VX_ROLE_SHARED_DOWN);
        if (t->n_layers < s->layers && !moe) continue; /* the first (dense) layers only */
        b = vx_sat_add(b, vx_shard_tensor_bytes(sh, x, t) / (uint64_t)t->n_layers);
    }
    return b;
}

/* Whether the family builds the MTP layers as weights of the model (MiMo's
 * model.mtp_layers: their input_proj, 2h -> h, one per MTP layer). */
static bool holds_mtp(const vx_ctx *x)
{
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));)
        if (t->role == VX_ROLE_OTHER && t->n_layers == x->pol.s->mtp_layers && t->cols == 2 * x->pol.s->hidden)
            return true;
    return false;
}

int vx_spec_resolve(vx_ctx *x, const vx_shard *sh, uint64_t T, uint64_t A, const char *engine, vx_spec_terms *out)
{
    memset(out, 0, sizeof *out);
    const vx_config_values *cv = x->cv;
    const vx_shape *s = x->pol.s;
    int method = (int)cv->speculative_method;
    out->method = method;
    if (method == VX_SPEC_NONE || method == VX_SPEC_NGRAM) return VRAMEST_OK;
    if (sh->pp > 1)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "speculative decoding with pipeline parallelism (pp %lld) is not "
                                              "modelled for %s", (long long)sh->pp, engine);
    if (method == VX_SPEC_MTP) {
        if (s->mtp_layers <= 0)
            return vx_fail(VRAMEST_E_CONFLICT,
                           "speculative_method mtp: the model has no multi-token-prediction layers "
                           "(num_nextn_predict_layers 0); give a draft model and speculative_method draft_model");
        uint64_t n = (uint64_t)s->mtp_layers, h = (uint64_t)s->hidden;
        uint64_t glue = vx_sat_mul(vx_sat_add(vx_sat_mul(2 * h, h), 2 * h), A); /* eh_proj, enorm, hnorm */
        if (!holds_mtp(x)) out->weights = vx_sat_mul(n, vx_sat_add(last_layer_bytes(x, sh), glue));
        vx_kv_layout kl;
        int rc = vx_kv_layout_resolve(x, sh, &kl);
        if (rc) return rc;
        out->kv_token = vx_sat_mul(n, vx_kv_layer_token_bytes(&kl));
        return VRAMEST_OK;
    }
    const struct vramest_model *dm = vx_config_role_model(x->cfg, VRAMEST_ROLE_DRAFT);
    if (!dm)
        return vx_fail(VRAMEST_E_INVALID_ARG,
                       "speculative_method %s needs the draft model: the spec's runtime.draft_model, or "
                       "vramest_config_set_role_model(VRAMEST_ROLE_DRAFT)",
                       vramest_option_value_name(VRAMEST_CFG_SPECULATIVE_METHOD, method));
    if (dm->shape.vocab != s->vocab)
        return vx_fail(VRAMEST_E_CONFLICT,
                       "the draft model's vocabulary (%lld tokens) is not the served model's (%lld): %s verifies "
                       "the draft's token ids with the target, so both need one tokenizer",
                       (long long)dm->shape.vocab, (long long)s->vocab, engine);
    const struct vramest_precision *dp = vx_config_role_prec(x->cfg, VRAMEST_ROLE_DRAFT);
    vx_ctx d;
    memset(&d, 0, sizeof d);
    int rc = vx_ctx_init(&d, dm, dp ? &dp->v : x->pol.pv, x->cfg, x->r);
    vx_shard dsh;
    if (!rc) rc = vx_shard_resolve(&d, -1, &dsh);
    vx_kv_layout dkl;
    if (!rc) rc = vx_kv_layout_resolve(&d, &dsh, &dkl);
    if (rc) return vx_fail_prefix(rc, "draft model: ");
    uint64_t dA = vx_dtype_size(d.pol.rp.compute_dtype);
    if (!dA) dA = A;
    out->weights = vx_paged_weights(&d, &dsh);
    if (method == VX_SPEC_EAGLE || method == VX_SPEC_EAGLE3) {
        uint64_t shared = shared_bytes(&d, &dsh, method == VX_SPEC_EAGLE);
        out->weights = out->weights > shared ? out->weights - shared : 0;
        uint64_t h = (uint64_t)dm->shape.hidden, k = method == VX_SPEC_EAGLE ? 2 : 3;
        out->weights = vx_sat_add(out->weights, vx_sat_mul(vx_sat_mul(k * h, h), dA));
    }
    out->kv_token = vx_kv_token_bytes(&dkl);
    out->layer_peak = vx_paged_layer_peak(&d, &dsh, T, dA);
    return VRAMEST_OK;
}
