import DigitApp
import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// Drawing in the window with the mouse and the keyboard, on a virtual display: the ink, the
/// answers, undo and clear, resizing.
final class WindowDrawingTests: XCTestCase {
    func testDrawing_InkAppearsWhereDrawnAndTheAnswerIsShown() throws {
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        let strokes = try window.draw(try PadFixtures.drawing(PadFixtures.seven))
        XCTAssertEqual(try PrintedAnswer(try window.waitForLines(1)[0]).digit, 7)
        let shot = try window.waitForPicture("the answer 7") { $0.count(PadTheme.text, in: $0.layout.answer) > 300 }
        let canvas = shot.layout.canvas
        for point in strokes.joined() {
            XCTAssertEqual(shot.pixel(point.x, point.y), PadTheme.ink, "ink under the pointer at \(point)")
        }
        XCTAssertEqual(shot.pixel(canvas.x + 3, canvas.maxY - 4), PadTheme.canvas, "no ink where nothing was drawn")
        XCTAssertEqual(shot.ink(in: PixelRect(x: 0, y: 0, width: shot.width, height: shot.height)),
                       shot.ink(in: canvas) + shot.ink(in: shot.layout.panel), "no ink off the canvas")
        XCTAssertGreaterThan(shot.ink(in: canvas), 2000, "a seven across the canvas in the thin ink of numbers")
        XCTAssertGreaterThan(shot.ink(in: shot.layout.previewImage), 20, "the network's input is shown")
        XCTAssertGreaterThan(shot.count(PadTheme.accent, in: shot.layout.chart), 100, "a confident bar")
        XCTAssertEqual(shot.pixel(2, 2), PadTheme.background)
    }

    func testDrawing_ClearDigitsAreRecognizedAsDrawn() throws {
        // A thin 1 (aspect kept), a two-stroke 4, a self-crossing 8 and the window fixtures; the
        // recognizer's accuracy on every fixture is DigitKit's test, this is the window's path.
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        var expected: [(digit: Int, lastLine: Int)] = []
        var lines = 0
        for (digit, path) in [(1, "strokes/digit-1-a.json"), (4, "strokes/digit-4-a.json"), (8, "strokes/digit-8-a.json"),
                              (7, "window/seven.json"), (4, "window/four-two-strokes.json")] {
            let drawing = try PadFixtures.drawing(PadFixtures.path(path))
            try window.draw(drawing, label: String(digit))
            try window.key("c")
            lines += drawing.strokes.filter { !$0.isEmpty }.count
            expected.append((digit, lines - 1))
            lines += 1   // the clear
        }
        let answers = try window.waitForLines(lines).map { try PrintedAnswer($0) }
        XCTAssertEqual(answers.map(\.index), Array(0..<lines), "one line per stroke end and per clear, numbered")
        XCTAssertEqual(expected.map { answers[$0.lastLine + 1].isEmpty }, expected.map { _ in true }, "the clear")
        XCTAssertEqual(expected.map { answers[$0.lastLine].digit }, expected.map { Optional($0.digit) })
        XCTAssertEqual(expected.map { answers[$0.lastLine].text }, expected.map { String($0.digit) }, "one digit, read as a number")
        XCTAssertEqual(expected.map { answers[$0.lastLine].label }, expected.map { String($0.digit) }, "the label typed first")
        XCTAssertTrue(answers.allSatisfy { $0.source == "window" })
    }

    func testDrawing_UndoAndClearChangeWhatIsShown() throws {
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        let four = try PadFixtures.drawing(PadFixtures.four)
        func ink(_ s: Screenshot) -> Int { s.ink(in: s.layout.canvas) }
        func preview(_ s: Screenshot) -> [UInt32] { s.region(s.layout.previewImage) }
        func drawFour(_ printed: Int) throws -> Screenshot {
            try window.draw(four)
            try window.waitForLines(printed)
            try window.settle()
            return try window.screenshot()
        }

        // `--print` prints a line per change: each stroke's end, each undo, each clear.
        let both = try drawFour(2)
        let inkBoth = ink(both)
        try window.key("ctrl+z")
        let undo = try window.waitForPicture("the first stroke alone, and its answer") {
            ink($0) < inkBoth - 1000 && ink($0) > 1000 && preview($0) != preview(both)
        }
        let inkUndo = ink(undo)
        try window.key("BackSpace")
        try window.waitForPicture("an empty canvas after Backspace") { ink($0) == 0 }

        _ = try drawFour(6)
        try window.click(.undo)
        try window.waitForPicture("the Undo button doing what Ctrl+Z does") { ink($0) == inkUndo }
        try window.rightClickCanvas()
        try window.waitForPicture("the canvas and the preview cleared by a right click") { ink($0) == 0 && $0.ink(in: $0.layout.previewImage) == 0 }

        _ = try drawFour(10)
        try window.click(.clear)
        try window.waitForPicture("the canvas and the preview cleared by the Clear button") { ink($0) == 0 && $0.ink(in: $0.layout.previewImage) == 0 }

        _ = try drawFour(13)
        try window.key("c")
        try window.waitForPicture("the canvas and the preview cleared by C") { ink($0) == 0 && $0.ink(in: $0.layout.previewImage) == 0 }
        let printed = try window.waitForLines(14).map { try PrintedAnswer($0) }
        XCTAssertEqual(printed.map(\.isEmpty), [false, false, false, true, false, false, false, true, false, false, true, false, false, true],
                       "strokes, undo (one stroke left), Backspace (none), …")
    }

    func testDrawing_KeysWithModifiersAreNotMistakenForCommands() throws {
        // Ctrl+C is copy elsewhere and must not clear; Delete clears like C.
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        try window.draw(try PadFixtures.drawing(PadFixtures.seven))
        XCTAssertEqual(try PrintedAnswer(try window.waitForLines(1)[0]).digit, 7)
        try window.settle()
        let drawn = try window.screenshot()
        try window.key("ctrl+c", "ctrl+3")
        try window.settle()
        let after = try window.screenshot()
        XCTAssertEqual(after.region(after.layout.canvas), drawn.region(drawn.layout.canvas), "Ctrl+C kept the drawing")
        XCTAssertEqual(after.region(after.layout.answer), drawn.region(drawn.layout.answer), "Ctrl+3 set no label")
        try window.key("Delete")
        try window.waitForPicture("the canvas and the preview cleared by Delete") {
            $0.ink(in: $0.layout.canvas) == 0 && $0.ink(in: $0.layout.previewImage) == 0
        }
    }

    func testDrawing_ResizingLaysTheWindowOutAgainAndKeepsTheDrawing() throws {
        guard let window = try PadWindow.start(self, ["--print"]) else { return }
        try window.draw(try PadFixtures.drawing(PadFixtures.seven))
        try window.waitForLines(1)
        try window.resize(width: 600, height: 900)
        let tall = try window.waitForPicture("a tall layout with the drawing") { s in
            s.width == 600 && s.height == 900 && s.pixel(2, 2) == PadTheme.background && s.ink(in: s.layout.canvas) > 3000
                && s.count(PadTheme.accent, in: s.layout.chart) > 50
        }
        XCTAssertTrue(tall.layout.isPortrait)
        XCTAssertEqual(tall.ink(in: PixelRect(x: 0, y: 0, width: 600, height: 900)),
                       tall.ink(in: tall.layout.canvas) + tall.ink(in: tall.layout.panel), "no ink off the canvas")
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, "Esc quits: \(end.stderr)")
    }
}
