import Foundation

/// One person's hand, learned by `WriterAdaptation` (`digits adapt`): the digit network's last
/// layer refitted to their drawings, for the one weight file it was made from. Applying it swaps
/// that layer's weights, so recognizing with a profile costs what recognizing without one does,
/// and the 0.9 filter and "not a digit" keep their meaning (the same temperature and outputs).
///
/// The file is safetensors (≤ 1 MB): tensors `weight` `(out, in)` and `bias` `(out)` in the base
/// file's own layout, and metadata `format` = `digits-profile`, `format_version`, `base_weights`
/// (`ModelFile.weightsID` of the base), `layer_weight` / `layer_bias` (the base tensors they
/// replace), `blend` (the share of the refit kept, chosen by cross-validation on the writer's
/// drawings; 0 keeps the base), and a record of what it learned from (`drawings`, `per_digit`,
/// the writer's cross-validated figures before and after).
public struct WriterProfile: Sendable {
    public static let format = "digits-profile"
    public static let formatVersion = "1"
    /// The largest size of a value of a profile's tensors (a refit stays near the base's weights,
    /// of order 1; beyond this the logits could overflow).
    public static let largestValue: Float = 10_000
    /// A profile is one layer's weights and a few lines of record: anything bigger is not one.
    public static let maxFileBytes = 1 << 20

    /// `ModelFile.weightsID` of the weights this profile adapts.
    public var baseWeights: String
    /// The names of the base tensors it replaces.
    public var layerWeight: String
    public var layerBias: String?
    /// The adapted layer, `(out, in)` and `(out)`, in the base file's layout.
    public var weight: SafetensorsFile.Tensor
    public var bias: SafetensorsFile.Tensor?
    /// The share of the refit kept (0…1): what cross-validation chose.
    public var blend: Float
    /// What the profile learned from and how it did (`drawings`, `per_digit`, `validation_*`).
    public var record: [String: String]

    public init(baseWeights: String, layerWeight: String, layerBias: String?, weight: SafetensorsFile.Tensor,
                bias: SafetensorsFile.Tensor?, blend: Float, record: [String: String] = [:]) {
        self.baseWeights = baseWeights
        self.layerWeight = layerWeight
        self.layerBias = layerBias
        self.weight = weight
        self.bias = bias
        self.blend = blend
        self.record = record
    }

    /// How many labelled drawings (and digits cut from numbers) it learned from.
    public var drawingCount: Int { record["drawings"].flatMap { Int($0) } ?? 0 }

    public static func load(path: String) throws -> WriterProfile {
        try parse(FileIO.read(path, limit: maxFileBytes), file: path)
    }

    /// Validates a profile in memory: the container, the format and version, the metadata, and
    /// the tensors' shapes and values. Whether it fits a weight file is `apply(to:)`'s check.
    public static func parse(_ bytes: [UInt8], file path: String) throws -> WriterProfile {
        guard bytes.count <= maxFileBytes else {
            throw DigitError(.limit, file: path, "\(bytes.count) bytes; a profile is at most \(maxFileBytes)")
        }
        let f = try SafetensorsFile.parse(bytes, file: path)
        let m = f.metadata
        func require(_ key: String) throws -> String {
            guard let v = m[key], !v.isEmpty else { throw DigitError(.format, file: path, at: "metadata", "missing key '\(key)'") }
            return v
        }
        guard m["format"] == format else {
            throw DigitError(.format, file: path, at: "metadata 'format'",
                             "expected '\(format)' (a profile written by digits adapt), found '\((m["format"] ?? "").prefix(40))'")
        }
        guard try require("format_version") == formatVersion else {
            throw DigitError(.format, file: path, at: "metadata 'format_version'",
                             "version '\(m["format_version"]!.prefix(20))' is not supported (this build reads \(formatVersion))")
        }
        guard let blend = Float(try require("blend")), blend.isFinite, (0...1).contains(blend) else {
            throw DigitError(.format, file: path, at: "metadata 'blend'", "expected a number from 0 to 1")
        }
        guard let weight = f.tensors["weight"], weight.shape.count == 2, weight.shape.allSatisfy({ $0 > 0 }) else {
            throw DigitError(.format, file: path, at: "tensor 'weight'", "missing, or not a matrix")
        }
        let bias = f.tensors["bias"]
        if let bias, bias.shape != [weight.shape[0]] {
            throw DigitError(.format, file: path, at: "tensor 'bias'", "shape \(bias.shape), expected [\(weight.shape[0])]")
        }
        if let extra = f.tensors.keys.filter({ $0 != "weight" && $0 != "bias" }).sorted().first {
            throw DigitError(.format, file: path, at: "tensor '\(extra)'", "a profile holds only 'weight' and 'bias'")
        }
        for (name, t) in [("weight", weight), ("bias", bias)] where t != nil {
            if let i = t!.values.firstIndex(where: { !$0.isFinite }) {
                throw DigitError(.format, file: path, at: "tensor '\(name)'[\(i)]", "not a finite number")
            }
            // A refitted last layer stays near the base's (of order 1); a value far beyond makes
            // the logits overflow to infinity and the probabilities not numbers.
            if let i = t!.values.firstIndex(where: { abs($0) > Self.largestValue }) {
                throw DigitError(.format, file: path, at: "tensor '\(name)'[\(i)]",
                                 "\(t!.values[i]) is out of range (a profile's values are at most \(Int(Self.largestValue)) in size)")
            }
        }
        var record = m
        for key in ["format", "format_version", "blend", "base_weights", "layer_weight", "layer_bias"] { record[key] = nil }
        let layerBias = m["layer_bias"]
        guard (layerBias == nil) == (bias == nil) else {
            throw DigitError(.format, file: path, at: "metadata 'layer_bias'", "names a bias tensor only when the profile has one")
        }
        return WriterProfile(baseWeights: try require("base_weights"), layerWeight: try require("layer_weight"),
                             layerBias: layerBias, weight: weight, bias: bias, blend: blend, record: record)
    }

    public var metadata: [String: String] {
        var m = record
        m["format"] = Self.format
        m["format_version"] = Self.formatVersion
        m["base_weights"] = baseWeights
        m["layer_weight"] = layerWeight
        m["layer_bias"] = layerBias
        m["blend"] = "\(blend)"
        return m
    }

    /// Writes the file atomically.
    public func write(to path: String) throws {
        var tensors = ["weight": weight]
        if let bias { tensors["bias"] = bias }
        try SafetensorsFile(tensors: tensors, metadata: metadata).write(to: path)
    }

    /// `model` with this profile's layer in place of its own. Refused, naming `file` (the
    /// profile's path), when the profile was made for other weights or its tensors do not fit.
    public func apply(to model: ModelFile, file: String = "profile") throws -> ModelFile {
        guard model.weightsID == baseWeights else {
            throw DigitError(.usage, file: file, "this profile adapts the weights \(baseWeights), not these (\(model.weightsID)): "
                             + "make a profile for these weights with digits adapt, or use the weights it was made for")
        }
        guard model.tensors[layerWeight]?.shape == weight.shape,
              layerBias.map({ model.tensors[$0]?.shape == bias?.shape }) ?? true else {
            throw DigitError(.format, file: file, at: "tensor 'weight'", "does not fit the layer '\(layerWeight)' of the weights")
        }
        var m = model
        m.tensors[layerWeight] = weight
        if let layerBias, let bias { m.tensors[layerBias] = bias }
        m.provenance["profile"] = (file as NSString).lastPathComponent
        return m
    }
}

extension ModelFile {
    /// Names these weights: FNV-1a (64 bits, hex) over the tensors' names, shapes and values in
    /// name order, so a profile knows the one file it adapts (whatever the file is called).
    public var weightsID: String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ b: UInt8) { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        for name in tensors.keys.sorted() {
            let t = tensors[name]!
            for b in name.utf8 { mix(b) }
            func mix32(_ u: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { mix(UInt8(truncatingIfNeeded: u >> UInt32(shift))) } }
            for d in t.shape { mix32(UInt32(truncatingIfNeeded: d)) }
            for v in t.values { mix32(v.bitPattern) }
        }
        return String(format: "%016llx", h)
    }
}
