/* Counting JSON values without building them (jsonlimit.h says why). Outside
 * strings, every '{' and '[' opens a value and every ',' separates one more:
 * values <= containers + commas + 1, exactly for valid JSON, and an upper
 * bound of what json-c would build for invalid text it rejects anyway. */
#include "common/jsonlimit.h"

int vx_json_check_size(const char *s, size_t n, const char *what)
{
    uint64_t values = 1, objects = 0;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++; /* the escaped byte cannot end the string */
            else if (c == '"')
                in_string = false;
            continue;
        }
        switch (c) {
        case '"': in_string = true; break;
        case '{': objects++, values++; break;
        case '[':
        case ',': values++; break;
        default: break;
        }
        if (objects > VX_MAX_JSON_OBJECTS)
            return vx_fail(VRAMEST_E_LIMIT, "%s: more than %u JSON objects (at byte %zu); a real one has a few",
                           what, VX_MAX_JSON_OBJECTS, i);
        if (values > VX_MAX_JSON_VALUES)
            return vx_fail(VRAMEST_E_LIMIT, "%s: more than %u JSON values (at byte %zu); a real one has hundreds",
                           what, VX_MAX_JSON_VALUES, i);
    }
    return VRAMEST_OK;
}
