/* Model files the tests write from the public format descriptions
 * (safetensors: 8-byte LE length + JSON header; GGUF v2/v3:
 * ggml/docs/gguf.md): byte buffers, a safetensors and a GGUF writer, a tiny
 * Llama in both formats, and a temporary directory per test. Shared by
 * test_files.c and test_file_hazards.c (tests/meson.build). */
#ifndef VT_MODELFILES_H
#define VT_MODELFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vramest/vramest.h>

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

typedef struct st_t {
    const char *name;
    const char *dtype;
    int nd;
    int64_t dims[5];
} st_t;

/* Tiny Llama: h hidden, kv = key/value width, f FFN, V vocab, L layers;
 * fp32 norms and fp16 matrices (as ChatGLM and many fp16 exports store them). */
typedef struct tiny {
    st_t t[128];
    char names[128][96];
    size_t n;
} tiny;

enum { TH = 64, TKV = 32, TF = 128, TV = 100, TL = 3 };

enum { G_U8, G_I8, G_U16, G_I16, G_U32, G_I32, G_F32, G_BOOL, G_STR, G_ARR, G_U64, G_I64, G_F64 };

enum { GT_F32 = 0, GT_F16 = 1, GT_Q4_0 = 2, GT_Q8_0 = 8, GT_Q4_K = 12, GT_Q6_K = 14 };

typedef struct gkv {
    buf b;
    uint64_t n;
} gkv;

typedef struct gt {
    char name[64];
    uint32_t nd, type;
    uint64_t ne[8];
} gt;

enum { GH = 256, GKV = 128, GF = 512, GV = 32, GL = 2 };

void put(buf *b, const void *d, size_t n);
void put_u32(buf *b, uint32_t v);
void put_u64(buf *b, uint64_t v);
void putf(buf *b, const char *fmt, ...);
uint8_t *exact(const uint8_t *d, size_t n);
int parse_mem(vramest_model *m, vramest_source kind, const uint8_t *d, size_t n, size_t *needed);
vramest_model *new_model(void);
const char *msg(void);
unsigned st_bits(const char *d);
uint64_t st_bytes(const st_t *t);
uint8_t *st_build(const st_t *t, size_t n, size_t *hdr_len, size_t *file_len, uint64_t *data_len);
uint8_t *st_raw(const char *json, size_t *len);
/* A safetensors / GGUF v3 file in the temporary directory whose data is a
 * hole (sparse): the tensors of a 70B model in a few KiB of disk. */
void st_write_sparse(const char *name, const st_t *t, size_t n);
void gguf_write_sparse(const char *name, const gkv *k, const gt *t, size_t n);
void tiny_add(tiny *s, const char *dtype, int nd, int64_t a, int64_t b, const char *fmt, ...);
void tiny_layer(tiny *s, int i);
void tiny_llama(tiny *s, int layers);
uint64_t tiny_params(int L);
uint64_t tiny_bytes(int L);
char *tiny_config(int layers);
void make_tmp(void);
void drop_tmp(void);
const char *tmp_path(const char *name);
void write_file(const char *name, const void *d, size_t n);
void g_str(buf *b, const char *s);
void kv_u32(gkv *k, const char *key, uint32_t v);
void kv_str(gkv *k, const char *key, const char *v);
void kv_f32(gkv *k, const char *key, float f);
void kv_all_types(gkv *k, int vocab);
uint64_t g_bytes(const gt *t);
uint8_t *gguf_build_ex(uint32_t version, const gkv *k, const gt *t, size_t n, size_t *hdr_len, size_t *file_len, uint64_t *data_bytes, bool with_data);
uint8_t *gguf_build(uint32_t version, const gkv *k, const gt *t, size_t n, size_t *hdr_len, size_t *file_len, uint64_t *data_bytes);
void gt_add(gt *t, size_t *n, uint32_t type, uint32_t nd, uint64_t a, uint64_t b, uint64_t c, const char *fmt, ...);
/* The tiny Llama's GGUF tensors (GH wide, GF FFN, GL layers) with these
 * ggml types, vocabulary and K/V rows; gguf_llama_tensors: a k-quant mix. */
typedef struct gguf_mix {
    uint32_t embd, q, k, v, o, gate, up, down, out;
    int vocab, kv_rows;
} gguf_mix;
size_t gguf_llama_mix(gt *t, int layers, bool tied, const gguf_mix *m);
size_t gguf_llama_tensors(gt *t, int layers, bool tied);
void gguf_llama_kv(gkv *k, int layers);
uint64_t gguf_llama_params(int L, bool tied);
uint64_t gguf_llama_bytes(int L, bool tied);

/* The tiny Llama's safetensors file and config.json under these names in
 * the temporary directory (NULL: not written); an index mapping all its
 * tensors to one shard file, with that total_size (tiny_bytes(TL) is right). */
void write_tiny(const char *st_name, const char *config_name);
void write_index(const char *shard, uint64_t total_size);

/* The test's temporary directory (flat), made by make_tmp(), removed by drop_tmp(). */
extern char tmpdir[256];

#define assert_msg(s) cr_assert(strstr(msg(), (s)) != NULL, "message '%s' lacks '%s'", msg(), (s))

#endif
