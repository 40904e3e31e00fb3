// The fast kernels for any CPU of the architecture: baseline x86-64 (SSE2; multiply and add
// rounded apart, since fma there would be a call into libm's software fmaf) or arm64 (NEON, which
// always has fused multiply-add).
#define DK_TABLE dk_kernels_portable
#define DK_ISA DK_PORTABLE
#if defined(__aarch64__)
#define DK_NAME "neon"
#define DK_FMA 1
#else
#define DK_NAME "portable"
#define DK_FMA 0
#endif
#define DK_LARGE_TILES 0
#include "kernels_body.h"
