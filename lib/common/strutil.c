/* Small string helpers: names are compared case-insensitively and errors
 * suggest close names, so users see "did you mean llama-2-7b?". */
#include <stdio.h>
#include <string.h>

#include "common/internal.h"

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int vx_strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = lower((unsigned char)*a), cb = lower((unsigned char)*b);
        if (ca != cb || ca == 0) return ca - cb;
    }
}

size_t vx_strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);
    if (cap) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}

/* The Levenshtein distance of the first 63 characters of a (la of them)
 * and b, or `bound` as soon as it cannot be below it: no cell of a row is
 * ever less than the smallest of the row above, so a row at `bound` or more
 * ends the search. */
static unsigned distance_below(const char *a, size_t la, const char *b, unsigned bound)
{
    /* Two-row Levenshtein over at most 63 characters: names are short, and a
     * capped cost keeps hostile input cheap. */
    enum { N = 64 };
    unsigned row0[N], row1[N];
    size_t lb = strlen(b);
    if (la >= N) la = N - 1;
    if (lb >= N) lb = N - 1;
    for (size_t j = 0; j <= lb; j++) row0[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        row1[0] = (unsigned)i;
        unsigned least = row1[0];
        for (size_t j = 1; j <= lb; j++) {
            unsigned sub = row0[j - 1] + (lower((unsigned char)a[i - 1]) != lower((unsigned char)b[j - 1]));
            unsigned del = row0[j] + 1, ins = row1[j - 1] + 1;
            unsigned m = sub < del ? sub : del;
            row1[j] = m < ins ? m : ins;
            if (row1[j] < least) least = row1[j];
        }
        if (least >= bound) return bound;
        memcpy(row0, row1, (lb + 1) * sizeof row0[0]);
    }
    return row0[lb];
}

unsigned vx_edit_distance(const char *a, const char *b)
{
    return distance_below(a, strlen(a), b, VX_CLOSE_ANY + 1);
}

void vx_close_init(vx_close *c, const char *name, unsigned limit)
{
    c->name = name;
    c->len = strlen(name);
    c->prefix = false;
    for (int i = 0; i < VX_CLOSE_N; i++) c->best[i] = NULL, c->d[i] = limit + 1;
}

void vx_close_offer(vx_close *c, const char *cand)
{
    size_t ln = c->len;
    /* "memory" for "memory_gib": a leading part is as good as a typo. */
    bool lead = c->prefix && ln >= 3 && strncmp(cand, c->name, ln) == 0;
    if (!lead) {
        /* The distance is at least the difference in length (of the 63
         * characters compared): a name that cannot beat the worst one kept is
         * not measured. Measuring every option name made an unknown key cost
         * 0.26-1.6 ms, 10-50 times the plan of a whole spec. */
        size_t a = ln < 63 ? ln : 63, b = strlen(cand);
        if (b > 63) b = 63;
        if ((a > b ? a - b : b - a) >= c->d[VX_CLOSE_N - 1]) return;
    }
    unsigned d = distance_below(c->name, ln, cand, lead ? VX_CLOSE_ANY + 1 : c->d[VX_CLOSE_N - 1]);
    if (lead && d > 1) d = 1;
    for (int k = 0; k < VX_CLOSE_N; k++)
        if (d < c->d[k]) {
            for (int j = VX_CLOSE_N - 1; j > k; j--) c->d[j] = c->d[j - 1], c->best[j] = c->best[j - 1];
            c->d[k] = d, c->best[k] = cand;
            return;
        }
}

bool vx_in_list(const char *list, const char *name)
{
    /* One pass, no strlen / strchr per item: most items differ at their
     * first character (a GPU lookup asks every preset's alias list). */
    for (const char *p = list; p && *p;) {
        const char *q = name;
        while (*q && *p && *p != ',' && lower((unsigned char)*p) == lower((unsigned char)*q)) p++, q++;
        if (!*q && (!*p || *p == ',')) return true;
        while (*p && *p != ',') p++;
        if (*p) p++;
    }
    return false;
}

void vx_format_bytes(uint64_t bytes, char *buf, size_t cap)
{
    if (bytes >= VX_GIB)
        snprintf(buf, cap, "%.2f GiB", (double)bytes / (double)VX_GIB);
    else if (bytes >= VX_MIB)
        snprintf(buf, cap, "%.2f MiB", (double)bytes / (double)VX_MIB);
    else if (bytes >= VX_KIB)
        snprintf(buf, cap, "%.2f KiB", (double)bytes / (double)VX_KIB);
    else
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
}
