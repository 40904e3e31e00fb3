@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Every layer's backward pass against central finite differences.
///
/// Each check uses the scalar loss L = Σ rᵢ·yᵢ (fixed random r, summed in Double), so the
/// analytic gradient is `backward(r)`. The numeric one is (L(v + ε) - L(v - ε)) / (2ε) with the
/// actual Float step. Float forward passes add rounding noise of about 10⁻⁷·|L| to each L, i.e.
/// about 10⁻⁵ after dividing by 2ε = 10⁻²; layers that are linear in the perturbed value have no
/// truncation error, and smooth ones (batch norm) an O(ε²) one. So the tolerance is
/// |analytic - numeric| ≤ 2·10⁻³ + 10⁻²·|numeric|: a missing factor, a wrong sign, a dropped term
/// or a transposed index all miss it by far. Inputs keep ReLU and max pooling away from their kinks
/// (|x| ≥ 0.1, pool values at least 0.05 apart, ε = 0.01).
final class GradientCheckTests: XCTestCase {
    static let eps: Float = 1e-2

    // MARK: - Harness

    private func context(_ count: Int, training: Bool = true, seed: UInt64 = 9) -> BatchContext {
        BatchContext(count: count, threads: 1, training: training, stepSeed: seed)
    }

    /// L = Σ r·y of one forward pass on a fresh copy of `x` (ReLU and dropout work in place).
    private func loss(_ layer: TrainingLayer, _ x: [Float], _ r: [Float], _ ctx: BatchContext) -> Double {
        let y = layer.forward(.of(x), ctx)
        var total = 0.0
        for i in 0..<r.count { total += Double(r[i]) * Double(y[i]) }
        return total
    }

    /// The numeric derivative of `f` with respect to the Float `value`, which `set` stores.
    private func centralDifference(_ value: Float, set: (Float) -> Void, _ f: () -> Double) -> Double {
        let up = value + Self.eps, down = value - Self.eps
        set(up)
        let fUp = f()
        set(down)
        let fDown = f()
        set(value)
        return (fUp - fDown) / (Double(up) - Double(down))
    }

    private func assertGradient(_ analytic: Float, _ numeric: Double, _ what: String, absolute: Double = 2e-3,
                                relative: Double = 1e-2, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let ok = abs(Double(analytic) - numeric) <= absolute + relative * abs(numeric)
        if !ok { XCTFail("\(what): analytic \(analytic), numeric \(numeric)", file: file, line: line) }
        return ok
    }

    /// Indices to probe: all of them when few, else `limit` spread over the range.
    private func probes(_ count: Int, limit: Int = 40, rng: inout SplitMix64) -> [Int] {
        count <= limit ? Array(0..<count) : (0..<limit).map { _ in Int(rng.next() % UInt64(count)) }
    }

    /// Checks dL/dx and dL/dθ for every parameter θ of `layer` on input `x` (N images).
    private func checkLayer(_ layer: TrainingLayer, input x: [Float], count n: Int, ctx: BatchContext? = nil,
                            checkInput: Bool = true, seed: UInt64 = 1, file: StaticString = #filePath, line: UInt = #line) {
        var rng = SplitMix64(seed: seed)
        let ctx = ctx ?? context(n)
        let r = rng.floats(n * layer.outShape.count)
        // Analytic: forward at x, then backward(r) into freshly cleared per-chunk gradients.
        _ = layer.forward(.of(x), ctx)
        for p in layer.parameters { p.prepare(chunks: ctx.chunks.count) }
        let dx = layer.backward(.of(r), ctx, needInputGrad: true)?.prefix(x.count)
        for p in layer.parameters { p.reduce(chunks: ctx.chunks.count) }
        let grads = layer.parameters.map { ($0, $0.grad.array) }

        if checkInput {
            guard let dx else { return XCTFail("backward returned no input gradient", file: file, line: line) }
            var xs = x
            for i in probes(x.count, rng: &rng) {
                let numeric = centralDifference(x[i], set: { xs[i] = $0 }) { loss(layer, xs, r, ctx) }
                if !assertGradient(dx[i], numeric, "\(type(of: layer)) dInput[\(i)]", file: file, line: line) { break }
            }
        }
        for (p, grad) in grads {
            for i in probes(p.count, rng: &rng) {
                let numeric = centralDifference(p.value[i], set: { p.value[i] = $0 }) { loss(layer, x, r, ctx) }
                if !assertGradient(grad[i], numeric, "\(p.name) grad[\(i)]", file: file, line: line) { break }
            }
        }
    }

    // MARK: - Layers

    func testConv2D_InputWeightAndBiasGradientsMatchFiniteDifferences() {
        var rng = SplitMix64(seed: 21)
        // (input, out channels, kernel, padding): the reference kernels (4 channels), the SIMD
        // kernels (16 and 32 channels, whose input gradient is a 16-channel conv), the shipped shapes.
        let cases = [(ActivationShape(height: 5, width: 6, channels: 3), 4, 3, 1),
                     (ActivationShape(height: 6, width: 7, channels: 16), 16, 3, 0),
                     (ActivationShape(height: 7, width: 5, channels: 1), 16, 5, 2),
                     (ActivationShape(height: 4, width: 9, channels: 16), 32, 3, 1),
                     (ActivationShape(height: 3, width: 3, channels: 2), 3, 1, 0)]
        for (shape, cout, k, pad) in cases {
            let conv = ConvTraining(layer: Conv2D("conv", outChannels: cout, kernel: k, padding: pad), input: shape, capacity: 2, rng: &rng)
            for i in 0..<cout { conv.bias.value[i] = rng.uniform(-1, 1) }
            checkLayer(conv, input: rng.floats(2 * shape.count), count: 2)
        }
    }

    func testBatchNorm_TrainingModeInputGammaAndBetaGradientsMatchFiniteDifferences() {
        var rng = SplitMix64(seed: 22)
        let shape = ActivationShape(height: 3, width: 2, channels: 5)
        let bn = BatchNormTraining(layer: BatchNorm2D("bn"), shape: shape, capacity: 3)
        for k in 0..<5 { bn.gamma.value[k] = rng.uniform(0.5, 2); bn.beta.value[k] = rng.uniform(-1, 1) }
        // Channels with different means and spreads, so normalization does real work.
        let x = (0..<(3 * shape.count)).map { i in Float(i % 5) - 2 + Float(i % 5 + 1) * rng.uniform(-1, 1) }
        checkLayer(bn, input: x, count: 3)
    }

    func testBatchNorm_EvalModeGradientIsTheFixedAffineMap() {
        var rng = SplitMix64(seed: 23)
        let shape = ActivationShape(height: 2, width: 2, channels: 3)
        let bn = BatchNormTraining(layer: BatchNorm2D("bn"), shape: shape, capacity: 2)
        for k in 0..<3 {
            bn.gamma.value[k] = rng.uniform(0.5, 2)
            bn.runningMean[k] = rng.uniform(-1, 1)
            bn.runningVar[k] = rng.uniform(0.5, 2)
        }
        checkLayer(bn, input: rng.floats(2 * shape.count), count: 2, ctx: context(2, training: false))
    }

    func testReLU_GradientMatchesFiniteDifferencesAwayFromZero() {
        var rng = SplitMix64(seed: 24)
        let shape = ActivationShape(height: 3, width: 3, channels: 4)
        let x = rng.floats(2 * shape.count).map { $0 < 0 ? $0 - 0.1 : $0 + 0.1 }
        checkLayer(ReLUTraining(inShape: shape, outShape: shape, capacity: 2), input: x, count: 2)
    }

    func testMaxPool_GradientMatchesFiniteDifferencesWithoutTies() {
        var rng = SplitMix64(seed: 25)
        for (shape, k, s) in [(ActivationShape(height: 6, width: 5, channels: 3), 2, 2),
                              (ActivationShape(height: 5, width: 5, channels: 2), 3, 1)] {
            // Distinct values 0.05 apart, shuffled: no ties, and ±ε never reorders a window.
            var x = (0..<(2 * shape.count)).map { Float($0) * 0.05 - 2 }
            for i in stride(from: x.count - 1, to: 0, by: -1) { x.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            checkLayer(MaxPoolTraining(layer: MaxPool2D(kernel: k, stride: s), input: shape, capacity: 2), input: x, count: 2)
        }
    }

    func testHeightPool_GradientMatchesFiniteDifferences() {
        var rng = SplitMix64(seed: 27)
        let shape = ActivationShape(height: 4, width: 5, channels: 3)
        checkLayer(RowMeanTraining(inShape: shape, outShape: ActivationShape(height: 1, width: 5, channels: 3), capacity: 2,
                                   scaling: .multiplyByReciprocal),
                   input: rng.floats(2 * shape.count), count: 2)
    }

    func testHeightFlatten_GradientMatchesFiniteDifferences() {
        var rng = SplitMix64(seed: 28)
        let shape = ActivationShape(height: 4, width: 5, channels: 3)
        checkLayer(HeightFlattenTraining(inShape: shape, outShape: ActivationShape(height: 1, width: 5, channels: 12), capacity: 2),
                   input: rng.floats(2 * shape.count), count: 2)
    }

    func testDropout_GradientWithAFixedMaskMatchesFiniteDifferences() {
        var rng = SplitMix64(seed: 26)
        let shape = ActivationShape(height: 1, width: 1, channels: 50)
        // The mask depends only on the step seed and the image: every forward pass draws the same one.
        checkLayer(DropoutTraining(shape: shape, rate: 0.4, capacity: 3), input: rng.floats(3 * 50), count: 3,
                   ctx: context(3, training: true, seed: 77))
    }

    func testLinear_InputWeightAndBiasGradientsMatchFiniteDifferences() {
        var rng = SplitMix64(seed: 27)
        let shape = ActivationShape(height: 2, width: 3, channels: 4)
        let fc = LinearTraining(layer: Linear("fc", outCount: 10), input: shape, capacity: 3, rng: &rng)
        checkLayer(fc, input: rng.floats(3 * shape.count), count: 3)
        // The padding columns 10…15 of the transposed weight get no gradient (they must stay zero).
        for i in 0..<shape.count { for o in 10..<16 { XCTAssertEqual(fc.weight.grad[i * 16 + o], 0) } }
    }

    // MARK: - Whole network

    /// Mean softmax cross-entropy of `logits` (N × 10) in Double, and its gradient (softmax - onehot)/N.
    static func crossEntropy(_ logits: [Float], labels: [Int]) -> (loss: Double, dLogits: [Float]) {
        let n = labels.count
        var loss = 0.0
        var d = [Float](repeating: 0, count: n * 10)
        for k in 0..<n {
            let z = logits[(k * 10)..<(k * 10 + 10)].map(Double.init)
            let m = z.max() ?? 0
            let sum = z.map { exp($0 - m) }.reduce(0, +)
            loss += (m + log(sum) - z[labels[k]]) / Double(n)
            for c in 0..<10 { d[k * 10 + c] = Float((exp(z[c] - m) / sum - (c == labels[k] ? 1 : 0)) / Double(n)) }
        }
        return (loss, d)
    }

    /// Where each ReLU lets its input through and which input wins each max-pool window.
    private struct SwitchingPattern {
        var open: [[Bool]] = []     // per ReLU layer, per input element
        var winners: [[Int]] = []   // per max-pool layer, per output element: index into its input
    }

    /// Logits of `net` on `x` (training mode, so batch norm uses batch statistics). With `frozen`,
    /// ReLU and max pooling follow that pattern instead of looking at their input: the network is
    /// then a smooth function of its weights whose derivative at the point where the pattern was
    /// recorded is the true one. Without it, the pattern of this pass is recorded.
    private func forward(_ net: TrainingNetwork, _ x: [Float], _ ctx: BatchContext,
                         frozen: SwitchingPattern? = nil) -> ([Float], SwitchingPattern) {
        var a = FloatBuffer.of(x)
        var seen = SwitchingPattern()
        for layer in net.layers {
            let s = layer.inShape, o = layer.outShape
            if layer is ReLUTraining {
                let open = frozen?.open[seen.open.count] ?? (0..<(ctx.count * s.count)).map { a[$0] > 0 }
                seen.open.append(open)
                let out = FloatBuffer(count: ctx.count * s.count)
                for i in 0..<out.count where open[i] { out[i] = a[i] }
                a = out
            } else if let pool = (layer as? MaxPoolTraining)?.layer {
                var winners = frozen?.winners[seen.winners.count] ?? []
                if frozen == nil {
                    for n in 0..<ctx.count { for y in 0..<o.height { for xo in 0..<o.width { for c in 0..<s.channels {
                        var best = -1
                        for ky in 0..<pool.kernel { for kx in 0..<pool.kernel {
                            let i = n * s.count + ((y * pool.stride + ky) * s.width + xo * pool.stride + kx) * s.channels + c
                            if best < 0 || a[i] > a[best] { best = i }
                        } }
                        winners.append(best)
                    } } } }
                }
                seen.winners.append(winners)
                let out = FloatBuffer(count: ctx.count * o.count)
                for j in 0..<out.count { out[j] = a[winners[j]] }
                a = out
            } else {
                a = layer.forward(a, ctx)
            }
        }
        return (a.prefix(ctx.count * 10), seen)
    }

    /// Every parameter of `architecture` on a batch of 3 noise images with the cross-entropy loss.
    /// A perturbed weight moves thousands of activations, so some would cross a ReLU kink or swap
    /// a pooling winner, where finite differences say nothing about the derivative. The numeric
    /// side therefore evaluates the network with the switching pattern frozen at the unperturbed
    /// point (checked to give the same logits there), which leaves batch norm and cross-entropy as
    /// the only non-linear, smooth parts. ε = 10⁻²; tolerance 5·10⁻⁴ + 10⁻²·|numeric| (Float noise
    /// of the loss ≈ 10⁻⁶ over 2ε, plus O(ε²) curvature of batch norm).
    private func checkNetwork(_ architecture: [any Layer], seed: UInt64, file: StaticString = #filePath, line: UInt = #line) throws {
        let net = try TrainingNetwork(architecture: architecture, capacity: 3, seed: seed)
        var rng = SplitMix64(seed: seed ^ 0xABC)
        let x = (0..<(3 * 784)).map { _ in rng.normal() }   // continuous values: no pooling ties
        let labels = [3, 7, 1]
        let ctx = context(3, training: true, seed: 5)

        let logits = net.forward(.of(x), ctx).prefix(30)
        let (_, dLogits) = Self.crossEntropy(logits, labels: labels)
        net.backward(.of(dLogits), ctx)
        let grads = net.parameters.map { ($0, $0.grad.array) }

        let (recorded, pattern) = forward(net, x, ctx)
        XCTAssertEqual(recorded, logits, "the test's ReLU and pooling differ from the network's", file: file, line: line)
        func frozenLoss() -> Double { Self.crossEntropy(forward(net, x, ctx, frozen: pattern).0, labels: labels).loss }
        let eps: Float = 1e-2
        for (p, grad) in grads {
            XCTAssertGreaterThan(grad.map(abs).max() ?? 0, 0, "\(p.name) gets no gradient at all", file: file, line: line)
            var failures = 0
            for i in probes(p.count, limit: 10, rng: &rng) {
                let v = p.value[i]
                p.value[i] = v + eps
                let up = frozenLoss()
                p.value[i] = v - eps
                let down = frozenLoss()
                p.value[i] = v
                let numeric = (up - down) / (Double(v + eps) - Double(v - eps))
                if abs(Double(grad[i]) - numeric) > 5e-4 + 1e-2 * abs(numeric) {
                    failures += 1
                    XCTFail("\(p.name) grad[\(i)]: analytic \(grad[i]), numeric \(numeric)", file: file, line: line)
                    if failures >= 3 { break }
                }
            }
        }
    }

    func testTinyNetwork_EveryParameterGradientMatchesFiniteDifferencesOfCrossEntropy() throws {
        try checkNetwork(Architecture.tiny(), seed: 31)
    }

    func testNetworkWithDropoutAfterPooling_EveryParameterGradientMatchesFiniteDifferences() throws {
        // Dropout right after max pooling (flatten between): the pool's backward must still find its maxima.
        try checkNetwork([Conv2D("conv1", outChannels: 16, kernel: 3, padding: 1), BatchNorm2D("bn1"), ReLU(), MaxPool2D(),
                          Flatten(), Dropout(0.3), Linear("fc", outCount: 10)], seed: 32)
    }

    /// The trainer's own loss and update: one SGD step with momentum 0, no weight decay and a
    /// constant learning rate moves every weight by exactly -lr·∂(mean cross-entropy)/∂w, the
    /// gradient that `testTinyNetwork_…` checks against finite differences.
    func testTrainerStep_MovesWeightsByLearningRateTimesTheCrossEntropyGradient() throws {
        var rng = SplitMix64(seed: 33)
        let samples = ArraySamples(pixels: (0..<(3 * 784)).map { _ in rng.nextFloat() }, labels: [2, 9, 4])
        var options = TrainingOptions()
        options.architecture = Architecture.tiny()
        options.epochs = 1
        options.batchSize = 3
        options.learningRate = 0.5
        options.momentum = 0
        options.weightDecay = 0
        options.warmupEpochs = 0
        options.schedule = .constant
        options.augment = false
        options.threads = 1
        options.seed = 8
        let trainer = try Trainer(options: options, train: samples, validation: samples)
        let before = trainer.network.parameters.map(\.value.array)

        // The same start (same seed) and batch: the trainer sees the images in its shuffled order.
        let net = try TrainingNetwork(architecture: options.architecture, capacity: 3, seed: options.seed)
        let order = trainer.permutation(epoch: 0)
        var x = [Float](), labels = [Int]()
        for i in order {
            x += samples.pixels[(i * 784)..<(i * 784 + 784)].map { ($0 - options.inputMean) / options.inputStd }
            labels.append(samples.labels[i])
        }
        let ctx = BatchContext(count: 3, threads: 1, training: true, stepSeed: 0)
        let (_, dLogits) = Self.crossEntropy(net.forward(.of(x), ctx).prefix(30), labels: labels)
        net.backward(.of(dLogits), ctx)

        _ = try trainer.run { _ in }
        for (k, (p, expected)) in zip(trainer.network.parameters, net.parameters).enumerated() {
            for i in 0..<p.count {
                let step = (Double(before[k][i]) - Double(p.value[i])) / Double(options.learningRate)
                // The step is recovered from a Float subtraction: error up to ulp(w)/lr ≈ 10⁻⁷.
                if abs(step - Double(expected.grad[i])) > 1e-5 + 1e-4 * abs(Double(expected.grad[i])) {
                    XCTFail("\(p.name)[\(i)]: step/lr \(step), gradient \(expected.grad[i])")
                    break
                }
            }
        }
    }
}
