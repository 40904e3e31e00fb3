import DigitKernels
import Foundation

/// Each column's rows laid side by side as its channels (H×W×C → 1×W×(H·C), channel y·C + c):
/// what turns a line model's feature map into a sequence of columns for CTC while keeping where
/// in the column a feature was (the top of a 9 against the bottom of a 6, a mark on the base
/// line), which `HeightPool`'s mean loses. Weight file: `height_flatten`.
public struct HeightFlatten: Layer {
    public static let typeName: String? = "height_flatten"
    public init() {}
    public init(entry: LayerEntry) throws {}
    public var entryFields: [(key: String, value: String)]? { [] }
    public var description: String { "hflatten" }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        ActivationShape(height: 1, width: input.width, channels: input.height * input.channels)
    }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? {
        HeightFlattenInference(input: input, output: try outputShape(for: input))
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        HeightFlattenTraining(inShape: input, outShape: ActivationShape(height: 1, width: input.width, channels: input.height * input.channels),
                              capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        throw DigitError(.usage, "a line model (height_flatten) has no ONNX export; the ONNX export is for digit classifiers")
    }
}

final class HeightFlattenInference: InferenceOp {
    override var name: String { "height flatten → \(output)" }
    override var summary: String { "height_flatten" }

    override func run(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, outputRowStride: Int,
                      kernels: UnsafePointer<dk_kernels>, scratch: UnsafeMutablePointer<Float>) {
        HeightFlattenTraining.move(input, self.input, output, back: false)
    }
}

final class HeightFlattenTraining: TrainingLayer {
    private lazy var output = FloatBuffer(count: capacity * outShape.count)
    private lazy var dInput = FloatBuffer(count: capacity * inShape.count)

    /// Input (y, x, c) ↔ output (x, y·C + c); `back` moves the other way (a gradient).
    static func move(_ from: UnsafePointer<Float>, _ shape: ActivationShape, _ to: UnsafeMutablePointer<Float>, back: Bool) {
        let c = shape.channels, h = shape.height, w = shape.width
        for y in 0..<h {
            for x in 0..<w {
                let a = (y * w + x) * c, b = (x * h + y) * c
                for k in 0..<c {
                    if back { to[a + k] = from[b + k] } else { to[b + k] = from[a + k] }
                }
            }
        }
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        let out = output, s = inShape
        ctx.parallel { _, images in
            for n in images { Self.move(x.pointer + n * s.count, s, out.pointer + n * s.count, back: false) }
        }
        return out
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard needInputGrad else { return nil }
        let di = dInput, s = inShape
        ctx.parallel { _, images in
            for n in images { Self.move(dy.pointer + n * s.count, s, di.pointer + n * s.count, back: true) }
        }
        return di
    }
}
