// Winograd's minimal filtering F(2×2, 3×3) for stride-1 3×3 convolutions (Lavin & Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2015): each 2×2 block of output pixels is computed
// from a 4×4 block of input with 16 multiplications per (input, output) channel pair instead of 36.
//
//   Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A        g: 3×3 kernel, d: 4×4 input tile, Y: 2×2 output tile
//
//   Bᵀ = | 1  0 -1  0 |     G = | 1    0    0   |     Aᵀ = | 1  1  1  0 |
//        | 0  1  1  0 |         | 1/2  1/2  1/2 |          | 0  1 -1 -1 |
//        | 0 -1  1  0 |         | 1/2 -1/2  1/2 |
//        | 0  1  0 -1 |         | 0    0    1   |
//
// Summed over input channels, the elementwise product becomes 16 independent matrix products,
// one per position ξ of the 4×4 transformed tile:  M[ξ] (tiles × Cout) = V[ξ] (tiles × Cin) · U[ξ] (Cin × Cout).
// The weights are transformed once at load time (U); each image pays the input transform (V), the
// 16 products (the bulk of the work, 2.25× fewer multiply-adds than the direct kernels) and the
// output transform with bias and ReLU. The transforms are additions and subtractions only, so
// results differ from the direct convolution by rounding (relative differences about 1e-6; tests
// compare with `convForwardReference`).
//
// Tiles cover the output in steps of 2; when a side is odd, the last tile starts one pixel earlier
// and overlaps the one before it (those pixels are written twice with values equal up to rounding).

private typealias V16 = SIMD16<Float>

// Non-generic copies of the helpers of Kernels.swift (`madd`, `load`, `store`), preferred here by
// overload resolution: debug builds compile each file on its own, where a generic helper from
// another file is not specialized and runs about 100× slower.
@inline(__always)
private func madd(_ acc: V16, _ a: V16, _ b: V16) -> V16 {
    #if DIGITS_FMA || arch(arm64)
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}

@inline(__always)
private func load(_ p: UnsafePointer<Float>) -> V16 { UnsafeRawPointer(p).loadUnaligned(as: V16.self) }

@inline(__always)
private func store(_ v: V16, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V16.self) }

package enum Winograd {
    /// Whether `forward` handles this convolution: 3×3 kernel, channel counts multiples of 16
    /// (the transforms and products run on 16 channels at a time), output at least 2×2.
    static func supports(_ g: ConvGeometry) -> Bool {
        g.kernel == 3 && g.inChannels % 16 == 0 && g.outChannels % 16 == 0 && g.outHeight >= 2 && g.outWidth >= 2
    }

    /// Tile rows and columns covering the output.
    static func tiles(_ g: ConvGeometry) -> (rows: Int, columns: Int) { ((g.outHeight + 1) / 2, (g.outWidth + 1) / 2) }

    /// Scratch floats `forward` needs: V (16 × tiles × Cin) and M (16 × tiles × Cout).
    static func scratchFloats(_ g: ConvGeometry) -> Int {
        let (r, c) = tiles(g)
        return 16 * r * c * (g.inChannels + g.outChannels)
    }

    /// U = G g Gᵀ for weights packed `(3, 3, Cin, Cout)`, as 16 matrices `(Cin, Cout)`: entry
    /// `(ξ * Cin + ci) * Cout + co`. Computed in double precision, rounded once.
    static func transformWeights(_ packed: UnsafePointer<Float>, inChannels cin: Int, outChannels cout: Int) -> FloatBuffer {
        let u = FloatBuffer(count: 16 * cin * cout)
        for ci in 0..<cin {
            for co in 0..<cout {
                @inline(__always) func w(_ ky: Int, _ kx: Int) -> Double { Double(packed[((ky * 3 + kx) * cin + ci) * cout + co]) }
                // Row i of G g (3 values) becomes row i of (G g) Gᵀ (4 values).
                @inline(__always) func put(_ i: Int, _ r0: Double, _ r1: Double, _ r2: Double) {
                    let base = u.pointer + (4 * i * cin + ci) * cout + co, plane = cin * cout
                    base[0] = Float(r0)
                    base[plane] = Float((r0 + r1 + r2) / 2)
                    base[2 * plane] = Float((r0 - r1 + r2) / 2)
                    base[3 * plane] = Float(r2)
                }
                put(0, w(0, 0), w(0, 1), w(0, 2))
                put(1, (w(0, 0) + w(1, 0) + w(2, 0)) / 2, (w(0, 1) + w(1, 1) + w(2, 1)) / 2, (w(0, 2) + w(1, 2) + w(2, 2)) / 2)
                put(2, (w(0, 0) - w(1, 0) + w(2, 0)) / 2, (w(0, 1) - w(1, 1) + w(2, 1)) / 2, (w(0, 2) - w(1, 2) + w(2, 2)) / 2)
                put(3, w(2, 0), w(2, 1), w(2, 2))
            }
        }
        return u
    }

    /// The convolution of `convForward(g, …, outputRowStride:, relu:)` (same input and output
    /// layout) with weights from `transformWeights` and `scratchFloats(g)` floats of `scratch`.
    /// Requires `supports(g)`.
    package static func forward(_ g: ConvGeometry, input: UnsafePointer<Float>, weights u: UnsafePointer<Float>,
                                bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                                relu: Bool, scratch: UnsafeMutablePointer<Float>) {
        let (rows, columns) = tiles(g)
        let count = rows * columns, cin = g.inChannels, cout = g.outChannels
        let v = scratch, m = scratch + 16 * count * cin
        for ty in 0..<rows {
            let y0 = min(2 * ty, g.outHeight - 2)
            for tx in 0..<columns {
                let x0 = min(2 * tx, g.outWidth - 2), tile = ty * columns + tx
                let src = input + y0 * g.rowStride + x0 * cin
                for c in stride(from: 0, to: cin, by: 16) {
                    inputTile(src + c, rowStride: g.rowStride, pixelStride: cin, into: v + tile * cin + c, planeStride: count * cin)
                }
            }
        }
        for xi in 0..<16 {
            product(v + xi * count * cin, u + xi * cin * cout, m + xi * count * cout, rows: count, inner: cin, columns: cout)
        }
        for ty in 0..<rows {
            let y0 = min(2 * ty, g.outHeight - 2)
            for tx in 0..<columns {
                let x0 = min(2 * tx, g.outWidth - 2), tile = ty * columns + tx
                let dst = output + y0 * outputRowStride + x0 * cout
                for c in stride(from: 0, to: cout, by: 16) {
                    outputTile(m + tile * cout + c, planeStride: count * cout, bias: bias + c, into: dst + c,
                               rowStride: outputRowStride, pixelStride: cout, relu: relu)
                }
            }
        }
    }

    /// V = Bᵀ d B for 16 channels of one 4×4 input tile; ξ = 4i + j goes to `dst + ξ * planeStride`.
    @inline(__always)
    private static func inputTile(_ src: UnsafePointer<Float>, rowStride: Int, pixelStride: Int,
                                  into dst: UnsafeMutablePointer<Float>, planeStride: Int) {
        @inline(__always) func row(_ i: Int) -> (V16, V16, V16, V16) {
            let p = src + i * rowStride
            return (load(p), load(p + pixelStride), load(p + 2 * pixelStride), load(p + 3 * pixelStride))
        }
        let d0 = row(0), d1 = row(1), d2 = row(2), d3 = row(3)
        // Bᵀ d, column by column.
        let a0 = (d0.0 - d2.0, d0.1 - d2.1, d0.2 - d2.2, d0.3 - d2.3)
        let a1 = (d1.0 + d2.0, d1.1 + d2.1, d1.2 + d2.2, d1.3 + d2.3)
        let a2 = (d2.0 - d1.0, d2.1 - d1.1, d2.2 - d1.2, d2.3 - d1.3)
        let a3 = (d1.0 - d3.0, d1.1 - d3.1, d1.2 - d3.2, d1.3 - d3.3)
        // (Bᵀ d) B, row by row.
        @inline(__always) func put(_ i: Int, _ a: (V16, V16, V16, V16)) {
            let p = dst + 4 * i * planeStride
            store(a.0 - a.2, p)
            store(a.1 + a.2, p + planeStride)
            store(a.2 - a.1, p + 2 * planeStride)
            store(a.1 - a.3, p + 3 * planeStride)
        }
        put(0, a0); put(1, a1); put(2, a2); put(3, a3)
    }

    /// Y = Aᵀ m A + bias (then ReLU) for 16 channels of one tile; m[ξ] at `src + ξ * planeStride`.
    @inline(__always)
    private static func outputTile(_ src: UnsafePointer<Float>, planeStride: Int, bias: UnsafePointer<Float>,
                                   into dst: UnsafeMutablePointer<Float>, rowStride: Int, pixelStride: Int, relu: Bool) {
        @inline(__always) func row(_ i: Int) -> (V16, V16, V16, V16) {
            let p = src + 4 * i * planeStride
            return (load(p), load(p + planeStride), load(p + 2 * planeStride), load(p + 3 * planeStride))
        }
        let m0 = row(0), m1 = row(1), m2 = row(2), m3 = row(3)
        let s0 = (m0.0 + m1.0 + m2.0, m0.1 + m1.1 + m2.1, m0.2 + m1.2 + m2.2, m0.3 + m1.3 + m2.3)
        let s1 = (m1.0 - m2.0 - m3.0, m1.1 - m2.1 - m3.1, m1.2 - m2.2 - m3.2, m1.3 - m2.3 - m3.3)
        let b: V16 = load(bias)
        @inline(__always) func put(_ v: V16, _ p: UnsafeMutablePointer<Float>) {
            store(relu ? v.replacing(with: 0, where: v .< 0) : v, p)
        }
        put(b + (s0.0 + s0.1 + s0.2), dst)
        put(b + (s0.1 - s0.2 - s0.3), dst + pixelStride)
        put(b + (s1.0 + s1.1 + s1.2), dst + rowStride)
        put(b + (s1.1 - s1.2 - s1.3), dst + rowStride + pixelStride)
    }

    /// c (rows × columns) = a (rows × inner) · b (inner × columns), all row-major and packed;
    /// `columns` a multiple of 16. Register blocks: 3 rows × 64 columns or 7 rows × 32 columns
    /// (12 or 14 accumulators); when the block height does not divide `rows` the last block
    /// overlaps the one before it (same rows recomputed, same bits). Leftovers one row × 16 columns.
    static func product(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>,
                        rows: Int, inner: Int, columns: Int) {
        var col = 0
        if rows >= 3 {
            while col + 64 <= columns {
                eachBlock(rows, 3) { r in block3x4(a + r * inner, b + col, c + r * columns + col, inner: inner, columns: columns) }
                col += 64
            }
        }
        if rows >= 7 {
            while col + 32 <= columns {
                eachBlock(rows, 7) { r in block7x2(a + r * inner, b + col, c + r * columns + col, inner: inner, columns: columns) }
                col += 32
            }
        }
        while col < columns {
            for r in 0..<rows {
                let ar = a + r * inner
                var acc = V16()
                for k in 0..<inner { acc = madd(acc, V16(repeating: ar[k]), load(b + k * columns + col)) }
                store(acc, c + r * columns + col)
            }
            col += 16
        }
    }

    @inline(__always)
    private static func eachBlock(_ rows: Int, _ height: Int, _ body: (Int) -> Void) {
        var r = 0
        while r < rows {
            body(min(r, rows - height))
            r += height
        }
    }

    @inline(__always)
    private static func block3x4(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>,
                                 inner: Int, columns: Int) {
        var c00 = V16(), c01 = V16(), c02 = V16(), c03 = V16()
        var c10 = V16(), c11 = V16(), c12 = V16(), c13 = V16()
        var c20 = V16(), c21 = V16(), c22 = V16(), c23 = V16()
        let a1 = a + inner, a2 = a + 2 * inner
        for k in 0..<inner {
            let bk = b + k * columns
            let b0: V16 = load(bk), b1: V16 = load(bk + 16), b2: V16 = load(bk + 32), b3: V16 = load(bk + 48)
            let x0 = V16(repeating: a[k]), x1 = V16(repeating: a1[k]), x2 = V16(repeating: a2[k])
            c00 = madd(c00, x0, b0); c01 = madd(c01, x0, b1); c02 = madd(c02, x0, b2); c03 = madd(c03, x0, b3)
            c10 = madd(c10, x1, b0); c11 = madd(c11, x1, b1); c12 = madd(c12, x1, b2); c13 = madd(c13, x1, b3)
            c20 = madd(c20, x2, b0); c21 = madd(c21, x2, b1); c22 = madd(c22, x2, b2); c23 = madd(c23, x2, b3)
        }
        store(c00, c); store(c01, c + 16); store(c02, c + 32); store(c03, c + 48)
        let r1 = c + columns, r2 = c + 2 * columns
        store(c10, r1); store(c11, r1 + 16); store(c12, r1 + 32); store(c13, r1 + 48)
        store(c20, r2); store(c21, r2 + 16); store(c22, r2 + 32); store(c23, r2 + 48)
    }

    @inline(__always)
    private static func block7x2(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>,
                                 inner: Int, columns: Int) {
        var c00 = V16(), c01 = V16(), c10 = V16(), c11 = V16(), c20 = V16(), c21 = V16(), c30 = V16(), c31 = V16()
        var c40 = V16(), c41 = V16(), c50 = V16(), c51 = V16(), c60 = V16(), c61 = V16()
        for k in 0..<inner {
            let bk = b + k * columns
            let b0: V16 = load(bk), b1: V16 = load(bk + 16)
            var x = V16(repeating: a[k])
            c00 = madd(c00, x, b0); c01 = madd(c01, x, b1)
            x = V16(repeating: a[inner + k]); c10 = madd(c10, x, b0); c11 = madd(c11, x, b1)
            x = V16(repeating: a[2 * inner + k]); c20 = madd(c20, x, b0); c21 = madd(c21, x, b1)
            x = V16(repeating: a[3 * inner + k]); c30 = madd(c30, x, b0); c31 = madd(c31, x, b1)
            x = V16(repeating: a[4 * inner + k]); c40 = madd(c40, x, b0); c41 = madd(c41, x, b1)
            x = V16(repeating: a[5 * inner + k]); c50 = madd(c50, x, b0); c51 = madd(c51, x, b1)
            x = V16(repeating: a[6 * inner + k]); c60 = madd(c60, x, b0); c61 = madd(c61, x, b1)
        }
        @inline(__always) func put(_ r: Int, _ v0: V16, _ v1: V16) { store(v0, c + r * columns); store(v1, c + r * columns + 16) }
        put(0, c00, c01); put(1, c10, c11); put(2, c20, c21); put(3, c30, c31)
        put(4, c40, c41); put(5, c50, c51); put(6, c60, c61)
    }
}
