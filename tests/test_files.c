/* Model files: safetensors headers, indexes and sharded directories, GGUF
 * headers. Every file here is written by the test itself from the public
 * format descriptions (safetensors: 8-byte LE length + JSON header; GGUF
 * v2/v3: ggml/docs/gguf.md), in memory and to a temporary directory. Checks
 * byte-exact sizes, parameter counts, grouping, conflicts, atomicity, and
 * that every truncation and malformation gives NEED_MORE_DATA or a specific
 * error, never a crash. White-box: inspects the model's file inventory. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/files.h"
#include "model/model.h"
#include "modelfiles.h"

static const vx_tensor *find_group(const vramest_model *m, const char *name, int kind, int part)
{
    for (size_t i = 0; i < m->n_file_inv; i++)
        if (!strcmp(m->file_inv[i].name, name) && m->file_inv[i].kind == kind && m->file_inv[i].part == part)
            return &m->file_inv[i];
    return NULL;
}

static uint64_t file_elems(const vramest_model *m, bool trainable_only)
{
    uint64_t s = 0;
    for (size_t i = 0; i < m->n_file_inv; i++)
        if (!trainable_only || m->file_inv[i].trainable_default) s += vx_tensor_elems(&m->file_inv[i]);
    return s;
}

static uint64_t file_bytes_sum(const vramest_model *m)
{
    uint64_t s = 0;
    for (size_t i = 0; i < m->n_file_inv; i++) s += m->file_inv[i].file_bytes;
    return s;
}

TestSuite(files, .fini = drop_tmp);

/* ---- safetensors: the happy path ------------------------------------------------- */

Test(files, safetensors_mixed_dtypes_exact_bytes_and_groups)
{
    tiny s;
    tiny_llama(&s, TL);
    size_t hl, fl;
    uint64_t dl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, &dl);
    cr_assert_eq(dl, tiny_bytes(TL));
    vramest_model *m = new_model();
    size_t needed = 77;
    /* The header alone is enough; the data may follow or not. */
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, &needed), VRAMEST_OK, "%s", msg());
    cr_assert_eq(needed, 0);
    cr_assert(m->has_file_inv);
    cr_assert_eq(m->file_total_bytes, tiny_bytes(TL));
    cr_assert_eq(file_bytes_sum(m), tiny_bytes(TL));
    cr_assert_eq(file_elems(m, true), tiny_params(TL));
    /* 3 layers x 9 tensors + 3 globals collapse to 9 + 3 groups. */
    cr_assert_eq(m->n_file_inv, 12);
    const vx_tensor *q = find_group(m, "q_proj", VX_TK_MATRIX, VX_PART_DECODER);
    cr_assert_not_null(q);
    cr_assert_eq(q->role, VX_ROLE_ATTN_Q);
    cr_assert_eq(q->n_layers, TL);
    cr_assert_eq(q->n_per_layer, 1);
    cr_assert_eq(q->dtype, VRAMEST_DTYPE_FP16);
    cr_assert_eq(q->file_bytes, (uint64_t)TL * TH * TH * 2);
    const vx_tensor *k = find_group(m, "k_proj", VX_TK_MATRIX, VX_PART_DECODER);
    cr_assert_eq(k->rows, TKV);
    cr_assert_eq(k->cols, TH);
    const vx_tensor *n = find_group(m, "input_layernorm", VX_TK_NORM, VX_PART_DECODER);
    cr_assert_not_null(n);
    cr_assert_eq(n->dtype, VRAMEST_DTYPE_FP32);
    cr_assert_eq(n->role, VX_ROLE_NORM);
    const vx_tensor *fn = find_group(m, "norm", VX_TK_NORM, VX_PART_GLOBAL);
    cr_assert_eq(fn->role, VX_ROLE_FINAL_NORM);
    cr_assert_eq(find_group(m, "embed_tokens", VX_TK_EMBED, VX_PART_GLOBAL)->role, VX_ROLE_EMBED);
    cr_assert_eq(find_group(m, "lm_head", VX_TK_MATRIX, VX_PART_GLOBAL)->role, VX_ROLE_LM_HEAD);
    cr_assert_eq(find_group(m, "gate_proj", VX_TK_MATRIX, VX_PART_DECODER)->role, VX_ROLE_MLP_GATE);
    cr_assert_eq(find_group(m, "down_proj", VX_TK_MATRIX, VX_PART_DECODER)->rows, TH);
    /* What shapes tell is filled in; heads are not inferable. */
    int64_t v;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    cr_assert_eq(v, TL);
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, TH);
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_VOCAB_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, TV);
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_INTERMEDIATE_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, TF);
    /* The names give the family and the shapes the attention's widths
     * (issue #16 item 5): load is exact; the heads' split is asked for by
     * name beyond it (test_family_dec.c). */
    cr_assert_eq(vramest_model_validate(m), VRAMEST_OK, "%s", msg());
    const char *mt = NULL;
    cr_assert_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &mt), VRAMEST_OK);
    cr_assert_str_eq(mt, "llama");
    cr_assert(m->shape.heads_from_files);
    uint64_t from_shapes;
    cr_assert_eq(vramest_model_param_count(m, &from_shapes, NULL), VRAMEST_OK);
    cr_assert_eq(from_shapes, tiny_params(TL));
    /* config.json completes the architecture; the file's tensors stay. */
    const char *cfg = tiny_config(TL);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_AUTO, cfg, strlen(cfg), NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_validate(m), VRAMEST_OK, "%s", msg());
    uint64_t total;
    cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
    cr_assert_eq(total, tiny_params(TL));
    cr_assert_eq(m->file_total_bytes, tiny_bytes(TL));
    cr_assert_eq(m->n_inv, m->n_file_inv); /* the inventory is the file's */
    /* A whole checkpoint read again replaces, it does not add up. */
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(TL));
    cr_assert_eq(m->n_file_inv, 12);
    vramest_model_free(m);
    free(f);
}

Test(files, config_first_then_header_and_auto_detection)
{
    tiny s;
    tiny_llama(&s, TL);
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    const char *cfg = tiny_config(TL);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_AUTO, f, fl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(TL));
    cr_assert_eq(vramest_model_validate(m), VRAMEST_OK, "%s", msg());
    vramest_model_free(m);
    free(f);
}

Test(files, every_safetensors_dtype)
{
    static const char *const dts[] = {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ",
                                      "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16", "I32", "U32", "F32",
                                      "F64", "I64", "U64", "C64", "F4", "F6_E2M3", "F6_E3M2"};
    st_t t[32];
    char names[32][32];
    size_t n = sizeof dts / sizeof dts[0];
    uint64_t expect = 0;
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "extra.t%zu", i);
        t[i] = (st_t){names[i], dts[i], 2, {4, 8}};
        expect += st_bytes(&t[i]);
    }
    size_t hl, fl;
    uint8_t *f = st_build(t, n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, expect);
    /* F4 packs two per byte, F6 four per three bytes. */
    cr_assert_eq(st_bytes(&(st_t){"x", "F4", 2, {4, 8}}), 16);
    cr_assert_eq(st_bytes(&(st_t){"x", "F6_E2M3", 2, {4, 8}}), 24);
    vramest_model_free(m);
    free(f);
}

/* ---- safetensors: truncation and malformations ---------------------------------------- */

Test(files, safetensors_truncated_at_every_byte)
{
    tiny s;
    tiny_llama(&s, 2);
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    for (size_t k = 0; k < hl; k++) {
        size_t needed = 0;
        int rc = parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, k, &needed);
        cr_assert_eq(rc, VRAMEST_E_NEED_MORE_DATA, "prefix %zu: %d %s", k, rc, msg());
        cr_assert_eq(needed, k < 8 ? 8 : hl, "prefix %zu: needed %zu", k, needed);
        cr_assert_eq(m->has_file_inv, 0);
        /* AUTO cannot tell below 9 bytes, then knows. */
        rc = parse_mem(m, VRAMEST_SRC_AUTO, f, k, &needed);
        cr_assert_eq(rc, VRAMEST_E_NEED_MORE_DATA, "auto prefix %zu: %d %s", k, rc, msg());
        cr_assert_eq(needed, k < 9 ? 9 : hl);
    }
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    vramest_model_free(m);
    free(f);
}

static void expect_st_error(const char *json, int code, const char *needle)
{
    size_t len;
    uint8_t *f = st_raw(json, &len);
    vramest_model *m = new_model();
    int rc = parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, len, NULL);
    cr_assert_eq(rc, code, "%s -> %d (%s)", json, rc, msg());
    if (needle) assert_msg(needle);
    if (rc) cr_assert_eq(m->has_file_inv, 0);
    vramest_model_free(m);
    free(f);
}

#define T1 "\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}"

Test(files, safetensors_malformed_headers)
{
    expect_st_error("{" T1 "}", VRAMEST_OK, NULL);
    /* structure */
    expect_st_error("[]", VRAMEST_E_PARSE, "'{'");
    expect_st_error("{" T1, VRAMEST_E_PARSE, "byte");
    expect_st_error("{" T1 ",}", VRAMEST_E_PARSE, "after ','");
    expect_st_error("{" T1 "} x", VRAMEST_E_PARSE, "after the header object");
    expect_st_error("{\"a\":[]}", VRAMEST_E_PARSE, "'a'");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2]}}", VRAMEST_E_PARSE, "no 'data_offsets'");
    expect_st_error("{\"a\":{\"shape\":[2,2],\"data_offsets\":[0,8]}}", VRAMEST_E_PARSE, "no 'dtype'");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}",
                    VRAMEST_E_PARSE, "two 'dtype'");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8,9]}}", VRAMEST_E_PARSE,
                    "more than two");
    expect_st_error("{\"__metadata__\":{\"k\":1}," T1 "}", VRAMEST_E_PARSE, "__metadata__");
    expect_st_error("{\"__metadata__\":{},\"__metadata__\":{}," T1 "}", VRAMEST_E_PARSE, "two __metadata__");
    /* dtypes, shapes */
    expect_st_error("{\"a\":{\"dtype\":\"F7\",\"shape\":[2],\"data_offsets\":[0,2]}}", VRAMEST_E_UNSUPPORTED,
                    "unknown dtype 'F7' of tensor 'a'");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[-2,2],\"data_offsets\":[0,8]}}", VRAMEST_E_PARSE,
                    "negative");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2.5,2],\"data_offsets\":[0,8]}}", VRAMEST_E_PARSE,
                    "not an integer");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2199023255553],\"data_offsets\":[0,8]}}",
                    VRAMEST_E_LIMIT, "exceeds");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[99999999999999999999999],\"data_offsets\":[0,8]}}",
                    VRAMEST_E_LIMIT, "'a'");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[1099511627776,1099511627776,1099511627776],"
                    "\"data_offsets\":[0,8]}}",
                    VRAMEST_E_OVERFLOW, "'a'");
    expect_st_error("{\"a\":{\"dtype\":\"F64\",\"shape\":[1099511627776,1099511627776],\"data_offsets\":[0,8]}}",
                    VRAMEST_E_OVERFLOW, "'a'");
    expect_st_error("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", VRAMEST_E_PARSE,
                    "whole bytes");
    /* offsets */
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,6]}}", VRAMEST_E_PARSE,
                    "span 6 bytes");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[8,0]}}", VRAMEST_E_PARSE,
                    "end before");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[4,12]}}", VRAMEST_E_PARSE,
                    "gap of 4 bytes");
    expect_st_error("{" T1 ",\"b\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[4,12]}}", VRAMEST_E_PARSE,
                    "overlaps");
    expect_st_error("{" T1 ",\"b\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[12,16]}}", VRAMEST_E_PARSE,
                    "'b'");
    expect_st_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[-1,8]}}", VRAMEST_E_PARSE,
                    "negative");
    /* Any order of entries is fine when the offsets tile the data. */
    expect_st_error("{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}," T1 "}", VRAMEST_OK, NULL);
    /* zero-size tensors share an offset */
    expect_st_error("{\"z\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[0,0]}," T1
                    ",\"y\":{\"dtype\":\"F16\",\"shape\":[2,0],\"data_offsets\":[8,8]}}",
                    VRAMEST_OK, NULL);
    /* names */
    expect_st_error("{" T1 ",\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[8,12]}}", VRAMEST_E_PARSE,
                    "duplicate tensor name 'a'");
    expect_st_error("{" T1 ",\"\\u0061\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[8,12]}}", VRAMEST_E_PARSE,
                    "duplicate tensor name 'a' at bytes 9 and");
    expect_st_error("{\"a\xff\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", VRAMEST_E_PARSE,
                    "not valid UTF-8");
    expect_st_error("{\"a\xc0\xaf\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", VRAMEST_E_PARSE,
                    "not valid UTF-8");
    expect_st_error("{\"a\\ud800\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", VRAMEST_E_PARSE,
                    "surrogate");
    expect_st_error("{\"a\\u0000\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", VRAMEST_E_PARSE,
                    "\\u0000");
    expect_st_error("{\"\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", VRAMEST_E_PARSE, "empty");
    /* A valid escaped name, and UTF-8 names. */
    expect_st_error("{\"caf\\u00e9.\\ud83d\\ude00\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                    "\"\xe6\xa8\xa1\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[4,8]}}",
                    VRAMEST_OK, NULL);
    /* nesting */
    char deep[400] = "{\"__metadata__\":{},\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4],\"x\":";
    for (int i = 0; i < 80; i++) strcat(deep, "[");
    for (int i = 0; i < 80; i++) strcat(deep, "]");
    strcat(deep, "}}");
    expect_st_error(deep, VRAMEST_E_LIMIT, "nesting");
}

Test(files, safetensors_header_length_limits)
{
    uint8_t head[16] = {0};
    /* Absurd length: the limit, before anything else. */
    uint64_t n = (uint64_t)1 << 40;
    for (int i = 0; i < 8; i++) head[i] = (uint8_t)(n >> (8 * i));
    head[8] = '{';
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, head, 9, NULL), VRAMEST_E_LIMIT);
    assert_msg("limit");
    n = VX_MAX_HEADER_BYTES + 1ull;
    for (int i = 0; i < 8; i++) head[i] = (uint8_t)(n >> (8 * i));
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, head, 9, NULL), VRAMEST_E_LIMIT);
    /* In memory a large length is just a prefix to grow... */
    n = 1000;
    for (int i = 0; i < 8; i++) head[i] = (uint8_t)(n >> (8 * i));
    size_t needed = 0;
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, head, 16, &needed), VRAMEST_E_NEED_MORE_DATA);
    cr_assert_eq(needed, 1008);
    /* ...from a file, beyond its end it is an error. */
    make_tmp();
    write_file("short.safetensors", head, 16);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("short.safetensors")), VRAMEST_E_PARSE);
    assert_msg("past the end");
    write_file("tiny.safetensors", head, 5);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("tiny.safetensors")), VRAMEST_E_PARSE);
    /* Data shorter than the header says: truncated download. */
    tiny s;
    tiny_llama(&s, 1);
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    write_file("cut.safetensors", f, fl - 1);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("cut.safetensors")), VRAMEST_E_PARSE);
    assert_msg("the file has");
    write_file("ok.safetensors", f, fl);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("ok.safetensors")), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(1));
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("missing.safetensors")), VRAMEST_E_IO);
    vramest_model_free(m);
    free(f);
}

/* ---- conflicts and atomicity -------------------------------------------------------- */

Test(files, conflict_config_vs_tensors_leaves_model_unchanged)
{
    tiny s;
    tiny_llama(&s, TL);
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    /* config says 5 layers, tensors show 3 */
    vramest_model *m = new_model();
    const char *cfg = tiny_config(5);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_E_CONFLICT);
    assert_msg("num_hidden_layers = 5");
    assert_msg("show 3 layers");
    cr_assert_eq(m->has_file_inv, 0);
    cr_assert_eq(m->n_file_inv, 0);
    int64_t v;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    cr_assert_eq(v, 5);
    vramest_model_free(m);

    /* tensors first, then a config that disagrees on the hidden size */
    m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK);
    char bad[1024];
    snprintf(bad, sizeof bad, "%s", tiny_config(TL));
    char *p = strstr(bad, "\"hidden_size\": 64");
    cr_assert_not_null(p);
    memcpy(p, "\"hidden_size\": 96", 17);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, bad, strlen(bad), NULL), VRAMEST_E_CONFLICT);
    assert_msg("hidden_size = 96");
    assert_msg("64");
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, TH);
    cr_assert_eq(m->file_total_bytes, tiny_bytes(TL));
    /* A failing header leaves the model as it was. */
    size_t n_before = m->n_file_inv;
    uint8_t *g = exact(f, hl);
    g[hl - 9] = 'x'; /* break the JSON inside the last entry */
    cr_assert_neq(vramest_model_parse(m, VRAMEST_SRC_SAFETENSORS_HEADER, g, hl, NULL), VRAMEST_OK);
    cr_assert_eq(m->n_file_inv, n_before);
    cr_assert_eq(m->file_total_bytes, tiny_bytes(TL));
    free(g);
    vramest_model_free(m);
    free(f);
}

/* A config.json read after a whole checkpoint must match its layers both
 * ways; after a shard it may only be larger (the other shards hold the rest). */
Test(files, config_after_whole_checkpoint_checks_fewer_layers_too)
{
    tiny s;
    tiny_llama(&s, TL);
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    char more[1024], same[1024]; /* tiny_config() returns one static buffer */
    snprintf(more, sizeof more, "%s", tiny_config(TL + 2));
    snprintf(same, sizeof same, "%s", tiny_config(TL));
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, more, strlen(more), NULL), VRAMEST_E_CONFLICT);
    assert_msg("num_hidden_layers");
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, same, strlen(same), NULL), VRAMEST_OK, "%s", msg());
    vramest_model_free(m);
    free(f);

    /* the first shard of a larger model: no final norm, no lm_head */
    tiny_llama(&s, TL);
    s.n -= 2;
    f = st_build(s.t, s.n, &hl, &fl, NULL);
    m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, more, strlen(more), NULL), VRAMEST_OK, "%s", msg());
    vramest_model_free(m);
    free(f);
}

/* ---- MoE grouping, buffers, other layouts ---------------------------------------------- */

Test(files, moe_experts_grouped_per_layer)
{
    tiny s;
    memset(&s, 0, sizeof s);
    enum { E = 4, L = 2 };
    tiny_add(&s, "BF16", 2, TV, TH, "model.embed_tokens.weight");
    for (int l = 0; l < L; l++) {
        tiny_add(&s, "BF16", 2, E, TH, "model.layers.%d.block_sparse_moe.gate.weight", l);
        for (int e = 0; e < E; e++) {
            tiny_add(&s, "BF16", 2, TF, TH, "model.layers.%d.block_sparse_moe.experts.%d.w1.weight", l, e);
            tiny_add(&s, "BF16", 2, TH, TF, "model.layers.%d.block_sparse_moe.experts.%d.w2.weight", l, e);
            tiny_add(&s, "BF16", 2, TF, TH, "model.layers.%d.block_sparse_moe.experts.%d.w3.weight", l, e);
        }
        tiny_add(&s, "BF16", 2, TH, TH, "model.layers.%d.self_attn.o_proj.weight", l);
        tiny_add(&s, "F32", 1, 64, 0, "model.layers.%d.self_attn.rotary_emb.inv_freq", l);
    }
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    const vx_tensor *w1 = find_group(m, "w1", VX_TK_MATRIX, VX_PART_DECODER);
    cr_assert_not_null(w1);
    cr_assert_eq(w1->role, VX_ROLE_EXPERT_GATE);
    cr_assert_eq(w1->expert, 1);
    cr_assert_eq(w1->n_layers, L);
    cr_assert_eq(w1->n_per_layer, E);
    cr_assert_eq(w1->file_bytes, (uint64_t)L * E * TF * TH * 2);
    cr_assert_eq(find_group(m, "w2", VX_TK_MATRIX, VX_PART_DECODER)->role, VX_ROLE_EXPERT_DOWN);
    cr_assert_eq(find_group(m, "gate", VX_TK_MATRIX, VX_PART_DECODER)->role, VX_ROLE_ROUTER);
    const vx_tensor *inv = find_group(m, "inv_freq", VX_TK_OTHER, VX_PART_DECODER);
    cr_assert_not_null(inv);
    cr_assert_eq(inv->trainable_default, 0);
    int64_t v;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_LOCAL_EXPERTS, &v), VRAMEST_OK);
    cr_assert_eq(v, E);
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, TF);
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    cr_assert_eq(v, L);
    vramest_model_free(m);
    free(f);
}

Test(files, gpt2_conv1d_mask_buffers_and_mtp_layers)
{
    tiny s;
    memset(&s, 0, sizeof s);
    tiny_add(&s, "F32", 2, TV, TH, "wte.weight");
    tiny_add(&s, "F32", 2, 32, TH, "wpe.weight");
    for (int l = 0; l < 2; l++) {
        tiny_add(&s, "F32", 2, TH, 3 * TH, "h.%d.attn.c_attn.weight", l); /* Conv1D: [in, out] */
        tiny_add(&s, "F32", 1, 3 * TH, 0, "h.%d.attn.c_attn.bias", l);
        tiny_add(&s, "F32", 2, TH, TH, "h.%d.attn.c_proj.weight", l);
        tiny_add(&s, "F32", 2, TH, 4 * TH, "h.%d.mlp.c_fc.weight", l);
        tiny_add(&s, "F32", 2, 4 * TH, TH, "h.%d.mlp.c_proj.weight", l);
        tiny_add(&s, "F32", 1, TH, 0, "h.%d.ln_1.weight", l);
        tiny_add(&s, "F32", 1, TH, 0, "h.%d.ln_1.bias", l);
        st_t *b = &s.t[s.n];
        tiny_add(&s, "BOOL", 2, 1, 1, "h.%d.attn.bias", l);
        b->nd = 4, b->dims[2] = 32, b->dims[3] = 32;
    }
    tiny_add(&s, "F32", 1, TH, 0, "ln_f.weight");
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    const vx_tensor *qkv = find_group(m, "c_attn", VX_TK_MATRIX, VX_PART_DECODER);
    cr_assert_eq(qkv->rows, 3 * TH); /* out features */
    cr_assert_eq(qkv->cols, TH);
    cr_assert_eq(find_group(m, "c_attn", VX_TK_BIAS, VX_PART_DECODER)->role, VX_ROLE_ATTN_QKV);
    const vx_tensor *down = NULL;
    for (size_t i = 0; i < m->n_file_inv; i++)
        if (m->file_inv[i].role == VX_ROLE_MLP_DOWN) down = &m->file_inv[i];
    cr_assert_eq(down->rows, TH);
    const vx_tensor *ln = find_group(m, "ln_1", VX_TK_NORM, VX_PART_DECODER);
    cr_assert_eq(ln->n_per_layer, 2); /* weight + bias */
    const vx_tensor *mask = find_group(m, "attn.bias", VX_TK_OTHER, VX_PART_DECODER);
    cr_assert_not_null(mask);
    cr_assert_eq(mask->trainable_default, 0);
    cr_assert_eq(find_group(m, "ln_f", VX_TK_NORM, VX_PART_GLOBAL)->role, VX_ROLE_FINAL_NORM);
    int64_t v;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, &v), VRAMEST_OK);
    cr_assert_eq(v, TH);
    vramest_model_free(m);
    free(f);

    /* A multi-token-prediction layer (DeepSeek-V3's layer 61) is not a model layer. */
    tiny_llama(&s, 2);
    tiny_layer(&s, 2);
    tiny_add(&s, "F16", 2, TH, 2 * TH, "model.layers.2.eh_proj.weight");
    tiny_add(&s, "F32", 1, TH, 0, "model.layers.2.enorm.weight");
    f = st_build(s.t, s.n, &hl, &fl, NULL);
    m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    cr_assert_eq(v, 2);
    const char *cfg = tiny_config(2);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK, "%s", msg());
    vramest_model_free(m);
    free(f);
}

Test(files, bert_layers_are_encoder_part)
{
    tiny s;
    memset(&s, 0, sizeof s);
    tiny_add(&s, "F32", 2, TV, TH, "bert.embeddings.word_embeddings.weight");
    tiny_add(&s, "F32", 1, TH, 0, "bert.embeddings.LayerNorm.weight");
    tiny_add(&s, "I64", 2, 1, 32, "bert.embeddings.position_ids");
    for (int l = 0; l < 2; l++) {
        tiny_add(&s, "F32", 2, TH, TH, "bert.encoder.layer.%d.attention.self.query.weight", l);
        tiny_add(&s, "F32", 2, TH, TH, "bert.encoder.layer.%d.attention.output.dense.weight", l);
        tiny_add(&s, "F32", 2, TF, TH, "bert.encoder.layer.%d.intermediate.dense.weight", l);
        tiny_add(&s, "F32", 2, TH, TF, "bert.encoder.layer.%d.output.dense.weight", l);
        tiny_add(&s, "F32", 1, TH, 0, "bert.encoder.layer.%d.output.LayerNorm.bias", l);
    }
    tiny_add(&s, "F32", 2, TH, TH, "bert.pooler.dense.weight");
    tiny_add(&s, "F32", 1, TV, 0, "cls.predictions.bias");
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    const vx_tensor *o = NULL, *up = NULL, *down = NULL;
    for (size_t i = 0; i < m->n_file_inv; i++) {
        const vx_tensor *t = &m->file_inv[i];
        if (t->role == VX_ROLE_ATTN_O) o = t;
        if (t->role == VX_ROLE_MLP_UP) up = t;
        if (t->role == VX_ROLE_MLP_DOWN) down = t;
    }
    cr_assert(o && up && down);
    cr_assert_eq(o->part, VX_PART_ENCODER);
    cr_assert_eq(up->rows, TF);
    cr_assert_eq(down->rows, TH);
    cr_assert_eq(find_group(m, "LayerNorm", VX_TK_NORM, VX_PART_GLOBAL)->role, VX_ROLE_EMBED_NORM);
    cr_assert_eq(find_group(m, "dense", VX_TK_MATRIX, VX_PART_GLOBAL)->role, VX_ROLE_POOLER);
    cr_assert_eq(find_group(m, "predictions", VX_TK_BIAS, VX_PART_GLOBAL)->role, VX_ROLE_LM_HEAD);
    cr_assert_eq(find_group(m, "position_ids", VX_TK_OTHER, VX_PART_GLOBAL)->trainable_default, 0);
    int64_t v;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    cr_assert_eq(v, 2);
    vramest_model_free(m);
    free(f);
}

/* ---- index and directories --------------------------------------------------------- */

static void write_sharded(int layers, bool with_config, bool with_index, const char *missing_from_shard)
{
    tiny s;
    tiny_llama(&s, layers);
    /* shard 1: embedding + first half of the layers; shard 2: the rest */
    size_t split = 1 + 9 * (size_t)(layers / 2);
    size_t hl, fl;
    uint8_t *a = st_build(s.t, split, &hl, &fl, NULL);
    write_file("model-00001-of-00002.safetensors", a, fl);
    free(a);
    size_t rest = s.n - split;
    st_t second[128];
    size_t k = 0;
    for (size_t i = 0; i < rest; i++)
        if (!missing_from_shard || strcmp(s.t[split + i].name, missing_from_shard)) second[k++] = s.t[split + i];
    uint8_t *b = st_build(second, k, &hl, &fl, NULL);
    write_file("model-00002-of-00002.safetensors", b, fl);
    free(b);
    if (with_index) {
        buf j = {0};
        putf(&j, "{\n  \"metadata\": {\"total_size\": %llu},\n  \"weight_map\": {", (unsigned long long)tiny_bytes(layers));
        for (size_t i = 0; i < s.n; i++)
            putf(&j, "%s\n    \"%s\": \"model-0000%d-of-00002.safetensors\"", i ? "," : "", s.t[i].name,
                 i < split ? 1 : 2);
        putf(&j, "\n  }\n}\n");
        write_file("model.safetensors.index.json", j.p, j.n);
        free(j.p);
    }
    if (with_config) {
        const char *cfg = tiny_config(layers);
        write_file("config.json", cfg, strlen(cfg));
    }
}

Test(files, directory_with_config_two_shards_and_index)
{
    make_tmp();
    write_sharded(4, true, true, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(4));
    cr_assert_eq(vramest_model_validate(m), VRAMEST_OK, "%s", msg());
    uint64_t total;
    cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
    cr_assert_eq(total, tiny_params(4));
    cr_assert_eq(file_elems(m, true), tiny_params(4));
    /* layers split across shards still group into one */
    cr_assert_eq(find_group(m, "q_proj", VX_TK_MATRIX, VX_PART_DECODER)->n_layers, 4);
    cr_assert_eq(m->n_file_inv, 12);
    vramest_model_free(m);

    /* the same through each file */
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("config.json")), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("model.safetensors.index.json")), VRAMEST_OK,
                 "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(4));
    vramest_model_free(m);
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_DIRECTORY, tmpdir), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(4));
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_HF_CONFIG_JSON, tmpdir), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_DIRECTORY, tmp_path("config.json")), VRAMEST_E_INVALID_ARG);
    vramest_model_free(m);

    /* shards parsed one by one in memory merge the same way */
    m = new_model();
    for (int i = 1; i <= 2; i++) {
        char name[64];
        snprintf(name, sizeof name, "model-0000%d-of-00002.safetensors", i);
        FILE *fp = fopen(tmp_path(name), "rb");
        /* Fetch just what the parser asks for: 9 bytes to detect, then the header. */
        size_t have = 0, needed = 0;
        uint8_t *h = NULL;
        int rc;
        while ((rc = parse_mem(m, VRAMEST_SRC_AUTO, h, have, &needed)) == VRAMEST_E_NEED_MORE_DATA) {
            cr_assert_gt(needed, have);
            h = realloc(h, needed);
            rewind(fp);
            cr_assert_eq(fread(h, 1, needed, fp), needed);
            have = needed;
        }
        cr_assert_eq(rc, VRAMEST_OK, "%s", msg());
        fclose(fp);
        free(h);
    }
    cr_assert_eq(m->file_total_bytes, tiny_bytes(4));
    cr_assert_eq(find_group(m, "q_proj", VX_TK_MATRIX, VX_PART_DECODER)->n_layers, 4);
    vramest_model_free(m);
}

Test(files, index_alone_and_broken_directories)
{
    make_tmp();
    write_sharded(4, true, true, NULL);
    char *idx;
    {
        FILE *fp = fopen(tmp_path("model.safetensors.index.json"), "rb");
        fseek(fp, 0, SEEK_END);
        long n = ftell(fp);
        rewind(fp);
        idx = calloc(1, (size_t)n + 1);
        cr_assert_eq(fread(idx, 1, (size_t)n, fp), (size_t)n);
        fclose(fp);
    }
    /* In memory: names and total size, no shapes. */
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_AUTO, (const uint8_t *)idx, strlen(idx), NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->has_file_inv, 0);
    cr_assert_eq(m->file_total_bytes, tiny_bytes(4));
    int64_t v;
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    cr_assert_eq(v, 4);
    /* a config that disagrees with the index's layers */
    vramest_model_free(m);
    m = new_model();
    const char *cfg = tiny_config(6);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_INDEX, (const uint8_t *)idx, strlen(idx), NULL),
                 VRAMEST_E_CONFLICT);
    vramest_model_free(m);
    /* malformed indexes */
    m = new_model();
    const char *bad[] = {
        "{\"metadata\": {}}",
        "{\"weight_map\": {\"a\": \"../x.safetensors\"}}",
        "{\"weight_map\": {\"a\": \"x.safetensors\", \"a\": \"y.safetensors\"}}",
        "{\"weight_map\": {\"a\": 3}}",
        "{\"metadata\": {\"total_size\": -5}, \"weight_map\": {}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_INDEX, (const uint8_t *)bad[i], strlen(bad[i]), NULL),
                     VRAMEST_E_PARSE, "%s: %s", bad[i], msg());
    vramest_model_free(m);
    free(idx);

    /* A tensor the index names is absent from its shard. */
    drop_tmp();
    make_tmp();
    write_sharded(4, true, true, "model.norm.weight");
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_E_CONFLICT);
    assert_msg("model.norm.weight");
    /* A shard missing from the directory. */
    drop_tmp();
    make_tmp();
    write_sharded(4, true, true, NULL);
    cr_assert_eq(unlink(tmp_path("model-00002-of-00002.safetensors")), 0);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_E_IO);
    assert_msg("model-00002-of-00002.safetensors");
    /* Shards without an index: a complete set is one model. */
    drop_tmp();
    make_tmp();
    write_sharded(4, true, false, NULL);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, tiny_bytes(4));
    vramest_model_free(m);
    /* config says 6 layers, shards hold 4: conflict, model unchanged */
    drop_tmp();
    make_tmp();
    write_sharded(4, false, true, NULL);
    cfg = tiny_config(6);
    write_file("config.json", cfg, strlen(cfg));
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_E_CONFLICT);
    cr_assert_eq(m->has_file_inv, 0);
    cr_assert_neq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &v), VRAMEST_OK);
    vramest_model_free(m);
    /* an empty directory */
    drop_tmp();
    make_tmp();
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_E_IO);
    vramest_model_free(m);
}

/* ---- GGUF tests --------------------------------------------------------------------- */

Test(files, gguf_quantized_llama_v3_and_v2)
{
    for (uint32_t version = 2; version <= 3; version++)
        for (int tied = 0; tied <= 1; tied++) {
            gkv k;
            gguf_llama_kv(&k, GL);
            gt t[64];
            size_t n = gguf_llama_tensors(t, GL, tied);
            size_t hl, fl;
            uint64_t db;
            uint8_t *f = gguf_build(version, &k, t, n, &hl, &fl, &db);
            cr_assert_eq(db, gguf_llama_bytes(GL, tied));
            vramest_model *m = new_model();
            cr_assert_eq(parse_mem(m, VRAMEST_SRC_AUTO, f, hl, NULL), VRAMEST_OK, "v%u: %s", version, msg());
            cr_assert_eq(m->file_total_bytes, gguf_llama_bytes(GL, tied));
            cr_assert_eq(vramest_model_validate(m), VRAMEST_OK, "%s", msg());
            uint64_t total;
            cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
            cr_assert_eq(total, gguf_llama_params(GL, tied), "%llu", (unsigned long long)total);
            cr_assert_eq(file_elems(m, true), gguf_llama_params(GL, tied));
            int64_t v;
            const char *s;
            cr_assert_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &s), VRAMEST_OK);
            cr_assert_str_eq(s, "llama");
            vramest_model_get_i64(m, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, &v);
            cr_assert_eq(v, 2);
            vramest_model_get_i64(m, VRAMEST_MODEL_VOCAB_SIZE, &v);
            cr_assert_eq(v, GV);
            vramest_model_get_i64(m, VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, &v);
            cr_assert_eq(v, 512);
            vramest_model_get_i64(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS, &v);
            cr_assert_eq(v, tied);
            cr_assert_str_eq(m->name, "tiny-llama");
            const vx_tensor *q = find_group(m, "q_proj", VX_TK_MATRIX, VX_PART_DECODER);
            cr_assert_not_null(q);
            cr_assert_eq(q->dtype, 100 + GT_Q4_K);
            cr_assert_eq(q->n_layers, GL);
            cr_assert_eq(q->file_bytes, (uint64_t)GL * GH * GH / 256 * 144);
            const vx_tensor *kp = find_group(m, "k_proj", VX_TK_MATRIX, VX_PART_DECODER);
            cr_assert_eq(kp->rows, GKV); /* ne1 = out */
            cr_assert_eq(kp->cols, GH);
            cr_assert_eq(find_group(m, "down_proj", VX_TK_MATRIX, VX_PART_DECODER)->rows, GH);
            cr_assert_eq(find_group(m, "embed_tokens", VX_TK_EMBED, VX_PART_GLOBAL)->rows, GV);
            /* Files too: read in growing prefixes. */
            make_tmp();
            write_file("tiny.gguf", f, fl);
            vramest_model *m2 = new_model();
            cr_assert_eq(vramest_model_parse_file(m2, VRAMEST_SRC_AUTO, tmp_path("tiny.gguf")), VRAMEST_OK, "%s", msg());
            cr_assert_eq(m2->file_total_bytes, gguf_llama_bytes(GL, tied));
            vramest_model_free(m2);
            m2 = new_model();
            cr_assert_eq(vramest_model_parse_file(m2, VRAMEST_SRC_AUTO, tmpdir), VRAMEST_OK, "%s", msg());
            cr_assert_eq(m2->file_total_bytes, gguf_llama_bytes(GL, tied));
            vramest_model_free(m2);
            drop_tmp();
            vramest_model_free(m);
            free(k.b.p);
            free(f);
        }
}

Test(files, gguf_truncated_at_every_byte)
{
    gkv k;
    gguf_llama_kv(&k, GL);
    gt t[64];
    size_t n = gguf_llama_tensors(t, GL, false);
    size_t hl, fl;
    uint8_t *f = gguf_build(3, &k, t, n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    for (size_t len = 0; len < hl; len++) {
        size_t needed = 0;
        int rc = parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, len, &needed);
        cr_assert_eq(rc, VRAMEST_E_NEED_MORE_DATA, "prefix %zu: %d %s", len, rc, msg());
        cr_assert(needed > len && needed <= hl, "prefix %zu: needed %zu of %zu", len, needed, hl);
        cr_assert_eq(m->has_file_inv, 0);
    }
    /* A caller looping on `needed` converges on the header. */
    size_t have = 0, rounds = 0, needed = 0;
    int rc;
    while ((rc = parse_mem(m, VRAMEST_SRC_AUTO, f, have, &needed)) == VRAMEST_E_NEED_MORE_DATA) {
        cr_assert(needed > have);
        have = needed;
        rounds++;
    }
    cr_assert_eq(rc, VRAMEST_OK, "%s", msg());
    cr_assert_leq(have, hl);
    cr_assert_gt(rounds, 3);
    vramest_model_free(m);
    /* A file cut inside its header: an error, not a request. */
    make_tmp();
    write_file("cut.gguf", f, hl - 3);
    m = new_model();
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("cut.gguf")), VRAMEST_E_PARSE);
    assert_msg("file ends");
    /* ...or in its data */
    write_file("cutdata.gguf", f, fl - 40);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("cutdata.gguf")), VRAMEST_E_PARSE);
    assert_msg("past the end");
    write_file("empty.gguf", f, 0);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("empty.gguf")), VRAMEST_E_PARSE);
    vramest_model_free(m);
    free(k.b.p);
    free(f);
}

/* A header with given KVs and tensors, parsed from memory. */
static int gguf_try(uint32_t version, const gkv *k, const gt *t, size_t n, size_t *needed)
{
    size_t hl, fl;
    uint8_t *f = gguf_build_ex(version, k, t, n, &hl, &fl, NULL, false);
    vramest_model *m = new_model();
    int rc = parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, hl, needed);
    if (rc) cr_assert_eq(m->has_file_inv, 0);
    vramest_model_free(m);
    free(f);
    return rc;
}

static void base_kv(gkv *k)
{
    memset(k, 0, sizeof *k);
    kv_str(k, "general.architecture", "llama");
    kv_u32(k, "llama.block_count", 1);
    kv_u32(k, "llama.embedding_length", GH);
}

Test(files, gguf_malformed)
{
    gkv k;
    gt t[8];
    size_t n = 0, needed = 0;
    gt_add(t, &n, GT_F32, 1, GH, 0, 0, "blk.0.attn_norm.weight");
    base_kv(&k);
    cr_assert_eq(gguf_try(3, &k, t, n, NULL), VRAMEST_OK, "%s", msg());
    /* version 1, unknown versions, big-endian */
    cr_assert_eq(gguf_try(1, &k, t, n, NULL), VRAMEST_E_UNSUPPORTED);
    assert_msg("version 1");
    cr_assert_eq(gguf_try(4, &k, t, n, NULL), VRAMEST_E_UNSUPPORTED);
    cr_assert_eq(gguf_try(0x03000000u, &k, t, n, NULL), VRAMEST_E_UNSUPPORTED);
    assert_msg("big-endian");
    /* wrong magic */
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, (const uint8_t *)"GGML\3\0\0\0", 8, NULL), VRAMEST_E_PARSE);
    assert_msg("magic");
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, (const uint8_t *)"GX", 2, NULL), VRAMEST_E_PARSE);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, (const uint8_t *)"GG", 2, &needed), VRAMEST_E_NEED_MORE_DATA);
    cr_assert_eq(needed, 4);
    /* counts */
    buf b = {0};
    put(&b, "GGUF", 4), put_u32(&b, 3), put_u64(&b, (uint64_t)1 << 50), put_u64(&b, 0);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    assert_msg("tensor count");
    b.n = 8, put_u64(&b, 0), put_u64(&b, (uint64_t)1 << 40);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    assert_msg("metadata count");
    /* a string longer than any header */
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), put_u64(&b, (uint64_t)1 << 62);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    /* arrays: absurd length, and a length beyond the buffer */
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), g_str(&b, "x.arr"), put_u32(&b, G_ARR), put_u32(&b, G_U32);
    size_t at = b.n;
    put_u64(&b, (uint64_t)1 << 61), put_u32(&b, 1);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    assert_msg("x.arr");
    b.n = at, put_u64(&b, 1000), put_u32(&b, 1);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, &needed), VRAMEST_E_NEED_MORE_DATA);
    cr_assert_eq(needed, at + 8 + 4000);
    make_tmp();
    write_file("arr.gguf", b.p, b.n);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("arr.gguf")), VRAMEST_E_PARSE);
    assert_msg("x.arr");
    /* string array with an absurd count */
    b.n = at - 4, put_u32(&b, G_STR), put_u64(&b, (uint64_t)1 << 60);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    /* unknown value type, unknown element type */
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), g_str(&b, "x.t"), put_u32(&b, 13), put_u32(&b, 0);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_PARSE);
    assert_msg("unknown value type 13");
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), g_str(&b, "x.t"), put_u32(&b, G_ARR), put_u32(&b, 99), put_u64(&b, 0);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_PARSE);
    /* deeply nested arrays */
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), g_str(&b, "x.deep"), put_u32(&b, G_ARR);
    for (int i = 0; i < 100; i++) put_u32(&b, G_ARR), put_u64(&b, 1);
    put_u32(&b, G_U8), put_u64(&b, 0);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    /* key not UTF-8, key too long */
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), put_u64(&b, 2), put(&b, "\xff\xfe", 2), put_u32(&b, G_U8),
        put(&b, "\0", 1);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_PARSE);
    b.n = 8, put_u64(&b, 0), put_u64(&b, 1), put_u64(&b, 70000);
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, b.p, b.n, NULL), VRAMEST_E_LIMIT);
    free(b.p);
    vramest_model_free(m);

    /* duplicate key */
    free(k.b.p);
    base_kv(&k);
    kv_u32(&k, "llama.block_count", 1);
    cr_assert_eq(gguf_try(3, &k, t, n, NULL), VRAMEST_E_PARSE);
    assert_msg("duplicate metadata key 'llama.block_count'");
    free(k.b.p);
    /* no / unknown architecture, bad alignment */
    memset(&k, 0, sizeof k);
    kv_u32(&k, "llama.block_count", 1);
    cr_assert_eq(gguf_try(3, &k, t, n, NULL), VRAMEST_E_PARSE);
    assert_msg("general.architecture");
    free(k.b.p);
    memset(&k, 0, sizeof k);
    kv_str(&k, "general.architecture", "rwkv6");
    cr_assert_eq(gguf_try(3, &k, t, n, NULL), VRAMEST_E_UNKNOWN_MODEL_TYPE);
    assert_msg("'rwkv6'");
    free(k.b.p);
    base_kv(&k);
    kv_u32(&k, "general.alignment", 24);
    cr_assert_eq(gguf_try(3, &k, t, n, NULL), VRAMEST_E_PARSE);
    assert_msg("alignment");
    free(k.b.p);

    base_kv(&k);
    /* tensor infos */
    struct { gt t; int code; const char *needle; } cases[] = {
        {{"blk.0.attn_q.weight", 5, GT_F32, {1, 1, 1, 1, 1}}, VRAMEST_E_PARSE, "5 dimensions"},
        {{"blk.0.attn_q.weight", 2, GT_F32, {(uint64_t)1 << 41, 1}}, VRAMEST_E_LIMIT, "dimension 0"},
        {{"blk.0.attn_q.weight", 2, GT_F32, {(uint64_t)-5, 1}}, VRAMEST_E_LIMIT, "negative"},
        {{"blk.0.attn_q.weight", 3, GT_F32, {(uint64_t)1 << 40, (uint64_t)1 << 40, (uint64_t)1 << 40}},
         VRAMEST_E_OVERFLOW, "2^64"},
        {{"blk.0.attn_q.weight", 2, 4, {32, 1}}, VRAMEST_E_UNSUPPORTED, "unknown ggml type 4"},
        {{"blk.0.attn_q.weight", 2, 99, {32, 1}}, VRAMEST_E_UNSUPPORTED, "unknown ggml type 99"},
        {{"blk.0.attn_q.weight", 2, GT_Q4_K, {128, 2}}, VRAMEST_E_PARSE, "whole q4_k blocks"},
        {{"blk.0.\xff", 1, GT_F32, {4}}, VRAMEST_E_PARSE, "UTF-8"},
        {{"", 1, GT_F32, {4}}, VRAMEST_E_PARSE, "empty"},
        {{"blk.0.attn_norm.weight", 1, GT_F32, {4}}, VRAMEST_E_PARSE, "duplicate tensor name 'blk.0.attn_norm.weight'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gt two[2] = {t[0], cases[i].t};
        int rc = gguf_try(3, &k, two, 2, NULL);
        cr_assert_eq(rc, cases[i].code, "case %zu: %d %s", i, rc, msg());
        assert_msg(cases[i].needle);
    }
    /* misaligned and overlapping data offsets: patch the offset field */
    gt two[2] = {t[0], t[0]};
    snprintf(two[1].name, sizeof two[1].name, "blk.0.ffn_norm.weight");
    size_t hl, fl;
    uint8_t *f = gguf_build(3, &k, two, 2, &hl, &fl, NULL);
    m = new_model();
    uint8_t *g = exact(f, hl);
    g[hl - 8] = 8; /* second tensor's offset: 1024 -> 1032 */
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, g, hl, NULL), VRAMEST_E_PARSE);
    assert_msg("alignment");
    g[hl - 8] = 0, g[hl - 7] = 2; /* 512: inside the first tensor's 1024 bytes */
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, g, hl, NULL), VRAMEST_E_PARSE);
    assert_msg("overlaps");
    free(g);
    vramest_model_free(m);
    free(f);
    free(k.b.p);
}

Test(files, gguf_metadata_conflicts_with_tensors)
{
    gkv k;
    gguf_llama_kv(&k, 3); /* says 3 blocks */
    gt t[64];
    size_t n = gguf_llama_tensors(t, GL, false); /* holds 2 */
    cr_assert_eq(gguf_try(3, &k, t, n, NULL), VRAMEST_E_CONFLICT);
    assert_msg("num_hidden_layers = 3");
    assert_msg("show 2 layers");
    free(k.b.p);
    /* GGUF metadata vs a config already parsed */
    gguf_llama_kv(&k, GL);
    size_t hl, fl;
    uint8_t *f = gguf_build(3, &k, t, n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    const char *cfg = "{\"model_type\": \"llama\", \"hidden_size\": 512, \"num_hidden_layers\": 2, "
                      "\"num_attention_heads\": 4, \"intermediate_size\": 512, \"vocab_size\": 32, "
                      "\"max_position_embeddings\": 512}";
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, hl, NULL), VRAMEST_E_CONFLICT);
    assert_msg("llama.embedding_length");
    assert_msg("512");
    cr_assert_eq(m->has_file_inv, 0);
    vramest_model_free(m);
    free(f);
    free(k.b.p);
}

Test(files, gguf_moe_experts_and_deepseek_mla)
{
    gkv k;
    memset(&k, 0, sizeof k);
    kv_str(&k, "general.architecture", "qwen3moe");
    kv_u32(&k, "qwen3moe.block_count", 2);
    kv_u32(&k, "qwen3moe.embedding_length", GH);
    kv_u32(&k, "qwen3moe.attention.head_count", 4);
    kv_u32(&k, "qwen3moe.attention.head_count_kv", 2);
    kv_u32(&k, "qwen3moe.attention.key_length", 64);
    kv_u32(&k, "qwen3moe.attention.value_length", 64);
    kv_u32(&k, "qwen3moe.expert_count", 8);
    kv_u32(&k, "qwen3moe.expert_used_count", 2);
    kv_u32(&k, "qwen3moe.expert_feed_forward_length", 256);
    kv_u32(&k, "qwen3moe.context_length", 1024);
    gt t[64];
    size_t n = 0;
    gt_add(t, &n, GT_Q8_0, 2, GH, GV, 0, "token_embd.weight");
    for (int l = 0; l < 2; l++) {
        gt_add(t, &n, GT_F32, 2, GH, 8, 0, "blk.%d.ffn_gate_inp.weight", l);
        gt_add(t, &n, GT_Q4_K, 3, GH, 256, 8, "blk.%d.ffn_gate_exps.weight", l);
        gt_add(t, &n, GT_Q4_K, 3, GH, 256, 8, "blk.%d.ffn_up_exps.weight", l);
        gt_add(t, &n, GT_Q6_K, 3, 256, GH, 8, "blk.%d.ffn_down_exps.weight", l);
        gt_add(t, &n, GT_Q8_0, 2, GH, GH, 0, "blk.%d.attn_output.weight", l);
        gt_add(t, &n, GT_F32, 1, 64, 0, 0, "blk.%d.attn_q_norm.weight", l);
    }
    size_t hl, fl;
    uint64_t db;
    uint8_t *f = gguf_build(3, &k, t, n, &hl, &fl, &db);
    vramest_model *m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(m->file_total_bytes, db);
    const vx_tensor *g = find_group(m, "gate_proj", VX_TK_MATRIX, VX_PART_DECODER);
    cr_assert_not_null(g);
    cr_assert_eq(g->role, VX_ROLE_EXPERT_GATE);
    cr_assert_eq(g->expert, 1);
    cr_assert_eq(g->n_layers, 2);
    cr_assert_eq(g->n_per_layer, 8);
    cr_assert_eq(g->rows, 256);
    cr_assert_eq(g->cols, GH);
    cr_assert_eq(g->file_bytes, 2ull * 8 * GH * 256 / 256 * 144);
    cr_assert_eq(find_group(m, "gate", VX_TK_MATRIX, VX_PART_DECODER)->role, VX_ROLE_ROUTER);
    const char *s;
    cr_assert_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &s), VRAMEST_OK);
    cr_assert_str_eq(s, "qwen3_moe");
    int64_t v;
    vramest_model_get_i64(m, VRAMEST_MODEL_NUM_LOCAL_EXPERTS, &v);
    cr_assert_eq(v, 8);
    vramest_model_get_i64(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE, &v);
    cr_assert_eq(v, 256);
    vramest_model_get_i64(m, VRAMEST_MODEL_HEAD_DIM, &v);
    cr_assert_eq(v, 64);
    vramest_model_free(m);
    free(f);
    free(k.b.p);

    /* DeepSeek-V3 in llama.cpp's deepseek2 architecture (MLA sizes under *_mla). */
    memset(&k, 0, sizeof k);
    kv_str(&k, "general.architecture", "deepseek2");
    kv_u32(&k, "deepseek2.block_count", 1);
    kv_u32(&k, "deepseek2.embedding_length", GH);
    kv_u32(&k, "deepseek2.attention.head_count", 4);
    kv_u32(&k, "deepseek2.attention.head_count_kv", 1);
    kv_u32(&k, "deepseek2.attention.key_length", 576);
    kv_u32(&k, "deepseek2.attention.value_length", 512);
    kv_u32(&k, "deepseek2.attention.key_length_mla", 192);
    kv_u32(&k, "deepseek2.attention.value_length_mla", 128);
    kv_u32(&k, "deepseek2.attention.kv_lora_rank", 512);
    kv_u32(&k, "deepseek2.attention.q_lora_rank", 0);
    kv_u32(&k, "deepseek2.rope.dimension_count", 64);
    kv_u32(&k, "deepseek2.expert_gating_func", 2);
    n = 0;
    gt_add(t, &n, GT_Q8_0, 2, GH, GV, 0, "token_embd.weight");
    gt_add(t, &n, GT_Q8_0, 2, GH, 576, 0, "blk.0.attn_kv_a_mqa.weight");
    f = gguf_build(3, &k, t, n, &hl, &fl, NULL);
    m = new_model();
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_get_str(m, VRAMEST_MODEL_MODEL_TYPE, &s), VRAMEST_OK);
    cr_assert_str_eq(s, "deepseek_v3");
    vramest_model_get_i64(m, VRAMEST_MODEL_QK_NOPE_HEAD_DIM, &v);
    cr_assert_eq(v, 128);
    vramest_model_get_i64(m, VRAMEST_MODEL_V_HEAD_DIM, &v);
    cr_assert_eq(v, 128);
    vramest_model_get_i64(m, VRAMEST_MODEL_QK_ROPE_HEAD_DIM, &v);
    cr_assert_eq(v, 64);
    cr_assert_eq(find_group(m, "kv_a_proj_with_mqa", VX_TK_MATRIX, VX_PART_DECODER)->role, VX_ROLE_ATTN_KV_A);
    vramest_model_free(m);
    free(f);
    free(k.b.p);
}

/* ---- hostile input: mutations never crash ---------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

Test(files, mutated_headers_never_crash)
{
    tiny s;
    tiny_llama(&s, 2);
    size_t shl, sfl, ghl, gfl;
    uint8_t *st = st_build(s.t, s.n, &shl, &sfl, NULL);
    gkv k;
    gguf_llama_kv(&k, GL);
    gt t[64];
    size_t n = gguf_llama_tensors(t, GL, false);
    uint8_t *gg = gguf_build(3, &k, t, n, &ghl, &gfl, NULL);
    vramest_model *m = new_model();
    const char *cfg = tiny_config(2);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK);
    for (int round = 0; round < 3000; round++) {
        bool is_gguf = round & 1;
        const uint8_t *src = is_gguf ? gg : st;
        size_t len = is_gguf ? ghl : shl;
        uint8_t *c = exact(src, len);
        int flips = 1 + (int)(rng() % 4);
        for (int i = 0; i < flips; i++) {
            size_t at = (size_t)(rng() % len);
            c[at] = (rng() & 1) ? (uint8_t)rng() : (uint8_t)(c[at] ^ (1u << (rng() % 8)));
        }
        size_t cut = (rng() % 4 == 0) ? (size_t)(rng() % len) : len;
        size_t needed = 0;
        int rc = vramest_model_parse(m, VRAMEST_SRC_AUTO, c, cut, &needed);
        cr_assert(rc <= 0);
        if (rc == VRAMEST_E_NEED_MORE_DATA) cr_assert_gt(needed, cut);
        free(c);
    }
    vramest_model_free(m);
    free(st);
    free(gg);
    free(k.b.p);
}

Test(files, argument_checks)
{
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse(NULL, VRAMEST_SRC_AUTO, "{}", 2, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_AUTO, NULL, 2, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_DIRECTORY, "{}", 2, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_model_parse(m, (vramest_source)42, "{}", 2, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_model_parse_file(m, VRAMEST_SRC_AUTO, "/nonexistent/x.gguf"), VRAMEST_E_IO);
    size_t needed = 0;
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_AUTO, NULL, 0, &needed), VRAMEST_E_NEED_MORE_DATA);
    cr_assert_eq(needed, 9);
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_AUTO, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", 10, NULL),
                 VRAMEST_E_PARSE);
    vramest_model_free(m);
}

/* The GPU weights of the default estimate and whether a warning holds `what`. */
static uint64_t weights_noting(const vramest_model *m, const char *what, bool *noted)
{
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, NULL, NULL, &r), VRAMEST_OK, "%s", msg());
    uint64_t w = 0;
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &w), VRAMEST_OK);
    *noted = false;
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++) {
        const char *s = vramest_result_warning(r, i);
        if (s && strstr(s, what)) *noted = true;
    }
    vramest_result_free(r);
    return w;
}

/* A model from a config.json and a safetensors header. */
static vramest_model *config_and_header(const char *cfg, const tiny *s)
{
    size_t hl, fl;
    uint8_t *f = st_build(s->t, s->n, &hl, &fl, NULL);
    vramest_model *m = new_model();
    cr_assert_eq(vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, cfg, strlen(cfg), NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(parse_mem(m, VRAMEST_SRC_SAFETENSORS_HEADER, f, hl, NULL), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_validate(m), VRAMEST_OK, "%s", msg());
    free(f);
    return m;
}

Test(files, stored_but_not_loaded_tied_head_and_mtp_layers)
{
    /* Issue #16 item 4: from_pretrained ties a stored lm_head to the
     * embedding (one copy in memory) and ignores MTP layers; both stay in
     * the checkpoint's bytes. */
    char tied[1024];
    snprintf(tied, sizeof tied, "%s", tiny_config(TL));
    char *at = strstr(tied, "\"tie_word_embeddings\": false");
    cr_assert_not_null(at);
    memcpy(at + strlen("\"tie_word_embeddings\": "), "true ", 5);
    tiny s;
    tiny_llama(&s, TL);
    vramest_model *m = config_and_header(tied, &s);
    uint64_t head = 2ull * TV * TH, total = 0;
    cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
    cr_assert_eq(total, tiny_params(TL) - TV * TH, "the head is the embedding: %llu", (unsigned long long)total);
    cr_assert_eq(m->checkpoint_bytes, tiny_bytes(TL));
    cr_assert_eq(m->disk_only_bytes, head);
    bool noted;
    uint64_t w_twice = weights_noting(m, "tied head stored a second time", &noted);
    cr_assert(noted, "no warning names the second head");
    vramest_model_free(m);
    s.n--; /* the same checkpoint without lm_head.weight */
    m = config_and_header(tied, &s);
    cr_assert_eq(m->checkpoint_bytes, tiny_bytes(TL) - head);
    cr_assert_eq(m->disk_only_bytes, 0);
    cr_assert_eq(weights_noting(m, "does not load", &noted), w_twice);
    cr_assert_not(noted);
    vramest_model_free(m);

    /* Untied, the stored head is loaded. */
    tiny_llama(&s, TL);
    m = config_and_header(tiny_config(TL), &s);
    cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
    cr_assert_eq(total, tiny_params(TL));
    cr_assert_eq(m->disk_only_bytes, 0);
    vramest_model_free(m);

    /* DeepSeek-V3-style MTP layer after the last one: a whole layer plus
     * eh_proj (fp16 [TH, 2TH]) and enorm / hnorm (fp32). */
    tiny_llama(&s, 2);
    tiny_layer(&s, 2);
    tiny_add(&s, "F16", 2, TH, 2 * TH, "model.layers.2.eh_proj.weight");
    tiny_add(&s, "F32", 1, TH, 0, "model.layers.2.enorm.weight");
    tiny_add(&s, "F32", 1, TH, 0, "model.layers.2.hnorm.weight");
    uint64_t mtp = (tiny_bytes(3) - tiny_bytes(2)) + 2ull * TH * 2 * TH + 2 * 4ull * TH;
    m = config_and_header(tiny_config(2), &s);
    cr_assert_eq(vramest_model_param_count(m, &total, NULL), VRAMEST_OK);
    cr_assert_eq(total, tiny_params(2));
    cr_assert_eq(m->checkpoint_bytes, tiny_bytes(2) + mtp);
    cr_assert_eq(m->disk_only_bytes, mtp);
    for (size_t i = 0; i < m->n_inv; i++)
        cr_assert(m->inv[i].trainable_default || m->inv[i].kind == VX_TK_OTHER || m->inv[i].kind == VX_TK_BIAS,
                  "%s of the MTP layer is in memory", m->inv[i].name);
    uint64_t w_mtp = weights_noting(m, "MTP layers", &noted);
    cr_assert(noted, "no warning names the MTP layers");
    vramest_model_free(m);
    tiny_llama(&s, 2);
    m = config_and_header(tiny_config(2), &s);
    cr_assert_eq(weights_noting(m, "does not load", &noted), w_mtp);
    cr_assert_not(noted);
    vramest_model_free(m);
}
