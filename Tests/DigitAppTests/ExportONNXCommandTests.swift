@testable import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `digits export-onnx` through the real executable: the file it writes is the library's export,
/// written atomically, and its errors are one line with the documented exit codes.
final class ExportONNXCommandTests: DigitsCommandTestCase {
    func testExportONNX_WritesTheLibrarysExportAndNothingElse() throws {
        let weights = folder.appendingPathComponent("small.safetensors").path
        try SmallModel.model.write(to: weights)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("out/model.onnx").path
        let run = try digits(["export-onnx", "--weights", weights, "--out", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "")
        let written = try FileIO.read(out, limit: 1 << 20)
        XCTAssertEqual(written, try ModelFile.load(path: weights).onnx(file: weights))
        XCTAssertEqual(run.stderr, "export-onnx: wrote \(written.count) bytes to \(out)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path),
                       ["model.onnx"], "no temporary file left beside the output")
    }

    func testExportONNX_ErrorsAreOneLineWithTheirExitCodes() throws {
        let weights = folder.appendingPathComponent("small.safetensors").path
        try SmallModel.model.write(to: weights)
        let broken = folder.appendingPathComponent("broken.safetensors").path
        try FileIO.writeAtomically([UInt8](repeating: 0, count: 4), to: broken)
        let cases: [(args: [String], status: Int32, says: String)] = [
            (["export-onnx", "--weights", weights], 2, "missing --out"),
            (["export-onnx", "--weights", weights, "--out", "m.onnx", "extra"], 2, "unexpected argument 'extra'"),
            (["export-onnx", "--weights", folder.appendingPathComponent("nope").path, "--out", "m.onnx"], 3, "no such file"),
            (["export-onnx", "--weights", broken, "--out", "m.onnx"], 1, broken),
            (["export-onnx", "--weights", weights, "--out", weights + "/m.onnx"], 3, "m.onnx"),  // a file is no folder
        ]
        for c in cases {
            let run = try digits(c.args)
            XCTAssertEqual(run.status, c.status, "\(c.args): \(run.stderr)")
            XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("digits export-onnx: ") && run.stderr.contains(c.says), run.stderr)
            XCTAssertEqual(run.stdout, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("m.onnx").path))
    }
}
