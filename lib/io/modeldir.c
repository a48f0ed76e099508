/* The files of a model on disk: one safetensors file, a GGUF file (read in
 * growing prefixes), an index and its shards, and a model directory. Every
 * file is opened through fileio.c: regular files only, and, inside a
 * directory or next to an index, links that stay in the model's directory. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/fileio.h"
#include "io/files.h"

/* A safetensors file: the 8 length bytes, then exactly the header. */
int vx_read_st_file(vx_fileset *fs, const char *path, const char *label, const vx_fileroot *root)
{
    vx_file f;
    int rc = vx_file_open(&f, path, root);
    if (rc) return rc;
    uint16_t src;
    if ((rc = vx_fileset_source(fs, label, &src))) goto out;
    if (f.size < 8) {
        rc = vx_fail(VRAMEST_E_PARSE, "%s: %llu bytes is too short for a safetensors file", label,
                     (unsigned long long)f.size);
        goto out;
    }
    uint8_t head[8];
    if ((rc = vx_file_read(&f, 0, head, 8))) goto out;
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
    if ((rc = vx_file_read(&f, 0, buf, needed)) == VRAMEST_OK) rc = vx_safetensors_read(fs, buf, needed, f.size, &needed);
    free(buf);
out:
    vx_file_close(&f);
    return rc;
}

/* A GGUF file, read once through the reader's window. */
int vx_read_gguf_file(vx_fileset *fs, const char *path, const char *label, bool arch, const vx_fileroot *root)
{
    vx_file f;
    int rc = vx_file_open(&f, path, root);
    if (rc) return rc;
    uint16_t src;
    if ((rc = vx_fileset_source(fs, label, &src)) == VRAMEST_OK) {
        if (f.size == 0) rc = vx_fail(VRAMEST_E_PARSE, "%s: empty file", label);
        else rc = vx_gguf_read_file(fs, &f, arch);
    }
    vx_file_close(&f);
    return rc;
}

static int read_index_file(vx_fileset *fs, const char *path, const char *label, const vx_fileroot *root)
{
    char *buf;
    size_t len;
    int rc = vx_file_slurp(path, root, VX_MAX_HEADER_BYTES, &buf, &len);
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
static int read_shards(vx_fileset *fs, const char *dir, const vx_fileroot *root)
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
        char *p = vx_path_join(dir, files[i]);
        if (!p) {
            rc = vx_fail(VRAMEST_E_NOMEM, "out of memory");
            break;
        }
        struct stat st;
        if (stat(p, &st) == 0 && vx_ends_with(files[i], ".safetensors"))
            present++;
        else if (!missing)
            missing = files[i];
        free(p);
    }
    if (!rc && present && missing)
        rc = vx_fail(VRAMEST_E_IO, "shard '%s' named by the index is missing from '%s' (%zu of %zu shards present)",
                     missing, dir, present, u);
    for (size_t i = 0; i < u && !rc && present; i++) {
        char *p = vx_path_join(dir, files[i]);
        if (!p) {
            rc = vx_fail(VRAMEST_E_NOMEM, "out of memory");
            break;
        }
        rc = vx_read_st_file(fs, p, files[i], root);
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
        if (e->d_name[0] == '.' || !vx_ends_with(e->d_name, ext)) continue;
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
    char *p = vx_path_join(dir, name);
    if (!p) return false;
    struct stat st;
    /* lstat: a dangling link or a FIFO is there, and opening it says what is wrong. */
    bool ok = lstat(p, &st) == 0;
    free(p);
    return ok;
}

/* A model directory: config.json, then the tensors (index + shards,
 * model.safetensors, a set of shards, or one GGUF / one split GGUF). */
static int read_dir(struct vramest_model *s, vx_fileset *fs, const char *dir, const vx_fileroot *root)
{
    int rc;
    bool any = false;
    if (exists(dir, "config.json")) {
        char *p = vx_path_join(dir, "config.json"), *buf;
        size_t len;
        if (!p) return vx_fail(VRAMEST_E_NOMEM, "out of memory");
        rc = vx_file_slurp(p, root, VX_MAX_SPEC_BYTES, &buf, &len);
        free(p);
        if (rc) return rc;
        rc = vx_apply_config(s, buf, len);
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
        char *p = vx_path_join(dir, "model.safetensors.index.json");
        rc = p ? read_index_file(fs, p, "model.safetensors.index.json", root) : vx_fail(VRAMEST_E_NOMEM, "out of memory");
        free(p);
        if (!rc) rc = read_shards(fs, dir, root);
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
                char *p = vx_path_join(dir, use.v[i]);
                rc = p ? vx_read_st_file(fs, p, use.v[i], root) : vx_fail(VRAMEST_E_NOMEM, "out of memory");
                free(p);
            }
        } else if (use.n) {
            rc = ambiguous(dir, &use, ".safetensors");
        }
        any = true;
    } else if (gg.n) {
        if (gg.n == 1 || one_sharded_set(&gg, ".gguf")) {
            for (size_t i = 0; i < gg.n && !rc; i++) {
                char *p = vx_path_join(dir, gg.v[i]);
                rc = p ? vx_read_gguf_file(fs, p, gg.v[i], i == 0, root) : vx_fail(VRAMEST_E_NOMEM, "out of memory");
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


int vx_read_model_dir(struct vramest_model *s, vx_fileset *fs, const char *dir, bool links_anywhere)
{
    vx_fileroot root;
    int rc = vx_fileroot_init(&root, dir, links_anywhere);
    if (rc) return rc;
    rc = read_dir(s, fs, dir, &root);
    vx_fileroot_free(&root);
    return rc;
}

int vx_read_index_and_shards(vx_fileset *fs, const char *path, const char *label, bool links_anywhere)
{
    /* The index itself is the caller's; the shards it names must stay in its directory. */
    int rc = read_index_file(fs, path, label, NULL);
    if (rc) return rc;
    char *dir = strdup(path);
    if (!dir) return vx_fail(VRAMEST_E_NOMEM, "out of memory");
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        strcpy(dir, ".");
    vx_fileroot root;
    if ((rc = vx_fileroot_init(&root, dir, links_anywhere)) == VRAMEST_OK) {
        rc = read_shards(fs, dir, &root);
        vx_fileroot_free(&root);
    }
    free(dir);
    return rc;
}
