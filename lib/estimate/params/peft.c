/* PEFT LoRA target matching (research note §8). PEFT matches a target
 * against the dotted module path: the whole path, or its last components
 * (`key.endswith("." + target)`). Inventory names are the HF leaf names, so a
 * target matches a group when its last component equals the leaf name.
 * `all-linear` takes every nn.Linear / Conv1D except the output layer (the
 * LM head, or the classifier of a sequence-classification model). `auto` is
 * PEFT's per-family default (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING). */
#include <string.h>

#include "estimate/params/params.h"

static const char *targets_of(const vx_ctx *x)
{
    const char *t = x->cv->lora_targets;
    if (!t[0] || !vx_strcasecmp(t, "auto")) {
        /* PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING, in the
         * family's row ("": PEFT has none and asks for target_modules). */
        const char *d = x->pol.s->fam->peft_targets;
        return d ? d : "q_proj,v_proj";
    }
    return t;
}

/* Next entry of a comma list (spaces, quotes and brackets trimmed). */
static const char *next_entry(const char *p, char *buf, size_t cap)
{
    while (*p == ' ' || *p == ',' || *p == '[' || *p == '"' || *p == '\'') p++;
    if (!*p) return NULL;
    size_t k = 0;
    while (*p && *p != ',') {
        if (k + 1 < cap) buf[k++] = *p;
        p++;
    }
    while (k && (buf[k - 1] == ' ' || buf[k - 1] == '"' || buf[k - 1] == '\'' || buf[k - 1] == ']')) k--;
    buf[k] = '\0';
    return p;
}

static int is_output_layer(const vx_ctx *x, const vx_tensor *t)
{
    if (t->role == VX_ROLE_LM_HEAD) return 1;
    int head = vx_head_resolve(x->pol.s, (int)x->cv->head);
    return head == VX_HEAD_SEQ_CLS && t->role == VX_ROLE_CLASSIFIER;
}

static int entry_matches(const vx_tensor *t, const char *entry)
{
    const char *leaf = strrchr(entry, '.');
    leaf = leaf ? leaf + 1 : entry;
    return leaf[0] && !strcmp(t->name, leaf);
}

int vx_lora_targets(const vx_ctx *x, const vx_tensor *t)
{
    if (t->kind != VX_TK_MATRIX) return 0;
    const char *list = targets_of(x);
    if (!vx_strcasecmp(list, "all-linear") || !vx_strcasecmp(list, "all_linear"))
        return !is_output_layer(x, t) && t->role != VX_ROLE_REL_BIAS;
    char e[VX_MAX_NAME];
    for (const char *p = list; (p = next_entry(p, e, sizeof e));)
        if (entry_matches(t, e)) return 1;
    return 0;
}

int vx_lora_check(vx_ctx *x)
{
    const char *list = targets_of(x);
    if (!vx_strcasecmp(list, "all-linear") || !vx_strcasecmp(list, "all_linear")) return VRAMEST_OK;
    int any = 0;
    char e[VX_MAX_NAME];
    for (const char *p = list; (p = next_entry(p, e, sizeof e));) {
        int hit = 0;
        for (size_t i = 0; i < x->pol.m->n_inv && !hit; i++)
            if (x->pol.m->inv[i].kind == VX_TK_MATRIX && entry_matches(&x->pol.m->inv[i], e)) hit = 1;
        if (hit)
            any = 1;
        else
            vx_result_warn(x->r, "lora_targets: '%s' matches no module of this model (PEFT skips it)", e);
    }
    if (any) return VRAMEST_OK;
    /* Name the linear modules that exist, each once. */
    char names[400];
    size_t len = 0;
    names[0] = '\0';
    for (size_t i = 0; i < x->pol.m->n_inv; i++) {
        const vx_tensor *t = &x->pol.m->inv[i];
        if (t->kind != VX_TK_MATRIX) continue;
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            if (x->pol.m->inv[j].kind == VX_TK_MATRIX && !strcmp(x->pol.m->inv[j].name, t->name)) dup = 1;
        if (dup) continue;
        size_t n = strlen(t->name);
        if (len + n + 3 >= sizeof names) break;
        if (len) names[len++] = ',';
        memcpy(names + len, t->name, n);
        len += n;
        names[len] = '\0';
    }
    return vx_fail(VRAMEST_E_INVALID_ARG,
                   "lora_targets '%s' matches no linear module of this model%s; its modules are: %s (or all-linear)",
                   list[0] ? list : "(PEFT has no default for this family)",
                   list == x->cv->lora_targets ? "" : " (the family default)", names);
}
