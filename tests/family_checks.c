/* What every family's tests check (family_checks.h). */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family_checks.h"
#include "helpers.h"
#include "io/files.h"
#include "model/hf_config.h"
#include "model/model.h"

void zoo_each(const char *file, zoo_fn fn, void *arg)
{
    size_t len;
    char *buf = vt_read_data(file, &len);
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_object *c = json_tokener_parse(line);
        cr_assert(c, "%s: a line is not JSON", file);
        json_object *id, *want, *spec, *model, *cfg, *mis;
        cr_assert(json_object_object_get_ex(c, "id", &id) && json_object_object_get_ex(c, "measured_bytes", &want) &&
                  json_object_object_get_ex(c, "spec", &spec) && json_object_object_get_ex(spec, "model", &model) &&
                  json_object_object_get_ex(model, "hf_config", &cfg));
        /* A case the copy marks "misspecified" (its figure is not the count
         * of the config it gives; the marker says why) wants the count of
         * that config. */
        if (json_object_object_get_ex(c, "misspecified", &mis))
            cr_assert(json_object_object_get_ex(mis, "count", &want), "%s: misspecified without a count",
                      json_object_get_string(id));
        const char *text = json_object_to_json_string(cfg);
        vramest_model *m = NULL;
        uint64_t got = 0;
        cr_assert_eq(vramest_model_new(&m), VRAMEST_OK);
        /* the generic decoder's count is approximate by design */
        if (vx_parse_hf_config(m, text, strlen(text)) == VRAMEST_OK && !m->shape.fam->generic)
            cr_assert_eq(vramest_model_param_count(m, &got, NULL), VRAMEST_OK);
        vramest_model_free(m);
        fn(json_object_get_string(id), got, (uint64_t)json_object_get_int64(want), arg);
        json_object_put(c);
    }
    free(buf);
}

static void exact_when_read(const char *id, uint64_t got, uint64_t want, void *arg)
{
    int *read = arg;
    if (!got) return;
    (*read)++;
    cr_expect_eq(got, want, "%s: %llu parameters, the checkpoint has %llu", id, (unsigned long long)got,
                 (unsigned long long)want);
}

int zoo_exact_when_read(const char *file)
{
    int read = 0;
    zoo_each(file, exact_when_read, &read);
    return read;
}

char *zoo_config(const char *id, const char *drop)
{
    static const char *const files[] = {"zoo.jsonl", "zoo2.jsonl"};
    for (size_t f = 0; f < 2; f++) {
        char *buf = vt_read_data(files[f], NULL);
        char *save = NULL, *out = NULL;
        for (char *line = strtok_r(buf, "\n", &save); line && !out; line = strtok_r(NULL, "\n", &save)) {
            json_object *c = json_tokener_parse(line), *v, *spec, *model, *cfg;
            if (c && json_object_object_get_ex(c, "id", &v) && !strcmp(json_object_get_string(v), id) &&
                json_object_object_get_ex(c, "spec", &spec) && json_object_object_get_ex(spec, "model", &model) &&
                json_object_object_get_ex(model, "hf_config", &cfg)) {
                if (drop) json_object_object_del(cfg, drop);
                out = strdup(json_object_to_json_string_ext(cfg, JSON_C_TO_STRING_PLAIN));
            }
            json_object_put(c);
        }
        free(buf);
        if (out) return out;
    }
    cr_assert_fail("no zoo case %s", id);
    return NULL;
}

typedef struct zoo_want {
    const char *id;
    int seen;
} zoo_want;

static void must_be_read(const char *id, uint64_t got, uint64_t want, void *arg)
{
    zoo_want *w = arg;
    if (strcmp(id, w->id)) return;
    w->seen = 1;
    cr_assert_eq(got, want, "%s: %llu parameters, the checkpoint has %llu", id, (unsigned long long)got,
                 (unsigned long long)want);
}

void zoo_exact_in(const char *file, const char *id)
{
    zoo_want w = {id, 0};
    zoo_each(file, must_be_read, &w);
    cr_assert(w.seen, "no case %s in %s", id, file);
}

void zoo_exact(const char *id)
{
    zoo_exact_in("zoo.jsonl", id);
}

vramest_model *preset(const char *name)
{
    vramest_model *m = NULL;
    cr_assert_eq(vramest_model_new_preset(name, &m), VRAMEST_OK, "%s: %s", name, vramest_last_error_message());
    return m;
}

vramest_result *estimate(const char *spec)
{
    vramest_model *m = NULL;
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    cr_assert_eq(vramest_spec_parse(spec, strlen(spec), &m, &p, &c), VRAMEST_OK, "%s: %s", spec,
                 vramest_last_error_message());
    cr_assert_eq(vramest_estimate(m, p, c, &r), VRAMEST_OK, "%s: %s", spec, vramest_last_error_message());
    vramest_model_free(m);
    vramest_precision_free(p);
    vramest_config_free(c);
    return r;
}

uint64_t category(const vramest_result *r, int cat)
{
    uint64_t v = 0;
    cr_assert_eq(vramest_result_get(r, VRAMEST_DEV_GPU, (vramest_category)cat, &v), VRAMEST_OK);
    return v;
}

vramest_result *estimate_model(const char *model, const char *rest)
{
    size_t cap = strlen(model) + strlen(rest) + 32;
    char *spec = malloc(cap);
    cr_assert_not_null(spec);
    snprintf(spec, cap, "{\"model\":%s,%s}", model, rest);
    vramest_result *r = estimate(spec);
    free(spec);
    return r;
}

/* A category of one prefill of a job spec's model value. */
static uint64_t prefill_of(const char *model, const char *framework, int64_t batch, int64_t tokens, int cat)
{
    char rest[256];
    snprintf(rest, sizeof rest,
             "\"precision\":\"bf16\",\"device\":\"H100-80GB\",\"runtime\":{\"framework\":\"%s\"},"
             "\"workload\":{\"mode\":\"infer\",\"batch_size\":%lld,\"prompt_len\":%lld,\"gen_len\":1}",
             framework, (long long)batch, (long long)tokens);
    vramest_result *r = estimate_model(model, rest);
    uint64_t v = category(r, cat);
    vramest_result_free(r);
    return v;
}

uint64_t kv_bytes_of(const char *model, const char *framework, int64_t batch, int64_t tokens)
{
    return prefill_of(model, framework, batch, tokens, VRAMEST_CAT_KV_CACHE);
}

uint64_t prefill_category(const char *model, const char *framework, int64_t batch, int64_t tokens, int cat)
{
    char quoted[160];
    snprintf(quoted, sizeof quoted, "\"%s\"", model);
    return prefill_of(quoted, framework, batch, tokens, cat);
}

uint64_t kv_bytes(const char *model, const char *framework, int64_t batch, int64_t tokens)
{
    return prefill_category(model, framework, batch, tokens, VRAMEST_CAT_KV_CACHE);
}

void trains_model(const char *model, const char *what)
{
    vramest_result *r = estimate_model(model, "\"precision\":\"bf16\",\"device\":\"H100-80GB\","
                                              "\"workload\":{\"mode\":\"train\",\"batch_size\":2,\"seq_len\":1024,"
                                              "\"finetune\":\"lora\",\"lora_targets\":\"all-linear\"}");
    uint64_t peak = 0;
    cr_assert_eq(vramest_result_value(r, VRAMEST_VAL_PEAK_ALLOCATED, &peak), VRAMEST_OK);
    uint64_t w = category(r, VRAMEST_CAT_WEIGHTS), act = category(r, VRAMEST_CAT_ACTIVATIONS);
    cr_assert_gt(act, 0, "%s: no activations", what);
    cr_assert_gt(peak, w + act / 2, "%s: peak %llu", what, (unsigned long long)peak);
    vramest_result_free(r);
}

void trains(const char *model)
{
    char quoted[160];
    snprintf(quoted, sizeof quoted, "\"%s\"", model);
    trains_model(quoted, model);
}

void names_read_as(const named_role *nr, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        vx_tensor t;
        vx_name_info ni;
        memset(&t, 0, sizeof t);
        vx_classify_name(nr[i].name, false, &t, &ni);
        cr_assert_eq(t.role, nr[i].role, "%s: role %d, want %d", nr[i].name, t.role, nr[i].role);
        cr_assert_str_eq(t.name, nr[i].leaf, "%s", nr[i].name);
    }
}
