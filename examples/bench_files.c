/* Memory and time of parsing model files at the readers' limits
 * (docs/security.md, "Bounded memory and time per input"): a safetensors
 * header and a GGUF header of 1,000,000 tensors each. Each parse runs in
 * a child process of its own (this program run with "parse FILE"), whose
 * peak resident set the parent reads with wait4(); a child parsing a
 * one-tensor file gives the baseline of the process itself.
 *
 *   bench_files [DIR]        write the files to DIR (default /tmp), parse,
 *                            print the figures; exit 1 when a peak exceeds
 *                            the bound docs/security.md documents
 *   bench_files parse FILE   (the child) parse FILE, exit 0 or 1
 *
 * Run by `meson test --benchmark` (examples/meson.build). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vramest/vramest.h>

#define N_TENSORS 1000000u
#define EXPERTS 1000u /* 1000 layers x 1000 experts: names as Mixtral's */

/* The bounds docs/security.md states for these two inputs, in MiB of peak
 * resident set (the process baseline included): the peaks measured at
 * 220 MiB each (gcc -O2, glibc malloc), with 10% for other allocators. */
#define ST_BOUND_MIB 245.0
#define GGUF_BOUND_MIB 245.0

static int child_parse(const char *path)
{
    vramest_model *m = NULL;
    if (vramest_model_new(&m)) return 1;
    int rc = vramest_model_parse_file(m, VRAMEST_SRC_AUTO, path);
    if (rc) fprintf(stderr, "parse %s: %s\n", path, vramest_last_error_message());
    vramest_model_free(m);
    return rc ? 1 : 0;
}

static void put_u32(FILE *f, uint32_t v)
{
    for (int i = 0; i < 4; i++) fputc((int)(v >> (8 * i)) & 0xff, f);
}

static void put_u64(FILE *f, uint64_t v)
{
    for (int i = 0; i < 8; i++) fputc((int)(v >> (8 * i)) & 0xff, f);
}

static void gguf_str(FILE *f, const char *s)
{
    put_u64(f, strlen(s));
    fputs(s, f);
}

/* n tensors of 2x2 bf16 (safetensors) named like a Mixtral consolidated
 * checkpoint's experts; the data is a hole. Returns the header's length. */
static long write_safetensors(const char *path, unsigned n)
{
    FILE *f = fopen(path, "wb+");
    if (!f) return -1;
    put_u64(f, 0); /* patched below */
    fputs("{", f);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s\"layers.%u.experts.%u.w2.weight\":{\"dtype\":\"BF16\",\"shape\":[2,2],"
                   "\"data_offsets\":[%u,%u]}",
                i ? "," : "", i / EXPERTS, i % EXPERTS, i * 8, i * 8 + 8);
    fputs("}", f);
    long len = ftell(f) - 8;
    while (len % 8) fputc(' ', f), len++;
    fseek(f, 0, SEEK_SET);
    put_u64(f, (uint64_t)len);
    fclose(f);
    if (truncate(path, (off_t)(8 + len) + (off_t)n * 8)) return -1;
    return len;
}

/* n tensors of 32 f16 elements (GGUF v3), named blk.L.ffn_down.E.weight. */
static long write_gguf(const char *path, unsigned n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fputs("GGUF", f);
    put_u32(f, 3);
    put_u64(f, n);
    put_u64(f, 1);
    gguf_str(f, "general.architecture");
    put_u32(f, 8);
    gguf_str(f, "llama");
    char name[64];
    for (unsigned i = 0; i < n; i++) {
        snprintf(name, sizeof name, "blk.%u.ffn_down.%u.weight", i / EXPERTS, i % EXPERTS);
        gguf_str(f, name);
        put_u32(f, 1);
        put_u64(f, 32);
        put_u32(f, 1); /* f16 */
        put_u64(f, (uint64_t)i * 64);
    }
    long len = ftell(f);
    while (len % 32) fputc(0, f), len++;
    fclose(f);
    if (truncate(path, (off_t)len + (off_t)n * 64)) return -1;
    return len;
}

/* Peak RSS (MiB) and wall time (s) of a child parsing `path`. */
static int measure(const char *self, const char *path, double *mib, double *secs, int *ok)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execl(self, self, "parse", path, (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *mib = (double)ru.ru_maxrss / 1024.0; /* Linux: KiB */
    *secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    *ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "parse") == 0) return child_parse(argv[2]);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char self[4096];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) {
        fprintf(stderr, "bench_files: cannot find its own executable: %s\n", strerror(errno));
        return 2;
    }
    self[sn] = '\0';
    static const struct {
        const char *name, *file;
        long (*write)(const char *, unsigned);
        double bound;
    } inputs[] = {
        {"safetensors header, 1,000,000 tensors", "vx_bench_1m.safetensors", write_safetensors, ST_BOUND_MIB},
        {"GGUF header, 1,000,000 tensor infos", "vx_bench_1m.gguf", write_gguf, GGUF_BOUND_MIB},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char big[4200], small[4200];
        snprintf(big, sizeof big, "%s/%s", dir, inputs[i].file);
        snprintf(small, sizeof small, "%s/one-%s", dir, inputs[i].file);
        long hb = inputs[i].write(big, N_TENSORS);
        long hs = inputs[i].write(small, 1);
        if (hb < 0 || hs < 0) {
            fprintf(stderr, "bench_files: cannot write %s: %s\n", big, strerror(errno));
            return 2;
        }
        double base, peak, tb, tp;
        int ok_b, ok_p;
        if (measure(self, small, &base, &tb, &ok_b) || measure(self, big, &peak, &tp, &ok_p)) return 2;
        printf("%-40s header %6.1f MiB  peak RSS %6.1f MiB (baseline %4.1f)  %5.2f s  %s  bound %.0f MiB\n",
               inputs[i].name, (double)hb / 1048576.0, peak, base, tp, ok_p && ok_b ? "parsed" : "FAILED",
               inputs[i].bound);
        if (!ok_p || !ok_b || peak > inputs[i].bound) failed = 1;
        if (!getenv("VX_BENCH_KEEP")) unlink(big), unlink(small);
    }
    return failed;
}
