/* Bounded model cache with reference counts (see vs_cache.h). */
#include "vs_cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vs_util.h"

struct vs_cache_ref {
    uint64_t hash;
    char *key;
    size_t keylen;
    vramest_model *model; /* NULL for a cached failure */
    char *error;
    unsigned refs;
    bool live; /* still in the table; an evicted entry waits for its last release */
    unsigned long last_used;
};

struct vs_cache {
    pthread_mutex_t mu;
    vs_cache_ref **slot;
    size_t capacity, n;
    unsigned long tick, hits, misses;
};

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static void entry_free(vs_cache_ref *e)
{
    vramest_model_free(e->model);
    free(e->error);
    free(e->key);
    free(e);
}

vs_cache *vs_cache_new(size_t capacity)
{
    vs_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->capacity = capacity ? capacity : 1;
    c->slot = calloc(c->capacity, sizeof *c->slot);
    if (!c->slot || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c->slot);
        free(c);
        return NULL;
    }
    return c;
}

void vs_cache_free(vs_cache *c)
{
    if (!c) return;
    /* Callers release before freeing (the plugin's fini runs after every job). */
    for (size_t i = 0; i < c->n; i++) entry_free(c->slot[i]);
    pthread_mutex_destroy(&c->mu);
    free(c->slot);
    free(c);
}

static vs_cache_ref *find(vs_cache *c, uint64_t h, const void *key, size_t keylen)
{
    for (size_t i = 0; i < c->n; i++) {
        vs_cache_ref *e = c->slot[i];
        if (e->hash == h && e->keylen == keylen && !memcmp(e->key, key, keylen)) return e;
    }
    return NULL;
}

/* Hand out e (locked): a model gains a reference; a failure copies its message. */
static int hand_out(vs_cache *c, vs_cache_ref *e, const vramest_model **model, vs_cache_ref **ref, char *err,
                    size_t cap)
{
    e->last_used = ++c->tick;
    if (!e->model) return vs_fail(err, cap, "%s", e->error ? e->error : "the model could not be read");
    e->refs++;
    *model = e->model;
    *ref = e;
    return 0;
}

static void evict_one(vs_cache *c)
{
    size_t victim = 0;
    for (size_t i = 1; i < c->n; i++)
        if (c->slot[i]->last_used < c->slot[victim]->last_used) victim = i;
    vs_cache_ref *e = c->slot[victim];
    c->slot[victim] = c->slot[--c->n];
    e->live = false;
    if (!e->refs) entry_free(e);
}

int vs_cache_get(vs_cache *c, const void *key, size_t keylen, vs_model_loader load, void *ctx,
                 const vramest_model **model, vs_cache_ref **ref, char *err, size_t cap)
{
    *model = NULL;
    *ref = NULL;
    uint64_t h = fnv1a(key, keylen);
    pthread_mutex_lock(&c->mu);
    vs_cache_ref *e = find(c, h, key, keylen);
    if (e) {
        c->hits++;
        int rc = hand_out(c, e, model, ref, err, cap);
        pthread_mutex_unlock(&c->mu);
        return rc;
    }
    c->misses++;
    pthread_mutex_unlock(&c->mu);

    /* Parse outside the lock: a slow file must not stall other jobs' hits. */
    vs_cache_ref *fresh = calloc(1, sizeof *fresh);
    char why[VS_MSG_CAP] = "";
    if (!fresh || !(fresh->key = malloc(keylen ? keylen : 1))) {
        free(fresh);
        return vs_fail(err, cap, "out of memory");
    }
    memcpy(fresh->key, key, keylen);
    fresh->keylen = keylen, fresh->hash = h, fresh->live = true;
    if (load(ctx, &fresh->model, why, sizeof why)) {
        vramest_model_free(fresh->model);
        fresh->model = NULL;
        fresh->error = strdup(why[0] ? why : "the model could not be read");
    }

    pthread_mutex_lock(&c->mu);
    e = find(c, h, key, keylen);
    if (e) {
        /* Another thread loaded it meanwhile: use that one. */
        entry_free(fresh);
    } else {
        if (c->n == c->capacity) evict_one(c);
        c->slot[c->n++] = e = fresh;
    }
    int rc = hand_out(c, e, model, ref, err, cap);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void vs_cache_release(vs_cache *c, vs_cache_ref *ref)
{
    if (!ref) return;
    pthread_mutex_lock(&c->mu);
    if (--ref->refs == 0 && !ref->live) entry_free(ref);
    pthread_mutex_unlock(&c->mu);
}

void vs_cache_stats(vs_cache *c, size_t *entries, unsigned long *hits, unsigned long *misses)
{
    pthread_mutex_lock(&c->mu);
    if (entries) *entries = c->n;
    if (hits) *hits = c->hits;
    if (misses) *misses = c->misses;
    pthread_mutex_unlock(&c->mu);
}
