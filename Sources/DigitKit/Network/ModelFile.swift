import Foundation

/// The shipped weight file: standard safetensors with the `digits-cnn` metadata
/// (see README "Weights format"). PyTorch and ONNX users read the same file.
public struct ModelFile: Sendable {
    public static let format = "digits-cnn"
    public static let formatVersion = "1"
    public static let classes = "0123456789"

    public var layers: [LayerSpec]
    public var tensors: [String: TensorData]
    public var inputMean: Float
    public var inputStd: Float
    /// Softmax temperature applied to the logits before the confidence filter.
    public var temperature: Float
    /// Provenance and other free-form metadata (string values), written after the required keys.
    public var provenance: [String: String]

    public init(layers: [LayerSpec], tensors: [String: TensorData], inputMean: Float, inputStd: Float,
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
    public static func load(path: String) throws -> ModelFile {
        try parse(FileIO.read(path, limit: SafetensorsFile.maxFileBytes), file: path)
    }

    /// Validates a weight file already in memory, as `load(path:)` does; `path` names it in errors.
    public static func parse(_ bytes: [UInt8], file path: String) throws -> ModelFile {
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
        guard try require("classes") == classes else {
            throw DigitError(.format, file: path, at: "metadata 'classes'", "expected '\(classes)'")
        }
        func number(_ key: String) throws -> Float {
            guard let v = Float(try require(key)), v.isFinite else {
                throw DigitError(.format, file: path, at: "metadata '\(key)'", "expected a finite number, found '\(m[key] ?? "")'")
            }
            return v
        }
        let mean = try number("input_mean"), std = try number("input_std"), temperature = try number("temperature")
        guard std > 0 else { throw DigitError(.format, file: path, at: "metadata 'input_std'", "must be positive") }
        guard temperature > 0 else { throw DigitError(.format, file: path, at: "metadata 'temperature'", "must be positive") }
        let layers = try LayerSpec.parseArray(try require("layers"), file: path)
        var provenance = m
        for key in ["format", "format_version", "classes", "input_mean", "input_std", "temperature", "layers"] {
            provenance[key] = nil
        }
        let model = ModelFile(layers: layers, tensors: file.tensors, inputMean: mean, inputStd: std,
                              temperature: temperature, provenance: provenance)
        _ = try model.makeNetwork(file: path)
        return model
    }

    /// The inference network this file describes.
    public func makeNetwork(file: String = "weights", kernels: KernelVariant = .active) throws -> InferenceNetwork {
        try InferenceNetwork(layers: layers, tensors: tensors, inputMean: inputMean, inputStd: inputStd, file: file, kernels: kernels)
    }

    public var metadata: [String: String] {
        var m = provenance
        m["format"] = Self.format
        m["format_version"] = Self.formatVersion
        m["classes"] = Self.classes
        m["input_mean"] = "\(inputMean)"
        m["input_std"] = "\(inputStd)"
        m["temperature"] = temperature == 1 ? "1" : "\(temperature)"
        m["layers"] = LayerSpec.jsonArray(layers)
        return m
    }

    /// Writes the file atomically.
    public func write(to path: String) throws {
        try SafetensorsFile(tensors: tensors, metadata: metadata).write(to: path)
    }
}

/// Finds the files the toolkit needs when the user does not name them.
public enum Locations {
    /// The shipped weights: `$DIGITS_WEIGHTS`, else `Weights/mnist-cnn.safetensors` under the
    /// working directory, next to the executable's build folder, or in the source tree this was built from.
    public static func defaultWeights() -> String? {
        if let env = ProcessInfo.processInfo.environment["DIGITS_WEIGHTS"], !env.isEmpty { return env }
        return firstExisting(relative: "Weights/mnist-cnn.safetensors")
    }

    /// MNIST: `$MNIST_DIR`, else `Fixtures/mnist`, else `../shared/data/mnist`.
    public static func mnistDirectory() -> String? {
        if let env = ProcessInfo.processInfo.environment["MNIST_DIR"], !env.isEmpty { return env }
        let fm = FileManager.default
        for candidate in [firstExisting(relative: "Fixtures/mnist/t10k-labels-idx1-ubyte").map { ($0 as NSString).deletingLastPathComponent },
                          firstExisting(relative: "../shared/data/mnist/t10k-labels-idx1-ubyte.gz").map { ($0 as NSString).deletingLastPathComponent }] {
            if let c = candidate, fm.fileExists(atPath: c) { return c }
        }
        return nil
    }

    /// The pendigits UNIPEN file: `$PENDIGITS_FILE`, `Fixtures/pendigits/`, `../shared/data/pendigits/`.
    public static func pendigitsFile() -> String? {
        if let env = ProcessInfo.processInfo.environment["PENDIGITS_FILE"], !env.isEmpty { return env }
        return firstExisting(relative: "Fixtures/pendigits/pendigits-orig.tra")
            ?? firstExisting(relative: "../shared/data/pendigits/pendigits-orig.tra")
    }

    /// The repository root this binary was built from (found from this source file's path).
    static let sourceRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func firstExisting(relative: String) -> String? {
        let fm = FileManager.default
        var bases = [fm.currentDirectoryPath]
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        var up = exe
        for _ in 0..<4 { bases.append(up.path); up.deleteLastPathComponent() }
        bases.append(sourceRoot)
        for base in bases {
            let path = (base as NSString).appendingPathComponent(relative)
            if fm.fileExists(atPath: path) { return (path as NSString).standardizingPath }
        }
        return nil
    }
}
