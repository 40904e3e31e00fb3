// Compute kernels of the network, in NHWC layout (channels innermost), one image at a time.
//
// Every optimized kernel has a plain reference kernel beside it (`…Reference`) that states the
// same contract in the simplest loops; tests compare the two. The fast kernels vectorize over
// output channels with SIMD16/32/64<Float> accumulators and keep a block of output pixels in
// registers, so each weight vector loaded from memory feeds several multiply-adds.

/// `acc + a * b`. With `DIGITS_FMA` (the `DIGITS_CPU` build switch) or on arm64 this is one fused
/// multiply-add instruction. On baseline x86-64 `addingProduct` would become a call into libm's
/// software `fmaf`, so the portable build multiplies and adds separately (same result up to rounding).
@inline(__always)
func madd<V: SIMD>(_ acc: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
    #if DIGITS_FMA || arch(arm64)
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}

@inline(__always)
func load<V: SIMD>(_ p: UnsafePointer<Float>, as _: V.Type = V.self) -> V where V.Scalar == Float {
    UnsafeRawPointer(p).loadUnaligned(as: V.self)
}

@inline(__always)
func store<V: SIMD>(_ v: V, _ p: UnsafeMutablePointer<Float>) where V.Scalar == Float {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self)
}

/// Geometry of a stride-1 convolution over an already zero-padded NHWC input.
struct ConvGeometry {
    var paddedWidth: Int   // Wp
    var inChannels: Int    // Cin
    var kernel: Int        // k (square)
    var outChannels: Int   // Cout
    var outHeight: Int     // Ho = Hp - k + 1
    var outWidth: Int      // Wo = Wp - k + 1
    var rowStride: Int { paddedWidth * inChannels }
    /// Entries of one kernel row: k * Cin (contiguous in the padded input for a fixed output pixel).
    var rowTaps: Int { kernel * inChannels }
}

// MARK: - Convolution forward

/// Reference: `out[(y*Wo+x)*Cout+co] = bias[co] + Σ_ky Σ_j in[(y+ky)*Wp*Cin + x*Cin + j] * w[(ky*k*Cin + j)*Cout + co]`,
/// with weights packed as `(kH, kW, Cin, Cout)`; ReLU applied when `relu`.
func convForwardReference(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                          bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, relu: Bool) {
    let taps = g.rowTaps
    for y in 0..<g.outHeight {
        for x in 0..<g.outWidth {
            for co in 0..<g.outChannels {
                var s = bias[co]
                for ky in 0..<g.kernel {
                    let row = input + (y + ky) * g.rowStride + x * g.inChannels
                    let wrow = weights + ky * taps * g.outChannels + co
                    for j in 0..<taps { s += row[j] * wrow[j * g.outChannels] }
                }
                output[(y * g.outWidth + x) * g.outChannels + co] = relu ? max(s, 0) : s
            }
        }
    }
}

/// Fast path of `convForwardReference`; requires `outChannels` to be a multiple of 16.
func convForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                 bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, relu: Bool) {
    switch g.outChannels {
    case 16: convForwardTiled(SIMD16<Float>.self, block: 8, g, input, weights, bias, output, relu, group: 0)
    case 32: convForwardTiled(SIMD32<Float>.self, block: 4, g, input, weights, bias, output, relu, group: 0)
    case 64: convForwardTiled(SIMD64<Float>.self, block: 4, g, input, weights, bias, output, relu, group: 0)
    default:
        if g.outChannels % 16 == 0 {
            for group in 0..<(g.outChannels / 16) {
                convForwardTiled(SIMD16<Float>.self, block: 8, g, input, weights, bias, output, relu, group: group)
            }
        } else {
            convForwardReference(g, input: input, weights: weights, bias: bias, output: output, relu: relu)
        }
    }
}

/// One group of `V.scalarCount` output channels, `block` output pixels of a row at a time
/// (8 or 4 accumulators, the rest 1 at a time).
@inline(__always)
private func convForwardTiled<V: SIMD>(_: V.Type, block: Int, _ g: ConvGeometry, _ input: UnsafePointer<Float>,
                                       _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                                       _ output: UnsafeMutablePointer<Float>, _ relu: Bool, group: Int)
where V.Scalar == Float {
    let lanes = V.scalarCount
    let cout = g.outChannels, cin = g.inChannels, taps = g.rowTaps, k = g.kernel
    let c0 = group * lanes
    let b: V = load(bias + c0)
    let zero = V(repeating: 0)
    let w0 = weights + c0
    for y in 0..<g.outHeight {
        let outRow = output + y * g.outWidth * cout + c0
        var x = 0
        if block == 8 {
            while x + 8 <= g.outWidth {
                var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b
                for ky in 0..<k {
                    let p = input + (y + ky) * g.rowStride + x * cin
                    let w = w0 + ky * taps * cout
                    for j in 0..<taps {
                        let wv: V = load(w + j * cout)
                        a0 = madd(a0, V(repeating: p[j]), wv)
                        a1 = madd(a1, V(repeating: p[j + cin]), wv)
                        a2 = madd(a2, V(repeating: p[j + 2 * cin]), wv)
                        a3 = madd(a3, V(repeating: p[j + 3 * cin]), wv)
                        a4 = madd(a4, V(repeating: p[j + 4 * cin]), wv)
                        a5 = madd(a5, V(repeating: p[j + 5 * cin]), wv)
                        a6 = madd(a6, V(repeating: p[j + 6 * cin]), wv)
                        a7 = madd(a7, V(repeating: p[j + 7 * cin]), wv)
                    }
                }
                if relu {
                    a0.replace(with: zero, where: a0 .< zero); a1.replace(with: zero, where: a1 .< zero)
                    a2.replace(with: zero, where: a2 .< zero); a3.replace(with: zero, where: a3 .< zero)
                    a4.replace(with: zero, where: a4 .< zero); a5.replace(with: zero, where: a5 .< zero)
                    a6.replace(with: zero, where: a6 .< zero); a7.replace(with: zero, where: a7 .< zero)
                }
                let o = outRow + x * cout
                store(a0, o); store(a1, o + cout); store(a2, o + 2 * cout); store(a3, o + 3 * cout)
                store(a4, o + 4 * cout); store(a5, o + 5 * cout); store(a6, o + 6 * cout); store(a7, o + 7 * cout)
                x += 8
            }
        }
        while x + 4 <= g.outWidth {
            var a0 = b, a1 = b, a2 = b, a3 = b
            for ky in 0..<k {
                let p = input + (y + ky) * g.rowStride + x * cin
                let w = w0 + ky * taps * cout
                for j in 0..<taps {
                    let wv: V = load(w + j * cout)
                    a0 = madd(a0, V(repeating: p[j]), wv)
                    a1 = madd(a1, V(repeating: p[j + cin]), wv)
                    a2 = madd(a2, V(repeating: p[j + 2 * cin]), wv)
                    a3 = madd(a3, V(repeating: p[j + 3 * cin]), wv)
                }
            }
            if relu {
                a0.replace(with: zero, where: a0 .< zero); a1.replace(with: zero, where: a1 .< zero)
                a2.replace(with: zero, where: a2 .< zero); a3.replace(with: zero, where: a3 .< zero)
            }
            let o = outRow + x * cout
            store(a0, o); store(a1, o + cout); store(a2, o + 2 * cout); store(a3, o + 3 * cout)
            x += 4
        }
        while x < g.outWidth {
            var a0 = b
            for ky in 0..<k {
                let p = input + (y + ky) * g.rowStride + x * cin
                let w = w0 + ky * taps * cout
                for j in 0..<taps { a0 = madd(a0, V(repeating: p[j]), load(w + j * cout)) }
            }
            if relu { a0.replace(with: zero, where: a0 .< zero) }
            store(a0, outRow + x * cout)
            x += 1
        }
    }
}

// MARK: - Convolution weight gradient

/// Reference: `dw[(ky*k*Cin + j)*Cout + co] += Σ_{y,x} in[(y+ky)*Wp*Cin + x*Cin + j] * dout[(y*Wo+x)*Cout + co]`
/// and `db[co] += Σ dout[...co]`.
func convWeightGradReference(_ g: ConvGeometry, input: UnsafePointer<Float>, dOutput: UnsafePointer<Float>,
                             dWeights: UnsafeMutablePointer<Float>, dBias: UnsafeMutablePointer<Float>) {
    let taps = g.rowTaps, cout = g.outChannels
    for y in 0..<g.outHeight {
        for x in 0..<g.outWidth {
            let d = dOutput + (y * g.outWidth + x) * cout
            for co in 0..<cout { dBias[co] += d[co] }
            for ky in 0..<g.kernel {
                let p = input + (y + ky) * g.rowStride + x * g.inChannels
                for j in 0..<taps {
                    let v = p[j]
                    let dw = dWeights + (ky * taps + j) * cout
                    for co in 0..<cout { dw[co] += v * d[co] }
                }
            }
        }
    }
}

/// Fast path of `convWeightGradReference`; requires `outChannels` to be a multiple of 16.
func convWeightGrad(_ g: ConvGeometry, input: UnsafePointer<Float>, dOutput: UnsafePointer<Float>,
                    dWeights: UnsafeMutablePointer<Float>, dBias: UnsafeMutablePointer<Float>) {
    switch g.outChannels {
    case 16: convWeightGradTiled(SIMD16<Float>.self, g, input, dOutput, dWeights, dBias, group: 0)
    case 32: convWeightGradTiled(SIMD32<Float>.self, g, input, dOutput, dWeights, dBias, group: 0)
    case 64: convWeightGradTiled(SIMD64<Float>.self, g, input, dOutput, dWeights, dBias, group: 0)
    default:
        if g.outChannels % 16 == 0 {
            for group in 0..<(g.outChannels / 16) {
                convWeightGradTiled(SIMD16<Float>.self, g, input, dOutput, dWeights, dBias, group: group)
            }
        } else {
            convWeightGradReference(g, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
        }
    }
}

/// Four taps at a time in registers, streaming over every output pixel.
@inline(__always)
private func convWeightGradTiled<V: SIMD>(_: V.Type, _ g: ConvGeometry, _ input: UnsafePointer<Float>,
                                          _ dOutput: UnsafePointer<Float>, _ dWeights: UnsafeMutablePointer<Float>,
                                          _ dBias: UnsafeMutablePointer<Float>, group: Int) where V.Scalar == Float {
    let lanes = V.scalarCount
    let cout = g.outChannels, cin = g.inChannels, taps = g.rowTaps
    let c0 = group * lanes
    let pixels = g.outHeight * g.outWidth
    let d0 = dOutput + c0
    var db: V = load(dBias + c0)
    for p in 0..<pixels { db += load(d0 + p * cout) }
    store(db, dBias + c0)
    for ky in 0..<g.kernel {
        var j = 0
        while j < taps {
            let n = min(4, taps - j)
            let dw = dWeights + (ky * taps + j) * cout + c0
            var a0: V = load(dw)
            var a1: V = n > 1 ? load(dw + cout) : V()
            var a2: V = n > 2 ? load(dw + 2 * cout) : V()
            var a3: V = n > 3 ? load(dw + 3 * cout) : V()
            if n == 4 {
                for y in 0..<g.outHeight {
                    let row = input + (y + ky) * g.rowStride + j
                    let drow = d0 + y * g.outWidth * cout
                    for x in 0..<g.outWidth {
                        let d: V = load(drow + x * cout)
                        let q = row + x * cin
                        a0 = madd(a0, V(repeating: q[0]), d)
                        a1 = madd(a1, V(repeating: q[1]), d)
                        a2 = madd(a2, V(repeating: q[2]), d)
                        a3 = madd(a3, V(repeating: q[3]), d)
                    }
                }
            } else {
                for y in 0..<g.outHeight {
                    let row = input + (y + ky) * g.rowStride + j
                    let drow = d0 + y * g.outWidth * cout
                    for x in 0..<g.outWidth {
                        let d: V = load(drow + x * cout)
                        let q = row + x * cin
                        a0 = madd(a0, V(repeating: q[0]), d)
                        if n > 1 { a1 = madd(a1, V(repeating: q[1]), d) }
                        if n > 2 { a2 = madd(a2, V(repeating: q[2]), d) }
                    }
                }
            }
            store(a0, dw)
            if n > 1 { store(a1, dw + cout) }
            if n > 2 { store(a2, dw + 2 * cout) }
            if n > 3 { store(a3, dw + 3 * cout) }
            j += n
        }
    }
}

// MARK: - Padding, pooling

/// Copies an H×W×C image into the interior of a zero-bordered (H+2p)×(W+2p)×C buffer.
/// The border of `padded` must already be zero (it is written once and never touched).
func padImage(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int, pad: Int,
              into padded: UnsafeMutablePointer<Float>) {
    let wp = width + 2 * pad
    let rowCount = width * channels
    for y in 0..<height {
        (padded + ((y + pad) * wp + pad) * channels).update(from: input + y * rowCount, count: rowCount)
    }
}

/// Max pooling, NHWC, windows of `kernel` with `stride`, no padding (PyTorch floor mode).
func maxPoolForward(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                    output: UnsafeMutablePointer<Float>) {
    let ho = (height - kernel) / stride + 1, wo = (width - kernel) / stride + 1
    for y in 0..<ho {
        for x in 0..<wo {
            let o = output + (y * wo + x) * channels
            let first = input + ((y * stride) * width + x * stride) * channels
            o.update(from: first, count: channels)
            for ky in 0..<kernel {
                for kx in 0..<kernel where ky != 0 || kx != 0 {
                    let p = input + ((y * stride + ky) * width + x * stride + kx) * channels
                    for c in 0..<channels { o[c] = max(o[c], p[c]) }
                }
            }
        }
    }
}

/// Routes each pooled gradient to the first input position that held the maximum (as PyTorch does).
/// `dInput` must be zeroed by the caller.
func maxPoolBackward(_ input: UnsafePointer<Float>, output: UnsafePointer<Float>, dOutput: UnsafePointer<Float>,
                     height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                     dInput: UnsafeMutablePointer<Float>) {
    let ho = (height - kernel) / stride + 1, wo = (width - kernel) / stride + 1
    for y in 0..<ho {
        for x in 0..<wo {
            let o = (y * wo + x) * channels
            for c in 0..<channels {
                let m = output[o + c]
                search: for ky in 0..<kernel {
                    for kx in 0..<kernel {
                        let i = ((y * stride + ky) * width + x * stride + kx) * channels + c
                        if input[i] == m { dInput[i] += dOutput[o + c]; break search }
                    }
                }
            }
        }
    }
}

/// Average pooling, NHWC, no padding.
func avgPoolForward(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int, kernel: Int, stride: Int,
                    output: UnsafeMutablePointer<Float>) {
    let ho = (height - kernel) / stride + 1, wo = (width - kernel) / stride + 1
    let scale = 1 / Float(kernel * kernel)
    for y in 0..<ho {
        for x in 0..<wo {
            let o = output + (y * wo + x) * channels
            o.update(repeating: 0, count: channels)
            for ky in 0..<kernel {
                for kx in 0..<kernel {
                    let p = input + ((y * stride + ky) * width + x * stride + kx) * channels
                    for c in 0..<channels { o[c] += p[c] }
                }
            }
            for c in 0..<channels { o[c] *= scale }
        }
    }
}

// MARK: - Linear

/// `out[o] = bias[o] + Σ_i wT[i*outPadded + o] * x[i]` for `o < outCount`, with the weight stored
/// transposed `(in, outPadded)` and `outPadded` a multiple of 16 (zero columns past `outCount`).
func linearForward(_ x: UnsafePointer<Float>, inCount: Int, weightsT: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                   outCount: Int, outPadded: Int, output: UnsafeMutablePointer<Float>, relu: Bool) {
    var group = 0
    while group < outPadded {
        var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
        let w = weightsT + group
        var i = 0
        while i + 4 <= inCount {
            a0 = madd(a0, SIMD16(repeating: x[i]), load(w + i * outPadded))
            a1 = madd(a1, SIMD16(repeating: x[i + 1]), load(w + (i + 1) * outPadded))
            a2 = madd(a2, SIMD16(repeating: x[i + 2]), load(w + (i + 2) * outPadded))
            a3 = madd(a3, SIMD16(repeating: x[i + 3]), load(w + (i + 3) * outPadded))
            i += 4
        }
        while i < inCount {
            a0 = madd(a0, SIMD16(repeating: x[i]), load(w + i * outPadded))
            i += 1
        }
        let s = (a0 + a1) + (a2 + a3)
        for o in group..<min(group + 16, outCount) {
            let v = s[o - group] + bias[o]
            output[o] = relu ? max(v, 0) : v
        }
        group += 16
    }
}

/// Reference of `linearForward` with the PyTorch layout `(out, in)`.
func linearForwardReference(_ x: UnsafePointer<Float>, inCount: Int, weights: UnsafePointer<Float>,
                            bias: UnsafePointer<Float>, outCount: Int, output: UnsafeMutablePointer<Float>) {
    for o in 0..<outCount {
        var s = bias[o]
        for i in 0..<inCount { s += weights[o * inCount + i] * x[i] }
        output[o] = s
    }
}

// MARK: - Softmax

/// Softmax of `logits / temperature` into `probabilities`, numerically stable.
func softmax(_ logits: UnsafePointer<Float>, count: Int, temperature: Float = 1,
             into probabilities: UnsafeMutablePointer<Float>) {
    var m = -Float.infinity
    for i in 0..<count { m = max(m, logits[i] / temperature) }
    var sum: Float = 0
    for i in 0..<count {
        let e = expf(logits[i] / temperature - m)
        probabilities[i] = e
        sum += e
    }
    for i in 0..<count { probabilities[i] /= sum }
}

import Foundation
