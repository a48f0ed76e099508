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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/files.h"
#include "model/hf_config.h"

#define H_MODEL VRAMEST_HANDLE_MODEL
#define MAX_CONFIG_FILE VX_MAX_SPEC_BYTES /* config.json read from disk */
#define GGUF_FIRST_READ ((size_t)256 * 1024)

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
static int apply_config(struct vramest_model *s, const char *buf, size_t len)
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
        rc = apply_config(s, (const char *)d, len);
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

/* ---- files ----------------------------------------------------------------- */

typedef struct file {
    int fd;
    uint64_t size;
    const char *path;
} file;

static int file_open(file *f, const char *path)
{
    f->path = path;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) return vx_fail(VRAMEST_E_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        int e = errno;
        close(f->fd);
        return vx_fail(VRAMEST_E_IO, "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f->fd);
        return vx_fail(VRAMEST_E_IO, "'%s' is not a regular file", path);
    }
    f->size = (uint64_t)st.st_size;
    return VRAMEST_OK;
}

static int file_read(const file *f, uint64_t off, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(f->fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return vx_fail(VRAMEST_E_IO, "cannot read '%s' at byte %llu: %s", f->path,
                           (unsigned long long)(off + got), strerror(errno));
        }
        if (r == 0)
            return vx_fail(VRAMEST_E_IO, "'%s' ended at byte %llu while reading %zu bytes at %llu", f->path,
                           (unsigned long long)(off + got), len, (unsigned long long)off);
        got += (size_t)r;
    }
    return VRAMEST_OK;
}

/* The whole (small) file into a malloc'd, NUL-terminated buffer. */
static int file_slurp(const char *path, size_t cap, char **out, size_t *out_len)
{
    file f;
    int rc = file_open(&f, path);
    if (rc) return rc;
    if (f.size > cap) {
        close(f.fd);
        return vx_fail(VRAMEST_E_LIMIT, "'%s' is %llu bytes, more than the %zu read for this kind of file", path,
                       (unsigned long long)f.size, cap);
    }
    char *buf = malloc((size_t)f.size + 1);
    if (!buf) {
        close(f.fd);
        return vx_fail(VRAMEST_E_NOMEM, "out of memory reading '%s'", path);
    }
    rc = file_read(&f, 0, buf, (size_t)f.size);
    close(f.fd);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[f.size] = '\0';
    *out = buf;
    *out_len = (size_t)f.size;
    return VRAMEST_OK;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    size_t k = a;
    if (k && p[k - 1] != '/') p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}

/* A safetensors file: the 8 length bytes, then exactly the header. */
static int read_st_file(vx_fileset *fs, const char *path, const char *label)
{
    file f;
    int rc = file_open(&f, path);
    if (rc) return rc;
    uint16_t src;
    if ((rc = vx_fileset_source(fs, label, &src))) goto out;
    if (f.size < 8) {
        rc = vx_fail(VRAMEST_E_PARSE, "%s: %llu bytes is too short for a safetensors file", label,
                     (unsigned long long)f.size);
        goto out;
    }
    uint8_t head[8];
    if ((rc = file_read(&f, 0, head, 8))) goto out;
    size_t needed = 0;
    rc = vx_safetensors_read(fs, head, 8, f.size, &needed);
    if (rc != VRAMEST_E_NEED_MORE_DATA) {
        if (rc == VRAMEST_OK) /* only "{}"-less 8 bytes could succeed: impossible */
            rc = vx_fail(VRAMEST_E_INTERNAL, "%s: header of 0 bytes accepted", label);
        goto out;
    }
    uint8_t *buf = malloc(needed);
    if (!buf) {
        rc = vx_fail(VRAMEST_E_NOMEM, "out of memory for the header of '%s'", path);
        goto out;
    }
    if ((rc = file_read(&f, 0, buf, needed)) == VRAMEST_OK) rc = vx_safetensors_read(fs, buf, needed, f.size, &needed);
    free(buf);
out:
    close(f.fd);
    return rc;
}

/* A GGUF file: growing prefixes until the reader stops asking. */
static int read_gguf_file(vx_fileset *fs, const char *path, const char *label, bool arch)
{
    file f;
    int rc = file_open(&f, path);
    if (rc) return rc;
    uint16_t src;
    if ((rc = vx_fileset_source(fs, label, &src))) {
        close(f.fd);
        return rc;
    }
    if (f.size == 0) {
        close(f.fd);
        return vx_fail(VRAMEST_E_PARSE, "%s: empty file", label);
    }
    vx_fileset_mark mk;
    vx_fileset_mark_at(fs, &mk);
    size_t have = 0, want = f.size < GGUF_FIRST_READ ? (size_t)f.size : GGUF_FIRST_READ;
    uint8_t *buf = NULL;
    for (;;) {
        uint8_t *nb = realloc(buf, want ? want : 1);
        if (!nb) {
            rc = vx_fail(VRAMEST_E_NOMEM, "out of memory reading the header of '%s'", path);
            break;
        }
        buf = nb;
        if ((rc = file_read(&f, have, buf + have, want - have))) break;
        have = want;
        size_t needed = 0;
        rc = vx_gguf_read(fs, buf, have, f.size, arch, &needed);
        if (rc != VRAMEST_E_NEED_MORE_DATA) break;
        vx_fileset_rollback(fs, &mk);
        /* Double at least, so that a header of many small items takes few passes. */
        size_t next = needed > 2 * have ? needed : 2 * have;
        if (next > f.size) next = (size_t)f.size;
        if (next <= have) {
            rc = vx_fail(VRAMEST_E_INTERNAL, "%s: the GGUF reader asked for %zu bytes of %zu", label, needed, have);
            break;
        }
        want = next;
    }
    free(buf);
    close(f.fd);
    return rc;
}

static int read_index_file(vx_fileset *fs, const char *path, const char *label)
{
    char *buf;
    size_t len;
    int rc = file_slurp(path, VX_MAX_HEADER_BYTES, &buf, &len);
    if (rc) return rc;
    uint16_t src;
    if ((rc = vx_fileset_source(fs, label, &src)) == VRAMEST_OK) rc = vx_st_index_read(fs, buf, len);
    /* Names live in the set's arena, not in buf. */
    free(buf);
    return rc;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int raw_cmp(const void *a, const void *b)
{
    return strcmp((*(const vx_raw_tensor *const *)a)->name, (*(const vx_raw_tensor *const *)b)->name);
}

/* The shards an index names, read from `dir`. None present: the index alone
 * (names and total size). Some missing: VRAMEST_E_IO naming one. */
static int read_shards(vx_fileset *fs, const char *dir)
{
    size_t n = fs->n_idx;
    if (!n) return VRAMEST_OK;
    const char **files = malloc(n * sizeof *files);
    if (!files) return vx_fail(VRAMEST_E_NOMEM, "out of memory listing shards");
    for (size_t i = 0; i < n; i++) files[i] = fs->idx[i].file;
    qsort(files, n, sizeof *files, str_cmp);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || strcmp(files[u - 1], files[i]) != 0) files[u++] = files[i];
    int rc = VRAMEST_OK;
    size_t present = 0;
    const char *missing = NULL;
    for (size_t i = 0; i < u; i++) {
        char *p = join(dir, files[i]);
        if (!p) {
            rc = vx_fail(VRAMEST_E_NOMEM, "out of memory");
            break;
        }
        struct stat st;
        if (stat(p, &st) == 0 && ends_with(files[i], ".safetensors"))
            present++;
        else if (!missing)
            missing = files[i];
        free(p);
    }
    if (!rc && present && missing)
        rc = vx_fail(VRAMEST_E_IO, "shard '%s' named by the index is missing from '%s' (%zu of %zu shards present)",
                     missing, dir, present, u);
    for (size_t i = 0; i < u && !rc && present; i++) {
        char *p = join(dir, files[i]);
        if (!p) {
            rc = vx_fail(VRAMEST_E_NOMEM, "out of memory");
            break;
        }
        rc = read_st_file(fs, p, files[i]);
        free(p);
    }
    free(files);
    if (rc || !present) return rc;

    /* Every tensor the index names must be in a shard's header. */
    const vx_raw_tensor **v = malloc(fs->n * sizeof *v);
    if (!v && fs->n) return vx_fail(VRAMEST_E_NOMEM, "out of memory");
    for (size_t i = 0; i < fs->n; i++) v[i] = &fs->t[i];
    qsort(v, fs->n, sizeof *v, raw_cmp);
    for (size_t i = 0; i < n && !rc; i++) {
        vx_raw_tensor key = {0};
        key.name = fs->idx[i].name;
        const vx_raw_tensor *kp = &key;
        const vx_raw_tensor **hit = fs->n ? bsearch(&kp, v, fs->n, sizeof *v, raw_cmp) : NULL;
        if (!hit)
            rc = vx_fail(VRAMEST_E_CONFLICT, "the index maps tensor '%s' (byte %llu) to '%s', whose header has no such tensor",
                         fs->idx[i].name, (unsigned long long)fs->idx[i].at, fs->idx[i].file);
        else if (strcmp(vx_fileset_label(fs, (*hit)->shard), fs->idx[i].file) != 0)
            rc = vx_fail(VRAMEST_E_CONFLICT, "the index maps tensor '%s' (byte %llu) to '%s', but it is in '%s'",
                         fs->idx[i].name, (unsigned long long)fs->idx[i].at, fs->idx[i].file,
                         vx_fileset_label(fs, (*hit)->shard));
    }
    free(v);
    return rc;
}

/* "name-00001-of-00003.ext": the shard number and count, or false. */
static bool shard_of(const char *name, const char *ext, unsigned *no, unsigned *count, size_t *stem)
{
    size_t n = strlen(name), e = strlen(ext);
    /* -NNNNN-of-NNNNN + ext */
    if (n < e + 15 || strcmp(name + n - e, ext) != 0) return false;
    const char *p = name + n - e - 15;
    if (p[0] != '-' || memcmp(p + 6, "-of-", 4) != 0) return false;
    unsigned a = 0, b = 0;
    for (int i = 1; i <= 5; i++) {
        if (p[i] < '0' || p[i] > '9' || p[i + 9] < '0' || p[i + 9] > '9') return false;
        a = a * 10 + (unsigned)(p[i] - '0');
        b = b * 10 + (unsigned)(p[i + 9] - '0');
    }
    *no = a, *count = b, *stem = (size_t)(p - name);
    return true;
}

typedef struct names {
    char **v;
    size_t n, cap;
} names;

static void names_free(names *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
}

static int list_dir(const char *dir, const char *ext, names *out)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d) return vx_fail(VRAMEST_E_IO, "cannot list '%s': %s", dir, strerror(errno));
    int rc = VRAMEST_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ext)) continue;
        if (out->n == out->cap) {
            size_t nc = out->cap ? out->cap * 2 : 16;
            char **nv = realloc(out->v, nc * sizeof *nv);
            if (!nv) {
                rc = vx_fail(VRAMEST_E_NOMEM, "out of memory listing '%s'", dir);
                break;
            }
            out->v = nv, out->cap = nc;
        }
        if (!(out->v[out->n] = strdup(e->d_name))) {
            rc = vx_fail(VRAMEST_E_NOMEM, "out of memory listing '%s'", dir);
            break;
        }
        out->n++;
    }
    closedir(d);
    if (rc) {
        names_free(out);
        return rc;
    }
    if (out->n) qsort(out->v, out->n, sizeof *out->v, str_cmp);
    return VRAMEST_OK;
}

/* Which of several files form one sharded model: all of "stem-000i-of-000n.ext"
 * for one stem, complete. Returns false for anything else. */
static bool one_sharded_set(const names *l, const char *ext)
{
    unsigned no, count, count0 = 0;
    size_t stem, stem0 = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!shard_of(l->v[i], ext, &no, &count, &stem)) return false;
        if (i == 0)
            count0 = count, stem0 = stem;
        else if (count != count0 || stem != stem0 || memcmp(l->v[i], l->v[0], stem) != 0)
            return false;
        if (no != i + 1) return false; /* sorted names: 1..n in order */
    }
    return l->n == count0;
}

static int ambiguous(const char *dir, const names *l, const char *what)
{
    char list[400];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < l->n && used + 80 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s'%s'", i ? ", " : "", l->v[i]);
    return vx_fail(VRAMEST_E_INVALID_ARG, "'%s' holds several %s files that are not one sharded model (%s%s); name one file",
                   dir, what, list, used + 80 >= sizeof list ? ", ..." : "");
}

static bool exists(const char *dir, const char *name)
{
    char *p = join(dir, name);
    if (!p) return false;
    struct stat st;
    bool ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return ok;
}

/* A model directory: config.json, then the tensors (index + shards,
 * model.safetensors, a set of shards, or one GGUF / one split GGUF). */
static int parse_dir(struct vramest_model *s, vx_fileset *fs, const char *dir)
{
    int rc;
    bool any = false;
    if (exists(dir, "config.json")) {
        char *p = join(dir, "config.json"), *buf;
        size_t len;
        if (!p) return vx_fail(VRAMEST_E_NOMEM, "out of memory");
        rc = file_slurp(p, MAX_CONFIG_FILE, &buf, &len);
        free(p);
        if (rc) return rc;
        rc = apply_config(s, buf, len);
        free(buf);
        if (rc) return rc;
        any = true;
    }
    names st, gg;
    if ((rc = list_dir(dir, ".safetensors", &st))) return rc;
    if ((rc = list_dir(dir, ".gguf", &gg))) {
        names_free(&st);
        return rc;
    }
    if (exists(dir, "model.safetensors.index.json")) {
        char *p = join(dir, "model.safetensors.index.json");
        rc = p ? read_index_file(fs, p, "model.safetensors.index.json") : vx_fail(VRAMEST_E_NOMEM, "out of memory");
        free(p);
        if (!rc) rc = read_shards(fs, dir);
        any = true;
    } else if (st.n) {
        /* Mistral repos ship consolidated.safetensors next to the HF files;
         * the HF layout wins when both are there. */
        size_t hf = 0;
        for (size_t i = 0; i < st.n; i++) hf += strncmp(st.v[i], "consolidated", 12) != 0;
        if (hf && hf < st.n) {
            size_t keep = 0;
            for (size_t i = 0; i < st.n; i++)
                if (strncmp(st.v[i], "consolidated", 12) != 0)
                    st.v[keep++] = st.v[i];
                else
                    free(st.v[i]);
            st.n = keep;
        }
        names use = st;
        if (use.n == 1 || one_sharded_set(&use, ".safetensors")) {
            for (size_t i = 0; i < use.n && !rc; i++) {
                char *p = join(dir, use.v[i]);
                rc = p ? read_st_file(fs, p, use.v[i]) : vx_fail(VRAMEST_E_NOMEM, "out of memory");
                free(p);
            }
        } else if (use.n) {
            rc = ambiguous(dir, &use, ".safetensors");
        }
        any = true;
    } else if (gg.n) {
        if (gg.n == 1 || one_sharded_set(&gg, ".gguf")) {
            for (size_t i = 0; i < gg.n && !rc; i++) {
                char *p = join(dir, gg.v[i]);
                rc = p ? read_gguf_file(fs, p, gg.v[i], i == 0) : vx_fail(VRAMEST_E_NOMEM, "out of memory");
                free(p);
            }
        } else {
            rc = ambiguous(dir, &gg, ".gguf");
        }
        any = true;
    }
    names_free(&st);
    names_free(&gg);
    if (rc) return rc;
    if (!any)
        return vx_fail(VRAMEST_E_IO, "'%s' holds no config.json, model.safetensors(.index.json), *.safetensors or *.gguf",
                       dir);
    return VRAMEST_OK;
}

/* Kind of a file from its name, else its first bytes. */
static int detect_file(const char *path, vramest_source *kind)
{
    const char *b = base_name(path);
    if (ends_with(b, ".gguf")) {
        *kind = VRAMEST_SRC_GGUF_HEADER;
        return VRAMEST_OK;
    }
    if (ends_with(b, ".safetensors")) {
        *kind = VRAMEST_SRC_SAFETENSORS_HEADER;
        return VRAMEST_OK;
    }
    if (ends_with(b, ".index.json")) {
        *kind = VRAMEST_SRC_SAFETENSORS_INDEX;
        return VRAMEST_OK;
    }
    file f;
    int rc = file_open(&f, path);
    if (rc) return rc;
    uint8_t head[4096];
    size_t n = f.size < sizeof head ? (size_t)f.size : sizeof head;
    rc = file_read(&f, 0, head, n);
    close(f.fd);
    if (rc) return rc;
    if (ends_with(b, ".json") && looks_json(head, n)) {
        /* A config.json never has a weight_map; a large index may have it past
         * the first 4 KiB, so names decide for *.index.json above. */
        *kind = has_weight_map(head, n) ? VRAMEST_SRC_SAFETENSORS_INDEX : VRAMEST_SRC_HF_CONFIG_JSON;
        return VRAMEST_OK;
    }
    size_t needed;
    rc = detect(head, n, kind, &needed);
    if (rc == VRAMEST_E_NEED_MORE_DATA)
        rc = vx_fail(VRAMEST_E_PARSE, "'%s' (%zu bytes) is too short to be a model file", path, n);
    else if (rc)
        vx_fail(rc, "'%s': %s", path, "not GGUF, safetensors, a safetensors index or config.json");
    return rc;
}

VRAMEST_API int vramest_model_parse_file(vramest_model *model, vramest_source kind, const char *path)
{
    int rc = check_model(model, "vramest_model_parse_file");
    if (rc) return rc;
    if (!path || !*path) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_parse_file: path is NULL or empty");
    if ((int)kind < VRAMEST_SRC_AUTO || (int)kind > VRAMEST_SRC_DIRECTORY)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_model_parse_file: unknown source kind %d", (int)kind);
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
    const char *label = base_name(path);
    if (is_dir) {
        rc = parse_dir(s, &fs, path);
        /* The directory's name stands for the model when nothing names it. */
        char dname[64];
        size_t len = strlen(path);
        while (len > 1 && path[len - 1] == '/') len--;
        size_t start = len;
        while (start > 0 && path[start - 1] != '/') start--;
        snprintf(dname, sizeof dname, "%.*s", (int)(len - start), path + start);
        if (!rc) rc = apply_fileset(s, &fs, WHOLE_YES, dname);
    } else {
        switch (kind) {
        case VRAMEST_SRC_HF_CONFIG_JSON: {
            char *buf;
            size_t len;
            if ((rc = file_slurp(path, MAX_CONFIG_FILE, &buf, &len))) break;
            rc = apply_config(s, buf, len);
            free(buf);
            break;
        }
        case VRAMEST_SRC_SAFETENSORS_HEADER:
            if (!(rc = read_st_file(&fs, path, label))) rc = apply_fileset(s, &fs, WHOLE_GUESS, NULL);
            break;
        case VRAMEST_SRC_GGUF_HEADER:
            if (!(rc = read_gguf_file(&fs, path, label, true))) rc = apply_fileset(s, &fs, WHOLE_YES, NULL);
            break;
        case VRAMEST_SRC_SAFETENSORS_INDEX: {
            if ((rc = read_index_file(&fs, path, label))) break;
            char *dir = strdup(path);
            if (!dir) {
                rc = vx_fail(VRAMEST_E_NOMEM, "out of memory");
                break;
            }
            char *slash = strrchr(dir, '/');
            if (slash)
                slash[1] = '\0';
            else
                strcpy(dir, ".");
            rc = read_shards(&fs, dir);
            free(dir);
            if (!rc) rc = apply_fileset(s, &fs, WHOLE_YES, NULL);
            break;
        }
        default: rc = vx_fail(VRAMEST_E_INTERNAL, "vramest_model_parse_file: kind %d", (int)kind); break;
        }
    }
    vx_fileset_free(&fs);
    if (rc) {
        vramest_model_free(s);
        return rc;
    }
    commit(model, s);
    return VRAMEST_OK;
}
