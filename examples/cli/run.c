/* The ways in (a spec as it is; a spec or a model with flags and a
 * question), and what is printed for one estimate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Everything printed for one estimate: the table or the plan JSON, and the
 * SVG. `spec_plan` is the plan of a whole spec (it holds a "solve" answer),
 * NULL to take the result's. */
int report(const vramest_result *r, const char *spec_plan, const char *model_arg, const out_opts *o)
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

/* ---- entry points ---- */

/* A spec's plan describes the job at the answer to its "solve" question
 * (the largest batch that fits, the GPU layout found); the table and the
 * chart must describe the same job, so the answer goes into the handles. */
int at_solution(handles *h, const char *plan_json)
{
    json_object *plan = parse_plan(plan_json);
    if (!plan) return EXIT_BAD;
    json_object *value = jget(plan, "solution.value");
    const char *key = jstr(plan, "solution.key");
    int rc = 0;
    if (key && value && json_object_is_type(value, json_type_double)) {
        /* a serving engine's share of the GPU, in hundredths */
        char assignment[128];
        snprintf(assignment, sizeof assignment, "%s=%.2f", key, json_object_get_double(value));
        rc = set_option(h, assignment);
    } else if (key && value && json_object_is_type(value, json_type_int)) {
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

int run_spec(const char *path, const out_opts *o, const char *cmp_prec, const char *cmp_set)
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



/* The plan of the job answering `q` (the library's, so it says what a
 * spec would), and the table and chart of the same job: at the answer. */
int plan_and_report(handles *h, question q, const char *model_arg, const out_opts *o)
{
    char *plan = plan_of(h, q);
    if (!plan) return EXIT_BAD;
    vramest_result *r = NULL;
    int rc = o->json && !o->svg ? 0 : at_solution(h, plan);
    if (!rc && o->json && !o->svg) {
        rc = print_plan(plan);
    } else if (!rc) {
        int lrc = vramest_estimate(h->m, h->p, h->c, &r);
        rc = lrc ? lib_error(lrc) : report(r, plan, model_arg, o);
    }
    vramest_result_free(r);
    free(plan);
    return rc;
}

int run_job(const job *j, const out_opts *o)
{
    /* A spec as it is: the library's own plan of it, byte for byte. */
    if (j->spec && !j->precision && !j->device && !j->nsets && !j->max && !j->min && !j->advice &&
        !j->smallest_device)
        return run_spec(j->spec, o, j->cmp_prec, j->cmp_set);
    handles h;
    question q;
    int rc = open_job(j, &h, &q);
    if (rc) return rc;
    if (j->cmp_prec || j->cmp_set) {
        if (q.kind != VRAMEST_ASK_NONE)
            rc = usage_error("--compare cannot answer a question (--max, --min, --advice or the spec's \"solve\"): "
                             "drop one of them");
        else
            rc = run_compare(&h, j->sets, j->nsets, j->cmp_prec, j->cmp_set, j->model, o);
    } else if (j->smallest_device) {
        rc = q.kind != VRAMEST_ASK_NONE
                 ? usage_error("--smallest-device answers its own question: drop the spec's \"solve\"")
                 : run_smallest_device(&h, j->model, o);
    } else {
        rc = plan_and_report(&h, q, j->model, o);
    }
    handles_free(&h);
    return rc;
}
