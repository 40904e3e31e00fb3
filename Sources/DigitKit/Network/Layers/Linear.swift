import DigitKernels
import Foundation

/// Fully connected layer on the flattened activation. Weight file: `linear`, tensors `weight`
/// `(out, in)` with the input index in PyTorch's NCHW flatten order, and `bias` `(out)`.
public struct Linear: Layer {
    public static let typeName: String? = "linear"
    public var weight: String
    public var bias: String?
    public var outCount: Int

    /// A linear layer whose tensors are `name.weight` and `name.bias`.
    public init(_ name: String, outCount: Int) {
        weight = name + ".weight"
        bias = name + ".bias"
        self.outCount = outCount
    }

    public init(entry: LayerEntry) throws {
        weight = try entry.string("weight")
        bias = try entry.optionalString("bias")
        let shape = try entry.tensorShape(named: weight, key: "weight", rank: 2)
        guard (1...65536).contains(shape[0]) else {
            throw DigitError(.limit, file: entry.file, at: entry.path, "\(shape[0]) outputs is out of range")
        }
        outCount = shape[0]
    }

    public var entryFields: [(key: String, value: String)]? {
        [("weight", JSONText.quote(weight))] + (bias.map { [("bias", JSONText.quote($0))] } ?? [])
    }

    public var description: String { "linear\(outCount)" }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        guard input.height == 1, input.width == 1 else {
            throw DigitError(.format, "linear needs a flatten (or global_avgpool) before it")
        }
        return ActivationShape(height: 1, width: 1, channels: outCount)
    }

    public func tensors(for input: ActivationShape) -> [(name: String, shape: [Int])] {
        [(weight, [outCount, input.count])] + (bias.map { [($0, [outCount])] } ?? [])
    }

    /// `input` is the activation as laid out in memory, before the flatten: its NHWC layout
    /// decides the order of the weight columns.
    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        let inCount = input.count
        if let t = tensors.tensors[weight], t.shape.count == 2, t.shape[1] != inCount {
            throw tensors.error("linear weight '\(weight)' expects \(t.shape[1]) inputs, the input has \(inCount)")
        }
        let w = try tensors.values(weight, shape: [outCount, inCount])
        let b = try bias.map { try tensors.values($0, shape: [outCount]) } ?? Array(repeating: 0, count: outCount)
        let rows = outCount < 16
        let padded = rows ? outCount : (outCount + 15) / 16 * 16
        guard inCount * padded <= InferenceNetwork.maxBufferFloats else {
            throw tensors.error("linear \(inCount)→\(outCount) needs \(inCount * padded) packed weights, more than the limit of "
                                + "\(InferenceNetwork.maxBufferFloats)", kind: .limit)
        }
        return LinearInference(layer: self, input: input, weights: w, bias: b, rows: rows, outPadded: padded)
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        LinearTraining(layer: self, input: input, capacity: capacity, rng: &rng)
    }

    /// Gemm takes a matrix: after a flatten or another linear layer the value is one; anywhere else
    /// (a global average pool's N×C×1×1) it gets a flatten first, which leaves a matrix unchanged.
    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        let matrix = ["Flatten", "Gemm"].contains(graph.producer(of: input)?.opType)
            ? input : graph.node("Flatten", [input], [.int("axis", 1)])
        return graph.node("Gemm", [matrix] + (try graph.initializers([weight, bias], from: tensors)), [.int("transB", 1)])
    }

    /// The NHWC position of PyTorch's NCHW flatten index, for each index.
    static func nhwcIndex(_ s: ActivationShape) -> [Int] {
        var map = [Int](repeating: 0, count: s.count)
        for ch in 0..<s.channels { for y in 0..<s.height { for x in 0..<s.width {
            map[(ch * s.height + y) * s.width + x] = (y * s.width + x) * s.channels + ch
        } } }
        return map
    }
}

/// Weights packed once: transposed and padded, `(in, outPadded)`, for the input-major kernel; or,
/// for fewer than 16 outputs (the classifier head), in rows `(out, in)` for the output-major one.
final class LinearInference: InferenceOp {
    let layer: Linear
    let inCount: Int, outPadded: Int, rows: Bool
    let weights: FloatBuffer, bias: FloatBuffer

    init(layer: Linear, input: ActivationShape, weights w: [Float], bias b: [Float], rows: Bool, outPadded: Int) {
        self.layer = layer
        inCount = input.count
        self.rows = rows
        self.outPadded = outPadded
        weights = FloatBuffer(count: inCount * outPadded)
        let map = Linear.nhwcIndex(input)
        for o in 0..<layer.outCount {
            for j in 0..<inCount {
                let i = map[j]
                weights[rows ? o * inCount + i : i * outPadded + o] = w[o * inCount + j]
            }
        }
        bias = FloatBuffer(b)
        super.init(input: input, output: ActivationShape(height: 1, width: 1, channels: layer.outCount))
    }

    override var multiplyAdds: Int { inCount * layer.outCount }
    override var parameterCount: Int { inCount * layer.outCount + (layer.bias == nil ? 0 : layer.outCount) }
    override var name: String { "linear \(inCount)→\(layer.outCount)" }
    override var summary: String { "linear \(inCount)→\(layer.outCount)" + (relu ? " + relu" : "") }

    override var canFuseReLU: Bool { true }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        if rows {
            kernels.pointee.linear_forward_rows(input, inCount, weights.pointer, bias.pointer, layer.outCount, output, relu ? 1 : 0)
        } else {
            kernels.pointee.linear_forward(input, inCount, weights.pointer, bias.pointer, layer.outCount, outPadded, output,
                                           relu ? 1 : 0)
        }
    }
}

/// The weight is kept transposed and padded, `(in, outPadded)`, for the kernels, with the input
/// index in NHWC order. PyTorch's default initialization, U(-1/√in, 1/√in).
final class LinearTraining: TrainingLayer {
    let layer: Linear
    let inCount: Int, outPadded: Int
    let weight: Parameter   // (in, outPadded), columns ≥ outCount stay zero
    let bias: Parameter
    private let output: FloatBuffer, dInput: FloatBuffer
    private var input: FloatBuffer?

    init(layer: Linear, input: ActivationShape, capacity: Int, rng: inout SplitMix64) {
        self.layer = layer
        inCount = input.count
        outPadded = (layer.outCount + 15) / 16 * 16
        let outCount = layer.outCount
        weight = Parameter(name: layer.weight, count: inCount * outPadded, decays: true)
        bias = Parameter(name: layer.bias ?? String(layer.weight.dropLast(".weight".count)) + ".bias", count: outCount,
                         decays: false)
        output = FloatBuffer(count: capacity * outCount)
        dInput = FloatBuffer(count: capacity * inCount)
        super.init(inShape: input, outShape: ActivationShape(height: 1, width: 1, channels: outCount), capacity: capacity)
        let bound = 1 / Float(inCount).squareRoot()
        for i in 0..<inCount { for o in 0..<outCount { weight.value[i * outPadded + o] = rng.uniform(-bound, bound) } }
        for o in 0..<outCount { bias.value[o] = rng.uniform(-bound, bound) }
    }

    override var parameters: [Parameter] { [weight, bias] }
    override var multiplyAdds: Int { inCount * layer.outCount }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        input = x
        let k = dk_active()!, outCount = layer.outCount
        ctx.parallel { _, images in
            for n in images {
                k.pointee.linear_forward(x.pointer + n * inCount, inCount, weight.value.pointer, bias.value.pointer, outCount,
                                         outPadded, output.pointer + n * outCount, 0)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard let x = input else { return nil }
        let k = dk_active()!, outCount = layer.outCount
        ctx.parallel { chunk, images in
            let dW = weight.chunkGrads[chunk].pointer, dB = bias.chunkGrads[chunk].pointer
            for n in images {
                let d = dy.pointer + n * outCount
                for o in 0..<outCount { dB[o] += d[o] }
                k.pointee.linear_backward(x.pointer + n * inCount, inCount, weight.value.pointer, d, outCount, outPadded, dW,
                                          needInputGrad ? dInput.pointer + n * inCount : nil)
            }
        }
        return needInputGrad ? dInput : nil
    }

    override func exportTensors() -> [String: TensorData] {
        let map = Linear.nhwcIndex(inShape), outCount = layer.outCount
        var w = [Float](repeating: 0, count: outCount * inCount)
        for o in 0..<outCount { for j in 0..<inCount { w[o * inCount + j] = weight.value[map[j] * outPadded + o] } }
        return [weight.name: TensorData(shape: [outCount, inCount], values: w),
                bias.name: TensorData(shape: [outCount], values: bias.value.array)]
    }

    override func importTensors(_ tensors: [String: TensorData]) {
        let map = Linear.nhwcIndex(inShape)
        if let w = tensors[weight.name] {
            for o in 0..<layer.outCount { for j in 0..<inCount { weight.value[map[j] * outPadded + o] = w.values[o * inCount + j] } }
        }
        if let b = tensors[bias.name] { bias.value.set(b.values) }
    }
}
