/* The benchmark's timing loop (bench.c) and the rows of bench_paths.c. */
#ifndef VB_BENCH_H
#define VB_BENCH_H

#include <stddef.h>

#include <vramest/vramest.h>

typedef struct bench_ctx {
    vramest_cache *cache;
    vramest_model *model;
    vramest_precision *prec;
    vramest_config *cfg;
    const char *spec;
    char *plan;
    size_t plan_cap;
    const void *extra; /* what a row's function needs besides */
} bench_ctx;

typedef int (*bench_fn)(bench_ctx *);

/* Time fn(b) (median of 7 runs of ~20 ms) and print a row; 1 when a call
 * failed (VRAMEST_E_UNSUPPORTED prints "skipped" and counts as success). */
int bench(const char *label, bench_fn fn, bench_ctx *b);

/* One vramest_estimate of b's handles, its result freed (bench.c). */
int do_estimate(bench_ctx *b);

/* The rows of bench_paths.c; 1 when one failed. */
int bench_paths(void);

#endif
