/* What files hold against what the architecture implies (issue #19).
 *
 * A directory with a 70B config.json and a safetensors file holding only
 * the embedding was estimated from the embedding: 3 GiB, "fits". Loaders
 * initialise the weights a checkpoint lacks (transformers'
 * from_pretrained reports them as "newly initialized"; llama.cpp refuses to
 * load), so the job needs the whole model: the file tensors stay (they are
 * exact), and whatever they lack is counted at the architecture's size.
 *
 * Compared in instances (layers x copies) per (part, role, kind, leaf name)
 * where the files name tensors as the architecture does (Hugging Face
 * checkpoints; GGUF names are mapped to the same leaves), else per class
 * of roles that files spell differently from the architecture (q, k, v
 * fused or not; gate and up fused or not; MLA's projections split further
 * by newer GGUF conversions), covered as far as its best-covered role.
 * Matrices held in fewer bytes than VX_MIN_BITS_PER_PARAM per architecture
 * parameter count as not held (a 16-element tensor named like a 70B
 * layer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "model/model.h"

/* Files that hold a class of matrices in fewer bytes than one bit per
 * parameter of the architecture do not hold those matrices (shapes that
 * lie about the model): the smallest format a runtime here loads is ggml's
 * IQ1_S, 50 bytes per 256 weights, 1.5625 bits (ggml-common.h,
 * block_iq1_s); one bit leaves room for formats below it. */
#define VX_MIN_BITS_PER_PARAM 1u

#define NKIND 5
#define NPART 3
#define KEYS (NPART * VX_ROLE_COUNT_ * NKIND)

static int class_of(int role)
{
    switch (role) {
    case VX_ROLE_ATTN_Q:
    case VX_ROLE_ATTN_K:
    case VX_ROLE_ATTN_V:
    case VX_ROLE_ATTN_QKV:
    case VX_ROLE_ATTN_Q_A:
    case VX_ROLE_ATTN_Q_B:
    case VX_ROLE_ATTN_KV_A:
    case VX_ROLE_ATTN_KV_B: return VX_ROLE_ATTN_QKV;
    case VX_ROLE_CROSS_Q:
    case VX_ROLE_CROSS_K:
    case VX_ROLE_CROSS_V: return VX_ROLE_CROSS_Q;
    case VX_ROLE_MLP_GATE:
    case VX_ROLE_MLP_UP:
    case VX_ROLE_MLP_GATE_UP: return VX_ROLE_MLP_GATE_UP;
    case VX_ROLE_EXPERT_GATE:
    case VX_ROLE_EXPERT_UP: return VX_ROLE_EXPERT_UP;
    case VX_ROLE_SHARED_GATE:
    case VX_ROLE_SHARED_UP: return VX_ROLE_SHARED_UP;
    case VX_ROLE_OTHER: return -1; /* no architecture says what "other" holds */
    default: return role < VX_ROLE_COUNT_ ? role : -1;
    }
}

static size_t key_of(const vx_tensor *t, int role)
{
    return ((size_t)t->part * VX_ROLE_COUNT_ + (size_t)role) * NKIND + t->kind;
}

static size_t class_key(const vx_tensor *t)
{
    return key_of(t, class_of(t->role));
}

static bool counted(const vx_tensor *t)
{
    /* Buffers (causal masks, rotary tables) and side modules (an MTP
     * layer) are not the parameters the architecture lists. */
    return t->trainable_default && t->part < NPART && t->kind < NKIND && class_of(t->role) >= 0;
}

static uint64_t instances(const vx_tensor *t)
{
    return vx_sat_mul((uint64_t)(t->n_layers > 0 ? t->n_layers : 1), (uint64_t)(t->n_per_layer > 0 ? t->n_per_layer : 1));
}

/* Same part, kind, role and leaf name. */
static int named_cmp(const vx_tensor *a, const vx_tensor *b)
{
    if (a->part != b->part) return a->part < b->part ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->role != b->role) return a->role < b->role ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int named_ptr_cmp(const void *pa, const void *pb)
{
    return named_cmp(*(const vx_tensor *const *)pa, *(const vx_tensor *const *)pb);
}

typedef struct cover {
    uint64_t need[KEYS], have[KEYS];   /* per role: instances in the architecture / the files */
    uint64_t elems[KEYS], bytes[KEYS]; /* per class: architecture parameters / file bytes */
    uint64_t want[KEYS], held[KEYS];   /* per class: most numerous role / best covered (0: not held) */
    bool named[KEYS];                  /* per class: the files use the architecture's leaf names */
    const vx_tensor **files;           /* counted file groups, sorted by named_cmp */
    size_t nf;
} cover;

/* Instances of the file groups named like `a`. */
static uint64_t have_named(const cover *c, const vx_tensor *a)
{
    size_t lo = 0, hi = c->nf;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (named_cmp(c->files[mid], a) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t n = 0;
    for (size_t i = lo; i < c->nf && named_cmp(c->files[i], a) == 0; i++) n = vx_sat_add(n, instances(c->files[i]));
    return n;
}

static int tally(cover *c, const vx_tensor *arch, size_t na, const vx_tensor *files, size_t nf)
{
    c->files = nf ? malloc(nf * sizeof *c->files) : NULL;
    if (nf && !c->files) return vx_fail(VRAMEST_E_NOMEM, "out of memory comparing the file tensors with the architecture");
    for (size_t i = 0; i < nf; i++) {
        const vx_tensor *t = &files[i];
        if (!counted(t)) continue;
        c->files[c->nf++] = t;
        size_t r = key_of(t, t->role), k = class_key(t);
        c->have[r] = vx_sat_add(c->have[r], instances(t));
        c->bytes[k] = vx_sat_add(c->bytes[k], t->file_bytes);
    }
    if (c->nf > 1) qsort(c->files, c->nf, sizeof *c->files, named_ptr_cmp);
    for (size_t i = 0; i < na; i++) {
        const vx_tensor *t = &arch[i];
        if (!counted(t)) continue;
        size_t r = key_of(t, t->role), k = class_key(t);
        c->need[r] = vx_sat_add(c->need[r], instances(t));
        c->elems[k] = vx_sat_add(c->elems[k], vx_tensor_elems(t));
        if (have_named(c, t)) c->named[k] = true;
    }
    for (size_t r = 0; r < KEYS; r++) {
        int role = (int)(r / NKIND % VX_ROLE_COUNT_), cls = class_of(role);
        if (cls < 0) continue;
        size_t k = r - (size_t)role * NKIND + (size_t)cls * NKIND;
        if (c->need[r] > c->want[k]) c->want[k] = c->need[r];
        if (c->have[r] > c->held[k]) c->held[k] = c->have[r];
    }
    for (size_t k = 0; k < KEYS; k++) {
        uint64_t want = c->want[k], held = c->held[k] < want ? c->held[k] : want;
        int kind = (int)(k % NKIND);
        if (want && held && (kind == VX_TK_MATRIX || kind == VX_TK_EMBED)) {
            /* Bits the held share of the class's parameters takes at least. */
            double floor_bits = (double)c->elems[k] * ((double)held / (double)want) * VX_MIN_BITS_PER_PARAM;
            if ((double)c->bytes[k] * 8.0 < floor_bits) held = 0, c->named[k] = false;
        }
        c->held[k] = held;
    }
    return VRAMEST_OK;
}

/* Of an architecture group, the share the files lack, in its own units
 * (layers, or copies of a global tensor), rounded up; 0 when held. */
static uint64_t lacking(const cover *c, const vx_tensor *arch, size_t na, const vx_tensor *g)
{
    size_t k = class_key(g);
    uint64_t want = c->want[k], held = c->held[k];
    if (c->named[k]) {
        /* Named like the architecture: this name's instances. */
        want = 0;
        for (size_t i = 0; i < na; i++)
            if (counted(&arch[i]) && named_cmp(&arch[i], g) == 0) want = vx_sat_add(want, instances(&arch[i]));
        held = have_named(c, g);
        if (held > want) held = want;
    }
    if (!want || held >= want) return 0;
    uint64_t of = (uint64_t)(g->n_layers > 0 ? g->n_layers : (g->n_per_layer > 0 ? g->n_per_layer : 1));
    return held == 0 ? of : vx_ceil_div(vx_sat_mul(of, want - held), want);
}

/* The dtype the files store tensors of `kind` in (their largest group's),
 * for tensors of that kind they lack: a partial GGUF's missing layers are
 * as quantized as its present ones. Packed integer storage (GPTQ qweight's
 * int32) says nothing about the element size: AUTO, the model's dtype. */
static int16_t file_dtype_of(const cover *c, int kind)
{
    int16_t best = VRAMEST_DTYPE_AUTO;
    uint64_t most = 0;
    for (size_t i = 0; i < c->nf; i++) {
        const vx_tensor *t = c->files[i];
        if (t->kind != kind || t->file_bytes <= most) continue;
        const vx_dtype_info *d = vx_dtype(t->dtype);
        bool gguf_block = t->dtype >= 100 && d && d->block_elems;
        if (!d || d->is_policy || (!d->is_float && !gguf_block)) continue;
        best = t->dtype;
        most = t->file_bytes;
    }
    return best;
}

/* Matrices and embeddings vouch for each other (a GGUF's token_embd is
 * quantized like its layers). */
static int16_t file_dtype(const cover *c, int kind)
{
    int16_t d = file_dtype_of(c, kind);
    if (d == VRAMEST_DTYPE_AUTO && (kind == VX_TK_MATRIX || kind == VX_TK_EMBED))
        d = file_dtype_of(c, kind == VX_TK_MATRIX ? VX_TK_EMBED : VX_TK_MATRIX);
    return d;
}

/* "q_proj x80, k_proj x80, ..." into the list, cut with "..." when full. */
static void note_add(char *list, size_t cap, size_t *used, const vx_tensor *g, uint64_t *listed)
{
    if (*used >= cap) return;
    int w = snprintf(list + *used, cap - *used, "%s%s x%llu", (*listed)++ ? ", " : "", g->name,
                     (unsigned long long)instances(g));
    if (w >= 0 && (size_t)w < cap - *used - 5) {
        *used += (size_t)w;
        return;
    }
    snprintf(list + *used, cap - *used, "%s...", *used ? ", " : "");
    *used = cap;
}

/* File tensors the class does not load (issue #16, checkpoint reality):
 * the head of a tied model stored a second time (from_pretrained ties it
 * to the embedding: one copy in memory), and the matrices and norms of
 * MTP layers (io/tensor_roles.c marks them; transformers ignores them on
 * load). They stay in checkpoint_bytes (the files' total). */
static bool not_loaded(const struct vramest_model *m, const vx_tensor *t)
{
    if (t->role == VX_ROLE_LM_HEAD && t->kind == VX_TK_MATRIX) return m->shape.tied != 0;
    return !t->trainable_default && t->part == VX_PART_DECODER &&
           (t->kind == VX_TK_MATRIX || t->kind == VX_TK_NORM || t->kind == VX_TK_EMBED);
}

static int complete(struct vramest_model *m, const vx_tensor *arch, size_t na, const cover *c)
{
    int rc = VRAMEST_OK;
    uint64_t head = 0, mtp = 0;
    m->n_inv = 0;
    m->disk_note[0] = '\0';
    for (size_t i = 0; i < m->n_file_inv && rc == VRAMEST_OK; i++) {
        const vx_tensor *t = &m->file_inv[i];
        if (not_loaded(m, t)) {
            if (t->role == VX_ROLE_LM_HEAD) head = vx_sat_add(head, t->file_bytes);
            else mtp = vx_sat_add(mtp, t->file_bytes);
            continue;
        }
        rc = vx_inv_push(&m->inv, &m->n_inv, &m->cap_inv, t);
    }
    m->disk_only_bytes = vx_sat_add(head, mtp);
    if (head || mtp)
        snprintf(m->disk_note, sizeof m->disk_note,
                 "the files hold %.1f MiB the model does not load (%s%s%s): in the checkpoint's bytes, not in memory",
                 (double)m->disk_only_bytes / (double)VX_MIB, head ? "a tied head stored a second time" : "",
                 head && mtp ? ", " : "", mtp ? "MTP layers" : "");
    char list[sizeof m->cover_note - 96];
    size_t used = 0;
    uint64_t listed = 0, added = 0;
    list[0] = '\0';
    for (size_t i = 0; i < na && rc == VRAMEST_OK; i++) {
        if (!counted(&arch[i])) continue;
        uint64_t part = lacking(c, arch, na, &arch[i]);
        if (!part) continue;
        vx_tensor g = arch[i];
        if (g.n_layers > 0)
            g.n_layers = (int64_t)part;
        else
            g.n_per_layer = (int64_t)part;
        g.file_bytes = 0;
        g.dtype = file_dtype(c, g.kind);
        rc = vx_inv_push(&m->inv, &m->n_inv, &m->cap_inv, &g);
        note_add(list, sizeof list, &used, &g, &listed);
        added = vx_sat_add(added, vx_tensor_elems(&g));
    }
    if (rc == VRAMEST_OK && listed) {
        uint64_t total = m->shape.params_total;
        double pct = total && added < total ? 100.0 * (double)added / (double)total : 100.0;
        /* The list goes after the sentence, cut to the note's size. */
        int n = snprintf(m->cover_note, sizeof m->cover_note,
                         "files lack %.1f%% of the model's parameters; counted at the config's size (loaders "
                         "initialise them): ",
                         pct);
        if (n > 0 && (size_t)n < sizeof m->cover_note)
            vx_strlcpy(m->cover_note + n, list, sizeof m->cover_note - (size_t)n);
    }
    return rc;
}

int vx_cover_file_tensors(struct vramest_model *m)
{
    m->cover_note[0] = '\0';
    size_t na = m->n_inv;
    vx_tensor *arch = na ? malloc(na * sizeof *arch) : NULL;
    cover *c = calloc(1, sizeof *c);
    int rc = (na && !arch) || !c ? vx_fail(VRAMEST_E_NOMEM, "out of memory comparing the file tensors with the "
                                                            "architecture")
                                 : VRAMEST_OK;
    if (rc == VRAMEST_OK) {
        if (na) memcpy(arch, m->inv, na * sizeof *arch);
        rc = tally(c, arch, na, m->file_inv, m->n_file_inv);
    }
    if (rc == VRAMEST_OK) rc = complete(m, arch, na, c);
    if (c) free((void *)c->files);
    free(c);
    free(arch);
    return rc;
}
