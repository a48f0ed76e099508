/* Running a program on the tape: the replay every step can fall back on. */
#include "estimate/graph/program.h"

int vx_prog_run(const vx_prog_call *pc, vx_tlog *log, vx_prog *out)
{
    switch (pc->kind) {
    case VX_PK_EMBED: return vx_act_embed(pc->c, pc->tm, log, out);
    case VX_PK_HEAD: return vx_act_head(pc->c, pc->tm, pc->upcast, pc->shift, pc->held, log, out);
    default: return vx_act_layer(pc->c, pc->part, pc->cross, log, out);
    }
}

static int replay(void *arg, const vx_prog_call *pc, vx_prog *out)
{
    (void)arg;
    if (pc->used) *pc->used = NULL;
    return vx_prog_run(pc, NULL, out);
}

const vx_prog_source vx_prog_replay = {replay, NULL};
