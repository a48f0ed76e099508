/* The family registry: model_type names and ids (from
 * lib/model/families/list.h) and the lookups every consumer uses. Adding a
 * family: its row (and builder) in a group file of lib/model/families/ and
 * one line in list.h (docs/adding-a-family.md). */
#include <string.h>

#include "model/families/groups.h"
#include "model/model.h"

const vx_enum_name vx_family_enum[] = {
#define X(id, cname, row, name) {id, name},
#include "model/families/list.h"
#undef X
    /* config.json spellings of the same architectures */
    {VX_FAM_FALCON, "RefinedWebModel"},
    {VX_FAM_FALCON, "RefinedWeb"},
    {VX_FAM_PHI, "phi-msft"},
    {VX_FAM_GEMMA3, "gemma3_text"},
    {VX_FAM_LLAMA4, "llama4_text"},
    {VX_FAM_GEMMA4, "gemma4_text"},
    /* The default: no family yet (vramest_option_default_str must not be NULL). */
    {VX_FAM_UNSET, ""},
    {0, NULL},
};

/* Every row, in id order. Ids increase along list.h but need not be dense:
 * parallel work on the zoo takes ids from separate ranges (100-199,
 * 200-299, ...) so that merges never renumber a family. */
static const vx_family *const rows[] = {
#define X(id, cname, row, name) &row,
#include "model/families/list.h"
#undef X
};

const vx_family *const *vx_families(size_t *n)
{
    *n = VX_ARRAY_LEN(rows);
    return rows;
}

const vx_family *vx_family_of(int64_t id)
{
    /* Binary search: the rows are in increasing id order. */
    size_t lo = 0, hi = VX_ARRAY_LEN(rows);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid]->id == id) return rows[mid];
        if (rows[mid]->id < id) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* `name` is one of the comma-separated names of `list` (exactly: GGUF
 * architecture names are case-sensitive). */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !memcmp(p, name, n)) return true;
        if (!end) break;
        p = end + 1;
    }
    return false;
}

const vx_family *vx_family_of_gguf(const char *arch)
{
    for (size_t i = 0; i < VX_ARRAY_LEN(rows); i++)
        if (rows[i]->gguf && listed(rows[i]->gguf, arch)) return rows[i];
    return NULL;
}

bool vx_fam_is_set(const vx_fam_ctx *c, vramest_option k)
{
    return vx_opt_is_set(c->set_bits, VRAMEST_HANDLE_MODEL, k);
}

/* Hugging Face's LlamaAttention (eager): q/k/v projections, RoPE, the
 * scaled scores, the 4-D additive mask, fp32 softmax and its cast back. */
const vx_attn_impl vx_attn_llama = {.v_copy = 1, .scale_op = 1, .mask_op = VX_MOP_ADD, .softmax = VX_SM_UPCAST,
                                    .mask = VX_MASK_4D};
