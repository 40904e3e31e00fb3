import DigitKernels
import Foundation

/// The mean of each channel over the whole activation (1×1 output). Weight file: `global_avgpool`.
public struct GlobalAvgPool: Layer {
    public static let typeName: String? = "global_avgpool"
    public init() {}
    public init(entry: LayerEntry) throws {}
    public var entryFields: [(key: String, value: String)]? { [] }
    public var description: String { "gap" }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        ActivationShape(height: 1, width: 1, channels: input.channels)
    }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        GlobalAvgPoolInference(input: input, output: try outputShape(for: input))
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        GlobalAvgPoolTraining(inShape: input, outShape: ActivationShape(height: 1, width: 1, channels: input.channels),
                              capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("GlobalAveragePool", [input])
    }
}

final class GlobalAvgPoolInference: InferenceOp {
    override var name: String { "global avgpool" }
    override var summary: String { "global_avgpool" }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        GlobalAvgPoolTraining.mean(input, self.input, output)
    }
}

final class GlobalAvgPoolTraining: TrainingLayer {
    private lazy var output = FloatBuffer(count: capacity * outShape.count)
    private lazy var dInput = FloatBuffer(count: capacity * inShape.count)

    static func mean(_ input: UnsafePointer<Float>, _ shape: ActivationShape, _ output: UnsafeMutablePointer<Float>) {
        let c = shape.channels, n = shape.height * shape.width
        for k in 0..<c { output[k] = 0 }
        for p in 0..<n { for k in 0..<c { output[k] += input[p * c + k] } }
        for k in 0..<c { output[k] /= Float(n) }
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let out = output, s = inShape, c = s.channels
        ctx.parallel { _, images in
            for n in images { Self.mean(x.pointer + n * s.count, s, out.pointer + n * c) }
        }
        return out
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad else { return nil }
        let di = dInput, s = inShape, c = s.channels, pixels = s.height * s.width
        ctx.parallel { _, images in
            for n in images {
                for p in 0..<pixels { for k in 0..<c { di[n * s.count + p * c + k] = dy[n * c + k] / Float(pixels) } }
            }
        }
        return di
    }
}
