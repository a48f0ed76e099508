/* Compiled training programs (issue #8: an estimate well under 1 µs).
 *
 * A layer / embedding / head program (activations.c, logits.c) replays a
 * Hugging Face module op by op on the tape; the work is in building the
 * graph, not in the numbers. For a fixed structure (everything but the
 * micro-batch b and the sequence s) the program does the same thing at
 * every size: only the byte counts change, and each is a polynomial in
 * (b, s) of degree <= 1 in b and <= 2 in s (b*s*h, b*heads*s*(s+prefix),
 * b*(s-1)*V, ...), rounded to the allocator's 512-B blocks.
 *
 * Compiling a program:
 *   1. run it on a recording tape at six probe sizes (b in {b0, b0+1}, s in
 *      {s0, s0+1, s0+2}) and at three more (the caller's and two far
 *      ones): every change of a live counter is logged with its raw bytes;
 *   2. the logs must agree event for event (else the program depends on
 *      the sizes in a way this form cannot carry: it is not compiled);
 *   3. each event's bytes are fitted exactly as such a polynomial and the
 *      fit is checked at the three extra sizes; equal polynomials share a
 *      slot;
 *   4. the log is run symbolically (live bytes as integer combinations of
 *      slots); every point where the tape compares against its peak gives
 *      a candidate, and a candidate that an earlier one dominates term by
 *      term (or a later one strictly) can never be the peak and is dropped.
 * Evaluating one: the slots' rounded bytes, then a dot product per
 * surviving candidate. The result is the vx_prog the replay would give
 * (tests/test_progcache.c checks both over models and sizes, and
 * tests/perf_golden.py that no plan changed).
 *
 * The compiled forms live in a cache kept in the model handle's memo slot
 * (common/memo.h; the model knows nothing of it): entries are
 * appended and never changed once published (an atomic count), so
 * estimates on a shared model read them without a lock; compiling takes the
 * cache's mutex. A full cache (VX_PC_ENTRIES) falls back to the replay. */
#ifndef VX_PROGCACHE_H
#define VX_PROGCACHE_H

#include "estimate/params/weights.h"
#include "estimate/step/step.h"

/* ---- the cache (one per model handle) ---- */
typedef struct vx_pcache vx_pcache;

/* A structure compiles on its VX_PC_COMPILE_AT-th sighting (ski rental):
 * an estimate that replays its programs costs 40-71k instructions (3-6 us),
 * a compiled one 6k, and compiling the programs and the step 3.8-7.8M
 * (300-500 us), so compiling pays back after 110-120 estimates; waiting
 * that long before compiling costs at most twice what the better choice in
 * hindsight would have, however many estimates follow. A model seen a
 * handful of times - a scheduler's - never compiles; a solver's or a
 * training launcher's loop does (docs/performance.md, "Cold path"). */
#define VX_PC_COMPILE_AT 100

vx_pcache *vx_pcache_new(void) VX_HIDDEN;
/* Tests: compile on this sighting instead (1..255; 2 = on second sight). */
void vx_pcache_set_compile_at(vx_pcache *pc, unsigned sighting) VX_HIDDEN;
/* The cache of a model: its memo slot's content, made on first use; NULL
 * when it could not be allocated or the slot is off (then replay). */
vx_pcache *vx_pcache_of(const struct vramest_model *m) VX_HIDDEN;
void vx_pcache_free(vx_pcache *pc) VX_HIDDEN;
/* Forget every entry (the model changed). Not concurrent with estimates. */
void vx_pcache_reset(vx_pcache *pc) VX_HIDDEN;

/* Entries held and how many of them compiled (tests, docs/performance.md). */
void vx_pcache_stats(vx_pcache *pc, unsigned *entries, unsigned *compiled) VX_HIDDEN;
/* Step slots held (size classes seen with every program compiled) and how
 * many compiled (stepcache.h). */
void vx_pcache_step_stats(vx_pcache *pc, unsigned *slots, unsigned *compiled) VX_HIDDEN;


/* The compiled steps kept with cached static terms: `tm` must be what
 * vx_train_static_cached returned from the cache (not the caller's buffer). */
struct vx_stepslots *vx_pcache_steps(const vx_train_model *tm) VX_HIDDEN;
/* The programs' config kept with them (vx_train_cfg; set the size fields
 * with vx_train_cfg_sizes). */
const vx_act_cfg *vx_pcache_cfg(const vx_train_model *tm) VX_HIDDEN;

/* The program's result: from a compiled form when the cache has (or can
 * compile) one for this structure, else by replaying it. `cache` may be
 * NULL (replay). */
int vx_prog_eval(vx_pcache *cache, const vx_prog_call *pc, vx_prog *out) VX_HIDDEN;
/* The same as a source for the step (vx_train_step_prepare); the replay
 * when `cache` is NULL. */
void vx_pcache_source(vx_pcache *cache, vx_prog_source *out) VX_HIDDEN;

/* vx_weights_stats_compute through the cache (the stats depend on the
 * precision, its resolution, the head and `torch_alloc`). */
void vx_weights_stats_get(const vx_ctx *x, int torch_alloc, vx_weights_stats *out) VX_HIDDEN;

/* vx_train_static through the cache: the static terms of a rank depend on
 * the model, the precision, the config without batch_size / seq_len, the
 * shard and the runtime; they are kept on first use. `*tm` points at the
 * cached terms (valid until the model changes) or at `buf`. `cache` may be
 * NULL. */
int vx_train_static_cached(vx_pcache *cache, vx_ctx *x, const vx_shard *sh, vx_train_model *buf,
                           const vx_train_model **tm) VX_HIDDEN;

#endif
