/* White-box tests of the training programs' linears per layer kind
 * (lib/estimate/params/static_terms.c kind_lins, vx_part_of_kind): a
 * model whose layer kinds differ in their projections (Gemma 4's sliding
 * layers of 256-wide heads and full layers of 512-wide heads with K=V;
 * E2B's KV-shared layers without k/v projections and their double-wide
 * MLP) gets each kind's own shapes, on this rank; a uniform model keeps
 * the one row per role. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/params/params.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "precision/policy.h"
#include "runtime/config.h"

typedef struct fixture {
    vx_train_model tm; /* what the static terms gave the layer programs */
    vx_shard sh;
    vx_ctx x;
    vramest_model *m;
    vramest_precision *p;
    struct vramest_result *r;
    struct vramest_config c;
} fixture;

static void setup(fixture *f, vramest_model *m, int64_t tp)
{
    memset(f, 0, sizeof *f);
    f->m = m;
    cr_assert_eq(vramest_precision_new_preset("bf16", &f->p), VRAMEST_OK);
    vx_config_init(&f->c);
    f->c.v.mode = VX_MODE_TRAIN;
    f->c.v.finetune = VX_FT_LORA;
    snprintf(f->c.v.lora_targets, sizeof f->c.v.lora_targets, "%s", "q_proj,k_proj,v_proj,o_proj,gate_proj");
    f->c.v.gpus = tp, f->c.v.tp = tp;
    f->r = calloc(1, sizeof *f->r);
    cr_assert(f->r);
    f->r->magic = VX_MAGIC_RESULT;
    cr_assert_eq(vx_ctx_init(&f->x, f->m, &f->p->v, &f->c, f->r), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vx_shard_resolve(&f->x, 0, &f->sh), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vx_train_static(&f->x, &f->sh, &f->tm), VRAMEST_OK, "%s", vramest_last_error_message());
}

static void teardown(fixture *f)
{
    vramest_model_free(f->m);
    vramest_precision_free(f->p);
    free(f->r);
}

static vramest_model *preset_model(const char *name)
{
    vramest_model *m;
    cr_assert_eq(vramest_model_new_preset(name, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    return m;
}

/* The first kind of the decoder with this span / sharing. */
static int kind_where(const vramest_model *m, int sliding, int shared)
{
    for (int k = 0; k < m->layers.n_kinds; k++)
        if ((m->layers.kind[k].span == VX_SPAN_SLIDING) == sliding && m->layers.kind[k].kv_shared == shared) return k;
    cr_assert_fail("no kind sliding=%d shared=%d", sliding, shared);
    return -1;
}

Test(kind_lins, gemma4_26b_sliding_and_full_layers_have_their_own_projections)
{
    for (int64_t tp = 1; tp <= 2; tp++) {
        fixture f;
        setup(&f, preset_model("gemma-4-26b-a4b"), tp);
        cr_assert(f.tm.kind_lins);
        int s = kind_where(f.m, 1, 0), g = kind_where(f.m, 0, 0);
        vx_part ps, pg;
        vx_part_of_kind(f.x.pol.s, &f.m->layers.kind[s], tp, &f.tm.dec, &ps);
        vx_part_of_kind(f.x.pol.s, &f.m->layers.kind[g], tp, &f.tm.dec, &pg);
        /* h 2816; sliding 16 heads x 256, 8 kv heads; full 16 x 512, 2 kv
         * heads, no v_proj; q and k/v split by columns, o by rows */
        cr_assert_eq(ps.lin[VX_ROLE_ATTN_Q].out, 16 * 256 / tp);
        cr_assert_eq(pg.lin[VX_ROLE_ATTN_Q].out, 16 * 512 / tp);
        cr_assert_eq(ps.lin[VX_ROLE_ATTN_K].out, 8 * 256 / tp);
        cr_assert_eq(pg.lin[VX_ROLE_ATTN_K].out, 2 * 512 / tp);
        cr_assert_eq(ps.lin[VX_ROLE_ATTN_O].in, 16 * 256 / tp);
        cr_assert_eq(pg.lin[VX_ROLE_ATTN_O].in, 16 * 512 / tp);
        cr_assert_eq(ps.lin[VX_ROLE_ATTN_O].out, 2816);
        /* the table's one row keeps the larger shape */
        cr_assert_eq(f.tm.dec.lin[VX_ROLE_ATTN_Q].out, 16 * 512 / tp);
        /* adapted where the module exists: the full layers have no v_proj */
        cr_assert_eq(ps.lin[VX_ROLE_ATTN_V].lora_r, 8);
        cr_assert_eq(pg.lin[VX_ROLE_ATTN_V].lora_r, 0);
        /* ... but values of k's size (k_proj's output under v_norm) */
        cr_assert_eq(pg.lin[VX_ROLE_ATTN_V].out, 2 * 512 / tp);
        cr_assert_eq(pg.lin[VX_ROLE_ATTN_Q].lora_r, 8);
        teardown(&f);
    }
}

Test(kind_lins, gemma4_e2b_shared_layers_have_no_kv_projections_and_a_double_mlp)
{
    size_t len;
    char *cfg = vt_read_data("models/gemma-4-e2b-it.json", &len);
    vramest_model *m;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vx_parse_hf_config(m, cfg, len), VRAMEST_OK, "%s", vramest_last_error_message());
    free(cfg);
    fixture f;
    setup(&f, m, 1);
    cr_assert(f.tm.kind_lins);
    int own = kind_where(f.m, 1, 0), shared = kind_where(f.m, 1, 1);
    vx_part po, ps;
    vx_part_of_kind(f.x.pol.s, &f.m->layers.kind[own], 1, &f.tm.dec, &po);
    vx_part_of_kind(f.x.pol.s, &f.m->layers.kind[shared], 1, &f.tm.dec, &ps);
    cr_assert_eq(po.lin[VX_ROLE_ATTN_K].lora_r, 8);
    cr_assert_eq(ps.lin[VX_ROLE_ATTN_K].lora_r, 0);
    cr_assert_eq(ps.lin[VX_ROLE_ATTN_V].lora_r, 0);
    cr_assert_eq(ps.lin[VX_ROLE_ATTN_K].wgrad, 0);
    /* their keys and values are another layer's: no output of their own */
    cr_assert_eq(ps.lin[VX_ROLE_ATTN_K].out, 0);
    cr_assert_eq(ps.lin[VX_ROLE_ATTN_V].out, 0);
    cr_assert_eq(po.lin[VX_ROLE_ATTN_K].out, 256);
    cr_assert_eq(po.lin[VX_ROLE_MLP_GATE].out, 6144);
    cr_assert_eq(ps.lin[VX_ROLE_MLP_GATE].out, 12288);
    cr_assert_eq(ps.lin[VX_ROLE_MLP_DOWN].in, 12288);
    teardown(&f);
}

Test(kind_lins, a_uniform_model_keeps_one_row_per_role)
{
    /* kinds that differ in windows, RoPE, chunks, experts or recurrent
     * mixers, not in their attention or dense-MLP linears */
    static const char *const names[] = {"llama-3.1-8b",    "gemma-2-9b",    "mixtral-8x7b",   "gpt-oss-20b",
                                        "llama-4-maverick-17b-128e", "qwen3-next-80b-a3b", "jamba-1.5-mini",
                                        "nemotron-3-nano-30b-a3b"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        fixture f;
        setup(&f, preset_model(names[i]), 1);
        cr_assert(!f.tm.kind_lins, "%s", names[i]);
        vx_part p;
        vx_part_of_kind(f.x.pol.s, &f.m->layers.kind[0], 1, &f.tm.dec, &p);
        cr_assert(!memcmp(&p, &f.tm.dec, sizeof p), "%s", names[i]);
        teardown(&f);
    }
}

Test(kind_lins, nemotron_nas_blocks_have_their_own_kv_heads_and_mlp)
{
    fixture f;
    setup(&f, preset_model("nemotron-super-49b"), 1);
    cr_assert(f.tm.kind_lins);
    int checked = 0;
    for (int k = 0; k < f.m->layers.n_kinds; k++) {
        const vx_layer_kind *kk = &f.m->layers.kind[k];
        vx_part p;
        vx_part_of_kind(f.x.pol.s, kk, 1, &f.tm.dec, &p);
        if (kk->mixer == VX_MIX_ATTN) {
            cr_assert_eq(p.lin[VX_ROLE_ATTN_K].out, kk->kv_heads * kk->head_dim);
            checked++;
        }
        if (kk->mlp == VX_MLPK_DENSE) cr_assert_eq(p.lin[VX_ROLE_MLP_UP].out, kk->ffn);
    }
    cr_assert(checked > 0);
    teardown(&f);
}
