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
        let output = try outputShape(for: input)
        return RowMeanInference(input: input, output: output, scaling: .multiplyByReciprocal,
                                name: "height avgpool → \(output)", summary: "height_avgpool")
    }

    public func training(input: ActivationShape, capacity: Int, rng: inout SplitMix64) -> TrainingLayer {
        RowMeanTraining(inShape: input, outShape: ActivationShape(height: 1, width: input.width, channels: input.channels),
                        capacity: capacity, scaling: .multiplyByReciprocal)
    }

    public func onnx(_ graph: inout ONNXGraph, input: String, tensors: [String: TensorData]) throws -> String {
        graph.node("ReduceMean", [input], [.ints("axes", [2]), .int("keepdims", 1)])
    }
}
