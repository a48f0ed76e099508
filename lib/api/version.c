/* Runtime version, so callers can detect a header/library mismatch. */
#include "common/internal.h"

VRAMEST_API uint32_t vramest_version_number(void)
{
    return VRAMEST_VERSION_NUMBER;
}

VRAMEST_API const char *vramest_version_string(void)
{
    return VRAMEST_VERSION_STRING;
}
