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
        XCTAssertEqual(effects.filter { $0 == .recognize(live: false) }.count, 1)
        XCTAssertEqual(effects.last, .recognize(live: false))
        XCTAssertTrue(effects.dropLast().allSatisfy { $0 == .recognize(live: true) })
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
        XCTAssertEqual(c.handle(.press(.mouse, x: x, y: y, button: 3, time: 0, pressure: nil)), [.recognize(live: false)])
        XCTAssertTrue(c.document.isEmpty)
    }

    func testController_ButtonsActOnReleaseOverTheSameButton() throws {
        let c = makeController()
        _ = stroke(c, [(0.2, 0.2), (0.4, 0.4)])
        _ = stroke(c, [(0.6, 0.2), (0.6, 0.8)])
        XCTAssertEqual(click(c, .undo), [.recognize(live: false)])
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
        XCTAssertEqual(click(c, .clear), [.recognize(live: false)])
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
        XCTAssertEqual(c.handle(.key(.undo)), [.recognize(live: false)])
        XCTAssertEqual(c.handle(.key(.undo)), [], "nothing left to undo")
        XCTAssertEqual(c.handle(.key(.quit)), [.quit])
        _ = stroke(c, [(0.2, 0.2)])
        XCTAssertEqual(c.handle(.key(.clear)), [.recognize(live: false)])
        XCTAssertNil(c.document.label)
    }

    func testController_SavingInTheMiddleOfAStrokeFinishesItFirst() {
        let c = makeController()
        let (x, y) = at(c, 0.3, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(c.handle(.key(.save)), [.recognize(live: false), .save])
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
        XCTAssertEqual(c.handle(.release(.finger(1), x: x + 10, y: y + 10, button: 1, time: 0.02)), [.recognize(live: false)])
        XCTAssertEqual(c.document.strokes.count, 1)
        XCTAssertEqual(c.document.strokes[0].first?.p, 0.5)
        XCTAssertEqual(c.document.strokes[0][1].p, 0.7)
    }

    func testController_APressWithoutARelease_EndsThePreviousStroke() {
        let c = makeController()
        let (x, y) = at(c, 0.3, 0.3)
        _ = c.handle(.press(.mouse, x: x, y: y, button: 1, time: 0, pressure: nil))
        let effects = c.handle(.press(.mouse, x: x + 40, y: y, button: 1, time: 0, pressure: nil))
        XCTAssertEqual(effects.first, .recognize(live: false))
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
        XCTAssertEqual(c.handle(.focusLost), [.recognize(live: false)])
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
        old.digits[0].digit = 8
        old.revision = 4
        c.show(new)
        c.show(old)
        XCTAssertEqual(c.answer.digits.first?.digit, 3)
    }
}

private func XCTAssertEqual(_ a: [Float], _ b: [Float], accuracy: Float, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, file: file, line: line) }
}
