/* A scheduler admission filter: reads job specs as JSON Lines on stdin and
 * prints one verdict per job,
 *
 *   accept <id> needs <bytes> of <bytes> (margin <bytes>)
 *   reject <id> <reason>
 *
 * A line is a job spec, or {"id": "...", "spec": {...}}. Parsed models are
 * cached by the text of their "model" member, so a stream of jobs on the
 * same few models parses each model once; each job then only reads its
 * precision and workload (vramest_spec_parse with a NULL model). At the end
 * it prints jobs per second on stderr. Exit status 0, or 2 on I/O errors. */
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vramest/vramest.h>

#define CACHE_SLOTS 64

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

static void gib(char *buf, size_t cap, double bytes)
{
    snprintf(buf, cap, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

static void judge(model_cache *mc, const char *line, long lineno)
{
    char id[128];
    snprintf(id, sizeof id, "line-%ld", lineno);
    json_object *root = json_tokener_parse(line);
    if (!root || !json_object_is_type(root, json_type_object)) {
        printf("reject %s malformed JSON line\n", id);
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
        printf("reject %s the job spec has no \"model\"\n", id);
        json_object_put(root);
        return;
    }
    const char *spec_text = json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PLAIN);
    const cached *m = model_for(mc, json_object_to_json_string_ext(model_member, JSON_C_TO_STRING_PLAIN));
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    int rc = m->status;
    if (rc) {
        printf("reject %s model: %s\n", id, m->error);
    } else if ((rc = vramest_spec_parse(spec_text, strlen(spec_text), NULL, &p, &c))) {
        printf("reject %s %s: %s\n", id, vramest_status_string(rc), vramest_last_error_message());
    } else {
        vramest_result *r = NULL;
        uint64_t total = 0, capacity = 0;
        int fits = 0;
        if ((rc = vramest_estimate(m->model, p, c, &r)) ||
            (rc = vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &total)) ||
            (rc = vramest_result_value(r, VRAMEST_VAL_DEVICE_CAPACITY, &capacity))) {
            printf("reject %s %s: %s\n", id, vramest_status_string(rc), vramest_last_error_message());
        } else if (!capacity) {
            printf("reject %s no device in the spec: cannot admit a job without a GPU size\n", id);
        } else {
            char need[32], have[32], margin[32];
            fits = total <= capacity;
            gib(need, sizeof need, (double)total);
            gib(have, sizeof have, (double)capacity);
            gib(margin, sizeof margin, fits ? (double)(capacity - total) : (double)(total - capacity));
            if (fits)
                printf("accept %s needs %s of %s (margin %s)\n", id, need, have, margin);
            else
                printf("reject %s needs %s per GPU, the device has %s (short by %s)\n", id, need, have, margin);
        }
        vramest_result_free(r);
    }
    vramest_precision_free(p);
    vramest_config_free(c);
    json_object_put(root);
}

int main(void)
{
    static model_cache mc; /* large; zero-initialised */
    char *line = NULL;
    size_t cap = 0;
    long n = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (getline(&line, &cap, stdin) > 0) {
        if (line[0] == '\n' || line[0] == '#') continue;
        judge(&mc, line, ++n);
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
