/* job_submit/vramest: the Slurm side of the plugin.
 *
 * slurmctld calls job_submit() for every job submitted (sbatch, salloc,
 * srun, sbatch --test-only) and job_modify() for every `scontrol update`,
 * with the controller's job read (submit) or write (modify) lock held, one
 * plugin call at a time. This file only copies the fields of Slurm's
 * structures into vs_job, asks vs_judge for a verdict and turns it into
 * Slurm's answer: an admin comment and a message for accepted jobs, an
 * error code and a message for rejected ones. Everything it decides is in
 * the vs_* files, which are built and tested without Slurm.
 *
 * Only Slurm's public headers are used (Debian's libslurm-dev has no
 * others). What the plugin needs beyond them is declared here: Slurm's
 * allocator (an err_msg or admin comment handed to slurmctld is freed with
 * xfree), its log functions and the loaded slurm.conf, all exported by
 * libslurmfull, which slurmctld links; and, for job_modify(), the first
 * members of job_record_t (see job_admin_comment()). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <vramest/vramest.h>

#include "vs_cache.h"
#include "vs_conf.h"
#include "vs_judge.h"
#include "vs_spec.h"

/* From Slurm's src/common/xmalloc.h, xstring.h and log.h (libslurmfull). */
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **p);
extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern slurm_conf_t slurm_conf;

/* The plugin interface (src/common/plugin.h): slurmctld loads job_submit/NAME
 * from PluginDir and refuses a plugin built for another Slurm release. */
extern const char plugin_name[];
extern const char plugin_type[];
extern const uint32_t plugin_version;
const char plugin_name[] = "job_submit vramest: reject GPU jobs whose memory does not fit their GPUs";
const char plugin_type[] = "job_submit/vramest";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void);
extern int fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);

/* The plugin's state lives between init() and fini(), which slurmctld calls
 * with no job in flight; in between it is read-only, except the cache, which
 * locks itself. The plugin interface has no context argument, hence a static. */
static struct plugin_state {
    vs_conf conf;
    vs_cache *cache;
    vs_optnames *names;
    bool ready;
} state;

#define LOG_PREFIX "job_submit/vramest: "

/* vramest.conf sits beside slurm.conf. */
static void conf_path(char *out, size_t cap)
{
    const char *sc = slurm_conf.slurm_conf;
    const char *slash = sc ? strrchr(sc, '/') : NULL;
    if (slash)
        snprintf(out, cap, "%.*s/vramest.conf", (int)(slash - sc), sc);
    else
        snprintf(out, cap, "/etc/slurm/vramest.conf");
}

int init(void)
{
    char path[4096], err[VS_MSG_CAP];
    if (vramest_version_number() / 10000 != VRAMEST_VERSION_MAJOR) {
        slurm_error(LOG_PREFIX "built for libvramest %s, loaded %s", VRAMEST_VERSION_STRING, vramest_version_string());
        return SLURM_ERROR;
    }
    conf_path(path, sizeof path);
    vs_conf_init(&state.conf);
    if (vs_conf_load(&state.conf, path, err, sizeof err)) {
        slurm_error(LOG_PREFIX "%s", err);
        vs_conf_free(&state.conf);
        return SLURM_ERROR;
    }
    if (!(state.cache = vs_cache_new(state.conf.cache_models)) || !(state.names = vs_optnames_new())) {
        slurm_error(LOG_PREFIX "out of memory");
        vs_cache_free(state.cache);
        vs_conf_free(&state.conf);
        return SLURM_ERROR;
    }
    state.ready = true;
    slurm_info(LOG_PREFIX "%s: %zu GPU types, %s default device, %zu allowed directories, require = %s; "
                          "libvramest %s",
               path, state.conf.ntypes, state.conf.has_default ? "a" : "no", state.conf.nallow,
               state.conf.require ? "yes" : "no", vramest_version_string());
    return SLURM_SUCCESS;
}

int fini(void)
{
    if (state.ready) {
        vs_cache_free(state.cache);
        vs_optnames_free(state.names);
        vs_conf_free(&state.conf);
    }
    memset(&state, 0, sizeof state);
    return SLURM_SUCCESS;
}

/* Slurm's "not given" values are NO_VAL / NO_VAL16; vs_job_req's is 0. */
static uint32_t given32(uint32_t v)
{
    return v == NO_VAL ? 0 : v;
}

static uint32_t given16(uint16_t v)
{
    return v == NO_VAL16 ? 0 : v;
}

static vs_job_req request_of(const job_desc_msg_t *d)
{
    vs_job_req r = {
        .tres_per_job = d->tres_per_job,
        .tres_per_node = d->tres_per_node,
        .tres_per_task = d->tres_per_task,
        .tres_per_socket = d->tres_per_socket,
        .min_nodes = given32(d->min_nodes),
        .num_tasks = given32(d->num_tasks),
        .ntasks_per_node = given16(d->ntasks_per_node),
        .sockets_per_node = given16(d->sockets_per_node),
    };
    return r;
}

/* The Slurm error code a user sees after the message ("Batch job submission failed: ..."). */
static int slurm_rc(vs_reject_why why)
{
    switch (why) {
    case VS_WHY_NOFIT: return ESLURM_INVALID_GRES;
    case VS_WHY_ACCESS: return ESLURM_ACCESS_DENIED;
    default: return SLURM_ERROR;
    }
}

/* *old + sep + msg (without its last newline), allocated by Slurm, replaces *old. */
static void hand_message(char **old, const char *sep, const char *msg)
{
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n') n--;
    size_t on = *old ? strlen(*old) : 0;
    size_t total = on + strlen(sep) + n + 1;
    char *joined = malloc(total);
    if (!joined) return;
    snprintf(joined, total, "%s%s%.*s", *old ? *old : "", on ? sep : "", (int)n, msg);
    char *x = slurm_xstrdup(joined);
    free(joined);
    if (!x) return;
    if (*old) slurm_xfree((void **)old);
    *old = x;
}

static void first_line(const char *msg, char *out, size_t cap)
{
    snprintf(out, cap, "%.*s", (int)strcspn(msg, "\n"), msg);
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
    if (!state.ready) return SLURM_SUCCESS;
    vs_ctx ctx = {.conf = &state.conf, .cache = state.cache, .names = state.names};
    vs_job job = {
        .script = job_desc->script,
        .req = request_of(job_desc),
        .uid = job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid,
        .gid = job_desc->group_id != NO_VAL ? job_desc->group_id : (uint32_t)-1,
    };
    vs_verdict v;
    vs_judge_submit(&ctx, &job, &v);
    char line[512];
    first_line(v.user, line, sizeof line);
    int rc = SLURM_SUCCESS;
    if (v.kind == VS_ACCEPT) {
        /* An admin's own comment given at submission stays in front. */
        char *comment = job_desc->admin_comment;
        hand_message(&comment, "; ", v.admin);
        job_desc->admin_comment = comment;
        if (err_msg) hand_message(err_msg, "\n", v.user);
        /* Every accepted job at info level would be a log line per job; the
         * admin comment keeps the plan. SlurmctldDebug=verbose shows them. */
        slurm_verbose(LOG_PREFIX "uid %u: %s", job.uid, line);
    } else if (v.kind == VS_REJECT) {
        if (err_msg) hand_message(err_msg, "\n", v.user);
        slurm_info(LOG_PREFIX "uid %u: rejected: %s", job.uid, line + (strncmp(line, "vramest: ", 9) ? 0 : 9));
        rc = slurm_rc(v.why);
    }
    vs_verdict_free(&v);
    return rc;
}

/* The admin comment of a job record. job_record_t is not in Slurm's public
 * headers; its first members have been {uint32_t magic; char *account; char
 * *admin_comment; ...} from Slurm 20.11 to 25.05 (src/slurmctld/slurmctld.h,
 * later src/common/job_record.h), and slurmctld loads only plugins built for
 * its own release, so this prefix is read for those releases only, after the
 * magic cookie is checked. */
#define VS_JOB_MAGIC 0xf0b7392cu
struct job_record_head {
    uint32_t magic;
    char *account;
    char *admin_comment;
};
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(20, 11, 0) && SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 11, 0)
static const char *job_admin_comment(const void *job_ptr)
{
    const struct job_record_head *h = job_ptr;
    return h && h->magic == VS_JOB_MAGIC ? h->admin_comment : NULL;
}
#else
static const char *job_admin_comment(const void *job_ptr)
{
    (void)job_ptr;
    return NULL; /* unknown layout: updates are not judged again */
}
#endif

/* Slurm 23.02 added err_msg to job_modify(); 22.05 can only return a code. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define MODIFY_MSG_PARAM , char **err_msg
#else
#define MODIFY_MSG_PARAM
#endif
extern int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid MODIFY_MSG_PARAM);

int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid MODIFY_MSG_PARAM)
{
    if (!state.ready) return SLURM_SUCCESS;
    vs_ctx ctx = {.conf = &state.conf, .cache = state.cache, .names = state.names};
    vs_job job = {
        .admin_comment = job_admin_comment(job_ptr),
        .req = request_of(job_desc),
        .uid = job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid,
        .gid = (uint32_t)-1,
    };
    vs_verdict v;
    vs_judge_modify(&ctx, &job, &v);
    char line[512];
    first_line(v.user, line, sizeof line);
    const char *id = job_desc->job_id_str ? job_desc->job_id_str : "?";
    int rc = SLURM_SUCCESS;
    if (v.kind == VS_ACCEPT) {
        /* Slurm refuses an update that sets the admin comment unless the
         * updater is an administrator: for others the record stays that of
         * the last accepted plan, and the new verdict goes to the log. */
        if (submit_uid == 0 || submit_uid == slurm_conf.slurm_user_id) {
            /* An admin's own text in front of the old plan stays. */
            char *comment = NULL, kept[1024] = "";
            const char *ours = job.admin_comment ? strstr(job.admin_comment, "vramest: fits:") : NULL;
            if (ours && ours > job.admin_comment) {
                size_t n = (size_t)(ours - job.admin_comment);
                while (n && (job.admin_comment[n - 1] == ' ' || job.admin_comment[n - 1] == ';')) n--;
                snprintf(kept, sizeof kept, "%.*s", (int)n, job.admin_comment);
                hand_message(&comment, "", kept);
            }
            hand_message(&comment, "; ", v.admin);
            if (comment) {
                if (job_desc->admin_comment) slurm_xfree((void **)&job_desc->admin_comment);
                job_desc->admin_comment = comment;
            }
        }
        slurm_info(LOG_PREFIX "JobId=%s update by uid %u: %s", id, submit_uid, line);
    } else if (v.kind == VS_REJECT) {
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
        if (err_msg) hand_message(err_msg, "\n", v.user);
#endif
        slurm_info(LOG_PREFIX "JobId=%s update by uid %u rejected: %s", id, submit_uid,
                   line + (strncmp(line, "vramest: ", 9) ? 0 : 9));
        rc = slurm_rc(v.why);
    }
    vs_verdict_free(&v);
    return rc;
}
