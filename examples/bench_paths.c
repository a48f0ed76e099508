/* Rows of `bench` for the paths most callers take (issue #21):
 *
 *   GGUF header        vramest_model_parse_file of a Llama-2-7B (32k
 *                      vocabulary) and a Llama-3.1-8B (128k) Q4_K_M header
 *                      (bench_gguf.c writes them; set VRAMEST_BENCH_GGUF_DIR
 *                      to write them there and keep them, e.g. to time
 *                      another GGUF reader on the same files)
 *   pp 1 / 256 / 4096  a training estimate of a 4096-layer Llama-2-7B over
 *                      that many pipeline stages; then with
 *                      grad_accum_steps 4096, where every stage holds a
 *                      different number of micro-batches
 *   first N estimates  a new model and its first N training estimates
 *                      (N = 1..5, and 120: past the compile on the 100th) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_gguf.h"

static int do_gguf(bench_ctx *b)
{
    vramest_model *m = NULL;
    int rc = vramest_model_new(&m);
    if (!rc) rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, (const char *)b->extra);
    vramest_model_free(m);
    return rc;
}

static int do_first_n(bench_ctx *b)
{
    vramest_model *m = NULL;
    int rc = vramest_model_new_preset("llama-2-7b", &m);
    for (int i = 0; !rc && i < *(const int *)b->extra; i++) {
        vramest_result *r = NULL;
        rc = vramest_estimate(m, b->prec, b->cfg, &r);
        vramest_result_free(r);
    }
    vramest_model_free(m);
    return rc;
}

static int gguf_rows(void)
{
    static const struct {
        int which;
        const char *file, *label;
    } files[] = {
        {VB_GGUF_32K, "llama-2-7b.Q4_K_M.gguf", "GGUF header 32k vocab (file)"},
        {VB_GGUF_128K, "llama-3.1-8b.Q4_K_M.gguf", "GGUF header 128k vocab (file)"},
    };
    const char *keep = getenv("VRAMEST_BENCH_GGUF_DIR");
    char dir[512];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/vramest-bench-XXXXXX", tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("bench: mkdtemp");
            return 1;
        }
    }
    int failed = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].file);
        long header = vb_gguf_write(path, files[i].which);
        if (header < 0) {
            perror(path);
            failed = 1;
            continue;
        }
        bench_ctx b = {.extra = path};
        char label[80];
        snprintf(label, sizeof label, "%s %.1f MB", files[i].label, (double)header / 1e6);
        failed |= bench(label, do_gguf, &b);
        if (!keep) unlink(path);
    }
    if (!keep) rmdir(dir);
    return failed;
}

static int config_train(vramest_config **c, int64_t batch, int64_t seq)
{
    int rc = vramest_config_new(c);
    if (!rc) rc = vramest_config_set_str(*c, VRAMEST_CFG_MODE, "train");
    if (!rc) rc = vramest_config_set_i64(*c, VRAMEST_CFG_BATCH_SIZE, batch);
    if (!rc) rc = vramest_config_set_i64(*c, VRAMEST_CFG_SEQ_LEN, seq);
    return rc;
}

static int pipeline_rows(vramest_precision *p)
{
    bench_ctx b = {.prec = p};
    int rc = vramest_model_new_preset("llama-2-7b", &b.model);
    if (!rc) rc = vramest_model_set_i64(b.model, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 4096);
    int failed = rc != 0;
    static const int64_t pps[][2] = {{1, 1}, {256, 1}, {4096, 1}, {4096, 4096}};
    for (size_t i = 0; !rc && i < sizeof pps / sizeof pps[0]; i++) {
        rc = config_train(&b.cfg, 1, 2048);
        if (!rc) rc = vramest_config_set_i64(b.cfg, VRAMEST_CFG_GPUS, pps[i][0]);
        if (!rc) rc = vramest_config_set_i64(b.cfg, VRAMEST_CFG_PP, pps[i][0]);
        if (!rc) rc = vramest_config_set_i64(b.cfg, VRAMEST_CFG_GRAD_ACCUM_STEPS, pps[i][1]);
        char label[80];
        snprintf(label, sizeof label, "estimate 4096 layers pp %lld%s", (long long)pps[i][0],
                 pps[i][1] > 1 ? " grad_accum 4096" : "");
        failed |= rc ? 1 : bench(label, do_estimate, &b);
        vramest_config_free(b.cfg);
        b.cfg = NULL;
    }
    vramest_model_free(b.model);
    return failed;
}

static int first_estimate_rows(vramest_precision *p)
{
    bench_ctx b = {.prec = p};
    int failed = config_train(&b.cfg, 4, 2048);
    static const int firsts[] = {1, 2, 3, 4, 5, 120};
    for (size_t i = 0; !failed && i < sizeof firsts / sizeof firsts[0]; i++) {
        char label[80];
        snprintf(label, sizeof label, "new llama-2-7b + first %d train estimates", firsts[i]);
        b.extra = &firsts[i];
        failed |= bench(label, do_first_n, &b);
    }
    vramest_config_free(b.cfg);
    return failed;
}

int bench_paths(void)
{
    vramest_precision *p = NULL;
    if (vramest_precision_new_preset("bf16", &p)) {
        fprintf(stderr, "bench: bf16: %s\n", vramest_last_error_message());
        return 1;
    }
    int failed = gguf_rows();
    failed |= pipeline_rows(p);
    failed |= first_estimate_rows(p);
    vramest_precision_free(p);
    return failed;
}
