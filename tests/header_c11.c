/* The public header under C11 (the project's own standard), with every
 * warning an error. References a few symbols so a missing export fails the link. */
#include <vramest/vramest.h>
#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Enums stay 32-bit: ctypes binds them as c_int. */
static_assert(sizeof(vramest_status) == sizeof(int), "vramest_status is not int-sized");
static_assert(sizeof(vramest_option) == sizeof(int), "vramest_option is not int-sized");
static_assert(sizeof(vramest_category) == sizeof(int), "vramest_category is not int-sized");
static_assert(VRAMEST_OK == 0, "VRAMEST_OK must be 0");

int main(void)
{
    vramest_precision *prec = NULL;
    const char *(*name)(vramest_category) = vramest_category_name;

    (void)prec;
    if (name == NULL)
        return 1;
    if (vramest_version_number() != VRAMEST_VERSION_NUMBER)
        return 1;
    if (strcmp(vramest_version_string(), VRAMEST_VERSION_STRING) != 0)
        return 1;
    vramest_precision_free(NULL);
    vramest_clear_error();
    printf("C11: libvramest %s\n", vramest_version_string());
    return 0;
}
