/* The runtime table (lib/runtime/runtime.c): every framework has its row,
 * the rules apply by version, and the config keeps the runtime of its
 * framework current, so estimates copy what the table resolves. */
#include <criterion/criterion.h>
#include <string.h>

#include "estimate/estimate.h"

Test(runtime, every_framework_name_has_its_row)
{
    size_t n = 0;
    for (const vx_enum_name *e = vx_framework_enum; e->name; e++, n++) {
        vx_runtime rt;
        vx_runtime_resolve((int)e->value, NULL, &rt);
        cr_assert_eq(rt.framework, e->value, "%s resolves to the row of framework %d", e->name, rt.framework);
    }
    cr_assert_eq(n, VX_FW_COUNT_, "%zu names for %d frameworks", n, VX_FW_COUNT_);
}

Test(runtime, rows_differ_where_the_frameworks_do)
{
    vx_runtime pt, hf, ds, mg, vl, lc;
    vx_runtime_resolve(VX_FW_PYTORCH, NULL, &pt);
    vx_runtime_resolve(VX_FW_HF_TRAINER, NULL, &hf);
    vx_runtime_resolve(VX_FW_DEEPSPEED, NULL, &ds);
    vx_runtime_resolve(VX_FW_MEGATRON, NULL, &mg);
    vx_runtime_resolve(VX_FW_VLLM, NULL, &vl);
    vx_runtime_resolve(VX_FW_LLAMA_CPP, NULL, &lc);
    cr_assert(pt.logits_held && !hf.logits_held, "a plain loop keeps the logits, Trainer drops them");
    cr_assert(hf.opt_decay_groups && !pt.opt_decay_groups);
    cr_assert(ds.opt_fused && mg.opt_fused && !pt.opt_fused);
    cr_assert_eq(ds.ddp, VX_DDP_DEEPSPEED);
    cr_assert_eq(mg.ddp, VX_DDP_MEGATRON);
    cr_assert_eq(pt.ddp, VX_DDP_TORCH);
    cr_assert_eq(mg.zero, VX_ZERO_MEGATRON);
    cr_assert_eq(pt.zero, VX_ZERO_DEEPSPEED, "zero_stage with a plain loop is DeepSpeed's (accelerate)");
    cr_assert_eq(mg.vocab_pad, 128);
    cr_assert_eq(vl.vocab_pad, 64);
    cr_assert_eq(pt.vocab_pad, 0);
    cr_assert_eq(vl.engine, VX_ENGINE_VLLM);
    cr_assert_eq(lc.engine, VX_ENGINE_LLAMACPP);
    cr_assert_eq(pt.engine, VX_ENGINE_HF);
    cr_assert(lc.ggml_alloc && !vl.ggml_alloc);
}

Test(runtime, version_rules_apply_in_their_ranges)
{
    vx_runtime d, old, new48, t113;
    vx_runtime_resolve(VX_FW_PYTORCH, NULL, &d);
    cr_assert_eq(d.torch, VX_DEFAULT_TORCH);
    cr_assert_eq(d.transformers, VX_DEFAULT_TRANSFORMERS);
    /* the defaults keep the code paths the estimator was checked against */
    cr_assert(d.hf_legacy && d.model_logits_upcast && d.shift_copy && d.repeat_kv && !d.torch1_mean);
    vx_runtime_resolve(VX_FW_PYTORCH, &(vx_runtime_versions){.transformers = 445}, &old);
    cr_assert(!old.hf_legacy && !old.model_logits_upcast && !old.shift_copy, "4.45 is past the <= 4.44 paths");
    cr_assert(old.repeat_kv, "repeat_kv lasts until 4.47");
    vx_runtime_resolve(VX_FW_PYTORCH, &(vx_runtime_versions){.transformers = 448}, &new48);
    cr_assert(!new48.repeat_kv);
    vx_runtime_resolve(VX_FW_HF_TRAINER, &(vx_runtime_versions){.torch = 113}, &t113);
    cr_assert(t113.torch1_mean && t113.opt_decay_groups, "a version rule keeps the framework's row");
    cr_assert_eq(t113.torch, 113);
}

Test(runtime, the_config_keeps_its_runtime_current)
{
    vramest_config *c = NULL;
    cr_assert_eq(vramest_config_new(&c), VRAMEST_OK);
    vx_runtime buf;
    cr_assert_eq(vx_config_runtime(c, &buf), &c->rt, "a fresh config carries its runtime");
    cr_assert_eq(c->rt.framework, VX_FW_PYTORCH);
    cr_assert_eq(vramest_config_set_str(c, VRAMEST_CFG_FRAMEWORK, "megatron"), VRAMEST_OK);
    cr_assert_eq(vx_config_runtime(c, &buf), &c->rt);
    cr_assert(c->rt.megatron_layer);
    cr_assert_eq(vramest_config_set_i64(c, VRAMEST_CFG_FRAMEWORK, VX_FW_VLLM), VRAMEST_OK);
    cr_assert_eq(c->rt.engine, VX_ENGINE_VLLM);
    cr_assert_eq(vramest_config_reset(c, VRAMEST_CFG_FRAMEWORK), VRAMEST_OK);
    cr_assert_eq(c->rt.framework, VX_FW_PYTORCH);
    /* values written directly (white-box callers) resolve afresh */
    c->v.framework = VX_FW_DEEPSPEED;
    const vx_runtime *rt = vx_config_runtime(c, &buf);
    cr_assert_eq(rt, &buf);
    cr_assert(rt->opt_fused && rt->framework == VX_FW_DEEPSPEED);
    vramest_config_free(c);
}
