/* The staging area readers fill: raw tensors, index entries, GGUF
 * architecture values, and the buffers their names live in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/files.h"

void vx_fileset_init(vx_fileset *fs)
{
    memset(fs, 0, sizeof *fs);
}

void vx_fileset_free(vx_fileset *fs)
{
    if (!fs) return;
    for (size_t i = 0; i < fs->n_bufs; i++) free(fs->bufs[i]);
    for (size_t i = 0; i < fs->n_sources; i++) free(fs->labels[i]);
    free(fs->bufs);
    free(fs->labels);
    free(fs->t);
    free(fs->idx);
    memset(fs, 0, sizeof *fs);
}

void vx_fileset_mark_at(const vx_fileset *fs, vx_fileset_mark *mk)
{
    mk->n = fs->n;
    mk->n_idx = fs->n_idx;
    mk->n_bufs = fs->n_bufs;
    mk->n_opts = fs->n_opts;
    memcpy(mk->name, fs->name, sizeof mk->name);
    mk->gguf_tokens = fs->gguf_tokens;
    mk->encoder_only = fs->encoder_only;
    mk->gguf_split = fs->gguf_split;
    mk->has_index = fs->has_index;
    mk->has_total = fs->has_total;
    mk->index_total = fs->index_total;
}

void vx_fileset_rollback(vx_fileset *fs, const vx_fileset_mark *mk)
{
    for (size_t i = mk->n_bufs; i < fs->n_bufs; i++) free(fs->bufs[i]);
    fs->n_bufs = mk->n_bufs;
    fs->n = mk->n;
    fs->n_idx = mk->n_idx;
    fs->n_opts = mk->n_opts;
    memcpy(fs->name, mk->name, sizeof fs->name);
    fs->gguf_tokens = mk->gguf_tokens;
    fs->encoder_only = mk->encoder_only;
    fs->gguf_split = mk->gguf_split;
    fs->has_index = mk->has_index;
    fs->has_total = mk->has_total;
    fs->index_total = mk->index_total;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return VRAMEST_OK;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem) return vx_fail(VRAMEST_E_NOMEM, "file reader: too many entries");
        nc *= 2;
    }
    void *np = realloc(*p, nc * elem);
    if (!np) return vx_fail(VRAMEST_E_NOMEM, "file reader: out of memory (%zu entries)", nc);
    *p = np;
    *cap = nc;
    return VRAMEST_OK;
}

int vx_fileset_keep(vx_fileset *fs, char *buf)
{
    int rc = grow((void **)&fs->bufs, &fs->cap_bufs, fs->n_bufs + 1, sizeof *fs->bufs);
    if (rc) {
        free(buf);
        return rc;
    }
    fs->bufs[fs->n_bufs++] = buf;
    return VRAMEST_OK;
}

int vx_fileset_push(vx_fileset *fs, const vx_raw_tensor *t)
{
    if (fs->n >= VX_MAX_TENSORS)
        return vx_fail(VRAMEST_E_LIMIT, "%s: more than %u tensors (tensor '%s' at byte %llu)",
                       vx_fileset_label(fs, t->shard), VX_MAX_TENSORS, t->name, (unsigned long long)t->at);
    int rc = grow((void **)&fs->t, &fs->cap, fs->n + 1, sizeof *fs->t);
    if (rc) return rc;
    fs->t[fs->n++] = *t;
    return VRAMEST_OK;
}

int vx_fileset_push_index(vx_fileset *fs, const vx_index_entry *e)
{
    if (fs->n_idx >= VX_MAX_TENSORS)
        return vx_fail(VRAMEST_E_LIMIT, "safetensors index: more than %u tensors (tensor '%s' at byte %llu)",
                       VX_MAX_TENSORS, e->name, (unsigned long long)e->at);
    int rc = grow((void **)&fs->idx, &fs->cap_idx, fs->n_idx + 1, sizeof *fs->idx);
    if (rc) return rc;
    fs->idx[fs->n_idx++] = *e;
    return VRAMEST_OK;
}

int vx_fileset_source(vx_fileset *fs, const char *label, uint16_t *out)
{
    if (fs->n_sources >= UINT16_MAX) return vx_fail(VRAMEST_E_LIMIT, "more than %u files in one model", UINT16_MAX);
    int rc = grow((void **)&fs->labels, &fs->cap_sources, fs->n_sources + 1, sizeof *fs->labels);
    if (rc) return rc;
    char *copy = strdup(label ? label : "buffer");
    if (!copy) return vx_fail(VRAMEST_E_NOMEM, "file reader: out of memory");
    fs->labels[fs->n_sources] = copy;
    *out = (uint16_t)fs->n_sources++;
    return VRAMEST_OK;
}

const char *vx_fileset_label(const vx_fileset *fs, uint16_t shard)
{
    return shard < fs->n_sources ? fs->labels[shard] : "buffer";
}

static int raw_name_cmp(const void *pa, const void *pb)
{
    const vx_raw_tensor *a = *(const vx_raw_tensor *const *)pa, *b = *(const vx_raw_tensor *const *)pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return a->at < b->at ? -1 : a->at > b->at;
}

int vx_fileset_check_dups(const vx_fileset *fs, size_t from)
{
    size_t n = fs->n - from;
    if (n < 2) return VRAMEST_OK;
    const vx_raw_tensor **v = malloc(n * sizeof *v);
    if (!v) return vx_fail(VRAMEST_E_NOMEM, "file reader: out of memory");
    for (size_t i = 0; i < n; i++) v[i] = &fs->t[from + i];
    qsort(v, n, sizeof *v, raw_name_cmp);
    int rc = VRAMEST_OK;
    for (size_t i = 1; i < n; i++)
        if (strcmp(v[i - 1]->name, v[i]->name) == 0) {
            rc = vx_fail(VRAMEST_E_PARSE, "%s: duplicate tensor name '%s' at bytes %llu and %llu",
                         vx_fileset_label(fs, v[i]->shard), v[i]->name, (unsigned long long)v[i - 1]->at,
                         (unsigned long long)v[i]->at);
            break;
        }
    free(v);
    return rc;
}
