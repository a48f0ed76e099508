/* Version strings of the software stack (runtime.torch_version,
 * runtime.transformers_version, runtime.framework_version): one comparable
 * int per string, parsed once when the option is set. Which forms a project
 * accepts, its known range and its current release are in the runtime
 * table (runtime.h); this file only reads and writes the forms. */
#ifndef VX_VERSION_H
#define VX_VERSION_H

#include <stddef.h>

/* major.minor.patch as one int that sorts in release order. A date
 * YYYY-MM[-DD] encodes as the release YYYY.MM.DD, so Unsloth's date-like
 * releases ("2026.8.19") and a snapshot date ("2026-08") of the same
 * project compare with each other. Majors up to 2146 fit an int. */
#define VX_VER(maj, min, patch) ((maj) * 1000000 + (min) * 1000 + (patch))
#define VX_VER_MAJOR(v) ((v) / 1000000)
#define VX_VER_MINOR(v) ((v) / 1000 % 1000)
#define VX_VER_PATCH(v) ((v) % 1000)
/* Above every version: an open upper end of a rule's range. */
#define VX_VER_MAX 2146999999

/* The forms of a version string, as a mask of what a project accepts:
 *   RELEASE  [v]MAJOR.MINOR[.PATCH][suffix]: "2.9", "4.44.2", "v0.6.1",
 *            "2.5.0.dev20240907", "1.13.0a0", "2.4.0+cu121" (a pre-release or
 *            local suffix counts as its release);
 *   BUILD    bNUMBER: a llama.cpp build such as "b4823";
 *   DATE     YYYY-MM or YYYY-MM-DD: a snapshot of a project without releases. */
enum { VX_VS_RELEASE = 1, VX_VS_BUILD = 2, VX_VS_DATE = 4 };

/* Parse `s` in one of the forms of `schemes` into *out (> 0) and the form
 * found into *form (may be NULL). Returns 0, or -1 when `s` is none of
 * them; sets no error message (the caller names the option and the forms
 * it takes). */
int vx_version_parse(const char *s, int schemes, int *out, int *form);

/* `v` written in `form` ("2.13", "0.6.1", "b4823", "2026-08"): the patch and
 * a date's day only when non-zero. Always NUL-terminates `buf`. */
void vx_version_format(int v, int form, char *buf, size_t cap);

/* The forms of `schemes` in words, for messages: "a release such as 2.9". */
const char *vx_version_forms(int schemes);

#endif
