/* The op helpers of the layer programs: what each PyTorch op allocates and
 * which tensors its autograd node saves (research note §3, §6-§8). */
#include <string.h>

#include "estimate/graph/actops.h"

int vx_op_new(vx_ab *a, uint64_t elems, int eb, int rg)
{
    return vx_tape_new(a->tp, elems, eb, a->cat, rg);
}

int vx_op_extern(vx_ab *a, uint64_t elems, int eb, int rg, int grad_exists)
{
    vx_tape *tp = a->tp;
    int id = vx_tape_new(tp, 0, eb, a->cat, rg);
    if (id < 0) return id;
    tp->t[id].elems = elems;
    if (grad_exists) tp->t[id].hasg = 1;
    return id;
}

void vx_op_drop(vx_ab *a, int id)
{
    vx_tape_drop(a->tp, id);
}

int vx_op_view(vx_ab *a, int x, uint64_t elems)
{
    return vx_tape_view(a->tp, x, elems);
}

int vx_op_view_raw(vx_ab *a, int x, uint64_t elems)
{
    return vx_tape_view_raw(a->tp, x, elems);
}

static void node1(vx_ab *a, int in, int out, int pass, int s0, int s1, uint64_t tmp)
{
    vx_node_spec ns = {.in = {(int16_t)in, -1, -1}, .nin = 1, .out = {(int16_t)out, -1}, .nout = 1,
                       .sv = {(int16_t)s0, (int16_t)s1, -1, -1, -1}, .nsv = 2, .pass = (uint8_t)(pass ? 1 : 0),
                       .tmp = tmp};
    vx_tape_node(a->tp, &ns);
}

int vx_op_cast(vx_ab *a, int x, int eb)
{
    if (vx_op_eb(a, x) == eb) return vx_op_view(a, x, vx_op_elems(a, x));
    int y = vx_op_new(a, vx_op_elems(a, x), eb, vx_op_rg(a, x));
    node1(a, x, y, 0, -1, -1, 0);
    return y;
}

int vx_op_copy(vx_ab *a, int x)
{
    int y = vx_op_new(a, vx_op_elems(a, x), vx_op_eb(a, x), vx_op_rg(a, x));
    node1(a, x, y, 1, -1, -1, 0);
    return y;
}

int vx_op_scalar(vx_ab *a, int x, int passes)
{
    int y = vx_op_new(a, vx_op_elems(a, x), vx_op_eb(a, x), vx_op_rg(a, x));
    node1(a, x, y, passes, -1, -1, 0);
    return y;
}

static uint64_t max64(uint64_t p, uint64_t q)
{
    return p > q ? p : q;
}

int vx_op_mul(vx_ab *a, int x, int y, int out_eb)
{
    uint64_t e = max64(vx_op_elems(a, x), vx_op_elems(a, y));
    int rx = vx_op_rg(a, x), ry = vx_op_rg(a, y);
    int z = vx_op_new(a, e, out_eb, rx || ry);
    /* grad_x = g * y needs y; grad_y = g * x needs x. A broadcast operand's
     * gradient is reduced from a full-size product (scratch). */
    uint64_t tmp = 0;
    if (rx && vx_op_elems(a, x) < e) tmp = vx_sat_mul(e, (uint64_t)out_eb);
    if (ry && vx_op_elems(a, y) < e) tmp = vx_sat_mul(e, (uint64_t)out_eb);
    vx_node_spec ns = {.in = {(int16_t)x, (int16_t)y, -1}, .nin = 2, .out = {(int16_t)z, -1}, .nout = 1,
                       .sv = {(int16_t)(ry ? x : -1), (int16_t)(rx ? y : -1), -1, -1, -1}, .nsv = 2, .tmp = tmp};
    vx_tape_node(a->tp, &ns);
    return z;
}

int vx_op_add(vx_ab *a, int x, int y, int out_eb)
{
    uint64_t ex = vx_op_elems(a, x), ey = vx_op_elems(a, y), e = max64(ex, ey);
    int z = vx_op_new(a, e, out_eb, vx_op_rg(a, x) || vx_op_rg(a, y));
    /* An operand of another dtype or shape gets a gradient of its own
     * (cast / reduced); otherwise the gradient passes through. */
    uint8_t pass = 0;
    if (ex == e && vx_op_eb(a, x) == out_eb) pass |= 1;
    if (ey == e && vx_op_eb(a, y) == out_eb) pass |= 2;
    vx_node_spec ns = {.in = {(int16_t)x, (int16_t)y, -1}, .nin = 2, .out = {(int16_t)z, -1}, .nout = 1, .pass = pass};
    vx_tape_node(a->tp, &ns);
    return z;
}

int vx_op_unary_in(vx_ab *a, int x, int out_eb, int tmp_units)
{
    int y = vx_op_new(a, vx_op_elems(a, x), out_eb, vx_op_rg(a, x));
    uint64_t tmp = vx_sat_mul(vx_sat_mul(vx_op_elems(a, x), (uint64_t)vx_op_eb(a, x)), (uint64_t)tmp_units);
    node1(a, x, y, 0, x, -1, tmp);
    return y;
}

int vx_op_unary_out(vx_ab *a, int x, int out_eb)
{
    int y = vx_op_new(a, vx_op_elems(a, x), out_eb, vx_op_rg(a, x));
    node1(a, x, y, 0, y, -1, 0);
    return y;
}

int vx_op_reduce(vx_ab *a, int x, uint64_t elems, int saves_in)
{
    int y = vx_op_new(a, elems, vx_op_eb(a, x), vx_op_rg(a, x));
    node1(a, x, y, 0, saves_in ? x : -1, -1, 0);
    return y;
}

int vx_op_dropout(vx_ab *a, int x, double p)
{
    if (p <= 0.0) return vx_op_view(a, x, vx_op_elems(a, x));
    /* native_dropout: the output and a mask (bool on CUDA); backward needs
     * only the mask. */
    int y = vx_op_new(a, vx_op_elems(a, x), vx_op_eb(a, x), vx_op_rg(a, x));
    int m = vx_op_new(a, vx_op_elems(a, x), a->c->mask_b, 0);
    node1(a, x, y, 0, m, -1, 0);
    vx_op_drop(a, m);
    return y;
}

int vx_op_matmul(vx_ab *a, int x, int y, uint64_t elems, int out_eb)
{
    int rx = vx_op_rg(a, x), ry = vx_op_rg(a, y);
    int z = vx_op_new(a, elems, out_eb, rx || ry);
    vx_node_spec ns = {.in = {(int16_t)x, (int16_t)y, -1}, .nin = 2, .out = {(int16_t)z, -1}, .nout = 1,
                       .sv = {(int16_t)(ry ? x : -1), (int16_t)(rx ? y : -1), -1, -1, -1}, .nsv = 2};
    vx_tape_node(a->tp, &ns);
    return z;
}

/* The base matmul of a linear: y = x W^T (+ b). */
static int base_linear(vx_ab *a, int x, const vx_lin *L, uint64_t rows, int *out_eb)
{
    const vx_act_cfg *c = a->c;
    vx_tape *tp = a->tp;
    int rx = vx_op_rg(a, x), tr = L->trainable;
    uint64_t w_el = vx_sat_mul((uint64_t)L->in, (uint64_t)L->out);
    int amp = c->amp && L->quant == VX_LQ_NONE && L->wbytes > c->cb;
    int xin = x, own_in = 0, wc = -1;
    int oeb;
    uint64_t wg = tr ? L->wgrad : 0, wtmp = 0, tmp = 0;
    if (amp) {
        /* autocast: the input is cast per call; the weight's cast copy is
         * cached for a trainable leaf (one per forward) and made per call for
         * a frozen one. Either way matmul saves the copy for grad_input. */
        if (vx_op_eb(a, x) != c->cb) {
            xin = vx_op_cast(a, x, c->cb);
            own_in = 1;
        }
        wc = vx_tape_new(tp, w_el, c->cb, a->cat, 0);
        if (tr) {
            /* The gradient reaches the fp32 parameter through the cast: a
             * 16-bit weight gradient first, then the fp32 one. */
            wtmp = vx_sat_mul(w_el, (uint64_t)c->cb);
        }
        oeb = c->cb;
    } else if (L->quant != VX_LQ_NONE) {
        /* bitsandbytes: the input is cast to the compute dtype; the weight is
         * dequantized to a 16-bit copy for the matmul (forward and again for
         * grad_input) and only the packed weight is kept. LLM.int8 keeps the
         * 16-bit input (CAt / A) for backward. */
        if (vx_op_eb(a, x) != c->cb) {
            xin = vx_op_cast(a, x, c->cb);
            own_in = 1;
        }
        vx_tape_transient(tp, vx_sat_mul(w_el, (uint64_t)c->cb), VX_TC_WORK);
        if (rx) tmp = vx_sat_mul(w_el, (uint64_t)c->cb);
        oeb = c->cb;
    } else {
        oeb = vx_op_eb(a, x) > L->wbytes ? vx_op_eb(a, x) : L->wbytes;
    }
    int y = vx_op_new(a, vx_sat_mul(rows, (uint64_t)L->out), oeb, rx || tr);
    /* DeepSpeed ZeRO-3's LinearFunctionForZeroStage3 saves its input for
     * any graph (needs_input_grad is only checked in backward); under
     * autocast and for quantized layers torch's own saves are kept. */
    int save_x = tr || (L->quant == VX_LQ_INT8 && rx) || (c->zero3_linear && rx && !amp && L->quant == VX_LQ_NONE);
    vx_node_spec ns = {.in = {(int16_t)xin, -1, -1}, .nin = 1, .out = {(int16_t)y, -1}, .nout = 1,
                       .sv = {(int16_t)(save_x ? xin : -1), (int16_t)(rx ? wc : -1), -1, -1, -1}, .nsv = 2,
                       .wg = wg, .wcat = L->wcat, .wtmp = wtmp, .tmp = tmp};
    vx_tape_node(tp, &ns);
    if (wc >= 0) vx_tape_drop(tp, wc);
    if (own_in) vx_op_drop(a, xin);
    *out_eb = oeb;
    return y;
}

int vx_op_linear(vx_ab *a, int x, const vx_lin *L, uint64_t rows)
{
    const vx_act_cfg *c = a->c;
    int oeb;
    int y = base_linear(a, x, L, rows, &oeb);
    if (L->lora_r <= 0) return y;
    /* PEFT LoRA: result + lora_B(lora_A(dropout(x))) * scaling, with the
     * input cast to the (fp32) adapter dtype first, and the sum cast back to
     * the base result's dtype. */
    vx_lin A = {.in = L->in, .out = L->lora_r, .present = 1, .trainable = 1, .wbytes = (uint8_t)c->ab,
                .wcat = VX_TC_ADAPT};
    vx_lin B = {.in = L->lora_r, .out = L->out, .present = 1, .trainable = 1, .wbytes = (uint8_t)c->ab,
                .wcat = VX_TC_ADAPT};
    A.wgrad = vx_sat_mul(vx_sat_mul((uint64_t)A.in, (uint64_t)A.out), (uint64_t)c->ab);
    B.wgrad = vx_sat_mul(vx_sat_mul((uint64_t)B.in, (uint64_t)B.out), (uint64_t)c->ab);
    int xa = (c->amp || vx_op_eb(a, x) == c->ab) ? vx_op_view(a, x, vx_op_elems(a, x)) : vx_op_cast(a, x, c->ab);
    int xd = c->lora_drop ? vx_op_dropout(a, xa, 0.1) : vx_op_view(a, xa, vx_op_elems(a, xa));
    vx_op_drop(a, xa);
    int ha = vx_op_linear(a, xd, &A, rows);
    vx_op_drop(a, xd);
    int hb = vx_op_linear(a, ha, &B, rows);
    vx_op_drop(a, ha);
    int sc = vx_op_scalar(a, hb, 0);
    vx_op_drop(a, hb);
    int seb = vx_op_eb(a, sc) > oeb ? vx_op_eb(a, sc) : oeb;
    int sum = vx_op_add(a, y, sc, seb);
    vx_op_drop(a, y);
    vx_op_drop(a, sc);
    if (seb == oeb) return sum;
    int back = vx_op_cast(a, sum, oeb);
    vx_op_drop(a, sum);
    return back;
}

int vx_op_layernorm(vx_ab *a, int x, uint64_t rows, int trainable, uint64_t wg, int out_eb)
{
    const vx_act_cfg *c = a->c;
    int xin = x, own = 0;
    /* CUDA autocast runs layer_norm in fp32. */
    if (c->amp && c->cuda_autocast && vx_op_eb(a, x) != 4) {
        xin = vx_op_cast(a, x, 4);
        own = 1;
        out_eb = 4;
    }
    int rx = vx_op_rg(a, xin);
    int y = vx_op_new(a, vx_op_elems(a, xin), out_eb, rx || trainable);
    int mean = vx_op_new(a, rows, 4, 0), rstd = vx_op_new(a, rows, 4, 0);
    vx_node_spec ns = {.in = {(int16_t)xin, -1, -1}, .nin = 1, .out = {(int16_t)y, -1}, .nout = 1,
                       .sv = {(int16_t)xin, (int16_t)mean, (int16_t)rstd, -1, -1}, .nsv = 3,
                       .wg = trainable ? wg : 0, .wcat = VX_TC_GRAD,
                       .tmp = trainable ? vx_sat_mul(vx_op_elems(a, xin), 4) : 0};
    vx_tape_node(a->tp, &ns);
    vx_op_drop(a, mean);
    vx_op_drop(a, rstd);
    if (own) vx_op_drop(a, xin);
    return y;
}

int vx_op_rmsnorm(vx_ab *a, int x, uint64_t rows, int kind, int trainable, uint64_t wg, int wbytes)
{
    const vx_act_cfg *c = a->c;
    vx_tape *tp = a->tp;
    int xeb = vx_op_eb(a, x);
    if (kind == VX_NS_FUSED) {
        /* A fused RMSNorm kernel (apex / TE / flash-attn's, as Megatron and
         * nanotron use): saves its input and the fp32 rstd. */
        int oeb = xeb;
        int y = vx_op_new(a, vx_op_elems(a, x), oeb, vx_op_rg(a, x) || trainable);
        int rs = vx_op_new(a, rows, 4, 0);
        vx_node_spec ns = {.in = {(int16_t)x, -1, -1}, .nin = 1, .out = {(int16_t)y, -1}, .nout = 1,
                           .sv = {(int16_t)x, (int16_t)rs, -1, -1, -1}, .nsv = 2, .wg = trainable ? wg : 0,
                           .wcat = VX_TC_GRAD, .tmp = trainable ? vx_sat_mul(vx_op_elems(a, x), 4) : 0};
        vx_tape_node(tp, &ns);
        vx_op_drop(a, rs);
        return y;
    }
    /* hidden.to(float32); var = h.pow(2).mean(-1, keepdim); h * rsqrt(var + eps) */
    int x32 = vx_op_cast(a, x, 4);
    int p = vx_op_unary_in(a, x32, 4, 2);
    int mu = vx_op_reduce(a, p, rows, c->torch1);
    vx_op_drop(a, p);
    int mue = vx_op_scalar(a, mu, 1);
    vx_op_drop(a, mu);
    int rs = vx_op_unary_out(a, mue, 4);
    vx_op_drop(a, mue);
    int n32 = vx_op_mul(a, x32, rs, 4);
    vx_op_drop(a, x32);
    vx_op_drop(a, rs);
    int out;
    /* The weight (a parameter, nothing allocated) multiplies; mul saves the
     * normalized tensor only when the weight takes a gradient. */
    if (kind == VX_NS_RMS_GEMMA) {
        /* Gemma: output = h32 * (1 + weight.float()), then cast back. */
        int rn = vx_op_rg(a, n32);
        out = vx_op_new(a, vx_op_elems(a, n32), 4, rn || trainable);
        vx_node_spec ns = {.in = {(int16_t)n32, -1, -1}, .nin = 1, .out = {(int16_t)out, -1}, .nout = 1,
                           .sv = {(int16_t)(trainable ? n32 : -1), -1, -1, -1, -1}, .nsv = 1,
                           .wg = trainable ? wg : 0, .wcat = VX_TC_GRAD,
                           .tmp = trainable ? vx_sat_mul(vx_op_elems(a, n32), 4) : 0};
        vx_tape_node(tp, &ns);
        vx_op_drop(a, n32);
        int o2 = vx_op_cast(a, out, xeb);
        vx_op_drop(a, out);
        return o2;
    }
    /* Llama: weight * h.to(input_dtype); T5: h.to(weight dtype) when the
     * weight is 16-bit, then weight * h. */
    int to_eb = kind == VX_NS_RMS_T5 ? (wbytes < 4 ? wbytes : 4) : xeb;
    int nc = vx_op_cast(a, n32, to_eb);
    vx_op_drop(a, n32);
    int oeb = to_eb > wbytes ? to_eb : wbytes;
    int rn = vx_op_rg(a, nc);
    out = vx_op_new(a, vx_op_elems(a, nc), oeb, rn || trainable);
    vx_node_spec ns = {.in = {(int16_t)nc, -1, -1}, .nin = 1, .out = {(int16_t)out, -1}, .nout = 1,
                       .sv = {(int16_t)(trainable ? nc : -1), -1, -1, -1, -1}, .nsv = 1,
                       .wg = trainable ? wg : 0, .wcat = VX_TC_GRAD,
                       .tmp = trainable ? vx_sat_mul(vx_op_elems(a, nc), (uint64_t)oeb) : 0};
    vx_tape_node(tp, &ns);
    vx_op_drop(a, nc);
    return out;
}

/* Megatron sequence parallelism: norms, dropout and the residual stream run
 * on N/tp tokens; a column-parallel linear all-gathers its input (and saves
 * the local shard, re-gathering in backward), a row-parallel one
 * reduce-scatters its output. */
int vx_op_sp_gather(vx_ab *a, int x)
{
    const vx_act_cfg *c = a->c;
    if (c->Nh >= c->N) return vx_op_view(a, x, vx_op_elems(a, x));
    int g = vx_op_new(a, c->N * (uint64_t)c->h, vx_op_eb(a, x), vx_op_rg(a, x));
    vx_node_spec ns = {.in = {(int16_t)x, -1, -1}, .nin = 1, .out = {(int16_t)g, -1}, .nout = 1};
    vx_tape_node(a->tp, &ns);
    /* nanotron before tp_recompute_allgather saved the gathered input */
    if (!c->sp_save_full) a->tp->t[g].save_as = (int16_t)a->tp->t[x].root;
    return g;
}

int vx_op_sp_scatter(vx_ab *a, int y)
{
    const vx_act_cfg *c = a->c;
    if (c->Nh >= c->N) return y;
    int z = vx_op_new(a, c->Nh * (uint64_t)c->h, vx_op_eb(a, y), vx_op_rg(a, y));
    vx_node_spec ns = {.in = {(int16_t)y, -1, -1}, .nin = 1, .out = {(int16_t)z, -1}, .nout = 1};
    vx_tape_node(a->tp, &ns);
    vx_op_drop(a, y);
    return z;
}

void vx_prog_finish(vx_tape *tp, int x, int y, int drop_y, vx_prog *out)
{
    vx_tlog *log = tp->log;
    memset(out, 0, sizeof *out);
    out->x_bytes = x >= 0 ? tp->t[x].abytes : 0;
    out->fwd_peak = tp->peak;
    memcpy(out->fwd_pk, tp->pk, sizeof out->fwd_pk);
    out->fwd_ns_peak = tp->peak_ns;
    memcpy(out->fwd_ns_pk, tp->pk_ns, sizeof out->fwd_ns_pk);
    if (log) {
        vx_tlog_push(log, VX_EV_SNAPF, 0, 0);
        vx_tlog_push(log, VX_EV_VALX, 0, x >= 0 && tp->t[x].abytes ? tp->t[x].elems * (uint64_t)tp->t[x].eb : 0);
    }
    if (x >= 0) {
        out->held_out = tp->t[x].saves > 0;
        if (log) vx_tlog_push(log, VX_EV_HELDFLAG, 0, out->held_out);
        vx_tape_drop(tp, x);
    }
    int yr = tp->t[y].root;
    out->y_bytes = tp->t[yr].abytes;
    int ycat = tp->t[yr].cat;
    out->saved = tp->tot >= out->y_bytes ? tp->tot - out->y_bytes : 0;
    memcpy(out->saved_cat, tp->live, sizeof out->saved_cat);
    out->saved_cat[ycat] -= out->saved_cat[ycat] >= out->y_bytes ? out->y_bytes : 0;
    if (log) {
        vx_tlog_push(log, VX_EV_VALY, ycat, out->y_bytes ? tp->t[yr].elems * (uint64_t)tp->t[yr].eb : 0);
        vx_tlog_push(log, VX_EV_SNAPSAVED, 0, 0);
    }
    /* The consumer of y (the next layer) has dropped it by backward; a
     * loss stays referenced until backward returns. */
    if (drop_y) vx_tape_drop(tp, y);
    vx_tape_backward(tp, tp->t[y].rg ? y : -1);
    if (!drop_y) vx_tape_drop(tp, y);
    out->bwd_peak = tp->peak;
    memcpy(out->bwd_pk, tp->pk, sizeof out->bwd_pk);
    out->bwd_acc_peak = tp->peak_acc;
    memcpy(out->bwd_acc_pk, tp->pk_acc, sizeof out->bwd_acc_pk);
    memcpy(out->wgrad_cat, tp->wkept, sizeof out->wgrad_cat);
    out->wgrad = tp->wkept_tot;
    if (log) vx_tlog_push(log, VX_EV_END, 0, 0);
}
