/* vramest_model_parse() and vramest_model_parse_file(): source detection,
 * reading only what a source needs from disk, and merging what the readers
 * found into the model.
 *
 * Merging: architecture values come from config.json (vx_parse_hf_config)
 * and GGUF metadata; tensors from safetensors/GGUF headers go to
 * m->file_inv, which vx_model_rebuild() puts in place of the architecture's
 * inventory. What the tensors show (layer count, hidden size, vocabulary,
 * experts) must agree with the architecture values: a disagreement is
 * VRAMEST_E_CONFLICT naming both, and values the model lacks are filled
 * from the tensors (a bare safetensors file gives what shapes can tell).
 *
 * Atomicity: every parse works on a clone of the model and swaps it in only
 * when everything succeeded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/fileio.h"
#include "io/files.h"
#include "model/hf_config.h"

#define H_MODEL VRAMEST_HANDLE_MODEL

/* ---- merging ------------------------------------------------------------- */

static bool is_set(const struct vramest_model *m, vramest_option k)
{
    return vx_opt_is_set(m->set_bits, H_MODEL, k);
}

static int64_t get(const struct vramest_model *m, vramest_option k)
{
    int64_t v = 0;
    vx_opt_get_i64(&m->a, H_MODEL, k, &v);
    return v;
}

static int set(struct vramest_model *m, vramest_option k, int64_t v, const char *why)
{
    int rc = vx_opt_set_i64(&m->a, m->set_bits, H_MODEL, k, v);
    if (rc) {
        char prefix[200];
        snprintf(prefix, sizeof prefix, "%.190s: ", why);
        vx_fail_prefix(rc, prefix);
    }
    return rc;
}

/* A value the tensors show against the model's: a conflict when they
 * differ, else filled in when `fill` and unset. `partial`: the tensors may be
 * a subset of the model's (one shard of several), so fewer layers or experts
 * than the model's are no conflict. `before` is what the file tensors the
 * model already held showed: a value equal to it was derived from earlier
 * shards and grows with later ones. */
typedef struct shown {
    int64_t v, before;
    const char *what, *from;
    bool growing; /* a count that shards add to (layers, experts) */
} shown;

static int reconcile_one(struct vramest_model *m, vramest_option k, shown s, bool partial, bool fill)
{
    if (s.v <= 0) return VRAMEST_OK;
    const char *name = vramest_option_name(k);
    char why[160];
    snprintf(why, sizeof why, "%s shown by the file tensors ('%s')", name, s.from ? s.from : "?");
    if (is_set(m, k)) {
        int64_t have = get(m, k);
        if (have == s.v) return VRAMEST_OK;
        if (s.growing && partial && s.v < have) return VRAMEST_OK;
        if (s.growing && s.before > 0 && have == s.before && s.v > have && fill) return set(m, k, s.v, why);
        return vx_fail(VRAMEST_E_CONFLICT,
                       "%s = %lld (from config.json, GGUF metadata or a setting) conflicts with the file tensors, "
                       "which show %lld %s (from '%s')",
                       name, (long long)have, (long long)s.v, s.what, s.from ? s.from : "?");
    }
    return fill ? set(m, k, s.v, why) : VRAMEST_OK;
}

/* `f`: facts of all file tensors now in the model; `st`: index bounds of
 * this parse (NULL: none); `old`: facts before it (NULL: none). */
static int reconcile(struct vramest_model *m, const vx_file_facts *f, const vx_group_stats *st,
                     const vx_file_facts *old, bool partial, bool fill)
{
    int rc;
    const char *lf = f->layers_from;
    /* A subset shows at least its highest index + 1 layers. */
    int64_t dec = f->layers, enc = f->enc_layers, experts = f->experts;
    if (partial && st) {
        if (st->dec_bound > dec) dec = st->dec_bound;
        if (st->enc_bound > enc) enc = st->enc_bound;
    }
    if (st && st->expert_bound > experts) experts = st->expert_bound;
    shown sd = {dec, old ? old->layers : 0, "decoder layers", lf, true};
    shown se = {enc, old ? old->enc_layers : 0, "encoder layers", lf, true};
    if (dec > 0 && enc > 0) {
        if ((rc = reconcile_one(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, se, partial, fill))) return rc;
        vramest_option dk = is_set(m, VRAMEST_MODEL_NUM_DECODER_LAYERS) || fill ? VRAMEST_MODEL_NUM_DECODER_LAYERS
                                                                              : VRAMEST_MODEL_NUM_HIDDEN_LAYERS;
        if ((rc = reconcile_one(m, dk, sd, partial, fill))) return rc;
    } else if (enc > 0) {
        se.what = "layers";
        if ((rc = reconcile_one(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, se, partial, fill))) return rc;
    } else {
        sd.what = "layers";
        if ((rc = reconcile_one(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, sd, partial, fill))) return rc;
    }
    shown sh = {f->hidden, 0, "as the hidden size", f->hidden_from, false};
    shown sv = {f->vocab, 0, "embedding rows", f->vocab_from, false};
    shown sx = {experts, old ? old->experts : 0, "routed experts per layer", lf, true};
    if ((rc = reconcile_one(m, VRAMEST_MODEL_HIDDEN_SIZE, sh, partial, fill)) ||
        (rc = reconcile_one(m, VRAMEST_MODEL_VOCAB_SIZE, sv, partial, fill)) ||
        (rc = reconcile_one(m, VRAMEST_MODEL_NUM_LOCAL_EXPERTS, sx, partial, fill)))
        return rc;
    if (!fill) return VRAMEST_OK;
    /* Shapes that only fill: their meaning differs by family (a fused
     * gate|up projection, a padded FFN), so they never conflict. */
    if (!is_set(m, VRAMEST_MODEL_INTERMEDIATE_SIZE) && f->ffn > 0 &&
        (rc = set(m, VRAMEST_MODEL_INTERMEDIATE_SIZE, f->ffn, "intermediate_size shown by the file tensors")))
        return rc;
    if (!is_set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE) && f->moe_ffn > 0 &&
        (rc = set(m, VRAMEST_MODEL_MOE_INTERMEDIATE_SIZE, f->moe_ffn, "moe_intermediate_size shown by the file tensors")))
        return rc;
    /* Tying is only visible in a whole checkpoint (lm_head may sit in a later shard). */
    if (!partial && !is_set(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS) && f->tied >= 0 &&
        (rc = set(m, VRAMEST_MODEL_TIE_WORD_EMBEDDINGS, f->tied, "tie_word_embeddings shown by the file tensors")))
        return rc;
    return VRAMEST_OK;
}

/* Architecture values from GGUF metadata. */
static int apply_opts(struct vramest_model *m, const vx_fileset *fs)
{
    for (size_t i = 0; i < fs->n_opts; i++) {
        const vx_file_opt *o = &fs->opts[i];
        char why[160];
        snprintf(why, sizeof why, "GGUF key '%s' (byte %llu)", o->src, (unsigned long long)o->at);
        if (is_set(m, o->key)) {
            if (o->is_f || !o->structural || get(m, o->key) == o->i) continue;
            return vx_fail(VRAMEST_E_CONFLICT, "%s = %lld conflicts with %s = %lld already in the model", why,
                           (long long)o->i, vramest_option_name(o->key), (long long)get(m, o->key));
        }
        int rc = o->is_f ? vx_opt_set_f64(&m->a, m->set_bits, H_MODEL, o->key, o->f) : set(m, o->key, o->i, why);
        if (rc) {
            if (o->is_f) {
                char prefix[200];
                snprintf(prefix, sizeof prefix, "%.190s: ", why);
                vx_fail_prefix(rc, prefix);
            }
            return rc;
        }
    }
    return VRAMEST_OK;
}

/* An index's total_size against its shards' headers. Loaders never read
 * total_size (transformers and safetensors locate tensors by weight_map
 * and the headers), so a checkpoint whose index disagrees loads, and its
 * shards are exact: a warning that the index is stale, not an error. Every
 * tensor the index names was found in its shard (read_shards). */
static void note_index_total(struct vramest_model *m, const vx_fileset *fs, bool replace)
{
    if (replace) m->index_note[0] = '\0';
    if (!fs->has_index || !fs->has_total || !fs->n) return;
    uint64_t sum = 0;
    for (size_t i = 0; i < fs->n; i++) sum = vx_sat_add(sum, fs->t[i].nbytes);
    if (sum == fs->index_total) return;
    snprintf(m->index_note, sizeof m->index_note,
             "the index's total_size (%llu bytes) is not the %llu bytes its shards hold: the shards' headers are "
             "used (the index is stale; loaders never read total_size)",
             (unsigned long long)fs->index_total, (unsigned long long)sum);
}

/* No config.json named the family: the tensors' names may (issue #16
 * item 5). Every estimate says it was inferred. */
static int infer_family(struct vramest_model *m)
{
    if (is_set(m, VRAMEST_MODEL_MODEL_TYPE)) return VRAMEST_OK;
    char why[96];
    const char *fam = vx_infer_family(m->file_inv, m->n_file_inv, why, sizeof why);
    if (!fam) return VRAMEST_OK; /* the estimate asks for model_type */
    int rc = vx_opt_set_str(&m->a, m->set_bits, H_MODEL, VRAMEST_MODEL_MODEL_TYPE, fam);
    if (rc) return rc;
    snprintf(m->family_note, sizeof m->family_note,
             "no config.json: model_type '%s' inferred from the tensor names (%s); the weights are the files'", fam,
             why);
    return VRAMEST_OK;
}

/* How complete the tensors of one parse are. */
enum { WHOLE_GUESS = -1, WHOLE_NO = 0, WHOLE_YES = 1 };

/* Apply what the readers found to `m` (a staging clone). `whole`: the
 * tensors are the whole model (a directory, an index with its shards, a
 * GGUF), a subset (a shard), or WHOLE_GUESS: a header holding the embedding,
 * the final norm or lm_head, and layers 0..n-1 without a gap is taken as a
 * whole model (an HF shard holds either the first or the last of these). */
static int apply_fileset(struct vramest_model *m, vx_fileset *fs, int whole, const char *fallback_name)
{
    int rc = apply_opts(m, fs);
    if (rc) return rc;
    vx_file_facts f, old;
    bool had = m->has_file_inv && m->n_file_inv;
    if (had) vx_file_facts_of(m->file_inv, m->n_file_inv, &old);
    if (fs->n > 0) {
        vx_group_stats st;
        if ((rc = vx_fileset_group(fs, &m->file_inv, &m->n_file_inv, &m->cap_file_inv, &st))) return rc;
        m->has_file_inv = 1;
        if (fs->gguf_split) whole = WHOLE_NO;
        if (whole == WHOLE_GUESS)
            whole = st.has_embed && st.has_final && st.dec_count == st.dec_bound && st.enc_count == st.enc_bound
                        ? WHOLE_YES
                        : WHOLE_NO;
        /* A whole checkpoint replaces file tensors read before (the same
         * directory parsed twice, a GGUF after a safetensors); only parts
         * of one checkpoint add up. */
        if (had && whole == WHOLE_YES) {
            m->n_file_inv = 0;
            had = false;
            if ((rc = vx_fileset_group(fs, &m->file_inv, &m->n_file_inv, &m->cap_file_inv, &st))) return rc;
        }
        note_index_total(m, fs, !had);
        uint64_t total = 0;
        for (size_t i = 0; i < m->n_file_inv; i++)
            if (!vx_add(total, m->file_inv[i].file_bytes, &total))
                return vx_fail(VRAMEST_E_OVERFLOW, "the tensors of the files total more than 2^64 bytes");
        m->file_total_bytes = total;
        vx_file_facts_of(m->file_inv, m->n_file_inv, &f);
        /* GGUF without an embedding tensor (never seen) still counts tokens. */
        if (f.vocab == 0 && fs->gguf_tokens > 0 && fs->gguf_tokens <= INT64_MAX) {
            f.vocab = (int64_t)fs->gguf_tokens;
            f.vocab_from = "tokenizer.ggml.tokens";
        }
        if ((rc = reconcile(m, &f, &st, had ? &old : NULL, whole != WHOLE_YES, true))) return rc;
        if ((rc = infer_family(m))) return rc;
        /* Parts added to what was read before are not known to complete it. */
        m->file_inv_whole = whole == WHOLE_YES && !had;
    } else if (fs->has_index && !m->has_file_inv) {
        /* Names without shapes: layers and experts only, and the index's total. */
        vx_index_facts(fs, &f);
        if ((rc = reconcile(m, &f, NULL, NULL, false, true))) return rc;
        if (fs->has_total) m->file_total_bytes = fs->index_total;
    }
    if (!m->name[0]) {
        const char *n = fs->name[0] ? fs->name : fallback_name;
        if (n) vx_strlcpy(m->name, n, sizeof m->name);
    }
    vx_model_rebuild(m); /* an incomplete model is not a parse error: validate says what is missing */
    return VRAMEST_OK;
}

static int stage(const struct vramest_model *m, struct vramest_model **out)
{
    return vramest_model_clone(m, out);
}

static void commit(struct vramest_model *m, struct vramest_model *staged)
{
    struct vramest_model tmp = *m;
    *m = *staged;
    *staged = tmp;
    vramest_model_free(staged);
}

/* config.json into a staged model, then the check against file tensors the
 * model already holds. */
int vx_apply_config(struct vramest_model *s, const char *buf, size_t len)
{
    int rc = vx_parse_hf_config(s, buf, len);
    if (rc) return rc;
    if (s->has_file_inv) {
        /* Tensors of a whole checkpoint must show exactly the config's
         * layers; a shard may show fewer, never more. */
        vx_file_facts f;
        vx_file_facts_of(s->file_inv, s->n_file_inv, &f);
        if ((rc = reconcile(s, &f, NULL, NULL, !s->file_inv_whole, false))) return rc;
    }
    return VRAMEST_OK;
}

/* ---- detection ----------------------------------------------------------- */

static bool looks_json(const uint8_t *d, size_t len)
{
    size_t i = 0;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r')) i++;
    if (i >= len || d[i] != '{') return false;
    /* Text never holds NUL; a safetensors length with low byte '{' does. */
    size_t k = len < 64 ? len : 64;
    return memchr(d, 0, k) == NULL;
}

static bool has_weight_map(const uint8_t *d, size_t len)
{
    static const char key[] = "\"weight_map\"";
    size_t n = sizeof key - 1;
    for (size_t i = 0; i + n <= len; i++)
        if (d[i] == '"' && memcmp(d + i, key, n) == 0) return true;
    return false;
}

static int detect(const uint8_t *d, size_t len, vramest_source *kind, size_t *needed)
{
    if (len >= 4 && memcmp(d, "GGUF", 4) == 0) {
        *kind = VRAMEST_SRC_GGUF_HEADER;
        return VRAMEST_OK;
    }
    if (len >= 9 && d[8] == '{' && d[5] == 0 && d[6] == 0 && d[7] == 0) {
        *kind = VRAMEST_SRC_SAFETENSORS_HEADER;
        return VRAMEST_OK;
    }
    if (looks_json(d, len)) {
        *kind = has_weight_map(d, len) ? VRAMEST_SRC_SAFETENSORS_INDEX : VRAMEST_SRC_HF_CONFIG_JSON;
        return VRAMEST_OK;
    }
    if (len < 9) {
        *needed = 9;
        return vx_fail(VRAMEST_E_NEED_MORE_DATA, "detecting the format: %zu bytes, 9 needed", len);
    }
    return vx_fail(VRAMEST_E_PARSE,
                   "unrecognised data: not GGUF (magic), safetensors (8-byte length then '{') or JSON "
                   "(first bytes %02x %02x %02x %02x)",
                   d[0], d[1], d[2], d[3]);
}

static int check_model(const vramest_model *m, const char *fn)
{
    if (!m) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: model is NULL", fn);
    if (m->magic != VX_MAGIC_MODEL) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a vramest_model handle", fn);
    return VRAMEST_OK;
}

/* Parse one in-memory source into a fileset (not config.json). */
static int read_source(vx_fileset *fs, vramest_source kind, const uint8_t *d, size_t len, uint64_t file_size,
                       const char *label, size_t *needed)
{
    uint16_t src;
    int rc = vx_fileset_source(fs, label, &src);
    if (rc) return rc;
    switch (kind) {
    case VRAMEST_SRC_SAFETENSORS_HEADER: return vx_safetensors_read(fs, d, len, file_size, needed);
    case VRAMEST_SRC_SAFETENSORS_INDEX: return vx_st_index_read(fs, (const char *)d, len);
    case VRAMEST_SRC_GGUF_HEADER: return vx_gguf_read(fs, d, len, file_size, true, needed);
    default: return vx_fail(VRAMEST_E_INTERNAL, "read_source: kind %d", (int)kind);
    }
}

VRAMEST_API int vramest_model_parse(vramest_model *model, vramest_source kind, const void *data, size_t len,
                                    size_t *out_needed)
{
    int rc = check_model(model, "vramest_model_parse");
    if (rc) return rc;
    if (!data && len) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_parse: data is NULL with len %zu", len);
    const uint8_t *d = data ? data : (const uint8_t *)"";
    size_t needed = 0;
    if (kind == VRAMEST_SRC_AUTO) {
        rc = detect(d, len, &kind, &needed);
        if (rc) {
            if (rc == VRAMEST_E_NEED_MORE_DATA && out_needed) *out_needed = needed;
            return rc;
        }
    }
    static const char *const labels[] = {"", "config.json", "safetensors header", "safetensors index", "GGUF header"};
    struct vramest_model *s = NULL;
    vx_fileset fs;
    vx_fileset_init(&fs);
    switch (kind) {
    case VRAMEST_SRC_HF_CONFIG_JSON:
        if ((rc = stage(model, &s))) break;
        rc = vx_apply_config(s, (const char *)d, len);
        break;
    case VRAMEST_SRC_SAFETENSORS_HEADER:
    case VRAMEST_SRC_SAFETENSORS_INDEX:
    case VRAMEST_SRC_GGUF_HEADER:
        if ((rc = read_source(&fs, kind, d, len, 0, labels[kind], &needed))) break;
        if ((rc = stage(model, &s))) break;
        rc = apply_fileset(s, &fs, kind == VRAMEST_SRC_SAFETENSORS_HEADER ? WHOLE_GUESS : WHOLE_YES, NULL);
        break;
    case VRAMEST_SRC_DIRECTORY:
        rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_parse: a directory can only be read by vramest_model_parse_file()");
        break;
    default:
        rc = vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_parse: unknown source kind %d", (int)kind);
        break;
    }
    vx_fileset_free(&fs);
    if (rc) {
        vramest_model_free(s);
        if (rc == VRAMEST_E_NEED_MORE_DATA && out_needed) *out_needed = needed;
        return rc;
    }
    commit(model, s);
    if (out_needed) *out_needed = 0;
    return VRAMEST_OK;
}

/* Kind of a file from its name, else its first bytes. */
static int detect_file(const char *path, vramest_source *kind)
{
    const char *b = vx_path_base(path);
    if (vx_ends_with(b, ".gguf")) {
        *kind = VRAMEST_SRC_GGUF_HEADER;
        return VRAMEST_OK;
    }
    if (vx_ends_with(b, ".safetensors")) {
        *kind = VRAMEST_SRC_SAFETENSORS_HEADER;
        return VRAMEST_OK;
    }
    if (vx_ends_with(b, ".index.json")) {
        *kind = VRAMEST_SRC_SAFETENSORS_INDEX;
        return VRAMEST_OK;
    }
    vx_file f;
    int rc = vx_file_open(&f, path, NULL);
    if (rc) return rc;
    uint8_t head[4096];
    size_t n = f.size < sizeof head ? (size_t)f.size : sizeof head;
    rc = vx_file_read(&f, 0, head, n);
    vx_file_close(&f);
    if (rc) return rc;
    if (vx_ends_with(b, ".json") && looks_json(head, n)) {
        /* A config.json never has a weight_map; a large index may have it past
         * the first 4 KiB, so names decide for *.index.json above. */
        *kind = has_weight_map(head, n) ? VRAMEST_SRC_SAFETENSORS_INDEX : VRAMEST_SRC_HF_CONFIG_JSON;
        return VRAMEST_OK;
    }
    if (n < 9) return vx_fail(VRAMEST_E_PARSE, "'%s' (%zu bytes) is too short to be a model file", path, n);
    size_t needed;
    if (detect(head, n, kind, &needed) == VRAMEST_OK) return VRAMEST_OK;
    /* Not detect()'s message: it shows the first bytes, which are the
     * caller's own in memory but may be a file's the caller cannot read. */
    return vx_fail(VRAMEST_E_PARSE, "'%s' is not GGUF, safetensors, a safetensors index or config.json", path);
}

static void dir_name(const char *path, char *out, size_t cap)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/') start--;
    snprintf(out, cap, "%.*s", (int)(len - start), path + start);
}

/* One source named by the caller into the staged model. */
static int parse_source(struct vramest_model *s, vx_fileset *fs, vramest_source kind, const char *path, bool is_dir,
                        bool links_anywhere)
{
    int rc;
    const char *label = vx_path_base(path);
    if (is_dir) {
        /* The directory's name stands for the model when nothing names it. */
        char dname[64];
        dir_name(path, dname, sizeof dname);
        if ((rc = vx_read_model_dir(s, fs, path, links_anywhere))) return rc;
        return apply_fileset(s, fs, WHOLE_YES, dname);
    }
    switch (kind) {
    case VRAMEST_SRC_HF_CONFIG_JSON: {
        char *buf;
        size_t len;
        if ((rc = vx_file_slurp(path, NULL, VX_MAX_SPEC_BYTES, &buf, &len))) return rc;
        rc = vx_apply_config(s, buf, len);
        free(buf);
        return rc;
    }
    case VRAMEST_SRC_SAFETENSORS_HEADER:
        if ((rc = vx_read_st_file(fs, path, label, NULL))) return rc;
        return apply_fileset(s, fs, WHOLE_GUESS, NULL);
    case VRAMEST_SRC_GGUF_HEADER:
        if ((rc = vx_read_gguf_file(fs, path, label, true, NULL))) return rc;
        return apply_fileset(s, fs, WHOLE_YES, NULL);
    case VRAMEST_SRC_SAFETENSORS_INDEX:
        if ((rc = vx_read_index_and_shards(fs, path, label, links_anywhere))) return rc;
        return apply_fileset(s, fs, WHOLE_YES, NULL);
    default: return vx_fail(VRAMEST_E_INTERNAL, "vramest_model_parse_path: kind %d", (int)kind);
    }
}

static int parse_path(const char *fn, vramest_model *model, vramest_source kind, const char *path, int flags)
{
    int rc = check_model(model, fn);
    if (rc) return rc;
    if (!path || !*path) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: path is NULL or empty", fn);
    if ((int)kind < VRAMEST_SRC_AUTO || (int)kind > VRAMEST_SRC_DIRECTORY)
        return vx_fail(VRAMEST_E_INVALID_ARG, "%s: unknown source kind %d", fn, (int)kind);
    if (flags & ~(int)VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS)
        return vx_fail(VRAMEST_E_INVALID_ARG, "%s: unknown flags 0x%x", fn,
                       (unsigned)flags & ~(unsigned)VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS);
    struct stat st;
    if (stat(path, &st) != 0) return vx_fail(VRAMEST_E_IO, "cannot open '%s': %s", path, strerror(errno));
    bool is_dir = S_ISDIR(st.st_mode);
    if (is_dir && kind != VRAMEST_SRC_AUTO && kind != VRAMEST_SRC_DIRECTORY)
        return vx_fail(VRAMEST_E_INVALID_ARG, "'%s' is a directory, not a single file of that kind", path);
    if (!is_dir && kind == VRAMEST_SRC_DIRECTORY) return vx_fail(VRAMEST_E_INVALID_ARG, "'%s' is not a directory", path);
    if (!is_dir && kind == VRAMEST_SRC_AUTO && (rc = detect_file(path, &kind))) return rc;

    struct vramest_model *s = NULL;
    if ((rc = stage(model, &s))) return rc;
    vx_fileset fs;
    vx_fileset_init(&fs);
    rc = parse_source(s, &fs, kind, path, is_dir, flags & VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS);
    vx_fileset_free(&fs);
    if (rc) {
        vramest_model_free(s);
        return rc;
    }
    commit(model, s);
    return VRAMEST_OK;
}

VRAMEST_API int vramest_model_parse_path(vramest_model *model, vramest_source kind, const char *path, int flags)
{
    return parse_path("vramest_model_parse_path", model, kind, path, flags);
}

VRAMEST_API int vramest_model_parse_file(vramest_model *model, vramest_source kind, const char *path)
{
    return parse_path("vramest_model_parse_file", model, kind, path, VRAMEST_PARSE_DEFAULT);
}
