/* The table's header: the job in one line, then the assumptions that decided
 * the answer (precision policy, optimizer and its implementation, attention
 * kernel, checkpointing, parallel layout, framework and its versions, the
 * device it resolved, the headroom), all read from the plan's echo of the
 * settings, so what is printed is what the library used. Versions: every
 * `*_version` setting of the runtime is printed as it is, so settings the
 * library adds (torch_version, transformers_version, ...) appear without a
 * change here. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static long long jint(json_object *plan, const char *path)
{
    json_object *v = jget(plan, path);
    return v && json_object_is_type(v, json_type_int) ? (long long)json_object_get_int64(v) : 0;
}

static double jnum(json_object *plan, const char *path)
{
    json_object *v = jget(plan, path);
    return v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
               ? json_object_get_double(v)
               : 0;
}

static int jtrue(json_object *plan, const char *path)
{
    json_object *v = jget(plan, path);
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static const char *js(json_object *plan, const char *path)
{
    const char *s = jstr(plan, path);
    return s ? s : "?";
}

/* "; " between the items of a line. */
static void item(int *first, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void item(int *first, const char *fmt, ...)
{
    va_list ap;
    fputs(*first ? "" : "; ", stdout);
    *first = 0;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

static void job_line(json_object *plan, const char *model_arg)
{
    const char *name = jstr(plan, "model.name");
    if (!name || !*name) name = model_arg;
    if (!name || !*name) name = js(plan, "model.model_type");
    const char *mode = js(plan, "settings.workload.mode"), *fw = js(plan, "settings.runtime.framework");
    printf("%s \u00b7 %s", name, mode);
    long long b = jint(plan, "settings.workload.batch_size"), s = jint(plan, "settings.workload.seq_len");
    if (!strcmp(mode, "train")) {
        printf(" \u00b7 micro-batch %lld x %lld tokens", b, s);
        long long acc = jint(plan, "settings.workload.grad_accum_steps");
        if (acc > 1) printf(", %lld accumulation steps", acc);
        const char *ft = js(plan, "settings.workload.finetune");
        if (!strcmp(ft, "lora") || !strcmp(ft, "qlora"))
            printf(" \u00b7 %s rank %lld", ft, jint(plan, "settings.workload.lora_rank"));
        else
            printf(" \u00b7 %s fine-tune", ft);
    } else if (!strcmp(mode, "infer") && (!strcmp(fw, "vllm") || !strcmp(fw, "sglang"))) {
        int vllm = !strcmp(fw, "vllm");
        long long seqs = jint(plan, "settings.runtime.max_num_seqs");
        printf(" \u00b7 %s server: max_model_len %lld, %s ", vllm ? "vLLM" : "SGLang",
               jint(plan, "settings.runtime.max_model_len"), vllm ? "max_num_seqs" : "max_running_requests");
        if (seqs > 0)
            printf("%lld", seqs);
        else
            printf("the engine's default");
        if (vllm)
            printf(", gpu_memory_utilization %.2f", jnum(plan, "settings.runtime.gpu_memory_utilization"));
        else if (jnum(plan, "settings.runtime.mem_fraction_static") > 0)
            printf(", mem_fraction_static %.2f", jnum(plan, "settings.runtime.mem_fraction_static"));
    } else if (!strcmp(mode, "infer") && !strcmp(fw, "ollama")) {
        printf(" \u00b7 Ollama: num_ctx %lld x num_parallel %lld", jint(plan, "settings.runtime.num_ctx"),
               jint(plan, "settings.runtime.num_parallel"));
    } else if (!strcmp(mode, "infer") && !strcmp(fw, "llama.cpp")) {
        printf(" \u00b7 llama.cpp: n_ctx %lld, n_gpu_layers %lld", jint(plan, "settings.runtime.n_ctx"),
               jint(plan, "settings.runtime.n_gpu_layers"));
    } else if (!strcmp(mode, "infer")) {
        long long p = jint(plan, "settings.workload.prompt_len");
        printf(" \u00b7 batch %lld, prompt %lld + %lld new tokens", b, p ? p : s,
               jint(plan, "settings.workload.gen_len"));
    } else {
        printf(" \u00b7 weights resident");
    }
    long long gpus = jint(plan, "settings.parallel.gpus");
    printf(" \u00b7 %lld GPU%s", gpus, gpus == 1 ? "" : "s");
    const char *dev = plan_device(plan);
    uint64_t cap = (uint64_t)jint(plan, "gpu.capacity");
    if (dev)
        printf(" \u00b7 %s (%.2f GiB)\n", dev, gib(cap));
    else if (cap)
        printf(" \u00b7 %.2f GiB per GPU\n", gib(cap));
    else
        printf(" \u00b7 no device\n");
}

static void precision_items(json_object *plan, const char *mode, int *first)
{
    const char *w = js(plan, "settings.precision.weights"), *c = js(plan, "settings.precision.compute");
    item(first, "weights %s", !strcmp(w, "auto") ? "as stored in the checkpoint" : w);
    item(first, "compute %s%s", c, jtrue(plan, "settings.precision.amp") ? " (autocast)" : "");
    if (!strcmp(mode, "train")) {
        const char *mw = js(plan, "settings.precision.master_weights");
        if (strcmp(mw, "none")) item(first, "%s master weights", mw);
        item(first, "gradients %s", js(plan, "settings.precision.gradients"));
        item(first, "optimizer %s (%s) states %s", js(plan, "settings.workload.optimizer"),
             js(plan, "settings.workload.optimizer_impl"), js(plan, "settings.precision.optimizer_states"));
        item(first, "attention %s", js(plan, "settings.workload.attention"));
        item(first, "checkpointing %s", js(plan, "settings.workload.gradient_checkpointing"));
    } else if (!strcmp(mode, "infer")) {
        item(first, "KV cache %s", js(plan, "settings.precision.kv_cache"));
        item(first, "attention %s", js(plan, "settings.workload.attention"));
    }
}

static void layout_items(json_object *plan, int *first)
{
    long long tp = jint(plan, "settings.parallel.tp"), pp = jint(plan, "settings.parallel.pp");
    long long zero = jint(plan, "settings.parallel.zero_stage");
    const char *fsdp = js(plan, "settings.parallel.fsdp");
    if (tp > 1 || pp > 1) item(first, "tp %lld, pp %lld", tp, pp);
    if (zero) item(first, "ZeRO-%lld", zero);
    if (strcmp(fsdp, "none")) item(first, "FSDP %s", fsdp);
    const char *off = js(plan, "settings.parallel.offload_optimizer");
    if (strcmp(off, "none")) item(first, "optimizer offload to %s", off);
}

static void runtime_items(json_object *plan, int *first)
{
    /* The framework's own version belongs to its name: "framework 0.19.5"
     * beside "framework deepspeed" read as two frameworks. */
    const char *fw_version = jstr(plan, "settings.runtime.framework_version");
    if (fw_version && *fw_version)
        item(first, "framework %s %s", js(plan, "settings.runtime.framework"), fw_version);
    else
        item(first, "framework %s", js(plan, "settings.runtime.framework"));
    json_object *rt = jget(plan, "settings.runtime");
    if (rt && json_object_is_type(rt, json_type_object)) {
        json_object_object_foreach(rt, key, val)
        {
            size_t l = strlen(key);
            if (l > 8 && !strcmp(key + l - 8, "_version") && strcmp(key, "framework_version") &&
                json_object_is_type(val, json_type_string) && *json_object_get_string(val))
                item(first, "%.*s %s", (int)(l - 8), key, json_object_get_string(val));
        }
    }
    double hg = jnum(plan, "settings.device.headroom_gib"), hf = jnum(plan, "settings.device.headroom_fraction");
    if (hg > 0 || hf > 0) item(first, "headroom %.2f GiB per GPU", gib((uint64_t)jint(plan, "headroom_bytes")));
}

void print_header(json_object *plan, const char *model_arg)
{
    job_line(plan, model_arg);
    const char *mode = js(plan, "settings.workload.mode");
    int first = 1;
    printf("assumes: ");
    precision_items(plan, mode, &first);
    layout_items(plan, &first);
    runtime_items(plan, &first);
    printf("\n\n");
}
