/* The option registry: one table row per option of each handle kind. The
 * public set/get functions, the JSON job spec, the CLI and the Python binding
 * all go through it, so an option added here appears everywhere. */
#ifndef VX_OPTIONS_H
#define VX_OPTIONS_H

#include "common/internal.h"
#include "common/option_index.h"

typedef struct vx_enum_name {
    int64_t value;
    const char *name; /* NULL terminates a list */
} vx_enum_name;

#define VX_STR_MAX 512 /* bytes of a STRING option, NUL included */

typedef struct vx_option_def {
    vramest_option key;
    const char *name;
    const char *aliases; /* comma-separated alternative names, or NULL */
    uint8_t handle;      /* vramest_handle_kind */
    uint8_t type;        /* vramest_value_type */
    const char *group;   /* job-spec object: model, precision, workload, parallel, device, runtime */
    double min, max, def;
    const vx_enum_name *enums; /* ENUM values */
    const char *def_str;       /* STRING default; NULL means "" */
    size_t offset;             /* field in the handle struct: int64_t, double or char[VX_STR_MAX] */
    /* false: the estimator does not model this option yet; vramest_estimate
     * returns VRAMEST_E_UNSUPPORTED naming it when it differs from its default. */
    bool modelled;
    const char *desc;
} vx_option_def;

/* Per-handle tables, defined next to each handle's struct. */
extern const vx_option_def vx_model_options[] VX_HIDDEN;
extern const size_t vx_model_option_count VX_HIDDEN;
extern const vx_option_def vx_precision_options[] VX_HIDDEN;
extern const size_t vx_precision_option_count VX_HIDDEN;
extern const vx_option_def vx_config_options[] VX_HIDDEN;
extern const size_t vx_config_option_count VX_HIDDEN;

/* Lookup over all tables. The slot is the row's index within its handle's
 * table, used for the handle's "is set" bitmap. */
const vx_option_def *vx_option_find(vramest_option key, size_t *slot) VX_HIDDEN;
const vx_option_def *vx_option_find_name(const char *name) VX_HIDDEN;

/* By name through the generated index (option_index.h): the first row of
 * `handle`'s table (0: any table) that `name[0..len)` names, canonical
 * names before aliases, or only one kind (VX_NAME_CANONICAL, _ALIAS).
 * `slot` (may be NULL) receives the row's index in its table. */
enum { VX_NAME_ANY = 0, VX_NAME_CANONICAL = 1, VX_NAME_ALIAS = 2 };
const vx_option_def *vx_option_named(int handle, const char *name, size_t len, int which, size_t *slot) VX_HIDDEN;
/* The index entry of a spelling (NULL if none) and whether it is spelled
 * exactly (else it differs in case, which only an alias forgives). */
const vx_optname *vx_option_spelling(const char *name, size_t len, bool *exact) VX_HIDDEN;
/* The row an index reference names. */
const vx_option_def *vx_optref_def(vx_optref r) VX_HIDDEN;

/* Generic typed access to a handle's storage. `base` is the handle's value
 * struct, `set_bits` its bitmap (may be NULL). Each validates type and bounds
 * and sets the thread-local error. */
#define VX_SET_WORDS 2 /* 128 options per handle */
int vx_opt_set_i64(void *base, uint64_t *set_bits, int handle, vramest_option key, int64_t v) VX_HIDDEN;
int vx_opt_set_f64(void *base, uint64_t *set_bits, int handle, vramest_option key, double v) VX_HIDDEN;
int vx_opt_set_str(void *base, uint64_t *set_bits, int handle, vramest_option key, const char *v) VX_HIDDEN;
int vx_opt_get_i64(const void *base, int handle, vramest_option key, int64_t *out) VX_HIDDEN;
int vx_opt_get_f64(const void *base, int handle, vramest_option key, double *out) VX_HIDDEN;
int vx_opt_get_str(const void *base, int handle, vramest_option key, const char **out) VX_HIDDEN;
int vx_opt_reset(void *base, uint64_t *set_bits, int handle, vramest_option key) VX_HIDDEN;
/* Write every default of a handle's table into `base`, clear set_bits. */
void vx_opt_defaults(void *base, uint64_t *set_bits, int handle) VX_HIDDEN;
/* The same on memory the caller zeroed: faster (vx_config_init and
 * vx_precision_init make a handle per spec). */
void vx_opt_defaults_zeroed(void *base, uint64_t *set_bits, int handle) VX_HIDDEN;
bool vx_opt_is_set(const uint64_t *set_bits, int handle, vramest_option key) VX_HIDDEN;

/* Name of an enum value within a list, NULL if absent. */
const char *vx_enum_name_of(const vx_enum_name *list, int64_t value) VX_HIDDEN;

/* The first option of `handle` whose value differs from its default while
 * the estimator does not model it yet; NULL if none. */
const vx_option_def *vx_opt_first_unmodelled(const void *base, const uint64_t *set_bits, int handle) VX_HIDDEN;

#endif
