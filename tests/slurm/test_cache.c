/* The model cache (bindings/slurm/vs_cache.c): bounded, least recently used
 * out first, handed-out models outlive eviction, failures cached, and many
 * threads at once (run under ThreadSanitizer-free valgrind and ASan in CI). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "vs_cache.h"

static int loads;

static int load_preset(void *ctx, vramest_model **out, char *err, size_t cap)
{
    __atomic_fetch_add(&loads, 1, __ATOMIC_RELAXED);
    if (vramest_model_new_preset((const char *)ctx, out)) return snprintf(err, cap, "no preset"), -1;
    return 0;
}

static const vramest_model *get(vs_cache *c, const char *name, vs_cache_ref **ref)
{
    const vramest_model *m = NULL;
    char err[256];
    int rc = vs_cache_get(c, name, strlen(name), load_preset, (void *)name, &m, ref, err, sizeof err);
    return rc ? NULL : m;
}

Test(cache, hit_miss_and_lru)
{
    vs_cache *c = vs_cache_new(2);
    vs_cache_ref *r1, *r2, *r3;
    loads = 0;
    const vramest_model *a = get(c, "llama-2-7b", &r1);
    cr_assert_not_null(a);
    vs_cache_release(c, r1);
    cr_assert_eq(get(c, "llama-2-7b", &r1), a);
    vs_cache_release(c, r1);
    cr_assert_eq(loads, 1);
    cr_assert_not_null(get(c, "qwen3-8b", &r2));
    vs_cache_release(c, r2);
    cr_assert_not_null(get(c, "llama-2-7b", &r1)); /* llama is now the most recent */
    vs_cache_release(c, r1);
    cr_assert_not_null(get(c, "gpt2", &r3)); /* evicts qwen3 */
    vs_cache_release(c, r3);
    size_t n;
    unsigned long hits, misses;
    vs_cache_stats(c, &n, &hits, &misses);
    cr_assert_eq(n, 2);
    cr_assert_eq(misses, 3);
    cr_assert_not_null(get(c, "llama-2-7b", &r1));
    vs_cache_release(c, r1);
    cr_assert_eq(loads, 3, "llama stayed");
    cr_assert_not_null(get(c, "qwen3-8b", &r2));
    vs_cache_release(c, r2);
    cr_assert_eq(loads, 4, "qwen3 was evicted");
    vs_cache_free(c);
}

Test(cache, models_outlive_eviction)
{
    vs_cache *c = vs_cache_new(1);
    vs_cache_ref *r1, *r2;
    const vramest_model *a = get(c, "llama-2-7b", &r1);
    cr_assert_not_null(get(c, "gpt2", &r2)); /* evicts llama while r1 holds it */
    uint64_t total = 0;
    cr_assert_eq(vramest_model_param_count(a, &total, NULL), VRAMEST_OK);
    cr_assert_gt(total, 6000000000ull);
    vs_cache_release(c, r1); /* frees it now */
    vs_cache_release(c, r2);
    vs_cache_free(c);
}

Test(cache, failures_are_cached)
{
    vs_cache *c = vs_cache_new(4);
    vs_cache_ref *r;
    char err[256];
    const vramest_model *m;
    loads = 0;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(vs_cache_get(c, "nope", 4, load_preset, "nope", &m, &r, err, sizeof err), -1);
        cr_assert_str_eq(err, "no preset");
        cr_assert_null(r);
    }
    cr_assert_eq(loads, 1);
    vs_cache_free(c);
}

static void *worker(void *arg)
{
    vs_cache *c = arg;
    static const char *const names[] = {"llama-2-7b", "qwen3-8b", "gpt2", "mistral-7b", "phi-2"};
    for (int i = 0; i < 400; i++) {
        vs_cache_ref *r;
        const vramest_model *m = get(c, names[i % 5], &r);
        if (!m) return (void *)1;
        uint64_t total = 0;
        if (vramest_model_param_count(m, &total, NULL) || !total) return (void *)1;
        vs_cache_release(c, r);
    }
    return NULL;
}

Test(cache, threads)
{
    vs_cache *c = vs_cache_new(3); /* fewer slots than names: constant eviction */
    pthread_t t[4];
    for (int i = 0; i < 4; i++) cr_assert_eq(pthread_create(&t[i], NULL, worker, c), 0);
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        cr_assert_null(rv);
    }
    vs_cache_free(c);
}
