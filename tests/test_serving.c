/* Serving engines (issue #18), through the public API: the verdict is the
 * engine's own (vLLM and SGLang refuse to start, Ollama's runner fails to
 * load), never a "fits" beside a warning; the rules that changed by version
 * (vLLM's profile, llama.cpp's -fa default); the engines' bad input. The
 * measured logs the formulas were checked against are scored by
 * tests/serving_logs.py from tests/data/serving/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramest/vramest.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct job {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    vramest_result *r;
    char json[65536];
} job;

/* Estimate a spec; the status of the estimate (the spec must parse). */
static int run(job *j, const char *spec)
{
    memset(j, 0, sizeof *j);
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &j->m, &j->p, &j->c), VRAMEST_OK, "%s: %s",
                 vramest_last_error_message(), spec);
    int rc = vramest_estimate(j->m, j->p, j->c, &j->r);
    if (!rc) {
        size_t need = 0;
        cr_assert_eq(vramest_result_json(j->r, j->json, sizeof j->json, &need), VRAMEST_OK);
    }
    return rc;
}

static void done(job *j)
{
    vramest_result_free(j->r);
    vramest_config_free(j->c);
    vramest_precision_free(j->p);
    vramest_model_free(j->m);
}

static uint64_t value(const job *j, vramest_value v)
{
    uint64_t x = 0;
    cr_assert_eq(vramest_result_value(j->r, v, &x), VRAMEST_OK, "%s", vramest_last_error_message());
    return x;
}

static void refused(const job *j, const char *reason)
{
    cr_assert_eq(value(j, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_DOES_NOT_FIT, "%s", j->json);
    cr_assert_eq(value(j, VRAMEST_VAL_FITS), 0);
    cr_assert(strstr(j->json, "\"refusal\":\"") && strstr(j->json, reason), "'%s' not in %s", reason, j->json);
}

/* vLLM 0.6.4 on an RTX 3090 (vllm-project/vllm#10517): 20k context starts,
 * 29k does not ("larger than the maximum number of tokens that can be
 * stored in KV cache"). */
#define L31_8B "\"model\":\"llama-3.1-8b\",\"precision\":\"bf16\",\"device\":{\"memory_gib\":23.58},"
static const char l31_20k[] = "{" L31_8B "\"workload\":{\"mode\":\"infer\"},\"runtime\":{\"framework\":\"vllm\","
                              "\"framework_version\":\"0.6.4\",\"max_model_len\":20000}}";
static const char l31_29k[] = "{" L31_8B "\"workload\":{\"mode\":\"infer\"},\"runtime\":{\"framework\":\"vllm\","
                              "\"framework_version\":\"0.6.4\",\"max_model_len\":29000}}";

Test(vllm, a_pool_shorter_than_max_model_len_is_refused_with_the_engines_reason)
{
    job j;
    cr_assert_eq(run(&j, l31_20k), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_neq(value(&j, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_DOES_NOT_FIT, "%s", j.json);
    cr_assert(!strstr(j.json, "would not start"), "%s", j.json);
    cr_assert_geq(value(&j, VRAMEST_VAL_MAX_CONCURRENCY), 1);
    done(&j);
    cr_assert_eq(run(&j, l31_29k), VRAMEST_OK);
    refused(&j, "the model's max seq len (29000) is larger than the maximum number of tokens");
    cr_assert_eq(value(&j, VRAMEST_VAL_MAX_CONCURRENCY), 0);
    /* V1 says it its own way */
    done(&j);
    cr_assert_eq(run(&j, "{" L31_8B "\"workload\":{\"mode\":\"infer\"},\"runtime\":{\"framework\":\"vllm\","
                         "\"max_model_len\":131072}}"),
                 VRAMEST_OK);
    refused(&j, "the estimated maximum model length is");
    done(&j);
}

Test(vllm, no_memory_for_blocks_is_refused)
{
    job j;
    cr_assert_eq(run(&j, "{\"model\":\"llama-2-13b\",\"precision\":\"fp16\",\"workload\":{\"mode\":\"infer\"},"
                         "\"device\":\"RTX4090-24GB\",\"runtime\":{\"framework\":\"vllm\"}}"),
                 VRAMEST_OK);
    refused(&j, "no available memory for the cache blocks");
    cr_assert_eq(value(&j, VRAMEST_VAL_KV_BLOCKS), 0);
    done(&j);
}

/* The largest max_model_len and max_num_seqs the solvers find start; one
 * more is refused (the margin is the engine's test, not 0.002 GiB of bytes). */
Test(vllm, solvers_stop_where_the_engine_refuses)
{
    job j;
    run(&j, l31_20k);
    int64_t len = 0;
    cr_assert_eq(vramest_solve_max(j.m, j.p, j.c, VRAMEST_CFG_MAX_MODEL_LEN, &len, NULL), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    cr_assert(len > 20000 && len < 29000, "max_model_len %lld", (long long)len);
    vramest_result *r = NULL;
    uint64_t v;
    cr_assert_eq(vramest_config_set_i64(j.c, VRAMEST_CFG_MAX_MODEL_LEN, len), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(j.m, j.p, j.c, &r), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_FITS, &v), VRAMEST_OK);
    cr_assert_eq(v, 1);
    cr_assert_geq(vramest_result_value(r, VRAMEST_VAL_MAX_TOKENS, &v), 0);
    cr_assert_geq(v, (uint64_t)len);
    vramest_result_free(r);
    cr_assert_eq(vramest_config_set_i64(j.c, VRAMEST_CFG_MAX_MODEL_LEN, len + 1), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(j.m, j.p, j.c, &r), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_FITS, &v), VRAMEST_OK);
    cr_assert_eq(v, 0);
    vramest_result_free(r);
    /* max_num_seqs at max_model_len 20000: the sampler grows with it */
    cr_assert_eq(vramest_config_set_i64(j.c, VRAMEST_CFG_MAX_MODEL_LEN, 20000), VRAMEST_OK);
    int64_t seqs = 0;
    cr_assert_eq(vramest_solve_max(j.m, j.p, j.c, VRAMEST_CFG_MAX_NUM_SEQS, &seqs, NULL), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    cr_assert_eq(vramest_config_set_i64(j.c, VRAMEST_CFG_MAX_NUM_SEQS, seqs + 1), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(j.m, j.p, j.c, &r), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_VERDICT, &v), VRAMEST_OK);
    cr_assert_eq(v, VRAMEST_VERDICT_DOES_NOT_FIT);
    vramest_result_free(r);
    done(&j);
}

/* V1's profile samples min(tokens, seqs) rows of the full vocabulary on
 * every tensor-parallel rank; from 0.9 an H100 profiles 1024 x 8192. From
 * 0.11 (vllm#25359) NCCL (1 GiB here) is created before the snapshot: off
 * the pool's charge, on top of the budget, and 0.99 no longer starts. */
Test(vllm, the_profile_follows_the_version)
{
    static const char *const ver[] = {"0.6.4", "0.8.5", "0.10.0", "0.11.0", "0.11.0"};
    static const double util[] = {0.9, 0.9, 0.9, 0.9, 0.99};
    uint64_t pool[5], total[5];
    for (int i = 0; i < 5; i++) {
        char spec[512];
        snprintf(spec, sizeof spec,
                 "{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"},"
                 "\"parallel\":{\"gpus\":2,\"tp\":2,\"nccl_mib\":1024},\"device\":\"H100-80GB\",\"runtime\":{"
                 "\"framework\":\"vllm\",\"framework_version\":\"%s\",\"gpu_memory_utilization\":%.2f,\"max_model_len\":8192,"
                 "\"enforce_eager\":true}}",
                 ver[i], util[i]);
        job j;
        cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
        pool[i] = value(&j, VRAMEST_VAL_KV_POOL_BYTES);
        total[i] = value(&j, VRAMEST_VAL_DEVICE_TOTAL);
        if (i == 4) refused(&j, "free memory on the device after the CUDA context and NCCL");
        else cr_assert_neq(value(&j, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_DOES_NOT_FIT, "%s", j.json);
        done(&j);
    }
    cr_expect_eq(pool[3] - pool[2], 1024ull << 20, "0.10 -> 0.11 pool %llu", (unsigned long long)(pool[3] - pool[2]));
    cr_expect_eq(total[3] - total[2], 1024ull << 20, "NCCL on top of the budget");
    /* 1024 rows x 128256 x 28 B (3.4 GiB) against 256 rows at 0.8: the pool
     * shrinks by about the difference */
    double d = ((double)pool[1] - (double)pool[2]) / GIB;
    cr_assert(d > 2.0 && d < 3.0, "0.8 -> 0.10 pool change %.2f GiB", d);
    cr_assert_neq(pool[0], pool[1]);
}

Test(sglang, weights_beyond_the_static_fraction_are_refused_and_a_fraction_above_1_is_an_error)
{
    job j;
    cr_assert_eq(run(&j, "{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"},"
                         "\"device\":\"H100-80GB\",\"runtime\":{\"framework\":\"sglang\"}}"),
                 VRAMEST_OK);
    cr_assert_neq(value(&j, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_DOES_NOT_FIT, "%s", j.json);
    /* 0.88 x (80 GiB - context) - 15 GiB of weights, 128 KiB per token */
    uint64_t t = value(&j, VRAMEST_VAL_MAX_TOKENS);
    cr_assert(t > 440000 && t < 470000, "%llu tokens", (unsigned long long)t);
    done(&j);
    cr_assert_eq(run(&j, "{\"model\":\"llama-2-13b\",\"precision\":\"fp16\",\"workload\":{\"mode\":\"infer\"},"
                         "\"device\":\"RTX4090-24GB\",\"runtime\":{\"framework\":\"sglang\"}}"),
                 VRAMEST_OK);
    refused(&j, "increase --mem-fraction-static");
    done(&j);
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_f64(c, VRAMEST_CFG_MEM_FRACTION_STATIC, 1.2), VRAMEST_E_RANGE);
    cr_assert(strstr(vramest_last_error_message(), "mem_fraction_static"), "%s", vramest_last_error_message());
    vramest_config_free(c);
}

/* SGLang's DP attention (--tp 8 --dp 8 --enable-dp-attention on 8 GPUs):
 * dp attention groups of tp / dp ranks inside the tp group, not replicas
 * (sglang@2aa2e2d0 layers/dp_attention.py). Qwen3-30B-A3B (48 layers,
 * hidden 2048, 32 heads, 4 KV heads of 128) against plain tp 8, by hand:
 * per layer q|k|v|o on a rank is (32/t + 2 max(4/t, 1)) x 128 x 2048 +
 * 32/t x 128 x 2048, and the embedding (151,936 x 2048) stops being split:
 * attention tp 1 adds 48 x 16,252,928 + 272,269,312 parameters (bf16:
 * 2,104,819,712 B), attention tp 2 (dp 4) 48 x 6,815,744 + 272,269,312
 * (1,198,850,048 B), attention tp 4 (dp 2) 48 x 2,097,152 + 272,269,312
 * (745,865,216 B). The pool cell is the group's KV heads: 4 (98,304 B per
 * token), 2 (49,152 B), 1 (24,576 B). */
#define DPA_FMT                                                                                                       \
    "{\"model\":\"qwen3-30b-a3b\",\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"workload\":{\"mode\":"        \
    "\"infer\"},\"parallel\":{\"gpus\":%d,\"tp\":8,\"dp\":%d},\"runtime\":{\"framework\":\"%s\","                \
    "\"enable_dp_attention\":%s,\"max_total_tokens\":100000}}"

Test(sglang, dp_attention_carves_its_groups_out_of_tp)
{
    static const struct {
        int dp;
        const char *dpa;
        uint64_t extra, cell;
    } c[] = {{0, "false", 0, 24576}, {8, "true", 2104819712ull, 98304}, {0, "true", 2104819712ull, 98304},
             {4, "true", 1198850048ull, 49152}, {2, "true", 745865216ull, 24576}};
    char spec[512];
    uint64_t base = 0;
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        job j;
        snprintf(spec, sizeof spec, DPA_FMT, 8, c[i].dp, "sglang", c[i].dpa);
        cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s: %s", vramest_last_error_message(), spec);
        uint64_t w = 0;
        cr_assert_eq(vramest_result_get(j.r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &w), VRAMEST_OK);
        if (!i) base = w;
        cr_expect_eq(w - base, c[i].extra, "dp %d: weights +%llu", c[i].dp, (unsigned long long)(w - base));
        cr_expect_eq(value(&j, VRAMEST_VAL_KV_POOL_BYTES), 100000 * c[i].cell, "dp %d: %s", c[i].dp, j.json);
        cr_expect(!strstr(j.json, "replicas"), "dp %d: attention groups are no replicas: %s", c[i].dp, j.json);
        done(&j);
    }
    /* vLLM's dp is replicas: 8 x 8 GPUs; SGLang's groups must tile tp */
    static const struct {
        int gpus, dp;
        const char *fw, *why;
    } bad[] = {{8, 8, "vllm", "gpus 8 != tp 8 * pp 1 * dp 8"},
               {8, 3, "sglang", "dp 3 does not divide tp 8"},
               {64, 8, "sglang", "carves dp 8 out of the tp ranks"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        job j;
        snprintf(spec, sizeof spec, DPA_FMT, bad[i].gpus, bad[i].dp, bad[i].fw, "true");
        cr_expect_eq(run(&j, spec), VRAMEST_E_CONFLICT, "%s", spec);
        cr_expect(strstr(vramest_last_error_message(), bad[i].why), "%s", vramest_last_error_message());
        done(&j);
    }
}

/* llama.cpp: -fa became auto (on for CUDA) about b6343; before, a quantized
 * V cache needs -fa explicitly. */
Test(llama_cpp, a_quantized_v_cache_follows_the_builds_flash_attention_default)
{
    static const char fmt[] = "{\"model\":\"llama-2-7b\",\"precision\":{\"weights\":\"q4_0\",\"kv_cache\":\"q8_0\"},"
                              "\"workload\":{\"mode\":\"infer\"%s},\"runtime\":{\"framework\":\"llama.cpp\","
                              "\"framework_version\":\"%s\",\"n_ctx\":4096}}";
    char spec[512];
    job j;
    snprintf(spec, sizeof spec, fmt, "", "b6500");
    cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
    done(&j);
    snprintf(spec, sizeof spec, fmt, "", "2025-01");
    cr_assert_eq(run(&j, spec), VRAMEST_E_CONFLICT);
    cr_assert(strstr(vramest_last_error_message(), "b6343"), "%s", vramest_last_error_message());
    done(&j);
    snprintf(spec, sizeof spec, fmt, ",\"attention\":\"eager\"", "b6500");
    cr_assert_eq(run(&j, spec), VRAMEST_E_CONFLICT);
    done(&j);
}

/* Ollama 0.5.5 on a 24 GB GPU with DeepSeek-V3 (ollama/ollama#8447): the
 * scheduler counts its layers from blk.0 (dense, small) while the runner
 * offloads the last ones (MoE, large): the load fails, as it did. */
Test(ollama, a_scheduler_count_the_runner_cannot_hold_is_refused)
{
    job j;
    cr_assert_eq(run(&j, "{\"model\":\"deepseek-v3\",\"precision\":{\"weights\":\"q4_k_m\"},"
                         "\"workload\":{\"mode\":\"infer\",\"attention\":\"eager\"},\"device\":{\"memory_gib\":23.3},"
                         "\"runtime\":{\"framework\":\"ollama\",\"framework_version\":\"0.5.5\",\"num_ctx\":2048,"
                         "\"n_batch\":512}}"),
                 VRAMEST_OK, "%s", vramest_last_error_message());
    refused(&j, "Ollama would fail to load");
    uint64_t sched = value(&j, VRAMEST_VAL_GPU_LAYERS), fit = value(&j, VRAMEST_VAL_GPU_LAYERS_FIT);
    cr_assert(sched > fit, "scheduler %llu, fit %llu", (unsigned long long)sched, (unsigned long long)fit);
    /* its own figures: 160 MiB of uncompressed MLA KV per layer at 2048 */
    cr_assert(strstr(j.json, "\"ollama\":{\"required_kv_bytes\":10234101760"), "%s", j.json);
    done(&j);
}

/* The smallest share of the GPU that serves max_model_len: exact against
 * the estimate (it starts and fits there, one hundredth less does not) and
 * honouring the headroom. */
static double min_fraction(const job *j, vramest_option key, vramest_config *c)
{
    size_t need = 0;
    char buf[65536];
    cr_assert_eq(vramest_plan_json(j->m, j->p, c, VRAMEST_ASK_MIN, key, buf, sizeof buf, &need), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    const char *v = strstr(buf, "\"solution\":");
    cr_assert(v && (v = strstr(v, "\"value\":")), "%s", buf);
    return strtod(v + 8, NULL);
}

static int fits_at(const job *j, vramest_config *c, vramest_option key, double f)
{
    vramest_result *r = NULL;
    uint64_t v = 0, t = 0;
    cr_assert_eq(vramest_config_set_f64(c, key, f), VRAMEST_OK);
    cr_assert_eq(vramest_estimate(j->m, j->p, c, &r), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_FITS, &v), VRAMEST_OK);
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_MAX_TOKENS, &t), VRAMEST_OK);
    vramest_result_free(r);
    return v && t >= 8192;
}

Test(solvers, smallest_engine_share_is_exact_and_honours_the_headroom)
{
    static const struct {
        const char *spec;
        vramest_option key;
    } c[] = {{"{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"},\"device\":\"L4-24GB\","
              "\"runtime\":{\"framework\":\"vllm\",\"max_model_len\":8192}}",
              VRAMEST_CFG_GPU_MEMORY_UTILIZATION},
             {"{\"model\":\"llama-3-8b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"infer\"},\"device\":\"L4-24GB\","
              "\"runtime\":{\"framework\":\"sglang\",\"max_model_len\":8192}}",
              VRAMEST_CFG_MEM_FRACTION_STATIC}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        job j;
        cr_assert_eq(run(&j, c[i].spec), VRAMEST_OK);
        double f = min_fraction(&j, c[i].key, j.c);
        cr_assert(f > 0.5 && f < 1.0, "%g", f);
        vramest_config *k = NULL;
        cr_assert_eq(vramest_config_clone(j.c, &k), VRAMEST_OK);
        cr_assert(fits_at(&j, k, c[i].key, f), "%g does not fit", f);
        cr_assert(!fits_at(&j, k, c[i].key, f - 0.01), "%g fits", f - 0.01);
        vramest_config_free(k);
        /* 2 GiB kept free: the answer does not fall */
        cr_assert_eq(vramest_config_set_f64(j.c, VRAMEST_CFG_HEADROOM_GIB, 2.0), VRAMEST_OK);
        double g = min_fraction(&j, c[i].key, j.c);
        cr_assert_geq(g, f);
        done(&j);
    }
    /* the other engine's knob is not a question */
    job j;
    cr_assert_eq(run(&j, c[0].spec), VRAMEST_OK);
    size_t need;
    cr_assert_eq(vramest_plan_json(j.m, j.p, j.c, VRAMEST_ASK_MIN, VRAMEST_CFG_MEM_FRACTION_STATIC, NULL, 0, &need),
                 VRAMEST_E_UNSUPPORTED);
    done(&j);
}

/* llama.cpp over two GPUs: layers follow tensor_split (the fuller device is
 * the headline), row mode keeps the KV on the first GPU, and a split that
 * names another GPU count is refused. */
Test(llama_cpp, tensor_split_places_layers_and_must_match_the_gpus)
{
    static const char fmt[] = "{\"model\":\"llama-2-70b\",\"precision\":{\"weights\":\"q4_0\"},\"workload\":{\"mode\":"
                              "\"infer\"},\"parallel\":{\"gpus\":%d},\"device\":\"RTX4090-24GB\",\"runtime\":{"
                              "\"framework\":\"llama.cpp\",\"n_ctx\":4096,\"split_mode\":\"%s\",\"tensor_split\":%s}}";
    char spec[512];
    job j;
    uint64_t one, even, skew, row_kv, even_kv;
    snprintf(spec, sizeof spec, fmt, 1, "layer", "\"\"");
    cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
    one = value(&j, VRAMEST_VAL_DEVICE_TOTAL);
    done(&j);
    snprintf(spec, sizeof spec, fmt, 2, "layer", "[1, 1]");
    cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
    even = value(&j, VRAMEST_VAL_DEVICE_TOTAL);
    cr_assert(strstr(j.json, "\"kv_cache\":"), "%s", j.json);
    cr_assert_eq(vramest_result_get(j.r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, &even_kv), VRAMEST_OK);
    done(&j);
    snprintf(spec, sizeof spec, fmt, 2, "layer", "\"3,1\"");
    cr_assert_eq(run(&j, spec), VRAMEST_OK);
    skew = value(&j, VRAMEST_VAL_DEVICE_TOTAL);
    done(&j);
    cr_assert(even < one * 6 / 10 && skew > even, "one %llu, 1:1 %llu, 3:1 %llu", (unsigned long long)one,
              (unsigned long long)even, (unsigned long long)skew);
    snprintf(spec, sizeof spec, fmt, 2, "row", "[1, 1]");
    cr_assert_eq(run(&j, spec), VRAMEST_OK);
    cr_assert_eq(vramest_result_get(j.r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, &row_kv), VRAMEST_OK);
    /* the first GPU holds 41 of the 80 layers in layer mode (41 of 81 with the output), all in row mode */
    cr_assert_eq(row_kv / 80, even_kv / 41, "row mode keeps every layer's KV on the first GPU");
    done(&j);
    snprintf(spec, sizeof spec, fmt, 2, "layer", "[1, 1, 1]");
    cr_assert_eq(run(&j, spec), VRAMEST_E_CONFLICT);
    cr_assert(strstr(vramest_last_error_message(), "tensor_split has 3 entries for gpus 2"), "%s",
              vramest_last_error_message());
    done(&j);
}

/* Ollama over two GPUs: its scheduler spreads the blocks over both and
 * hands the counts to the runner as its tensor split. */
Test(ollama, two_gpus_take_the_layers_one_cannot)
{
    static const char fmt[] = "{\"model\":\"llama-2-70b\",\"precision\":{\"weights\":\"q4_0\"},\"workload\":{\"mode\":"
                              "\"infer\"},\"parallel\":{\"gpus\":%d},\"device\":\"RTX4090-24GB\",\"runtime\":{"
                              "\"framework\":\"ollama\",\"num_ctx\":4096}}";
    char spec[400];
    job j;
    snprintf(spec, sizeof spec, fmt, 1);
    cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t one = value(&j, VRAMEST_VAL_GPU_LAYERS);
    cr_assert(one > 30 && one < 81, "%llu layers on one 24 GB GPU", (unsigned long long)one);
    cr_assert_leq(one, value(&j, VRAMEST_VAL_GPU_LAYERS_FIT), "Ollama keeps a margin the runner does not need");
    done(&j);
    snprintf(spec, sizeof spec, fmt, 2);
    cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(value(&j, VRAMEST_VAL_GPU_LAYERS), 81, "%s", j.json);
    cr_assert_neq(value(&j, VRAMEST_VAL_VERDICT), VRAMEST_VERDICT_DOES_NOT_FIT, "%s", j.json);
    done(&j);
}

/* llama.cpp allocates everything at load: a context that does not fit is
 * its failure, with its reason; offloading fewer layers starts. */
Test(llama_cpp, a_context_that_does_not_fit_is_the_engines_failure)
{
    job j;
    cr_assert_eq(run(&j, "{\"model\":\"llama-2-70b\",\"precision\":{\"weights\":\"q4_0\"},\"workload\":{\"mode\":"
                         "\"infer\"},\"device\":\"RTX4090-24GB\",\"runtime\":{\"framework\":\"llama.cpp\"}}"),
                 VRAMEST_OK);
    refused(&j, "llama.cpp would fail to load");
    int64_t ngl = 0;
    cr_assert_eq(vramest_solve_max(j.m, j.p, j.c, VRAMEST_CFG_N_GPU_LAYERS, &ngl, NULL), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    cr_assert(ngl > 20 && ngl < 81, "n_gpu_layers %lld", (long long)ngl);
    done(&j);
}

/* llama.cpp's quantizer before ggml-org/llama.cpp#19770 (merged 2026-03-10,
 * about b8265) gave a fused attn_qkv its own Q4_K_M rule (Q5_K in every
 * layer); from then on it takes attn_v's (Q6_K in the use_more_bits layers,
 * Q4_K in the rest). A Phi-3-mini Q4_K_M file of the old rule, as loaded in
 * ggml-org/llama.cpp#11003's log (2024-12): f32 65, q4_K 81, q5_K 32, q6_K
 * 17 tensors. On the GPU (token_embd stays on the host): output 32064 x 3072
 * Q6_K 80,801,280 + 32 qkv 9216 x 3072 Q5_K 622,854,144 + 32 attn_output
 * Q4_K 169,869,312 + 32 ffn_up 16384 x 3072 Q4_K 905,969,664 + ffn_down 16
 * Q6_K 330,301,440 + 16 Q4_K 226,492,416 + 65 norms 798,720 =
 * 2,337,086,976 B. Today's rule: the qkv's 16 Q6_K + 16 Q4_K layers weigh
 * 3,538,944 B more than 32 Q5_K ones. */
Test(llama_cpp, the_quant_mix_is_the_builds_and_a_gguf_header_wins)
{
    static const char fmt[] = "{\"model\":\"phi-3-mini\",\"precision\":{\"weights\":\"q4_k_m\"},"
                              "\"workload\":{\"mode\":\"infer\"},\"runtime\":{\"framework\":\"llama.cpp\","
                              "\"framework_version\":\"%s\",\"n_ctx\":4096}}";
    static const struct {
        const char *version;
        uint64_t weights;
    } want[] = {{"b4343", 2337086976ull}, {"b8264", 2337086976ull}, {"2026-03-01", 2337086976ull},
                {"b8265", 2340625920ull}, {"", 2340625920ull}};
    char spec[512];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        job j;
        snprintf(spec, sizeof spec, fmt, want[i].version);
        cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
        uint64_t w = 0;
        cr_assert_eq(vramest_result_get(j.r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &w), VRAMEST_OK);
        cr_expect_eq(w, want[i].weights, "build '%s': %llu", want[i].version, (unsigned long long)w);
        done(&j);
    }
}

/* Prefix caching shares full blocks of the one pool between requests: vLLM
 * V1's BlockPool (vllm/v1/core/block_pool.py at 002f3491) keeps the cached
 * blocks' hashes in host dictionaries over the same num_gpu_blocks, and the
 * pool is sized before any of it (gpu_worker.py determine_available_memory);
 * SGLang's radix tree (python/sglang/srt/mem_cache/radix_cache.py) indexes
 * the token pool that profile_max_num_token sized without it. Neither moves
 * a byte of the estimate, whichever way it is set. */
Test(serving, prefix_caching_and_the_radix_cache_move_no_memory)
{
    static const char *const vllm[] = {"", ",\"enable_prefix_caching\":\"on\"", ",\"enable_prefix_caching\":\"off\""};
    static const char *const sgl[] = {"", ",\"disable_radix_cache\":true", ",\"disable_radix_cache\":false"};
    static const char *const fw[] = {"vllm", "sglang"};
    const char *const *sets[] = {vllm, sgl};
    char spec[512];
    for (int e = 0; e < 2; e++) {
        uint64_t first[3] = {0};
        for (int i = 0; i < 3; i++) {
            job j;
            snprintf(spec, sizeof spec,
                     "{" L31_8B "\"workload\":{\"mode\":\"infer\"},\"runtime\":{\"framework\":\"%s\","
                     "\"max_model_len\":8192%s}}",
                     fw[e], sets[e][i]);
            cr_assert_eq(run(&j, spec), VRAMEST_OK, "%s", vramest_last_error_message());
            uint64_t now[3] = {value(&j, VRAMEST_VAL_KV_POOL_BYTES), value(&j, VRAMEST_VAL_MAX_TOKENS),
                               value(&j, VRAMEST_VAL_DEVICE_TOTAL)};
            cr_assert_gt(now[1], 8192, "%s: %s", fw[e], j.json);
            for (int k = 0; k < 3; k++) {
                if (!i) first[k] = now[k];
                cr_expect_eq(now[k], first[k], "%s %s: figure %d %llu != %llu", fw[e], sets[e][i], k,
                             (unsigned long long)now[k], (unsigned long long)first[k]);
            }
            done(&j);
        }
    }
}

/* Speculative decoding. A draft model of its own (vLLM V1 registers the
 * drafter's attention layers in the one KV cache config; SGLang sizes its
 * token pool over target + draft cells): Llama-3.1-8B with Llama-3.2-1B,
 * K+V bf16 per token (32 x 8 x 128 + 16 x 8 x 64) x 2 x 2 = 163,840 B, so a
 * 16-token block is 2,621,440 B; the draft's weights are its own estimate's
 * and leave the pool one for one. */
#define SPEC_FMT                                                                                                      \
    "{\"model\":\"%s\",\"precision\":\"bf16\",\"device\":{\"memory_gib\":79.1},\"workload\":{\"mode\":\"infer\"},"    \
    "\"runtime\":{\"framework\":\"%s\",\"max_model_len\":8192%s}}"

static void spec_run(job *j, const char *model, const char *fw, const char *extra)
{
    char spec[1024];
    snprintf(spec, sizeof spec, SPEC_FMT, model, fw, extra);
    cr_assert_eq(run(j, spec), VRAMEST_OK, "%s: %s", vramest_last_error_message(), spec);
}

static uint64_t weights_of(const job *j)
{
    uint64_t w = 0;
    cr_assert_eq(vramest_result_get(j->r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, &w), VRAMEST_OK);
    return w;
}

Test(speculative, a_draft_models_weights_and_kv_share_the_pool)
{
    static const char draft[] = ",\"speculative_method\":\"draft_model\",\"num_speculative_tokens\":4,"
                                "\"draft_model\":{\"model\":\"llama-3.2-1b\"}";
    job plain, spec, small;
    spec_run(&small, "llama-3.2-1b", "vllm", "");
    spec_run(&plain, "llama-3.1-8b", "vllm", "");
    spec_run(&spec, "llama-3.1-8b", "vllm", draft);
    uint64_t dw = weights_of(&spec) - weights_of(&plain);
    cr_expect_eq(dw, weights_of(&small), "draft weights %llu", (unsigned long long)dw);
    uint64_t pool = value(&spec, VRAMEST_VAL_KV_POOL_BYTES);
    cr_expect_eq(pool, value(&plain, VRAMEST_VAL_KV_POOL_BYTES) - dw);
    cr_expect_eq(value(&spec, VRAMEST_VAL_KV_BLOCKS), pool / 2621440u);
    cr_expect_eq(value(&plain, VRAMEST_VAL_KV_BLOCKS), value(&plain, VRAMEST_VAL_KV_POOL_BYTES) / 2097152u);
    /* 8192 + 4 lookahead tokens: 513 blocks a sequence */
    cr_expect_eq(value(&spec, VRAMEST_VAL_MAX_CONCURRENCY), value(&spec, VRAMEST_VAL_KV_BLOCKS) / 513);
    done(&small);
    done(&plain);
    done(&spec);

    /* SGLang: tokens = rest / (131,072 + 32,768) */
    spec_run(&plain, "llama-3.1-8b", "sglang", "");
    spec_run(&spec, "llama-3.1-8b", "sglang", draft);
    dw = weights_of(&spec) - weights_of(&plain);
    uint64_t rest = value(&plain, VRAMEST_VAL_MAX_TOKENS) * 131072u; /* within one cell of the rest */
    cr_expect_leq(value(&spec, VRAMEST_VAL_MAX_TOKENS), (rest + 131072u - dw) / 163840u);
    cr_expect_geq(value(&spec, VRAMEST_VAL_MAX_TOKENS) + 1, (rest - dw) / 163840u);
    done(&plain);
    done(&spec);
}

/* DeepSeek-V2-Lite with one MTP layer (num_nextn_predict_layers 1), bf16:
 * one more MoE layer - q 3072 x 2048, kv_a 576 x 2048 + its norm 512, kv_b
 * 4096 x 512, o 2048 x 2048, 64 experts x 3 x 1408 x 2048, shared 3 x 2816 x
 * 2048, router 64 x 2048, two norms 2 x 2048: 584,847,872 parameters - and
 * eh_proj 2048 x 4096 + enorm + hnorm (8,392,704): 1,186,481,152 B. Its
 * latent cache (512 + 64) x 2 B joins the 27 layers' in every block: 16 x
 * 28 x 1152 = 516,096 B. */
Test(speculative, mtp_layers_are_one_more_layer_of_weights_and_cache)
{
    static const char *const method[] = {"none", "mtp"};
    uint64_t w[2], pool[2], blocks[2];
    char spec[1024];
    for (int i = 0; i < 2; i++) {
        job j;
        char extra[64];
        snprintf(extra, sizeof extra, ",\"speculative_method\":\"%s\"", method[i]);
        snprintf(spec, sizeof spec, SPEC_FMT, "deepseek-v2-lite", "vllm", extra);
        memset(&j, 0, sizeof j);
        cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &j.m, &j.p, &j.c), VRAMEST_OK);
        /* without MTP layers, mtp is refused with its reason */
        cr_assert_eq(vramest_estimate(j.m, j.p, j.c, &j.r), i ? VRAMEST_E_CONFLICT : VRAMEST_OK);
        if (i) cr_assert(strstr(vramest_last_error_message(), "num_nextn_predict_layers"));
        vramest_result_free(j.r);
        cr_assert_eq(vramest_model_set_i64(j.m, VRAMEST_MODEL_NUM_NEXTN_PREDICT_LAYERS, 1), VRAMEST_OK);
        cr_assert_eq(vramest_estimate(j.m, j.p, j.c, &j.r), VRAMEST_OK, "%s", vramest_last_error_message());
        w[i] = weights_of(&j);
        pool[i] = value(&j, VRAMEST_VAL_KV_POOL_BYTES);
        blocks[i] = value(&j, VRAMEST_VAL_KV_BLOCKS);
        done(&j);
    }
    cr_expect_eq(w[1] - w[0], 1186481152ull);
    cr_expect_eq(pool[0] - pool[1], 1186481152ull);
    cr_expect_eq(blocks[0], pool[0] / (16u * 27 * 1152));
    cr_expect_eq(blocks[1], pool[1] / 516096u);
}

/* Bad input: the draft's tokenizer must be the target's (the engine checks
 * the draft's token ids against it), and a draft method needs the draft. */
Test(speculative, a_draft_of_another_vocabulary_or_none_is_an_error)
{
    char spec[1024];
    job j;
    snprintf(spec, sizeof spec, SPEC_FMT, "llama-3.1-8b", "vllm",
             ",\"speculative_method\":\"draft_model\",\"draft_model\":{\"model\":\"qwen2-0.5b\"}");
    cr_assert_eq(run(&j, spec), VRAMEST_E_CONFLICT);
    cr_assert(strstr(vramest_last_error_message(), "vocabulary (151936 tokens) is not the served model's (128256)"),
              "%s", vramest_last_error_message());
    done(&j);
    snprintf(spec, sizeof spec, SPEC_FMT, "llama-3.1-8b", "sglang", ",\"speculative_method\":\"eagle\"");
    cr_assert_eq(run(&j, spec), VRAMEST_E_INVALID_ARG);
    cr_assert(strstr(vramest_last_error_message(), "runtime.draft_model"), "%s", vramest_last_error_message());
    done(&j);
    /* ngram proposes on the host: the same figures as none */
    job a, b;
    spec_run(&a, "llama-3.1-8b", "vllm", "");
    spec_run(&b, "llama-3.1-8b", "vllm", ",\"speculative_method\":\"ngram\",\"num_speculative_tokens\":3");
    cr_expect_eq(value(&a, VRAMEST_VAL_KV_POOL_BYTES), value(&b, VRAMEST_VAL_KV_POOL_BYTES));
    done(&a);
    done(&b);
}
