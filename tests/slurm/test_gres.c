/* GPU requests as slurmctld 22.05 hands them to job_submit plugins
 * (bindings/slurm/vs_gres.c): every sbatch option, and hostile counts. */
#include <criterion/criterion.h>
#include <string.h>

#include "vs_gres.h"

static char err[1024];

static vs_gpus count_ok(vs_job_req r)
{
    vs_gpus g;
    cr_assert_eq(vs_gpus_count(&r, &g, err, sizeof err), 0, "%s", err);
    return g;
}

static void count_fails(vs_job_req r, const char *needle)
{
    vs_gpus g;
    cr_assert_eq(vs_gpus_count(&r, &g, err, sizeof err), -1, "accepted");
    cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(gres, gres_option_per_node)
{
    /* sbatch -N 2 --gres=gpu:a100:4 */
    vs_gpus g = count_ok((vs_job_req){.tres_per_node = "gres:gpu:a100:4", .min_nodes = 2});
    cr_assert_eq(g.total, 8);
    cr_assert_eq(g.per_node, 4);
    cr_assert_eq(g.nodes, 2);
    cr_assert_str_eq(g.type, "a100");
}

Test(gres, untyped_and_default_count)
{
    vs_gpus g = count_ok((vs_job_req){.tres_per_node = "gres:gpu:2"});
    cr_assert_eq(g.total, 2);
    cr_assert_str_eq(g.type, "");
    g = count_ok((vs_job_req){.tres_per_node = "gres:gpu"});
    cr_assert_eq(g.total, 1);
    g = count_ok((vs_job_req){.tres_per_node = "gres:gpu:t4"});
    cr_assert_eq(g.total, 1);
    cr_assert_str_eq(g.type, "t4");
}

Test(gres, newer_slurm_and_bare_forms)
{
    cr_assert_eq(count_ok((vs_job_req){.tres_per_node = "gres/gpu:h100:8"}).total, 8);
    cr_assert_eq(count_ok((vs_job_req){.tres_per_node = "gpu:h100:8"}).total, 8);
}

Test(gres, gpus_per_job_wins)
{
    /* sbatch --gpus=a100:6 --gpus-per-node=3 */
    vs_gpus g = count_ok((vs_job_req){.tres_per_job = "gres:gpu:a100:6", .tres_per_node = "gres:gpu:3"});
    cr_assert_eq(g.total, 6);
    cr_assert_eq(g.per_node, 3);
    cr_assert_str_eq(g.type, "a100");
}

Test(gres, per_task)
{
    /* sbatch -n 4 --gpus-per-task=1 ; --ntasks-per-node=2 -N 3 --gpus-per-task=2 */
    cr_assert_eq(count_ok((vs_job_req){.tres_per_task = "gres:gpu:1", .num_tasks = 4}).total, 4);
    cr_assert_eq(count_ok((vs_job_req){.tres_per_task = "gres:gpu:2", .ntasks_per_node = 2, .min_nodes = 3}).total,
                 12);
}

Test(gres, per_socket)
{
    cr_assert_eq(count_ok((vs_job_req){.tres_per_socket = "gres:gpu:2", .sockets_per_node = 2}).total, 4);
    count_fails((vs_job_req){.tres_per_socket = "gres:gpu:2"}, "--gpus-per-socket");
}

Test(gres, other_gres_ignored)
{
    vs_gpus g = count_ok((vs_job_req){.tres_per_node = "gres:shard:2,gres:gpu:a100:2,gres:nic:1"});
    cr_assert_eq(g.total, 2);
    cr_assert_eq(count_ok((vs_job_req){.tres_per_node = "gres:mps:50"}).total, 0);
    cr_assert_eq(count_ok((vs_job_req){0}).total, 0);
}

Test(gres, suffixes)
{
    cr_assert_eq(count_ok((vs_job_req){.tres_per_job = "gres:gpu:1k"}).total, 1024);
}

Test(gres, two_types)
{
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:a100:2,gres:gpu:t4:2"}, "requested twice");
    count_fails((vs_job_req){.tres_per_job = "gres:gpu:a100:2", .tres_per_node = "gres:gpu:t4:1"},
                "two GPU types (a100 and t4)");
}

Test(gres, huge_numbers)
{
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:a100:99999999999999999999999"}, "is too large");
    count_fails((vs_job_req){.tres_per_job = "gres:gpu:16g"}, "more than 10000000 GPUs");
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:4096", .min_nodes = 4000000}, "more than 10000000 GPUs");
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:99999999999999999g"}, "too large");
}

Test(gres, malformed)
{
    count_fails((vs_job_req){.tres_per_node = "gres:gpu::4"}, "GPU type is empty");
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:a100:four"}, "is not a number");
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:a100:"}, "is not a number");
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:a100:-4"}, "is not a number");
    count_fails((vs_job_req){.tres_per_node = "gres:gpu:\xff\xfe:4"}, "invalid UTF-8");
}
