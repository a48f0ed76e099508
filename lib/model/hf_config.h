/* Hugging Face config.json reader. */
#ifndef VX_HF_CONFIG_H
#define VX_HF_CONFIG_H

#include "common/json_reader.h"
#include "model/model.h"

/* Parse a config.json held in memory (need not be NUL-terminated) into the
 * model's architecture options, merging with what the model holds: keys the
 * file gives replace the model's values, a null value unsets. Unknown keys
 * are ignored; model_type must name a supported family. The architecture
 * must then resolve (complete and consistent), else the parse fails.
 * Atomic: on any failure the model is unchanged. Rebuilds the model on
 * success. Errors: VRAMEST_E_PARSE (with the byte offset), _LIMIT (size,
 * nesting), _UNKNOWN_MODEL_TYPE (with the supported ones), _TYPE / _RANGE
 * (naming the key), _INCOMPLETE_MODEL / _INVALID_MODEL, _UNSUPPORTED. */
int vx_parse_hf_config(struct vramest_model *m, const char *buf, size_t len) VX_HIDDEN;
/* The same from an object already parsed (a job spec's inline "hf_config"):
 * offsets in messages are then those of the spec. */
int vx_hf_config_apply(struct vramest_model *m, const vx_jdoc *doc, const vx_jv *obj) VX_HIDDEN;

/* For a family's `config` hook (model/family.h): the file being mapped.
 * Keys go through the option setters; a failure names the key. */
struct vx_cfgmap;
/* model_type as the file spells it (an alias such as "RefinedWeb"). */
const char *vx_cfgmap_model_type(const struct vx_cfgmap *m) VX_HIDDEN;
/* Whether the file gave option `k` (under any of its names). */
bool vx_cfgmap_given(const struct vx_cfgmap *m, vramest_option k) VX_HIDDEN;
/* A string key: *out = its value, NULL when absent or null; VRAMEST_E_TYPE
 * naming the key when it is not a string, VRAMEST_E_PARSE when it holds
 * U+0000 (a C string would cut it). */
int vx_cfgmap_string(struct vx_cfgmap *m, const char *key, const char **out) VX_HIDDEN;
/* A list key (per-layer types, layer indices): *out receives a malloc'd
 * array of its *n entries (the caller frees it), NULL with *n = 0 when the
 * key is absent or null. `names` NULL: integers (or bools, as 0 / 1);
 * else strings, each entry the index of its name in the NULL-ended
 * `names`. A string list may also be one string of `letters` (one letter
 * per entry, the letter of names[i] at letters[i]; NULL: no such form).
 * Errors name the key: VRAMEST_E_TYPE, VRAMEST_E_INVALID_MODEL (a name not
 * in `names`), VRAMEST_E_LIMIT (more than 100000 entries). */
int vx_cfgmap_list(struct vx_cfgmap *m, const char *key, const char *const *names, const char *letters, int64_t **out,
                   size_t *n) VX_HIDDEN;
/* Set an option from key `key` (for messages). */
int vx_cfgmap_set_i64(struct vx_cfgmap *m, vramest_option k, int64_t v, const char *key) VX_HIDDEN;
/* Set an option and mark it given, before the generic keys are read: a
 * key whose value has a form of its own (EXAONE 4's 'LLLG' pattern). */
int vx_cfgmap_claim_i64(struct vx_cfgmap *m, vramest_option k, int64_t v, const char *key) VX_HIDDEN;
/* Set a string option from key `key`. */
int vx_cfgmap_set_str(struct vx_cfgmap *m, vramest_option k, const char *v, const char *key) VX_HIDDEN;
/* The parsed file and the language model's object (the top level, or a
 * wrapper's text_config once the family's keys are read), for hooks that read nested
 * objects and lists (DBRX's attn_config / ffn_config, Nemotron-NAS's
 * block_configs): vx_jget(vx_cfgmap_doc(m), vx_cfgmap_root(m), key). */
const vx_jdoc *vx_cfgmap_doc(const struct vx_cfgmap *m) VX_HIDDEN;
const vx_jv *vx_cfgmap_root(const struct vx_cfgmap *m) VX_HIDDEN;
/* The values mapped so far (num_hidden_layers, hidden_size, ...). */
const vx_arch *vx_cfgmap_arch(const struct vx_cfgmap *m) VX_HIDDEN;
int64_t vx_cfgmap_layers(const struct vx_cfgmap *m) VX_HIDDEN;

/* config.json's per-layer lists (hf_layers.c): the string form of
 * sliding_window_pattern, before the generic keys; layer_types and
 * no_rope_layers, after them. */
int vx_hf_layer_string_keys(struct vx_cfgmap *m) VX_HIDDEN;
int vx_hf_layer_lists(struct vx_cfgmap *m) VX_HIDDEN;

/* Set an enum option by name; a name the option does not know is ignored
 * (an activation we cannot name changes no tensor). */
int vx_cfgmap_set_name(struct vx_cfgmap *m, vramest_option k, const char *name, const char *key) VX_HIDDEN;
/* A boolean / a number key: 1 and *out when present, 0 when absent or
 * null, an error naming the key for another type. */
int vx_cfgmap_bool(struct vx_cfgmap *m, const char *key, bool *out) VX_HIDDEN;
int vx_cfgmap_number(struct vx_cfgmap *m, const char *key, double *out) VX_HIDDEN;
/* Whether the file gives key `key` as null (a null that means something
 * other than the default, as Lfm2's block_ffn_dim_multiplier). */
bool vx_cfgmap_null(struct vx_cfgmap *m, const char *key) VX_HIDDEN;
/* An array of integers (mlp_only_layers): *n of them into out (at most cap;
 * VRAMEST_E_LIMIT beyond); *n = 0 when absent. */
int vx_cfgmap_ints(struct vx_cfgmap *m, const char *key, int64_t *out, size_t cap, size_t *n) VX_HIDDEN;
/* A per-layer list (an array of names, as layer_types, or a string of one
 * character per layer, as hybrid_override_pattern) mapped to one letter per
 * layer through `map` (NULL-ended): out holds *n letters and a NUL (cap
 * includes it). An entry the map lacks is VRAMEST_E_INVALID_MODEL naming the
 * key, its index and the names the family knows; *n = 0 when absent. */
typedef struct vx_name_letter {
    const char *name;
    char letter;
} vx_name_letter;
int vx_cfgmap_letters(struct vx_cfgmap *m, const char *key, const vx_name_letter *map, char *out, size_t cap,
                      size_t *n) VX_HIDDEN;

/* An integer key: *out its value, -1 when absent or null; VRAMEST_E_TYPE
 * naming the key for another type. */
int vx_cfgmap_int(struct vx_cfgmap *m, const char *key, int64_t *out) VX_HIDDEN;
/* Flags of the names a key lists (a JSON list of strings, or one string
 * joined by '|' as DeBERTa writes pos_att_type): bit i for names[i]
 * (NULL-ended); *flags 0 when absent. VRAMEST_E_TYPE naming the key for
 * another type. */
int vx_cfgmap_name_flags(struct vx_cfgmap *m, const char *key, const char *const *names, int64_t *flags) VX_HIDDEN;

#endif
