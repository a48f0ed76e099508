/* The model cache handle (vramest_cache, vramest.h): models built from job
 * specs' "model" members, kept under a key that says what they were built
 * from, so that a repeated model costs a lookup, not a parse and a compile.
 *
 * Keys: for a preset name or an inline object ("arch", "hf_config"), the
 * member's value as the reader decoded it (types, strings, numbers; key
 * order and whitespace as written); for a file source ("path",
 * "hf_config_file", "safetensors", "gguf"), the path and the file's device,
 * inode, size, modification and change times, and for a directory (or an
 * index or a "path" file, which read their directory) the same of every
 * entry in it. A model whose files changed gets another key, so a stale
 * model is never returned. File times move in ticks (4 ms on Linux, up to
 * 2 s elsewhere), so a file written twice within one tick keeps its time:
 * a model whose files changed less than 2 s ago is therefore built and not
 * kept, until they are older (git's rule for "racily clean" files).
 *
 * Thread-safety: one mutex per cache; lookups hold it for a hash probe and a
 * comparison, never while a model is built or estimated. A model stays
 * alive while any call uses it, even if evicted meanwhile. */
#ifndef VX_MODEL_CACHE_H
#define VX_MODEL_CACHE_H

#include "spec/spec.h"

typedef struct vx_lease vx_lease;

/* The model the spec member `v` describes, from the cache or built and put
 * there. *out is valid until vx_cache_put(lease); it must only be read.
 * Errors are those of vx_spec_model (a model that fails is not kept). */
int vx_cache_get(vramest_cache *cache, const vx_jdoc *doc, const vx_jv *v, const vramest_model **out,
                 vx_lease **lease) VX_HIDDEN;
void vx_cache_put(vramest_cache *cache, vx_lease *lease) VX_HIDDEN;
/* The handle check of every public function taking a cache. */
int vx_cache_check(const vramest_cache *cache, const char *fn) VX_HIDDEN;

#endif
