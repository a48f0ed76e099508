/* The verdict on one job: pass, accept (with a plan summary for the admin
 * comment), or reject (with the message the user sees from sbatch).
 *
 * No Slurm types here: the Slurm glue (job_submit_vramest.c) copies the
 * fields it needs into vs_job, so this and everything below it is tested
 * without a controller. Re-entrant: the only shared state is the context's
 * model cache, which locks itself. */
#ifndef VS_JUDGE_H
#define VS_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "vs_cache.h"
#include "vs_conf.h"
#include "vs_gres.h"
#include "vs_util.h"

typedef struct vs_optnames vs_optnames;

typedef struct vs_ctx {
    const vs_conf *conf;
    vs_cache *cache;
    const vs_optnames *names; /* vs_optnames_new(), or NULL */
} vs_ctx;

typedef struct vs_job {
    const char *script;        /* submit: the batch script, or NULL */
    const char *admin_comment; /* modify: the job's admin comment, or NULL */
    vs_job_req req;            /* submit: the request; modify: the update's fields */
    uint32_t uid;              /* the job's user */
    uint32_t gid;              /* the job's group, or (uint32_t)-1 for the user's primary group */
} vs_job;

typedef enum vs_verdict_kind { VS_PASS = 0, VS_ACCEPT, VS_REJECT } vs_verdict_kind;

/* Why a job is rejected: the Slurm glue maps it to an error code. */
typedef enum vs_reject_why {
    VS_WHY_NONE = 0,
    VS_WHY_DIRECTIVE, /* malformed directive, spec or GPU request */
    VS_WHY_ACCESS,    /* a file outside the allowed directories, or unreadable for the user */
    VS_WHY_NOFIT,     /* the estimate does not fit the GPUs */
    VS_WHY_REQUIRED,  /* require = yes and no directive */
    VS_WHY_INTERNAL   /* out of memory, an estimate that failed */
} vs_reject_why;

typedef struct vs_verdict {
    vs_verdict_kind kind;
    vs_reject_why why;
    char user[VS_MSG_CAP]; /* for the user: the summary (accept) or the reasons (reject), lines end in '\n' */
    char *admin;           /* accept: the admin comment (summary and record), malloc'd */
} vs_verdict;

void vs_judge_submit(const vs_ctx *ctx, const vs_job *job, vs_verdict *v);

/* An update: judged again only when it changes the GPU request, node or task
 * counts, and the job carries a record (vs_record.h). */
void vs_judge_modify(const vs_ctx *ctx, const vs_job *job, vs_verdict *v);

void vs_verdict_free(vs_verdict *v);

#endif
