/* The option-name index: every option name and alias of the three option
 * tables, in a perfect hash generated at build time from the tables
 * themselves (option_index_gen.c writes option_index.c), and each table's
 * rows by key. A name costs one pass over its bytes, two integer mixes and
 * one comparison; a key, two comparisons and a load.
 *
 * Names and aliases are matched case-insensitively when hashing; a
 * canonical name counts only when spelled exactly (names are lowercase, the
 * generator checks it), an alias in any case, as vx_in_list always did. */
#ifndef VX_OPTION_INDEX_H
#define VX_OPTION_INDEX_H

#include "common/internal.h"

#define VX_OPTREF_MAX 4 /* rows one spelling may name (kv_cache is a precision and a config option) */

typedef struct vx_optref {
    uint8_t table; /* 0 model, 1 precision, 2 config: handle kind - 1 */
    uint8_t alias; /* 1: the spelling is an alias of the row */
    uint16_t row;
} vx_optref;

/* One spelling and the rows it names: canonical rows first (table order),
 * then alias rows. */
typedef struct vx_optname {
    const char *name; /* lowercase */
    uint16_t len;
    uint8_t n_refs;
    vx_optref refs[VX_OPTREF_MAX];
} vx_optname;

/* A table's rows by key: rows[key - base] is the row index, or -1. */
typedef struct vx_optkeys {
    int32_t base;
    uint32_t count;
    const int16_t *rows;
} vx_optkeys;

/* The settings echo (result/settings_json.c) of a table, in the plan's
 * order, generated at build time: the rows of echo group g (settings_json.c
 * names the groups) are at positions group_start[g] .. group_start[g + 1];
 * position k's text at its default, `,"name":default`, is
 * text[off[k] .. off[k + 1]). NULL text: none (the model table; the
 * generator's own build). */
#define VX_ECHO_GROUPS 6
typedef struct vx_optecho_row {
    uint16_t row;    /* in the option table */
    uint16_t string; /* 1: a STRING option (compared as a string) */
    uint32_t field;  /* its offset in the values struct */
    uint64_t bits;   /* else the 8 bytes vx_opt_defaults writes there */
} vx_optecho_row;
typedef struct vx_optecho {
    const char *text;
    const uint32_t *off;
    const vx_optecho_row *rows;
    const uint16_t *group_start; /* VX_ECHO_GROUPS + 1 entries */
    /* The positions whose default is not all zero bytes (a non-empty
     * string, a non-zero number): what vx_opt_defaults_zeroed writes. */
    const uint16_t *nonzero;
    uint32_t n_nonzero;
} vx_optecho;

extern const vx_optname vx_optnames[] VX_HIDDEN;
extern const uint32_t vx_optname_count VX_HIDDEN;
extern const uint32_t vx_optname_buckets VX_HIDDEN; /* first-level buckets */
extern const uint32_t vx_optname_mask VX_HIDDEN;    /* slots - 1 (a power of two) */
extern const uint32_t vx_optname_seed[] VX_HIDDEN;  /* per bucket */
extern const uint16_t vx_optname_slot[] VX_HIDDEN;  /* index + 1 into vx_optnames, 0 = empty */
extern const vx_optkeys vx_optkeys_of[3] VX_HIDDEN;
extern const vx_optecho vx_optecho_of[3] VX_HIDDEN; /* by table, as vx_optref.table */

/* The hash both the generator and the lookup use: FNV-1a over the
 * ASCII-lowercased bytes, then a seed-dependent finalizer. */
static inline uint32_t vx_opthash_raw(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        if (c - 'A' < 26u) c += 'a' - 'A';
        h = (h ^ c) * 16777619u;
    }
    return h;
}

static inline uint32_t vx_opthash_mix(uint32_t h, uint32_t seed)
{
    h ^= seed * 0x9E3779B9u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

#endif
