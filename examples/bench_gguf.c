/* GGUF headers as llama.cpp's converter writes them for two real models, for
 * the GGUF rows of examples/bench (and for timing other GGUF readers on the
 * same files, docs/performance.md):
 *
 *   Llama-2-7B Q4_K_M   32,000-token SentencePiece vocabulary: tokens,
 *                       scores (f32) and token types (i32), 19 keys,
 *                       291 tensors;
 *   Llama-3.1-8B Q4_K_M 128,256-token BPE vocabulary: tokens, token types
 *                       and 280,147 merges, a chat template, the imatrix
 *                       keys, 33 keys, 292 tensors (rope_freqs included).
 *
 * Keys, value types, array lengths and tensor names, shapes and ggml types
 * (Q4_K_M: Q6_K for attn_v / ffn_down on llama.cpp's "more bits" layers and
 * for output) follow the published files; the token and merge strings are
 * synthetic, 1-12 and 3-18 bytes long (means 6.5 and 10.5). The tensor data
 * is a hole (a sparse file of the real size). */
#include "bench_gguf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { G_U32 = 4, G_I32 = 5, G_F32 = 6, G_STR = 8, G_ARR = 9 };
enum { Q_F32 = 0, Q_Q4_K = 12, Q_Q6_K = 14 };

typedef struct gw {
    FILE *f;
    uint64_t data; /* bytes of tensor data so far */
} gw;

static void u32(gw *w, uint32_t v)
{
    for (int i = 0; i < 4; i++) fputc((int)(v >> (8 * i)) & 0xff, w->f);
}

static void u64(gw *w, uint64_t v)
{
    for (int i = 0; i < 8; i++) fputc((int)(v >> (8 * i)) & 0xff, w->f);
}

static void str(gw *w, const char *s)
{
    u64(w, strlen(s));
    fputs(s, w->f);
}

static void kv_str(gw *w, const char *k, const char *v)
{
    str(w, k);
    u32(w, G_STR);
    str(w, v);
}

static void kv_u32(gw *w, const char *k, uint32_t v)
{
    str(w, k);
    u32(w, G_U32);
    u32(w, v);
}

static void kv_f32(gw *w, const char *k, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    str(w, k);
    u32(w, G_F32);
    u32(w, b);
}

/* A deterministic stream of string lengths and letters. */
static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

/* An array of n synthetic strings of lo..lo+span-1 bytes. */
static void kv_strings(gw *w, const char *k, uint64_t n, unsigned lo, unsigned span, uint32_t seed)
{
    str(w, k);
    u32(w, G_ARR);
    u32(w, G_STR);
    u64(w, n);
    char s[64];
    for (uint64_t i = 0; i < n; i++) {
        unsigned len = lo + next(&seed) % span;
        for (unsigned c = 0; c < len; c++) s[c] = (char)('a' + next(&seed) % 26);
        if (len > 2 && lo >= 3) s[len / 2] = ' '; /* a merge: "left right" */
        u64(w, len);
        fwrite(s, 1, len, w->f);
    }
}

/* An array of n 4-byte numbers (scores, token types). */
static void kv_arr4(gw *w, const char *k, uint32_t type, uint64_t n, uint32_t value)
{
    str(w, k);
    u32(w, G_ARR);
    u32(w, type);
    u64(w, n);
    for (uint64_t i = 0; i < n; i++) u32(w, value);
}

/* ggml block sizes: Q4_K 144 bytes and Q6_K 210 bytes per 256 elements. */
static uint64_t type_bytes(uint32_t t, uint64_t elems)
{
    return t == Q_Q4_K ? elems / 256 * 144 : t == Q_Q6_K ? elems / 256 * 210 : elems * 4;
}

static void tensor(gw *w, uint32_t type, uint64_t ne0, uint64_t ne1, const char *fmt, int layer)
{
    char name[64];
    snprintf(name, sizeof name, fmt, layer);
    str(w, name);
    u32(w, ne1 ? 2 : 1);
    u64(w, ne0);
    if (ne1) u64(w, ne1);
    u32(w, type);
    u64(w, w->data);
    uint64_t b = type_bytes(type, ne0 * (ne1 ? ne1 : 1));
    w->data += (b + 31) / 32 * 32;
}

/* llama.cpp's use_more_bits(i, n): the first and last eighth and every
 * third layer between get Q6_K in Q4_K_M. */
static int more_bits(int i, int n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

static void llama_tensors(gw *w, int layers, uint64_t h, uint64_t ffn, uint64_t kv, uint64_t vocab, int rope_freqs)
{
    if (rope_freqs) tensor(w, Q_F32, 64, 0, "rope_freqs.weight", 0);
    tensor(w, Q_Q4_K, h, vocab, "token_embd.weight", 0);
    for (int l = 0; l < layers; l++) {
        uint32_t hi = more_bits(l, layers) ? Q_Q6_K : Q_Q4_K;
        tensor(w, Q_F32, h, 0, "blk.%d.attn_norm.weight", l);
        tensor(w, Q_Q4_K, h, h, "blk.%d.attn_q.weight", l);
        tensor(w, Q_Q4_K, h, kv, "blk.%d.attn_k.weight", l);
        tensor(w, hi, h, kv, "blk.%d.attn_v.weight", l);
        tensor(w, Q_Q4_K, h, h, "blk.%d.attn_output.weight", l);
        tensor(w, Q_F32, h, 0, "blk.%d.ffn_norm.weight", l);
        tensor(w, Q_Q4_K, h, ffn, "blk.%d.ffn_gate.weight", l);
        tensor(w, Q_Q4_K, h, ffn, "blk.%d.ffn_up.weight", l);
        tensor(w, hi, ffn, h, "blk.%d.ffn_down.weight", l);
    }
    tensor(w, Q_F32, h, 0, "output_norm.weight", 0);
    tensor(w, Q_Q6_K, h, vocab, "output.weight", 0);
}

static void header(gw *w, uint64_t tensors, uint64_t keys)
{
    fputs("GGUF", w->f);
    u32(w, 3);
    u64(w, tensors);
    u64(w, keys);
}

/* The Llama keys both files hold (4096 wide, 32 heads). */
static void llama_keys(gw *w, uint32_t ctx, uint32_t ffn, uint32_t kv_heads)
{
    kv_u32(w, "llama.block_count", 32);
    kv_u32(w, "llama.context_length", ctx);
    kv_u32(w, "llama.embedding_length", 4096);
    kv_u32(w, "llama.feed_forward_length", ffn);
    kv_u32(w, "llama.attention.head_count", 32);
    kv_u32(w, "llama.attention.head_count_kv", kv_heads);
}

static void llama2_7b(gw *w)
{
    header(w, 291, 19);
    kv_str(w, "general.architecture", "llama");
    kv_str(w, "general.name", "LLaMA v2");
    llama_keys(w, 4096, 11008, 32);
    kv_u32(w, "llama.rope.dimension_count", 128);
    kv_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    kv_u32(w, "general.file_type", 15);
    kv_str(w, "tokenizer.ggml.model", "llama");
    kv_strings(w, "tokenizer.ggml.tokens", 32000, 1, 12, 7u);
    kv_arr4(w, "tokenizer.ggml.scores", G_F32, 32000, 0);
    kv_arr4(w, "tokenizer.ggml.token_type", G_I32, 32000, 1);
    kv_u32(w, "tokenizer.ggml.bos_token_id", 1);
    kv_u32(w, "tokenizer.ggml.eos_token_id", 2);
    kv_u32(w, "tokenizer.ggml.unknown_token_id", 0);
    kv_u32(w, "general.quantization_version", 2);
    llama_tensors(w, 32, 4096, 11008, 4096, 32000, 0);
}

static void kv_list(gw *w, const char *k, const char *const *v, uint64_t n)
{
    str(w, k);
    u32(w, G_ARR);
    u32(w, G_STR);
    u64(w, n);
    for (uint64_t i = 0; i < n; i++) str(w, v[i]);
}

static void llama31_8b(gw *w)
{
    static const char *const tags[] = {"facebook", "meta", "pytorch", "llama", "llama-3", "text-generation"};
    static const char *const langs[] = {"en", "de", "fr", "it", "pt", "hi", "es", "th"};
    header(w, 292, 33);
    kv_str(w, "general.architecture", "llama");
    kv_str(w, "general.type", "model");
    kv_str(w, "general.name", "Meta Llama 3.1 8B Instruct");
    kv_str(w, "general.finetune", "Instruct");
    kv_str(w, "general.basename", "Meta-Llama-3.1");
    kv_str(w, "general.size_label", "8B");
    kv_str(w, "general.license", "llama3.1");
    kv_list(w, "general.tags", tags, 6);
    kv_list(w, "general.languages", langs, 8);
    llama_keys(w, 131072, 14336, 8);
    kv_f32(w, "llama.rope.freq_base", 500000.0f);
    kv_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    kv_u32(w, "general.file_type", 15);
    kv_u32(w, "llama.vocab_size", 128256);
    kv_u32(w, "llama.rope.dimension_count", 128);
    kv_str(w, "tokenizer.ggml.model", "gpt2");
    kv_str(w, "tokenizer.ggml.pre", "llama-bpe");
    kv_strings(w, "tokenizer.ggml.tokens", 128256, 1, 12, 11u);
    kv_arr4(w, "tokenizer.ggml.token_type", G_I32, 128256, 1);
    kv_strings(w, "tokenizer.ggml.merges", 280147, 3, 16, 13u);
    kv_u32(w, "tokenizer.ggml.bos_token_id", 128000);
    kv_u32(w, "tokenizer.ggml.eos_token_id", 128009);
    /* the chat template is a ~4.6 KB Jinja string */
    char tmpl[4700];
    memset(tmpl, 'x', sizeof tmpl - 1);
    tmpl[sizeof tmpl - 1] = '\0';
    kv_str(w, "tokenizer.chat_template", tmpl);
    kv_u32(w, "general.quantization_version", 2);
    kv_str(w, "quantize.imatrix.file", "/models_out/Meta-Llama-3.1-8B-Instruct-GGUF/Meta-Llama-3.1-8B-Instruct.imatrix");
    kv_str(w, "quantize.imatrix.dataset", "/training_dir/calibration_datav3.txt");
    str(w, "quantize.imatrix.entries_count");
    u32(w, G_I32);
    u32(w, 224);
    str(w, "quantize.imatrix.chunks_count");
    u32(w, G_I32);
    u32(w, 125);
    llama_tensors(w, 32, 4096, 14336, 1024, 128256, 1);
}

long vb_gguf_write(const char *path, int which)
{
    gw w = {fopen(path, "wb"), 0};
    if (!w.f) return -1;
    if (which == VB_GGUF_128K) llama31_8b(&w);
    else llama2_7b(&w);
    long len = ftell(w.f);
    while (len % 32) fputc(0, w.f), len++;
    if (fclose(w.f) || truncate(path, (off_t)len + (off_t)w.data)) return -1;
    return len;
}
