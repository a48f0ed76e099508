/* GPU presets: total memory as nvidia-smi / torch.cuda.get_device_properties()
 * report it (MiB as shown by nvidia-smi "Total"), a typical CUDA-context size
 * for PyTorch 2 with lazy module loading, and the compute capability, which
 * sets the cuBLAS workspace size (32 MiB on sm90, 8.125 MiB elsewhere).
 *
 * Names: a preset answers to its name, its aliases and the product name
 * nvidia-smi and torch.cuda.get_device_name() print, compared without case,
 * spaces, '-' or '_' and without a leading vendor word, so "RTX 4090",
 * "rtx4090" and "NVIDIA GeForce RTX 4090" are one card. A name that stops
 * short of the memory size ("A100": 40 or 80 GB) is refused with the
 * candidates: a silent pick would answer for the wrong card. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "runtime/gpus.h"

#define MIB(x) ((uint64_t)(x) * VX_MIB)

/* Context sizes are empirical (~300-450 MiB bare with lazy loading,
 * https://github.com/pytorch/pytorch/pull/86509, growing by 100-400 MiB as
 * kernels load; docs/methodology.md "CUDA context"); 500 MiB is the default
 * after a training step on CUDA 12. Users override it with cuda_context_mib.
 * Aliases after the short names are the product names of nvidia-smi. */
const vx_gpu vx_gpus[] = {
    {"V100-16GB", "v100-sxm2-16gb,v100-pcie-16gb,tesla-v100-16gb", MIB(16160), 500, 70},
    {"V100-32GB", "v100-sxm2-32gb,v100-pcie-32gb,v100s,v100s-pcie-32gb", MIB(32510), 500, 70},
    {"P100-16GB", "p100,p100-pcie-16gb,p100-sxm2-16gb", MIB(16280), 450, 60},
    {"T4", "t4-16gb", MIB(15360), 450, 75},
    {"A10", "a10-24gb", MIB(23028), 500, 86},
    {"A10G", "a10g-24gb", MIB(23028), 500, 86},
    {"A30", "a30-24gb", MIB(24576), 500, 80},
    {"A40", "a40-48gb", MIB(46068), 500, 86},
    {"L4", "l4-24gb", MIB(23034), 500, 89},
    {"L40", "l40-48gb", MIB(46068), 500, 89},
    {"L40S-48GB", "l40s", MIB(46068), 500, 89},
    {"A100-40GB", "a100-pcie-40gb,a100-sxm4-40gb", MIB(40960), 500, 80},
    {"A100-80GB", "a100-pcie-80gb,a100-sxm4-80gb,a100-80gb-pcie", MIB(81920), 500, 80},
    /* "H100" alone is the SXM card: the PCIe one has the same 80 GB, only
     * the NVL (94 GB) differs and says so in its name. */
    {"H100-80GB", "h100,h100-sxm,h100-sxm5-80gb,h100-80gb-hbm3", MIB(81559), 550, 90},
    {"H100-PCIe-80GB", "h100-pcie", MIB(81559), 550, 90},
    {"H100-NVL-94GB", "h100-nvl", MIB(95830), 550, 90},
    {"H20-96GB", "h20", MIB(97871), 550, 90},
    {"GH200-96GB", "gh200,gh200-480gb", MIB(97871), 550, 90},
    {"H200-141GB", "h200,h200-nvl", MIB(143771), 550, 90},
    {"B200-180GB", "b200", MIB(183359), 600, 100},
    {"RTX3060-12GB", "rtx3060", MIB(12288), 400, 86},
    {"RTX3080-10GB", "rtx3080", MIB(10240), 400, 86},
    {"RTX3090-24GB", "rtx3090", MIB(24576), 400, 86},
    {"RTX4080-16GB", "rtx4080", MIB(16376), 400, 89},
    {"RTX4090-24GB", "rtx4090", MIB(24564), 400, 89},
    {"RTX5090-32GB", "rtx5090", MIB(32607), 450, 120},
    {"RTXA6000-48GB", "rtx-a6000,a6000", MIB(49140), 450, 86},
    {"RTX6000Ada-48GB", "rtx-6000-ada,rtx-6000-ada-generation", MIB(49140), 450, 89},
    {"MI250X-64GB", "mi250x", MIB(65520), 500, 0},
    {"MI300X-192GB", "mi300x", MIB(196592), 500, 0},
};
const size_t vx_gpu_count_ = VX_ARRAY_LEN(vx_gpus);

enum { NORM = 64 };

/* Lower case without separators or a leading vendor word; false when the
 * name is too long to be a GPU's. */
static bool normalise(const char *name, char out[NORM])
{
    size_t o = 0;
    for (const char *p = name; *p; p++) {
        int c = (unsigned char)*p;
        if (c == ' ' || c == '-' || c == '_') continue;
        if (o + 1 >= NORM) return false;
        out[o++] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
    out[o] = '\0';
    static const char *const vendor[] = {"nvidia", "geforce", "tesla", "amd", "instinct"};
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < VX_ARRAY_LEN(vendor); i++) {
            size_t l = strlen(vendor[i]);
            if (!strncmp(out, vendor[i], l) && out[l]) {
                memmove(out, out + l, strlen(out + l) + 1);
                again = true;
            }
        }
    }
    return true;
}

/* Calls `fn` with each name of preset `g` (its name, then its aliases),
 * normalised; stops when `fn` returns true. */
static bool each_name(const vx_gpu *g, bool (*fn)(const char *norm, void *ctx), void *ctx)
{
    char n[NORM], one[NORM];
    if (normalise(g->name, n) && fn(n, ctx)) return true;
    for (const char *p = g->aliases; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len < NORM) {
            memcpy(one, p, len);
            one[len] = '\0';
            if (normalise(one, n) && fn(n, ctx)) return true;
        }
        p = e ? e + 1 : p + len;
    }
    return false;
}

static bool equals(const char *norm, void *want) { return !strcmp(norm, (const char *)want); }

static bool starts(const char *norm, void *want)
{
    return !strncmp(norm, (const char *)want, strlen((const char *)want));
}

static const vx_gpu *exact(const char *norm)
{
    for (size_t i = 0; i < vx_gpu_count_; i++)
        if (each_name(&vx_gpus[i], equals, (void *)norm)) return &vx_gpus[i];
    return NULL;
}

/* The preset a normalised name means exactly; a bare number is a GeForce
 * ("4090"), a trailing "80g" means "80gb". */
static const vx_gpu *exact_forms(const char *norm)
{
    const vx_gpu *g = exact(norm);
    char alt[NORM + 4];
    size_t l = strlen(norm);
    if (!g && norm[0] >= '0' && norm[0] <= '9') {
        snprintf(alt, sizeof alt, "rtx%s", norm);
        g = exact(alt);
    }
    if (!g && l >= 2 && norm[l - 1] == 'g' && norm[l - 2] >= '0' && norm[l - 2] <= '9') {
        snprintf(alt, sizeof alt, "%sb", norm);
        g = exact(alt);
    }
    return g;
}

const vx_gpu *vx_gpu_find(const char *name)
{
    if (!name) return NULL;
    /* The preset's own name, then an alias, as written: no normalising (a
     * scheduler sets the device of every job, most often by the name the
     * plans echo). No name is another preset's alias (test_runtime). */
    /* A first filter: characters equal without case are equal with bit 5 set. */
    unsigned c0 = (unsigned char)name[0] | 0x20u;
    for (size_t i = 0; i < vx_gpu_count_; i++)
        if (((unsigned char)vx_gpus[i].name[0] | 0x20u) == c0 && !vx_strcasecmp(vx_gpus[i].name, name))
            return &vx_gpus[i];
    for (size_t i = 0; i < vx_gpu_count_; i++)
        if (vx_in_list(vx_gpus[i].aliases, name)) return &vx_gpus[i];
    char norm[NORM];
    if (!normalise(name, norm) || !norm[0]) return NULL;
    const vx_gpu *g = exact_forms(norm);
    if (g) return g;
    /* A prefix of exactly one preset's names ("b200-180" of "B200-180GB"). */
    for (size_t i = 0; i < vx_gpu_count_; i++) {
        if (!each_name(&vx_gpus[i], starts, norm)) continue;
        if (g) return NULL;
        g = &vx_gpus[i];
    }
    return g;
}

int vx_gpu_lookup(const char *name, const vx_gpu **out)
{
    const vx_gpu *g = vx_gpu_find(name);
    if (g) {
        *out = g;
        return VRAMEST_OK;
    }
    char norm[NORM], list[256] = "";
    size_t used = 0, hits = 0;
    if (normalise(name, norm) && norm[0])
        for (size_t i = 0; i < vx_gpu_count_ && used < sizeof list; i++)
            if (each_name(&vx_gpus[i], starts, norm))
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", hits++ ? ", " : "", vx_gpus[i].name);
    if (hits > 1)
        return vx_fail(VRAMEST_E_UNKNOWN_NAME, "device: '%.64s' is ambiguous: it could be %s (name one; see `vramest gpus`)",
                       name, list);
    vx_close c;
    vx_close_init(&c, name, VX_CLOSE_ANY);
    for (size_t i = 0; i < vx_gpu_count_; i++) vx_close_offer(&c, vx_gpus[i].name);
    return vx_fail(VRAMEST_E_UNKNOWN_NAME, "device: unknown GPU '%.64s' (close names: %s, %s, %s; see `vramest gpus`)",
                   name, c.best[0] ? c.best[0] : "-", c.best[1] ? c.best[1] : "-", c.best[2] ? c.best[2] : "-");
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
