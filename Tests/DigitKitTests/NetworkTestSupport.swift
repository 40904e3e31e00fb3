@testable import DigitKit
import Foundation
import XCTest

// Helpers shared by the network, training, weight-file and CLI tests.

extension SplitMix64 {
    /// `count` uniform floats in [lo, hi).
    mutating func floats(_ count: Int, _ lo: Float = -1, _ hi: Float = 1) -> [Float] {
        (0..<count).map { _ in uniform(lo, hi) }
    }
}

extension FloatBuffer {
    /// A buffer holding a copy of `values`.
    static func of(_ values: [Float]) -> FloatBuffer { FloatBuffer(values) }

    /// The first `count` values.
    func prefix(_ count: Int) -> [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
}

/// A fresh empty folder under the system temporary folder, removed when the test ends.
func temporaryFolder(_ test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("digits-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Bit patterns, so that "equal" means bit-identical (and NaN equals NaN).
func bits(_ values: [Float]) -> [UInt32] { values.map(\.bitPattern) }

/// Labelled images held in memory (pixels 0…1), for training runs on hand-made data.
struct ArraySamples: SampleSource {
    var pixels: [Float]   // count × 784
    var labels: [Int]

    var count: Int { labels.count }
    func label(_ i: Int) -> Int { labels[i] }
    func render(_ i: Int, augment: Bool, rng: inout SplitMix64, into out: UnsafeMutablePointer<Float>) {
        for j in 0..<784 { out[j] = pixels[i * 784 + j] }
    }
}

/// A small valid weight file: 28×28 → conv 1→4 3×3 pad 1 → batch norm → ReLU → max pool 4 →
/// 4×7×7 → flatten → linear 196→10. About 2,000 parameters, with seeded random values.
enum SmallModel {
    static let layers: [LayerSpec] = [
        .conv2d(weight: "conv.weight", bias: "conv.bias", stride: 1, padding: 1),
        .batchnorm2d(weight: "bn.weight", bias: "bn.bias", runningMean: "bn.running_mean", runningVar: "bn.running_var", eps: 1e-5),
        .relu,
        .maxpool2d(kernel: 4, stride: 4),
        .flatten,
        .linear(weight: "fc.weight", bias: "fc.bias"),
    ]

    static func tensors(seed: UInt64 = 5) -> [String: TensorData] {
        var rng = SplitMix64(seed: seed)
        return [
            "conv.weight": TensorData(shape: [4, 1, 3, 3], values: rng.floats(36)),
            "conv.bias": TensorData(shape: [4], values: rng.floats(4)),
            "bn.weight": TensorData(shape: [4], values: rng.floats(4, 0.5, 1.5)),
            "bn.bias": TensorData(shape: [4], values: rng.floats(4)),
            "bn.running_mean": TensorData(shape: [4], values: rng.floats(4)),
            "bn.running_var": TensorData(shape: [4], values: rng.floats(4, 0.5, 2)),
            "fc.weight": TensorData(shape: [10, 196], values: rng.floats(1960, -0.3, 0.3)),
            "fc.bias": TensorData(shape: [10], values: rng.floats(10)),
        ]
    }

    /// The metadata `ModelFile` writes for this network, as plain strings (so a test can break one).
    static let metadata: [String: String] = [
        "format": "digits-cnn", "format_version": "1", "classes": "0123456789",
        "input_mean": "0.1307", "input_std": "0.3081", "temperature": "1.5",
        "layers": LayerSpec.jsonArray(layers),
        "training_command": "made by the tests", "seed": "5",
    ]

    static var model: ModelFile {
        ModelFile(layers: layers, tensors: tensors(), inputMean: 0.1307, inputStd: 0.3081, temperature: 1.5,
                  provenance: ["training_command": "made by the tests", "seed": "5"])
    }

    /// Writes the file `tensors` + `metadata` (both default to the valid model) to `path`.
    static func write(to path: String, tensors: [String: TensorData]? = nil, metadata: [String: String]? = nil) throws {
        try SafetensorsFile(tensors: tensors ?? self.tensors(), metadata: metadata ?? self.metadata).write(to: path)
    }
}
