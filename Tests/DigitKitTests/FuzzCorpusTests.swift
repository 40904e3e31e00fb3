import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Replays the committed fuzz corpus (`Fixtures/fuzz/<target>/`: the seeds and every input that
/// once crashed a target) through the properties the fuzzers check (`FuzzChecks`).
final class FuzzCorpusTests: XCTestCase {
    private func replay(_ target: String) throws {
        let folder = TestPaths.fixtures.appendingPathComponent("fuzz/\(target)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertGreaterThanOrEqual(names.count, 5, "the \(target) seed corpus is too small")
        for name in names {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            XCTAssertEqual(FuzzChecks.run(target, bytes), [], "\(target)/\(name)")
        }
    }

    func testFuzzCorpus_StrokesInputsKeepEveryProperty() throws { try replay("strokes") }
    func testFuzzCorpus_UNIPENInputsKeepEveryProperty() throws { try replay("unipen") }
    func testFuzzCorpus_IDXInputsKeepEveryProperty() throws { try replay("idx") }
    func testFuzzCorpus_SafetensorsInputsKeepEveryProperty() throws { try replay("safetensors") }
    func testFuzzCorpus_ModelInputsKeepEveryProperty() throws { try replay("model") }
    func testFuzzCorpus_ImagesInputsKeepEveryProperty() throws { try replay("images") }
    func testFuzzCorpus_GzipInputsKeepEveryProperty() throws { try replay("gzip") }
    func testFuzzCorpus_LabelsInputsKeepEveryProperty() throws { try replay("labels") }
    func testFuzzCorpus_ProfilesInputsKeepEveryProperty() throws { try replay("profiles") }

    func testFuzzCorpus_EveryCheckedTargetIsBuiltAndReplayed() throws {
        // scripts/fuzz builds Fuzz/*.swift and fuzzes from Fixtures/fuzz/<target>/; a target added
        // to FuzzChecks without them would never be fuzzed.
        let entries = try FileManager.default.contentsOfDirectory(atPath: TestPaths.repoRoot.appendingPathComponent("Fuzz").path)
            .map { try String(contentsOf: TestPaths.repoRoot.appendingPathComponent("Fuzz/\($0)"), encoding: .utf8) }
        let script = try String(contentsOf: TestPaths.repoRoot.appendingPathComponent("scripts/fuzz"), encoding: .utf8)
        let tests = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        XCTAssertTrue(script.contains("\ntargets=(\(FuzzChecks.targets.joined(separator: " ")))\n"),
                      "scripts/fuzz's list of targets is not FuzzChecks.targets")
        for target in FuzzChecks.targets {
            XCTAssertEqual(entries.filter { $0.contains("FuzzEntry.run(\"\(target)\"") }.count, 1, "the entry of \(target) in Fuzz/")
            XCTAssertTrue(tests.contains("try replay(\"\(target)\")"), "no test replays Fixtures/fuzz/\(target)")
        }
    }

    func testFuzzCorpus_TheSeedModelsAreValidWeightFiles() throws {
        // Without a loadable model in the seeds the fuzzer would hardly ever reach the network.
        // model-winograd has a 16→16 3×3 convolution, the smallest the Winograd kernel takes (11 KB:
        // fuzz it with -max_len=16384, see docs/robustness.md).
        for name in ["model-conv-bn-avgpool", "model-maxpool-global", "model-tiny", "model-winograd"] {
            let url = TestPaths.fixtures.appendingPathComponent("fuzz/safetensors/\(name).safetensors")
            XCTAssertNoThrow(try ModelFile.load(path: url.path), name)
        }
        // A tiny line model that declares its stretch (`input_stretch`), so the fuzzer mutates a line model's metadata.
        let line = try ModelFile.load(path: TestPaths.fixtures.appendingPathComponent("fuzz/safetensors/model-line-stretched.safetensors").path)
        XCTAssertTrue(line.isLineModel)
        XCTAssertEqual(line.lineStretch, 2)
    }

    func testFuzzCorpus_TheCheckpointSeedIsACheckpointTheTargetReads() throws {
        // The fingerprint of the options must match for a checkpoint to be read at all: the seed is
        // what FuzzChecks.writeCheckpointSeed writes (DIGITS_WRITE_FUZZ_SEEDS=1 with this test
        // writes it again, when the format changes).
        let seed = TestPaths.fixtures.appendingPathComponent("fuzz/safetensors/checkpoint.safetensors")
        if ProcessInfo.processInfo.environment["DIGITS_WRITE_FUZZ_SEEDS"] == "1" { try FuzzChecks.writeCheckpointSeed(to: seed.path) }
        let written = try temporaryFolder(self).appendingPathComponent("checkpoint.safetensors")
        try FuzzChecks.writeCheckpointSeed(to: written.path)
        XCTAssertEqual(try? Data(contentsOf: seed), try Data(contentsOf: written),
                       "Fixtures/fuzz/safetensors/checkpoint.safetensors is not what FuzzChecks.writeCheckpointSeed writes now: "
                       + "run this test with DIGITS_WRITE_FUZZ_SEEDS=1")
        let c = try TrainingCheckpoint.parse(Array(try Data(contentsOf: seed)), file: seed.path, options: FuzzChecks.checkpointOptions,
                                             parameters: FuzzChecks.checkpointParameters, prefixes: ["adam.m", "adam.v"])
        XCTAssertEqual(c.epochsDone, 1)
        XCTAssertEqual(c.history.map(\.validationAccuracy), [0.5])
        XCTAssertEqual(c.optimizer["adam.v"], [[Float](repeating: 0.25, count: 6), [0.25, 0.25]])
        XCTAssertEqual(Set(c.network.keys), ["fc.weight", "fc.bias"])
        // A bit changed in the options' fingerprint, and the seed is refused.
        var other = FuzzChecks.checkpointOptions
        other.seed = 2
        XCTAssertThrowsError(try TrainingCheckpoint.parse(Array(try Data(contentsOf: seed)), file: seed.path, options: other,
                                                          parameters: FuzzChecks.checkpointParameters, prefixes: ["adam.m", "adam.v"]))
    }

    func testFuzzChecks_CatchAViolatedProperty() {
        // The checks must be able to fail: a drawing out of its limits is reported.
        let drawing = Drawing(strokes: [[StrokePoint(x: 5000, y: 0)]])
        XCTAssertEqual(FuzzChecks.checkDrawing(drawing, limits: FuzzChecks.tightLimits), ["point (5000.0, 0.0) out of range"])
        XCTAssertEqual(FuzzChecks.checkError(CocoaError(.fileNoSuchFile), source: "x").count, 1)
    }
}
