/* --compare / --compare-set: one estimate per value, side by side as a table,
 * JSON or an SVG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
    /* The best column's verdict is the exit status: fits, then low end. */
    int best = EXIT_NOFIT;
    if (cap_any) {
        printf("  %-18s", "capacity");
        for (int i = 0; i < n; i++)
            printf("%*.3f", cw[i], gib(value_or_zero(cols[i].r, VRAMEST_VAL_DEVICE_CAPACITY, NULL)));
        printf("\n  %-18s", "device_total high");
        for (int i = 0; i < n; i++) {
            uint64_t lo = 0, hi = 0;
            vramest_result_value_band(cols[i].r, VRAMEST_VAL_DEVICE_TOTAL, &lo, &hi);
            printf("%*.3f", cw[i], gib(hi));
        }
        printf("\n  %-18s", "fits");
        for (int i = 0; i < n; i++) {
            int e = exit_for_verdict(cols[i].r);
            printf("%*s", cw[i], e == EXIT_FITS ? "yes" : e == EXIT_LOW_END ? "low end" : "NO");
            if (e == EXIT_FITS || (e == EXIT_LOW_END && best == EXIT_NOFIT)) best = e;
        }
        printf("\n");
    } else {
        printf("  %-18s", "fits");
        for (int i = 0; i < n; i++) printf("%*s", cw[i], "-");
        printf("\n");
        best = EXIT_FITS;
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
    return best;
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
int run_compare(const handles *base, char **sets, int nsets, const char *cmp_prec, const char *cmp_set,
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
        /* The column's plan is the single job's plan, its fix included. */
        if (!(c->plan = plan_of(&c->h, (question){VRAMEST_ASK_NONE, (vramest_option)0})) || !(c->pj = parse_plan(c->plan)))
            rc = EXIT_BAD;
    }
    if (!rc && o->svg) rc = compare_svg(cols, n, key, model_arg, o->svg);
    if (!rc && strcmp(o->svg ? o->svg : "", "-")) rc = o->json ? compare_json(cols, n, key) : compare_table(cols, n, key, model_arg, o);
    for (int i = 0; i < n; i++) column_free(&cols[i]);
    return rc;
}
