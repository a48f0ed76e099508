/* The training estimator through the public API: bad input, the
 * breakdown-at-the-peak invariants, and behaviours the harness cannot show
 * (CUDA kernels, optimizers, PEFT counts, checkpointing order). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "vramest/vramest.h"

static const char *LLAMA =
    "{\"model_type\":\"llama\",\"hidden_size\":2048,\"num_hidden_layers\":16,\"num_attention_heads\":32,"
    "\"num_key_value_heads\":8,\"intermediate_size\":8192,\"vocab_size\":128256,\"max_position_embeddings\":4096,"
    "\"tie_word_embeddings\":true}";

/* Estimate a spec whose workload object is `workload` (and precision). */
static int est(const char *arch, const char *prec, const char *workload, vramest_result **out)
{
    char spec[4096];
    snprintf(spec, sizeof spec, "{\"model\":{\"arch\":%s},\"precision\":\"%s\",\"workload\":{\"mode\":\"train\",%s},"
                                "\"device\":\"A100-80GB\"}",
             arch, prec, workload);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), &m, &p, &c);
    if (rc) return rc;
    rc = vramest_estimate(m, p, c, out);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}

static uint64_t val(const vramest_result *r, vramest_value k)
{
    uint64_t v = 0;
    cr_assert_eq(vramest_result_value(r, k, &v), VRAMEST_OK, "%s", vramest_last_error_message());
    return v;
}

static uint64_t cat(const vramest_result *r, vramest_category c)
{
    uint64_t v = 0;
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, c, &v), VRAMEST_OK);
    return v;
}

Test(train, lora_targets_matching_nothing_name_the_modules)
{
    vramest_result *r = NULL;
    int rc = est(LLAMA, "bf16", "\"finetune\":\"lora\",\"lora_targets\":\"query,value\"", &r);
    cr_assert_eq(rc, VRAMEST_E_INVALID_ARG);
    const char *msg = vramest_last_error_message();
    cr_assert(strstr(msg, "q_proj") && strstr(msg, "down_proj") && strstr(msg, "all-linear"), "%s", msg);
    cr_assert_null(r);
}

Test(train, a_partly_matching_target_list_warns)
{
    vramest_result *r = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"finetune\":\"lora\",\"lora_targets\":\"q_proj,query\"", &r), VRAMEST_OK);
    int found = 0;
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
        if (strstr(vramest_result_warning(r, i), "'query'")) found = 1;
    cr_assert(found);
    vramest_result_free(r);
}

Test(train, sequence_longer_than_the_model_warns)
{
    vramest_result *r = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"seq_len\":8192", &r), VRAMEST_OK);
    int found = 0;
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
        if (strstr(vramest_result_warning(r, i), "max_position_embeddings")) found = 1;
    cr_assert(found);
    vramest_result_free(r);
}

Test(train, unknown_optimizer_and_checkpointing_in_inference_are_refused)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    cr_assert_neq(vramest_config_set_str(c, VRAMEST_CFG_OPTIMIZER, "adamax"), VRAMEST_OK);
    vramest_config_free(c);
    char spec[2048];
    snprintf(spec, sizeof spec,
             "{\"model\":{\"arch\":%s},\"workload\":{\"mode\":\"infer\",\"gradient_checkpointing\":\"full\"}}", LLAMA);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_result *r = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), &m, &p, &c);
    if (rc == VRAMEST_OK) {
        rc = vramest_estimate(m, p, c, &r);
        vramest_model_free(m);
        vramest_precision_free(p);
        vramest_config_free(c);
    }
    cr_assert_eq(rc, VRAMEST_E_CONFLICT);
}

Test(train, headline_figures_are_the_sums_of_the_breakdown)
{
    vramest_result *r = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":4,\"seq_len\":2048", &r), VRAMEST_OK);
    uint64_t all[16];
    size_t n = 0;
    cr_assert_eq(vramest_result_get_all(r, VRAMEST_DEV_GPU, all, 16, &n), VRAMEST_OK);
    uint64_t a = 0;
    for (size_t i = 0; i < n; i++)
        if (i != VRAMEST_CAT_FRAMEWORK && i != VRAMEST_CAT_ALLOCATOR) a += all[i];
    cr_assert_eq(val(r, VRAMEST_VAL_PEAK_ALLOCATED), a);
    cr_assert_eq(val(r, VRAMEST_VAL_PEAK_RESERVED), a + all[VRAMEST_CAT_ALLOCATOR]);
    cr_assert(all[VRAMEST_CAT_ALLOCATOR] > 0);
    cr_assert(all[VRAMEST_CAT_WORKSPACE] >= 2 * 8519680u, "two cuBLAS workspaces");
    vramest_result_free(r);
}

Test(train, memory_grows_with_batch_and_sequence)
{
    uint64_t prev = 0;
    for (int b = 1; b <= 8; b *= 2) {
        vramest_result *r = NULL;
        char w[128];
        snprintf(w, sizeof w, "\"batch_size\":%d,\"seq_len\":1024", b);
        cr_assert_eq(est(LLAMA, "bf16", w, &r), VRAMEST_OK);
        uint64_t a = val(r, VRAMEST_VAL_PEAK_ALLOCATED);
        cr_assert_gt(a, prev, "batch %d", b);
        prev = a;
        vramest_result_free(r);
    }
}

Test(train, checkpointing_and_flash_save_memory)
{
    vramest_result *e = NULL, *s = NULL, *f = NULL, *g = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":4,\"seq_len\":2048,\"attention\":\"eager\"", &e), VRAMEST_OK);
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":4,\"seq_len\":2048,\"attention\":\"sdpa\"", &s), VRAMEST_OK);
    cr_assert_eq(est(LLAMA, "bf16",
                     "\"batch_size\":4,\"seq_len\":2048,\"attention\":\"eager\",\"gradient_checkpointing\":\"selective\"", &f),
                 VRAMEST_OK);
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":4,\"seq_len\":2048,\"gradient_checkpointing\":\"full\"", &g),
                 VRAMEST_OK);
    uint64_t ve = val(e, VRAMEST_VAL_PEAK_ALLOCATED), vs = val(s, VRAMEST_VAL_PEAK_ALLOCATED);
    uint64_t vf = val(f, VRAMEST_VAL_PEAK_ALLOCATED), vg = val(g, VRAMEST_VAL_PEAK_ALLOCATED);
    cr_assert_lt(vs, ve, "sdpa keeps no b*a*s*s scores");
    cr_assert_lt(vf, ve, "selective recompute drops the scores");
    cr_assert_lt(vg, vs, "full checkpointing keeps one input per layer");
    vramest_result_free(e);
    vramest_result_free(s);
    vramest_result_free(f);
    vramest_result_free(g);
}

Test(train, lora_counts_and_fp32_adapters)
{
    /* mT5-base, LoRA r=8 on q,v: PEFT reports 884,736 trainable parameters. */
    const char *mt5 = "{\"model_type\":\"mt5\",\"d_model\":768,\"d_ff\":2048,\"d_kv\":64,\"num_heads\":12,"
                      "\"num_layers\":12,\"num_decoder_layers\":12,\"vocab_size\":250112,"
                      "\"is_gated_act\":true,\"hidden_act\":\"gelu_new\",\"tie_word_embeddings\":false}";
    vramest_result *r = NULL;
    cr_assert_eq(est(mt5, "fp32", "\"batch_size\":32,\"seq_len\":10,\"finetune\":\"lora\",\"lora_rank\":8", &r),
                 VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(val(r, VRAMEST_VAL_PARAMS_TRAINABLE), 884736u);
    cr_assert_eq(cat(r, VRAMEST_CAT_GRADIENTS), 0);
    cr_assert_gt(cat(r, VRAMEST_CAT_ADAPTER), 884736u * 4u, "fp32 adapter weights + grads + states");
    vramest_result_free(r);
}

Test(train, paged_8bit_states_are_outside_the_allocator)
{
    vramest_result *a = NULL, *p = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"optimizer\":\"adamw_8bit\"", &a), VRAMEST_OK);
    cr_assert_eq(est(LLAMA, "bf16", "\"optimizer\":\"paged_adamw_8bit\"", &p), VRAMEST_OK);
    uint64_t host = 0;
    cr_assert_eq(vramest_result_get(p, VRAMEST_DEV_HOST, VRAMEST_CAT_OPTIMIZER_STATES, &host), VRAMEST_OK);
    cr_assert_gt(host, 0);
    cr_assert_lt(cat(p, VRAMEST_CAT_OPTIMIZER_STATES), cat(a, VRAMEST_CAT_OPTIMIZER_STATES) / 10);
    /* 8-bit states: ~2 B per parameter plus absmax, far below bf16 Adam's 4 B. */
    uint64_t params = val(a, VRAMEST_VAL_PARAMS_TOTAL);
    cr_assert_lt(cat(a, VRAMEST_CAT_OPTIMIZER_STATES), params * 21 / 10);
    vramest_result_free(a);
    vramest_result_free(p);
}

Test(train, gradient_accumulation_keeps_gradients_through_the_forward)
{
    vramest_result *one = NULL, *acc = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":2,\"seq_len\":2048,\"grad_accum_steps\":1", &one), VRAMEST_OK);
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":2,\"seq_len\":2048,\"grad_accum_steps\":8", &acc), VRAMEST_OK);
    cr_assert_geq(val(acc, VRAMEST_VAL_PEAK_ALLOCATED), val(one, VRAMEST_VAL_PEAK_ALLOCATED));
    /* with accumulation the peak holds every gradient */
    cr_assert_geq(cat(acc, VRAMEST_CAT_GRADIENTS), cat(one, VRAMEST_CAT_GRADIENTS));
    vramest_result_free(one);
    vramest_result_free(acc);
}

Test(train, the_plan_names_the_peak_and_a_timeline)
{
    vramest_result *r = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":2", &r), VRAMEST_OK);
    size_t need = 0;
    vramest_result_json(r, NULL, 0, &need);
    char *buf = malloc(need);
    cr_assert_eq(vramest_result_json(r, buf, need, NULL), VRAMEST_OK);
    cr_assert(strstr(buf, "\"peak_phase\":\"") && strstr(buf, "\"timeline\":[{"), "%.300s", buf);
    cr_assert(strstr(buf, "optimizer step") && strstr(buf, "logits and loss"));
    free(buf);
    vramest_result_free(r);
}

/* optimizer_in_backward (torchtune optimizer_in_bwd): the gradients never
 * exist as a set - none at the peak, the peak lower by about their size -
 * and the settings it cannot work with are refused. */
Test(train, optimizer_in_backward_has_no_gradient_set)
{
    vramest_result *a = NULL, *b = NULL;
    cr_assert_eq(est(LLAMA, "bf16", "\"batch_size\":1,\"seq_len\":512,\"optimizer\":\"adamw\"", &a), VRAMEST_OK);
    cr_assert_eq(est(LLAMA, "bf16",
                     "\"batch_size\":1,\"seq_len\":512,\"optimizer\":\"adamw\",\"optimizer_in_backward\":true", &b),
                 VRAMEST_OK, "%s", vramest_last_error_message());
    uint64_t grads = cat(a, VRAMEST_CAT_GRADIENTS);
    cr_assert_gt(grads, (uint64_t)2 << 30, "bf16 gradients of a 1.2B model: %llu", (unsigned long long)grads);
    cr_assert_eq(cat(b, VRAMEST_CAT_GRADIENTS) < grads / 4, 1, "gradients at the peak: %llu",
                 (unsigned long long)cat(b, VRAMEST_CAT_GRADIENTS));
    uint64_t pa = val(a, VRAMEST_VAL_PEAK_ALLOCATED), pb = val(b, VRAMEST_VAL_PEAK_ALLOCATED);
    cr_assert_lt(pb, pa - grads / 2, "peak %llu with vs %llu without", (unsigned long long)pb, (unsigned long long)pa);
    cr_assert_eq(cat(b, VRAMEST_CAT_OPTIMIZER_STATES), cat(a, VRAMEST_CAT_OPTIMIZER_STATES));
    vramest_result_free(a);
    vramest_result_free(b);

    static const char *const bad[] = {
        "\"optimizer_in_backward\":true,\"grad_accum_steps\":4",
        "\"optimizer_in_backward\":true,\"optimizer\":\"none\"",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        vramest_result *r = NULL;
        cr_assert_eq(est(LLAMA, "bf16", bad[i], &r), VRAMEST_E_CONFLICT, "%s", bad[i]);
        cr_assert(strstr(vramest_last_error_message(), "optimizer_in_backward"), "%s", vramest_last_error_message());
    }
    char spec[1024];
    snprintf(spec, sizeof spec,
             "{\"model\":{\"arch\":%s},\"precision\":\"bf16\",\"workload\":{\"mode\":\"train\","
             "\"optimizer_in_backward\":true},\"parallel\":{\"gpus\":8,\"zero_stage\":2}}",
             LLAMA);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK);
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_E_CONFLICT);
    cr_assert(strstr(vramest_last_error_message(), "zero_stage"), "%s", vramest_last_error_message());
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}
