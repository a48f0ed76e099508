/* A job from the command line: a spec or a model, then the flags that
 * override it (--precision, --device, --set: the command line wins over the
 * spec), and the question asked (--max, --min, --advice, or the spec's
 * "solve"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void handles_free(handles *h)
{
    vramest_model_free(h->m);
    vramest_precision_free(h->p);
    vramest_config_free(h->c);
    memset(h, 0, sizeof *h);
}

/* The spec's "solve" member as a question; the library has already checked
 * its shape (vramest_spec_parse). */
static int spec_question(const char *text, question *q)
{
    json_object *doc = json_tokener_parse(text), *solve = jget(doc, "solve");
    int rc = 0;
    if (solve) {
        const char *max = jstr(solve, "max");
        json_object *adv = jget(solve, "advice");
        if (max) {
            int lrc = vramest_option_from_name(max, &q->key);
            q->kind = VRAMEST_ASK_MAX;
            if (lrc) rc = lib_error(lrc);
        } else if (adv && json_object_get_boolean(adv)) {
            q->kind = VRAMEST_ASK_ADVICE;
        }
    }
    json_object_put(doc);
    return rc;
}

/* --max KEY / --min KEY / --advice; at most one. */
static int flag_question(const job *j, question *q)
{
    int asked = (j->max != NULL) + (j->min != NULL) + (j->advice != 0) + (j->smallest_device != 0);
    if (asked > 1) return usage_error("--max, --min, --advice and --smallest-device ask one question each: pick one");
    if (j->min) {
        if (!strcmp(j->min, "gpus"))
            q->key = VRAMEST_CFG_GPUS;
        else if (!strcmp(j->min, "gpu_memory_utilization"))
            q->key = VRAMEST_CFG_GPU_MEMORY_UTILIZATION;
        else if (!strcmp(j->min, "mem_fraction_static"))
            q->key = VRAMEST_CFG_MEM_FRACTION_STATIC;
        else
            return usage_error("--min answers the smallest GPU count ('--min gpus') or a serving engine's share "
                               "of the GPU ('--min gpu_memory_utilization', '--min mem_fraction_static'), not '%s'; "
                               "--max finds the largest value of an option",
                               j->min);
        q->kind = VRAMEST_ASK_MIN;
    } else if (j->max) {
        if (!strcmp(j->max, "gpus"))
            return usage_error("--max gpus: the question is the smallest GPU count that fits, '--min gpus'");
        int rc = find_option(j->max, &q->key);
        if (rc) return rc;
        q->kind = VRAMEST_ASK_MAX;
    } else if (j->advice) {
        q->kind = VRAMEST_ASK_ADVICE;
    }
    return 0;
}

int open_job(const job *j, handles *h, question *q)
{
    memset(h, 0, sizeof *h);
    *q = (question){VRAMEST_ASK_NONE, (vramest_option)0};
    int rc = 0, lrc = 0;
    if (j->spec) {
        char *text = NULL;
        size_t len = 0;
        if ((rc = read_input(j->spec, &text, &len))) return rc;
        lrc = vramest_spec_parse(text, len, &h->m, &h->p, &h->c);
        if (!lrc) rc = spec_question(text, q);
        free(text);
        if (!lrc && !rc && j->precision) {
            /* The preset replaces the spec's precision as a whole. */
            vramest_precision_free(h->p);
            h->p = NULL;
            lrc = vramest_precision_new_preset(j->precision, &h->p);
        }
    } else {
        rc = load_model(j->model, &h->m);
        if (!rc) lrc = j->precision ? vramest_precision_new_preset(j->precision, &h->p) : vramest_precision_new(&h->p);
        if (!rc && !lrc) lrc = vramest_config_new(&h->c);
    }
    if (!rc && !lrc && j->device) lrc = vramest_config_set_str(h->c, VRAMEST_CFG_DEVICE, j->device);
    if (lrc) rc = lib_error(lrc);
    for (int i = 0; !rc && i < j->nsets; i++) rc = set_option(h, j->sets[i]);
    /* A question on the command line replaces the spec's. */
    question flags = {VRAMEST_ASK_NONE, (vramest_option)0};
    if (!rc) rc = flag_question(j, &flags);
    if (!rc && flags.kind != VRAMEST_ASK_NONE) *q = flags;
    if (rc) handles_free(h);
    return rc;
}
