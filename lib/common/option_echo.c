/* How the plan's settings echo writes an option (result/settings_json.c),
 * here below the result so that option_index_gen.c can render the tables'
 * defaults with the same code at build time. */
#include <math.h>
#include <string.h>

#include "common/option_echo.h"

void vx_echo_value(vx_jw *w, const vx_option_def *d, const void *base)
{
    const char *p = (const char *)base + d->offset;
    int64_t iv;
    double fv;
    switch (d->type) {
    case VRAMEST_TYPE_F64:
        memcpy(&fv, p, sizeof fv);
        if (isfinite(fv))
            vx_jw_g17(w, fv);
        else
            vx_jw_puts(w, "null");
        break;
    case VRAMEST_TYPE_STRING: vx_jw_str(w, p); break;
    case VRAMEST_TYPE_BOOL:
        memcpy(&iv, p, sizeof iv);
        vx_jw_puts(w, iv ? "true" : "false");
        break;
    case VRAMEST_TYPE_ENUM: {
        memcpy(&iv, p, sizeof iv);
        const char *nm = vx_enum_name_of(d->enums, iv);
        if (nm)
            vx_jw_str(w, nm);
        else
            vx_jw_i64(w, iv);
        break;
    }
    default:
        memcpy(&iv, p, sizeof iv);
        vx_jw_i64(w, iv);
    }
}

/* The echo's groups: the spec's objects, in the plan's order. */
const char *const vx_echo_groups[VX_ECHO_GROUPS] = {"precision", "workload", "parallel",
                                                        "device",    "runtime",  "rl"};

int vx_echo_group(const char *group)
{
    for (int g = 0; g < VX_ECHO_GROUPS; g++)
        if (strcmp(group, vx_echo_groups[g]) == 0) return g;
    return -1;
}
