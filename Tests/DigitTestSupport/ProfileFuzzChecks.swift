import DigitKit
import Foundation

/// The properties the personal-profile reader (`WriterProfile`) keeps on every input: the
/// `profiles` fuzz target; `FuzzCorpusTests` replays its seeds (`Fixtures/fuzz/profiles/`, made
/// for `profileBase`).
extension FuzzChecks {
    /// A tiny digit network that ends in a linear layer (2 channels of 3×3 convolution, 2×2
    /// pooling, flatten, 11 outputs): what the profile seeds adapt.
    public static let profileBase: ModelFile = {
        let features = 2 * 14 * 14
        var model = ModelFile(layers: [Conv2D("conv", outChannels: 2, kernel: 3, padding: 1), ReLU(), MaxPool2D(), Flatten(),
                                       Linear("fc", outCount: 11)],
                              tensors: ["conv.weight": TensorData(shape: [2, 1, 3, 3], values: (0..<18).map { Float($0 % 5) / 4 - 0.5 }),
                                        "conv.bias": TensorData(shape: [2], values: [0.1, -0.1]),
                                        "fc.weight": TensorData(shape: [11, features], values: (0..<(11 * features)).map { Float(($0 * 7919) % 201 - 100) / 2000 }),
                                        "fc.bias": TensorData(shape: [11], values: [Float](repeating: 0, count: 11))],
                              inputMean: 0.13, inputStd: 0.31, temperature: 1, provenance: [:])
        model.classes = ModelFile.digitAndRefusalClasses
        return model
    }()

    /// The bytes as a profile file: refused with a `DigitError` naming the file, or a profile whose
    /// blend is in 0…1, whose tensors are finite and shaped (out, in) and (out), that writes and
    /// reads back the same; applied to `profileBase` it is refused (made for other weights, or not
    /// fitting its layer) with a `DigitError`, or gives a model that recognizes a drawing.
    public static func profiles(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let name = "fuzz-profile.safetensors"
        let profile: WriterProfile
        do { profile = try WriterProfile.parse(bytes, file: name) } catch { return checkError(error, source: name) }
        if !(0...1).contains(profile.blend) { problems.append("blend \(profile.blend) outside 0...1") }
        if profile.weight.shape.count != 2 || profile.weight.values.count != profile.weight.shape.reduce(1, *) {
            problems.append("weight shape \(profile.weight.shape) with \(profile.weight.values.count) values")
        }
        if let bias = profile.bias, bias.shape != [profile.weight.shape[0]] { problems.append("bias shape \(bias.shape)") }
        if (profile.weight.values + (profile.bias?.values ?? [])).contains(where: { !$0.isFinite }) { problems.append("a value is not finite") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-profile-\(getpid()).safetensors").path
        do {
            try profile.write(to: path)
            let again = try WriterProfile.load(path: path)
            if again.weight != profile.weight || again.bias != profile.bias || again.blend != profile.blend
                || again.baseWeights != profile.baseWeights || again.record != profile.record {
                problems.append("written and read back, the profile differs")
            }
        } catch {
            problems.append("a profile that was read could not be written and read back: \(error)")
        }
        try? FileManager.default.removeItem(atPath: path)
        do {
            let model = try profile.apply(to: profileBase, file: name)
            let r = try DigitRecognizer(model: model).recognize(Drawing(strokes: [[StrokePoint(x: 0, y: 0), StrokePoint(x: 10, y: 30)]]))
            if r.probabilities.count != 10 || !r.confidence.isFinite { problems.append("the adapted model answers \(r.probabilities)") }
            if model.provenance["profile"] == nil { problems.append("the adapted model does not name its profile") }
        } catch {
            problems += checkError(error, source: name)
        }
        return problems
    }
}
