/* The model cache handle (model_cache.h says what a key is and why). A
 * chained hash table of entries, a least-recently-used list for eviction,
 * and a reference count per entry so that an entry evicted while a call
 * estimates on its model is freed by that call when it is done. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "api/model_cache.h"

#define VX_MAGIC_CACHE 0x43414348u /* "CACH" */
#define MAX_MODELS 65536u
#define MAX_DIR_ENTRIES 4096 /* a directory listed into a key; beyond, its model is not kept */
/* A file modified this recently may be modified again within the same tick
 * of its file system's clock (4 ms on Linux, 1-2 s on FAT, HFS+ and some
 * NFS servers) without its time moving: its model is built, not kept. */
#define RACY_NS 2000000000LL

struct vx_lease {
    vx_lease *next;                /* hash chain */
    vx_lease *lru_prev, *lru_next; /* most recent first; the cache's `lru` is the sentinel */
    uint64_t hash;
    size_t key_len;
    unsigned char *key;
    vramest_model *model;
    uint32_t refs; /* calls using the model now */
    bool live;     /* in the table; false once evicted */
};

struct vramest_cache {
    uint32_t magic;
    uint32_t max, count, mask;
    vx_lease **buckets;
    vx_lease lru;
    uint64_t hits, misses;
    pthread_mutex_t mu;
};

/* ---- keys ---- */

typedef struct keybuf {
    unsigned char *p;
    size_t len, cap;
    bool failed;
    bool racy;        /* a file in the key changed within RACY_NS of `now` */
    int64_t now;      /* CLOCK_REALTIME, ns: the clock of file times */
    unsigned char local[1024];
} keybuf;

static void key_put(keybuf *k, const void *s, size_t n)
{
    if (k->failed) return;
    if (k->cap - k->len < n) {
        size_t ncap = 2 * k->cap + n;
        unsigned char *np = k->p == k->local ? malloc(ncap) : realloc(k->p, ncap);
        if (!np) {
            k->failed = true;
            return;
        }
        if (k->p == k->local) memcpy(np, k->local, k->len);
        k->p = np, k->cap = ncap;
    }
    memcpy(k->p + k->len, s, n);
    k->len += n;
}

/* The decoded value, prefix-free: a type byte, then the string's length and
 * bytes, the number's bits or the container's member count. */
static void key_value(keybuf *k, const vx_jdoc *doc, const vx_jv *v)
{
    for (const vx_jv *e = v, *end = vx_jskip(v); e < end; e++) {
        unsigned char tag[2] = {e->type, e->flags};
        key_put(k, tag, sizeof tag);
        if (e->type == VX_J_STR) {
            key_put(k, &e->u.s.len, sizeof e->u.s.len);
            key_put(k, vx_jstr(doc, e), e->u.s.len);
        } else if (e->type == VX_J_INT || e->type == VX_J_NUM) {
            key_put(k, &e->u.i, sizeof e->u.i);
        } else if (e->type >= VX_J_ARR) {
            key_put(k, &e->u.c.count, sizeof e->u.c.count);
        }
    }
}

static void key_stat(keybuf *k, const struct stat *st)
{
    /* A key only tells files apart if the file's time would move on its
     * next change (git's "racily clean" entries): a time within the window,
     * or in the future, leaves the model uncached. */
    int64_t mtime = (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
    if (mtime > k->now - RACY_NS) k->racy = true;
    const int64_t f[] = {(int64_t)st->st_dev,        (int64_t)st->st_ino,         (int64_t)st->st_mode,
                         (int64_t)st->st_size,       (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec,
                         (int64_t)st->st_ctim.tv_sec, (int64_t)st->st_ctim.tv_nsec};
    key_put(k, f, sizeof f);
}

/* Every entry of a directory (followed links included), in readdir order:
 * false when it cannot be listed or is too large to be worth a key. */
static bool key_dir(keybuf *k, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    int fd = dirfd(d), n = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        ok = ++n <= MAX_DIR_ENTRIES && fstatat(fd, e->d_name, &st, 0) == 0;
        key_put(k, e->d_name, strlen(e->d_name) + 1);
        if (ok) key_stat(k, &st);
    }
    closedir(d);
    return ok;
}

/* A file source's key; false when the file cannot be described (then the
 * model is built uncached, and the build reports what is wrong). */
static bool key_files(keybuf *k, const char *src, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return false;
    key_put(k, src, strlen(src) + 1);
    key_put(k, path, strlen(path) + 1);
    key_stat(k, &st);
    if (S_ISDIR(st.st_mode)) return key_dir(k, path);
    /* An index reads the shards beside it, and a "path" file may be one. */
    vramest_source kind = vx_spec_source_kind(src, path);
    if (kind != VRAMEST_SRC_AUTO && kind != VRAMEST_SRC_SAFETENSORS_INDEX) return true;
    size_t cut = strlen(path);
    while (cut > 0 && path[cut - 1] != '/') cut--;
    char *dir = cut ? strndup(path, cut) : strdup(".");
    bool ok = dir && key_dir(k, dir);
    free(dir);
    return ok;
}

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The key of a spec's "model" member, or false: not to be cached. */
static bool make_key(keybuf *k, const vx_jdoc *doc, const vx_jv *v)
{
    static const char *const file_sources[] = {"path", "hf_config_file", "safetensors", "gguf"};
    if (v->type == VX_J_OBJ && v->u.c.count == 1 && v[2].type == VX_J_STR && !(v[2].flags & VX_JF_NUL)) {
        const char *src = vx_jstr(doc, v + 1);
        for (size_t i = 0; i < VX_ARRAY_LEN(file_sources); i++)
            if (!strcmp(src, file_sources[i])) {
                key_put(k, "F", 1);
                k->now = realtime_ns();
                return key_files(k, src, vx_jstr(doc, v + 2)) && !k->failed && !k->racy;
            }
    }
    key_put(k, "V", 1);
    key_value(k, doc, v);
    return !k->failed;
}


static uint64_t key_hash(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    for (; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    h ^= h >> 29;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 32);
}

/* ---- the table (callers hold the mutex) ---- */

static void lru_unlink(vx_lease *e)
{
    e->lru_prev->lru_next = e->lru_next;
    e->lru_next->lru_prev = e->lru_prev;
}

static void lru_front(vramest_cache *c, vx_lease *e)
{
    e->lru_prev = &c->lru;
    e->lru_next = c->lru.lru_next;
    c->lru.lru_next->lru_prev = e;
    c->lru.lru_next = e;
}

static void entry_free(vx_lease *e)
{
    vramest_model_free(e->model);
    free(e->key);
    free(e);
}

/* Out of the table; freed now, or by the last call still using it. */
static void evict(vramest_cache *c, vx_lease *e)
{
    vx_lease **pp = &c->buckets[e->hash & c->mask];
    while (*pp != e) pp = &(*pp)->next;
    *pp = e->next;
    lru_unlink(e);
    e->live = false;
    c->count--;
    if (!e->refs) entry_free(e);
}

static vx_lease *find(vramest_cache *c, uint64_t hash, const unsigned char *key, size_t len)
{
    for (vx_lease *e = c->buckets[hash & c->mask]; e; e = e->next)
        if (e->hash == hash && e->key_len == len && memcmp(e->key, key, len) == 0) return e;
    return NULL;
}

/* ---- public ---- */

int vx_cache_check(const vramest_cache *cache, const char *fn)
{
    if (!cache) return vx_fail(VRAMEST_E_INVALID_ARG, "%s: cache is NULL", fn);
    if (cache->magic != VX_MAGIC_CACHE)
        return vx_fail(VRAMEST_E_INVALID_ARG, "%s: not a cache handle (freed, or another kind of handle)", fn);
    return VRAMEST_OK;
}

int vx_cache_get(vramest_cache *c, const vx_jdoc *doc, const vx_jv *v, const vramest_model **out, vx_lease **lease)
{
    keybuf k;
    k.p = k.local, k.len = 0, k.cap = sizeof k.local, k.failed = false, k.racy = false, k.now = 0;
    *lease = NULL;
    bool keyed = make_key(&k, doc, v);
    uint64_t hash = keyed ? key_hash(k.p, k.len) : 0;
    vx_lease *e = NULL;
    if (keyed) {
        pthread_mutex_lock(&c->mu);
        if ((e = find(c, hash, k.p, k.len)) != NULL) {
            e->refs++;
            c->hits++;
            lru_unlink(e);
            lru_front(c, e);
        } else {
            c->misses++;
        }
        pthread_mutex_unlock(&c->mu);
    }
    int rc = VRAMEST_OK;
    if (!e) {
        /* Built outside the lock: a parse may read files and take a while. */
        vramest_model *m = NULL;
        if ((rc = vx_spec_model(doc, v, &m))) goto out;
        e = calloc(1, sizeof *e);
        if (e && keyed && (e->key = malloc(k.len)) != NULL) memcpy(e->key, k.p, k.len);
        if (!e || (keyed && !e->key)) {
            free(e);
            vramest_model_free(m);
            rc = vx_fail(VRAMEST_E_NOMEM, "model cache: out of memory");
            goto out;
        }
        e->model = m, e->hash = hash, e->key_len = keyed ? k.len : 0, e->refs = 1;
        if (keyed) {
            pthread_mutex_lock(&c->mu);
            vx_lease *other = find(c, hash, k.p, k.len);
            if (other) { /* another thread built it meanwhile: use one */
                other->refs++;
                entry_free(e);
                e = other;
            } else {
                if (c->count == c->max) evict(c, c->lru.lru_prev);
                e->next = c->buckets[hash & c->mask];
                c->buckets[hash & c->mask] = e;
                e->live = true;
                c->count++;
                lru_front(c, e);
            }
            pthread_mutex_unlock(&c->mu);
        }
    }
    *out = e->model;
    *lease = e;
out:
    if (k.p != k.local) free(k.p);
    return rc;
}

void vx_cache_put(vramest_cache *c, vx_lease *e)
{
    if (!e) return;
    pthread_mutex_lock(&c->mu);
    bool dead = --e->refs == 0 && !e->live;
    pthread_mutex_unlock(&c->mu);
    if (dead) entry_free(e);
}

VRAMEST_API int vramest_cache_new(uint32_t max_models, vramest_cache **out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_cache_new: out is NULL");
    *out = NULL;
    if (max_models < 1 || max_models > MAX_MODELS)
        return vx_fail(VRAMEST_E_RANGE, "vramest_cache_new: max_models %u is out of range [1, %u]", max_models,
                       MAX_MODELS);
    vramest_cache *c = calloc(1, sizeof *c);
    uint32_t n = 16;
    while (n < 2 * max_models) n *= 2;
    if (c) c->buckets = calloc(n, sizeof *c->buckets);
    if (!c || !c->buckets || pthread_mutex_init(&c->mu, NULL) != 0) {
        if (c) free(c->buckets);
        free(c);
        return vx_fail(VRAMEST_E_NOMEM, "vramest_cache_new: out of memory");
    }
    c->magic = VX_MAGIC_CACHE;
    c->max = max_models, c->mask = n - 1;
    c->lru.lru_prev = c->lru.lru_next = &c->lru;
    *out = c;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_cache_clear(vramest_cache *cache)
{
    int rc = vx_cache_check(cache, "vramest_cache_clear");
    if (rc) return rc;
    pthread_mutex_lock(&cache->mu);
    while (cache->count) evict(cache, cache->lru.lru_prev);
    pthread_mutex_unlock(&cache->mu);
    return VRAMEST_OK;
}

VRAMEST_API void vramest_cache_free(vramest_cache *cache)
{
    if (vx_cache_check(cache, "vramest_cache_free")) return;
    vramest_cache_clear(cache);
    pthread_mutex_destroy(&cache->mu);
    free(cache->buckets);
    cache->magic = VX_MAGIC_DEAD;
    free(cache);
}

VRAMEST_API int vramest_cache_stats(const vramest_cache *cache, uint64_t *out_hits, uint64_t *out_misses,
                                    uint64_t *out_models)
{
    int rc = vx_cache_check(cache, "vramest_cache_stats");
    if (rc) return rc;
    pthread_mutex_t *mu = (pthread_mutex_t *)(uintptr_t)&cache->mu; /* the counters, not the cache, change */
    pthread_mutex_lock(mu);
    if (out_hits) *out_hits = cache->hits;
    if (out_misses) *out_misses = cache->misses;
    if (out_models) *out_models = cache->count;
    pthread_mutex_unlock(mu);
    return VRAMEST_OK;
}
