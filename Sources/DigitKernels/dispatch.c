// Chooses the compiled copy of the kernels once, from what the CPU and the operating system
// support (CPUID and XGETBV on x86-64), the way widely used C libraries ship one binary for
// every x86-64 CPU. DIGITS_KERNELS can pick a slower copy, for comparison and testing.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "DigitKernels.h"

extern const dk_kernels dk_kernels_portable;
#if defined(__x86_64__)
extern const dk_kernels dk_kernels_avx2;
extern const dk_kernels dk_kernels_avx512;
#include <cpuid.h>

/// The register state the operating system saves on a context switch (XCR0).
static unsigned long long xcr0(void) {
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static int x86_supports(dk_isa isa) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int fma = (c >> 12) & 1, popcnt = (c >> 23) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1,
              f16c = (c >> 29) & 1;
    if (!(fma && popcnt && osxsave && avx && f16c)) return 0;
    const unsigned long long state = xcr0();
    if ((state & 0x6) != 0x6) return 0;  // SSE and AVX registers
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const int bmi1 = (b >> 3) & 1, avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
    if (!(bmi1 && avx2 && bmi2)) return 0;
    if (isa == DK_AVX2) return 1;
    const int f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
    return f && dq && bw && vl && (state & 0xE0) == 0xE0;  // opmask and the upper ZMM registers
}
#endif

static int supports(dk_isa isa) {
    switch (isa) {
    case DK_PORTABLE: return 1;
#if defined(__x86_64__)
    case DK_AVX2:
    case DK_AVX512: return x86_supports(isa);
#endif
    default: return 0;
    }
}

// CPUID traps to the hypervisor on a virtual machine: asked once per process, not per network.
static int supported[DK_AVX512 + 1];
static pthread_once_t probed = PTHREAD_ONCE_INIT;

static void probe(void) {
    for (int isa = DK_PORTABLE; isa <= DK_AVX512; isa++) supported[isa] = supports((dk_isa)isa);
}

int dk_cpu_supports(dk_isa isa) {
    if ((int)isa < DK_PORTABLE || (int)isa > DK_AVX512) return 0;
    pthread_once(&probed, probe);
    return supported[isa];
}

const dk_kernels *dk_kernels_for(dk_isa isa) {
    if (!dk_cpu_supports(isa)) return NULL;
    switch (isa) {
    case DK_PORTABLE: return &dk_kernels_portable;
#if defined(__x86_64__)
    case DK_AVX2: return &dk_kernels_avx2;
    case DK_AVX512: return &dk_kernels_avx512;
#endif
    default: return NULL;
    }
}

static const dk_kernels *active;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void choose(void) {
    const dk_kernels *best = &dk_kernels_portable;
    for (int isa = DK_AVX512; isa > DK_PORTABLE; isa--) {
        const dk_kernels *k = dk_kernels_for((dk_isa)isa);
        if (k) { best = k; break; }
    }
    active = best;
    const char *requested = getenv("DIGITS_KERNELS");
    if (!requested || !*requested) return;
    for (int isa = DK_PORTABLE; isa <= DK_AVX512; isa++) {
        const dk_kernels *k = dk_kernels_for((dk_isa)isa);
        // "portable" names the baseline copy on every architecture (on arm64 it is called neon).
        if (k && (strcmp(k->name, requested) == 0 || (isa == DK_PORTABLE && strcmp(requested, "portable") == 0))) {
            active = k;
            return;
        }
    }
    fprintf(stderr, "digits: DIGITS_KERNELS=%.40s is not a kernel copy this build and CPU can run; using %s\n",
            requested, best->name);
}

const dk_kernels *dk_active(void) {
    pthread_once(&once, choose);
    return active;
}
