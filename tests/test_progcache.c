/* Compiled training programs (lib/estimate/cache/progcache.c) against the replay:
 * for every bundled model and a spread of workloads, a training estimate
 * from the cache's compiled forms must be byte-identical to the one that
 * replays the programs on the tape - at the size that compiled them and at
 * other sizes of the same class. The model's memo slot, which holds the
 * cache, is switched off (VX_MEMO_OFF) for the reference. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "common/values.h"
#include "estimate/cache/progcache.h"
#include "model/model.h"

static char *plan_of(vramest_model *m, vramest_precision *p, vramest_config *c, int *rc_out)
{
    vramest_result *r = NULL;
    *rc_out = vramest_estimate(m, p, c, &r);
    if (*rc_out) return NULL;
    size_t need = 0;
    vramest_result_json(r, NULL, 0, &need);
    char *buf = malloc(need + 1);
    cr_assert(buf);
    cr_assert_eq(vramest_result_json(r, buf, need + 1, &need), VRAMEST_OK);
    vramest_result_free(r);
    return buf;
}

/* The plan from the model's cache (estimated twice: these tests compile a
 * structure on its second sighting) and the plan without the cache. */
static void cached_and_fresh(vramest_model *m, vramest_precision *p, vramest_config *c, char **cached, int *rc1,
                             char **fresh, int *rc2)
{
    vx_pcache_set_compile_at(vx_pcache_of(m), 2);
    free(plan_of(m, p, c, rc1));
    *cached = plan_of(m, p, c, rc1);
    vx_memo_obj *keep = vx_memo_swap(&m->memo, VX_MEMO_OFF);
    *fresh = plan_of(m, p, c, rc2);
    vx_memo_swap(&m->memo, keep);
}

/* Estimate at (b, s) with the cache and without; returns 1 when both ran. */
static int compare_at(vramest_model *m, vramest_precision *p, vramest_config *c, int64_t b, int64_t s,
                      const char *what)
{
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_BATCH_SIZE, b), VRAMEST_OK);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_SEQ_LEN, s), VRAMEST_OK);
    int rc1, rc2;
    char *cached, *replay;
    cached_and_fresh(m, p, c, &cached, &rc1, &replay, &rc2);
    cr_assert_eq(rc1, rc2, "%s b=%lld s=%lld: status %d cached vs %d replayed", what, (long long)b, (long long)s,
                 rc1, rc2);
    int ran = rc1 == VRAMEST_OK;
    if (ran)
        cr_assert_str_eq(cached, replay, "%s b=%lld s=%lld: the compiled plan differs from the replay", what,
                         (long long)b, (long long)s);
    free(cached);
    free(replay);
    return ran;
}

static const char *const variants[] = {
    "{\"precision\":\"bf16\",\"workload\":{\"optimizer\":\"adamw\"}}",
    "{\"precision\":\"amp_bf16\",\"workload\":{\"optimizer\":\"adamw\",\"gradient_checkpointing\":\"full\"}}",
    "{\"precision\":\"fp16\",\"workload\":{\"finetune\":\"lora\",\"attention\":\"eager\",\"grad_accum_steps\":4}}",
    "{\"precision\":\"nf4\",\"workload\":{\"finetune\":\"qlora\",\"gradient_checkpointing\":\"full\"}}",
    "{\"precision\":\"fp32\",\"workload\":{\"optimizer\":\"sgd_momentum\",\"attention\":\"flash\","
    "\"gradient_checkpointing\":\"selective\"}}",
    "{\"precision\":\"mixed_bf16\",\"workload\":{\"optimizer\":\"adamw\"},\"parallel\":{\"gpus\":8,\"zero_stage\":3}}",
    "{\"precision\":\"bf16\",\"workload\":{\"finetune\":\"freeze\",\"trainable_layers\":2},\"runtime\":{\"framework\":"
    "\"pytorch\"}}",
    "{\"precision\":\"bf16\",\"workload\":{\"finetune\":\"prefix\",\"prefix_len\":30,\"attention\":\"sdpa\"}}",
    "{\"precision\":\"mixed_bf16\",\"workload\":{\"optimizer\":\"adamw\",\"gradient_checkpointing\":\"full\"},"
    "\"parallel\":{\"gpus\":8,\"pp\":4,\"dp\":2}}",
    "{\"precision\":\"bf16\",\"workload\":{\"optimizer\":\"adamw\"},\"parallel\":{\"gpus\":4,\"tp\":2,\"dp\":2,"
    "\"sequence_parallel\":true},\"runtime\":{\"framework\":\"megatron\"}}",
    "{\"precision\":\"bf16\",\"workload\":{\"optimizer\":\"none\",\"grad_accum_steps\":2}}",
    "{\"precision\":\"bf16\",\"workload\":{\"optimizer\":\"adamw\",\"optimizer_in_backward\":true}}",
    "{\"precision\":\"mixed_bf16\",\"workload\":{\"optimizer\":\"adamw\"},\"parallel\":{\"gpus\":8,\"fsdp\":"
    "\"full_shard\",\"offload_params\":\"cpu\",\"offload_optimizer\":\"cpu\"}}",
    "{\"precision\":\"bf16\",\"workload\":{\"optimizer\":\"adamw\"},\"parallel\":{\"gpus\":8,\"ep\":2,\"cp\":2,"
    "\"dp\":4}}",
};

/* The last two sit in the class of s = 2048 far beyond its probes: the
 * compiled step must either give the composition's plan or step aside. */
static const int64_t sizes[][2] = {{4, 2048}, {5, 2048}, {1, 2048},  {2, 2048},       {3, 1000},           {7, 1128},
                                   {2, 1},    {1, 1},    {6, 4096},  {16, 130},       {1000000, 128},      {3, 2048 + 128 * 100000}};

Test(progcache, compiled_equals_replay_every_preset)
{
    int ran = 0;
    unsigned entries = 0, compiled = 0, steps = 0, steps_compiled = 0;
    /* under valgrind (tests/meson.build) every 12th preset: compiling is
     * ~2.5 M instructions per structure */
    uint32_t step = getenv("VRAMEST_TEST_SUBSET") ? 12 : 1;
    for (uint32_t i = 0; i < vramest_preset_count(); i += step) {
        const char *name = vramest_preset_name(i);
        for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
            char spec[1024];
            /* the variant's objects after the model */
            snprintf(spec, sizeof spec, "{\"model\":\"%s\",%s", name, variants[v] + 1);
            char *w = strstr(spec, "\"workload\":{");
            cr_assert(w);
            memmove(w + 12 + 16, w + 12, strlen(w + 12) + 1);
            memcpy(w + 12, "\"mode\":\"train\",", 15);
            w[12 + 15] = ' ';
            vramest_model *m = NULL;
            vramest_precision *p = NULL;
            vramest_config *c = NULL;
            if (vramest_spec_parse(spec, strlen(spec), &m, &p, &c) != VRAMEST_OK) continue; /* e.g. nf4 of a GGUF-only model */
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) ran += compare_at(m, p, c, sizes[k][0], sizes[k][1], spec);
            unsigned ne, nc, ns, nsc;
            vx_pcache_stats(vx_pcache_of(m), &ne, &nc);
            vx_pcache_step_stats(vx_pcache_of(m), &ns, &nsc);
            entries += ne, compiled += nc;
            steps += ns, steps_compiled += nsc;
            vramest_model_free(m);
            vramest_precision_free(p);
            vramest_config_free(c);
        }
    }
    cr_assert_gt(ran, step > 1 ? 100 : 1000, "only %d estimates ran", ran);
    /* most structures must take the compiled path (else this tests nothing) */
    cr_log_info("%d estimates, %u programs cached, %u compiled; %u steps, %u compiled", ran, entries, compiled,
                steps, steps_compiled);
    cr_assert_gt(compiled * 10, entries * 8, "%u of %u programs compiled", compiled, entries);
    cr_assert_gt(steps_compiled * 10, steps * 8, "%u of %u steps compiled", steps_compiled, steps);
}

/* A job estimated again takes the compiled path for every program: the
 * embeddings, the head and the layer(s) - none is left replaying because
 * another structure keeps evicting it from the seen-set. */
Test(progcache, a_repeated_job_compiles_every_program)
{
    int checked = 0;
    for (uint32_t i = 0; i < vramest_preset_count(); i++) {
        char spec[512];
        snprintf(spec, sizeof spec,
                 "{\"model\":\"%s\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"train\",\"batch_size\":4,"
                 "\"seq_len\":512,\"finetune\":\"lora\"}}",
                 vramest_preset_name(i));
        vramest_model *m = NULL;
        vramest_precision *p = NULL;
        vramest_config *c = NULL;
        if (vramest_spec_parse(spec, strlen(spec), &m, &p, &c) != VRAMEST_OK) continue;
        int rc;
        vx_pcache_set_compile_at(vx_pcache_of(m), 2);
        for (int k = 0; k < 3; k++) free(plan_of(m, p, c, &rc));
        unsigned ne, nc, ns, nsc;
        vx_pcache_stats(vx_pcache_of(m), &ne, &nc);
        vx_pcache_step_stats(vx_pcache_of(m), &ns, &nsc);
        if (rc == VRAMEST_OK) {
            cr_assert_geq(ne, 3, "%s: %u programs cached", vramest_preset_name(i), ne);
            cr_assert_eq(nc, ne, "%s: %u of %u programs compiled", vramest_preset_name(i), nc, ne);
            cr_assert_eq(ns, 1, "%s: %u step slots", vramest_preset_name(i), ns);
            cr_assert_eq(nsc, 1, "%s: the step did not compile", vramest_preset_name(i));
            checked++;
        }
        vramest_model_free(m);
        vramest_precision_free(p);
        vramest_config_free(c);
    }
    cr_assert_gt(checked, 40, "only %d presets checked", checked);
}

/* The default policy: a structure replays until its VX_PC_COMPILE_AT-th
 * sighting, which compiles its programs and its step. */
Test(progcache, a_structure_compiles_on_its_nth_sighting)
{
    const char *spec = "{\"model\":\"llama-2-7b\",\"precision\":\"bf16\",\"workload\":{\"mode\":\"train\","
                       "\"batch_size\":4,\"seq_len\":2048}}";
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK, "%s", vramest_last_error_message());
    int rc;
    unsigned ne, nc, ns, nsc;
    for (int k = 1; k < VX_PC_COMPILE_AT; k++) free(plan_of(m, p, c, &rc));
    vx_pcache_stats(vx_pcache_of(m), &ne, &nc);
    cr_assert_eq(ne, 0, "%u programs cached before sighting %d", ne, VX_PC_COMPILE_AT);
    char *compiled = plan_of(m, p, c, &rc);
    cr_assert_eq(rc, VRAMEST_OK);
    vx_pcache_stats(vx_pcache_of(m), &ne, &nc);
    vx_pcache_step_stats(vx_pcache_of(m), &ns, &nsc);
    cr_assert(ne >= 3 && nc == ne, "sighting %d: %u of %u programs compiled", VX_PC_COMPILE_AT, nc, ne);
    cr_assert(ns == 1 && nsc == 1, "sighting %d: %u of %u steps compiled", VX_PC_COMPILE_AT, nsc, ns);
    char *again = plan_of(m, p, c, &rc);
    cr_assert_str_eq(compiled, again);
    free(compiled);
    free(again);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
}

/* Handle values compare and copy by meaning: a string up to its NUL, what
 * follows it ignored; the static-terms key leaves out batch_size and
 * seq_len. */
Test(progcache, values_compare_strings_as_strings)
{
    vx_config_values *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *d = malloc(sizeof *d);
    cr_assert(a && b && d);
    strcpy(a->device, "A100-80GB");
    strcpy(b->device, "A100-80GB");
    memset(b->device + 10, 'x', 20); /* a longer name overwritten by a shorter one leaves a tail */
    cr_assert(vx_values_equal(a, b, &vx_config_layout));
    b->batch_size = 7, b->seq_len = 99;
    cr_assert(!vx_values_equal(a, b, &vx_config_layout));
    cr_assert(vx_values_equal(a, b, &vx_config_key_layout));
    strcpy(b->lora_targets, "q_proj");
    cr_assert(!vx_values_equal(a, b, &vx_config_key_layout));
    b->gpus = 8;
    vx_values_copy(d, b, &vx_config_layout);
    cr_assert(vx_values_equal(d, b, &vx_config_layout));
    cr_assert_str_eq(d->lora_targets, "q_proj");
    cr_assert_str_eq(d->device, "A100-80GB");
    cr_assert_eq(d->gpus, 8);
    cr_assert_eq(d->seq_len, 99);
    free(a), free(b), free(d);
}

/* Load and inference read the weights' allocation statistics from the
 * model's cache: the plans must equal those computed afresh, for every
 * preset under precisions that quantize, keep or split the weights. */
Test(progcache, cached_weight_stats_equal_fresh_ones)
{
    static const char *const jobs[] = {
        "\"precision\":\"bf16\",\"workload\":{\"mode\":\"load\"}",
        "\"precision\":\"nf4\",\"workload\":{\"mode\":\"load\"}",
        "\"precision\":\"int8\",\"workload\":{\"mode\":\"infer\",\"batch_size\":2,\"prompt_len\":300,\"gen_len\":20}",
        "\"precision\":\"fp16\",\"workload\":{\"mode\":\"infer\",\"head\":\"seq_cls\",\"num_labels\":3}",
        "\"precision\":\"bf16\",\"workload\":{\"mode\":\"load\"},\"parallel\":{\"gpus\":2,\"tp\":2}",
        "\"precision\":\"bf16\",\"workload\":{\"mode\":\"load\"},\"runtime\":{\"framework\":\"llama_cpp\"}",
    };
    int ran = 0;
    uint32_t step = getenv("VRAMEST_TEST_SUBSET") ? 12 : 1;
    for (uint32_t i = 0; i < vramest_preset_count(); i += step)
        for (size_t j = 0; j < sizeof jobs / sizeof *jobs; j++) {
            char spec[512];
            snprintf(spec, sizeof spec, "{\"model\":\"%s\",%s}", vramest_preset_name(i), jobs[j]);
            vramest_model *m = NULL;
            vramest_precision *p = NULL;
            vramest_config *c = NULL;
            if (vramest_spec_parse(spec, strlen(spec), &m, &p, &c) != VRAMEST_OK) continue;
            int rc1, rc2;
            char *cached, *fresh;
            cached_and_fresh(m, p, c, &cached, &rc1, &fresh, &rc2);
            cr_assert_eq(rc1, rc2, "%s: status %d cached vs %d fresh", spec, rc1, rc2);
            if (rc1 == VRAMEST_OK) {
                cr_assert_str_eq(cached, fresh, "%s: the cached weight statistics changed the plan", spec);
                ran++;
            }
            free(cached);
            free(fresh);
            vramest_model_free(m);
            vramest_precision_free(p);
            vramest_config_free(c);
        }
    cr_assert_gt(ran, step > 1 ? 10 : 100, "only %d estimates ran", ran);
}
