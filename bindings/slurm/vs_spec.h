/* A job's directive as a libvramest job spec (design.md §6), and the model
 * source it names.
 *
 * Every directive form ends up as one JSON object, so every form goes
 * through the same evaluation: CLI words are translated with the library's
 * own option registry (names, groups, types), an inline or file spec is
 * parsed with json-c under the site's size limit. The spec is then bound to
 * the job: "device" and "parallel.gpus" come from the GPU request, and a
 * spec that says otherwise is refused rather than silently overridden. */
#ifndef VS_SPEC_H
#define VS_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include <json.h>
#include <vramest/vramest.h>

#include "vs_conf.h"
#include "vs_directive.h"

/* libvramest's option names, indexed for --set (built once per plugin
 * load; immutable, shared by all threads). */
typedef struct vs_optnames vs_optnames;
vs_optnames *vs_optnames_new(void);
void vs_optnames_free(vs_optnames *t);

/* CLI words (VS_DIR_WORDS) to a spec object; *out is owned by the caller.
 * `names` may be NULL (every key is then looked up in the registry). */
int vs_spec_from_words(const vs_optnames *names, const vs_directive *d, json_object **out, char *err, size_t cap);

/* JSON text to a spec object: at most `max` bytes, UTF-8, an object with a
 * "model". `what` names the text in messages ("inline spec",
 * "spec file '/x'"); with `quiet`, parse errors do not quote the text (a
 * file's contents are never echoed). */
int vs_spec_from_text(const char *text, size_t len, size_t max, const char *what, int quiet, json_object **out,
                      char *err, size_t cap);

typedef enum vs_model_kind { VS_MODEL_PRESET, VS_MODEL_INLINE, VS_MODEL_FILE } vs_model_kind;

typedef struct vs_model_src {
    vs_model_kind kind;
    const char *text;         /* preset name, the model member's JSON, or the path (owned by the spec object) */
    vramest_source file_kind; /* VS_MODEL_FILE: what the source key says */
} vs_model_src;

/* Where the spec's model comes from. */
int vs_spec_model_src(json_object *spec, vs_model_src *src, char *err, size_t cap);

/* Bind the spec to the job's GPUs: set "device" (a preset, or
 * {"memory_gib": x}), "parallel.gpus" and, when known, "parallel.gpus_per_node".
 * A spec that already names another device or GPU count is -1, with both
 * values in the message. */
int vs_spec_bind(json_object *spec, const vs_device *dev, uint64_t gpus, uint64_t gpus_per_node, char *err,
                 size_t cap);

#endif
