/* Solvers are exact against the estimator: the answer fits, the answer + 1
 * does not (for min GPUs: the answer fits, the answer - 1 layouts do not);
 * bad input is refused with a reason. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <vramest/vramest.h>

static vramest_model *preset(const char *name)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new_preset(name, &m), VRAMEST_OK, "%s", vramest_last_error_message());
    return m;
}

static vramest_config *train_cfg(const char *device)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "train"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_SEQ_LEN, 1024), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, device), VRAMEST_OK, "%s", vramest_last_error_message());
    return c;
}

static int fits_at(const vramest_model *m, const vramest_precision *p, const vramest_config *c, vramest_option key,
                   int64_t value)
{
    vramest_config *k = NULL;
    cr_assert_eq(vramest_config_clone(c, &k), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(k, key, value), VRAMEST_OK, "%s", vramest_last_error_message());
    int fits = -1;
    int64_t margin = 0;
    cr_assert_eq(vramest_check_fit(m, p, k, &fits, &margin), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(fits, margin >= 0, "fits %d but margin %lld", fits, (long long)margin);
    vramest_config_free(k);
    return fits;
}

static void check_max(const char *model, const char *precision, const char *device, vramest_option key,
                      const char *finetune)
{
    vramest_model *m = preset(model);
    vramest_precision *p = NULL;
    cr_assert_eq(vramest_precision_new_preset(precision, &p), VRAMEST_OK);
    vramest_config *c = train_cfg(device);
    if (finetune) cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FINETUNE, finetune), VRAMEST_OK);
    int64_t best = 0;
    uint64_t bytes = 0;
    int rc = vramest_solve_max(m, p, c, key, &best, &bytes);
    cr_assert_eq(rc, VRAMEST_OK, "%s %s on %s: %s", model, precision, device, vramest_last_error_message());
    cr_assert_gt(best, 0);
    cr_assert(fits_at(m, p, c, key, best), "%s: answer %lld does not fit", model, (long long)best);
    cr_assert_not(fits_at(m, p, c, key, best + 1), "%s: answer + 1 = %lld fits too", model, (long long)best + 1);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

Test(solve, max_batch_is_exact_at_answer_and_answer_plus_one)
{
    check_max("llama-2-7b", "bf16", "A100-80GB", VRAMEST_CFG_BATCH_SIZE, "lora");
    check_max("gpt2", "fp32", "T4", VRAMEST_CFG_BATCH_SIZE, NULL);
    check_max("qwen2-0.5b", "amp_bf16", "RTX4090-24GB", VRAMEST_CFG_BATCH_SIZE, NULL);
}

Test(solve, max_seq_len_is_exact)
{
    check_max("llama-3.2-1b", "bf16", "L4", VRAMEST_CFG_SEQ_LEN, NULL);
}

Test(solve, max_inference_context_is_exact)
{
    vramest_model *m = preset("llama-2-7b");
    vramest_precision *p = NULL;
    cr_assert_eq(vramest_precision_new_preset("fp16", &p), VRAMEST_OK);
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "infer"), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, 8), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100-40GB"), VRAMEST_OK);
    int64_t best = 0;
    cr_assert_eq(vramest_solve_max(m, p, c, VRAMEST_CFG_PROMPT_LEN, &best, NULL), VRAMEST_OK, "%s",
                 vramest_last_error_message());
    cr_assert(fits_at(m, p, c, VRAMEST_CFG_PROMPT_LEN, best));
    cr_assert_not(fits_at(m, p, c, VRAMEST_CFG_PROMPT_LEN, best + 1));
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

Test(solve, min_gpus_with_zero3_is_the_smallest_that_fits)
{
    vramest_model *m = preset("llama-2-13b");
    vramest_precision *p = NULL;
    cr_assert_eq(vramest_precision_new_preset("mixed_bf16", &p), VRAMEST_OK);
    vramest_config *c = train_cfg("A100-40GB");
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_ZERO_STAGE, 3), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_GRADIENT_CHECKPOINTING, "full"), VRAMEST_OK);
    int64_t gpus = 0;
    cr_assert_eq(vramest_solve_min_gpus(m, p, c, 1024, &gpus), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_gt(gpus, 1, "13B with Adam cannot train on one 40 GB GPU");
    /* The answer fits; one GPU fewer does not. */
    vramest_config *k = NULL;
    cr_assert_eq(vramest_config_clone(c, &k), VRAMEST_OK);
    int fits = 0;
    cr_assert_eq(vramest_config_set_i64(k, VRAMEST_CFG_GPUS, gpus), VRAMEST_OK);
    cr_assert_eq(vramest_check_fit(m, p, k, &fits, NULL), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert(fits);
    cr_assert_eq(vramest_config_set_i64(k, VRAMEST_CFG_GPUS, gpus - 1), VRAMEST_OK);
    cr_assert_eq(vramest_check_fit(m, p, k, &fits, NULL), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_not(fits);
    vramest_config_free(k);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

Test(solve, plain_ddp_says_why_more_gpus_do_not_help)
{
    vramest_model *m = preset("llama-2-70b");
    vramest_config *c = train_cfg("A100-80GB");
    int64_t gpus = 0;
    cr_assert_eq(vramest_solve_min_gpus(m, NULL, c, 1, &gpus), VRAMEST_E_DOES_NOT_FIT);
    cr_assert(strstr(vramest_last_error_message(), "zero_stage"), "%s", vramest_last_error_message());
    vramest_model_free(m);
    vramest_config_free(c);
}

Test(solve, nothing_fits_says_needed_and_available)
{
    vramest_model *m = preset("llama-2-70b");
    vramest_config *c = train_cfg("T4");
    int64_t best = 0;
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_CFG_BATCH_SIZE, &best, NULL), VRAMEST_E_DOES_NOT_FIT);
    const char *msg = vramest_last_error_message();
    cr_assert(strstr(msg, "does not fit even at batch_size 1") && strstr(msg, "needs") && strstr(msg, "has"), "%s",
              msg);
    vramest_model_free(m);
    vramest_config_free(c);
}

Test(solve, bad_input)
{
    vramest_model *m = preset("gpt2");
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_MODE, "train"), VRAMEST_OK);
    int64_t v = 0;
    int fits = 0;
    /* no device */
    cr_assert_eq(vramest_check_fit(m, NULL, c, &fits, NULL), VRAMEST_E_UNSUPPORTED);
    cr_assert(strstr(vramest_last_error_message(), "device"), "%s", vramest_last_error_message());
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_CFG_BATCH_SIZE, &v, NULL), VRAMEST_E_UNSUPPORTED);
    /* a device that does not exist: close names */
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100-90GB"), VRAMEST_E_UNKNOWN_NAME);
    cr_assert(strstr(vramest_last_error_message(), "A100-80GB"), "%s", vramest_last_error_message());
    /* a name two presets share: refused with both, never a pick */
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "A100"), VRAMEST_E_UNKNOWN_NAME);
    cr_assert(strstr(vramest_last_error_message(), "A100-40GB, A100-80GB"), "%s", vramest_last_error_message());
    /* the forms people write resolve, and the handle keeps the preset's name */
    const char *dev = NULL;
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "NVIDIA GeForce RTX 4090"), VRAMEST_OK);
    cr_assert_eq(vramest_config_get_str(c, VRAMEST_CFG_DEVICE, &dev), VRAMEST_OK);
    cr_assert_str_eq(dev, "RTX4090-24GB");
    /* a budget of 0 is "no device", refused by the fit check above; a key that
     * is not a size */
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_DEVICE, "T4"), VRAMEST_OK);
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_CFG_ZERO_STAGE, &v, NULL), VRAMEST_E_UNSUPPORTED);
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_MODEL_HIDDEN_SIZE, &v, NULL), VRAMEST_E_UNSUPPORTED);
    cr_assert_eq(vramest_solve_max(NULL, NULL, c, VRAMEST_CFG_BATCH_SIZE, &v, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_solve_max(m, NULL, c, VRAMEST_CFG_BATCH_SIZE, NULL, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_solve_min_gpus(m, NULL, c, 0, &v), VRAMEST_E_RANGE);
    vramest_model_free(m);
    vramest_config_free(c);
}

Test(solve, advice_is_ordered_and_each_change_saves_memory)
{
    vramest_model *m = preset("llama-2-7b");
    vramest_precision *p = NULL;
    cr_assert_eq(vramest_precision_new_preset("fp32", &p), VRAMEST_OK);
    vramest_config *c = train_cfg("A100-80GB");
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, 4), VRAMEST_OK);
    size_t needed = 0;
    cr_assert_eq(vramest_advise_json(m, p, c, NULL, 0, &needed), VRAMEST_E_BUFFER_TOO_SMALL);
    char *buf = malloc(needed);
    cr_assert_eq(vramest_advise_json(m, p, c, buf, needed, NULL), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(buf[0], '[');
    /* precision comes before LoRA, LoRA before more GPUs */
    const char *prec = strstr(buf, "\"precision\"");
    const char *lora = strstr(buf, "\"lora\"");
    cr_assert(prec && lora && prec < lora, "%s", buf);
    cr_assert(strstr(buf, "\"fits\":true"), "some change makes 7B full fp32 training fit: %s", buf);
    cr_assert_null(strstr(buf, "\"saves_bytes\":0,"), "%s", buf);
    free(buf);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

/* A hostile spec (100,000 layers) must not make a solve run for minutes:
 * the GPU search tries a bounded set of layouts (heads' divisors for tp,
 * 1, 2, 3, 4, 6, 8, ... up to 1024 for pp, doubling + bisection for dp). */
Test(solve, hostile_depth_is_bounded, .timeout = 60)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "llama"), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, 4096), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 100000), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, 32), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_i64(m, VRAMEST_MODEL_INTERMEDIATE_SIZE, 11008), VRAMEST_OK);
    cr_assert_eq(vramest_model_set_i64(m, VRAMEST_MODEL_VOCAB_SIZE, 32000), VRAMEST_OK);
    vramest_config *c = train_cfg("T4");
    int64_t gpus = 0;
    cr_assert_eq(vramest_solve_min_gpus(m, NULL, c, 65536, &gpus), VRAMEST_E_DOES_NOT_FIT);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_ZERO_STAGE, 3), VRAMEST_OK);
    int rc = vramest_solve_min_gpus(m, NULL, c, 65536, &gpus);
    cr_assert(rc == VRAMEST_OK || rc == VRAMEST_E_DOES_NOT_FIT, "%s", vramest_last_error_message());
    size_t needed = 0;
    rc = vramest_advise_json(m, NULL, c, NULL, 0, &needed);
    cr_assert(rc == VRAMEST_E_BUFFER_TOO_SMALL || rc == VRAMEST_OK, "%s", vramest_last_error_message());
    /* pp is bounded: the per-stage layout costs O(pp^2) */
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_PP, 65536), VRAMEST_E_RANGE);
    vramest_model_free(m);
    vramest_config_free(c);
}
