/* One libFuzzer entry point per target; meson compiles this file once per
 * target with -DVF_TARGET=VF_<NAME> (tests/fuzz/meson.build). */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vf_run(VF_TARGET, data, size);
    return 0;
}
