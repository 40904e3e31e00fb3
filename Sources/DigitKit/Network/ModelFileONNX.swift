import Foundation

extension ModelFile {
    /// The names the exported graph gives its input, output and normalization.
    static let onnxNames = (input: "pixels", output: "logits", centered: "centered", mean: "input_mean", std: "input_std")

    /// The network as an ONNX model (IR version 8, opset 17), the graph PyTorch would export:
    /// input `pixels` `(N, 1, 28, 28)` float in 0…1 (0 = background, 1 = ink), normalized inside by
    /// `Sub input_mean` and `Div input_std`, then each layer's own operators (`Layer.onnx`), NCHW,
    /// and an `Identity` to the output `logits` `(N, classes)`. The softmax temperature is not part of it.
    /// Weights are the file's tensors unchanged (batch norm not folded: runtimes fold it themselves).
    /// The network is built first (`makeNetwork`), so the model holds what digits itself runs;
    /// errors name `file` and the layer.
    public func onnx(file: String = "weights") throws -> [UInt8] {
        let classCount = try makeNetwork(file: file).classCount
        let names = Self.onnxNames
        let fixed = [names.input, names.output, names.centered, names.mean, names.std]
        if let clash = fixed.first(where: { tensors[$0] != nil }) {
            throw DigitError(.format, file: file, at: "tensor '\(clash)'", "the ONNX export uses this name for its own value")
        }
        var graph = ONNXGraph(name: "digits-cnn")
        graph.producerVersion = DigitKitVersion.string
        graph.reserve(fixed + tensors.keys.sorted())
        let size = InferenceNetwork.inputSize
        graph.addInput(names.input, dims: [.named("N"), .fixed(1), .fixed(size), .fixed(size)])
        try graph.addInitializer(names.mean, dims: [], values: [inputMean])
        try graph.addInitializer(names.std, dims: [], values: [inputStd])
        graph.addNode("Sub", inputs: [names.input, names.mean], outputs: [names.centered])
        var value = graph.node("Div", [names.centered, names.std])
        var entryIndex = 0
        for layer in layers {
            let path = "layers[\(entryIndex)]"
            if type(of: layer).typeName != nil { entryIndex += 1 }
            do { value = try layer.onnx(&graph, input: value, tensors: tensors) } catch let e as DigitError {
                throw DigitError(e.kind, file: file, at: [path, e.location].compactMap { $0 }.joined(separator: ": "), e.message)
            }
        }
        graph.addNode("Identity", inputs: [value], outputs: [names.output])
        graph.addOutput(names.output, dims: [.named("N"), .fixed(classCount)])
        return graph.serialized()
    }
}

extension ONNXGraph {
    /// Adds the named tensors of a weight file as initializers (nil names are skipped: a layer's
    /// optional bias) and returns their names.
    public mutating func initializers(_ names: [String?], from tensors: [String: TensorData]) throws -> [String] {
        try names.compactMap { $0 }.map { name in
            guard let t = tensors[name] else { throw DigitError(.format, at: "tensor '\(name)'", "is not in the weight file") }
            return try addInitializer(name, dims: t.shape, values: t.values)
        }
    }
}
