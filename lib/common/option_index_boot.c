/* The index option_index_gen links in place of the one it writes. The
 * option tables' objects pull in code that looks names up (enum name lists
 * live with the family registry and the runtime table, which use
 * options.c), so the generator needs the index's symbols to link; it only
 * reads the tables' rows and never looks a name up. Here every lookup
 * misses: no names, one empty bucket, no rows by key, and no pre-rendered
 * echo. Never part of the library. */
#include "common/option_index.h"

const vx_optname vx_optnames[1] = {{"", 0, 0, {{0, 0, 0}}}};
const uint32_t vx_optname_count = 0;
const uint32_t vx_optname_buckets = 1;
const uint32_t vx_optname_mask = 0;
const uint32_t vx_optname_seed[1] = {0};
const uint16_t vx_optname_slot[1] = {0};
static const int16_t no_rows[1] = {-1};
const vx_optkeys vx_optkeys_of[3] = {{0, 0, no_rows}, {0, 0, no_rows}, {0, 0, no_rows}};
const vx_optecho vx_optecho_of[3] = {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}};
