/* GGUF headers (versions 2 and 3; ggml/docs/gguf.md of ggml-org/ggml):
 *
 *   "GGUF" | version u32 | tensor_count u64 | kv_count u64
 *   kv_count x (key: string, value_type u32, value)
 *   tensor_count x (name: string, n_dims u32, ne[n_dims] u64, ggml_type u32, offset u64)
 *   padding to general.alignment (default 32), tensor data
 *
 * strings are a u64 length and that many bytes; arrays are an element type
 * u32, a count u64 and the elements (arrays may nest). Only the header is
 * read: a caller may hand over a prefix and grow it while this reader asks
 * for more. Everything is little-endian (big-endian GGUF is rejected). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/fileio.h"
#include "io/files.h"
#include "precision/precision.h"

enum {
    T_U8 = 0, T_I8 = 1, T_U16 = 2, T_I16 = 3, T_U32 = 4, T_I32 = 5, T_F32 = 6, T_BOOL = 7,
    T_STRING = 8, T_ARRAY = 9, T_U64 = 10, T_I64 = 11, T_F64 = 12, T_COUNT_
};

static const char *const type_names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool",
                                         "string", "array", "u64", "i64", "f64"};
static const uint8_t type_sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* Real files hold a few dozen keys; a bound keeps hostile headers from
 * making the reader allocate per key without limit. */
#define GGUF_MAX_KV 65536u
#define GGUF_MAX_KEY 65535u /* the format's own bound on key length */
#define GGUF_MAX_DIMS 4u    /* GGML_MAX_DIMS */
#define GGUF_DEFAULT_ALIGNMENT 32u

/* The input is read through a window: in buffer mode the window is the
 * caller's buffer; in file mode it is a small buffer refilled from the file
 * as the reader moves, so a header is read once, in order, and what the
 * reader skips (tokens, merges, scores) is never kept. What outlives the
 * window (keys, the start of string values, tensor names) is copied into
 * blocks the file set owns. */
typedef struct rd {
    const uint8_t *w;        /* the window: input bytes [wbase, wend) */
    uint64_t wbase, wend;
    uint64_t pos;            /* offset in the input; >= wbase, may pass wend after a skip */
    uint64_t file_size;      /* 0: unknown */
    size_t len;              /* buffer mode: the bytes given */
    size_t *needed;
    const char *what;
    const vx_file *f;        /* file mode: the file the window is refilled from */
    uint8_t *buf;            /* file mode: the window's storage */
    size_t cap;
    vx_fileset *fs;          /* owns the copies */
    char *copy;              /* the current copy block and what is left of it */
    size_t copy_left;
    uint16_t shard;          /* the source, for the tensors */
} rd;

/* Strings values are kept up to this many bytes: the reader uses two
 * (general.architecture, shorter than 64 bytes, and general.name, cut to 63). */
#define GGUF_KEPT_STR 127u
/* File mode: bytes per refill, and per block of copies. */
#define GGUF_WINDOW ((size_t)128 * 1024)
#define GGUF_COPY_BLOCK ((size_t)64 * 1024)

typedef struct kv {
    const char *key; /* NUL-terminated copy */
    uint64_t key_len, at;
    uint32_t type;
    bool has_int, has_f;
    int64_t i;
    double f;
    const char *str; /* NUL-terminated copy of the first min(str_len, GGUF_KEPT_STR) bytes */
    uint64_t str_len;
    uint32_t arr_type;
    uint64_t arr_n;
    bool arr_has_max;
    int64_t arr_max, arr_min;
} kv;

typedef struct ti {
    uint64_t name_len, at, offset, nbytes;
    const char *name; /* NUL-terminated copy */
    uint32_t ndim, type;
    uint64_t ne[GGUF_MAX_DIMS];
} ti;

/* The common case, inline: the next k bytes are in the window. */
static inline bool have(const rd *r, uint64_t k)
{
    return r->pos <= r->wend && k <= r->wend - r->pos;
}

static inline const uint8_t *cur(const rd *r)
{
    return r->w + (r->pos - r->wbase);
}

/* May the input hold k bytes at pos? The header limit, the file's end and,
 * in buffer mode, the bytes given (NEED_MORE_DATA) say no. */
static int check_end(rd *r, uint64_t k, const char *item)
{
    uint64_t end;
    if (!vx_add(r->pos, k, &end) || end > VX_MAX_HEADER_BYTES)
        return vx_fail(VRAMEST_E_LIMIT, "%s: %s at byte %llu needs %llu bytes, past the %u-byte limit on headers",
                       r->what, item, (unsigned long long)r->pos, (unsigned long long)k, VX_MAX_HEADER_BYTES);
    if (r->file_size && end > r->file_size)
        return vx_fail(VRAMEST_E_PARSE, "%s: %s at byte %llu needs %llu bytes but the file ends at byte %llu", r->what,
                       item, (unsigned long long)r->pos, (unsigned long long)k, (unsigned long long)r->file_size);
    if (!r->f && end > r->len) {
        *r->needed = (size_t)end;
        return vx_fail(VRAMEST_E_NEED_MORE_DATA, "%s: %s at byte %llu needs bytes up to %llu, %zu given", r->what,
                       item, (unsigned long long)r->pos, (unsigned long long)end, r->len);
    }
    return VRAMEST_OK;
}

/* Make the k bytes at pos readable (have(r, k) after VRAMEST_OK). */
static int need(rd *r, uint64_t k, const char *item)
{
    int rc = check_end(r, k, item);
    if (rc || !r->f) return rc;
    /* The window moves to pos; the file's size was checked above. */
    uint64_t end = r->pos + (k > GGUF_WINDOW ? k : GGUF_WINDOW);
    if (end > r->file_size) end = r->file_size;
    if (end > VX_MAX_HEADER_BYTES) end = VX_MAX_HEADER_BYTES;
    size_t n = (size_t)(end - r->pos);
    if (n > r->cap) {
        uint8_t *nb = realloc(r->buf, n);
        if (!nb) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory for %zu bytes of the header", r->what, n);
        r->buf = nb, r->cap = n;
    }
    if ((rc = vx_file_read(r->f, r->pos, r->buf, n))) return rc;
    r->w = r->buf, r->wbase = r->pos, r->wend = end;
    return VRAMEST_OK;
}

/* need() for a value of `key`: its label is only built for the message. */
static int need_value(rd *r, uint64_t k, const char *key)
{
    if (have(r, k)) return VRAMEST_OK;
    char item[160];
    snprintf(item, sizeof item, "the value of '%.100s'", key);
    return need(r, k, item);
}

/* check_end() for a value of `key`. */
static int check_value(rd *r, uint64_t k, const char *key)
{
    if (have(r, k)) return VRAMEST_OK;
    char item[160];
    snprintf(item, sizeof item, "the value of '%.100s'", key);
    return check_end(r, k, item);
}

/* A NUL-terminated copy of the n bytes at pos (which the caller made
 * readable), owned by the file set. */
static const char *keep(rd *r, size_t n)
{
    if (n + 1 > r->copy_left) {
        size_t size = n + 1 > GGUF_COPY_BLOCK ? n + 1 : GGUF_COPY_BLOCK;
        char *b = malloc(size);
        if (!b || vx_fileset_keep(r->fs, b)) { /* keep frees b when it fails */
            vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", r->what);
            return NULL;
        }
        r->copy = b, r->copy_left = size;
    }
    char *p = r->copy;
    memcpy(p, cur(r), n);
    p[n] = '\0';
    r->copy += n + 1, r->copy_left -= n + 1;
    return p;
}

static uint64_t le(const uint8_t *p, int n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    if (n == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
#endif
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; k--) v = (v << 8) | p[k];
    return v;
}

static int rd_u32(rd *r, uint32_t *out, const char *item)
{
    int rc = have(r, 4) ? VRAMEST_OK : need(r, 4, item);
    if (rc) return rc;
    *out = (uint32_t)le(cur(r), 4);
    r->pos += 4;
    return VRAMEST_OK;
}

static int rd_u64(rd *r, uint64_t *out, const char *item)
{
    int rc = have(r, 8) ? VRAMEST_OK : need(r, 8, item);
    if (rc) return rc;
    *out = le(cur(r), 8);
    r->pos += 8;
    return VRAMEST_OK;
}

/* Scalar value of a fixed-size type at p. */
static void scalar(const uint8_t *p, uint32_t type, kv *v)
{
    uint64_t u = le(p, type_sizes[type]);
    v->has_int = true;
    switch (type) {
    case T_U8: case T_U16: case T_U32: case T_BOOL: v->i = (int64_t)u; break;
    case T_I8: v->i = (int8_t)u; break;
    case T_I16: v->i = (int16_t)u; break;
    case T_I32: v->i = (int32_t)u; break;
    case T_U64: v->i = u > INT64_MAX ? INT64_MAX : (int64_t)u; break;
    case T_I64: v->i = (int64_t)u; break;
    case T_F32: {
        uint32_t b = (uint32_t)u;
        float f;
        memcpy(&f, &b, 4);
        v->has_int = false, v->has_f = true, v->f = f;
        break;
    }
    case T_F64: {
        double f;
        memcpy(&f, &u, 8);
        v->has_int = false, v->has_f = true, v->f = f;
        break;
    }
    default: v->has_int = false;
    }
}

static bool is_int_type(uint32_t t)
{
    return t <= T_I32 || t == T_U64 || t == T_I64 || t == T_BOOL;
}

/* Largest and smallest of n integers of type et at p (one loop per type:
 * token-type arrays hold 128k of them). */
static void int_range(const uint8_t *p, uint32_t et, uint64_t n, int64_t *hi, int64_t *lo)
{
#define VX_RANGE(T, SIZE, CONV)                                                                                        \
    for (uint64_t k = 0; k < n; k++) {                                                                                 \
        int64_t e = (int64_t)(T)CONV(le(p + k * (SIZE), (SIZE)));                                                      \
        if (e > *hi) *hi = e;                                                                                          \
        if (e < *lo) *lo = e;                                                                                          \
    }
#define VX_SAT(u) ((u) > INT64_MAX ? INT64_MAX : (u))
    switch (et) {
    case T_U8: case T_BOOL: VX_RANGE(uint8_t, 1, ) break;
    case T_I8: VX_RANGE(int8_t, 1, ) break;
    case T_U16: VX_RANGE(uint16_t, 2, ) break;
    case T_I16: VX_RANGE(int16_t, 2, ) break;
    case T_U32: VX_RANGE(uint32_t, 4, ) break;
    case T_I32: VX_RANGE(int32_t, 4, ) break;
    case T_U64: VX_RANGE(uint64_t, 8, VX_SAT) break;
    case T_I64: VX_RANGE(int64_t, 8, ) break;
    default: break;
    }
#undef VX_RANGE
#undef VX_SAT
}

/* The n elements of a top-level integer array: their range, a window at a
 * time (per-layer values such as head_count arrays are read as their maximum). */
static int scan_ints(rd *r, uint32_t et, uint64_t n, const char *key, kv *v)
{
    uint64_t size = type_sizes[et];
    v->arr_has_max = n > 0;
    v->arr_max = INT64_MIN, v->arr_min = INT64_MAX;
    while (n) {
        uint64_t in = r->pos < r->wend ? (r->wend - r->pos) / size : 0;
        if (in == 0) {
            int rc = need_value(r, size, key);
            if (rc) return rc;
            continue;
        }
        if (in > n) in = n;
        int_range(cur(r), et, in, &v->arr_max, &v->arr_min);
        r->pos += in * size;
        n -= in;
    }
    return VRAMEST_OK;
}

/* Strings of an array (the tokenizer's tokens and merges: hundreds of
 * thousands): each length is read and checked, the bytes skipped. The inner
 * loop runs over the window in registers; a string that crosses the
 * window's end takes the checked way. */
static int skip_strings(rd *r, uint64_t n, const char *key)
{
    int rc;
    while (n) {
        const uint8_t *w = r->w;
        uint64_t pos = r->pos, wbase = r->wbase, wend = r->wend;
        while (n && pos <= wend && wend - pos >= 8) {
            uint64_t len = le(w + (pos - wbase), 8);
            if (len > wend - pos - 8) break;
            pos += 8 + len;
            n--;
        }
        r->pos = pos;
        if (!n) break;
        if (!have(r, 8) && (rc = need_value(r, 8, key))) return rc;
        uint64_t len = le(cur(r), 8);
        r->pos += 8;
        if (!have(r, len) && (rc = check_value(r, len, key))) return rc;
        r->pos += len;
        n--;
    }
    return VRAMEST_OK;
}

/* Read one value of `type`; `v` (may be NULL) receives scalars, strings and
 * the summary of a top-level array. */
static int rd_value(rd *r, uint32_t type, int depth, const char *key, kv *v)
{
    if (type >= T_COUNT_)
        return vx_fail(VRAMEST_E_PARSE, "%s: unknown value type %u for key '%s' (before byte %llu)", r->what, type, key,
                       (unsigned long long)r->pos);
    int rc;
    if (type == T_STRING) {
        if ((rc = need_value(r, 8, key))) return rc;
        uint64_t len = le(cur(r), 8);
        r->pos += 8;
        if ((rc = check_value(r, len, key))) return rc;
        if (v) {
            size_t kept = len < GGUF_KEPT_STR ? (size_t)len : GGUF_KEPT_STR;
            if ((rc = need_value(r, kept, key))) return rc;
            if (!(v->str = keep(r, kept))) return VRAMEST_E_NOMEM;
            v->str_len = len;
        }
        r->pos += len;
        return VRAMEST_OK;
    }
    if (type != T_ARRAY) {
        if ((rc = need_value(r, type_sizes[type], key))) return rc;
        if (v) scalar(cur(r), type, v);
        r->pos += type_sizes[type];
        return VRAMEST_OK;
    }
    if (depth >= VX_MAX_JSON_DEPTH)
        return vx_fail(VRAMEST_E_LIMIT, "%s: arrays nested deeper than %d levels in '%s' at byte %llu", r->what,
                       VX_MAX_JSON_DEPTH, key, (unsigned long long)r->pos);
    uint64_t arr_at = r->pos;
    if ((rc = need_value(r, 12, key))) return rc;
    uint32_t et = (uint32_t)le(cur(r), 4);
    uint64_t n = le(cur(r) + 4, 8);
    r->pos += 12;
    if (et >= T_COUNT_)
        return vx_fail(VRAMEST_E_PARSE, "%s: array '%s' at byte %llu has unknown element type %u", r->what, key,
                       (unsigned long long)arr_at, et);
    if (v) v->arr_type = et, v->arr_n = n;
    /* Every element takes at least this much: reject absurd counts before looping. */
    uint64_t min = et == T_STRING ? 8 : et == T_ARRAY ? 12 : type_sizes[et];
    uint64_t span;
    if (!vx_mul(n, min, &span)) span = UINT64_MAX;
    if (!have(r, span)) {
        char aitem[200];
        snprintf(aitem, sizeof aitem, "array '%.100s' of %llu %s elements", key, (unsigned long long)n,
                 type_names[et]);
        if ((rc = check_end(r, span, aitem))) return rc;
    }
    if (et == T_STRING) return skip_strings(r, n, key);
    if (et == T_ARRAY) {
        for (uint64_t k = 0; k < n; k++)
            if ((rc = rd_value(r, et, depth + 1, key, NULL))) return rc;
        return VRAMEST_OK;
    }
    if (v && is_int_type(et)) return scan_ints(r, et, n, key, v);
    r->pos += span;
    return VRAMEST_OK;
}

static int kv_cmp(const void *pa, const void *pb)
{
    const kv *a = pa, *b = pb;
    uint64_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, (size_t)n);
    if (c) return c;
    if (a->key_len != b->key_len) return a->key_len < b->key_len ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

static const kv *find(const kv *kvs, size_t n, const char *key)
{
    size_t len = strlen(key);
    for (size_t i = 0; i < n; i++)
        if (kvs[i].key_len == len && memcmp(kvs[i].key, key, len) == 0) return &kvs[i];
    return NULL;
}

static const kv *find_a(const kv *kvs, size_t n, const char *arch, const char *suffix)
{
    char key[200];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    return find(kvs, n, key);
}

/* An integer of a scalar or (per-layer) array value: the array's maximum. */
static bool int_of(const kv *v, int64_t *out)
{
    if (!v) return false;
    if (v->type == T_ARRAY) {
        if (!v->arr_has_max) return false;
        *out = v->arr_max;
        return true;
    }
    if (!v->has_int) return false;
    *out = v->i;
    return true;
}

static const char *type_name(uint32_t t)
{
    return t < T_COUNT_ ? type_names[t] : "?";
}

/* An integer architecture key (the maximum of a per-layer array): *found
 * false when absent. Present, it must be an integer, never negative, and
 * positive unless `zero_ok` (GGUF writes 0 for "none": no sliding window,
 * no q LoRA, no shared expert). Anything else is VRAMEST_E_PARSE naming
 * the key: a file whose metadata says -5 layers describes no model, and
 * skipping the key would estimate another one. */
static int int_key(const kv *s, bool zero_ok, const char *what, int64_t *out, bool *found)
{
    *found = false;
    if (!s) return VRAMEST_OK;
    char key[120];
    snprintf(key, sizeof key, "%.*s", (int)(s->key_len > 100 ? 100 : s->key_len), s->key);
    bool is_arr = s->type == T_ARRAY;
    if (is_arr ? !is_int_type(s->arr_type) : !s->has_int)
        return vx_fail(VRAMEST_E_PARSE, "%s: GGUF key '%s' (byte %llu) is %s%s, not an integer", what, key,
                       (unsigned long long)s->at, is_arr ? "an array of " : "a ",
                       type_name(is_arr ? s->arr_type : s->type));
    if (is_arr && !s->arr_has_max)
        return vx_fail(VRAMEST_E_PARSE, "%s: GGUF key '%s' (byte %llu) is an empty array", what, key,
                       (unsigned long long)s->at);
    int64_t v = is_arr ? s->arr_max : s->i, lo = is_arr ? s->arr_min : s->i;
    if (lo < 0)
        return vx_fail(VRAMEST_E_PARSE, "%s: GGUF key '%s' (byte %llu) holds %lld, a negative count", what, key,
                       (unsigned long long)s->at, (long long)lo);
    if (v == 0 && !zero_ok)
        return vx_fail(VRAMEST_E_PARSE, "%s: GGUF key '%s' (byte %llu) is 0, which describes no model", what, key,
                       (unsigned long long)s->at);
    *out = v;
    *found = v > 0;
    return VRAMEST_OK;
}

static int add_opt(vx_fileset *fs, vramest_option key, int64_t i, bool structural, const kv *src)
{
    if (fs->n_opts >= VX_FILE_OPTS) return vx_fail(VRAMEST_E_INTERNAL, "GGUF: too many architecture values");
    vx_file_opt *o = &fs->opts[fs->n_opts++];
    memset(o, 0, sizeof *o);
    o->key = key;
    o->i = i;
    o->structural = structural;
    if (src) {
        o->at = src->at;
        snprintf(o->src, sizeof o->src, "%.*s", (int)(src->key_len > 79 ? 79 : src->key_len), src->key);
    } else {
        snprintf(o->src, sizeof o->src, "general.architecture");
    }
    return VRAMEST_OK;
}

static int add_f(vx_fileset *fs, vramest_option key, double f, const kv *src)
{
    int rc = add_opt(fs, key, 0, false, src);
    if (rc) return rc;
    fs->opts[fs->n_opts - 1].is_f = true;
    fs->opts[fs->n_opts - 1].f = f;
    return VRAMEST_OK;
}

/* Architecture values of the metadata -> model options. */
static int arch_options(vx_fileset *fs, const kv *kvs, size_t n, const char *what)
{
    const kv *a = find(kvs, n, "general.architecture");
    if (!a) return vx_fail(VRAMEST_E_PARSE, "%s: no general.architecture key", what);
    if (a->type != T_STRING)
        return vx_fail(VRAMEST_E_PARSE, "%s: general.architecture (byte %llu) is a %s, not a string", what,
                       (unsigned long long)a->at, a->type < T_COUNT_ ? type_names[a->type] : "?");
    char arch[64];
    if (a->str_len >= sizeof arch || memchr(a->str, 0, (size_t)a->str_len))
        return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE, "%s: general.architecture (byte %llu) is not a known architecture",
                       what, (unsigned long long)a->at);
    memcpy(arch, a->str, (size_t)a->str_len);
    arch[a->str_len] = '\0';
    const vx_family *fam = vx_family_of_gguf(arch);
    if (!fam) {
        char list[512];
        size_t used = 0, nf;
        list[0] = '\0';
        const vx_family *const *all = vx_families(&nf);
        for (size_t i = 0; i < nf; i++) {
            const char *g = all[i]->gguf;
            if (g && used + strlen(g) + 3 < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", g);
        }
        return vx_fail(VRAMEST_E_UNKNOWN_MODEL_TYPE, "%s: general.architecture '%s' (byte %llu) is not supported (supported: %s)",
                       what, arch, (unsigned long long)a->at, list);
    }
    int64_t v, kl = 0, vl = 0;
    int rc;
    const kv *s;
    bool has_kl = int_of(find_a(kvs, n, arch, "attention.key_length"), &kl);
    bool has_vl = int_of(find_a(kvs, n, arch, "attention.value_length"), &vl);
    int64_t experts = 0;
    int_of(find_a(kvs, n, arch, "expert_count"), &experts);
    /* llama.cpp converts some families to another's architecture: Mixtral
     * to llama (with experts), DeepSeek-V3 to deepseek2 (sigmoid gating, 2). */
    if (fam->gguf_moe_id && experts > 0) fam = vx_family_of(fam->gguf_moe_id);
    int64_t gating = 0;
    if (fam->gguf_sigmoid_id && int_of(find_a(kvs, n, arch, "expert_gating_func"), &gating) && gating == 2)
        fam = vx_family_of(fam->gguf_sigmoid_id);
    int family = fam->id;
    if ((rc = add_opt(fs, VRAMEST_MODEL_MODEL_TYPE, family, true, a))) return rc;
    fs->encoder_only = fam->kind == VX_FK_ENCODER;

    /* zero_ok: GGUF's 0 for "none"; the option stays unset. */
    struct { const char *suffix; vramest_option key; bool structural, zero_ok; } plain[] = {
        {"block_count", VRAMEST_MODEL_NUM_HIDDEN_LAYERS, true, false},
        {"decoder_block_count", VRAMEST_MODEL_NUM_DECODER_LAYERS, true, false},
        {"embedding_length", VRAMEST_MODEL_HIDDEN_SIZE, true, false},
        {"feed_forward_length", VRAMEST_MODEL_INTERMEDIATE_SIZE, true, false},
        {"attention.head_count", VRAMEST_MODEL_NUM_ATTENTION_HEADS, true, false},
        {"expert_count", VRAMEST_MODEL_NUM_LOCAL_EXPERTS, true, true},
        {"vocab_size", VRAMEST_MODEL_VOCAB_SIZE, true, false},
        {"context_length", VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, false, false},
        {"expert_used_count", VRAMEST_MODEL_NUM_EXPERTS_PER_TOK, false, true},
        {"expert_feed_forward_length", VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE, false, true},
        {"expert_shared_count", VRAMEST_MODEL_N_SHARED_EXPERTS, false, true},
        {"expert_shared_feed_forward_length", VRAMEST_MODEL_SHARED_EXPERT_INTERMEDIATE_SIZE, false, true},
        {"leading_dense_block_count", VRAMEST_MODEL_FIRST_K_DENSE_REPLACE, false, true},
        {"attention.sliding_window", VRAMEST_MODEL_SLIDING_WINDOW, false, true},
        {"attention.kv_lora_rank", VRAMEST_MODEL_KV_LORA_RANK, false, true},
        {"attention.q_lora_rank", VRAMEST_MODEL_Q_LORA_RANK, false, true},
    };
    bool found;
    for (size_t i = 0; i < VX_ARRAY_LEN(plain); i++) {
        s = find_a(kvs, n, arch, plain[i].suffix);
        if ((rc = int_key(s, plain[i].zero_ok, what, &v, &found))) return rc;
        if (found && (rc = add_opt(fs, plain[i].key, v, plain[i].structural, s))) return rc;
    }
    /* Keys read below: the same rules, checked once here. */
    static const struct { const char *suffix; bool zero_ok; } other[] = {
        {"attention.key_length", false}, {"attention.value_length", false}, {"attention.key_length_mla", false},
        {"attention.value_length_mla", false}, {"rope.dimension_count", true}, {"expert_gating_func", true},
    };
    for (size_t i = 0; i < VX_ARRAY_LEN(other); i++)
        if ((rc = int_key(find_a(kvs, n, arch, other[i].suffix), other[i].zero_ok, what, &v, &found))) return rc;
    /* MLA files store head_count_kv = 1 (the compressed latent is shared). */
    s = find_a(kvs, n, arch, "attention.head_count_kv");
    int64_t kvh = 0;
    if ((rc = int_key(s, false, what, &kvh, &found))) return rc;
    if (found && !fam->mla) {
        if ((rc = add_opt(fs, VRAMEST_MODEL_NUM_KEY_VALUE_HEADS, kvh, true, s))) return rc;
        if ((fam->gguf_flags & VX_GGF_NEW_ARCH) &&
            (rc = add_opt(fs, VRAMEST_MODEL_NEW_DECODER_ARCHITECTURE, kvh > 1, false, s)))
            return rc;
        if ((fam->gguf_flags & VX_GGF_MULTI_QUERY) && (rc = add_opt(fs, VRAMEST_MODEL_MULTI_QUERY, kvh == 1, false, s)))
            return rc;
    }
    if (fam->mla) {
        /* Newer conversions keep the MLA head sizes under *_mla and store
         * the absorbed (MQA) sizes under key_length / value_length. */
        int64_t klm, vlm;
        if (int_of(find_a(kvs, n, arch, "attention.key_length_mla"), &klm)) kl = klm, has_kl = true;
        if (int_of(find_a(kvs, n, arch, "attention.value_length_mla"), &vlm)) vl = vlm, has_vl = true;
        int64_t rope = 0;
        s = find_a(kvs, n, arch, "rope.dimension_count");
        if (int_of(s, &rope) && rope > 0) {
            if ((rc = add_opt(fs, VRAMEST_MODEL_QK_ROPE_HEAD_DIM, rope, false, s))) return rc;
            if (has_kl && kl > rope &&
                (rc = add_opt(fs, VRAMEST_MODEL_QK_NOPE_HEAD_DIM, kl - rope, false,
                              find_a(kvs, n, arch, "attention.key_length"))))
                return rc;
        }
        if (has_vl && vl > 0 &&
            (rc = add_opt(fs, VRAMEST_MODEL_V_HEAD_DIM, vl, false, find_a(kvs, n, arch, "attention.value_length"))))
            return rc;
    } else {
        if (has_kl && kl > 0 && (!has_vl || vl == kl) &&
            (rc = add_opt(fs, VRAMEST_MODEL_HEAD_DIM, kl, false, find_a(kvs, n, arch, "attention.key_length"))))
            return rc;
        s = find_a(kvs, n, arch, "rope.dimension_count");
        if ((fam->gguf_flags & VX_GGF_ROTARY_DIM) && int_of(s, &v) && v > 0 &&
            (rc = add_opt(fs, VRAMEST_MODEL_ROTARY_DIM, v, false, s)))
            return rc;
    }
    s = find_a(kvs, n, arch, "final_logit_softcapping");
    if (s) {
        /* 0 is "no softcap"; NaN, infinities, negatives and non-numbers cap nothing real. */
        if (!s->has_f || !isfinite(s->f) || s->f < 0)
            return vx_fail(VRAMEST_E_PARSE, "%s: GGUF key '%s.final_logit_softcapping' (byte %llu) must be a finite, "
                           "non-negative float (it is %s)", what, arch, (unsigned long long)s->at,
                           !s->has_f ? type_name(s->type) : isnan(s->f) ? "NaN" : isinf(s->f) ? "infinite" : "negative");
        if (s->f > 0 && (rc = add_f(fs, VRAMEST_MODEL_FINAL_LOGIT_SOFTCAPPING, s->f, s))) return rc;
    }
    /* Without an explicit vocab_size, the tokenizer's token list counts it;
     * parse.c prefers the embedding's rows when the file has one. */
    s = find(kvs, n, "tokenizer.ggml.tokens");
    if (s && s->type == T_ARRAY && s->arr_n > 0 && !find_a(kvs, n, arch, "vocab_size"))
        fs->gguf_tokens = s->arr_n;
    s = find(kvs, n, "general.name");
    if (s && s->type == T_STRING) {
        size_t len = s->str_len < sizeof fs->name - 1 ? (size_t)s->str_len : sizeof fs->name - 1;
        memcpy(fs->name, s->str, len);
        fs->name[len] = '\0';
        if (!vx_utf8_valid(fs->name, len, NULL) || memchr(fs->name, 0, len)) fs->name[0] = '\0';
    }
    return VRAMEST_OK;
}

static int raw_offset_cmp(const void *pa, const void *pb)
{
    const vx_raw_tensor *a = *(const vx_raw_tensor *const *)pa, *b = *(const vx_raw_tensor *const *)pb;
    if (a->begin != b->begin) return a->begin < b->begin ? -1 : 1;
    return a->nbytes < b->nbytes ? -1 : a->nbytes > b->nbytes;
}

/* One tensor info into the set (its name is the set's copy). */
static int push_raw(vx_fileset *fs, const ti *t, uint16_t src)
{
    vx_raw_tensor raw = {0};
    raw.name = t->name;
    raw.name_len = (uint32_t)t->name_len;
    raw.at = t->at;
    raw.begin = t->offset;
    raw.nbytes = t->nbytes;
    raw.shard = src;
    raw.gguf = 1;
    raw.dtype = (int16_t)(100 + (int)t->type);
    raw.ndim = (uint8_t)t->ndim;
    /* ggml ne[] is innermost first; the inventory is outermost first. */
    raw.dims[0] = raw.dims[1] = raw.dims[2] = 1;
    if (t->ndim == 1) {
        raw.dims[0] = (int64_t)t->ne[0];
    } else if (t->ndim == 2) {
        raw.dims[0] = (int64_t)t->ne[1], raw.dims[1] = (int64_t)t->ne[0];
    } else if (t->ndim >= 3) {
        raw.dims[0] = (int64_t)t->ne[t->ndim - 1];
        raw.dims[1] = (int64_t)t->ne[t->ndim - 2];
        raw.dims[2] = (int64_t)t->ne[0];
        if (t->ndim == 4) raw.dims[1] *= (int64_t)t->ne[1]; /* bounded by the extent <= INT64_MAX */
    }
    return vx_fileset_push(fs, &raw);
}

static int grow(void **p, size_t *cap, size_t need_n, size_t elem)
{
    if (need_n <= *cap) return VRAMEST_OK;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need_n) nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np) return vx_fail(VRAMEST_E_NOMEM, "GGUF reader: out of memory");
    *p = np;
    *cap = nc;
    return VRAMEST_OK;
}

static int read_header(vx_fileset *fs, rd *r, kv **kvs_out, size_t *n_kv_out, uint16_t src)
{
    const char *what = r->what;
    int rc;
    /* A file: its first window. */
    if (r->f && (rc = need(r, r->file_size < 4 ? r->file_size : 4, "the magic"))) return rc;
    size_t avail = r->f ? (size_t)(r->wend - r->wbase) : r->len;
    if (avail < 4 && memcmp(r->w, "GGUF", avail) == 0 && !r->f && (!r->file_size || r->file_size >= 4)) {
        *r->needed = 4;
        return vx_fail(VRAMEST_E_NEED_MORE_DATA, "%s: %zu of the 4 magic bytes", what, r->len);
    }
    /* Until the magic and a known version show a GGUF file, a message
     * shows none of its bytes (docs/security.md, "Messages"). */
    if (avail < 4 || memcmp(r->w, "GGUF", 4) != 0)
        return vx_fail(VRAMEST_E_PARSE, "%s: bytes 0-3 are not the magic 'GGUF'", what);
    r->pos = 4;
    uint32_t version;
    uint64_t n_tensors, n_kv;
    if ((rc = rd_u32(r, &version, "the version"))) return rc;
    if (version == 1)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "%s: GGUF version 1 (byte 4) is not supported (v1 used 32-bit counts; "
                       "re-convert the model with a current llama.cpp)", what);
    if ((version & 0xFFFFu) == 0 && (version >> 16) != 0)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "%s: big-endian GGUF (the version at byte 4) is not supported", what);
    if (version != 2 && version != 3)
        return vx_fail(VRAMEST_E_UNSUPPORTED, "%s: the GGUF version (byte 4) is not supported (2 and 3 are)", what);
    if ((rc = rd_u64(r, &n_tensors, "the tensor count")) || (rc = rd_u64(r, &n_kv, "the metadata count"))) return rc;
    if (n_tensors > VX_MAX_TENSORS)
        return vx_fail(VRAMEST_E_LIMIT, "%s: the tensor count (byte 8) exceeds the limit of %u", what, VX_MAX_TENSORS);
    if (n_kv > GGUF_MAX_KV)
        return vx_fail(VRAMEST_E_LIMIT, "%s: the metadata count (byte 16) exceeds the limit of %u", what, GGUF_MAX_KV);

    kv *kvs = NULL;
    size_t cap_kv = 0;
    *kvs_out = NULL, *n_kv_out = 0;
    for (uint64_t k = 0; k < n_kv; k++) {
        if ((rc = grow((void **)&kvs, &cap_kv, (size_t)k + 1, sizeof *kvs))) break;
        *kvs_out = kvs;
        kv *v = &kvs[k];
        memset(v, 0, sizeof *v);
        v->at = r->pos;
        uint64_t len;
        if ((rc = rd_u64(r, &len, "a metadata key"))) break;
        if (len > GGUF_MAX_KEY) {
            rc = vx_fail(VRAMEST_E_LIMIT, "%s: metadata key %llu at byte %llu is %llu bytes long (limit %u)", what,
                         (unsigned long long)k, (unsigned long long)v->at, (unsigned long long)len, GGUF_MAX_KEY);
            break;
        }
        if (!have(r, len) && (rc = need(r, len, "a metadata key"))) break;
        if (!(v->key = keep(r, (size_t)len))) {
            rc = VRAMEST_E_NOMEM;
            break;
        }
        r->pos += len;
        v->key_len = len;
        size_t bad;
        if (len == 0 || memchr(v->key, 0, (size_t)len) || !vx_utf8_valid(v->key, (size_t)len, &bad)) {
            rc = vx_fail(VRAMEST_E_PARSE, "%s: metadata key %llu at byte %llu is empty or not valid UTF-8", what,
                         (unsigned long long)k, (unsigned long long)v->at);
            break;
        }
        char key[120];
        snprintf(key, sizeof key, "%.*s", (int)(len > 100 ? 100 : len), v->key);
        if ((rc = rd_u32(r, &v->type, "a value type"))) break;
        if ((rc = rd_value(r, v->type, 0, key, v))) break;
        *n_kv_out = (size_t)k + 1;
    }
    if (rc) return rc;
    /* Duplicate keys: the reference reader (ggml gguf.c) rejects them. */
    if (*n_kv_out > 1) {
        kv *sorted = malloc(*n_kv_out * sizeof *sorted);
        if (!sorted) return vx_fail(VRAMEST_E_NOMEM, "GGUF reader: out of memory");
        memcpy(sorted, kvs, *n_kv_out * sizeof *sorted);
        qsort(sorted, *n_kv_out, sizeof *sorted, kv_cmp);
        for (size_t i = 1; i < *n_kv_out && !rc; i++)
            if (sorted[i].key_len == sorted[i - 1].key_len &&
                memcmp(sorted[i].key, sorted[i - 1].key, (size_t)sorted[i].key_len) == 0)
                rc = vx_fail(VRAMEST_E_PARSE, "%s: duplicate metadata key '%.*s' at bytes %llu and %llu", what,
                             (int)(sorted[i].key_len > 100 ? 100 : sorted[i].key_len), sorted[i].key,
                             (unsigned long long)sorted[i - 1].at, (unsigned long long)sorted[i].at);
        free(sorted);
        if (rc) return rc;
    }
    uint64_t alignment = GGUF_DEFAULT_ALIGNMENT;
    const kv *al = find(kvs, *n_kv_out, "general.alignment");
    if (al) {
        if (al->type != T_U32 || al->i == 0 || (al->i & (al->i - 1)) != 0)
            return vx_fail(VRAMEST_E_PARSE, "%s: general.alignment (byte %llu) must be a u32 power of two", what,
                           (unsigned long long)al->at);
        alignment = (uint64_t)al->i;
    }

    /* Tensor infos go straight into the set: a second array of them
     * doubled the peak memory of a 1,000,000-tensor header. */
    size_t from = fs->n;
    for (uint64_t k = 0; k < n_tensors; k++) {
        ti one, *t = &one;
        memset(t, 0, sizeof *t);
        t->at = r->pos;
        if ((rc = rd_u64(r, &t->name_len, "a tensor name"))) return rc;
        if (t->name_len > VX_MAX_NAME)
            return vx_fail(VRAMEST_E_LIMIT, "%s: tensor %llu at byte %llu has a %llu-byte name (limit %u)", what,
                           (unsigned long long)k, (unsigned long long)t->at, (unsigned long long)t->name_len,
                           VX_MAX_NAME);
        if (!have(r, t->name_len) && (rc = need(r, t->name_len, "a tensor name"))) return rc;
        const char *name = t->name = keep(r, (size_t)t->name_len), *shown = name;
        if (!name) return VRAMEST_E_NOMEM;
        r->pos += t->name_len;
        if (t->name_len == 0 || memchr(name, 0, (size_t)t->name_len) ||
            !vx_utf8_valid(name, (size_t)t->name_len, NULL))
            return vx_fail(VRAMEST_E_PARSE, "%s: tensor %llu at byte %llu: its name is empty or not valid UTF-8", what,
                           (unsigned long long)k, (unsigned long long)t->at);
        if ((rc = rd_u32(r, &t->ndim, "a dimension count"))) return rc;
        if (t->ndim > GGUF_MAX_DIMS)
            return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' at byte %llu has %u dimensions (at most %u)", what, shown,
                           (unsigned long long)t->at, t->ndim, GGUF_MAX_DIMS);
        uint64_t elems = 1, extent = 1;
        for (uint32_t d = 0; d < t->ndim; d++) {
            if ((rc = rd_u64(r, &t->ne[d], "a dimension"))) return rc;
            if (t->ne[d] > (uint64_t)VX_MAX_DIM)
                return vx_fail(VRAMEST_E_LIMIT, "%s: tensor '%s' at byte %llu: dimension %u is %llu (%s; limit %lld)",
                               what, shown, (unsigned long long)t->at, d, (unsigned long long)t->ne[d],
                               (int64_t)t->ne[d] < 0 ? "negative as int64" : "too large", (long long)VX_MAX_DIM);
            if (!vx_mul(elems, t->ne[d], &elems))
                return vx_fail(VRAMEST_E_OVERFLOW, "%s: tensor '%s' at byte %llu has more than 2^64 elements", what,
                               shown, (unsigned long long)t->at);
            /* Dims become int64 and are multiplied together (a 4-D tensor
             * folds two into one): their product must fit one, a zero
             * dimension aside (2^32 x (2^31+1) one-byte elements fit a
             * uint64 only; with a zero dimension the product is the same). */
            if (!vx_mul(extent, t->ne[d] ? t->ne[d] : 1, &extent) || extent > (uint64_t)INT64_MAX)
                return vx_fail(VRAMEST_E_OVERFLOW, "%s: tensor '%s' at byte %llu spans more than 2^63 elements", what,
                               shown, (unsigned long long)t->at);
        }
        uint64_t type_at = r->pos;
        if ((rc = rd_u32(r, &t->type, "a tensor type"))) return rc;
        const vx_dtype_info *dt = t->type < 1000 ? vx_dtype(100 + (int)t->type) : NULL;
        if (!dt || dt->is_policy || !dt->block_elems)
            return vx_fail(VRAMEST_E_UNSUPPORTED, "%s: tensor '%s' at byte %llu has unknown ggml type %u (byte %llu)",
                           what, shown, (unsigned long long)t->at, t->type, (unsigned long long)type_at);
        uint64_t ne0 = t->ndim ? t->ne[0] : 1;
        if (ne0 % dt->block_elems)
            return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' at byte %llu: rows of %llu elements are not whole %s blocks "
                           "of %u", what, shown, (unsigned long long)t->at, (unsigned long long)ne0, dt->name,
                           dt->block_elems);
        uint64_t bytes;
        if (!vx_mul(elems / dt->block_elems, dt->block_bytes, &bytes))
            return vx_fail(VRAMEST_E_OVERFLOW, "%s: tensor '%s' at byte %llu: %llu elements of %s overflow 64 bits", what,
                           shown, (unsigned long long)t->at, (unsigned long long)elems, dt->name);
        t->nbytes = vx_dtype_bytes(100 + (int)t->type, elems);
        if (t->nbytes != bytes)
            return vx_fail(VRAMEST_E_INTERNAL, "%s: tensor '%s': the dtype table sizes %llu elements of %s as %llu bytes, "
                           "expected %llu", what, shown, (unsigned long long)elems, dt->name,
                           (unsigned long long)t->nbytes, (unsigned long long)bytes);
        uint64_t off_at = r->pos;
        if ((rc = rd_u64(r, &t->offset, "a tensor offset"))) return rc;
        if (t->offset % alignment)
            return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s': offset %llu (byte %llu) is not a multiple of the alignment %llu",
                           what, shown, (unsigned long long)t->offset, (unsigned long long)off_at,
                           (unsigned long long)alignment);
        if (t->offset > UINT64_MAX - t->nbytes)
            return vx_fail(VRAMEST_E_OVERFLOW, "%s: tensor '%s': offset %llu (byte %llu) plus its size overflows", what,
                           shown, (unsigned long long)t->offset, (unsigned long long)off_at);
        if ((rc = push_raw(fs, t, src))) return rc;
    }
    uint64_t data_start = vx_round_up(r->pos, alignment);
    /* Tensor data may not overlap, and must lie within the file. */
    size_t nt = fs->n - from;
    if (nt) {
        const vx_raw_tensor **v = malloc(nt * sizeof *v);
        if (!v) return vx_fail(VRAMEST_E_NOMEM, "GGUF reader: out of memory");
        for (size_t i = 0; i < nt; i++) v[i] = &fs->t[from + i];
        qsort(v, nt, sizeof *v, raw_offset_cmp);
        for (size_t i = 1; i < nt && !rc; i++)
            if (v[i]->begin < v[i - 1]->begin + v[i - 1]->nbytes)
                rc = vx_fail(VRAMEST_E_PARSE,
                             "%s: tensor '%.*s' (byte %llu) at data offset %llu overlaps tensor '%.*s' (byte %llu, "
                             "data [%llu, %llu))",
                             what, (int)v[i]->name_len, v[i]->name, (unsigned long long)v[i]->at,
                             (unsigned long long)v[i]->begin, (int)v[i - 1]->name_len, v[i - 1]->name,
                             (unsigned long long)v[i - 1]->at, (unsigned long long)v[i - 1]->begin,
                             (unsigned long long)(v[i - 1]->begin + v[i - 1]->nbytes));
        const vx_raw_tensor *last = v[nt - 1];
        uint64_t end = last->begin + last->nbytes;
        if (!rc && r->file_size && (data_start > r->file_size || end > r->file_size - data_start))
            rc = vx_fail(VRAMEST_E_PARSE, "%s: tensor '%.*s' (byte %llu) ends at byte %llu, past the end of the %llu-byte file",
                         what, (int)last->name_len, last->name, (unsigned long long)last->at,
                         (unsigned long long)vx_sat_add(data_start, end), (unsigned long long)r->file_size);
        free(v);
        if (rc) return rc;
    }
    return VRAMEST_OK;
}

/* The reader over an input set up by the two entry points below. */
static int gguf_read(vx_fileset *fs, rd *r, bool arch)
{
    kv *kvs = NULL;
    size_t n_kv = 0, from = fs->n;
    int rc = read_header(fs, r, &kvs, &n_kv, r->shard);
    if (!rc && arch) rc = arch_options(fs, kvs, n_kv, r->what);
    int64_t splits = 0;
    if (!rc && int_of(find(kvs, n_kv, "split.count"), &splits) && splits > 1) fs->gguf_split = true;
    if (!rc) rc = vx_fileset_check_dups(fs, from);
    free(kvs);
    return rc;
}

int vx_gguf_read(vx_fileset *fs, const uint8_t *data, size_t len, uint64_t file_size, bool arch, size_t *needed)
{
    uint16_t src = fs->n_sources ? (uint16_t)(fs->n_sources - 1) : 0;
    rd r = {.w = data, .len = len, .file_size = file_size, .needed = needed, .what = vx_fileset_label(fs, src),
            .fs = fs, .shard = src};
    /* The window is the buffer, short of the file's end and the limit. */
    r.wend = len;
    if (file_size && file_size < r.wend) r.wend = file_size;
    if (r.wend > VX_MAX_HEADER_BYTES) r.wend = VX_MAX_HEADER_BYTES;
    return gguf_read(fs, &r, arch);
}

int vx_gguf_read_file(vx_fileset *fs, const vx_file *f, bool arch)
{
    uint16_t src = fs->n_sources ? (uint16_t)(fs->n_sources - 1) : 0;
    size_t unused = 0;
    rd r = {.file_size = f->size, .needed = &unused, .what = vx_fileset_label(fs, src), .f = f, .fs = fs,
            .shard = src};
    int rc = gguf_read(fs, &r, arch);
    free(r.buf);
    return rc;
}
