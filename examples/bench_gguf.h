/* Realistic GGUF headers for the benchmarks (bench_gguf.c). */
#ifndef VB_BENCH_GGUF_H
#define VB_BENCH_GGUF_H

enum { VB_GGUF_32K = 0, VB_GGUF_128K = 1 };

/* Write the header of Llama-2-7B Q4_K_M (VB_GGUF_32K) or Llama-3.1-8B
 * Q4_K_M (VB_GGUF_128K) to `path`, followed by a hole the size of its
 * tensor data. Returns the header's length in bytes, -1 on an I/O error. */
long vb_gguf_write(const char *path, int which);

#endif
