/* Opening a user-named path inside slurmctld, as safely as the controller
 * can: only below the site's allowed directories, only what the job's user
 * could read themselves, never a FIFO or a device, and symlinks followed
 * only while they stay inside the allowed directories.
 *
 * Why a walk and not setfsuid(): reading "as the user" needs the user's
 * uid, gid and supplementary groups on the calling thread. setfsuid() is
 * per thread, but glibc's setgroups() changes every thread of slurmctld at
 * once, and a raw per-thread setgroups syscall would leave a controller
 * thread with a user's credentials if anything between the switch and the
 * switch back went wrong. So the plugin keeps the controller's credentials
 * and checks the kernel's own rule instead, component by component on file
 * descriptors opened with O_NOFOLLOW: search permission on every directory
 * from "/", read permission on the file, owner class first, then group
 * (primary and supplementary), then other. A file or directory that carries a
 * POSIX access ACL is refused, since its mode bits no longer tell the whole
 * rule. Root's jobs may read anything the controller can. */
#ifndef VS_SAFEPATH_H
#define VS_SAFEPATH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vs_conf.h"

#define VS_MAX_GROUPS 256

/* Whose permissions apply. */
typedef struct vs_who {
    uint32_t uid;
    uint32_t gid;
    uint32_t groups[VS_MAX_GROUPS]; /* supplementary groups, gid included */
    size_t ngroups;
} vs_who;

/* uid's groups from the passwd and group databases (gid: the job's group,
 * or (uint32_t)-1 for the user's primary group). */
int vs_who_lookup(uint32_t uid, uint32_t gid, vs_who *who, char *err, size_t cap);

typedef struct vs_file {
    int fd;      /* O_RDONLY; a directory when is_dir */
    int is_dir;
    char path[PATH_MAX]; /* canonical path, symlinks resolved */
    uint64_t dev, ino, size;
    int64_t mtime_sec, mtime_nsec;
} vs_file;

/* Open `path` for `who` under the allowed directories of `c`. Returns 0 with
 * out->fd open (close it with vs_file_close), or -1 with a message that names
 * the path and the reason, never the file's contents. */
int vs_open_checked(const vs_conf *c, const char *path, const vs_who *who, vs_file *out, char *err, size_t cap);

/* Open entry `name` (a bare file name) of an already checked directory the
 * same way. */
int vs_open_entry(const vs_conf *c, const vs_file *dir, const char *name, const vs_who *who, vs_file *out,
                  char *err, size_t cap);

void vs_file_close(vs_file *f);

#endif
