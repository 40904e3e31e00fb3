import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `digits adapt` through the real binary: its help, its usage errors, a profile learned from one
/// pendigits writer and used by `digits recognize --profile`, and a profile refused by other weights.
final class AdaptCommandTests: DigitsCommandTestCase {
    /// The first `count` drawings of pendigits writer 3 as a JSON Lines file (the whole writer has
    /// 250: a few dozen keep the test quick).
    private func writerThree(_ count: Int) throws -> String {
        guard let file = TestPaths.requirePendigits() else { throw Executable.Missing() }
        let drawings = try DrawingLoader.load(file.path).filter { $0.writer == 3 }.prefix(count).map { try $0.result.get() }
        XCTAssertEqual(drawings.count, count)
        let path = folder.appendingPathComponent("writer3.jsonl").path
        try FileIO.writeAtomically(drawings.map { StrokeJSON.encode($0) + "\n" }.joined(), to: path)
        return path
    }

    func testAdapt_HelpSaysHowToUseIt() throws {
        for args in [["adapt", "--help"], ["help", "adapt"]] {
            let r = try digits(args)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("Usage: digits adapt FILE... --out PROFILE"), r.stdout)
            for part in ["--out PROFILE", "--weights FILE", "--writers LIST", "--profile"] {
                XCTAssertTrue(r.stdout.contains(part), part)
            }
            XCTAssertEqual(r.stderr, "")
        }
    }

    func testAdapt_WithoutOutIsAUsageError() throws {
        let drawings = try writerThree(2)
        let r = try digits(["adapt", drawings])
        assertOneLineError(r, status: 2, ["digits adapt: missing --out PROFILE (see --help)"])
        XCTAssertEqual(r.stdout, "")
        assertOneLineError(try digits(["adapt", "--out", "p.safetensors"]), status: 2, ["digits adapt: no drawings"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("p.safetensors").path))
    }

    func testAdapt_AFileWithoutLabelledDrawingsIsOneLineAndNoProfile() throws {
        let path = folder.appendingPathComponent("unlabelled.jsonl").path
        try FileIO.writeAtomically("""
        {"strokes":[[[0,0],[0,40]]]}
        {"label":"A","strokes":[[[0,0],[20,40],[40,0]]]}
        {"strokes":[[[5,5],[30,30]]]}

        """, to: path)
        let r = try digits(["adapt", path, "--out", "p.safetensors"])
        assertOneLineError(r, status: 2, ["digits adapt: \(path): none of the 3 drawings has a digit label"])
        XCTAssertEqual(r.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("p.safetensors").path))
    }

    func testAdapt_FortyDrawingsOfOneWriterMakeAProfileThatRecognizeUses() throws {
        let drawings = try writerThree(40)
        let profile = folder.appendingPathComponent("writer3.safetensors").path
        let made = try digits(["adapt", drawings, "--out", profile, "--threads", "2"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.stdoutLines.first, "learned from 40 drawings, 40 digits")
        XCTAssertTrue(made.stdout.contains("(5 folds, 40 digits)"), made.stdout)
        XCTAssertEqual(made.stdoutLines.last.map { $0.hasPrefix("wrote \(profile) (") }, true, made.stdout)
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: profile)[.size] as? Int)
        XCTAssertLessThan(size, 1 << 20, "a profile is under 1 MB")
        let read = try WriterProfile.load(path: profile)
        XCTAssertEqual(read.drawingCount, 40)
        XCTAssertEqual(read.baseWeights, try ModelFile.load(path: TestPaths.weights.path).weightsID)

        let recognized = try digits(["recognize", "--profile", profile, "--json", drawings])
        XCTAssertEqual(recognized.status, 0, recognized.stderr)
        XCTAssertEqual(recognized.stdoutLines.count, 40)
        XCTAssertEqual(recognized.stderr, "")
    }

    func testAdapt_AProfileUsedWithOtherWeightsIsRefusedNamingTheProfile() throws {
        let profile = try RobustnessFixtures.writeQuickProfile(for: TestPaths.weights.path, in: folder, name: "mine.safetensors")
        let tiny = try RobustnessFixtures.writeTinyModel(in: folder)
        let drawing = folder.appendingPathComponent("one.json").path
        try FileIO.writeAtomically(#"{"label":"1","strokes":[[[0,0],[0,40]]]}"#, to: drawing)
        // The weights it was made for accept it.
        XCTAssertEqual(try digits(["recognize", "--profile", profile, drawing]).status, 0)
        for command in ["recognize", "eval"] {
            let r = try digits([command, "--weights", tiny, "--profile", profile, drawing])
            assertOneLineError(r, status: 2, ["digits \(command): \(profile): this profile adapts the weights ", "digits adapt"])
            XCTAssertEqual(r.stdout, "", command)
        }
    }
}
