/* #VRAMEST directives in a batch script.
 *
 * Like #SBATCH, they sit in the script's leading comment block: scanning
 * stops at the first line that is neither blank nor a comment. Every
 * "#VRAMEST" line adds its text; the lines together are either
 *
 *   - CLI words, the same as the vramest command line:
 *       #VRAMEST --model qwen3-8b --set mode=train --set batch_size=8
 *       #VRAMEST --precision bf16 --set gradient_checkpointing=full
 *     or `#VRAMEST --spec /shared/specs/job.json` (a job-spec file), or
 *   - an inline JSON job spec (docs/guide.md), when the text starts with '{':
 *       #VRAMEST {"model": "qwen3-8b",
 *       #VRAMEST  "workload": {"mode": "train", "batch_size": 8}}
 *
 * Words may be quoted with '...' or "..." (no escapes). The device and the
 * GPU count are not words: they come from the job's GPU request. */
#ifndef VS_DIRECTIVE_H
#define VS_DIRECTIVE_H

#include <stddef.h>

typedef enum vs_dir_kind {
    VS_DIR_NONE = 0, /* no #VRAMEST line */
    VS_DIR_WORDS,    /* --model/--precision/--set */
    VS_DIR_SPECFILE, /* --spec FILE */
    VS_DIR_JSON      /* an inline JSON spec (text, len) */
} vs_dir_kind;

#define VS_DIR_MAX_WORDS 512

typedef struct vs_directive {
    vs_dir_kind kind;
    char *text; /* the lines' text joined with '\n' (owned) */
    size_t len;
    unsigned first_line; /* script line of the first #VRAMEST */
    /* VS_DIR_WORDS / VS_DIR_SPECFILE: pointers into `arena` */
    const char *model, *precision, *spec_path;
    const char **sets; /* "key=value" */
    size_t nsets;
    char *arena;
} vs_directive;

/* Find and parse the directives of `script` (NUL-terminated; NULL for jobs
 * without a script). Returns 0 with d->kind set (VS_DIR_NONE when there is
 * none), or -1 with a message naming the script line. d must be freed with
 * vs_directive_free() either way. */
int vs_directive_scan(const char *script, size_t max_bytes, vs_directive *d, char *err, size_t cap);

/* Parse CLI words alone (the text of the lines); used by scan and tests. */
int vs_directive_words(vs_directive *d, char *err, size_t cap);

void vs_directive_free(vs_directive *d);

#endif
