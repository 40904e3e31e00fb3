import Foundation

/// A named tensor as stored in a weight file: PyTorch layout, row-major, F32.
public typealias TensorData = SafetensorsFile.Tensor

extension SafetensorsFile.Tensor {
    public var count: Int { shape.reduce(1, *) }
}

/// The shipped weight file: standard safetensors with the `digits-cnn` metadata
/// (see README "Weights format"). PyTorch and ONNX users read the same file.
public struct ModelFile: Sendable {
    public static let format = "digits-cnn"
    public static let formatVersion = "1"
    /// The `classes` of a network with one output per digit.
    public static let digitClasses = "0123456789"
    /// The `classes` of a network with an eleventh output, "not a digit" (`*`).
    public static let digitAndRefusalClasses = "0123456789*"

    /// The network, in order: the layers that have an entry in the file (no dropout).
    public var layers: [any Layer]
    /// The network's outputs in order: `0123456789`, or `0123456789*` with "not a digit" last.
    public var classes: String = ModelFile.digitClasses
    public var tensors: [String: TensorData]
    public var inputMean: Float
    public var inputStd: Float
    /// Softmax temperature applied to the logits before the confidence filter.
    public var temperature: Float
    /// A line model's horizontal stretch (metadata `input_stretch`, 1 when absent): a strip is
    /// widened this many times before the model reads it, as it was when the model trained, so
    /// that a digit spans more of its columns (CTC needs a column between two equal digits).
    public var lineStretch: Float = 1
    /// Provenance and other free-form metadata (string values), written after the required keys.
    public var provenance: [String: String]
    /// The file it was read from (`load(path:)`): errors of the networks made from it name it.
    public var source: String?

    public init(layers: [any Layer], tensors: [String: TensorData], inputMean: Float, inputStd: Float,
                temperature: Float = 1, provenance: [String: String] = [:]) {
        self.layers = layers
        self.tensors = tensors
        self.inputMean = inputMean
        self.inputStd = inputStd
        self.temperature = temperature
        self.provenance = provenance
    }

    /// Reads and validates a weight file: the safetensors container, the required metadata, and
    /// (by building it) the network it describes. Errors name the file and the key or layer.
    /// `checksNetwork` false leaves the network's check to the first `makeNetwork`, which throws
    /// the same errors (for a caller that builds it at once: checking it twice costs a
    /// cold start about a tenth of its time).
    public static func load(path: String, checksNetwork: Bool = true) throws -> ModelFile {
        var model = try parse(FileIO.read(path, limit: SafetensorsFile.maxFileBytes), file: path, checksNetwork: checksNetwork)
        model.source = path
        return model
    }

    /// Validates a weight file already in memory, as `load(path:)` does; `path` names it in errors.
    public static func parse(_ bytes: [UInt8], file path: String, checksNetwork: Bool = true) throws -> ModelFile {
        let file = try SafetensorsFile.parse(bytes, file: path)
        let m = file.metadata
        func require(_ key: String) throws -> String {
            guard let v = m[key] else { throw DigitError(.format, file: path, at: "metadata", "missing key '\(key)'") }
            return v
        }
        guard try require("format") == format else {
            throw DigitError(.format, file: path, at: "metadata 'format'", "expected '\(format)', found '\(m["format"] ?? "")'")
        }
        guard try require("format_version") == formatVersion else {
            throw DigitError(.format, file: path, at: "metadata 'format_version'",
                             "version '\(m["format_version"] ?? "")' is not supported (this build reads \(formatVersion))")
        }
        let classes = try require("classes")
        guard classes == digitClasses || classes == digitAndRefusalClasses || classes == LineSymbols.classes else {
            throw DigitError(.format, file: path, at: "metadata 'classes'",
                             "expected '\(digitClasses)' or '\(digitAndRefusalClasses)' (* = not a digit), or a line model's '\(LineSymbols.classes)', found '\(classes.prefix(40))'")
        }
        if classes == LineSymbols.classes, m["input_height"] != String(LineImage.height) {
            throw DigitError(.format, file: path, at: "metadata 'input_height'",
                             "a line model takes lines \(LineImage.height) pixels tall, found '\(m["input_height"] ?? "")'")
        }
        func number(_ key: String) throws -> Float {
            guard let v = Float(try require(key)), v.isFinite else {
                throw DigitError(.format, file: path, at: "metadata '\(key)'", "expected a finite number, found '\(m[key] ?? "")'")
            }
            return v
        }
        let stretch = classes == LineSymbols.classes && m["input_stretch"] != nil ? try number("input_stretch") : 1
        guard Self.lineStretches.contains(stretch) else {
            throw DigitError(.format, file: path, at: "metadata 'input_stretch'",
                             "a line model's stretch is \(Self.lineStretches.lowerBound)…\(Self.lineStretches.upperBound), found '\(m["input_stretch"] ?? "")'")
        }
        let mean = try number("input_mean"), std = try number("input_std"), temperature = try number("temperature")
        guard std > 0 else { throw DigitError(.format, file: path, at: "metadata 'input_std'", "must be positive") }
        guard temperature > 0 else { throw DigitError(.format, file: path, at: "metadata 'temperature'", "must be positive") }
        let layers = try LayerKinds.parse(try require("layers"), file: path, tensors: file.tensors)
        var provenance = m
        for key in ["format", "format_version", "classes", "input_mean", "input_std", "temperature", "layers", "input_height", "input_stretch"] {
            provenance[key] = nil
        }
        var model = ModelFile(layers: layers, tensors: file.tensors, inputMean: mean, inputStd: std,
                              temperature: temperature, provenance: provenance)
        model.classes = classes
        model.lineStretch = stretch
        model.source = path
        guard checksNetwork else { return model }
        try InferenceNetwork.validate(layers: layers, tensors: file.tensors, inputMean: mean, inputStd: std, outputs: classes.count,
                                      file: path, input: model.inputShape(width: 128))
        return model
    }

    /// The stretches a line model may declare.
    public static let lineStretches: ClosedRange<Float> = 0.5...4

    /// Whether this is a line model (`LineReader`): it reads a whole line of writing, 32 pixels
    /// tall, into one row of columns scoring `LineSymbols.classes`, instead of one 28×28 digit.
    public var isLineModel: Bool { classes == LineSymbols.classes }

    /// The inference network this file describes; a line model's for lines `width` pixels wide.
    public func makeNetwork(file: String? = nil, kernels: KernelVariant = .active, width: Int = 128) throws -> InferenceNetwork {
        try InferenceNetwork(layers: layers, tensors: tensors, inputMean: inputMean, inputStd: inputStd,
                             outputs: classes.count, file: file ?? source ?? "weights", kernels: kernels, input: inputShape(width: width))
    }

    /// What the network reads: one 28×28 digit, or a line model's line `width` pixels wide.
    func inputShape(width: Int) -> ActivationShape {
        let side = InferenceNetwork.inputSize
        return isLineModel ? ActivationShape(height: LineImage.height, width: width, channels: 1)
            : ActivationShape(height: side, width: side, channels: 1)
    }

    public var metadata: [String: String] {
        var m = provenance
        m["format"] = Self.format
        m["format_version"] = Self.formatVersion
        m["classes"] = classes
        m["input_mean"] = "\(inputMean)"
        m["input_std"] = "\(inputStd)"
        m["temperature"] = temperature == 1 ? "1" : "\(temperature)"
        m["layers"] = LayerKinds.json(layers)
        if isLineModel {
            m["input_height"] = String(LineImage.height)
            if lineStretch != 1 { m["input_stretch"] = "\(lineStretch)" }
        }
        return m
    }

    /// Writes the file atomically.
    public func write(to path: String) throws {
        try SafetensorsFile(tensors: tensors, metadata: metadata).write(to: path)
    }
}

