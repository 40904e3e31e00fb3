import DigitKernels
import Foundation

/// max(x, 0). Weight file: `relu`, no tensors. At inference it is fused into the operation
/// before it when that can apply it to its own output.
public struct ReLU: Layer {
    public static let typeName: String? = "relu"
    public init() {}
    public init(entry: LayerEntry) throws {}
    public var entryFields: [(key: String, value: String)]? { [] }
    public var description: String { "relu" }
    public func outputShape(for input: ActivationShape) throws -> ActivationShape { input }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        ReLUInference(input: input, output: input)
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        ReLUTraining(inShape: input, outShape: input, capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("Relu", [input])
    }
}

final class ReLUInference: InferenceOp {
    override var inPlace: Bool { true }
    override var name: String { "relu" }
    override var summary: String { "relu" }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        if UnsafePointer(output) != input { output.update(from: input, count: self.input.count) }
        dk_relu(output, self.input.count)
    }
}

/// In place: the output is the input buffer.
final class ReLUTraining: TrainingLayer {
    private var last: FloatBuffer?

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let per = inShape.count
        ctx.parallel { _, images in dk_relu(x.pointer + images.lowerBound * per, images.count * per) }
        last = x
        return x
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard let y = last else { return dy }
        let per = inShape.count
        ctx.parallel { _, images in
            dk_relu_backward(dy.pointer + images.lowerBound * per, y.pointer + images.lowerBound * per, images.count * per)
        }
        return dy
    }
}
