/* Layer blocks as op lists (block.h), one per norm placement, in the
 * order the Hugging Face decoder layers run them (transformers 4.38-4.44):
 *   pre       LlamaDecoderLayer, GPT2Block, T5Block (with cross-attention)
 *   post      BertLayer, post-LN OPTDecoderLayer
 *   parallel  GPTJBlock, CodeGenBlock, PhiDecoderLayer, FalconDecoderLayer
 *   parallel2 GPTNeoXLayer (use_parallel_residual)
 *   sandwich  Gemma2DecoderLayer, Gemma3DecoderLayer
 *   post_sub  Olmo2DecoderLayer
 * A reference dropped by Python stays alive on the tape while autograd
 * saves it; the list says only when the code lets go of it. */
#include "estimate/graph/block.h"
#include "model/model.h"

#define N(d, a) {VX_BOP_NORM, d, a, 0}
#define AT(d, a) {VX_BOP_ATTN, d, a, 0}
#define XA(d, a) {VX_BOP_XATTN, d, a, 0}
#define M(d, a) {VX_BOP_MLP, d, a, 0}
#define ADD(d, a, b) {VX_BOP_ADD, d, a, b}
#define D(a) {VX_BOP_DROP, 0, a, 0}
#define END {VX_BOP_END, 0, 0, 0}

/* h = norm(x); x2 = x + attn(h); y = x2 + mlp(norm(x2)) */
static const vx_bop pre[] = {N(1, 0), AT(2, 1), D(1),    ADD(3, 0, 2), D(2), N(4, 3),
                             M(5, 4), D(4),     ADD(6, 3, 5), D(3),    D(5), END};
/* ... with norm + cross-attention + add between the two */
static const vx_bop pre_cross[] = {N(1, 0), AT(2, 1), D(1), ADD(3, 0, 2), D(2), N(4, 3), XA(5, 4), D(4), ADD(6, 3, 5),
                                   D(3),    D(5),     N(7, 6), M(1, 7),   D(7), ADD(2, 6, 1), D(6), D(1), END};
/* x2 = norm(attn(x) + x); y = norm(mlp(x2) + x2) */
static const vx_bop post[] = {AT(1, 0), ADD(2, 1, 0), D(1), N(3, 2),    D(2), M(4, 3),
                              ADD(5, 4, 3), D(4),    D(3), N(6, 5), D(5), END};
/* h = norm(x); y = (attn(h) + mlp(h)) + x */
static const vx_bop parallel[] = {N(1, 0), AT(2, 1), M(3, 1), D(1),     ADD(4, 2, 3),
                                  D(2),    D(3),     ADD(5, 4, 0), D(4), END};
/* y = (attn(norm1(x)) + mlp(norm2(x))) + x: norm1's output goes with the
 * attention call */
static const vx_bop parallel2[] = {N(1, 0), AT(2, 1), D(1),     N(3, 0), M(4, 3), D(3),
                                   ADD(5, 2, 4), D(2), D(4), ADD(6, 5, 0), D(5), END};
/* x2 = x + norm(attn(norm(x))); y = x2 + norm(mlp(norm(x2))) */
static const vx_bop sandwich[] = {N(1, 0), AT(2, 1), D(1), N(3, 2), D(2), ADD(4, 0, 3), D(3), N(5, 4), M(6, 5),
                                  D(5),    N(7, 6),  D(6), ADD(1, 4, 7), D(4), D(7), END};
/* x2 = x + norm(attn(x)); y = x2 + norm(mlp(x2)) */
static const vx_bop post_sub[] = {AT(1, 0), N(2, 1), D(1),     ADD(3, 0, 2), D(2), M(4, 3),
                                  N(5, 4),  D(4),    ADD(6, 3, 5), D(3),    D(5), END};

/* DeciLM's no-op blocks: y = x + attn(norm(x)), or y = x + mlp(norm(x)) */
static const vx_bop pre_mixer_only[] = {N(1, 0), AT(2, 1), D(1), ADD(3, 0, 2), D(2), END};
static const vx_bop pre_mlp_only[] = {N(1, 0), M(2, 1), D(1), ADD(3, 0, 2), D(2), END};

/* What each list holds at its sublayers, walked once per list here and
 * checked against the walk (vx_block_walk) by tests/test_family.c: the
 * inference forward asks for it per layer kind and per pass. */
static const uint8_t held_of[][2][2] = {
    [VX_PLACE_PRE] = {{1, 2}, {2, 2}}, [VX_PLACE_POST] = {{0, 1}, {0, 1}},
    [VX_PLACE_PARALLEL] = {{1, 2}, {1, 2}}, [VX_PLACE_PARALLEL2] = {{1, 2}, {1, 2}},
    [VX_PLACE_SANDWICH] = {{1, 2}, {1, 2}}, [VX_PLACE_POST_SUB] = {{0, 1}, {0, 1}},
};

const vx_bop *vx_block_ops(int place, int cross)
{
    switch (place) {
    case VX_PLACE_POST: return post;
    case VX_PLACE_PARALLEL: return parallel;
    case VX_PLACE_PARALLEL2: return parallel2;
    case VX_PLACE_SANDWICH: return sandwich;
    case VX_PLACE_POST_SUB: return post_sub;
    default: return cross ? pre_cross : pre;
    }
}

const vx_bop *vx_block_ops_of(int place, int cross, int no_mixer, int no_mlp)
{
    if (place == VX_PLACE_PRE && !cross && no_mixer != no_mlp) return no_mixer ? pre_mlp_only : pre_mixer_only;
    return vx_block_ops(place, cross);
}

void vx_block_held_of(int place, int cross, int no_mixer, int no_mlp, int *attn_held, int *mlp_held)
{
    if (place == VX_PLACE_PRE && !cross && no_mixer != no_mlp) {
        /* the normed input only (the residual is the block's input) */
        *attn_held = !no_mixer, *mlp_held = !no_mlp;
        return;
    }
    vx_block_held(place, cross, attn_held, mlp_held);
}

void vx_block_held(int place, int cross, int *attn_held, int *mlp_held)
{
    unsigned p = place >= 0 && place < (int)VX_ARRAY_LEN(held_of) ? (unsigned)place : VX_PLACE_PRE;
    *attn_held = held_of[p][cross != 0][0];
    *mlp_held = held_of[p][cross != 0][1];
}

void vx_block_walk(const vx_bop *ops, int *attn_held, int *mlp_held)
{
    int held = 0; /* live slots besides the input (every op writes a free slot) */
    *attn_held = *mlp_held = 0;
    for (const vx_bop *o = ops; o->op != VX_BOP_END; o++) {
        if (o->op == VX_BOP_DROP) {
            held--;
            continue;
        }
        if ((o->op == VX_BOP_ATTN || o->op == VX_BOP_XATTN) && held > *attn_held) *attn_held = held;
        if (o->op == VX_BOP_MLP && held > *mlp_held) *mlp_held = held;
        held++;
    }
}
