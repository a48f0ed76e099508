/* GPU counting from Slurm TRES strings (see vs_gres.h). */
#include "vs_gres.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vs_util.h"

/* Entries of one TRES string longer than this are refused: Slurm itself caps
 * the whole string at 1024 bytes. */
#define ENTRY_MAX 256

typedef struct field_gpus {
    bool given;
    uint64_t count;
    char type[VS_NAME_CAP];
} field_gpus;

/* "4", "2k": a GRES count with Slurm's binary suffixes. */
static int parse_count(const char *s, size_t n, uint64_t *out)
{
    uint64_t mult = 1;
    if (n && strchr("kKmMgG", s[n - 1])) {
        char u = s[n - 1];
        mult = (u == 'k' || u == 'K') ? 1024u : (u == 'm' || u == 'M') ? 1024u * 1024u : 1024u * 1024u * 1024u;
        n--;
    }
    uint64_t v;
    int rc = vs_parse_u64(s, n, UINT64_MAX / mult, &v);
    if (rc) return rc;
    *out = v * mult;
    return 0;
}

static bool all_count_chars(const char *s, size_t n)
{
    if (!n) return false;
    for (size_t i = 0; i < n; i++) {
        bool last = i + 1 == n;
        if (!(s[i] >= '0' && s[i] <= '9') && !(last && i > 0 && strchr("kKmMgG", s[i]))) return false;
    }
    return true;
}

/* One comma-separated entry: [gres:|gres/]NAME[:TYPE][:COUNT]. */
static int parse_entry(const char *e, size_t n, const char *option, field_gpus *f, char *err, size_t cap)
{
    char q[96];
    if (n > ENTRY_MAX) {
        vs_quote(q, sizeof q, e, n, 48);
        return vs_fail(err, cap, "%s: entry %s is longer than %d bytes", option, q, ENTRY_MAX);
    }
    if (n >= 5 && (!strncmp(e, "gres:", 5) || !strncmp(e, "gres/", 5))) e += 5, n -= 5;
    size_t name_len = 0;
    while (name_len < n && e[name_len] != ':') name_len++;
    if (name_len != 3 || strncmp(e, "gpu", 3) != 0) return 0; /* not a GPU */
    const char *rest = e + name_len;
    size_t rn = n - name_len;
    const char *type = "", *count = NULL;
    size_t tn = 0, cn = 0;
    bool has_type = false;
    if (rn) {
        rest++, rn--; /* the ':' */
        const char *colon = memchr(rest, ':', rn);
        if (colon) {
            has_type = true, type = rest, tn = (size_t)(colon - rest);
            count = colon + 1, cn = rn - tn - 1;
        } else if (all_count_chars(rest, rn)) {
            count = rest, cn = rn;
        } else {
            has_type = true, type = rest, tn = rn;
        }
    }
    if (has_type && (tn == 0 || tn >= VS_NAME_CAP)) {
        vs_quote(q, sizeof q, e, n, 48);
        return vs_fail(err, cap, "%s: %s: the GPU type is empty or too long", option, q);
    }
    uint64_t c = 1;
    if (count) {
        int rc = parse_count(count, cn, &c);
        vs_quote(q, sizeof q, count, cn, 32);
        if (rc == -2) return vs_fail(err, cap, "%s: GPU count %s is too large", option, q);
        if (rc) return vs_fail(err, cap, "%s: GPU count %s is not a number", option, q);
    }
    if (f->given) return vs_fail(err, cap, "%s: GPUs are requested twice; give one gpu entry", option);
    f->given = true;
    f->count = c;
    memcpy(f->type, type, tn);
    f->type[tn] = '\0';
    return 0;
}

static int parse_field(const char *s, const char *option, field_gpus *f, char *err, size_t cap)
{
    memset(f, 0, sizeof *f);
    if (!s) return 0;
    size_t bad = vs_utf8_bad_at(s, strlen(s));
    if (s[bad]) return vs_fail(err, cap, "%s: invalid UTF-8 at byte %zu", option, bad);
    while (*s) {
        size_t n = vs_span_to(s, ',');
        if (n && parse_entry(s, n, option, f, err, cap)) return -1;
        s += n + (s[n] == ',');
    }
    return 0;
}

/* a * b, refusing results beyond VS_MAX_GPUS. */
static int mul_gpus(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a && b > VS_MAX_GPUS / a) return -1;
    *out = a * b;
    return 0;
}

int vs_gpus_count(const vs_job_req *r, vs_gpus *out, char *err, size_t cap)
{
    static const char *const names[] = {"--gpus", "--gres/--gpus-per-node", "--gpus-per-task", "--gpus-per-socket"};
    const char *strs[] = {r->tres_per_job, r->tres_per_node, r->tres_per_task, r->tres_per_socket};
    field_gpus f[4];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 4; i++)
        if (parse_field(strs[i], names[i], &f[i], err, cap)) return -1;
    /* Two options may name a type; they must agree. */
    for (int i = 0; i < 4; i++) {
        if (!f[i].given || !f[i].type[0]) continue;
        if (out->type[0] && strcmp(out->type, f[i].type) != 0)
            return vs_fail(err, cap, "the job asks for two GPU types (%s and %s); vramest estimates one", out->type,
                           f[i].type);
        snprintf(out->type, sizeof out->type, "%s", f[i].type);
    }
    out->nodes = r->min_nodes ? r->min_nodes : 1;
    uint64_t tasks = r->num_tasks;
    if (!tasks && r->ntasks_per_node) tasks = (uint64_t)r->ntasks_per_node * out->nodes;
    if (!tasks) tasks = 1;
    int rc = 0;
    if (f[0].given) {
        out->total = f[0].count, out->option = names[0];
        if (f[0].count > VS_MAX_GPUS) rc = -1;
    } else if (f[1].given) {
        out->per_node = f[1].count, out->option = names[1];
        rc = mul_gpus(f[1].count, out->nodes, &out->total);
    } else if (f[2].given) {
        out->option = names[2];
        rc = mul_gpus(f[2].count, tasks, &out->total);
    } else if (f[3].given) {
        out->option = names[3];
        if (!r->sockets_per_node)
            return vs_fail(err, cap, "--gpus-per-socket: the GPU count depends on the sockets Slurm picks; add "
                                     "--sockets-per-node or ask with --gpus or --gres");
        uint64_t per_node;
        rc = mul_gpus(f[3].count, r->sockets_per_node, &per_node);
        if (!rc) rc = mul_gpus(per_node, out->nodes, &out->total);
    }
    if (rc) return vs_fail(err, cap, "%s: more than %u GPUs in all", out->option, VS_MAX_GPUS);
    if (f[1].given && f[1].count && !out->per_node) out->per_node = f[1].count;
    return 0;
}
