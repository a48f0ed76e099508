/* Mode rl (issue #23): the step's phases side by side - rollout, scoring,
 * training - each with its GPU categories and device total on a trainer
 * GPU, the peak marked, and what the placement puts elsewhere (the engine's
 * own GPUs, the host). Read from the plan's "rl" member. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static uint64_t u64_at(json_object *o, const char *path)
{
    json_object *v = jget(o, path);
    return v && json_object_is_type(v, json_type_int) ? (uint64_t)json_object_get_int64(v) : 0;
}

void print_rl_phases(json_object *plan)
{
    json_object *rl = jget(plan, "rl"), *phases = rl ? jget(rl, "phases") : NULL;
    if (!phases || !json_object_is_type(phases, json_type_array) || json_object_array_length(phases) != 3) return;
    const char *peak = jstr(rl, "peak_phase");
    printf("\nRL step (%s %s rollout, reference %s; %lld prompts, %lld completions per GPU, micro-batch %lld):\n",
           jstr(rl, "placement") ? jstr(rl, "placement") : "?", jstr(rl, "engine") ? jstr(rl, "engine") : "?",
           jstr(rl, "reference") ? jstr(rl, "reference") : "?", (long long)u64_at(rl, "rollout_batch_size"),
           (long long)u64_at(rl, "sequences_per_gpu"), (long long)u64_at(rl, "micro_batch_sequences"));
    printf("  %-18s", "GiB per GPU");
    for (size_t i = 0; i < 3; i++) {
        const char *name = jstr(json_object_array_get_idx(phases, i), "name");
        char head[24];
        snprintf(head, sizeof head, "%s%s", name ? name : "?", peak && name && !strcmp(peak, name) ? " *" : "");
        printf(" %12s", head);
    }
    printf("\n");
    const char **cats = category_names();
    uint32_t ncat = vramest_category_count();
    for (uint32_t c = 0; cats && c < ncat; c++) {
        if (!cats[c]) continue;
        char path[64];
        snprintf(path, sizeof path, "categories.%s", cats[c]);
        uint64_t v[3], any = 0;
        for (size_t i = 0; i < 3; i++) any |= v[i] = u64_at(json_object_array_get_idx(phases, i), path);
        if (!any) continue;
        printf("  %-18s", cats[c]);
        for (size_t i = 0; i < 3; i++) printf(" %12.3f", gib(v[i]));
        printf("\n");
    }
    free(cats);
    printf("  %-18s", "device total");
    for (size_t i = 0; i < 3; i++) printf(" %12.3f", gib(u64_at(json_object_array_get_idx(phases, i), "device_total")));
    printf("\n  (* the step's peak; categories without the CUDA context, which the total includes)\n");
    uint64_t budget = u64_at(rl, "engine_budget"), engine = u64_at(rl, "engine_gpu_total");
    uint64_t host = u64_at(rl, "host_offload");
    if (budget)
        printf("  engine: gpu_memory_utilization budget %.3f GiB, KV pool %.3f GiB%s\n", gib(budget),
               gib(u64_at(rl, "kv_pool_bytes")), jget(rl, "engine_sleeps") && json_object_get_boolean(jget(rl, "engine_sleeps"))
                                                     ? ", asleep outside the rollout"
                                                     : "");
    json_object *mu = jget(rl, "max_gpu_memory_utilization");
    if (mu && (json_object_is_type(mu, json_type_double) || json_object_is_type(mu, json_type_int)))
        printf("  largest gpu_memory_utilization that leaves every phase room: %.3f\n", json_object_get_double(mu));
    if (engine) printf("  engine GPUs (separate): %.3f GiB each\n", gib(engine));
    if (host) printf("  host: %.3f GiB offloaded between phases\n", gib(host));
}
