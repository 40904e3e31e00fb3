@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// The fast kernels against their plain references on random data with awkward sizes.
///
/// Tolerance: a fast kernel may sum in another order than its reference, and with `DIGITS_CPU`
/// (or on arm64) it fuses multiply and add. Both change only the rounding, so each output may
/// differ by `relativeTolerance` times the sum of the absolute values of its terms
/// (|bias| + Σ|x·w|): a Float sum of n terms in any order is within about √n·2⁻²⁴ of that scale
/// in practice (n ≤ 800 here, so ≈ 2·10⁻⁶), and 10⁻⁵ leaves room without hiding a wrong term,
/// which costs at least the size of one term.
final class KernelTests: XCTestCase {
    static let relativeTolerance: Float = 1e-5
    /// Guard cells around every output buffer must keep this value: a SIMD store past the end is a bug.
    static let guardValue: Float = -7777
    static let guardCount = 32

    // MARK: - Helpers

    /// Calls `body` with a pointer to `count` cells initialized to NaN (so an unwritten output is
    /// caught) inside guard cells, then checks the guards and returns the cells.
    private func guarded(_ count: Int, initial: [Float]? = nil, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                         _ body: (UnsafeMutablePointer<Float>) -> Void) -> [Float] {
        let g = Self.guardCount
        var buffer = [Float](repeating: Self.guardValue, count: count + 2 * g)
        for i in 0..<count { buffer[g + i] = initial?[i] ?? .nan }
        buffer.withUnsafeMutableBufferPointer { body($0.baseAddress! + g) }
        for i in 0..<g where buffer[i] != Self.guardValue || buffer[g + count + i] != Self.guardValue {
            XCTFail("\(what): wrote outside the output (guard cell \(i))", file: file, line: line)
            break
        }
        return Array(buffer[g..<(g + count)])
    }

    /// Fails unless |fast - reference| ≤ relativeTolerance · scale elementwise; reports the first few misses.
    private func assertClose(_ fast: [Float], _ reference: [Float], scale: [Float], _ what: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(fast.count, reference.count, what, file: file, line: line)
        var misses = 0
        for i in 0..<min(fast.count, reference.count) {
            let tolerance = Self.relativeTolerance * scale[i] + Float.leastNormalMagnitude
            let ok = fast[i].isFinite && abs(fast[i] - reference[i]) <= tolerance
            if !ok {
                misses += 1
                if misses <= 3 {
                    XCTFail("\(what): [\(i)] fast \(fast[i]), reference \(reference[i]), tolerance \(tolerance)", file: file, line: line)
                }
            }
        }
        if misses > 3 { XCTFail("\(what): \(misses) outputs out of tolerance in all", file: file, line: line) }
    }

    // MARK: - Convolution forward

    private func checkConvForward(cin: Int, cout: Int, kernel k: Int, height: Int, width: Int, relu: Bool,
                                  rng: inout SplitMix64, file: StaticString = #filePath, line: UInt = #line) {
        let g = ConvGeometry(paddedWidth: width + k - 1, inChannels: cin, kernel: k, outChannels: cout,
                             outHeight: height, outWidth: width)
        let input = rng.floats((height + k - 1) * g.paddedWidth * cin)
        let weights = rng.floats(k * k * cin * cout)
        let bias = rng.floats(cout)
        let n = height * width * cout
        let what = "convForward Cin \(cin) Cout \(cout) k \(k) \(height)×\(width) relu \(relu)"
        var reference = [Float](repeating: 0, count: n), scale = reference
        convForwardReference(g, input: input, weights: weights, bias: bias, output: &reference, relu: relu)
        convForwardReference(g, input: input.map(abs), weights: weights.map(abs), bias: bias.map(abs), output: &scale, relu: false)
        let fast = guarded(n, what, file: file, line: line) {
            convForward(g, input: input, weights: weights, bias: bias, output: $0, relu: relu)
        }
        assertClose(fast, reference, scale: scale, what, file: file, line: line)
        if relu { XCTAssertFalse(fast.contains { $0 < 0 }, "\(what): negative output with ReLU", file: file, line: line) }
    }

    func testConvForward_MatchesReferenceForEveryChannelCountKernelAndReLU() {
        var rng = SplitMix64(seed: 11)
        // 13 = 2×6 + 1 = 8 + 5: both pixel blocks of the fast path and their tails.
        for cout in [16, 32, 48, 64, 10] {
            for cin in [1, 3, 16, 32] {
                for k in [1, 3, 5] {
                    for relu in [false, true] {
                        checkConvForward(cin: cin, cout: cout, kernel: k, height: 3, width: 13, relu: relu, rng: &rng)
                    }
                }
            }
        }
    }

    func testConvForward_MatchesReferenceOnWidthsBelowAndAcrossThePixelBlocks() {
        var rng = SplitMix64(seed: 12)
        for width in [1, 5, 7, 11, 17, 23] {
            for cout in [16, 32, 48] {
                checkConvForward(cin: 3, cout: cout, kernel: 3, height: 2, width: width, relu: width % 2 == 0, rng: &rng)
            }
        }
    }

    // MARK: - Convolution weight gradient

    private func checkConvWeightGrad(cin: Int, cout: Int, kernel k: Int, height: Int, width: Int, rng: inout SplitMix64,
                                     file: StaticString = #filePath, line: UInt = #line) {
        let g = ConvGeometry(paddedWidth: width + k - 1, inChannels: cin, kernel: k, outChannels: cout,
                             outHeight: height, outWidth: width)
        let input = rng.floats((height + k - 1) * g.paddedWidth * cin)
        let dOutput = rng.floats(height * width * cout)
        // Gradients accumulate (+=), so start from values already there.
        let dW0 = rng.floats(k * k * cin * cout), dB0 = rng.floats(cout)
        let what = "convWeightGrad Cin \(cin) Cout \(cout) k \(k) \(height)×\(width)"
        var refW = dW0, refB = dB0
        convWeightGradReference(g, input: input, dOutput: dOutput, dWeights: &refW, dBias: &refB)
        var scaleW = dW0.map(abs), scaleB = dB0.map(abs)
        convWeightGradReference(g, input: input.map(abs), dOutput: dOutput.map(abs), dWeights: &scaleW, dBias: &scaleB)
        var fastB: [Float] = []
        let fastW = guarded(dW0.count, initial: dW0, what + " dW", file: file, line: line) { dW in
            fastB = guarded(cout, initial: dB0, what + " dBias", file: file, line: line) { dB in
                convWeightGrad(g, input: input, dOutput: dOutput, dWeights: dW, dBias: dB)
            }
        }
        assertClose(fastW, refW, scale: scaleW, what + " dW", file: file, line: line)
        assertClose(fastB, refB, scale: scaleB, what + " dBias", file: file, line: line)
    }

    func testConvWeightGrad_MatchesReferenceAndAccumulatesForEveryShape() {
        var rng = SplitMix64(seed: 13)
        // Taps k·Cin = 1, 3, 9, 25, 27, 75, 16, 144, 400, … cover the 4-tap, 8-tap and one-tap paths.
        for cout in [16, 32, 48, 64, 10] {
            for cin in [1, 3, 16, 32] {
                for k in [1, 3, 5] {
                    checkConvWeightGrad(cin: cin, cout: cout, kernel: k, height: 3, width: 7, rng: &rng)
                }
            }
        }
    }

    // MARK: - Linear

    func testLinearForward_MatchesReferenceWithTransposedPaddedWeights() {
        var rng = SplitMix64(seed: 14)
        for inCount in [1, 3, 7, 16, 37, 48, 1601] {
            for outCount in [1, 3, 4, 5, 10, 16, 17, 33] {
                for relu in [false, true] {
                    let outPadded = (outCount + 15) / 16 * 16
                    let w = rng.floats(outCount * inCount), b = rng.floats(outCount), x = rng.floats(inCount)
                    var wT = [Float](repeating: 0, count: inCount * outPadded)
                    for o in 0..<outCount { for i in 0..<inCount { wT[i * outPadded + o] = w[o * inCount + i] } }
                    var reference = [Float](repeating: 0, count: outCount), scale = reference
                    linearForwardReference(x, inCount: inCount, weights: w, bias: b, outCount: outCount, output: &reference)
                    linearForwardReference(x.map(abs), inCount: inCount, weights: w.map(abs), bias: b.map(abs), outCount: outCount,
                                           output: &scale)
                    if relu { reference = reference.map { max($0, 0) } }
                    for variant in KernelVariant.available {
                        let what = "\(variant): linearForward \(inCount)→\(outCount) relu \(relu)"
                        let fast = guarded(outCount, what) {
                            Kernel.linearForward(x, inCount: inCount, weightsT: wT, bias: b, outCount: outCount, outPadded: outPadded,
                                                 output: $0, relu: relu, variant: variant)
                        }
                        assertClose(fast, reference, scale: scale, what)
                        // The rows kernel (few outputs) takes the PyTorch layout as it is.
                        let rowsWhat = "\(variant): linearForwardRows \(inCount)→\(outCount) relu \(relu)"
                        let rows = guarded(outCount, rowsWhat) {
                            Kernel.linearForwardRows(x, inCount: inCount, weights: w, bias: b, outCount: outCount, output: $0, relu: relu,
                                                     variant: variant)
                        }
                        assertClose(rows, reference, scale: scale, rowsWhat)
                    }
                }
            }
        }
    }

    /// The linear backward for one image: `dW[i, o] += x[i] dy[o]` and `dx[i] = Σ_o W[i, o] dy[o]`, in every copy.
    func testLinearBackward_AddsTheOuterProductAndGivesTheInputGradient() {
        var rng = SplitMix64(seed: 21)
        for (inCount, outCount) in [(37, 10), (5, 16), (19, 33)] {
            let outPadded = (outCount + 15) / 16 * 16
            let x = rng.floats(inCount), dy = rng.floats(outCount)
            var wT = rng.floats(inCount * outPadded)
            for i in 0..<inCount { for o in outCount..<outPadded { wT[i * outPadded + o] = 0 } }
            let start = rng.floats(inCount * outPadded)
            for variant in KernelVariant.available {
                var dW = start, dx = [Float](repeating: .nan, count: inCount)
                Kernel.linearBackward(x, weightsT: wT, dy: dy, outPadded: outPadded, dWeightsT: &dW, dInput: &dx, variant: variant)
                for i in 0..<inCount {
                    for o in 0..<outPadded {
                        let expected = o < outCount ? start[i * outPadded + o] + x[i] * dy[o] : start[i * outPadded + o]
                        XCTAssertEqual(dW[i * outPadded + o], expected, accuracy: 1e-6, "\(variant) dW[\(i), \(o)]")
                    }
                    let gradient = (0..<outCount).reduce(0.0) { $0 + Double(wT[i * outPadded + $1]) * Double(dy[$1]) }
                    XCTAssertEqual(Double(dx[i]), gradient, accuracy: 1e-5, "\(variant) dx[\(i)]")
                }
            }
        }
    }

    // MARK: - Pooling

    /// (height, width, channels, kernel, stride): floor-mode leftovers, overlapping windows, one window.
    private let poolShapes = [(7, 5, 3, 2, 2), (6, 6, 16, 2, 2), (9, 7, 5, 3, 2), (4, 4, 1, 4, 4), (5, 5, 2, 1, 1), (8, 3, 17, 3, 1)]

    func testMaxPoolForward_TakesTheMaximumOfEveryWindow() {
        var rng = SplitMix64(seed: 15)
        for (h, w, c, k, s) in poolShapes {
            let x = rng.floats(h * w * c)
            let ho = (h - k) / s + 1, wo = (w - k) / s + 1
            var expected: [Float] = []
            for y in 0..<ho { for xo in 0..<wo { for ch in 0..<c {
                var m = -Float.infinity
                for ky in 0..<k { for kx in 0..<k { m = max(m, x[((y * s + ky) * w + xo * s + kx) * c + ch]) } }
                expected.append(m)
            } } }
            let out = guarded(ho * wo * c, "maxPool \(h)×\(w)×\(c) k\(k) s\(s)") {
                maxPoolForward(x, height: h, width: w, channels: c, kernel: k, stride: s, output: $0)
            }
            XCTAssertEqual(bits(out), bits(expected), "maxPool \(h)×\(w)×\(c) k\(k) s\(s) (max is exact)")
        }
    }

    func testMaxPoolBackward_RoutesEachGradientToTheFirstMaximumAndAccumulatesOverlaps() {
        var rng = SplitMix64(seed: 16)
        for (h, w, c, k, s) in poolShapes {
            for ties in [false, true] {
                // With ties the values are 0, 1 or 2, so most windows hold several maxima.
                let x = ties ? (0..<(h * w * c)).map { _ in Float(rng.next() % 3) } : rng.floats(h * w * c)
                let ho = (h - k) / s + 1, wo = (w - k) / s + 1
                var pooled = [Float](repeating: 0, count: ho * wo * c)
                maxPoolForward(x, height: h, width: w, channels: c, kernel: k, stride: s, output: &pooled)
                let dOut = rng.floats(ho * wo * c)
                var expected = [Float](repeating: 0, count: h * w * c)
                for y in 0..<ho { for xo in 0..<wo { for ch in 0..<c {
                    var best = -1
                    for ky in 0..<k { for kx in 0..<k {
                        let i = ((y * s + ky) * w + xo * s + kx) * c + ch
                        if best < 0 || x[i] > x[best] { best = i }   // strict: the first maximum in row-major order wins
                    } }
                    expected[best] += dOut[(y * wo + xo) * c + ch]
                } } }
                let what = "maxPoolBackward \(h)×\(w)×\(c) k\(k) s\(s) ties \(ties)"
                let dIn = guarded(h * w * c, initial: [Float](repeating: 0, count: h * w * c), what) {
                    maxPoolBackward(x, output: pooled, dOutput: dOut, height: h, width: w, channels: c, kernel: k, stride: s, dInput: $0)
                }
                // Same additions in the same order: exact.
                XCTAssertEqual(bits(dIn), bits(expected), what)
            }
        }
    }

    func testAvgPoolForward_AveragesEveryWindow() {
        var rng = SplitMix64(seed: 17)
        for (h, w, c, k, s) in poolShapes {
            let x = rng.floats(h * w * c)
            let ho = (h - k) / s + 1, wo = (w - k) / s + 1
            var expected: [Float] = [], scale: [Float] = []
            for y in 0..<ho { for xo in 0..<wo { for ch in 0..<c {
                var sum = 0.0, absSum = 0.0
                for ky in 0..<k { for kx in 0..<k {
                    let v = Double(x[((y * s + ky) * w + xo * s + kx) * c + ch])
                    sum += v
                    absSum += abs(v)
                } }
                expected.append(Float(sum / Double(k * k)))
                scale.append(Float(absSum / Double(k * k)))
            } } }
            let out = guarded(ho * wo * c, "avgPool \(h)×\(w)×\(c) k\(k) s\(s)") {
                avgPoolForward(x, height: h, width: w, channels: c, kernel: k, stride: s, output: $0)
            }
            assertClose(out, expected, scale: scale, "avgPool \(h)×\(w)×\(c) k\(k) s\(s)")
        }
    }

    // MARK: - Softmax

    /// softmax(z / T) in Double.
    private func softmaxDouble(_ z: [Float], temperature: Double) -> [Double] {
        let scaled = z.map { Double($0) / temperature }
        let m = scaled.max() ?? 0
        let e = scaled.map { exp($0 - m) }
        let sum = e.reduce(0, +)
        return e.map { $0 / sum }
    }

    private func softmaxFloat(_ z: [Float], temperature: Float = 1) -> [Float] {
        var p = [Float](repeating: .nan, count: z.count)
        softmax(z, count: z.count, temperature: temperature, into: &p)
        return p
    }

    func testSoftmax_MatchesDoublePrecisionAtSeveralTemperatures() {
        var rng = SplitMix64(seed: 18)
        for temperature: Float in [1, 0.5, 2.5] {
            for _ in 0..<50 {
                let z = rng.floats(10, -8, 8)
                let p = softmaxFloat(z, temperature: temperature)
                let q = softmaxDouble(z, temperature: Double(temperature))
                // Each probability within 10⁻⁶ absolute and 10⁻⁵ relative (a few Float roundings of exp and the sum).
                for c in 0..<10 {
                    XCTAssertEqual(Double(p[c]), q[c], accuracy: 1e-6 + 1e-5 * q[c], "T \(temperature) z \(z)")
                }
                XCTAssertEqual(Double(p.reduce(0, +)), 1, accuracy: 1e-6)
            }
        }
    }

    func testSoftmax_StaysFiniteAndExactWithHugeLogits() {
        // exp(1000) overflows Float: only the max-subtracted form gets these right.
        var p = softmaxFloat([1000, 999, -1000, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(p[0], Float(1 / (1 + exp(-1.0))), accuracy: 1e-6)
        XCTAssertEqual(p[1], Float(exp(-1.0) / (1 + exp(-1.0))), accuracy: 1e-6)
        XCTAssertEqual(p[2], 0)
        XCTAssertTrue(p.allSatisfy { $0.isFinite && $0 >= 0 })

        p = softmaxFloat([Float](repeating: 3e38, count: 10))
        XCTAssertEqual(p, [Float](repeating: 0.1, count: 10), "equal huge logits → uniform")

        p = softmaxFloat([-Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude] + [Float](repeating: -1e30, count: 8))
        XCTAssertEqual(p[1], 1)
        XCTAssertEqual(p.reduce(0, +), 1)

        p = softmaxFloat([-1e30, -1e30 + 1e24, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30])
        XCTAssertEqual(p[1], 1, "only differences matter, even among huge negative logits")
    }
}
