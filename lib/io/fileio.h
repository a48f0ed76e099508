/* Opening the files of a model: regular files only, never blocking, and
 * links inside a model directory kept inside it (docs/security.md). */
#ifndef VX_FILEIO_H
#define VX_FILEIO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/internal.h"

typedef struct vx_file {
    int fd;
    uint64_t size;
    const char *path; /* the caller's spelling, for messages */
} vx_file;

/* Where the files a directory or an index names may resolve to: `root` is
 * the real path of the model's directory (for a Hugging Face hub snapshot,
 * models--ORG--NAME/snapshots/REV, the repository folder models--ORG--NAME,
 * whose blobs/ the snapshot links into). NULL: anywhere (a file the caller
 * named itself, or VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS). */
typedef struct vx_fileroot {
    char *root;
    const char *dir; /* the caller's spelling of the directory, for messages */
} vx_fileroot;

/* `allow_anywhere`: no containment (root stays NULL). */
int vx_fileroot_init(vx_fileroot *r, const char *dir, bool allow_anywhere) VX_HIDDEN;
void vx_fileroot_free(vx_fileroot *r) VX_HIDDEN;

/* Open `path` for reading. Anything but a regular file (a FIFO, a device, a
 * socket, a directory) is VRAMEST_E_IO before it is opened, and the open
 * never blocks (O_NONBLOCK), so a FIFO swapped in meanwhile is refused too.
 * With a root (may be NULL), the file must resolve inside it: VRAMEST_E_IO
 * otherwise, naming the link, never its target's content. */
int vx_file_open(vx_file *f, const char *path, const vx_fileroot *root) VX_HIDDEN;
/* Exactly `len` bytes at `off`, else VRAMEST_E_IO. */
int vx_file_read(const vx_file *f, uint64_t off, void *buf, size_t len) VX_HIDDEN;
void vx_file_close(vx_file *f) VX_HIDDEN;
/* A whole file of at most `cap` bytes into a malloc'd, NUL-terminated buffer. */
int vx_file_slurp(const char *path, const vx_fileroot *root, size_t cap, char **out, size_t *out_len) VX_HIDDEN;

/* "dir/name" (malloc'd, NULL when out of memory). */
char *vx_path_join(const char *dir, const char *name) VX_HIDDEN;
const char *vx_path_base(const char *path) VX_HIDDEN;
bool vx_ends_with(const char *s, const char *suffix) VX_HIDDEN;

#endif
