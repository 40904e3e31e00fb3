// The fast kernels compiled for AVX-512 + FMA (16 floats in one register, 32 registers), every
// function carrying the target attribute. dk_active() uses this copy only on a CPU that has the
// instructions and an operating system that saves the AVX-512 registers.
#if defined(__x86_64__)
#pragma clang attribute push(__attribute__((target("avx,avx2,fma,f16c,bmi,bmi2,popcnt,avx512f,avx512bw,avx512dq,avx512vl"))), apply_to = function)
#define DK_TABLE dk_kernels_avx512
#define DK_ISA DK_AVX512
#define DK_NAME "avx512"
#define DK_FMA 1
#define DK_LARGE_TILES 1
#include "kernels_body.h"
#pragma clang attribute pop
#endif
