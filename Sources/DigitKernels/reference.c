// The reference kernels (the contracts of the fast ones, in the simplest loops) and the kernels
// that need only one copy. Products are rounded before they are added, as in Swift, on every
// architecture.
#include <math.h>
#include <string.h>
#include "DigitKernels.h"

#pragma clang fp contract(off)

/// Four floats: one SSE2 or NEON register, the baseline of both architectures.
typedef float v4 __attribute__((ext_vector_type(4)));
typedef int i4v __attribute__((ext_vector_type(4)));

void dk_ref_conv_forward(dk_conv_geometry g, const float *input, const float *weights, const float *bias,
                         float *output, long out_row_stride, int relu) {
    const long taps = g.kernel * g.in_channels, row_stride = g.padded_width * g.in_channels;
    for (long y = 0; y < g.out_height; y++)
        for (long x = 0; x < g.out_width; x++)
            for (long co = 0; co < g.out_channels; co++) {
                float s = bias[co];
                for (long ky = 0; ky < g.kernel; ky++) {
                    const float *row = input + (y + ky) * row_stride + x * g.in_channels;
                    const float *w = weights + ky * taps * g.out_channels + co;
                    for (long j = 0; j < taps; j++) s += row[j] * w[j * g.out_channels];
                }
                output[y * out_row_stride + x * g.out_channels + co] = relu && s <= 0 ? 0 : s;
            }
}

void dk_ref_conv_weight_grad(dk_conv_geometry g, const float *input, const float *d_output, float *d_weights,
                             float *d_bias) {
    const long taps = g.kernel * g.in_channels, cout = g.out_channels, row_stride = g.padded_width * g.in_channels;
    for (long y = 0; y < g.out_height; y++)
        for (long x = 0; x < g.out_width; x++) {
            const float *d = d_output + (y * g.out_width + x) * cout;
            for (long co = 0; co < cout; co++) d_bias[co] += d[co];
            for (long ky = 0; ky < g.kernel; ky++) {
                const float *p = input + (y + ky) * row_stride + x * g.in_channels;
                for (long j = 0; j < taps; j++) {
                    float *dw = d_weights + (ky * taps + j) * cout;
                    for (long co = 0; co < cout; co++) dw[co] += p[j] * d[co];
                }
            }
        }
}

void dk_ref_linear_forward(const float *x, long in_count, const float *weights, const float *bias, long out_count,
                           float *output, int relu) {
    for (long o = 0; o < out_count; o++) {
        float s = bias[o];
        for (long i = 0; i < in_count; i++) s += weights[o * in_count + i] * x[i];
        output[o] = relu && s <= 0 ? 0 : s;
    }
}

void dk_ref_max_pool(const float *input, long height, long width, long channels, long kernel, long stride,
                     float *output) {
    const long ho = (height - kernel) / stride + 1, wo = (width - kernel) / stride + 1;
    for (long y = 0; y < ho; y++)
        for (long x = 0; x < wo; x++) {
            float *o = output + (y * wo + x) * channels;
            memcpy(o, input + ((y * stride) * width + x * stride) * channels, (size_t)channels * sizeof(float));
            for (long ky = 0; ky < kernel; ky++)
                for (long kx = 0; kx < kernel; kx++) {
                    if (ky == 0 && kx == 0) continue;
                    const float *p = input + ((y * stride + ky) * width + x * stride + kx) * channels;
                    for (long c = 0; c < channels; c++) o[c] = p[c] >= o[c] ? p[c] : o[c];
                }
        }
}

void dk_pad_image(const float *input, long height, long width, long channels, long pad, float *padded) {
    const long wp = width + 2 * pad, row = width * channels;
    for (long y = 0; y < height; y++)
        memcpy(padded + ((y + pad) * wp + pad) * channels, input + y * row, (size_t)row * sizeof(float));
}

void dk_max_pool_backward(const float *restrict input, const float *restrict output, const float *restrict d_output,
                          long height, long width, long channels, long kernel, long stride, float *restrict d_input) {
    // For each channel the first window position (row by row) holding the maximum gets the
    // gradient. Four channels at a time (then one): every position of the window is written,
    // unchanged where it is not the one chosen, so there is no branch per value.
    const long ho = (height - kernel) / stride + 1, wo = (width - kernel) / stride + 1;
    for (long y = 0; y < ho; y++)
        for (long x = 0; x < wo; x++) {
            const long o = (y * wo + x) * channels;
            long c = 0;
            for (; c + 4 <= channels; c += 4) {
                v4 m, g;
                memcpy(&m, output + o + c, sizeof m);
                memcpy(&g, d_output + o + c, sizeof g);
                i4v found = 0;
                for (long ky = 0; ky < kernel; ky++)
                    for (long kx = 0; kx < kernel; kx++) {
                        const long i = ((y * stride + ky) * width + x * stride + kx) * channels + c;
                        v4 in, d;
                        memcpy(&in, input + i, sizeof in);
                        memcpy(&d, d_input + i, sizeof d);
                        const i4v take = (in == m) & ~found;
                        const v4 sum = d + g;
                        d = (v4)(((i4v)sum & take) | ((i4v)d & ~take));
                        memcpy(d_input + i, &d, sizeof d);
                        found |= take;
                    }
            }
            for (; c < channels; c++) {
                int found = 0;
                for (long ky = 0; ky < kernel && !found; ky++)
                    for (long kx = 0; kx < kernel && !found; kx++) {
                        const long i = ((y * stride + ky) * width + x * stride + kx) * channels + c;
                        if (input[i] == output[o + c]) {
                            d_input[i] += d_output[o + c];
                            found = 1;
                        }
                    }
            }
        }
}

void dk_avg_pool(const float *input, long height, long width, long channels, long kernel, long stride, float *output) {
    const long ho = (height - kernel) / stride + 1, wo = (width - kernel) / stride + 1;
    const float scale = 1 / (float)(kernel * kernel);
    for (long y = 0; y < ho; y++)
        for (long x = 0; x < wo; x++) {
            float *o = output + (y * wo + x) * channels;
            memset(o, 0, (size_t)channels * sizeof(float));
            for (long ky = 0; ky < kernel; ky++)
                for (long kx = 0; kx < kernel; kx++) {
                    const float *p = input + ((y * stride + ky) * width + x * stride + kx) * channels;
                    for (long c = 0; c < channels; c++) o[c] += p[c];
                }
            for (long c = 0; c < channels; c++) o[c] *= scale;
        }
}

void dk_softmax(const float *logits, long count, float temperature, float *probabilities) {
    float m = -INFINITY;
    for (long i = 0; i < count; i++) {
        const float v = logits[i] / temperature;
        m = v >= m ? v : m;
    }
    float sum = 0;
    for (long i = 0; i < count; i++) {
        const float e = expf(logits[i] / temperature - m);
        probabilities[i] = e;
        sum += e;
    }
    for (long i = 0; i < count; i++) probabilities[i] /= sum;
}

// Every value is written (unchanged where the condition is false), so these vectorize without a
// branch per value.
void dk_relu(float *x, long count) {
    for (long i = 0; i < count; i++) x[i] = x[i] <= 0 ? 0.0f : x[i];
}

void dk_relu_backward(float *restrict d, const float *restrict y, long count) {
    long i = 0;
    for (; i + 4 <= count; i += 4) {
        v4 dv, yv;
        memcpy(&dv, d + i, sizeof dv);
        memcpy(&yv, y + i, sizeof yv);
        dv = (v4)((i4v)dv & ~(yv <= 0));
        memcpy(d + i, &dv, sizeof dv);
    }
    for (; i < count; i++) d[i] = y[i] <= 0 ? 0.0f : d[i];
}

void dk_affine(float *x, long pixels, long channels, const float *scale, const float *shift, int relu) {
    for (long p = 0; p < pixels; p++)
        for (long c = 0; c < channels; c++) {
            const float v = x[p * channels + c] * scale[c] + shift[c];
            x[p * channels + c] = relu && v <= 0 ? 0 : v;
        }
}

void dk_channel_sums(const float *a, const float *b, long pixels, long channels, double *sums) {
    // Each channel's sums run over the pixels in order, as the contract says; blocks of 64
    // channels side by side make the loop over a pixel's channels the inner one (contiguous,
    // vectorized) instead of a strided walk per channel.
    for (long c0 = 0; c0 < channels; c0 += 64) {
        const long n = channels - c0 < 64 ? channels - c0 : 64;
        float s1[64] = {0}, s2[64] = {0};
        for (long i = 0; i < pixels; i++) {
            const float *row = a + i * channels + c0;
            const float *other = (b ? b : a) + i * channels + c0;
            for (long c = 0; c < n; c++) {
                s1[c] += row[c];
                s2[c] += row[c] * other[c];
            }
        }
        for (long c = 0; c < n; c++) {
            sums[c0 + c] += s1[c];
            sums[channels + c0 + c] += s2[c];
        }
    }
}

void dk_batch_norm_forward(const float *x, long pixels, long channels, const float *mean, const float *inv_std,
                           const float *gamma, const float *beta, float *xhat, float *y) {
    for (long i = 0; i < pixels; i++)
        for (long c = 0; c < channels; c++) {
            const long j = i * channels + c;
            const float v = (x[j] - mean[c]) * inv_std[c];
            xhat[j] = v;
            y[j] = v * gamma[c] + beta[c];
        }
}

void dk_batch_norm_backward(const float *dy, const float *xhat, long pixels, long channels, const float *a, float m,
                            const float *sum_dy, const float *sum_dy_xhat, float *dx) {
    for (long i = 0; i < pixels; i++)
        for (long c = 0; c < channels; c++) {
            const long j = i * channels + c;
            dx[j] = a[c] * (m * dy[j] - sum_dy[c] - xhat[j] * sum_dy_xhat[c]);
        }
}

void dk_add(float *dst, const float *src, long count) {
    for (long i = 0; i < count; i++) dst[i] += src[i];
}

void dk_sgd_nesterov(float *w, const float *g, float *v, long count, float lr, float mu, float decay) {
    for (long i = 0; i < count; i++) {
        const float gi = g[i] + decay * w[i];
        v[i] = mu * v[i] + gi;
        w[i] -= lr * (gi + mu * v[i]);
    }
}

int dk_winograd_supports(dk_conv_geometry g) {
    return g.kernel == 3 && g.in_channels % 16 == 0 && g.out_channels % 16 == 0 && g.out_height >= 2 &&
           g.out_width >= 2;
}

long dk_winograd_scratch_floats(dk_conv_geometry g) {
    const long rows = (g.out_height + 1) / 2, columns = (g.out_width + 1) / 2;
    return 16 * (rows * columns * (g.in_channels + g.out_channels) + 32);
}

/// G (4x3) of F(2x2, 3x3) applied to (g0, g1, g2).
static void winograd2_g(double g0, double g1, double g2, double *out) {
    out[0] = g0;
    out[1] = (g0 + g1 + g2) / 2;
    out[2] = (g0 - g1 + g2) / 2;
    out[3] = g2;
}

/// U = G g G^T for every channel pair, with `apply_g` giving G's n values for one kernel column
/// (or row): entry ((n * r + c) * Cin + ci) * Cout + co. In double precision, rounded once.
static void winograd_weights(const float *packed, long cin, long cout, float *u, int n,
                             void (*apply_g)(double, double, double, double *)) {
    const long plane = cin * cout;
    for (long ci = 0; ci < cin; ci++)
        for (long co = 0; co < cout; co++) {
            double w[3][3];
            for (int ky = 0; ky < 3; ky++)
                for (int kx = 0; kx < 3; kx++) w[ky][kx] = packed[((ky * 3 + kx) * cin + ci) * cout + co];
            // G g: each kernel column to n values; then each of the n rows times G^T.
            double gg[3][6];
            for (int kx = 0; kx < 3; kx++) apply_g(w[0][kx], w[1][kx], w[2][kx], gg[kx]);
            for (int r = 0; r < n; r++) {
                double row[6];
                apply_g(gg[0][r], gg[1][r], gg[2][r], row);
                float *base = u + (n * r * cin + ci) * cout + co;
                for (int c = 0; c < n; c++) base[c * plane] = (float)row[c];
            }
        }
}

void dk_winograd_transform_weights(const float *packed, long cin, long cout, float *u) {
    winograd_weights(packed, cin, cout, u, 4, winograd2_g);
}

int dk_winograd4_supports(dk_conv_geometry g) {
    return g.kernel == 3 && g.in_channels % 16 == 0 && g.out_channels % 16 == 0 && g.out_height >= 4 &&
           g.out_width >= 4;
}

int dk_winograd4_preferred(dk_conv_geometry g) {
    if (!dk_winograd4_supports(g)) return 0;
    const long f4 = 36 * ((g.out_height + 3) / 4) * ((g.out_width + 3) / 4);
    const long f2 = 16 * ((g.out_height + 1) / 2) * ((g.out_width + 1) / 2);
    return f4 < f2;
}

long dk_winograd4_scratch_floats(dk_conv_geometry g) {
    const long rows = (g.out_height + 3) / 4, columns = (g.out_width + 3) / 4;
    return 36 * (rows * columns * (g.in_channels + g.out_channels) + 32);
}

/// G (6x3) of F(4x4, 3x3) (Lavin & Gray 2015, interpolation points 0, ±1, ±2 and infinity)
/// applied to (g0, g1, g2).
static void winograd4_g(double g0, double g1, double g2, double *out) {
    out[0] = g0 / 4;
    out[1] = -(g0 + g1 + g2) / 6;
    out[2] = -(g0 - g1 + g2) / 6;
    out[3] = g0 / 24 + g1 / 12 + g2 / 6;
    out[4] = g0 / 24 - g1 / 12 + g2 / 6;
    out[5] = g2;
}

void dk_winograd4_transform_weights(const float *packed, long cin, long cout, float *u) {
    winograd_weights(packed, cin, cout, u, 6, winograd4_g);
}
