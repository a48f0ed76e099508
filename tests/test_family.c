/* Families as descriptions (lib/model/family.h, lib/model/families/): the
 * registry's invariants, the per-layer layout against a layer-by-layer
 * walk, and per family added through the description (docs/adding-a-family.md)
 * its exact parameter count from a real config (tests/data/zoo.jsonl, a copy
 * of the validation zoo), its KV cache against a hand formula at two
 * context lengths, and a training estimate that runs. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "model/model.h"
#include "estimate/graph/block.h"
#include "io/files.h"

/* ---- the registry ---- */

Test(family_registry, ids_increase_and_are_named)
{
    size_t n;
    const vx_family *const *all = vx_families(&n);
    cr_assert_gt(n, 0);
    for (size_t i = 0; i < n; i++) {
        const vx_family *f = all[i];
        cr_assert_gt(f->id, i ? all[i - 1]->id : 0, "row %zu has id %d: ids increase along list.h", i, f->id);
        cr_assert_eq(vx_family_of(f->id), f);
        const char *name = vx_enum_name_of(vx_family_enum, f->id);
        cr_assert(name && !strcmp(name, f->name), "family %d: model_type name '%s' vs row '%s'", f->id,
                  name ? name : "(none)", f->name);
        if (f->gguf_moe_id) cr_assert(vx_family_of(f->gguf_moe_id), "%s: gguf_moe_id names no family", f->name);
        if (f->gguf_sigmoid_id) cr_assert(vx_family_of(f->gguf_sigmoid_id), "%s: gguf_sigmoid_id", f->name);
        for (size_t j = 0; j < i; j++) cr_assert_str_neq(all[j]->name, f->name);
    }
    cr_assert_null(vx_family_of(0));
    cr_assert_null(vx_family_of(-1));
    cr_assert_null(vx_family_of(all[n - 1]->id + 1));
    /* a gap between ranges names no family */
    for (size_t i = 1; i < n; i++)
        if (all[i]->id > all[i - 1]->id + 1) cr_assert_null(vx_family_of(all[i - 1]->id + 1));
}

Test(family_registry, gguf_architectures_map_to_one_family)
{
    size_t n;
    const vx_family *const *all = vx_families(&n);
    for (size_t i = 0; i < n; i++) {
        if (!all[i]->gguf) continue;
        char buf[128];
        snprintf(buf, sizeof buf, "%s", all[i]->gguf);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
            cr_assert_eq(vx_family_of_gguf(tok), all[i], "GGUF '%s' names two families", tok);
    }
    cr_assert_null(vx_family_of_gguf("LLAMA"));
    cr_assert_null(vx_family_of_gguf(""));
}

/* ---- the per-layer layout ---- */

/* The kind of layer i of a stack, walking its runs one layer at a time. */
static int kind_at(const vx_layers *L, int stack, int64_t i)
{
    const vx_layer_stack *st = &L->stack[stack];
    int64_t r = i % st->period;
    for (int j = st->run0; j < st->run0 + st->nrun; j++) {
        if (r < (int64_t)L->run[j].count) return L->run[j].kind;
        r -= L->run[j].count;
    }
    return -1;
}

static void check_tallies(const vramest_model *m, int stack)
{
    const vx_layers *L = &m->layers;
    int64_t total = L->stack[stack].layers;
    for (int64_t a = 0; a <= total; a += (total > 40 ? 3 : 1))
        for (int64_t n = 0; a + n <= total + 2; n++) {
            vx_tally t;
            vx_layers_tally(L, stack, a, n, &t);
            int64_t cnt[VX_MAX_KINDS] = {0}, lo[VX_MAX_KINDS], hi[VX_MAX_KINDS];
            for (int k = 0; k < VX_MAX_KINDS; k++) lo[k] = hi[k] = -1;
            for (int64_t i = a; i < a + n && i < total; i++) {
                int k = kind_at(L, stack, i);
                cr_assert_geq(k, 0);
                cnt[k]++;
                if (lo[k] < 0) lo[k] = i;
                hi[k] = i;
            }
            for (int k = 0; k < L->n_kinds; k++) {
                cr_assert_eq(t.count[k], cnt[k], "[%lld, +%lld) kind %d: %lld vs %lld", (long long)a, (long long)n, k,
                             (long long)t.count[k], (long long)cnt[k]);
                cr_assert_eq(t.first[k], lo[k]);
                cr_assert_eq(t.last[k], hi[k]);
            }
        }
}

Test(family_layers, tally_agrees_with_a_layer_walk)
{
    static const char *const names[] = {"llama-2-7b", "gemma-2-9b", "gemma-2-27b", "deepseek-v3", "deepseek-v2-lite",
                                        "mistral-7b-v0.1", "t5-base", "bert-base-uncased"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        vramest_model *m = preset(names[i]);
        check_tallies(m, VX_STACK_DEC);
        check_tallies(m, VX_STACK_ENC);
        vramest_model_free(m);
    }
}

Test(family_layers, gemma3_pattern_is_five_sliding_then_one_global)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    static const char cfg[] = "{\"model_type\":\"gemma3_text\",\"hidden_size\":1152,\"num_hidden_layers\":26,"
                              "\"num_attention_heads\":4,\"num_key_value_heads\":1,\"head_dim\":256,"
                              "\"intermediate_size\":6912,\"vocab_size\":262144,\"sliding_window\":512}";
    cr_assert_eq(vx_parse_hf_config(m, cfg, sizeof cfg - 1), VRAMEST_OK, "%s", vramest_last_error_message());
    const vx_layers *L = &m->layers;
    int64_t sliding = 0;
    for (int64_t i = 0; i < 26; i++) {
        const vx_layer_kind *k = &L->kind[kind_at(L, VX_STACK_DEC, i)];
        int want = (i + 1) % 6 != 0;
        cr_assert_eq(k->span == VX_SPAN_SLIDING, want, "layer %lld", (long long)i);
        if (want) cr_assert_eq(k->window, 512);
        sliding += want;
    }
    cr_assert_eq(sliding, 22);
    check_tallies(m, VX_STACK_DEC);
    vramest_model_free(m);
}

Test(family_layers, deepseek_dense_layers_come_first)
{
    vramest_model *m = preset("deepseek-v3");
    const vx_layers *L = &m->layers;
    vx_tally t;
    vx_layers_tally(L, VX_STACK_DEC, 0, m->shape.layers, &t);
    int64_t dense = 0, moe = 0;
    for (int k = 0; k < L->n_kinds; k++) {
        if (L->kind[k].mlp == VX_MLPK_DENSE) dense += t.count[k];
        if (L->kind[k].mlp == VX_MLPK_MOE) moe += t.count[k];
        cr_assert_eq(L->kind[k].mixer, VX_MIX_MLA);
    }
    cr_assert_eq(dense, m->shape.dense_layers);
    cr_assert_eq(dense + moe, m->shape.layers);
    cr_assert_eq(L->kind[kind_at(L, VX_STACK_DEC, 0)].mlp, VX_MLPK_DENSE);
    cr_assert_eq(L->kind[kind_at(L, VX_STACK_DEC, m->shape.layers - 1)].mlp, VX_MLPK_MOE);
    vramest_model_free(m);
}

/* ---- the block op lists (estimate/graph/block.c) ---- */

Test(family_block, every_op_list_reads_live_slots_and_leaves_only_input_and_output)
{
    static const int places[] = {VX_PLACE_PRE, VX_PLACE_POST, VX_PLACE_PARALLEL, VX_PLACE_PARALLEL2,
                                 VX_PLACE_SANDWICH, VX_PLACE_POST_SUB};
    for (size_t i = 0; i < sizeof places / sizeof *places; i++)
        for (int cross = 0; cross < 2; cross++) {
            const vx_bop *o = vx_block_ops(places[i], cross);
            unsigned alive = 1;
            int out = 0, attn = 0, mlp = 0, xattn = 0;
            for (; o->op != VX_BOP_END; o++) {
                cr_assert_lt(o->a, VX_BLOCK_SLOTS);
                cr_assert((alive >> o->a) & 1u, "place %d: op %d reads dead slot %d", places[i], o->op, o->a);
                if (o->op == VX_BOP_DROP) {
                    cr_assert_neq(o->a, 0, "the caller holds the input");
                    alive &= ~(1u << o->a);
                    continue;
                }
                if (o->op == VX_BOP_ADD) cr_assert((alive >> o->b) & 1u);
                cr_assert(!((alive >> o->dst) & 1u), "place %d writes live slot %d", places[i], o->dst);
                alive |= 1u << o->dst;
                out = o->dst;
                attn += o->op == VX_BOP_ATTN, mlp += o->op == VX_BOP_MLP, xattn += o->op == VX_BOP_XATTN;
            }
            cr_assert_eq(alive, 1u | (1u << out), "place %d leaves slots 0x%x alive", places[i], alive);
            cr_assert_eq(attn, 1);
            cr_assert_eq(mlp, 1);
            cr_assert_eq(xattn, places[i] == VX_PLACE_PRE ? cross : 0);
        }
}

Test(family_block, what_a_block_holds_while_its_sublayers_run)
{
    int a, m;
    vx_block_walk(vx_block_ops(VX_PLACE_PRE, 0), &a, &m);
    cr_assert(a == 1 && m == 2, "pre: the normed input; the residual and the normed input (%d, %d)", a, m);
    vx_block_walk(vx_block_ops(VX_PLACE_PARALLEL, 0), &a, &m);
    cr_assert(a == 1 && m == 2, "parallel: the normed input; it and the attention output (%d, %d)", a, m);
    vx_block_walk(vx_block_ops(VX_PLACE_POST, 0), &a, &m);
    cr_assert(a == 0 && m == 1, "post: attention reads the input itself (%d, %d)", a, m);
    vx_block_walk(vx_block_ops(VX_PLACE_POST_SUB, 0), &a, &m);
    cr_assert(a == 0 && m == 1, "OLMo 2 (%d, %d)", a, m);
    vx_block_walk(vx_block_ops(VX_PLACE_PRE, 1), &a, &m);
    cr_assert(a == 2 && m == 2, "T5 decoder: cross-attention holds the residual too (%d, %d)", a, m);
    /* the table inference reads is the walk of every list */
    for (int place = VX_PLACE_PRE; place <= VX_PLACE_POST_SUB; place++)
        for (int cross = 0; cross < 2; cross++) {
            int ta, tm;
            vx_block_walk(vx_block_ops(place, cross), &a, &m);
            vx_block_held(place, cross, &ta, &tm);
            cr_assert(a == ta && m == tm, "place %d cross %d: walk (%d, %d), table (%d, %d)", place, cross, a, m, ta, tm);
        }
}

/* ---- families added through the description (helpers: family_checks.c) ----
 * tests/data/zoo.jsonl is a copy of ../shared/validation/zoo.jsonl and
 * tests/data/zoo2.jsonl of the research zoo: real config.json files (each
 * case names its source) with exact parameter counts of the Hugging Face
 * class. */

Test(family_zoo, every_config_read_gives_the_exact_count)
{
    cr_assert_gt(zoo_exact_when_read("zoo.jsonl"), 0);
    cr_assert_gt(zoo_exact_when_read("zoo2.jsonl"), 0);
}

/* The hand formula of a full-attention KV cache: K and V of kv_heads x
 * head_dim per token and layer. */
Test(family_kv, llama3_cache_is_the_hand_formula_at_two_lengths)
{
    uint64_t per_token = 2ull * 32 * 8 * 128 * 2; /* K+V x layers x kv heads x head_dim x bf16 */
    cr_assert_eq(kv_bytes("llama-3-8b", "pytorch", 2, 1024), 2 * 1024 * per_token);
    cr_assert_eq(kv_bytes("llama-3-8b", "pytorch", 2, 8192), 2 * 8192 * per_token);
    trains("llama-3-8b");
}

Test(family_zoo, phi4_mini_is_exact)
{
    zoo_exact("zoo-params-phi-4-mini-instruct");
}

/* ---- OLMo 2 ---- */

Test(family_olmo2, count_cache_and_training)
{
    zoo_exact("zoo-params-olmo2-7b");
    /* 32 layers x 32 KV heads x 128 x bf16, K and V */
    uint64_t per_token = 2ull * 32 * 32 * 128 * 2;
    cr_assert_eq(kv_bytes("olmo2-7b", "pytorch", 1, 2048), 2048 * per_token);
    cr_assert_eq(kv_bytes("olmo2-7b", "pytorch", 4, 4096), 4 * 4096 * per_token);
    trains("olmo2-7b");
}

Test(family_olmo2, norms_after_the_sublayers_and_full_width_qk_norms)
{
    vramest_model *m = preset("olmo2-7b");
    int post_attn = 0, post_ff = 0, pre = 0, qn = 0;
    for (size_t i = 0; i < m->n_inv; i++) {
        const vx_tensor *t = &m->inv[i];
        if (!strcmp(t->name, "post_attention_layernorm")) post_attn++;
        if (!strcmp(t->name, "post_feedforward_layernorm")) post_ff++;
        if (!strcmp(t->name, "input_layernorm")) pre++;
        if (!strcmp(t->name, "q_norm")) {
            cr_assert_eq(t->rows, 32 * 128);
            qn++;
        }
    }
    cr_assert(post_attn == 1 && post_ff == 1 && pre == 0 && qn == 1);
    cr_assert_eq(m->shape.placement, VX_PLACE_POST_SUB);
    vramest_model_free(m);
}

Test(family_olmo2, checkpoint_names)
{
    static const named_role nr[] = {
        {"model.layers.3.self_attn.q_norm.weight", VX_ROLE_NORM, "q_norm"},
        {"model.layers.3.self_attn.k_proj.weight", VX_ROLE_ATTN_K, "k_proj"},
        {"model.layers.3.post_attention_layernorm.weight", VX_ROLE_NORM, "post_attention_layernorm"},
        {"model.layers.3.post_feedforward_layernorm.weight", VX_ROLE_NORM, "post_feedforward_layernorm"},
        {"model.layers.3.mlp.gate_proj.weight", VX_ROLE_MLP_GATE, "gate_proj"},
        {"model.norm.weight", VX_ROLE_FINAL_NORM, "norm"},
        {"lm_head.weight", VX_ROLE_LM_HEAD, "lm_head"},
    };
    names_read_as(nr, sizeof nr / sizeof *nr);
}

/* ---- StarCoder2 ---- */

Test(family_starcoder2, count_cache_and_training)
{
    zoo_exact("zoo-params-starcoder2-7b");
    /* 32 layers x 4 KV heads x 128 x bf16, K and V; transformers keeps every
     * token (the window is a mask) */
    uint64_t per_token = 2ull * 32 * 4 * 128 * 2;
    cr_assert_eq(kv_bytes("starcoder2-7b", "pytorch", 1, 2048), 2048 * per_token);
    cr_assert_eq(kv_bytes("starcoder2-7b", "pytorch", 2, 8192), 2 * 8192 * per_token);
    trains("starcoder2-7b");
}

Test(family_starcoder2, layout_biases_window_and_dropout)
{
    vramest_model *m = preset("starcoder2-7b");
    const vx_layers *L = &m->layers;
    cr_assert_eq(L->n_kinds, 1);
    cr_assert_eq(L->kind[0].span, VX_SPAN_SLIDING, "every layer slides (vLLM keeps the window)");
    cr_assert_eq(L->kind[0].window, 4096);
    cr_assert(m->shape.attn_bias && m->shape.mlp_bias && m->shape.tied);
    cr_assert_eq(m->shape.norm_kind, VX_NORM_LAYER);
    cr_assert_float_eq(m->shape.hidden_dropout, 0.1, 1e-12, "residual_dropout");
    int c_fc = 0, c_proj = 0;
    for (size_t i = 0; i < m->n_inv; i++) {
        c_fc += !strcmp(m->inv[i].name, "c_fc") && m->inv[i].role == VX_ROLE_MLP_UP;
        c_proj += !strcmp(m->inv[i].name, "c_proj") && m->inv[i].role == VX_ROLE_MLP_DOWN;
    }
    cr_assert(c_fc == 2 && c_proj == 2, "c_fc and c_proj with their biases");
    vramest_model_free(m);
    static const named_role nr[] = {
        {"model.layers.5.mlp.c_fc.weight", VX_ROLE_MLP_UP, "c_fc"},
        {"model.layers.5.mlp.c_proj.bias", VX_ROLE_MLP_DOWN, "c_proj"},
        {"model.layers.5.self_attn.o_proj.bias", VX_ROLE_ATTN_O, "o_proj"},
        {"model.layers.5.input_layernorm.bias", VX_ROLE_NORM, "input_layernorm"},
    };
    names_read_as(nr, sizeof nr / sizeof *nr);
}

/* ---- Cohere ---- */

Test(family_cohere, count_cache_and_training)
{
    zoo_exact("zoo-params-aya-23-8b");
    /* 32 layers x 8 KV heads x 128 x fp16/bf16, K and V */
    uint64_t per_token = 2ull * 32 * 8 * 128 * 2;
    cr_assert_eq(kv_bytes("aya-23-8b", "pytorch", 1, 1024), 1024 * per_token);
    cr_assert_eq(kv_bytes("aya-23-8b", "pytorch", 3, 8192), 3 * 8192 * per_token);
    trains("aya-23-8b");
}

Test(family_cohere, one_norm_per_layer_parallel_block_scaled_logits)
{
    vramest_model *m = preset("aya-23-8b");
    cr_assert_eq(m->shape.placement, VX_PLACE_PARALLEL);
    cr_assert(m->shape.tied && !m->shape.qk_norm);
    int norms = 0;
    for (size_t i = 0; i < m->n_inv; i++)
        if (m->inv[i].kind == VX_TK_NORM) {
            norms++;
            cr_assert_eq(m->inv[i].rows, 4096, "weight-only LayerNorms of hidden_size");
        }
    cr_assert_eq(norms, 2, "input_layernorm (per layer) and the final norm, no biases");
    /* use_qk_norm adds (heads + kv_heads) x head_dim per layer */
    uint64_t base, with;
    cr_assert_eq(vramest_model_param_count(m, &base, NULL), VRAMEST_OK);
    static const char qk[] = "{\"use_qk_norm\":true}";
    cr_assert_eq(vx_parse_hf_config(m, qk, sizeof qk - 1), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vramest_model_param_count(m, &with, NULL), VRAMEST_OK);
    cr_assert_eq(with - base, 32ull * (32 + 8) * 128);
    vramest_model_free(m);

    /* the scaled logits: one more logits-sized copy at inference in fp32
     * (transformers 4.44: every prompt position's logits) */
    char spec[256];
    uint64_t lg[2];
    static const char *const models[] = {"aya-23-8b", "llama-3-8b"};
    for (int i = 0; i < 2; i++) {
        snprintf(spec, sizeof spec,
                 "{\"model\":\"%s\",\"precision\":\"fp32\",\"workload\":{\"mode\":\"infer\",\"batch_size\":1,"
                 "\"prompt_len\":512,\"gen_len\":1},\"runtime\":{\"transformers_version\":\"4.44\"}}",
                 models[i]);
        vramest_result *r = estimate(spec);
        lg[i] = category(r, VRAMEST_CAT_LOGITS);
        vramest_result_free(r);
    }
    /* fp32 logits are not upcast: Cohere holds the logits and their scaled
     * copy; the rest (the final norm's output, generate()'s two fp32 scores
     * per sequence) is the same formula */
    uint64_t one_aya = 512ull * 256000 * 4, one_llama = 512ull * 128256 * 4;
    cr_assert_eq(lg[0] - 2 * one_aya - 2ull * 256000 * 4, lg[1] - one_llama - 2ull * 128256 * 4);
}

/* ---- issue #16, zoo-attn: gpt-oss, Llama 4, DeepSeek sparse attention ----
 * The configs are the zoo's (read by case id: no count or size is copied
 * into this file). */

/* A model from a zoo case's config with `edit` (a JSON object of keys)
 * merged over it; returns the parse's error code, *out the model (NULL on
 * error). */
static int zoo_model(const char *id, const char *edit, vramest_model **out)
{
    char *cfg = zoo_config(id, NULL);
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    int rc = vx_parse_hf_config(m, cfg, strlen(cfg));
    if (!rc && edit) rc = vx_parse_hf_config(m, edit, strlen(edit));
    free(cfg);
    if (rc) vramest_model_free(m), m = NULL;
    *out = m;
    return rc;
}

/* A job spec's "model" value for zoo case `id`'s config (without key
 * `drop`), malloc'd. */
static char *zoo_value(const char *id, const char *drop)
{
    char *cfg = zoo_config(id, drop);
    size_t cap = strlen(cfg) + 32;
    char *v = malloc(cap);
    snprintf(v, cap, "{\"hf_config\":%s}", cfg);
    free(cfg);
    return v;
}

static vramest_result *zoo_estimate(const char *id, const char *drop, const char *rest)
{
    char *v = zoo_value(id, drop);
    vramest_result *r = estimate_model(v, rest);
    free(v);
    return r;
}

static uint64_t zoo_kv(const char *id, const char *framework, int64_t batch, int64_t tokens)
{
    char *v = zoo_value(id, "quantization_config");
    uint64_t kv = kv_bytes_of(v, framework, batch, tokens);
    free(v);
    return kv;
}

static void zoo_trains(const char *id)
{
    char *v = zoo_value(id, "quantization_config");
    trains_model(v, id);
    free(v);
}

/* Layers of the decoder whose kind has `field` == value. */
#define COUNT_KINDS(m, field, value, out)                                                                     \
    do {                                                                                                     \
        vx_tally t_;                                                                                          \
        vx_layers_tally(&(m)->layers, VX_STACK_DEC, 0, (m)->layers.stack[VX_STACK_DEC].layers, &t_);            \
        (out) = 0;                                                                                           \
        for (int k_ = 0; k_ < (m)->layers.n_kinds; k_++)                                                     \
            if ((m)->layers.kind[k_].field == (value)) (out) += t_.count[k_];                                 \
    } while (0)

/* ---- gpt-oss ---- */

Test(family_gpt_oss, counts_sinks_and_alternating_windows)
{
    zoo_exact("zoo-params-gpt-oss-20b");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-gpt-oss-120b");
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo-params-gpt-oss-20b", NULL, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    int64_t sliding;
    COUNT_KINDS(m, span, VX_SPAN_SLIDING, sliding);
    cr_assert_eq(sliding, 12, "layer_types: 12 of 24 layers slide");
    check_tallies(m, VX_STACK_DEC);
    int sinks = 0, biased = 0;
    for (size_t i = 0; i < m->n_inv; i++) {
        const vx_tensor *t = &m->inv[i];
        if (!strcmp(t->name, "sinks")) sinks = t->rows == 64 && t->n_layers == 24;
        if (t->expert && t->kind == VX_TK_BIAS) biased++;
    }
    cr_assert(sinks, "one sink logit per head and layer");
    cr_assert_eq(biased, 3, "gate_up and down experts carry biases");
    vramest_model_free(m);
}

Test(family_gpt_oss, vllm_pads_the_mxfp4_experts_by_backend)
{
    /* gpt-oss-20b, 24 layers x 32 experts of gate_up (2 x 2880 x 2880)
     * and down (2880 x 2880), 17 bytes per 32 values. vLLM 0.19 on H100
     * runs triton_kernels (intermediate to 64: 2880 stays); on A100, and on
     * H100 before 0.11.1, Marlin pads the intermediate to 2944 and the
     * hidden size to 3072; FlashInfer on B200 both to 3072 */
    const uint64_t E = 24ull * 32, stored = E * 3 * 2880 * 2880 / 32 * 17;
    const uint64_t marlin = E * 3 * 2944 * 3072 / 32 * 17 - stored, fi = E * 3 * 3072 * 3072 / 32 * 17 - stored;
    static const struct {
        const char *device, *version;
    } runs[] = {{"H100-80GB", "0.19.0"}, {"A100-80GB", "0.19.0"}, {"H100-80GB", "0.11.0"}, {"B200-180GB", "0.19.0"}};
    const uint64_t want[] = {0, marlin, marlin, fi};
    uint64_t w[4];
    for (int i = 0; i < 4; i++) {
        char rest[512];
        snprintf(rest, sizeof rest,
                 "\"device\":\"%s\",\"runtime\":{\"framework\":\"vllm\",\"framework_version\":\"%s\","
                 "\"max_model_len\":8192},\"workload\":{\"mode\":\"infer\",\"prompt_len\":1024,\"gen_len\":16}",
                 runs[i].device, runs[i].version);
        vramest_result *r = zoo_estimate("zoo-params-gpt-oss-20b", NULL, rest);
        cr_assert_not_null(r, "%s", vramest_last_error_message());
        w[i] = category(r, VRAMEST_CAT_WEIGHTS);
        vramest_result_free(r);
        cr_assert_eq(w[i] - w[0], want[i], "%s vLLM %s: %llu padded bytes", runs[i].device, runs[i].version,
                     (unsigned long long)(w[i] - w[0]));
    }
    cr_assert_eq(marlin, 917471232ull);
}

Test(family_gpt_oss, cache_keeps_the_window_on_sliding_layers)
{
    /* K and V of 8 KV heads x 64 x bf16 per token and layer: 12 full
     * layers keep every token, 12 sliding ones their 128 (transformers >=
     * 4.56 DynamicCache(config), vLLM) */
    uint64_t per = 2ull * 8 * 64 * 2;
    cr_assert_eq(zoo_kv("zoo-params-gpt-oss-20b", "pytorch", 2, 1024), 2 * per * (12ull * 1024 + 12ull * 128));
    cr_assert_eq(zoo_kv("zoo-params-gpt-oss-20b", "pytorch", 2, 8192), 2 * per * (12ull * 8192 + 12ull * 128));
    zoo_trains("zoo-params-gpt-oss-20b");
}

Test(family_gpt_oss, per_layer_lists_are_checked)
{
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo-params-gpt-oss-20b", "{\"layer_types\":[\"sliding_attention\",\"full_attention\"]}", &m),
                 VRAMEST_E_INVALID_MODEL);
    cr_assert(strstr(vramest_last_error_message(), "layer_types"), "%s", vramest_last_error_message());
    char edit[2048] = "{\"layer_types\":[";
    for (int i = 0; i < 24; i++) strcat(edit, i ? ",\"full_attention\"" : "\"full_attention\"");
    strcat(edit, "]}");
    cr_assert_eq(zoo_model("zoo-params-gpt-oss-20b", edit, &m), VRAMEST_E_UNSUPPORTED, "every layer full");
    strcpy(edit, "{\"layer_types\":[");
    for (int i = 0; i < 24; i++) strcat(edit, i ? ",1" : "1");
    strcat(edit, "]}");
    cr_assert_eq(zoo_model("zoo-params-gpt-oss-20b", edit, &m), VRAMEST_E_TYPE, "numbers for layer types");
}

/* ---- Llama 4 ---- */

Test(family_llama4, text_count_interleaved_experts_nope_and_chunks)
{
    /* the zoo figure includes a vision tower its config does not describe:
     * the copy marks it, with the language model's count */
    zoo_exact("zoo-params-llama-4-scout-17b-16e");
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo-params-llama-4-scout-17b-16e", NULL, &m), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    int64_t nope, chunked, moe;
    COUNT_KINDS(m, rope, 0, nope);
    COUNT_KINDS(m, span, VX_SPAN_CHUNKED, chunked);
    COUNT_KINDS(m, mlp, VX_MLPK_MOE, moe);
    cr_assert(nope == 12 && chunked == 36 && moe == 48, "Scout: every 4th layer NoPE and global, all MoE");
    cr_assert(strstr(m->config_note, "vision tower"), "the missing tower is said: %s", m->config_note);
    vramest_model_free(m);
    /* Maverick's text model: experts on odd layers (moe_layers), dense
     * layers of intermediate_size_mlp */
    char *cfg = zoo_config("zoo2-params-llama-4-maverick-17b-128e-instruct-fp8", "vision_config");
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vx_parse_hf_config(m, cfg, strlen(cfg)), VRAMEST_OK, "%s", vramest_last_error_message());
    free(cfg);
    COUNT_KINDS(m, mlp, VX_MLPK_MOE, moe);
    int64_t dense;
    COUNT_KINDS(m, mlp, VX_MLPK_DENSE, dense);
    cr_assert(moe == 24 && dense == 24);
    check_tallies(m, VX_STACK_DEC);
    for (int k = 0; k < m->layers.n_kinds; k++)
        if (m->layers.kind[k].mlp == VX_MLPK_DENSE) cr_assert_eq(m->layers.kind[k].ffn, 16384);
    vramest_model_free(m);
}

Test(family_llama4, cache_keeps_one_chunk_on_chunked_layers)
{
    /* 8 KV heads x 128 x bf16, K and V; 12 NoPE layers keep every token,
     * 36 chunked layers at most their 8192-token chunk */
    uint64_t per = 2ull * 8 * 128 * 2;
    cr_assert_eq(zoo_kv("zoo-params-llama-4-scout-17b-16e", "pytorch", 1, 4096), per * 48 * 4096);
    cr_assert_eq(zoo_kv("zoo-params-llama-4-scout-17b-16e", "pytorch", 1, 16384), per * (12ull * 16384 + 36ull * 8192));
}

Test(family_llama4, with_its_vision_tower)
{
    /* Maverick-FP8 as published: the language model read by the llama4
     * family, the Llama4VisionModel and projector by the wrapper's tower;
     * the zoo2 count (HF API total) exact. compressed-tensors' ignore list
     * names the vision model: the tower is stored bf16, 2 bytes a
     * parameter beside the fp8 experts. A LoRA step of the whole model runs */
    static const char *const id = "zoo2-params-llama-4-maverick-17b-128e-instruct-fp8";
    zoo_exact_in("zoo2.jsonl", id);
    vramest_model *m[2] = {NULL, NULL};
    uint64_t params[2], ckpt[2];
    for (int i = 0; i < 2; i++) {
        char *cfg = zoo_config(id, i ? "vision_config" : NULL);
        cr_assert_eq(vramest_model_new(&m[i]), VRAMEST_OK);
        cr_assert_eq(vx_parse_hf_config(m[i], cfg, strlen(cfg)), VRAMEST_OK, "%s", vramest_last_error_message());
        free(cfg);
        cr_assert_eq(vramest_model_param_count(m[i], &params[i], NULL), VRAMEST_OK);
        ckpt[i] = m[i]->checkpoint_bytes;
        vramest_model_free(m[i]);
    }
    cr_assert_gt(params[0], params[1]);
    cr_assert_eq(ckpt[0] - ckpt[1], 2 * (params[0] - params[1]), "tower: %llu params, %llu bytes",
                 (unsigned long long)(params[0] - params[1]), (unsigned long long)(ckpt[0] - ckpt[1]));
    char *v = zoo_value(id, "quantization_config");
    trains_model(v, id);
    free(v);
}

Test(family_llama4, trains_and_checks_its_lists)
{
    zoo_trains("zoo-params-llama-4-scout-17b-16e");
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo-params-llama-4-scout-17b-16e", "{\"moe_layers\":[0,2,5]}", &m), VRAMEST_E_UNSUPPORTED);
    cr_assert(strstr(vramest_last_error_message(), "moe_layers"), "%s", vramest_last_error_message());
    cr_assert_eq(zoo_model("zoo-params-llama-4-scout-17b-16e", "{\"no_rope_layers\":[1,1,1,0]}", &m),
                 VRAMEST_E_INVALID_MODEL);
}

/* ---- DeepSeek sparse attention ---- */

Test(family_dsa, counts_with_their_indexers)
{
    zoo_exact("zoo-params-deepseek-v3.2");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-glm-5");
    zoo_exact_in("zoo2.jsonl", "zoo2-params-glm-5.2");
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo2-params-glm-5.2", NULL, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    int64_t none;
    COUNT_KINDS(m, index_heads, 0, none);
    cr_assert_eq(78 - none, 21, "indexer_types: 21 layers run their indexer");
    check_tallies(m, VX_STACK_DEC);
    vramest_model_free(m);
}

Test(family_dsa, cache_holds_the_indexer_keys)
{
    /* DeepSeek-V3.2, 61 layers. transformers caches the decompressed K
     * (128 heads x 192) and V (128 x 128) plus the indexer key (128), all
     * bf16; vLLM the 576-wide latent in bf16 plus 132 bytes of fp8 indexer
     * key and scales */
    uint64_t hf = 61ull * ((128 * 192 + 128 * 128) * 2 + 128 * 2);
    cr_assert_eq(zoo_kv("zoo-params-deepseek-v3.2", "pytorch", 1, 1024), 1024 * hf);
    cr_assert_eq(zoo_kv("zoo-params-deepseek-v3.2", "pytorch", 2, 4096), 2 * 4096 * hf);
    zoo_trains("zoo2-params-glm-5");
}

Test(family_dsa, vllm_pool_tokens_carry_latent_and_indexer)
{
    /* GLM-5.2 on vLLM: 78 layers of a 576-wide bf16 latent, 21 of them with
     * a 132-byte indexer entry: the blocks' bytes per token (the pool is
     * the budget; its blocks hold max_tokens) */
    vramest_result *r = zoo_estimate("zoo2-params-glm-5.2", NULL,
                                     "\"precision\":\"bf16\",\"device\":\"H200\",\"parallel\":{\"gpus\":16,\"tp\":16},"
                                     "\"runtime\":{\"framework\":\"vllm\",\"max_model_len\":8192},\"workload\":{\"mode\":\"infer\"}");
    uint64_t pool = 0, tokens = 0, kv = 0;
    const uint64_t per_token = 78ull * 576 * 2 + 21ull * 132;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_KV_POOL_BYTES, &pool), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_MAX_TOKENS, &tokens), VRAMEST_OK);
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, &kv), VRAMEST_OK);
    cr_assert_gt(tokens, 0);
    cr_assert_eq(kv, tokens * per_token, "%llu bytes per token", (unsigned long long)(kv / tokens));
    cr_assert_lt(pool - kv, 16 * per_token, "the pool's remainder is less than a block");
    vramest_result_free(r);
}

Test(family_dsa, fp8_cache_is_flashmla_ds_mla_record)
{
    /* DeepSeek-V3.2 on vLLM with an fp8 cache: FlashMLA's fp8_ds_mla, 512
     * e4m3 + 4 fp32 scales + 64 bf16 rope = 656 bytes, plus the indexer's
     * 132, on each of 61 layers (SGLang PR 11309 prints the same) */
    vramest_result *r = zoo_estimate("zoo-params-deepseek-v3.2", NULL,
                                     "\"precision\":{\"weights\":\"fp8\",\"compute\":\"bf16\",\"kv_cache\":\"fp8\"},"
                                     "\"device\":\"H200\",\"parallel\":{\"gpus\":8,\"tp\":8},"
                                     "\"runtime\":{\"framework\":\"vllm\",\"max_model_len\":8192},\"workload\":{\"mode\":\"infer\"}");
    cr_assert_not_null(r, "%s", vramest_last_error_message());
    uint64_t tokens = 0, kv = category(r, VRAMEST_CAT_KV_CACHE);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_MAX_TOKENS, &tokens), VRAMEST_OK);
    cr_assert_gt(tokens, 0);
    cr_assert_eq(kv, tokens * 61 * (656 + 132), "%llu bytes per token", (unsigned long long)(kv / tokens));
    vramest_result_free(r);
}

Test(family_dsa, indexer_schedule_is_checked)
{
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo2-params-glm-5.2", "{\"indexer_types\":[\"full\"]}", &m), VRAMEST_E_INVALID_MODEL);
    char edit[2048] = "{\"indexer_types\":[";
    for (int i = 0; i < 78; i++) strcat(edit, i == 5 ? ",\"full\"" : i ? ",\"shared\"" : "\"full\"");
    strcat(edit, "]}");
    cr_assert_eq(zoo_model("zoo2-params-glm-5.2", edit, &m), VRAMEST_E_UNSUPPORTED, "%s", vramest_last_error_message());
    cr_assert_eq(zoo_model("zoo2-params-glm-5.2", "{\"mlp_layer_types\":[\"dense\"]}", &m), VRAMEST_E_INVALID_MODEL);
}

/* ---- checkpoints as stored (quantization_config, MTP layers on disk) ----
 * The totals below are the checkpoints' own: the HF API's
 * safetensors.total of each repository (values stored, scales included),
 * cached in github:AlexsJones/llmfit@a3e0eb27c5:llmfit-core/data/hf_models.json
 * and reconciled in /work/research/configs/NOTES.md. */

/* Values the checkpoint of a model stores: its inventory (parameters,
 * buffers kept in the file, scales) and the MTP layers beside it. */
static uint64_t stored_values(const vramest_model *m)
{
    uint64_t v = m->mtp_elems;
    for (size_t i = 0; i < m->n_inv; i++) v += vx_tensor_elems(&m->inv[i]);
    return v;
}

static uint64_t checkpoint_bytes(const vramest_model *m)
{
    cr_assert_eq(m->status, VRAMEST_OK);
    return m->checkpoint_bytes;
}

Test(checkpoint_storage, fp8_blocks_and_mtp_layers_are_the_checkpoints_totals)
{
    static const struct {
        const char *id;
        uint64_t total;
    } cases[] = {
        /* deepseek-ai/DeepSeek-V3.2: params + 62 indexers' and all fp8
         * 128x128 block scales + layer 61 with its embed/head copies */
        {"zoo-params-deepseek-v3.2", 685396921376ull},
        /* zai-org/GLM-5 (bf16): + e_score_correction_bias + layer 78 */
        {"zoo2-params-glm-5", 753864139008ull},
        /* zai-org/GLM-5-FP8: the same + 45,885,024 fp32 block scales */
        {"zoo2-params-glm-5-fp8", 753910024032ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        vramest_model *m;
        cr_assert_eq(zoo_model(cases[i].id, NULL, &m), VRAMEST_OK, "%s", vramest_last_error_message());
        cr_assert_eq(stored_values(m), cases[i].total, "%s: %llu values stored", cases[i].id,
                     (unsigned long long)stored_values(m));
        cr_assert_gt(m->mtp_bytes, 0);
        vramest_model_free(m);
    }
}

Test(checkpoint_storage, mxfp4_experts_take_17_bytes_per_32)
{
    /* gpt-oss-20b: 24 layers x 32 experts of gate_up (2880 x 5760) and
     * down (2880 x 2880) in MXFP4, the rest bf16 */
    uint64_t experts = 24ull * 32 * (2880ull * 5760 + 2880ull * 2880);
    vramest_model *m;
    cr_assert_eq(zoo_model("zoo-params-gpt-oss-20b", NULL, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t params = 0;
    cr_assert_eq(vramest_model_param_count(m, &params, NULL), VRAMEST_OK);
    cr_assert_eq(checkpoint_bytes(m), 2 * (params - experts) + experts / 32 * 17);
    cr_assert_eq(m->shape.torch_dtype, VRAMEST_DTYPE_BF16, "the unquantized rest is bf16 when the config says no dtype");
    vramest_model_free(m);
    /* held as stored by default and when the precision names the stored
     * format (the loaders quantize nothing else: attention, embeddings and
     * the head stay bf16); a float precision dequantizes them */
    static const char *const prec[] = {"\"workload\":{\"mode\":\"load\"}",
                                       "\"precision\":\"bf16\",\"workload\":{\"mode\":\"load\"}",
                                       "\"precision\":{\"weights\":\"mxfp4\",\"compute\":\"bf16\"},"
                                       "\"workload\":{\"mode\":\"load\"}"};
    uint64_t w[3];
    for (int i = 0; i < 3; i++) {
        vramest_result *r = zoo_estimate("zoo-params-gpt-oss-20b", NULL, prec[i]);
        w[i] = category(r, VRAMEST_CAT_WEIGHTS);
        if (i == 2)
            for (uint32_t k = 0; k < vramest_result_warning_count(r); k++)
                cr_assert_null(strstr(vramest_result_warning(r, k), "instead"), "%s", vramest_result_warning(r, k));
        vramest_result_free(r);
    }
    cr_assert_lt(w[0], 2 * (params - experts) + experts / 32 * 17 + (64u << 20), "as stored: %llu",
                 (unsigned long long)w[0]);
    cr_assert_geq(w[1], 2 * params, "bf16: %llu", (unsigned long long)w[1]);
    cr_assert_eq(w[2], w[0], "weights mxfp4 is the checkpoint as stored: %llu", (unsigned long long)w[2]);
}

Test(checkpoint_storage, llama_cpp_holds_what_gguf_conversion_writes)
{
    /* llama.cpp has no fp8 type: DeepSeek-V3.2's fp8 checkpoint is what
     * convert_hf_to_gguf.py writes, bf16 (its block scales, 1/16384 of
     * the weights, still counted); gpt-oss's MXFP4 experts are a GGML type
     * and stay MXFP4 */
    static const char *const cases[] = {"zoo-params-deepseek-v3.2", "zoo-params-gpt-oss-20b"};
    static const char *const prec[] = {"", "\"precision\":\"bf16\","};
    for (int i = 0; i < 2; i++) {
        uint64_t w[2];
        bool said = false;
        for (int p = 0; p < 2; p++) {
            char rest[512];
            snprintf(rest, sizeof rest,
                     "%s\"runtime\":{\"framework\":\"llama.cpp\",\"n_ctx\":4096},"
                     "\"workload\":{\"mode\":\"infer\",\"prompt_len\":512,\"gen_len\":16}",
                     prec[p]);
            vramest_result *r = zoo_estimate(cases[i], NULL, rest);
            cr_assert_not_null(r, "%s", vramest_last_error_message());
            w[p] = category(r, VRAMEST_CAT_WEIGHTS);
            for (uint32_t k = 0; p == 0 && k < vramest_result_warning_count(r); k++)
                said |= strstr(vramest_result_warning(r, k), "convert_hf_to_gguf") != NULL;
            vramest_result_free(r);
        }
        if (i == 0) {
            cr_assert_geq(w[0], w[1], "%s: %llu", cases[i], (unsigned long long)w[0]);
            cr_assert_lt(w[0], w[1] + w[1] / 1000, "%s: %llu", cases[i], (unsigned long long)w[0]);
            cr_assert(said, "the conversion is said");
        } else {
            cr_assert_lt(w[0], w[1] / 10 * 7, "%s stays MXFP4: %llu", cases[i], (unsigned long long)w[0]);
            cr_assert_not(said);
        }
    }
}

Test(checkpoint_storage, compressed_tensors_channel_fp8_keeps_the_ignored_modules)
{
    /* Llama-4-Maverick-FP8's language model: only the routed experts are
     * fp8 (its ignore list names attention, dense and shared MLPs, routers
     * and the head), one scale per output row: 24 MoE layers x 128 experts
     * x (16384 gate_up + 5120 down rows) = 66,060,288 scales, the
     * checkpoint's total over the bf16 model's */
    char *cfg = zoo_config("zoo2-params-llama-4-maverick-17b-128e-instruct-fp8", "vision_config");
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vx_parse_hf_config(m, cfg, strlen(cfg)), VRAMEST_OK, "%s", vramest_last_error_message());
    free(cfg);
    uint64_t params = 0, scales = 0, fp8 = 0;
    cr_assert_eq(vramest_model_param_count(m, &params, NULL), VRAMEST_OK);
    for (size_t i = 0; i < m->n_inv; i++) {
        const vx_tensor *t = &m->inv[i];
        if (!t->trainable_default && t->kind == VX_TK_OTHER) scales += vx_tensor_elems(t);
        if (t->dtype == VRAMEST_DTYPE_FP8_E4M3) {
            cr_assert(t->expert, "%s is fp8 but not an expert", t->name);
            fp8 += vx_tensor_elems(t);
        }
    }
    cr_assert_eq(stored_values(m) - params, scales);
    cr_assert_eq(scales, 24ull * 128 * (16384 + 5120));
    cr_assert_eq(fp8, 24ull * 128 * 3 * 5120 * 8192);
    vramest_model_free(m);
}
