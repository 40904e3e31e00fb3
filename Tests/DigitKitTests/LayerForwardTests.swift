@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Each layer's forward pass against values worked out by hand on tiny inputs. Values that are
/// sums of a few small integers are exact in Float; others are compared within 10⁻⁵ (a few
/// roundings of numbers of size ≈ 1…100).
final class LayerForwardTests: XCTestCase {
    private func context(_ count: Int, training: Bool, seed: UInt64 = 1, threads: Int = 1) -> BatchContext {
        BatchContext(count: count, threads: threads, training: training, stepSeed: seed)
    }

    // MARK: - Convolution

    /// 3×3 input 1…9 (row-major), two 2×2 kernels in PyTorch layout (out, in, kH, kW):
    /// k0 = [[1, 2], [3, 4]] with bias 0.5, k1 = [[0, 1], [0, 0]] with bias -1 (picks the right neighbour).
    private func handConv(padding: Int) -> ConvTraining {
        var rng = SplitMix64(seed: 1)
        let conv = ConvTraining(layer: Conv2D("c", outChannels: 2, kernel: 2, padding: padding),
                                input: ActivationShape(height: 3, width: 3, channels: 1), capacity: 1, rng: &rng)
        conv.importWeight([1, 2, 3, 4, 0, 1, 0, 0])
        conv.bias.value[0] = 0.5
        conv.bias.value[1] = -1
        return conv
    }

    func testConv2D_ThreeByThreeInputTwoByTwoKernelGivesHandComputedValues() {
        let conv = handConv(padding: 0)
        XCTAssertEqual(conv.outShape, ActivationShape(height: 2, width: 2, channels: 2))
        let y = conv.forward(.of([1, 2, 3, 4, 5, 6, 7, 8, 9]), context(1, training: false))
        // out(0,0) = 1·1 + 2·2 + 3·4 + 4·5 + 0.5 = 37.5;  (0,1) = 2 + 6 + 15 + 24 + 0.5 = 47.5
        // out(1,0) = 4 + 10 + 21 + 32 + 0.5 = 67.5;        (1,1) = 5 + 12 + 24 + 36 + 0.5 = 77.5
        // channel 1 = in(y, x+1) - 1: 2-1, 3-1, 5-1, 6-1. NHWC: channels innermost.
        XCTAssertEqual(y.prefix(8), [37.5, 1, 47.5, 2, 67.5, 4, 77.5, 5])
    }

    func testConv2D_ZeroPaddingGivesHandComputedBorderValues() {
        let conv = handConv(padding: 1)
        XCTAssertEqual(conv.outShape, ActivationShape(height: 4, width: 4, channels: 2))
        let y = conv.forward(.of([1, 2, 3, 4, 5, 6, 7, 8, 9]), context(1, training: false)).prefix(32)
        func at(_ r: Int, _ c: Int, _ ch: Int) -> Float { y[(r * 4 + c) * 2 + ch] }
        // Top-left: only the kernel's bottom-right tap (4) sees in(0,0) = 1.
        XCTAssertEqual(at(0, 0, 0), 4 * 1 + 0.5)
        // Bottom-right: only the top-left tap (1) sees in(2,2) = 9.
        XCTAssertEqual(at(3, 3, 0), 1 * 9 + 0.5)
        // (1,1) is the unpadded (0,0) window.
        XCTAssertEqual(at(1, 1, 0), 37.5)
        // Top row, x = 1: taps 3 and 4 see in(0,0) = 1 and in(0,1) = 2.
        XCTAssertEqual(at(0, 1, 0), 3 * 1 + 4 * 2 + 0.5)
        // Channel 1 at (0,0) reads the padded (row -1, col 0) = 0.
        XCTAssertEqual(at(0, 0, 1), -1)
        // Channel 1 at (1,0): window rows 0…1, cols -1…0, tap (0,1) = in(0,0) = 1.
        XCTAssertEqual(at(1, 0, 1), 0)
    }

    func testConv2D_WeightImportAndExportUsePyTorchLayoutBothWays() {
        var rng = SplitMix64(seed: 2)
        let conv = ConvTraining(layer: Conv2D("c", outChannels: 4, kernel: 3, padding: 1),
                                input: ActivationShape(height: 5, width: 5, channels: 3), capacity: 1, rng: &rng)
        let w = (0..<(4 * 3 * 3 * 3)).map { Float($0) }
        conv.importWeight(w)
        XCTAssertEqual(conv.exportedWeight(), w)
        // Packed (kH, kW, Cin, Cout): PyTorch element (co 1, ci 2, ky 0, kx 1) = ((1·3 + 2)·3 + 0)·3 + 1 = 46.
        XCTAssertEqual(conv.weight.value[((0 * 3 + 1) * 3 + 2) * 4 + 1], 46)
    }

    // MARK: - Batch normalization

    func testBatchNorm_EvalModeUsesRunningStatistics() {
        let bn = BatchNormTraining(layer: BatchNorm2D("bn"), shape: ActivationShape(height: 1, width: 2, channels: 2), capacity: 1)
        // Channel 0: mean 1, var 4, gamma 2, beta 0.5. Channel 1: mean -1, var 0.25, gamma 1, beta 0.
        bn.runningMean[0] = 1; bn.runningVar[0] = 4; bn.gamma.value[0] = 2; bn.beta.value[0] = 0.5
        bn.runningMean[1] = -1; bn.runningVar[1] = 0.25
        let y = bn.forward(.of([3, 0, -1, -1.5]), context(1, training: false)).prefix(4)
        // (3 - 1)/√(4 + 1e-5)·2 + 0.5 ≈ 2.4999975;  (0 + 1)/√0.25001 ≈ 1.99996
        // (-1 - 1)/√4.00001·2 + 0.5 ≈ -1.4999975;   (-1.5 + 1)/√0.25001 ≈ -0.99998
        let expected: [Double] = [2 / (4 + 1e-5).squareRoot() * 2 + 0.5, 1 / (0.25 + 1e-5).squareRoot(),
                                  -2 / (4 + 1e-5).squareRoot() * 2 + 0.5, -0.5 / (0.25 + 1e-5).squareRoot()]
        for i in 0..<4 { XCTAssertEqual(Double(y[i]), expected[i], accuracy: 1e-5, "element \(i)") }
        XCTAssertEqual(bn.runningMean[0], 1, "eval mode must not touch the running statistics")
    }

    func testBatchNorm_TrainingModeUsesBatchStatisticsAndUpdatesRunningOnesLikePyTorch() {
        // Two images of 1×2×1: the channel sees 1, 2 | 3, 4 → mean 2.5, biased var 1.25, unbiased var 5/3.
        let bn = BatchNormTraining(layer: BatchNorm2D("bn"), shape: ActivationShape(height: 1, width: 2, channels: 1), capacity: 2)
        let y = bn.forward(.of([1, 2, 3, 4]), context(2, training: true)).prefix(4)
        let inv = 1 / (1.25 + 1e-5).squareRoot()
        for (i, x) in [1.0, 2, 3, 4].enumerated() { XCTAssertEqual(Double(y[i]), (x - 2.5) * inv, accuracy: 1e-5) }
        // Momentum 0.1: running mean 0.9·0 + 0.1·2.5, running var 0.9·1 + 0.1·5/3.
        XCTAssertEqual(bn.runningMean[0], 0.25, accuracy: 1e-6)
        XCTAssertEqual(bn.runningVar[0], Float(0.9 + 0.1 * 5.0 / 3.0), accuracy: 1e-6)
    }

    // MARK: - ReLU and pooling

    func testReLU_ZeroesNegativesAndKeepsTheRest() {
        let relu = ReLUTraining(inShape: ActivationShape(height: 1, width: 5, channels: 1),
                             outShape: ActivationShape(height: 1, width: 5, channels: 1), capacity: 1)
        XCTAssertEqual(relu.forward(.of([-2, -0.001, 0, 0.5, 3]), context(1, training: true)).prefix(5), [0, 0, 0, 0.5, 3])
    }

    func testMaxPool_TwoByTwoTakesWindowMaximaPerChannel() {
        let pool = MaxPoolTraining(layer: MaxPool2D(), input: ActivationShape(height: 4, width: 4, channels: 1), capacity: 1)
        let x: [Float] = [1, 5, 2, 0,
                          3, 4, 8, 1,
                          -1, -2, 6, 6,
                          -3, -4, 6, 6]
        XCTAssertEqual(pool.forward(.of(x), context(1, training: true)).prefix(4), [5, 8, -1, 6])
    }

    func testMaxPool_TiesSendTheGradientToTheFirstMaximumOnly() {
        let pool = MaxPoolTraining(layer: MaxPool2D(), input: ActivationShape(height: 2, width: 4, channels: 1), capacity: 1)
        // Left window: 7 at (0,1) and (1,0); right window: all four equal.
        let x: [Float] = [1, 7, 3, 3,
                          7, 2, 3, 3]
        let ctx = context(1, training: true)
        _ = pool.forward(.of(x), ctx)
        let dx = pool.backward(.of([10, 20]), ctx, needInputGrad: true)?.prefix(8)
        XCTAssertEqual(dx, [0, 10, 20, 0,
                            0, 0, 0, 0], "row-major first maximum takes the whole gradient (as PyTorch)")
    }

    // MARK: - Dropout

    func testDropout_IsTheIdentityInEvalMode() {
        let drop = DropoutTraining(shape: ActivationShape(height: 1, width: 1, channels: 100), rate: 0.5, capacity: 1)
        let x = (0..<100).map { Float($0) - 50 }
        let ctx = context(1, training: false)
        XCTAssertEqual(drop.forward(.of(x), ctx).prefix(100), x)
        XCTAssertEqual(drop.backward(.of(x), ctx, needInputGrad: true)?.prefix(100), x)
    }

    func testDropout_TrainingKeepsSeventyPercentScaledByOneOverKeepDeterministically() {
        let n = 4, per = 5000, rate: Float = 0.3
        let drop = DropoutTraining(shape: ActivationShape(height: 1, width: 1, channels: per), rate: rate, capacity: n)
        let ones = [Float](repeating: 1, count: n * per)
        let y = drop.forward(.of(ones), context(n, training: true, seed: 42)).prefix(n * per)
        let kept = y.filter { $0 != 0 }
        // 20,000 draws at p = 0.7: standard deviation of the share √(0.21/20000) ≈ 0.0032; allow 5σ.
        XCTAssertEqual(Double(kept.count) / Double(n * per), 0.7, accuracy: 0.016)
        XCTAssertTrue(kept.allSatisfy { $0 == 1 / (1 - rate) }, "kept values are scaled by 1/(1 - rate)")
        // Each image has its own mask, and the same seed gives the same masks with any thread count.
        XCTAssertNotEqual(Array(y[0..<per]), Array(y[per..<(2 * per)]))
        let again = DropoutTraining(shape: drop.inShape, rate: rate, capacity: n)
            .forward(.of(ones), context(n, training: true, seed: 42, threads: 2)).prefix(n * per)
        XCTAssertEqual(again, y)
        let other = DropoutTraining(shape: drop.inShape, rate: rate, capacity: n)
            .forward(.of(ones), context(n, training: true, seed: 43)).prefix(n * per)
        XCTAssertNotEqual(other, y, "another step seed draws another mask")
    }

    // MARK: - Linear

    func testLinear_GivesHandComputedValues() {
        var rng = SplitMix64(seed: 3)
        let fc = LinearTraining(layer: Linear("fc", outCount: 2), input: ActivationShape(height: 1, width: 1, channels: 3),
                                capacity: 2, rng: &rng)
        fc.importWeight([1, 2, 3,
                         -1, 0, 1])
        fc.bias.value[0] = 0.5
        fc.bias.value[1] = -0.5
        let y = fc.forward(.of([1, 2, 3, -1, 0, 2]), context(2, training: false)).prefix(4)
        // Image 0: 1 + 4 + 9 + 0.5 = 14.5, -1 + 3 - 0.5 = 1.5. Image 1: -1 + 6 + 0.5 = 5.5, 1 + 2 - 0.5 = 2.5.
        XCTAssertEqual(y, [14.5, 1.5, 5.5, 2.5])
    }

    // MARK: - Inference network

    /// Metadata-only network pieces: a 1×1 conv making channel 0 = x and channel 1 = 2x + 10, max
    /// pooling by 14 to 2×2 quadrants, then `tail`.
    private func quadrantNetwork(_ tail: [any Layer], _ tensors: [String: TensorData]) throws -> InferenceNetwork {
        var all = tensors
        all["q.weight"] = TensorData(shape: [2, 1, 1, 1], values: [1, 2])
        all["q.bias"] = TensorData(shape: [2], values: [0, 10])
        return try InferenceNetwork(layers: [conv("q", 2, kernel: 1), MaxPool2D(kernel: 14)] + tail,
                                    tensors: all, inputMean: 0, inputStd: 1)
    }

    /// An image whose quadrants (top-left, top-right, bottom-left, bottom-right) peak at 0.1…0.4.
    private let quadrantImage: [Float] = (0..<784).map { i in
        let (y, x) = (i / 28, i % 28)
        let q = (y < 14 ? 0 : 2) + (x < 14 ? 0 : 1)
        return (y % 14 == 5 && x % 14 == 9) ? Float(q + 1) / 10 : 0.01
    }

    private func logits(_ net: InferenceNetwork, _ pixels: [Float]) -> [Float] {
        var out = [Float](repeating: .nan, count: 10)
        net.logits(pixels: pixels, workspace: net.makeWorkspace(), into: &out)
        return out
    }

    func testInferenceNetwork_FlattenFollowsPyTorchNCHWOrder() throws {
        // fc row o picks flattened element o: NCHW order is channel 0's quadrants, then channel 1's.
        var w = [Float](repeating: 0, count: 10 * 8)
        for o in 0..<8 { w[o * 8 + o] = 1 }
        let net = try quadrantNetwork([Flatten(), linear("fc", 10, bias: false)],
                                      ["fc.weight": TensorData(shape: [10, 8], values: w)])
        let y = logits(net, quadrantImage)
        let expected: [Float] = [0.1, 0.2, 0.3, 0.4, 10.2, 10.4, 10.6, 10.8, 0, 0]
        for c in 0..<10 { XCTAssertEqual(y[c], expected[c], accuracy: 1e-5, "logit \(c) of \(y)") }
    }

    func testInferenceNetwork_BatchNormAloneAndFoldedIntoConvMatchHandValues() throws {
        // Batch norm after pooling (not foldable): channel 0 → (v - 0.1)/√(0.04 + eps)·3 + 1;
        // channel 1 → (v - 10)/√(4 + eps)·0.5 - 2. Then average the 2×2 and read both channels.
        let bnTensors: [String: TensorData] = [
            "bn.weight": TensorData(shape: [2], values: [3, 0.5]), "bn.bias": TensorData(shape: [2], values: [1, -2]),
            "bn.running_mean": TensorData(shape: [2], values: [0.1, 10]),
            "bn.running_var": TensorData(shape: [2], values: [0.04, 4]),
        ]
        var w = [Float](repeating: 0, count: 10 * 2)
        w[0] = 1; w[3] = 1   // logits 0 and 1 read channels 0 and 1
        var tensors = bnTensors
        tensors["fc.weight"] = TensorData(shape: [10, 2], values: w)
        let bn = BatchNorm2D("bn")
        let net = try quadrantNetwork([bn, GlobalAvgPool(), linear("fc", 10, bias: false)], tensors)
        let y = logits(net, quadrantImage)
        let s0 = 3 / (0.04 + 1e-5).squareRoot(), s1 = 0.5 / (4 + 1e-5).squareRoot()
        // Quadrant peaks average to 0.25 (channel 0) and 10.5 (channel 1).
        XCTAssertEqual(Double(y[0]), (0.25 - 0.1) * s0 + 1, accuracy: 1e-4)
        XCTAssertEqual(Double(y[1]), (10.5 - 10) * s1 - 2, accuracy: 1e-5)

        // The same batch norm right after a conv is folded into it: same numbers.
        var folded = bnTensors
        folded["q.weight"] = TensorData(shape: [2, 1, 1, 1], values: [1, 2])
        folded["q.bias"] = TensorData(shape: [2], values: [0, 10])
        folded["fc.weight"] = TensorData(shape: [10, 2], values: w)
        let net2 = try InferenceNetwork(layers: [conv("q", 2, kernel: 1), bn, MaxPool2D(kernel: 14), GlobalAvgPool(),
                                                 linear("fc", 10, bias: false)],
                                        tensors: folded, inputMean: 0, inputStd: 1)
        let y2 = logits(net2, quadrantImage)
        XCTAssertEqual(Double(y2[0]), (0.25 - 0.1) * s0 + 1, accuracy: 1e-4)
        XCTAssertEqual(Double(y2[1]), (10.5 - 10) * s1 - 2, accuracy: 1e-5)
    }

    func testInferenceNetwork_NormalizesInputAndAppliesReLUAndAveragePooling() throws {
        // Input normalized as (x - 0.5)/0.25; 1×1 conv weight 1, bias 0; ReLU; avgpool 28 → one value.
        // Image: 392 pixels at 1 (→ 2) and 392 at 0 (→ -2, cut by ReLU): mean 1.
        let tensors: [String: TensorData] = [
            "c.weight": TensorData(shape: [1, 1, 1, 1], values: [1]),
            "fc.weight": TensorData(shape: [10, 1], values: (0..<10).map(Float.init)),
        ]
        let net = try InferenceNetwork(layers: [conv("c", 1, kernel: 1, bias: false), ReLU(), AvgPool2D(kernel: 28), Flatten(),
                                                linear("fc", 10, bias: false)],
                                       tensors: tensors, inputMean: 0.5, inputStd: 0.25)
        let image = (0..<784).map { Float($0 % 2) }
        let y = logits(net, image)
        for c in 0..<10 { XCTAssertEqual(y[c], Float(c), accuracy: 1e-5, "logit \(c) of \(y)") }
    }
}
