/* The training estimator against the torch harness (tests/data/harness):
 * exact tensor bytes of real PyTorch training steps (torch 1.13 on CPU,
 * transformers ~4.38-4.44 eager code paths) for small Llama- and GPT-2-style
 * models - full and LoRA fine-tuning, checkpointing, fp32 / bf16 / autocast.
 *
 * Each fixture is a public job spec with the stack the harness ran:
 *   torch_version 1.13         torch 1.13's mean() saves its input (RMSNorm +4 B/elem)
 *   transformers_version 4.44  the code paths the harness mirrors (per-layer RoPE
 *                              tables, Llama logits.float() in the model, the
 *                              shifted-logits copy); 4.49 for --loss-impl new
 *                              (labels padded and shifted, no logits copy)
 *   framework hf_trainer       the loop drops the returned logits before backward
 *                              and zeroes gradients with set_to_none=True, as
 *                              Trainer.training_step does (the harness: `del
 *                              logits`, opt.zero_grad(set_to_none=True))
 * and two settings of the harness itself stay internal (runtime.h):
 *   cpu 1           tensors on the CPU: no CUDA-only terms (cuBLAS workspaces,
 *                   512-B rounding, allocator reserve, CUDA context - the
 *                   context is not in peak_allocated anyway), CPU autocast op
 *                   lists, AdamW's `step` counters counted, the checkpoint's
 *                   CPU RNG state per layer; with --dropout-impl composite the
 *                   CPU F.dropout path keeps its mask in the activation dtype
 *   adapter_bytes   the harness's own LoRA module (models.py) builds its
 *                   matrices in the base weight's dtype, where PEFT upcasts
 *                   them to fp32
 * and compared on the steady-state peak (step 2) of tensor bytes, minus the
 * module buffers that are not parameters (GPT-2's causal `bias` buffers of
 * max_pos^2 bytes per layer, which current transformers no longer registers,
 * and Llama's inv_freq). All runs use single-tensor AdamW / SGD (torch 1.13's
 * CPU default, foreach=False). Tolerance: 5%. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "estimate/train/train.h"
#include "helpers.h"
#include "result/result.h"

static int64_t geti(json_object *o, const char *k, int64_t dflt)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null)) return dflt;
    return json_object_get_int64(v);
}

static const char *gets(json_object *o, const char *k, const char *dflt)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null)) return dflt;
    return json_object_get_string(v);
}

static double getd(json_object *o, const char *k, double dflt)
{
    json_object *v;
    if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null)) return dflt;
    return json_object_get_double(v);
}

/* The job spec of one harness run (measure.py's model: max_pos 2048,
 * Llama untied, GPT-2 tied with dropout 0.1 unless --dropout). */
static void spec_of(json_object *cfg, char *buf, size_t cap)
{
    const char *arch = gets(cfg, "arch", "llama");
    int llama = !strcmp(arch, "llama");
    int64_t h = geti(cfg, "hidden", 256), L = geti(cfg, "layers", 2), H = geti(cfg, "heads", 8);
    int64_t kv = llama ? geti(cfg, "kv_heads", H) : H;
    int64_t I = geti(cfg, "intermediate", llama ? 8 * h / 3 : 4 * h), V = geti(cfg, "vocab", 1000);
    double p = getd(cfg, "dropout", llama ? 0.0 : 0.1);
    const char *act = llama ? "silu" : (!strcmp(gets(cfg, "gelu_impl", "new"), "fused") ? "gelu_pytorch_tanh" : "gelu_new");
    json_object *amp_o;
    int amp = json_object_object_get_ex(cfg, "amp", &amp_o) && json_object_get_boolean(amp_o);
    const char *prec = amp ? "amp_bf16" : gets(cfg, "dtype", "fp32");
    int lora = geti(cfg, "lora_rank", 0) > 0;
    json_object *ck;
    int ckpt = json_object_object_get_ex(cfg, "checkpointing", &ck) && json_object_get_boolean(ck);
    const char *opt = !strcmp(gets(cfg, "optimizer", "adamw"), "sgd") ? "sgd_momentum" : "adamw";
    /* --tie yes|no overrides the architecture's default (Llama untied, GPT-2 tied). */
    const char *tie_s = gets(cfg, "tie", NULL);
    int tie = tie_s ? !strcmp(tie_s, "yes") : !llama;
    char lt[192] = "";
    if (lora) {
        /* measure.py matches a leaf name, name + "_proj" or name - "_proj". */
        const char *t = gets(cfg, "lora_targets", "q,v");
        char names[96] = "";
        size_t o = 0;
        for (const char *q = t; *q; q++) {
            if (*q == ',') continue;
            /* Llama: q -> q_proj; GPT-2 names are used as they are. */
            if (llama && o + 8 < sizeof names) o += (size_t)snprintf(names + o, sizeof names - o, "%s%c_proj", o ? "," : "", *q);
        }
        snprintf(lt, sizeof lt, ",\"finetune\":\"lora\",\"lora_rank\":%lld,\"lora_targets\":\"%s\"",
                 (long long)geti(cfg, "lora_rank", 8), llama ? names : t);
    }
    snprintf(buf, cap,
             "{\"model\":{\"arch\":{\"model_type\":\"%s\",\"hidden_size\":%lld,\"num_hidden_layers\":%lld,"
             "\"num_attention_heads\":%lld,\"num_key_value_heads\":%lld,\"intermediate_size\":%lld,"
             "\"vocab_size\":%lld,\"max_position_embeddings\":2048,\"tie_word_embeddings\":%s,\"hidden_act\":\"%s\","
             "\"hidden_dropout\":%g,\"attention_dropout\":%g}},"
             "\"precision\":\"%s\","
             "\"workload\":{\"mode\":\"train\",\"batch_size\":%lld,\"seq_len\":%lld,\"optimizer\":\"%s\","
             "\"optimizer_impl\":\"single_tensor\",\"gradient_checkpointing\":\"%s\",\"attention\":\"eager\"%s},"
             "\"runtime\":{\"framework\":\"hf_trainer\",\"torch_version\":\"1.13\",\"transformers_version\":\"%s\"}}",
             llama ? "llama" : "gpt2", (long long)h, (long long)L, (long long)H, (long long)kv, (long long)I,
             (long long)V, tie ? "true" : "false", act, p, p, prec, (long long)geti(cfg, "batch", 2),
             (long long)geti(cfg, "seq", 128), opt, ckpt ? "full" : "none", lt,
             strcmp(gets(cfg, "loss_impl", "legacy"), "new") ? "4.44" : "4.49");
}

typedef struct run {
    uint64_t est, want;
    double err;
} run;

/* Estimate one fixture line; returns 0 when the spec was refused. */
static int estimate(json_object *rec, run *out)
{
    json_object *cfg = json_object_object_get(rec, "config");
    char spec[2048];
    spec_of(cfg, spec, sizeof spec);
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), &m, &p, &c);
    cr_assert_eq(rc, VRAMEST_OK, "spec refused: %s\n%s", vramest_last_error_message(), spec);

    struct vramest_result *r = calloc(1, sizeof *r);
    cr_assert(r);
    r->magic = VX_MAGIC_RESULT;
    vx_ctx x;
    cr_assert_eq(vx_ctx_init(&x, m, &p->v, c, r), VRAMEST_OK);
    /* The spec's versions, resolved by the config (not a table of the test). */
    cr_assert(x.rt.torch1_mean && x.rt.framework == VX_FW_HF_TRAINER && !x.rt.logits_held);
    /* The harness's own settings (the header). */
    json_object *amp_o;
    int amp = json_object_object_get_ex(cfg, "amp", &amp_o) && json_object_get_boolean(amp_o);
    int bf16 = !strcmp(gets(cfg, "dtype", "fp32"), "bf16") && !amp;
    x.rt.cpu = 1;
    x.rt.adapter_bytes = bf16 ? 2 : 4;
    x.rt.mask_bytes = !strcmp(gets(cfg, "dropout_impl", "native"), "composite") ? (bf16 || amp ? 2 : 4) : 1;
    rc = vx_estimate_train(&x);
    cr_assert_eq(rc, VRAMEST_OK, "estimate failed: %s", vramest_last_error_message());
    vx_result_finish(r);
    if (getenv("VT_TRAIN_DEBUG")) {
        json_object *pp = json_object_object_get(rec, "peak_by_phase");
        uint64_t bf = (uint64_t)geti(json_object_object_get(rec, "bytes"), "buffers", 0);
        fprintf(stderr, "measured: fwd %lld bwd %lld opt %lld saved %lld ftr %lld btr %lld\n",
                (long long)(geti(pp, "forward2", 0) - (int64_t)bf), (long long)(geti(pp, "backward2", 0) - (int64_t)bf),
                (long long)(geti(pp, "optimizer2", 0) - (int64_t)bf),
                (long long)geti(json_object_object_get(rec, "bytes"), "activations_saved", 0),
                (long long)geti(json_object_object_get(rec, "bytes"), "forward_transient", 0),
                (long long)geti(json_object_object_get(rec, "bytes"), "backward_transient_over_grads", 0));
        for (uint32_t i = 0; i < r->n_timeline; i++)
            fprintf(stderr, "  %d %3d %12llu %s\n", r->timeline[i].phase, r->timeline[i].layer,
                    (unsigned long long)r->timeline[i].allocated, r->timeline[i].label);
        for (int i = 0; i < VX_NCAT; i++)
            if (r->cat[0][i]) fprintf(stderr, "  cat %d %llu\n", i, (unsigned long long)r->cat[0][i]);
    }
    uint64_t buffers = (uint64_t)geti(json_object_object_get(rec, "bytes"), "buffers", 0);
    out->est = r->val[VRAMEST_VAL_PEAK_ALLOCATED];
    out->want = (uint64_t)geti(rec, "steady_peak", 0) - buffers;
    out->err = ((double)out->est - (double)out->want) / (double)out->want;
    free(r);
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return 1;
}

Test(train_harness, steady_peak_within_5_percent)
{
    size_t len = 0;
    char *data = vt_read_data("harness/cpu_measurements.jsonl", &len);
    int n = 0, bad = 0;
    double worst = 0;
    for (char *line = strtok(data, "\n"); line; line = strtok(NULL, "\n")) {
        json_object *rec = json_tokener_parse(line);
        cr_assert(rec, "bad fixture line");
        run rr;
        if (estimate(rec, &rr)) {
            n++;
            double a = rr.err < 0 ? -rr.err : rr.err;
            if (a > worst) worst = a;
            if (a > 0.05) bad++;
            fprintf(stderr, "%-110s est %10llu want %10llu %+6.1f%%%s\n", gets(rec, "cmd", ""),
                    (unsigned long long)rr.est, (unsigned long long)rr.want, 100 * rr.err, a > 0.05 ? "  <-- " : "");
        }
        json_object_put(rec);
    }
    free(data);
    fprintf(stderr, "harness: %d runs, worst |err| %.1f%%, %d over 5%%\n", n, 100 * worst, bad);
    cr_expect_geq(n, 54, "at least 54 training runs expected, got %d", n);
    cr_expect_eq(bad, 0, "%d of %d harness runs are more than 5%% off (worst %.1f%%)", bad, n, 100 * worst);
}
