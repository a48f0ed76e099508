/* What an accepted job carries in its admin comment, so that a later
 * `scontrol update` of its GPUs can be judged by the same rule.
 *
 *   vramest: fits: <summary> | vramest-record {"v":1,"req":{...},"spec":{...}}
 *
 * The summary is for people (`scontrol show job`); the record after the
 * marker is the GPU request that was judged (only the fields given) and the
 * job's spec as JSON (CLI words already translated), or {"spec_file": PATH}
 * for a --spec directive, which is read again on update. Users cannot edit
 * an admin comment, so the record is as trustworthy as the controller. */
#ifndef VS_RECORD_H
#define VS_RECORD_H

#include <stddef.h>

#include <json.h>

#include "vs_gres.h"

#define VS_RECORD_MARK " | vramest-record "

/* The record's JSON text for a request and a spec (or a spec file path);
 * malloc'd, NULL when out of memory. */
char *vs_record_text(const vs_job_req *req, json_object *spec, const char *spec_file);

typedef struct vs_record {
    json_object *root; /* owns everything below */
    vs_job_req req;    /* strings point into root */
    json_object *spec; /* borrowed from root, or NULL */
    const char *spec_file;
} vs_record;

/* Find and parse the record in an admin comment. Returns 1 when found, 0 when
 * the comment has none, -1 when it is there but damaged (message in err). */
int vs_record_parse(const char *admin_comment, vs_record *out, char *err, size_t cap);
void vs_record_free(vs_record *r);

/* The request after an update: fields the update gives replace the old ones. */
void vs_req_merge(vs_job_req *base, const vs_job_req *update);

#endif
