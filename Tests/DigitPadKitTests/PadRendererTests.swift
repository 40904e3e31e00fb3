import DigitApp
import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

/// The picture: ink, the one-digit panel, and the redraws that must match a full one.
final class PadRendererTests: XCTestCase {
    private func makeController(single: Bool = true) -> PadController { PadController(width: 1040, height: 620, single: single) }

    func testRender_StrokesAppearOnTheCanvasAndUndoRemovesThem() {
        let c = makeController()
        var s = Surface(width: 1, height: 1)
        c.render(into: &s)
        XCTAssertEqual(s.width, 1040)
        XCTAssertEqual(Pad.ink(s, in: c.layout.canvas), 0)
        Pad.stroke(c, [(0.2, 0.5), (0.8, 0.5)])
        XCTAssertTrue(c.hasChanges)
        c.render(into: &s)
        XCTAssertFalse(c.hasChanges)
        let one = Pad.ink(s, in: c.layout.canvas)
        // A 0.6-canvas line with ink width 0.1 canvas covers about 0.6·0.1 + π·0.05² of it.
        let side = Float(c.layout.canvas.width)
        let expected = (0.6 * 0.1 + Float.pi * 0.05 * 0.05) * side * side
        XCTAssertEqual(Float(one), expected, accuracy: expected * 0.05)
        Pad.stroke(c, [(0.5, 0.1), (0.5, 0.9)])
        c.render(into: &s)
        XCTAssertGreaterThan(Pad.ink(s, in: c.layout.canvas), one)
        _ = c.handle(.key(.undo))
        c.render(into: &s)
        XCTAssertEqual(Pad.ink(s, in: c.layout.canvas), one, "undo redraws exactly the remaining stroke")
        _ = c.handle(.key(.clear))
        c.render(into: &s)
        XCTAssertEqual(Pad.ink(s, in: c.layout.canvas), 0)
    }

    func testRender_IncrementalInkMatchesAFullRedraw() {
        let c = makeController()
        var s = Surface(width: 1, height: 1)
        c.render(into: &s)
        let (x, y) = Pad.at(c, 0.2, 0.2)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        for i in 1...20 {
            c.render(into: &s)   // a frame after every event, as the window does
            _ = c.handle(.move(.mouse, x: x + Float(i * 13), y: y + Float(i * i), time: 0, pressure: nil))
        }
        _ = c.handle(.release(.mouse, x: x + 260, y: y + 400, button: 1, time: 0))
        c.render(into: &s)
        var full = Surface(width: 1, height: 1)
        c.setNeedsFullRedraw()
        c.render(into: &full)
        XCTAssertEqual(Pad.differences(s, full, in: c.layout.canvas), 0)
    }

    func testRender_ThePanelShowsTheAnswerAndTheInputPreview() {
        let c = makeController()
        var s = Surface(width: 1, height: 1)
        Pad.stroke(c, [(0.2, 0.5), (0.8, 0.5)])
        var probabilities = Array(repeating: Float(0.01), count: 10)
        probabilities[4] = 0.91
        var raster = Array(repeating: Float(0), count: 784)
        for i in 300..<320 { raster[i] = 1 }
        c.show(AnswerView(digit: 4, confidence: 0.91, probabilities: probabilities, raster: raster, isEmpty: false,
                          threshold: 0.9, revision: c.document.revision))
        c.render(into: &s)
        XCTAssertGreaterThan(Pad.ink(s, in: c.layout.previewImage), 0, "the preview shows the raster")
        let answerInk = Pad.count(s, PadTheme.text, in: c.layout.answer)
        XCTAssertGreaterThan(answerInk, 500, "a big digit is drawn")
        XCTAssertGreaterThan(Pad.count(s, PadTheme.accent, in: c.layout.chart), 100, "the winning bar, above the threshold")
        // Below the threshold the answer turns into an amber question mark.
        c.show(AnswerView(digit: nil, confidence: 0.6, probabilities: probabilities, raster: raster, isEmpty: false,
                          threshold: 0.9, revision: c.document.revision + 1))
        c.render(into: &s)
        XCTAssertLessThan(Pad.count(s, PadTheme.text, in: c.layout.answer), answerInk / 4)
        XCTAssertGreaterThan(Pad.count(s, PadTheme.warning, in: c.layout.answer), 500)
        XCTAssertEqual(Pad.count(s, PadTheme.notADigit, in: c.layout.answer), 0)
        // More likely not a digit at all: a grey-blue crossed circle and words, no amber.
        c.show(AnswerView(digit: nil, confidence: 0.05, probabilities: probabilities, raster: raster, isEmpty: false,
                          threshold: 0.9, revision: c.document.revision + 2, notADigit: 0.93))
        c.render(into: &s)
        XCTAssertGreaterThan(Pad.count(s, PadTheme.notADigit, in: c.layout.answer), 500)
        XCTAssertEqual(Pad.count(s, PadTheme.warning, in: c.layout.answer), 0)
        XCTAssertTrue(c.overlayMarks.isEmpty, "a one-digit answer without a box (--single) marks nothing")
    }

    func testRender_AnImageIsShownFittedInTheCanvasAndCannotBeDrawnOn() {
        let c = makeController(single: false)
        var s = Surface(width: 1, height: 1)
        // A 400×200 image: white paper, a black bar in its left half.
        var gray = [UInt8](repeating: 255, count: 400 * 200)
        for y in 80..<120 { for x in 40..<160 { gray[y * 400 + x] = 0 } }
        let image = PadImage(path: "paper.png", width: 400, height: 200, gray: gray)
        c.load(image: image)
        c.render(into: &s)
        let canvas = c.layout.canvas, side = canvas.width
        let place = image.placement(side: side)
        XCTAssertEqual(place.width, side)
        XCTAssertEqual(place.height, (side + 1) / 2, "rounded")
        let paper = RGB(s.pixel(canvas.x + side / 2 + side / 4, canvas.y + side / 2))
        XCTAssertEqual(paper, RGB.gray(255), "the paper")
        XCTAssertEqual(RGB(s.pixel(canvas.x + side / 4, canvas.y + side / 2)), RGB.gray(0), "the bar")
        XCTAssertEqual(RGB(s.pixel(canvas.x + 5, canvas.y + 5)), PadTheme.canvas, "above the fitted image")
        // A box in image pixels lands on the bar.
        let (u0, v0) = image.mapping.toCanvas(40, 80), (u1, v1) = image.mapping.toCanvas(160, 120)
        XCTAssertEqual(u0, 0.1, accuracy: 1e-5)
        XCTAssertEqual(v0, 0.25 + 80.0 / 400, accuracy: 1e-5)
        c.show(AnswerView(text: "1", confidence: 0.95, digits: [Pad.mark(1, best: 1, confidence: 0.95,
                                                                        box: CanvasBox(x0: u0, y0: v0, x1: u1, y1: v1), rows: 4..<24)],
                          threshold: 0.9, revision: c.document.revision, boxesArePaths: false))
        c.render(into: &s)
        let marks = c.overlayMarks
        XCTAssertEqual(marks.count, 1)
        let bar = PixelRect(x: canvas.x + side / 10, y: canvas.y + side * 9 / 20, width: side * 3 / 10, height: side / 10)
        XCTAssertEqual(marks.first.map { $0.box.insetBy(3, 3).contains(bar.midX, bar.midY) }, true, "\(marks) around \(bar)")
        XCTAssertGreaterThan(Pad.count(s, PadTheme.accent, in: canvas), 100, "the box and its answer")
        let before = c.document
        let (x, y) = Pad.at(c, 0.5, 0.5)
        XCTAssertEqual(c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil)), [])
        XCTAssertEqual(c.document, before, "no stroke on an image")
        XCTAssertEqual(c.status.kind, .info)
        XCTAssertEqual(c.handle(.key(.clear)), [.recognize(live: false)])
        XCTAssertNil(c.image)
        c.render(into: &s)
        XCTAssertEqual(RGB(s.pixel(canvas.x + side / 2 + side / 4, canvas.y + side / 2)), PadTheme.canvas, "the image is gone")
    }
}
