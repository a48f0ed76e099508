/* Model files the tests write (modelfiles.h). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modelfiles.h"

/* ---- byte buffers ----------------------------------------------------------- */

void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n) nc *= 2;
        b->p = realloc(b->p, nc);
        cr_assert_not_null(b->p);
        b->cap = nc;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

void put_u32(buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++) x[i] = (uint8_t)(v >> (8 * i));
    put(b, x, 4);
}

void put_u64(buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i));
    put(b, x, 8);
}

void putf(buf *b, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < sizeof tmp);
    put(b, tmp, (size_t)n);
}

/* An exact-size heap copy, so that a read past the end is a sanitizer error. */
uint8_t *exact(const uint8_t *d, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    if (n) memcpy(p, d, n);
    return p;
}

int parse_mem(vramest_model *m, vramest_source kind, const uint8_t *d, size_t n, size_t *needed)
{
    uint8_t *copy = exact(d, n);
    int rc = vramest_model_parse(m, kind, copy, n, needed);
    free(copy);
    return rc;
}

vramest_model *new_model(void)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    return m;
}

const char *msg(void)
{
    return vramest_last_error_message();
}

#define assert_msg(s) cr_assert(strstr(msg(), (s)) != NULL, "message '%s' lacks '%s'", msg(), (s))

/* ---- safetensors writer ------------------------------------------------------ */

unsigned st_bits(const char *d)
{
    static const struct { const char *n; unsigned b; } t[] = {
        {"BOOL", 8}, {"U8", 8}, {"I8", 8}, {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
        {"F8_E5M2FNUZ", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32}, {"U32", 32},
        {"F32", 32}, {"F64", 64}, {"I64", 64}, {"U64", 64}, {"C64", 64}, {"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].n, d)) return t[i].b;
    return 8; /* unknown dtypes in negative tests: any size */
}

uint64_t st_bytes(const st_t *t)
{
    uint64_t e = 1;
    for (int i = 0; i < t->nd; i++) e *= (uint64_t)t->dims[i];
    return e * st_bits(t->dtype) / 8;
}

/* A safetensors file: header (padded to 8 with spaces, as writers do) and
 * zeroed data, tensors stored in list order. */
/* The 8 length bytes and the header of a safetensors file; *data_len: the
 * bytes of the tensors that follow. */
static buf st_head(const st_t *t, size_t n, uint64_t *data_len)
{
    buf j = {0};
    putf(&j, "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        putf(&j, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t[i].name, t[i].dtype);
        for (int d = 0; d < t[i].nd; d++) putf(&j, "%s%lld", d ? "," : "", (long long)t[i].dims[d]);
        uint64_t b = st_bytes(&t[i]);
        putf(&j, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + b));
        off += b;
    }
    putf(&j, "}");
    while (j.n % 8) putf(&j, " ");
    buf f = {0};
    put_u64(&f, j.n);
    put(&f, j.p, j.n);
    free(j.p);
    *data_len = off;
    return f;
}

uint8_t *st_build(const st_t *t, size_t n, size_t *hdr_len, size_t *file_len, uint64_t *data_len)
{
    uint64_t off;
    buf f = st_head(t, n, &off);
    *hdr_len = f.n;
    uint8_t zero[4096] = {0};
    for (uint64_t left = off; left;) {
        size_t k = left > sizeof zero ? sizeof zero : (size_t)left;
        put(&f, zero, k);
        left -= k;
    }
    *file_len = f.n;
    if (data_len) *data_len = off;
    return f.p;
}

void st_write_sparse(const char *name, const st_t *t, size_t n)
{
    uint64_t off;
    buf f = st_head(t, n, &off);
    write_file(name, f.p, f.n);
    cr_assert_eq(truncate(tmp_path(name), (off_t)(f.n + off)), 0, "truncate %s", tmp_path(name));
    free(f.p);
}

void gguf_write_sparse(const char *name, const gkv *k, const gt *t, size_t n)
{
    size_t hl, fl;
    uint8_t *f = gguf_build_ex(3, k, t, n, &hl, &fl, NULL, false);
    uint64_t data = 0;
    for (size_t i = 0; i < n; i++) data += (g_bytes(&t[i]) + 31) / 32 * 32;
    write_file(name, f, fl);
    cr_assert_eq(truncate(tmp_path(name), (off_t)(fl + data)), 0, "truncate %s", tmp_path(name));
    free(f);
}

/* A header from literal JSON (for malformed ones). */
uint8_t *st_raw(const char *json, size_t *len)
{
    buf f = {0};
    size_t n = strlen(json);
    put_u64(&f, n);
    put(&f, json, n);
    *len = f.n;
    return f.p;
}

void tiny_add(tiny *s, const char *dtype, int nd, int64_t a, int64_t b, const char *fmt, ...)
{
    cr_assert(s->n < 128);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->names[s->n], sizeof s->names[0], fmt, ap);
    va_end(ap);
    st_t *t = &s->t[s->n];
    t->name = s->names[s->n];
    t->dtype = dtype;
    t->nd = nd;
    t->dims[0] = a;
    t->dims[1] = b;
    s->n++;
}

void tiny_layer(tiny *s, int i)
{
    tiny_add(s, "F32", 1, TH, 0, "model.layers.%d.input_layernorm.weight", i);
    tiny_add(s, "F16", 2, TH, TH, "model.layers.%d.self_attn.q_proj.weight", i);
    tiny_add(s, "F16", 2, TKV, TH, "model.layers.%d.self_attn.k_proj.weight", i);
    tiny_add(s, "F16", 2, TKV, TH, "model.layers.%d.self_attn.v_proj.weight", i);
    tiny_add(s, "F16", 2, TH, TH, "model.layers.%d.self_attn.o_proj.weight", i);
    tiny_add(s, "F32", 1, TH, 0, "model.layers.%d.post_attention_layernorm.weight", i);
    tiny_add(s, "F16", 2, TF, TH, "model.layers.%d.mlp.gate_proj.weight", i);
    tiny_add(s, "F16", 2, TF, TH, "model.layers.%d.mlp.up_proj.weight", i);
    tiny_add(s, "F16", 2, TH, TF, "model.layers.%d.mlp.down_proj.weight", i);
}

void tiny_llama(tiny *s, int layers)
{
    memset(s, 0, sizeof *s);
    tiny_add(s, "F16", 2, TV, TH, "model.embed_tokens.weight");
    for (int i = 0; i < layers; i++) tiny_layer(s, i);
    tiny_add(s, "F32", 1, TH, 0, "model.norm.weight");
    tiny_add(s, "F16", 2, TV, TH, "lm_head.weight");
}

uint64_t tiny_params(int L)
{
    return 2ull * TV * TH + (uint64_t)L * (2ull * TH * TH + 2ull * TH * TKV + 3ull * TH * TF + 2ull * TH) + TH;
}

/* fp16 matrices + fp32 vectors. */
uint64_t tiny_bytes(int L)
{
    uint64_t vec = (uint64_t)L * 2 * TH + TH;
    return 2 * (tiny_params(L) - vec) + 4 * vec;
}

char *tiny_config(int layers)
{
    static char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"hidden_size\": %d, "
             "\"num_hidden_layers\": %d, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "
             "\"intermediate_size\": %d, \"vocab_size\": %d, \"max_position_embeddings\": 256, "
             "\"tie_word_embeddings\": false, \"torch_dtype\": \"float16\", \"hidden_act\": \"silu\"}",
             TH, layers, TF, TV);
    return cfg;
}

/* ---- temporary directories ----------------------------------------------------- */

char tmpdir[256];

void make_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/vt_files_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

/* The test directories are flat. */
void drop_tmp(void)
{
    if (!tmpdir[0]) return;
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[600];
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        remove(p);
    }
    if (d) closedir(d);
    rmdir(tmpdir);
    tmpdir[0] = '\0';
}

const char *tmp_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    return p;
}

void write_file(const char *name, const void *d, size_t n)
{
    FILE *f = fopen(tmp_path(name), "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(d, 1, n, f), n);
    fclose(f);
}

/* ---- GGUF writer ------------------------------------------------------------------------ */

void g_str(buf *b, const char *s)
{
    put_u64(b, strlen(s));
    put(b, s, strlen(s));
}

void kv_u32(gkv *k, const char *key, uint32_t v)
{
    g_str(&k->b, key);
    put_u32(&k->b, G_U32);
    put_u32(&k->b, v);
    k->n++;
}

void kv_str(gkv *k, const char *key, const char *v)
{
    g_str(&k->b, key);
    put_u32(&k->b, G_STR);
    g_str(&k->b, v);
    k->n++;
}

void kv_f32(gkv *k, const char *key, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    g_str(&k->b, key);
    put_u32(&k->b, G_F32);
    put_u32(&k->b, u);
    k->n++;
}

/* A key of every scalar type, a nested array, and string / int arrays. */
void kv_all_types(gkv *k, int vocab)
{
    uint8_t one = 1;
    g_str(&k->b, "test.u8"), put_u32(&k->b, G_U8), put(&k->b, &one, 1), k->n++;
    g_str(&k->b, "test.i8"), put_u32(&k->b, G_I8), put(&k->b, &one, 1), k->n++;
    g_str(&k->b, "test.u16"), put_u32(&k->b, G_U16), put(&k->b, "\1\0", 2), k->n++;
    g_str(&k->b, "test.i16"), put_u32(&k->b, G_I16), put(&k->b, "\1\0", 2), k->n++;
    g_str(&k->b, "test.i32"), put_u32(&k->b, G_I32), put_u32(&k->b, 7), k->n++;
    g_str(&k->b, "test.bool"), put_u32(&k->b, G_BOOL), put(&k->b, &one, 1), k->n++;
    g_str(&k->b, "test.u64"), put_u32(&k->b, G_U64), put_u64(&k->b, 1ull << 40), k->n++;
    g_str(&k->b, "test.i64"), put_u32(&k->b, G_I64), put_u64(&k->b, (uint64_t)-3), k->n++;
    g_str(&k->b, "test.f64"), put_u32(&k->b, G_F64), put_u64(&k->b, 0x3ff0000000000000ull), k->n++;
    /* [[1, 2], [3]] of u8 */
    g_str(&k->b, "test.nested"), put_u32(&k->b, G_ARR), put_u32(&k->b, G_ARR), put_u64(&k->b, 2);
    put_u32(&k->b, G_U8), put_u64(&k->b, 2), put(&k->b, "\1\2", 2);
    put_u32(&k->b, G_U8), put_u64(&k->b, 1), put(&k->b, "\3", 1), k->n++;
    /* [["a"], []] of strings */
    g_str(&k->b, "test.nested_str"), put_u32(&k->b, G_ARR), put_u32(&k->b, G_ARR), put_u64(&k->b, 2);
    put_u32(&k->b, G_STR), put_u64(&k->b, 1), g_str(&k->b, "a");
    put_u32(&k->b, G_STR), put_u64(&k->b, 0), k->n++;
    kv_str(k, "tokenizer.ggml.model", "llama");
    g_str(&k->b, "tokenizer.ggml.tokens"), put_u32(&k->b, G_ARR), put_u32(&k->b, G_STR), put_u64(&k->b, (uint64_t)vocab);
    for (int i = 0; i < vocab; i++) {
        char t[16];
        snprintf(t, sizeof t, "<t%d>", i);
        g_str(&k->b, t);
    }
    k->n++;
    g_str(&k->b, "tokenizer.ggml.scores"), put_u32(&k->b, G_ARR), put_u32(&k->b, G_F32), put_u64(&k->b, (uint64_t)vocab);
    for (int i = 0; i < vocab; i++) put_u32(&k->b, 0);
    k->n++;
    g_str(&k->b, "tokenizer.ggml.token_type"), put_u32(&k->b, G_ARR), put_u32(&k->b, G_I32), put_u64(&k->b, (uint64_t)vocab);
    for (int i = 0; i < vocab; i++) put_u32(&k->b, 1);
    k->n++;
}

uint64_t g_bytes(const gt *t)
{
    uint64_t e = 1;
    for (uint32_t i = 0; i < t->nd; i++) e *= t->ne[i];
    switch (t->type) {
    case GT_F32: return e * 4;
    case GT_F16: return e * 2;
    case GT_Q4_0: return e / 32 * 18;
    case GT_Q8_0: return e / 32 * 34;
    case GT_Q4_K: return e / 256 * 144;
    case GT_Q6_K: return e / 256 * 210;
    default: return e; /* negative tests only */
    }
}

/* The whole file: header, padding to 32, data. */
uint8_t *gguf_build_ex(uint32_t version, const gkv *k, const gt *t, size_t n, size_t *hdr_len,
                              size_t *file_len, uint64_t *data_bytes, bool with_data)
{
    buf b = {0};
    put(&b, "GGUF", 4);
    put_u32(&b, version);
    put_u64(&b, n);
    put_u64(&b, k->n);
    put(&b, k->b.p, k->b.n);
    uint64_t off = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        g_str(&b, t[i].name);
        put_u32(&b, t[i].nd);
        for (uint32_t d = 0; d < t[i].nd; d++) put_u64(&b, t[i].ne[d]);
        put_u32(&b, t[i].type);
        put_u64(&b, off);
        off += (g_bytes(&t[i]) + 31) / 32 * 32;
        total += g_bytes(&t[i]);
    }
    *hdr_len = b.n;
    uint8_t zero[64] = {0};
    while (b.n % 32) put(&b, zero, 1);
    for (uint64_t left = with_data ? off : 0; left;) {
        size_t c = left > sizeof zero ? sizeof zero : (size_t)left;
        put(&b, zero, c);
        left -= c;
    }
    *file_len = b.n;
    if (data_bytes) *data_bytes = total;
    return b.p;
}

uint8_t *gguf_build(uint32_t version, const gkv *k, const gt *t, size_t n, size_t *hdr_len, size_t *file_len,
                           uint64_t *data_bytes)
{
    return gguf_build_ex(version, k, t, n, hdr_len, file_len, data_bytes, true);
}

void gt_add(gt *t, size_t *n, uint32_t type, uint32_t nd, uint64_t a, uint64_t b, uint64_t c, const char *fmt,
                   ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t[*n].name, sizeof t[*n].name, fmt, ap);
    va_end(ap);
    t[*n].nd = nd, t[*n].type = type;
    t[*n].ne[0] = a, t[*n].ne[1] = b, t[*n].ne[2] = c;
    (*n)++;
}

size_t gguf_llama_mix(gt *t, int layers, bool tied, const gguf_mix *m)
{
    size_t n = 0;
    gt_add(t, &n, m->embd, 2, GH, (uint64_t)m->vocab, 0, "token_embd.weight");
    for (int l = 0; l < layers; l++) {
        gt_add(t, &n, GT_F32, 1, GH, 0, 0, "blk.%d.attn_norm.weight", l);
        gt_add(t, &n, m->q, 2, GH, GH, 0, "blk.%d.attn_q.weight", l);
        gt_add(t, &n, m->k, 2, GH, (uint64_t)m->kv_rows, 0, "blk.%d.attn_k.weight", l);
        gt_add(t, &n, m->v, 2, GH, (uint64_t)m->kv_rows, 0, "blk.%d.attn_v.weight", l);
        gt_add(t, &n, m->o, 2, GH, GH, 0, "blk.%d.attn_output.weight", l);
        gt_add(t, &n, GT_F32, 1, GH, 0, 0, "blk.%d.ffn_norm.weight", l);
        gt_add(t, &n, m->gate, 2, GH, GF, 0, "blk.%d.ffn_gate.weight", l);
        gt_add(t, &n, m->up, 2, GH, GF, 0, "blk.%d.ffn_up.weight", l);
        gt_add(t, &n, m->down, 2, GF, GH, 0, "blk.%d.ffn_down.weight", l);
    }
    gt_add(t, &n, GT_F32, 1, GH, 0, 0, "output_norm.weight");
    if (!tied) gt_add(t, &n, m->out, 2, GH, (uint64_t)m->vocab, 0, "output.weight");
    return n;
}

/* A tiny Llama in the k-quant mix llama.cpp writes (Q4_K_M-like). */
size_t gguf_llama_tensors(gt *t, int layers, bool tied)
{
    static const gguf_mix km = {GT_Q8_0, GT_Q4_K, GT_Q4_0, GT_Q8_0, GT_Q6_K, GT_Q4_K, GT_Q4_K, GT_Q6_K, GT_Q6_K, GV, GKV};
    return gguf_llama_mix(t, layers, tied, &km);
}

void gguf_llama_kv(gkv *k, int layers)
{
    memset(k, 0, sizeof *k);
    kv_str(k, "general.architecture", "llama");
    kv_str(k, "general.name", "tiny-llama");
    kv_u32(k, "general.alignment", 32);
    kv_u32(k, "llama.block_count", (uint32_t)layers);
    kv_u32(k, "llama.context_length", 512);
    kv_u32(k, "llama.embedding_length", GH);
    kv_u32(k, "llama.feed_forward_length", GF);
    kv_u32(k, "llama.attention.head_count", 4);
    kv_u32(k, "llama.attention.head_count_kv", 2);
    kv_f32(k, "llama.rope.freq_base", 10000.0f);
    kv_f32(k, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    kv_u32(k, "general.file_type", 15);
    kv_all_types(k, GV);
}

uint64_t gguf_llama_params(int L, bool tied)
{
    return (tied ? 1ull : 2ull) * GV * GH + (uint64_t)L * (2ull * GH * GH + 2ull * GH * GKV + 3ull * GH * GF + 2ull * GH) +
           GH;
}

uint64_t gguf_llama_bytes(int L, bool tied)
{
    uint64_t layer = GH * 4 + GH * GH / 256 * 144 + GH * GKV / 32 * 18 + GH * GKV / 32 * 34 + GH * GH / 256 * 210 +
                     GH * 4 + 2 * (GH * GF / 256 * 144) + GF * GH / 256 * 210;
    return GV * GH / 32 * 34 + (uint64_t)L * layer + GH * 4 + (tied ? 0 : GH * GV / 256 * 210);
}

/* A whole tiny Llama as model.safetensors (under `name`) and config.json. */
void write_tiny(const char *st_name, const char *config_name)
{
    tiny s;
    tiny_llama(&s, TL);
    size_t hl, fl;
    uint8_t *f = st_build(s.t, s.n, &hl, &fl, NULL);
    if (st_name) write_file(st_name, f, fl);
    free(f);
    if (config_name) write_file(config_name, tiny_config(TL), strlen(tiny_config(TL)));
}

/* An index mapping every tensor of the tiny Llama to one shard. */
void write_index(const char *shard, uint64_t total_size)
{
    tiny s;
    tiny_llama(&s, TL);
    buf j = {0};
    putf(&j, "{\"metadata\": {\"total_size\": %" PRIu64 "}, \"weight_map\": {", total_size);
    for (size_t i = 0; i < s.n; i++) putf(&j, "%s\"%s\": \"%s\"", i ? ", " : "", s.t[i].name, shard);
    putf(&j, "}}");
    write_file("model.safetensors.index.json", j.p, j.n);
    free(j.p);
}
