/* llama.cpp: the buffers llama_model_load and llama_init_from_model
 * allocate (they size everything up front; nothing grows afterwards).
 *
 * Placement (src/llama-model.cpp, load_tensors, 2024-2025):
 *   i_gpu_start = max(n_layer - n_gpu_layers, 0)
 *   act_gpu_layers = min(n_gpu_layers, n_layer + 1)
 *   layer il (0..n_layer, where n_layer is the output layer) is on the GPU
 *   iff il >= i_gpu_start and il - i_gpu_start < act_gpu_layers.
 * So the last n_gpu_layers repeating layers go to the GPU, the output layer
 * (final norm + output matrix) only when n_gpu_layers > n_layer, and the
 * input layer (token embeddings) always stays on the host ("there is very
 * little benefit to offloading the input layer"). A tied output is loaded
 * twice (TENSOR_DUPLICATED): the host copy for the input, one for the
 * output device.
 *
 * Context (llama-context.cpp, llama-kv-cache.cpp):
 *   KV cells = n_ctx padded to 256 with flash attention, 32 without;
 *   SWA layers (Gemma 2/3) min(cells, pad(window x n_seq + n_ubatch));
 *   each layer's K/V lives on that layer's device (offload_kqv default);
 *   recurrent layers (Mamba, gated DeltaNet): n_seq_max state cells of
 *   (d_conv - 1) x conv channels + the scan state, F32 (llama-memory-
 *   recurrent.cpp), on the layer's device;
 *   output buffer (host) = n_vocab x n_seq x 4 B;
 *   compute buffers: the graph allocator's worst case over one ubatch,
 *   buffers reused across layers, so the largest stage counts. */
#include <math.h>
#include <stdlib.h>

#include "estimate/infer/infer.h"

static bool input_role(int role)
{
    return role == VX_ROLE_EMBED || role == VX_ROLE_POS_EMBED || role == VX_ROLE_TYPE_EMBED ||
           role == VX_ROLE_EMBED_NORM || role == VX_ROLE_EMBED_PROJ;
}

/* Layers of a per-layer group that fall in the layer range [lo, hi): a
 * group of every layer, the dense front of an MoE model, or the rest. */
static uint64_t group_layers_in(const vx_shape *s, const vx_tensor *t, uint64_t lo, uint64_t hi)
{
    uint64_t n = (uint64_t)t->n_layers, L = (uint64_t)s->layers;
    uint64_t a = 0, b = L; /* the group's own layers */
    if (n < L) {
        if (s->dense_layers > 0 && n == (uint64_t)s->dense_layers && !t->expert)
            b = n;
        else
            a = L - n;
    }
    uint64_t x = vx_max_u64(a, lo), y = vx_min_u64(b, hi);
    return y > x ? y - x : 0;
}

static uint64_t pad_to(uint64_t v, uint64_t m)
{
    return vx_round_up(v, m);
}

int vx_ggml_context(const vx_ctx *x, const vx_shard *sh, const vx_ggml_job *job, vx_ggml_mem *o)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    if (sh->tp > 1 || sh->pp > 1 || sh->placement)
        return vx_fail(VRAMEST_E_UNSUPPORTED,
                       "framework llama.cpp splits layers across GPUs by tensor_split, not tp/pp/device_map (tp %lld, "
                       "pp %lld): estimate one device",
                       (long long)sh->tp, (long long)sh->pp);
    const vx_kv_layout kl = *job->kl;

    uint64_t L = (uint64_t)s->layers;
    int64_t ngl_opt = job->n_gpu_layers;
    uint64_t ngl = ngl_opt < 0 ? L + 1 : vx_min_u64((uint64_t)ngl_opt, L + 1);
    uint64_t gpu_rep = vx_min_u64(ngl, L);
    bool out_gpu = ngl > L;
    /* This device's layers (all the offloaded ones on one GPU) and whether
     * it holds the output layer. */
    uint64_t lo = job->n_dev > 1 ? job->lo : L - gpu_rep, hi = job->n_dev > 1 ? job->hi : L;
    bool out_here = out_gpu && (job->n_dev > 1 ? job->out_here : 1);
    uint64_t dev_rep = hi > lo ? hi - lo : 0;
    uint64_t n_ctx = job->n_ctx, n_seq = job->n_seq;
    uint64_t n_ub = vx_min_u64((uint64_t)cv->n_ubatch, vx_ggml_n_batch(x));
    bool fa = vx_ggml_flash_attn(x);
    uint64_t cells = pad_to(n_ctx, fa ? 256 : 32);

    /* Weights: exact tensor bytes, split by layer placement. */
    uint64_t w_gpu = 0, w_host = 0, largest_q = 0, w_matrix = 0;
    /* one layer's weights: of every layer, of the dense front, of the rest */
    uint64_t lw_all = 0, lw_front = 0, lw_back = 0;
    bool has_head = false;
    const vx_tensor *embed = NULL;
    uint64_t embed_bytes = 0;
    vx_tensor_iter it;
    vx_tensor_iter_init(&it, &x->pol);
    for (const vx_tensor *t; (t = vx_tensor_iter_next(&it));) {
        /* One policy evaluation per group: bytes and whether it is a block type. */
        vx_piece pc[VX_MAX_PIECES];
        size_t np = vx_tensor_pieces(&x->pol, t, pc);
        uint64_t b = 0;
        bool quant = false;
        for (size_t i = 0; i < np; i++) {
            b = vx_sat_add(b, vx_sat_mul(pc[i].bytes, pc[i].count));
            const vx_dtype_info *di = vx_dtype(pc[i].dtype);
            quant |= di && di->block_elems > 1;
        }
        if (t->role == VX_ROLE_LM_HEAD) has_head = true;
        if (t->role == VX_ROLE_EMBED) embed = t, embed_bytes = b;
        if (t->part != VX_PART_GLOBAL && t->n_layers > 0) {
            uint64_t g = group_layers_in(s, t, lo, hi), g_all = group_layers_in(s, t, L - gpu_rep, L);
            uint64_t on = (uint64_t)((double)b * ((double)g / (double)t->n_layers));
            uint64_t on_all = (uint64_t)((double)b * ((double)g_all / (double)t->n_layers));
            w_gpu = vx_sat_add(w_gpu, on);
            w_host = vx_sat_add(w_host, b - on_all);
            if (t->kind == VX_TK_MATRIX) w_matrix = vx_sat_add(w_matrix, on);
            uint64_t per = b / (uint64_t)t->n_layers;
            if ((uint64_t)t->n_layers >= L) lw_all = vx_sat_add(lw_all, per);
            else if (group_layers_in(s, t, 0, 1)) lw_front = vx_sat_add(lw_front, per);
            else lw_back = vx_sat_add(lw_back, per);
            if (g && t->kind == VX_TK_MATRIX && quant) {
                uint64_t e = vx_sat_mul((uint64_t)t->rows, (uint64_t)t->cols);
                if (e > largest_q) largest_q = e;
            }
        } else if (input_role(t->role)) {
            w_host = vx_sat_add(w_host, b);
        } else if (out_here) {
            w_gpu = vx_sat_add(w_gpu, b);
        } else if (!out_gpu) {
            w_host = vx_sat_add(w_host, b);
        }
    }
    int head = vx_head_resolve(s, (int)cv->head);
    if (!has_head && embed && (head == VX_HEAD_CAUSAL_LM || head == VX_HEAD_SEQ2SEQ_LM)) {
        if (out_here)
            w_gpu = vx_sat_add(w_gpu, embed_bytes);
        else if (!out_gpu)
            w_host = vx_sat_add(w_host, embed_bytes);
    }

    /* KV cells per layer kind, then by device. */
    uint64_t swa_cells = cells;
    if (kl.window_layers > 0)
        swa_cells = vx_min_u64(cells, pad_to(vx_sat_add(vx_sat_mul((uint64_t)kl.window, n_seq), n_ub), fa ? 256 : 32));
    /* Only attention layers have KV cells; recurrent ones (Mamba, gated
     * DeltaNet) keep n_seq_max state cells (llama_memory_recurrent), F32,
     * on their layer's device. KV-shared layers have no cells of their own
     * (llama.cpp's has_kv(il): n_layer_kv_from_start). */
    uint64_t n_attn = kl.state_layers > 0 ? (uint64_t)kl.layers : L - (uint64_t)kl.shared_layers;
    uint64_t n_swa = (uint64_t)kl.window_layers, n_full = n_attn - n_swa, LL = L ? L : 1;
    uint64_t swa_all = gpu_rep * n_swa / LL, full_all = gpu_rep * n_attn / LL - swa_all;
    uint64_t swa_gpu = dev_rep * n_swa / LL, full_gpu = dev_rep * n_attn / LL - swa_gpu;
    uint64_t n_rec = (uint64_t)(kl.state_layers > 0 ? kl.state_layers : 0);
    uint64_t rec_layer = n_rec ? vx_state_bytes(&kl, n_seq, 0) / n_rec : 0;
    uint64_t rec_gpu = vx_sat_mul(rec_layer, dev_rep * n_rec / LL);
    uint64_t rec_host = vx_sat_mul(rec_layer, n_rec - gpu_rep * n_rec / LL);
    uint64_t kv_full_layer =
        vx_kv_elems_bytes(&kl, vx_sat_mul(cells, kl.k_elems)) + vx_kv_elems_bytes(&kl, vx_sat_mul(cells, kl.v_elems));
    uint64_t kv_swa_layer = vx_kv_elems_bytes(&kl, vx_sat_mul(swa_cells, kl.k_elems)) +
                            vx_kv_elems_bytes(&kl, vx_sat_mul(swa_cells, kl.v_elems));
    uint64_t kv_gpu = vx_sat_add(vx_sat_mul(full_gpu, kv_full_layer), vx_sat_mul(swa_gpu, kv_swa_layer));
    uint64_t kv_host =
        vx_sat_add(vx_sat_mul(n_full - full_all, kv_full_layer), vx_sat_mul(n_swa - swa_all, kv_swa_layer));

    /* Compute buffers (f32 activations over one ubatch). */
    uint64_t h = (uint64_t)s->hidden, heads = (uint64_t)s->heads, V = (uint64_t)s->vocab;
    uint64_t ffn = (uint64_t)s->ffn;
    if (s->experts > 0 && s->moe_ffn > 0)
        ffn = vx_max_u64(ffn, (uint64_t)(s->moe_ffn * (s->experts_per_tok > 0 ? s->experts_per_tok : 1)));
    uint64_t hid = vx_sat_mul(vx_sat_mul(n_ub, h), 4);
    uint64_t mask = vx_sat_mul(vx_sat_mul(cells, n_ub), fa ? 2 : 4);
    uint64_t attn = vx_sat_add(mask, vx_sat_mul(4, hid));
    if (!fa) attn = vx_sat_add(attn, vx_sat_mul(vx_sat_mul(heads, cells), vx_sat_mul(n_ub, 4)));
    uint64_t mlp = vx_sat_mul(vx_sat_mul(n_ub, 4), vx_sat_add(vx_sat_mul(2, ffn), vx_sat_mul(2, h)));
    /* a recurrent mixer's graph over the ubatch, in f32 */
    mlp = vx_max_u64(mlp, vx_sat_add(vx_sat_mul(2, hid), vx_state_mixer_fwd_bytes(s, n_ub, 4, 1)));
    uint64_t out = vx_sat_add(vx_sat_mul(vx_sat_mul(n_ub, V), 4), vx_sat_mul(2, hid));
    uint64_t body = vx_max_u64(attn, mlp);
    uint64_t c_gpu = 0, c_host = vx_sat_add(hid, mask); /* inputs: embeddings (get_rows on the host), KQ mask */
    if (dev_rep > 0 || out_here) c_gpu = vx_max_u64(dev_rep > 0 ? body : 0, out_here ? out : 0);
    /* Partial offload: the scheduler runs the host layers' matmuls over
     * batches of 32 tokens or more on the GPU too (ggml-backend.cpp
     * ggml_backend_sched offload_op; ggml-cuda.cu offload_op, min batch
     * 32), copying each host layer's weights into the first GPU's compute
     * buffer, one layer at a time. */
    uint64_t D = s->dense_layers > 0 ? (uint64_t)s->dense_layers : 0;
    if (gpu_rep < L && n_ub >= 32 && c_gpu && (job->n_dev <= 1 || lo == L - gpu_rep)) {
        uint64_t host_lw = vx_sat_add(lw_all, vx_max_u64(D ? lw_front : 0, L - gpu_rep > D ? lw_back : 0));
        c_gpu = vx_sat_add(c_gpu, host_lw);
    }
    if (gpu_rep < L) c_host = vx_sat_add(c_host, body);
    if (!out_gpu) c_host = vx_max_u64(c_host, vx_sat_add(vx_sat_add(hid, mask), out));
    uint64_t outbuf = vx_sat_mul(vx_sat_mul(V, n_seq), 4);

    /* CUDA pool scratch: the ubatch converted for the matmuls; cuBLAS paths
     * dequantize a whole weight matrix to f16 (high band). */
    uint64_t scratch = 0, scratch_high = 0;
    if (dev_rep > 0 || out_here) {
        scratch = vx_sat_mul(vx_sat_mul(n_ub, vx_max_u64(h, ffn)), 2);
        scratch_high = vx_sat_add(scratch, vx_sat_mul(largest_q, 2));
    }

    *o = (vx_ggml_mem){.w_gpu = w_gpu, .w_host = w_host, .kv_gpu = kv_gpu, .kv_host = kv_host, .c_gpu = c_gpu,
                       .c_host = c_host, .outbuf = outbuf, .scratch = scratch, .scratch_high = scratch_high,
                       .gpu_layers = gpu_rep + (out_gpu ? 1 : 0), .w_matrix = w_matrix, .rec_gpu = rec_gpu,
                       .rec_host = rec_host, .state_seq = vx_state_bytes(&kl, 1, 0)};
    o->gpu_total = vx_sat_add(vx_sat_add(vx_sat_add(w_gpu, kv_gpu), rec_gpu), vx_sat_add(c_gpu, scratch));
    return VRAMEST_OK;
}

void vx_ggml_write(vx_ctx *x, const vx_ggml_mem *m)
{
    struct vramest_result *r = x->r;
    uint64_t w_gpu = m->w_gpu, w_host = m->w_host, kv_gpu = m->kv_gpu, kv_host = m->kv_host, c_gpu = m->c_gpu;
    uint64_t c_host = m->c_host, outbuf = m->outbuf, scratch = m->scratch, scratch_high = m->scratch_high;
    int wprov = vx_weights_provenance(x->pol.m);
    if (w_gpu) vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WEIGHTS, w_gpu, w_gpu, w_gpu, wprov);
    if (w_host) vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_WEIGHTS, w_host, w_host, w_host, wprov);
    if (kv_gpu)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_KV_CACHE, kv_gpu, kv_gpu, kv_gpu, VRAMEST_PROV_EXACT_ARCH);
    if (kv_host)
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_KV_CACHE, kv_host, kv_host, kv_host, VRAMEST_PROV_EXACT_ARCH);
    if (m->rec_gpu)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_STATE_CACHE, m->rec_gpu, m->rec_gpu, m->rec_gpu,
                      VRAMEST_PROV_EXACT_ARCH);
    if (m->rec_host)
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_STATE_CACHE, m->rec_host, m->rec_host, m->rec_host,
                      VRAMEST_PROV_EXACT_ARCH);
    vx_state_result(r, m->state_seq);
    if (c_gpu)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_ACTIVATIONS, c_gpu, c_gpu - c_gpu / 4,
                      vx_sat_add(c_gpu, c_gpu / 4), VRAMEST_PROV_FORMULA);
    if (c_host)
        vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_ACTIVATIONS, c_host, c_host - c_host / 4,
                      vx_sat_add(c_host, c_host / 4), VRAMEST_PROV_FORMULA);
    vx_result_add(r, VRAMEST_DEV_HOST, VRAMEST_CAT_LOGITS, outbuf, outbuf, outbuf, VRAMEST_PROV_FORMULA);
    if (scratch)
        vx_result_add(r, VRAMEST_DEV_GPU, VRAMEST_CAT_WORKSPACE, scratch, scratch / 2, scratch_high,
                      VRAMEST_PROV_FORMULA);

    r->val[VRAMEST_VAL_PEAK_PHASE] = VRAMEST_PHASE_PREFILL;
    vx_result_point(r, VRAMEST_PHASE_PREFILL, "context created",
                    vx_sat_add(vx_sat_add(vx_sat_add(w_gpu, kv_gpu), m->rec_gpu), vx_sat_add(c_gpu, scratch)));
    r->val[VRAMEST_VAL_GPU_LAYERS] = m->gpu_layers;
    r->val_ok[VRAMEST_VAL_GPU_LAYERS] = 1;
}

/* llama.cpp over several GPUs (llama-model.cpp load_tensors, 2024-2026):
 * splits[i] = the cumulative share of tensor_split (equal when empty).
 * split_mode layer: offloaded layer il goes to the first device whose
 * cumulative share exceeds (il - i_gpu_start) / act_gpu_layers, the output
 * layer likewise at il = n_layer; each device holds its layers' weights and
 * KV and a compute buffer of its own. split_mode row: the repeating layers'
 * matrices are split by the shares, everything else (norms, KV, compute
 * buffers, output) on the first GPU. The headline is the fullest device. */
/* The shares of `tensor_split` for n_dev GPUs (equal when empty). */
static int parse_split(const vx_config_values *cv, int64_t n_dev, double *share)
{
    if (n_dev > VX_GGML_MAX_DEV)
        return vx_fail(VRAMEST_E_RANGE, "framework llama.cpp: %lld GPUs; llama.cpp splits over at most %d devices",
                       (long long)n_dev, VX_GGML_MAX_DEV);
    int n = 0;
    if (!cv->tensor_split[0]) {
        for (n = 0; n < n_dev; n++) share[n] = 1;
        return VRAMEST_OK;
    }
    double sum = 0;
    const char *p = cv->tensor_split;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= 0) || v > 1e12 || n >= VX_GGML_MAX_DEV || (*end && *end != ','))
            return vx_fail(VRAMEST_E_PARSE, "tensor_split '%.60s': expected non-negative numbers separated by commas",
                           cv->tensor_split);
        share[n++] = v, sum += v;
        p = *end == ',' ? end + 1 : end;
    }
    if (n != n_dev)
        return vx_fail(VRAMEST_E_CONFLICT, "tensor_split has %d entries for gpus %lld: give one share per GPU", n,
                       (long long)n_dev);
    if (!(sum > 0)) return vx_fail(VRAMEST_E_RANGE, "tensor_split '%.60s' gives no GPU a share", cv->tensor_split);
    return VRAMEST_OK;
}

int vx_ggml_split(const vx_ctx *x, const vx_shard *sh, vx_ggml_job *job, const double *share, int n, int mode,
                  vx_ggml_mem *m)
{
    double cum[VX_GGML_MAX_DEV], acc = 0, sum = 0;
    for (int i = 0; i < n; i++) sum += share[i];
    for (int i = 0; i < n; i++) cum[i] = (acc += share[i]) / sum;
    const vx_shape *s = x->pol.s;
    uint64_t L = (uint64_t)s->layers;
    int64_t ngl_opt = job->n_gpu_layers;
    uint64_t ngl = ngl_opt < 0 ? L + 1 : vx_min_u64((uint64_t)ngl_opt, L + 1);
    uint64_t start = L - vx_min_u64(ngl, L), act = ngl;
    vx_ggml_mem worst = *m, one;
    int rc;
    if (mode == VX_SPLIT_ROW) {
        /* the first GPU keeps all but the other shares of the matrices */
        uint64_t rest = (uint64_t)((double)m->w_matrix * (1.0 - share[0] / sum));
        worst.w_gpu -= rest;
        worst.gpu_total -= rest;
        for (int d = 1; d < n; d++) {
            uint64_t part = (uint64_t)((double)m->w_matrix * share[d] / sum);
            if (part > worst.gpu_total) {
                worst = (vx_ggml_mem){.w_gpu = part, .w_host = m->w_host, .kv_host = m->kv_host, .c_host = m->c_host,
                                      .outbuf = m->outbuf, .gpu_layers = m->gpu_layers, .gpu_total = part,
                                      .rec_host = m->rec_host, .state_seq = m->state_seq};
            }
        }
        *m = worst;
        return VRAMEST_OK;
    }
    job->n_dev = (int)n;
    bool have = false;
    for (int d = 0; d < n; d++) {
        /* layers il in [start, L) with cum[d-1] <= (il - start) / act < cum[d] */
        double a = d ? cum[d - 1] : 0.0, b = cum[d];
        uint64_t lo = start + (uint64_t)ceil(a * (double)act), hi = start + (uint64_t)ceil(b * (double)act);
        job->lo = vx_min_u64(lo, L);
        job->hi = vx_min_u64(hi, L);
        double xo = (double)(L - start) / (double)(act ? act : 1);
        job->out_here = ngl > L && xo >= a && xo < b;
        if ((rc = vx_ggml_context(x, sh, job, &one))) return rc;
        if (!have || one.gpu_total > worst.gpu_total) worst = one, have = true;
    }
    job->n_dev = 0;
    *m = worst;
    return VRAMEST_OK;
}

/* llama.cpp's own job: n_ctx cells (0: the model's context), n_seq slots
 * (-np; default batch_size x beams), n_gpu_layers as given. */
int vx_serving_llamacpp(vx_ctx *x, const vx_shard *sh)
{
    const vx_shape *s = x->pol.s;
    const vx_config_values *cv = x->cv;
    vx_kv_layout kl;
    int rc = vx_kv_layout_resolve(x, sh, &kl);
    if (rc) return rc;
    uint64_t n_ctx = (uint64_t)(cv->n_ctx > 0 ? cv->n_ctx : s->max_pos);
    if (!n_ctx)
        return vx_fail(VRAMEST_E_INCOMPLETE_MODEL,
                       "framework llama.cpp: n_ctx 0 takes the model's context length (max_position_embeddings), "
                       "which is not set: set runtime n_ctx");
    uint64_t P = vx_infer_prompt_len(cv), G = (uint64_t)cv->gen_len;
    uint64_t n_seq = cv->n_seq > 0 ? (uint64_t)cv->n_seq
                                   : (uint64_t)cv->batch_size * (uint64_t)(cv->beams > 0 ? cv->beams : 1);
    /* Only a prompt the caller gave (prompt_len, not the seq_len default). */
    if (cv->prompt_len > 0 && P + G > n_ctx)
        vx_result_warn(x->r, "prompt_len + gen_len = %llu exceeds n_ctx %llu: llama.cpp shifts or truncates the context",
                       (unsigned long long)(P + G), (unsigned long long)n_ctx);
    vx_ggml_job job = {.kl = &kl, .n_ctx = n_ctx, .n_seq = n_seq, .n_gpu_layers = cv->n_gpu_layers};
    vx_ggml_mem m;
    if ((rc = vx_ggml_context(x, sh, &job, &m))) return rc;
    int64_t n_dev = cv->split_mode == VX_SPLIT_NONE ? 1 : cv->gpus;
    if (n_dev > 1) {
        double share[VX_GGML_MAX_DEV];
        if ((rc = parse_split(cv, n_dev, share))) return rc;
        if ((rc = vx_ggml_split(x, sh, &job, share, (int)n_dev, (int)cv->split_mode, &m))) return rc;
    }
    /* llama.cpp allocates every buffer when it loads the model and creates
     * the context: one that does not fit fails there ("failed to allocate
     * CUDA0 buffer"), so the verdict gives that reason. */
    uint64_t dev = x->r->device_bytes, need = vx_sat_add(m.gpu_total, vx_cuda_context_bytes(x));
    if (dev && need > dev)
        vx_result_refuse(x->r,
                         "llama.cpp would fail to load: its GPU buffers (weights, KV cache, compute) and the CUDA "
                         "context take %.2f GiB of %.2f GiB (failed to allocate CUDA0 buffer); lower n_gpu_layers "
                         "or n_ctx",
                         (double)need / VX_GIB, (double)dev / VX_GIB);
    vx_ggml_write(x, &m);
    return VRAMEST_OK;
}

uint64_t vx_ggml_n_batch(const vx_ctx *x)
{
    if (x->cv->n_batch > 0) return (uint64_t)x->cv->n_batch;
    return x->rt.engine == VX_ENGINE_OLLAMA ? 512 : 2048; /* Ollama's num_batch; llama.cpp's -b */
}

int vx_ggml_flash_attn(const vx_ctx *x)
{
    int a = (int)x->cv->attention;
    return a == VX_ATTN_FLASH || (a == VX_ATTN_SDPA && x->rt.fa_default);
}
