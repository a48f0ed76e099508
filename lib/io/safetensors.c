/* safetensors headers and model.safetensors.index.json.
 *
 * A safetensors file is an 8-byte little-endian header length N, N bytes of
 * JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__":
 * {string: string}}, then the data. The header is validated as strictly as
 * the reference implementation (huggingface/safetensors, Metadata::validate):
 * data_offsets sorted by begin must tile [0, total) without gap or overlap,
 * and end - begin must equal the element count times the dtype's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/files.h"
#include "precision/precision.h"

/* Every dtype the format defines (safetensors Dtype, with bit sizes), mapped
 * to our dtype table by name; formats our table lacks fall back to a
 * storage type of the same element size, so byte counts stay exact. */
typedef struct st_dtype {
    const char *st;
    uint8_t bits;
    const char *vx;   /* our canonical name, looked up at run time */
    int16_t fallback; /* same-size stand-in when the table has no such name */
} st_dtype;

static const st_dtype st_dtypes[] = {
    {"BOOL", 8, "bool", VRAMEST_DTYPE_BOOL},
    {"U8", 8, "uint8", VRAMEST_DTYPE_UINT8},
    {"I8", 8, "int8", VRAMEST_DTYPE_INT8},
    {"F8_E5M2", 8, "fp8_e5m2", VRAMEST_DTYPE_FP8_E5M2},
    {"F8_E4M3", 8, "fp8_e4m3", VRAMEST_DTYPE_FP8_E4M3},
    {"F8_E8M0", 8, "fp8_e8m0", VRAMEST_DTYPE_UINT8},
    {"F8_E4M3FNUZ", 8, "fp8_e4m3fnuz", VRAMEST_DTYPE_FP8_E4M3},
    {"F8_E5M2FNUZ", 8, "fp8_e5m2fnuz", VRAMEST_DTYPE_FP8_E5M2},
    {"I16", 16, "int16", VRAMEST_DTYPE_INT16},
    {"U16", 16, "uint16", VRAMEST_DTYPE_INT16},
    {"F16", 16, "fp16", VRAMEST_DTYPE_FP16},
    {"BF16", 16, "bf16", VRAMEST_DTYPE_BF16},
    {"I32", 32, "int32", VRAMEST_DTYPE_INT32},
    {"U32", 32, "uint32", VRAMEST_DTYPE_INT32},
    {"F32", 32, "fp32", VRAMEST_DTYPE_FP32},
    {"F64", 64, "fp64", VRAMEST_DTYPE_FP64},
    {"I64", 64, "int64", VRAMEST_DTYPE_INT64},
    {"U64", 64, "uint64", VRAMEST_DTYPE_INT64},
    {"C64", 64, "complex64", VRAMEST_DTYPE_FP64},
    /* Sub-byte floats are packed: int4 (two per byte) sizes F4 exactly; F6 has
     * no stand-in of its size and is over-counted by vx_dtype_bytes() until
     * the dtype table gains an fp6 (its file_bytes stay exact). */
    {"F4", 4, "fp4_e2m1", VRAMEST_DTYPE_INT4},
    {"F6_E2M3", 6, "fp6_e2m3", VRAMEST_DTYPE_UINT8},
    {"F6_E3M2", 6, "fp6_e3m2", VRAMEST_DTYPE_UINT8},
};

static const st_dtype *st_dtype_find(const char *name)
{
    for (size_t i = 0; i < VX_ARRAY_LEN(st_dtypes); i++)
        if (strcmp(st_dtypes[i].st, name) == 0) return &st_dtypes[i];
    return NULL;
}

static int16_t st_dtype_id(const st_dtype *d)
{
    const vx_dtype_info *info = vx_dtype_by_name(d->vx);
    return info && !info->is_policy ? (int16_t)info->id : d->fallback;
}

/* A bounded arena the decoded names go to: decoding never grows a string,
 * so the header's length bounds the arena. */
typedef struct arena {
    char *buf;
    size_t cap, used;
} arena;

static int read_key(vx_jscan *j, arena *a, const char **out, size_t *len, const char *ctx)
{
    size_t room = a->cap - a->used;
    /* The raw string fits in what remains of the text, which bounds its decoding. */
    if (j->n - j->i + 1 > room)
        return vx_fail(VRAMEST_E_INTERNAL, "%s: name arena exhausted at byte %llu", j->what,
                       (unsigned long long)vx_js_at(j));
    char *dst = a->buf + a->used;
    int rc = vx_js_string(j, dst, len, ctx);
    if (rc) return rc;
    *out = dst;
    return VRAMEST_OK;
}

static void commit_key(arena *a, size_t len)
{
    a->used += len + 1;
}

/* Non-negative integer within [0, limit]; PARSE for negative or fractional,
 * `big_code` beyond the limit. `strict`: also PARSE for an integer written
 * as 4.0 or 1e3, which the reference reader refuses (huggingface/safetensors
 * safetensors/src/tensor.rs: TensorInfo's shape is a Vec<usize> and its
 * data_offsets a (usize, usize), deserialized by serde_json, which reads a
 * number with a fraction or an exponent as a float, never as a usize). */
static int read_uint(vx_jscan *j, uint64_t limit, int big_code, uint64_t *out, const char *what, const char *tensor,
                     uint64_t at, bool strict)
{
    uint64_t num_at = (vx_js_peek(j), vx_js_at(j));
    vx_jnum v;
    int rc = vx_js_number(j, &v, what);
    if (rc) return rc;
    if (v.frac || (strict && v.floaty))
        return vx_fail(VRAMEST_E_PARSE, "%s: %s of tensor '%s' (entry at byte %llu) is not an integer (byte %llu%s)",
                       j->what, what, tensor, (unsigned long long)at, (unsigned long long)num_at,
                       v.frac ? "" : ": written with a fraction or an exponent");
    if (v.neg)
        return vx_fail(VRAMEST_E_PARSE, "%s: %s of tensor '%s' (entry at byte %llu) is negative (byte %llu)", j->what,
                       what, tensor, (unsigned long long)at, (unsigned long long)num_at);
    if (v.big || v.mag > limit)
        return vx_fail(big_code, "%s: %s %s%llu of tensor '%s' (entry at byte %llu) exceeds %llu (byte %llu)", j->what,
                       what, v.big ? ">" : "", (unsigned long long)v.mag, tensor, (unsigned long long)at,
                       (unsigned long long)limit, (unsigned long long)num_at);
    *out = v.mag;
    return VRAMEST_OK;
}

/* One tensor entry: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}. */
static int read_entry(vx_jscan *j, arena *a, const char *name, uint64_t at, vx_raw_tensor *t)
{
    int rc = vx_js_open(j, '{', "a tensor entry");
    if (rc) {
        if (rc == VRAMEST_E_PARSE)
            vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' at byte %llu: its value must be an object", j->what, name,
                    (unsigned long long)at);
        return rc;
    }
    bool has_dtype = false, has_shape = false, has_off = false;
    const st_dtype *dt = NULL;
    uint64_t elems = 1, extent = 1;
    uint64_t off[2] = {0, 0};
    t->ndim = 0;
    t->dims[0] = t->dims[1] = t->dims[2] = 1;
    for (size_t k = 0;; k++) {
        int more;
        if ((rc = vx_js_next(j, '}', k, &more, "a tensor entry"))) return rc;
        if (!more) break;
        const char *field;
        size_t flen;
        uint64_t field_at = (vx_js_peek(j), vx_js_at(j));
        if ((rc = read_key(j, a, &field, &flen, "a field name"))) return rc;
        if ((rc = vx_js_expect(j, ':', "a tensor entry"))) return rc;
        bool *seen = strcmp(field, "dtype") == 0          ? &has_dtype
                     : strcmp(field, "shape") == 0        ? &has_shape
                     : strcmp(field, "data_offsets") == 0 ? &has_off
                                                          : NULL;
        if (seen && *seen)
            return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' (entry at byte %llu) has two '%s' fields (byte %llu)",
                           j->what, name, (unsigned long long)at, field, (unsigned long long)field_at);
        if (seen) *seen = true;
        if (strcmp(field, "dtype") == 0) {
            const char *dname;
            size_t dlen;
            uint64_t dat = (vx_js_peek(j), vx_js_at(j));
            if ((rc = read_key(j, a, &dname, &dlen, "a dtype"))) return rc;
            dt = st_dtype_find(dname);
            if (!dt)
                return vx_fail(VRAMEST_E_UNSUPPORTED, "%s: unknown dtype '%.40s' of tensor '%s' at byte %llu", j->what,
                               dname, name, (unsigned long long)dat);
        } else if (strcmp(field, "shape") == 0) {
            if ((rc = vx_js_open(j, '[', "a shape"))) return rc;
            for (size_t d = 0;; d++) {
                if ((rc = vx_js_next(j, ']', d, &more, "a shape"))) return rc;
                if (!more) break;
                uint64_t dim;
                if ((rc = read_uint(j, (uint64_t)VX_MAX_DIM, VRAMEST_E_LIMIT, &dim, "a dimension", name, at, true)))
                    return rc;
                if (!vx_mul(elems, dim, &elems))
                    return vx_fail(VRAMEST_E_OVERFLOW,
                                   "%s: the shape of tensor '%s' (entry at byte %llu) has more than 2^64 elements",
                                   j->what, name, (unsigned long long)at);
                /* Dims are int64, and products of them are formed below and
                 * downstream: their product must fit one, a zero dimension
                 * aside (2^32 x (2^31+1) one-byte elements fit a uint64 only;
                 * [0, 2^32, 2^31+1] has no elements but the same product). */
                if (!vx_mul(extent, dim ? dim : 1, &extent) || extent > (uint64_t)INT64_MAX)
                    return vx_fail(VRAMEST_E_OVERFLOW,
                                   "%s: the shape of tensor '%s' (entry at byte %llu) spans more than 2^63 elements",
                                   j->what, name, (unsigned long long)at);
                if (d < 2)
                    t->dims[d] = (int64_t)dim;
                else if (d == 2)
                    t->dims[2] = (int64_t)dim;
                else
                    t->dims[2] *= (int64_t)dim; /* bounded by extent <= INT64_MAX */
                if (t->ndim < 255) t->ndim++;
            }
        } else if (strcmp(field, "data_offsets") == 0) {
            if ((rc = vx_js_open(j, '[', "data_offsets"))) return rc;
            size_t d = 0;
            for (;; d++) {
                if ((rc = vx_js_next(j, ']', d, &more, "data_offsets"))) return rc;
                if (!more) break;
                if (d >= 2)
                    return vx_fail(VRAMEST_E_PARSE, "%s: data_offsets of tensor '%s' (entry at byte %llu) has more "
                                   "than two numbers", j->what, name, (unsigned long long)at);
                if ((rc = read_uint(j, UINT64_MAX, VRAMEST_E_OVERFLOW, &off[d], "a data offset", name, at, true)))
                    return rc;
            }
            if (d != 2)
                return vx_fail(VRAMEST_E_PARSE, "%s: data_offsets of tensor '%s' (entry at byte %llu) must be [begin, end]",
                               j->what, name, (unsigned long long)at);
        } else if ((rc = vx_js_skip(j))) {
            return rc;
        }
    }
    const char *missing = !has_dtype ? "dtype" : !has_shape ? "shape" : !has_off ? "data_offsets" : NULL;
    if (missing)
        return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' (entry at byte %llu) has no '%s'", j->what, name,
                       (unsigned long long)at, missing);
    uint64_t bits;
    if (!vx_mul(elems, dt->bits, &bits))
        return vx_fail(VRAMEST_E_OVERFLOW, "%s: tensor '%s' (entry at byte %llu): %llu elements of %s overflow 64 bits",
                       j->what, name, (unsigned long long)at, (unsigned long long)elems, dt->st);
    if (bits % 8)
        return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' (entry at byte %llu): %llu elements of %s are not whole bytes",
                       j->what, name, (unsigned long long)at, (unsigned long long)elems, dt->st);
    if (off[1] < off[0])
        return vx_fail(VRAMEST_E_PARSE, "%s: tensor '%s' (entry at byte %llu): data_offsets [%llu, %llu] end before they begin",
                       j->what, name, (unsigned long long)at, (unsigned long long)off[0], (unsigned long long)off[1]);
    if (off[1] - off[0] != bits / 8)
        return vx_fail(VRAMEST_E_PARSE,
                       "%s: tensor '%s' (entry at byte %llu): data_offsets [%llu, %llu] span %llu bytes but %llu "
                       "elements of %s take %llu",
                       j->what, name, (unsigned long long)at, (unsigned long long)off[0], (unsigned long long)off[1],
                       (unsigned long long)(off[1] - off[0]), (unsigned long long)elems, dt->st,
                       (unsigned long long)(bits / 8));
    t->dtype = st_dtype_id(dt);
    t->begin = off[0];
    t->nbytes = bits / 8;
    return VRAMEST_OK;
}

static int read_metadata(vx_jscan *j)
{
    int rc = vx_js_open(j, '{', "__metadata__");
    if (rc) return rc;
    for (size_t k = 0;; k++) {
        int more;
        if ((rc = vx_js_next(j, '}', k, &more, "__metadata__"))) return rc;
        if (!more) return VRAMEST_OK;
        if ((rc = vx_js_skip_string(j, "a __metadata__ key")) || (rc = vx_js_expect(j, ':', "__metadata__")))
            return rc;
        /* The reference reader maps __metadata__ to {string: string}. */
        if (vx_js_peek(j) != '"')
            return vx_fail(VRAMEST_E_PARSE, "%s: __metadata__ values must be strings (byte %llu)", j->what,
                           (unsigned long long)vx_js_at(j));
        if ((rc = vx_js_skip_string(j, "a __metadata__ value"))) return rc;
    }
}

static int offset_cmp(const void *pa, const void *pb)
{
    const vx_raw_tensor *a = *(const vx_raw_tensor *const *)pa, *b = *(const vx_raw_tensor *const *)pb;
    if (a->begin != b->begin) return a->begin < b->begin ? -1 : 1;
    if (a->nbytes != b->nbytes) return a->nbytes < b->nbytes ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Offsets sorted by begin must tile [0, total) exactly. */
static int check_tiling(vx_fileset *fs, size_t from, const char *what, uint64_t *total)
{
    size_t n = fs->n - from;
    *total = 0;
    if (n == 0) return VRAMEST_OK;
    const vx_raw_tensor **v = malloc(n * sizeof *v);
    if (!v) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", what);
    for (size_t i = 0; i < n; i++) v[i] = &fs->t[from + i];
    qsort(v, n, sizeof *v, offset_cmp);
    uint64_t expect = 0;
    int rc = VRAMEST_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        const vx_raw_tensor *t = v[i];
        if (t->begin > expect)
            rc = vx_fail(VRAMEST_E_PARSE,
                         "%s: tensor '%s' (entry at byte %llu) begins at data offset %llu, leaving a gap of %llu bytes "
                         "after %s%s%s (offsets must be contiguous from 0)",
                         what, t->name, (unsigned long long)t->at, (unsigned long long)t->begin,
                         (unsigned long long)(t->begin - expect), i ? "'" : "", i ? v[i - 1]->name : "the start",
                         i ? "'" : "");
        else if (t->begin < expect)
            rc = vx_fail(VRAMEST_E_PARSE,
                         "%s: tensor '%s' (entry at byte %llu) at data offsets [%llu, %llu] overlaps '%s' (entry at "
                         "byte %llu)",
                         what, t->name, (unsigned long long)t->at, (unsigned long long)t->begin,
                         (unsigned long long)(t->begin + t->nbytes), v[i - 1]->name,
                         (unsigned long long)v[i - 1]->at);
        expect = t->begin + t->nbytes; /* end was read as a u64: no overflow */
    }
    free(v);
    *total = expect;
    return rc;
}

int vx_safetensors_read(vx_fileset *fs, const uint8_t *d, size_t len, uint64_t file_size, size_t *needed)
{
    uint16_t src = fs->n_sources ? (uint16_t)(fs->n_sources - 1) : 0;
    const char *what = vx_fileset_label(fs, src);
    if (len < 8) {
        *needed = 8;
        return vx_fail(VRAMEST_E_NEED_MORE_DATA, "%s: %zu of the 8 length bytes", what, len);
    }
    /* Until the length and the '{' after it show a safetensors file, a
     * message shows none of its bytes (docs/security.md, "Messages"): the
     * length of a text file is its first 8 characters. */
    uint64_t n = 0;
    for (int k = 7; k >= 0; k--) n = (n << 8) | d[k];
    if (n > VX_MAX_HEADER_BYTES)
        return vx_fail(VRAMEST_E_LIMIT, "%s: the header length (bytes 0-7) exceeds the %u-byte limit on headers", what,
                       VX_MAX_HEADER_BYTES);
    if (file_size && 8 + n > file_size)
        return vx_fail(VRAMEST_E_PARSE, "%s: the header length (bytes 0-7) runs past the end of the %llu-byte file",
                       what, (unsigned long long)file_size);
    if (len < 8 + n) {
        *needed = (size_t)(8 + n);
        return vx_fail(VRAMEST_E_NEED_MORE_DATA, "%s: the header needs more than the %zu bytes given", what, len);
    }
    if (n < 2 || d[8] != '{')
        return vx_fail(VRAMEST_E_PARSE, "%s: the header (at byte 8) must be a JSON object starting with '{'", what);

    vx_jscan j = {(const char *)d + 8, (size_t)n, 0, 8, what, 0};
    arena a = {malloc((size_t)n + 1), (size_t)n + 1, 0};
    if (!a.buf) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory for a %llu-byte header", what, (unsigned long long)n);
    int rc = vx_fileset_keep(fs, a.buf);
    if (rc) return rc;

    size_t from = fs->n;
    bool has_meta = false;
    uint64_t meta_at = 0;
    if ((rc = vx_js_open(&j, '{', "the header"))) return rc;
    for (size_t k = 0;; k++) {
        int more;
        if ((rc = vx_js_next(&j, '}', k, &more, "the header"))) return rc;
        if (!more) break;
        const char *name;
        size_t nlen;
        uint64_t at = (vx_js_peek(&j), vx_js_at(&j));
        if ((rc = read_key(&j, &a, &name, &nlen, "tensor name"))) return rc;
        if ((rc = vx_js_expect(&j, ':', "the header"))) return rc;
        if (strcmp(name, "__metadata__") == 0) {
            if (has_meta)
                return vx_fail(VRAMEST_E_PARSE, "%s: two __metadata__ entries, at bytes %llu and %llu", what,
                               (unsigned long long)meta_at, (unsigned long long)at);
            has_meta = true;
            meta_at = at;
            if ((rc = read_metadata(&j))) return rc;
            continue;
        }
        if (nlen == 0) return vx_fail(VRAMEST_E_PARSE, "%s: empty tensor name at byte %llu", what, (unsigned long long)at);
        commit_key(&a, nlen);
        vx_raw_tensor t = {0};
        t.name = name;
        t.name_len = nlen > UINT32_MAX ? UINT32_MAX : (uint32_t)nlen;
        t.at = at;
        t.shard = src;
        if ((rc = read_entry(&j, &a, name, at, &t))) return rc;
        if ((rc = vx_fileset_push(fs, &t))) return rc;
    }
    vx_js_ws(&j);
    /* Writers pad the header with spaces to 8-byte alignment; nothing else may follow. */
    if (j.i != j.n)
        return vx_fail(VRAMEST_E_PARSE, "%s: unexpected bytes after the header object at byte %llu", what,
                       (unsigned long long)vx_js_at(&j));
    if ((rc = vx_fileset_check_dups(fs, from))) return rc;
    uint64_t total;
    if ((rc = check_tiling(fs, from, what, &total))) return rc;
    if (file_size && file_size != 8 + n + total)
        return vx_fail(VRAMEST_E_PARSE, "%s: the tensors end at byte %llu (8 + %llu header + %llu data) but the file has "
                       "%llu bytes", what, (unsigned long long)(8 + n + total), (unsigned long long)n,
                       (unsigned long long)total, (unsigned long long)file_size);
    return VRAMEST_OK;
}

/* ---- model.safetensors.index.json ---------------------------------------- */

static bool plain_file_name(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return false;
    for (; *s; s++)
        if (*s == '/' || *s == '\\') return false;
    return true;
}

static int index_cmp(const void *pa, const void *pb)
{
    const vx_index_entry *a = *(const vx_index_entry *const *)pa, *b = *(const vx_index_entry *const *)pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->at < b->at ? -1 : a->at > b->at);
}

int vx_st_index_read(vx_fileset *fs, const char *data, size_t len)
{
    const char *what = "safetensors index";
    vx_jscan j = {data, len, 0, 0, what, 0};
    arena a = {malloc(len + 1), len + 1, 0};
    if (!a.buf) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", what);
    int rc = vx_fileset_keep(fs, a.buf);
    if (rc) return rc;
    bool seen_map = false, seen_meta = false;
    size_t from = fs->n_idx;
    if ((rc = vx_js_open(&j, '{', "the index"))) return rc;
    for (size_t k = 0;; k++) {
        int more;
        if ((rc = vx_js_next(&j, '}', k, &more, "the index"))) return rc;
        if (!more) break;
        const char *key;
        size_t klen;
        uint64_t at = (vx_js_peek(&j), vx_js_at(&j));
        if ((rc = read_key(&j, &a, &key, &klen, "a key"))) return rc;
        if ((rc = vx_js_expect(&j, ':', "the index"))) return rc;
        if (strcmp(key, "weight_map") == 0) {
            if (seen_map) return vx_fail(VRAMEST_E_PARSE, "%s: a second weight_map at byte %llu", what, (unsigned long long)at);
            seen_map = true;
            if ((rc = vx_js_open(&j, '{', "weight_map"))) return rc;
            for (size_t e = 0;; e++) {
                if ((rc = vx_js_next(&j, '}', e, &more, "weight_map"))) return rc;
                if (!more) break;
                vx_index_entry ent;
                size_t nlen, flen;
                ent.at = (vx_js_peek(&j), vx_js_at(&j));
                if ((rc = read_key(&j, &a, &ent.name, &nlen, "tensor name"))) return rc;
                commit_key(&a, nlen);
                if ((rc = vx_js_expect(&j, ':', "weight_map"))) return rc;
                uint64_t fat = (vx_js_peek(&j), vx_js_at(&j));
                if ((rc = read_key(&j, &a, &ent.file, &flen, "a shard file name"))) return rc;
                commit_key(&a, flen);
                if (!plain_file_name(ent.file))
                    return vx_fail(VRAMEST_E_PARSE, "%s: shard '%s' of tensor '%s' (byte %llu) is not a plain file name",
                                   what, ent.file, ent.name, (unsigned long long)fat);
                if (nlen == 0)
                    return vx_fail(VRAMEST_E_PARSE, "%s: empty tensor name at byte %llu", what,
                                   (unsigned long long)ent.at);
                if ((rc = vx_fileset_push_index(fs, &ent))) return rc;
            }
        } else if (strcmp(key, "metadata") == 0) {
            if (seen_meta) return vx_fail(VRAMEST_E_PARSE, "%s: a second metadata at byte %llu", what, (unsigned long long)at);
            seen_meta = true;
            if ((rc = vx_js_open(&j, '{', "metadata"))) return rc;
            for (size_t e = 0;; e++) {
                if ((rc = vx_js_next(&j, '}', e, &more, "metadata"))) return rc;
                if (!more) break;
                const char *mk;
                size_t mlen;
                if ((rc = read_key(&j, &a, &mk, &mlen, "a metadata key"))) return rc;
                if ((rc = vx_js_expect(&j, ':', "metadata"))) return rc;
                if (strcmp(mk, "total_size") == 0 && vx_js_peek(&j) != 'n') {
                    uint64_t v;
                    /* Python's json reads the index (transformers), so 1.3e10 is a number there. */
                    if ((rc = read_uint(&j, UINT64_MAX, VRAMEST_E_OVERFLOW, &v, "total_size", "(metadata)", at,
                                        false)))
                        return rc;
                    fs->index_total = v;
                    fs->has_total = true;
                } else if ((rc = vx_js_skip(&j))) {
                    return rc;
                }
            }
        } else if ((rc = vx_js_skip(&j))) {
            return rc;
        }
    }
    vx_js_ws(&j);
    if (j.i != j.n)
        return vx_fail(VRAMEST_E_PARSE, "%s: unexpected bytes after the JSON object at byte %llu", what,
                       (unsigned long long)vx_js_at(&j));
    if (!seen_map) return vx_fail(VRAMEST_E_PARSE, "%s: no \"weight_map\" object", what);
    /* Duplicate names: json-c would keep the last; the index is ambiguous. */
    size_t n = fs->n_idx - from;
    if (n > 1) {
        const vx_index_entry **v = malloc(n * sizeof *v);
        if (!v) return vx_fail(VRAMEST_E_NOMEM, "%s: out of memory", what);
        for (size_t i = 0; i < n; i++) v[i] = &fs->idx[from + i];
        qsort(v, n, sizeof *v, index_cmp);
        for (size_t i = 1; i < n && !rc; i++)
            if (strcmp(v[i - 1]->name, v[i]->name) == 0)
                rc = vx_fail(VRAMEST_E_PARSE, "%s: duplicate tensor name '%s' in weight_map at bytes %llu and %llu",
                             what, v[i]->name, (unsigned long long)v[i - 1]->at, (unsigned long long)v[i]->at);
        free(v);
        if (rc) return rc;
    }
    fs->has_index = true;
    return VRAMEST_OK;
}
