import Foundation

/// Inverted dropout (Srivastava et al. 2014): in training each value is zeroed with probability
/// `rate` and the rest scaled by 1/(1 - rate); the identity at inference, so weight files leave it out.
public struct Dropout: Layer {
    public static let typeName: String? = nil
    public var rate: Float

    public init(_ rate: Float) { self.rate = rate }
    public init(entry: LayerEntry) throws { rate = 0 }
    public var entryFields: [(key: String, value: String)]? { nil }
    public var description: String { "dropout\(rate)" }
    public func outputShape(for input: ActivationShape) throws -> ActivationShape { input }
    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? { nil }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        DropoutTraining(shape: input, rate: rate, capacity: capacity)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        input
    }
}

/// Writes its own output rather than working in place: a max pool before it keeps its output to
/// find, in backward, the input that held each maximum, and scaled or zeroed values would match none.
final class DropoutTraining: TrainingLayer {
    let rate: Float
    private let mask: FloatBuffer
    private let output: FloatBuffer

    init(shape: ActivationShape, rate: Float, capacity: Int) {
        self.rate = rate
        mask = FloatBuffer(count: capacity * shape.count)
        output = FloatBuffer(count: capacity * shape.count)
        super.init(inShape: shape, outShape: shape, capacity: capacity)
    }

    override func forward(_ x: FloatBuffer, _ ctx: BatchContext) -> FloatBuffer {
        guard ctx.training, rate > 0 else { return x }
        let per = inShape.count, keep = 1 - rate, scale = 1 / (1 - rate)
        let base = SplitMix64(seed: ctx.stepSeed)
        ctx.parallel { _, images in
            for n in images {
                var rng = base.derived(UInt64(n))
                let p = x.pointer + n * per, m = mask.pointer + n * per, o = output.pointer + n * per
                for i in 0..<per {
                    m[i] = rng.nextFloat() < keep ? scale : 0
                    o[i] = p[i] * m[i]
                }
            }
        }
        return output
    }

    override func backward(_ dy: FloatBuffer, _ ctx: BatchContext, needInputGrad: Bool) -> FloatBuffer? {
        guard ctx.training, rate > 0 else { return dy }
        let per = inShape.count
        ctx.parallel { _, images in
            let d = dy.pointer + images.lowerBound * per, m = mask.pointer + images.lowerBound * per
            for i in 0..<(images.count * per) { d[i] *= m[i] }
        }
        return dy
    }
}
