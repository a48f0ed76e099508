/* What every family's tests check (docs/adding-a-family.md §4), shared by
 * the family suites (test_family.c, test_family_dec.c): exact parameter
 * counts from the real configs of tests/data/zoo.jsonl (a copy of
 * ../shared/validation/zoo.jsonl) and tests/data/zoo2.jsonl (a copy of the
 * research zoo), KV caches of one prefill, a training step that runs,
 * checkpoint names read back as roles. Criterion assertions: call them
 * from a Test. */
#ifndef VT_FAMILY_CHECKS_H
#define VT_FAMILY_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "vramest/vramest.h"

/* Every case of zoo file `file` ("zoo.jsonl", "zoo2.jsonl"): *got its
 * count (0 when the config is refused or read as the generic decoder),
 * *want the case's (a case marked "misspecified": the count it gives for
 * the config). */
typedef void (*zoo_fn)(const char *id, uint64_t got, uint64_t want, void *arg);
void zoo_each(const char *file, zoo_fn fn, void *arg);
/* Case `id` of zoo file `file` is read, with its exact count. */
void zoo_exact_in(const char *file, const char *id);
/* ... of zoo.jsonl. */
void zoo_exact(const char *id);
/* Cases read with a count (and each exact). */
int zoo_exact_when_read(const char *file);

/* The hf_config of case `id` of zoo.jsonl or zoo2.jsonl as JSON text
 * (malloc'd), with `drop` (a top-level key, may be NULL) removed. */
char *zoo_config(const char *id, const char *drop);

vramest_model *preset(const char *name);
/* An estimate of a job spec (must succeed); the caller frees it. */
vramest_result *estimate(const char *spec);
uint64_t category(const vramest_result *r, int cat);
/* KV cache of one prefill of `tokens` tokens x `batch` sequences, nothing
 * generated, bf16, on an H100 under `framework`. */
uint64_t kv_bytes(const char *model, const char *framework, int64_t batch, int64_t tokens);
/* A category of that prefill (the recurrent layers' state_cache: the
 * cache is exactly the prompt's). */
uint64_t prefill_category(const char *model, const char *framework, int64_t batch, int64_t tokens, int cat);
/* A LoRA training step (all linear layers) runs and peaks above its weights. */
void trains(const char *model);
/* The same three for a job spec's "model" value as written (a quoted
 * preset name, or an object such as {"hf_config": {...}}); `rest` is the
 * rest of the spec, `what` names the model in messages. */
vramest_result *estimate_model(const char *model, const char *rest);
uint64_t kv_bytes_of(const char *model, const char *framework, int64_t batch, int64_t tokens);
void trains_model(const char *model, const char *what);

/* Checkpoint tensor names of a family read back as the roles its
 * inventory gives them (io/tensor_roles.c). */
typedef struct named_role {
    const char *name;
    int role;
    const char *leaf;
} named_role;
void names_read_as(const named_role *nr, size_t n);

#endif
