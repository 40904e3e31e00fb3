import DigitKernels
import Foundation

/// Average pooling, no padding (floor mode). Weight file: `avgpool2d` with `kernel` and `stride`
/// (default: the kernel).
public struct AvgPool2D: PoolingLayer {
    public static let typeName: String? = "avgpool2d"
    public var kernel: Int, stride: Int

    public init(kernel: Int = 2, stride: Int? = nil) {
        self.kernel = kernel
        self.stride = stride ?? kernel
    }

    public var description: String { "avgpool\(kernel)s\(stride)" }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        AvgPoolInference(kernel: kernel, stride: stride, input: input, output: try outputShape(for: input))
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        AvgPoolTraining(kernel: kernel, stride: stride, input: input, capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("AveragePool", [input], [.ints("kernel_shape", [kernel, kernel]), .ints("strides", [stride, stride])])
    }
}

final class AvgPoolInference: InferenceOp {
    let kernel: Int, stride: Int
    init(kernel: Int, stride: Int, input: ActivationShape, output: ActivationShape) {
        self.kernel = kernel
        self.stride = stride
        super.init(input: input, output: output)
    }

    override var name: String { "avgpool \(kernel)×\(kernel) → \(output)" }
    override var summary: String { "avgpool2d \(kernel)×\(kernel) s\(stride)" }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        let s = self.input
        dk_avg_pool(input, s.height, s.width, s.channels, kernel, stride, output)
    }
}

final class AvgPoolTraining: TrainingLayer {
    let kernel: Int, stride: Int
    private let output: FloatBuffer, dInput: FloatBuffer

    init(kernel: Int, stride: Int, input: ActivationShape, capacity: Int) {
        self.kernel = kernel
        self.stride = stride
        let out = (try? AvgPool2D(kernel: kernel, stride: stride).outputShape(for: input)) ?? input
        output = FloatBuffer(count: capacity * out.count)
        dInput = FloatBuffer(count: capacity * input.count)
        super.init(inShape: input, outShape: out, capacity: capacity)
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let s = inShape, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { _, images in
            for n in images {
                dk_avg_pool(x.pointer + n * inCount, s.height, s.width, s.channels, kernel, stride, output.pointer + n * outCount)
            }
        }
        return output
    }

    /// Each output's gradient, divided by the window size, goes to every input of its window.
    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad else { return nil }
        let s = inShape, o = outShape, c = s.channels, inCount = s.count, outCount = o.count
        let scale = 1 / Float(kernel * kernel)
        ctx.parallel { _, images in
            for n in images {
                let di = dInput.pointer + n * inCount, d = dy.pointer + n * outCount
                di.update(repeating: 0, count: inCount)
                for y in 0..<o.height { for x in 0..<o.width { for ky in 0..<kernel { for kx in 0..<kernel {
                    let i = ((y * stride + ky) * s.width + x * stride + kx) * c
                    for k in 0..<c { di[i + k] += d[(y * o.width + x) * c + k] * scale }
                } } } }
            }
        }
        return dInput
    }
}
