/* vramest: the command-line front end of libvramest.
 *
 * Deliberately thin: every decision (option names, types, bounds, presets,
 * the job-spec format, the plan JSON) belongs to the library, so the CLI, the
 * Python binding and a scheduler can never disagree. This file only turns
 * argv into library calls and a result into text; vramest_chart.c draws.
 *
 *   vramest --spec FILE|- [--json] [--svg FILE] [--compare ...]
 *   vramest --model NAME|PATH [--precision P] [--device GPU] [--set key=value ...]
 *           [--compare P1,P2,... | --compare-set key=v1,v2,...] [--json] [--svg FILE]
 *   vramest options | models | gpus
 *
 * Exit status: 0 the job fits (or no device was given), 1 it does not fit,
 * 2 bad input or an error. With --json the plan carries the verdict ("fits")
 * and the status is 0 whenever a plan was printed: scripts reading the JSON
 * (such as the accuracy checker) treat any other status as a failed run.
 * A comparison exits 0 when at least one column fits. The same text is in
 * --help and docs/vramest.1; keep the three in step. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>
#include <vramest/vramest.h>

#include "vramest_chart.h"

enum { EXIT_FITS = 0, EXIT_NOFIT = 1, EXIT_BAD = 2 };

/* Refuse absurd input before the library does, so `vramest --spec /dev/zero`
 * cannot eat the machine; the library's own limit (16 MiB) gives the message. */
#define MAX_INPUT_BYTES ((size_t)64 << 20)

/* Columns of one --compare; more would not fit a terminal anyway. */
#define MAX_COLUMNS 16

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
    fputs("usage: vramest --spec FILE|- [--json] [--svg FILE] [--compare ... | --compare-set ...]\n"
          "       vramest --model NAME|PATH [--precision P] [--device GPU] [--set key=value ...]\n"
          "               [--compare P1,P2,... | --compare-set key=v1,v2,...] [--json] [--svg FILE]\n"
          "       vramest options | models | gpus\n"
          "       vramest --help | --version\n"
          "\n"
          "Estimate the GPU (and host / NVMe) memory of a training or inference job.\n"
          "\n"
          "  --spec FILE     read a JSON job spec (docs/guide.md); '-' reads standard input\n"
          "  --model M       a bundled preset (see 'vramest models') or a config.json,\n"
          "                  .safetensors, index .json, .gguf file or model directory\n"
          "  --precision P   a precision preset: fp32, fp16, bf16, amp_fp16, amp_bf16, mixed_bf16,\n"
          "                  mixed_fp16, int8, nf4, fp4, or any dtype name\n"
          "  --device GPU    a GPU preset (see 'vramest gpus'); same as --set device=GPU\n"
          "  --set K=V       set any option (see 'vramest options'); repeatable. A name that\n"
          "                  belongs to two objects is qualified: precision.kv_cache=fp8,\n"
          "                  workload.kv_cache=false\n"
          "  --json          print the plan as JSON (the library's vramest_result_json)\n"
          "  --svg FILE      also write an SVG chart: the GPU breakdown as a stacked bar (one per\n"
          "                  rank group or compared column) against the device, and the step\n"
          "                  timeline (memory allocated at each point of the step)\n"
          "  --compare LIST  one column per precision preset, e.g. fp32,fp16,int8,nf4: every\n"
          "                  category, peak_allocated, peak_reserved, device_total and the verdict\n"
          "                  side by side (a preset replaces --precision and the spec's precision)\n"
          "  --compare-set K=V1,V2,...\n"
          "                  one column per value of an option, e.g. batch_size=1,4,16\n"
          "  -h, --help      this text;  -V, --version  the CLI and library versions\n"
          "\n"
          "  options         every option: name, object, type, default, bounds, description\n"
          "  models          the bundled model presets with their parameter counts\n"
          "  gpus            the bundled GPU presets with their memory\n"
          "\n"
          "The table ends with a stacked bar of the GPU categories; it is coloured only when\n"
          "standard output is a terminal and NO_COLOR is not set. COLUMNS sets its width when\n"
          "the output is not a terminal.\n"
          "\n"
          "Exit status: 0 fits (or no device given), 1 does not fit, 2 bad input or an error.\n"
          "With --json the verdict is the plan's \"fits\" and the status is 0 when a plan is printed.\n"
          "A comparison exits 0 when at least one column fits (or no device is given), else 1.\n",
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

typedef struct out_opts {
    int json;         /* print the plan JSON instead of the table */
    const char *svg;  /* also write an SVG there ("-": instead of the table) */
    int color;        /* ANSI colours in the terminal bar */
    int columns;      /* terminal width */
} out_opts;

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

/* ---- the plan (JSON) ----
 * What only the plan holds (the step timeline, the solver's answer, the
 * echoed settings) is read from it with json-c; the bytes come from getters. */

static char *plan_text(const vramest_result *r, const char *spec, size_t spec_len)
{
    size_t cap = 1 << 14, needed = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        char *buf = malloc(cap);
        if (!buf) {
            fputs("vramest: out of memory\n", stderr);
            return NULL;
        }
        int rc = r ? vramest_result_json(r, buf, cap, &needed) : vramest_spec_plan(spec, spec_len, buf, cap, &needed);
        if (rc == VRAMEST_OK) return buf;
        free(buf);
        if (rc != VRAMEST_E_BUFFER_TOO_SMALL) {
            lib_error(rc);
            return NULL;
        }
        if (needed <= cap) break;
        cap = needed;
    }
    fputs("vramest: internal error: the plan kept growing\n", stderr);
    return NULL;
}

static int print_plan(const char *text)
{
    fputs(text, stdout);
    if (!*text || text[strlen(text) - 1] != '\n') fputc('\n', stdout);
    return EXIT_FITS;
}

/* A member by dotted path ("settings.workload.mode"), or NULL. */
static json_object *jget(json_object *o, const char *path)
{
    char key[64];
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t l = dot ? (size_t)(dot - p) : strlen(p);
        if (l >= sizeof key) return NULL;
        memcpy(key, p, l);
        key[l] = '\0';
        json_object *next = NULL;
        if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &next)) return NULL;
        o = next;
        p = dot ? dot + 1 : p + l;
    }
    return o;
}

static const char *jstr(json_object *o, const char *path)
{
    json_object *v = jget(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static json_object *parse_plan(const char *text)
{
    json_object *plan = json_tokener_parse(text);
    if (!plan) fputs("vramest: internal error: the library's plan is not JSON\n", stderr);
    return plan;
}

/* The device's name as the plan echoes it, or NULL (none, or only a size). */
static const char *plan_device(json_object *plan)
{
    const char *d = jstr(plan, "settings.device.device");
    return d && *d ? d : NULL;
}

/* "llama-2-7b · train · bf16 · A100-80GB" for headings. */
static void describe(json_object *plan, const char *model_arg, int with_precision, char *buf, size_t cap)
{
    const char *name = jstr(plan, "model.name");
    if (!name || !*name) name = model_arg;
    if (!name || !*name) name = jstr(plan, "model.model_type");
    const char *mode = jstr(plan, "settings.workload.mode"), *w = jstr(plan, "settings.precision.weights");
    const char *cpt = jstr(plan, "settings.precision.compute"), *dev = plan_device(plan);
    char prec[96] = "";
    if (with_precision && w) {
        if (cpt && strcmp(cpt, w) && strcmp(cpt, "auto"))
            snprintf(prec, sizeof prec, " \u00b7 %s weights, %s compute", w, cpt);
        else
            snprintf(prec, sizeof prec, " \u00b7 %s", w);
    }
    snprintf(buf, cap, "%s%s%s%s%s%s", name ? name : "model", mode ? " \u00b7 " : "", mode ? mode : "", prec,
             dev ? " \u00b7 " : "", dev ? dev : "");
}

/* ---- bars for the charts ---- */

typedef struct bar_store {
    uint64_t *cats, *lo, *hi;
    const char **prov;
    char label[192];
    vc_bar bar;
} bar_store;

static void bar_free(bar_store *b)
{
    free(b->cats);
    free(b->lo);
    free(b->hi);
    free(b->prov);
    memset(b, 0, sizeof *b);
}

static int bar_alloc(bar_store *b, uint32_t ncat, int bands)
{
    memset(b, 0, sizeof *b);
    b->cats = calloc(ncat ? ncat : 1, sizeof *b->cats);
    if (bands) {
        b->lo = calloc(ncat ? ncat : 1, sizeof *b->lo);
        b->hi = calloc(ncat ? ncat : 1, sizeof *b->hi);
        b->prov = calloc(ncat ? ncat : 1, sizeof *b->prov);
    }
    if (!b->cats || (bands && (!b->lo || !b->hi || !b->prov))) {
        bar_free(b);
        fputs("vramest: out of memory\n", stderr);
        return -1;
    }
    b->bar.cats = b->cats;
    b->bar.lo = b->lo;
    b->bar.hi = b->hi;
    b->bar.prov = b->prov;
    b->bar.label = b->label;
    return 0;
}

/* The result's GPU breakdown (the worst rank) with bands and provenance. */
static int bar_from_result(bar_store *b, const vramest_result *r, const char *label)
{
    uint32_t ncat = vramest_category_count();
    if (bar_alloc(b, ncat, 1)) return -1;
    for (uint32_t c = 0; c < ncat; c++) {
        int prov = 0;
        vramest_result_get(r, VRAMEST_DEV_GPU, (vramest_category)c, &b->cats[c]);
        if (vramest_result_get_band(r, VRAMEST_DEV_GPU, (vramest_category)c, &b->lo[c], &b->hi[c]))
            b->lo[c] = b->hi[c] = b->cats[c];
        if (!vramest_result_provenance(r, VRAMEST_DEV_GPU, (vramest_category)c, &prov))
            b->prov[c] = vramest_provenance_name((vramest_provenance)prov);
    }
    snprintf(b->label, sizeof b->label, "%s", label ? label : "");
    b->bar.peak_allocated = value_or_zero(r, VRAMEST_VAL_PEAK_ALLOCATED, NULL);
    b->bar.peak_reserved = value_or_zero(r, VRAMEST_VAL_PEAK_RESERVED, NULL);
    b->bar.device_total = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL);
    int ok;
    uint64_t fits = value_or_zero(r, VRAMEST_VAL_FITS, &ok);
    b->bar.fits = ok ? (int)fits : -1;
    return 0;
}

/* One rank group of a multi-GPU estimate. */
static int bar_from_rank(bar_store *b, const vramest_result *r, uint32_t group, const char *label,
                         uint64_t capacity)
{
    uint32_t ncat = vramest_category_count();
    if (bar_alloc(b, ncat, 0)) return -1;
    for (uint32_t c = 0; c < ncat; c++) vramest_result_rank_get(r, group, (int)c, &b->cats[c]);
    vramest_result_rank_get(r, group, VRAMEST_RANK_VALUE(VRAMEST_VAL_PEAK_ALLOCATED), &b->bar.peak_allocated);
    vramest_result_rank_get(r, group, VRAMEST_RANK_VALUE(VRAMEST_VAL_PEAK_RESERVED), &b->bar.peak_reserved);
    vramest_result_rank_get(r, group, VRAMEST_RANK_VALUE(VRAMEST_VAL_DEVICE_TOTAL), &b->bar.device_total);
    snprintf(b->label, sizeof b->label, "%s", label);
    b->bar.fits = capacity ? b->bar.device_total <= capacity : -1;
    return 0;
}

static const char **category_names(void)
{
    uint32_t n = vramest_category_count();
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) {
        fputs("vramest: out of memory\n", stderr);
        return NULL;
    }
    for (uint32_t c = 0; c < n; c++) {
        names[c] = vramest_category_name((vramest_category)c);
        if (!names[c]) names[c] = "?";
    }
    return names;
}

/* The plan's "timeline" (phase, layer, allocated, label per point). The
 * strings stay owned by `plan`. */
static vc_point *plan_timeline(json_object *plan, size_t *out_n)
{
    *out_n = 0;
    json_object *tl = jget(plan, "timeline");
    if (!tl || !json_object_is_type(tl, json_type_array)) return NULL;
    size_t n = json_object_array_length(tl);
    vc_point *pts = calloc(n ? n : 1, sizeof *pts);
    if (!pts) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *p = json_object_array_get_idx(tl, i), *v = jget(p, "allocated"), *layer = jget(p, "layer");
        if (!v || !json_object_is_type(v, json_type_int)) continue;
        pts[k].phase = jstr(p, "phase");
        pts[k].label = jstr(p, "label");
        pts[k].layer = layer && json_object_is_type(layer, json_type_int) ? json_object_get_int64(layer) : -1;
        pts[k].allocated = json_object_get_uint64(v);
        k++;
    }
    *out_n = k;
    return pts;
}

static int write_svg(const char *path, const vc_chart *c)
{
    int to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "vramest: i/o error: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_BAD;
    }
    int bad = vc_write_svg(f, c);
    if (!to_stdout && fclose(f) != 0) bad = -1;
    if (bad) {
        fprintf(stderr, "vramest: i/o error: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_BAD;
    }
    return 0;
}

static int use_color(void)
{
    /* Colour only for a person at a terminal, and never against NO_COLOR
     * (set to anything) or a terminal that says it cannot. */
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && !(term && !strcmp(term, "dumb"));
}

static int term_columns(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    const char *env = getenv("COLUMNS");
    long v = env ? strtol(env, NULL, 10) : 0;
    return v >= 20 && v <= 1000 ? (int)v : 80;
}

/* ---- the table of one estimate ---- */

static void print_ranks(const vramest_result *r, const char *const *names, uint64_t capacity, const char *device,
                        const out_opts *o)
{
    uint32_t n = vramest_result_rank_count(r);
    if (n < 2) return;
    bar_store *bs = calloc(n, sizeof *bs);
    vc_bar *bars = calloc(n, sizeof *bars);
    if (!bs || !bars) {
        free(bs);
        free(bars);
        return;
    }
    printf("\nrank groups: %u (GPUs of one group hold the same bytes; the table above is the worst)\n", n);
    printf("  %-4s %6s %15s %14s %13s  %s\n", "", "ranks", "peak_allocated", "peak_reserved", "device_total",
           "group");
    uint32_t made = 0;
    for (uint32_t g = 0; g < n; g++) {
        char tag[16];
        uint64_t ranks = 0;
        snprintf(tag, sizeof tag, "#%u", g + 1);
        if (bar_from_rank(&bs[made], r, g, tag, capacity)) break;
        vramest_result_rank_get(r, g, VRAMEST_RANK_COUNT, &ranks);
        const char *label = vramest_result_rank_label(r, g);
        printf("  %-4s %6llu %15.3f %14.3f %13.3f  %s\n", tag, (unsigned long long)ranks,
               gib(bs[made].bar.peak_allocated), gib(bs[made].bar.peak_reserved), gib(bs[made].bar.device_total),
               label ? label : "");
        bars[made] = bs[made].bar;
        made++;
    }
    printf("\n");
    vc_term_bars(stdout, names, vramest_category_count(), bars, made, capacity, device, o->color, o->columns);
    for (uint32_t g = 0; g < made; g++) bar_free(&bs[g]);
    free(bs);
    free(bars);
}

static void flatten_change(json_object *o, const char *prefix, char *buf, size_t cap)
{
    json_object_object_foreach(o, key, val)
    {
        size_t l = strlen(buf);
        if (json_object_is_type(val, json_type_object)) {
            flatten_change(val, key, buf, cap);
        } else {
            snprintf(buf + l, cap - l, "%s%s%s%s=%s", l ? " " : "", prefix ? prefix : "", prefix ? "." : "", key,
                     json_object_get_string(val));
        }
    }
}

/* A spec's "solve" question, answered in the plan. */
static void print_solution(json_object *plan)
{
    json_object *sol = jget(plan, "solution"), *adv = jget(plan, "advice");
    if (sol && json_object_is_type(sol, json_type_object)) {
        const char *key = jstr(sol, "key"), *reason = jstr(sol, "reason");
        json_object *val = jget(sol, "value");
        if (val && json_object_is_type(val, json_type_int))
            printf("\nsolution: %s = %lld (the %s value that fits the device; the figures above are at it)\n",
                   key ? key : "?", (long long)json_object_get_int64(val),
                   key && !strcmp(key, "gpus") ? "smallest" : "largest");
        else
            printf("\nsolution: no %s fits%s%s\n", key ? key : "value", reason ? ": " : "", reason ? reason : "");
    }
    if (adv && json_object_is_type(adv, json_type_array)) {
        size_t n = json_object_array_length(adv);
        printf("\nadvice (cheapest change first):\n");
        if (!n) printf("  nothing to change\n");
        for (size_t i = 0; i < n; i++) {
            json_object *a = json_object_array_get_idx(adv, i), *ch = jget(a, "change");
            json_object *saves = jget(a, "saves_bytes"), *dt = jget(a, "device_total"), *fits = jget(a, "fits");
            char change[512] = "";
            if (ch && json_object_is_type(ch, json_type_object)) flatten_change(ch, NULL, change, sizeof change);
            printf("  - %-44s saves %8.2f GiB, then %8.2f GiB, %s\n", change,
                   saves ? gib(json_object_get_uint64(saves)) : 0.0, dt ? gib(json_object_get_uint64(dt)) : 0.0,
                   fits && json_object_get_boolean(fits) ? "fits" : "does not fit");
        }
    }
}

static int print_table(const vramest_result *r, json_object *plan, const out_opts *o)
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

    uint64_t cap = value_or_zero(r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    const char **names = category_names();
    bar_store bs;
    if (names && !bar_from_result(&bs, r, NULL)) {
        printf("\n");
        vc_term_bars(stdout, names, vramest_category_count(), &bs.bar, 1, cap, plan_device(plan), o->color,
                     o->columns);
        bar_free(&bs);
        print_ranks(r, names, cap, plan_device(plan), o);
    }
    free(names);

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

    print_solution(plan);

    int exit_code = EXIT_FITS, ok_fits;
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

/* ---- the SVG of one estimate ---- */

static int svg_single(const vramest_result *r, json_object *plan, const char *model_arg, const char *path)
{
    char title[320], sub[512];
    describe(plan, model_arg, 1, title, sizeof title);
    uint64_t cap = value_or_zero(r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    uint64_t dt = value_or_zero(r, VRAMEST_VAL_DEVICE_TOTAL, NULL);
    int ok_fits, ok_phase;
    uint64_t fits = value_or_zero(r, VRAMEST_VAL_FITS, &ok_fits);
    uint64_t phase = value_or_zero(r, VRAMEST_VAL_PEAK_PHASE, &ok_phase);
    size_t l = 0;
    if (ok_fits && fits)
        l = (size_t)snprintf(sub, sizeof sub, "device_total %.2f GiB of %.2f GiB: fits (margin %.2f GiB)", gib(dt),
                             gib(cap), gib(cap - dt));
    else if (ok_fits)
        l = (size_t)snprintf(sub, sizeof sub, "device_total %.2f GiB of %.2f GiB: does not fit (short by %.2f GiB)",
                             gib(dt), gib(cap), gib(dt - cap));
    else
        l = (size_t)snprintf(sub, sizeof sub, "device_total %.2f GiB (no device given)", gib(dt));
    const char *pname = ok_phase ? vramest_phase_name((vramest_phase)phase) : NULL;
    if (pname && l < sizeof sub) l += (size_t)snprintf(sub + l, sizeof sub - l, " \u00b7 peak during %s", pname);
    uint64_t params = value_or_zero(r, VRAMEST_VAL_PARAMS_TOTAL, NULL);
    uint64_t trainable = value_or_zero(r, VRAMEST_VAL_PARAMS_TRAINABLE, NULL);
    if (l < sizeof sub)
        l += (size_t)snprintf(sub + l, sizeof sub - l, " \u00b7 %.2fB parameters, %.2fB trainable", (double)params / 1e9,
                              (double)trainable / 1e9);
    uint64_t host = value_or_zero(r, VRAMEST_VAL_HOST_TOTAL, NULL);
    if (host && l < sizeof sub) snprintf(sub + l, sizeof sub - l, " \u00b7 host RAM %.2f GiB", gib(host));

    const char **names = category_names();
    uint32_t ngroups = vramest_result_rank_count(r), nbars = ngroups >= 2 ? ngroups : 1;
    bar_store *bs = calloc(nbars, sizeof *bs);
    vc_bar *bars = calloc(nbars, sizeof *bars);
    size_t npts = 0;
    vc_point *pts = plan_timeline(plan, &npts);
    int rc = names && bs && bars ? 0 : EXIT_BAD;
    uint32_t made = 0;
    if (!rc && ngroups >= 2) {
        for (; made < ngroups; made++) {
            char label[192];
            uint64_t ranks = 0;
            const char *gl = vramest_result_rank_label(r, made);
            vramest_result_rank_get(r, made, VRAMEST_RANK_COUNT, &ranks);
            snprintf(label, sizeof label, "#%u %s (%llu rank%s)", made + 1, gl ? gl : "",
                     (unsigned long long)ranks, ranks == 1 ? "" : "s");
            if (bar_from_rank(&bs[made], r, made, label, cap)) break;
            bars[made] = bs[made].bar;
        }
    } else if (!rc && !bar_from_result(&bs[0], r, NULL)) {
        bars[made++] = bs[0].bar;
    }
    if (!rc && made == nbars) {
        vc_series s = {NULL, pts, npts, dt};
        vc_chart c = {title, sub,
                      ngroups >= 2 ? "GPU memory at the peak, per rank group" : "GPU memory at the peak (each GPU)",
                      names, vramest_category_count(), bars, made, &s, pts ? 1 : 0, cap, plan_device(plan)};
        rc = write_svg(path, &c);
    } else {
        rc = EXIT_BAD;
    }
    for (uint32_t i = 0; i < made; i++) bar_free(&bs[i]);
    free(bs);
    free(bars);
    free(pts);
    free(names);
    return rc;
}

/* Everything printed for one estimate: the table or the plan JSON, and the
 * SVG. `spec_plan` is the plan of a whole spec (it holds a "solve" answer),
 * NULL to take the result's. */
static int report(const vramest_result *r, const char *spec_plan, const char *model_arg, const out_opts *o)
{
    char *own = NULL;
    if (!spec_plan && !(own = plan_text(r, NULL, 0))) return EXIT_BAD;
    const char *text = spec_plan ? spec_plan : own;
    int rc = EXIT_FITS;
    if (o->json && !o->svg) {
        rc = print_plan(text);
    } else {
        json_object *plan = parse_plan(text);
        if (!plan) rc = EXIT_BAD;
        if (!rc && o->svg) rc = svg_single(r, plan, model_arg, o->svg);
        if (!rc && strcmp(o->svg ? o->svg : "", "-")) rc = o->json ? print_plan(text) : print_table(r, plan, o);
        json_object_put(plan);
    }
    free(own);
    return rc;
}

/* ---- --compare / --compare-set ---- */

typedef struct column {
    char label[64];
    handles h;
    vramest_result *r;
    char *plan;
    json_object *pj;
} column;

static void column_free(column *c)
{
    vramest_result_free(c->r);
    vramest_model_free(c->h.m);
    vramest_precision_free(c->h.p);
    vramest_config_free(c->h.c);
    free(c->plan);
    json_object_put(c->pj);
    memset(c, 0, sizeof *c);
}

static int compare_table(column *cols, int n, const char *key, const char *model_arg, const out_opts *o)
{
    uint32_t ncat = vramest_category_count();
    int cw[MAX_COLUMNS];
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(cols[i].label) + 2;
        cw[i] = l < 11 ? 11 : l;
    }
    char desc[320];
    describe(cols[0].pj, model_arg, strcmp(key, "precision") != 0, desc, sizeof desc);
    printf("%s: by %s (GiB)\n\n  %-18s", desc, key, "");
    for (int i = 0; i < n; i++) printf("%*s", cw[i], cols[i].label);
    printf("\n  %-18s", "trainable params");
    for (int i = 0; i < n; i++) {
        char buf[32];
        uint64_t v = value_or_zero(cols[i].r, VRAMEST_VAL_PARAMS_TRAINABLE, NULL);
        if (v >= 1000000000ULL)
            snprintf(buf, sizeof buf, "%.2fB", (double)v / 1e9);
        else if (v >= 1000000ULL)
            snprintf(buf, sizeof buf, "%.2fM", (double)v / 1e6);
        else
            snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
        printf("%*s", cw[i], buf);
    }
    printf("\n");
    for (uint32_t c = 0; c < ncat; c++) {
        uint64_t v[MAX_COLUMNS];
        int any = 0;
        for (int i = 0; i < n; i++) {
            v[i] = 0;
            vramest_result_get(cols[i].r, VRAMEST_DEV_GPU, (vramest_category)c, &v[i]);
            any |= v[i] != 0;
        }
        if (!any) continue;
        printf("  %-18s", vramest_category_name((vramest_category)c));
        for (int i = 0; i < n; i++) printf("%*.3f", cw[i], gib(v[i]));
        printf("\n");
    }
    printf("  %s\n", "------------------");
    static const vramest_value heads[] = {VRAMEST_VAL_PEAK_ALLOCATED, VRAMEST_VAL_PEAK_RESERVED,
                                          VRAMEST_VAL_DEVICE_TOTAL};
    for (size_t h = 0; h < sizeof heads / sizeof heads[0]; h++) {
        printf("  %-18s", vramest_value_name(heads[h]));
        for (int i = 0; i < n; i++) printf("%*.3f", cw[i], gib(value_or_zero(cols[i].r, heads[h], NULL)));
        printf("\n");
    }
    uint64_t host_any = 0, cap0 = value_or_zero(cols[0].r, VRAMEST_VAL_DEVICE_CAPACITY, NULL), cap_any = 0;
    int same_cap = 1;
    for (int i = 0; i < n; i++) {
        uint64_t cap = value_or_zero(cols[i].r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
        cap_any |= cap;
        same_cap &= cap == cap0;
        host_any |= value_or_zero(cols[i].r, VRAMEST_VAL_HOST_TOTAL, NULL);
    }
    if (host_any) {
        printf("  %-18s", "host RAM");
        for (int i = 0; i < n; i++) printf("%*.3f", cw[i], gib(value_or_zero(cols[i].r, VRAMEST_VAL_HOST_TOTAL, NULL)));
        printf("\n");
    }
    printf("  %-18s", "peak phase");
    for (int i = 0; i < n; i++) {
        int ok;
        uint64_t ph = value_or_zero(cols[i].r, VRAMEST_VAL_PEAK_PHASE, &ok);
        const char *pn = ok ? vramest_phase_name((vramest_phase)ph) : NULL;
        printf("%*s", cw[i], pn ? pn : "-");
    }
    printf("\n");
    int any_fits = 0;
    if (cap_any) {
        printf("  %-18s", "capacity");
        for (int i = 0; i < n; i++)
            printf("%*.3f", cw[i], gib(value_or_zero(cols[i].r, VRAMEST_VAL_DEVICE_CAPACITY, NULL)));
        printf("\n  %-18s", "fits");
        for (int i = 0; i < n; i++) {
            int ok;
            uint64_t f = value_or_zero(cols[i].r, VRAMEST_VAL_FITS, &ok);
            printf("%*s", cw[i], !ok ? "-" : f ? "yes" : "NO");
            any_fits |= ok && f;
        }
        printf("\n");
    } else {
        printf("  %-18s", "fits");
        for (int i = 0; i < n; i++) printf("%*s", cw[i], "-");
        printf("\n");
        any_fits = 1;
    }

    const char **names = category_names();
    bar_store bs[MAX_COLUMNS];
    vc_bar bars[MAX_COLUMNS];
    int made = 0;
    for (; names && made < n; made++) {
        if (bar_from_result(&bs[made], cols[made].r, cols[made].label)) break;
        bars[made] = bs[made].bar;
    }
    if (made == n) {
        printf("\n");
        vc_term_bars(stdout, names, ncat, bars, (size_t)n, same_cap ? cap0 : 0,
                     same_cap ? plan_device(cols[0].pj) : NULL, o->color, o->columns);
    }
    for (int i = 0; i < made; i++) bar_free(&bs[i]);
    free(names);

    int header = 0;
    for (int i = 0; i < n; i++) {
        uint32_t nw = vramest_result_warning_count(cols[i].r);
        for (uint32_t w = 0; w < nw; w++) {
            const char *text = vramest_result_warning(cols[i].r, w);
            if (!text) continue;
            if (!header++) printf("\nwarnings:\n");
            printf("  - [%s] %s\n", cols[i].label, text);
        }
    }
    if (!cap_any) printf("\nfits: no device given (--device or \"device\" in the spec)\n");
    return any_fits ? EXIT_FITS : EXIT_NOFIT;
}

static int compare_json(column *cols, int n, const char *key)
{
    json_object *head = json_object_new_object(), *vals = json_object_new_array();
    if (!head || !vals) {
        json_object_put(head);
        json_object_put(vals);
        fputs("vramest: out of memory\n", stderr);
        return EXIT_BAD;
    }
    json_object_object_add(head, "key", json_object_new_string(key));
    for (int i = 0; i < n; i++) json_object_array_add(vals, json_object_new_string(cols[i].label));
    json_object_object_add(head, "values", vals);
    printf("{\"compare\": %s, \"plans\": [", json_object_to_json_string_ext(head, JSON_C_TO_STRING_PLAIN));
    for (int i = 0; i < n; i++) {
        size_t l = strlen(cols[i].plan);
        while (l && (cols[i].plan[l - 1] == '\n' || cols[i].plan[l - 1] == ' ')) l--;
        printf("%s%.*s", i ? ", " : "", (int)l, cols[i].plan);
    }
    printf("]}\n");
    json_object_put(head);
    return EXIT_FITS;
}

static int compare_svg(column *cols, int n, const char *key, const char *model_arg, const char *path)
{
    char desc[320], title[400];
    describe(cols[0].pj, model_arg, strcmp(key, "precision") != 0, desc, sizeof desc);
    snprintf(title, sizeof title, "%s: by %s", desc, key);
    uint64_t cap0 = value_or_zero(cols[0].r, VRAMEST_VAL_DEVICE_CAPACITY, NULL);
    int same_cap = 1;
    for (int i = 1; i < n; i++) same_cap &= value_or_zero(cols[i].r, VRAMEST_VAL_DEVICE_CAPACITY, NULL) == cap0;
    const char **names = category_names();
    bar_store bs[MAX_COLUMNS];
    vc_bar bars[MAX_COLUMNS];
    vc_series series[MAX_COLUMNS];
    vc_point *pts[MAX_COLUMNS] = {0};
    int made = 0, rc = names ? 0 : EXIT_BAD;
    for (; !rc && made < n; made++) {
        char label[sizeof bs[0].label];
        if (strcmp(key, "precision"))
            snprintf(label, sizeof label, "%.100s=%.63s", key, cols[made].label);
        else
            snprintf(label, sizeof label, "%.63s", cols[made].label);
        if (bar_from_result(&bs[made], cols[made].r, label)) break;
        bars[made] = bs[made].bar;
        size_t np = 0;
        pts[made] = plan_timeline(cols[made].pj, &np);
        series[made] = (vc_series){bs[made].label, pts[made], np, 0};
    }
    if (!rc && made == n) {
        char sub[160];
        snprintf(sub, sizeof sub, "one column per %s%s", key,
                 same_cap ? "" : "; the columns have different devices, so no capacity line is drawn");
        vc_chart c = {title, sub, "GPU memory at the peak (each GPU)", names, vramest_category_count(), bars,
                      (size_t)n, series, pts[0] ? (size_t)n : 0, same_cap ? cap0 : 0,
                      same_cap ? plan_device(cols[0].pj) : NULL};
        rc = write_svg(path, &c);
    } else {
        rc = EXIT_BAD;
    }
    for (int i = 0; i < made; i++) {
        bar_free(&bs[i]);
        free(pts[i]);
    }
    free(names);
    return rc;
}

/* Split "a,b,c" into at most MAX_COLUMNS non-empty items (in place). */
static int split_list(char *list, char **items, const char *what)
{
    int n = 0;
    for (char *p = list;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (!*p) return -usage_error("%s: an empty value in the list", what);
        if (n == MAX_COLUMNS) return -usage_error("%s: at most %d values", what, MAX_COLUMNS);
        if (strlen(p) >= sizeof ((column *)0)->label) return -usage_error("%s: value '%.20s...' is too long", what, p);
        items[n++] = p;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}

/* One estimate per value: `cmp_prec` lists precision presets, `cmp_set` is
 * "key=v1,v2,...". `base` holds the job as given; `sets` are re-applied after
 * each preset so that --set precision options still hold. */
static int run_compare(const handles *base, char **sets, int nsets, const char *cmp_prec, const char *cmp_set,
                       const char *model_arg, const out_opts *o)
{
    char list[1024], key[128] = "precision";
    const char *values = cmp_prec;
    if (cmp_set) {
        const char *eq = strchr(cmp_set, '=');
        if (!eq || eq == cmp_set || !eq[1]) return usage_error("--compare-set expects key=v1,v2,..., got '%s'", cmp_set);
        if ((size_t)(eq - cmp_set) >= sizeof key) return usage_error("--compare-set: the key is too long");
        memcpy(key, cmp_set, (size_t)(eq - cmp_set));
        key[eq - cmp_set] = '\0';
        vramest_option opt;
        int rc = find_option(key, &opt);
        if (rc) return rc;
        values = eq + 1;
    }
    if (strlen(values) >= sizeof list) return usage_error("--compare: the list is too long");
    strcpy(list, values);
    char *items[MAX_COLUMNS];
    int n = split_list(list, items, cmp_set ? "--compare-set" : "--compare");
    if (n < 0) return -n;

    column cols[MAX_COLUMNS];
    memset(cols, 0, sizeof cols);
    int rc = 0;
    for (int i = 0; !rc && i < n; i++) {
        column *c = &cols[i];
        snprintf(c->label, sizeof c->label, "%s", items[i]);
        int lrc = vramest_model_clone(base->m, &c->h.m);
        if (!lrc) lrc = vramest_config_clone(base->c, &c->h.c);
        if (!lrc) lrc = cmp_prec ? vramest_precision_new_preset(items[i], &c->h.p) : vramest_precision_clone(base->p, &c->h.p);
        if (lrc) {
            rc = lib_error(lrc);
            break;
        }
        if (cmp_prec)
            for (int s = 0; !rc && s < nsets; s++) rc = set_option(&c->h, sets[s]);
        if (!rc && cmp_set) {
            char assignment[256];
            snprintf(assignment, sizeof assignment, "%s=%s", key, items[i]);
            rc = set_option(&c->h, assignment);
        }
        if (rc) break;
        if ((lrc = vramest_estimate(c->h.m, c->h.p, c->h.c, &c->r))) {
            fprintf(stderr, "vramest: %s: column %s=%s: %s\n", vramest_status_string(lrc), key, items[i],
                    vramest_last_error_message());
            rc = EXIT_BAD;
            break;
        }
        if (!(c->plan = plan_text(c->r, NULL, 0)) || !(c->pj = parse_plan(c->plan))) rc = EXIT_BAD;
    }
    if (!rc && o->svg) rc = compare_svg(cols, n, key, model_arg, o->svg);
    if (!rc && strcmp(o->svg ? o->svg : "", "-")) rc = o->json ? compare_json(cols, n, key) : compare_table(cols, n, key, model_arg, o);
    for (int i = 0; i < n; i++) column_free(&cols[i]);
    return rc;
}

/* ---- entry points ---- */

/* A spec's plan describes the job at the answer to its "solve" question
 * (the largest batch that fits, the GPU layout found); the table and the
 * chart must describe the same job, so the answer goes into the handles. */
static int at_solution(handles *h, const char *plan_json)
{
    json_object *plan = parse_plan(plan_json);
    if (!plan) return EXIT_BAD;
    json_object *value = jget(plan, "solution.value");
    const char *key = jstr(plan, "solution.key");
    int rc = 0;
    if (key && value && json_object_is_type(value, json_type_int)) {
        /* The smallest GPU count comes with the layout that reached it. */
        static const char *const layout[] = {"gpus", "tp", "pp", "dp", "cp"};
        int gpus = !strcmp(key, "gpus");
        for (size_t i = 0; !rc && i < (gpus ? sizeof layout / sizeof layout[0] : 1); i++) {
            char path[64], assignment[128];
            snprintf(path, sizeof path, "settings.parallel.%s", layout[i]);
            json_object *v = gpus ? jget(plan, path) : value;
            if (!v || !json_object_is_type(v, json_type_int)) continue;
            snprintf(assignment, sizeof assignment, "%s=%lld", gpus ? layout[i] : key,
                     (long long)json_object_get_int64(v));
            rc = set_option(h, assignment);
        }
    }
    json_object_put(plan);
    return rc;
}

static int run_spec(const char *path, const out_opts *o, const char *cmp_prec, const char *cmp_set)
{
    char *spec = NULL;
    size_t len = 0;
    int rc = read_input(path, &spec, &len);
    if (rc) return rc;
    if (cmp_prec || cmp_set) {
        handles h = {NULL, NULL, NULL};
        int lrc = vramest_spec_parse(spec, len, &h.m, &h.p, &h.c);
        if (lrc) {
            rc = lib_error(lrc);
        } else {
            /* A question about one job has no answer per column. */
            json_object *doc = json_tokener_parse(spec);
            if (jget(doc, "solve"))
                rc = usage_error("--compare cannot answer the spec's \"solve\" question: drop one of them");
            else
                rc = run_compare(&h, NULL, 0, cmp_prec, cmp_set, NULL, o);
            json_object_put(doc);
        }
        vramest_model_free(h.m);
        vramest_precision_free(h.p);
        vramest_config_free(h.c);
        free(spec);
        return rc;
    }
    /* The spec's own plan: it answers a "solve" question, which the result
     * handle cannot hold. */
    char *plan = plan_text(NULL, spec, len);
    if (!plan) {
        free(spec);
        return EXIT_BAD;
    }
    if (o->json && !o->svg) {
        free(spec);
        rc = print_plan(plan);
        free(plan);
        return rc;
    }
    handles h = {NULL, NULL, NULL};
    vramest_result *r = NULL;
    int lrc = vramest_spec_parse(spec, len, &h.m, &h.p, &h.c);
    free(spec);
    if (!lrc) rc = at_solution(&h, plan);
    if (!lrc && !rc) lrc = vramest_estimate(h.m, h.p, h.c, &r);
    if (!rc) rc = lrc ? lib_error(lrc) : report(r, plan, NULL, o);
    free(plan);
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

static int run_model(const char *model, const char *precision, const char *device, char **sets, int nsets,
                     const out_opts *o, const char *cmp_prec, const char *cmp_set)
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
    if (!rc && (cmp_prec || cmp_set)) {
        rc = run_compare(&h, sets, nsets, cmp_prec, cmp_set, model, o);
    } else if (!rc) {
        lrc = vramest_estimate(h.m, h.p, h.c, &r);
        rc = lrc ? lib_error(lrc) : report(r, NULL, model, o);
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
    const char *svg = NULL, *cmp_prec = NULL, *cmp_set = NULL;
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
        } else if ((v = opt_value(argc, argv, &i, "--svg"))) {
            svg = v;
        } else if ((v = opt_value(argc, argv, &i, "--compare-set"))) {
            cmp_set = v;
        } else if ((v = opt_value(argc, argv, &i, "--compare"))) {
            cmp_prec = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = usage_error("unknown argument '%s'", a);
        } else if (!command && (!strcmp(a, "options") || !strcmp(a, "models") || !strcmp(a, "gpus"))) {
            command = a;
        } else {
            rc = usage_error("unexpected argument '%s'", a);
        }
    }
    if (rc < 0) {
        out_opts o = {json, svg, use_color(), term_columns()};
        if ((spec && !*spec) || (model && !*model) || (precision && !*precision) || (device && !*device) ||
            (svg && !*svg) || (cmp_prec && !*cmp_prec) || (cmp_set && !*cmp_set))
            rc = usage_error("an option is missing its value");
        else if (command && (spec || model || precision || device || nsets || json || svg || cmp_prec || cmp_set))
            rc = usage_error("'%s' takes no other arguments", command);
        else if (command)
            rc = !strcmp(command, "options") ? cmd_options() : !strcmp(command, "models") ? cmd_models() : cmd_gpus();
        else if (cmp_prec && cmp_set)
            rc = usage_error("--compare and --compare-set cannot be combined: compare one thing at a time");
        else if (cmp_prec && precision)
            rc = usage_error("--compare gives each column its precision preset: drop --precision");
        else if (svg && !strcmp(svg, "-") && json)
            rc = usage_error("--svg - and --json both write to standard output: pick one");
        else if (spec && (model || precision || device || nsets))
            rc = usage_error("--spec cannot be combined with --model, --precision, --device or --set "
                             "(put them in the spec)");
        else if (spec)
            rc = run_spec(spec, &o, cmp_prec, cmp_set);
        else if (model)
            rc = run_model(model, precision, device, sets, nsets, &o, cmp_prec, cmp_set);
        else if (precision || device || nsets || svg || cmp_prec || cmp_set)
            rc = usage_error("--precision, --device, --set, --svg and --compare need --model or --spec");
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
