/* Verdicts on whole jobs (bindings/slurm/vs_judge.c and everything under
 * it): what a user sees for a job that fits, one that does not, every kind
 * of malformed or hostile directive, and an update to more GPUs. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vs_cache.h"
#include "slurm_tests.h"
#include "vs_conf.h"
#include "vs_judge.h"
#include "vs_spec.h"

static char base[64], allowed[128], err[2048];
static vs_conf conf;
static vs_cache *cache;
static vs_ctx ctx;
static vs_verdict v;
static vs_optnames *names;

static void put(const char *rel, const void *data, size_t n)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void put_text(const char *rel, const char *text)
{
    put(rel, text, strlen(text));
}

static void copy_fixture(const char *name, const char *rel)
{
    const char *dir = getenv("VRAMEST_TEST_DATA");
    cr_assert_not_null(dir);
    char p[512], buf[65536];
    snprintf(p, sizeof p, "%s/models/%s", dir, name);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    put(rel, buf, n);
}

static void configure(const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text, "a100 = A100-80GB\nt4 = T4\ndefault = A100-80GB\nallow = %s\nmax_spec_bytes = 65536\n%s",
             allowed, extra);
    vs_conf_free(&conf);
    vs_conf_init(&conf);
    cr_assert_eq(vs_conf_parse(&conf, text, strlen(text), "t", err, sizeof err), 0, "%s", err);
    ctx.conf = &conf;
}

static void setup(void)
{
    st_mkdtemp(base, "vs-judge");
    snprintf(allowed, sizeof allowed, "%s/models", base);
    cr_assert_eq(mkdir(allowed, 0755), 0);
    char p[256];
    snprintf(p, sizeof p, "%s/outside", base);
    cr_assert_eq(mkdir(p, 0755), 0);
    cr_assert_eq(mkdir(strcat(strcpy(p, allowed), "/llama"), 0755), 0);
    copy_fixture("llama-2-7b.json", "models/llama/config.json");
    vs_conf_init(&conf);
    configure("");
    cache = vs_cache_new(8);
    ctx.cache = cache;
    names = vs_optnames_new();
    cr_assert_not_null(names);
    ctx.names = names;
}

static void teardown(void)
{
    vs_verdict_free(&v);
    vs_cache_free(cache);
    vs_optnames_free(names);
    vs_conf_free(&conf);
    st_rm_rf(base);
}

TestSuite(judge, .init = setup, .fini = teardown);

static void submit(const char *script, const char *gres)
{
    vs_verdict_free(&v);
    vs_job job = {.script = script, .uid = 0, .gid = 0};
    job.req.tres_per_node = gres;
    vs_judge_submit(&ctx, &job, &v);
}

static void expect(vs_verdict_kind kind, const char *needle)
{
    cr_assert_eq(v.kind, kind, "verdict %d, message:\n%s", v.kind, v.user);
    if (needle) cr_assert(strstr(v.user, needle), "message:\n%s\nlacks '%s'", v.user, needle);
}

static void rejected(vs_reject_why why, const char *needle)
{
    expect(VS_REJECT, needle);
    cr_assert_eq(v.why, why, "why %d, message:\n%s", v.why, v.user);
}

Test(judge, fits)
{
    submit("#!/bin/bash\n#VRAMEST --model llama-2-7b --set mode=infer --set batch_size=1\nsrun x\n",
           "gres:gpu:a100:1");
    expect(VS_ACCEPT, "vramest: fits: needs ");
    cr_assert(strstr(v.user, " of 80.00 GiB per GPU on 1 a100 GPU (A100-80GB), 1 per node on 1 node; peak in "),
              "%s", v.user);
    cr_assert_not_null(v.admin);
    cr_assert(!strncmp(v.admin, "vramest: fits: ", 15), "%s", v.admin);
    cr_assert(strstr(v.admin, " | vramest-record {\"v\":1,\"req\":{\"tres_per_node\":\"gres:gpu:a100:1\"},"
                              "\"spec\":{\"model\":\"llama-2-7b\",\"workload\":{\"mode\":\"infer\",\"batch_size\":1}}}"),
              "%s", v.admin);
    cr_assert_null(strchr(v.admin, '\n'), "the admin comment is one line");
}

Test(judge, does_not_fit_says_why_and_how)
{
    submit("#VRAMEST --model qwen3-8b --set mode=train --set batch_size=8\n", "gres:gpu:t4:2");
    rejected(VS_WHY_NOFIT, "vramest: the job does not fit: it needs ");
    cr_assert(strstr(v.user, " per GPU, and its GPUs have 15.00 GiB: 2 t4 GPUs (T4), 2 per node on 1 node"), "%s",
              v.user);
    cr_assert(strstr(v.user, "\nvramest: largest part: "), "%s", v.user);
    cr_assert(strstr(v.user, "\nvramest: best single change: ") || strstr(v.user, "\nvramest: no single change"),
              "%s", v.user);
    cr_assert_null(v.admin);
}

Test(judge, best_change_names_gpus)
{
    /* 8 B training on 4 x 80 GB: more GPUs with sharding is the fix advice gives. */
    submit("#VRAMEST --model qwen3-8b --set mode=train --set batch_size=8\n", "gres:gpu:a100:4");
    rejected(VS_WHY_NOFIT, "best single change: ");
    cr_assert(strstr(v.user, "(needs ") && strstr(v.user, " per GPU, fits)"), "%s", v.user);
}

Test(judge, no_directive_passes_unless_required)
{
    submit("#!/bin/bash\n#SBATCH --gres=gpu:a100:1\nsrun x\n", "gres:gpu:a100:1");
    expect(VS_PASS, NULL);
    configure("require = yes\n");
    submit("#!/bin/bash\nsrun x\n", "gres:gpu:a100:1");
    rejected(VS_WHY_REQUIRED, "this cluster requires a #VRAMEST directive for GPU jobs");
    submit("#!/bin/bash\nsrun x\n", NULL);
    expect(VS_PASS, NULL); /* no GPUs, nothing to estimate */
    submit(NULL, "gres:gpu:a100:1");
    rejected(VS_WHY_REQUIRED, NULL); /* salloc/srun: no script, no directive */
}

Test(judge, malformed_directives)
{
    submit("#VRAMEST --model llama-2-7b --set nosuchkey=3\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "nosuchkey");
    submit("#VRAMEST --model llama-2-7b --set mode=fly\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "fly");
    submit("#VRAMEST --model nosuchmodel-13b\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "model \"nosuchmodel-13b\"");
    submit("#VRAMEST --model llama-2-7b --set kv_cache=fp8\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "is ambiguous: write ");
    submit("#VRAMEST --model llama-2-7b --set hidden_size=8\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "architecture options cannot be --set");
    submit("#VRAMEST --model llama-2-7b --set memory_gib=8\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "the device comes from the job's GPU request");
    submit("#VRAMEST {\"model\": \"llama-2-7b\", \"workload\": {\"mode\": \"train\"\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "the inline #VRAMEST spec: JSON error at byte");
    submit("#VRAMEST {\"workload\": {}}\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "must be a JSON object with a \"model\"");
    submit("#VRAMEST {\"model\": \"llama-2-7b\", \"workload\": {\"batch_sise\": 4}}\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "batch_sise");
}

Test(judge, words_without_the_name_table)
{
    /* The same answers from the registry alone (aliases and "did you mean" live there). */
    ctx.names = NULL;
    submit("#VRAMEST --model llama-2-7b --set kv_cache=fp8\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "is ambiguous: write ");
    submit("#VRAMEST --model llama-2-7b --set batch_sise=4\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "did you mean 'batch_size'");
    submit("#VRAMEST --model llama-2-7b --set workload.mode=infer --set workload.kv_cache=true --set precision.compute=bf16\n", "gres:gpu:a100:1");
    expect(VS_ACCEPT, NULL);
    char *slow = strdup(v.admin);
    ctx.names = names;
    submit("#VRAMEST --model llama-2-7b --set workload.mode=infer --set workload.kv_cache=true --set precision.compute=bf16\n", "gres:gpu:a100:1");
    expect(VS_ACCEPT, NULL);
    cr_assert_str_eq(v.admin, slow);
    free(slow);
}

Test(judge, words_and_json_agree)
{
    submit("#VRAMEST --model llama-2-7b --precision bf16 --set mode=train --set batch_size=2 --set zero_stage=3\n",
           "gres:gpu:a100:4");
    expect(VS_ACCEPT, NULL);
    char *words = strdup(v.user);
    submit("#VRAMEST {\"model\": \"llama-2-7b\", \"precision\": \"bf16\", \"workload\": {\"mode\": \"train\", "
           "\"batch_size\": 2}, \"parallel\": {\"zero_stage\": 3}}\n",
           "gres:gpu:a100:4");
    expect(VS_ACCEPT, NULL);
    cr_assert_str_eq(v.user, words);
    free(words);
}

Test(judge, huge_numbers)
{
    submit("#VRAMEST --model llama-2-7b --set batch_size=99999999999999999999999\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "is not a 64-bit integer");
    submit("#VRAMEST --model llama-2-7b --set batch_size=1000000000000\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "batch_size");
    submit("#VRAMEST --model llama-2-7b --set seq_len=1e308\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "seq_len");
    submit("#VRAMEST {\"model\": \"llama-2-7b\", \"workload\": {\"batch_size\": 1e400}}\n", "gres:gpu:a100:1");
    expect(VS_REJECT, NULL);
    submit("#VRAMEST --model llama-2-7b\n", "gres:gpu:a100:99999999999999999999");
    rejected(VS_WHY_DIRECTIVE, "GPU count \"99999999999999999999\" is too large");
}

Test(judge, spec_of_20_mib)
{
    size_t n = (size_t)20 << 20;
    char *big = malloc(n);
    cr_assert_not_null(big);
    memset(big, ' ', n);
    memcpy(big, "{\"model\": \"llama-2-7b\"}", 23);
    put("models/big.json", big, n);
    free(big);
    char script[256];
    snprintf(script, sizeof script, "#VRAMEST --spec %s/big.json\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "is 20971520 bytes, more than this site's max_spec_bytes (65536)");
}

Test(judge, paths_outside)
{
    char script[512];
    put_text("outside/spec.json", "{\"model\": \"llama-2-7b\"}");
    snprintf(script, sizeof script, "#VRAMEST --spec %s/../outside/spec.json\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "path traversal ('..') is not allowed");
    snprintf(script, sizeof script, "#VRAMEST --spec %s/outside/spec.json\n", base);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "is outside the directories vramest may read (");
    char target[256], link[256];
    snprintf(target, sizeof target, "%s/outside/spec.json", base);
    snprintf(link, sizeof link, "%s/escape.json", allowed);
    cr_assert_eq(symlink(target, link), 0);
    snprintf(script, sizeof script, "#VRAMEST --spec %s\n", link);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "a symlink leads to");
    submit("#VRAMEST --model /etc\n", "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "outside the directories");
}

Test(judge, invalid_utf8)
{
    submit("#VRAMEST --model llama-2-7b --set mode=\xe2\x82\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "line 1: #VRAMEST: invalid UTF-8 at column");
    char script[256];
    put("models/bad.json", "{\"model\": \"\xff\"}", 14);
    snprintf(script, sizeof script, "#VRAMEST --spec %s/bad.json\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "invalid UTF-8 at byte 11");
}

Test(judge, file_contents_are_never_echoed)
{
    char script[256];
    put_text("models/typo.json", "{\"model\": \"llama-2-7b\", \"workload\": {\"SECRET_TOKEN_1\": 1}}");
    snprintf(script, sizeof script, "#VRAMEST --spec %s/typo.json\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "is not a valid job spec");
    cr_assert_null(strstr(v.user, "SECRET"), "%s", v.user);
    put_text("models/broken.json", "SECRET_TOKEN_2 {");
    snprintf(script, sizeof script, "#VRAMEST --spec %s/broken.json\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "is not valid JSON");
    cr_assert_null(strstr(v.user, "SECRET"), "%s", v.user);
    cr_assert_eq(mkdir(strcat(strcpy(script, allowed), "/secret"), 0755), 0);
    put_text("models/secret/config.json", "{\"model_type\": \"SECRET_TOKEN_3\", \"hidden_size\": 64}");
    snprintf(script, sizeof script, "#VRAMEST --model %s/secret\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "libvramest cannot read it as a model");
    cr_assert_null(strstr(v.user, "SECRET_TOKEN_3"), "%s", v.user);
}

Test(judge, model_directory_is_cached_by_identity)
{
    char script[256], p[256];
    snprintf(script, sizeof script, "#VRAMEST --model %s/llama --set mode=infer\n", allowed);
    size_t entries;
    unsigned long hits, misses;
    submit(script, "gres:gpu:a100:1");
    expect(VS_ACCEPT, "vramest: fits: ");
    submit(script, "gres:gpu:a100:2");
    expect(VS_ACCEPT, "2 a100 GPUs");
    vs_cache_stats(cache, &entries, &hits, &misses);
    cr_assert_eq(misses, 1);
    cr_assert_eq(hits, 1);
    /* A config.json edited in place: the directory's own mtime stays, the
     * model is read again all the same. */
    snprintf(p, sizeof p, "%s/llama", allowed);
    struct stat before, after;
    cr_assert_eq(stat(p, &before), 0);
    snprintf(p, sizeof p, "%s/llama/config.json", allowed);
    struct timespec t[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
    cr_assert_eq(utimensat(AT_FDCWD, p, t, 0), 0);
    snprintf(p, sizeof p, "%s/llama", allowed);
    cr_assert_eq(stat(p, &after), 0);
    cr_assert_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
    submit(script, "gres:gpu:a100:1");
    expect(VS_ACCEPT, NULL);
    vs_cache_stats(cache, &entries, &hits, &misses);
    cr_assert_eq(misses, 2);
}

Test(judge, index_names_a_shard_outside)
{
    char p[256], script[256];
    cr_assert_eq(mkdir(strcat(strcpy(p, allowed), "/sharded"), 0755), 0);
    copy_fixture("llama-2-7b.json", "models/sharded/config.json");
    put_text("models/sharded/model.safetensors.index.json",
             "{\"metadata\": {}, \"weight_map\": {\"a\": \"../../outside/x.safetensors\"}}");
    snprintf(script, sizeof script, "#VRAMEST --model %s/sharded\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "names a shard that is not a .safetensors file of that directory");
}

Test(judge, fifo_in_a_model_directory)
{
    char p[256], script[256];
    cr_assert_eq(mkdir(strcat(strcpy(p, allowed), "/withfifo"), 0755), 0);
    copy_fixture("llama-2-7b.json", "models/withfifo/config.json");
    snprintf(p, sizeof p, "%s/withfifo/model.gguf", allowed);
    cr_assert_eq(mkfifo(p, 0644), 0);
    snprintf(script, sizeof script, "#VRAMEST --model %s/withfifo\n", allowed);
    submit(script, "gres:gpu:a100:1");
    rejected(VS_WHY_ACCESS, "model.gguf' is not a regular file or a directory");
}

Test(judge, device_and_gpus_come_from_slurm)
{
    submit("#VRAMEST {\"model\": \"llama-2-7b\", \"device\": \"H100-80GB\"}\n", "gres:gpu:a100:1");
    rejected(VS_WHY_DIRECTIVE, "the directive names device H100-80GB, but the job's GPUs are A100-80GB here");
    submit("#VRAMEST {\"model\": \"llama-2-7b\", \"device\": \"a100-80gb\"}\n", "gres:gpu:a100:1");
    expect(VS_ACCEPT, NULL);
    submit("#VRAMEST --model llama-2-7b --set gpus=8\n", "gres:gpu:a100:4");
    rejected(VS_WHY_DIRECTIVE, "the directive says parallel.gpus = 8, but the job requests 4");
    submit("#VRAMEST --model llama-2-7b\n", NULL);
    rejected(VS_WHY_DIRECTIVE, "the job requests no GPU");
    submit("#VRAMEST --model llama-2-7b\n", "gres:gpu:v100:1");
    rejected(VS_WHY_DIRECTIVE, "GPU type \"v100\" has no device in vramest.conf (types known: a100, t4)");
    submit("#VRAMEST --model llama-2-7b\n", "gres:gpu:2");
    expect(VS_ACCEPT, "on 2 GPUs (A100-80GB)");
}

Test(judge, update_to_more_gpus)
{
    /* Accepted on 2 GPUs with ZeRO-3, then updated: the record carries the spec. */
    submit("#VRAMEST --model qwen3-8b --precision bf16 --set mode=train --set batch_size=1 --set zero_stage=3\n",
           "gres:gpu:a100:2");
    expect(VS_ACCEPT, NULL);
    char *comment = strdup(v.admin);
    vs_job up = {.admin_comment = comment, .uid = 0, .gid = (uint32_t)-1};
    up.req.tres_per_node = "gres:gpu:a100:4";
    vs_verdict_free(&v);
    vs_judge_modify(&ctx, &up, &v);
    expect(VS_ACCEPT, "4 a100 GPUs");
    cr_assert(strstr(v.admin, "\"req\":{\"tres_per_node\":\"gres:gpu:a100:4\"}"), "%s", v.admin);
    /* To the small GPUs: does not fit. */
    up.req.tres_per_node = "gres:gpu:t4:4";
    vs_verdict_free(&v);
    vs_judge_modify(&ctx, &up, &v);
    rejected(VS_WHY_NOFIT, "its GPUs have 15.00 GiB");
    /* Nodes only: the record's GPUs per node times the new node count. */
    up.req.tres_per_node = NULL;
    up.req.min_nodes = 2;
    vs_verdict_free(&v);
    vs_judge_modify(&ctx, &up, &v);
    expect(VS_ACCEPT, "4 a100 GPUs (A100-80GB), 2 per node on 2 nodes");
    /* Not about GPUs, or a job admitted without a directive: nothing to judge. */
    up.req.min_nodes = 0;
    vs_verdict_free(&v);
    vs_judge_modify(&ctx, &up, &v);
    expect(VS_PASS, NULL);
    up.admin_comment = "set by an admin";
    up.req.tres_per_node = "gres:gpu:t4:1";
    vs_verdict_free(&v);
    vs_judge_modify(&ctx, &up, &v);
    expect(VS_PASS, NULL);
    up.admin_comment = "vramest: fits: x | vramest-record {\"v\":1,";
    vs_verdict_free(&v);
    vs_judge_modify(&ctx, &up, &v);
    rejected(VS_WHY_INTERNAL, "damaged");
    free(comment);
}
