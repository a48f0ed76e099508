/* Fuzz harnesses (see harness.h). Besides "no crash, no leak, no UB", which
 * the sanitizers check, every call is held to the API contract; a breach
 * calls abort() with a line on stderr, so libFuzzer saves the input:
 *  - the status is a documented one, never VRAMEST_E_INTERNAL ("a bug");
 *  - a failure leaves a non-empty message; NEED_MORE_DATA asks for more
 *    bytes than were given;
 *  - a failed parse leaves the model as it was (atomicity);
 *  - an estimate's headline figures are ordered (allocated <= reserved <=
 *    device total), its fit verdict agrees with them, and its JSON plan is
 *    valid JSON of the announced size. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vramest/vramest.h>

#include "common/json_reader.h"
#include "estimate/cache/progcache.h"
#include "spec/spec.h"

const char *const vf_target_names[VF_TARGET_COUNT] = {"hf_config", "safetensors", "st_index", "gguf", "spec"};

/* What an input runs besides its parse, picked by its hash (input_hash) so
 * that a replay does the same and every path is reached by some inputs. The
 * rates keep each costly stage to a few per cent of a campaign's time
 * (docs/performance.md, "Fuzz targets, session 4", has the profile): a
 * compile costs ~150 times an estimate under the sanitizers, a solver tens
 * to hundreds of estimates, the plan's strict re-read a parse of it. */
typedef struct picks {
    unsigned workload; /* bits 12-15, modulo the workloads */
    int solvers;       /* bits 0-5 zero (1 in 64); the solver: bits 26-27 */
    int solver;        /* 0 solve_max, 1 min_gpus, 2 advice, 3 all three */
    int compiles;      /* bits 6-11 and 19-20 zero (1 in 256) */
    int detect;        /* bits 16-18 zero (1 in 8): parsed again as AUTO */
    int reread;        /* bits 21-23 zero (1 in 8): the plan re-read strictly */
    int half;          /* bits 24-25 zero (1 in 4): the first half parsed */
    int cached;        /* bits 28-29 zero (1 in 4): spec planned through the cache */
} picks;

/* What the harness is doing, for the report of a broken promise. */
static _Thread_local const char *doing = "parsing";

static void broken(const char *what, int rc)
{
    fprintf(stderr, "vramest fuzz harness: broken promise while %s: %s (status %d %s; message: %s)\n", doing, what,
            rc, vramest_status_string(rc), vramest_last_error_message());
    abort();
}

/* Every status a call returns must be documented, carry a message, and not
 * be an internal error. */
static int checked(int rc, const char *call)
{
    if (rc == VRAMEST_OK) return rc;
    if (strcmp(vramest_status_string(rc), "unknown status") == 0) broken(call, rc);
    if (rc == VRAMEST_E_INTERNAL) broken(call, rc);
    if (vramest_last_error_message()[0] == '\0') broken("a failure without a message", rc);
    return rc;
}
#define CALL(expr) (vramest_clear_error(), checked((expr), #expr))

/* ---- estimates ------------------------------------------------------------ */

typedef struct opt {
    const char *name, *value;
} opt;

/* Workloads that reach every estimator: load, training (full, LoRA/QLoRA,
 * checkpointing, eager attention), inference with a KV cache and beams, the
 * parallel layouts and offload, vLLM and llama.cpp serving — and one with
 * every size at its bound, which only saturating arithmetic survives. */
typedef struct workload {
    const char *precision; /* preset, or NULL for the defaults */
    opt opts[12];
    int solve; /* 1: also run the solvers (they estimate many times) */
} workload;

static const workload workloads[] = {
    {NULL, {{NULL, NULL}}, 0},
    {"mixed_bf16",
     {{"mode", "train"}, {"batch_size", "2"}, {"seq_len", "512"}, {"attention", "eager"}, {"optimizer", "adamw"},
      {"grad_accum_steps", "4"}, {NULL, NULL}},
     0},
    {"nf4",
     {{"mode", "train"}, {"finetune", "qlora"}, {"lora_targets", "all-linear"}, {"gradient_checkpointing", "full"},
      {"seq_len", "4096"}, {"optimizer", "paged_adamw_8bit"}, {"device", "A100-80GB"}, {NULL, NULL}},
     1},
    {"int8",
     {{"mode", "infer"}, {"prompt_len", "1000"}, {"gen_len", "100"}, {"beams", "2"}, {"device", "H100-80GB"},
      {NULL, NULL}},
     1},
    {"bf16",
     {{"mode", "train"}, {"gpus", "64"}, {"tp", "2"}, {"pp", "4"}, {"zero_stage", "3"},
      {"offload_optimizer", "cpu"}, {"gradient_checkpointing", "selective"}, {"pp_schedule", "interleaved"},
      {"virtual_stages", "2"}, {NULL, NULL}},
     0},
    {"fp16", {{"mode", "infer"}, {"framework", "vllm"}, {"device", "H100-80GB"}, {"max_num_seqs", "512"}, {NULL, NULL}}, 0},
    {"q4_k_m", {{"mode", "infer"}, {"framework", "llama.cpp"}, {"n_ctx", "8192"}, {"n_gpu_layers", "20"}, {NULL, NULL}}, 0},
    {"fp32",
     {{"mode", "train"}, {"batch_size", "1000000000"}, {"seq_len", "1073741824"}, {"grad_accum_steps", "1000000000"},
      {"gpus", "10000000"}, {"attention", "eager"}, {"finetune", "lora"}, {"lora_rank", "65536"},
      {"device", "H100-80GB"}, {NULL, NULL}},
     1},
};

static int set_opt(vramest_precision *p, vramest_config *c, const opt *o)
{
    vramest_option key;
    if (vramest_option_from_name(o->name, &key)) return -1;
    int type = 0, handle = 0;
    if (vramest_option_info(key, &type, &handle, NULL, NULL, NULL)) return -1;
    if (type == VRAMEST_TYPE_ENUM || type == VRAMEST_TYPE_STRING || type == VRAMEST_TYPE_BOOL)
        return handle == VRAMEST_HANDLE_CONFIG ? vramest_config_set_str(c, key, o->value)
                                               : vramest_precision_set_str(p, key, o->value);
    double v = strtod(o->value, NULL);
    return handle == VRAMEST_HANDLE_CONFIG ? vramest_config_set_f64(c, key, v) : vramest_precision_set_f64(p, key, v);
}

/* Checks a result; returns its JSON plan (malloc'd). `reread`: also parse
 * the plan with the library's strict reader. */
static char *check_result(const vramest_result *r, int reread)
{
    uint64_t alloc = 0, reserved = 0, total = 0;
    if (CALL(vramest_result_value(r, VRAMEST_VAL_PEAK_ALLOCATED, &alloc)) ||
        CALL(vramest_result_value(r, VRAMEST_VAL_PEAK_RESERVED, &reserved)) ||
        CALL(vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &total)))
        broken("a headline figure cannot be read", -1);
    if (alloc > reserved || reserved > total) {
        fprintf(stderr, "allocated %llu reserved %llu total %llu\n", (unsigned long long)alloc,
                (unsigned long long)reserved, (unsigned long long)total);
        broken("peak_allocated <= peak_reserved <= device_total", 0);
    }
    /* The verdict a scheduler admits jobs on must agree with the figures. */
    /* An engine that refuses the job (issue #18: vLLM with no room for KV
     * blocks, llama.cpp failing to load) makes it not fit whatever the
     * total: then the verdict must say does_not_fit. */
    uint64_t fits = 0, capacity = 0, verdict = 0;
    if (vramest_result_value(r, VRAMEST_VAL_FITS, &fits) == VRAMEST_OK &&
        (CALL(vramest_result_value(r, VRAMEST_VAL_DEVICE_CAPACITY, &capacity)) ||
         CALL(vramest_result_value(r, VRAMEST_VAL_VERDICT, &verdict)) || (fits && total > capacity) ||
         (!fits && total <= capacity && verdict != VRAMEST_VERDICT_DOES_NOT_FIT)))
        broken("fits => device_total <= device capacity; a refusal is does_not_fit", 0);
    for (int dev = VRAMEST_DEV_GPU; dev <= VRAMEST_DEV_NVME; dev++) {
        uint64_t all[64];
        size_t n = 0;
        if (CALL(vramest_result_get_all(r, (vramest_device)dev, all, 64, &n))) broken("vramest_result_get_all", -1);
        for (uint32_t cat = 0; cat < vramest_category_count(); cat++) {
            uint64_t lo, hi;
            int prov;
            if (CALL(vramest_result_get_band(r, (vramest_device)dev, (vramest_category)cat, &lo, &hi)) ||
                CALL(vramest_result_provenance(r, (vramest_device)dev, (vramest_category)cat, &prov)))
                broken("a category cannot be read", -1);
        }
    }
    for (uint32_t i = 0; i < vramest_result_warning_count(r); i++)
        if (!vramest_result_warning(r, i)) broken("a counted warning is NULL", 0);
    for (uint32_t i = 0; i < vramest_result_rank_count(r); i++) {
        uint64_t v;
        if (!vramest_result_rank_label(r, i) || CALL(vramest_result_rank_get(r, i, VRAMEST_RANK_COUNT, &v)))
            broken("a counted rank group cannot be read", -1);
    }
    size_t needed = 0;
    if (CALL(vramest_result_json(r, NULL, 0, &needed)) != VRAMEST_E_BUFFER_TOO_SMALL || needed == 0)
        broken("vramest_result_json with no buffer must ask for one", -1);
    char *buf = malloc(needed);
    if (!buf) abort();
    size_t again = 0;
    if (CALL(vramest_result_json(r, buf, needed, &again)) || again != needed || strlen(buf) + 1 != needed)
        broken("vramest_result_json into the size it asked for", -1);
    if (!reread) return buf;
    /* The library's own strict reader must take what its writer wrote. */
    vx_jdoc doc;
    if (vx_json_parse(&doc, buf, strlen(buf), "plan") || vx_jroot(&doc)->type != VX_J_OBJ) {
        fprintf(stderr, "%s\n%s\n", buf, vramest_last_error_message());
        broken("the plan is not a JSON object", 0);
    }
    vx_json_free(&doc);
    return buf;
}

/* vramest_solve_min_gpus (and vramest_advise_json, which calls it) scans
 * world sizes one by one, and an estimate with pipeline size k costs O(k):
 * on a model with tens of thousands of layers a hostile workload keeps them
 * busy for minutes (reported in docs/security.md, "Known limits"). Until the
 * search is bounded, the harness runs them on shallow models only, so that
 * the fuzzers keep looking for memory errors instead of rediscovering it. */
static int shallow(const vramest_model *m)
{
    int64_t layers = 0, dec = 0;
    vramest_model_get_i64(m, VRAMEST_MODEL_NUM_HIDDEN_LAYERS, &layers);
    vramest_model_get_i64(m, VRAMEST_MODEL_NUM_DECODER_LAYERS, &dec);
    return layers <= 128 && dec <= 128;
}

/* One workload on one model, picked by the input's hash (see picks):
 * running all eight on every input made each execution cost a millisecond
 * (issue #21 item 6). The solvers estimate dozens (min GPUs, advice:
 * hundreds) of times, so they run on one input in 64, one solver each (all
 * three on a quarter of those). A structure compiles on its 100th sighting
 * (estimate/cache/progcache.h), which no single input reaches: on
 * `compiles` inputs it compiles on the second, and the compiled plan must be
 * the replayed one, byte for byte. */
static void estimate_one(const vramest_model *m, const picks *pk)
{
    size_t w = pk->workload;
    int compiles = pk->compiles;
    static const char *const names[] = {"estimating workload 0 (defaults)", "estimating workload 1 (mixed_bf16 train)",
                                        "estimating workload 2 (qlora)", "estimating workload 3 (int8 infer)",
                                        "estimating workload 4 (3D parallel)", "estimating workload 5 (vllm)",
                                        "estimating workload 6 (llama.cpp)", "estimating workload 7 (every bound)"};
    const workload *wl = &workloads[w];
    doing = names[w];
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    if ((wl->precision ? vramest_precision_new_preset(wl->precision, &p) : vramest_precision_new(&p)) ||
        vramest_config_new(&c))
        broken("building a workload", -1);
    for (const opt *o = wl->opts; o->name; o++)
        if (set_opt(p, c, o)) {
            fprintf(stderr, "workload %zu: %s=%s\n", w, o->name, o->value);
            broken("setting a workload option", -1);
        }
    if (compiles) vx_pcache_set_compile_at(vx_pcache_of(m), 2);
    vramest_result *r = NULL;
    int rc = CALL(vramest_estimate(m, w == 0 ? NULL : p, w == 0 ? NULL : c, &r));
    if (rc == VRAMEST_OK) {
        char *plan = check_result(r, pk->reread);
        vramest_result_free(r);
        r = NULL;
        if (compiles) {
            /* the second sighting: compiled where the structure compiles */
            if (CALL(vramest_estimate(m, w == 0 ? NULL : p, w == 0 ? NULL : c, &r)) != VRAMEST_OK)
                broken("the same estimate failed the second time", -1);
            char *again = check_result(r, pk->reread);
            vramest_result_free(r);
            if (strcmp(plan, again)) {
                fprintf(stderr, "replayed: %s\ncompiled: %s\n", plan, again);
                broken("the compiled plan differs from the replayed one", 0);
            }
            free(again);
        }
        free(plan);
        if (wl->solve && pk->solvers) {
            int fits;
            int64_t margin, value;
            uint64_t bytes;
            if (CALL(vramest_check_fit(m, p, c, &fits, &margin)) == VRAMEST_OK && fits != 0 && fits != 1)
                broken("check_fit gives 0 or 1", 0);
            int all = pk->solver == 3;
            if (pk->solver == 0 || all) CALL(vramest_solve_max(m, p, c, VRAMEST_CFG_BATCH_SIZE, &value, &bytes));
            if ((pk->solver == 1 || all) && shallow(m)) CALL(vramest_solve_min_gpus(m, p, c, 1024, &value));
            if ((pk->solver == 2 || all) && shallow(m)) {
                char advice[8192];
                size_t needed;
                CALL(vramest_advise_json(m, p, c, advice, sizeof advice, &needed));
            }
        }
    } else if (r) {
        broken("a failed estimate wrote its result", -1);
    }
    vramest_precision_free(p);
    vramest_config_free(c);
    doing = "parsing";
}

/* ---- model sources --------------------------------------------------------- */

/* What can be observed of a model from outside, to check that a failed parse
 * changed nothing. */
typedef struct snapshot {
    int valid;
    uint64_t total, active;
} snapshot;

static snapshot snap(const vramest_model *m)
{
    snapshot s = {vramest_model_validate(m), 0, 0};
    if (s.valid == VRAMEST_OK) vramest_model_param_count(m, &s.total, &s.active);
    return s;
}

/* A header or an index alone rarely makes a complete model (no model_type,
 * no head count). To fuzz the estimators over file inventories too, fill
 * what is missing with small values, as a caller adding a config would. */
static int complete_model(vramest_model *m)
{
    static const struct {
        vramest_option key;
        int64_t value;
    } fill[] = {
        {VRAMEST_MODEL_HIDDEN_SIZE, 64},   {VRAMEST_MODEL_NUM_HIDDEN_LAYERS, 2},
        {VRAMEST_MODEL_VOCAB_SIZE, 128},   {VRAMEST_MODEL_MAX_POSITION_EMBEDDINGS, 2048},
        {VRAMEST_MODEL_NUM_LOCAL_EXPERTS, 4}, {VRAMEST_MODEL_NUM_EXPERTS_PER_TOK, 2},
        {VRAMEST_MODEL_KV_LORA_RANK, 64},  {VRAMEST_MODEL_QK_ROPE_HEAD_DIM, 16},
        {VRAMEST_MODEL_V_HEAD_DIM, 32},
    };
    int64_t v;
    if (vramest_model_validate(m) == VRAMEST_OK) return VRAMEST_OK;
    if (vramest_model_get_i64(m, VRAMEST_MODEL_MODEL_TYPE, &v) || v == 0)
        vramest_model_set_str(m, VRAMEST_MODEL_MODEL_TYPE, "llama");
    for (size_t i = 0; i < sizeof fill / sizeof fill[0]; i++)
        if (vramest_model_get_i64(m, fill[i].key, &v) == VRAMEST_E_INCOMPLETE_MODEL)
            vramest_model_set_i64(m, fill[i].key, fill[i].value);
    if (vramest_model_get_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, &v) == VRAMEST_E_INCOMPLETE_MODEL) {
        int64_t hidden = 0;
        vramest_model_get_i64(m, VRAMEST_MODEL_HIDDEN_SIZE, &hidden);
        for (int64_t heads = 32; heads >= 1; heads /= 2)
            if (hidden % heads == 0 && hidden / heads >= 8 &&
                vramest_model_set_i64(m, VRAMEST_MODEL_NUM_ATTENTION_HEADS, heads) == VRAMEST_OK &&
                vramest_model_validate(m) == VRAMEST_OK)
                break;
    }
    return vramest_model_validate(m);
}

/* FNV-1a of the input's bytes; its bits pick what an input runs (picks). */
static uint32_t input_hash(const uint8_t *data, size_t size)
{
    /* The first 64 bytes and the length: a hash of every byte cost as much
     * as a parse under coverage instrumentation (a traced compare a byte),
     * and a mutation further in keeps the input's workload. */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size && i < 64; i++) h = (h ^ data[i]) * 16777619u;
    for (size_t i = 0; i < sizeof size; i++) h = (h ^ (uint8_t)(size >> (8 * i))) * 16777619u;
    return h;
}

static picks pick(const uint8_t *data, size_t size)
{
    uint32_t h = input_hash(data, size);
    picks pk = {
        .workload = ((h >> 12) & 15) % (sizeof workloads / sizeof workloads[0]),
        .solvers = (h & 63) == 0,
        .solver = (int)((h >> 26) & 3),
        .compiles = ((h >> 6) & 63) == 0 && ((h >> 19) & 3) == 0,
        .detect = ((h >> 16) & 7) == 0,
        .reread = ((h >> 21) & 7) == 0,
        .half = ((h >> 24) & 3) == 0,
        .cached = ((h >> 28) & 3) == 0,
    };
    return pk;
}

static int parse_one(vramest_source kind, const uint8_t *data, size_t size, const picks *estimate)
{
    vramest_model *m = NULL;
    if (vramest_model_new(&m)) abort();
    snapshot before = snap(m);
    size_t needed = 0;
    int rc = CALL(vramest_model_parse(m, kind, data, size, &needed));
    if (rc == VRAMEST_E_NEED_MORE_DATA && needed <= size) broken("NEED_MORE_DATA asks for no more bytes", rc);
    if (rc) {
        snapshot after = snap(m);
        if (before.valid != after.valid || before.total != after.total || before.active != after.active)
            broken("a failed parse changed the model", rc);
    } else if (estimate && complete_model(m) == VRAMEST_OK) {
        uint64_t total = 0, active = 0;
        CALL(vramest_model_param_count(m, &total, &active));
        estimate_one(m, estimate);
    }
    vramest_model_free(m);
    return rc;
}

static int run_file(vramest_source kind, const uint8_t *data, size_t size)
{
    picks pk = pick(data, size);
    int rc = parse_one(kind, data, size, &pk);
    /* Detection must not change the verdict's safety; a prefix of a header
     * must be asked to grow, never misread. Each parses the input again, so
     * each runs on some inputs only (picks). */
    if (pk.detect) parse_one(VRAMEST_SRC_AUTO, data, size, NULL);
    if (pk.half && kind != VRAMEST_SRC_HF_CONFIG_JSON && kind != VRAMEST_SRC_SAFETENSORS_INDEX && size > 1)
        parse_one(kind, data, size / 2, NULL);
    return rc;
}

/* ---- job specs -------------------------------------------------------------- */

static int run_spec(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vx_spec_solve solve;
    picks pk = pick(data, size);
    int rc = CALL(vx_spec_read(json, size, &m, &p, &c, &solve));
    if (rc && (m || p || c)) broken("a failed spec returned handles", rc);
    if (!rc) {
        vramest_result *r = NULL;
        if (CALL(vramest_estimate(m, p, c, &r)) == VRAMEST_OK) free(check_result(r, pk.reread));
        vramest_result_free(r);
        int64_t value;
        uint64_t bytes;
        char advice[8192];
        size_t needed;
        if (!pk.solvers || !shallow(m))
            ; /* the solvers below estimate many times: one input in 64, shallow models */
        else if (solve.kind == VX_SOLVE_MAX && solve.key == VRAMEST_CFG_GPUS)
            CALL(vramest_solve_min_gpus(m, p, c, 4096, &value));
        else if (solve.kind == VX_SOLVE_MAX)
            CALL(vramest_solve_max(m, p, c, solve.key, &value, &bytes));
        else if (solve.kind == VX_SOLVE_ADVICE)
            CALL(vramest_advise_json(m, p, c, advice, sizeof advice, &needed));
        vramest_model_free(m);
        vramest_precision_free(p);
        vramest_config_free(c);
    }
    /* The public one-call path, with a buffer that may be too small. It
     * answers "solve" questions too: not the unbounded ones (see shallow()).
     * A spec the reader refused it reads again the same way (vx_spec_read
     * first): that runs on the inputs that plan through the cache only, and
     * must fail alike. */
    if (!rc && solve.kind != VX_SOLVE_NONE && (solve.key == VRAMEST_CFG_GPUS || solve.kind == VX_SOLVE_ADVICE))
        return rc;
    if (rc && !pk.cached) return rc;
    char plan[4096];
    size_t needed = 0;
    int prc = CALL(vramest_spec_plan(json, size, plan, sizeof plan, &needed));
    if (rc && prc != rc) {
        fprintf(stderr, "read %d, plan %d\n", rc, prc);
        broken("a spec the reader refuses, the plan refuses alike", prc);
    }
    if (prc == VRAMEST_E_BUFFER_TOO_SMALL && needed <= sizeof plan) broken("BUFFER_TOO_SMALL asks for no more", prc);
    if (prc == VRAMEST_OK && strlen(plan) + 1 != needed) broken("the plan's announced size", prc);
    /* The same through a model cache that lives across inputs: a model an
     * earlier input left there must give this input's plan, byte for byte.
     * On one input in four (picks): a plan that does not fit searches for a
     * fix, hundreds of estimates, and did it once already above. */
    if (!pk.cached) return rc;
    static vramest_cache *cache;
    if (!cache && vramest_cache_new(8, &cache)) broken("vramest_cache_new", -1);
    char cached[4096];
    size_t cneeded = 0;
    doing = "planning through the model cache";
    int crc = CALL(vramest_spec_plan_cached(cache, json, size, cached, sizeof cached, &cneeded));
    doing = "parsing";
    if (crc != prc || cneeded != needed || (prc == VRAMEST_OK && strcmp(plan, cached) != 0)) {
        fprintf(stderr, "plan %d (%zu bytes), cached %d (%zu bytes)\n", prc, needed, crc, cneeded);
        broken("the cached plan differs from the plan", crc);
    }
    return rc;
}

int vf_run(int target, const uint8_t *data, size_t size)
{
    int rc;
    switch (target) {
    case VF_HF_CONFIG: rc = run_file(VRAMEST_SRC_HF_CONFIG_JSON, data, size); break;
    case VF_SAFETENSORS: rc = run_file(VRAMEST_SRC_SAFETENSORS_HEADER, data, size); break;
    case VF_ST_INDEX: rc = run_file(VRAMEST_SRC_SAFETENSORS_INDEX, data, size); break;
    case VF_GGUF: rc = run_file(VRAMEST_SRC_GGUF_HEADER, data, size); break;
    case VF_SPEC: rc = run_spec(data, size); break;
    default: abort();
    }
    return rc;
}
