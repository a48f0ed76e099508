/* Readers of model files: safetensors headers and indexes, GGUF headers, and
 * the strict JSON scanner they share. Readers never touch a model: they fill
 * a staging vx_fileset, which parse.c applies to a clone of the model and
 * swaps in only when everything succeeded (parsing is atomic). */
#ifndef VX_FILES_H
#define VX_FILES_H

#include "model/model.h"

/* ---- strict JSON scanner (jsonscan.c) ----------------------------------
 * json-c keeps the last of two equal keys and reports no byte offsets; the
 * readers need both (duplicate tensor names are an error, every message names
 * its byte offset), so they walk the text themselves with this scanner. */
typedef struct vx_jscan {
    const char *s;     /* the JSON text */
    size_t n;          /* its length */
    size_t i;          /* cursor */
    uint64_t base;     /* file offset of s[0], added to every reported offset */
    const char *what;  /* "safetensors header", "index", for messages */
    int depth;
} vx_jscan;

/* A JSON number that should be an integer. */
typedef struct vx_jnum {
    uint64_t mag; /* magnitude (saturated when `big`) */
    bool neg;     /* had a minus sign (and is not zero) */
    bool big;     /* magnitude beyond 2^64-1 */
    bool frac;    /* not an integer (fraction or exponent that leaves one) */
    bool floaty;  /* written with a fraction or an exponent (4.0, 1e3), integer or not */
} vx_jnum;

void vx_js_ws(vx_jscan *j) VX_HIDDEN;
/* Skip whitespace; the next byte, or -1 at the end. */
int vx_js_peek(vx_jscan *j) VX_HIDDEN;
/* Skip whitespace and consume `c`, else VRAMEST_E_PARSE naming `ctx`. */
int vx_js_expect(vx_jscan *j, char c, const char *ctx) VX_HIDDEN;
/* Read a string into `out` (capacity >= the raw length + 1, which always
 * suffices: decoding never grows), NUL-terminated; *out_len is its decoded
 * length. Invalid UTF-8 (raw bytes, lone surrogates, NUL escapes) is
 * VRAMEST_E_PARSE with `ctx` and the offset. */
int vx_js_string(vx_jscan *j, char *out, size_t *out_len, const char *ctx) VX_HIDDEN;
/* Skip a string without decoding it (still validated). */
int vx_js_skip_string(vx_jscan *j, const char *ctx) VX_HIDDEN;
int vx_js_number(vx_jscan *j, vx_jnum *out, const char *ctx) VX_HIDDEN;
/* Skip any value, nesting bounded by VX_MAX_JSON_DEPTH (VRAMEST_E_LIMIT). */
int vx_js_skip(vx_jscan *j) VX_HIDDEN;
/* Object / array iteration: call _open, then _next before every member:
 * *more = 1 when a member follows (the comma is consumed), 0 at the closing
 * bracket (consumed). `count` is the number of members read so far. */
int vx_js_open(vx_jscan *j, char open, const char *ctx) VX_HIDDEN;
int vx_js_next(vx_jscan *j, char close, size_t count, int *more, const char *ctx) VX_HIDDEN;
/* Offset of the cursor in the file. */
static inline uint64_t vx_js_at(const vx_jscan *j) { return j->base + j->i; }

/* Is [s, s+n) valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF)? */
bool vx_utf8_valid(const char *s, size_t n, size_t *bad_at) VX_HIDDEN;

/* ---- tensors read from files ------------------------------------------ */

/* One tensor as stored, before grouping. Dims are outermost first (PyTorch
 * order); GGUF's ne[] is reversed into it. Dims beyond the third are folded
 * into dims[2] so that dims[0]*dims[1]*dims[2] is always the element count. */
typedef struct vx_raw_tensor {
    const char *name;   /* NUL-terminated, owned by the fileset (arena or header copy) */
    uint64_t at;        /* byte offset of the entry in its file, for messages */
    uint64_t begin;     /* data offset (within the file's data section) */
    uint64_t nbytes;    /* exact stored bytes */
    int64_t dims[3];
    uint32_t name_len;
    uint16_t shard;     /* index into the fileset's sources, for messages */
    uint8_t ndim;       /* dimensions as written (0 = scalar) */
    uint8_t gguf;       /* 1: a GGUF tensor name (blk.N.attn_q) */
    int16_t dtype;      /* VRAMEST_DTYPE_* or 100 + ggml type */
} vx_raw_tensor;

/* A name -> shard entry of a safetensors index. */
typedef struct vx_index_entry {
    const char *name, *file; /* NUL-terminated, in the fileset's arenas */
    uint64_t at;
} vx_index_entry;

/* An architecture value a GGUF header gives. `structural` values must agree
 * with what the model already holds (VRAMEST_E_CONFLICT); the others only
 * fill options that are unset. */
typedef struct vx_file_opt {
    vramest_option key;
    int64_t i;
    double f;
    bool is_f, structural;
    uint64_t at;
    char src[80]; /* the GGUF key it came from */
} vx_file_opt;

#define VX_FILE_OPTS 48

typedef struct vx_fileset {
    vx_raw_tensor *t;
    size_t n, cap;
    vx_index_entry *idx;
    size_t n_idx, cap_idx;
    /* Buffers the names point into; freed with the set. */
    char **bufs;
    size_t n_bufs, cap_bufs;
    /* Labels of the sources (file names), for messages. */
    char **labels;
    size_t n_sources, cap_sources;
    /* safetensors index */
    bool has_index, has_total;
    uint64_t index_total;
    /* GGUF metadata */
    vx_file_opt opts[VX_FILE_OPTS];
    size_t n_opts;
    char name[64];        /* general.name */
    uint64_t gguf_tokens; /* length of tokenizer.ggml.tokens when no vocab_size key */
    bool encoder_only;    /* GGUF of an encoder-only family (bert): its blk.N are encoder layers */
    bool gguf_split;      /* a file of a split GGUF (split.count > 1): a subset of the tensors */
} vx_fileset;

void vx_fileset_init(vx_fileset *fs) VX_HIDDEN;
/* Undo everything read since a mark (a reader retried with a longer prefix). */
typedef struct vx_fileset_mark {
    size_t n, n_idx, n_bufs, n_opts;
    char name[64];
    uint64_t gguf_tokens;
    bool encoder_only, gguf_split, has_index, has_total;
    uint64_t index_total;
} vx_fileset_mark;
void vx_fileset_mark_at(const vx_fileset *fs, vx_fileset_mark *mk) VX_HIDDEN;
void vx_fileset_rollback(vx_fileset *fs, const vx_fileset_mark *mk) VX_HIDDEN;
void vx_fileset_free(vx_fileset *fs) VX_HIDDEN;
/* Take ownership of a malloc'd buffer (freed with the set, also on failure). */
int vx_fileset_keep(vx_fileset *fs, char *buf) VX_HIDDEN;
int vx_fileset_push(vx_fileset *fs, const vx_raw_tensor *t) VX_HIDDEN;
/* Start a new source (file), labelled for messages; its index in *out. */
int vx_fileset_source(vx_fileset *fs, const char *label, uint16_t *out) VX_HIDDEN;
const char *vx_fileset_label(const vx_fileset *fs, uint16_t shard) VX_HIDDEN;
int vx_fileset_push_index(vx_fileset *fs, const vx_index_entry *e) VX_HIDDEN;
/* Duplicate names among tensors [from, n): VRAMEST_E_PARSE naming both offsets. */
int vx_fileset_check_dups(const vx_fileset *fs, size_t from) VX_HIDDEN;

/* ---- readers ------------------------------------------------------------
 * Each reads one complete or partial buffer. `file_size` is the size of the
 * whole file when known (0 = unknown): a header reaching past it is then
 * VRAMEST_E_PARSE rather than VRAMEST_E_NEED_MORE_DATA. On NEED_MORE_DATA
 * *needed is the prefix length to provide next:
 *  - safetensors: exact (8, then 8 + N);
 *  - GGUF: a lower bound that grows (the offset reached plus what the item
 *    being read needs); callers loop until the reader stops asking.
 * On failure the fileset may hold a partial result; callers discard it. */
int vx_safetensors_read(vx_fileset *fs, const uint8_t *data, size_t len, uint64_t file_size, size_t *needed)
    VX_HIDDEN;
int vx_st_index_read(vx_fileset *fs, const char *data, size_t len) VX_HIDDEN;
/* `arch`: take the architecture from the metadata (false for the 2nd..nth
 * file of a split GGUF, whose metadata holds only the split keys). */
int vx_gguf_read(vx_fileset *fs, const uint8_t *data, size_t len, uint64_t file_size, bool arch, size_t *needed)
    VX_HIDDEN;
/* The same from an open file, read once, in order, through a small window
 * (never NEED_MORE_DATA). */
struct vx_file;
int vx_gguf_read_file(vx_fileset *fs, const struct vx_file *f, bool arch) VX_HIDDEN;

/* ---- names -> roles, and grouping (tensor_roles.c) ----------------------- */

/* Where a tensor name puts a tensor. */
typedef struct vx_name_info {
    int64_t layer;   /* index within its stack, -1 for global tensors */
    int64_t expert;  /* routed expert index, -1 otherwise */
    bool in_encoder; /* under an "encoder" stack (becomes VX_PART_ENCODER only in encoder-decoders) */
    bool in_decoder;
    bool enc_style;  /* "encoder.layer.N" / "encoder.block.N": an encoder-only stack (BERT, T5EncoderModel),
                        unlike ChatGLM's decoder named "encoder.layers.N" */
    bool side;       /* vision tower, projector, multi-token-prediction head: not the LM stack */
    bool mtp;        /* a multi-token-prediction module marker (eh_proj, enorm, hnorm, nextn) */
    bool stacked;    /* dims[0] counts experts (GGUF _exps, HF "experts.gate_up_proj") */
} vx_name_info;

/* Classify one tensor: fill role, kind, leaf name, rows/cols, dtype,
 * trainable_default and n_per_layer (copies: stacked experts) of `out`. */
void vx_classify(const vx_raw_tensor *t, vx_tensor *out, vx_name_info *ni) VX_HIDDEN;
/* Name-only classification (safetensors index entries). */
void vx_classify_name(const char *name, bool gguf, vx_tensor *out, vx_name_info *ni) VX_HIDDEN;

/* What one parse's tensors show by their indices (before merging). */
typedef struct vx_group_stats {
    int64_t dec_bound, enc_bound; /* highest layer index + 1 (model layers only) */
    int64_t dec_count, enc_count; /* distinct layer indices */
    int64_t expert_bound;         /* highest expert index + 1, or stacked experts */
    bool has_embed, has_final;    /* a global embedding / a final norm or lm_head */
} vx_group_stats;

/* Group the fileset's tensors (identical role, kind, leaf, shape, dtype,
 * part, expert flag across layers and experts) into `inv`, merging into
 * groups already there. Fails on duplicate names across the set. */
int vx_fileset_group(const vx_fileset *fs, vx_tensor **inv, size_t *n, size_t *cap, vx_group_stats *st) VX_HIDDEN;

/* Facts about the architecture that file tensors show. 0 = unknown. */
typedef struct vx_file_facts {
    int64_t layers, enc_layers, hidden, vocab, experts, ffn, moe_ffn;
    int tied; /* 1 tied (embedding, no lm_head), 0 untied, -1 unknown */
    const char *layers_from, *hidden_from, *vocab_from; /* leaf names, for messages */
} vx_file_facts;
void vx_file_facts_of(const vx_tensor *inv, size_t n, vx_file_facts *f) VX_HIDDEN;
/* The family a bare checkpoint's tensor names show, as a model_type name
 * (NULL when they identify none); `why` receives the names that decided
 * (infer_family.c). */
const char *vx_infer_family(const vx_tensor *inv, size_t n, char *why, size_t cap) VX_HIDDEN;
/* Layers / experts named by a safetensors index (no shapes there). */
void vx_index_facts(const vx_fileset *fs, vx_file_facts *f) VX_HIDDEN;

/* ---- model files on disk (modeldir.c) -------------------------------------
 * `label`: the file's name for messages. `root` (may be NULL): where links
 * may lead (fileio.h). `links_anywhere`: VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS. */
struct vx_fileroot;
int vx_read_st_file(vx_fileset *fs, const char *path, const char *label, const struct vx_fileroot *root) VX_HIDDEN;
int vx_read_gguf_file(vx_fileset *fs, const char *path, const char *label, bool arch, const struct vx_fileroot *root)
    VX_HIDDEN;
/* An index named by the caller, and the shards it names next to it. */
int vx_read_index_and_shards(vx_fileset *fs, const char *path, const char *label, bool links_anywhere) VX_HIDDEN;
/* A model directory: config.json (applied to `s` at once), then the
 * tensors into `fs`: index + shards, model.safetensors, a set of shards, or
 * one GGUF / one split GGUF. */
int vx_read_model_dir(struct vramest_model *s, vx_fileset *fs, const char *dir, bool links_anywhere) VX_HIDDEN;
/* config.json into a staged model, checked against its file tensors (parse.c). */
int vx_apply_config(struct vramest_model *s, const char *buf, size_t len) VX_HIDDEN;

#endif
