/* The public header must compile as strict C99 (built with -std=c99 -pedantic
 * -Werror): callers are not all on C11. References a few symbols so a missing
 * export also fails the link. */
#include <vramest/vramest.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    vramest_model *model = NULL;
    vramest_config *cfg = NULL;
    vramest_result *res = NULL;
    uint64_t bytes = 0;
    int (*estimate)(const vramest_model *, const vramest_precision *, const vramest_config *,
                    vramest_result **) = vramest_estimate;
    int (*get)(const vramest_result *, vramest_device, vramest_category, uint64_t *) =
        vramest_result_get;
    vramest_option key = VRAMEST_CFG_BATCH_SIZE;

    (void)model; (void)cfg; (void)res; (void)bytes;
    if (estimate == NULL || get == NULL || key != 3001)
        return 1;
    if (vramest_version_number() != VRAMEST_VERSION_NUMBER)
        return 1;
    if (strcmp(vramest_version_string(), VRAMEST_VERSION_STRING) != 0)
        return 1;
    vramest_model_free(NULL);
    vramest_config_free(NULL);
    vramest_result_free(NULL);
    printf("C99: libvramest %s (%s)\n", vramest_version_string(), vramest_status_string(VRAMEST_OK));
    return 0;
}
