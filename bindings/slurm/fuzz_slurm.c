/* libFuzzer target for the Slurm plugin's parsers: #VRAMEST directives (and
 * their translation to a spec), GPU requests, vramest.conf and admin-comment
 * records. The first byte picks the parser. Built with -Dfuzz=true (clang):
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false -Ddocs=false \
 *       -Db_sanitize=address,undefined -Db_lundef=false
 *   mkdir -p /tmp/corpus && cp -r tests/slurm/fuzz/. /tmp/corpus &&
 *   build-fuzz/bindings/slurm/fuzz_slurm -max_total_time=60 /tmp/corpus
 * tests/slurm/fuzz holds the seed corpus (libFuzzer adds to the directory it is
 * given, hence the copy). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vs_conf.h"
#include "vs_directive.h"
#include "vs_gres.h"
#include "vs_record.h"
#include "vs_spec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libFuzzer runs the target on one thread; the option index is built once. */
static vs_optnames *names;
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!names) names = vs_optnames_new();
    if (size < 1) return 0;
    int which = data[0] % 4;
    char *s = malloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    char err[2048];
    if (which == 0) {
        vs_directive d;
        if (!vs_directive_scan(s, 65536, &d, err, sizeof err) && d.kind == VS_DIR_WORDS) {
            json_object *o = NULL;
            if (!vs_spec_from_words(names, &d, &o, err, sizeof err)) json_object_put(o);
        } else if (d.kind == VS_DIR_JSON) {
            json_object *o = NULL;
            if (!vs_spec_from_text(d.text, d.len, 1 << 20, "x", 0, &o, err, sizeof err)) {
                vs_model_src src;
                vs_spec_model_src(o, &src, err, sizeof err);
                vs_device dev = {.preset = "A100-80GB"};
                vs_spec_bind(o, &dev, 4, 2, err, sizeof err);
                json_object_put(o);
            }
        }
        vs_directive_free(&d);
    } else if (which == 1) {
        /* fields separated by '|' */
        char *f[4] = {0};
        char *p = s;
        for (int i = 0; i < 4 && p; i++) { f[i] = p; p = strchr(p, '|'); if (p) *p++ = '\0'; }
        vs_job_req r = {.tres_per_job = f[0], .tres_per_node = f[1], .tres_per_task = f[2], .tres_per_socket = f[3],
                        .min_nodes = size > 3 ? data[1] * 40000u : 0, .num_tasks = size > 4 ? data[2] : 0,
                        .sockets_per_node = size > 5 ? data[3] : 0};
        vs_gpus g;
        vs_gpus_count(&r, &g, err, sizeof err);
    } else if (which == 2) {
        vs_conf c;
        vs_conf_init(&c);
        vs_conf_parse(&c, (const char *)data + 1, size - 1, "f", err, sizeof err);
        vs_conf_free(&c);
    } else {
        vs_record r;
        if (vs_record_parse(s, &r, err, sizeof err) > 0) {
            vs_job_req q = r.req;
            vs_req_merge(&q, &r.req);
            vs_record_free(&r);
        }
    }
    free(s);
    return 0;
}
