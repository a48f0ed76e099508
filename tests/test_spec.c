/* Job specs (design.md §6): every contract key in its object, the model
 * sources, errors that name what is wrong, hostile and truncated JSON, and
 * the plan's buffer protocol. Black-box: links the shared library. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vramest/vramest.h>

#define PRESET "llama-2-7b"

/* A complete architecture for "arch" and "hf_config" specs (Llama 2 7B). */
#define LLAMA_ARCH                                                                                          \
    "\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "                          \
    "\"num_attention_heads\": 32, \"num_key_value_heads\": 32, \"intermediate_size\": 11008, "               \
    "\"vocab_size\": 32000, \"max_position_embeddings\": 4096"
#define LLAMA_CONFIG                                                                                        \
    "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_act\": \"silu\", " LLAMA_ARCH                      \
    ", \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"torch_dtype\": \"float16\"}"

typedef struct spec_out {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
} spec_out;

static void spec_free(spec_out *s)
{
    vramest_model_free(s->m);
    vramest_precision_free(s->p);
    vramest_config_free(s->c);
    memset(s, 0, sizeof *s);
}

/* Parse from an exact-size heap copy, so a read past `len` is a sanitizer
 * error rather than a lucky NUL. */
static int parse_len(const char *json, size_t len, spec_out *s)
{
    char *copy = malloc(len ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, json, len);
    /* Sentinels: outputs must be NULL after a failure, not left alone. */
    s->m = (vramest_model *)copy, s->p = (vramest_precision *)copy, s->c = (vramest_config *)copy;
    int rc = vramest_spec_parse(copy, len, &s->m, &s->p, &s->c);
    free(copy);
    if (rc) {
        cr_assert_null(s->m, "model output not NULL after failure %d", rc);
        cr_assert_null(s->p, "precision output not NULL after failure %d", rc);
        cr_assert_null(s->c, "config output not NULL after failure %d", rc);
    } else {
        cr_assert(s->m && s->p && s->c);
    }
    return rc;
}

static int parse(const char *json, spec_out *s)
{
    return parse_len(json, strlen(json), s);
}

static void parse_ok(const char *json, spec_out *s)
{
    int rc = parse(json, s);
    cr_assert_eq(rc, VRAMEST_OK, "spec %s\n  -> %s: %s", json, vramest_status_string(rc),
                 vramest_last_error_message());
}

/* Fails with `code` and a message holding each of the NULL-terminated words. */
static void parse_fails(const char *json, int code, ...)
{
    spec_out s;
    int rc = parse(json, &s);
    cr_assert_eq(rc, code, "spec %s\n  -> %d (%s: %s), expected %d (%s)", json, rc, vramest_status_string(rc),
                 vramest_last_error_message(), code, vramest_status_string(code));
    va_list ap;
    va_start(ap, code);
    for (const char *w; (w = va_arg(ap, const char *));)
        cr_assert(strstr(vramest_last_error_message(), w), "message for %s\n  \"%s\"\n  lacks \"%s\"", json,
                  vramest_last_error_message(), w);
    va_end(ap);
}

/* The option of `name` in spec object `group`, found through the registry. */
static vramest_option option_in(const char *group, const char *name)
{
    uint32_t n = vramest_option_count();
    for (uint32_t i = 0; i < n; i++) {
        vramest_option k;
        cr_assert_eq(vramest_option_at(i, &k), VRAMEST_OK);
        if (!strcmp(vramest_option_name(k), name) && !strcmp(vramest_option_group(k), group)) return k;
    }
    cr_assert_fail("no option %s.%s in the registry", group, name);
    return (vramest_option)0;
}

static int get_str(spec_out *s, vramest_option k, const char **out)
{
    int handle = 0;
    vramest_option_info(k, NULL, &handle, NULL, NULL, NULL);
    return handle == VRAMEST_HANDLE_MODEL       ? vramest_model_get_str(s->m, k, out)
           : handle == VRAMEST_HANDLE_PRECISION ? vramest_precision_get_str(s->p, k, out)
                                                : vramest_config_get_str(s->c, k, out);
}

static int get_i64(spec_out *s, vramest_option k, int64_t *out)
{
    int handle = 0;
    vramest_option_info(k, NULL, &handle, NULL, NULL, NULL);
    return handle == VRAMEST_HANDLE_MODEL       ? vramest_model_get_i64(s->m, k, out)
           : handle == VRAMEST_HANDLE_PRECISION ? vramest_precision_get_i64(s->p, k, out)
                                                : vramest_config_get_i64(s->c, k, out);
}

static int get_f64(spec_out *s, vramest_option k, double *out)
{
    int handle = 0;
    vramest_option_info(k, NULL, &handle, NULL, NULL, NULL);
    return handle == VRAMEST_HANDLE_MODEL       ? vramest_model_get_f64(s->m, k, out)
           : handle == VRAMEST_HANDLE_PRECISION ? vramest_precision_get_f64(s->p, k, out)
                                                : vramest_config_get_f64(s->c, k, out);
}

/* ---- the contract vocabulary (design.md §6 table) ---- */

typedef struct key_case {
    const char *object; /* spec object */
    const char *key;
    const char *json;   /* the value as JSON */
    const char *expect; /* expected read-back: enum/string text, or a number as text */
} key_case;

static const key_case contract[] = {
    {"precision", "weights", "\"nf4\"", "nf4"},
    {"precision", "weights", "\"fp32\"", "fp32"},
    {"precision", "weights", "\"fp16\"", "fp16"},
    {"precision", "weights", "\"bf16\"", "bf16"},
    {"precision", "weights", "\"fp8\"", NULL},
    {"precision", "weights", "\"int8\"", "int8"},
    {"precision", "weights", "\"int4\"", "int4"},
    {"precision", "weights", "\"fp4\"", "fp4"},
    {"precision", "weights", "\"f32\"", NULL},
    {"precision", "weights", "\"f16\"", NULL},
    {"precision", "weights", "\"q8_0\"", "q8_0"},
    {"precision", "weights", "\"q4_0\"", "q4_0"},
    {"precision", "weights", "\"q4_k_m\"", "q4_k_m"},
    {"precision", "weights", "\"q5_k_m\"", "q5_k_m"},
    {"precision", "weights", "\"q6_k\"", "q6_k"},
    {"precision", "compute", "\"fp32\"", "fp32"},
    {"precision", "compute", "\"fp16\"", "fp16"},
    {"precision", "compute", "\"bf16\"", "bf16"},
    {"precision", "amp", "true", "1"},
    {"precision", "master_weights", "\"none\"", "none"},
    {"precision", "master_weights", "\"fp32\"", "fp32"},
    {"precision", "gradients", "\"bf16\"", "bf16"},
    {"precision", "optimizer_states", "\"fp32\"", "fp32"},
    {"precision", "optimizer_states", "\"int8\"", "int8"},
    {"precision", "kv_cache", "\"fp16\"", "fp16"},
    {"precision", "kv_cache", "\"fp8\"", NULL},
    {"precision", "quant_group_size", "64", "64"},
    {"precision", "double_quant", "true", "1"},
    {"precision", "skip_modules", "[\"lm_head\"]", "lm_head"},
    {"precision", "skip_modules", "[\"self_attn\", \"embed_tokens\", \"lm_head\"]", "self_attn,embed_tokens,lm_head"},
    {"workload", "mode", "\"load\"", "load"},
    {"workload", "mode", "\"train\"", "train"},
    {"workload", "mode", "\"infer\"", "infer"},
    {"workload", "batch_size", "8", "8"},
    {"workload", "batch_size", "8.0", "8"},
    {"workload", "seq_len", "2048", "2048"},
    {"workload", "grad_accum_steps", "4", "4"},
    {"workload", "head", "\"causal_lm\"", "causal_lm"},
    {"workload", "head", "\"seq2seq_lm\"", "seq2seq_lm"},
    {"workload", "head", "\"masked_lm\"", "masked_lm"},
    {"workload", "head", "\"seq_cls\"", "seq_cls"},
    {"workload", "head", "\"none\"", "none"},
    {"workload", "num_labels", "3", "3"},
    {"workload", "optimizer", "\"none\"", "none"},
    {"workload", "optimizer", "\"sgd\"", "sgd"},
    {"workload", "optimizer", "\"sgd_momentum\"", "sgd_momentum"},
    {"workload", "optimizer", "\"adam\"", "adam"},
    {"workload", "optimizer", "\"adamw\"", "adamw"},
    {"workload", "optimizer", "\"adamw_8bit\"", "adamw_8bit"},
    {"workload", "optimizer", "\"paged_adamw_8bit\"", "paged_adamw_8bit"},
    {"workload", "optimizer", "\"adafactor\"", "adafactor"},
    {"workload", "optimizer", "\"lion\"", "lion"},
    {"workload", "optimizer_impl", "\"foreach\"", "foreach"},
    {"workload", "optimizer_impl", "\"fused\"", "fused"},
    {"workload", "optimizer_impl", "\"single_tensor\"", "single_tensor"},
    {"workload", "finetune", "\"full\"", "full"},
    {"workload", "finetune", "\"lora\"", "lora"},
    {"workload", "finetune", "\"qlora\"", "qlora"},
    {"workload", "finetune", "\"prefix\"", "prefix"},
    {"workload", "finetune", "\"freeze\"", "freeze"},
    {"workload", "lora_rank", "16", "16"},
    {"workload", "lora_targets", "[\"q_proj\", \"v_proj\"]", "q_proj,v_proj"},
    {"workload", "lora_targets", "\"all-linear\"", "all-linear"},
    {"workload", "gradient_checkpointing", "\"none\"", "none"},
    {"workload", "gradient_checkpointing", "\"full\"", "full"},
    {"workload", "gradient_checkpointing", "\"selective\"", "selective"},
    {"workload", "attention", "\"eager\"", "eager"},
    {"workload", "attention", "\"sdpa\"", "sdpa"},
    {"workload", "attention", "\"flash\"", "flash"},
    {"workload", "prompt_len", "512", "512"},
    {"workload", "gen_len", "128", "128"},
    {"workload", "kv_cache", "false", "0"},
    {"workload", "kv_cache", "true", "1"},
    {"workload", "beams", "4", "4"},
    {"parallel", "gpus", "8", "8"},
    {"parallel", "tp", "2", "2"},
    {"parallel", "pp", "2", "2"},
    {"parallel", "dp", "2", "2"},
    {"parallel", "ep", "2", "2"},
    {"parallel", "zero_stage", "3", "3"},
    {"parallel", "fsdp", "\"none\"", "none"},
    {"parallel", "fsdp", "\"full_shard\"", "full_shard"},
    {"parallel", "fsdp", "\"shard_grad_op\"", "shard_grad_op"},
    {"parallel", "fsdp", "\"hybrid_shard\"", "hybrid_shard"},
    {"parallel", "offload_optimizer", "\"none\"", "none"},
    {"parallel", "offload_optimizer", "\"cpu\"", "cpu"},
    {"parallel", "offload_optimizer", "\"nvme\"", "nvme"},
    {"parallel", "offload_params", "\"none\"", "none"},
    {"parallel", "offload_params", "\"cpu\"", "cpu"},
    {"parallel", "offload_params", "\"nvme\"", "nvme"},
    {"parallel", "sequence_parallel", "true", "1"},
    {"parallel", "cp", "2", "2"},
    {"parallel", "pp_schedule", "\"1f1b\"", "1f1b"},
    {"parallel", "pp_schedule", "\"gpipe\"", "gpipe"},
    {"parallel", "pp_schedule", "\"interleaved\"", "interleaved"},
    {"parallel", "virtual_stages", "2", "2"},
    {"device", "memory_gib", "80", "80"},
    {"device", "memory_gib", "15.47", "15.47"},
    {"device", "device", "\"H100-80GB\"", "H100-80GB"},
    {"runtime", "cuda_context_mib", "500", "500"},
    {"runtime", "framework", "\"pytorch\"", "pytorch"},
    {"runtime", "framework", "\"hf_trainer\"", "hf_trainer"},
    {"runtime", "framework", "\"deepspeed\"", "deepspeed"},
    {"runtime", "framework", "\"megatron\"", "megatron"},
    {"runtime", "framework", "\"vllm\"", "vllm"},
    {"runtime", "framework", "\"llama.cpp\"", "llama.cpp"},
    {"runtime", "gpu_memory_utilization", "0.9", "0.9"},
    {"runtime", "block_size", "16", "16"},
    {"runtime", "max_model_len", "4096", "4096"},
    {"runtime", "max_num_seqs", "256", "256"},
    {"runtime", "max_num_batched_tokens", "8192", "8192"},
    {"runtime", "enforce_eager", "true", "1"},
    {"runtime", "n_gpu_layers", "33", "33"},
    {"runtime", "n_ctx", "2048", "2048"},
    {"runtime", "n_batch", "512", "512"},
    {"runtime", "n_ubatch", "512", "512"},
};

static void check_readback(spec_out *s, const char *group, const char *key, const char *expect, const char *json)
{
    vramest_option k = option_in(group, key);
    int type = 0;
    cr_assert_eq(vramest_option_info(k, &type, NULL, NULL, NULL, NULL), VRAMEST_OK);
    if (type == VRAMEST_TYPE_ENUM || type == VRAMEST_TYPE_STRING) {
        const char *got = NULL;
        cr_assert_eq(get_str(s, k, &got), VRAMEST_OK, "%s", vramest_last_error_message());
        cr_assert_str_eq(got, expect, "%s: %s.%s reads back \"%s\", expected \"%s\"", json, group, key, got, expect);
    } else if (type == VRAMEST_TYPE_F64) {
        double got = 0;
        cr_assert_eq(get_f64(s, k, &got), VRAMEST_OK);
        cr_assert(fabs(got - strtod(expect, NULL)) < 1e-9, "%s: %s.%s = %g", json, group, key, got);
    } else {
        int64_t got = 0;
        cr_assert_eq(get_i64(s, k, &got), VRAMEST_OK);
        cr_assert_eq(got, strtoll(expect, NULL, 10), "%s: %s.%s = %lld", json, group, key, (long long)got);
    }
}

Test(spec, contract_keys_accepted_in_their_object)
{
    for (size_t i = 0; i < sizeof contract / sizeof contract[0]; i++) {
        const key_case *t = &contract[i];
        char json[512];
        snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", \"%s\": {\"%s\": %s}}", t->object, t->key, t->json);
        spec_out s;
        parse_ok(json, &s);
        if (t->expect) check_readback(&s, t->object, t->key, t->expect, json);
        spec_free(&s);
    }
}

Test(spec, precision_presets)
{
    static const char *const presets[] = {"fp32", "fp16", "bf16", "amp_fp16", "amp_bf16", "mixed_bf16", "int8", "nf4"};
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", \"precision\": \"%s\"}", presets[i]);
        spec_out s;
        parse_ok(json, &s);
        spec_free(&s);
    }
}

/* The preset is applied first wherever it is written; the keys adjust it. */
Test(spec, precision_object_with_preset)
{
    spec_out s, ref;
    parse_ok("{\"model\": \"" PRESET "\", \"precision\": {\"kv_cache\": \"fp8\", \"preset\": \"nf4\"}}", &s);
    parse_ok("{\"model\": \"" PRESET "\", \"precision\": \"nf4\"}", &ref);
    vramest_option w = option_in("precision", "weights"), kv = option_in("precision", "kv_cache");
    const char *a, *b;
    cr_assert_eq(vramest_precision_get_str(s.p, w, &a), VRAMEST_OK);
    cr_assert_eq(vramest_precision_get_str(ref.p, w, &b), VRAMEST_OK);
    cr_assert_str_eq(a, b);
    cr_assert_eq(vramest_precision_get_str(s.p, kv, &a), VRAMEST_OK);
    cr_assert_str_neq(a, "auto");
    spec_free(&s);
    spec_free(&ref);
    parse_fails("{\"model\": \"" PRESET "\", \"precision\": {\"preset\": 4}}", VRAMEST_E_TYPE, "preset", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"precision\": {\"preset\": \"bf17\"}}", VRAMEST_E_UNKNOWN_NAME, NULL);
}

Test(spec, device_forms)
{
    static const char *const gpus[] = {"V100-16GB", "A100-40GB", "A100-80GB", "H100-80GB", "L40S-48GB",
                                       "RTX4090-24GB"};
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", \"device\": \"%s\"}", gpus[i]);
        spec_out s;
        parse_ok(json, &s);
        check_readback(&s, "device", "device", gpus[i], json);
        spec_free(&s);
    }
    spec_out s;
    parse_ok("{\"model\": \"" PRESET "\", \"device\": {\"name\": \"A100-40GB\", \"memory_gib\": 39.5}}", &s);
    check_readback(&s, "device", "device", "A100-40GB", "name");
    check_readback(&s, "device", "memory_gib", "39.5", "memory_gib");
    spec_free(&s);
    parse_fails("{\"model\": \"" PRESET "\", \"device\": \"H200-999GB\"}", VRAMEST_E_UNKNOWN_NAME, NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"device\": 80}", VRAMEST_E_TYPE, "device", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"device\": {\"memory\": 80}}", VRAMEST_E_UNKNOWN_OPTION, "memory",
                "memory_gib", NULL);
}

/* Every option of the registry is reachable from its object: a key added in C
 * is a spec key with no other change. Each takes its own default. */
Test(spec, every_registered_option_is_a_key_of_its_object)
{
    uint32_t n = vramest_option_count();
    cr_assert_gt(n, 50);
    for (uint32_t i = 0; i < n; i++) {
        vramest_option k;
        cr_assert_eq(vramest_option_at(i, &k), VRAMEST_OK);
        const char *group = vramest_option_group(k), *name = vramest_option_name(k);
        int type = 0;
        double mn = 0, mx = 0, def = 0;
        cr_assert_eq(vramest_option_info(k, &type, NULL, &mn, &mx, &def), VRAMEST_OK);
        /* model_type's default ("no family") is not a family to build. */
        if (!strcmp(name, "model_type")) continue;
        char value[600];
        const char *ds = vramest_option_default_str(k);
        switch (type) {
        case VRAMEST_TYPE_BOOL: snprintf(value, sizeof value, "%s", def != 0 ? "true" : "false"); break;
        case VRAMEST_TYPE_ENUM:
        case VRAMEST_TYPE_STRING:
            cr_assert_not_null(ds, "%s has no default text", name);
            snprintf(value, sizeof value, "\"%s\"", ds);
            break;
        default:
            /* Required model values default to 0, outside their bounds. */
            snprintf(value, sizeof value, "%.17g", def < mn ? mn : def > mx ? mx : def);
        }
        char json[2048];
        if (!strcmp(group, "model")) {
            /* The Llama architecture, with the option under test in place of its own value. */
            static const char *const arch[][2] = {
                {"model_type", "\"llama\""}, {"hidden_size", "4096"}, {"num_hidden_layers", "32"},
                {"num_attention_heads", "32"}, {"num_key_value_heads", "32"}, {"intermediate_size", "11008"},
                {"vocab_size", "32000"}, {"max_position_embeddings", "4096"}};
            int o = snprintf(json, sizeof json, "{\"model\": {\"arch\": {\"%s\": %s", name, value);
            for (size_t a = 0; a < sizeof arch / sizeof arch[0]; a++)
                if (strcmp(arch[a][0], name) != 0)
                    o += snprintf(json + o, sizeof json - (size_t)o, ", \"%s\": %s", arch[a][0], arch[a][1]);
            snprintf(json + o, sizeof json - (size_t)o, "}}}");
        } else {
            snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", \"%s\": {\"%s\": %s}}", group, name, value);
        }
        spec_out s;
        int rc = parse(json, &s);
        /* A model value at a generic default may be inconsistent for Llama;
         * what matters here is that the key itself is known. */
        cr_assert(rc != VRAMEST_E_UNKNOWN_OPTION && rc != VRAMEST_E_TYPE, "%s -> %s: %s", json,
                  vramest_status_string(rc), vramest_last_error_message());
        if (strcmp(group, "model") != 0)
            cr_assert_eq(rc, VRAMEST_OK, "%s -> %s", json, vramest_last_error_message());
        spec_free(&s);
    }
}

/* ---- model sources ---- */

Test(spec, model_only)
{
    spec_out s, d;
    parse_ok("{\"model\": \"" PRESET "\"}", &s);
    cr_assert_eq(vramest_model_validate(s.m), VRAMEST_OK);
    /* Everything else at the defaults of fresh handles. */
    cr_assert_eq(vramest_model_new_preset(PRESET, &d.m), VRAMEST_OK);
    uint64_t a = 0, b = 0;
    cr_assert_eq(vramest_model_param_count(s.m, &a, NULL), VRAMEST_OK);
    cr_assert_eq(vramest_model_param_count(d.m, &b, NULL), VRAMEST_OK);
    cr_assert_eq(a, b);
    vramest_model_free(d.m);
    const char *mode;
    cr_assert_eq(vramest_config_get_str(s.c, option_in("workload", "mode"), &mode), VRAMEST_OK);
    cr_assert_str_eq(mode, vramest_option_default_str(option_in("workload", "mode")));
    spec_free(&s);
    /* Whitespace, a UTF-8 byte-order mark and key order do not matter. */
    parse_ok("\xEF\xBB\xBF \n\t{ \"model\" :\"" PRESET "\" }\r\n", &s);
    spec_free(&s);
}

Test(spec, model_hf_config_and_arch_agree)
{
    spec_out a, b, c;
    parse_ok("{\"model\": {\"hf_config\": " LLAMA_CONFIG "}}", &a);
    parse_ok("{\"model\": {\"arch\": {" LLAMA_ARCH "}}}", &b);
    parse_ok("{\"model\": \"" PRESET "\"}", &c);
    uint64_t pa = 0, pb = 0, pc = 0;
    cr_assert_eq(vramest_model_param_count(a.m, &pa, NULL), VRAMEST_OK);
    cr_assert_eq(vramest_model_param_count(b.m, &pb, NULL), VRAMEST_OK);
    cr_assert_eq(vramest_model_param_count(c.m, &pc, NULL), VRAMEST_OK);
    cr_assert_eq(pa, 6738415616ull, "hf_config: %llu", (unsigned long long)pa);
    cr_assert_eq(pb, pa);
    cr_assert_eq(pc, pa);
    spec_free(&a);
    spec_free(&b);
    spec_free(&c);
    /* Aliases of the registry work in "arch" (GPT-2 names). */
    parse_ok("{\"model\": {\"arch\": {\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12, "
             "\"vocab_size\": 50257, \"n_positions\": 1024}}}",
             &a);
    cr_assert_eq(vramest_model_param_count(a.m, &pa, NULL), VRAMEST_OK);
    cr_assert_eq(pa, 124439808ull, "gpt2: %llu", (unsigned long long)pa);
    spec_free(&a);
}

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/vramest-spec-XXXXXX.json");
    cr_assert_not_null(path);
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    size_t len = strlen(text);
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

Test(spec, model_file_sources)
{
    char *path = write_temp(LLAMA_CONFIG);
    char json[512];
    static const char *const keys[] = {"hf_config_file", "path"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(json, sizeof json, "{\"model\": {\"%s\": \"%s\"}}", keys[i], path);
        spec_out s;
        parse_ok(json, &s);
        uint64_t p = 0;
        cr_assert_eq(vramest_model_param_count(s.m, &p, NULL), VRAMEST_OK);
        cr_assert_eq(p, 6738415616ull);
        spec_free(&s);
    }
    /* A config.json is neither a safetensors header nor a GGUF file. */
    snprintf(json, sizeof json, "{\"model\": {\"gguf\": \"%s\"}}", path);
    spec_out s;
    cr_assert_neq(parse(json, &s), VRAMEST_OK);
    cr_assert(strstr(vramest_last_error_message(), "model.gguf"), "%s", vramest_last_error_message());
    unlink(path);
    free(path);
    parse_fails("{\"model\": {\"path\": \"/nonexistent/vramest/config.json\"}}", VRAMEST_E_IO, "model.path", NULL);
    parse_fails("{\"model\": {\"safetensors\": \"/nonexistent/model.safetensors\"}}", VRAMEST_E_IO, NULL);
    parse_fails("{\"model\": {\"path\": \"\"}}", VRAMEST_E_INVALID_ARG, "empty", NULL);
    parse_fails("{\"model\": {\"path\": 3}}", VRAMEST_E_TYPE, "model.path", NULL);
}

Test(spec, model_errors)
{
    parse_fails("{}", VRAMEST_E_INCOMPLETE_MODEL, "\"model\" is required", NULL);
    parse_fails("{\"workload\": {\"mode\": \"train\"}}", VRAMEST_E_INCOMPLETE_MODEL, NULL);
    parse_fails("{\"model\": \"llama-2-7c\"}", VRAMEST_E_UNKNOWN_NAME, "llama-2-7c", NULL);
    parse_fails("{\"model\": 7}", VRAMEST_E_TYPE, "model", NULL);
    parse_fails("{\"model\": null}", VRAMEST_E_TYPE, "model", NULL);
    parse_fails("{\"model\": {}}", VRAMEST_E_INVALID_ARG, "model", NULL);
    parse_fails("{\"model\": {\"hf_confg\": {}}}", VRAMEST_E_UNKNOWN_OPTION, "hf_confg", "hf_config", NULL);
    parse_fails("{\"model\": {\"hf_config\": " LLAMA_CONFIG ", \"arch\": {}}}", VRAMEST_E_CONFLICT, "hf_config",
                "arch", NULL);
    parse_fails("{\"model\": {\"hf_config\": \"llama\"}}", VRAMEST_E_TYPE, "hf_config", NULL);
    parse_fails("{\"model\": {\"arch\": {" LLAMA_ARCH ", \"hidden_sise\": 4096}}}", VRAMEST_E_UNKNOWN_OPTION,
                "hidden_sise", "model.arch", "hidden_size", NULL);
    /* A workload key inside the architecture: say where it belongs. */
    parse_fails("{\"model\": {\"arch\": {" LLAMA_ARCH ", \"batch_size\": 4}}}", VRAMEST_E_UNKNOWN_OPTION,
                "batch_size", "workload", NULL);
    parse_fails("{\"model\": {\"arch\": {" LLAMA_ARCH ", \"head_dim\": \"128\"}}}", VRAMEST_E_TYPE,
                "head_dim", NULL);
    parse_fails("{\"model\": {\"arch\": {\"model_type\": \"llama\"}}}", VRAMEST_E_INCOMPLETE_MODEL, NULL);
}

/* ---- unknown keys and wrong types ---- */

Test(spec, unknown_keys_are_named_with_suggestions)
{
    parse_fails("{\"model\": \"" PRESET "\", \"worklaod\": {}}", VRAMEST_E_UNKNOWN_OPTION, "\"worklaod\"",
                "\"workload\"", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"batch_size\": 4}", VRAMEST_E_UNKNOWN_OPTION, "batch_size",
                "workload", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"workload\": {\"batchsize\": 4}}", VRAMEST_E_UNKNOWN_OPTION,
                "\"batchsize\"", "\"workload\"", "batch_size", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"workload\": {\"tp\": 2}}", VRAMEST_E_UNKNOWN_OPTION, "\"tp\"",
                "parallel", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"parallel\": {\"zero\": 2}}", VRAMEST_E_UNKNOWN_OPTION, "zero",
                NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"runtime\": {\"hidden_size\": 2}}", VRAMEST_E_UNKNOWN_OPTION,
                "hidden_size", "model.arch", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"precision\": {\"weight\": \"nf4\"}}", VRAMEST_E_UNKNOWN_OPTION,
                "weight", "weights", NULL);
    /* Hostile key text is cut short and made printable. */
    char json[1024] = "{\"model\": \"" PRESET "\", \"workload\": {\"";
    size_t l = strlen(json);
    memset(json + l, 'x', 600);
    strcpy(json + l + 600, "\\n\": 1}}");
    spec_out s;
    cr_assert_eq(parse(json, &s), VRAMEST_E_UNKNOWN_OPTION);
    cr_assert_lt(strlen(vramest_last_error_message()), 300);
    cr_assert_null(strchr(vramest_last_error_message(), '\n'));
}

Test(spec, wrong_types_name_the_key)
{
    static const struct {
        const char *json;
        int code;
        const char *word;
    } cases[] = {
        {"\"workload\": 5", VRAMEST_E_TYPE, "workload"},
        {"\"workload\": [1]", VRAMEST_E_TYPE, "workload"},
        {"\"parallel\": \"8\"", VRAMEST_E_TYPE, "parallel"},
        {"\"runtime\": null", VRAMEST_E_TYPE, "runtime"},
        {"\"precision\": 16", VRAMEST_E_TYPE, "precision"},
        {"\"precision\": [\"bf16\"]", VRAMEST_E_TYPE, "precision"},
        {"\"solve\": \"batch_size\"", VRAMEST_E_TYPE, "solve"},
        {"\"workload\": {\"batch_size\": \"8\"}", VRAMEST_E_TYPE, "workload.batch_size"},
        {"\"workload\": {\"batch_size\": 8.5}", VRAMEST_E_TYPE, "workload.batch_size"},
        {"\"workload\": {\"batch_size\": true}", VRAMEST_E_TYPE, "workload.batch_size"},
        {"\"workload\": {\"batch_size\": null}", VRAMEST_E_TYPE, "workload.batch_size"},
        {"\"workload\": {\"batch_size\": [8]}", VRAMEST_E_TYPE, "workload.batch_size"},
        {"\"workload\": {\"batch_size\": {}}", VRAMEST_E_TYPE, "workload.batch_size"},
        {"\"workload\": {\"mode\": 1}", VRAMEST_E_TYPE, "workload.mode"},
        {"\"workload\": {\"mode\": true}", VRAMEST_E_TYPE, "train"},
        {"\"workload\": {\"kv_cache\": \"yes\"}", VRAMEST_E_TYPE, "workload.kv_cache"},
        {"\"workload\": {\"kv_cache\": 1}", VRAMEST_E_TYPE, "workload.kv_cache"},
        {"\"precision\": {\"kv_cache\": true}", VRAMEST_E_TYPE, "precision.kv_cache"},
        {"\"workload\": {\"lora_targets\": 5}", VRAMEST_E_TYPE, "workload.lora_targets"},
        {"\"workload\": {\"lora_targets\": [\"q_proj\", 5]}", VRAMEST_E_TYPE, "lora_targets[1]"},
        {"\"workload\": {\"lora_targets\": [\"q_proj,k_proj\"]}", VRAMEST_E_TYPE, "comma"},
        {"\"workload\": {\"lora_targets\": \"q\\u0000proj\"}", VRAMEST_E_PARSE, "u0000"},
        {"\"runtime\": {\"gpu_memory_utilization\": \"0.9\"}", VRAMEST_E_TYPE, "gpu_memory_utilization"},
        {"\"runtime\": {\"enforce_eager\": 0}", VRAMEST_E_TYPE, "enforce_eager"},
        {"\"device\": {\"memory_gib\": \"80\"}", VRAMEST_E_TYPE, "memory_gib"},
        {"\"device\": {\"name\": 80}", VRAMEST_E_TYPE, "device"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", %s}", cases[i].json);
        parse_fails(json, cases[i].code, cases[i].word, NULL);
    }
}

Test(spec, values_out_of_range_or_unknown)
{
    static const struct {
        const char *json;
        int code;
        const char *word;
    } cases[] = {
        {"\"workload\": {\"batch_size\": 0}", VRAMEST_E_RANGE, "batch_size"},
        {"\"workload\": {\"batch_size\": -3}", VRAMEST_E_RANGE, "batch_size"},
        {"\"workload\": {\"batch_size\": 1e30}", VRAMEST_E_RANGE, "batch_size"},
        {"\"workload\": {\"batch_size\": 99999999999999999999}", VRAMEST_E_RANGE, "batch_size"},
        {"\"workload\": {\"batch_size\": -99999999999999999999}", VRAMEST_E_RANGE, "batch_size"},
        {"\"workload\": {\"batch_size\": 1e400}", VRAMEST_E_TYPE, "batch_size"},
        {"\"runtime\": {\"gpu_memory_utilization\": 1e400}", VRAMEST_E_RANGE, "gpu_memory_utilization"},
        {"\"runtime\": {\"gpu_memory_utilization\": NaN}", VRAMEST_E_RANGE, "gpu_memory_utilization"},
        {"\"runtime\": {\"gpu_memory_utilization\": 1.5}", VRAMEST_E_RANGE, "gpu_memory_utilization"},
        {"\"parallel\": {\"zero_stage\": 4}", VRAMEST_E_RANGE, "zero_stage"},
        {"\"workload\": {\"optimizer\": \"adamx\"}", VRAMEST_E_UNKNOWN_NAME, "adamx"},
        {"\"precision\": {\"weights\": \"nf5\"}", VRAMEST_E_UNKNOWN_NAME, "nf5"},
        {"\"precision\": \"bf17\"", VRAMEST_E_UNKNOWN_NAME, "bf17"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", %s}", cases[i].json);
        parse_fails(json, cases[i].code, cases[i].word, NULL);
    }
    /* Too long for a string option. */
    char json[2048];
    int o = snprintf(json, sizeof json, "{\"model\": \"" PRESET "\", \"workload\": {\"lora_targets\": [");
    for (int i = 0; i < 120; i++) o += snprintf(json + o, sizeof json - (size_t)o, "%s\"proj%d\"", i ? "," : "", i);
    snprintf(json + o, sizeof json - (size_t)o, "]}}");
    parse_fails(json, VRAMEST_E_RANGE, "lora_targets", NULL);
}

/* ---- hostile and broken JSON ---- */

Test(spec, malformed_json_reports_the_offset)
{
    parse_fails("{\"model\": \"" PRESET "\",, }", VRAMEST_E_PARSE, "byte 23", "line 1", "column 24", NULL);
    parse_fails("{\"model\": \"" PRESET "\"}\n{}", VRAMEST_E_PARSE, "byte 24", "line 2", "column 1", NULL);
    parse_fails("{\"model\": \"" PRESET "\"} x", VRAMEST_E_PARSE, "byte 24", NULL);
    parse_fails("{\"model\": \"" PRESET "\",}", VRAMEST_E_PARSE, "byte", NULL);
    parse_fails("{\"model\": \"" PRESET "\"", VRAMEST_E_PARSE, "end of JSON", "byte 22", NULL);
    parse_fails("{\"model\": tru}", VRAMEST_E_PARSE, "byte", NULL);
    parse_fails("{\"model\": \"\xff\"}", VRAMEST_E_PARSE, "byte", NULL);
    parse_fails("{\"model\": 01}", VRAMEST_E_PARSE, NULL);
    parse_fails("/* comment */ {\"model\": \"" PRESET "\"}", VRAMEST_E_PARSE, "byte 0", NULL);
    parse_fails("", VRAMEST_E_PARSE, NULL);
    parse_fails("   ", VRAMEST_E_PARSE, "end of JSON", NULL);
    parse_fails("[]", VRAMEST_E_TYPE, "object", NULL);
    parse_fails("\"llama-2-7b\"", VRAMEST_E_TYPE, "object", NULL);
    parse_fails("null", VRAMEST_E_TYPE, "object", NULL);
    /* A raw NUL byte inside the buffer ends nothing: it is an error. */
    spec_out s;
    static const char with_nul[] = "{\"model\": \"" PRESET "\"}\0   ";
    cr_assert_eq(parse_len(with_nul, sizeof with_nul - 1, &s), VRAMEST_E_PARSE);
    cr_assert(strstr(vramest_last_error_message(), "byte 23"), "%s", vramest_last_error_message());
    static const char nul_inside[] = "{\"model\": \"" PRESET "\"\0}";
    cr_assert_eq(parse_len(nul_inside, sizeof nul_inside - 1, &s), VRAMEST_E_PARSE);
    cr_assert(strstr(vramest_last_error_message(), "NUL byte at byte 22"), "%s", vramest_last_error_message());
    parse_fails("12", VRAMEST_E_TYPE, "object", NULL);
}

Test(spec, every_prefix_fails_cleanly)
{
    static const char full[] =
        "{\"model\": {\"hf_config\": " LLAMA_CONFIG "}, \"precision\": {\"preset\": \"nf4\", \"skip_modules\": "
        "[\"lm_head\"]}, \"workload\": {\"mode\": \"train\", \"batch_size\": 12, \"seq_len\": 1024, "
        "\"finetune\": \"qlora\", \"lora_rank\": 16, \"lora_targets\": [\"q_proj\", \"v_proj\"]}, "
        "\"parallel\": {\"gpus\": 2, \"zero_stage\": 2}, \"device\": {\"name\": \"A100-40GB\", "
        "\"memory_gib\": 39.5}, \"runtime\": {\"framework\": \"hf_trainer\", \"cuda_context_mib\": 512.5}}";
    spec_out s;
    int rc = parse_len(full, sizeof full - 1, &s);
    cr_assert_eq(rc, VRAMEST_OK, "%s", vramest_last_error_message());
    spec_free(&s);
    for (size_t len = 0; len + 1 < sizeof full; len++) {
        rc = parse_len(full, len, &s);
        cr_assert_neq(rc, VRAMEST_OK, "prefix of %zu bytes parsed", len);
        cr_assert_eq(rc, VRAMEST_E_PARSE, "prefix of %zu bytes: %s: %s", len, vramest_status_string(rc),
                     vramest_last_error_message());
    }
}

/* Deterministic mutations of a valid spec: any status is fine, a crash, a
 * leak (under ASan) or a half-filled output is not. */
Test(spec, mutated_specs_never_crash)
{
    static const char base[] =
        "{\"model\": {\"arch\": {" LLAMA_ARCH "}}, \"precision\": \"bf16\", \"workload\": {\"mode\": \"train\", "
        "\"batch_size\": 2, \"lora_targets\": [\"q_proj\"]}, \"device\": \"A100-80GB\"}";
    static const char alphabet[] = "{}[]\":,0-9.eE\\u tfn\x80\xff";
    size_t n = sizeof base - 1;
    char buf[sizeof base + 8];
    uint32_t x = 2463534242u;
    for (int iter = 0; iter < 4000; iter++) {
        memcpy(buf, base, n);
        size_t len = n;
        int edits = 1 + iter % 3;
        for (int e = 0; e < edits && len > 1; e++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            size_t pos = x % len;
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            switch (x % 3) {
            case 0: buf[pos] = alphabet[(x >> 8) % (sizeof alphabet - 1)]; break;
            case 1: memmove(buf + pos, buf + pos + 1, len - pos - 1), len--; break;
            default: len = pos + 1; break;
            }
        }
        spec_out s;
        if (parse_len(buf, len, &s) == VRAMEST_OK) spec_free(&s);
    }
}

Test(spec, limits)
{
    /* Nesting deeper than the limit, inside a config.json. */
    char deep[1024];
    int o = snprintf(deep, sizeof deep, "{\"model\": {\"hf_config\": {\"x\": ");
    for (int i = 0; i < 100; i++) deep[o++] = '[';
    for (int i = 0; i < 100; i++) deep[o++] = ']';
    snprintf(deep + o, sizeof deep - (size_t)o, "}}}");
    parse_fails(deep, VRAMEST_E_LIMIT, "byte", NULL);
    /* Larger than a job spec may be: refused before parsing. */
    size_t big = 16u * 1024u * 1024u + 1;
    char *buf = malloc(big);
    cr_assert_not_null(buf);
    memset(buf, ' ', big);
    buf[0] = '{';
    buf[big - 1] = '}';
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    cr_assert_eq(vramest_spec_parse(buf, big, &m, &p, &c), VRAMEST_E_LIMIT);
    cr_assert_null(m);
    size_t needed = 0;
    cr_assert_eq(vramest_spec_plan(buf, big, NULL, 0, &needed), VRAMEST_E_LIMIT);
    free(buf);
}

Test(spec, null_arguments)
{
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
    const char *j = "{\"model\": \"" PRESET "\"}";
    /* A NULL model output is allowed: schedulers with a model cache read
     * only the precision and workload of each job. */
    cr_assert_eq(vramest_spec_parse(j, strlen(j), NULL, &p, &c), VRAMEST_OK, "%s", vramest_last_error_message());
    vramest_precision_free(p);
    vramest_config_free(c);
    const char *nomodel = "{\"workload\": {\"mode\": \"train\"}}";
    cr_assert_eq(vramest_spec_parse(nomodel, strlen(nomodel), NULL, &p, &c), VRAMEST_E_INCOMPLETE_MODEL);
    cr_assert_eq(vramest_spec_parse(j, strlen(j), &m, NULL, &c), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_spec_parse(j, strlen(j), &m, &p, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_spec_parse(NULL, 5, &m, &p, &c), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_spec_parse(NULL, 0, &m, &p, &c), VRAMEST_E_PARSE);
    char buf[8];
    cr_assert_eq(vramest_spec_plan(j, strlen(j), NULL, 8, NULL), VRAMEST_E_INVALID_ARG);
    cr_assert_eq(vramest_spec_plan(NULL, 3, buf, sizeof buf, NULL), VRAMEST_E_INVALID_ARG);
}

/* ---- solve ---- */

Test(spec, solve_is_read_and_never_silently_ignored)
{
    static const char *const keys[] = {"batch_size", "seq_len", "prompt_len", "gen_len", "gpus"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"model\": \"" PRESET "\", \"device\": \"A100-80GB\", \"solve\": {\"max\": \"%s\"}}", keys[i]);
        spec_out s;
        parse_ok(json, &s);
        spec_free(&s);
        char out[64];
        size_t needed = 0;
        int rc = vramest_spec_plan(json, strlen(json), out, sizeof out, &needed);
        /* In load mode a workload size changes nothing: refused by name. */
        if (rc == VRAMEST_E_UNSUPPORTED) {
            cr_assert(strstr(vramest_last_error_message(), "solve"), "%s", vramest_last_error_message());
            cr_assert(strstr(vramest_last_error_message(), keys[i]), "%s", vramest_last_error_message());
        } else {
            cr_assert(rc == VRAMEST_OK || rc == VRAMEST_E_BUFFER_TOO_SMALL, "%s", vramest_last_error_message());
        }
    }
    spec_out s;
    parse_ok("{\"model\": \"" PRESET "\", \"solve\": {\"advice\": true}}", &s);
    spec_free(&s);
    parse_fails("{\"model\": \"" PRESET "\", \"solve\": {\"max\": \"hidden_size\"}}", VRAMEST_E_UNKNOWN_NAME,
                "hidden_size", "batch_size", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"solve\": {\"min\": \"gpus\"}}", VRAMEST_E_UNKNOWN_OPTION, "min",
                "max", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"solve\": {\"max\": 3}}", VRAMEST_E_TYPE, "solve.max", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"solve\": {\"advice\": \"yes\"}}", VRAMEST_E_TYPE, "advice", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"solve\": {\"max\": \"gpus\", \"advice\": true}}",
                VRAMEST_E_CONFLICT, "solve", NULL);
    parse_fails("{\"model\": \"" PRESET "\", \"solve\": {}}", VRAMEST_E_INVALID_ARG, "solve", NULL);
}

/* ---- the plan ---- */

Test(spec, plan_buffer_protocol)
{
    const char *j = "{\"model\": \"" PRESET "\", \"precision\": \"bf16\", \"device\": \"A100-80GB\"}";
    size_t len = strlen(j), needed = 0;
    cr_assert_eq(vramest_spec_plan(j, len, NULL, 0, &needed), VRAMEST_E_BUFFER_TOO_SMALL);
    cr_assert_gt(needed, 100);
    char *buf = malloc(needed);
    cr_assert_not_null(buf);
    size_t again = 0;
    cr_assert_eq(vramest_spec_plan(j, len, buf, needed - 1, &again), VRAMEST_E_BUFFER_TOO_SMALL);
    cr_assert_eq(again, needed);
    cr_assert_eq(vramest_spec_plan(j, len, buf, needed, &again), VRAMEST_OK, "%s", vramest_last_error_message());
    cr_assert_eq(strlen(buf) + 1, needed);
    cr_assert_eq(vramest_spec_plan(j, len, buf, needed, NULL), VRAMEST_OK);
    /* The §6 result fields. */
    static const char *const fields[] = {"\"params\"", "\"total\"", "\"trainable\"", "\"gpu\"", "\"categories\"",
                                         "\"weights\"", "\"peak_allocated\"", "\"peak_reserved\"",
                                         "\"device_total\"", "\"host\"", "\"fits\""};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        cr_assert(strstr(buf, fields[i]), "plan lacks %s", fields[i]);

    /* Same bytes as estimating the parsed handles ourselves. */
    spec_out s;
    parse_ok(j, &s);
    vramest_result *r = NULL;
    cr_assert_eq(vramest_estimate(s.m, s.p, s.c, &r), VRAMEST_OK);
    char *direct = malloc(needed);
    cr_assert_eq(vramest_result_json(r, direct, needed, NULL), VRAMEST_OK);
    cr_assert_str_eq(direct, buf);
    free(direct);
    vramest_result_free(r);
    spec_free(&s);
    free(buf);

    /* Errors come through unchanged. */
    cr_assert_eq(vramest_spec_plan("{\"model\": 1}", 12, NULL, 0, &needed), VRAMEST_E_TYPE);
}

static void *parse_many(void *arg)
{
    const char *j = arg;
    for (int i = 0; i < 200; i++) {
        vramest_model *m;
        vramest_precision *p;
        vramest_config *c;
        if (vramest_spec_parse(j, strlen(j), &m, &p, &c) != VRAMEST_OK) return (void *)1;
        vramest_model_free(m);
        vramest_precision_free(p);
        vramest_config_free(c);
        vramest_model *bad;
        if (vramest_spec_parse("{\"model\": 3}", 12, &bad, &p, &c) != VRAMEST_E_TYPE) return (void *)1;
        if (!strstr(vramest_last_error_message(), "model")) return (void *)1;
    }
    return NULL;
}

Test(spec, concurrent_parses)
{
    static const char j[] = "{\"model\": {\"hf_config\": " LLAMA_CONFIG "}, \"workload\": {\"mode\": \"train\"}}";
    pthread_t t[4];
    for (int i = 0; i < 4; i++) cr_assert_eq(pthread_create(&t[i], NULL, parse_many, (void *)j), 0);
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        cr_assert_null(ret);
    }
}
