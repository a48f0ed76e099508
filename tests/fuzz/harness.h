/* One harness per parser, shared by the libFuzzer targets (fuzz_main.c) and
 * the Criterion replay suite (tests/test_regress.c), so a crashing input
 * saved under tests/data/regress/<target>/ is replayed exactly as the fuzzer
 * ran it. Each harness parses the input, then runs one of eight workloads
 * (picked by the input's hash; together they reach every estimator), the
 * JSON plan, and on some inputs only (the hash's other bits) the solvers,
 * the compiled programs and the costlier checks, on whatever model came
 * out, and checks the library's promises on
 * the way (see harness.c); a broken promise aborts, so the fuzzer reports it
 * like a crash. */
#ifndef VF_HARNESS_H
#define VF_HARNESS_H

#include <stddef.h>
#include <stdint.h>

enum {
    VF_HF_CONFIG = 0,  /* vramest_model_parse(VRAMEST_SRC_HF_CONFIG_JSON) */
    VF_SAFETENSORS,    /* vramest_model_parse(VRAMEST_SRC_SAFETENSORS_HEADER) */
    VF_ST_INDEX,       /* vramest_model_parse(VRAMEST_SRC_SAFETENSORS_INDEX) */
    VF_GGUF,           /* vramest_model_parse(VRAMEST_SRC_GGUF_HEADER) */
    VF_SPEC,           /* vramest_spec_parse / vramest_spec_plan, and the "solve" question */
    VF_TARGET_COUNT
};

/* Directory names under tests/fuzz/corpus/ and tests/data/regress/. */
extern const char *const vf_target_names[VF_TARGET_COUNT];

/* Run one input through a target. Returns the parse status (for tests);
 * aborts when the library breaks a promise. */
int vf_run(int target, const uint8_t *data, size_t size);

#endif
