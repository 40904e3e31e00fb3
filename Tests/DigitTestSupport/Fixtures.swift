import DigitKit
import Foundation
import XCTest

/// Small inputs for the robustness tests.
public enum RobustnessFixtures {
    /// A small valid weight file: flatten and one linear layer 784 → 10 with seeded weights.
    public static func tinyModel() -> ModelFile {
        var rng = SplitMix64(seed: 42)
        let weights = (0..<7840).map { _ in rng.uniform(-0.05, 0.05) }
        let bias = (0..<10).map { _ in rng.uniform(-0.1, 0.1) }
        return ModelFile(layers: [Flatten(), Linear("fc", outCount: 10)],
                         tensors: ["fc.weight": TensorData(shape: [10, 784], values: weights),
                                   "fc.bias": TensorData(shape: [10], values: bias)],
                         inputMean: 0.1307, inputStd: 0.3081)
    }

    /// A profile (`WriterProfile`) for the weights at `weightsPath`, learned in a moment from a
    /// few seeded scribbles (2 refit steps, no copies, 20 anchors), written as `name` in `folder`;
    /// returns its path. For tests of where a profile is accepted, not of what it learns.
    public static func writeQuickProfile(for weightsPath: String, in folder: URL,
                                         name: String = "quick.safetensors") throws -> String {
        let model = try ModelFile.load(path: weightsPath)
        var rng = SplitMix64(seed: 5)
        let examples = (0..<4).map { i in
            WriterAdaptation.Example(pixels: (0..<784).map { _ in rng.nextFloat() < 0.15 ? 1 : 0 }, label: i % 10, group: i)
        }
        var options = WriterAdaptation.Options()
        options.copies = 0
        options.steps = 2
        options.anchors = 20
        options.folds = 2
        let path = folder.appendingPathComponent(name).path
        try WriterAdaptation(options: options).adapt(model: model, examples: examples, threads: 1).profile.write(to: path)
        return path
    }

    /// Writes `tinyModel()` into `folder` and returns its path.
    public static func writeTinyModel(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("tiny.safetensors").path
        try tinyModel().write(to: path)
        return path
    }

    /// An IDX image file of `count` 28×28 images and its label file: digit `i % 10` drawn as a
    /// bar whose position depends on the label, plus seeded noise, so a network can learn it.
    public static func writeSyntheticMNIST(in folder: URL, split: String, count: Int, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var images: [UInt8] = [0, 0, 8, 3] + bigEndian(count) + bigEndian(28) + bigEndian(28)
        var labels: [UInt8] = [0, 0, 8, 1] + bigEndian(count)
        for i in 0..<count {
            let label = i % 10
            labels.append(UInt8(label))
            for y in 0..<28 {
                for x in 0..<28 {
                    let ink = (x >= 4 + 2 * label && x < 7 + 2 * label && y > 4 && y < 24) || (y == 3 + 2 * label && x > 5)
                    let noise = Int(rng.next() % 40)
                    images.append(UInt8(min(255, (ink ? 200 : 0) + noise)))
                }
            }
        }
        try Data(images).write(to: folder.appendingPathComponent("\(split)-images-idx3-ubyte"))
        try Data(labels).write(to: folder.appendingPathComponent("\(split)-labels-idx1-ubyte"))
    }

    public static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A UNIPEN distribution in miniature, laid out as NIST ships `train_r01_v07`, written into
    /// `folder`; returns the path of its data file `data/lab/wr01.dat`. That file holds only the
    /// segments (7, 1, 4, as components 0, 1, 2-3); its headers and ink are `.INCLUDE`d:
    /// - `lab/lab.doc` (`.COORD`, `.HIERARCHY`, `.Y_DIM 600`) and `lab/ink/alice.dat` (the 7 and
    ///   the 1, writer `alice`) from `include/`, the include folder of an ancestor;
    /// - `ink/bob.dat` (the 4 in two strokes, writer 17) from a sub-folder beside the data file.
    /// y grows upward: the 7 reads back as (100, 100) (140, 100) (180, 100) (150, 150) (120, 200).
    public static func unipenDistribution(in folder: URL) throws -> String {
        let files = [
            "data/lab/wr01.dat": """
                .VERSION 1.0
                .INCLUDE lab/lab.doc
                .INCLUDE lab/ink/alice.dat
                .INCLUDE ink/bob.dat
                .SEGMENT CHARACTER 0 OK "7"
                .SEGMENT CHARACTER 1 OK "1"
                .SEGMENT CHARACTER 2-3 OK "4"

                """,
            "include/lab/lab.doc": """
                .COORD X Y
                .HIERARCHY PAGE TEXTLINE WORD CHARACTER
                .Y_DIM 600

                """,
            "include/lab/ink/alice.dat": """
                .WRITER_ID alice
                .PEN_DOWN
                100 500
                140 500
                180 500
                150 450
                120 400
                .PEN_UP
                .PEN_DOWN
                300 500
                300 400
                .PEN_UP

                """,
            "data/lab/ink/bob.dat": """
                .WRITER_ID 17
                .PEN_DOWN
                400 520 390 470 430 470
                .PEN_DOWN
                420 520 420 420
                .PEN_UP

                """,
        ]
        for (relative, text) in files {
            let url = folder.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return folder.appendingPathComponent("data/lab/wr01.dat").path
    }

    /// A UNIPEN file of `digits` digits with `points` points each (pendigits-like).
    public static func unipen(digits: Int, points: Int) -> String {
        var text = ".INCLUDE dene.doc\n.HIERARCHY DIGIT\n\n"
        text.reserveCapacity(digits * (points * 9 + 80))
        for d in 0..<digits {
            text += ".SEGMENT DIGIT \(d) ? \"\(d % 10)\"\n.COMMENT \(d % 10) \(d % 30) \(d)\n.PEN_DOWN\n"
            for p in 0..<points { text += " \(100 + (p * 37 + d) % 300) \(100 + (p * 53 + 7 * d) % 300)\n" }
            text += ".PEN_UP\n.DT 100\n\n"
        }
        return text
    }
}

/// A small valid weight file: 28×28 → conv 1→4 3×3 pad 1 → batch norm → ReLU → max pool 4 →
/// 4×7×7 → flatten → linear 196→10. About 2,000 parameters, with seeded random values.
public enum SmallModel {
    public static let layers: [any Layer] = [
        Conv2D("conv", outChannels: 4, kernel: 3, padding: 1), BatchNorm2D("bn"), ReLU(), MaxPool2D(kernel: 4),
        Flatten(), Linear("fc", outCount: 10),
    ]

    public static func tensors(seed: UInt64 = 5) -> [String: TensorData] {
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
    public static let metadata: [String: String] = [
        "format": "digits-cnn", "format_version": "1", "classes": "0123456789",
        "input_mean": "0.1307", "input_std": "0.3081", "temperature": "1.5",
        "layers": LayerKinds.json(layers),
        "training_command": "made by the tests", "seed": "5",
    ]

    public static var model: ModelFile {
        ModelFile(layers: layers, tensors: tensors(), inputMean: 0.1307, inputStd: 0.3081, temperature: 1.5,
                  provenance: ["training_command": "made by the tests", "seed": "5"])
    }

    /// The same network with an eleventh output, "not a digit" (`ModelFile.digitAndRefusalClasses`).
    public static var refusingModel: ModelFile {
        var rng = SplitMix64(seed: 11)
        var t = tensors()
        t["fc.weight"] = TensorData(shape: [11, 196], values: rng.floats(11 * 196, -0.3, 0.3))
        t["fc.bias"] = TensorData(shape: [11], values: rng.floats(11))
        var m = ModelFile(layers: Array(layers.dropLast()) + [Linear("fc", outCount: 11)], tensors: t, inputMean: 0.1307,
                          inputStd: 0.3081, temperature: 1.5, provenance: ["training_command": "made by the tests"])
        m.classes = ModelFile.digitAndRefusalClasses
        return m
    }

    /// Writes the file `tensors` + `metadata` (both default to the valid model) to `path`.
    public static func write(to path: String, tensors: [String: TensorData]? = nil, metadata: [String: String]? = nil) throws {
        try SafetensorsFile(tensors: tensors ?? self.tensors(), metadata: metadata ?? self.metadata).write(to: path)
    }
}


public extension SplitMix64 {
    /// `count` uniform floats in [lo, hi).
    mutating func floats(_ count: Int, _ lo: Float = -1, _ hi: Float = 1) -> [Float] {
        (0..<count).map { _ in uniform(lo, hi) }
    }

    /// `bytes` damaged by 1 to 4 edits, each at a random place: a byte replaced, removed, or
    /// inserted; `newByte` draws the bytes put in.
    mutating func damaged(_ bytes: [UInt8], newByte: (inout SplitMix64) -> UInt8) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<(1 + Int(next() % 4)) {
            let position = Int(next() % UInt64(bytes.count))
            switch next() % 3 {
            case 0: bytes[position] = newByte(&self)
            case 1: bytes.remove(at: position)
            default: bytes.insert(newByte(&self), at: position)
            }
        }
        return bytes
    }
}

/// JPEG files with an EXIF orientation, as phone cameras write them.
public enum ExifFixtures {
    /// `jpeg` with an APP1 `Exif` segment right after its start-of-image marker whose IFD0 holds
    /// one entry, the orientation `value` (tag 0x0112, a SHORT), in either byte order.
    public static func withOrientation(_ jpeg: [UInt8], _ value: Int, bigEndian: Bool = true) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        let tiff: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
            + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(value) + [0, 0] + u32(0)
        let body: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + Array(jpeg[2...])
    }
}
