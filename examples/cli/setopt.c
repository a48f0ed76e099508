/* --set key=value: a key resolved in the library's option registry (a name
 * shared by two objects must be qualified), the value parsed by its type. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "group.name" or "name". A bare name shared by two objects (kv_cache) is
 * refused rather than guessed. */
int find_option(const char *spec, vramest_option *out)
{
    char group[32] = "";
    const char *name = spec, *dot = strchr(spec, '.');
    if (dot) {
        size_t gl = (size_t)(dot - spec);
        if (gl >= sizeof group) gl = sizeof group - 1;
        memcpy(group, spec, gl);
        group[gl] = '\0';
        if (strcmp(group, "arch") == 0) strcpy(group, "model");
        name = dot + 1;
    }
    uint32_t n = vramest_option_count(), hits = 0;
    vramest_option found = (vramest_option)0;
    char others[256] = "";
    for (uint32_t i = 0; i < n; i++) {
        vramest_option k;
        if (vramest_option_at(i, &k) != VRAMEST_OK) continue;
        const char *nm = vramest_option_name(k), *g = vramest_option_group(k);
        if (!nm || !g || strcmp(nm, name) != 0 || (dot && strcmp(g, group) != 0)) continue;
        size_t l = strlen(others);
        snprintf(others + l, sizeof others - l, "%s%s.%s", hits ? ", " : "", g, nm);
        found = k, hits++;
    }
    if (hits == 1) {
        *out = found;
        return 0;
    }
    if (hits > 1) return usage_error("option '%s' is ambiguous: write one of %s", spec, others);
    /* Aliases (n_embd) and the library's "did you mean" live in the registry. */
    vramest_option k;
    int rc = vramest_option_from_name(name, &k);
    if (rc == VRAMEST_E_UNKNOWN_OPTION) {
        char hint[160];
        suggest_options(name, hint, sizeof hint);
        fprintf(stderr, "vramest: %s: unknown option '%.64s'%s; 'vramest options' lists them\n",
                vramest_status_string(rc), name, hint);
        return EXIT_BAD;
    }
    if (rc) return lib_error(rc);
    const char *g = vramest_option_group(k);
    if (dot && g && strcmp(g, group) != 0)
        return usage_error("option '%s' belongs to '%s', not '%s'", name, g, group);
    *out = k;
    return 0;
}


int set_option(handles *h, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) return usage_error("--set expects key=value, got '%s'", assignment);
    char key[128];
    size_t kl = (size_t)(eq - assignment);
    if (kl >= sizeof key) return usage_error("--set: key '%.*s...' is too long", 32, assignment);
    memcpy(key, assignment, kl);
    key[kl] = '\0';
    const char *val = eq + 1;

    vramest_option opt = (vramest_option)0;
    int rc = find_option(key, &opt);
    if (rc) return rc;
    int type = 0, handle = 0;
    if ((rc = vramest_option_info(opt, &type, &handle, NULL, NULL, NULL))) return lib_error(rc);

    int64_t i = 0;
    double d = 0;
    char *end = NULL;
    enum { AS_I64, AS_F64, AS_STR } how = AS_STR;
    if (type == VRAMEST_TYPE_I64) {
        errno = 0;
        i = strtoll(val, &end, 10);
        if (!*val || *end || errno)
            return usage_error("%s: --set %s: '%s' is not an integer", vramest_status_string(VRAMEST_E_TYPE), key,
                               val);
        how = AS_I64;
    } else if (type == VRAMEST_TYPE_F64) {
        errno = 0;
        d = strtod(val, &end);
        if (!*val || *end || errno)
            return usage_error("%s: --set %s: '%s' is not a number", vramest_status_string(VRAMEST_E_TYPE), key,
                               val);
        how = AS_F64;
    } else if (type == VRAMEST_TYPE_BOOL) {
        if (!strcmp(val, "true") || !strcmp(val, "1"))
            i = 1;
        else if (!strcmp(val, "false") || !strcmp(val, "0"))
            i = 0;
        else
            return usage_error("%s: --set %s: '%s' is not true/false/1/0", vramest_status_string(VRAMEST_E_TYPE),
                               key, val);
        how = AS_I64;
    }
    switch (handle) {
    case VRAMEST_HANDLE_MODEL:
        rc = how == AS_I64 ? vramest_model_set_i64(h->m, opt, i)
             : how == AS_F64 ? vramest_model_set_f64(h->m, opt, d)
                             : vramest_model_set_str(h->m, opt, val);
        break;
    case VRAMEST_HANDLE_PRECISION:
        rc = how == AS_I64 ? vramest_precision_set_i64(h->p, opt, i)
             : how == AS_F64 ? vramest_precision_set_f64(h->p, opt, d)
                             : vramest_precision_set_str(h->p, opt, val);
        break;
    default:
        rc = how == AS_I64 ? vramest_config_set_i64(h->c, opt, i)
             : how == AS_F64 ? vramest_config_set_f64(h->c, opt, d)
                             : vramest_config_set_str(h->c, opt, val);
        break;
    }
    return rc ? lib_error(rc) : 0;
}
