/* The best one-change fix for a job that does not fit, from libvramest's
 * advice engine (vramest_advise_json: changes cheapest first), said in the
 * words a user puts in a #VRAMEST directive or an sbatch option. */
#ifndef VS_ADVICE_H
#define VS_ADVICE_H

#include <stddef.h>

#include <vramest/vramest.h>

/* Append to `out` one line: the cheapest change that fits, else the one that
 * saves the most. Returns 0, or -1 when the advice engine failed (a line
 * saying so is appended). */
int vs_advice_line(const vramest_model *m, const vramest_precision *p, const vramest_config *c, char *out,
                   size_t cap);

/* "12.34 GiB" */
void vs_gib(char *out, size_t cap, uint64_t bytes);

#endif
