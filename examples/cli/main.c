/* vramest: the command-line front end of libvramest.
 *
 * Deliberately thin: every decision (option names, types, bounds, presets,
 * the job-spec format, the plan JSON) belongs to the library, so the CLI, the
 * Python binding and a scheduler can never disagree. This file only turns
 * argv into library calls and a result into text; chart_*.c draw. The other
 * modules are listed in cli.h.
 *
 *   vramest --spec FILE|- | --model NAME|PATH  [--precision P] [--device GPU] [--set key=value ...]
 *           [--max KEY | --min gpus|gpu_memory_utilization|mem_fraction_static | --advice | --smallest-device
 *            | --compare P1,P2,... | --compare-set key=v1,v2,...] [--json] [--svg FILE]
 *   vramest options | models | gpus
 *
 * Exit status: 0 the job fits (or no device was given), 1 it does not fit,
 * 2 bad input or an error, 3 it fits only at the low end of its band. With
 * --json the plan carries the verdict ("verdict", and "fits") and the status
 * is 0 whenever a plan was printed: scripts reading the JSON (such as the
 * accuracy checker) treat any other status as a failed run. A comparison
 * exits with the best column's status. The same text is in --help and
 * docs/vramest.1; keep the three in step. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
    fputs("usage: vramest --spec FILE|- | --model NAME|PATH  [--precision P] [--device GPU] [--set key=value ...]\n"
          "               [--max KEY | --min gpus | --advice | --smallest-device\n"
          "                | --compare P1,P2,... | --compare-set key=v1,v2,...] [--json] [--svg FILE]\n"
          "       vramest options | models | gpus\n"
          "       vramest --help | --version\n"
          "\n"
          "Estimate the GPU (and host / NVMe) memory of a training or inference job.\n"
          "\n"
          "  --spec FILE     read a JSON job spec (docs/guide.md); '-' reads standard input\n"
          "  --model M       a bundled preset (see 'vramest models') or a config.json,\n"
          "                  .safetensors, index .json, .gguf file or model directory\n"
          "  --precision P   a precision preset: fp32, fp16, bf16, amp_fp16, amp_bf16, mixed_bf16,\n"
          "                  mixed_fp16, int8, nf4, fp4, or any dtype name\n"
          "  --device GPU    a GPU preset (see 'vramest gpus'; 'RTX 4090', 'h100', nvidia-smi's\n"
          "                  names work too); same as --set device=GPU\n"
          "  --set K=V       set any option (see 'vramest options'); repeatable. A name that\n"
          "                  belongs to two objects is qualified: precision.kv_cache=fp8,\n"
          "                  workload.kv_cache=false. With --spec, the flags override the spec\n"
          "  --max KEY       the largest value of KEY that fits: batch_size, seq_len, prompt_len,\n"
          "                  gen_len, beams, lora_rank, max_num_seqs, max_model_len, n_ctx,\n"
          "                  n_gpu_layers; the table is at the answer\n"
          "  --min gpus      the smallest GPU count that fits, with the layout that reaches it\n"          "  --min gpu_memory_utilization | mem_fraction_static\n"
          "                  the smallest share of the GPU vLLM / SGLang needs to start and fit\n"
          "  --advice        one-change fixes, cheapest first, each with its verdict\n"
          "  --smallest-device\n"
          "                  the GPU preset with the least memory on which the job fits (there\n"
          "                  is no --cheapest: vramest has no GPU prices)\n"
          "  --json          print the plan as JSON (the library's vramest_plan_json)\n"
          "  --svg FILE      also write an SVG chart: the GPU breakdown as a stacked bar (one per\n"
          "                  rank group or compared column) against the device, and the step\n"
          "                  timeline (memory allocated at each point of the step)\n"
          "  --compare LIST  one column per precision preset, e.g. fp32,fp16,int8,nf4: every\n"
          "                  category, peak_allocated, peak_reserved, device_total and the verdict\n"
          "                  side by side (a preset replaces --precision and the spec's precision)\n"
          "  --compare-set K=V1,V2,...\n"
          "                  one column per value of an option, e.g. batch_size=1,4,16\n"
          "  -h, --help      this text;  -V, --version  the CLI and library versions\n"
          "\n"
          "  options         every option: name, object, type, default, bounds, description\n"
          "  models          the bundled model presets with their parameter counts\n"
          "  gpus            the bundled GPU presets with their memory\n"
          "\n"
          "Each headline figure has a band from measurements: peak_allocated's holds at least 90%\n"
          "of the measured runs of its kind (load, inference, serving, training); reserved and\n"
          "total add the measured fragmentation and the CUDA context. The verdict compares the band of\n"
          "device_total with the GPU's memory less the headroom (--set headroom_gib=G or\n"
          "headroom_fraction=F): it fits, it fits only at the low end of the band, or it does not\n"
          "fit; then the line says why and which one change makes it fit.\n"
          "\n"
          "The table ends with a stacked bar of the GPU categories; it is coloured only when\n"
          "standard output is a terminal and NO_COLOR is not set. COLUMNS sets its width when\n"
          "the output is not a terminal.\n"
          "\n"
          "Exit status: 0 fits (or no device given), 1 does not fit, 2 bad input or an error,\n"
          "3 fits only at the low end of the band.\n"
          "With --json the verdict is the plan's \"verdict\" and the status is 0 when a plan is printed.\n"
          "A comparison exits with the status of its best column.\n",
          f);
}

static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
    size_t l = strlen(opt);
    if (strncmp(argv[*i], opt, l) != 0) return NULL;
    if (argv[*i][l] == '=') return argv[*i] + l + 1;
    if (argv[*i][l] != '\0') return NULL;
    if (*i + 1 >= argc) return "";
    return argv[++*i];
}

int main(int argc, char **argv)
{
    const char *command = NULL, *svg = NULL;
    int json = 0;
    job j;
    memset(&j, 0, sizeof j);
    char **sets = j.sets = calloc((size_t)argc + 1, sizeof *sets);
    if (!sets) return EXIT_BAD;
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            rc = EXIT_FITS;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            printf("vramest %s (libvramest %s)\n", VRAMEST_VERSION_STRING, vramest_version_string());
            rc = EXIT_FITS;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--advice")) {
            j.advice = 1;
        } else if (!strcmp(a, "--smallest-device")) {
            j.smallest_device = 1;
        } else if (!strcmp(a, "--cheapest")) {
            rc = usage_error("--cheapest would need GPU prices, which vramest does not have; --smallest-device "
                             "picks the preset with the least memory that fits");
        } else if ((v = opt_value(argc, argv, &i, "--spec"))) {
            j.spec = v;
        } else if ((v = opt_value(argc, argv, &i, "--model"))) {
            j.model = v;
        } else if ((v = opt_value(argc, argv, &i, "--precision"))) {
            j.precision = v;
        } else if ((v = opt_value(argc, argv, &i, "--device"))) {
            j.device = v;
        } else if ((v = opt_value(argc, argv, &i, "--set"))) {
            sets[j.nsets++] = (char *)v;
        } else if ((v = opt_value(argc, argv, &i, "--max"))) {
            j.max = v;
        } else if ((v = opt_value(argc, argv, &i, "--min"))) {
            j.min = v;
        } else if ((v = opt_value(argc, argv, &i, "--svg"))) {
            svg = v;
        } else if ((v = opt_value(argc, argv, &i, "--compare-set"))) {
            j.cmp_set = v;
        } else if ((v = opt_value(argc, argv, &i, "--compare"))) {
            j.cmp_prec = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = usage_error("unknown argument '%s'", a);
        } else if (!command && (!strcmp(a, "options") || !strcmp(a, "models") || !strcmp(a, "gpus"))) {
            command = a;
        } else {
            rc = usage_error("unexpected argument '%s'", a);
        }
    }
    if (rc < 0) {
        out_opts o = {json, svg, use_color(), term_columns()};
        int any_job = j.spec || j.model || j.precision || j.device || j.nsets || j.max || j.min || j.advice ||
                      j.smallest_device || j.cmp_prec || j.cmp_set;
        if ((j.spec && !*j.spec) || (j.model && !*j.model) || (j.precision && !*j.precision) ||
            (j.device && !*j.device) || (svg && !*svg) || (j.cmp_prec && !*j.cmp_prec) ||
            (j.cmp_set && !*j.cmp_set) || (j.max && !*j.max) || (j.min && !*j.min))
            rc = usage_error("an option is missing its value");
        else if (command && (any_job || json || svg))
            rc = usage_error("'%s' takes no other arguments", command);
        else if (command)
            rc = !strcmp(command, "options") ? cmd_options() : !strcmp(command, "models") ? cmd_models() : cmd_gpus();
        else if (j.cmp_prec && j.cmp_set)
            rc = usage_error("--compare and --compare-set cannot be combined: compare one thing at a time");
        else if (j.cmp_prec && j.precision)
            rc = usage_error("--compare gives each column its precision preset: drop --precision");
        else if ((j.cmp_prec || j.cmp_set) && (j.max || j.min || j.advice || j.smallest_device))
            rc = usage_error("--compare cannot answer a question (--max, --min, --advice, --smallest-device): "
                             "drop one of them");
        else if (svg && !strcmp(svg, "-") && json)
            rc = usage_error("--svg - and --json both write to standard output: pick one");
        else if (j.spec && j.model)
            rc = usage_error("--spec cannot be combined with --model: the spec names its model");
        else if (j.spec || j.model)
            rc = run_job(&j, &o);
        else if (any_job || svg)
            rc = usage_error("--precision, --device, --set, --svg, --compare and the questions need --model or --spec");
        else
            rc = usage_error("nothing to do: give --spec FILE or --model NAME");
    }
    free(sets);
    if (fflush(stdout) != 0 && rc != EXIT_BAD) {
        fprintf(stderr, "vramest: i/o error: cannot write the output: %s\n", strerror(errno));
        rc = EXIT_BAD;
    }
    return rc;
}

