/* Files that hold less than their model (issue #19 item 1): a 70B
 * config.json beside a safetensors file holding only the embedding, or a
 * single 16-element tensor; a GGUF with 70B metadata and one tiny tensor.
 * Loaders initialise the missing weights, so the estimate counts them at
 * the configuration's size and says so in its first warning; a file set
 * that holds less than the model is never the weights figure. Also: an
 * index whose total_size disagrees with its shards, and a config.json whose
 * quantization_config names a method the precision does not follow.
 * Black-box, on sparse files in a temporary directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "modelfiles.h"

TestSuite(incomplete, .fini = drop_tmp, .timeout = 60);

/* Llama 3.1 70B (tests/data/models/llama-3.1-70b.json): bf16 parameters. */
#define P70 70553706496ull

static void write_70b_config(void)
{
    size_t len;
    char *cfg = vt_read_data("models/llama-3.1-70b.json", &len);
    write_file("config.json", cfg, len);
    free(cfg);
}

typedef struct verdict {
    uint64_t weights, total, capacity;
    int fits, provenance;
    char first_warning[256];
} verdict;

/* A model's load on a device of `gib` GiB; llama.cpp holds tensors at
 * their exact bytes (the PyTorch runtimes round each to 512 bytes). */
static verdict estimate(const vramest_model *m, double gib)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FRAMEWORK, "llama.cpp"), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_MEMORY_GIB, gib), VRAMEST_OK, "%s", msg());
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, NULL, c, &r), VRAMEST_OK, "%s", msg());
    verdict v = {0};
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &v.weights), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &v.total), VRAMEST_OK);
    uint64_t fits = 0;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_FITS, &fits), VRAMEST_OK);
    v.fits = (int)fits;
    cr_assert_eq(vramest_result_provenance(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &v.provenance), VRAMEST_OK);
    const char *w = vramest_result_warning(r, 0);
    snprintf(v.first_warning, sizeof v.first_warning, "%s", w ? w : "");
    vramest_result_free(r);
    vramest_config_free(c);
    return v;
}

static vramest_model *parse_dir(void)
{
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_OK, "%s", msg());
    return m;
}

static void expect_whole_70b(const vramest_model *m, uint64_t min_bytes)
{
    uint64_t total = 0;
    cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
    cr_assert_eq(total, P70);
    verdict v = estimate(m, 16);
    cr_assert_geq(v.weights, min_bytes, "weights %llu: the files' share only", (unsigned long long)v.weights);
    cr_assert_eq(v.fits, 0, "a 70B job admitted on 16 GiB");
    cr_assert(strstr(v.first_warning, "files lack") && strstr(v.first_warning, "q_proj"), "warning: %s",
              v.first_warning);
    /* Most of the figure comes from the architecture, not the files. */
    cr_assert_eq(v.provenance, VRAMEST_PROV_EXACT_ARCH);
}

Test(incomplete, config_70b_with_only_the_embedding)
{
    make_tmp();
    write_70b_config();
    st_t emb = {"model.embed_tokens.weight", "BF16", 2, {128256, 8192}};
    st_write_sparse("model.safetensors", &emb, 1);
    vramest_model *m = parse_dir();
    expect_whole_70b(m, 2 * P70);
    vramest_model_free(m);
}

Test(incomplete, config_70b_with_one_16_element_tensor)
{
    static const char *const names[] = {"x", "model.norm.weight", "model.layers.0.mlp.down_proj.weight"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        make_tmp();
        write_70b_config();
        st_t one = {names[i], "F32", 1, {16}};
        st_write_sparse("model.safetensors", &one, 1);
        vramest_model *m = new_model();
        int rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir);
        /* A layer's tensor says 1 layer against the config's 80: a conflict. */
        if (rc == VRAMEST_OK)
            expect_whole_70b(m, 2 * P70 - 2 * 128256ull * 8192);
        else
            cr_assert_eq(rc, VRAMEST_E_CONFLICT, "%s: %s", names[i], msg());
        vramest_model_free(m);
        drop_tmp();
    }
}

/* The 70B architecture in GGUF metadata, and one tensor. */
static void write_70b_gguf(const gt *t, size_t n)
{
    gkv k;
    memset(&k, 0, sizeof k);
    kv_str(&k, "general.architecture", "llama");
    kv_u32(&k, "llama.block_count", 80);
    kv_u32(&k, "llama.context_length", 8192);
    kv_u32(&k, "llama.embedding_length", 8192);
    kv_u32(&k, "llama.feed_forward_length", 28672);
    kv_u32(&k, "llama.attention.head_count", 64);
    kv_u32(&k, "llama.attention.head_count_kv", 8);
    kv_u32(&k, "llama.vocab_size", 128256);
    gguf_write_sparse("model.gguf", &k, t, n);
    free(k.b.p);
}

Test(incomplete, gguf_with_70b_metadata_and_one_tiny_tensor)
{
    make_tmp();
    gt t[1];
    size_t n = 0;
    gt_add(t, &n, GT_F32, 1, 16, 0, 0, "x");
    write_70b_gguf(t, n);
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("model.gguf")), VRAMEST_OK, "%s", msg());
    verdict v = estimate(m, 16);
    cr_assert_geq(v.weights, P70 / 8, "weights %llu", (unsigned long long)v.weights);
    cr_assert_eq(v.fits, 0);
    cr_assert(strstr(v.first_warning, "files lack"), "%s", v.first_warning);
    vramest_model_free(m);
    drop_tmp();

    /* The embedding alone, Q4_K: the layers it lacks count at Q4_K too;
     * without output.weight a GGUF's head is tied (llama.cpp's rule). */
    make_tmp();
    n = 0;
    gt_add(t, &n, GT_Q4_K, 2, 8192, 128256, 0, "token_embd.weight");
    write_70b_gguf(t, n);
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("model.gguf")), VRAMEST_OK, "%s", msg());
    v = estimate(m, 16);
    uint64_t q4k = (P70 - 128256ull * 8192) / 256 * 144;
    cr_assert(v.weights >= q4k && v.weights < q4k + q4k / 20, "weights %llu, Q4_K 70B %llu", (unsigned long long)v.weights,
              (unsigned long long)q4k);
    cr_assert_eq(v.fits, 0);
    vramest_model_free(m);
}

/* Tensors named as the architecture names them but far too small (the
 * MLP's gate and up: shapes that no other check compares). */
Test(incomplete, tensors_too_small_for_their_names_count_as_missing)
{
    make_tmp();
    tiny s;
    tiny_llama(&s, TL);
    for (size_t i = 0; i < s.n; i++)
        if (strstr(s.t[i].name, "gate_proj") || strstr(s.t[i].name, "up_proj")) s.t[i].dims[0] = 1, s.t[i].dims[1] = 1;
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    write_file("model.safetensors", f, fl);
    free(f);
    write_file("config.json", tiny_config(TL), strlen(tiny_config(TL)));
    vramest_model *m = parse_dir();
    verdict v = estimate(m, 16);
    cr_assert(strstr(v.first_warning, "files lack") && strstr(v.first_warning, "gate_proj x3"), "%s", v.first_warning);
    cr_assert_geq(v.weights, tiny_bytes(TL), "weights %llu", (unsigned long long)v.weights);
    vramest_model_free(m);
}

Test(incomplete, a_whole_checkpoint_has_no_warning_and_its_exact_bytes)
{
    make_tmp();
    write_tiny("model.safetensors", "config.json");
    vramest_model *m = parse_dir();
    verdict v = estimate(m, 16);
    cr_assert_str_empty(v.first_warning);
    cr_assert_eq(v.weights, tiny_bytes(TL));
    cr_assert_eq(v.provenance, VRAMEST_PROV_EXACT_FILE);
    vramest_model_free(m);
}

Test(incomplete, index_total_size_against_its_shards)
{
    make_tmp();
    write_tiny("model-00001-of-00001.safetensors", "config.json");
    write_index("model-00001-of-00001.safetensors", tiny_bytes(TL) + 4096);
    vramest_model *m = parse_dir();
    verdict v = estimate(m, 16);
    /* The shards are exact and decide; the stale index is reported. */
    cr_assert_eq(v.weights, tiny_bytes(TL));
    cr_assert(strstr(v.first_warning, "total_size") != NULL, "%s", v.first_warning);
    vramest_model_free(m);
    write_index("model-00001-of-00001.safetensors", tiny_bytes(TL));
    m = parse_dir();
    cr_assert_str_empty(estimate(m, 16).first_warning);
    vramest_model_free(m);
}

/* config.json's quantization_config against the precision of the estimate. */
static const char *quant_warning(const char *quant_config, const char *precision, char *out, size_t cap)
{
    char cfg[2048];
    const char *base = tiny_config(TL);
    snprintf(cfg, sizeof cfg, "{%s%s", quant_config, base + 1);
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK, "%s", msg());
    vramest_precision *p = NULL;
    cr_assert_eq(precision ? vramest_precision_new_preset(precision, &p) : vramest_precision_new(&p), VRAMEST_OK,
                 "%s", msg());
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, p, NULL, &r), VRAMEST_OK, "%s", msg());
    out[0] = '\0';
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
        if (strstr(vramest_result_warning(r, i), "quantization_config"))
            snprintf(out, cap, "%s", vramest_result_warning(r, i));
    vramest_result_free(r);
    vramest_precision_free(p);
    vramest_model_free(m);
    return out;
}

Test(incomplete, quantization_config_is_never_silently_ignored)
{
    char w[256];
    /* a method libvramest does not model: a warning with the assumption */
    quant_warning("\"quantization_config\": {\"quant_method\": \"hqq\", \"nbits\": 2}, ", NULL, w, sizeof w);
    cr_assert(strstr(w, "'hqq'") && strstr(w, "does not model") && strstr(w, "assumed"), "%s", w);
    /* a known method the precision does not follow */
    quant_warning("\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4}, ", NULL, w, sizeof w);
    cr_assert(strstr(w, "'gptq'") && strstr(w, "quant_method gptq"), "%s", w);
    /* followed: nothing to say */
    quant_warning("\"quantization_config\": {\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true}, ", "nf4",
                  w, sizeof w);
    cr_assert_str_empty(w);
    /* no name, or bytes that are not a name: said as unnamed, never echoed */
    quant_warning("\"quantization_config\": {\"bits\": 4}, ", NULL, w, sizeof w);
    cr_assert(strstr(w, "(unnamed)"), "%s", w);
    quant_warning("\"quantization_config\": {\"quant_method\": \"a b'c\"}, ", NULL, w, sizeof w);
    cr_assert(strstr(w, "(unnamed)") && !strstr(w, "a b'c"), "%s", w);
    quant_warning("", NULL, w, sizeof w);
    cr_assert_str_empty(w);
}
