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
        XCTAssertTrue(PadOptions.help.contains("default 1040x620"))
        XCTAssertTrue(PadOptions.help.contains("default 0.9"))
    }

    func testOptions_EveryOptionIsRead() throws {
        let o = try PadOptions.parse(["--weights", "w.safetensors", "--threshold=0.75", "--open", "a.json",
                                      "--save-dir", "out", "--replay", "r.json", "--replay-rate", "0",
                                      "--script", "undo; clear", "--print", "--screenshot", "s.png", "--exit",
                                      "--frame-stats", "--size", "800x500"])
        XCTAssertEqual(o.weights, "w.safetensors")
        XCTAssertEqual(o.threshold, 0.75)
        XCTAssertEqual(o.open, "a.json")
        XCTAssertEqual(o.saveDirectory, "out")
        XCTAssertEqual(o.replay, "r.json")
        XCTAssertEqual(o.replayRate, 0)
        XCTAssertEqual(o.script, [.key(ScriptKey("z", ctrl: true)), .key(ScriptKey("c"))])
        XCTAssertTrue(o.printRecognitions && o.exitWhenDone && o.frameStats)
        XCTAssertEqual(o.screenshot, "s.png")
        XCTAssertEqual(o.width, 800)
        XCTAssertEqual(o.height, 500)
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
            (["--script", "draw"], "--script step 1: 'draw' takes 1 to 2 argument(s), got 0"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try PadOptions.parse(arguments), "\(arguments)") { error in
                let e = error as? DigitError
                XCTAssertEqual(e?.kind, .usage)
                XCTAssertEqual(e?.description, message)
            }
        }
    }

    func testScript_StepsAreParsedInOrder() throws {
        let steps = try ScriptStep.parse("""
            draw a.json; touch b.jsonl 3 ; key ctrl+z;key BACKSPACE; undo; clear; save; open; label 7
            click Undo; rightclick; resize 640 480; wait; print; snapshot x.png; storm 500 42;;
            """)
        XCTAssertEqual(steps, [
            .draw(path: "a.json", index: 0, touch: false), .draw(path: "b.jsonl", index: 3, touch: true),
            .key(ScriptKey("z", ctrl: true)), .key(ScriptKey("backspace")), .key(ScriptKey("z", ctrl: true)),
            .key(ScriptKey("c")), .key(ScriptKey("s")), .key(ScriptKey("o")), .key(ScriptKey("7")),
            .click(.undo), .rightClick, .resize(width: 640, height: 480), .wait, .print, .snapshot("x.png"),
            .storm(count: 500, seed: 42),
        ])
    }

    func testScript_ErrorsNameTheStep() {
        let cases: [(String, String)] = [
            ("undo; jump", "--script step 2: unknown step 'jump' (draw, touch, key, undo, clear, save, open, label, click, rightclick, resize, wait, print, snapshot, storm)"),
            ("key hyper+q", "--script step 1: unknown key 'hyper+q' (a letter, a digit, backspace, delete, escape, return, space, tab, with ctrl+ or shift+)"),
            ("label 12", "--script step 1: the label must be an integer in 0...9, got '12'"),
            ("click nowhere", "--script step 1: unknown button 'nowhere' (clear, undo, save or open)"),
            ("resize 0 10", "--script step 1: the width must be an integer in 1...8192, got '0'"),
            ("snapshot a.jpg", "--script step 1: snapshot needs a .png file, got 'a.jpg'"),
            ("storm 10 -1", "--script step 1: the seed must be a non-negative integer, got '-1'"),
            ("wait now", "--script step 1: 'wait' takes 0 argument(s), got 1"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try ScriptStep.parse(text), text) { error in
                XCTAssertEqual((error as? DigitError)?.description, message)
            }
        }
    }

    func testScriptKey_AliasesAndModifiers() {
        XCTAssertEqual(ScriptKey.parse("esc"), ScriptKey("escape"))
        XCTAssertEqual(ScriptKey.parse("Shift+S"), ScriptKey("s", shift: true))
        XCTAssertEqual(ScriptKey.parse("control+z"), ScriptKey("z", ctrl: true))
        XCTAssertNil(ScriptKey.parse("f13"))
        XCTAssertNil(ScriptKey.parse(""))
        XCTAssertNil(ScriptKey.parse("ctrl+"))
    }
}
