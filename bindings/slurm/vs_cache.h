/* A bounded, thread-safe cache of parsed models.
 *
 * Keys are opaque byte strings the caller builds: "preset\0NAME" for a
 * preset, the model member's JSON text for an inline architecture, and for a
 * file the canonical path with the file's identity (device, inode, size,
 * mtime), so an edited file is a new key and its stale entry ages out. A
 * failed parse is cached too (with its message), so a hostile file is parsed
 * once, not once per job.
 *
 * A model handed out stays valid until vs_cache_release(), even if the
 * entry is evicted meanwhile (reference counts): libvramest allows concurrent
 * const use of one model (vramest_estimate, the solvers), so one cached
 * handle serves every thread. The interface is the seam for a cache handle
 * that libvramest may offer later: callers see only get/release. */
#ifndef VS_CACHE_H
#define VS_CACHE_H

#include <stddef.h>

#include <vramest/vramest.h>

typedef struct vs_cache vs_cache;
typedef struct vs_cache_ref vs_cache_ref;

/* Builds the model for a key on a miss. Returns 0 with *out set, or -1 with
 * a message in err (which the cache keeps for later hits). */
typedef int (*vs_model_loader)(void *ctx, vramest_model **out, char *err, size_t cap);

/* A cache of at most `capacity` entries; NULL when out of memory. */
vs_cache *vs_cache_new(size_t capacity);
void vs_cache_free(vs_cache *c);

/* The model for key[0..keylen): cached, or built by load(ctx) outside the
 * cache's lock. Returns 0 with *model and *ref set, or -1 with the load's
 * message (fresh or cached) in err; *ref must then not be released. */
int vs_cache_get(vs_cache *c, const void *key, size_t keylen, vs_model_loader load, void *ctx,
                 const vramest_model **model, vs_cache_ref **ref, char *err, size_t cap);

void vs_cache_release(vs_cache *c, vs_cache_ref *ref);

/* Counters for tests and the benchmark. */
void vs_cache_stats(vs_cache *c, size_t *entries, unsigned long *hits, unsigned long *misses);

#endif
