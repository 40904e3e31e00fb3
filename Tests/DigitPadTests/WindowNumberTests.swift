import DigitApp
import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// Numbers in the window, on a virtual display: a box and an answer over each digit, the number
/// in the panel, the digit under the mouse detailed, "not a digit" apart from "not sure", `--single`.
final class WindowNumberTests: XCTestCase {
    /// A number written through the window by `scripts/author-fixtures` (Fixtures/numbers).
    static let number = PadFixtures.path("numbers/001-2026.json")

    /// The window pixels of a printed box (canvas pixels of a canvas `side` wide) in a window laid out as `layout`.
    private func windowBox(_ box: [Double], side: Double, _ layout: PadLayout) -> PixelRect {
        let a = layout.windowPoint(Float(box[0] / side), Float(box[1] / side))
        let b = layout.windowPoint(Float(box[2] / side), Float(box[3] / side))
        return PixelRect(x: Int(a.x), y: Int(a.y), width: Int(b.x - a.x) + 1, height: Int(b.y - a.y) + 1)
    }

    func testNumbers_EachDigitIsBoxedAndAnsweredAndTheOneUnderTheMouseDetailed() throws {
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        let drawing = try PadFixtures.drawing(WindowNumberTests.number)
        try window.draw(drawing)
        let strokes = drawing.strokes.count
        let answer = try PrintedAnswer(try window.waitForLines(strokes)[strokes - 1])
        XCTAssertEqual(answer.text, "2026", "the number, after its last stroke")
        XCTAssertEqual(answer.label, "2026", "its label typed first")
        XCTAssertEqual(answer.digits.count, 4)
        XCTAssertNil(answer.digit, "several digits: no single digit")
        try window.settle()
        let shot = try window.waitForPicture("four boxes with their answers") { s in
            s.count(PadTheme.accent, in: s.layout.canvas) > 400 && s.count(PadTheme.text, in: s.layout.answer) > 300
        }
        let layout = shot.layout, side = Double(layout.canvas.width)
        XCTAssertEqual(shot.ink(in: PixelRect(x: 0, y: 0, width: shot.width, height: shot.height)),
                       shot.ink(in: layout.canvas) + shot.ink(in: layout.panel), "marks are not ink, and no ink leaves the canvas")
        var boxes: [PixelRect] = []
        for digit in answer.digits {
            let box = windowBox(digit.box, side: side, layout)
            boxes.append(box)
            // Above the box (the pen's half width and a gap higher): the answer, in accent.
            let above = PixelRect(x: box.x, y: max(layout.canvas.y, box.y - 60), width: box.width, height: min(60, box.y - layout.canvas.y))
            XCTAssertGreaterThan(shot.count(PadTheme.accent, in: above), 20, "the answer above \(box)")
            XCTAssertEqual(shot.count(PadTheme.warning, in: above), 0)
            XCTAssertGreaterThan(shot.ink(in: box), 100, "ink inside \(box)")
        }
        // The mouse over the first digit: its 28×28 input replaces the last digit's.
        let last = shot.region(layout.previewImage)
        let g = try window.geometry()
        try window.display.xdotool(["mousemove", "\(g.x + Int(boxes[0].midX))", "\(g.y + Int(boxes[0].midY))"])
        try window.waitForPicture("the first digit's input") { $0.region($0.layout.previewImage) != last }
        try window.settle()
        try window.waitForPicture("the last digit's input again, the mouse gone") { $0.region($0.layout.previewImage) == last }
    }

    func testNumbers_NotADigitIsShownApartFromNotSure() throws {
        // A letter F: with a network that has the eleventh output, "not a digit" (grey-blue);
        // with one that has not, "not sure" (amber). Either way the screen says what was printed.
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        let letter = try PadFixtures.drawing(PadFixtures.path("nondigits/013-F.json"))
        try window.draw(letter)
        let answer = try PrintedAnswer(try window.waitForLines(letter.strokes.count).last!)
        XCTAssertNil(answer.digit)
        let notADigit = answer.digits.contains { ($0.notADigit ?? 0) > answer.confidence }
        try window.settle()
        let (shown, other) = notADigit ? (PadTheme.notADigit, PadTheme.warning) : (PadTheme.warning, PadTheme.notADigit)
        let shot = try window.waitForPicture(notADigit ? "not a digit" : "not sure") { $0.count(shown, in: $0.layout.answer) > 300 }
        XCTAssertEqual(shot.count(other, in: shot.layout.answer), 0, "one of the two, not both")
        XCTAssertGreaterThan(shot.count(shown, in: shot.layout.canvas), 50, "the box and its mark")
    }

    func testNumbers_SingleReadsOneDigitWithoutBoxesAndMaxDigitsBoundsTheReading() throws {
        guard let display = try VirtualDisplay.start(for: self), let digitpad = Executable.named("digitpad") else { return }
        let folder = try temporaryFolder(self)
        let png = folder.appendingPathComponent("single.png").path
        let run = try digitpad.run(["--weights", PadFixtures.weights, "--single", "--replay", WindowNumberTests.number,
                                    "--replay-rate", "0", "--print", "--screenshot", png, "--exit", "--size", "640x400"],
                                   in: folder, environment: PadWindow.environment(display), timeout: PadWindow.timeout)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = try run.stdoutLines.map { try PrintedAnswer($0) }
        XCTAssertEqual(lines.count, try PadFixtures.drawing(WindowNumberTests.number).strokes.count)
        XCTAssertTrue(lines.allSatisfy { $0.text == nil && $0.digits.isEmpty }, "the one-digit schema of recognize --single")
        XCTAssertTrue(run.stdout.hasPrefix("{\"source\":\"window\",\"index\":0,\"digit\":"), run.stdout)
        let shot = try Screenshot(png: png)
        XCTAssertEqual(shot.count(PadTheme.accent, in: shot.layout.canvas), 0, "no boxes")
        XCTAssertEqual(shot.count(PadTheme.warning, in: shot.layout.canvas), 0)

        // --max-digits goes to the reader: 2026 in at most two digits.
        let bounded = try digitpad.run(["--weights", PadFixtures.weights, "--max-digits", "2", "--replay", WindowNumberTests.number,
                                        "--replay-rate", "0", "--print", "--exit", "--size", "640x400"],
                                       in: folder, environment: PadWindow.environment(display), timeout: PadWindow.timeout)
        XCTAssertEqual(bounded.status, 0, bounded.stderr)
        let last = try PrintedAnswer(try XCTUnwrap(bounded.stdoutLines.last))
        XCTAssertEqual(last.digits.count, 2, "\(last.text ?? "")")
    }

    func testLabels_TypedDigitsAppendLClearsAndTheCommandLinesLabelIsSaved() throws {
        let saves = try temporaryFolder(self)
        guard let window = try PadWindow.start(self, ["--save-dir", saves.path, "--label", "scribble"]) else { return }
        var seen: Set<String> = []
        /// Presses `keys`, then S, and returns the label of the file that appears.
        func save(_ keys: String...) throws -> String? {
            try window.display.xdotool(["key"] + keys + ["s"])
            let deadline = Date().addingTimeInterval(PadWindow.timeout)
            while Date() < deadline {
                let files = Set(try FileManager.default.contentsOfDirectory(atPath: saves.path).filter { $0.hasSuffix(".json") })
                if let new = files.subtracting(seen).first {
                    seen.insert(new)
                    return try DrawingLoader.load(saves.appendingPathComponent(new).path)[0].result.get().label
                }
                usleep(20_000)
            }
            throw WindowFailure("S after \(keys) saved nothing within \(PadWindow.timeout) s")
        }
        try window.draw(try PadFixtures.drawing(PadFixtures.seven), label: "")
        XCTAssertEqual(try save(), "scribble", "--label")
        XCTAssertEqual(try save("2", "0", "2", "6"), "2026", "typed digits append")
        XCTAssertEqual(try save("l"), "scribble", "L goes back to --label")
        XCTAssertEqual(try save("7"), "7", "the first digit after L starts a new label")
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
    }
}
