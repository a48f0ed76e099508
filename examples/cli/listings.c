/* The listing subcommands (options, models, gpus): the library's own tables
 * printed for a person. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *type_name(int type)
{
    switch (type) {
    case VRAMEST_TYPE_I64: return "integer";
    case VRAMEST_TYPE_F64: return "number";
    case VRAMEST_TYPE_BOOL: return "bool";
    case VRAMEST_TYPE_ENUM: return "enum";
    case VRAMEST_TYPE_STRING: return "string";
    default: return "?";
    }
}


static void print_number(double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        printf("%.0f", v);
    else
        printf("%g", v);
}

int cmd_options(void)
{
    static const char *const groups[] = {"model", "precision", "workload", "parallel", "device", "runtime"};
    uint32_t n = vramest_option_count();
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        printf("%s%s\n", g ? "\n" : "", strcmp(groups[g], "model") == 0 ? "model (in {\"model\": {\"arch\": {...}}})"
                                                                          : groups[g]);
        for (uint32_t i = 0; i < n; i++) {
            vramest_option k;
            int type = 0;
            double mn = 0, mx = 0, def = 0;
            if (vramest_option_at(i, &k) || vramest_option_info(k, &type, NULL, &mn, &mx, &def)) continue;
            const char *grp = vramest_option_group(k);
            if (!grp || strcmp(grp, groups[g]) != 0) continue;
            const char *ds = vramest_option_default_str(k);
            printf("  %-32s %-8s default ", vramest_option_name(k), type_name(type));
            if (type == VRAMEST_TYPE_STRING)
                printf("\"%s\"", ds ? ds : "");
            else if (ds)
                printf("%s", ds);
            else
                print_number(def);
            if (type == VRAMEST_TYPE_I64 || type == VRAMEST_TYPE_F64) {
                printf(", range [");
                print_number(mn);
                printf(", ");
                print_number(mx);
                printf("]");
            } else if (type == VRAMEST_TYPE_STRING) {
                printf(", at most %.0f bytes", mx);
            }
            printf("\n      %s\n", vramest_option_description(k) ? vramest_option_description(k) : "");
            if (type == VRAMEST_TYPE_ENUM && mn >= 0 && mx <= 4096) {
                printf("      values:");
                int col = 13;
                for (int64_t v = (int64_t)mn; v <= (int64_t)mx; v++) {
                    const char *vn = vramest_option_value_name(k, v);
                    if (!vn) continue;
                    int w = (int)strlen(vn) + 1;
                    if (col + w > 100) printf("\n             "), col = 13;
                    printf(" %s", vn);
                    col += w;
                }
                printf("\n");
            }
        }
    }
    return EXIT_FITS;
}

int cmd_models(void)
{
    uint32_t n = vramest_preset_count();
    printf("%-32s %18s\n", "preset", "parameters");
    for (uint32_t i = 0; i < n; i++) {
        const char *name = vramest_preset_name(i);
        vramest_model *m = NULL;
        uint64_t total = 0;
        printf("%-32s ", name ? name : "?");
        if (name && vramest_model_new_preset(name, &m) == VRAMEST_OK &&
            vramest_model_param_count(m, &total, NULL) == VRAMEST_OK) {
            char buf[32];
            snprintf(buf, sizeof buf, "%.2fB", (double)total / 1e9);
            printf("%18s", buf);
        } else {
            printf("%18s", "-");
        }
        printf("\n");
        vramest_model_free(m);
    }
    return EXIT_FITS;
}

int cmd_gpus(void)
{
    uint32_t n = vramest_gpu_count();
    printf("%-24s %10s\n", "gpu", "GiB");
    for (uint32_t i = 0; i < n; i++) {
        const char *name = NULL;
        uint64_t bytes = 0;
        if (vramest_gpu_info(i, &name, &bytes) != VRAMEST_OK) continue;
        printf("%-24s %10.2f\n", name ? name : "?", (double)bytes / (1024.0 * 1024.0 * 1024.0));
    }
    return EXIT_FITS;
}
