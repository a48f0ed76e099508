/* Thread safety: many threads estimating and solving at once on the SAME
 * model, precision and config handles must get exactly what a serial run
 * gets (the handles are only read; the only per-thread state is the error
 * message), while compiling the model's programs and steps under contention.
 * CI also runs this suite under ThreadSanitizer. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <vramest/vramest.h>

#define THREADS 8
#define ROUNDS 200

typedef struct job {
    const vramest_model *m;
    const vramest_precision *p;
    const vramest_config *c;
    uint64_t cats[12];
    uint64_t peak;
    int64_t max_batch;
    int fits;
    int rc;
    int mismatches;
    int index;
    char seen_error[128];
} job;

static int one_round(job *j, uint64_t cats[12], uint64_t *peak, int64_t *max_batch, int *fits)
{
    vramest_result *r = NULL;
    int rc = vramest_estimate(j->m, j->p, j->c, &r);
    if (rc) return rc;
    size_t n = 0;
    rc = vramest_result_get_all(r, VRAMEST_DEV_GPU, cats, 12, &n);
    if (!rc) rc = vramest_result_value(r, VRAMEST_VAL_PEAK_ALLOCATED, peak);
    vramest_result_free(r);
    if (rc) return rc;
    int64_t margin = 0;
    if ((rc = vramest_check_fit(j->m, j->p, j->c, fits, &margin))) return rc;
    return vramest_solve_max(j->m, j->p, j->c, VRAMEST_CFG_BATCH_SIZE, max_batch, NULL);
}

static void *worker(void *arg)
{
    job *j = arg;
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t cats[12], peak;
        int64_t mb;
        int fits;
        j->rc = one_round(j, cats, &peak, &mb, &fits);
        if (j->rc) return NULL;
        if (memcmp(cats, j->cats, sizeof cats) || peak != j->peak || mb != j->max_batch || fits != j->fits)
            j->mismatches++;
    }
    /* Each thread fails differently and must read back its own message. */
    vramest_model *bad = NULL;
    vramest_model_new(&bad);
    vramest_model_set_i64(bad, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, -1000 - j->index);
    strncpy(j->seen_error, vramest_last_error_message(), sizeof j->seen_error - 1);
    vramest_model_free(bad);
    return NULL;
}

Test(threads, concurrent_estimates_match_serial)
{
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_model_new_preset("llama-2-7b", &m), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vramest_precision_new_preset("bf16", &p), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "train"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, 2), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_SEQ_LEN, 1024), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_GRADIENT_CHECKPOINTING, "full"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FINETUNE, "lora"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100-80GB"), VRAMEST_OK);

    /* The serial reference on a model of its own: the threads' model starts
     * with an empty cache, so they compile its programs and steps while
     * racing each other. */
    vramest_model *mref = NULL;
    cr_assert_eq(vramest_model_new_preset("llama-2-7b", &mref), VRAMEST_OK);
    job serial = {.m = mref, .p = p, .c = c};
    cr_assert_eq(one_round(&serial, serial.cats, &serial.peak, &serial.max_batch, &serial.fits), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    serial.m = m;
    cr_assert_gt(serial.peak, 0);
    cr_assert_gt(serial.max_batch, 2);

    job jobs[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = serial;
        jobs[i].mismatches = 0;
        jobs[i].index = i;
        cr_assert_eq(pthread_create(&tid[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        cr_expect_eq(jobs[i].rc, VRAMEST_OK, "thread %d: status %d", i, jobs[i].rc);
        cr_expect_eq(jobs[i].mismatches, 0, "thread %d saw %d results different from the serial run", i,
                     jobs[i].mismatches);
        cr_expect(strstr(jobs[i].seen_error, "num_hidden_layers") != NULL, "thread %d read '%s'", i,
                  jobs[i].seen_error);
    }
    vramest_model_free(m);
    vramest_model_free(mref);
    vramest_precision_free(p);
    vramest_config_free(c);
}

/* A model cache shared by every thread: jobs on a few models through a cache
 * smaller than their number, so models are built, found, evicted while
 * another thread estimates on them, and built again; every plan must be the
 * serial one. */
#define CACHE_SPECS 5
static const char *const cache_specs[CACHE_SPECS] = {
    "{\"model\": \"llama-2-7b\", \"workload\": {\"mode\": \"train\", \"batch_size\": 2, \"seq_len\": 512}}",
    "{\"model\": \"gpt2\", \"workload\": {\"mode\": \"train\", \"finetune\": \"lora\"}, \"device\": \"A10\"}",
    "{\"model\": \"mixtral-8x7b\", \"workload\": {\"mode\": \"infer\"}, \"parallel\": {\"gpus\": 2, \"tp\": 2}}",
    "{\"model\": {\"arch\": {\"model_type\": \"gpt2\", \"n_embd\": 256, \"n_layer\": 2, \"n_head\": 4, "
    "\"vocab_size\": 500, \"n_positions\": 512}}, \"workload\": {\"mode\": \"train\"}}",
    "{\"model\": \"llama-2-7b\", \"workload\": {\"mode\": \"infer\", \"prompt_len\": 1024}}",
};

typedef struct cache_job {
    vramest_cache *cache;
    char *want[CACHE_SPECS];
    int index, rc, mismatches;
} cache_job;

static void *cache_worker(void *arg)
{
    cache_job *j = arg;
    static _Thread_local char buf[1 << 16];
    for (int i = 0; i < ROUNDS; i++) {
        int s = (i * 7 + j->index) % CACHE_SPECS;
        size_t need = 0;
        j->rc = vramest_spec_plan_cached(j->cache, cache_specs[s], strlen(cache_specs[s]), buf, sizeof buf, &need);
        if (j->rc) return NULL;
        if (strcmp(buf, j->want[s]) != 0) j->mismatches++;
    }
    return NULL;
}

Test(threads, shared_model_cache)
{
    cache_job jobs[THREADS];
    pthread_t tid[THREADS];
    static char want[CACHE_SPECS][1 << 16];
    vramest_cache *cache = NULL;
    cr_assert_eq(vramest_cache_new(2, &cache), VRAMEST_OK);
    for (int s = 0; s < CACHE_SPECS; s++) {
        size_t need = 0;
        cr_assert_eq(vramest_spec_plan(cache_specs[s], strlen(cache_specs[s]), want[s], sizeof want[s], &need),
                     VRAMEST_OK, "%s", vramest_last_error_message());
    }
    for (int i = 0; i < THREADS; i++) {
        jobs[i].cache = cache;
        for (int s = 0; s < CACHE_SPECS; s++) jobs[i].want[s] = want[s];
        jobs[i].index = i, jobs[i].rc = 0, jobs[i].mismatches = 0;
        cr_assert_eq(pthread_create(&tid[i], NULL, cache_worker, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    uint64_t hits = 0, misses = 0, models = 0;
    cr_assert_eq(vramest_cache_stats(cache, &hits, &misses, &models), VRAMEST_OK);
    for (int i = 0; i < THREADS; i++) {
        cr_expect_eq(jobs[i].rc, VRAMEST_OK, "thread %d: status %d", i, jobs[i].rc);
        cr_expect_eq(jobs[i].mismatches, 0, "thread %d saw %d plans different from the serial ones", i,
                     jobs[i].mismatches);
    }
    cr_expect_eq(hits + misses, (uint64_t)THREADS * ROUNDS);
    cr_expect_gt(misses, 4, "the small cache evicted");
    cr_expect_eq(models, 2);
    vramest_cache_free(cache);
}
