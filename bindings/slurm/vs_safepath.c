/* Checked opening of user-named paths (see vs_safepath.h for the rule and
 * why it is checked rather than assumed with setfsuid). */
#define _GNU_SOURCE /* O_PATH */
#include "vs_safepath.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "vs_util.h"

#define MAX_SYMLINKS 8
#define PERM_R 4u
#define PERM_X 1u

int vs_who_lookup(uint32_t uid, uint32_t gid, vs_who *who, char *err, size_t cap)
{
    memset(who, 0, sizeof *who);
    who->uid = uid;
    struct passwd pw, *res = NULL;
    char buf[16384];
    int rc = getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &res);
    if (rc || !res) return vs_fail(err, cap, "uid %u is not in the passwd database", uid);
    who->gid = gid == (uint32_t)-1 ? (uint32_t)pw.pw_gid : gid;
    gid_t groups[VS_MAX_GROUPS];
    int n = VS_MAX_GROUPS;
    /* More groups than fit: the first VS_MAX_GROUPS count, so a permission
     * that needs a later one is refused, never granted. */
    if (getgrouplist(pw.pw_name, (gid_t)who->gid, groups, &n) < 0) n = VS_MAX_GROUPS;
    for (int i = 0; i < n && i < VS_MAX_GROUPS; i++) who->groups[who->ngroups++] = (uint32_t)groups[i];
    return 0;
}

static bool in_groups(const vs_who *w, uint32_t gid)
{
    if (w->gid == gid) return true;
    for (size_t i = 0; i < w->ngroups; i++)
        if (w->groups[i] == gid) return true;
    return false;
}

/* The kernel's discretionary rule without capabilities: one class decides. */
static bool may(const struct stat *st, const vs_who *w, unsigned want)
{
    if (w->uid == 0) return true;
    unsigned bits;
    if (st->st_uid == w->uid)
        bits = (st->st_mode >> 6) & 7u;
    else if (in_groups(w, st->st_gid))
        bits = (st->st_mode >> 3) & 7u;
    else
        bits = st->st_mode & 7u;
    return (bits & want) == want;
}

static bool has_acl(int fd)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return getxattr(p, "system.posix_acl_access", NULL, 0) >= 0;
}

/* Lexically normalise an absolute path: no empty or "." components; ".."
 * refused, or (for symlink targets, whose prefix is already symlink-free)
 * applied. */
static int normalize(const char *in, char *out, size_t cap, bool dotdot_ok, char *err, size_t ecap)
{
    if (in[0] != '/') return vs_fail(err, ecap, "'%.200s' is not an absolute path", in);
    size_t o = 0;
    const char *p = in;
    while (*p) {
        while (*p == '/') p++;
        size_t n = vs_span_to(p, '/');
        if (!n) break;
        if (n == 1 && p[0] == '.') {
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (!dotdot_ok)
                return vs_fail(err, ecap, "'%.200s': path traversal ('..') is not allowed; give the full path", in);
            while (o && out[o - 1] != '/') o--;
            if (o) o--;
        } else {
            if (o + 1 + n + 1 > cap) return vs_fail(err, ecap, "'%.200s...': path too long", in);
            out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
    }
    if (!o) out[o++] = '/';
    out[o] = '\0';
    return 0;
}

static bool under(const char *path, const char *dir)
{
    size_t l = strlen(dir);
    if (l == 1) return true; /* allow = / */
    return !strncmp(path, dir, l) && (path[l] == '/' || path[l] == '\0');
}

static void allowed_list(const vs_conf *c, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < c->nallow; i++) vs_appendf(out, cap, "%s%s", i ? ", " : "", c->allow[i]);
    if (!c->nallow) vs_appendf(out, cap, "none: this site allows no model files");
}

static int fail_outside(const vs_conf *c, const char *orig, const char *cur, int hops, char *err, size_t cap)
{
    char list[512];
    allowed_list(c, list, sizeof list);
    if (hops)
        return vs_fail(err, cap, "'%.200s': a symlink leads to '%.200s', outside the directories vramest may read (%s)",
                       orig, cur, list);
    return vs_fail(err, cap, "'%.200s' is outside the directories vramest may read (%s)", orig, list);
}

/* Follow one step of the walk into a symlink: the new path in cur. */
static int follow(int linkfd, const char *walked, const char *rest, char *cur, size_t cap, const char *orig,
                  char *err, size_t ecap)
{
    char target[PATH_MAX], joined[2 * PATH_MAX + 2];
    ssize_t tl = readlinkat(linkfd, "", target, sizeof target - 1);
    if (tl < 0) return vs_fail(err, ecap, "'%.200s': cannot read a symlink: %s", orig, strerror(errno));
    target[tl] = '\0';
    if (target[0] == '/')
        snprintf(joined, sizeof joined, "%s/%s", target, rest);
    else
        snprintf(joined, sizeof joined, "%s/%s/%s", walked, target, rest);
    return normalize(joined, cur, cap, true, err, ecap);
}

static bool allowed(const vs_conf *c, const char *path)
{
    /* As written too: a site path through a symlink (/shared -> /mnt/shared)
     * is resolved by the walk, which checks the result again. */
    for (size_t i = 0; i < c->nallow; i++)
        if (under(path, c->allow[i]) || under(path, c->written[i])) return true;
    return false;
}

/* The final object of a walk: a directory the user may list, or a regular
 * file the user may read, opened for reading. */
static int open_final(int parent, int self, const char *last, const struct stat *st, const vs_who *who,
                      const char *shown, vs_file *out, char *err, size_t cap)
{
    if (has_acl(self))
        return vs_fail(err, cap, "'%.200s' has a POSIX ACL, which vramest does not evaluate", shown);
    int fd;
    if (S_ISDIR(st->st_mode)) {
        if (!may(st, who, PERM_R | PERM_X))
            return vs_fail(err, cap, "uid %u may not list the directory '%.200s'", who->uid, shown);
        fd = openat(self, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else if (S_ISREG(st->st_mode)) {
        if (!may(st, who, PERM_R)) return vs_fail(err, cap, "uid %u may not read '%.200s'", who->uid, shown);
        /* O_NONBLOCK and O_NOFOLLOW: if the name was swapped for a FIFO or a
         * link since the check, the open neither blocks nor follows it. */
        fd = openat(parent, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    } else {
        return vs_fail(err, cap, "'%.200s' is not a regular file or a directory", shown);
    }
    struct stat now;
    if (fd < 0) return vs_fail(err, cap, "'%.200s': %s", shown, strerror(errno));
    if (fstat(fd, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
        close(fd);
        return vs_fail(err, cap, "'%.200s' changed while it was being checked", shown);
    }
    out->fd = fd;
    out->is_dir = S_ISDIR(now.st_mode);
    out->dev = (uint64_t)now.st_dev, out->ino = (uint64_t)now.st_ino, out->size = (uint64_t)now.st_size;
    out->mtime_sec = (int64_t)now.st_mtim.tv_sec, out->mtime_nsec = (int64_t)now.st_mtim.tv_nsec;
    return 0;
}

int vs_open_checked(const vs_conf *c, const char *path, const vs_who *who, vs_file *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    char cur[PATH_MAX], walked[PATH_MAX], name[NAME_MAX + 1];
    if (strnlen(path, PATH_MAX) >= PATH_MAX) return vs_fail(err, cap, "'%.200s...': path too long", path);
    if (normalize(path, cur, sizeof cur, false, err, cap)) return -1;
    for (int hops = 0;;) {
        if (!allowed(c, cur)) return fail_outside(c, path, cur, hops, err, cap);
        int parent = -1, self = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        if (self < 0 || fstat(self, &st) != 0) {
            if (self >= 0) close(self);
            return vs_fail(err, cap, "cannot open '/': %s", strerror(errno));
        }
        walked[0] = '\0';
        name[0] = '\0';
        const char *p = cur + 1;
        int rc = 0, restart = 0;
        while (*p && !rc) {
            size_t n = vs_span_to(p, '/');
            if (n > NAME_MAX) {
                rc = vs_fail(err, cap, "'%.200s': a path component is longer than %d bytes", path, NAME_MAX);
                break;
            }
            const char *shown = walked[0] ? walked : "/";
            if (!S_ISDIR(st.st_mode)) {
                rc = vs_fail(err, cap, "'%.200s' is not a directory", shown);
            } else if (!may(&st, who, PERM_X)) {
                rc = vs_fail(err, cap, "uid %u may not search the directory '%.200s'", who->uid, shown);
            } else if (has_acl(self)) {
                rc = vs_fail(err, cap, "'%.200s' has a POSIX ACL, which vramest does not evaluate", shown);
            }
            if (rc) break;
            memcpy(name, p, n);
            name[n] = '\0';
            int next = openat(self, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            struct stat nst;
            if (next < 0 || fstat(next, &nst) != 0) {
                rc = vs_fail(err, cap, "'%.200s/%s': %s", walked, name, strerror(errno));
                if (next >= 0) close(next);
                break;
            }
            p += n;
            while (*p == '/') p++;
            if (S_ISLNK(nst.st_mode)) {
                if (++hops > MAX_SYMLINKS)
                    rc = vs_fail(err, cap, "'%.200s': more than %d symlinks", path, MAX_SYMLINKS);
                else if (!follow(next, walked, p, cur, sizeof cur, path, err, cap))
                    restart = 1;
                else
                    rc = -1;
                close(next);
                break;
            }
            size_t wl = strlen(walked);
            snprintf(walked + wl, sizeof walked - wl, "/%s", name);
            if (parent >= 0) close(parent);
            parent = self, self = next, st = nst;
        }
        if (!rc && !restart) {
            rc = open_final(parent, self, name, &st, who, walked[0] ? walked : "/", out, err, cap);
            if (!rc) snprintf(out->path, sizeof out->path, "%s", walked[0] ? walked : "/");
        }
        if (parent >= 0) close(parent);
        close(self);
        if (!restart) return rc;
    }
}

int vs_open_entry(const vs_conf *c, const vs_file *dir, const char *name, const vs_who *who, vs_file *out,
                  char *err, size_t cap)
{
    if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return vs_fail(err, cap, "'%.200s' is not a file name", name);
    char p[PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir->path, name) >= sizeof p)
        return vs_fail(err, cap, "'%.200s/%.200s': path too long", dir->path, name);
    return vs_open_checked(c, p, who, out, err, cap);
}

void vs_file_close(vs_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}
