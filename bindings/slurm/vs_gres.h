/* The GPUs a Slurm job asks for, from the fields of its job description as
 * slurmctld hands them to job_submit plugins.
 *
 * Slurm 22.05 stores every GPU option as a TRES string: `--gres=gpu:a100:4`
 * and `--gpus-per-node=a100:4` become tres_per_node "gres:gpu:a100:4",
 * `--gpus=8` tres_per_job "gres:gpu:8", `--gpus-per-task=1` tres_per_task
 * "gres:gpu:1", `--gpus-per-socket` tres_per_socket; several entries are
 * comma-separated, and later Slurm releases write "gres/gpu:..." instead.
 * Counts take Slurm's k/m/g suffixes (x1024). Other GRES (shard, mps, nic)
 * and licenses are not GPUs and are ignored. */
#ifndef VS_GRES_H
#define VS_GRES_H

#include <stddef.h>
#include <stdint.h>

#include "vs_conf.h"

/* Largest world size the plugin estimates: libvramest's bound on "gpus". */
#define VS_MAX_GPUS 10000000u

/* A job's request; NULL strings and zero counts mean "not given". */
typedef struct vs_job_req {
    const char *tres_per_job;
    const char *tres_per_node;
    const char *tres_per_task;
    const char *tres_per_socket;
    uint32_t min_nodes;
    uint32_t num_tasks;
    uint32_t ntasks_per_node;
    uint32_t sockets_per_node;
} vs_job_req;

typedef struct vs_gpus {
    uint64_t total;    /* GPUs of the whole job: the world size; 0 = none */
    uint64_t nodes;    /* nodes counted (min_nodes, else 1) */
    uint64_t per_node; /* GPUs per node when the request says so, else 0 */
    char type[VS_NAME_CAP]; /* Slurm GPU type, "" when untyped */
    const char *option;     /* which option gave the count, for messages ("--gres/--gpus-per-node", ...) */
} vs_gpus;

/* Count the GPUs of a request. A request that names two GPU types, repeats
 * a GPU entry, gives a count that is not a number or too large, or cannot be
 * counted (--gpus-per-socket without --sockets-per-node) is -1 with the
 * reason in err. */
int vs_gpus_count(const vs_job_req *r, vs_gpus *out, char *err, size_t cap);

#endif
