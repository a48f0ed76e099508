/* Opening the files of a model. Two hazards come from the paths a
 * scheduler's users write: a FIFO (or a device) named where a model file is
 * expected, whose open() or read() would block forever; and a link inside a
 * model directory pointing at a file the user could not read themselves,
 * whose bytes a parse error would then show. The first is refused by the
 * file's type before it is opened, and opened non-blocking in case it was
 * swapped; the second by resolving the link and comparing the opened file
 * with what the resolved path names. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/fileio.h"

static const char *type_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/* The Hugging Face hub cache keeps a snapshot's files as links into the
 * repository's blobs/: .../models--ORG--NAME/snapshots/REV -> ../../blobs/SHA
 * (huggingface_hub, file_download.py). The repository folder is the root. */
static void hub_repository(char *root)
{
    char *s = root, *hit = NULL;
    while ((s = strstr(s, "/snapshots/")) != NULL) hit = s++;
    if (!hit) return;
    char *start = hit;
    while (start > root && start[-1] != '/') start--;
    if (strncmp(start, "models--", 8) == 0) *hit = '\0';
}

int vx_fileroot_init(vx_fileroot *r, const char *dir, bool allow_anywhere)
{
    r->root = NULL;
    r->dir = dir;
    if (allow_anywhere) return VRAMEST_OK;
    char *rp = realpath(dir, NULL);
    if (!rp) return vx_fail(VRAMEST_E_IO, "cannot resolve the directory '%s': %s", dir, strerror(errno));
    hub_repository(rp);
    r->root = rp;
    return VRAMEST_OK;
}

void vx_fileroot_free(vx_fileroot *r)
{
    free(r->root);
    r->root = NULL;
}

static bool inside(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/') return true;
    return strncmp(path, root, n) == 0 && path[n] == '/';
}

/* The opened file must be the one the resolved path names, and that path
 * must lie under the root. */
static int check_contained(const vx_file *f, const struct stat *opened, const vx_fileroot *r)
{
    char *rp = realpath(f->path, NULL);
    if (!rp) return vx_fail(VRAMEST_E_IO, "cannot resolve '%s': %s", f->path, strerror(errno));
    struct stat st;
    int rc = VRAMEST_OK;
    if (!inside(r->root, rp))
        rc = vx_fail(VRAMEST_E_IO,
                     "'%s' is a link to a file outside the model directory '%s': refused (a caller that trusts "
                     "the directory's links passes VRAMEST_PARSE_ALLOW_EXTERNAL_LINKS to vramest_model_parse_path)",
                     f->path, r->dir);
    else if (stat(rp, &st) != 0 || st.st_dev != opened->st_dev || st.st_ino != opened->st_ino)
        rc = vx_fail(VRAMEST_E_IO, "'%s' changed while it was opened", f->path);
    free(rp);
    return rc;
}

int vx_file_open(vx_file *f, const char *path, const vx_fileroot *root)
{
    f->path = path;
    f->fd = -1;
    f->size = 0;
    /* Refused by type before open(): opening a FIFO blocks until a writer
     * comes, and opening a device may act on it. */
    struct stat st;
    if (stat(path, &st) != 0) return vx_fail(VRAMEST_E_IO, "cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return vx_fail(VRAMEST_E_IO, "'%s' is %s, not a regular file: refused", path, type_of(st.st_mode));
    f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (f->fd < 0) return vx_fail(VRAMEST_E_IO, "cannot open '%s': %s", path, strerror(errno));
    int rc = VRAMEST_OK;
    if (fstat(f->fd, &st) != 0)
        rc = vx_fail(VRAMEST_E_IO, "cannot stat '%s': %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = vx_fail(VRAMEST_E_IO, "'%s' is %s, not a regular file: refused", path, type_of(st.st_mode));
    else if (root && root->root)
        rc = check_contained(f, &st, root);
    if (rc == VRAMEST_OK) {
        /* Reads of a regular file never block; the flag only guarded open(). */
        int fl = fcntl(f->fd, F_GETFL);
        if (fl != -1) (void)fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK);
        f->size = (uint64_t)st.st_size;
        return VRAMEST_OK;
    }
    vx_file_close(f);
    return rc;
}

void vx_file_close(vx_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

int vx_file_read(const vx_file *f, uint64_t off, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(f->fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return vx_fail(VRAMEST_E_IO, "cannot read '%s' at byte %llu: %s", f->path,
                           (unsigned long long)(off + got), strerror(errno));
        }
        if (r == 0)
            return vx_fail(VRAMEST_E_IO, "'%s' ended at byte %llu while reading %zu bytes at %llu", f->path,
                           (unsigned long long)(off + got), len, (unsigned long long)off);
        got += (size_t)r;
    }
    return VRAMEST_OK;
}

int vx_file_slurp(const char *path, const vx_fileroot *root, size_t cap, char **out, size_t *out_len)
{
    vx_file f;
    int rc = vx_file_open(&f, path, root);
    if (rc) return rc;
    if (f.size > cap) {
        vx_file_close(&f);
        return vx_fail(VRAMEST_E_LIMIT, "'%s' is %llu bytes, more than the %zu read for this kind of file", path,
                       (unsigned long long)f.size, cap);
    }
    char *buf = malloc((size_t)f.size + 1);
    if (!buf) {
        vx_file_close(&f);
        return vx_fail(VRAMEST_E_NOMEM, "out of memory reading '%s'", path);
    }
    rc = vx_file_read(&f, 0, buf, (size_t)f.size);
    vx_file_close(&f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[f.size] = '\0';
    *out = buf;
    *out_len = (size_t)f.size;
    return VRAMEST_OK;
}

const char *vx_path_base(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

bool vx_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

char *vx_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    size_t k = a;
    if (k && p[k - 1] != '/') p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}
