// The fast kernels compiled for AVX2 + FMA, every function carrying the target attribute, so the
// rest of the library still runs on any x86-64 CPU. dk_active() uses this copy only on a CPU
// that has the instructions.
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,f16c,bmi,bmi2,popcnt"))), apply_to = function)
#define DK_TABLE dk_kernels_avx2
#define DK_ISA DK_AVX2
#define DK_NAME "avx2"
#define DK_FMA 1
#define DK_LARGE_TILES 0
#include "kernels_body.h"
#pragma clang attribute pop
#endif
