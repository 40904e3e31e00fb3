import DigitKernels
import Foundation

/// Max pooling, no padding (floor mode). Weight file: `maxpool2d` with `kernel` and `stride`
/// (default: the kernel). Backward routes each gradient to the first input position that held the
/// maximum, as PyTorch does.
public struct MaxPool2D: PoolingLayer {
    public static let typeName: String? = "maxpool2d"
    public var kernel: Int, stride: Int

    public init(kernel: Int = 2, stride: Int? = nil) {
        self.kernel = kernel
        self.stride = stride ?? kernel
    }

    public var description: String { kernel == 2 && stride == 2 ? "maxpool" : "maxpool\(kernel)s\(stride)" }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        MaxPoolInference(layer: self, input: input, output: try outputShape(for: input))
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        MaxPoolTraining(layer: self, input: input, capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("MaxPool", [input], [.ints("kernel_shape", [kernel, kernel]), .ints("strides", [stride, stride])])
    }
}

final class MaxPoolInference: InferenceOp {
    let layer: MaxPool2D
    init(layer: MaxPool2D, input: ActivationShape, output: ActivationShape) {
        self.layer = layer
        super.init(input: input, output: output)
    }

    private var is2x2: Bool { layer.kernel == 2 && layer.stride == 2 }
    override var writesRows: Bool { is2x2 }
    override var name: String { "maxpool \(layer.kernel)×\(layer.kernel) → \(output)" }
    override var summary: String { "maxpool2d \(layer.kernel)×\(layer.kernel) s\(layer.stride)" }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        let s = self.input
        if is2x2 {
            kernels.pointee.max_pool_2x2(input, s.height, s.width, s.channels, output, outputRowStride)
        } else {
            dk_ref_max_pool(input, s.height, s.width, s.channels, layer.kernel, layer.stride, output)
        }
    }
}

final class MaxPoolTraining: TrainingLayer {
    let layer: MaxPool2D
    private let output: FloatBuffer, dInput: FloatBuffer
    private var input: FloatBuffer?

    init(layer: MaxPool2D, input: ActivationShape, capacity: Int) {
        self.layer = layer
        let out = (try? layer.outputShape(for: input)) ?? input
        output = FloatBuffer(count: capacity * out.count)
        dInput = FloatBuffer(count: capacity * input.count)
        super.init(inShape: input, outShape: out, capacity: capacity)
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        input = x
        let s = inShape, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { _, images in
            for n in images {
                dk_ref_max_pool(x.pointer + n * inCount, s.height, s.width, s.channels, layer.kernel, layer.stride,
                                output.pointer + n * outCount)
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad, let x = input else { return nil }
        let s = inShape, inCount = inShape.count, outCount = outShape.count
        ctx.parallel { _, images in
            for n in images {
                let di = dInput.pointer + n * inCount
                di.update(repeating: 0, count: inCount)
                dk_max_pool_backward(x.pointer + n * inCount, output.pointer + n * outCount, dy.pointer + n * outCount,
                                     s.height, s.width, s.channels, layer.kernel, layer.stride, di)
            }
        }
        return dInput
    }
}
