/* bench: nanoseconds per call of the library's hot paths, for `meson test
 * --benchmark`. It reports, it never asserts on time (machines differ); it
 * fails only when a call fails.
 *
 *   estimate (load)   vramest_estimate on a cached preset model, mode=load
 *   estimate (train)  the same model, a training step with AdamW (full, then LoRA)
 *   config.json       vramest_model_parse of a Llama config.json from memory
 *   spec plan         vramest_spec_plan of a small preset spec (parse + estimate + JSON)
 *   estimate infer    generation with a KV cache
 *   estimate rl       a GRPO step on verl: the training step, the vLLM engine
 *                     and the scoring forward as sub-estimates (issue #23)
 *   estimate 70B      Llama-3.1-70B training, ZeRO-3 on 64 GPUs, checkpointing
 *   solve max batch   vramest_solve_max(batch_size) for LoRA on an A100-80GB
 *   admission         one scheduler job: vramest_spec_parse (cached model) +
 *                     estimate + verdict, as examples/scheduler.c does
 *   spec plan cached  vramest_spec_plan_cached, the model from a warm cache
 *                     (a preset, then an inline config.json)
 *   spec estimate cached  vramest_spec_estimate_cached (no JSON plan)
 *   cold config.json + first train  a new model from config.json, then its
 *                     first training estimate (what a scheduler pays for a
 *                     model it has not seen)
 *   option name       vramest_option_from_name of a name and of an alias
 *   GGUF, pipelines, cold models: see bench_paths.c
 *
 * Each figure is the median of several runs, each run timed with
 * CLOCK_MONOTONIC over enough iterations to take about 20 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramest/vramest.h>

#include "bench.h"

#define RUNS 7
#define RUN_NS 20000000.0

static const char llama_config[] =
    "{\"architectures\": [\"LlamaForCausalLM\"], \"bos_token_id\": 1, \"eos_token_id\": 2, "
    "\"hidden_act\": \"silu\", \"hidden_size\": 4096, \"initializer_range\": 0.02, "
    "\"intermediate_size\": 11008, \"max_position_embeddings\": 4096, \"model_type\": \"llama\", "
    "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 32, "
    "\"pretraining_tp\": 1, \"rms_norm_eps\": 1e-05, \"rope_scaling\": null, \"tie_word_embeddings\": false, "
    "\"torch_dtype\": \"float16\", \"transformers_version\": \"4.31.0.dev0\", \"use_cache\": true, "
    "\"vocab_size\": 32000}";

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int do_estimate(bench_ctx *b)
{
    vramest_result *r = NULL;
    int rc = vramest_estimate(b->model, b->prec, b->cfg, &r);
    vramest_result_free(r);
    return rc;
}

static int do_parse(bench_ctx *b)
{
    (void)b;
    vramest_model *m = NULL;
    int rc = vramest_model_new(&m);
    if (!rc) rc = vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, llama_config, sizeof llama_config - 1, NULL);
    vramest_model_free(m);
    return rc;
}

static int do_solve(bench_ctx *b)
{
    int64_t best = 0;
    return vramest_solve_max(b->model, b->prec, b->cfg, VRAMEST_CFG_BATCH_SIZE, &best, NULL);
}

static int do_admit(bench_ctx *b)
{
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    uint64_t fits = 0;
    int rc = vramest_spec_parse(b->spec, strlen(b->spec), NULL, &p, &c);
    if (!rc) rc = vramest_estimate(b->model, p, c, &r);
    if (!rc) rc = vramest_result_value(r, VRAMEST_VAL_FITS, &fits);
    vramest_result_free(r);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}

static int do_plan(bench_ctx *b)
{
    size_t needed = 0;
    return vramest_spec_plan(b->spec, strlen(b->spec), b->plan, b->plan_cap, &needed);
}

static int do_plan_cached(bench_ctx *b)
{
    size_t needed = 0;
    return vramest_spec_plan_cached(b->cache, b->spec, strlen(b->spec), b->plan, b->plan_cap, &needed);
}

static int do_estimate_cached(bench_ctx *b)
{
    vramest_result *r = NULL;
    int rc = vramest_spec_estimate_cached(b->cache, b->spec, strlen(b->spec), &r);
    vramest_result_free(r);
    return rc;
}

static int do_cold_train(bench_ctx *b)
{
    vramest_model *m = NULL;
    vramest_result *r = NULL;
    int rc = vramest_model_new(&m);
    if (!rc) rc = vramest_model_parse(m, VRAMEST_SRC_HF_CONFIG_JSON, llama_config, sizeof llama_config - 1, NULL);
    if (!rc) rc = vramest_estimate(m, b->prec, b->cfg, &r);
    vramest_result_free(r);
    vramest_model_free(m);
    return rc;
}

static int do_option_names(bench_ctx *b)
{
    (void)b;
    vramest_option k1, k2;
    int rc = vramest_option_from_name("num_key_value_heads", &k1);
    if (!rc) rc = vramest_option_from_name("n_embd", &k2);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench(const char *label, bench_fn fn, bench_ctx *b)
{
    int rc;
    /* A setting this build does not model is reported, not a failure. */
    if ((rc = fn(b)) == VRAMEST_E_UNSUPPORTED) {
        printf("%-46s skipped: %s\n", label, vramest_last_error_message());
        return 0;
    }
    if (rc) goto failed;
    /* Calibrate: grow the iteration count until one run takes long enough
     * to make the clock's resolution irrelevant. */
    long iters = 1;
    for (;;) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            if (fn(b)) goto failed;
        double dt = now_ns() - t0;
        if (dt >= RUN_NS / 4 || iters >= (1L << 30)) {
            double scale = dt > 0 ? RUN_NS / dt : 4;
            iters = (long)((double)iters * scale) + 1;
            break;
        }
        iters *= 4;
    }
    double per[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            if (fn(b)) goto failed;
        per[r] = (now_ns() - t0) / (double)iters;
    }
    qsort(per, RUNS, sizeof per[0], cmp_double);
    printf("%-46s %12.1f ns/call  (median of %d runs x %ld calls; min %.1f, max %.1f)\n", label, per[RUNS / 2], RUNS,
           iters, per[0], per[RUNS - 1]);
    return 0;
failed:
    fprintf(stderr, "bench: %s: %s\n", label, vramest_last_error_message());
    return 1;
}

int main(void)
{
    bench_ctx b = {NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL};
    const char *preset = "llama-2-7b";
    int rc = vramest_model_new_preset(preset, &b.model);
    if (rc && vramest_preset_count() > 0) {
        preset = vramest_preset_name(0);
        rc = vramest_model_new_preset(preset, &b.model);
    }
    if (!rc) rc = vramest_precision_new_preset("bf16", &b.prec);
    if (!rc) rc = vramest_config_new(&b.cfg);
    if (rc) {
        fprintf(stderr, "bench: setup: %s: %s\n", vramest_status_string(rc), vramest_last_error_message());
        return 1;
    }
    printf("libvramest %s, model preset %s\n", vramest_version_string(), preset);
    int failed = 0;
    char label[64];

    snprintf(label, sizeof label, "estimate %s load", preset);
    failed |= bench(label, do_estimate, &b);

    vramest_config_set_str(b.cfg, VRAMEST_CFG_MODE, "train");
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_BATCH_SIZE, 4);
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_SEQ_LEN, 2048);
    snprintf(label, sizeof label, "estimate %s train", preset);
    failed |= bench(label, do_estimate, &b);

    vramest_config_set_str(b.cfg, VRAMEST_CFG_FINETUNE, "lora");
    snprintf(label, sizeof label, "estimate %s train lora", preset);
    failed |= bench(label, do_estimate, &b);
    vramest_config_reset(b.cfg, VRAMEST_CFG_FINETUNE);
    failed |= bench("cold config.json + first train", do_cold_train, &b);

    failed |= bench("parse llama config.json", do_parse, &b);

    char spec[256];
    snprintf(spec, sizeof spec,
             "{\"model\": \"%s\", \"precision\": \"bf16\", \"workload\": {\"mode\": \"load\"}, "
             "\"device\": \"A100-80GB\"}",
             preset);
    b.spec = spec;
    b.plan_cap = 1 << 16;
    b.plan = malloc(b.plan_cap);
    if (b.plan) failed |= bench("spec plan (parse+estimate+json)", do_plan, &b);
    if (b.plan && !vramest_cache_new(64, &b.cache)) {
        failed |= bench("spec plan cached model", do_plan_cached, &b);
        failed |= bench("spec estimate cached model", do_estimate_cached, &b);
        static char inline_spec[2048];
        snprintf(inline_spec, sizeof inline_spec,
                 "{\"model\": {\"hf_config\": %s}, \"precision\": \"bf16\", \"workload\": {\"mode\": \"load\"}, "
                 "\"device\": \"A100-80GB\"}",
                 llama_config);
        b.spec = inline_spec;
        failed |= bench("spec plan (inline config.json)", do_plan, &b);
        failed |= bench("spec plan cached (inline config.json)", do_plan_cached, &b);
        b.spec = spec;
    }
    failed |= bench("option name lookup (x2)", do_option_names, &b);

    vramest_config_free(b.cfg);
    vramest_config_new(&b.cfg);
    vramest_config_set_str(b.cfg, VRAMEST_CFG_MODE, "infer");
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_BATCH_SIZE, 8);
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_PROMPT_LEN, 2048);
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_GEN_LEN, 256);
    snprintf(label, sizeof label, "estimate %s infer", preset);
    failed |= bench(label, do_estimate, &b);

    /* An RL step: verl's colocated GRPO with LoRA (three sub-estimates). */
    vramest_config_free(b.cfg);
    vramest_config_new(&b.cfg);
    vramest_config_set_str(b.cfg, VRAMEST_CFG_MODE, "rl");
    vramest_config_set_str(b.cfg, VRAMEST_CFG_FRAMEWORK, "verl");
    vramest_config_set_str(b.cfg, VRAMEST_CFG_FINETUNE, "lora");
    vramest_config_set_str(b.cfg, VRAMEST_CFG_GRADIENT_CHECKPOINTING, "full");
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_ROLLOUT_BATCH_SIZE, 64);
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_PROMPT_LEN, 512);
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_GEN_LEN, 1024);
    vramest_config_set_str(b.cfg, VRAMEST_CFG_DEVICE, "H100-80GB");
    snprintf(label, sizeof label, "estimate %s rl (verl grpo)", preset);
    failed |= bench(label, do_estimate, &b);

    /* The solver: the largest LoRA micro-batch on an A100-80GB. */
    vramest_config_free(b.cfg);
    vramest_config_new(&b.cfg);
    vramest_config_set_str(b.cfg, VRAMEST_CFG_MODE, "train");
    vramest_config_set_str(b.cfg, VRAMEST_CFG_FINETUNE, "lora");
    vramest_config_set_i64(b.cfg, VRAMEST_CFG_SEQ_LEN, 2048);
    vramest_config_set_str(b.cfg, VRAMEST_CFG_DEVICE, "A100-80GB");
    snprintf(label, sizeof label, "solve max batch %s lora", preset);
    failed |= bench(label, do_solve, &b);

    /* A scheduler admission: the job's precision and workload parsed, the
     * model taken from the cache. */
    const char *job = "{\"model\": \"cached\", \"precision\": \"bf16\", \"workload\": {\"mode\": \"train\", "
                      "\"batch_size\": 4, \"seq_len\": 2048, \"finetune\": \"lora\"}, \"device\": \"A100-80GB\"}";
    b.spec = job;
    failed |= bench("admission (spec + estimate + verdict)", do_admit, &b);

    /* The large one: Llama-3.1-70B, ZeRO-3 over 64 GPUs. */
    vramest_model_free(b.model);
    b.model = NULL;
    if (!vramest_model_new_preset("llama-3.1-70b", &b.model)) {
        vramest_precision_free(b.prec);
        b.prec = NULL;
        vramest_precision_new_preset("mixed_bf16", &b.prec);
        vramest_config_free(b.cfg);
        vramest_config_new(&b.cfg);
        vramest_config_set_str(b.cfg, VRAMEST_CFG_MODE, "train");
        vramest_config_set_i64(b.cfg, VRAMEST_CFG_SEQ_LEN, 4096);
        vramest_config_set_i64(b.cfg, VRAMEST_CFG_GPUS, 64);
        vramest_config_set_i64(b.cfg, VRAMEST_CFG_ZERO_STAGE, 3);
        vramest_config_set_str(b.cfg, VRAMEST_CFG_GRADIENT_CHECKPOINTING, "full");
        failed |= bench("estimate llama-3.1-70b zero3 x64", do_estimate, &b);
    }

    /* The paths other callers take: GGUF files, deep pipelines, a model's
     * first estimates (bench_paths.c). */
    failed |= bench_paths();

    free(b.plan);
    vramest_cache_free(b.cache);
    vramest_model_free(b.model);
    vramest_precision_free(b.prec);
    vramest_config_free(b.cfg);
    return failed;
}
