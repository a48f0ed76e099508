/* Tencent Hunyuan (issue #16): Hunyuan-A13B's real config.json
 * (tests/data/models/hunyuan-a13b.json = github:tianyu1412/Hunyuan-A13B@
 * 2798f3c8b6:models/config.json, the remote-code "hunyuan" type) counted by
 * hand from the classes (docs/methodology.md, Hunyuan), the per-layer lists
 * read as one value, the transformers-native model types, the KV cache at
 * two lengths, a training step, and what is refused by name. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "model/hf_config.h"
#include "model/model.h"

static char *a13b(void)
{
    size_t len;
    char *cfg = vt_read_data("models/hunyuan-a13b.json", &len);
    cr_assert(cfg);
    return cfg;
}

static int read_config(const char *text, vramest_model **out)
{
    cr_assert_eq(vramest_model_new(out), VRAMEST_OK);
    return vx_parse_hf_config(*out, text, strlen(text));
}

/* The config with the first `from` replaced by `to`. */
static char *edited(const char *from, const char *to)
{
    char *t = a13b(), *p = strstr(t, from);
    cr_assert(p, "%s", from);
    size_t n = strlen(t) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - t), t, to, p + strlen(from));
    free(t);
    return out;
}

static uint64_t count_of(const char *text)
{
    vramest_model *m;
    cr_assert_eq(read_config(text, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t got = 0;
    cr_assert_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
    vramest_model_free(m);
    return got;
}

/* HunYuanMoEV1ForCausalLM by hand: embed V h (tied head) + final norm h;
 * per layer q, o (32 x 128) and k, v (8 x 128), query/key_layernorm 128
 * each, 2 norms, router wg E h, E experts and the shared MLP, each a gated
 * MLP 3 h 3072. */
static const uint64_t H = 4096, V = 128167, E = 64, F = 3072, L = 32;
static uint64_t a13b_by_hand(void)
{
    uint64_t layer = 2 * H * 32 * 128 + 2 * H * 8 * 128 + 2 * 128 + 2 * H + E * H + (E + 1) * 3 * H * F;
    return V * H + H + L * layer;
}

Test(family_hunyuan, a13b_is_the_hand_count)
{
    cr_assert_eq(a13b_by_hand(), 80393183232ull);
    char *t = a13b();
    cr_assert_eq(count_of(t), a13b_by_hand());
    vramest_model *m;
    cr_assert_eq(read_config(t, &m), VRAMEST_OK);
    /* the lists' one value: top-8 of 64, one shared MLP of 3072 */
    cr_assert_eq(m->shape.experts, 64);
    cr_assert_eq(m->shape.experts_per_tok, 8);
    cr_assert_eq(m->shape.moe_ffn, 3072);
    cr_assert_eq(m->shape.shared_ffn, 3072);
    cr_assert(m->shape.tied);
    vramest_model_free(m);
    free(t);
}

/* Hunyuan-0.5B's geometry as transformers' hunyuan_v1_dense (16 heads of
 * 128 beside hidden 1024, 8 K/V heads, tied) */
static const char *const SMALL =
    "{\"model_type\":\"hunyuan_v1_dense\",\"hidden_size\":1024,\"num_hidden_layers\":24,"
    "\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":128,"
    "\"intermediate_size\":3584,\"vocab_size\":120818,\"tie_word_embeddings\":true}";

Test(family_hunyuan, dense_cache_and_training)
{
    char model[512];
    snprintf(model, sizeof model, "{\"hf_config\":%s}", SMALL);
    /* bf16: 24 layers, K and V of 8 heads x 128 per token */
    const uint64_t per_token = 24ull * 2 * 8 * 128 * 2;
    cr_assert_eq(kv_bytes_of(model, "pytorch", 1, 1024), per_token * 1024);
    cr_assert_eq(kv_bytes_of(model, "pytorch", 4, 4096), per_token * 4 * 4096);
    trains_model(model, "hunyuan_v1_dense");
}

Test(family_hunyuan, native_model_types)
{
    /* transformers' hunyuan_v1_moe reads the same file (head_dim from
     * hidden / heads) to the same module */
    char *t = edited("\"model_type\": \"hunyuan\"", "\"model_type\": \"hunyuan_v1_moe\"");
    cr_assert_eq(count_of(t), a13b_by_hand());
    free(t);
    /* without use_mixed_mlp_moe the remote class builds no shared MLP; the
     * native one always does */
    t = edited("\"use_mixed_mlp_moe\": true", "\"use_mixed_mlp_moe\": false");
    cr_assert_eq(count_of(t), a13b_by_hand() - L * 3 * H * F);
    free(t);
    /* num_experts 1: the remote class's dense layer (Hunyuan-7B's remote
     * config), one MLP of intermediate_size */
    t = edited("\"num_experts\": 64", "\"num_experts\": 1");
    uint64_t dense = V * H + H + L * (2 * H * 32 * 128 + 2 * H * 8 * 128 + 2 * 128 + 2 * H + 3 * H * F);
    cr_assert_eq(count_of(t), dense);
    free(t);
    /* hunyuan_v1_dense: Llama with the q/k norms, head_dim from the config
     * (Hunyuan-0.5B: 16 heads of 128 beside hidden 1024), tied */
    const uint64_t h = 1024;
    uint64_t want = 120818 * h + h + 24 * (2 * h * 16 * 128 + 2 * h * 8 * 128 + 2 * 128 + 2 * h + 3 * h * 3584);
    cr_assert_eq(count_of(SMALL), want);
}

Test(family_hunyuan, cache_by_hand_at_two_lengths)
{
    /* bf16: 32 layers, K and V of 8 heads x 128 per token */
    char *t = a13b();
    size_t n = strlen(t) + 32;
    char *model = malloc(n);
    snprintf(model, n, "{\"hf_config\":%s}", t);
    const uint64_t per_token = 32ull * 2 * 8 * 128 * 2;
    cr_assert_eq(kv_bytes_of(model, "pytorch", 1, 512), per_token * 512);
    cr_assert_eq(kv_bytes_of(model, "pytorch", 2, 8192), per_token * 2 * 8192);
    free(model);
    free(t);
}

Test(family_hunyuan, trains)
{
    char *t = a13b();
    size_t n = strlen(t) + 32;
    char *model = malloc(n);
    snprintf(model, n, "{\"hf_config\":%s}", t);
    trains_model(model, "hunyuan-a13b");
    free(model);
    free(t);
}

Test(family_hunyuan, cross_layer_attention)
{
    /* use_cla with cla_share_factor 2 (Hunyuan-Large's form): the odd
     * layers' HunYuanAttention is 'cross', without k_proj and v_proj */
    char *t = edited("\"use_cla\": false", "\"use_cla\": true");
    cr_assert_eq(count_of(t), a13b_by_hand() - 16 * 2 * H * 8 * 128);
    vramest_model *m;
    cr_assert_eq(read_config(t, &m), VRAMEST_OK);
    cr_assert_eq(m->shape.cla, 2);
    int reuse = 0;
    for (int k = 0; k < m->layers.n_kinds; k++) reuse += m->layers.kind[k].kv_reuse;
    cr_assert_eq(reuse, 1, "one kind of follower layers");
    vramest_model_free(m);
    /* every layer still holds a cache of its own (HF's remote code updates
     * the cache under each layer's index, vLLM gives each its Attention) */
    size_t n = strlen(t) + 32;
    char *model = malloc(n);
    snprintf(model, n, "{\"hf_config\":%s}", t);
    cr_assert_eq(kv_bytes_of(model, "pytorch", 1, 512), 32ull * 2 * 8 * 128 * 2 * 512);
    trains_model(model, "hunyuan with CLA");
    free(model);
    free(t);
    /* without use_cla the factor the file writes means nothing; factor 3 */
    t = edited("\"cla_share_factor\": 2", "\"cla_share_factor\": 3");
    cr_assert_eq(count_of(t), a13b_by_hand());
    free(t);
    /* transformers' classes have no cross-layer form */
    char *u = edited("\"use_cla\": false", "\"use_cla\": true");
    t = malloc(strlen(u) + 8);
    char *p = strstr(u, "\"model_type\": \"hunyuan\"");
    cr_assert(p);
    sprintf(t, "%.*s\"model_type\": \"hunyuan_v1_moe\"%s", (int)(p - u), u, p + strlen("\"model_type\": \"hunyuan\""));
    cr_assert_eq(read_config(t, &m), VRAMEST_E_UNSUPPORTED);
    cr_assert(strstr(vramest_last_error_message(), "use_cla"), "%s", vramest_last_error_message());
    vramest_model_free(m);
    free(t);
    free(u);
}

Test(family_hunyuan, what_is_not_modelled_is_refused_by_name)
{
    static const char *const cases[][3] = {
        {"\"use_mla\": false", "\"use_mla\": true", "use_mla"},
        {"\"moe_layer_num_skipped\": 0", "\"moe_layer_num_skipped\": 2", "moe_layer_num_skipped"},
        /* a per-layer list whose entries differ */
        {"\"moe_topk\": [\n    8,\n    8,", "\"moe_topk\": [\n    8,\n    4,", "moe_topk"},
        {"\"num_shared_expert\": [\n    1,", "\"num_shared_expert\": [\n    \"1\",", "num_shared_expert"},
        {"\"moe_intermediate_size\": [", "\"moe_intermediate_size\": [], \"x\": [", "moe_intermediate_size"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = edited(cases[i][0], cases[i][1]);
        vramest_model *m;
        int rc = read_config(t, &m);
        cr_assert_neq(rc, VRAMEST_OK, "%s", cases[i][2]);
        cr_assert(strstr(vramest_last_error_message(), cases[i][2]), "%s: %s", cases[i][2],
                  vramest_last_error_message());
        vramest_model_free(m);
        free(t);
    }
}

Test(family_hunyuan, checkpoint_names)
{
    /* the tensor names of the released checkpoints (model.layers.N.mlp.gate.wg,
     * mlp.shared_mlp.*, self_attn.query_layernorm / key_layernorm: the names
     * HunYuanMoE and HunYuanAttention register) read back as the inventory's
     * roles */
    static const named_role nr[] = {
        {"model.layers.3.mlp.gate.wg.weight", VX_ROLE_ROUTER, "wg"},
        {"model.layers.3.mlp.shared_mlp.gate_proj.weight", VX_ROLE_SHARED_GATE, "gate_proj"},
        {"model.layers.3.mlp.shared_mlp.down_proj.weight", VX_ROLE_SHARED_DOWN, "down_proj"},
        {"model.layers.3.mlp.experts.7.up_proj.weight", VX_ROLE_EXPERT_UP, "up_proj"},
        {"model.layers.3.self_attn.query_layernorm.weight", VX_ROLE_NORM, "query_layernorm"},
        {"model.layers.3.self_attn.key_layernorm.weight", VX_ROLE_NORM, "key_layernorm"},
    };
    names_read_as(nr, sizeof nr / sizeof *nr);
}
