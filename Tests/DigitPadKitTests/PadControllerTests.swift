import DigitApp
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class PadControllerTests: XCTestCase {
    private func makeController() -> PadController { PadController(width: 1040, height: 620) }

    /// A window point at canvas units (u, v).
    private func at(_ c: PadController, _ u: Float, _ v: Float) -> (Float, Float) {
        let r = c.layout.canvas
        return (Float(r.x) + u * Float(r.width), Float(r.y) + v * Float(r.height))
    }

    private func stroke(_ c: PadController, _ points: [(Float, Float)], pointer: PointerID = .mouse) -> [PadEffect] {
        var effects: [PadEffect] = []
        for (i, p) in points.enumerated() {
            let (x, y) = at(c, p.0, p.1)
            effects += c.handle(i == 0 ? .press(pointer, x: x, y: y, button: 1, time: Double(i), pressure: nil)
                                       : .move(pointer, x: x, y: y, time: Double(i), pressure: nil))
        }
        let (x, y) = at(c, points.last?.0 ?? 0, points.last?.1 ?? 0)
        effects += c.handle(.release(pointer, x: x, y: y, button: 1, time: Double(points.count)))
        return effects
    }

    private func click(_ c: PadController, _ button: PadButton, button number: Int = 1) -> [PadEffect] {
        guard let r = c.layout.buttons[button] else { XCTFail("no \(button) button"); return [] }
        return c.handle(.press(.mouse, x: r.midX, y: r.midY, button: number, time: 0, pressure: nil))
            + c.handle(.release(.mouse, x: r.midX, y: r.midY, button: number, time: 0))
    }

    func testController_AStrokeIsRecognizedLiveAndOnceMoreWhenItEnds() {
        let c = makeController()
        let effects = stroke(c, [(0.2, 0.2), (0.5, 0.5), (0.8, 0.2)])
        XCTAssertEqual(c.document.strokes.count, 1)
        XCTAssertEqual(c.document.pointCount, 3)
        XCTAssertEqual(effects.filter { $0 == .recognize(strokeEnded: true) }.count, 1)
        XCTAssertEqual(effects.last, .recognize(strokeEnded: true))
        XCTAssertTrue(effects.dropLast().allSatisfy { $0 == .recognize(strokeEnded: false) })
        XCTAssertEqual(c.document.strokes[0][1].x, 0.5, accuracy: 1e-5)
    }

    func testController_PressingOutsideTheCanvasDrawsNothing() {
        let c = makeController()
        XCTAssertEqual(c.handle(.press(.mouse, x: 2, y: 2, button: 1, time: 0, pressure: nil)), [])
        XCTAssertEqual(c.handle(.move(.mouse, x: c.layout.canvas.midX, y: c.layout.canvas.midY, time: 0, pressure: nil)), [])
        XCTAssertTrue(c.document.isEmpty)
    }

    func testController_DraggingOffTheCanvasKeepsThePointsOnItsEdge() {
        let c = makeController()
        _ = c.handle(.press(.mouse, x: c.layout.canvas.midX, y: c.layout.canvas.midY, button: 1, time: 0, pressure: nil))
        _ = c.handle(.move(.mouse, x: -500, y: 99999, time: 0, pressure: nil))
        XCTAssertEqual(c.document.strokes[0].last?.x, 0)
        XCTAssertEqual(c.document.strokes[0].last?.y, 1)
    }

    func testController_RightClickOnTheCanvasClears() {
        let c = makeController()
        _ = stroke(c, [(0.2, 0.2), (0.4, 0.4)])
        let (x, y) = at(c, 0.5, 0.5)
        XCTAssertEqual(c.handle(.press(.mouse, x: x, y: y, button: 3, time: 0, pressure: nil)), [.recognize(strokeEnded: false)])
        XCTAssertTrue(c.document.isEmpty)
    }

    func testController_ButtonsActOnReleaseOverTheSameButton() throws {
        let c = makeController()
        _ = stroke(c, [(0.2, 0.2), (0.4, 0.4)])
        _ = stroke(c, [(0.6, 0.2), (0.6, 0.8)])
        XCTAssertEqual(click(c, .undo), [.recognize(strokeEnded: false)])
        XCTAssertEqual(c.document.strokes.count, 1)
        // Pressed on Clear, released on Save: nothing happens.
        let clear = try XCTUnwrap(c.layout.buttons[.clear]), save = try XCTUnwrap(c.layout.buttons[.save])
        _ = c.handle(.press(.mouse, x: clear.midX, y: clear.midY, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(c.pressed, .clear)
        XCTAssertEqual(c.handle(.release(.mouse, x: save.midX, y: save.midY, button: 1, time: 0)), [])
        XCTAssertNil(c.pressed)
        XCTAssertEqual(c.document.strokes.count, 1)
        XCTAssertEqual(click(c, .save), [.save])
        XCTAssertEqual(click(c, .open), [.open])
        XCTAssertEqual(click(c, .clear), [.recognize(strokeEnded: false)])
        XCTAssertTrue(c.document.isEmpty)
    }

    func testController_KeysClearUndoSaveOpenLabelAndQuit() {
        let c = makeController()
        _ = stroke(c, [(0.2, 0.2), (0.4, 0.4)])
        XCTAssertEqual(c.handle(.key(.digit(7))), [])
        XCTAssertEqual(c.document.label, "7")
        XCTAssertEqual(c.status.kind, .info)
        XCTAssertEqual(c.handle(.key(.digit(12))), [])
        XCTAssertEqual(c.document.label, "7")
        XCTAssertEqual(c.handle(.key(.save)), [.save])
        XCTAssertEqual(c.handle(.key(.open)), [.open])
        XCTAssertEqual(c.handle(.key(.undo)), [.recognize(strokeEnded: false)])
        XCTAssertEqual(c.handle(.key(.undo)), [], "nothing left to undo")
        XCTAssertEqual(c.handle(.key(.quit)), [.quit])
        _ = stroke(c, [(0.2, 0.2)])
        XCTAssertEqual(c.handle(.key(.clear)), [.recognize(strokeEnded: false)])
        XCTAssertNil(c.document.label)
    }

    func testController_SavingInTheMiddleOfAStrokeFinishesItFirst() {
        let c = makeController()
        let (x, y) = at(c, 0.3, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(c.handle(.key(.save)), [.recognize(strokeEnded: true), .save])
        XCTAssertFalse(c.document.isStroking)
    }

    func testController_OnlyOnePointerDrawsAtATime() {
        let c = makeController()
        let (x, y) = at(c, 0.3, 0.3)
        _ = c.handle(.press(.finger(1), x: x, y: y, button: 1, time: 0, pressure: 0.5))
        XCTAssertEqual(c.handle(.press(.mouse, x: x + 50, y: y, button: 1, time: 0, pressure: nil)), [])
        XCTAssertEqual(c.handle(.press(.finger(2), x: x + 50, y: y, button: 1, time: 0, pressure: nil)), [])
        XCTAssertEqual(c.handle(.move(.finger(2), x: x + 60, y: y, time: 0, pressure: nil)), [])
        _ = c.handle(.move(.finger(1), x: x + 10, y: y + 10, time: 0.01, pressure: 0.7))
        XCTAssertEqual(c.handle(.release(.finger(1), x: x + 10, y: y + 10, button: 1, time: 0.02)), [.recognize(strokeEnded: true)])
        XCTAssertEqual(c.document.strokes.count, 1)
        XCTAssertEqual(c.document.strokes[0].first?.p, 0.5)
        XCTAssertEqual(c.document.strokes[0][1].p, 0.7)
    }

    func testController_APressWithoutARelease_EndsThePreviousStroke() {
        let c = makeController()
        let (x, y) = at(c, 0.3, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        let effects = c.handle(.press(.mouse, x: x + 40, y: y, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(effects.first, .recognize(strokeEnded: true))
        XCTAssertEqual(c.document.strokes.count, 2)
    }

    func testController_NonFiniteCoordinatesAreIgnored() {
        let c = makeController()
        XCTAssertEqual(c.handle(.press(.finger(1), x: .nan, y: 10, button: 1, time: 0, pressure: nil)), [])
        XCTAssertEqual(c.handle(.move(.mouse, x: .infinity, y: 10, time: 0, pressure: nil)), [])
        XCTAssertTrue(c.document.isEmpty)
    }

    func testController_LosingFocusEndsTheStroke() {
        let c = makeController()
        let (x, y) = at(c, 0.3, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(c.handle(.focusLost), [.recognize(strokeEnded: true)])
        XCTAssertEqual(c.handle(.move(.mouse, x: x + 30, y: y, time: 0, pressure: nil)), [])
        XCTAssertEqual(c.document.pointCount, 1)
    }

    func testController_ResizeKeepsTheDrawingInCanvasUnits() {
        let c = makeController()
        _ = stroke(c, [(0.2, 0.2), (0.8, 0.8)])
        c.resize(width: 600, height: 900)
        XCTAssertTrue(c.layout.isPortrait)
        XCTAssertEqual(c.document.strokes[0].map(\.x), [0.2, 0.8].map { Float($0) }, accuracy: 1e-3)
    }

    func testController_OlderAnswersDoNotReplaceNewerOnes() {
        let c = makeController()
        let new = AnswerView(digit: 3, confidence: 0.99, probabilities: Array(repeating: 0.1, count: 10),
                             raster: Array(repeating: 0, count: 784), isEmpty: false, threshold: 0.9, revision: 5)
        var old = new
        old.digit = 8
        old.revision = 4
        c.show(new)
        c.show(old)
        XCTAssertEqual(c.answer.digit, 3)
    }

    // MARK: - Rendering

    /// Pixels of white ink (gray above half); the canvas's hint text is tinted, not gray.
    private func inkPixels(_ s: Surface, in r: PixelRect) -> Int {
        var n = 0
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                let c = RGB(s.pixel(x, y))
                if c.r == c.g && c.g == c.b && c.r > 0x80 { n += 1 }
            }
        }
        return n
    }

    func testRender_StrokesAppearOnTheCanvasAndUndoRemovesThem() {
        let c = makeController()
        var s = Surface(width: 1, height: 1)
        c.render(into: &s)
        XCTAssertEqual(s.width, 1040)
        let empty = inkPixels(s, in: c.layout.canvas)
        XCTAssertEqual(empty, 0)
        _ = stroke(c, [(0.2, 0.5), (0.8, 0.5)])
        XCTAssertTrue(c.hasChanges)
        c.render(into: &s)
        XCTAssertFalse(c.hasChanges)
        let one = inkPixels(s, in: c.layout.canvas)
        // A 0.6-canvas line with ink width 0.1 canvas covers about 0.6·0.1 + π·0.05² of it.
        let side = Float(c.layout.canvas.width)
        let expected = (0.6 * 0.1 + Float.pi * 0.05 * 0.05) * side * side
        XCTAssertEqual(Float(one), expected, accuracy: expected * 0.05)
        _ = stroke(c, [(0.5, 0.1), (0.5, 0.9)])
        c.render(into: &s)
        XCTAssertGreaterThan(inkPixels(s, in: c.layout.canvas), one)
        _ = c.handle(.key(.undo))
        c.render(into: &s)
        XCTAssertEqual(inkPixels(s, in: c.layout.canvas), one, "undo redraws exactly the remaining stroke")
        _ = c.handle(.key(.clear))
        c.render(into: &s)
        XCTAssertEqual(inkPixels(s, in: c.layout.canvas), 0)
    }

    func testRender_IncrementalInkMatchesAFullRedraw() {
        let c = makeController()
        var s = Surface(width: 1, height: 1)
        c.render(into: &s)
        let (x, y) = at(c, 0.2, 0.2)
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
        let r = c.layout.canvas
        for yy in stride(from: r.y, to: r.maxY, by: 3) {
            for xx in stride(from: r.x, to: r.maxX, by: 3) where s.pixel(xx, yy) != full.pixel(xx, yy) {
                XCTFail("pixel (\(xx), \(yy)) differs")
                return
            }
        }
    }

    func testRender_ThePanelShowsTheAnswerAndTheInputPreview() {
        let c = makeController()
        var s = Surface(width: 1, height: 1)
        _ = stroke(c, [(0.2, 0.5), (0.8, 0.5)])
        var probabilities = Array(repeating: Float(0.01), count: 10)
        probabilities[4] = 0.91
        var raster = Array(repeating: Float(0), count: 784)
        for i in 300..<320 { raster[i] = 1 }
        c.show(AnswerView(digit: 4, confidence: 0.91, probabilities: probabilities, raster: raster, isEmpty: false,
                          threshold: 0.9, revision: c.document.revision))
        c.render(into: &s)
        XCTAssertGreaterThan(inkPixels(s, in: c.layout.previewImage), 0, "the preview shows the raster")
        let answerInk = countColor(s, PadTheme.text, in: c.layout.answer)
        XCTAssertGreaterThan(answerInk, 500, "a big digit is drawn")
        XCTAssertGreaterThan(countColor(s, PadTheme.accent, in: c.layout.chart), 100, "the winning bar, above the threshold")
        // Below the threshold the answer turns into an amber question mark.
        c.show(AnswerView(digit: nil, confidence: 0.6, probabilities: probabilities, raster: raster, isEmpty: false,
                          threshold: 0.9, revision: c.document.revision + 1))
        c.render(into: &s)
        XCTAssertLessThan(countColor(s, PadTheme.text, in: c.layout.answer), answerInk / 4)
        XCTAssertGreaterThan(countColor(s, PadTheme.warning, in: c.layout.answer), 500)
    }

    private func countColor(_ s: Surface, _ color: RGB, in r: PixelRect) -> Int {
        var n = 0
        for y in r.y..<r.maxY { for x in r.x..<r.maxX where s.pixel(x, y) == color.argb { n += 1 } }
        return n
    }
}

private func XCTAssertEqual(_ a: [Float], _ b: [Float], accuracy: Float, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, file: file, line: line) }
}
