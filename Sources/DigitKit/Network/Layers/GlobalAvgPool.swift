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
        RowMeanInference(input: input, output: try outputShape(for: input), scaling: .divide,
                         name: "global avgpool", summary: "global_avgpool")
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        RowMeanTraining(inShape: input, outShape: ActivationShape(height: 1, width: 1, channels: input.channels),
                        capacity: capacity, scaling: .divide)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("GlobalAveragePool", [input])
    }
}
