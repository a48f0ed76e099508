/* A scheduler admission filter: reads job specs as JSON Lines on stdin and
 * prints one decision per job,
 *
 *   accept <id> fits: needs 13.04 GiB (band 13.03-14.24) of 80.00 GiB, margin 66.96 GiB
 *   accept <id> fits_low_end: <why>
 *   reject <id> does_not_fit: <why>
 *   reject <id> error: <reason>
 *
 * where <why> is the plan's sentence: what the job needs against the usable
 * memory, the dominant categories and the one change that makes it fit
 * (vramest_plan_json, "why"."text"). A job that fits only at the low end of
 * its band is accepted unless --strict is given. With --json each decision
 * is one JSON object instead:
 *
 *   {"id":..,"decision":"accept"|"reject","verdict":"fits"|"fits_low_end"|
 *    "does_not_fit"|null,"needed_bytes":N|null,"band":[lo,hi]|null,
 *    "usable_bytes":N|null,"fix":{..}|null,"text":"..","error":".."|null}
 *
 * (compact, keys in this order, strings escaped as Python's json.dumps with
 * ensure_ascii=False does, so the Python twin prints the same bytes).
 *
 * A line is a job spec, or {"id": "...", "spec": {...}}. Parsed models are
 * cached by the text of their "model" member, so a stream of jobs on the
 * same few models parses each model once; each job then only reads its
 * precision and workload (vramest_spec_parse with a NULL model). At the end
 * it prints jobs per second on stderr. Exit status 0, or 2 on I/O errors or
 * a bad argument. */
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramest/vramest.h>

#define CACHE_SLOTS 64
#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct cached {
    char *key;
    vramest_model *model;
    int status; /* a model that failed to parse is cached as its error */
    char error[256];
} cached;

typedef struct model_cache {
    cached slot[CACHE_SLOTS];
    unsigned next_victim; /* round-robin eviction */
} model_cache;

typedef struct opts {
    int json, strict;
} opts;

static const cached *model_for(model_cache *mc, const char *key)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (mc->slot[i].key && !strcmp(mc->slot[i].key, key)) return &mc->slot[i];
    cached *c = &mc->slot[mc->next_victim++ % CACHE_SLOTS];
    free(c->key);
    vramest_model_free(c->model);
    memset(c, 0, sizeof *c);
    c->key = strdup(key);
    /* The model alone, as a spec: the library reads every model source form. */
    size_t n = strlen(key) + 16;
    char *spec = malloc(n);
    vramest_precision *p = NULL;
    vramest_config *cfg = NULL;
    if (!c->key || !spec) {
        c->status = VRAMEST_E_NOMEM;
        snprintf(c->error, sizeof c->error, "out of memory");
    } else {
        snprintf(spec, n, "{\"model\":%s}", key);
        c->status = vramest_spec_parse(spec, strlen(spec), &c->model, &p, &cfg);
        if (c->status) snprintf(c->error, sizeof c->error, "%s", vramest_last_error_message());
    }
    free(spec);
    vramest_precision_free(p);
    vramest_config_free(cfg);
    return c;
}

/* A JSON string as Python's json.dumps(..., ensure_ascii=False) writes it. */
static void put_str(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\b': fputs("\\b", stdout); break;
        case '\f': fputs("\\f", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (*p < 0x20)
                printf("\\u%04x", *p);
            else
                putchar(*p);
        }
    }
    putchar('"');
}

/* What a decision says about a job: its figures from the result's getters,
 * and for a job that does not fit, the plan's "why" (its sentence and fix). */
typedef struct figures {
    int verdict; /* vramest_verdict */
    uint64_t needed, lo, hi, usable;
    json_object *why; /* owned; NULL when the job fits */
} figures;

static const char *const verdict_names[] = {"does_not_fit", "fits_low_end", "fits"};

/* One decision: `error` when there is no verdict, else `f`. */
static void decide(const opts *o, const char *id, const figures *f, const char *error)
{
    const char *verdict = error ? NULL : verdict_names[f->verdict];
    int accept = !error && (f->verdict == VRAMEST_VERDICT_FITS ||
                            (f->verdict == VRAMEST_VERDICT_FITS_LOW_END && !o->strict));
    json_object *text = NULL, *fix = NULL;
    if (!error && f->why) {
        json_object_object_get_ex(f->why, "text", &text);
        json_object_object_get_ex(f->why, "fix", &fix);
    }
    char line[640];
    if (error)
        snprintf(line, sizeof line, "%s", error);
    else if (text)
        snprintf(line, sizeof line, "%s", json_object_get_string(text));
    else
        snprintf(line, sizeof line, "needs %.2f GiB (band %.2f-%.2f) of %.2f GiB, margin %.2f GiB", f->needed / GIB,
                 f->lo / GIB, f->hi / GIB, f->usable / GIB, f->usable >= f->needed ? (f->usable - f->needed) / GIB : 0.0);
    if (!o->json) {
        printf("%s %s %s: %s\n", accept ? "accept" : "reject", id, error ? "error" : verdict, line);
        return;
    }
    fputs("{\"id\":", stdout);
    put_str(id);
    printf(",\"decision\":\"%s\",\"verdict\":", accept ? "accept" : "reject");
    if (error) {
        fputs("null,\"needed_bytes\":null,\"band\":null,\"usable_bytes\":null,\"fix\":null,\"text\":", stdout);
        put_str(line);
        fputs(",\"error\":", stdout);
        put_str(error);
        fputs("}\n", stdout);
        return;
    }
    put_str(verdict);
    printf(",\"needed_bytes\":%llu,\"band\":[%llu,%llu],\"usable_bytes\":%llu,\"fix\":", (unsigned long long)f->needed,
           (unsigned long long)f->lo, (unsigned long long)f->hi, (unsigned long long)f->usable);
    if (fix && json_object_is_type(fix, json_type_object)) {
        json_object *ft = NULL, *fv = NULL, *fd = NULL;
        json_object_object_get_ex(fix, "text", &ft);
        json_object_object_get_ex(fix, "verdict", &fv);
        json_object_object_get_ex(fix, "device_total", &fd);
        fputs("{\"text\":", stdout);
        put_str(json_object_get_string(ft));
        fputs(",\"verdict\":", stdout);
        put_str(json_object_get_string(fv));
        printf(",\"device_total\":%llu}", (unsigned long long)json_object_get_uint64(fd));
    } else {
        fputs("null", stdout);
    }
    fputs(",\"text\":", stdout);
    put_str(line);
    fputs(",\"error\":null}\n", stdout);
}

/* The "why" object of a plan, parsed alone: the whole plan is a few KiB of
 * settings json-c takes ~200 us to read, the why a few hundred bytes. */
static json_object *why_of(const char *plan)
{
    const char *w = strstr(plan, "\"why\":{");
    if (!w) return NULL;
    json_tokener *tok = json_tokener_new();
    json_object *o = tok ? json_tokener_parse_ex(tok, w + 6, (int)strlen(w + 6)) : NULL;
    json_tokener_free(tok);
    return o;
}

/* The figures of a job against a cached model; non-zero with *error set. */
static int figures_of(const vramest_model *m, const char *spec_text, figures *f, char *error, size_t cap)
{
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    char *buf = NULL;
    uint64_t v = 0, capb = 0, head = 0;
    memset(f, 0, sizeof *f);
    int rc = vramest_spec_parse(spec_text, strlen(spec_text), NULL, &p, &c);
    if (!rc) rc = vramest_estimate(m, p, c, &r);
    if (!rc && vramest_result_value(r, VRAMEST_VAL_VERDICT, &v) != VRAMEST_OK) {
        snprintf(error, cap, "no device in the spec: cannot admit a job without a GPU size");
        rc = 1;
    } else if (!rc) {
        f->verdict = (int)v;
        vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &f->needed);
        vramest_result_value_band(r, VRAMEST_VAL_DEVICE_TOTAL, &f->lo, &f->hi);
        vramest_result_value(r, VRAMEST_VAL_DEVICE_CAPACITY, &capb);
        vramest_result_value(r, VRAMEST_VAL_HEADROOM, &head);
        f->usable = capb > head ? capb - head : 0;
    }
    /* A job that does not fit: the plan says why and names the fix. */
    size_t need = 1 << 14;
    for (int attempt = 0; !rc && f->verdict != VRAMEST_VERDICT_FITS && attempt < 2; attempt++) {
        char *grown = realloc(buf, need);
        if (!grown) {
            rc = VRAMEST_E_NOMEM;
            break;
        }
        buf = grown;
        rc = vramest_plan_json(m, p, c, VRAMEST_ASK_NONE, (vramest_option)0, buf, need, &need);
        if (!rc) {
            f->why = why_of(buf);
            break;
        }
        if (rc == VRAMEST_E_BUFFER_TOO_SMALL && !attempt) rc = VRAMEST_OK;
    }
    if (rc < 0) snprintf(error, cap, "%s: %s", vramest_status_string(rc), vramest_last_error_message());
    free(buf);
    vramest_result_free(r);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}

static void judge(const opts *o, model_cache *mc, const char *line, long lineno)
{
    char id[128], error[512];
    snprintf(id, sizeof id, "line-%ld", lineno);
    json_object *root = json_tokener_parse(line);
    if (!root || !json_object_is_type(root, json_type_object)) {
        decide(o, id, NULL, "malformed JSON line");
        json_object_put(root);
        return;
    }
    json_object *spec = root, *v = NULL;
    if (json_object_object_get_ex(root, "spec", &spec)) {
        if (json_object_object_get_ex(root, "id", &v)) snprintf(id, sizeof id, "%s", json_object_get_string(v));
    } else {
        spec = root;
    }
    json_object *model_member = NULL;
    if (!json_object_is_type(spec, json_type_object) || !json_object_object_get_ex(spec, "model", &model_member)) {
        decide(o, id, NULL, "the job spec has no \"model\"");
        json_object_put(root);
        return;
    }
    const char *spec_text = json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PLAIN);
    const cached *m = model_for(mc, json_object_to_json_string_ext(model_member, JSON_C_TO_STRING_PLAIN));
    figures f;
    memset(&f, 0, sizeof f);
    if (m->status) {
        snprintf(error, sizeof error, "model: %s", m->error);
        decide(o, id, NULL, error);
    } else if (figures_of(m->model, spec_text, &f, error, sizeof error)) {
        decide(o, id, NULL, error);
    } else {
        decide(o, id, &f, NULL);
    }
    json_object_put(f.why);
    json_object_put(root);
}

int main(int argc, char **argv)
{
    opts o = {0, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            o.json = 1;
        else if (!strcmp(argv[i], "--strict"))
            o.strict = 1;
        else {
            fprintf(stderr, "usage: vramest-scheduler [--json] [--strict] < jobs.jsonl\n"
                            "  --json    one JSON object per decision\n"
                            "  --strict  reject jobs that fit only at the low end of their band\n");
            return 2;
        }
    }
    static model_cache mc; /* large; zero-initialised */
    char *line = NULL;
    size_t cap = 0;
    long n = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (getline(&line, &cap, stdin) > 0) {
        if (line[0] == '\n' || line[0] == '#') continue;
        judge(&o, &mc, line, ++n);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(line);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        free(mc.slot[i].key);
        vramest_model_free(mc.slot[i].model);
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    fprintf(stderr, "scheduler: %ld jobs in %.3f s (%.0f jobs/s)\n", n, secs, secs > 0 ? (double)n / secs : 0.0);
    return ferror(stdin) ? 2 : 0;
}
