/* The plan JSON: fetched from the library (grown until it fits), and read
 * with json-c for what only the plan holds (the step timeline, a solver's
 * answer, the echoed settings); the bytes come from the result's getters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Where a plan comes from: a result, a spec's text, or handles and a question. */
typedef struct source {
    const vramest_result *r;
    const char *spec;
    size_t len;
    const handles *h;
    question q;
} source;

static int fill(const source *s, char *buf, size_t cap, size_t *needed)
{
    if (s->r) return vramest_result_json(s->r, buf, cap, needed);
    if (s->h) return vramest_plan_json(s->h->m, s->h->p, s->h->c, s->q.kind, s->q.key, buf, cap, needed);
    return vramest_spec_plan(s->spec, s->len, buf, cap, needed);
}

static char *fetch(const source *s)
{
    size_t cap = 1 << 14, needed = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        char *buf = malloc(cap);
        if (!buf) {
            fputs("vramest: out of memory\n", stderr);
            return NULL;
        }
        int rc = fill(s, buf, cap, &needed);
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

char *plan_text(const vramest_result *r, const char *spec, size_t spec_len)
{
    source s = {r, spec, spec_len, NULL, {VRAMEST_ASK_NONE, (vramest_option)0}};
    return fetch(&s);
}

char *plan_of(const handles *h, question q)
{
    source s = {NULL, NULL, 0, h, q};
    return fetch(&s);
}

int print_plan(const char *text)
{
    fputs(text, stdout);
    if (!*text || text[strlen(text) - 1] != '\n') fputc('\n', stdout);
    return EXIT_FITS;
}

/* A member by dotted path ("settings.workload.mode"), or NULL. */
json_object *jget(json_object *o, const char *path)
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

const char *jstr(json_object *o, const char *path)
{
    json_object *v = jget(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

json_object *parse_plan(const char *text)
{
    json_object *plan = json_tokener_parse(text);
    if (!plan) fputs("vramest: internal error: the library's plan is not JSON\n", stderr);
    return plan;
}

/* The device's name as the plan echoes it, or NULL (none, or only a size). */
const char *plan_device(json_object *plan)
{
    const char *d = jstr(plan, "settings.device.device");
    return d && *d ? d : NULL;
}

/* "llama-2-7b · train · bf16 · A100-80GB" for headings. */
void describe(json_object *plan, const char *model_arg, int with_precision, char *buf, size_t cap)
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

/* The plan's "timeline" (phase, layer, allocated, label per point). The
 * strings stay owned by `plan`. */
vc_point *plan_timeline(json_object *plan, size_t *out_n)
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
