/* The embedding and output-head programs, and the loss (research note
 * §3.7-§3.8, §4.1): logits of b*s*V in the compute dtype, the fp32 upcast
 * (inside the model for Llama-family classes of transformers <= 4.44, in
 * ForCausalLMLoss after that; autocast's fp32 cross_entropy), the shifted
 * .contiguous() copy of transformers <= 4.44, the log-softmax output that
 * cross_entropy saves, and in backward the dense gradient of the log-probs,
 * of the logits and their cast back - the largest single term of a step for
 * 128k-256k vocabularies. The embedding's dense backward allocates a full
 * V x h gradient (summed into the LM head's when tied). */
#include <string.h>

#include "runtime/config.h"
#include "estimate/graph/actops.h"

#define NEW(e, eb, rg) vx_op_new(a, (e), (eb), (rg))
#define DROP(x) vx_op_drop(a, (x))

static int stream_bytes(const vx_act_cfg *c)
{
    return (c->amp || c->qlora) ? 4 : c->cb;
}

static int embedding(vx_ab *a, const vx_lin *E, uint64_t rows, int wsum)
{
    const vx_act_cfg *c = a->c;
    int eb = E->wbytes ? E->wbytes : c->cb;
    int tr = E->trainable;
    int y = NEW(rows * (uint64_t)(E->in > 0 ? E->in : c->h), eb, tr);
    /* embedding_dense_backward: a zero-filled V x h gradient, plus the
     * sorted-index temporaries of the CUDA kernel. */
    vx_node_spec ns = {.in = {-1, -1, -1}, .nin = 0, .out = {(int16_t)y, -1}, .nout = 1,
                       .wg = tr ? E->wgrad : 0, .wcat = VX_TC_GRAD, .wsum = (uint8_t)wsum,
                       .tmp = (tr && !c->cpu) ? vx_sat_mul(rows, 32) : 0};
    vx_tape_node(a->tp, &ns);
    return y;
}

static int ln(vx_ab *a, int x, const vx_lin *L)
{
    const vx_act_cfg *c = a->c;
    uint64_t rows = vx_op_elems(a, x) / (uint64_t)(c->h > 0 ? c->h : 1);
    if (c->norm == VX_NS_LN) return vx_op_layernorm(a, x, rows, L->trainable, L->wgrad, vx_op_eb(a, x));
    return vx_op_rmsnorm(a, x, rows, c->norm, L->trainable, L->wgrad, L->wbytes ? L->wbytes : 4);
}

static int embed_prog(vx_ab *a, const vx_train_model *tm)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N;
    int tied_sum = tm->tied && tm->lm_head.present && tm->head != VX_HEAD_SEQ_CLS && tm->head != VX_HEAD_NONE;
    int x = embedding(a, &tm->embed, N, tied_sum);
    int seb = stream_bytes(c);
    if (c->emb_proj && tm->proj_in.present) {
        int p = vx_op_linear(a, x, &tm->proj_in, N);
        DROP(x);
        x = p;
    }
    if (tm->pos.present) {
        /* learned positions: (1 or b, s, h), added to the token embeddings */
        uint64_t pr = c->pos_tok ? N : c->s;
        int p = embedding(a, &tm->pos, pr, 0);
        int s = vx_op_add(a, x, p, vx_op_eb(a, x));
        DROP(x);
        DROP(p);
        x = s;
    }
    if (tm->type.present) {
        int t = embedding(a, &tm->type, N, 0);
        int s = vx_op_add(a, x, t, vx_op_eb(a, x));
        DROP(x);
        DROP(t);
        x = s;
    }
    if (c->emb_scale) {
        int s = vx_op_scalar(a, x, 0); /* * sqrt(hidden_size) */
        DROP(x);
        x = s;
    }
    if (tm->embed_norm.present) {
        int n = ln(a, x, &tm->embed_norm);
        DROP(x);
        x = n;
    }
    if (c->p_hid > 0 && c->emb_drop) {
        int d = vx_op_dropout(a, x, c->p_hid);
        DROP(x);
        x = d;
    }
    if (vx_op_eb(a, x) != seb) {
        int cx = vx_op_cast(a, x, seb);
        DROP(x);
        x = cx;
    }
    return vx_op_sp_scatter(a, x);
}

int vx_act_embed(const vx_act_cfg *c, const vx_train_model *tm, struct vx_tlog *log, vx_prog *out)
{
    vx_tape tp;
    vx_tape_init(&tp, c->cpu, 1, 1);
    tp.log = log;
    vx_ab a = {.tp = &tp, .c = c, .gb = tm->dec.gb ? tm->dec.gb : 2, .cat = VX_TC_ACT};
    int y = embed_prog(&a, tm);
    vx_prog_finish(&tp, -1, y, 1, out);
    if (tp.err) return vx_fail(VRAMEST_E_INTERNAL, "train: embedding program exceeded the tape");
    return VRAMEST_OK;
}

/* Cross-entropy over `lg` (rows x V): log_softmax saves its output, nll_loss
 * the same storage; autocast runs it in fp32. Returns the loss. */
static int cross_entropy(vx_ab *a, int lg, int upcast_in_loss)
{
    const vx_act_cfg *c = a->c;
    int x = lg;
    /* cross_entropy is on the fp32 list of both CUDA and CPU autocast. */
    if (vx_op_eb(a, lg) < 4 && (upcast_in_loss || c->amp)) x = vx_op_cast(a, lg, 4);
    else x = vx_op_view(a, lg, vx_op_elems(a, lg));
    int ls = vx_op_unary_out(a, x, vx_op_eb(a, x));
    DROP(x);
    int loss = NEW(1, 4, 1);
    vx_node_spec ns = {.in = {(int16_t)ls, -1, -1}, .nin = 1, .out = {(int16_t)loss, -1}, .nout = 1,
                       .sv = {(int16_t)ls, -1, -1, -1, -1}, .nsv = 1};
    vx_tape_node(a->tp, &ns);
    DROP(ls);
    return loss;
}

/* logits.sum() (a benchmark's backward without labels): nothing saved;
 * backward expands a scalar into a logits-sized gradient that the output
 * projection's matmul reads as a contiguous tensor. */
static int loss_sum(vx_ab *a, int lg)
{
    int loss = NEW(1, vx_op_eb(a, lg), 1);
    vx_node_spec ns = {.in = {(int16_t)lg, -1, -1}, .nin = 1, .out = {(int16_t)loss, -1}, .nout = 1};
    vx_tape_node(a->tp, &ns);
    return loss;
}

/* One chunk of the output projection: `wsum` 1 when the weight's .grad
 * exists by the time backward reaches it (every chunk but the last). */
static int chunk_linear(vx_ab *a, int x, const vx_lin *L, uint64_t rows, uint64_t V, int wsum)
{
    int eb = vx_op_eb(a, x) > L->wbytes ? vx_op_eb(a, x) : L->wbytes;
    int tr = L->trainable;
    int y = NEW(vx_sat_mul(rows, V), eb, vx_op_rg(a, x) || tr);
    vx_node_spec ns = {.in = {(int16_t)x, -1, -1}, .nin = 1, .out = {(int16_t)y, -1}, .nout = 1,
                       .sv = {(int16_t)(tr ? x : -1), -1, -1, -1, -1}, .nsv = 1,
                       .wg = tr ? L->wgrad : 0, .wcat = L->wcat, .wsum = (uint8_t)wsum};
    vx_tape_node(a->tp, &ns);
    return y;
}

#define VX_MAX_LOSS_CHUNKS 32

/* torchtune's CEWithChunkedOutputLoss (torchtune/modules/loss/
 * ce_chunked_output_loss.py, TransformerDecoder with num_output_chunks):
 * the output projection runs per chunk of the sequence, every chunk's
 * logits alive in a list that the recipe deletes before backward; each
 * chunk is upcast and its cross-entropy taken in turn. Eager, every chunk
 * keeps its fp32 log-probabilities until backward, so chunking alone saves
 * nothing; compiled (runtime.compile), the fused kernel keeps only the
 * chunk and two chunk-sized fp32 buffers while it runs. */
static int chunked_ce(vx_ab *a, int hg, const vx_lin *L, uint64_t N, uint64_t V)
{
    const vx_act_cfg *c = a->c;
    uint64_t n = (uint64_t)(c->loss_chunks > 0 ? c->loss_chunks : 8);
    if (n > VX_MAX_LOSS_CHUNKS) n = VX_MAX_LOSS_CHUNKS;
    if (n > N) n = N ? N : 1;
    uint64_t H = (uint64_t)(L->in > 0 ? L->in : c->h), rows = N / n;
    int ch[VX_MAX_LOSS_CHUNKS];
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = i + 1 < n ? rows : N - rows * (n - 1);
        int x = vx_op_view(a, hg, vx_sat_mul(r, H));
        ch[i] = chunk_linear(a, x, L, r, V, i + 1 < n);
        DROP(x);
    }
    int total = -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = i + 1 < n ? rows : N - rows * (n - 1);
        int l;
        if (c->compiled) {
            vx_tape_transient(a->tp, vx_sat_mul(vx_sat_mul(2, r), vx_sat_mul(V, 4)), VX_TC_LOGITS);
            int lse = NEW(r, 4, 0);
            l = NEW(1, 4, 1);
            vx_node_spec ns = {.in = {(int16_t)ch[i], -1, -1}, .nin = 1, .out = {(int16_t)l, -1}, .nout = 1,
                               .sv = {(int16_t)ch[i], (int16_t)lse, -1, -1, -1}, .nsv = 2,
                               .tmp = vx_sat_mul(vx_sat_mul(2, r), vx_sat_mul(V, 4))};
            vx_tape_node(a->tp, &ns);
            DROP(lse);
        } else {
            l = cross_entropy(a, ch[i], 1);
        }
        if (total < 0) {
            total = l;
        } else {
            int t = vx_op_add(a, total, l, 4);
            DROP(total);
            DROP(l);
            total = t;
        }
    }
    for (uint64_t i = 0; i < n; i++) DROP(ch[i]); /* del logits */
    return total;
}

/* A fused linear cross-entropy (Liger's LigerFusedLinearCrossEntropyFunction;
 * Cut-Cross-Entropy needs less): the logits are computed a chunk of rows
 * at a time, chunk = next_pow2(ceil(N / ceil(V / H))) so a chunk's logits
 * are about an N x H tensor, and the gradients are computed in forward:
 * grad_input (N x H) and the weight's (V x H) are saved, and backward only
 * scales them. The weight gradient exists from the forward on. */
static int fused_linear_ce(vx_ab *a, int hg, const vx_lin *L, uint64_t N, uint64_t V)
{
    const vx_act_cfg *c = a->c;
    uint64_t H = (uint64_t)(L->in > 0 ? L->in : c->h), A = (uint64_t)vx_op_eb(a, hg);
    uint64_t inc = vx_ceil_div(V, H ? H : 1), want = vx_ceil_div(N, inc ? inc : 1), chunk = 1;
    while (chunk < want) chunk <<= 1;
    if (chunk > N) chunk = N;
    vx_tape_transient(a->tp, vx_sat_add(vx_sat_mul(vx_sat_mul(chunk, V), A), vx_sat_mul(vx_sat_mul(chunk, H), A)),
                      VX_TC_LOGITS);
    int gi = NEW(vx_sat_mul(N, H), (int)A, 0);
    int gw = L->trainable ? vx_tape_new(a->tp, L->wgrad, 1, VX_TC_GRAD, 0) : -1;
    int loss = NEW(1, 4, 1);
    vx_node_spec ns = {.in = {(int16_t)hg, -1, -1}, .nin = 1, .out = {(int16_t)loss, -1}, .nout = 1,
                       .sv = {(int16_t)gi, (int16_t)gw, -1, -1, -1}, .nsv = 2,
                       .wg = L->trainable ? L->wgrad : 0, .wcat = VX_TC_GRAD, .wsum = 2};
    vx_tape_node(a->tp, &ns);
    DROP(gi);
    if (gw >= 0) vx_tape_drop(a->tp, gw);
    return loss;
}

static int head_prog(vx_ab *a, int X, const vx_train_model *tm, int upcast, int shift, int held, int *held_id)
{
    const vx_act_cfg *c = a->c;
    uint64_t N = c->N, b = c->b, V = (uint64_t)(tm->lm_head.out > 0 ? tm->lm_head.out : c->V);
    *held_id = -1;
    if (tm->head == VX_HEAD_SEQ_CLS || tm->head == VX_HEAD_NONE) {
        int pooled;
        if (tm->pooler.present) {
            /* BERT pooler on the first token: a view keeps the whole last hidden state. */
            int first = vx_op_view_raw(a, X, b * (uint64_t)c->h);
            vx_node_spec sn = {.in = {(int16_t)X, -1, -1}, .nin = 1, .out = {(int16_t)first, -1}, .nout = 1};
            vx_tape_node(a->tp, &sn);
            int d = vx_op_linear(a, first, &tm->pooler, b);
            DROP(first);
            pooled = vx_op_unary_out(a, d, vx_op_eb(a, d));
            DROP(d);
            int dd = vx_op_dropout(a, pooled, c->p_hid);
            DROP(pooled);
            pooled = dd;
        } else {
            pooled = vx_op_view(a, X, vx_op_elems(a, X));
        }
        if (tm->head == VX_HEAD_NONE || !tm->classifier.present) {
            int loss = NEW(1, 4, 1);
            vx_node_spec ns = {.in = {(int16_t)pooled, -1, -1}, .nin = 1, .out = {(int16_t)loss, -1}, .nout = 1};
            vx_tape_node(a->tp, &ns);
            DROP(pooled);
            return loss;
        }
        uint64_t rows = tm->pooler.present ? b : N;
        int lg = vx_op_linear(a, pooled, &tm->classifier, rows);
        DROP(pooled);
        int loss = cross_entropy(a, lg, 0);
        DROP(lg);
        return loss;
    }
    int h = X;
    int own = 0;
    if (tm->final_norm.present && !c->head_norm_stack) {
        h = ln(a, X, &tm->final_norm);
        own = 1;
    }
    if (tm->head == VX_HEAD_MASKED_LM && tm->mlm_dense.present) {
        int d = vx_op_linear(a, h, &tm->mlm_dense, N);
        if (own) DROP(h);
        int g = vx_op_unary_in(a, d, vx_op_eb(a, d), 1);
        DROP(d);
        h = ln(a, g, &tm->mlm_norm);
        DROP(g);
        own = 1;
    }
    if (c->emb_proj && tm->proj_out.present) {
        int p = vx_op_linear(a, h, &tm->proj_out, N);
        if (own) DROP(h);
        h = p;
        own = 1;
    }
    if (c->head_scale_tied && tm->tied) {
        int sc = vx_op_scalar(a, h, 0); /* sequence_output * d_model ** -0.5 */
        if (own) DROP(h);
        h = sc;
        own = 1;
    }
    a->cat = VX_TC_LOGITS;
    vx_lin L = tm->lm_head;
    L.in = L.in > 0 ? L.in : c->h;
    L.out = (int64_t)V;
    int hg = vx_op_sp_gather(a, h);
    if (own) DROP(h);
    if (tm->head == VX_HEAD_CAUSAL_LM && (c->loss == VX_LOSS_CHUNKED || c->loss == VX_LOSS_FUSED_LINEAR)) {
        int loss = c->loss == VX_LOSS_CHUNKED ? chunked_ce(a, hg, &L, N, V) : fused_linear_ce(a, hg, &L, N, V);
        DROP(hg);
        return loss;
    }
    int logits = vx_op_linear(a, hg, &L, N);
    DROP(hg);
    if (c->logits_scaled) {
        /* logits * logit_scale (Cohere): a new tensor, nothing saved */
        int sc = vx_op_scalar(a, logits, 0);
        DROP(logits);
        logits = sc;
    }
    if (upcast && vx_op_eb(a, logits) < 4) {
        int l32 = vx_op_cast(a, logits, 4);
        DROP(logits);
        logits = l32;
    }
    if (c->loss == VX_LOSS_SUM) {
        int loss = loss_sum(a, logits);
        if (held)
            *held_id = logits;
        else
            DROP(logits);
        return loss;
    }
    int lg;
    /* logits[..., :-1, :] is already contiguous for one sequence. */
    if (shift && c->b > 1) {
        /* logits[..., :-1, :].contiguous(): a copy; its backward allocates a
         * zero-filled full-size gradient (slice_backward). */
        lg = NEW(vx_op_elems(a, logits) / (c->s ? c->s : 1) * (c->s > 1 ? c->s - 1 : 1), vx_op_eb(a, logits),
                 vx_op_rg(a, logits));
        vx_node_spec ns = {.in = {(int16_t)logits, -1, -1}, .nin = 1, .out = {(int16_t)lg, -1}, .nout = 1};
        vx_tape_node(a->tp, &ns);
    } else {
        lg = vx_op_view(a, logits, vx_op_elems(a, logits));
    }
    /* ForCausalLMLoss (transformers >= 4.46) upcasts inside the loss; the
     * seq2seq and masked-LM classes keep their own CrossEntropyLoss. */
    int loss = cross_entropy(a, lg, c->loss_upcast && tm->head == VX_HEAD_CAUSAL_LM);
    DROP(lg);
    if (held)
        *held_id = logits;
    else
        DROP(logits);
    return loss;
}

int vx_act_head(const vx_act_cfg *c, const vx_train_model *tm, int upcast, int shift, int held, struct vx_tlog *log,
                vx_prog *out)
{
    vx_tape tp;
    vx_tape_init(&tp, c->cpu, 1, 1);
    tp.log = log;
    vx_ab a = {.tp = &tp, .c = c, .gb = tm->dec.gb ? tm->dec.gb : 2, .cat = VX_TC_ACT};
    int X = vx_tape_new(&tp, c->Nh * (uint64_t)c->h, stream_bytes(c), VX_TC_ACT, 1);
    int held_id = -1;
    int loss = head_prog(&a, X, tm, upcast, shift, held, &held_id);
    const vx_tt *hr = held_id >= 0 ? &tp.t[tp.t[held_id].root] : NULL;
    uint64_t held_bytes = hr ? hr->abytes : 0;
    uint64_t held_raw = hr && hr->abytes ? hr->elems * (uint64_t)hr->eb : 0;
    /* The loss is the program's output; backward starts from it. */
    vx_prog_finish(&tp, X, loss, 0, out);
    out->held_out = held_bytes;
    if (log) vx_tlog_push(log, VX_EV_HELD, 0, held_raw);
    if (tp.err) return vx_fail(VRAMEST_E_INTERNAL, "train: head program exceeded the tape");
    return VRAMEST_OK;
}
