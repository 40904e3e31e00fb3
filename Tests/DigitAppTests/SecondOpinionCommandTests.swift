import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `--second-opinion` through the real binary: a missing or wrong file is one line naming it,
/// `none` leaves the compact network alone, and `digits info --second-opinion` describes the
/// shipped one.
final class SecondOpinionCommandTests: DigitsCommandTestCase {
    private func oneDrawing() throws -> String {
        let drawing = folder.appendingPathComponent("one.json").path
        try FileIO.writeAtomically(#"{"label":"1","strokes":[[[0,0],[0,40]]]}"#, to: drawing)
        return drawing
    }

    func testSecondOpinion_AMissingOrWrongFileIsOneLineNamingIt() throws {
        let drawing = try oneDrawing()
        let missing = folder.appendingPathComponent("missing.safetensors").path
        for command in ["recognize", "eval"] {
            let r = try digits([command, "--second-opinion", missing, drawing])
            assertOneLineError(r, status: 3, ["digits \(command): \(missing)"])
        }
        // The paper model is a line model: it cannot give a second opinion on one digit.
        let r = try digits(["recognize", "--second-opinion", TestPaths.paperWeights.path, drawing])
        assertOneLineError(r, status: 1, ["digits recognize: \(TestPaths.paperWeights.path): a second opinion reads a 28×28 image of one digit; this is a line model"])
    }

    func testSecondOpinion_TheDefaultOneIsReadWhenFirstAskedAndABrokenOneIsAnErrorOfTheRun() throws {
        let drawing = try oneDrawing()
        let broken = folder.appendingPathComponent("broken.safetensors").path
        try FileIO.writeAtomically("not a weight file", to: broken)
        let env = ["DIGITS_SECOND_OPINION": broken]
        // Sure of the 1: the second opinion is never asked, so never read.
        let sure = try digits(["recognize", "--single", drawing], environment: env)
        XCTAssertEqual(sure.status, 0, sure.stderr)
        // At threshold 1 every digit is unsure: it is asked, fails, and the drawing stays "?".
        let r = try digits(["recognize", "--single", "--threshold", "1", drawing], environment: env)
        assertOneLineError(r, status: 1, ["digits recognize: \(broken)"])
        XCTAssertTrue(r.stdout.contains("one.json#0: ?"), r.stdout)
    }

    func testSecondOpinion_NoneAndTheShippedOneBothAnswerAndInfoDescribesIt() throws {
        let drawing = try oneDrawing()
        for option in [["--second-opinion", "none"], []] {
            let r = try digits(["recognize", "--single", "--json", drawing] + option)
            XCTAssertEqual(r.status, 0, "\(option): \(r.stderr)")
            XCTAssertTrue(r.stdout.contains(#""label":"1""#), r.stdout)
        }
        let info = try digits(["info", "--second-opinion"])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("a second opinion: consulted when the compact network is unsure"), info.stdout)
        XCTAssertTrue(info.stdout.contains("second_opinion_mix: "), info.stdout)
        let plain = try digits(["info"])
        XCTAssertTrue(plain.stdout.contains("second opinion when unsure: "), plain.stdout)
        let both = try digits(["info", "--second-opinion", "--paper"])
        assertOneLineError(both, status: 2, ["digits info: --weights, --second-opinion and --paper go apart"])
    }
}
