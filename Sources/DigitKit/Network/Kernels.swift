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

/// Fast path of `convForwardReference`; requires `outChannels` to be a multiple of 16 (else it
/// falls back to the reference). Output channels are taken 32 at a time (two SIMD16 vectors × 6
/// pixels = 12 accumulators) with a last group of 16 (× 8 pixels) when needed. Only SIMD16 is
/// used: Swift lowers SIMD32/SIMD64 `addingProduct` to scalar code.
func convForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                 bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, relu: Bool) {
    guard g.outChannels % 16 == 0 else {
        convForwardReference(g, input: input, weights: weights, bias: bias, output: output, relu: relu)
        return
    }
    var c0 = 0
    while c0 + 32 <= g.outChannels {
        convForwardPair(g, input, weights, bias, output, relu, c0)
        c0 += 32
    }
    if c0 < g.outChannels { convForwardSingle(g, input, weights, bias, output, relu, c0) }
}

@inline(__always)
private func relu16(_ v: SIMD16<Float>, _ on: Bool) -> SIMD16<Float> {
    on ? v.replacing(with: 0, where: v .< 0) : v
}

/// Channels `c0..<c0+16`, 8 output pixels of a row at a time.
private func convForwardSingle(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                               _ bias: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ relu: Bool, _ c0: Int) {
    typealias V = SIMD16<Float>
    let cout = g.outChannels, cin = g.inChannels, taps = g.rowTaps, k = g.kernel
    let b: V = load(bias + c0)
    let w0 = weights + c0
    for y in 0..<g.outHeight {
        let outRow = output + y * g.outWidth * cout + c0
        var x = 0
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
            let o = outRow + x * cout
            store(relu16(a0, relu), o); store(relu16(a1, relu), o + cout)
            store(relu16(a2, relu), o + 2 * cout); store(relu16(a3, relu), o + 3 * cout)
            store(relu16(a4, relu), o + 4 * cout); store(relu16(a5, relu), o + 5 * cout)
            store(relu16(a6, relu), o + 6 * cout); store(relu16(a7, relu), o + 7 * cout)
            x += 8
        }
        while x < g.outWidth {
            var a0 = b
            for ky in 0..<k {
                let p = input + (y + ky) * g.rowStride + x * cin
                let w = w0 + ky * taps * cout
                for j in 0..<taps { a0 = madd(a0, V(repeating: p[j]), load(w + j * cout)) }
            }
            store(relu16(a0, relu), outRow + x * cout)
            x += 1
        }
    }
}

/// Channels `c0..<c0+32` as two SIMD16 vectors, 6 output pixels of a row at a time.
private func convForwardPair(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                             _ bias: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ relu: Bool, _ c0: Int) {
    typealias V = SIMD16<Float>
    let cout = g.outChannels, cin = g.inChannels, taps = g.rowTaps, k = g.kernel
    let b0: V = load(bias + c0), b1: V = load(bias + c0 + 16)
    let w0 = weights + c0
    for y in 0..<g.outHeight {
        let outRow = output + y * g.outWidth * cout + c0
        var x = 0
        while x + 6 <= g.outWidth {
            var a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0
            var e0 = b1, e1 = b1, e2 = b1, e3 = b1, e4 = b1, e5 = b1
            for ky in 0..<k {
                let p = input + (y + ky) * g.rowStride + x * cin
                let w = w0 + ky * taps * cout
                for j in 0..<taps {
                    let wa: V = load(w + j * cout), wb: V = load(w + j * cout + 16)
                    var v = V(repeating: p[j])
                    a0 = madd(a0, v, wa); e0 = madd(e0, v, wb)
                    v = V(repeating: p[j + cin])
                    a1 = madd(a1, v, wa); e1 = madd(e1, v, wb)
                    v = V(repeating: p[j + 2 * cin])
                    a2 = madd(a2, v, wa); e2 = madd(e2, v, wb)
                    v = V(repeating: p[j + 3 * cin])
                    a3 = madd(a3, v, wa); e3 = madd(e3, v, wb)
                    v = V(repeating: p[j + 4 * cin])
                    a4 = madd(a4, v, wa); e4 = madd(e4, v, wb)
                    v = V(repeating: p[j + 5 * cin])
                    a5 = madd(a5, v, wa); e5 = madd(e5, v, wb)
                }
            }
            let o = outRow + x * cout
            store(relu16(a0, relu), o); store(relu16(e0, relu), o + 16)
            store(relu16(a1, relu), o + cout); store(relu16(e1, relu), o + cout + 16)
            store(relu16(a2, relu), o + 2 * cout); store(relu16(e2, relu), o + 2 * cout + 16)
            store(relu16(a3, relu), o + 3 * cout); store(relu16(e3, relu), o + 3 * cout + 16)
            store(relu16(a4, relu), o + 4 * cout); store(relu16(e4, relu), o + 4 * cout + 16)
            store(relu16(a5, relu), o + 5 * cout); store(relu16(e5, relu), o + 5 * cout + 16)
            x += 6
        }
        while x < g.outWidth {
            var a0 = b0, e0 = b1
            for ky in 0..<k {
                let p = input + (y + ky) * g.rowStride + x * cin
                let w = w0 + ky * taps * cout
                for j in 0..<taps {
                    let v = V(repeating: p[j])
                    a0 = madd(a0, v, load(w + j * cout))
                    e0 = madd(e0, v, load(w + j * cout + 16))
                }
            }
            store(relu16(a0, relu), outRow + x * cout)
            store(relu16(e0, relu), outRow + x * cout + 16)
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
/// For each kernel row, a block of taps is held in registers (8 taps × 16 channels, or 4 taps ×
/// 32 channels) while streaming over every output pixel.
func convWeightGrad(_ g: ConvGeometry, input: UnsafePointer<Float>, dOutput: UnsafePointer<Float>,
                    dWeights: UnsafeMutablePointer<Float>, dBias: UnsafeMutablePointer<Float>) {
    guard g.outChannels % 16 == 0 else {
        convWeightGradReference(g, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
        return
    }
    typealias V = SIMD16<Float>
    let cout = g.outChannels, cin = g.inChannels, taps = g.rowTaps
    let pixels = g.outHeight * g.outWidth
    for c0 in stride(from: 0, to: cout, by: 16) {
        var db: V = load(dBias + c0)
        for p in 0..<pixels { db += load(dOutput + p * cout + c0) }
        store(db, dBias + c0)
    }
    var c0 = 0
    while c0 < cout {
        let pair = c0 + 32 <= cout
        let d0 = dOutput + c0
        for ky in 0..<g.kernel {
            var j = 0
            while j < taps {
                let dw = dWeights + (ky * taps + j) * cout + c0
                if pair && j + 4 <= taps {
                    var a0: V = load(dw), a1: V = load(dw + cout), a2: V = load(dw + 2 * cout), a3: V = load(dw + 3 * cout)
                    var e0: V = load(dw + 16), e1: V = load(dw + cout + 16)
                    var e2: V = load(dw + 2 * cout + 16), e3: V = load(dw + 3 * cout + 16)
                    for y in 0..<g.outHeight {
                        let row = input + (y + ky) * g.rowStride + j
                        let drow = d0 + y * g.outWidth * cout
                        for x in 0..<g.outWidth {
                            let da: V = load(drow + x * cout), de: V = load(drow + x * cout + 16)
                            let q = row + x * cin
                            var v = V(repeating: q[0])
                            a0 = madd(a0, v, da); e0 = madd(e0, v, de)
                            v = V(repeating: q[1])
                            a1 = madd(a1, v, da); e1 = madd(e1, v, de)
                            v = V(repeating: q[2])
                            a2 = madd(a2, v, da); e2 = madd(e2, v, de)
                            v = V(repeating: q[3])
                            a3 = madd(a3, v, da); e3 = madd(e3, v, de)
                        }
                    }
                    store(a0, dw); store(a1, dw + cout); store(a2, dw + 2 * cout); store(a3, dw + 3 * cout)
                    store(e0, dw + 16); store(e1, dw + cout + 16); store(e2, dw + 2 * cout + 16); store(e3, dw + 3 * cout + 16)
                    j += 4
                } else if !pair && j + 8 <= taps {
                    var a0: V = load(dw), a1: V = load(dw + cout), a2: V = load(dw + 2 * cout), a3: V = load(dw + 3 * cout)
                    var a4: V = load(dw + 4 * cout), a5: V = load(dw + 5 * cout)
                    var a6: V = load(dw + 6 * cout), a7: V = load(dw + 7 * cout)
                    for y in 0..<g.outHeight {
                        let row = input + (y + ky) * g.rowStride + j
                        let drow = d0 + y * g.outWidth * cout
                        for x in 0..<g.outWidth {
                            let d: V = load(drow + x * cout)
                            let q = row + x * cin
                            a0 = madd(a0, V(repeating: q[0]), d); a1 = madd(a1, V(repeating: q[1]), d)
                            a2 = madd(a2, V(repeating: q[2]), d); a3 = madd(a3, V(repeating: q[3]), d)
                            a4 = madd(a4, V(repeating: q[4]), d); a5 = madd(a5, V(repeating: q[5]), d)
                            a6 = madd(a6, V(repeating: q[6]), d); a7 = madd(a7, V(repeating: q[7]), d)
                        }
                    }
                    store(a0, dw); store(a1, dw + cout); store(a2, dw + 2 * cout); store(a3, dw + 3 * cout)
                    store(a4, dw + 4 * cout); store(a5, dw + 5 * cout); store(a6, dw + 6 * cout); store(a7, dw + 7 * cout)
                    j += 8
                } else {
                    // One tap at a time, each 16-channel group of this block separately.
                    for c in stride(from: 0, to: pair ? 32 : 16, by: 16) {
                        var a: V = load(dw + c)
                        for y in 0..<g.outHeight {
                            let row = input + (y + ky) * g.rowStride + j
                            let drow = d0 + c + y * g.outWidth * cout
                            for x in 0..<g.outWidth { a = madd(a, V(repeating: row[x * cin]), load(drow + x * cout)) }
                        }
                        store(a, dw + c)
                    }
                    j += 1
                }
            }
        }
        c0 += pair ? 32 : 16
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
