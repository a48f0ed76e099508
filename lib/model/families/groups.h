/* The family rows, one per model_type (defined in the group files of this
 * folder: decoders.c, moe.c, gpt.c, rotary.c, encoders.c, sparse_moe.c; listed in
 * list.h). */
#ifndef VX_FAMILY_GROUPS_H
#define VX_FAMILY_GROUPS_H

#include "model/family.h"

#define X(id, cname, row, name) extern const vx_family row VX_HIDDEN;
#include "model/families/list.h"
#undef X

#endif
