/* Multi-token-prediction layers a checkpoint stores beside the model
 * (issue #16, checkpoint reality): DeepSeek-V3/V3.2 keep layer
 * num_hidden_layers (with its own embed_tokens and shared_head.head
 * copies), GLM-5 layer 78 (without): a decoder layer of the last layer's
 * kind plus enorm, hnorm, eh_proj (2h -> h, never quantized) and
 * shared_head.norm. transformers does not build them
 * (_keys_to_ignore_on_load_unexpected), so they are no parameters and
 * never on the GPU here; the checkpoint's bytes include them, at the
 * stored dtypes (the MTP layer is quantized like the others). Checked
 * against the checkpoints' totals: GLM-5's layer 78 = 9,952,920,576
 * values, DeepSeek-V3.2's = 13,477,385,728 with its copies
 * (/work/research/configs/NOTES.md). */
#include <stdlib.h>

#include "common/dtype.h"
#include "model/inventory.h"

int vx_mtp_on_disk(struct vramest_model *m)
{
    const vx_shape *s = &m->shape;
    if (s->mtp_layers <= 0 || !s->fam->mtp_on_disk) return VRAMEST_OK;
    /* One layer of the last layer's kind: no leading dense layers, every
     * layer its own indexer. */
    vx_shape one = *s;
    one.layers = 1;
    one.dense_layers = 0;
    one.index_freq = 1;
    one.mtp_layers = 0;
    vx_layers *L = malloc(sizeof *L);
    if (!L) return vx_fail(VRAMEST_E_NOMEM, "out of memory sizing the MTP layers");
    vx_tensor *inv = NULL;
    size_t n = 0, cap = 0;
    int rc = vx_layers_resolve(&one, NULL, L);
    if (!rc) rc = vx_inventory_build(&m->a, &one, L, &inv, &n, &cap);
    int fdt = vx_dtype_plain_float((int)s->torch_dtype) ? (int)s->torch_dtype : VRAMEST_DTYPE_FP32;
    uint64_t elems = 0, bytes = 0, h = (uint64_t)s->hidden, v = (uint64_t)s->vocab;
    for (size_t i = 0; !rc && i < n; i++) {
        const vx_tensor *t = &inv[i];
        if (t->part != VX_PART_DECODER) continue;
        uint64_t se;
        bytes = vx_sat_add(bytes, vx_ckpt_quant_group_bytes(&m->ckq, fdt, t, vx_ckpt_quant_covers(&m->ckq, t), &se));
        elems = vx_sat_add(elems, vx_sat_add(vx_tensor_elems(t), se));
    }
    free(inv);
    free(L);
    if (rc) return rc;
    /* enorm, hnorm, shared_head.norm, eh_proj; the embedding and head copies */
    uint64_t extra = vx_sat_add(3 * h, vx_sat_mul(2 * h, h));
    if (s->fam->mtp_copies) extra = vx_sat_add(extra, vx_sat_mul(2 * v, h));
    elems = vx_sat_add(elems, extra);
    bytes = vx_sat_add(bytes, vx_dtype_bytes(fdt, extra));
    m->mtp_elems = vx_sat_mul(elems, (uint64_t)s->mtp_layers);
    m->mtp_bytes = vx_sat_mul(bytes, (uint64_t)s->mtp_layers);
    return VRAMEST_OK;
}
