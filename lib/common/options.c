/* The option registry: lookup by key or name, typed access to a handle's
 * storage with bounds checks, and the public introspection functions. Tables
 * live next to each handle (model_options.c, precision_options.c,
 * config_options.c); this file knows none of their rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/options.h"

typedef struct vx_table {
    const vx_option_def *rows;
    const size_t *count;
} vx_table;

static const vx_table tables[] = {
    {vx_model_options, &vx_model_option_count},
    {vx_precision_options, &vx_precision_option_count},
    {vx_config_options, &vx_config_option_count},
};

const vx_option_def *vx_option_find(vramest_option key, size_t *slot)
{
    for (size_t t = 0; t < VX_ARRAY_LEN(tables); t++) {
        const vx_optkeys *k = &vx_optkeys_of[t];
        uint32_t off = (uint32_t)((int64_t)key - k->base);
        if (off >= k->count) continue;
        int row = k->rows[off];
        if (row < 0) return NULL;
        if (slot) *slot = (size_t)row;
        return &tables[t].rows[row];
    }
    return NULL;
}

const vx_optname *vx_option_spelling(const char *name, size_t len, bool *exact)
{
    uint32_t h = vx_opthash_raw(name, len);
    uint32_t b = vx_opthash_mix(h, 0) % vx_optname_buckets;
    unsigned e = vx_optname_slot[vx_opthash_mix(h, vx_optname_seed[b]) & vx_optname_mask];
    if (!e) return NULL;
    const vx_optname *nm = &vx_optnames[e - 1];
    if (nm->len != len) return NULL;
    bool same = memcmp(name, nm->name, len) == 0;
    for (size_t i = 0; !same && i < len; i++) {
        unsigned c = (unsigned char)name[i];
        if (c != (unsigned char)nm->name[i] && (c - 'A' >= 26u || c + ('a' - 'A') != (unsigned char)nm->name[i]))
            return NULL;
    }
    if (exact) *exact = same;
    return nm;
}

const vx_option_def *vx_optref_def(vx_optref r)
{
    return &tables[r.table].rows[r.row];
}

const vx_option_def *vx_option_named(int handle, const char *name, size_t len, int which, size_t *slot)
{
    bool exact;
    const vx_optname *nm = vx_option_spelling(name, len, &exact);
    if (!nm) return NULL;
    for (unsigned i = 0; i < nm->n_refs; i++) {
        vx_optref r = nm->refs[i];
        /* A canonical name is spelled exactly; an alias in any case. */
        if (r.alias ? which == VX_NAME_CANONICAL : (which == VX_NAME_ALIAS || !exact)) continue;
        if (handle && r.table != handle - 1) continue;
        if (slot) *slot = r.row;
        return &tables[r.table].rows[r.row];
    }
    return NULL;
}

const vx_option_def *vx_option_find_name(const char *name)
{
    return vx_option_named(0, name, strlen(name), VX_NAME_ANY, NULL);
}

const char *vx_enum_name_of(const vx_enum_name *list, int64_t value)
{
    for (; list && list->name; list++)
        if (list->value == value) return list->name;
    return NULL;
}

static int enum_from_name(const vx_option_def *d, const char *name, int64_t *out)
{
    for (const vx_enum_name *e = d->enums; e && e->name; e++)
        if (vx_strcasecmp(e->name, name) == 0) {
            *out = e->value;
            return VRAMEST_OK;
        }
    char valid[640];
    size_t used = 0;
    valid[0] = '\0';
    for (const vx_enum_name *e = d->enums; e && e->name && used + 40 < sizeof valid; e++)
        used += (size_t)snprintf(valid + used, sizeof valid - used, "%s%s", used ? ", " : "", e->name);
    return vx_fail(VRAMEST_E_UNKNOWN_NAME, "option '%s': unknown value '%s' (valid: %s)", d->name, name, valid);
}

static const char *type_name(int type)
{
    switch (type) {
    case VRAMEST_TYPE_I64: return "integer";
    case VRAMEST_TYPE_F64: return "number";
    case VRAMEST_TYPE_BOOL: return "bool";
    case VRAMEST_TYPE_ENUM: return "enum";
    case VRAMEST_TYPE_STRING: return "string";
    default: return "?";
    }
}

/* Find the row for `key` and check it belongs to `handle`. */
static int lookup(int handle, vramest_option key, const vx_option_def **d, size_t *slot)
{
    *d = vx_option_find(key, slot);
    if (!*d) return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "unknown option key %d", (int)key);
    if ((*d)->handle != handle) {
        static const char *kinds[] = {"?", "model", "precision", "config"};
        return vx_fail(VRAMEST_E_WRONG_HANDLE, "option '%s' belongs to a %s handle, not a %s handle",
                       (*d)->name, kinds[(*d)->handle & 3], kinds[handle & 3]);
    }
    return VRAMEST_OK;
}

static void mark(uint64_t *set_bits, size_t slot, bool on)
{
    if (!set_bits || slot >= 64 * VX_SET_WORDS) return;
    if (on)
        set_bits[slot / 64] |= (uint64_t)1 << (slot % 64);
    else
        set_bits[slot / 64] &= ~((uint64_t)1 << (slot % 64));
}

bool vx_opt_is_set(const uint64_t *set_bits, int handle, vramest_option key)
{
    size_t slot;
    const vx_option_def *d = vx_option_find(key, &slot);
    if (!d || d->handle != handle || slot >= 64 * VX_SET_WORDS) return false;
    return (set_bits[slot / 64] >> (slot % 64)) & 1;
}

static int check_i64(const vx_option_def *d, int64_t v)
{
    if (d->type == VRAMEST_TYPE_ENUM) {
        if (!vx_enum_name_of(d->enums, v))
            return vx_fail(VRAMEST_E_RANGE, "option '%s': %lld is not a valid value", d->name, (long long)v);
        return VRAMEST_OK;
    }
    if ((double)v < d->min || (double)v > d->max)
        return vx_fail(VRAMEST_E_RANGE, "option '%s': %lld is out of range [%.17g, %.17g]", d->name,
                       (long long)v, d->min, d->max);
    return VRAMEST_OK;
}

int vx_opt_set_i64(void *base, uint64_t *set_bits, int handle, vramest_option key, int64_t v)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    if (d->type == VRAMEST_TYPE_F64) return vx_opt_set_f64(base, set_bits, handle, key, (double)v);
    if (d->type == VRAMEST_TYPE_STRING)
        return vx_fail(VRAMEST_E_TYPE, "option '%s' is a string: set it with _set_str", d->name);
    if (d->type == VRAMEST_TYPE_BOOL && v != 0 && v != 1)
        return vx_fail(VRAMEST_E_RANGE, "option '%s' is a bool: %lld is neither 0 nor 1", d->name, (long long)v);
    if ((rc = check_i64(d, v))) return rc;
    memcpy((char *)base + d->offset, &v, sizeof v);
    mark(set_bits, slot, true);
    return VRAMEST_OK;
}

int vx_opt_set_f64(void *base, uint64_t *set_bits, int handle, vramest_option key, double v)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    if (d->type != VRAMEST_TYPE_F64) {
        if (d->type == VRAMEST_TYPE_STRING)
            return vx_fail(VRAMEST_E_TYPE, "option '%s' is a string: set it with _set_str", d->name);
        /* Integral doubles are accepted for integer options (JSON numbers,
         * Python floats); anything else is a type error, never truncated. */
        if (!isfinite(v) || v != floor(v) || fabs(v) > 9.007199254740992e15)
            return vx_fail(VRAMEST_E_TYPE, "option '%s' is an %s: %.17g is not an integer", d->name,
                           type_name(d->type), v);
        return vx_opt_set_i64(base, set_bits, handle, key, (int64_t)v);
    }
    if (!isfinite(v)) return vx_fail(VRAMEST_E_RANGE, "option '%s': %g is not a finite number", d->name, v);
    if (v < d->min || v > d->max)
        return vx_fail(VRAMEST_E_RANGE, "option '%s': %.17g is out of range [%.17g, %.17g]", d->name, v, d->min,
                       d->max);
    memcpy((char *)base + d->offset, &v, sizeof v);
    mark(set_bits, slot, true);
    return VRAMEST_OK;
}

int vx_opt_set_str(void *base, uint64_t *set_bits, int handle, vramest_option key, const char *v)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    if (!v) return vx_fail(VRAMEST_E_INVALID_ARG, "option '%s': NULL value", d->name);
    if (d->type == VRAMEST_TYPE_ENUM) {
        int64_t e = 0;
        if ((rc = enum_from_name(d, v, &e))) return rc;
        memcpy((char *)base + d->offset, &e, sizeof e);
        mark(set_bits, slot, true);
        return VRAMEST_OK;
    }
    if (d->type == VRAMEST_TYPE_BOOL) {
        int64_t b;
        if (!vx_strcasecmp(v, "true") || !strcmp(v, "1"))
            b = 1;
        else if (!vx_strcasecmp(v, "false") || !strcmp(v, "0"))
            b = 0;
        else
            return vx_fail(VRAMEST_E_TYPE, "option '%s' is a bool: '%s' is not true/false", d->name, v);
        return vx_opt_set_i64(base, set_bits, handle, key, b);
    }
    if (d->type != VRAMEST_TYPE_STRING)
        return vx_fail(VRAMEST_E_TYPE, "option '%s' is a %s: set it with _set_%s", d->name, type_name(d->type),
                       d->type == VRAMEST_TYPE_F64 ? "f64" : "i64");
    size_t n = strlen(v);
    if (n + 1 > VX_STR_MAX || (double)n > d->max)
        return vx_fail(VRAMEST_E_RANGE, "option '%s': value of %zu bytes is longer than the %d allowed", d->name, n,
                       (int)(d->max < VX_STR_MAX - 1 ? d->max : VX_STR_MAX - 1));
    memcpy((char *)base + d->offset, v, n + 1);
    mark(set_bits, slot, true);
    return VRAMEST_OK;
}

int vx_opt_get_i64(const void *base, int handle, vramest_option key, int64_t *out)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    if (d->type == VRAMEST_TYPE_STRING || d->type == VRAMEST_TYPE_F64)
        return vx_fail(VRAMEST_E_TYPE, "option '%s' is a %s: read it with _get_%s", d->name, type_name(d->type),
                       d->type == VRAMEST_TYPE_F64 ? "f64" : "str");
    memcpy(out, (const char *)base + d->offset, sizeof *out);
    return VRAMEST_OK;
}

int vx_opt_get_f64(const void *base, int handle, vramest_option key, double *out)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    if (d->type == VRAMEST_TYPE_STRING)
        return vx_fail(VRAMEST_E_TYPE, "option '%s' is a string: read it with _get_str", d->name);
    if (d->type != VRAMEST_TYPE_F64) {
        int64_t v;
        memcpy(&v, (const char *)base + d->offset, sizeof v);
        *out = (double)v;
        return VRAMEST_OK;
    }
    memcpy(out, (const char *)base + d->offset, sizeof *out);
    return VRAMEST_OK;
}

int vx_opt_get_str(const void *base, int handle, vramest_option key, const char **out)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    if (d->type == VRAMEST_TYPE_ENUM) {
        int64_t v;
        memcpy(&v, (const char *)base + d->offset, sizeof v);
        *out = vx_enum_name_of(d->enums, v);
        if (!*out) return vx_fail(VRAMEST_E_INTERNAL, "option '%s' holds an invalid value %lld", d->name, (long long)v);
        return VRAMEST_OK;
    }
    if (d->type != VRAMEST_TYPE_STRING)
        return vx_fail(VRAMEST_E_TYPE, "option '%s' is a %s: read it with _get_%s", d->name, type_name(d->type),
                       d->type == VRAMEST_TYPE_F64 ? "f64" : "i64");
    *out = (const char *)base + d->offset;
    return VRAMEST_OK;
}

static void write_default(void *base, const vx_option_def *d)
{
    char *p = (char *)base + d->offset;
    if (d->type == VRAMEST_TYPE_F64) {
        memcpy(p, &d->def, sizeof d->def);
    } else if (d->type == VRAMEST_TYPE_STRING) {
        vx_strlcpy(p, d->def_str ? d->def_str : "", VX_STR_MAX);
    } else {
        int64_t v = (int64_t)d->def;
        memcpy(p, &v, sizeof v);
    }
}

int vx_opt_reset(void *base, uint64_t *set_bits, int handle, vramest_option key)
{
    const vx_option_def *d;
    size_t slot;
    int rc = lookup(handle, key, &d, &slot);
    if (rc) return rc;
    write_default(base, d);
    mark(set_bits, slot, false);
    return VRAMEST_OK;
}

void vx_opt_defaults(void *base, uint64_t *set_bits, int handle)
{
    const vx_table *t = &tables[handle - 1];
    for (size_t i = 0; i < *t->count; i++) write_default(base, &t->rows[i]);
    if (set_bits) memset(set_bits, 0, VX_SET_WORDS * sizeof *set_bits);
}

void vx_opt_defaults_zeroed(void *base, uint64_t *set_bits, int handle)
{
    /* The pre-rendered echo (option_index.h) holds each row's field and
     * default bytes, and lists the rows whose default is not all zero
     * bytes: on zeroed memory only those need a write. Its rows must be
     * the whole table (not so in the generator's own build, nor for the
     * model table). */
    const vx_optecho *pre = &vx_optecho_of[handle - 1];
    const vx_table *t = &tables[handle - 1];
    if (!pre->rows || pre->group_start[VX_ECHO_GROUPS] != *t->count) {
        vx_opt_defaults(base, set_bits, handle);
        return;
    }
    for (uint32_t i = 0; i < pre->n_nonzero; i++) {
        const vx_optecho_row *e = &pre->rows[pre->nonzero[i]];
        char *p = (char *)base + e->field;
        if (e->string)
            vx_strlcpy(p, t->rows[e->row].def_str, VX_STR_MAX);
        else
            memcpy(p, &e->bits, sizeof e->bits);
    }
    if (set_bits) memset(set_bits, 0, VX_SET_WORDS * sizeof *set_bits);
}

static bool differs_from_default(const vx_option_def *d, const void *base)
{
    const char *p = (const char *)base + d->offset;
    if (d->type == VRAMEST_TYPE_F64) {
        double v;
        memcpy(&v, p, sizeof v);
        return v != d->def;
    }
    if (d->type == VRAMEST_TYPE_STRING) return strcmp(p, d->def_str ? d->def_str : "") != 0;
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v != (int64_t)d->def;
}

const vx_option_def *vx_opt_first_unmodelled(const void *base, const uint64_t *set_bits, int handle)
{
    const vx_table *t = &tables[handle - 1];
    size_t n = *t->count, marked = n < 64 * VX_SET_WORDS ? n : 64 * VX_SET_WORDS;
    /* Values change through the setters, which mark them; an unmarked one
     * holds its default. Only marked rows (in row order) need a look. */
    for (size_t w = 0; w < VX_SET_WORDS && w * 64 < marked; w++)
        for (uint64_t bits = set_bits[w]; bits; bits &= bits - 1) {
            size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
            if (i >= marked) break;
            const vx_option_def *d = &t->rows[i];
            if (!d->modelled && differs_from_default(d, base)) return d;
        }
    for (size_t i = marked; i < n; i++)
        if (!t->rows[i].modelled && differs_from_default(&t->rows[i], base)) return &t->rows[i];
    return NULL;
}

/* ---- public introspection ---- */

VRAMEST_API int vramest_option_from_name(const char *name, vramest_option *out)
{
    if (!name || !out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_option_from_name: NULL argument");
    const vx_option_def *d = vx_option_find_name(name);
    if (!d) {
        vx_close c;
        vx_close_init(&c, name, 3);
        for (size_t t = 0; t < VX_ARRAY_LEN(tables); t++)
            for (size_t i = 0; i < *tables[t].count; i++) vx_close_offer(&c, tables[t].rows[i].name);
        if (c.best[0])
            return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "unknown option '%s' (did you mean '%s'?)", name, c.best[0]);
        return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "unknown option '%s'", name);
    }
    *out = d->key;
    return VRAMEST_OK;
}

VRAMEST_API int vramest_option_lookup(int handle, const char *name, vramest_option *out)
{
    if (!name || !out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_option_lookup: NULL argument");
    if (handle < VRAMEST_HANDLE_MODEL || handle > VRAMEST_HANDLE_CONFIG)
        return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_option_lookup: unknown handle kind %d", handle);
    const vx_option_def *d = vx_option_named(handle, name, strlen(name), VX_NAME_ANY, NULL);
    if (d) {
        *out = d->key;
        return VRAMEST_OK;
    }
    static const char *kinds[] = {"?", "model", "precision", "config"};
    return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "no %s option is named '%s'", kinds[handle], name);
}

VRAMEST_API const char *vramest_option_name(vramest_option key)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    return d ? d->name : NULL;
}

VRAMEST_API int vramest_option_info(vramest_option key, int *out_type, int *out_handle, double *out_min,
                                    double *out_max, double *out_default)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    if (!d) return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "unknown option key %d", (int)key);
    if (out_type) *out_type = d->type;
    if (out_handle) *out_handle = d->handle;
    if (out_min) *out_min = d->min;
    if (out_max) *out_max = d->max;
    if (out_default) *out_default = d->type == VRAMEST_TYPE_STRING ? 0 : d->def;
    return VRAMEST_OK;
}

VRAMEST_API const char *vramest_option_default_str(vramest_option key)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    if (!d) return NULL;
    switch (d->type) {
    case VRAMEST_TYPE_STRING: return d->def_str ? d->def_str : "";
    case VRAMEST_TYPE_ENUM: return vx_enum_name_of(d->enums, (int64_t)d->def);
    case VRAMEST_TYPE_BOOL: return d->def != 0 ? "true" : "false";
    default:
        /* Numeric defaults as text live in the row's def_str when given. */
        return d->def_str ? d->def_str : NULL;
    }
}

VRAMEST_API const char *vramest_option_description(vramest_option key)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    return d ? d->desc : NULL;
}

VRAMEST_API const char *vramest_option_group(vramest_option key)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    return d ? d->group : NULL;
}

VRAMEST_API uint32_t vramest_option_count(void)
{
    size_t n = 0;
    for (size_t t = 0; t < VX_ARRAY_LEN(tables); t++) n += *tables[t].count;
    return (uint32_t)n;
}

VRAMEST_API int vramest_option_at(uint32_t index, vramest_option *out)
{
    if (!out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_option_at: NULL out");
    size_t i = index;
    for (size_t t = 0; t < VX_ARRAY_LEN(tables); t++) {
        if (i < *tables[t].count) {
            *out = tables[t].rows[i].key;
            return VRAMEST_OK;
        }
        i -= *tables[t].count;
    }
    return vx_fail(VRAMEST_E_RANGE, "option index %u out of range [0, %u)", index, vramest_option_count());
}

VRAMEST_API const char *vramest_option_value_name(vramest_option key, int64_t value)
{
    const vx_option_def *d = vx_option_find(key, NULL);
    if (!d || d->type != VRAMEST_TYPE_ENUM) return NULL;
    return vx_enum_name_of(d->enums, value);
}

VRAMEST_API int vramest_option_value_from_name(vramest_option key, const char *name, int64_t *out)
{
    if (!name || !out) return vx_fail(VRAMEST_E_INVALID_ARG, "vramest_option_value_from_name: NULL argument");
    const vx_option_def *d = vx_option_find(key, NULL);
    if (!d) return vx_fail(VRAMEST_E_UNKNOWN_OPTION, "unknown option key %d", (int)key);
    if (d->type != VRAMEST_TYPE_ENUM) return vx_fail(VRAMEST_E_TYPE, "option '%s' is not an enum", d->name);
    return enum_from_name(d, name, out);
}
