/* A bound on what json-c may allocate for one document. json-c builds a tree
 * of heap objects, about 80 bytes per scalar and 800 per object: 16 MiB of
 * "[{},{},...]" made it take 4.3 GiB (8.7 GiB for a spec inlining such a
 * config.json). Job specs and config.json files hold hundreds of values, so
 * a cheap pass over the text before json-c rejects documents with more
 * values or objects than any real one has. */
#ifndef VX_JSONLIMIT_H
#define VX_JSONLIMIT_H

#include "common/internal.h"

#define VX_MAX_JSON_VALUES 100000u /* values (scalars, arrays, objects) in one document */
#define VX_MAX_JSON_OBJECTS 10000u /* objects in one document */

/* VRAMEST_E_LIMIT, naming `what` and the byte offset, when `s[0..n)` holds
 * more values or objects than the limits; VRAMEST_OK otherwise (whether the
 * text is valid JSON is json-c's to say). No allocation, O(n). */
int vx_json_check_size(const char *s, size_t n, const char *what) VX_HIDDEN;

#endif
