/* Model files parsed from a private sparse mirror (see vs_mirror.h). */
#include "vs_mirror.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "vs_util.h"

#define MAX_FILES 1024       /* files of one model directory that are mirrored */
#define MAX_SCANNED 10000    /* directory entries looked at (per job: the fingerprint) */
#define INDEX_NAME "model.safetensors.index.json"

typedef enum copy_how { COPY_WHOLE, COPY_ST_HEADER, COPY_PREFIX } copy_how;

typedef struct mirror {
    const vs_conf *conf;
    const vs_who *who;
    char base[PATH_MAX]; /* the private directory */
    char root[PATH_MAX]; /* where the model's files go */
    char *made[MAX_FILES];
    size_t nmade;
    bool root_made;
    size_t budget; /* bytes still allowed to be copied */
    const char *shown; /* the user's path, for messages */
} mirror;

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static bool wanted(const char *name)
{
    return !strcmp(name, "config.json") || !strcmp(name, INDEX_NAME) || ends_with(name, ".safetensors") ||
           ends_with(name, ".gguf");
}

static int read_full(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* How much of a file the parsers read, by its name, else its first bytes. */
static int plan_copy(mirror *m, const vs_file *f, const char *name, uint64_t *len, char *err, size_t cap)
{
    unsigned char head[8] = {0};
    size_t hn = f->size < 8 ? (size_t)f->size : 8;
    if (hn && read_full(f->fd, head, hn, 0)) return vs_fail(err, cap, "'%.200s': read error", m->shown);
    copy_how how = ends_with(name, ".json")          ? COPY_WHOLE
                   : ends_with(name, ".gguf")         ? COPY_PREFIX
                   : ends_with(name, ".safetensors")  ? COPY_ST_HEADER
                   : (hn == 8 && !memcmp(head, "GGUF", 4)) ? COPY_PREFIX
                   : (hn && head[0] == '{')             ? COPY_WHOLE
                                                      : COPY_ST_HEADER;
    size_t limit = m->conf->max_model_bytes;
    if (how == COPY_WHOLE) {
        if (f->size > m->conf->max_spec_bytes)
            return vs_fail(err, cap, "'%.200s' (%s) is larger than max_spec_bytes (%zu)", m->shown, name,
                           m->conf->max_spec_bytes);
        *len = f->size;
    } else if (how == COPY_PREFIX) {
        *len = f->size < limit ? f->size : limit;
    } else {
        uint64_t hl = 0;
        for (int i = 7; i >= 0; i--) hl = (hl << 8) | head[i];
        if (hn < 8 || hl > limit - 8)
            return vs_fail(err, cap, "'%.200s': the safetensors header of %s is larger than max_model_bytes (%zu)",
                           m->shown, name, limit);
        *len = 8 + hl > f->size ? f->size : 8 + hl;
    }
    if (*len > m->budget)
        return vs_fail(err, cap, "'%.200s': the model's headers hold more than %zu bytes", m->shown,
                       4 * m->conf->max_model_bytes);
    m->budget -= (size_t)*len;
    return 0;
}

/* Copy what the parsers read of `f` to root/name, as a sparse file of f's size. */
static int copy_in(mirror *m, const vs_file *f, const char *name, char *err, size_t cap)
{
    if (m->nmade == MAX_FILES) return vs_fail(err, cap, "'%.200s': more than %d model files", m->shown, MAX_FILES);
    uint64_t len = 0;
    if (plan_copy(m, f, name, &len, err, cap)) return -1;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", m->root, name) >= sizeof path)
        return vs_fail(err, cap, "'%.200s': path too long", m->shown);
    int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) return vs_fail(err, cap, "cannot create a private copy of a model file: %s", strerror(errno));
    m->made[m->nmade] = strdup(path);
    if (!m->made[m->nmade]) {
        unlink(path);
        close(out);
        return vs_fail(err, cap, "out of memory");
    }
    m->nmade++;
    /* On the heap: slurmctld's RPC threads have small stacks. */
    size_t bufsz = 65536;
    char *buf = malloc(bufsz);
    int rc = buf ? 0 : vs_fail(err, cap, "out of memory");
    for (uint64_t off = 0; off < len && !rc;) {
        size_t n = len - off < bufsz ? (size_t)(len - off) : bufsz;
        if (read_full(f->fd, buf, n, off))
            rc = vs_fail(err, cap, "'%.200s': read error in %s", m->shown, name);
        else if (write(out, buf, n) != (ssize_t)n)
            rc = vs_fail(err, cap, "cannot write a private copy of a model file: %s", strerror(errno));
        off += n;
    }
    free(buf);
    if (!rc && ftruncate(out, (off_t)f->size) != 0)
        rc = vs_fail(err, cap, "cannot size a private copy of a model file: %s", strerror(errno));
    close(out);
    return rc;
}

static int copy_entry(mirror *m, const vs_file *dir, const char *name, char *err, size_t cap)
{
    vs_file ef;
    char why[VS_MSG_CAP];
    if (vs_open_entry(m->conf, dir, name, m->who, &ef, why, sizeof why))
        return vs_fail(err, cap, "%s", why);
    int rc = ef.is_dir ? vs_fail(err, cap, "'%.200s/%s' is a directory", dir->path, name)
                       : copy_in(m, &ef, name, err, cap);
    vs_file_close(&ef);
    return rc;
}

/* The shard names of an index: bare names of .safetensors files in `have`. */
static int check_index(mirror *m, const vs_file *dir, char **have, size_t nhave, char *err, size_t cap)
{
    vs_file idx;
    char why[VS_MSG_CAP];
    if (vs_open_entry(m->conf, dir, INDEX_NAME, m->who, &idx, why, sizeof why)) return vs_fail(err, cap, "%s", why);
    int rc = 0;
    size_t n = (size_t)idx.size;
    char *text = NULL;
    if (idx.is_dir || idx.size > m->conf->max_spec_bytes)
        rc = vs_fail(err, cap, "'%.200s/%s' is not an index file within max_spec_bytes", dir->path, INDEX_NAME);
    else if (!(text = malloc(n + 1)))
        rc = vs_fail(err, cap, "out of memory");
    else if (read_full(idx.fd, text, n, 0))
        rc = vs_fail(err, cap, "'%.200s/%s': read error", dir->path, INDEX_NAME);
    vs_file_close(&idx);
    json_object *root = NULL, *map = NULL;
    if (!rc) {
        json_tokener *tok = json_tokener_new_ex(32);
        root = tok ? json_tokener_parse_ex(tok, text, (int)n) : NULL;
        json_tokener_free(tok);
        if (!root || !json_object_object_get_ex(root, "weight_map", &map) ||
            !json_object_is_type(map, json_type_object))
            rc = vs_fail(err, cap, "'%.200s/%s' is not a safetensors index (no weight_map)", dir->path, INDEX_NAME);
    }
    if (!rc) {
        json_object_object_foreach(map, key, val)
        {
            (void)key;
            const char *shard = json_object_is_type(val, json_type_string) ? json_object_get_string(val) : "";
            bool ok = !strchr(shard, '/') && ends_with(shard, ".safetensors");
            bool found = false;
            for (size_t i = 0; ok && i < nhave && !found; i++) found = !strcmp(have[i], shard);
            if (!ok || !found) {
                rc = vs_fail(err, cap, "'%.200s/%s' names a shard that is not a .safetensors file of that directory",
                             dir->path, INDEX_NAME);
                break;
            }
        }
    }
    json_object_put(root);
    free(text);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A listing of a checked directory, from its start. */
static DIR *list_dir(const vs_file *dir, char *err, size_t cap)
{
    int fd = dup(dir->fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        vs_fail(err, cap, "'%.200s': cannot list: %s", dir->path, strerror(errno));
        return NULL;
    }
    rewinddir(d); /* the dup shares its position with every other listing of dir */
    return d;
}

/* Mirror the files of a checked directory the parsers would read. */
static int mirror_dir(mirror *m, const vs_file *dir, bool index_only, char *err, size_t cap)
{
    DIR *d = list_dir(dir, err, cap);
    if (!d) return -1;
    char **names = calloc(MAX_FILES, sizeof *names);
    size_t n = 0, scanned = 0;
    int rc = names ? 0 : vs_fail(err, cap, "out of memory");
    bool has_index = false;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (++scanned > MAX_SCANNED) {
            rc = vs_fail(err, cap, "'%.200s' holds more than %d entries", dir->path, MAX_SCANNED);
        } else if (wanted(e->d_name) && (!index_only || strcmp(e->d_name, "config.json") != 0)) {
            if (n == MAX_FILES)
                rc = vs_fail(err, cap, "'%.200s' holds more than %d model files", dir->path, MAX_FILES);
            else if (!(names[n++] = strdup(e->d_name)))
                rc = vs_fail(err, cap, "out of memory");
            has_index |= !strcmp(e->d_name, INDEX_NAME);
        }
    }
    closedir(d);
    if (!rc && n) qsort(names, n, sizeof *names, cmp_str);
    if (!rc && has_index) rc = check_index(m, dir, names, n, err, cap);
    for (size_t i = 0; !rc && i < n; i++) {
        /* An index mirrors only itself and the shards it names (all checked). */
        if (index_only && !has_index) break;
        if (index_only && !ends_with(names[i], ".safetensors") && strcmp(names[i], INDEX_NAME) != 0) continue;
        rc = copy_entry(m, dir, names[i], err, cap);
    }
    for (size_t i = 0; names && i < n; i++) free(names[i]);
    free(names);
    return rc;
}

int vs_dir_fingerprint(const vs_file *dir, uint64_t *out, char *err, size_t cap)
{
    DIR *d = list_dir(dir, err, cap);
    if (!d) return -1;
    /* Order-independent (readdir order is not stable): a sum of per-file hashes. */
    uint64_t sum = 0;
    size_t scanned = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (++scanned > MAX_SCANNED) {
            rc = vs_fail(err, cap, "'%.200s' holds more than %d entries", dir->path, MAX_SCANNED);
            break;
        }
        struct stat st;
        if (!wanted(e->d_name) || fstatat(dirfd(d), e->d_name, &st, 0) != 0) continue;
        uint64_t h = 1469598103934665603ull;
        for (const unsigned char *p = (const unsigned char *)e->d_name; *p; p++) h = (h ^ *p) * 1099511628211ull;
        const uint64_t parts[] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                                  (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) h = (h ^ parts[i]) * 1099511628211ull;
        sum += h;
    }
    closedir(d);
    *out = sum;
    return rc;
}

static void cleanup(mirror *m)
{
    for (size_t i = 0; i < m->nmade; i++) {
        unlink(m->made[i]);
        free(m->made[i]);
    }
    if (m->root_made) rmdir(m->root);
    if (m->base[0]) rmdir(m->base);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : "model"; /* "/" itself */
}

int vs_model_from_file(const vs_conf *c, const vs_who *who, const vs_file *f, vramest_source kind,
                       vramest_model *model, char *err, size_t cap)
{
    mirror m;
    memset(&m, 0, sizeof m);
    m.conf = c, m.who = who, m.shown = f->path;
    m.budget = 4 * c->max_model_bytes;
    const char *tmp = getenv("TMPDIR");
    snprintf(m.base, sizeof m.base, "%s/vramest-slurm.XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(m.base)) {
        m.base[0] = '\0';
        return vs_fail(err, cap, "cannot create a private directory for model files: %s", strerror(errno));
    }
    const char *label = base_name(f->path);
    char target[PATH_MAX];
    int rc = 0;
    if (f->is_dir) {
        /* The directory keeps its name: libvramest names the model after it. */
        if ((size_t)snprintf(m.root, sizeof m.root, "%s/%s", m.base, label) >= sizeof m.root)
            rc = vs_fail(err, cap, "'%.200s': path too long", f->path);
        else if (mkdir(m.root, 0700) != 0)
            rc = vs_fail(err, cap, "cannot create a private directory for model files: %s", strerror(errno));
        else
            m.root_made = true, rc = mirror_dir(&m, f, false, err, cap);
        snprintf(target, sizeof target, "%s", m.root);
    } else {
        snprintf(m.root, sizeof m.root, "%s", m.base);
        bool index = kind == VRAMEST_SRC_SAFETENSORS_INDEX ||
                     (kind == VRAMEST_SRC_AUTO && ends_with(label, ".safetensors.index.json"));
        if (index) {
            /* An index is read with its shards, from its directory. */
            char dirpath[PATH_MAX];
            snprintf(dirpath, sizeof dirpath, "%.*s", (int)(label - f->path), f->path);
            vs_file dir;
            if (vs_open_checked(c, dirpath, who, &dir, err, cap)) {
                rc = -1;
            } else {
                rc = strcmp(label, INDEX_NAME) ? vs_fail(err, cap, "'%.200s': an index must be named %s",
                                                         f->path, INDEX_NAME)
                                               : mirror_dir(&m, &dir, true, err, cap);
                vs_file_close(&dir);
            }
        } else {
            rc = copy_in(&m, f, label, err, cap);
        }
        if ((size_t)snprintf(target, sizeof target, "%s/%s", m.base, label) >= sizeof target)
            rc = vs_fail(err, cap, "'%.200s': path too long", f->path);
    }
    if (!rc) {
        int lrc = vramest_model_parse_file(model, kind, target);
        if (lrc)
            rc = vs_fail(err, cap,
                         "'%.200s': libvramest cannot read it as a model (%s); the file's contents are not shown "
                         "here: run `vramest --model %.200s` to see why",
                         f->path, vramest_status_string(lrc), f->path);
    }
    cleanup(&m);
    return rc;
}
