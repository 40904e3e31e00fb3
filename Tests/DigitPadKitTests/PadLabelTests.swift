import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

/// Labels of several characters: digits typed one after another, L, `--label`.
final class PadLabelTests: XCTestCase {
    private func type(_ c: PadController, _ digits: String) {
        for d in digits { XCTAssertEqual(c.handle(.key(.digit(Int(String(d))!))), []) }
    }

    func testLabel_DigitsAppendAndLClears() {
        let c = PadController(width: 1040, height: 620)
        type(c, "2026")
        XCTAssertEqual(c.document.label, "2026")
        XCTAssertTrue(c.status.text.hasPrefix("label 2026"), c.status.text)
        XCTAssertEqual(c.handle(.key(.clearLabel)), [])
        XCTAssertNil(c.document.label)
        type(c, "77")
        XCTAssertEqual(c.document.label, "77")
        Pad.stroke(c, [(0.2, 0.2), (0.3, 0.3)])
        type(c, "1")
        XCTAssertEqual(c.document.label, "771", "drawing does not end the label")
        XCTAssertEqual(c.handle(.key(.clear)), [.recognize(live: false)])
        XCTAssertNil(c.document.label, "clear starts over")
        type(c, String(repeating: "9", count: 70))
        XCTAssertEqual(c.document.label?.count, 64, "the stroke format's longest label")
        XCTAssertEqual(c.status.kind, .error)
    }

    func testLabel_TheCommandLinesLabelIsTheDefault() {
        let c = PadController(width: 1040, height: 620, defaultLabel: "scribble")
        XCTAssertEqual(c.document.label, "scribble")
        XCTAssertTrue(c.status.text.hasPrefix("label scribble"), c.status.text)
        Pad.stroke(c, [(0.2, 0.2), (0.3, 0.3)])
        XCTAssertEqual(c.document.drawing(side: 100).label, "scribble", "what a save writes")
        type(c, "31")
        XCTAssertEqual(c.document.label, "31", "typed digits replace it")
        _ = c.handle(.key(.clearLabel))
        XCTAssertEqual(c.document.label, "scribble", "L brings it back")
        type(c, "5")
        _ = c.handle(.key(.clear))
        XCTAssertEqual(c.document.label, "scribble", "and so does clear")
        c.load(PadDocument(drawing: Drawing(strokes: [[StrokePoint(x: 1, y: 1)]], label: nil), in: CanvasMapping(scale: 0.1, offsetX: 0, offsetY: 0)))
        XCTAssertEqual(c.document.label, "scribble", "an opened drawing without a label")
        c.load(PadDocument(drawing: Drawing(strokes: [[StrokePoint(x: 1, y: 1)]], label: "42"), in: CanvasMapping(scale: 0.1, offsetX: 0, offsetY: 0)))
        XCTAssertEqual(c.document.label, "42", "an opened drawing keeps its own")
        type(c, "7")
        XCTAssertEqual(c.document.label, "7", "typing after an open starts a new label")
    }
}
