// The public header must be usable from C++ (extern "C", no C-only constructs),
// compiled with -pedantic -Werror. References a few symbols so a missing
// export (or missing extern "C") fails the link.
#include <vramest/vramest.h>
#include <cstdio>
#include <cstring>

static_assert(sizeof(vramest_status) == sizeof(int), "vramest_status is not int-sized");
static_assert(VRAMEST_VERSION_CHECK(1, 0, 0), "VRAMEST_VERSION_CHECK is broken");

int main()
{
    vramest_model *model = nullptr;
    vramest_option key = VRAMEST_MODEL_HIDDEN_SIZE;
    int (*set)(vramest_model *, vramest_option, int64_t) = vramest_model_set_i64;

    if (set == nullptr || key != 1001)
        return 1;
    if (vramest_version_number() != VRAMEST_VERSION_NUMBER)
        return 1;
    if (std::strcmp(vramest_version_string(), VRAMEST_VERSION_STRING) != 0)
        return 1;
    vramest_model_free(model);
    std::printf("C++: libvramest %s\n", vramest_version_string());
    return 0;
}
