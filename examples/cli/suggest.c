/* "Did you mean" for a --set key the registry does not know. The library's
 * own hint is the single nearest name by edit distance, which answers
 * `batch` with n_batch and `lr` with tp; a person typing a key means a word
 * of an option's name, or the name another tool uses for it. So: the names
 * people bring from other tools first (micro_batch_size, tensor_parallel_size,
 * max_new_tokens ...), then options that contain the key as a whole word,
 * then close spellings, at most three, from the option table itself. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* What other tools call an option (Hugging Face TrainingArguments, DeepSpeed,
 * vLLM, llama.cpp, PEFT). Targets are option names or a flag. */
static const struct {
    const char *from, *to;
} synonyms[] = {
    {"micro_batch_size", "batch_size"},
    {"per_device_train_batch_size", "batch_size"},
    {"train_micro_batch_size_per_gpu", "batch_size"},
    {"max_seq_len", "seq_len"},
    {"max_seq_length", "seq_len"},
    {"seq_length", "seq_len"},
    {"sequence_length", "seq_len"},
    {"context_length", "seq_len"},
    {"gradient_accumulation_steps", "grad_accum_steps"},
    {"tensor_parallel_size", "tp"},
    {"tensor_parallel", "tp"},
    {"pipeline_parallel_size", "pp"},
    {"pipeline_parallel", "pp"},
    {"data_parallel_size", "dp"},
    {"context_parallel_size", "cp"},
    {"expert_parallel_size", "ep"},
    {"num_gpus", "gpus"},
    {"n_gpus", "gpus"},
    {"world_size", "gpus"},
    {"nproc_per_node", "gpus_per_node"},
    {"zero", "zero_stage"},
    {"stage", "zero_stage"},
    {"lora_r", "lora_rank"},
    {"r", "lora_rank"},
    {"target_modules", "lora_targets"},
    {"max_new_tokens", "gen_len"},
    {"num_beams", "beams"},
    {"ngl", "n_gpu_layers"},
    {"gpu_layers", "n_gpu_layers"},
    {"ctx_size", "n_ctx"},
    {"memory", "memory_gib"},
    {"vram", "memory_gib"},
    {"gpu", "device"},
    {"attn", "attention"},
    {"attn_implementation", "attention"},
    {"precision", "--precision P (a preset) or precision.weights / precision.compute"},
    {"dtype", "--precision P (a preset) or precision.weights / precision.compute"},
    {"torch_dtype", "--precision P (a preset) or precision.weights / precision.compute"},
    {"model", "--model NAME|PATH"},
};

static void lower(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 1 < cap; s++) out[o++] = *s == '-' ? '_' : (*s >= 'A' && *s <= 'Z') ? (char)(*s + 32) : *s;
    out[o] = '\0';
}

/* Two-row Levenshtein over short names. */
static unsigned distance(const char *a, const char *b)
{
    enum { N = 48 };
    unsigned row0[N], row1[N];
    size_t la = strlen(a), lb = strlen(b);
    if (la >= N || lb >= N) return 99;
    for (size_t j = 0; j <= lb; j++) row0[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        row1[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = row0[j - 1] + (a[i - 1] != b[j - 1]), del = row0[j] + 1, ins = row1[j - 1] + 1;
            row1[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(row0, row1, (lb + 1) * sizeof row0[0]);
    }
    return row0[lb];
}

/* `word` is one of the '_'-separated words of `name`, or its first words. */
static int has_word(const char *name, const char *word)
{
    size_t l = strlen(word);
    for (const char *p = name; (p = strstr(p, word)) != NULL; p++)
        if ((p == name || p[-1] == '_') && (p[l] == '\0' || p[l] == '_')) return 1;
    return 0;
}

/* Lower is better; 0 = not a candidate. */
static unsigned score(const char *key, const char *name)
{
    if (!strcmp(key, name)) return 1;
    if (has_word(name, key) || has_word(key, name)) return 2 + (unsigned)(strlen(name) > strlen(key));
    size_t l = strlen(key);
    unsigned d = distance(key, name), limit = l < 3 ? 1 : (unsigned)(l / 3);
    return d <= limit ? 4 + d : 0;
}

void suggest_options(const char *key, char *out, size_t cap)
{
    char k[64];
    out[0] = '\0';
    lower(key, k, sizeof k);
    for (size_t i = 0; i < sizeof synonyms / sizeof synonyms[0]; i++)
        if (!strcmp(k, synonyms[i].from)) {
            snprintf(out, cap, " (did you mean %s?)", synonyms[i].to);
            return;
        }
    const char *best[3] = {NULL, NULL, NULL};
    unsigned bs[3] = {0, 0, 0};
    uint32_t n = vramest_option_count();
    for (uint32_t i = 0; i < n; i++) {
        vramest_option opt;
        if (vramest_option_at(i, &opt) != VRAMEST_OK) continue;
        const char *name = vramest_option_name(opt);
        unsigned s = name ? score(k, name) : 0;
        if (!s) continue;
        int dup = 0;
        for (int j = 0; j < 3; j++) dup |= best[j] && !strcmp(best[j], name);
        for (int j = 0; j < 3 && !dup; j++)
            if (!best[j] || s < bs[j]) {
                for (int m = 2; m > j; m--) best[m] = best[m - 1], bs[m] = bs[m - 1];
                best[j] = name, bs[j] = s;
                break;
            }
    }
    if (!best[0]) return;
    if (bs[0] == 1) best[1] = best[2] = NULL; /* only the spelling differed ("batch-size") */
    snprintf(out, cap, " (did you mean %s%s%s%s%s?)", best[0], best[1] ? (best[2] ? ", " : " or ") : "",
             best[1] ? best[1] : "", best[2] ? " or " : "", best[2] ? best[2] : "");
}
