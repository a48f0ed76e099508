/* The model cache handle (vramest_cache_*, vramest_spec_plan_cached,
 * vramest_spec_estimate_cached): the same plans and errors as the uncached
 * calls, byte for byte; what counts as the same model; its bound and
 * least-recently-used eviction; files changed under it; bad arguments.
 * (Concurrent use is in test_threads.c, which CI also runs under TSan.)
 * Black-box: links the shared library through its export list. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <vramest/vramest.h>

#include "helpers.h"

static vramest_cache *new_cache(uint32_t n)
{
    vramest_cache *c = NULL;
    cr_assert_eq(vramest_cache_new(n, &c), VRAMEST_OK, "%s", vramest_last_error_message());
    return c;
}

/* A plan (or "error <rc>: <message>") into a malloc'd string: one call,
 * so that each plan is one cache lookup. */
static char *plan_of(vramest_cache *c, const char *spec)
{
    size_t cap = 1 << 17, need = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    int rc = c ? vramest_spec_plan_cached(c, spec, strlen(spec), out, cap, &need)
               : vramest_spec_plan(spec, strlen(spec), out, cap, &need);
    if (rc == VRAMEST_OK) return out;
    cr_assert_neq(rc, VRAMEST_E_BUFFER_TOO_SMALL, "a plan of %zu bytes", need);
    snprintf(out, cap, "error %d: %s", rc, vramest_last_error_message());
    return out;
}

static void stats(vramest_cache *c, uint64_t *hits, uint64_t *misses, uint64_t *models)
{
    cr_assert_eq(vramest_cache_stats(c, hits, misses, models), VRAMEST_OK);
}

#define CFG_LLAMA                                                                                                  \
    "{\"model_type\": \"llama\", \"hidden_size\": 512, \"num_hidden_layers\": 4, \"num_attention_heads\": 8, " \
    "\"intermediate_size\": 1024, \"vocab_size\": 1000, \"max_position_embeddings\": 2048}"

static const char *const specs[] = {
    "{\"model\": \"llama-2-7b\"}",
    "{\"model\": \"llama-2-7b\", \"precision\": \"bf16\", \"workload\": {\"mode\": \"train\", \"batch_size\": 2}, "
    "\"device\": \"A100-80GB\"}",
    "{\"model\": \"llama-2-7b\", \"workload\": {\"mode\": \"infer\", \"prompt_len\": 1024}, \"device\": \"H100-80GB\"}",
    "{\"model\": \"gpt2\", \"workload\": {\"mode\": \"train\", \"finetune\": \"lora\"}, \"solve\": {\"max\": "
    "\"batch_size\"}, \"device\": \"RTX4090-24GB\"}",
    "{\"model\": \"mixtral-8x7b\", \"parallel\": {\"gpus\": 8, \"zero_stage\": 3}, \"workload\": {\"mode\": "
    "\"train\"}, \"device\": \"A100-80GB\", \"solve\": {\"advice\": true}}",
    "{\"model\": {\"hf_config\": " CFG_LLAMA "}, \"workload\": {\"mode\": \"train\"}}",
    "{\"model\": {\"arch\": {\"model_type\": \"gpt2\", \"n_embd\": 256, \"n_layer\": 2, \"n_head\": 4, "
    "\"vocab_size\": 500, \"n_positions\": 512}}, \"workload\": {\"mode\": \"train\", \"seq_len\": 256}}",
    /* errors: in the settings, in the model, in the JSON */
    "{\"model\": \"llama-2-7b\", \"workload\": {\"batch_size\": 0}}",
    "{\"model\": \"llama-2-7c\"}",
    "{\"model\": {\"arch\": {\"model_type\": \"llama\"}}}",
    "{\"model\": \"llama-2-7b\",}",
    "{\"model\": {\"path\": \"/nonexistent/vramest\"}}",
    "{\"model\": \"llama-2-7c\", \"workload\": {\"mode\": \"trian\"}}",
};

Test(cache, plans_and_errors_are_those_of_the_uncached_call)
{
    vramest_cache *c = new_cache(16);
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            char *want = plan_of(NULL, specs[i]), *got = plan_of(c, specs[i]);
            cr_expect_str_eq(got, want, "round %d, %s", round, specs[i]);
            free(want), free(got);
        }
    uint64_t hits, misses, models;
    stats(c, &hits, &misses, &models);
    /* 7 good specs on 5 models (specs 1-2 reuse spec 0's llama-2-7b), three
     * rounds. Two failing models are looked up (and missed) every round and
     * never kept; the other errors come before the lookup, and a path that
     * cannot be stat()ed is not cacheable. */
    cr_expect_eq(models, 5, "models %llu", (unsigned long long)models);
    cr_expect_eq(misses, 5 + 2 * 3, "misses %llu", (unsigned long long)misses);
    cr_expect_eq(hits, 2 + 2 * 7, "hits %llu", (unsigned long long)hits);
    vramest_cache_free(c);
}

Test(cache, estimate_cached_is_the_estimate)
{
    vramest_cache *c = new_cache(4);
    const char *spec = specs[1];
    vramest_model *m;
    vramest_precision *p;
    vramest_config *cfg;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &cfg), VRAMEST_OK);
    vramest_result *want = NULL;
    cr_assert_eq(vramest_estimate(m, p, cfg, &want), VRAMEST_OK);
    for (int i = 0; i < 3; i++) {
        vramest_result *got = NULL;
        cr_assert_eq(vramest_spec_estimate_cached(c, spec, strlen(spec), &got), VRAMEST_OK, "%s",
                     vramest_last_error_message());
        uint64_t a, b;
        for (int v = 0; v < 4; v++) {
            cr_assert_eq(vramest_result_value(got, v, &a), VRAMEST_OK);
            cr_assert_eq(vramest_result_value(want, v, &b), VRAMEST_OK);
            cr_expect_eq(a, b, "value %d", v);
        }
        vramest_result_free(got);
    }
    vramest_result *r = (vramest_result *)1;
    cr_expect_eq(vramest_spec_estimate_cached(c, specs[3], strlen(specs[3]), &r), VRAMEST_E_UNSUPPORTED);
    cr_expect_null(r);
    vramest_result_free(want);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(cfg);
    vramest_cache_free(c);
}

/* The key is the decoded value: layout and escapes do not matter, the
 * values and their order do. */
Test(cache, what_counts_as_the_same_model)
{
    vramest_cache *c = new_cache(8);
    static const struct {
        const char *spec;
        int hit;
    } seq[] = {
        {"{\"model\": {\"hf_config\": " CFG_LLAMA "}}", 0},
        {"{\"model\":{\"hf_config\":{\"model_type\":\"llama\",\"hidden_size\":512,\"num_hidden_layers\":4,"
         "\"num_attention_heads\":8,\"intermediate_size\":1024,\"vocab_size\":1000,\"max_position_embeddings\":2048}},"
         "\"workload\": {\"mode\": \"train\"}}",
         1},
        {"{\"model\": {\"hf_config\": {\"model_type\": \"\\u006clama\", \"hidden_size\": 512, \"num_hidden_layers\": "
         "4, \"num_attention_heads\": 8, \"intermediate_size\": 1024, \"vocab_size\": 1000, "
         "\"max_position_embeddings\": 2048}}}",
         1},
        /* another value */
        {"{\"model\": {\"hf_config\": {\"model_type\": \"llama\", \"hidden_size\": 1024, \"num_hidden_layers\": 4, "
         "\"num_attention_heads\": 8, \"intermediate_size\": 1024, \"vocab_size\": 1000, "
         "\"max_position_embeddings\": 2048}}}",
         0},
        /* the same model given as arch: another description */
        {"{\"model\": {\"arch\": {\"model_type\": \"llama\", \"hidden_size\": 512, \"num_hidden_layers\": 4, "
         "\"num_attention_heads\": 8, \"intermediate_size\": 1024, \"vocab_size\": 1000, "
         "\"max_position_embeddings\": 2048}}}",
         0},
        {"{\"model\": \"gpt2\"}", 0},
        {"{\"workload\": {\"mode\": \"infer\"}, \"model\": \"gpt2\"}", 1},
        {"{\"model\": \"GPT2\"}", 0}, /* presets match case-insensitively, keys do not */
    };
    uint64_t hits = 0, before = 0;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        char *p = plan_of(c, seq[i].spec);
        cr_assert(strncmp(p, "error", 5) != 0, "%s: %s", seq[i].spec, p);
        free(p);
        stats(c, &hits, NULL, NULL);
        cr_expect_eq(hits - before, (uint64_t)seq[i].hit, "%s", seq[i].spec);
        before = hits;
    }
    vramest_cache_free(c);
}

Test(cache, bounded_least_recently_used_first)
{
    vramest_cache *c = new_cache(2);
    const char *a = "{\"model\": \"gpt2\"}", *b = "{\"model\": \"opt-350m\"}", *d = "{\"model\": \"bloom-560m\"}";
    const char *order[] = {a, b, a, d, a, b};
    const int hit[] = {0, 0, 1, 0, 1, 0}; /* d evicts b (a was used since), b then evicts d */
    uint64_t hits = 0, before = 0, models = 0;
    for (size_t i = 0; i < 6; i++) {
        free(plan_of(c, order[i]));
        stats(c, &hits, NULL, &models);
        cr_expect_eq(hits - before, (uint64_t)hit[i], "step %zu", i);
        cr_expect_leq(models, 2);
        before = hits;
    }
    cr_assert_eq(vramest_cache_clear(c), VRAMEST_OK);
    stats(c, NULL, NULL, &models);
    cr_expect_eq(models, 0);
    free(plan_of(c, a));
    stats(c, &hits, NULL, &models);
    cr_expect_eq(hits, before, "cleared: a miss");
    cr_expect_eq(models, 1);
    vramest_cache_free(c);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* Sets a file's modification time `ago` seconds back (0: now), as an old
 * file has it: the cache keeps no model whose files changed in the last 2 s. */
static void age(const char *path, int ago)
{
    struct timespec now, t[2];
    clock_gettime(CLOCK_REALTIME, &now);
    t[0].tv_sec = 0, t[0].tv_nsec = UTIME_OMIT;
    t[1] = now;
    t[1].tv_sec -= ago;
    cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0, "%s", path);
}

#define CFG_256                                                                                                    \
    "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_hidden_layers\": 4, \"num_attention_heads\": 8, " \
    "\"intermediate_size\": 1024, \"vocab_size\": 1000, \"max_position_embeddings\": 2048}"

/* A file replaced or edited under the cache gives another model. */
Test(cache, files_changed_under_the_cache)
{
    char dir[] = "/tmp/vramest-cache-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cfg[128], spec_file[256], spec_dir[256];
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    snprintf(spec_file, sizeof spec_file, "{\"model\": {\"hf_config_file\": \"%s\"}}", cfg);
    snprintf(spec_dir, sizeof spec_dir, "{\"model\": {\"path\": \"%s\"}}", dir);
    write_file(cfg, CFG_LLAMA);
    age(cfg, 10), age(dir, 10);
    vramest_cache *c = new_cache(8);
    char *first = plan_of(c, spec_file), *again = plan_of(c, spec_file);
    cr_assert_str_eq(first, again);
    uint64_t hits, misses;
    stats(c, &hits, &misses, NULL);
    cr_expect_eq(hits, 1);
    cr_expect_eq(misses, 1);
    /* Same size, other content, written just now: not kept while its time
     * could still stay the same, and never the old model. */
    write_file(cfg, CFG_256);
    char *changed = plan_of(c, spec_file), *uncached = plan_of(NULL, spec_file);
    cr_expect_str_eq(changed, uncached);
    cr_expect_str_neq(changed, first);
    stats(c, &hits, &misses, NULL);
    cr_expect_eq(hits, 1, "a file changed just now is not looked up");
    cr_expect_eq(misses, 1);
    /* Once it is old, its model is kept under its new time. */
    age(cfg, 5);
    char *settled = plan_of(c, spec_file);
    cr_expect_str_eq(settled, uncached);
    stats(c, &hits, &misses, NULL);
    cr_expect_eq(misses, 2, "an edited file is a miss");
    /* A directory: a file added to it gives another model. */
    age(dir, 10);
    char *d1 = plan_of(c, spec_dir), *d2 = plan_of(c, spec_dir);
    cr_expect_str_eq(d1, d2);
    stats(c, &hits, &misses, NULL);
    uint64_t h0 = hits, m0 = misses;
    cr_expect_eq(m0, 3);
    char extra[160];
    snprintf(extra, sizeof extra, "%s/README.md", dir);
    write_file(extra, "hello");
    age(extra, 10), age(dir, 10);
    free(plan_of(c, spec_dir));
    stats(c, &hits, &misses, NULL);
    cr_expect_eq(misses, m0 + 1, "a new file in the directory is a miss");
    cr_expect_eq(hits, h0);
    /* A file that disappears is an error, as uncached. */
    unlink(extra);
    unlink(cfg);
    char *gone = plan_of(c, spec_file), *gone_u = plan_of(NULL, spec_file);
    cr_expect_str_eq(gone, gone_u);
    cr_expect(strncmp(gone, "error", 5) == 0);
    rmdir(dir);
    free(first), free(again), free(changed), free(uncached), free(settled), free(d1), free(d2), free(gone),
        free(gone_u);
    vramest_cache_free(c);
}

/* The race a time-only key would lose: a file rewritten with as many bytes
 * within one tick of its file system's clock keeps its time and inode. */
Test(cache, a_file_rewritten_within_one_tick_is_never_stale)
{
    char dir[] = "/tmp/vramest-cache-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cfg[128], spec[256];
    snprintf(cfg, sizeof cfg, "%s/config.json", dir);
    snprintf(spec, sizeof spec, "{\"model\": {\"hf_config_file\": \"%s\"}}", cfg);
    vramest_cache *c = new_cache(8);
    struct timespec first = {0, 0};
    for (int round = 0; round < 20; round++) {
        write_file(cfg, round % 2 ? CFG_256 : CFG_LLAMA);
        struct stat st;
        cr_assert_eq(stat(cfg, &st), 0);
        /* Every rewrite keeps the first one's time, as within one tick. */
        if (round == 0) first = st.st_mtim;
        struct timespec t[2] = {{0, UTIME_OMIT}, first};
        cr_assert_eq(utimensat(AT_FDCWD, cfg, t, 0), 0);
        char *got = plan_of(c, spec), *want = plan_of(NULL, spec);
        cr_expect_str_eq(got, want, "round %d", round);
        free(got), free(want);
    }
    uint64_t hits;
    stats(c, &hits, NULL, NULL);
    cr_expect_eq(hits, 0);
    unlink(cfg);
    rmdir(dir);
    vramest_cache_free(c);
}

Test(cache, bad_arguments)
{
    vramest_cache *c = (vramest_cache *)1;
    cr_expect_eq(vramest_cache_new(0, &c), VRAMEST_E_RANGE);
    cr_expect_null(c);
    cr_expect_eq(vramest_cache_new(65537, &c), VRAMEST_E_RANGE);
    cr_expect_eq(vramest_cache_new(1, NULL), VRAMEST_E_INVALID_ARG);
    vramest_cache_free(NULL);
    size_t need;
    char buf[16];
    cr_expect_eq(vramest_spec_plan_cached(NULL, "{}", 2, buf, sizeof buf, &need), VRAMEST_E_INVALID_ARG);
    cr_expect(strstr(vramest_last_error_message(), "cache is NULL"));
    cr_expect_eq(vramest_cache_stats(NULL, NULL, NULL, NULL), VRAMEST_E_INVALID_ARG);
    cr_expect_eq(vramest_cache_clear(NULL), VRAMEST_E_INVALID_ARG);
    /* Another kind of handle passed as a cache. */
    vramest_config *cfg;
    cr_assert_eq(vramest_config_new(&cfg), VRAMEST_OK);
    cr_expect_eq(vramest_cache_clear((vramest_cache *)(void *)cfg), VRAMEST_E_INVALID_ARG);
    vramest_config_free(cfg);
    c = new_cache(1);
    cr_expect_eq(vramest_spec_plan_cached(c, NULL, 4, buf, sizeof buf, &need), VRAMEST_E_INVALID_ARG);
    cr_expect_eq(vramest_spec_plan_cached(c, "{}", 2, NULL, 4, &need), VRAMEST_E_INVALID_ARG);
    cr_expect_eq(vramest_spec_estimate_cached(c, "{}", 2, NULL), VRAMEST_E_INVALID_ARG);
    vramest_cache_free(c);
}
