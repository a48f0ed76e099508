/* Status strings and the thread-local last-error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"

/* The only per-thread state of the library (design.md §4). */
static _Thread_local char tls_message[1024];

int vx_fail_msg(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_message, sizeof tls_message, fmt, ap);
    va_end(ap);
    return code;
}

int vx_fail_prefix(int code, const char *prefix)
{
    char tmp[sizeof tls_message];
    snprintf(tmp, sizeof tmp, "%s%s", prefix, tls_message);
    memcpy(tls_message, tmp, sizeof tmp);
    return code;
}

VRAMEST_API const char *vramest_last_error_message(void)
{
    return tls_message;
}

VRAMEST_API void vramest_clear_error(void)
{
    tls_message[0] = '\0';
}

VRAMEST_API const char *vramest_status_string(int status)
{
    switch (status) {
    case VRAMEST_OK: return "ok";
    case VRAMEST_E_INVALID_ARG: return "invalid argument";
    case VRAMEST_E_NOMEM: return "out of memory";
    case VRAMEST_E_IO: return "i/o error";
    case VRAMEST_E_PARSE: return "parse error";
    case VRAMEST_E_NEED_MORE_DATA: return "need more data";
    case VRAMEST_E_UNSUPPORTED: return "unsupported";
    case VRAMEST_E_UNKNOWN_OPTION: return "unknown option";
    case VRAMEST_E_TYPE: return "wrong value type";
    case VRAMEST_E_RANGE: return "value out of range";
    case VRAMEST_E_CONFLICT: return "conflicting values";
    case VRAMEST_E_INCOMPLETE_MODEL: return "incomplete model";
    case VRAMEST_E_UNKNOWN_CATEGORY: return "unknown category";
    case VRAMEST_E_BUFFER_TOO_SMALL: return "buffer too small";
    case VRAMEST_E_WRONG_HANDLE: return "option belongs to another handle";
    case VRAMEST_E_UNKNOWN_MODEL_TYPE: return "unknown model type";
    case VRAMEST_E_OVERFLOW: return "size overflows 64 bits";
    case VRAMEST_E_INVALID_MODEL: return "inconsistent model";
    case VRAMEST_E_UNKNOWN_NAME: return "unknown name";
    case VRAMEST_E_LIMIT: return "safety limit exceeded";
    case VRAMEST_E_DOES_NOT_FIT: return "does not fit";
    case VRAMEST_E_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}
