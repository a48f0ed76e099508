/* Verdicts on jobs (see vs_judge.h): directive -> spec -> model (cached) ->
 * bound to the job's GPUs -> estimate -> accept or reject with advice. */
#include "vs_judge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>
#include <vramest/vramest.h>

#include "vs_advice.h"
#include "vs_directive.h"
#include "vs_mirror.h"
#include "vs_record.h"
#include "vs_safepath.h"
#include "vs_spec.h"

/* The job's user, looked up only when a file is involved. */
typedef struct user {
    uint32_t uid, gid;
    int state; /* 0 not yet, 1 found, -1 failed */
    vs_who who;
    char err[256];
} user;

static const vs_who *who_of(user *u, char *err, size_t cap)
{
    if (!u->state) u->state = vs_who_lookup(u->uid, u->gid, &u->who, u->err, sizeof u->err) ? -1 : 1;
    if (u->state < 0) {
        vs_fail(err, cap, "%s", u->err);
        return NULL;
    }
    return &u->who;
}

static void reject(vs_verdict *v, vs_reject_why why, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reject(vs_verdict *v, vs_reject_why why, const char *fmt, ...)
{
    v->kind = VS_REJECT, v->why = why;
    strcpy(v->user, "vramest: ");
    size_t l = strlen(v->user);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->user + l, sizeof v->user - l - 1, fmt, ap);
    va_end(ap);
    vs_appendf(v->user, sizeof v->user, "\n");
}

/* ---- models ---- */

typedef struct loader {
    vs_model_src src;
    int quiet;
    const vs_conf *conf;
    const vs_who *who;
    const vs_file *file;
} loader;

static int load_model(void *p, vramest_model **out, char *err, size_t cap)
{
    const loader *l = p;
    char q[96];
    vs_quote(q, sizeof q, l->src.text, strlen(l->src.text), 64);
    if (l->src.kind == VS_MODEL_PRESET) {
        if (vramest_model_new_preset(l->src.text, out))
            return vs_fail(err, cap, "model %s: %s", q, vramest_last_error_message());
        return 0;
    }
    if (l->src.kind == VS_MODEL_FILE) {
        if (vramest_model_new(out)) return vs_fail(err, cap, "out of memory");
        return vs_model_from_file(l->conf, l->who, l->file, l->src.file_kind, *out, err, cap);
    }
    /* An inline architecture: the model member alone, as a spec. */
    size_t n = strlen(l->src.text) + 16;
    char *spec = malloc(n);
    if (!spec) return vs_fail(err, cap, "out of memory");
    snprintf(spec, n, "{\"model\":%s}", l->src.text);
    vramest_precision *pr = NULL;
    vramest_config *cf = NULL;
    int rc = vramest_spec_parse(spec, strlen(spec), out, &pr, &cf);
    free(spec);
    vramest_precision_free(pr);
    vramest_config_free(cf);
    if (!rc) return 0;
    if (l->quiet) return vs_fail(err, cap, "the spec file's model: %s", vramest_status_string(rc));
    return vs_fail(err, cap, "%s", vramest_last_error_message());
}

/* The cached model for a spec; *ref to release. On failure the verdict is set. */
static const vramest_model *model_for(const vs_ctx *ctx, json_object *spec, int quiet, user *u, vs_cache_ref **ref,
                                      vs_verdict *v)
{
    loader l = {.quiet = quiet, .conf = ctx->conf};
    char err[VS_MSG_CAP], *key = NULL;
    size_t keylen = 0;
    vs_file file = {.fd = -1};
    if (vs_spec_model_src(spec, &l.src, err, sizeof err)) {
        reject(v, VS_WHY_DIRECTIVE, "%s", err);
        return NULL;
    }
    if (l.src.kind == VS_MODEL_FILE) {
        /* Checked for this job's user on every job; only the parse is shared. */
        if (!(l.who = who_of(u, err, sizeof err)) || vs_open_checked(ctx->conf, l.src.text, l.who, &file, err,
                                                                      sizeof err)) {
            reject(v, VS_WHY_ACCESS, "model file: %s", err);
            return NULL;
        }
        l.file = &file;
        uint64_t inside = 0; /* a directory: its model files' identities too */
        if (file.is_dir && vs_dir_fingerprint(&file, &inside, err, sizeof err)) {
            reject(v, VS_WHY_ACCESS, "model file: %s", err);
            vs_file_close(&file);
            return NULL;
        }
        keylen = strlen(file.path) + 160;
        if ((key = malloc(keylen)))
            keylen = (size_t)snprintf(key, keylen, "f%c%s%c%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRId64 ".%" PRId64
                                      ":%" PRIu64 ":%d", 0, file.path, 0, file.dev, file.ino, file.size,
                                      file.mtime_sec, file.mtime_nsec, inside, (int)l.src.file_kind);
    } else {
        size_t n = strlen(l.src.text);
        keylen = n + 2;
        if ((key = malloc(keylen))) {
            key[0] = l.src.kind == VS_MODEL_PRESET ? 'p' : quiet ? 'q' : 'i';
            key[1] = '\0';
            memcpy(key + 2, l.src.text, n);
        }
    }
    const vramest_model *m = NULL;
    if (!key) {
        reject(v, VS_WHY_INTERNAL, "out of memory");
    } else if (vs_cache_get(ctx->cache, key, keylen, load_model, &l, &m, ref, err, sizeof err)) {
        reject(v, l.src.kind == VS_MODEL_FILE ? VS_WHY_ACCESS : VS_WHY_DIRECTIVE, "%s", err);
        m = NULL;
    }
    free(key);
    vs_file_close(&file);
    return m;
}

/* ---- the estimate ---- */

static void largest_category(const vramest_result *r, const char **name, uint64_t *bytes)
{
    uint64_t all[32];
    size_t n = 0;
    *name = "?", *bytes = 0;
    if (vramest_result_get_all(r, VRAMEST_DEV_GPU, all, 32, &n)) return;
    for (size_t i = 0; i < n; i++)
        if (all[i] > *bytes) *bytes = all[i], *name = vramest_category_name((vramest_category)i);
}

/* "4 a100 GPUs (A100-80GB), 2 per node on 2 nodes" */
static void where(const vs_gpus *g, const vs_device *dev, char *out, size_t cap)
{
    char d[96], q[80] = "";
    vs_device_label(dev, d, sizeof d);
    if (g->type[0]) vs_quote(q, sizeof q, g->type, strlen(g->type), 32);
    /* the type unquoted when it is a plain name */
    const char *t = g->type[0] && strcspn(g->type, " \"'\\") == strlen(g->type) ? g->type : q;
    snprintf(out, cap, "%" PRIu64 "%s%s GPU%s (%s)", g->total, t[0] ? " " : "", t, g->total == 1 ? "" : "s", d);
    if (g->per_node)
        vs_appendf(out, cap, ", %" PRIu64 " per node on %" PRIu64 " node%s", g->per_node, g->nodes,
                   g->nodes == 1 ? "" : "s");
}

/* Estimate a spec already bound to the job, and write the verdict. */
static void judge_bound(const vs_ctx *ctx, const vramest_model *m, json_object *spec, int quiet, const vs_gpus *g,
                        const vs_device *dev, vs_verdict *v, char *summary, size_t scap)
{
    size_t len = 0;
    const char *text = json_object_to_json_string_length(spec, JSON_C_TO_STRING_PLAIN, &len);
    vramest_precision *p = NULL;
    vramest_config *c = NULL;
    vramest_result *r = NULL;
    int rc = text ? vramest_spec_parse(text, len, NULL, &p, &c) : VRAMEST_E_NOMEM;
    (void)ctx;
    if (rc) {
        if (quiet)
            reject(v, VS_WHY_DIRECTIVE, "the spec file is not a valid job spec (%s); run `vramest --spec FILE` to "
                                        "see why", vramest_status_string(rc));
        else
            reject(v, VS_WHY_DIRECTIVE, "%s", vramest_last_error_message());
        goto out;
    }
    if ((rc = vramest_estimate(m, p, c, &r))) {
        reject(v, rc == VRAMEST_E_NOMEM ? VS_WHY_INTERNAL : VS_WHY_DIRECTIVE, "cannot estimate the job: %s",
               quiet ? vramest_status_string(rc) : vramest_last_error_message());
        goto out;
    }
    uint64_t need = 0, have = 0, fits = 0, phase = 0, big = 0;
    const char *cat;
    vramest_result_value(r, VRAMEST_VAL_DEVICE_TOTAL, &need);
    vramest_result_value(r, VRAMEST_VAL_DEVICE_CAPACITY, &have);
    vramest_result_value(r, VRAMEST_VAL_PEAK_PHASE, &phase);
    if (vramest_result_value(r, VRAMEST_VAL_FITS, &fits) || !have) {
        reject(v, VS_WHY_INTERNAL, "the estimate has no device to compare with");
        goto out;
    }
    largest_category(r, &cat, &big);
    char gneed[32], ghave[32], gbig[32], at[256];
    vs_gib(gneed, sizeof gneed, need);
    vs_gib(ghave, sizeof ghave, have);
    vs_gib(gbig, sizeof gbig, big);
    where(g, dev, at, sizeof at);
    const char *ph = vramest_phase_name((vramest_phase)phase);
    if (fits) {
        v->kind = VS_ACCEPT;
        /* The runtime and mode the estimate assumed, so an admin can tell a
         * vLLM plan from a PyTorch one without reading the record. */
        const char *fw = "?", *mode = "?";
        vramest_config_get_str(c, VRAMEST_CFG_FRAMEWORK, &fw);
        vramest_config_get_str(c, VRAMEST_CFG_MODE, &mode);
        snprintf(summary, scap, "vramest: fits: needs %s of %s per GPU on %s; peak in %s; largest part %s %s; %s %s",
                 gneed, ghave, at, ph ? ph : "?", cat, gbig, fw, mode);
        snprintf(v->user, sizeof v->user, "%s\n", summary);
    } else {
        reject(v, VS_WHY_NOFIT, "the job does not fit: it needs %s per GPU, and its GPUs have %s: %s", gneed,
               ghave, at);
        vs_appendf(v->user, sizeof v->user, "vramest: largest part: %s %s; peak in %s\n", cat, gbig, ph ? ph : "?");
        vs_advice_line(m, p, c, v->user, sizeof v->user);
    }
out:
    vramest_result_free(r);
    vramest_precision_free(p);
    vramest_config_free(c);
}

/* Judge a spec (owned by the caller) against a GPU request. */
static void judge_spec(const vs_ctx *ctx, json_object *spec, const char *spec_file, int quiet,
                       const vs_job_req *req, user *u, vs_verdict *v)
{
    char err[VS_MSG_CAP];
    vs_gpus g;
    if (vs_gpus_count(req, &g, err, sizeof err)) {
        reject(v, VS_WHY_DIRECTIVE, "%s", err);
        return;
    }
    if (!g.total)
        {
        reject(v, VS_WHY_DIRECTIVE, "the script has #VRAMEST directives but the job requests no GPU; ask "
                                           "for GPUs with --gres=gpu:TYPE:N or --gpus=N");
        return;
    }
    const vs_device *dev = vs_conf_device(ctx->conf, g.type);
    if (!dev) {
        char types[512] = "";
        for (size_t i = 0; i < ctx->conf->ntypes; i++)
            vs_appendf(types, sizeof types, "%s%s", i ? ", " : "", ctx->conf->types[i].type);
        char q[96];
        vs_quote(q, sizeof q, g.type, strlen(g.type), 32);
        if (g.type[0])
            {
        reject(v, VS_WHY_DIRECTIVE, "GPU type %s has no device in vramest.conf (types known: %s); ask "
                                               "the cluster's admins", q, types[0] ? types : "none");
        return;
    }
        {
        reject(v, VS_WHY_DIRECTIVE, "GPUs requested without a type and vramest.conf has no default "
                                           "device; ask with --gres=gpu:TYPE:N (types: %s)", types[0] ? types : "none");
        return;
    }
    }
    /* The record keeps the spec as the user gave it, before binding. */
    char *record = vs_record_text(req, spec, spec_file);
    vs_cache_ref *ref = NULL;
    const vramest_model *m = record ? model_for(ctx, spec, quiet, u, &ref, v) : NULL;
    if (!record) reject(v, VS_WHY_INTERNAL, "out of memory");
    if (m) {
        char summary[1024];
        if (vs_spec_bind(spec, dev, g.total, g.per_node, err, sizeof err))
            reject(v, VS_WHY_DIRECTIVE, "%s", err);
        else
            judge_bound(ctx, m, spec, quiet, &g, dev, v, summary, sizeof summary);
        if (v->kind == VS_ACCEPT) {
            size_t n = strlen(summary) + strlen(VS_RECORD_MARK) + strlen(record) + 1;
            if ((v->admin = malloc(n)))
                snprintf(v->admin, n, "%s%s%s", summary, VS_RECORD_MARK, record);
            else
                reject(v, VS_WHY_INTERNAL, "out of memory");
        }
        vs_cache_release(ctx->cache, ref);
    }
    free(record);
}

/* Read a --spec file for the job's user and judge it. */
static void judge_spec_file(const vs_ctx *ctx, const char *path, const vs_job_req *req, user *u, vs_verdict *v)
{
    char err[VS_MSG_CAP];
    const vs_who *who = who_of(u, err, sizeof err);
    vs_file f;
    if (!who || vs_open_checked(ctx->conf, path, who, &f, err, sizeof err))
        {
        reject(v, VS_WHY_ACCESS, "spec file: %s", err);
        return;
    }
    char what[PATH_MAX + 32];
    snprintf(what, sizeof what, "spec file '%.*s'", 200, f.path);
    size_t max = ctx->conf->max_spec_bytes;
    char *text = NULL;
    ssize_t got = 0;
    if (f.is_dir)
        reject(v, VS_WHY_DIRECTIVE, "%s is a directory", what);
    else if (f.size > max)
        reject(v, VS_WHY_DIRECTIVE, "%s is %" PRIu64 " bytes, more than this site's max_spec_bytes (%zu)", what,
               f.size, max);
    else if (!(text = malloc(f.size + 1)))
        reject(v, VS_WHY_INTERNAL, "out of memory");
    else if ((got = pread(f.fd, text, f.size, 0)) < 0 || (uint64_t)got != f.size)
        reject(v, VS_WHY_ACCESS, "%s: read error", what);
    vs_file_close(&f);
    json_object *spec = NULL;
    if (v->kind != VS_REJECT) {
        if (vs_spec_from_text(text, f.size, max, what, 1, &spec, err, sizeof err))
            reject(v, VS_WHY_DIRECTIVE, "%s", err);
        else
            judge_spec(ctx, spec, path, 1, req, u, v);
    }
    json_object_put(spec);
    free(text);
}

void vs_judge_submit(const vs_ctx *ctx, const vs_job *job, vs_verdict *v)
{
    memset(v, 0, sizeof *v);
    char err[VS_MSG_CAP];
    vs_directive d;
    user u = {.uid = job->uid, .gid = job->gid};
    if (vs_directive_scan(job->script, ctx->conf->max_directive_bytes, &d, err, sizeof err)) {
        reject(v, VS_WHY_DIRECTIVE, "%s", err);
        vs_directive_free(&d);
        return;
    }
    json_object *spec = NULL;
    if (d.kind == VS_DIR_NONE) {
        vs_gpus g;
        /* An unreadable GPU request is Slurm's to refuse; only a countable one is required to carry a directive. */
        if (ctx->conf->require && !vs_gpus_count(&job->req, &g, err, sizeof err) && g.total)
            reject(v, VS_WHY_REQUIRED, "this cluster requires a #VRAMEST directive for GPU jobs, e.g.\n"
                                       "vramest:   #VRAMEST --model qwen3-8b --set mode=train --set batch_size=8\n"
                                       "vramest: in the batch script's leading comments (see `man vramest`)");
    } else if (d.kind == VS_DIR_SPECFILE) {
        judge_spec_file(ctx, d.spec_path, &job->req, &u, v);
    } else if (d.kind == VS_DIR_WORDS ? vs_spec_from_words(ctx->names, &d, &spec, err, sizeof err)
                                      : vs_spec_from_text(d.text, d.len, ctx->conf->max_spec_bytes,
                                                          "the inline #VRAMEST spec", 0, &spec, err, sizeof err)) {
        reject(v, VS_WHY_DIRECTIVE, "%s", err);
    } else {
        judge_spec(ctx, spec, NULL, 0, &job->req, &u, v);
    }
    json_object_put(spec);
    vs_directive_free(&d);
}

static bool changes_gpus(const vs_job_req *r)
{
    return r->tres_per_job || r->tres_per_node || r->tres_per_task || r->tres_per_socket || r->min_nodes ||
           r->num_tasks || r->ntasks_per_node || r->sockets_per_node;
}

void vs_judge_modify(const vs_ctx *ctx, const vs_job *job, vs_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (!changes_gpus(&job->req)) return;
    char err[VS_MSG_CAP];
    vs_record rec;
    int found = vs_record_parse(job->admin_comment, &rec, err, sizeof err);
    if (found < 0) {
        reject(v, VS_WHY_INTERNAL, "%s", err);
        return;
    }
    if (!found) return; /* admitted without a directive */
    user u = {.uid = job->uid, .gid = job->gid};
    vs_job_req req = rec.req;
    vs_req_merge(&req, &job->req);
    if (rec.spec_file) {
        judge_spec_file(ctx, rec.spec_file, &req, &u, v);
    } else {
        /* judge_spec binds (modifies) the spec: judge a copy. */
        json_object *copy = NULL;
        if (json_object_deep_copy(rec.spec, &copy, NULL) != 0)
            reject(v, VS_WHY_INTERNAL, "out of memory");
        else
            judge_spec(ctx, copy, NULL, 0, &req, &u, v);
        json_object_put(copy);
    }
    vs_record_free(&rec);
}

void vs_verdict_free(vs_verdict *v)
{
    free(v->admin);
    v->admin = NULL;
}
