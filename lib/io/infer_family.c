/* The family a bare checkpoint's tensor names show (issue #16 item 5): a
 * safetensors file or index read without a config.json gives the weights
 * exactly, and the tensors' names say which layout wrote them. Only
 * layouts whose every module the names identify are inferred; anything
 * else leaves model_type unset, and the estimate asks for it by name. The
 * shapes give the rest (hidden size, layers, vocabulary, MLP widths in
 * parse.c; heads, head size and key/value heads in model/shape.c). */
#include <stdio.h>
#include <string.h>

#include "io/files.h"

typedef struct names {
    const vx_tensor *inv;
    size_t n;
} names;

static bool has(const names *x, const char *leaf)
{
    for (size_t i = 0; i < x->n; i++)
        if (!strcmp(x->inv[i].name, leaf)) return true;
    return false;
}

/* A group of `role` of kind `kind` (expert or not as `expert` says; -1 any). */
static bool has_role(const names *x, int role, int kind, int expert)
{
    for (size_t i = 0; i < x->n; i++) {
        const vx_tensor *t = &x->inv[i];
        if (t->role == role && t->kind == kind && (expert < 0 || t->expert == expert)) return true;
    }
    return false;
}

static const char *llama_style(const names *x, char *why, size_t cap)
{
    bool experts = has_role(x, VX_ROLE_EXPERT_DOWN, VX_TK_MATRIX, -1);
    bool qnorm = has(x, "q_norm");
    bool qbias = has_role(x, VX_ROLE_ATTN_Q, VX_TK_BIAS, 0), obias = has_role(x, VX_ROLE_ATTN_O, VX_TK_BIAS, 0);
    const char *fam;
    if (has(x, "pre_feedforward_layernorm")) fam = qnorm ? "gemma3_text" : "gemma2";
    else if (has(x, "post_feedforward_layernorm") && !has(x, "input_layernorm")) fam = experts ? NULL : "olmo2";
    else if (experts && has(x, "w1")) fam = "mixtral";
    else if (experts && qnorm) fam = "qwen3_moe";
    else if (experts && has(x, "shared_expert_gate")) fam = "qwen2_moe";
    else if (experts) fam = "generic";
    else if (qnorm) fam = "qwen3";
    else if (qbias && !obias) fam = "qwen2";
    else fam = "llama";
    if (fam)
        snprintf(why, cap, "q_proj/k_proj/v_proj/o_proj%s%s%s%s", qnorm ? " with q_norm" : "",
                 qbias && !obias ? ", q/k/v biases" : "", experts ? ", routed experts" : "",
                 has(x, "pre_feedforward_layernorm") || has(x, "post_feedforward_layernorm") ? ", norms after "
                                                                                            "sublayers"
                                                                                          : "");
    return fam;
}

const char *vx_infer_family(const vx_tensor *inv, size_t n, char *why, size_t cap)
{
    names x = {inv, n};
    why[0] = '\0';
    if (!has_role(&x, VX_ROLE_EMBED, VX_TK_EMBED, 0)) return NULL;
    if (has(&x, "wqkv")) {
        snprintf(why, cap, "wqkv, wo, w1/w3/w2");
        return "internlm2";
    }
    if (has(&x, "W_pack")) {
        snprintf(why, cap, "W_pack");
        return "baichuan";
    }
    if (has(&x, "qkv_proj") && has(&x, "gate_up_proj")) {
        snprintf(why, cap, "qkv_proj, gate_up_proj");
        return "phi3";
    }
    /* MLA and fused layouts need sizes the names do not give */
    if (has_role(&x, VX_ROLE_ATTN_KV_A, VX_TK_MATRIX, 0) || has_role(&x, VX_ROLE_ATTN_QKV, VX_TK_MATRIX, 0)) return NULL;
    if (has_role(&x, VX_ROLE_ATTN_Q, VX_TK_MATRIX, 0) && has_role(&x, VX_ROLE_ATTN_K, VX_TK_MATRIX, 0) &&
        has_role(&x, VX_ROLE_ATTN_V, VX_TK_MATRIX, 0) && has_role(&x, VX_ROLE_ATTN_O, VX_TK_MATRIX, 0) &&
        (has_role(&x, VX_ROLE_MLP_GATE, VX_TK_MATRIX, 0) || has_role(&x, VX_ROLE_EXPERT_DOWN, VX_TK_MATRIX, -1)))
        return llama_style(&x, why, cap);
    return NULL;
}
