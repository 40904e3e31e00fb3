import DigitKit
import Foundation
import XCTest

/// Runs the real `digits` binary, built by `swift build` / `swift test` next to the test bundle
/// (`.build/debug/digits`).
enum DigitsBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The non-empty lines of stderr.
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// The binary, or a test failure saying how to build it.
    static func path(file: StaticString = #filePath, line: UInt = #line) -> String? {
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent().appendingPathComponent("digits")) }
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("digits")) }
        candidates.append(TestPaths.repoRoot.appendingPathComponent(".build/debug/digits"))
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) { return found.path }
        XCTFail("the digits binary is missing (looked in \(candidates.map(\.path))): run swift build first", file: file, line: line)
        return nil
    }

    /// Starts `digits args…` with stdout and stderr going to files in `scratch`.
    static func start(_ args: [String], in scratch: URL, stdin: String? = nil) throws -> (Process, URL, URL) {
        guard let binary = path() else { throw DigitError(.io, "no digits binary") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = args
        process.currentDirectoryURL = scratch
        var environment = ProcessInfo.processInfo.environment
        environment["DIGITS_WEIGHTS"] = nil
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash should end the child at once
        process.environment = environment
        let tag = UUID().uuidString
        let out = scratch.appendingPathComponent(".stdout-\(tag)"), err = scratch.appendingPathComponent(".stderr-\(tag)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let stdin {
            let input = scratch.appendingPathComponent(".stdin-\(tag)")
            try Data(stdin.utf8).write(to: input)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return (process, out, err)
    }

    /// Waits for a started process (killing it after `timeout` seconds) and collects its output.
    static func finish(_ started: (Process, URL, URL), timeout: Double = 120,
                       file: StaticString = #filePath, line: UInt = #line) -> Result {
        let (process, out, err) = started
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            XCTFail("digits \(process.arguments ?? []) did not finish within \(timeout) s", file: file, line: line)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let result = Result(status: process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus,
                            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
        return result
    }

    static func run(_ args: [String], in scratch: URL, stdin: String? = nil, timeout: Double = 120,
                    file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        finish(try start(args, in: scratch, stdin: stdin), timeout: timeout, file: file, line: line)
    }
}

/// Scratch folders and small inputs for the robustness tests.
enum RobustnessFixtures {
    /// A fresh empty folder, removed when the test ends.
    static func scratch(_ test: XCTestCase) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("digits-robust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// A small valid weight file: flatten and one linear layer 784 → 10 with seeded weights.
    static func tinyModel() -> ModelFile {
        var rng = SplitMix64(seed: 42)
        let weights = (0..<7840).map { _ in rng.uniform(-0.05, 0.05) }
        let bias = (0..<10).map { _ in rng.uniform(-0.1, 0.1) }
        return ModelFile(layers: [.flatten, .linear(weight: "fc.weight", bias: "fc.bias")],
                         tensors: ["fc.weight": TensorData(shape: [10, 784], values: weights),
                                   "fc.bias": TensorData(shape: [10], values: bias)],
                         inputMean: 0.1307, inputStd: 0.3081)
    }

    /// Writes `tinyModel()` into `folder` and returns its path.
    static func writeTinyModel(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("tiny.safetensors").path
        try tinyModel().write(to: path)
        return path
    }

    /// An IDX image file of `count` 28×28 images and its label file: digit `i % 10` drawn as a
    /// bar whose position depends on the label, plus seeded noise, so a network can learn it.
    static func writeSyntheticMNIST(in folder: URL, split: String, count: Int, seed: UInt64) throws {
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

    static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A UNIPEN file of `digits` digits with `points` points each (pendigits-like).
    static func unipen(digits: Int, points: Int) -> String {
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
