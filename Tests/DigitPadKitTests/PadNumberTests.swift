import DigitApp
import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

/// A number on the canvas: a box and an answer per digit, the number in the panel, the digit
/// under the mouse detailed, "not a digit" apart from "not sure".
final class PadNumberTests: XCTestCase {
    /// Three strokes side by side (canvas units), and a reading of them: 1, ?, not a digit.
    private func threeDigits() -> (PadController, AnswerView) {
        let c = PadController(width: 1040, height: 620, inkWidth: 0.04)
        Pad.stroke(c, [(0.2, 0.35), (0.2, 0.65)])
        Pad.stroke(c, [(0.45, 0.35), (0.5, 0.5), (0.45, 0.65)])
        Pad.stroke(c, [(0.7, 0.35), (0.8, 0.65)])
        let marks = [Pad.mark(1, best: 1, confidence: 0.99, box: CanvasBox(x0: 0.2, y0: 0.35, x1: 0.2, y1: 0.65), rows: 2..<6),
                     Pad.mark(nil, best: 3, confidence: 0.6, notADigit: 0.1, box: CanvasBox(x0: 0.45, y0: 0.35, x1: 0.5, y1: 0.65), rows: 10..<14),
                     Pad.mark(nil, best: 7, confidence: 0.02, notADigit: 0.97, box: CanvasBox(x0: 0.7, y0: 0.35, x1: 0.8, y1: 0.65), rows: 20..<26)]
        let view = AnswerView(text: "1??", confidence: 0.01, digits: marks, threshold: 0.9, revision: c.document.revision,
                              hasNotADigitOutput: true)
        return (c, view)
    }

    func testNumber_EachDigitGetsABoxAroundItsInkAndItsAnswerAbove() {
        let (c, view) = threeDigits()
        var s = Surface(width: 1, height: 1)
        c.show(view)
        c.render(into: &s)
        let marks = c.overlayMarks
        XCTAssertEqual(marks.map(\.answer), [.digit(1), .notSure, .notADigit])
        XCTAssertEqual(marks.map(\.color), [PadTheme.accent, PadTheme.warning, PadTheme.notADigit])
        let canvas = c.layout.canvas
        for (mark, stroke) in zip(marks, c.document.strokes) {
            for p in stroke {
                let w = c.layout.windowPoint(p.x, p.y)
                // The box holds the ink: the path grown by the pen's half width.
                XCTAssertTrue(mark.box.insetBy(3, 3).contains(w.x - c.inkRadius + 0.5, w.y) && mark.box.contains(w.x + c.inkRadius, w.y),
                              "\(mark.box) holds the ink at \(w)")
            }
            XCTAssertLessThanOrEqual(mark.label.maxY, mark.box.y, "the answer above its box")
            XCTAssertEqual(mark.label.intersection(canvas), mark.label)
            XCTAssertGreaterThan(Pad.count(s, mark.color, in: mark.label), 5, "the answer drawn in its colour")
            XCTAssertEqual(Pad.count(s, mark.color, in: PixelRect(x: mark.box.x, y: mark.box.y, width: mark.box.width, height: 1)),
                           mark.box.width, "the box's top edge")
        }
        // The panel: the number with an amber ? and a crossed circle, the words of the worst digit.
        XCTAssertGreaterThan(Pad.count(s, PadTheme.text, in: c.layout.answer), 100)
        XCTAssertGreaterThan(Pad.count(s, PadTheme.warning, in: c.layout.answer), 50)
        XCTAssertGreaterThan(Pad.count(s, PadTheme.notADigit, in: c.layout.answer), 50)
        // The last digit is detailed: its raster (rows 20-25), "not a digit" as the top bar.
        let preview = c.layout.previewImage, cell = preview.height / 28
        XCTAssertEqual(RGB(s.pixel(preview.x + 14 * cell, preview.y + 22 * cell)), PadTheme.ink)
        XCTAssertEqual(RGB(s.pixel(preview.x + 14 * cell, preview.y + 3 * cell)), PadTheme.canvas)
        XCTAssertGreaterThan(Pad.count(s, PadTheme.notADigit, in: c.layout.chart), 100, "the eleventh bar")
        XCTAssertEqual(Pad.count(s, PadTheme.accent, in: c.layout.chart), 0)
    }

    func testNumber_TheDigitUnderTheMouseIsDetailed() {
        let (c, view) = threeDigits()
        var s = Surface(width: 1, height: 1)
        c.show(view)
        c.render(into: &s)
        XCTAssertEqual(c.focus, 2, "the mouse ended the last stroke on the last digit")
        Pad.hover(c, 0.2, 0.5)
        XCTAssertEqual(c.focus, 0)
        XCTAssertTrue(c.hasChanges)
        c.render(into: &s)
        let preview = c.layout.previewImage, cell = preview.height / 28
        XCTAssertEqual(RGB(s.pixel(preview.x + 14 * cell, preview.y + 3 * cell)), PadTheme.ink, "digit 1's raster")
        XCTAssertGreaterThan(Pad.count(s, PadTheme.accent, in: c.layout.chart), 100, "its confident bar")
        XCTAssertEqual(c.overlayMarks.filter(\.focused).map(\.index), [0], "its box drawn thicker")
        Pad.hover(c, 0.6, 0.9)
        XCTAssertNil(c.focus, "off every box: the last digit again")
        Pad.hover(c, 0.47, 0.4)
        XCTAssertEqual(c.focus, 1)
        _ = c.handle(.focusLost)
        XCTAssertNil(c.focus)
    }

    func testNumber_MarksAreDrawnOverInkAndErasedExactly() {
        // Marks drawn, ink added across them bit by bit, the reading replaced: every frame's
        // picture equals a full redraw of the same state.
        let (c, view) = threeDigits()
        var s = Surface(width: 1, height: 1)
        c.show(view)
        c.render(into: &s)
        let (x, y) = Pad.at(c, 0.1, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        for i in 1...30 {
            _ = c.handle(.move(.mouse, x: x + Float(i * 12), y: y + Float(i % 5 * 9), time: 0, pressure: nil))
            c.render(into: &s)
            if i == 15 {
                var next = view
                next.digits.removeLast()
                next.revision = c.document.revision
                c.show(next)
            }
        }
        _ = c.handle(.release(.mouse, x: x + 360, y: y, button: 1, time: 0))
        c.render(into: &s)
        var full = Surface(width: 1, height: 1)
        c.setNeedsFullRedraw()
        c.render(into: &full)
        XCTAssertEqual(Pad.differences(s, full, in: c.layout.canvas), 0)
        XCTAssertEqual(c.overlayMarks.count, 2)
    }

    func testNumber_AReadingOfADrawingSinceChangedIsNotDrawn() {
        let (c, view) = threeDigits()
        var s = Surface(width: 1, height: 1)
        c.show(view)
        XCTAssertEqual(c.overlayMarks.count, 3)
        _ = c.handle(.key(.undo))
        XCTAssertTrue(c.overlayMarks.isEmpty, "the boxes of three strokes after one was undone")
        c.render(into: &s)
        XCTAssertEqual(Pad.count(s, PadTheme.warning, in: c.layout.canvas), 0)
        var next = view
        next.digits.removeLast()
        next.revision = c.document.revision
        c.show(next)
        XCTAssertEqual(c.overlayMarks.count, 2)
        _ = c.handle(.key(.clear))
        XCTAssertTrue(c.overlayMarks.isEmpty)
    }

    func testNumber_ADigitCutByTheImagesEdgeIsSaidSo() throws {
        // "84" on paper, framed through the 4, read as `digitpad --open` reads it.
        func strokes(_ digit: Int) throws -> Drawing {
            let path = TestPaths.fixtures.appendingPathComponent("strokes/digit-\(digit)-a.json").path
            return try XCTUnwrap(try DrawingLoader.load(path).first).result.get()
        }
        var composer = NumberComposer()
        composer.gap = 0.35...0.35
        var rng = SplitMix64(seed: 5)
        var renderer = PaperRenderer.clean
        (renderer.width, renderer.height, renderer.digitHeight) = (360, 240, 90...90)
        let photo = try renderer.render(composer.compose([try strokes(8), try strokes(4)], rng: &rng), rng: &rng)
        let four = photo.digitBoxes[1]
        let framed = photo.cropped(columns: 0..<((four.x + four.maxX) / 2))
        let image = try PNG.decode(try PNG.encode(gray: framed.gray, width: framed.width, height: framed.height), file: "84.png")
        // The cutting reader marks a digit the side of the photo cuts (the paper model reads it "8?" unmarked).
        let recognizer = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        recognizer.lineReader = nil
        let reading = try recognizer.read(image: image)
        let read = AnswerView(reading, revision: 1, mapping: CanvasMapping(scale: 1.0 / 360, offsetX: 0, offsetY: 0), boxesArePaths: false)
        XCTAssertEqual(read.digits.map(\.isCutByFrame), [false, true], reading.summary)
        XCTAssertEqual(read.text, "8?")

        // The panel's last line says why the digit is not answered, instead of "not sure".
        let (c, three) = threeDigits()
        let view = AnswerView(text: "1?", confidence: 0.6, digits: Array(three.digits.prefix(2)), threshold: 0.9,
                              revision: three.revision, hasNotADigitOutput: true)
        var cut = view
        cut.digits[1].isCutByFrame = true
        var plain = Surface(width: 1, height: 1), marked = Surface(width: 1, height: 1)
        c.show(view)
        c.render(into: &plain)
        c.show(cut)
        c.render(into: &marked)
        let answer = c.layout.answer
        let footer = PixelRect(x: answer.x, y: answer.maxY - 9 * c.layout.textScale - c.layout.gap, width: answer.width,
                               height: 9 * c.layout.textScale + c.layout.gap)
        XCTAssertGreaterThan(Pad.differences(plain, marked, in: footer), 20)
        XCTAssertEqual(Pad.differences(plain, marked, in: PixelRect(x: answer.x, y: answer.y, width: answer.width, height: footer.y - answer.y)), 0)
    }

    func testNumber_TheLinesOfAPhotoAreShownApart() throws {
        // Fixtures/paper's "9" above its "5351", as `digitpad --open` reads such a photo.
        func photo(_ name: String) throws -> DecodedImage {
            try ImageDecoder.read(path: TestPaths.fixtures.appendingPathComponent("paper/\(name)").path)
        }
        let nine = try photo("paper-0001.jpg"), number = try photo("paper-0004.jpg")
        let page = try PNG.decode(try PNG.encode(gray: nine.gray + number.gray, width: nine.width, height: nine.height * 2), file: "two.png")
        // The cutting reader (--cuts) reads the 9 beside the number as a line of its own; the paper
        // model keeps to lines that share columns (LineReaderTests).
        let recognizer = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        recognizer.lineReader = nil
        let reading = try recognizer.read(image: page)
        let view = AnswerView(reading, revision: 1, mapping: CanvasMapping(scale: 1.0 / 720, offsetX: 0, offsetY: 0), boxesArePaths: false)
        XCTAssertEqual(view.text, "9 5351", reading.summary)
        XCTAssertEqual(view.lineStarts, [1])

        // The panel leaves a glyph's room between the lines: the same digits in one line differ.
        let (c, three) = threeDigits()
        var spaced = three
        spaced.lineStarts = [1]
        var a = Surface(width: 1, height: 1), b = Surface(width: 1, height: 1)
        c.show(three)
        c.render(into: &a)
        c.show(spaced)
        c.render(into: &b)
        XCTAssertGreaterThan(Pad.differences(a, b, in: c.layout.answer), 100)
    }

    func testNumber_AReadingFromDigitKitIsPlacedOnTheCanvas() throws {
        // A 1 and a 0 written side by side in canvas pixels of a 500-pixel canvas.
        let recognizer = try DigitRecognizer(weightsPath: TestPaths.weights.path)
        var ring: [StrokePoint] = []
        for i in 0...40 {
            let a = Float(i) / 40 * 2 * .pi
            ring.append(StrokePoint(x: 300 + 45 * sin(a), y: 250 - 70 * cos(a)))
        }
        let drawing = Drawing(strokes: [[StrokePoint(x: 150, y: 180), StrokePoint(x: 152, y: 320)], ring])
        let reading = try recognizer.read(drawing)
        let view = AnswerView(reading, revision: 1, mapping: CanvasMapping(scale: 1.0 / 500, offsetX: 0, offsetY: 0))
        XCTAssertEqual(view.text, reading.text)
        XCTAssertEqual(view.digits.count, 2, reading.summary)
        let box = try XCTUnwrap(view.digits.last?.box)
        XCTAssertEqual(box.x0, 255.0 / 500, accuracy: 0.01)
        XCTAssertEqual(box.y1, 320.0 / 500, accuracy: 0.01)
        XCTAssertEqual(view.digits.map(\.raster.count), [784, 784])
        XCTAssertEqual(view.digits.map(\.probabilities.count), [10, 10])
        let single = AnswerView(reading, revision: 1, mapping: CanvasMapping(scale: 1, offsetX: 0, offsetY: 0), showBoxes: false)
        XCTAssertTrue(single.digits.allSatisfy { $0.box == nil })
    }
}
