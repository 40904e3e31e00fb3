@testable import DigitKit
import DigitTestSupport
import XCTest

/// The training hot paths (batch norm, max-pool backward, ReLU backward, in the C kernels) against
/// scalar loops written out here: results must be identical bit for bit, so that training a given
/// seed gives the same weights on every machine and copy of the kernels.
final class TrainingKernelTests: XCTestCase {
    private func random(_ count: Int, _ rng: inout SplitMix64) -> [Float] { (0..<count).map { _ in rng.uniform(-2, 2) } }

    /// Per channel, Σa (first `c` entries) and Σa·b (the next `c`) over `count` images of `pixels`
    /// pixels: summed in Float within an image and in Double across images, as the original layer did.
    private func channelSums(_ a: [Float], times b: [Float], count: Int, pixels: Int, c: Int) -> [Double] {
        var s = [Double](repeating: 0, count: 2 * c)
        for n in 0..<count {
            var s1 = [Float](repeating: 0, count: c), s2 = [Float](repeating: 0, count: c)
            for i in 0..<pixels { for k in 0..<c { let j = n * pixels * c + i * c + k; s1[k] += a[j]; s2[k] += a[j] * b[j] } }
            for k in 0..<c { s[k] += Double(s1[k]); s[c + k] += Double(s2[k]) }
        }
        return s
    }

    /// The scalar batch-norm forward statistics and normalization (training mode) of the original layer.
    private func scalarBatchNormForward(_ x: [Float], count: Int, pixels: Int, c: Int, gamma: [Float], beta: [Float],
                                        eps: Float) -> (out: [Float], xhat: [Float]) {
        let s = channelSums(x, times: x, count: count, pixels: pixels, c: c)
        let m = Double(count * pixels)
        var mean = [Float](repeating: 0, count: c), inv = mean
        for k in 0..<c {
            let mu = s[k] / m
            let variance = max(s[c + k] / m - mu * mu, 0)
            mean[k] = Float(mu)
            inv[k] = Float(1 / (variance + Double(eps)).squareRoot())
        }
        var out = x, xhat = x
        for j in 0..<x.count {
            let k = j % c
            let v = (x[j] - mean[k]) * inv[k]
            xhat[j] = v
            out[j] = v * gamma[k] + beta[k]
        }
        return (out, xhat)
    }

    func testBatchNorm_ForwardAndBackwardEqualTheScalarLoopsExactly() {
        var rng = SplitMix64(seed: 12)
        for c in [32, 20] {   // all lanes, and 16 lanes plus 4 scalar channels
            let shape = ActivationShape(height: 3, width: 5, channels: c)
            let count = 3, pixels = 15
            let layer = BatchNormTraining(layer: BatchNorm2D("bn"), shape: shape, capacity: count)
            let gamma = random(c, &rng), beta = random(c, &rng)
            for k in 0..<c { layer.gamma.value[k] = gamma[k]; layer.beta.value[k] = beta[k] }
            let x = random(count * shape.count, &rng), dy = random(count * shape.count, &rng)
            let ctx = BatchContext(count: count, threads: 2, training: true, stepSeed: 0)
            let out = layer.forward(FloatBuffer(x), ctx).array
            let (expected, xhat) = scalarBatchNormForward(x, count: count, pixels: pixels, c: c, gamma: gamma, beta: beta, eps: Float(layer.layer.eps))
            XCTAssertEqual(Array(out.prefix(expected.count)).map(\.bitPattern), expected.map(\.bitPattern), "forward, \(c) channels")

            for p in layer.parameters { p.prepare(chunks: ctx.chunks.count) }
            let dInput = layer.backward(FloatBuffer(dy), ctx, needInputGrad: true)!.array
            // Scalar backward of the original layer.
            let s = channelSums(dy, times: xhat, count: count, pixels: pixels, c: c)
            // invStd is recovered from the forward pass exactly as the layer computes it.
            let sums = channelSums(x, times: x, count: count, pixels: pixels, c: c)
            let m = Float(count * pixels)
            var expectedDInput = dy
            for j in 0..<dy.count {
                let k = j % c
                let mu = sums[k] / Double(m)
                let inv = Float(1 / (max(sums[c + k] / Double(m) - mu * mu, 0) + Double(Float(layer.layer.eps))).squareRoot())
                let a = gamma[k] * inv / m
                expectedDInput[j] = a * (m * dy[j] - Float(s[k]) - xhat[j] * Float(s[c + k]))
            }
            XCTAssertEqual(Array(dInput.prefix(dy.count)).map(\.bitPattern), expectedDInput.map(\.bitPattern), "backward, \(c) channels")
            // Gradients of gamma and beta: the chunk sums, as Float.
            var dBeta = [Float](repeating: 0, count: c), dGamma = dBeta
            for chunk in ctx.chunks {
                var cs = [Double](repeating: 0, count: 2 * c)
                for n in chunk {
                    var s1 = [Float](repeating: 0, count: c), s2 = [Float](repeating: 0, count: c)
                    for i in 0..<pixels { for k in 0..<c { let j = n * pixels * c + i * c + k; s1[k] += dy[j]; s2[k] += dy[j] * xhat[j] } }
                    for k in 0..<c { cs[k] += Double(s1[k]); cs[c + k] += Double(s2[k]) }
                }
                for k in 0..<c { dBeta[k] += Float(cs[k]); dGamma[k] += Float(cs[c + k]) }
            }
            layer.beta.reduce(chunks: ctx.chunks.count)
            layer.gamma.reduce(chunks: ctx.chunks.count)
            XCTAssertEqual(layer.beta.grad.array.map(\.bitPattern), dBeta.map(\.bitPattern), "dBeta, \(c) channels")
            XCTAssertEqual(layer.gamma.grad.array.map(\.bitPattern), dGamma.map(\.bitPattern), "dGamma, \(c) channels")
        }
    }

    func testMaxPoolBackward_VectorLanesRouteLikeTheScalarSearch() {
        var rng = SplitMix64(seed: 7)
        for (h, w, c) in [(6, 6, 32), (5, 7, 19), (4, 4, 16)] {
            // Small integers so that ties inside a window are common: the first position must win.
            let input = (0..<(h * w * c)).map { _ in Float(Int(rng.next() % 3)) }
            let ho = h / 2, wo = w / 2
            var output = [Float](repeating: 0, count: ho * wo * c)
            maxPoolForward(input, height: h, width: w, channels: c, kernel: 2, stride: 2, output: &output)
            let dOutput = random(output.count, &rng)
            var dInput = [Float](repeating: 0, count: input.count)
            maxPoolBackward(input, output: output, dOutput: dOutput, height: h, width: w, channels: c, kernel: 2, stride: 2,
                            dInput: &dInput)
            var expected = [Float](repeating: 0, count: input.count)
            for y in 0..<ho { for x in 0..<wo { for ch in 0..<c {
                let o = (y * wo + x) * c + ch
                search: for ky in 0..<2 { for kx in 0..<2 {
                    let i = ((2 * y + ky) * w + 2 * x + kx) * c + ch
                    if input[i] == output[o] { expected[i] += dOutput[o]; break search }
                } }
            } } }
            XCTAssertEqual(dInput.map(\.bitPattern), expected.map(\.bitPattern), "\(h)×\(w)×\(c)")
        }
    }

    func testReLUBackward_ZeroesExactlyWhereTheOutputIsNotPositive() {
        var rng = SplitMix64(seed: 1)
        let shape = ActivationShape(height: 3, width: 3, channels: 5)   // 45 per image: vector body and scalar tail
        let layer = ReLUTraining(inShape: shape, outShape: shape, capacity: 2)
        let ctx = BatchContext(count: 2, threads: 1, training: true, stepSeed: 0)
        var x = random(90, &rng)
        x[3] = 0
        let y = layer.forward(FloatBuffer(x), ctx).array
        let dy = random(90, &rng)
        let d = layer.backward(FloatBuffer(dy), ctx, needInputGrad: true)!.array
        for i in 0..<90 { XCTAssertEqual(d[i], y[i] > 0 ? dy[i] : 0, "element \(i)") }
    }
}
