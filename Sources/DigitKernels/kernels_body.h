// The fast kernels, written once and compiled once per instruction set: kernels_portable.c,
// kernels_avx2.c and kernels_avx512.c include this file inside a region that gives every function
// its target attribute, after defining
//   DK_TABLE  the name of the dk_kernels value this copy exports,
//   DK_ISA    its dk_isa, DK_NAME its name,
//   DK_FMA    1 to multiply-add with one rounding (fma), 0 to round the product first.
//
// The vectors are 16 floats (ext_vector_type): one AVX-512 register, two AVX2 registers, four
// SSE/NEON registers. Register tiles are written as small fixed-size arrays of accumulators,
// which the compiler unrolls and keeps in registers. Every output or gradient entry is summed in
// the reference kernel's order (bias, then ky, then the taps of a kernel row; pixels y then x for
// gradients), so without FMA a copy gives the reference's bits and with FMA each step rounds once
// instead of twice.

#include <stddef.h>
#include <string.h>
#include "DigitKernels.h"

// Every function that takes or returns a v16 is always inlined: no vector crosses a call boundary,
// so the calling-convention warning about 64-byte vectors without AVX-512 does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

typedef float v16 __attribute__((ext_vector_type(16)));
typedef float v16u __attribute__((ext_vector_type(16), aligned(4)));
typedef int i16v __attribute__((ext_vector_type(16)));

#define INLINE static inline __attribute__((always_inline))
/// Fully unrolls a loop with a constant trip count, so a tile's accumulators live in registers.
#define UNROLL _Pragma("clang loop unroll(full)")

INLINE v16 load(const float *p) { return *(const v16u *)p; }
INLINE void store(v16 v, float *p) { *(v16u *)p = v; }
INLINE v16 splat(const float *p) { return (v16)(*p); }

#if DK_FMA
INLINE v16 madd(v16 acc, v16 a, v16 b) { return __builtin_elementwise_fma(a, b, acc); }
#else
#pragma clang fp contract(off)
INLINE v16 madd(v16 acc, v16 a, v16 b) { return acc + a * b; }
#endif

/// v where v >= 0 or NaN, +0 where v < 0 (Swift's `replacing(with: 0, where: v .< 0)`).
INLINE v16 relu16(v16 v, int on) {
    if (!on) return v;
    i16v negative = v < 0;
    return (v16)((i16v)v & ~negative);
}

/// b where a < b, else a.
INLINE v16 vmax(v16 a, v16 b) {
    i16v less = a < b;
    return (v16)(((i16v)a & ~less) | ((i16v)b & less));
}

// Register tiles. AVX-512 has 32 registers of 16 floats: up to 28 accumulators (4 vectors x 5
// pixels, 2 x 14, 2 x 7, 1 x 8) leave room for the weights and the broadcast input. AVX2 (16
// registers of 8 floats), NEON and SSE2 (registers of 4 floats) hold a quarter to a half of that,
// so their tiles are smaller. A tile's shape never changes the order in which an entry is summed.
#if DK_LARGE_TILES
#define CONV64_P 5
#define CONV32_P 14
#define CONV32_Q 7
#define CONV16_P 8
#define CIN1_P 14
#define WG64_T 4
#define WG32_T 8
#define WG16_T 8
#define WG_CIN1_K5 1
#define PR64_R 3
#define PR32_R 7
#else
#define CONV64_P 1
#define CONV32_P 2
#define CONV32_Q 2
#define CONV16_P 6
#define CIN1_P 4
#define WG64_T 1
#define WG32_T 2
#define WG16_T 4
#define WG_CIN1_K5 0
#define PR64_R 1
#define PR32_R 2
#endif

// MARK: - Convolution forward

/// Output pixels (y, x..x+P-1), channels c0..c0+16V-1, into `o` (the address of pixel (y, x),
/// channel 0). `cin` is a constant in every instantiation, so the input offsets of the P pixels
/// are fixed.
#define DEFINE_CONV_TILE(NAME, P, V)                                                                       \
    INLINE void NAME##_body(const dk_conv_geometry *g, const float *input, const float *w0, \
                                          const float *bias, float *o, int relu, long y, long x, long c0,  \
                                          long cin) {                                                    \
        const long cout = g->out_channels, taps = g->kernel * cin;                                        \
        v16 acc[P][V];                                                                                    \
        UNROLL for (int p = 0; p < P; p++)                                                                       \
            UNROLL for (int v = 0; v < V; v++) acc[p][v] = load(bias + c0 + 16 * v);                             \
        for (long ky = 0; ky < g->kernel; ky++) {                                                         \
            const float *in = input + (y + ky) * g->padded_width * cin + x * cin;                         \
            const float *w = w0 + ky * taps * cout + c0;                                                  \
            for (long j = 0; j < taps; j++) {                                                             \
                v16 wv[V];                                                                                \
                UNROLL for (int v = 0; v < V; v++) wv[v] = load(w + 16 * v);                                     \
                UNROLL for (int p = 0; p < P; p++) {                                                             \
                    v16 s = splat(in + j + p * cin);                                                      \
                    UNROLL for (int v = 0; v < V; v++) acc[p][v] = madd(acc[p][v], s, wv[v]);                    \
                }                                                                                         \
                w += cout;                                                                                \
            }                                                                                             \
        }                                                                                                 \
        UNROLL for (int p = 0; p < P; p++)                                                                       \
            UNROLL for (int v = 0; v < V; v++) store(relu16(acc[p][v], relu), o + p * cout + c0 + 16 * v);       \
    }                                                                                                     \
    static void NAME(const dk_conv_geometry *g, const float *input, const float *w,         \
                                    const float *bias, float *o, int relu, long y, long x, long c0) {     \
        switch (g->in_channels) {                                                                         \
        case 16: NAME##_body(g, input, w, bias, o, relu, y, x, c0, 16); break;              \
        case 32: NAME##_body(g, input, w, bias, o, relu, y, x, c0, 32); break;              \
        default: NAME##_body(g, input, w, bias, o, relu, y, x, c0, g->in_channels); break;  \
        }                                                                                                 \
    }

DEFINE_CONV_TILE(conv_tile_64, CONV64_P, 4)
DEFINE_CONV_TILE(conv_tile_64x1, 1, 4)
DEFINE_CONV_TILE(conv_tile_32, CONV32_P, 2)
DEFINE_CONV_TILE(conv_tile_32b, CONV32_Q, 2)
DEFINE_CONV_TILE(conv_tile_32x1, 1, 2)
DEFINE_CONV_TILE(conv_tile_16, CONV16_P, 1)
DEFINE_CONV_TILE(conv_tile_16x1, 1, 1)

typedef void (*conv_tile_fn)(const dk_conv_geometry *, const float *, const float *, const float *, float *, int,
                             long, long, long);

/// Runs `tile` over every output row in tiles of `width` pixels; the last tile of a row overlaps
/// the one before it when `width` does not divide the row (those pixels are computed twice, same value).
static void each_tile(const dk_conv_geometry *g, long width, conv_tile_fn tile, const float *input, const float *w,
                      const float *bias, float *output, long out_row_stride, int relu, long c0) {
    const long cout = g->out_channels;
    for (long y = 0; y < g->out_height; y++) {
        for (long x = 0; x < g->out_width; x += width) {
            long x0 = x < g->out_width - width ? x : g->out_width - width;
            tile(g, input, w, bias, output + y * out_row_stride + x0 * cout, relu, y, x0, c0);
        }
    }
}

/// One input channel, 5x5 kernel (the first layer: only 25 multiply-adds per output, too few for
/// the general tiles to hide their loads): tiles of CIN1_P pixels x 16 channels; each input under
/// a tile's row is loaded once and feeds the up to 5 accumulators it touches.
static void conv_cin1_k5(const dk_conv_geometry *g, const float *input, const float *weights, const float *bias,
                         float *output, long out_row_stride, int relu) {
    const long cout = g->out_channels, rs = g->padded_width;
    for (long c0 = 0; c0 < cout; c0 += 16) {
        const v16 b = load(bias + c0);
        for (long y = 0; y < g->out_height; y++) {
            for (long xs = 0; xs < g->out_width; xs += CIN1_P) {
                long x = xs < g->out_width - CIN1_P ? xs : g->out_width - CIN1_P;
                v16 acc[CIN1_P];
                UNROLL for (int p = 0; p < CIN1_P; p++) acc[p] = b;
                for (long ky = 0; ky < 5; ky++) {
                    const float *in = input + (y + ky) * rs + x;
                    const float *w = weights + ky * 5 * cout + c0;
                    v16 wv[5];
                    UNROLL for (int k = 0; k < 5; k++) wv[k] = load(w + k * cout);
                    UNROLL for (int p = 0; p < CIN1_P; p++)
                        UNROLL for (int k = 0; k < 5; k++) acc[p] = madd(acc[p], splat(in + p + k), wv[k]);
                }
                float *q = output + y * out_row_stride + x * cout + c0;
                UNROLL for (int p = 0; p < CIN1_P; p++) store(relu16(acc[p], relu), q + p * cout);
            }
        }
    }
}

/// Register tiles chosen from the geometry: 1 input channel and a 5x5 kernel get conv_cin1_k5;
/// Cout a multiple of 64 gets tiles of 4 vectors; a multiple of 32, 2 vectors x CONV32_P pixels
/// when CONV32_P divides the row, else 2 x CONV32_Q; the rest 1 vector. Rows narrower than a tile
/// go one pixel at a time. Cout not a multiple of 16 runs the reference.
static void conv_forward(dk_conv_geometry g, const float *input, const float *weights, const float *bias,
                         float *output, long out_row_stride, int relu) {
    if (g.out_channels % 16 != 0) {
        dk_ref_conv_forward(g, input, weights, bias, output, out_row_stride, relu);
        return;
    }
    if (g.in_channels == 1 && g.kernel == 5 && g.out_width >= CIN1_P) {
        conv_cin1_k5(&g, input, weights, bias, output, out_row_stride, relu);
        return;
    }
    const long cout = g.out_channels;
    long c0 = 0;
    if (cout % 64 == 0) {
        for (; c0 < cout; c0 += 64) {
            if (g.out_width >= CONV64_P)
                each_tile(&g, CONV64_P, conv_tile_64, input, weights, bias, output, out_row_stride, relu, c0);
            else
                each_tile(&g, 1, conv_tile_64x1, input, weights, bias, output, out_row_stride, relu, c0);
        }
        return;
    }
    for (; c0 + 32 <= cout; c0 += 32) {
        if (g.out_width >= CONV32_P && g.out_width % CONV32_P == 0)
            each_tile(&g, CONV32_P, conv_tile_32, input, weights, bias, output, out_row_stride, relu, c0);
        else if (g.out_width >= CONV32_Q)
            each_tile(&g, CONV32_Q, conv_tile_32b, input, weights, bias, output, out_row_stride, relu, c0);
        else
            each_tile(&g, 1, conv_tile_32x1, input, weights, bias, output, out_row_stride, relu, c0);
    }
    if (c0 < cout) {
        if (g.out_width >= CONV16_P)
            each_tile(&g, CONV16_P, conv_tile_16, input, weights, bias, output, out_row_stride, relu, c0);
        else
            each_tile(&g, 1, conv_tile_16x1, input, weights, bias, output, out_row_stride, relu, c0);
    }
}

// MARK: - Convolution weight gradient

/// Taps j..j+T-1 of kernel row ky, channels c0..c0+16V-1: the block of gradient entries stays in
/// registers while every output pixel streams past, so each entry adds the pixels in the
/// reference's order (y, then x).
#define DEFINE_WGRAD_BLOCK(NAME, T, V)                                                                        \
    static void NAME(const dk_conv_geometry *g, const float *input, const float *d_output,   \
                                float *d_weights, long ky, long j, long c0) {                           \
        const long cout = g->out_channels, cin = g->in_channels;                                        \
        float *dw = d_weights + (ky * g->kernel * cin + j) * cout + c0;                                 \
        v16 acc[T][V];                                                                                  \
        UNROLL for (int t = 0; t < T; t++)                                                                     \
            UNROLL for (int v = 0; v < V; v++) acc[t][v] = load(dw + t * cout + 16 * v);                       \
        for (long y = 0; y < g->out_height; y++) {                                                      \
            const float *row = input + (y + ky) * g->padded_width * cin + j;                            \
            const float *d = d_output + y * g->out_width * cout + c0;                                   \
            for (long x = 0; x < g->out_width; x++) {                                                   \
                v16 dv[V];                                                                              \
                UNROLL for (int v = 0; v < V; v++) dv[v] = load(d + 16 * v);                                   \
                const float *q = row + x * cin;                                                         \
                UNROLL for (int t = 0; t < T; t++) {                                                           \
                    v16 s = splat(q + t);                                                               \
                    UNROLL for (int v = 0; v < V; v++) acc[t][v] = madd(acc[t][v], s, dv[v]);                  \
                }                                                                                       \
                d += cout;                                                                              \
            }                                                                                           \
        }                                                                                               \
        UNROLL for (int t = 0; t < T; t++)                                                                     \
            UNROLL for (int v = 0; v < V; v++) store(acc[t][v], dw + t * cout + 16 * v);                       \
    }

DEFINE_WGRAD_BLOCK(wgrad_64, WG64_T, 4)
DEFINE_WGRAD_BLOCK(wgrad_32, WG32_T, 2)
DEFINE_WGRAD_BLOCK(wgrad_16, WG16_T, 1)
DEFINE_WGRAD_BLOCK(wgrad_1, 1, 1)

/// All 25 taps of a 5x5 kernel over one input channel, channels c0..c0+15 (25 accumulators).
static void wgrad_cin1_k5(const dk_conv_geometry *g, const float *input, const float *d_output, float *d_weights,
                          long c0) {
    const long cout = g->out_channels, rs = g->padded_width;
    float *dw = d_weights + c0;
    v16 acc[25];
    UNROLL for (int t = 0; t < 25; t++) acc[t] = load(dw + t * cout);
    for (long y = 0; y < g->out_height; y++) {
        const float *d = d_output + y * g->out_width * cout + c0;
        const float *q = input + y * rs;
        for (long x = 0; x < g->out_width; x++) {
            const v16 v = load(d);
            for (int ky = 0; ky < 5; ky++)
                for (int kx = 0; kx < 5; kx++) acc[ky * 5 + kx] = madd(acc[ky * 5 + kx], splat(q + ky * rs + kx), v);
            d += cout;
            q += 1;
        }
    }
    UNROLL for (int t = 0; t < 25; t++) store(acc[t], dw + t * cout);
}

/// Blocks: with large tiles, 25 taps x 16 channels for one input channel and a 5x5 kernel; else,
/// per kernel row, WG64_T taps x 64, WG32_T taps x 32 or WG16_T taps x 16 channels, then single
/// taps for the rest. Cout not a multiple of 16 runs the reference.
static void conv_weight_grad(dk_conv_geometry g, const float *input, const float *d_output, float *d_weights,
                             float *d_bias) {
    if (g.out_channels % 16 != 0) {
        dk_ref_conv_weight_grad(g, input, d_output, d_weights, d_bias);
        return;
    }
    const long cout = g.out_channels, taps = g.kernel * g.in_channels, pixels = g.out_height * g.out_width;
    for (long c0 = 0; c0 < cout; c0 += 16) {
        v16 db = load(d_bias + c0);
        for (long p = 0; p < pixels; p++) db += load(d_output + p * cout + c0);
        store(db, d_bias + c0);
    }
    if (WG_CIN1_K5 && g.in_channels == 1 && g.kernel == 5) {
        for (long c0 = 0; c0 < cout; c0 += 16) wgrad_cin1_k5(&g, input, d_output, d_weights, c0);
        return;
    }
    for (long c0 = 0; c0 < cout;) {
        const long width = cout - c0 >= 64 ? 64 : cout - c0 >= 32 ? 32 : 16;
        for (long ky = 0; ky < g.kernel; ky++) {
            long j = 0;
            while (j < taps) {
                if (width == 64 && j + WG64_T <= taps) {
                    wgrad_64(&g, input, d_output, d_weights, ky, j, c0);
                    j += WG64_T;
                } else if (width == 32 && j + WG32_T <= taps) {
                    wgrad_32(&g, input, d_output, d_weights, ky, j, c0);
                    j += WG32_T;
                } else if (width == 16 && j + WG16_T <= taps) {
                    wgrad_16(&g, input, d_output, d_weights, ky, j, c0);
                    j += WG16_T;
                } else {
                    for (long c = 0; c < width; c += 16) wgrad_1(&g, input, d_output, d_weights, ky, j, c0 + c);
                    j += 1;
                }
            }
        }
        c0 += width;
    }
}

// MARK: - Winograd F(2x2, 3x3)
//
// Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks" (2015): each 2x2 block of
// output pixels comes from a 4x4 block of input with 16 multiplications per channel pair instead
// of 36:  Y = A^T [ (G g G^T) . (B^T d B) ] A. Summed over input channels the elementwise product
// becomes 16 matrix products, one per position xi of the transformed tile:
// M[xi] (tiles x Cout) = V[xi] (tiles x Cin) . U[xi] (Cin x Cout). U is made once at load
// (dk_winograd_transform_weights); each image pays the input transform, the 16 products (the
// bulk of the work) and the output transform with bias and ReLU. Tiles step by 2; on an odd side
// the last tile starts one pixel earlier and overlaps the one before it.

/// V = B^T d B for 16 channels of one 4x4 input tile; xi = 4i + j goes to dst + xi * plane.
INLINE void winograd_input_tile(const float *src, long row_stride, long pixel_stride, float *dst, long plane) {
    v16 d[4][4];
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int j = 0; j < 4; j++) d[i][j] = load(src + i * row_stride + j * pixel_stride);
    v16 a[4][4];
    UNROLL for (int j = 0; j < 4; j++) {
        a[0][j] = d[0][j] - d[2][j];
        a[1][j] = d[1][j] + d[2][j];
        a[2][j] = d[2][j] - d[1][j];
        a[3][j] = d[1][j] - d[3][j];
    }
    UNROLL for (int i = 0; i < 4; i++) {
        float *p = dst + 4 * i * plane;
        store(a[i][0] - a[i][2], p);
        store(a[i][1] + a[i][2], p + plane);
        store(a[i][2] - a[i][1], p + 2 * plane);
        store(a[i][1] - a[i][3], p + 3 * plane);
    }
}

/// Y = A^T m A + bias (then ReLU) for 16 channels of one tile; m[xi] at src + xi * plane.
INLINE void winograd_output_tile(const float *src, long plane, const float *bias, float *dst, long row_stride,
                                 long pixel_stride, int relu) {
    v16 m[4][4];
    UNROLL for (int i = 0; i < 4; i++)
        UNROLL for (int j = 0; j < 4; j++) m[i][j] = load(src + (4 * i + j) * plane);
    v16 s0[4], s1[4];
    UNROLL for (int j = 0; j < 4; j++) {
        s0[j] = m[0][j] + m[1][j] + m[2][j];
        s1[j] = m[1][j] - m[2][j] - m[3][j];
    }
    const v16 b = load(bias);
    store(relu16(b + (s0[0] + s0[1] + s0[2]), relu), dst);
    store(relu16(b + (s0[1] - s0[2] - s0[3]), relu), dst + pixel_stride);
    store(relu16(b + (s1[0] + s1[1] + s1[2]), relu), dst + row_stride);
    store(relu16(b + (s1[1] - s1[2] - s1[3]), relu), dst + row_stride + pixel_stride);
}

/// Rows r..r+R-1 of c = a . b, columns col..col+16V-1.
#define DEFINE_PRODUCT_BLOCK(NAME, R, V)                                                                       \
    static void NAME(const float *a, const float *b, float *c, long inner, long columns) { \
        v16 acc[R][V];                                                                                   \
        UNROLL for (int r = 0; r < R; r++)                                                                      \
            UNROLL for (int v = 0; v < V; v++) acc[r][v] = (v16)0;                                              \
        for (long k = 0; k < inner; k++) {                                                               \
            const float *bk = b + k * columns;                                                           \
            v16 bv[V];                                                                                   \
            UNROLL for (int v = 0; v < V; v++) bv[v] = load(bk + 16 * v);                                       \
            UNROLL for (int r = 0; r < R; r++) {                                                                \
                v16 x = splat(a + r * inner + k);                                                        \
                UNROLL for (int v = 0; v < V; v++) acc[r][v] = madd(acc[r][v], x, bv[v]);                      \
            }                                                                                            \
        }                                                                                                \
        UNROLL for (int r = 0; r < R; r++)                                                                      \
            UNROLL for (int v = 0; v < V; v++) store(acc[r][v], c + r * columns + 16 * v);                      \
    }

DEFINE_PRODUCT_BLOCK(product_64, PR64_R, 4)
DEFINE_PRODUCT_BLOCK(product_32, PR32_R, 2)
DEFINE_PRODUCT_BLOCK(product_16, 1, 1)

/// c (rows x columns) = a (rows x inner) . b (inner x columns), all row-major and packed, columns a
/// multiple of 16: blocks of PR64_R rows x 64 columns or PR32_R rows x 32 columns; when the block
/// height does not divide `rows` the last block overlaps the one before it (same rows, same bits).
static void winograd_product(const float *a, const float *b, float *c, long rows, long inner, long columns) {
    long col = 0;
    if (rows >= PR64_R) {
        for (; col + 64 <= columns; col += 64)
            for (long r = 0; r < rows; r += PR64_R) {
                long r0 = r < rows - PR64_R ? r : rows - PR64_R;
                product_64(a + r0 * inner, b + col, c + r0 * columns + col, inner, columns);
            }
    }
    if (rows >= PR32_R) {
        for (; col + 32 <= columns; col += 32)
            for (long r = 0; r < rows; r += PR32_R) {
                long r0 = r < rows - PR32_R ? r : rows - PR32_R;
                product_32(a + r0 * inner, b + col, c + r0 * columns + col, inner, columns);
            }
    }
    for (; col < columns; col += 16)
        for (long r = 0; r < rows; r++) product_16(a + r * inner, b + col, c + r * columns + col, inner, columns);
}

// MARK: - Winograd F(4x4, 3x3)
//
// The same scheme with 6x6 input tiles and 4x4 output tiles (Lavin & Gray 2015): 36 matrix
// products per image instead of 16, but over a quarter of the tiles, so 2.25 multiplications an
// output instead of 4. Tiles step by 4; at an edge that 4 does not divide, the last tile starts
// earlier and overlaps the one before it.

/// B^T d for one column (or row) of six inputs.
INLINE void winograd4_in(const v16 *d, v16 *t) {
    t[0] = 4 * d[0] - 5 * d[2] + d[4];
    t[1] = d[3] + d[4] - 4 * (d[1] + d[2]);
    t[2] = d[4] - d[3] + 4 * (d[1] - d[2]);
    t[3] = d[4] - d[2] + 2 * (d[3] - d[1]);
    t[4] = d[4] - d[2] + 2 * (d[1] - d[3]);
    t[5] = 4 * d[1] - 5 * d[3] + d[5];
}

/// A^T m for one column (or row) of six products.
INLINE void winograd4_out(const v16 *m, v16 *y) {
    const v16 a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
    y[0] = m[0] + a + c;
    y[1] = b + 2 * d;
    y[2] = a + 4 * c;
    y[3] = b + 8 * d + m[5];
}

/// V = B^T d B for 16 channels of one 6x6 input tile; xi = 6i + j goes to dst + xi * plane. The
/// rows' transforms go through `rows` in memory: 36 vectors do not fit in the registers.
INLINE void winograd4_input_tile(const float *src, long row_stride, long pixel_stride, float *dst, long plane) {
    float rows[36 * 16] __attribute__((aligned(64)));
    UNROLL for (int i = 0; i < 6; i++) {
        v16 d[6], t[6];
        UNROLL for (int j = 0; j < 6; j++) d[j] = load(src + i * row_stride + j * pixel_stride);
        winograd4_in(d, t);
        UNROLL for (int j = 0; j < 6; j++) store(t[j], rows + (6 * i + j) * 16);
    }
    UNROLL for (int j = 0; j < 6; j++) {
        v16 col[6], t[6];
        UNROLL for (int i = 0; i < 6; i++) col[i] = load(rows + (6 * i + j) * 16);
        winograd4_in(col, t);
        UNROLL for (int i = 0; i < 6; i++) store(t[i], dst + (6 * i + j) * plane);
    }
}

/// Y = A^T m A + bias (then ReLU) for 16 channels of one 4x4 output tile; m[xi] at src + xi * plane.
INLINE void winograd4_output_tile(const float *src, long plane, const float *bias, float *dst, long row_stride,
                                  long pixel_stride, int relu) {
    float columns[24 * 16] __attribute__((aligned(64)));
    UNROLL for (int j = 0; j < 6; j++) {
        v16 m[6], y[4];
        UNROLL for (int i = 0; i < 6; i++) m[i] = load(src + (6 * i + j) * plane);
        winograd4_out(m, y);
        UNROLL for (int i = 0; i < 4; i++) store(y[i], columns + (6 * i + j) * 16);
    }
    const v16 b = load(bias);
    UNROLL for (int i = 0; i < 4; i++) {
        v16 r[6], y[4];
        UNROLL for (int j = 0; j < 6; j++) r[j] = load(columns + (6 * i + j) * 16);
        winograd4_out(r, y);
        UNROLL for (int j = 0; j < 4; j++) store(relu16(b + y[j], relu), dst + i * row_stride + j * pixel_stride);
    }
}

// MARK: - Both Winograd convolutions

/// Either Winograd convolution: output tiles of `t` pixels (2 or 4) from input tiles of t + 2,
/// stepping by t (at an edge t does not divide, the last tile starts earlier and overlaps the
/// one before it); (t + 2)^2 matrix products in between. The planes of transformed tiles are
/// padded by 16 floats: planes a multiple of 4 KiB apart (F(4x4, 3x3) on 14x14 with 32 channels:
/// 2 KiB) would make their stores and loads alias. Inlined into each kernel with t a constant.
INLINE void winograd_tiles(dk_conv_geometry g, int t, const float *input, const float *u, const float *bias,
                           float *output, long out_row_stride, int relu, float *scratch) {
    const long rows = (g.out_height + t - 1) / t, columns = (g.out_width + t - 1) / t, positions = (t + 2) * (t + 2);
    const long count = rows * columns, cin = g.in_channels, cout = g.out_channels;
    const long row_stride = g.padded_width * cin;
    const long vplane = count * cin + 16, mplane = count * cout + 16;
    float *v = scratch, *m = scratch + positions * vplane;
    for (long ty = 0; ty < rows; ty++) {
        const long y0 = t * ty < g.out_height - t ? t * ty : g.out_height - t;
        for (long tx = 0; tx < columns; tx++) {
            const long x0 = t * tx < g.out_width - t ? t * tx : g.out_width - t, tile = ty * columns + tx;
            const float *src = input + y0 * row_stride + x0 * cin;
            for (long c = 0; c < cin; c += 16) {
                if (t == 4) winograd4_input_tile(src + c, row_stride, cin, v + tile * cin + c, vplane);
                else winograd_input_tile(src + c, row_stride, cin, v + tile * cin + c, vplane);
            }
        }
    }
    for (long xi = 0; xi < positions; xi++)
        winograd_product(v + xi * vplane, u + xi * cin * cout, m + xi * mplane, count, cin, cout);
    for (long ty = 0; ty < rows; ty++) {
        const long y0 = t * ty < g.out_height - t ? t * ty : g.out_height - t;
        for (long tx = 0; tx < columns; tx++) {
            const long x0 = t * tx < g.out_width - t ? t * tx : g.out_width - t, tile = ty * columns + tx;
            float *dst = output + y0 * out_row_stride + x0 * cout;
            for (long c = 0; c < cout; c += 16) {
                if (t == 4) winograd4_output_tile(m + tile * cout + c, mplane, bias + c, dst + c, out_row_stride, cout, relu);
                else winograd_output_tile(m + tile * cout + c, mplane, bias + c, dst + c, out_row_stride, cout, relu);
            }
        }
    }
}

static void winograd_forward(dk_conv_geometry g, const float *input, const float *u, const float *bias,
                             float *output, long out_row_stride, int relu, float *scratch) {
    winograd_tiles(g, 2, input, u, bias, output, out_row_stride, relu, scratch);
}

static void winograd4_forward(dk_conv_geometry g, const float *input, const float *u, const float *bias,
                              float *output, long out_row_stride, int relu, float *scratch) {
    winograd_tiles(g, 4, input, u, bias, output, out_row_stride, relu, scratch);
}

// MARK: - Pooling

static void max_pool_2x2(const float *input, long height, long width, long c, float *output, long out_row_stride) {
    const long ho = height / 2, wo = width / 2, rs = width * c;
    for (long y = 0; y < ho; y++) {
        const float *top = input + 2 * y * rs;
        float *o = output + y * out_row_stride;
        for (long x = 0; x < wo; x++) {
            const float *a = top + 2 * x * c, *b = a + rs;
            float *q = o + x * c;
            long k = 0;
            for (; k + 16 <= c; k += 16) {
                v16 m0 = vmax(load(a + k), load(a + c + k)), m1 = vmax(load(b + k), load(b + c + k));
                store(vmax(m0, m1), q + k);
            }
            for (; k < c; k++) {
                // Swift.max(x, y) is y >= x ? y : x; kept for the same bits on ties and NaN.
                float m0 = a[c + k] >= a[k] ? a[c + k] : a[k], m1 = b[c + k] >= b[k] ? b[c + k] : b[k];
                q[k] = m1 >= m0 ? m1 : m0;
            }
        }
    }
}

// MARK: - Linear

/// Input-major: 16 outputs at a time, four inputs per step in four chains.
static void linear_forward(const float *x, long in_count, const float *wt, const float *bias, long out_count,
                           long out_padded, float *output, int relu) {
    for (long group = 0; group < out_padded; group += 16) {
        v16 a[4] = {0, 0, 0, 0};
        const float *w = wt + group;
        long i = 0;
        for (; i + 4 <= in_count; i += 4)
            UNROLL for (int k = 0; k < 4; k++) a[k] = madd(a[k], splat(x + i + k), load(w + (i + k) * out_padded));
        for (; i < in_count; i++) a[0] = madd(a[0], splat(x + i), load(w + i * out_padded));
        const v16 s = (a[0] + a[1]) + (a[2] + a[3]);
        for (long o = group; o < out_count && o < group + 16; o++) {
            float v = s[o - group] + bias[o];
            output[o] = relu && v <= 0 ? 0 : v;
        }
    }
}

/// Sum of the 16 lanes in lane order (as Swift's `SIMD16.sum()`, so both give the same bits).
INLINE float sum16(v16 v) {
    float s = v[0];
    UNROLL for (int i = 1; i < 16; i++) s += v[i];
    return s;
}

/// Output-major, for few outputs: one dot product per output, 16 inputs at a time, four outputs
/// side by side so each input vector is loaded once for four multiply-adds.
static void linear_forward_rows(const float *x, long in_count, const float *weights, const float *bias,
                                long out_count, float *output, int relu) {
    const long vector_end = in_count - in_count % 16;
    long o = 0;
    for (; o + 4 <= out_count; o += 4) {
        v16 a[4] = {0, 0, 0, 0};
        for (long i = 0; i < vector_end; i += 16) {
            const v16 v = load(x + i);
            UNROLL for (int k = 0; k < 4; k++) a[k] = madd(a[k], v, load(weights + (o + k) * in_count + i));
        }
        UNROLL for (int k = 0; k < 4; k++) {
            float s = sum16(a[k]) + bias[o + k];
            const float *w = weights + (o + k) * in_count;
            for (long i = vector_end; i < in_count; i++) s += x[i] * w[i];
            output[o + k] = relu && s <= 0 ? 0 : s;
        }
    }
    for (; o < out_count; o++) {
        const float *w = weights + o * in_count;
        v16 a0 = 0, a1 = 0;
        long i = 0;
        for (; i + 32 <= vector_end; i += 32) {
            a0 = madd(a0, load(x + i), load(w + i));
            a1 = madd(a1, load(x + i + 16), load(w + i + 16));
        }
        if (i < vector_end) a0 = madd(a0, load(x + i), load(w + i));
        float s = sum16(a0 + a1) + bias[o];
        for (long k = vector_end; k < in_count; k++) s += x[k] * w[k];
        output[o] = relu && s <= 0 ? 0 : s;
    }
}

static void linear_backward(const float *x, long in_count, const float *wt, const float *dy, long out_count,
                            long out_padded, float *dwt, float *d_input) {
    if (d_input) memset(d_input, 0, (size_t)in_count * sizeof(float));
    for (long group = 0; group < out_padded; group += 16) {
        v16 dv = 0;
        for (long o = group; o < out_count && o < group + 16; o++) dv[o - group] = dy[o];
        for (long i = 0; i < in_count; i++) {
            float *p = dwt + i * out_padded + group;
            store(madd(load(p), splat(x + i), dv), p);
        }
        if (d_input)
            for (long i = 0; i < in_count; i++) d_input[i] += sum16(load(wt + i * out_padded + group) * dv);
    }
}

// MARK: - Rasterizer

typedef float v8 __attribute__((ext_vector_type(8)));
typedef int i8v __attribute__((ext_vector_type(8)));

/// a where `mask` (a lane-wise comparison: all bits set where true), else b.
INLINE v8 select8(i8v mask, v8 a, v8 b) { return (v8)(((i8v)a & mask) | ((i8v)b & ~mask)); }

/// Swift's Int(min(max(v, -1), 28) + 2) - 2: floor(v) for v clamped to [-1, 28].
INLINE long raster_floor(float v) {
    v = -1.0f > v ? -1.0f : v;
    v = 28.0f < v ? 28.0f : v;
    return (long)(v + 2) - 2;
}

/// See dk_kernels.raster_segment. The same operations in the same order as the Swift reference
/// (Pen.referenceSegment), never contracted into fused multiply-adds, so every copy gives the same
/// bits.
static void raster_segment(float *frame, float ax, float ay, float bx, float by, float reach) {
#pragma clang fp contract(off)
    const long size = 28;
    long low_y = raster_floor((ay < by ? ay : by) - reach), high_y = raster_floor((ay > by ? ay : by) + reach);
    if (low_y < 0) low_y = 0;
    if (high_y > size - 1) high_y = size - 1;
    if (low_y > high_y) return;
    const float dx = bx - ax, dy = by - ay;
    const float length2 = dx * dx + dy * dy;
    const float inverse_length2 = length2 > 1e-12f ? 1 / length2 : 0;
    const float inverse_dy = __builtin_fabsf(dy) > 1e-6f ? 1 / dy : 0;
    const float segment_low_x = ax < bx ? ax : bx, segment_high_x = ax > bx ? ax : bx;
    // Short or axis-near segments (the common case) use one chunk range for all rows; only long
    // diagonal ones are worth narrowing row by row.
    const int narrow_rows = __builtin_fabsf(dx) > 4 && __builtin_fabsf(dy) > 4;
    long box_low_x = raster_floor(segment_low_x - reach), box_high_x = raster_floor(segment_high_x + reach);
    if (box_low_x < 0) box_low_x = 0;
    if (box_high_x > size - 1) box_high_x = size - 1;
    if (box_low_x > box_high_x) return;
    const v8 lanes = {0, 1, 2, 3, 4, 5, 6, 7};
    for (long row = low_y; row <= high_y; row++) {
        const float py = (float)row - ay;
        long low_x = box_low_x, high_x = box_high_x;
        if (narrow_rows) {
            // The x-range of the points of the segment whose y is within reach of this row.
            float t0 = (py - reach) * inverse_dy, t1 = (py + reach) * inverse_dy;
            if (t0 > t1) { float t = t0; t0 = t1; t1 = t; }
            t0 = 0 > t0 ? 0 : t0;
            t1 = 1 < t1 ? 1 : t1;
            const float x0 = ax + t0 * dx, x1 = ax + t1 * dx;
            low_x = raster_floor((x0 < x1 ? x0 : x1) - reach);
            high_x = raster_floor((x0 > x1 ? x0 : x1) + reach);
            if (low_x < 0) low_x = 0;
            if (high_x > size - 1) high_x = size - 1;
            if (low_x > high_x) continue;
        }
        const float py_dy = py * dy;
        float *line = frame + row * 32;
        for (long chunk = low_x >> 3; chunk <= high_x >> 3; chunk++) {
            const v8 px = (lanes + (float)(chunk * 8)) - ax;
            v8 t = (px * dx + py_dy) * inverse_length2;
            t = select8(t < 0, (v8)0, t);
            t = select8(t > 1, (v8)1, t);
            const v8 ex = px - t * dx, ey = py - t * dy;
            const v8 d2 = ex * ex + ey * ey;
            v8 old;
            memcpy(&old, line + chunk * 8, sizeof old);
            old = select8(d2 < old, d2, old);
            memcpy(line + chunk * 8, &old, sizeof old);
        }
    }
}

// MARK: - Peak

static float madd_peak(long iterations, float scale) {
    const v16 m = scale, c = 1e-7f;
    v16 a[16];
    UNROLL for (int k = 0; k < 16; k++) a[k] = 1;
    for (long n = 0; n < iterations; n++)
        UNROLL for (int k = 0; k < 16; k++) a[k] = madd(c, a[k], m);
    const v16 s = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])) + ((a[8] + a[9]) + (a[10] + a[11])) +
                  ((a[12] + a[13]) + (a[14] + a[15]));
    return sum16(s);
}

const dk_kernels DK_TABLE = {
    .isa = DK_ISA,
    .name = DK_NAME,
    .fused_multiply_add = DK_FMA,
    .conv_forward = conv_forward,
    .conv_weight_grad = conv_weight_grad,
    .winograd_forward = winograd_forward,
    .winograd4_forward = winograd4_forward,
    .max_pool_2x2 = max_pool_2x2,
    .linear_forward = linear_forward,
    .linear_forward_rows = linear_forward_rows,
    .linear_backward = linear_backward,
    .madd_peak = madd_peak,
    .raster_segment = raster_segment,
};
