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
 * A line is a job spec, or {"id": "...", "spec": {...}} (one "id" and one
 * "spec" at most); blank lines and lines starting with '#' are skipped. A
 * line must be JSON as Python's json.loads reads it (jsonline.h); the spec's
 * own text, as the line spells it, goes to the library, whose reader is
 * strict (duplicate keys, integers beyond 64 bits, ...), so both example
 * schedulers hand it the same bytes. Parsed models are cached by the text of
 * their "model" member, so a stream of jobs on the same few models parses
 * each model once; each job then only reads its precision and workload
 * (vramest_spec_parse with a NULL model). At the end it prints jobs per
 * second on stderr. Exit status 0, or 2 on I/O errors or a bad argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramest/vramest.h>

#include "jsonline.h"

#define CACHE_SLOTS 64
#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct cached {
    char *key;
    size_t key_len;
    vramest_model *model;
    int status;  /* a model that failed to parse is cached as its error */
    char *error; /* "model: <the library's message>" */
} cached;

typedef struct model_cache {
    cached slot[CACHE_SLOTS];
    unsigned next_victim; /* round-robin eviction */
} model_cache;

typedef struct opts {
    int json, strict;
} opts;

static void drop(cached *c)
{
    free(c->key);
    free(c->error);
    vramest_model_free(c->model);
    memset(c, 0, sizeof *c);
}

static void set_error(cached *c, const char *message)
{
    size_t n = strlen(message) + 8;
    c->error = malloc(n);
    if (c->error) snprintf(c->error, n, "model: %s", message);
}

/* The model of a "model" member's text (as the line spells it). */
static const cached *model_for(model_cache *mc, jl_span key)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (mc->slot[i].key && mc->slot[i].key_len == key.n && !memcmp(mc->slot[i].key, key.s, key.n))
            return &mc->slot[i];
    cached *c = &mc->slot[mc->next_victim++ % CACHE_SLOTS];
    drop(c);
    /* The model alone, as a spec: the library reads every model source form. */
    size_t n = key.n + sizeof "{\"model\":}";
    char *spec = malloc(n);
    vramest_precision *p = NULL;
    vramest_config *cfg = NULL;
    if ((c->key = malloc(key.n + 1)) && spec) {
        memcpy(c->key, key.s, key.n);
        c->key_len = key.n;
        int len = snprintf(spec, n, "{\"model\":%.*s}", (int)key.n, key.s);
        c->status = vramest_spec_parse(spec, (size_t)len, &c->model, &p, &cfg);
        if (c->status) set_error(c, vramest_last_error_message());
    } else {
        c->status = VRAMEST_E_NOMEM;
        set_error(c, "out of memory");
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
    char *plan;  /* owned; NULL when the job fits */
    jl_span why; /* in plan; why.n == 0 when there is none */
} figures;

static const char *const verdict_names[] = {"does_not_fit", "fits_low_end", "fits"};

/* A string member of `obj` decoded (malloc'd), or NULL. */
static char *string_member(jl_span obj, const char *name)
{
    jl_span v;
    return jl_member(obj, name, &v) ? jl_string(v) : NULL;
}

/* The fix of a plan's why as the decision writes it: {"text", "verdict",
 * "device_total"}, or null. */
static void put_fix(jl_span why)
{
    jl_span fix, total;
    size_t at = 0;
    jl_span k, v;
    /* A fix with members (Python: `if fix:`), else null. */
    if (!why.n || !jl_member(why, "fix", &fix) || !jl_next(fix, &at, &k, &v)) {
        fputs("null", stdout);
        return;
    }
    char *text = string_member(fix, "text"), *verdict = string_member(fix, "verdict");
    fputs("{\"text\":", stdout);
    put_str(text ? text : "");
    fputs(",\"verdict\":", stdout);
    put_str(verdict ? verdict : "");
    printf(",\"device_total\":%llu}",
           jl_member(fix, "device_total", &total) ? strtoull(total.s, NULL, 10) : 0ull);
    free(text);
    free(verdict);
}

/* One decision: `error` when there is no verdict, else `f`. */
static void decide(const opts *o, const char *id, const figures *f, const char *error)
{
    const char *verdict = error ? NULL : verdict_names[f->verdict];
    int accept = !error && (f->verdict == VRAMEST_VERDICT_FITS ||
                            (f->verdict == VRAMEST_VERDICT_FITS_LOW_END && !o->strict));
    char *why_text = !error && f->why.n ? string_member(f->why, "text") : NULL;
    char sentence[256];
    const char *text = error;
    if (!error && why_text && why_text[0]) {
        text = why_text;
    } else if (!error) {
        snprintf(sentence, sizeof sentence, "needs %.2f GiB (band %.2f-%.2f) of %.2f GiB, margin %.2f GiB",
                 f->needed / GIB, f->lo / GIB, f->hi / GIB, f->usable / GIB,
                 f->usable >= f->needed ? (f->usable - f->needed) / GIB : 0.0);
        text = sentence;
    }
    if (!o->json) {
        printf("%s %s %s: %s\n", accept ? "accept" : "reject", id, error ? "error" : verdict, text);
    } else {
        fputs("{\"id\":", stdout);
        put_str(id);
        printf(",\"decision\":\"%s\",\"verdict\":", accept ? "accept" : "reject");
        if (error) {
            fputs("null,\"needed_bytes\":null,\"band\":null,\"usable_bytes\":null,\"fix\":null,\"text\":", stdout);
        } else {
            put_str(verdict);
            printf(",\"needed_bytes\":%llu,\"band\":[%llu,%llu],\"usable_bytes\":%llu,\"fix\":",
                   (unsigned long long)f->needed, (unsigned long long)f->lo, (unsigned long long)f->hi,
                   (unsigned long long)f->usable);
            put_fix(f->why);
            fputs(",\"text\":", stdout);
        }
        put_str(text);
        fputs(",\"error\":", stdout);
        if (error)
            put_str(error);
        else
            fputs("null", stdout);
        fputs("}\n", stdout);
    }
    free(why_text);
}

/* The figures of a job against a cached model; non-zero with *error set
 * (malloc'd). */
static int figures_of(const vramest_model *m, jl_span spec, figures *f, char **error)
{
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    uint64_t v = 0, capb = 0, head = 0;
    memset(f, 0, sizeof *f);
    *error = NULL;
    int rc = vramest_spec_parse(spec.s, spec.n, NULL, &p, &c);
    if (!rc) rc = vramest_estimate(m, p, c, &r);
    if (!rc && vramest_result_value(r, VRAMEST_VAL_VERDICT, &v) != VRAMEST_OK) {
        *error = strdup("no device in the spec: cannot admit a job without a GPU size");
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
        char *grown = realloc(f->plan, need);
        if (!grown) {
            rc = VRAMEST_E_NOMEM;
            break;
        }
        f->plan = grown;
        rc = vramest_plan_json(m, p, c, VRAMEST_ASK_NONE, (vramest_option)0, f->plan, need, &need);
        jl_span plan;
        if (!rc) {
            if (jl_check(f->plan, strlen(f->plan), &plan) && !jl_member(plan, "why", &f->why)) f->why.n = 0;
            break;
        }
        if (rc == VRAMEST_E_BUFFER_TOO_SMALL && !attempt) rc = VRAMEST_OK;
    }
    if (rc < 0) {
        const char *name = vramest_status_string(rc), *msg = vramest_last_error_message();
        size_t n = strlen(name) + strlen(msg) + 3;
        if ((*error = malloc(n))) snprintf(*error, n, "%s: %s", name, msg);
    }
    vramest_result_free(r);
    vramest_precision_free(p);
    vramest_config_free(c);
    return rc;
}

static void judge(const opts *o, model_cache *mc, const char *line, size_t len, long lineno)
{
    char fallback[32];
    snprintf(fallback, sizeof fallback, "line-%ld", lineno);
    const char *id = fallback;
    char *own_id = NULL, *error = NULL;
    jl_span root, spec, id_value = {NULL, 0}, model, key, v;
    if (!jl_check(line, len, &root) || root.s[0] != '{') {
        decide(o, id, NULL, "malformed JSON line");
        return;
    }
    int specs = 0, ids = 0;
    for (size_t at = 0; jl_next(root, &at, &key, &v);) {
        if (jl_key_is(key, "spec") && !specs++) spec = v;
        if (jl_key_is(key, "id") && !ids++) id_value = v;
    }
    if (!specs) {
        spec = root;
    } else if (specs > 1 || ids > 1) {
        decide(o, id, NULL, "malformed JSON line");
        return;
    } else if (ids) {
        /* A string id as it decodes (one no C string can carry is refused),
         * another value as the line writes it. */
        own_id = id_value.s[0] == '"' ? jl_string(id_value) : strndup(id_value.s, id_value.n);
        if (!own_id) {
            decide(o, id, NULL, "malformed JSON line");
            return;
        }
        id = own_id;
    }
    figures f;
    memset(&f, 0, sizeof f);
    const cached *m = NULL;
    if (spec.s[0] != '{' || !jl_member(spec, "model", &model))
        decide(o, id, NULL, "the job spec has no \"model\"");
    else if ((m = model_for(mc, model))->status)
        decide(o, id, NULL, m->error ? m->error : "model: out of memory");
    else if (figures_of(m->model, spec, &f, &error))
        decide(o, id, NULL, error ? error : "out of memory");
    else
        decide(o, id, &f, NULL);
    free(error);
    free(f.plan);
    free(own_id);
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
    ssize_t got;
    while ((got = getline(&line, &cap, stdin)) > 0) {
        size_t len = (size_t)got;
        if (line[0] == '#' || strspn(line, " \t\r\n") == len) continue;
        judge(&o, &mc, line, len, ++n);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(line);
    for (int i = 0; i < CACHE_SLOTS; i++) drop(&mc.slot[i]);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    fprintf(stderr, "scheduler: %ld jobs in %.3f s (%.0f jobs/s)\n", n, secs, secs > 0 ? (double)n / secs : 0.0);
    return ferror(stdin) ? 2 : 0;
}
