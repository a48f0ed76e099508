/* The admin-comment record of an accepted job (see vs_record.h). */
#include "vs_record.h"

#include <stdlib.h>
#include <string.h>

#include "vs_util.h"

/* The request's fields, in one table for writing, reading and merging. */
#define STR_FIELDS(X) X(tres_per_job) X(tres_per_node) X(tres_per_task) X(tres_per_socket)
#define NUM_FIELDS(X) X(min_nodes) X(num_tasks) X(ntasks_per_node) X(sockets_per_node)

char *vs_record_text(const vs_job_req *req, json_object *spec, const char *spec_file)
{
    json_object *root = json_object_new_object(), *r = json_object_new_object();
    if (!root || !r) {
        json_object_put(root);
        json_object_put(r);
        return NULL;
    }
    json_object_object_add(root, "v", json_object_new_int(1));
#define PUT_STR(f) \
    if (req->f) json_object_object_add(r, #f, json_object_new_string(req->f));
#define PUT_NUM(f) \
    if (req->f) json_object_object_add(r, #f, json_object_new_int64(req->f));
    STR_FIELDS(PUT_STR)
    NUM_FIELDS(PUT_NUM)
    json_object_object_add(root, "req", r);
    if (spec_file)
        json_object_object_add(root, "spec_file", json_object_new_string(spec_file));
    else
        json_object_object_add(root, "spec", json_object_get(spec));
    const char *t = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *out = t ? strdup(t) : NULL;
    json_object_put(root);
    return out;
}

int vs_record_parse(const char *admin_comment, vs_record *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    const char *at = admin_comment ? strstr(admin_comment, VS_RECORD_MARK) : NULL;
    if (!at) return 0;
    at += strlen(VS_RECORD_MARK);
    json_tokener *tok = json_tokener_new_ex(64);
    out->root = tok ? json_tokener_parse_ex(tok, at, (int)strnlen(at, (size_t)16 << 20)) : NULL;
    json_tokener_free(tok);
    json_object *r = NULL, *v = NULL;
    if (!out->root || !json_object_is_type(out->root, json_type_object) ||
        !json_object_object_get_ex(out->root, "req", &r) || !json_object_is_type(r, json_type_object)) {
        vs_record_free(out);
        return vs_fail(err, cap, "the job's vramest record in its admin comment is damaged");
    }
#define GET_STR(f) \
    if (json_object_object_get_ex(r, #f, &v) && json_object_is_type(v, json_type_string)) \
        out->req.f = json_object_get_string(v);
#define GET_NUM(f) \
    if (json_object_object_get_ex(r, #f, &v) && json_object_is_type(v, json_type_int) && \
        json_object_get_int64(v) > 0 && json_object_get_int64(v) <= UINT32_MAX) \
        out->req.f = (uint32_t)json_object_get_int64(v);
    STR_FIELDS(GET_STR)
    NUM_FIELDS(GET_NUM)
    if (json_object_object_get_ex(out->root, "spec_file", &v) && json_object_is_type(v, json_type_string))
        out->spec_file = json_object_get_string(v);
    else if (json_object_object_get_ex(out->root, "spec", &v) && json_object_is_type(v, json_type_object))
        out->spec = v;
    else {
        vs_record_free(out);
        return vs_fail(err, cap, "the job's vramest record in its admin comment has no spec");
    }
    return 1;
}

void vs_record_free(vs_record *r)
{
    json_object_put(r->root);
    memset(r, 0, sizeof *r);
}

void vs_req_merge(vs_job_req *base, const vs_job_req *update)
{
#define MERGE(f) \
    if (update->f) base->f = update->f;
    STR_FIELDS(MERGE)
    NUM_FIELDS(MERGE)
}
