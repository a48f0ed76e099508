/* vramest: the command-line front end of libvramest.
 *
 * Deliberately thin: every decision (option names, types, bounds, presets,
 * the job-spec format, the plan JSON) belongs to the library, so the CLI, the
 * Python binding and a scheduler can never disagree. This file only turns
 * argv into library calls and a result into text.
 *
 *   vramest --spec FILE|- [--json]
 *   vramest --model NAME|PATH [--precision P] [--device GPU] [--set key=value ...] [--json]
 *   vramest options | models | gpus
 *
 * Exit status: 0 the job fits (or no device was given), 1 it does not fit,
 * 2 bad input or an error. With --json the plan carries the verdict ("fits")
 * and the status is 0 whenever a plan was printed: scripts reading the JSON
 * (such as the accuracy checker) treat any other status as a failed run. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <vramest/vramest.h>

enum { EXIT_FITS = 0, EXIT_NOFIT = 1, EXIT_BAD = 2 };

/* Refuse absurd input before the library does, so `vramest --spec /dev/zero`
 * cannot eat the machine; the library's own limit (16 MiB) gives the message. */
#define MAX_INPUT_BYTES ((size_t)64 << 20)

static int lib_error(int rc)
{
    fprintf(stderr, "vramest: %s: %s\n", vramest_status_string(rc), vramest_last_error_message());
    return EXIT_BAD;
}

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("vramest: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'vramest --help'.\n", stderr);
    return EXIT_BAD;
}

static void usage(FILE *f)
{
    fputs("usage: vramest --spec FILE|- [--json]\n"
          "       vramest --model NAME|PATH [--precision P] [--device GPU] [--set key=value ...] [--json]\n"
          "       vramest options | models | gpus\n"
          "       vramest --help | --version\n"
          "\n"
          "Estimate the GPU (and host / NVMe) memory of a training or inference job.\n"
          "\n"
          "  --spec FILE     read a JSON job spec (docs/guide.md); '-' reads standard input\n"
          "  --model M       a bundled preset (see 'vramest models') or a config.json,\n"
          "                  .safetensors, index .json, .gguf file or model directory\n"
          "  --precision P   a precision preset: fp32, fp16, bf16, amp_bf16, mixed_bf16, int8, nf4, ...\n"
          "  --device GPU    a GPU preset (see 'vramest gpus'); same as --set device=GPU\n"
          "  --set K=V       set any option (see 'vramest options'); repeatable. A name that\n"
          "                  belongs to two objects is qualified: precision.kv_cache=fp8,\n"
          "                  workload.kv_cache=false\n"
          "  --json          print the plan as JSON (the library's vramest_result_json)\n"
          "\n"
          "  options         every option: name, object, type, default, bounds, description\n"
          "  models          the bundled model presets\n"
          "  gpus            the bundled GPU presets\n"
          "\n"
          "Exit status: 0 fits (or no device given), 1 does not fit, 2 bad input.\n"
          "With --json the verdict is the plan's \"fits\" and the status is 0 when a plan is printed.\n",
          f);
}

/* ---- input ---- */

static int read_input(const char *path, char **out, size_t *out_len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vramest: i/o error: cannot open '%s': %s\n", path, strerror(errno));
        return EXIT_BAD;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        if (len == cap) {
            if (cap >= MAX_INPUT_BYTES) {
                fprintf(stderr, "vramest: safety limit exceeded: '%s' is larger than %zu MiB\n", path,
                        MAX_INPUT_BYTES >> 20);
                rc = EXIT_BAD;
                break;
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown) break;
            buf = grown, cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                fprintf(stderr, "vramest: i/o error: cannot read '%s': %s\n", path, strerror(errno));
                rc = EXIT_BAD;
            }
            break;
        }
    }
    if (f != stdin) fclose(f);
    if (!buf) {
        fprintf(stderr, "vramest: out of memory reading '%s'\n", path);
        return EXIT_BAD;
    }
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf, *out_len = len;
    return 0;
}

/* ---- options ---- */

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

/* "group.name" or "name". A bare name shared by two objects (kv_cache) is
 * refused rather than guessed. */
static int find_option(const char *spec, vramest_option *out)
{
    char group[32] = "";
    const char *name = spec, *dot = strchr(spec, '.');
    if (dot) {
        size_t gl = (size_t)(dot - spec);
        if (gl >= sizeof group) gl = sizeof group - 1;
        memcpy(group, spec, gl);
        group[gl] = '\0';
        if (strcmp(group, "arch") == 0) strcpy(group, "model");
        name = dot + 1;
    }
    uint32_t n = vramest_option_count(), hits = 0;
    vramest_option found = (vramest_option)0;
    char others[256] = "";
    for (uint32_t i = 0; i < n; i++) {
        vramest_option k;
        if (vramest_option_at(i, &k) != VRAMEST_OK) continue;
        const char *nm = vramest_option_name(k), *g = vramest_option_group(k);
        if (!nm || !g || strcmp(nm, name) != 0 || (dot && strcmp(g, group) != 0)) continue;
        size_t l = strlen(others);
        snprintf(others + l, sizeof others - l, "%s%s.%s", hits ? ", " : "", g, nm);
        found = k, hits++;
    }
    if (hits == 1) {
        *out = found;
        return 0;
    }
    if (hits > 1) return usage_error("option '%s' is ambiguous: write one of %s", spec, others);
    /* Aliases (n_embd) and the library's "did you mean" live in the registry. */
    vramest_option k;
    int rc = vramest_option_from_name(name, &k);
    if (rc) return lib_error(rc);
    const char *g = vramest_option_group(k);
    if (dot && g && strcmp(g, group) != 0)
        return usage_error("option '%s' belongs to '%s', not '%s'", name, g, group);
    *out = k;
    return 0;
}

typedef struct handles {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
} handles;

static int set_option(handles *h, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) return usage_error("--set expects key=value, got '%s'", assignment);
    char key[128];
    size_t kl = (size_t)(eq - assignment);
    if (kl >= sizeof key) return usage_error("--set: key '%.*s...' is too long", 32, assignment);
    memcpy(key, assignment, kl);
    key[kl] = '\0';
    const char *val = eq + 1;

    vramest_option opt = (vramest_option)0;
    int rc = find_option(key, &opt);
    if (rc) return rc;
    int type = 0, handle = 0;
    if ((rc = vramest_option_info(opt, &type, &handle, NULL, NULL, NULL))) return lib_error(rc);

    int64_t i = 0;
    double d = 0;
    char *end = NULL;
    enum { AS_I64, AS_F64, AS_STR } how = AS_STR;
    if (type == VRAMEST_TYPE_I64) {
        errno = 0;
        i = strtoll(val, &end, 10);
        if (!*val || *end || errno)
            return usage_error("%s: --set %s: '%s' is not an integer", vramest_status_string(VRAMEST_E_TYPE), key,
                               val);
        how = AS_I64;
    } else if (type == VRAMEST_TYPE_F64) {
        errno = 0;
        d = strtod(val, &end);
        if (!*val || *end || errno)
            return usage_error("%s: --set %s: '%s' is not a number", vramest_status_string(VRAMEST_E_TYPE), key,
                               val);
        how = AS_F64;
    } else if (type == VRAMEST_TYPE_BOOL) {
        if (!strcmp(val, "true") || !strcmp(val, "1"))
            i = 1;
        else if (!strcmp(val, "false") || !strcmp(val, "0"))
            i = 0;
        else
            return usage_error("%s: --set %s: '%s' is not true/false/1/0", vramest_status_string(VRAMEST_E_TYPE),
                               key, val);
        how = AS_I64;
    }
    switch (handle) {
    case VRAMEST_HANDLE_MODEL:
        rc = how == AS_I64 ? vramest_model_set_i64(h->m, opt, i)
             : how == AS_F64 ? vramest_model_set_f64(h->m, opt, d)
                             : vramest_model_set_str(h->m, opt, val);
        break;
    case VRAMEST_HANDLE_PRECISION:
        rc = how == AS_I64 ? vramest_precision_set_i64(h->p, opt, i)
             : how == AS_F64 ? vramest_precision_set_f64(h->p, opt, d)
                             : vramest_precision_set_str(h->p, opt, val);
        break;
    default:
        rc = how == AS_I64 ? vramest_config_set_i64(h->c, opt, i)
             : how == AS_F64 ? vramest_config_set_f64(h->c, opt, d)
                             : vramest_config_set_str(h->c, opt, val);
        break;
    }
    return rc ? lib_error(rc) : 0;
}

/* ---- subcommands ---- */

static void print_number(double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        printf("%.0f", v);
    else
        printf("%g", v);
}

static int cmd_options(void)
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

static void print_count(uint64_t v)
{
    char digits[32], out[48];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    fputs(out, stdout);
}

static int cmd_models(void)
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

static int cmd_gpus(void)
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

/* ---- output ---- */

static double gib(uint64_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }
static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

static uint64_t value_or_zero(const vramest_result *r, vramest_value key, int *ok)
{
    uint64_t v = 0;
    int rc = vramest_result_value(r, key, &v);
    if (ok) *ok = rc == VRAMEST_OK;
    return rc == VRAMEST_OK ? v : 0;
}

static void print_row(const char *label, uint64_t bytes, uint64_t lo, uint64_t hi, const char *prov)
{
    printf("  %-18s %10.3f %12.1f   %9.3f .. %-9.3f  %s\n", label, gib(bytes), mib(bytes), gib(lo), gib(hi),
           prov ? prov : "");
}

static void print_device(const vramest_result *r, vramest_device dev, int all)
{
    uint32_t n = vramest_category_count();
    for (uint32_t c = 0; c < n; c++) {
        uint64_t b = 0, lo = 0, hi = 0;
        int prov = 0;
        if (vramest_result_get(r, dev, (vramest_category)c, &b) != VRAMEST_OK) continue;
        if (!all && b == 0) continue;
        if (vramest_result_get_band(r, dev, (vramest_category)c, &lo, &hi) != VRAMEST_OK) lo = hi = b;
        if (vramest_result_provenance(r, dev, (vramest_category)c, &prov) != VRAMEST_OK) prov = 0;
        print_row(vramest_category_name((vramest_category)c), b, lo, hi,
                  vramest_provenance_name((vramest_provenance)prov));
    }
}

static int print_table(const vramest_result *r)
{
    uint64_t total = value_or_zero(r, VRAMEST_VAL_PARAMS_TOTAL, NULL);
    uint64_t trainable = value_or_zero(r, VRAMEST_VAL_PARAMS_TRAINABLE, NULL);
    int ok_active;
    uint64_t active = value_or_zero(r, VRAMEST_VAL_PARAMS_ACTIVE, &ok_active);
    printf("parameters: ");
    print_count(total);
    printf(" total, ");
    print_count(trainable);
    printf(" trainable");
    if (ok_active && active && active != total) {
        printf(", ");
        print_count(active);
        printf(" active per token");
    }
    printf("\n");
    int ok_ckpt;
    uint64_t ckpt = value_or_zero(r, VRAMEST_VAL_CHECKPOINT_BYTES, &ok_ckpt);
    if (ok_ckpt && ckpt) printf("checkpoint: %.3f GiB\n", gib(ckpt));

    int ok_phase;
    uint64_t phase = value_or_zero(r, VRAMEST_VAL_PEAK_PHASE, &ok_phase);
    const char *pname = ok_phase ? vramest_phase_name((vramest_phase)phase) : NULL;
    printf("\nGPU (each GPU, the worst rank)%s%s\n", pname ? ", peak during " : "", pname ? pname : "");
    printf("  %-18s %10s %12s   %-21s  %s\n", "category", "GiB", "MiB", "band (GiB)", "provenance");
    print_device(r, VRAMEST_DEV_GPU, 1);
    static const vramest_value heads[] = {VRAMEST_VAL_PEAK_ALLOCATED, VRAMEST_VAL_PEAK_RESERVED,
                                          VRAMEST_VAL_DEVICE_TOTAL};
    printf("  %s\n", "------------------");
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        uint64_t b = value_or_zero(r, heads[i], NULL), lo = b, hi = b;
        if (vramest_result_value_band(r, heads[i], &lo, &hi) != VRAMEST_OK) lo = hi = b;
        print_row(vramest_value_name(heads[i]), b, lo, hi, NULL);
    }
    int ok_load;
    uint64_t load_peak = value_or_zero(r, VRAMEST_VAL_LOAD_PEAK, &ok_load);
    if (ok_load && load_peak) printf("  %-18s %10.3f %12.1f   (transient, while loading)\n", "load_peak",
                                     gib(load_peak), mib(load_peak));

    static const struct {
        vramest_device dev;
        vramest_value total;
        const char *title;
    } others[] = {{VRAMEST_DEV_HOST, VRAMEST_VAL_HOST_TOTAL, "host RAM"}, {VRAMEST_DEV_NVME, VRAMEST_VAL_NVME_TOTAL, "NVMe"}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        uint64_t t = value_or_zero(r, others[i].total, NULL);
        if (!t) continue;
        printf("\n%s: %.3f GiB\n", others[i].title, gib(t));
        print_device(r, others[i].dev, 0);
    }

    int ok_pool, ok_blocks, ok_tokens;
    uint64_t pool = value_or_zero(r, VRAMEST_VAL_KV_POOL_BYTES, &ok_pool);
    uint64_t blocks = value_or_zero(r, VRAMEST_VAL_KV_BLOCKS, &ok_blocks);
    uint64_t tokens = value_or_zero(r, VRAMEST_VAL_MAX_TOKENS, &ok_tokens);
    if ((ok_pool && pool) || (ok_blocks && blocks) || (ok_tokens && tokens)) {
        printf("\nserving: KV pool %.3f GiB, %llu blocks, %llu tokens\n", gib(pool), (unsigned long long)blocks,
               (unsigned long long)tokens);
    }

    int exit_code = EXIT_FITS, ok_fits;
    uint64_t cap = value_or_zero(r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    uint64_t fits = value_or_zero(r, VRAMEST_VAL_FITS, &ok_fits);
    if (ok_fits) {
        uint64_t dt = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL);
        if (fits) {
            printf("\nfits: yes, %.3f GiB of %.3f GiB (margin %.3f GiB)\n", gib(dt), gib(cap), gib(cap - dt));
        } else {
            printf("\nfits: NO, %.3f GiB needed on a %.3f GiB device (short by %.3f GiB)\n", gib(dt), gib(cap),
                   gib(dt - cap));
            exit_code = EXIT_NOFIT;
        }
    } else {
        printf("\nfits: no device given (--device or \"device\" in the spec)\n");
    }

    uint32_t nw = vramest_result_warning_count(r);
    if (nw) printf("\nwarnings:\n");
    for (uint32_t i = 0; i < nw; i++) {
        const char *w = vramest_result_warning(r, i);
        if (w) printf("  - %s\n", w);
    }
    return exit_code;
}

/* The plan through the library's buffer protocol. */
static int print_json(const vramest_result *r, const char *spec, size_t spec_len)
{
    size_t cap = 1 << 14, needed = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        char *buf = malloc(cap);
        if (!buf) {
            fputs("vramest: out of memory\n", stderr);
            return EXIT_BAD;
        }
        int rc = r ? vramest_result_json(r, buf, cap, &needed) : vramest_spec_plan(spec, spec_len, buf, cap, &needed);
        if (rc == VRAMEST_OK) {
            fputs(buf, stdout);
            if (!*buf || buf[strlen(buf) - 1] != '\n') fputc('\n', stdout);
            free(buf);
            return EXIT_FITS;
        }
        free(buf);
        if (rc != VRAMEST_E_BUFFER_TOO_SMALL) return lib_error(rc);
        if (needed <= cap) break;
        cap = needed;
    }
    fputs("vramest: internal error: the plan kept growing\n", stderr);
    return EXIT_BAD;
}

static int run_spec(const char *path, int json)
{
    char *spec = NULL;
    size_t len = 0;
    int rc = read_input(path, &spec, &len);
    if (rc) return rc;
    if (json) {
        rc = print_json(NULL, spec, len);
        free(spec);
        return rc;
    }
    /* The table needs the result handle; the plan call first makes sure the
     * spec is answered as a whole (a "solve" question is never dropped). */
    size_t needed = 0;
    int lrc = vramest_spec_plan(spec, len, NULL, 0, &needed);
    if (lrc != VRAMEST_E_BUFFER_TOO_SMALL) {
        free(spec);
        return lib_error(lrc == VRAMEST_OK ? VRAMEST_E_INTERNAL : lrc);
    }
    handles h = {NULL, NULL, NULL};
    vramest_result *r = NULL;
    lrc = vramest_spec_parse(spec, len, &h.m, &h.p, &h.c);
    free(spec);
    if (!lrc) lrc = vramest_estimate(h.m, h.p, h.c, &r);
    rc = lrc ? lib_error(lrc) : print_table(r);
    vramest_result_free(r);
    vramest_model_free(h.m);
    vramest_precision_free(h.p);
    vramest_config_free(h.c);
    return rc;
}

static int load_model(const char *what, vramest_model **out)
{
    int rc = vramest_model_new_preset(what, out);
    if (rc == VRAMEST_OK) return 0;
    struct stat st;
    if (rc != VRAMEST_E_UNKNOWN_NAME || stat(what, &st) != 0) return lib_error(rc);
    /* Not a preset but a file or directory: let the library detect what it is. */
    if ((rc = vramest_model_new(out))) return lib_error(rc);
    if ((rc = vramest_model_parse_file(*out, VRAMEST_SRC_AUTO, what))) return lib_error(rc);
    return 0;
}

static int run_model(const char *model, const char *precision, const char *device, char **sets, int nsets, int json)
{
    handles h = {NULL, NULL, NULL};
    vramest_result *r = NULL;
    int rc = load_model(model, &h.m), lrc;
    if (!rc) {
        lrc = precision ? vramest_precision_new_preset(precision, &h.p) : vramest_precision_new(&h.p);
        if (!lrc) lrc = vramest_config_new(&h.c);
        if (!lrc && device) lrc = vramest_config_set_str(h.c, VRAMEST_CFG_DEVICE, device);
        if (lrc) rc = lib_error(lrc);
    }
    for (int i = 0; !rc && i < nsets; i++) rc = set_option(&h, sets[i]);
    if (!rc) {
        lrc = vramest_estimate(h.m, h.p, h.c, &r);
        if (lrc)
            rc = lib_error(lrc);
        else
            rc = json ? print_json(r, NULL, 0) : print_table(r);
    }
    vramest_result_free(r);
    vramest_model_free(h.m);
    vramest_precision_free(h.p);
    vramest_config_free(h.c);
    return rc;
}

/* "--opt value" or "--opt=value". */
static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
    size_t l = strlen(opt);
    if (strncmp(argv[*i], opt, l) != 0) return NULL;
    if (argv[*i][l] == '=') return argv[*i] + l + 1;
    if (argv[*i][l] != '\0') return NULL;
    if (*i + 1 >= argc) return "";
    return argv[++*i];
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *model = NULL, *precision = NULL, *device = NULL, *command = NULL;
    int json = 0, nsets = 0;
    char **sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets) return EXIT_BAD;
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = EXIT_FITS;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            printf("vramest %s (libvramest %s)\n", VRAMEST_VERSION_STRING, vramest_version_string());
            rc = EXIT_FITS;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if ((v = opt_value(argc, argv, &i, "--spec"))) {
            spec = v;
        } else if ((v = opt_value(argc, argv, &i, "--model"))) {
            model = v;
        } else if ((v = opt_value(argc, argv, &i, "--precision"))) {
            precision = v;
        } else if ((v = opt_value(argc, argv, &i, "--device"))) {
            device = v;
        } else if ((v = opt_value(argc, argv, &i, "--set"))) {
            sets[nsets++] = (char *)v;
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = usage_error("unknown argument '%s'", a);
        } else if (!command && (!strcmp(a, "options") || !strcmp(a, "models") || !strcmp(a, "gpus"))) {
            command = a;
        } else {
            rc = usage_error("unexpected argument '%s'", a);
        }
    }
    if (rc < 0) {
        if ((spec && !*spec) || (model && !*model) || (precision && !*precision) || (device && !*device))
            rc = usage_error("an option is missing its value");
        else if (command && (spec || model || precision || device || nsets))
            rc = usage_error("'%s' takes no other arguments", command);
        else if (command)
            rc = !strcmp(command, "options") ? cmd_options() : !strcmp(command, "models") ? cmd_models() : cmd_gpus();
        else if (spec && (model || precision || device || nsets))
            rc = usage_error("--spec cannot be combined with --model, --precision, --device or --set "
                             "(put them in the spec)");
        else if (spec)
            rc = run_spec(spec, json);
        else if (model)
            rc = run_model(model, precision, device, sets, nsets, json);
        else if (precision || device || nsets)
            rc = usage_error("--precision, --device and --set need --model");
        else
            rc = usage_error("nothing to do: give --spec FILE or --model NAME");
    }
    free(sets);
    if (fflush(stdout) != 0 && rc != EXIT_BAD) {
        fprintf(stderr, "vramest: i/o error: cannot write the output: %s\n", strerror(errno));
        rc = EXIT_BAD;
    }
    return rc;
}
