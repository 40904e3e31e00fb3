// Compute kernels of the network, in NHWC layout (channels innermost), one image at a time.
//
// Every optimized kernel has a plain reference kernel beside it (`…Reference`) that states the
// same contract in the simplest loops; tests compare the two. The fast kernels vectorize over
// output channels with SIMD16<Float> accumulators and keep a tile of output pixels × channels in
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
package struct ConvGeometry {
    package var paddedWidth: Int   // Wp
    package var inChannels: Int    // Cin
    package var kernel: Int        // k (square)
    package var outChannels: Int   // Cout
    package var outHeight: Int     // Ho = Hp - k + 1
    package var outWidth: Int      // Wo = Wp - k + 1
    package var rowStride: Int { paddedWidth * inChannels }
    /// Entries of one kernel row: k * Cin (contiguous in the padded input for a fixed output pixel).
    package var rowTaps: Int { kernel * inChannels }

    package init(paddedWidth: Int, inChannels: Int, kernel: Int, outChannels: Int, outHeight: Int, outWidth: Int) {
        self.paddedWidth = paddedWidth
        self.inChannels = inChannels
        self.kernel = kernel
        self.outChannels = outChannels
        self.outHeight = outHeight
        self.outWidth = outWidth
    }
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

/// Fast path of `convForwardReference` (same contract, output rows packed: `Wo * Cout` floats apart).
/// Requires `outChannels` to be a multiple of 16, else it falls back to the reference. Each
/// output value is summed in the reference's order (bias, then ky, then the taps of a row): the
/// portable build (separate multiply and add) gives the reference's bits exactly; with fused
/// multiply-add each step rounds once instead of twice (relative differences about 1e-6).
func convForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                 bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, relu: Bool) {
    convForward(g, input: input, weights: weights, bias: bias, output: output,
                outputRowStride: g.outWidth * g.outChannels, relu: relu)
}

/// `convForward` writing output row `y` at `output + y * outputRowStride` (pixels of a row stay
/// `Cout` floats apart), so a layer can write straight into the interior of the next layer's
/// zero-padded input. `outputRowStride` must be at least `Wo * Cout`.
///
/// Register tiles, chosen from the geometry (AVX-512 has 32 vector registers; SIMD16 only, since
/// Swift lowers SIMD32/SIMD64 arithmetic to scalar code):
/// - 1 input channel, 5×5 kernel: `convForwardCin1K5` (each input value loaded once per kernel row);
/// - Cout a multiple of 64: 4 vectors × 5 pixels (20 accumulators);
/// - Cout a multiple of 32: 2 vectors × 14 pixels (28 accumulators) when 14 divides the row,
///   else 2 vectors × 7 pixels (14 accumulators);
/// - otherwise 1 vector × 8 pixels.
/// A row that is not a multiple of the tile width ends with an overlapping tile (pixels computed
/// twice, same value); rows narrower than a tile use one pixel at a time.
package func convForward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
                         bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputRowStride: Int, relu: Bool) {
    guard g.outChannels % 16 == 0 else {
        if outputRowStride == g.outWidth * g.outChannels {
            convForwardReference(g, input: input, weights: weights, bias: bias, output: output, relu: relu)
        } else {
            for y in 0..<g.outHeight {
                var row = g
                row.outHeight = 1
                convForwardReference(row, input: input + y * g.rowStride, weights: weights, bias: bias,
                                     output: output + y * outputRowStride, relu: relu)
            }
        }
        return
    }
    if g.inChannels == 1 && g.kernel == 5 && g.outWidth >= 14 {
        convForwardCin1K5(g, input, weights, bias, output, outputRowStride, relu)
        return
    }
    let cout = g.outChannels
    var c0 = 0
    if cout % 64 == 0 {
        while c0 < cout {
            if g.outWidth >= 5 {
                eachTile(g, width: 5) { y, x in
                    convTile4x5(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
                }
            } else {
                eachTile(g, width: 1) { y, x in
                    convTile4x1(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
                }
            }
            c0 += 64
        }
        return
    }
    while c0 + 32 <= cout {
        if g.outWidth >= 14 && g.outWidth % 14 == 0 {
            eachTile(g, width: 14) { y, x in
                convTile2x14(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
            }
        } else if g.outWidth >= 7 {
            eachTile(g, width: 7) { y, x in
                convTile2x7(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
            }
        } else {
            eachTile(g, width: 1) { y, x in
                convTile2x1(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
            }
        }
        c0 += 32
    }
    if c0 < cout {
        if g.outWidth >= 8 {
            eachTile(g, width: 8) { y, x in
                convTile1x8(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
            }
        } else {
            eachTile(g, width: 1) { y, x in
                convTile1x1(g, input, weights, bias, output + y * outputRowStride + x * cout, relu, y, x, c0)
            }
        }
    }
}

/// Calls `body(y, x)` for tiles of `width` pixels covering every output row (`outWidth >= width`);
/// the last tile of a row overlaps the one before it when `width` does not divide the row.
@inline(__always)
private func eachTile(_ g: ConvGeometry, width: Int, _ body: (_ y: Int, _ x: Int) -> Void) {
    for y in 0..<g.outHeight {
        var x = 0
        while x < g.outWidth {
            body(y, min(x, g.outWidth - width))
            x += width
        }
    }
}

private typealias V16 = SIMD16<Float>

@inline(__always)
private func relu16(_ v: V16, _ on: Bool) -> V16 {
    on ? v.replacing(with: 0, where: v .< 0) : v
}

/// Lane-wise `Swift.max`; `pointwiseMax` is not lowered to one instruction.
@inline(__always)
private func vmax(_ a: V16, _ b: V16) -> V16 { a.replacing(with: b, where: a .< b) }

@inline(__always)
private func splat(_ p: UnsafePointer<Float>) -> V16 { V16(repeating: p.pointee) }

// The tiles below compute output pixels (y, x..<x+P), channels c0..<c0+16V, into `o` (the
// address of pixel (y, x), channel 0). Accumulators start at the bias and add ky by ky, tap by
// tap: the reference order. Each is compiled for 16 and 32 input channels as constants, so the
// input addresses of the P pixels become fixed offsets instead of index arithmetic.

private func convTile4x5(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile4x5Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile4x5Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile4x5Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile4x5Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    let b0: V16 = load(bias + c0), b1: V16 = load(bias + c0 + 16), b2: V16 = load(bias + c0 + 32), b3: V16 = load(bias + c0 + 48)
    var a00 = b0, a01 = b1, a02 = b2, a03 = b3
    var a10 = b0, a11 = b1, a12 = b2, a13 = b3
    var a20 = b0, a21 = b1, a22 = b2, a23 = b3
    var a30 = b0, a31 = b1, a32 = b2, a33 = b3
    var a40 = b0, a41 = b1, a42 = b2, a43 = b3
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            let w0: V16 = load(w), w1: V16 = load(w + 16), w2: V16 = load(w + 32), w3: V16 = load(w + 48)
            var v = splat(p + j)
            a00 = madd(a00, v, w0); a01 = madd(a01, v, w1); a02 = madd(a02, v, w2); a03 = madd(a03, v, w3)
            v = splat(p + j + cin)
            a10 = madd(a10, v, w0); a11 = madd(a11, v, w1); a12 = madd(a12, v, w2); a13 = madd(a13, v, w3)
            v = splat(p + j + 2 * cin)
            a20 = madd(a20, v, w0); a21 = madd(a21, v, w1); a22 = madd(a22, v, w2); a23 = madd(a23, v, w3)
            v = splat(p + j + 3 * cin)
            a30 = madd(a30, v, w0); a31 = madd(a31, v, w1); a32 = madd(a32, v, w2); a33 = madd(a33, v, w3)
            v = splat(p + j + 4 * cin)
            a40 = madd(a40, v, w0); a41 = madd(a41, v, w1); a42 = madd(a42, v, w2); a43 = madd(a43, v, w3)
            w += cout
        }
    }
    let q = o + c0
    store(relu16(a00, relu), q); store(relu16(a01, relu), q + 16); store(relu16(a02, relu), q + 32); store(relu16(a03, relu), q + 48)
    var r = q + cout
    store(relu16(a10, relu), r); store(relu16(a11, relu), r + 16); store(relu16(a12, relu), r + 32); store(relu16(a13, relu), r + 48)
    r += cout
    store(relu16(a20, relu), r); store(relu16(a21, relu), r + 16); store(relu16(a22, relu), r + 32); store(relu16(a23, relu), r + 48)
    r += cout
    store(relu16(a30, relu), r); store(relu16(a31, relu), r + 16); store(relu16(a32, relu), r + 32); store(relu16(a33, relu), r + 48)
    r += cout
    store(relu16(a40, relu), r); store(relu16(a41, relu), r + 16); store(relu16(a42, relu), r + 32); store(relu16(a43, relu), r + 48)
}

private func convTile4x1(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile4x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile4x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile4x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile4x1Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    var a0: V16 = load(bias + c0), a1: V16 = load(bias + c0 + 16), a2: V16 = load(bias + c0 + 32), a3: V16 = load(bias + c0 + 48)
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            let v = splat(p + j)
            a0 = madd(a0, v, load(w)); a1 = madd(a1, v, load(w + 16)); a2 = madd(a2, v, load(w + 32)); a3 = madd(a3, v, load(w + 48))
            w += cout
        }
    }
    let q = o + c0
    store(relu16(a0, relu), q); store(relu16(a1, relu), q + 16); store(relu16(a2, relu), q + 32); store(relu16(a3, relu), q + 48)
}

private func convTile2x7(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile2x7Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile2x7Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile2x7Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile2x7Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    let b0: V16 = load(bias + c0), b1: V16 = load(bias + c0 + 16)
    var a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0, a6 = b0
    var e0 = b1, e1 = b1, e2 = b1, e3 = b1, e4 = b1, e5 = b1, e6 = b1
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            let wa: V16 = load(w), wb: V16 = load(w + 16)
            var v = splat(p + j)
            a0 = madd(a0, v, wa); e0 = madd(e0, v, wb)
            v = splat(p + j + cin)
            a1 = madd(a1, v, wa); e1 = madd(e1, v, wb)
            v = splat(p + j + 2 * cin)
            a2 = madd(a2, v, wa); e2 = madd(e2, v, wb)
            v = splat(p + j + 3 * cin)
            a3 = madd(a3, v, wa); e3 = madd(e3, v, wb)
            v = splat(p + j + 4 * cin)
            a4 = madd(a4, v, wa); e4 = madd(e4, v, wb)
            v = splat(p + j + 5 * cin)
            a5 = madd(a5, v, wa); e5 = madd(e5, v, wb)
            v = splat(p + j + 6 * cin)
            a6 = madd(a6, v, wa); e6 = madd(e6, v, wb)
            w += cout
        }
    }
    var q = o + c0
    store(relu16(a0, relu), q); store(relu16(e0, relu), q + 16); q += cout
    store(relu16(a1, relu), q); store(relu16(e1, relu), q + 16); q += cout
    store(relu16(a2, relu), q); store(relu16(e2, relu), q + 16); q += cout
    store(relu16(a3, relu), q); store(relu16(e3, relu), q + 16); q += cout
    store(relu16(a4, relu), q); store(relu16(e4, relu), q + 16); q += cout
    store(relu16(a5, relu), q); store(relu16(e5, relu), q + 16); q += cout
    store(relu16(a6, relu), q); store(relu16(e6, relu), q + 16)
}

/// 2 vectors × 14 pixels (28 accumulators): a whole 14-pixel row of a 32-channel output, each
/// weight vector feeding 14 multiply-adds.
private func convTile2x14(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                          _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                          _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile2x14Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile2x14Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile2x14Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile2x14Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                              _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                              _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    let b0: V16 = load(bias + c0), b1: V16 = load(bias + c0 + 16)
    var a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0, a6 = b0
    var a7 = b0, a8 = b0, a9 = b0, a10 = b0, a11 = b0, a12 = b0, a13 = b0
    var e0 = b1, e1 = b1, e2 = b1, e3 = b1, e4 = b1, e5 = b1, e6 = b1
    var e7 = b1, e8 = b1, e9 = b1, e10 = b1, e11 = b1, e12 = b1, e13 = b1
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            let wa: V16 = load(w), wb: V16 = load(w + 16)
            var v = splat(p + j)
            a0 = madd(a0, v, wa); e0 = madd(e0, v, wb)
            v = splat(p + j + 1 * cin)
            a1 = madd(a1, v, wa); e1 = madd(e1, v, wb)
            v = splat(p + j + 2 * cin)
            a2 = madd(a2, v, wa); e2 = madd(e2, v, wb)
            v = splat(p + j + 3 * cin)
            a3 = madd(a3, v, wa); e3 = madd(e3, v, wb)
            v = splat(p + j + 4 * cin)
            a4 = madd(a4, v, wa); e4 = madd(e4, v, wb)
            v = splat(p + j + 5 * cin)
            a5 = madd(a5, v, wa); e5 = madd(e5, v, wb)
            v = splat(p + j + 6 * cin)
            a6 = madd(a6, v, wa); e6 = madd(e6, v, wb)
            v = splat(p + j + 7 * cin)
            a7 = madd(a7, v, wa); e7 = madd(e7, v, wb)
            v = splat(p + j + 8 * cin)
            a8 = madd(a8, v, wa); e8 = madd(e8, v, wb)
            v = splat(p + j + 9 * cin)
            a9 = madd(a9, v, wa); e9 = madd(e9, v, wb)
            v = splat(p + j + 10 * cin)
            a10 = madd(a10, v, wa); e10 = madd(e10, v, wb)
            v = splat(p + j + 11 * cin)
            a11 = madd(a11, v, wa); e11 = madd(e11, v, wb)
            v = splat(p + j + 12 * cin)
            a12 = madd(a12, v, wa); e12 = madd(e12, v, wb)
            v = splat(p + j + 13 * cin)
            a13 = madd(a13, v, wa); e13 = madd(e13, v, wb)
            w += cout
        }
    }
    var q = o + c0
    store(relu16(a0, relu), q); store(relu16(e0, relu), q + 16); q += cout
    store(relu16(a1, relu), q); store(relu16(e1, relu), q + 16); q += cout
    store(relu16(a2, relu), q); store(relu16(e2, relu), q + 16); q += cout
    store(relu16(a3, relu), q); store(relu16(e3, relu), q + 16); q += cout
    store(relu16(a4, relu), q); store(relu16(e4, relu), q + 16); q += cout
    store(relu16(a5, relu), q); store(relu16(e5, relu), q + 16); q += cout
    store(relu16(a6, relu), q); store(relu16(e6, relu), q + 16); q += cout
    store(relu16(a7, relu), q); store(relu16(e7, relu), q + 16); q += cout
    store(relu16(a8, relu), q); store(relu16(e8, relu), q + 16); q += cout
    store(relu16(a9, relu), q); store(relu16(e9, relu), q + 16); q += cout
    store(relu16(a10, relu), q); store(relu16(e10, relu), q + 16); q += cout
    store(relu16(a11, relu), q); store(relu16(e11, relu), q + 16); q += cout
    store(relu16(a12, relu), q); store(relu16(e12, relu), q + 16); q += cout
    store(relu16(a13, relu), q); store(relu16(e13, relu), q + 16)
}

private func convTile2x1(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile2x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile2x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile2x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile2x1Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    var a0: V16 = load(bias + c0), e0: V16 = load(bias + c0 + 16)
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            let v = splat(p + j)
            a0 = madd(a0, v, load(w)); e0 = madd(e0, v, load(w + 16))
            w += cout
        }
    }
    store(relu16(a0, relu), o + c0); store(relu16(e0, relu), o + c0 + 16)
}

private func convTile1x8(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile1x8Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile1x8Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile1x8Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile1x8Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    let b: V16 = load(bias + c0)
    var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            let wv: V16 = load(w)
            a0 = madd(a0, splat(p + j), wv)
            a1 = madd(a1, splat(p + j + cin), wv)
            a2 = madd(a2, splat(p + j + 2 * cin), wv)
            a3 = madd(a3, splat(p + j + 3 * cin), wv)
            a4 = madd(a4, splat(p + j + 4 * cin), wv)
            a5 = madd(a5, splat(p + j + 5 * cin), wv)
            a6 = madd(a6, splat(p + j + 6 * cin), wv)
            a7 = madd(a7, splat(p + j + 7 * cin), wv)
            w += cout
        }
    }
    var q = o + c0
    store(relu16(a0, relu), q); q += cout
    store(relu16(a1, relu), q); q += cout
    store(relu16(a2, relu), q); q += cout
    store(relu16(a3, relu), q); q += cout
    store(relu16(a4, relu), q); q += cout
    store(relu16(a5, relu), q); q += cout
    store(relu16(a6, relu), q); q += cout
    store(relu16(a7, relu), q)
}

private func convTile1x1(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int) {
    switch g.inChannels {
    case 16: convTile1x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: 16)
    case 32: convTile1x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: 32)
    default: convTile1x1Body(g, input, weights, bias, o, relu, y, x, c0, cin: g.inChannels)
    }
}

@inline(__always)
private func convTile1x1Body(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                         _ bias: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ relu: Bool,
                         _ y: Int, _ x: Int, _ c0: Int, cin: Int) {
    let cout = g.outChannels, taps = g.kernel * cin
    var a0: V16 = load(bias + c0)
    for ky in 0..<g.kernel {
        let p = input + (y + ky) * g.rowStride + x * cin
        var w = weights + ky * taps * cout + c0
        for j in 0..<taps {
            a0 = madd(a0, splat(p + j), load(w))
            w += cout
        }
    }
    store(relu16(a0, relu), o + c0)
}

/// One input channel, 5×5 kernel (the first layer: K = 25 multiply-adds per output value, too few
/// for the general tiles to hide their loads). Tiles of 14 pixels × 16 channels; for each kernel
/// row the 18 input values under the tile are each loaded once and applied to the up to 5
/// accumulators they touch, with the row's 5 weight vectors held in registers. The sum order per
/// output (bias, ky, kx) is the reference order. Requires `outWidth >= 14`.
private func convForwardCin1K5(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
                               _ bias: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                               _ outputRowStride: Int, _ relu: Bool) {
    let cout = g.outChannels
    for c0 in stride(from: 0, to: cout, by: 16) {
        let b: V16 = load(bias + c0)
        eachTile(g, width: 14) { y, x in
            var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b
            var a7 = b, a8 = b, a9 = b, a10 = b, a11 = b, a12 = b, a13 = b
            for ky in 0..<5 {
                let p = input + (y + ky) * g.rowStride + x
                let w = weights + ky * 5 * cout + c0
                let w0: V16 = load(w), w1: V16 = load(w + cout), w2: V16 = load(w + 2 * cout)
                let w3: V16 = load(w + 3 * cout), w4: V16 = load(w + 4 * cout)
                // Input i feeds pixel i - kx with weight kx.
                var v = splat(p)
                a0 = madd(a0, v, w0)
                v = splat(p + 1)
                a0 = madd(a0, v, w1); a1 = madd(a1, v, w0)
                v = splat(p + 2)
                a0 = madd(a0, v, w2); a1 = madd(a1, v, w1); a2 = madd(a2, v, w0)
                v = splat(p + 3)
                a0 = madd(a0, v, w3); a1 = madd(a1, v, w2); a2 = madd(a2, v, w1); a3 = madd(a3, v, w0)
                v = splat(p + 4)
                a0 = madd(a0, v, w4); a1 = madd(a1, v, w3); a2 = madd(a2, v, w2); a3 = madd(a3, v, w1); a4 = madd(a4, v, w0)
                v = splat(p + 5)
                a1 = madd(a1, v, w4); a2 = madd(a2, v, w3); a3 = madd(a3, v, w2); a4 = madd(a4, v, w1); a5 = madd(a5, v, w0)
                v = splat(p + 6)
                a2 = madd(a2, v, w4); a3 = madd(a3, v, w3); a4 = madd(a4, v, w2); a5 = madd(a5, v, w1); a6 = madd(a6, v, w0)
                v = splat(p + 7)
                a3 = madd(a3, v, w4); a4 = madd(a4, v, w3); a5 = madd(a5, v, w2); a6 = madd(a6, v, w1); a7 = madd(a7, v, w0)
                v = splat(p + 8)
                a4 = madd(a4, v, w4); a5 = madd(a5, v, w3); a6 = madd(a6, v, w2); a7 = madd(a7, v, w1); a8 = madd(a8, v, w0)
                v = splat(p + 9)
                a5 = madd(a5, v, w4); a6 = madd(a6, v, w3); a7 = madd(a7, v, w2); a8 = madd(a8, v, w1); a9 = madd(a9, v, w0)
                v = splat(p + 10)
                a6 = madd(a6, v, w4); a7 = madd(a7, v, w3); a8 = madd(a8, v, w2); a9 = madd(a9, v, w1); a10 = madd(a10, v, w0)
                v = splat(p + 11)
                a7 = madd(a7, v, w4); a8 = madd(a8, v, w3); a9 = madd(a9, v, w2); a10 = madd(a10, v, w1); a11 = madd(a11, v, w0)
                v = splat(p + 12)
                a8 = madd(a8, v, w4); a9 = madd(a9, v, w3); a10 = madd(a10, v, w2); a11 = madd(a11, v, w1); a12 = madd(a12, v, w0)
                v = splat(p + 13)
                a9 = madd(a9, v, w4); a10 = madd(a10, v, w3); a11 = madd(a11, v, w2); a12 = madd(a12, v, w1); a13 = madd(a13, v, w0)
                v = splat(p + 14)
                a10 = madd(a10, v, w4); a11 = madd(a11, v, w3); a12 = madd(a12, v, w2); a13 = madd(a13, v, w1)
                v = splat(p + 15)
                a11 = madd(a11, v, w4); a12 = madd(a12, v, w3); a13 = madd(a13, v, w2)
                v = splat(p + 16)
                a12 = madd(a12, v, w4); a13 = madd(a13, v, w3)
                v = splat(p + 17)
                a13 = madd(a13, v, w4)
            }
            var q = output + y * outputRowStride + x * cout + c0
            store(relu16(a0, relu), q); q += cout
            store(relu16(a1, relu), q); q += cout
            store(relu16(a2, relu), q); q += cout
            store(relu16(a3, relu), q); q += cout
            store(relu16(a4, relu), q); q += cout
            store(relu16(a5, relu), q); q += cout
            store(relu16(a6, relu), q); q += cout
            store(relu16(a7, relu), q); q += cout
            store(relu16(a8, relu), q); q += cout
            store(relu16(a9, relu), q); q += cout
            store(relu16(a10, relu), q); q += cout
            store(relu16(a11, relu), q); q += cout
            store(relu16(a12, relu), q); q += cout
            store(relu16(a13, relu), q)
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

/// Fast path of `convWeightGradReference`; requires `outChannels` to be a multiple of 16 (else
/// it falls back to the reference). A block of weight-gradient entries (taps × channels) is held
/// in registers while streaming over every output pixel, so each entry still adds the pixels in
/// the reference's order (y, then x) and the result equals the reference's bits in the portable
/// build. Blocks: 25 taps × 16 channels for one input channel and a 5×5 kernel; else, per kernel
/// row, 4 taps × 64, 8 taps × 32 or 8 taps × 16 channels, then single taps for the rest.
package func convWeightGrad(_ g: ConvGeometry, input: UnsafePointer<Float>, dOutput: UnsafePointer<Float>,
                            dWeights: UnsafeMutablePointer<Float>, dBias: UnsafeMutablePointer<Float>) {
    guard g.outChannels % 16 == 0 else {
        convWeightGradReference(g, input: input, dOutput: dOutput, dWeights: dWeights, dBias: dBias)
        return
    }
    let cout = g.outChannels, taps = g.rowTaps
    let pixels = g.outHeight * g.outWidth
    for c0 in Swift.stride(from: 0, to: cout, by: 16) {
        var db: V16 = load(dBias + c0)
        for p in 0..<pixels { db += load(dOutput + p * cout + c0) }
        store(db, dBias + c0)
    }
    if g.inChannels == 1 && g.kernel == 5 {
        for c0 in Swift.stride(from: 0, to: cout, by: 16) { weightGradCin1K5(g, input, dOutput, dWeights, c0) }
        return
    }
    var c0 = 0
    while c0 < cout {
        let width = cout - c0 >= 64 ? 64 : cout - c0 >= 32 ? 32 : 16
        for ky in 0..<g.kernel {
            var j = 0
            while j < taps {
                if width == 64 && j + 4 <= taps {
                    weightGrad4x64(g, input, dOutput, dWeights, ky: ky, j: j, c0: c0)
                    j += 4
                } else if width == 32 && j + 8 <= taps {
                    weightGrad8x32(g, input, dOutput, dWeights, ky: ky, j: j, c0: c0)
                    j += 8
                } else if width == 16 && j + 8 <= taps {
                    weightGrad8x16(g, input, dOutput, dWeights, ky: ky, j: j, c0: c0)
                    j += 8
                } else {
                    for c in Swift.stride(from: 0, to: width, by: 16) { weightGrad1x16(g, input, dOutput, dWeights, ky: ky, j: j, c0: c0 + c) }
                    j += 1
                }
            }
        }
        c0 += width
    }
}

/// Taps `j..<j+4` of kernel row `ky`, channels `c0..<c0+64` (16 accumulators).
private func weightGrad4x64(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ dOutput: UnsafePointer<Float>,
                            _ dWeights: UnsafeMutablePointer<Float>, ky: Int, j: Int, c0: Int) {
    let cout = g.outChannels, cin = g.inChannels
    let dw = dWeights + (ky * g.rowTaps + j) * cout + c0
    var a00: V16 = load(dw), a01: V16 = load(dw + 16), a02: V16 = load(dw + 32), a03: V16 = load(dw + 48)
    var a10: V16 = load(dw + cout), a11: V16 = load(dw + cout + 16), a12: V16 = load(dw + cout + 32), a13: V16 = load(dw + cout + 48)
    var a20: V16 = load(dw + 2 * cout), a21: V16 = load(dw + 2 * cout + 16)
    var a22: V16 = load(dw + 2 * cout + 32), a23: V16 = load(dw + 2 * cout + 48)
    var a30: V16 = load(dw + 3 * cout), a31: V16 = load(dw + 3 * cout + 16)
    var a32: V16 = load(dw + 3 * cout + 32), a33: V16 = load(dw + 3 * cout + 48)
    for y in 0..<g.outHeight {
        let row = input + (y + ky) * g.rowStride + j
        var d = dOutput + y * g.outWidth * cout + c0
        for x in 0..<g.outWidth {
            let d0: V16 = load(d), d1: V16 = load(d + 16), d2: V16 = load(d + 32), d3: V16 = load(d + 48)
            let q = row + x * cin
            var v = splat(q)
            a00 = madd(a00, v, d0); a01 = madd(a01, v, d1); a02 = madd(a02, v, d2); a03 = madd(a03, v, d3)
            v = splat(q + 1)
            a10 = madd(a10, v, d0); a11 = madd(a11, v, d1); a12 = madd(a12, v, d2); a13 = madd(a13, v, d3)
            v = splat(q + 2)
            a20 = madd(a20, v, d0); a21 = madd(a21, v, d1); a22 = madd(a22, v, d2); a23 = madd(a23, v, d3)
            v = splat(q + 3)
            a30 = madd(a30, v, d0); a31 = madd(a31, v, d1); a32 = madd(a32, v, d2); a33 = madd(a33, v, d3)
            d += cout
        }
    }
    store(a00, dw); store(a01, dw + 16); store(a02, dw + 32); store(a03, dw + 48)
    store(a10, dw + cout); store(a11, dw + cout + 16); store(a12, dw + cout + 32); store(a13, dw + cout + 48)
    store(a20, dw + 2 * cout); store(a21, dw + 2 * cout + 16); store(a22, dw + 2 * cout + 32); store(a23, dw + 2 * cout + 48)
    store(a30, dw + 3 * cout); store(a31, dw + 3 * cout + 16); store(a32, dw + 3 * cout + 32); store(a33, dw + 3 * cout + 48)
}

/// Taps `j..<j+8` of kernel row `ky`, channels `c0..<c0+32` (16 accumulators).
private func weightGrad8x32(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ dOutput: UnsafePointer<Float>,
                            _ dWeights: UnsafeMutablePointer<Float>, ky: Int, j: Int, c0: Int) {
    let cout = g.outChannels, cin = g.inChannels
    let dw = dWeights + (ky * g.rowTaps + j) * cout + c0
    var a0: V16 = load(dw), e0: V16 = load(dw + 16), a1: V16 = load(dw + cout), e1: V16 = load(dw + cout + 16)
    var a2: V16 = load(dw + 2 * cout), e2: V16 = load(dw + 2 * cout + 16), a3: V16 = load(dw + 3 * cout), e3: V16 = load(dw + 3 * cout + 16)
    var a4: V16 = load(dw + 4 * cout), e4: V16 = load(dw + 4 * cout + 16), a5: V16 = load(dw + 5 * cout), e5: V16 = load(dw + 5 * cout + 16)
    var a6: V16 = load(dw + 6 * cout), e6: V16 = load(dw + 6 * cout + 16), a7: V16 = load(dw + 7 * cout), e7: V16 = load(dw + 7 * cout + 16)
    for y in 0..<g.outHeight {
        let row = input + (y + ky) * g.rowStride + j
        var d = dOutput + y * g.outWidth * cout + c0
        for x in 0..<g.outWidth {
            let da: V16 = load(d), de: V16 = load(d + 16)
            let q = row + x * cin
            var v = splat(q)
            a0 = madd(a0, v, da); e0 = madd(e0, v, de)
            v = splat(q + 1)
            a1 = madd(a1, v, da); e1 = madd(e1, v, de)
            v = splat(q + 2)
            a2 = madd(a2, v, da); e2 = madd(e2, v, de)
            v = splat(q + 3)
            a3 = madd(a3, v, da); e3 = madd(e3, v, de)
            v = splat(q + 4)
            a4 = madd(a4, v, da); e4 = madd(e4, v, de)
            v = splat(q + 5)
            a5 = madd(a5, v, da); e5 = madd(e5, v, de)
            v = splat(q + 6)
            a6 = madd(a6, v, da); e6 = madd(e6, v, de)
            v = splat(q + 7)
            a7 = madd(a7, v, da); e7 = madd(e7, v, de)
            d += cout
        }
    }
    store(a0, dw); store(e0, dw + 16); store(a1, dw + cout); store(e1, dw + cout + 16)
    store(a2, dw + 2 * cout); store(e2, dw + 2 * cout + 16); store(a3, dw + 3 * cout); store(e3, dw + 3 * cout + 16)
    store(a4, dw + 4 * cout); store(e4, dw + 4 * cout + 16); store(a5, dw + 5 * cout); store(e5, dw + 5 * cout + 16)
    store(a6, dw + 6 * cout); store(e6, dw + 6 * cout + 16); store(a7, dw + 7 * cout); store(e7, dw + 7 * cout + 16)
}

/// Taps `j..<j+8` of kernel row `ky`, channels `c0..<c0+16` (8 accumulators).
private func weightGrad8x16(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ dOutput: UnsafePointer<Float>,
                            _ dWeights: UnsafeMutablePointer<Float>, ky: Int, j: Int, c0: Int) {
    let cout = g.outChannels, cin = g.inChannels
    let dw = dWeights + (ky * g.rowTaps + j) * cout + c0
    var a0: V16 = load(dw), a1: V16 = load(dw + cout), a2: V16 = load(dw + 2 * cout), a3: V16 = load(dw + 3 * cout)
    var a4: V16 = load(dw + 4 * cout), a5: V16 = load(dw + 5 * cout), a6: V16 = load(dw + 6 * cout), a7: V16 = load(dw + 7 * cout)
    for y in 0..<g.outHeight {
        let row = input + (y + ky) * g.rowStride + j
        var d = dOutput + y * g.outWidth * cout + c0
        for x in 0..<g.outWidth {
            let dv: V16 = load(d)
            let q = row + x * cin
            a0 = madd(a0, splat(q), dv); a1 = madd(a1, splat(q + 1), dv)
            a2 = madd(a2, splat(q + 2), dv); a3 = madd(a3, splat(q + 3), dv)
            a4 = madd(a4, splat(q + 4), dv); a5 = madd(a5, splat(q + 5), dv)
            a6 = madd(a6, splat(q + 6), dv); a7 = madd(a7, splat(q + 7), dv)
            d += cout
        }
    }
    store(a0, dw); store(a1, dw + cout); store(a2, dw + 2 * cout); store(a3, dw + 3 * cout)
    store(a4, dw + 4 * cout); store(a5, dw + 5 * cout); store(a6, dw + 6 * cout); store(a7, dw + 7 * cout)
}

/// Tap `j` of kernel row `ky`, channels `c0..<c0+16`.
private func weightGrad1x16(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ dOutput: UnsafePointer<Float>,
                            _ dWeights: UnsafeMutablePointer<Float>, ky: Int, j: Int, c0: Int) {
    let cout = g.outChannels, cin = g.inChannels
    let dw = dWeights + (ky * g.rowTaps + j) * cout + c0
    var a: V16 = load(dw)
    for y in 0..<g.outHeight {
        let row = input + (y + ky) * g.rowStride + j
        let d = dOutput + y * g.outWidth * cout + c0
        for x in 0..<g.outWidth { a = madd(a, splat(row + x * cin), load(d + x * cout)) }
    }
    store(a, dw)
}

/// All 25 taps of a 5×5 kernel over one input channel, channels `c0..<c0+16` (25 accumulators).
private func weightGradCin1K5(_ g: ConvGeometry, _ input: UnsafePointer<Float>, _ dOutput: UnsafePointer<Float>,
                              _ dWeights: UnsafeMutablePointer<Float>, _ c0: Int) {
    let cout = g.outChannels, rs = g.rowStride
    let dw = dWeights + c0
    var a00: V16 = load(dw), a01: V16 = load(dw + cout), a02: V16 = load(dw + 2 * cout), a03: V16 = load(dw + 3 * cout)
    var a04: V16 = load(dw + 4 * cout), a10: V16 = load(dw + 5 * cout), a11: V16 = load(dw + 6 * cout), a12: V16 = load(dw + 7 * cout)
    var a13: V16 = load(dw + 8 * cout), a14: V16 = load(dw + 9 * cout), a20: V16 = load(dw + 10 * cout), a21: V16 = load(dw + 11 * cout)
    var a22: V16 = load(dw + 12 * cout), a23: V16 = load(dw + 13 * cout), a24: V16 = load(dw + 14 * cout), a30: V16 = load(dw + 15 * cout)
    var a31: V16 = load(dw + 16 * cout), a32: V16 = load(dw + 17 * cout), a33: V16 = load(dw + 18 * cout), a34: V16 = load(dw + 19 * cout)
    var a40: V16 = load(dw + 20 * cout), a41: V16 = load(dw + 21 * cout), a42: V16 = load(dw + 22 * cout), a43: V16 = load(dw + 23 * cout)
    var a44: V16 = load(dw + 24 * cout)
    for y in 0..<g.outHeight {
        var d = dOutput + y * g.outWidth * cout + c0
        var q = input + y * rs
        for _ in 0..<g.outWidth {
            let v: V16 = load(d)
            let r1 = q + rs, r2 = q + 2 * rs, r3 = q + 3 * rs, r4 = q + 4 * rs
            a00 = madd(a00, splat(q), v); a01 = madd(a01, splat(q + 1), v); a02 = madd(a02, splat(q + 2), v)
            a03 = madd(a03, splat(q + 3), v); a04 = madd(a04, splat(q + 4), v)
            a10 = madd(a10, splat(r1), v); a11 = madd(a11, splat(r1 + 1), v); a12 = madd(a12, splat(r1 + 2), v)
            a13 = madd(a13, splat(r1 + 3), v); a14 = madd(a14, splat(r1 + 4), v)
            a20 = madd(a20, splat(r2), v); a21 = madd(a21, splat(r2 + 1), v); a22 = madd(a22, splat(r2 + 2), v)
            a23 = madd(a23, splat(r2 + 3), v); a24 = madd(a24, splat(r2 + 4), v)
            a30 = madd(a30, splat(r3), v); a31 = madd(a31, splat(r3 + 1), v); a32 = madd(a32, splat(r3 + 2), v)
            a33 = madd(a33, splat(r3 + 3), v); a34 = madd(a34, splat(r3 + 4), v)
            a40 = madd(a40, splat(r4), v); a41 = madd(a41, splat(r4 + 1), v); a42 = madd(a42, splat(r4 + 2), v)
            a43 = madd(a43, splat(r4 + 3), v); a44 = madd(a44, splat(r4 + 4), v)
            d += cout
            q += 1
        }
    }
    store(a00, dw); store(a01, dw + cout); store(a02, dw + 2 * cout); store(a03, dw + 3 * cout)
    store(a04, dw + 4 * cout); store(a10, dw + 5 * cout); store(a11, dw + 6 * cout); store(a12, dw + 7 * cout)
    store(a13, dw + 8 * cout); store(a14, dw + 9 * cout); store(a20, dw + 10 * cout); store(a21, dw + 11 * cout)
    store(a22, dw + 12 * cout); store(a23, dw + 13 * cout); store(a24, dw + 14 * cout); store(a30, dw + 15 * cout)
    store(a31, dw + 16 * cout); store(a32, dw + 17 * cout); store(a33, dw + 18 * cout); store(a34, dw + 19 * cout)
    store(a40, dw + 20 * cout); store(a41, dw + 21 * cout); store(a42, dw + 22 * cout); store(a43, dw + 23 * cout)
    store(a44, dw + 24 * cout)
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

/// 2×2 max pooling with stride 2 (floor mode), NHWC: output row `y` goes to
/// `output + y * outputRowStride`, pixels `channels` floats apart. Same values as
/// `maxPoolForward(kernel: 2, stride: 2)`.
package func maxPool2x2(_ input: UnsafePointer<Float>, height: Int, width: Int, channels c: Int,
                        output: UnsafeMutablePointer<Float>, outputRowStride: Int) {
    let ho = height / 2, wo = width / 2, rowStride = width * c
    for y in 0..<ho {
        let top = input + 2 * y * rowStride, o = output + y * outputRowStride
        for x in 0..<wo {
            let a = top + 2 * x * c, b = a + rowStride, q = o + x * c
            var k = 0
            while k + 16 <= c {
                let m0 = vmax(load(a + k), load(a + c + k)), m1 = vmax(load(b + k), load(b + c + k))
                store(vmax(m0, m1), q + k)
                k += 16
            }
            while k < c {
                q[k] = max(max(a[k], a[c + k]), max(b[k], b[c + k]))
                k += 1
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
    let vectorChannels = channels / 16 * 16
    for y in 0..<ho {
        for x in 0..<wo {
            let o = (y * wo + x) * channels
            // 16 channels at a time: each lane takes the first window position equal to its max.
            for c0 in Swift.stride(from: 0, to: vectorChannels, by: 16) {
                let m: V16 = load(output + o + c0), g: V16 = load(dOutput + o + c0)
                var found = SIMDMask<SIMD16<Int32>>(repeating: false)
                for ky in 0..<kernel {
                    for kx in 0..<kernel {
                        let i = ((y * stride + ky) * width + x * stride + kx) * channels + c0
                        let hit = ((load(input + i) as V16) .== m) .& .!found
                        let d: V16 = load(dInput + i)
                        store(d.replacing(with: d + g, where: hit), dInput + i)
                        found = found .| hit
                    }
                }
            }
            for c in vectorChannels..<channels {
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
package func linearForward(_ x: UnsafePointer<Float>, inCount: Int, weightsT: UnsafePointer<Float>, bias: UnsafePointer<Float>,
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

/// One 16-output group of a linear layer's weight gradient for one image:
/// `dW[i * stride + j] += x[i] * dy[j]` for `i < inCount`, `j < 16`, with `madd`.
package func linearWeightGradGroup(_ dW: UnsafeMutablePointer<Float>, stride: Int, x: UnsafePointer<Float>, inCount: Int,
                                   dy: SIMD16<Float>) {
    for i in 0..<inCount {
        store(madd(load(dW + i * stride), SIMD16(repeating: x[i]), dy), dW + i * stride)
    }
}

/// `linearForward` for layers with few outputs (the classifier head, 10 outputs), with weights in
/// rows `(out, in)`: one dot product per output, 16 inputs at a time, four outputs side by side so
/// each input vector is loaded once for four multiply-adds. The input-major kernel above pads the
/// outputs to 16 and runs one dependency chain per 4 inputs; this one reads no padding and runs
/// four independent chains. Summation order differs from the reference (rounding only).
package func linearForwardRows(_ x: UnsafePointer<Float>, inCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                               outCount: Int, output: UnsafeMutablePointer<Float>, relu: Bool) {
    let vectorEnd = inCount - inCount % 16
    @inline(__always) func finish(_ o: Int, _ acc: SIMD16<Float>) {
        var v = acc.sum() + bias[o]
        let w = weights + o * inCount
        for i in vectorEnd..<inCount { v += x[i] * w[i] }
        output[o] = relu ? max(v, 0) : v
    }
    var o = 0
    while o + 4 <= outCount {
        let w0 = weights + o * inCount, w1 = w0 + inCount, w2 = w1 + inCount, w3 = w2 + inCount
        var a0 = SIMD16<Float>(), a1 = SIMD16<Float>(), a2 = SIMD16<Float>(), a3 = SIMD16<Float>()
        var i = 0
        while i < vectorEnd {
            let v: SIMD16<Float> = load(x + i)
            a0 = madd(a0, v, load(w0 + i)); a1 = madd(a1, v, load(w1 + i))
            a2 = madd(a2, v, load(w2 + i)); a3 = madd(a3, v, load(w3 + i))
            i += 16
        }
        finish(o, a0); finish(o + 1, a1); finish(o + 2, a2); finish(o + 3, a3)
        o += 4
    }
    while o < outCount {
        let w = weights + o * inCount
        var a0 = SIMD16<Float>(), a1 = SIMD16<Float>()
        var i = 0
        while i + 32 <= vectorEnd {
            a0 = madd(a0, load(x + i), load(w + i))
            a1 = madd(a1, load(x + i + 16), load(w + i + 16))
            i += 32
        }
        if i < vectorEnd { a0 = madd(a0, load(x + i), load(w + i)) }
        finish(o, a0 + a1)
        o += 1
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

// MARK: - Peak

/// Runs `iterations` steps of 16 independent SIMD16 multiply-add chains (`madd`, so fused only in
/// the `DIGITS_CPU` build) with no memory traffic: 256 multiply-adds per step. The bench divides
/// by the time taken to state the compute peak one core reaches with this build. Returns a sum of
/// the results so the work cannot be optimized away.
package func maddPeak(iterations: Int, scale: Float = 0.999_999) -> Float {
    let m = V16(repeating: scale), c = V16(repeating: 1e-7)
    var a0 = V16(repeating: 1), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0
    var a8 = a0, a9 = a0, a10 = a0, a11 = a0, a12 = a0, a13 = a0, a14 = a0, a15 = a0
    for _ in 0..<iterations {
        a0 = madd(c, a0, m); a1 = madd(c, a1, m); a2 = madd(c, a2, m); a3 = madd(c, a3, m)
        a4 = madd(c, a4, m); a5 = madd(c, a5, m); a6 = madd(c, a6, m); a7 = madd(c, a7, m)
        a8 = madd(c, a8, m); a9 = madd(c, a9, m); a10 = madd(c, a10, m); a11 = madd(c, a11, m)
        a12 = madd(c, a12, m); a13 = madd(c, a13, m); a14 = madd(c, a14, m); a15 = madd(c, a15, m)
    }
    let s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11)) + ((a12 + a13) + (a14 + a15))
    return s.sum()
}
