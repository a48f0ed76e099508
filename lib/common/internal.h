/* Internal helpers shared by every module: errors, checked arithmetic, limits.
 * Nothing here is exported; the public API is include/vramest/vramest.h. */
#ifndef VX_INTERNAL_H
#define VX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vramest/vramest.h"

#if defined(__GNUC__)
#define VX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define VX_HIDDEN __attribute__((visibility("hidden")))
#else
#define VX_PRINTF(a, b)
#define VX_HIDDEN
#endif

/* Handle tags: the first field of every handle, so a handle of the wrong kind
 * (a model passed where a config is expected, easy through ctypes c_void_p)
 * is rejected instead of misread. */
#define VX_MAGIC_MODEL 0x4d4f444cu  /* "MODL" */
#define VX_MAGIC_PREC 0x50524543u   /* "PREC" */
#define VX_MAGIC_CONFIG 0x43464721u /* "CFG!" */
#define VX_MAGIC_RESULT 0x52534c54u /* "RSLT" */
#define VX_MAGIC_DEAD 0xdeadbeefu

/* Limits that protect a long-running scheduler from hostile input. */
#define VX_MAX_HEADER_BYTES (100u * 1024u * 1024u) /* safetensors JSON header, GGUF metadata */
#define VX_MAX_TENSORS 1000000u                     /* tensor entries in one file */
#define VX_MAX_JSON_DEPTH 64                        /* nesting of any JSON input */
#define VX_MAX_NAME 256                             /* tensor / key name length kept */
#define VX_MAX_DIM ((int64_t)1 << 40)               /* one tensor dimension */
#define VX_MAX_SPEC_BYTES (16u * 1024u * 1024u)     /* a job spec */

/* Record a failure on this thread and return `code`. The message should say
 * what was wrong: the key, the value, the byte offset. The code is the
 * value of the expression itself, not only of the call, so the compiler
 * sees that a `return vx_fail(VRAMEST_E_..., ...)` never returns OK: a
 * caller's `if (rc) return rc;` then provably leaves no output unset. */
int vx_fail_msg(int code, const char *fmt, ...) VX_PRINTF(2, 3) VX_HIDDEN;
#define vx_fail(code, ...)                    \
    __extension__({                           \
        int vx_code_ = (code);                \
        vx_fail_msg(vx_code_, __VA_ARGS__);   \
        vx_code_;                             \
    })
/* Prepend context ("config.json: ") to the current message, keep the code. */
int vx_fail_prefix(int code, const char *prefix) VX_HIDDEN;

/* Checked arithmetic: return false on overflow (the result is then unspecified). */
static inline bool vx_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool vx_add(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}
/* Saturating forms for sums of already-validated terms: a saturated value is
 * still "does not fit" for any real device, and the caller reports overflow. */
static inline uint64_t vx_sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
static inline uint64_t vx_sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
static inline uint64_t vx_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t vx_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t vx_ceil_div(uint64_t a, uint64_t b) { return b ? a / b + (a % b != 0) : 0; }
static inline uint64_t vx_round_up(uint64_t a, uint64_t m) { return m ? vx_sat_mul(vx_ceil_div(a, m), m) : a; }

#define VX_KIB ((uint64_t)1024)
#define VX_MIB ((uint64_t)1024 * 1024)
#define VX_GIB ((uint64_t)1024 * 1024 * 1024)

#define VX_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Case-insensitive ASCII comparison (names of dtypes, presets, devices). */
int vx_strcasecmp(const char *a, const char *b) VX_HIDDEN;
/* Copy with truncation; always NUL-terminates when cap > 0. Returns strlen(src). */
size_t vx_strlcpy(char *dst, const char *src, size_t cap) VX_HIDDEN;
/* Is `name` one of the comma-separated names in `list` (case-insensitive)? */
bool vx_in_list(const char *list, const char *name) VX_HIDDEN;
/* "12.34 GiB" (or MiB/KiB/B) for messages. */
void vx_format_bytes(uint64_t bytes, char *buf, size_t cap) VX_HIDDEN;
/* Levenshtein distance, case-insensitive, over at most 63 characters. */
unsigned vx_edit_distance(const char *a, const char *b) VX_HIDDEN;

/* The (up to three) names closest to `name`, for "did you mean" in errors:
 * offer every candidate; one more than `limit` edits away is not kept
 * (VX_CLOSE_ANY: none is too far); of equally close names the first
 * offered ranks first. best[i] is NULL past the names kept. */
#define VX_CLOSE_N 3
#define VX_CLOSE_ANY 63u /* the largest distance vx_edit_distance returns */
typedef struct vx_close {
    const char *name;
    size_t len; /* strlen(name) */
    bool prefix; /* a candidate that `name` (3+ characters) begins counts as one edit away */
    const char *best[VX_CLOSE_N];
    unsigned d[VX_CLOSE_N];
} vx_close;
void vx_close_init(vx_close *c, const char *name, unsigned limit) VX_HIDDEN;
void vx_close_offer(vx_close *c, const char *cand) VX_HIDDEN;

#endif
