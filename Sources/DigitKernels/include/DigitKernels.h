// DigitKernels: the compute kernels of the digits network, in C.
//
// Activations are NHWC (channels innermost), one image at a time. Each fast kernel is compiled
// several times from one source (kernels_body.h): for any x86-64 CPU (SSE2, multiply and add
// apart), for AVX2 + FMA and for AVX-512 + FMA, each copy marked with per-function target
// attributes; on arm64 one copy with NEON and FMA. One CPU check at load picks the best copy the
// machine runs (dk_active); DIGITS_KERNELS=portable|avx2|avx512 picks another. Nobody compiles
// with a CPU flag. Plain reference kernels (dk_ref_*) state every contract in the simplest loops;
// the tests compare each copy with them.
#ifndef DIGIT_KERNELS_H
#define DIGIT_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Geometry of a stride-1 convolution over an already zero-padded NHWC input.
typedef struct dk_conv_geometry {
    long padded_width;   // Wp
    long in_channels;    // Cin
    long kernel;         // k (square)
    long out_channels;   // Cout
    long out_height;     // Ho = Hp - k + 1
    long out_width;      // Wo = Wp - k + 1
} dk_conv_geometry;

/// The compiled copies of the fast kernels.
typedef enum dk_isa {
    /// Any x86-64 CPU (SSE2, separate multiply and add), or arm64 (NEON with fused multiply-add).
    DK_PORTABLE = 0,
    /// AVX2 + FMA (Intel Haswell 2013 and later, AMD Zen and later).
    DK_AVX2 = 1,
    /// AVX-512 F/BW/DQ/VL + FMA (Intel Skylake-SP 2017 and later, AMD Zen 4 and later).
    DK_AVX512 = 2,
} dk_isa;

/// One compiled copy of the fast kernels. Every function computes exactly what its reference
/// (dk_ref_*) computes; the copies differ only in rounding where `fused_multiply_add` differs.
typedef struct dk_kernels {
    dk_isa isa;
    /// "portable", "neon", "avx2" or "avx512".
    const char *name;
    /// 1 when multiply-adds round once (FMA instructions), 0 when the product is rounded first.
    int fused_multiply_add;

    /// Convolution of dk_ref_conv_forward, output row y at output + y * out_row_stride.
    void (*conv_forward)(dk_conv_geometry g, const float *input, const float *weights, const float *bias,
                         float *output, long out_row_stride, int relu);
    /// Weight and bias gradients of dk_ref_conv_weight_grad (accumulated: +=).
    void (*conv_weight_grad)(dk_conv_geometry g, const float *input, const float *d_output,
                             float *d_weights, float *d_bias);
    /// Winograd F(2x2, 3x3) convolution: same layout and result (up to rounding) as conv_forward
    /// for a stride-1 3x3 kernel; weights from dk_winograd_transform_weights, scratch of
    /// dk_winograd_scratch_floats(g) floats. Requires dk_winograd_supports(g).
    void (*winograd_forward)(dk_conv_geometry g, const float *input, const float *u, const float *bias,
                             float *output, long out_row_stride, int relu, float *scratch);
    /// Winograd F(4x4, 3x3): the same convolution from 6x6 input tiles, 36 multiplications per
    /// channel pair for 16 outputs (F(2x2, 3x3): 16 for 4); weights from
    /// dk_winograd4_transform_weights, scratch of dk_winograd4_scratch_floats(g) floats.
    /// Requires dk_winograd4_supports(g).
    void (*winograd4_forward)(dk_conv_geometry g, const float *input, const float *u, const float *bias,
                              float *output, long out_row_stride, int relu, float *scratch);
    /// 2x2 max pooling, stride 2 (floor mode); output row y at output + y * out_row_stride.
    void (*max_pool_2x2)(const float *input, long height, long width, long channels,
                         float *output, long out_row_stride);
    /// out[o] = bias[o] + sum_i wT[i * out_padded + o] * x[i], o < out_count; out_padded a multiple of 16.
    void (*linear_forward)(const float *x, long in_count, const float *weights_t, const float *bias,
                           long out_count, long out_padded, float *output, int relu);
    /// The same with weights in rows (out, in): for layers with few outputs (the classifier head).
    void (*linear_forward_rows)(const float *x, long in_count, const float *weights, const float *bias,
                                long out_count, float *output, int relu);
    /// dW[i * out_padded + o] += x[i] * dy[o]; d_input (when not NULL) = W dy, for one image.
    void (*linear_backward)(const float *x, long in_count, const float *weights_t, const float *dy,
                            long out_count, long out_padded, float *d_weights_t, float *d_input);
    /// 16 independent multiply-add chains of 16 lanes for `iterations` steps (256 multiply-adds a
    /// step, no memory traffic): the compute peak one core reaches with this copy.
    float (*madd_peak)(long iterations, float scale);
    /// The rasterizer's pen: lowers each pixel's squared distance, in a frame of 28 rows of 32
    /// floats (columns 28-31 padding), to the squared distance from the pixel's centre (x, y) to
    /// the segment a-b, for the pixels within `reach` of it (and possibly a few more, which get
    /// their exact value too). Every copy gives the same bits (no fused multiply-add).
    void (*raster_segment)(float *frame, float ax, float ay, float bx, float by, float reach);
} dk_kernels;

/// The copy for `isa`, or NULL when this build or this CPU does not have it.
const dk_kernels *dk_kernels_for(dk_isa isa);
/// The copy the library uses: the best this CPU runs, unless DIGITS_KERNELS names another that it
/// runs (a name it cannot run is reported once on stderr and ignored). Chosen once, at load.
const dk_kernels *dk_active(void);
/// 1 when this CPU can run `isa` (the instruction sets and the operating system's register state).
int dk_cpu_supports(dk_isa isa);

// MARK: - Reference kernels

/// out[(y*Wo+x)*Cout+co] = bias[co] + sum_ky sum_j in[(y+ky)*Wp*Cin + x*Cin + j] * w[(ky*k*Cin + j)*Cout + co],
/// weights packed (kH, kW, Cin, Cout), rows of the output `out_row_stride` floats apart; ReLU when `relu`.
void dk_ref_conv_forward(dk_conv_geometry g, const float *input, const float *weights, const float *bias,
                         float *output, long out_row_stride, int relu);
/// dw[(ky*k*Cin + j)*Cout + co] += sum_{y,x} in[(y+ky)*Wp*Cin + x*Cin + j] * dout[(y*Wo+x)*Cout + co];
/// db[co] += sum dout[..co].
void dk_ref_conv_weight_grad(dk_conv_geometry g, const float *input, const float *d_output,
                             float *d_weights, float *d_bias);
/// Reference of linear_forward with the (out, in) layout.
void dk_ref_linear_forward(const float *x, long in_count, const float *weights, const float *bias,
                           long out_count, float *output, int relu);
/// Max pooling, windows of `kernel` with `stride`, no padding (floor mode).
void dk_ref_max_pool(const float *input, long height, long width, long channels, long kernel, long stride,
                     float *output);

// MARK: - Kernels with one copy (not hot enough to need more)

/// Copies an H x W x C image into the interior of a zero-bordered (H+2p) x (W+2p) x C buffer whose
/// border is already zero.
void dk_pad_image(const float *input, long height, long width, long channels, long pad, float *padded);
/// Routes each pooled gradient to the first input position that held the maximum (as PyTorch
/// does). `d_input` must be zeroed by the caller.
void dk_max_pool_backward(const float *input, const float *output, const float *d_output, long height, long width,
                          long channels, long kernel, long stride, float *d_input);
/// Average pooling, no padding (floor mode).
void dk_avg_pool(const float *input, long height, long width, long channels, long kernel, long stride, float *output);
/// Softmax of logits / temperature, numerically stable.
void dk_softmax(const float *logits, long count, float temperature, float *probabilities);
/// In place: x = max(x, 0) (values <= 0 become +0; NaN is kept).
void dk_relu(float *x, long count);
/// In place: d = 0 where y <= 0 (the ReLU backward, with y the ReLU's output).
void dk_relu_backward(float *d, const float *y, long count);
/// In place: x[p*C + c] = x[p*C + c] * scale[c] + shift[c], then ReLU when `relu`.
void dk_affine(float *x, long pixels, long channels, const float *scale, const float *shift, int relu);
/// For one image (pixels x channels, NHWC), per channel c: the float sums over pixels, in pixel
/// order, of a and of a*b (a*a when b is NULL), each added as a double into sums[c] and
/// sums[channels + c].
void dk_channel_sums(const float *a, const float *b, long pixels, long channels, double *sums);
/// Batch-norm forward for one image: xhat = (x - mean) * inv_std, y = xhat * gamma + beta.
void dk_batch_norm_forward(const float *x, long pixels, long channels, const float *mean, const float *inv_std,
                           const float *gamma, const float *beta, float *xhat, float *y);
/// Batch-norm input gradient for one image: dx = a * (m * dy - sum_dy - xhat * sum_dy_xhat).
void dk_batch_norm_backward(const float *dy, const float *xhat, long pixels, long channels, const float *a,
                            float m, const float *sum_dy, const float *sum_dy_xhat, float *dx);
/// dst[i] += src[i].
void dk_add(float *dst, const float *src, long count);
/// SGD with Nesterov momentum and L2 decay: g' = g + decay*w; v = mu*v + g'; w -= lr*(g' + mu*v).
void dk_sgd_nesterov(float *w, const float *g, float *v, long count, float lr, float mu, float decay);

/// Whether winograd_forward handles this convolution: 3x3 kernel, channel counts multiples of
/// 16, output at least 2x2.
int dk_winograd_supports(dk_conv_geometry g);
/// Scratch floats winograd_forward needs.
long dk_winograd_scratch_floats(dk_conv_geometry g);
/// U = G g G^T of weights packed (3, 3, Cin, Cout), as 16 matrices (Cin, Cout) into `u`
/// (16 * Cin * Cout floats): entry (xi * Cin + ci) * Cout + co. Double precision, rounded once.
void dk_winograd_transform_weights(const float *packed, long in_channels, long out_channels, float *u);
/// Whether winograd4_forward handles this convolution: 3x3 kernel, channel counts multiples of
/// 16, output at least 4x4.
int dk_winograd4_supports(dk_conv_geometry g);
/// Whether F(4x4, 3x3) does fewer multiplications than F(2x2, 3x3) on this output (tiles that
/// overlap at an odd edge counted): 14x14 and 7x7 yes, 5x5 and 6x6 no (as many).
int dk_winograd4_preferred(dk_conv_geometry g);
/// Scratch floats winograd4_forward needs.
long dk_winograd4_scratch_floats(dk_conv_geometry g);
/// U = G g G^T of F(4x4, 3x3), as 36 matrices (Cin, Cout) into `u` (36 * Cin * Cout floats):
/// entry (xi * Cin + ci) * Cout + co. Double precision, rounded once.
void dk_winograd4_transform_weights(const float *packed, long in_channels, long out_channels, float *u);

#ifdef __cplusplus
}
#endif
#endif
