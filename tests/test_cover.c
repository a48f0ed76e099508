/* File tensors against the architecture (lib/model/cover.c, issue #19 item
 * 1). Real checkpoints must be found complete: their tensor names come from
 * real model.safetensors.index.json files with their config.json
 * (tests/data/cover/NAME/SOURCE says where each is from), so a family whose
 * checkpoint names a tensor differently from the architecture would show
 * here as "missing" and inflate every estimate of it. The same checkpoints
 * with a layer, the head or the embedding removed must be found incomplete,
 * and the estimate must count what they lack. White-box: the tensors are
 * grouped from the index's names (the index has no shapes), with sizes
 * large enough to pass the bytes-per-parameter floor. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io/files.h"
#include "model/model.h"

static const char *const real[] = {"llama-3.1-70b", "mixtral-8x22b", "qwen2.5-14b",
                                   "gemma-2b",      "phi3-3b",       "bloom-176b"};

/* The checkpoint's tensors, but those whose name contains `drop`. */
static vramest_model *checkpoint(const char *name, const char *drop, size_t *dropped)
{
    char path[256];
    snprintf(path, sizeof path, "cover/%s/config.json", name);
    size_t len;
    char *cfg = vt_read_data(path, &len);
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, len, NULL), VRAMEST_OK, "%s: %s", name,
                 vramest_last_error_message());
    free(cfg);

    snprintf(path, sizeof path, "cover/%s/model.safetensors.index.json", name);
    char *idx = vt_read_data(path, &len);
    vx_fileset fs;
    vx_fileset_init(&fs);
    uint16_t src;
    cr_assert_eq(vx_fileset_source(&fs, "index", &src), VRAMEST_OK);
    cr_assert_eq(vx_st_index_read(&fs, idx, len), VRAMEST_OK, "%s: %s", name, vramest_last_error_message());
    *dropped = 0;
    for (size_t i = 0; i < fs.n_idx; i++) {
        const vx_index_entry *e = &fs.idx[i];
        if (drop && strstr(e->name, drop)) {
            (*dropped)++;
            continue;
        }
        vx_raw_tensor t = {0};
        t.name = e->name;
        t.name_len = (uint32_t)strlen(e->name);
        t.at = e->at;
        bool vec = strlen(e->name) > 5 && strcmp(e->name + strlen(e->name) - 5, ".bias") == 0;
        t.ndim = vec ? 1 : 2;
        t.dims[0] = 64, t.dims[1] = vec ? 1 : 64, t.dims[2] = 1;
        t.nbytes = (uint64_t)1 << 34; /* above the floor for any of these groups */
        t.dtype = VRAMEST_DTYPE_BF16;
        cr_assert_eq(vx_fileset_push(&fs, &t), VRAMEST_OK);
    }
    vx_group_stats st;
    cr_assert_eq(vx_fileset_group(&fs, &m->file_inv, &m->n_file_inv, &m->cap_file_inv, &st), VRAMEST_OK, "%s: %s",
                 name, vramest_last_error_message());
    m->has_file_inv = 1;
    cr_assert_eq(vx_model_rebuild(m), VRAMEST_OK, "%s: %s", name, m->status_msg);
    vx_fileset_free(&fs);
    free(idx);
    return m;
}

Test(cover, real_checkpoints_are_complete)
{
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
        size_t dropped;
        vramest_model *m = checkpoint(real[i], NULL, &dropped);
        cr_expect_str_empty(m->cover_note, "%s: %s", real[i], m->cover_note);
        vramest_model_free(m);
    }
}

/* An estimate's weights; its first warning names what the files lack. */
static uint64_t weights(const vramest_model *m)
{
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, NULL, NULL, &r), VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t w = 0;
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &w), VRAMEST_OK);
    cr_assert_geq(vramest_result_warning_count(r), 1);
    const char *first = vramest_result_warning(r, 0);
    cr_assert(first && strstr(first, "files lack") != NULL, "first warning: %s", first ? first : "(none)");
    vramest_result_free(r);
    return w;
}

Test(cover, real_checkpoints_missing_a_layer_the_head_or_the_embedding)
{
    /* "layers.3." names every tensor of layer 3 (HF), "h.3." BLOOM's. */
    static const struct {
        const char *model, *drop, *leaf;
    } rows[] = {
        {"llama-3.1-70b", "layers.3.", "q_proj"},         {"llama-3.1-70b", "lm_head", "lm_head"},
        {"llama-3.1-70b", "embed_tokens", "embed_tokens"}, {"mixtral-8x22b", "layers.3.", "w1"},
        {"mixtral-8x22b", "experts.5.w2", "w2"},          {"qwen2.5-14b", "self_attn.k_proj", "k_proj"},
        {"gemma-2b", "layers.3.", "q_proj"},              {"phi3-3b", "layers.3.", "qkv_proj"},
        {"bloom-176b", "h.3.", "query_key_value"},        {"bloom-176b", "word_embeddings.weight", "word_embeddings"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t dropped;
        vramest_model *m = checkpoint(rows[i].model, rows[i].drop, &dropped);
        cr_assert_gt(dropped, 0, "%s: nothing matched '%s'", rows[i].model, rows[i].drop);
        cr_expect(strstr(m->cover_note, rows[i].leaf) != NULL || strstr(m->cover_note, "...") != NULL,
                  "%s without %s: note '%s' lacks %s", rows[i].model, rows[i].drop, m->cover_note, rows[i].leaf);
        cr_expect(m->cover_note[0], "%s without %s: no note", rows[i].model, rows[i].drop);
        /* What is missing is counted: groups beyond the files' own. */
        cr_expect_gt(m->n_inv, m->n_file_inv, "%s without %s: nothing added", rows[i].model, rows[i].drop);
        cr_expect_gt(weights(m), 0);
        vramest_model_free(m);
    }
}
