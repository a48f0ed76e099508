/* Optimizer states and the temporaries of one optimizer step (research note
 * §5). States are per parameter tensor, so frozen and trainable parts and
 * the small-tensor rules of bitsandbytes come out right. */
#include "estimate/params/params.h"

/* bitsandbytes keeps fp32 states for tensors below min_8bit_size (4096) and
 * blockwise (256) fp32 absmax per uint8 state otherwise; paged optimizers
 * put states of tensors >= 1e5 elements in CUDA managed memory. */
#define BNB_MIN_8BIT 4096u
#define BNB_BLOCK 256u
#define BNB_PAGE_MIN 100000u

static unsigned dtype_size_or(int dt, unsigned dflt)
{
    return vx_train_dsize(dt, dflt);
}

void vx_opt_tensor_state(int optimizer, int state_dtype, uint64_t elems, int cpu, vx_opt_state *out)
{
    out->device = out->paged = 0;
    if (!elems) return;
    unsigned sb = dtype_size_or(state_dtype, 4);
    uint64_t b = 0;
    switch (optimizer) {
    case VX_OPT_NONE:
    case VX_OPT_SGD: return;
    case VX_OPT_SGD_MOMENTUM:
    case VX_OPT_LION: b = vx_sat_mul(elems, sb); break;
    case VX_OPT_ADAM:
    case VX_OPT_ADAMW: b = vx_sat_mul(elems, 2u * sb); break;
    case VX_OPT_ADAMW_8BIT:
    case VX_OPT_PAGED_ADAMW_8BIT: {
        uint64_t one;
        if (elems < BNB_MIN_8BIT)
            one = vx_sat_mul(elems, 4);
        else
            one = vx_sat_add(elems, vx_sat_mul(vx_ceil_div(elems, BNB_BLOCK), 4));
        /* Two states (exp_avg, exp_avg_sq), each its own allocation. */
        uint64_t per = cpu ? one : vx_alloc_round(one);
        b = vx_sat_mul(per, 2);
        if (optimizer == VX_OPT_PAGED_ADAMW_8BIT && elems >= BNB_PAGE_MIN) {
            out->paged = b;
            return;
        }
        out->device = b;
        return;
    }
    case VX_OPT_ADAFACTOR:
        /* Factored second moment for matrices (row + column vectors) is
         * computed by the caller for 2-D tensors; here the unfactored case. */
        b = vx_sat_mul(elems, sb);
        break;
    default: return;
    }
    out->device = b;
}

uint64_t vx_opt_step_bytes(int optimizer, int impl, int cpu)
{
    if (optimizer != VX_OPT_ADAM && optimizer != VX_OPT_ADAMW) return 0;
    /* torch.optim keeps `step` as a 1-element fp32 tensor: on the CPU for the
     * foreach / single-tensor paths (non-capturable), on the device for the
     * fused kernel. On a CPU run every tensor is "on the device". */
    if (cpu) return 4;
    return impl == VX_OPTIMPL_FUSED ? 512 : 0;
}

uint64_t vx_opt_step_temp(int optimizer, int impl, uint64_t group_bytes, uint64_t largest, uint64_t largest_elems,
                          int low_precision)
{
    switch (optimizer) {
    case VX_OPT_NONE:
    case VX_OPT_SGD:
    case VX_OPT_SGD_MOMENTUM:
        /* In-place momentum update; no parameter-sized temporaries without
         * weight decay. */
        return 0;
    case VX_OPT_ADAMW_8BIT:
    case VX_OPT_PAGED_ADAMW_8BIT:
        /* One blockwise CUDA kernel per tensor, in place. */
        return 0;
    case VX_OPT_ADAFACTOR: {
        /* transformers Adafactor, one parameter at a time: grad**2 + eps and
         * the reconstructed second moment (fp32, full size), plus fp32 copies
         * of the gradient and the parameter when they are 16-bit. */
        uint64_t f = vx_sat_mul(largest_elems, 4);
        return vx_sat_mul(f, low_precision ? 4 : 2);
    }
    default: break;
    }
    switch (impl) {
    case VX_OPTIMPL_FUSED: return 0;
    case VX_OPTIMPL_SINGLE:
        /* denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps): the
         * sqrt and the quotient coexist for the largest parameter. */
        return vx_sat_mul(largest, 2);
    default:
        /* _foreach_sqrt(exp_avg_sqs) materialises one tensor per parameter of
         * the (device, dtype) group at once (torch.optim docs: "~ sizeof(params)
         * more peak memory"). */
        return group_bytes;
    }
}

int vx_opt_impl(const vx_ctx *x)
{
    int o = (int)x->cv->optimizer;
    if (o == VX_OPT_ADAMW_8BIT || o == VX_OPT_PAGED_ADAMW_8BIT) return VX_OPTIMPL_FUSED;
    int impl = (int)x->cv->optimizer_impl;
    if (impl != VX_OPTIMPL_AUTO) return impl;
    /* DeepSpeed (FusedAdam / CPU Adam) and Megatron (apex/TE fused Adam) step
     * with fused multi-tensor kernels, chunked, without parameter-sized
     * temporaries. */
    if (x->rt.opt_fused) return VX_OPTIMPL_FUSED;
    return x->rt.cpu ? VX_OPTIMPL_SINGLE : VX_OPTIMPL_FOREACH;
}
