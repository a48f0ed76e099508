/* Job specs (design.md §6): one JSON document read into the three input
 * handles, plus the question a spec may ask ("solve"), which the handles
 * cannot hold and vramest_spec_plan() answers. */
#ifndef VX_SPEC_H
#define VX_SPEC_H

#include "common/json_reader.h"

enum { VX_SOLVE_NONE = 0, VX_SOLVE_MAX = 1, VX_SOLVE_ADVICE = 2 };

typedef struct vx_spec_solve {
    int kind;           /* VX_SOLVE_* */
    vramest_option key; /* VX_SOLVE_MAX: the option searched (largest that fits; gpus: smallest) */
    const char *name;   /* its spec name (static), for messages and the plan */
} vx_spec_solve;

/* vramest_spec_parse() that also returns the "solve" question (NONE when the
 * spec asks none). On failure every output is NULL / NONE. */
int vx_spec_read(const char *json, size_t len, vramest_model **out_model, vramest_precision **out_prec,
                 vramest_config **out_cfg, vx_spec_solve *out_solve) VX_HIDDEN;

/* The same in steps, for a caller that keeps models (the cache handle):
 * vx_spec_open parses the text and checks the document's frame (an object,
 * known top-level keys, a "model"); the caller then calls vx_json_free(doc)
 * whatever it returned. vx_spec_settings reads everything but the model;
 * vx_spec_model builds and validates the model the value `v` (the spec's
 * "model" member) describes. On failure the outputs are untouched. */
int vx_spec_open(vx_jdoc *doc, const char *json, size_t len) VX_HIDDEN;
int vx_spec_settings(const vx_jdoc *doc, vramest_precision **out_prec, vramest_config **out_cfg,
                     vx_spec_solve *out_solve) VX_HIDDEN;
int vx_spec_model(const vx_jdoc *doc, const vx_jv *v, vramest_model **out) VX_HIDDEN;
/* The source kind a model object's file key means ("gguf" -> GGUF header). */
vramest_source vx_spec_source_kind(const char *src, const char *path) VX_HIDDEN;

#endif
