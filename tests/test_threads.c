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
    uint64_t cats[11];
    uint64_t peak;
    int64_t max_batch;
    int fits;
    int rc;
    int mismatches;
    int index;
    char seen_error[128];
} job;

static int one_round(job *j, uint64_t cats[11], uint64_t *peak, int64_t *max_batch, int *fits)
{
    vramest_result *r = NULL;
    int rc = vramest_estimate(j->m, j->p, j->c, &r);
    if (rc) return rc;
    size_t n = 0;
    rc = vramest_result_get_all(r, VRAMEST_DEV_GPU, cats, 11, &n);
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
        uint64_t cats[11], peak;
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
