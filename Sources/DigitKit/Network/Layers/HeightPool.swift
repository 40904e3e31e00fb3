import DigitKernels
import Foundation

/// The mean of each channel over the rows of each column (H×W×C → 1×W×C): what turns a line
/// model's feature map into a sequence of columns, one per few pixels of the line, for CTC.
/// Weight file: `height_avgpool`.
public struct HeightPool: Layer {
    public static let typeName: String? = "height_avgpool"
    public init() {}
    public init(entry: LayerEntry) throws {}
    public var entryFields: [(key: String, value: String)]? { [] }
    public var description: String { "hpool" }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        ActivationShape(height: 1, width: input.width, channels: input.channels)
    }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        HeightPoolInference(input: input, output: try outputShape(for: input))
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        HeightPoolTraining(inShape: input, outShape: ActivationShape(height: 1, width: input.width, channels: input.channels),
                           capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("ReduceMean", [input], [.ints("axes", [2]), .int("keepdims", 1)])
    }
}

final class HeightPoolInference: InferenceOp {
    override var name: String { "height avgpool → \(output)" }
    override var summary: String { "height_avgpool" }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        HeightPoolTraining.mean(input, self.input, output)
    }
}

final class HeightPoolTraining: TrainingLayer {
    private lazy var output = FloatBuffer(count: capacity * outShape.count)
    private lazy var dInput = FloatBuffer(count: capacity * inShape.count)

    static func mean(_ input: UnsafePointer<Float>, _ shape: ActivationShape, _ output: UnsafeMutablePointer<Float>) {
        let row = shape.width * shape.channels, scale = 1 / Float(shape.height)
        for i in 0..<row { output[i] = 0 }
        for y in 0..<shape.height { for i in 0..<row { output[i] += input[y * row + i] } }
        for i in 0..<row { output[i] *= scale }
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let out = output, s = inShape, o = outShape.count
        ctx.parallel { _, images in
            for n in images { Self.mean(x.pointer + n * s.count, s, out.pointer + n * o) }
        }
        return out
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad else { return nil }
        let di = dInput, s = inShape, row = s.width * s.channels, scale = 1 / Float(s.height)
        ctx.parallel { _, images in
            for n in images {
                for y in 0..<s.height { for i in 0..<row { di[n * s.count + y * row + i] = dy[n * row + i] * scale } }
            }
        }
        return di
    }
}
