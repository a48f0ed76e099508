/* Ollama: a scheduler that decides how many layers its llama.cpp runner
 * offloads, from its own estimate, then the runner's real buffers
 * (docs/methodology.md, "Ollama"; ollama/ollama@3241b457 llm/memory.go
 * EstimateGPULayers, llm/ggml.go GraphSize, 2024-2025):
 *
 *   runner n_ctx = num_ctx x num_parallel, n_seq = num_parallel
 *   kv           = n_ctx x layers x (K + V dims) x bytes (f16 unless a
 *                  quantized OLLAMA_KV_CACHE_TYPE with flash attention)
 *   graph        = the architecture's full / partial-offload formula over
 *                  batch = min(num_ctx, n_batch) and context = n_ctx
 *   layers       = block by block while free > allocated + max(graph
 *                  partial, full) + the next layer (weights + its KV), after
 *                  457 MiB of minimum memory and one layer of buffer; the
 *                  output layer last; then the graph of the case
 *
 * The runner then allocates what llama.cpp allocates for those layers
 * (serving_llamacpp.c). Both are reported: the layers Ollama puts on the
 * GPU (serving.gpu_layers), the most that actually fit (gpu_layers_fit),
 * and over several GPUs Ollama's per-GPU counts become the runner's
 * tensor_split (the graph partial on each);
 * and Ollama's own figures under serving.ollama. When Ollama's count does
 * not fit, the load fails (cudaMalloc out of memory): the verdict says so. */
#include <string.h>

#include "estimate/cache/progcache.h"
#include "estimate/infer/infer.h"

/* discover/gpu.go: CUDA and ROCm keep 457 MiB free. */
#define OLLAMA_MIN_MEMORY (457 * VX_MIB)

/* Default num_ctx: 2048 until 0.6.4 (2025-03), then 4096; from 0.15.5
 * (2026-02, ollama#14073) by total VRAM: < 24 GiB 4096, < 48 GiB 32768,
 * else 262144; never beyond the model's context. */
static uint64_t default_num_ctx(const vx_ctx *x, uint64_t dev)
{
    int v = x->rt.framework_version;
    uint64_t n = v < VX_VER(0, 6, 4)    ? 2048
                 : v < VX_VER(0, 15, 5) ? 4096
                 : dev < 24 * VX_GIB    ? 4096
                 : dev < 48 * VX_GIB    ? 32768
                                        : 262144;
    if (x->pol.s->max_pos > 0) n = vx_min_u64(n, (uint64_t)x->pol.s->max_pos);
    return n;
}

/* Bytes of one tensor group at the policy's dtypes. */
static uint64_t group_bytes(const vx_ctx *x, const vx_tensor *t)
{
    vx_piece pc[VX_MAX_PIECES];
    size_t np = vx_tensor_pieces(&x->pol, t, pc);
    uint64_t b = 0;
    for (size_t i = 0; i < np; i++) b = vx_sat_add(b, vx_sat_mul(pc[i].bytes, pc[i].count));
    return b;
}

/* Weights of the front (dense) layers and of the others, per layer, and
 * of the output layer (output_norm + output, or the tied token_embd). */
static void layer_sizes(const vx_ctx *x, uint64_t *front, uint64_t *back, uint64_t *output)
{
    const vx_shape *s = x->pol.s;
    uint64_t L = (uint64_t)s->layers, D = s->dense_layers > 0 ? (uint64_t)s->dense_layers : 0;
    uint64_t f = 0, b = 0, out = 0, embed = 0;
    bool head = false;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        uint64_t by = group_bytes(x, t);
        if (t->part != VX_PART_GLOBAL && t->n_layers > 0) {
            uint64_t per = by / (uint64_t)t->n_layers, n = (uint64_t)t->n_layers;
            if (n >= L) f = vx_sat_add(f, per), b = vx_sat_add(b, per);
            else if (D && n == D && !t->expert) f = vx_sat_add(f, per);
            else b = vx_sat_add(b, per);
        } else if (t->role == VX_ROLE_LM_HEAD || t->role == VX_ROLE_FINAL_NORM) {
            out = vx_sat_add(out, by);
            head |= t->role == VX_ROLE_LM_HEAD;
        } else if (t->role == VX_ROLE_EMBED) {
            embed = by;
        }
    }
    if (!head) out = vx_sat_add(out, embed);
    *front = D ? f : b;
    *back = b;
    *output = out;
}

/* llm/ggml.go GraphSize: llama-style (llama, mistral), qwen2 and deepseek2
 * have formulas; other architectures take GQA x kv / 6 for both. */
static void graph_sizes(const vx_ctx *x, uint64_t ctx, uint64_t batch, uint64_t kv, uint64_t *full, uint64_t *partial)
{
    const vx_shape *s = x->pol.s;
    const char *arch = s->fam && s->fam->name ? s->fam->name : "";
    uint64_t e = (uint64_t)s->hidden, h = (uint64_t)s->heads, hkv = (uint64_t)(s->kv_heads > 0 ? s->kv_heads : s->heads);
    uint64_t V = (uint64_t)s->vocab, d = (uint64_t)s->head_dim;
#define M2(a, b) vx_max_u64((a), (b))
    if (!strcmp(arch, "llama") || !strcmp(arch, "mistral")) {
        *full = M2(4 * batch * (1 + 4 * e + ctx * (1 + h)), 4 * batch * (e + V));
        *partial = 4 * batch * e + M2(4 * batch * (1 + e + M2(ctx, e)) + e * e * 9 / 16 + 4 * ctx * (batch * h + d * hkv),
                                      4 * batch * (e + V) + e * V * 105 / 128);
    } else if (!strcmp(arch, "qwen2")) {
        *full = M2(4 * batch * (e + V), 4 * batch * (1 + 2 * e + ctx + ctx * h));
        *partial = M2(4 * batch * (e + V) + e * V * 105 / 128, 4 * (batch * (1 + 2 * e + ctx * (1 + h)) + e * (1 + ctx)));
    } else if (!strcmp(arch, "deepseek_v3") || !strcmp(arch, "deepseek_v2")) {
        uint64_t dk = (uint64_t)(s->nope_dim + s->rope_dim);
        *full = M2(4 * batch * (3 * e + V), 4 * batch * (3 * e + 2 + ctx * (1 + hkv) + 2 * dk * hkv));
        *partial = M2(4 * batch * (3 * e + V) + e * V * 105 / 128,
                      4 * batch * (2 * e + 1 + 2 * dk * hkv + ctx + ctx * hkv) + 4 * dk * ctx * hkv + e * dk * hkv * 9 / 16);
    } else {
        *partial = (h / (hkv ? hkv : 1)) * kv / 6;
        *full = *partial;
    }
#undef M2
}

/* The runner's fullest GPU for a job (split over n GPUs by `share`). */
static int runner(const vx_ctx *x, const vx_shard *sh, vx_ggml_job *job, const double *share, int n, vx_ggml_mem *m)
{
    int rc = vx_ggml_context(x, sh, job, m);
    if (!rc && share) rc = vx_ggml_split(x, sh, job, share, n, VX_SPLIT_LAYER, m);
    return rc;
}

int vx_serving_ollama(vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    struct vramest_result *r = x->r;
    vx_kv_layout kl;
    int rc = vx_kv_layout_resolve(x, sh, &kl);
    if (rc) return rc;
    uint64_t dev = r->device_bytes;
    uint64_t num_ctx = cv->num_ctx > 0 ? (uint64_t)cv->num_ctx : default_num_ctx(x, dev);
    uint64_t par = cv->num_parallel > 0 ? (uint64_t)cv->num_parallel : 1;
    uint64_t n_ctx = vx_sat_mul(num_ctx, par), L = (uint64_t)s->layers;
    if (!n_ctx) return vx_fail(VRAMEST_E_INCOMPLETE_MODEL, "framework ollama: set runtime num_ctx");

    /* The scheduler's estimate (it reads the GGUF header: per-head K and V). */
    uint64_t kv_layer = vx_sat_add(vx_kv_elems_bytes(&kl, vx_sat_mul(n_ctx, kl.k_elems)),
                                   vx_kv_elems_bytes(&kl, vx_sat_mul(n_ctx, kl.v_elems)));
    uint64_t kv = vx_sat_mul(kv_layer, (uint64_t)kl.layers);
    uint64_t kv_per = L ? kv / L : 0;
    uint64_t full = 0, partial = 0;
    graph_sizes(x, n_ctx, vx_min_u64(num_ctx, vx_ggml_n_batch(x)), kv, &full, &partial);
    uint64_t front, back, output;
    layer_sizes(x, &front, &back, &output);
    uint64_t D = s->dense_layers > 0 ? (uint64_t)s->dense_layers : 0;
    /* Several GPUs of the same memory: the partial graph on each. */
    int n = cv->gpus > 1 ? (int)vx_min_u64((uint64_t)cv->gpus, VX_GGML_MAX_DEV) : 1;
    if (n > 1) full = partial;
    uint64_t graph = vx_max_u64(full, partial), alloc[VX_GGML_MAX_DEV] = {0}, layers = 0;
    uint64_t counts[VX_GGML_MAX_DEV] = {0};
    int ws[VX_GGML_MAX_DEV], nws = 0;
    int64_t want = cv->n_gpu_layers;
    if (dev) {
        uint64_t first = vx_sat_add(front, kv_per);
        for (int g = 0; g < n; g++)
            if (dev >= vx_sat_add(vx_sat_add(graph, OLLAMA_MIN_MEMORY), vx_sat_mul(2, first))) {
                ws[nws++] = g;
                alloc[g] = vx_sat_add(OLLAMA_MIN_MEMORY, first);
            }
        /* blocks from the front, each on the next GPU with room (i % j) */
        for (uint64_t i = 0; i < L && nws; i++) {
            if (want >= 0 && layers >= (uint64_t)want) break;
            uint64_t ls = vx_sat_add(i < D ? front : back, kv_per);
            for (int j = nws; j > 0; j--) {
                int k = (int)(i % (uint64_t)j), g = ws[k];
                if (dev > vx_sat_add(vx_sat_add(alloc[g], graph), ls)) {
                    alloc[g] += ls, counts[g]++, layers++;
                    break;
                }
                for (int q = k; q + 1 < nws; q++) ws[q] = ws[q + 1];
                nws--;
            }
            if (!nws) break;
        }
        if (output && nws && (want < 0 || layers < (uint64_t)want))
            for (int j = nws; j > 0; j--) {
                int g = ws[layers % (uint64_t)j];
                if (dev > vx_sat_add(vx_sat_add(alloc[g], graph), output)) {
                    alloc[g] += output, counts[g]++, layers++;
                    break;
                }
            }
        for (int g = 0; g < n; g++)
            if (counts[g]) alloc[g] = vx_sat_add(alloc[g], layers > L ? full : partial);
    }
    uint64_t required = 0;
    for (int g = 0; g < n; g++) required = vx_sat_add(required, counts[g] ? alloc[g] : 0);
    /* No device: every layer, as Ollama does on a GPU that holds them. */
    if (!dev) layers = want >= 0 ? (uint64_t)want : L + 1;
    /* A user's num_gpu (n_gpu_layers) is what the runner gets. */
    int64_t ngl = want >= 0 ? want : (int64_t)layers;

    vx_ggml_job job = {.kl = &kl, .n_ctx = n_ctx, .n_seq = par, .n_gpu_layers = ngl};
    vx_ggml_mem m;
    /* The runner gets the layer counts as its tensor split. */
    double share[VX_GGML_MAX_DEV];
    bool split = n > 1 && dev && layers;
    for (int g = 0; g < n; g++) share[g] = (double)counts[g];
    if ((rc = runner(x, sh, &job, split ? share : NULL, n, &m))) return rc;
    vx_ggml_write(x, &m);

    /* The most layers the runner's buffers fit (a bisection: more layers
     * never take less GPU memory). */
    uint64_t fit = 0;
    if (dev) {
        /* the headroom as the verdict takes it (result.c), from the config:
         * the result's own figure is set after the estimate */
        double head = cv->headroom_gib * (double)VX_GIB + cv->headroom_fraction * (double)dev;
        uint64_t keep = head >= (double)dev ? dev : (uint64_t)head;
        uint64_t usable = dev - keep;
        uint64_t lo = 0, hi = L + 1;
        vx_ggml_mem t;
        job.n_gpu_layers = (int64_t)hi;
        if ((rc = runner(x, sh, &job, split ? share : NULL, n, &t))) return rc;
        if (t.gpu_total <= usable) {
            lo = hi;
        } else {
            while (hi - lo > 1) {
                uint64_t mid = lo + (hi - lo) / 2;
                job.n_gpu_layers = (int64_t)mid;
                if ((rc = runner(x, sh, &job, split ? share : NULL, n, &t))) return rc;
                if (t.gpu_total <= usable) lo = mid;
                else hi = mid;
            }
        }
        fit = lo;
        if (vx_sat_add(m.gpu_total, vx_cuda_context_bytes(x)) > dev)
            vx_result_refuse(r,
                             "Ollama would fail to load: its scheduler puts %llu layers on the GPU, the runner's "
                             "buffers for them take %.2f GiB of %.2f GiB (cudaMalloc out of memory); %llu layers fit",
                             (unsigned long long)m.gpu_layers, (double)m.gpu_total / VX_GIB, (double)dev / VX_GIB,
                             (unsigned long long)fit);
    }
    r->val[VRAMEST_VAL_GPU_LAYERS] = m.gpu_layers;
    r->val[VRAMEST_VAL_GPU_LAYERS_FIT] = fit;
    r->val_ok[VRAMEST_VAL_GPU_LAYERS] = 1;
    r->val_ok[VRAMEST_VAL_GPU_LAYERS_FIT] = dev != 0;
    vx_result_engine_fig(r, "ollama", "required_kv_bytes", kv);
    vx_result_engine_fig(r, "ollama", "graph_full_bytes", full);
    vx_result_engine_fig(r, "ollama", "graph_partial_bytes", partial);
    vx_result_engine_fig(r, "ollama", "required_bytes", required);
    vx_result_engine_fig(r, "ollama", "num_ctx", num_ctx);
    vx_result_engine_fig(r, "ollama", "num_parallel", par);
    return VRAMEST_OK;
}
