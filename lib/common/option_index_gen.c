/* Build-time generator of option_index.c (option_index.h says what the
 * index is). Linked with the option tables, it reads their rows, checks
 * what the index and the handles' bitmaps rely on, and writes a perfect hash
 * of every name and alias (hash and displace: names fall into buckets,
 * each bucket gets the first seed that puts all its names in free slots)
 * and each table's rows by key. Exit status 1 with a message naming the row
 * when a table breaks a rule, so a bad row fails the build, not a lookup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/option_index.h"
#include "common/options.h"
#include "common/option_echo.h"

#define MAX_NAMES 2048

typedef struct table {
    const vx_option_def *rows;
    size_t count;
    const char *what;
} table;

static vx_optname names[MAX_NAMES];
static char spelled[MAX_NAMES][64];
static uint32_t n_names;

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "option_index_gen: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

static vx_optname *entry(const char *s, size_t len, const char *row)
{
    if (len == 0 || len >= sizeof spelled[0]) die("option '%s': empty or too long name '%s'", row, s);
    for (size_t i = 0; i < len; i++)
        if (s[i] >= 'A' && s[i] <= 'Z') die("option '%s': '%s' has upper case (names are lowercase)", row, s);
    /* The plan writes names unescaped (vx_jw_name_key). */
    for (size_t i = 0; i < len; i++)
        if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20)
            die("option '%s': '%s' has a character JSON must escape", row, s);
    for (uint32_t i = 0; i < n_names; i++)
        if (names[i].len == len && memcmp(names[i].name, s, len) == 0) return &names[i];
    if (n_names == MAX_NAMES) die("more than %s names%s", "2048", "");
    memcpy(spelled[n_names], s, len);
    spelled[n_names][len] = '\0';
    names[n_names] = (vx_optname){spelled[n_names], (uint16_t)len, 0, {{0, 0, 0}}};
    return &names[n_names++];
}

static void add_ref(vx_optname *e, int t, size_t row, int alias, const char *rowname)
{
    for (int i = 0; i < e->n_refs; i++)
        if (e->refs[i].table == t && !e->refs[i].alias && !alias)
            die("two options of one table are named '%s'%s", rowname, "");
    if (e->n_refs == VX_OPTREF_MAX) die("'%s' names more than %s options", e->name, "VX_OPTREF_MAX");
    e->refs[e->n_refs++] = (vx_optref){(uint8_t)t, (uint8_t)alias, (uint16_t)row};
}

/* Canonical refs before alias refs, each in table then row order: the
 * order the linear lookups used to find them in. */
static int ref_cmp(const void *a, const void *b)
{
    const vx_optref *x = a, *y = b;
    if (x->alias != y->alias) return x->alias - y->alias;
    if (x->table != y->table) return x->table - y->table;
    return x->row - y->row;
}

/* Separator before the i-th number of a list, sixteen to a line. */
static const char *sep(uint32_t i)
{
    return i == 0 ? "\n    " : i % 16 ? ", " : ",\n    ";
}

/* The settings echo of table t (vx_optecho): its rows in the plan's order
 * (by echo group, then row) and each one's `,"name":` and default written
 * by vx_echo_value itself, so the text is the echo's by construction. */
static void write_echo(FILE *f, int t, const table *tb)
{
    if (t == 0) return; /* the model is not echoed as settings */
    size_t size = 0;
    for (size_t r = 0; r < tb->count; r++) {
        const vx_option_def *d = &tb->rows[r];
        size_t end = d->offset + (d->type == VRAMEST_TYPE_STRING ? VX_STR_MAX : sizeof(int64_t));
        if (end > size) size = end;
    }
    void *base = calloc(1, size);
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    uint32_t *off = calloc(tb->count + 1, sizeof *off);
    uint16_t *row = calloc(tb->count + 1, sizeof *row), start[VX_ECHO_GROUPS + 1];
    if (!base || !text || !off || !row) die("out of memory%s%s", "", "");
    vx_opt_defaults(base, NULL, t + 1);
    vx_jw w = {text, cap, 0};
    uint32_t k = 0;
    for (int g = 0; g < VX_ECHO_GROUPS; g++) {
        start[g] = (uint16_t)k;
        for (size_t r = 0; r < tb->count; r++) {
            const vx_option_def *d = &tb->rows[r];
            if (vx_echo_group(d->group) != g) continue;
            row[k] = (uint16_t)r;
            off[k++] = (uint32_t)w.len;
            vx_jw_put(&w, ",\"", 2);
            vx_jw_puts(&w, d->name);
            vx_jw_put(&w, "\":", 2);
            vx_echo_value(&w, d, base);
        }
    }
    start[VX_ECHO_GROUPS] = (uint16_t)k;
    off[k] = (uint32_t)w.len;
    if (w.len >= cap) die("the %s table's echo is longer than 1 MiB%s", tb->what, "");
    /* bytes, not a string literal: no length limit, no escapes to get right */
    fprintf(f, "static const char echo_text%d[] = {", t);
    for (size_t i = 0; i < w.len; i++) fprintf(f, "%s%d", sep((uint32_t)i), (unsigned char)text[i]);
    fprintf(f, "%s0};\nstatic const uint32_t echo_off%d[] = {", w.len ? ",\n    " : "", t);
    for (uint32_t i = 0; i <= k; i++) fprintf(f, "%s%u", sep(i), off[i]);
    fprintf(f, "\n};\nstatic const vx_optecho_row echo_row%d[] = {", t);
    for (uint32_t i = 0; i < k; i++) {
        const vx_option_def *d = &tb->rows[row[i]];
        uint64_t bits = 0;
        if (d->type != VRAMEST_TYPE_STRING) memcpy(&bits, (const char *)base + d->offset, sizeof bits);
        fprintf(f, "\n    {%u, %d, %zu, 0x%llxull},", row[i], d->type == VRAMEST_TYPE_STRING, d->offset,
                (unsigned long long)bits);
    }
    fprintf(f, "\n};\nstatic const uint16_t echo_groups%d[] = {", t);
    for (int g = 0; g <= VX_ECHO_GROUPS; g++) fprintf(f, "%s%u", g ? ", " : "", start[g]);
    fprintf(f, "};\nstatic const uint16_t echo_nz%d[] = {", t);
    uint32_t nz = 0;
    for (uint32_t i = 0; i < k; i++) {
        const vx_option_def *d = &tb->rows[row[i]];
        const char *p = (const char *)base + d->offset;
        uint64_t bits = 0;
        if (d->type != VRAMEST_TYPE_STRING) memcpy(&bits, p, sizeof bits);
        if (d->type == VRAMEST_TYPE_STRING ? p[0] != '\0' : bits != 0) fprintf(f, "%s%u", sep(nz++), i);
    }
    fprintf(f, "%s};\nenum { echo_n_nonzero%d = %u };\n", nz ? "" : "0", t, nz);
    free(base), free(text), free(off), free(row);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: option_index_gen OUTPUT.c\n");
        return 2;
    }
    const table tables[3] = {{vx_model_options, vx_model_option_count, "model"},
                             {vx_precision_options, vx_precision_option_count, "precision"},
                             {vx_config_options, vx_config_option_count, "config"}};
    int32_t base[3], top[3];
    for (int t = 0; t < 3; t++) {
        if (tables[t].count > 64 * VX_SET_WORDS)
            die("the %s table has more rows than the set bitmap holds (raise VX_SET_WORDS)%s", tables[t].what, "");
        base[t] = INT32_MAX, top[t] = INT32_MIN;
        for (size_t r = 0; r < tables[t].count; r++) {
            const vx_option_def *d = &tables[t].rows[r];
            if (d->handle != t + 1) die("option '%s' is in the %s table with another handle kind", d->name, tables[t].what);
            if ((int32_t)d->key < base[t]) base[t] = (int32_t)d->key;
            if ((int32_t)d->key > top[t]) top[t] = (int32_t)d->key;
            add_ref(entry(d->name, strlen(d->name), d->name), t, r, 0, d->name);
            for (const char *p = d->aliases; p && *p;) {
                const char *c = strchr(p, ',');
                size_t len = c ? (size_t)(c - p) : strlen(p);
                add_ref(entry(p, len, d->name), t, r, 1, d->name);
                p = c ? c + 1 : NULL;
            }
        }
        if (tables[t].count && top[t] - base[t] > 4096)
            die("the keys of the %s table spread over more than 4096 values%s", tables[t].what, "");
    }
    for (uint32_t i = 0; i < n_names; i++) qsort(names[i].refs, names[i].n_refs, sizeof names[i].refs[0], ref_cmp);

    /* Hash and displace, buckets of about two names in a table at most half full. */
    uint32_t buckets = n_names / 2 + 1, slots = 16;
    while (slots < 2 * n_names) slots *= 2;
    uint32_t *bucket_of = calloc(n_names, sizeof *bucket_of), *order = calloc(buckets, sizeof *order);
    uint32_t *size = calloc(buckets, sizeof *size), *seed = calloc(buckets, sizeof *seed);
    uint16_t *slot = calloc(slots, sizeof *slot);
    if (!bucket_of || !order || !size || !seed || !slot) die("out of memory%s%s", "", "");
    for (uint32_t i = 0; i < n_names; i++) {
        bucket_of[i] = vx_opthash_mix(vx_opthash_raw(names[i].name, names[i].len), 0) % buckets;
        size[bucket_of[i]]++;
    }
    for (uint32_t b = 0; b < buckets; b++) order[b] = b;
    for (uint32_t a = 0; a < buckets; a++) /* largest buckets first */
        for (uint32_t b = a + 1; b < buckets; b++)
            if (size[order[b]] > size[order[a]]) {
                uint32_t tmp = order[a];
                order[a] = order[b], order[b] = tmp;
            }
    for (uint32_t k = 0; k < buckets; k++) {
        uint32_t b = order[k];
        if (!size[b]) break;
        for (uint32_t s = 1;; s++) {
            if (s > 1000000) die("no seed places a bucket%s%s", "", "");
            uint32_t placed[64], n_placed = 0;
            bool ok = true;
            for (uint32_t i = 0; i < n_names && ok; i++) {
                if (bucket_of[i] != b) continue;
                uint32_t at = vx_opthash_mix(vx_opthash_raw(names[i].name, names[i].len), s) & (slots - 1);
                for (uint32_t j = 0; j < n_placed; j++) ok &= placed[j] != at;
                ok &= slot[at] == 0 && n_placed < 64;
                if (ok) placed[n_placed++] = at;
            }
            if (!ok) continue;
            n_placed = 0;
            for (uint32_t i = 0; i < n_names; i++)
                if (bucket_of[i] == b)
                    slot[placed[n_placed++]] = (uint16_t)(i + 1);
            seed[b] = s;
            break;
        }
    }

    FILE *f = fopen(argv[1], "w");
    if (!f) die("cannot write %s%s", argv[1], "");
    fprintf(f, "/* Generated by lib/common/option_index_gen.c from the option tables; do not edit. */\n");
    fprintf(f, "#include \"common/option_index.h\"\n\n");
    fprintf(f, "const vx_optname vx_optnames[] = {\n");
    for (uint32_t i = 0; i < n_names; i++) {
        fprintf(f, "    {\"%s\", %u, %u, {", names[i].name, names[i].len, names[i].n_refs);
        for (int r = 0; r < names[i].n_refs; r++)
            fprintf(f, "%s{%u, %u, %u}", r ? ", " : "", names[i].refs[r].table, names[i].refs[r].alias,
                    names[i].refs[r].row);
        fprintf(f, "}},\n");
    }
    fprintf(f, "};\nconst uint32_t vx_optname_count = %u;\n", n_names);
    fprintf(f, "const uint32_t vx_optname_buckets = %u;\nconst uint32_t vx_optname_mask = %u;\n", buckets, slots - 1);
    fprintf(f, "const uint32_t vx_optname_seed[] = {");
    for (uint32_t b = 0; b < buckets; b++) fprintf(f, "%s%u", sep(b), seed[b]);
    fprintf(f, "\n};\nconst uint16_t vx_optname_slot[] = {");
    for (uint32_t s = 0; s < slots; s++) fprintf(f, "%s%u", sep(s), slot[s]);
    fprintf(f, "\n};\n");
    for (int t = 0; t < 3; t++) {
        uint32_t n = tables[t].count ? (uint32_t)(top[t] - base[t] + 1) : 0;
        fprintf(f, "static const int16_t rows%d[] = {", t);
        for (uint32_t k = 0; k < n; k++) {
            int row = -1;
            for (size_t r = 0; r < tables[t].count; r++)
                if ((int32_t)tables[t].rows[r].key == base[t] + (int32_t)k) {
                    if (row >= 0) die("two rows of the %s table have the key of '%s'", tables[t].what, tables[t].rows[r].name);
                    row = (int)r;
                }
            fprintf(f, "%s%d", sep(k), row);
        }
        fprintf(f, "%s};\n", n ? "\n" : "-1");
    }
    fprintf(f, "const vx_optkeys vx_optkeys_of[3] = {");
    for (int t = 0; t < 3; t++)
        fprintf(f, "%s{%d, %u, rows%d}", t ? ", " : "", tables[t].count ? base[t] : 0,
                tables[t].count ? (uint32_t)(top[t] - base[t] + 1) : 0, t);
    fprintf(f, "};\n");
    for (int t = 0; t < 3; t++) write_echo(f, t, &tables[t]);
    fprintf(f, "const vx_optecho vx_optecho_of[3] = {{0, 0, 0, 0, 0, 0},\n    {echo_text1, echo_off1, echo_row1, "
               "echo_groups1, echo_nz1, echo_n_nonzero1},\n    {echo_text2, echo_off2, echo_row2, echo_groups2, "
               "echo_nz2, echo_n_nonzero2}};\n");
    free(bucket_of), free(order), free(size), free(seed), free(slot);
    return fclose(f) == 0 ? 0 : 1;
}
