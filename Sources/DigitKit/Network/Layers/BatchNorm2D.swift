import DigitKernels
import Foundation

/// Batch normalization over N, H, W per channel (Ioffe & Szegedy 2015), PyTorch conventions:
/// biased variance to normalize, unbiased variance in the running estimate, momentum 0.1.
/// Weight file: `batchnorm2d`, tensors `weight` (γ), `bias` (β), `running_mean`, `running_var`
/// `(C)`, and `eps`. At inference it is the map `(x - mean) / sqrt(var + eps) · γ + β`, folded into
/// the convolution before it when there is one.
public struct BatchNorm2D: Layer {
    public static let typeName: String? = "batchnorm2d"
    public var weight: String, bias: String, runningMean: String, runningVar: String
    public var eps: Double

    /// A batch norm whose tensors are `name.weight`, `name.bias`, `name.running_mean`, `name.running_var`.
    public init(_ name: String, eps: Double = 1e-5) {
        weight = name + ".weight"
        bias = name + ".bias"
        runningMean = name + ".running_mean"
        runningVar = name + ".running_var"
        self.eps = eps
    }

    public init(entry: LayerEntry) throws {
        weight = try entry.string("weight")
        bias = try entry.string("bias")
        runningMean = try entry.string("running_mean")
        runningVar = try entry.string("running_var")
        eps = try entry.number("eps", default: 1e-5, range: Double.leastNonzeroMagnitude...0.999_999)
    }

    public var entryFields: [(key: String, value: String)]? {
        [("weight", JSONText.quote(weight)), ("bias", JSONText.quote(bias)), ("running_mean", JSONText.quote(runningMean)),
         ("running_var", JSONText.quote(runningVar)), ("eps", "\(eps)")]
    }

    public var description: String { "bn" }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape { input }

    public func tensors(for input: ActivationShape) -> [(name: String, shape: [Int])] {
        [weight, bias, runningMean, runningVar].map { ($0, [input.channels]) }
    }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        let c = input.channels
        let gamma = try tensors.values(weight, shape: [c]), beta = try tensors.values(bias, shape: [c])
        let mean = try tensors.values(runningMean, shape: [c]), variance = try tensors.values(runningVar, shape: [c])
        if let k = variance.firstIndex(where: { $0 < 0 }) { throw tensors.error("running_var[\(k)] is negative") }
        let scale = (0..<c).map { gamma[$0] / (variance[$0] + Float(eps)).squareRoot() }
        return AffineInference(norm: ChannelNorm(mean: mean, scale: scale, beta: beta), shape: input)
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        BatchNormTraining(layer: self, shape: input, capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("BatchNormalization", [input] + (try graph.initializers([weight, bias, runningMean, runningVar], from: tensors)),
                   [.float("epsilon", Float(eps))])
    }
}

/// A batch norm that no convolution absorbed: `x · scale + shift` per channel, ReLU fused.
final class AffineInference: InferenceOp {
    let scale: FloatBuffer, shift: FloatBuffer

    init(norm: ChannelNorm, shape: ActivationShape) {
        scale = FloatBuffer(norm.scale)
        shift = FloatBuffer((0..<norm.scale.count).map { norm.beta[$0] - norm.mean[$0] * norm.scale[$0] })
        self.norm = norm
        super.init(input: shape, output: shape)
    }

    /// Kept so that an op before it can fold the exact map.
    let norm: ChannelNorm

    override var inPlace: Bool { true }
    override var parameterCount: Int { 2 * input.channels }
    override var name: String { "batchnorm → \(output)" }
    override var summary: String { "batchnorm2d \(input.channels)" + (relu ? " + relu" : "") }

    override var canFuseReLU: Bool { true }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        if UnsafePointer(output) != input { output.update(from: input, count: self.input.count) }
        dk_affine(output, self.input.height * self.input.width, self.input.channels, scale.pointer, shift.pointer, relu ? 1 : 0)
    }
}

final class BatchNormTraining: TrainingLayer {
    let layer: BatchNorm2D
    let gamma: Parameter, beta: Parameter
    let runningMean: FloatBuffer, runningVar: FloatBuffer
    let momentum: Float = 0.1
    private let xhat: FloatBuffer, output: FloatBuffer, dInput: FloatBuffer
    private let mean: FloatBuffer, invStd: FloatBuffer
    private var partials: [[Double]] = []   // per chunk: 2 × C sums

    init(layer: BatchNorm2D, shape: ActivationShape, capacity: Int) {
        self.layer = layer
        let c = shape.channels
        gamma = Parameter(name: layer.weight, count: c, decays: false)
        beta = Parameter(name: layer.bias, count: c, decays: false)
        for i in 0..<c { gamma.value[i] = 1 }
        runningMean = FloatBuffer(count: c)
        runningVar = FloatBuffer(count: c)
        for i in 0..<c { runningVar[i] = 1 }
        xhat = FloatBuffer(count: capacity * shape.count)
        output = FloatBuffer(count: capacity * shape.count)
        dInput = FloatBuffer(count: capacity * shape.count)
        mean = FloatBuffer(count: c)
        invStd = FloatBuffer(count: c)
        super.init(inShape: shape, outShape: shape, capacity: capacity)
    }

    override var parameters: [Parameter] { [gamma, beta] }
    private var eps: Float { Float(layer.eps) }

    /// Per chunk, the channel sums of `a` and `a·b` (`a·a` without `b`), combined in chunk order.
    private func sums(_ a: FloatBuffer, _ b: FloatBuffer?, _ ctx: BatchContext,
                      perChunk: ((Int, [Double]) -> Void)? = nil) -> [Double] {
        let c = inShape.channels, per = inShape.count, pixels = inShape.height * inShape.width
        while partials.count < ctx.chunks.count { partials.append(Array(repeating: 0, count: 2 * c)) }
        ctx.parallel { chunk, images in
            var s = [Double](repeating: 0, count: 2 * c)
            s.withUnsafeMutableBufferPointer { s in
                for n in images { dk_channel_sums(a.pointer + n * per, b.map { $0.pointer + n * per }, pixels, c, s.baseAddress!) }
            }
            partials[chunk] = s
            perChunk?(chunk, s)
        }
        var total = [Double](repeating: 0, count: 2 * c)
        for chunk in 0..<ctx.chunks.count { for k in 0..<(2 * c) { total[k] += partials[chunk][k] } }
        return total
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let c = inShape.channels, per = inShape.count, pixels = inShape.height * inShape.width
        if ctx.training {
            let s = sums(x, nil, ctx)
            let m = Double(ctx.count * pixels)
            for k in 0..<c {
                let mu = s[k] / m
                let variance = max(s[c + k] / m - mu * mu, 0)
                mean[k] = Float(mu)
                invStd[k] = Float(1 / (variance + Double(eps)).squareRoot())
                runningMean[k] = (1 - momentum) * runningMean[k] + momentum * Float(mu)
                runningVar[k] = (1 - momentum) * runningVar[k] + momentum * Float(variance * m / max(m - 1, 1))
            }
        } else {
            for k in 0..<c {
                mean[k] = runningMean[k]
                invStd[k] = 1 / (runningVar[k] + eps).squareRoot()
            }
        }
        ctx.parallel { _, images in
            for n in images {
                dk_batch_norm_forward(x.pointer + n * per, pixels, c, mean.pointer, invStd.pointer, gamma.value.pointer,
                                      beta.value.pointer, xhat.pointer + n * per, output.pointer + n * per)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        let c = inShape.channels, per = inShape.count, pixels = inShape.height * inShape.width
        let s = sums(dy, xhat, ctx) { chunk, s in
            let dBeta = self.beta.chunkGrads[chunk].pointer, dGamma = self.gamma.chunkGrads[chunk].pointer
            for k in 0..<c { dBeta[k] += Float(s[k]); dGamma[k] += Float(s[c + k]) }
        }
        guard needInputGrad else { return nil }
        if !ctx.training {
            // Eval mode normalizes with the running statistics, which do not depend on the input:
            // the layer is the affine map x ↦ γ·(x - mean)·invStd + β.
            let a = (0..<c).map { gamma.value[$0] * invStd[$0] }
            ctx.parallel { _, images in
                for n in images {
                    let d = dy.pointer + n * per, o = dInput.pointer + n * per
                    for i in 0..<pixels { for k in 0..<c { o[i * c + k] = a[k] * d[i * c + k] } }
                }
            }
            return dInput
        }
        let m = Float(ctx.count * pixels)
        let a = FloatBuffer((0..<c).map { gamma.value[$0] * invStd[$0] / m })
        let sumDy = FloatBuffer((0..<c).map { Float(s[$0]) }), sumDyH = FloatBuffer((0..<c).map { Float(s[c + $0]) })
        ctx.parallel { _, images in
            for n in images {
                dk_batch_norm_backward(dy.pointer + n * per, xhat.pointer + n * per, pixels, c, a.pointer, m,
                                       sumDy.pointer, sumDyH.pointer, dInput.pointer + n * per)
            }
        }
        return dInput
    }

    override func exportTensors() -> [String: TensorData] {
        let c = inShape.channels
        return [layer.weight: TensorData(shape: [c], values: gamma.value.array),
                layer.bias: TensorData(shape: [c], values: beta.value.array),
                layer.runningMean: TensorData(shape: [c], values: runningMean.array),
                layer.runningVar: TensorData(shape: [c], values: runningVar.array)]
    }

    override func importTensors(_ tensors: [String: TensorData]) {
        for (name, buffer) in [(layer.weight, gamma.value), (layer.bias, beta.value),
                               (layer.runningMean, runningMean), (layer.runningVar, runningVar)] {
            if let t = tensors[name] { buffer.set(t.values) }
        }
    }
}
