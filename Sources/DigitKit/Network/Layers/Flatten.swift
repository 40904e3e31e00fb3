import Foundation

/// Flattens the activation for a linear layer. Weight file: `flatten`, meaning PyTorch's NCHW
/// order; the activations here are NHWC, so the linear layer after it permutes its weight columns
/// once (at load and at export) and nothing moves at run time.
public struct Flatten: Layer {
    public static let typeName: String? = "flatten"
    public init() {}
    public init(entry: LayerEntry) throws {}
    public var entryFields: [(key: String, value: String)]? { [] }
    public var description: String { "flatten" }

    public func outputShape(for input: ActivationShape) throws -> ActivationShape {
        ActivationShape(height: 1, width: 1, channels: input.count)
    }

    public func inference(input: ActivationShape, tensors: inout TensorReader) throws -> InferenceOp? { nil }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        FlattenTraining(inShape: input, outShape: ActivationShape(height: 1, width: 1, channels: input.count), capacity: capacity)
    }

    /// ONNX activations are NCHW: this is PyTorch's flatten, and the linear weights after it go in unchanged.
    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("Flatten", [input], [.int("axis", 1)])
    }
}

/// The identity on the buffer; only the shape changes.
final class FlattenTraining: TrainingLayer {}
