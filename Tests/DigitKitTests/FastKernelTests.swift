@testable import DigitKit
import DigitTestSupport
import XCTest

/// The fast inference kernels against the reference kernels, and the inference network's execution
/// path (padding written in place, fused pooling, threads) against a plain NCHW forward pass
/// written here from the PyTorch definitions.
final class FastKernelTests: XCTestCase {
    /// Every compiled copy of the kernels this CPU runs (see `KernelVariant`): each is held to the
    /// reference. A copy that multiplies and adds separately, like the scalar reference, and sums
    /// in the same order gives identical results; with fused multiply-add they differ by rounding.
    static let variants = KernelVariant.available

    func testVariants_TheCopiesThisCPURunsAreTested() {
        XCTAssertEqual(Self.variants.first, .portable)
        XCTAssertTrue(Self.variants.contains(KernelVariant.active))
        print("kernel copies tested: \(Self.variants.map(\.description).joined(separator: ", "))")
    }

    private func random(_ count: Int, _ rng: inout SplitMix64, scale: Float = 1) -> [Float] {
        (0..<count).map { _ in rng.uniform(-scale, scale) }
    }

    private func assertClose(_ a: [Float], _ b: [Float], tolerance: Float, _ message: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        var worst: Float = 0, at = 0
        for i in 0..<min(a.count, b.count) {
            let d = abs(a[i] - b[i]) / max(1, abs(b[i]))
            if !(d <= worst) { worst = d; at = i }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(message): element \(at) is \(a[at]), expected \(b[at])", file: file, line: line)
    }

    /// Every tile class (1-channel 5×5, 64-, 32- and 16-channel groups, rows narrower than a tile,
    /// rows that end in an overlapping tile, channel counts that fall back to the reference).
    func testConvForward_EveryTileShapeMatchesTheReference() {
        var rng = SplitMix64(seed: 5)
        let cases: [(cin: Int, k: Int, cout: Int, h: Int, w: Int)] = [
            (1, 5, 16, 6, 28), (1, 5, 32, 3, 17), (1, 5, 16, 2, 9), (1, 3, 16, 4, 12),
            (16, 3, 32, 3, 14), (32, 3, 32, 2, 28), (32, 3, 32, 2, 16), (32, 3, 32, 2, 6), (3, 3, 32, 2, 9),
            (32, 3, 64, 5, 5), (32, 3, 64, 2, 3), (16, 1, 128, 2, 11), (8, 3, 48, 2, 10),
            (16, 3, 16, 3, 8), (32, 3, 16, 2, 7), (5, 2, 16, 2, 21), (4, 3, 10, 3, 5),
        ]
        for c in cases {
            let g = ConvGeometry(paddedWidth: c.w + c.k - 1, inChannels: c.cin, kernel: c.k, outChannels: c.cout,
                                 outHeight: c.h, outWidth: c.w)
            let input = random((c.h + c.k - 1) * g.paddedWidth * c.cin, &rng)
            let weights = random(c.k * c.k * c.cin * c.cout, &rng, scale: 0.5)
            let bias = random(c.cout, &rng)
            for relu in [false, true] {
                var expected = [Float](repeating: .nan, count: c.h * c.w * c.cout)
                convForwardReference(g, input: input, weights: weights, bias: bias, output: &expected, relu: relu)
                for variant in Self.variants {
                    var actual = [Float](repeating: .nan, count: c.h * c.w * c.cout)
                    Kernel.convForward(g, input: input, weights: weights, bias: bias, output: &actual, relu: relu, variant: variant)
                    let name = "\(variant): cin \(c.cin) k \(c.k) cout \(c.cout) \(c.h)×\(c.w) relu \(relu)"
                    if !variant.fusedMultiplyAdd {
                        XCTAssertEqual(actual.map(\.bitPattern), expected.map(\.bitPattern), name)
                    } else {
                        assertClose(actual, expected, tolerance: 1e-5, name)
                    }
                }
            }
        }
    }

    /// Weight gradients accumulate onto what is already there, entry by entry in the reference's
    /// pixel order: every block shape (25 taps × 16, 4 × 64, 8 × 32, 8 × 16, single taps).
    func testConvWeightGrad_EveryBlockShapeMatchesTheReference() {
        var rng = SplitMix64(seed: 17)
        let cases: [(cin: Int, k: Int, cout: Int, h: Int, w: Int)] = [
            (1, 5, 16, 4, 9), (1, 5, 32, 3, 7), (16, 3, 32, 3, 5), (32, 3, 64, 3, 4), (32, 3, 32, 2, 5),
            (16, 3, 16, 2, 3), (3, 3, 48, 3, 3), (5, 2, 80, 2, 4), (1, 3, 16, 3, 3), (4, 3, 10, 2, 2),
        ]
        for c in cases {
            let g = ConvGeometry(paddedWidth: c.w + c.k - 1, inChannels: c.cin, kernel: c.k, outChannels: c.cout,
                                 outHeight: c.h, outWidth: c.w)
            let input = random((c.h + c.k - 1) * g.paddedWidth * c.cin, &rng)
            let dOutput = random(c.h * c.w * c.cout, &rng)
            let start = random(c.k * c.k * c.cin * c.cout, &rng), startBias = random(c.cout, &rng)
            var expected = start, expectedBias = startBias
            convWeightGradReference(g, input: input, dOutput: dOutput, dWeights: &expected, dBias: &expectedBias)
            for variant in Self.variants {
                var actual = start, actualBias = startBias
                Kernel.convWeightGrad(g, input: input, dOutput: dOutput, dWeights: &actual, dBias: &actualBias, variant: variant)
                let name = "\(variant): cin \(c.cin) k \(c.k) cout \(c.cout) \(c.h)×\(c.w)"
                if !variant.fusedMultiplyAdd {
                    XCTAssertEqual(actual.map(\.bitPattern), expected.map(\.bitPattern), name)
                    XCTAssertEqual(actualBias.map(\.bitPattern), expectedBias.map(\.bitPattern), name)
                } else {
                    assertClose(actual, expected, tolerance: 1e-5, name)
                    assertClose(actualBias, expectedBias, tolerance: 1e-5, name)
                }
            }
        }
    }

    func testConvForward_OutputRowStrideLeavesTheGapsUntouched() {
        var rng = SplitMix64(seed: 9)
        for (cin, cout, k) in [(1, 16, 5), (16, 32, 3), (32, 64, 3), (3, 10, 3)] {
            let (h, w) = (4, 9)
            let g = ConvGeometry(paddedWidth: w + k - 1, inChannels: cin, kernel: k, outChannels: cout, outHeight: h, outWidth: w)
            let input = random((h + k - 1) * g.paddedWidth * cin, &rng)
            let weights = random(k * k * cin * cout, &rng), bias = random(cout, &rng)
            for variant in Self.variants {
            var packed = [Float](repeating: 0, count: h * w * cout)
            Kernel.convForward(g, input: input, weights: weights, bias: bias, output: &packed, relu: true, variant: variant)
            let stride = (w + 3) * cout
            var strided = [Float](repeating: 1234, count: h * stride)
            Kernel.convForward(g, input: input, weights: weights, bias: bias, output: &strided, outputRowStride: stride, relu: true,
                               variant: variant)
            for y in 0..<h {
                XCTAssertEqual(Array(strided[(y * stride)..<(y * stride + w * cout)]), Array(packed[(y * w * cout)..<((y + 1) * w * cout)]),
                               "row \(y), cin \(cin)")
                XCTAssertTrue(strided[(y * stride + w * cout)..<((y + 1) * stride)].allSatisfy { $0 == 1234 }, "gap after row \(y)")
            }
            }
        }
    }

    /// Winograd F(2×2, 3×3) against the direct reference: the shipped layers' shapes, odd sides
    /// (overlapping last tiles), outputs of 2 pixels, every product block (3 × 64, 7 × 32, single
    /// rows, 16-column leftovers), ReLU on and off, and a row stride whose gaps stay untouched;
    /// shapes it leaves to the direct kernels.
    func testWinograd_MatchesTheDirectReferenceOnEveryShape() {
        checkWinograd(tile: 2, seed: 17, tolerance: 2e-5, cases: [
            (16, 32, 14, 14), (32, 32, 14, 14), (32, 128, 5, 5), (16, 16, 3, 5), (32, 64, 2, 2),
            (16, 48, 7, 9), (48, 80, 4, 3), (16, 32, 2, 13), (16, 64, 6, 2),
        ], refused: [(1, 3, 16, 4, 4), (16, 5, 32, 4, 4), (16, 3, 10, 4, 4), (16, 3, 32, 1, 4), (16, 3, 32, 4, 1)])
    }

    /// Winograd F(4×4, 3×3) the same way: the shipped 14×14 layers, 7×7 and sides 4 does not
    /// divide (overlapping last tiles), outputs of exactly 4, 64- and 16-column blocks. Its
    /// transforms have larger constants (1/24 … 8), so it is held to 1e-4 of the reference.
    func testWinograd4_MatchesTheDirectReferenceOnEveryShape() {
        checkWinograd(tile: 4, seed: 18, tolerance: 1e-4, cases: [
            (16, 32, 14, 14), (32, 32, 14, 14), (32, 32, 7, 7), (16, 16, 4, 4), (16, 48, 7, 9),
            (48, 80, 4, 6), (16, 32, 4, 13), (32, 64, 9, 4), (32, 128, 8, 8),
        ], refused: [(1, 3, 16, 4, 4), (16, 5, 32, 4, 4), (16, 3, 10, 4, 4), (16, 3, 32, 3, 8), (16, 3, 32, 8, 3)])
    }

    /// F(4×4, 3×3) is preferred where it does fewer multiplications than F(2×2, 3×3), tiles that
    /// overlap at an odd edge counted: the shipped 14×14 layers and 7×7, not 5×5 or 6×6 (as many).
    func testWinograd4_IsPreferredWhereItMultipliesLess() {
        let sides: [(h: Int, w: Int, preferred: Bool)] = [(14, 14, true), (7, 7, true), (4, 4, true), (8, 8, true),
                                                           (5, 5, false), (6, 6, false), (3, 3, false), (14, 2, false)]
        for s in sides {
            let g = ConvGeometry(paddedWidth: s.w + 2, inChannels: 32, kernel: 3, outChannels: 32, outHeight: s.h, outWidth: s.w)
            XCTAssertEqual(Winograd.fourPreferred(g), s.preferred, "\(s.h)×\(s.w)")
        }
    }

    /// Each of `cases` against the direct reference; each of `refused` (Cin, kernel, Cout, height,
    /// width) left to the direct kernels.
    private func checkWinograd(tile: Int, seed: UInt64, tolerance: Float, cases: [(cin: Int, cout: Int, h: Int, w: Int)],
                               refused: [(Int, Int, Int, Int, Int)], file: StaticString = #filePath, line: UInt = #line) {
        for (cin, k, cout, h, w) in refused {
            XCTAssertFalse(Winograd.supports(ConvGeometry(paddedWidth: w + k - 1, inChannels: cin, kernel: k, outChannels: cout,
                                                          outHeight: h, outWidth: w), tile: tile),
                           "F\(tile): \(cin) \(k) \(cout) \(h)×\(w)", file: file, line: line)
        }
        var rng = SplitMix64(seed: seed)
        for c in cases {
            let g = ConvGeometry(paddedWidth: c.w + 2, inChannels: c.cin, kernel: 3, outChannels: c.cout,
                                 outHeight: c.h, outWidth: c.w)
            XCTAssertTrue(Winograd.supports(g, tile: tile), file: file, line: line)
            let input = random((c.h + 2) * g.paddedWidth * c.cin, &rng)
            let weights = random(9 * c.cin * c.cout, &rng, scale: 0.5)
            let bias = random(c.cout, &rng)
            let u = Winograd.transformWeights(weights, inChannels: c.cin, outChannels: c.cout, tile: tile)
            for relu in [false, true] {
                var expected = [Float](repeating: .nan, count: c.h * c.w * c.cout)
                convForwardReference(g, input: input, weights: weights, bias: bias, output: &expected, relu: relu)
                let rowStride = (c.w + 1) * c.cout
                for variant in Self.variants {
                    var actual = [Float](repeating: 1234, count: c.h * rowStride)
                    Kernel.winogradForward(g, tile: tile, input: input, weights: u, bias: bias, output: &actual,
                                           outputRowStride: rowStride, relu: relu, variant: variant)
                    let rows = (0..<c.h).flatMap { y in actual[(y * rowStride)..<(y * rowStride + c.w * c.cout)] }
                    assertClose(rows, expected, tolerance: tolerance,
                                "F\(tile) \(variant): cin \(c.cin) cout \(c.cout) \(c.h)×\(c.w) relu \(relu)", file: file, line: line)
                    XCTAssertTrue((0..<c.h).allSatisfy { y in actual[(y * rowStride + c.w * c.cout)..<((y + 1) * rowStride)].allSatisfy { $0 == 1234 } },
                                  "F\(tile) \(variant): gaps, cin \(c.cin) cout \(c.cout)", file: file, line: line)
                }
            }
        }
    }

    /// The network gives the same logits, up to rounding, with and without the Winograd kernels,
    /// and with F(2×2, 3×3) alone where F(4×4, 3×3) would run (the standard network's 14×14 layers).
    func testInferenceNetwork_WinogradAndDirectConvolutionsAgree() throws {
        let (layers, tensors) = standardNetwork(seed: 23)
        let fast = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0.13, inputStd: 0.31)
        ConvInference.winograd4Allowed = false
        let small = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0.13, inputStd: 0.31)
        ConvInference.winograd4Allowed = true
        ConvInference.winogradAllowed = false
        defer { ConvInference.winogradAllowed = true }
        let direct = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0.13, inputStd: 0.31)
        var rng = SplitMix64(seed: 4)
        for _ in 0..<3 {
            let pixels = (0..<784).map { _ in max(0, rng.uniform(-0.5, 1)) }
            var a = [Float](repeating: .nan, count: 10), b = a, c = a
            fast.logits(pixels: pixels, workspace: fast.makeWorkspace(), into: &a)
            direct.logits(pixels: pixels, workspace: direct.makeWorkspace(), into: &b)
            small.logits(pixels: pixels, workspace: small.makeWorkspace(), into: &c)
            let scale = b.map { abs($0) }.max() ?? 1
            for o in 0..<10 {
                XCTAssertEqual(a[o], b[o], accuracy: 1e-5 * max(scale, 1), "logit \(o)")
                XCTAssertEqual(c[o], b[o], accuracy: 1e-5 * max(scale, 1), "logit \(o), F(2×2, 3×3) alone")
            }
            XCTAssertNotEqual(a.map(\.bitPattern), b.map(\.bitPattern), "the two paths are expected to round differently")
            XCTAssertNotEqual(a.map(\.bitPattern), c.map(\.bitPattern), "F(4×4, 3×3) is expected to run and round differently")
        }
    }

    func testMaxPool2x2_MatchesTheGeneralPoolWithAndWithoutRowStride() {
        var rng = SplitMix64(seed: 3)
        for (h, w, c) in [(28, 28, 16), (14, 14, 32), (5, 7, 3), (4, 4, 48), (3, 3, 17)] {
            let input = random(h * w * c, &rng)
            var expected = [Float](repeating: 0, count: (h / 2) * (w / 2) * c)
            maxPoolForward(input, height: h, width: w, channels: c, kernel: 2, stride: 2, output: &expected)
            for variant in Self.variants {
                var packed = [Float](repeating: 0, count: expected.count)
                Kernel.maxPool2x2(input, height: h, width: w, channels: c, output: &packed, outputRowStride: (w / 2) * c, variant: variant)
                XCTAssertEqual(packed, expected, "\(variant): \(h)×\(w)×\(c)")
                let stride = (w / 2 + 2) * c
                var strided = [Float](repeating: -7, count: (h / 2) * stride)
                Kernel.maxPool2x2(input, height: h, width: w, channels: c, output: &strided, outputRowStride: stride, variant: variant)
                for y in 0..<(h / 2) {
                    XCTAssertEqual(Array(strided[(y * stride)..<(y * stride + (w / 2) * c)]),
                                   Array(expected[(y * (w / 2) * c)..<((y + 1) * (w / 2) * c)]), "\(variant)")
                    XCTAssertTrue(strided[(y * stride + (w / 2) * c)..<((y + 1) * stride)].allSatisfy { $0 == -7 }, "\(variant)")
                }
            }
        }
    }

    func testMaddPeak_ComputesTheChainsItClaims() {
        // 16 chains of a ← 1e-7 + a·m from a = 1: after n steps each is m^n + 1e-7 (1 − m^n) / (1 − m).
        let m: Float = 0.5
        let n = 3
        let chain = Float(pow(0.5, 3.0)) + 1e-7 * (1 - Float(pow(0.5, 3.0))) / (1 - m)
        for variant in Self.variants {
            XCTAssertEqual(variant.maddPeak(iterations: n, scale: m), 16 * 16 * chain, accuracy: 1e-5, "\(variant)")
        }
    }

    // MARK: - The whole network against a plain NCHW forward pass

    /// The standard architecture's layer list with random tensors (PyTorch layouts).
    private func standardNetwork(seed: UInt64) -> ([any Layer], [String: TensorData]) {
        var rng = SplitMix64(seed: seed)
        var layers: [any Layer] = []
        var tensors: [String: TensorData] = [:]
        var cin = 1
        for (i, (cout, k, p, pool)) in [(16, 5, 2, true), (32, 3, 1, false), (32, 3, 1, true), (64, 3, 0, false)].enumerated() {
            let name = "conv\(i + 1)", bn = "bn\(i + 1)"
            tensors[name + ".weight"] = TensorData(shape: [cout, cin, k, k], values: random(cout * cin * k * k, &rng, scale: 0.4))
            tensors[name + ".bias"] = TensorData(shape: [cout], values: random(cout, &rng, scale: 0.1))
            tensors[bn + ".weight"] = TensorData(shape: [cout], values: (0..<cout).map { _ in rng.uniform(0.5, 1.5) })
            tensors[bn + ".bias"] = TensorData(shape: [cout], values: random(cout, &rng, scale: 0.2))
            tensors[bn + ".running_mean"] = TensorData(shape: [cout], values: random(cout, &rng, scale: 0.3))
            tensors[bn + ".running_var"] = TensorData(shape: [cout], values: (0..<cout).map { _ in rng.uniform(0.5, 2) })
            layers += [Conv2D(name, outChannels: cout, kernel: k, padding: p), BatchNorm2D(bn), ReLU()] as [any Layer]
            if pool { layers.append(MaxPool2D()) }
            cin = cout
        }
        tensors["fc.weight"] = TensorData(shape: [10, 1600], values: random(16000, &rng, scale: 0.05))
        tensors["fc.bias"] = TensorData(shape: [10], values: random(10, &rng, scale: 0.1))
        layers += [Flatten(), Linear("fc", outCount: 10)] as [any Layer]
        return (layers, tensors)
    }

    /// PyTorch semantics on NCHW arrays, in Double: the independent reference for the network.
    private func plainForward(_ layers: [any Layer], _ t: [String: TensorData], pixels: [Float], mean: Float, std: Float) -> [Double] {
        var x = pixels.map { (Double($0) - Double(mean)) / Double(std) }
        var (c, h, w) = (1, 28, 28)
        for layer in layers {
            switch layer {
            case let conv as Conv2D:
                let wt = t[conv.weight]!, cout = wt.shape[0], k = wt.shape[2], p = conv.padding, bName = conv.bias
                let ho = h + 2 * p - k + 1, wo = w + 2 * p - k + 1
                var y = [Double](repeating: 0, count: cout * ho * wo)
                for o in 0..<cout {
                    for oy in 0..<ho {
                        for ox in 0..<wo {
                            var s = Double(t[bName!]!.values[o])
                            for i in 0..<c {
                                for ky in 0..<k {
                                    for kx in 0..<k {
                                        let iy = oy + ky - p, ix = ox + kx - p
                                        guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                                        s += x[(i * h + iy) * w + ix] * Double(wt.values[((o * c + i) * k + ky) * k + kx])
                                    }
                                }
                            }
                            y[(o * ho + oy) * wo + ox] = s
                        }
                    }
                }
                (x, c, h, w) = (y, cout, ho, wo)
            case let bn as BatchNorm2D:
                let (g, b, m, v, eps) = (bn.weight, bn.bias, bn.runningMean, bn.runningVar, bn.eps)
                for ch in 0..<c {
                    let s = Double(t[g]!.values[ch]) / (Double(t[v]!.values[ch]) + eps).squareRoot()
                    for j in 0..<(h * w) {
                        x[ch * h * w + j] = (x[ch * h * w + j] - Double(t[m]!.values[ch])) * s + Double(t[b]!.values[ch])
                    }
                }
            case is ReLU:
                x = x.map { max($0, 0) }
            case let pool as MaxPool2D:
                let (k, s) = (pool.kernel, pool.stride)
                let ho = (h - k) / s + 1, wo = (w - k) / s + 1
                var y = [Double](repeating: 0, count: c * ho * wo)
                for ch in 0..<c { for oy in 0..<ho { for ox in 0..<wo {
                    var m = -Double.infinity
                    for ky in 0..<k { for kx in 0..<k { m = max(m, x[(ch * h + oy * s + ky) * w + ox * s + kx]) } }
                    y[(ch * ho + oy) * wo + ox] = m
                } } }
                (x, h, w) = (y, ho, wo)
            case is Flatten:
                break
            case let fc as Linear:
                let wt = t[fc.weight]!, bName = fc.bias, outCount = wt.shape[0], inCount = wt.shape[1]
                x = (0..<outCount).map { o in
                    (0..<inCount).reduce(Double(t[bName!]!.values[o])) { $0 + Double(wt.values[o * inCount + $1]) * x[$1] }
                }
            default:
                XCTFail("layer \(layer) not covered by the plain forward pass")
            }
        }
        return x
    }

    func testInferenceNetwork_LogitsMatchAPlainNCHWForwardPass() throws {
        let (layers, tensors) = standardNetwork(seed: 21)
        let network = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0.13, inputStd: 0.31)
        var rng = SplitMix64(seed: 8)
        for image in 0..<1 {
            let pixels = (0..<784).map { _ in max(0, rng.uniform(-0.5, 1)) }
            let expected = plainForward(layers, tensors, pixels: pixels, mean: 0.13, std: 0.31)
            var logits = [Float](repeating: .nan, count: 10)
            network.logits(pixels: pixels, workspace: network.makeWorkspace(), into: &logits)
            let scale = expected.map { abs($0) }.max() ?? 1
            for o in 0..<10 {
                XCTAssertEqual(Double(logits[o]), expected[o], accuracy: 1e-4 * max(scale, 1), "image \(image), logit \(o)")
            }
        }
    }

    /// A cheaper network with the same kinds of steps (1-channel 5×5 conv writing into a padded
    /// input, pooling into a padded input, a padded 16→32 conv), for tests that run many images.
    private func smallNetwork(seed: UInt64) throws -> InferenceNetwork {
        var rng = SplitMix64(seed: seed)
        let layers: [any Layer] = [
            AvgPool2D(kernel: 2), Conv2D("c1", outChannels: 16, kernel: 5, padding: 2), ReLU(), MaxPool2D(),
            Conv2D("c2", outChannels: 32, kernel: 3, padding: 1), ReLU(), GlobalAvgPool(), Linear("fc", outCount: 10),
        ]
        let tensors: [String: TensorData] = [
            "c1.weight": TensorData(shape: [16, 1, 5, 5], values: random(400, &rng, scale: 0.5)),
            "c1.bias": TensorData(shape: [16], values: random(16, &rng, scale: 0.1)),
            "c2.weight": TensorData(shape: [32, 16, 3, 3], values: random(4608, &rng, scale: 0.2)),
            "c2.bias": TensorData(shape: [32], values: random(32, &rng, scale: 0.1)),
            "fc.weight": TensorData(shape: [10, 32], values: random(320, &rng)),
            "fc.bias": TensorData(shape: [10], values: random(10, &rng)),
        ]
        return try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0.1, inputStd: 0.3)
    }

    func testInferenceNetwork_BatchesAndThreadsGiveTheSingleImageLogitsExactly() throws {
        let network = try smallNetwork(seed: 4)
        var rng = SplitMix64(seed: 2)
        let count = 5
        let pixels = (0..<(count * 784)).map { _ in rng.nextFloat() }
        let ws = network.makeWorkspace()
        var single = [Float](repeating: 0, count: count * 10)
        for n in 0..<count {
            // A reused workspace must not carry anything from one image to the next.
            pixels.withUnsafeBufferPointer { p in
                single.withUnsafeMutableBufferPointer { l in
                    network.logits(pixels: p.baseAddress! + n * 784, workspace: ws, into: l.baseAddress! + n * 10)
                }
            }
        }
        for threads in [1, 2] {
            var batched = [Float](repeating: .nan, count: count * 10)
            network.logits(pixels: pixels, count: count, into: &batched, threads: threads)
            XCTAssertEqual(batched.map(\.bitPattern), single.map(\.bitPattern), "\(threads) threads")
        }
    }

    func testInferenceNetwork_ProfileReportsEveryExecutedOp() throws {
        let (layers, tensors) = standardNetwork(seed: 6)
        let network = try InferenceNetwork(layers: layers, tensors: tensors, inputMean: 0.1, inputStd: 0.3)
        let pixels = [Float](repeating: 0.5, count: 784)
        let times = network.profile(pixels: pixels, count: 1)
        let ops = network.executedOps
        XCTAssertEqual(times.count, ops.count)
        XCTAssertEqual(ops.map(\.name.first), ["c", "m", "c", "c", "m", "c", "l"])
        XCTAssertEqual(ops.reduce(0) { $0 + $1.multiplyAdds }, network.multiplyAdds)
        XCTAssertEqual(network.multiplyAdds, 3_499_904)
        XCTAssertTrue(times.allSatisfy { $0 >= 0 && $0 < 1 }, "\(times)")
        XCTAssertGreaterThan(times.reduce(0, +), 0)
    }
}
