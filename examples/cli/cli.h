/* The vramest CLI's modules and what they share. The CLI is a client of the
 * public API only: every decision (option names, bounds, presets, the plan)
 * belongs to the library; these files turn argv into calls and a result
 * into text. */
#ifndef VRAMEST_CLI_H
#define VRAMEST_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <json.h>
#include <vramest/vramest.h>

#include "chart.h"

/* Exit statuses, one per verdict (docs/vramest.1): 0 fits (or no device),
 * 1 does not fit, 2 bad input or an error, 3 fits only at the low end of
 * the band. */
enum { EXIT_FITS = 0, EXIT_NOFIT = 1, EXIT_BAD = 2, EXIT_LOW_END = 3 };

/* Refuse absurd input before the library does, so `vramest --spec /dev/zero`
 * cannot eat the machine; the library's own limit (16 MiB) gives the message. */
#define MAX_INPUT_BYTES ((size_t)64 << 20)

/* Columns of one --compare; more would not fit a terminal anyway. */
#define MAX_COLUMNS 16

typedef struct handles {
    vramest_model *m;
    vramest_precision *p;
    vramest_config *c;
} handles;

/* The question a run asks (vramest_plan_json()). */
typedef struct question {
    int kind;           /* VRAMEST_ASK_* */
    vramest_option key; /* for --max / --min */
} question;

/* What the command line asked for a job. */
typedef struct job {
    const char *spec, *model, *precision, *device;
    char **sets;
    int nsets;
    const char *max, *min; /* --max KEY, --min KEY */
    int advice, smallest_device;
    const char *cmp_prec, *cmp_set;
} job;

typedef struct out_opts {
    int json;         /* print the plan JSON instead of the table */
    const char *svg;  /* also write an SVG there ("-": instead of the table) */
    int color;        /* ANSI colours in the terminal bar */
    int columns;      /* terminal width */
} out_opts;

static inline double gib(uint64_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }
static inline double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

/* A result figure, or 0 when it does not apply (*ok, if given, says which). */
static inline uint64_t value_or_zero(const vramest_result *r, vramest_value key, int *ok)
{
    uint64_t v = 0;
    int rc = vramest_result_value(r, key, &v);
    if (ok) *ok = rc == VRAMEST_OK;
    return rc == VRAMEST_OK ? v : 0;
}

/* The exit status of a verdict (::VRAMEST_VAL_VERDICT; no device: fits). */
static inline int exit_for_verdict(const vramest_result *r)
{
    int ok;
    uint64_t v = value_or_zero(r, VRAMEST_VAL_VERDICT, &ok);
    return !ok || v == VRAMEST_VERDICT_FITS ? EXIT_FITS : v == VRAMEST_VERDICT_FITS_LOW_END ? EXIT_LOW_END : EXIT_NOFIT;
}

/* errors.c: print the message, return EXIT_BAD. */
int lib_error(int rc);
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* input.c */
int read_input(const char *path, char **out, size_t *out_len);
int load_model(const char *what, vramest_model **out);

/* setopt.c: "group.name" or "name"; "key=value" applied to the handles. */
int find_option(const char *spec, vramest_option *out);
int set_option(handles *h, const char *assignment);

/* suggest.c: " (did you mean a, b or c?)" for an unknown key, or "". */
void suggest_options(const char *key, char *out, size_t cap);

/* listings.c */
int cmd_options(void);
int cmd_models(void);
int cmd_gpus(void);

/* job.c: the handles and question of a job (the caller frees them with
 * handles_free on success). */
int open_job(const job *j, handles *h, question *q);
void handles_free(handles *h);

/* plan.c */
char *plan_text(const vramest_result *r, const char *spec, size_t spec_len);
char *plan_of(const handles *h, question q);
int print_plan(const char *text);
json_object *jget(json_object *o, const char *path);
const char *jstr(json_object *o, const char *path);
json_object *parse_plan(const char *text);
const char *plan_device(json_object *plan);
void describe(json_object *plan, const char *model_arg, int with_precision, char *buf, size_t cap);
vc_point *plan_timeline(json_object *plan, size_t *out_n);

/* rl_phases.c: mode rl's phases side by side (nothing for other modes). */
void print_rl_phases(json_object *plan);

/* bars.c: a bar owns its arrays; bar_free releases them. */
typedef struct bar_store {
    uint64_t *cats, *lo, *hi;
    const char **prov;
    char label[192];
    vc_bar bar;
} bar_store;
void bar_free(bar_store *b);
int bar_alloc(bar_store *b, uint32_t ncat, int bands);
int bar_from_result(bar_store *b, const vramest_result *r, const char *label);
int bar_from_rank(bar_store *b, const vramest_result *r, uint32_t group, const char *label, uint64_t capacity);
const char **category_names(void);
int use_color(void);
int term_columns(void);

/* table.c; header.c: the assumptions that decided the answer */
int print_table(const vramest_result *r, json_object *plan, const out_opts *o);
void print_header(json_object *plan, const char *model_arg);

/* svg.c */
int write_svg(const char *path, const vc_chart *c);
int svg_single(const vramest_result *r, json_object *plan, const char *model_arg, const char *path);

/* compare.c */
int run_compare(const handles *base, char **sets, int nsets, const char *cmp_prec, const char *cmp_set,
                const char *model_arg, const out_opts *o);

/* smallest.c */
int run_smallest_device(handles *h, const char *model_arg, const out_opts *o);

/* run.c */
int report(const vramest_result *r, const char *spec_plan, const char *model_arg, const out_opts *o);
int at_solution(handles *h, const char *plan_json);
int run_spec(const char *path, const out_opts *o, const char *cmp_prec, const char *cmp_set);
int plan_and_report(handles *h, question q, const char *model_arg, const out_opts *o);
int run_job(const job *j, const out_opts *o);

#endif
