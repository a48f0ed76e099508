/* The GGUF reader's two inputs agree: a file is read once through a 128 KiB
 * window (lib/io/gguf.c), a buffer in place. A header several windows long,
 * with strings, arrays and names across the window's edges, must give the
 * same model both ways; cut anywhere, the file is an error naming where it
 * ends and the buffer asks for more. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modelfiles.h"

#define LAYERS 4
#define VOCAB 60000

/* Keys as a BPE tokenizer writes them (tokens, types, merges, a long
 * template), a per-layer head count array, and the tiny Llama's tensors:
 * about 1.2 MB of header, nine windows. */
static uint8_t *big_header(size_t *hdr_len, size_t *file_len, uint32_t heads_per_layer)
{
    gkv k = {0};
    kv_str(&k, "general.architecture", "llama");
    kv_str(&k, "general.name", "window test");
    kv_u32(&k, "llama.block_count", LAYERS);
    kv_u32(&k, "llama.context_length", 512);
    kv_u32(&k, "llama.embedding_length", GH);
    kv_u32(&k, "llama.feed_forward_length", GF);
    /* per layer, as newer conversions write it; the reader takes the maximum */
    g_str(&k.b, "llama.attention.head_count"), put_u32(&k.b, G_ARR), put_u32(&k.b, G_U32), put_u64(&k.b, LAYERS);
    for (int l = 0; l < LAYERS; l++) put_u32(&k.b, l == 2 ? heads_per_layer : (uint32_t)l + 1);
    k.n++;
    kv_u32(&k, "llama.attention.head_count_kv", 2);
    kv_u32(&k, "llama.vocab_size", GV);
    g_str(&k.b, "tokenizer.ggml.tokens"), put_u32(&k.b, G_ARR), put_u32(&k.b, G_STR), put_u64(&k.b, VOCAB);
    for (int i = 0; i < VOCAB; i++) {
        char t[48];
        int n = snprintf(t, sizeof t, "%.*s%d", i % 29, "abcdefghijklmnopqrstuvwxyzabc", i);
        put_u64(&k.b, (uint64_t)n), put(&k.b, t, (size_t)n);
    }
    k.n++;
    g_str(&k.b, "tokenizer.ggml.token_type"), put_u32(&k.b, G_ARR), put_u32(&k.b, G_I32), put_u64(&k.b, VOCAB);
    for (int i = 0; i < VOCAB; i++) put_u32(&k.b, (uint32_t)(i % 5 + 1));
    k.n++;
    /* a string value longer than a window, skipped */
    size_t long_len = 300000;
    char *tmpl = malloc(long_len + 1);
    cr_assert_not_null(tmpl);
    memset(tmpl, 'j', long_len);
    tmpl[long_len] = '\0';
    kv_str(&k, "tokenizer.chat_template", tmpl);
    free(tmpl);
    g_str(&k.b, "tokenizer.ggml.merges"), put_u32(&k.b, G_ARR), put_u32(&k.b, G_STR), put_u64(&k.b, VOCAB);
    for (int i = 0; i < VOCAB; i++) g_str(&k.b, i % 2 ? "a b" : "longer merge");
    k.n++;
    gt t[64];
    size_t n = gguf_llama_tensors(t, LAYERS, false);
    uint8_t *f = gguf_build_ex(3, &k, t, n, hdr_len, file_len, NULL, true);
    free(k.b.p);
    return f;
}

static void summary(vramest_model *m, uint64_t out[4])
{
    int64_t heads = 0, layers = 0;
    cr_assert_eq(vramest_model_param_count(m, &out[0], &out[1]), VRAMEST_OK, "%s", msg());
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, &heads), VRAMEST_OK);
    cr_assert_eq(vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &layers), VRAMEST_OK);
    out[2] = (uint64_t)heads, out[3] = (uint64_t)layers;
}

Test(gguf_window, file_and_buffer_agree_across_windows)
{
    make_tmp();
    size_t hl, fl;
    uint8_t *f = big_header(&hl, &fl, 4);
    cr_assert_gt(hl, 8 * 128 * 1024, "the header spans several windows (%zu bytes)", hl);
    write_file("big.gguf", f, fl);

    vramest_model *a = new_model(), *b = new_model();
    cr_assert_eq(vramest_model_parse_file(a, VRAMEST_SRC_AUTO, tmp_path("big.gguf")), VRAMEST_OK, "%s", msg());
    size_t needed = 0;
    cr_assert_eq(parse_mem(b, VRAMEST_SRC_GGUF_HEADER, f, fl, &needed), VRAMEST_OK, "%s", msg());
    uint64_t sa[4], sb[4];
    summary(a, sa);
    summary(b, sb);
    cr_assert_eq(memcmp(sa, sb, sizeof sa), 0, "file %llu params, buffer %llu", (unsigned long long)sa[0],
                 (unsigned long long)sb[0]);
    cr_assert_eq(sa[0], gguf_llama_params(LAYERS, false), "%llu params, %llu expected", (unsigned long long)sa[0],
                 (unsigned long long)gguf_llama_params(LAYERS, false));
    cr_assert_eq(sa[2], 4, "heads: the per-layer array's maximum");
    cr_assert_eq(sa[3], LAYERS);
    vramest_model_free(a);
    vramest_model_free(b);
    free(f);
    drop_tmp();
}

/* Cut the header at points around every window edge and inside each kind
 * of item: the file is a PARSE error naming its end (never OK, never a
 * read past the window: ASan in CI), the same prefix as a buffer asks for
 * more bytes than it has. */
Test(gguf_window, cuts_are_errors_both_ways)
{
    make_tmp();
    size_t hl, fl;
    uint8_t *f = big_header(&hl, &fl, 4);
    size_t cuts[64], nc = 0;
    for (size_t w = 131072; w < hl && nc + 3 <= 48; w += 131072) cuts[nc++] = w - 3, cuts[nc++] = w, cuts[nc++] = w + 5;
    for (size_t c = 1; c < 64 && nc < 64; c += 4) cuts[nc++] = hl - c * 97;
    for (size_t i = 0; i < nc; i++) {
        size_t c = cuts[i];
        write_file("cut.gguf", f, c);
        vramest_model *m = new_model();
        int rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, tmp_path("cut.gguf"));
        cr_assert_eq(rc, VRAMEST_E_PARSE, "cut at %zu of %zu: status %d: %s", c, hl, rc, msg());
        char end[64];
        snprintf(end, sizeof end, "ends at byte %zu", c);
        assert_msg(end);
        size_t needed = 0;
        rc = parse_mem(m, VRAMEST_SRC_GGUF_HEADER, f, c, &needed);
        cr_assert_eq(rc, VRAMEST_E_NEED_MORE_DATA, "buffer cut at %zu: status %d: %s", c, rc, msg());
        cr_assert_gt(needed, c);
        vramest_model_free(m);
    }
    free(f);
    drop_tmp();
}
