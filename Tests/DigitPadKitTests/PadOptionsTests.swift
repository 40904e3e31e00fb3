import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class PadOptionsTests: XCTestCase {
    func testOptions_DefaultsMatchTheDocumentation() throws {
        let o = try PadOptions.parse([])
        XCTAssertEqual(o.threshold, 0.9)
        XCTAssertEqual(o.replayRate, 240)
        XCTAssertEqual(o.width, 1040)
        XCTAssertEqual(o.height, 620)
        XCTAssertFalse(o.printRecognitions || o.exitWhenDone || o.frameStats || o.help)
        XCTAssertNil(o.profile)
        XCTAssertNil(o.secondOpinion)
        XCTAssertTrue(PadOptions.help.contains("default 1040x620"))
        XCTAssertTrue(PadOptions.help.contains("default 0.9"))
    }

    func testOptions_EveryOptionIsRead() throws {
        let o = try PadOptions.parse(["--weights", "w.safetensors", "--threshold=0.75", "--open", "a.json",
                                      "--save-dir", "out", "--replay", "r.json", "--replay-rate", "0",
                                      "--print", "--screenshot", "s.png", "--exit",
                                      "--frame-stats", "--size", "800x500", "--max-digits", "4", "--label", "A b",
                                      "--profile", "me.safetensors", "--second-opinion", "none"])
        XCTAssertEqual(o.weights, "w.safetensors")
        XCTAssertEqual(o.secondOpinion, "none")
        XCTAssertEqual(o.profile, "me.safetensors")
        XCTAssertEqual(o.threshold, 0.75)
        XCTAssertEqual(o.open, "a.json")
        XCTAssertEqual(o.saveDirectory, "out")
        XCTAssertEqual(o.replay, "r.json")
        XCTAssertEqual(o.replayRate, 0)
        XCTAssertTrue(o.printRecognitions && o.exitWhenDone && o.frameStats)
        XCTAssertEqual(o.screenshot, "s.png")
        XCTAssertEqual(o.width, 800)
        XCTAssertEqual(o.height, 500)
        XCTAssertEqual(o.maxDigits, 4)
        XCTAssertEqual(o.label, "A b")
        XCTAssertFalse(o.single)
        XCTAssertTrue(try PadOptions.parse(["--single"]).single)
    }

    func testOptions_BadArgumentsAreUsageErrorsOnOneLine() {
        let cases: [([String], String)] = [
            (["--threshold", "1.5"], "--threshold must be a number in 0.0...1.0, got '1.5'"),
            (["--threshold"], "option --threshold needs a value"),
            (["--frobnicate"], "unknown option '--frobnicate' (see --help)"),
            (["file.json"], "unexpected argument 'file.json' (digitpad takes options only, see --help)"),
            (["--size", "big"], "--size must be WIDTHxHEIGHT with 160...8192 by 120...8192, got 'big'"),
            (["--replay-rate", "-3"], "--replay-rate must be a number of points per second in 0...100000, got '-3'"),
            (["--screenshot", "shot.bmp"], "--screenshot must name a .png file, got 'shot.bmp'"),
            (["--script", "draw a.json"], "unknown option '--script' (see --help)"),
            (["--max-digits", "0"], "--max-digits must be a whole number in 1...1000, got '0'"),
            (["--single", "--max-digits", "3"], "--single reads one digit: it does not go with --max-digits"),
            (["--label", ""], "--label must be 1...64 characters without control characters, got 0 characters"),
            (["--label", String(repeating: "x", count: 65)], "--label must be 1...64 characters without control characters, got 65 characters"),
            (["--label", "a\nb"], "--label must be 1...64 characters without control characters, got a control character"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try PadOptions.parse(arguments), "\(arguments)") { error in
                let e = error as? DigitError
                XCTAssertEqual(e?.kind, .usage)
                XCTAssertEqual(e?.description, message)
            }
        }
    }
}
