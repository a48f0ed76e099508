/* GPU presets: total memory as nvidia-smi / torch.cuda.get_device_properties()
 * report it (MiB as shown by nvidia-smi "Total"), a typical CUDA-context size
 * for PyTorch 2 with lazy module loading, and the compute capability, which
 * sets the cuBLAS workspace size (32 MiB on sm90, 8.125 MiB elsewhere). */
#include <stddef.h>

#include "runtime/gpus.h"

#define MIB(x) ((uint64_t)(x) * VX_MIB)

/* Context sizes are empirical (research note §2.1: ~300-450 MiB bare with lazy
 * loading, growing by 100-400 MiB as kernels load); 500 MiB is the default
 * after a training step on CUDA 12. Users override it with cuda_context_mib. */
const vx_gpu vx_gpus[] = {
    {"V100-16GB", "v100,v100-sxm2-16gb,tesla-v100", MIB(16160), 500, 70},
    {"V100-32GB", "v100-sxm2-32gb", MIB(32510), 500, 70},
    {"P100-16GB", "p100", MIB(16280), 450, 60},
    {"T4", "t4-16gb,tesla-t4", MIB(15360), 450, 75},
    {"A10", "a10-24gb", MIB(23028), 500, 86},
    {"A10G", "a10g-24gb", MIB(23028), 500, 86},
    {"A30", "a30-24gb", MIB(24576), 500, 80},
    {"A40", "a40-48gb", MIB(46068), 500, 86},
    {"L4", "l4-24gb", MIB(23034), 500, 89},
    {"L40", "l40-48gb", MIB(46068), 500, 89},
    {"L40S-48GB", "l40s", MIB(46068), 500, 89},
    {"A100-40GB", "a100,a100-pcie-40gb,a100-sxm4-40gb", MIB(40960), 500, 80},
    {"A100-80GB", "a100-pcie-80gb,a100-sxm4-80gb", MIB(81920), 500, 80},
    {"H100-80GB", "h100,h100-sxm,h100-sxm5-80gb", MIB(81559), 550, 90},
    {"H100-PCIe-80GB", "h100-pcie", MIB(81559), 550, 90},
    {"H100-NVL-94GB", "h100-nvl", MIB(95830), 550, 90},
    {"H20-96GB", "h20", MIB(97871), 550, 90},
    {"GH200-96GB", "gh200", MIB(97871), 550, 90},
    {"H200-141GB", "h200", MIB(143771), 550, 90},
    {"B200-180GB", "b200", MIB(183359), 600, 100},
    {"RTX3060-12GB", "rtx3060,rtx-3060", MIB(12288), 400, 86},
    {"RTX3080-10GB", "rtx3080,rtx-3080", MIB(10240), 400, 86},
    {"RTX3090-24GB", "rtx3090,rtx-3090", MIB(24576), 400, 86},
    {"RTX4080-16GB", "rtx4080,rtx-4080", MIB(16376), 400, 89},
    {"RTX4090-24GB", "rtx4090,rtx-4090", MIB(24564), 400, 89},
    {"RTX5090-32GB", "rtx5090,rtx-5090", MIB(32607), 450, 120},
    {"RTXA6000-48GB", "rtx-a6000,a6000", MIB(49140), 450, 86},
    {"RTX6000Ada-48GB", "rtx-6000-ada,rtx6000-ada", MIB(49140), 450, 89},
    {"MI250X-64GB", "mi250x", MIB(65520), 500, 0},
    {"MI300X-192GB", "mi300x", MIB(196592), 500, 0},
};
const size_t vx_gpu_count_ = VX_ARRAY_LEN(vx_gpus);

const vx_gpu *vx_gpu_find(const char *name)
{
    for (size_t i = 0; i < vx_gpu_count_; i++)
        if (!vx_strcasecmp(vx_gpus[i].name, name) || vx_in_list(vx_gpus[i].aliases, name)) return &vx_gpus[i];
    return NULL;
}

VRAMEST_API uint32_t vramest_gpu_count(void)
{
    return (uint32_t)vx_gpu_count_;
}

VRAMEST_API int vramest_gpu_info(uint32_t index, const char **out_name, uint64_t *out_bytes)
{
    if (index >= vx_gpu_count_)
        return vx_fail(VRAMEST_E_RANGE, "GPU preset index %u out of range [0, %zu)", index, vx_gpu_count_);
    if (out_name) *out_name = vx_gpus[index].name;
    if (out_bytes) *out_bytes = vx_gpus[index].bytes;
    return VRAMEST_OK;
}
