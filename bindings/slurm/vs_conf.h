/* vramest.conf: the site's settings for the job_submit/vramest plugin.
 *
 *   # Slurm GPU type (gres.conf Type=) = vramest GPU preset, or a size
 *   a100 = A100-80GB
 *   t4 = T4-16GB
 *   mi300x = 192GiB
 *   default = A100-80GB        # GPUs requested without a type
 *   allow = /shared/models     # model and spec files are read only below these (repeatable)
 *   require = no               # yes: GPU jobs without a #VRAMEST directive are rejected
 *   max_directive_bytes = 65536
 *   max_spec_bytes = 1048576
 *   max_model_bytes = 16777216
 *   cache_models = 64
 *
 * Every key but the reserved ones names a GPU type. Parsing is strict: an
 * unknown device, a duplicate key, a relative or missing directory, a number
 * out of range is an error naming the line, so a typo stops slurmctld at
 * start-up instead of silently changing verdicts. */
#ifndef VS_CONF_H
#define VS_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VS_CONF_MAX_TYPES 64
#define VS_CONF_MAX_ALLOW 16
#define VS_NAME_CAP 64

/* A device: a libvramest GPU preset, or a raw size when `preset` is empty. */
typedef struct vs_device {
    char preset[VS_NAME_CAP];
    double memory_gib;
} vs_device;

typedef struct vs_conf {
    struct {
        char type[VS_NAME_CAP];
        vs_device dev;
    } types[VS_CONF_MAX_TYPES];
    size_t ntypes;
    vs_device default_dev;
    bool has_default;
    char *allow[VS_CONF_MAX_ALLOW];   /* canonical absolute directories (realpath) */
    char *written[VS_CONF_MAX_ALLOW]; /* the same as the site wrote them */
    size_t nallow;
    bool require;
    size_t max_directive_bytes;
    size_t max_spec_bytes;
    size_t max_model_bytes;
    size_t cache_models;
} vs_conf;

/* Defaults: no types, no default device, no allowed directory (model files
 * refused; presets and inline architectures still work), require = no. */
void vs_conf_init(vs_conf *c);
void vs_conf_free(vs_conf *c);

/* Parse text[0..len) (need not be NUL-terminated) into c, which must be
 * freshly initialised. `origin` names the text in messages. On failure
 * returns -1 with "origin:LINE: reason" in err and c left to vs_conf_free. */
int vs_conf_parse(vs_conf *c, const char *text, size_t len, const char *origin, char *err, size_t cap);

/* Read and parse a file (at most 1 MiB). */
int vs_conf_load(vs_conf *c, const char *path, char *err, size_t cap);

/* The device for a Slurm GPU type ("" = untyped: the default), or NULL. */
const vs_device *vs_conf_device(const vs_conf *c, const char *type);

/* "A100-80GB" or "192 GiB": how messages name a device. */
void vs_device_label(const vs_device *d, char *out, size_t cap);

#endif
