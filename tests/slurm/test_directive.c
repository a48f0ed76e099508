/* #VRAMEST directive scanning and words (bindings/slurm/vs_directive.c),
 * hostile directives included: every one gets its own message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vs_directive.h"

static vs_directive d;
static char err[2048];

static int scan(const char *script)
{
    vs_directive_free(&d);
    err[0] = '\0';
    return vs_directive_scan(script, 65536, &d, err, sizeof err);
}

static void teardown(void)
{
    vs_directive_free(&d);
}

TestSuite(directive, .fini = teardown);

Test(directive, none_without_script_or_lines)
{
    cr_assert_eq(scan(NULL), 0);
    cr_assert_eq(d.kind, VS_DIR_NONE);
    cr_assert_eq(scan("#!/bin/bash\n#SBATCH --gres=gpu:4\nsrun hostname\n"), 0);
    cr_assert_eq(d.kind, VS_DIR_NONE);
}

Test(directive, words_like_the_cli)
{
    cr_assert_eq(scan("#!/bin/bash\n#SBATCH -N 1\n\n#VRAMEST --model qwen3-8b --set mode=train\n"
                      "#VRAMEST --set=batch_size=8 --precision=bf16\nsrun x\n"),
                 0, "%s", err);
    cr_assert_eq(d.kind, VS_DIR_WORDS);
    cr_assert_str_eq(d.model, "qwen3-8b");
    cr_assert_str_eq(d.precision, "bf16");
    cr_assert_eq(d.nsets, 2);
    cr_assert_str_eq(d.sets[0], "mode=train");
    cr_assert_str_eq(d.sets[1], "batch_size=8");
    cr_assert_eq(d.first_line, 4);
}

Test(directive, quotes_keep_spaces)
{
    cr_assert_eq(scan("#VRAMEST --model 'my model' --set \"lora_targets=q_proj,v_proj\"\n"), 0, "%s", err);
    cr_assert_str_eq(d.model, "my model");
    cr_assert_str_eq(d.sets[0], "lora_targets=q_proj,v_proj");
}

Test(directive, header_ends_at_the_first_command)
{
    cr_assert_eq(scan("#!/bin/sh\necho hi\n#VRAMEST --model qwen3-8b\n"), 0);
    cr_assert_eq(d.kind, VS_DIR_NONE, "a directive after a command is not read, as for #SBATCH");
}

Test(directive, tag_needs_a_separator)
{
    cr_assert_eq(scan("#VRAMESTX --model a\n#VRAMEST-model b\n"), 0);
    cr_assert_eq(d.kind, VS_DIR_NONE);
}

Test(directive, spec_file)
{
    cr_assert_eq(scan("#VRAMEST --spec /shared/specs/job.json\n"), 0, "%s", err);
    cr_assert_eq(d.kind, VS_DIR_SPECFILE);
    cr_assert_str_eq(d.spec_path, "/shared/specs/job.json");
}

Test(directive, inline_json_over_lines)
{
    cr_assert_eq(scan("#VRAMEST {\"model\": \"qwen3-8b\",\n#VRAMEST  \"workload\": {\"mode\": \"train\"}}\nrun\n"), 0);
    cr_assert_eq(d.kind, VS_DIR_JSON);
    cr_assert_str_eq(d.text, "{\"model\": \"qwen3-8b\",\n\"workload\": {\"mode\": \"train\"}}");
}

/* ---- hostile and malformed ---- */

static void rejects(const char *script, const char *needle)
{
    cr_assert_eq(scan(script), -1, "accepted: %s", script);
    cr_assert(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(directive, unknown_word)
{
    rejects("#VRAMEST --model a --frobnicate 3\n", "unknown word \"--frobnicate\"");
}

Test(directive, device_is_not_a_word)
{
    rejects("#VRAMEST --model a --device H100-80GB\n", "come from the job's GPU request");
    rejects("#VRAMEST --model a --gpus 8\n", "come from the job's GPU request");
}

Test(directive, missing_value_and_twice)
{
    rejects("#VRAMEST --model\n", "--model needs a value");
    rejects("#VRAMEST --model a --model b\n", "--model is given twice");
    rejects("#VRAMEST --model a --set novalue\n", "--set expects key=value");
    rejects("#VRAMEST --model a --set =3\n", "--set expects key=value");
}

Test(directive, spec_excludes_the_rest)
{
    rejects("#VRAMEST --spec /x.json --model a\n", "--spec cannot be combined");
    rejects("#VRAMEST --set mode=train\n", "no model");
}

Test(directive, unclosed_quote)
{
    rejects("#VRAMEST --model 'qwen\n", "quote is not closed");
}

Test(directive, empty)
{
    rejects("#VRAMEST\n#VRAMEST   \n", "without anything");
}

Test(directive, invalid_utf8)
{
    rejects("#!/bin/sh\n#VRAMEST --model q\xc3\x28wen\n", "line 2: #VRAMEST: invalid UTF-8 at column 19");
    rejects("#VRAMEST --model \xed\xa0\x80\n", "invalid UTF-8"); /* a UTF-16 surrogate */
    rejects("#VRAMEST --model \xc0\xaf\n", "invalid UTF-8");     /* overlong '/' */
}

Test(directive, control_characters)
{
    rejects("#VRAMEST --model a\x1b[31m\n", "control character 0x1b");
}

Test(directive, too_long)
{
    size_t n = 70000;
    char *s = malloc(n + 32);
    cr_assert_not_null(s);
    strcpy(s, "#VRAMEST --model ");
    memset(s + strlen(s), 'a', n);
    strcpy(s + 17 + n, "\n");
    rejects(s, "hold more than 65536 bytes");
    free(s);
}

Test(directive, too_many_words)
{
    size_t n = 600, len = 0;
    char *s = malloc(n * 8 + 64);
    cr_assert_not_null(s);
    len += (size_t)sprintf(s, "#VRAMEST --model a");
    for (size_t i = 0; i < n; i++) len += (size_t)sprintf(s + len, " x");
    strcpy(s + len, "\n");
    rejects(s, "more than 512 words");
    free(s);
}
