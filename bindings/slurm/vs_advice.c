/* One-change advice in directive words (see vs_advice.h). */
#include "vs_advice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "vs_util.h"

void vs_gib(char *out, size_t cap, uint64_t bytes)
{
    snprintf(out, cap, "%.2f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

/* {"workload": {"gradient_checkpointing": "full"}, "precision": "nf4",
 *  "parallel": {"gpus": 8, "tp": 8}} -> "8 GPUs with --precision nf4 --set ..." */
static void render_change(json_object *change, char *out, size_t cap)
{
    char words[512] = "";
    int64_t gpus = 0;
    json_object_object_foreach(change, group, val)
    {
        if (json_object_is_type(val, json_type_string)) {
            vs_appendf(words, sizeof words, " --%s %s", group, json_object_get_string(val));
            continue;
        }
        if (!json_object_is_type(val, json_type_object)) continue;
        json_object_object_foreach(val, key, v)
        {
            if (!strcmp(group, "parallel") && !strcmp(key, "gpus")) {
                gpus = json_object_get_int64(v);
                continue;
            }
            /* precision keys share names with workload ones (kv_cache): qualify them */
            vs_appendf(words, sizeof words, " --set %s%s%s=%s", !strcmp(group, "precision") ? group : "",
                       !strcmp(group, "precision") ? "." : "", key, json_object_get_string(v));
        }
    }
    if (gpus)
        snprintf(out, cap, "ask for %" PRId64 " GPUs%s%s", gpus, words[0] ? " and add" : "", words);
    else
        snprintf(out, cap, "add%s", words);
}

int vs_advice_line(const vramest_model *m, const vramest_precision *p, const vramest_config *c, char *out,
                   size_t cap)
{
    size_t need = 0;
    char small[4096], *buf = small;
    int rc = vramest_advise_json(m, p, c, small, sizeof small, &need);
    if (rc == VRAMEST_E_BUFFER_TOO_SMALL && (buf = malloc(need)))
        rc = vramest_advise_json(m, p, c, buf, need, &need);
    json_object *list = NULL;
    if (rc == VRAMEST_OK) list = json_tokener_parse(buf);
    if (buf != small) free(buf);
    if (!list || !json_object_is_type(list, json_type_array)) {
        json_object_put(list);
        vs_appendf(out, cap, "vramest: no advice (%s)\n", vramest_status_string(rc ? rc : VRAMEST_E_INTERNAL));
        return -1;
    }
    /* Cheapest first: the first that fits; else the largest saving. */
    json_object *best = NULL, *biggest = NULL, *v;
    int64_t most = -1;
    size_t n = json_object_array_length(list);
    for (size_t i = 0; i < n && !best; i++) {
        json_object *item = json_object_array_get_idx(list, i);
        if (json_object_object_get_ex(item, "fits", &v) && json_object_get_boolean(v)) best = item;
        if (json_object_object_get_ex(item, "saves_bytes", &v) && json_object_get_int64(v) > most)
            most = json_object_get_int64(v), biggest = item;
    }
    json_object *pick = best ? best : biggest, *change = NULL, *total = NULL;
    if (!pick || !json_object_object_get_ex(pick, "change", &change) ||
        !json_object_object_get_ex(pick, "device_total", &total)) {
        vs_appendf(out, cap, "vramest: no single change makes it fit\n");
    } else {
        char what[640], gib[32];
        render_change(change, what, sizeof what);
        vs_gib(gib, sizeof gib, (uint64_t)json_object_get_int64(total));
        if (best)
            vs_appendf(out, cap, "vramest: best single change: %s (needs %s per GPU, fits)\n", what, gib);
        else
            vs_appendf(out, cap, "vramest: no single change makes it fit; the biggest saving: %s (still %s per GPU)\n",
                       what, gib);
    }
    json_object_put(list);
    return 0;
}
