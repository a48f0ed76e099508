/* What job_submit/vramest costs per job, without slurmctld around it: the
 * whole decision (directive scan, spec, cached model, estimate, verdict and
 * admin comment) for a few typical scripts. Prints microseconds per job, the
 * median of 7 runs. `meson test --benchmark slurm-judge`, or run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vs_cache.h"
#include "vs_conf.h"
#include "vs_judge.h"
#include "vs_spec.h"

#define RUNS 7

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const vs_ctx *ctx, const char *label, const char *script, const char *gres, int iters)
{
    vs_job job = {.script = script, .uid = (uint32_t)getuid(), .gid = (uint32_t)-1};
    job.req.tres_per_node = gres;
    vs_verdict v;
    vs_judge_submit(ctx, &job, &v); /* warm: the model parse and compiles happen here */
    const char *kind = v.kind == VS_ACCEPT ? "accept" : v.kind == VS_REJECT ? "reject" : "pass";
    if (v.kind == VS_REJECT && v.why != VS_WHY_NOFIT) {
        fprintf(stderr, "bench_judge: %s: unexpected verdict: %s", label, v.user);
        exit(1);
    }
    vs_verdict_free(&v);
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (int i = 0; i < iters; i++) {
            vs_judge_submit(ctx, &job, &v);
            vs_verdict_free(&v);
        }
        t[r] = (now() - t0) / iters;
    }
    qsort(t, RUNS, sizeof t[0], cmp);
    printf("%-48s %-7s %8.2f us/job (min %.2f, max %.2f)\n", label, kind, t[RUNS / 2] * 1e6, t[0] * 1e6,
           t[RUNS - 1] * 1e6);
}

int main(void)
{
    char dir[] = "/tmp/vramest-bench-judge.XXXXXX", path[256], conftext[512], err[2048];
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fputs("{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"hidden_size\": 4096, "
          "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 32, "
          "\"intermediate_size\": 11008, \"vocab_size\": 32000, \"max_position_embeddings\": 4096, "
          "\"torch_dtype\": \"float16\", \"tie_word_embeddings\": false}\n",
          f);
    fclose(f);
    snprintf(conftext, sizeof conftext, "a100 = A100-80GB\nt4 = T4\ndefault = A100-80GB\nallow = %s\n", dir);
    vs_conf conf;
    vs_conf_init(&conf);
    if (vs_conf_parse(&conf, conftext, strlen(conftext), "bench", err, sizeof err))
        return fprintf(stderr, "%s\n", err), 1;
    vs_cache *cache = vs_cache_new(conf.cache_models);
    vs_optnames *names = vs_optnames_new();
    vs_ctx ctx = {.conf = &conf, .cache = cache, .names = names};

    char file_script[512];
    snprintf(file_script, sizeof file_script,
             "#!/bin/bash\n#SBATCH --job-name=x\n#VRAMEST --model %s --set mode=infer --set batch_size=8\n"
             "srun python serve.py\n",
             dir);
    bench(&ctx, "no directive", "#!/bin/bash\n#SBATCH --time=1:00:00\nsrun hostname\n", "gres:gpu:a100:4", 200000);
    bench(&ctx, "preset, load (llama-2-7b)", "#!/bin/bash\n#VRAMEST --model llama-2-7b\nsrun x\n",
          "gres:gpu:a100:1", 20000);
    bench(&ctx, "preset, train 4 GPUs ZeRO-3 (qwen3-8b)",
          "#!/bin/bash\n#SBATCH -N 1\n#VRAMEST --model qwen3-8b --set mode=train --set batch_size=1\n"
          "#VRAMEST --set zero_stage=3 --set gradient_checkpointing=full\nsrun x\n",
          "gres:gpu:a100:4", 20000);
    bench(&ctx, "preset, train 1 GPU, checkpointing (throughput.sh)",
          "#!/bin/bash\n#SBATCH --job-name=tp\n"
          "#VRAMEST --model llama-2-7b --precision bf16 --set mode=train --set batch_size=1 --set gradient_checkpointing=full\n"
          "srun hostname\n",
          "gres:gpu:a100:1", 20000);
    bench(&ctx, "inline JSON spec, infer (llama-2-7b)",
          "#!/bin/bash\n#VRAMEST {\"model\": \"llama-2-7b\", \"workload\": {\"mode\": \"infer\", \"batch_size\": 8}}\n",
          "gres:gpu:a100:1", 20000);
    bench(&ctx, "model directory (config.json), infer", file_script, "gres:gpu:a100:1", 20000);
    bench(&ctx, "does not fit, with advice (qwen3-8b on T4)",
          "#!/bin/bash\n#VRAMEST --model qwen3-8b --set mode=train --set batch_size=8\n", "gres:gpu:t4:1", 2000);

    size_t entries;
    unsigned long hits, misses;
    vs_cache_stats(cache, &entries, &hits, &misses);
    printf("model cache: %zu entries, %lu hits, %lu misses\n", entries, hits, misses);
    vs_cache_free(cache);
    vs_optnames_free(names);
    vs_conf_free(&conf);
    unlink(path);
    rmdir(dir);
    return 0;
}
