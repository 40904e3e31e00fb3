import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class PadDocumentTests: XCTestCase {
    func testDocument_StrokesAreKeptInCanvasUnitsAndScaledOnTheWayOut() {
        var d = PadDocument()
        d.begin(x: 0.25, y: 0.5, time: 10.0)
        d.extend(x: 0.75, y: 0.5, time: 10.016)
        d.end()
        let drawing = d.drawing(side: 400)
        XCTAssertEqual(drawing.strokes.count, 1)
        XCTAssertEqual(drawing.strokes[0].map(\.x), [100, 300])
        XCTAssertEqual(drawing.strokes[0].map(\.y), [200, 200])
        XCTAssertEqual(drawing.strokes[0].map(\.t), [0, 0.016], "seconds since the first point, to the millisecond")
        XCTAssertEqual(drawing.canvasWidth, 400)
        XCTAssertEqual(drawing.canvasHeight, 400)
    }

    func testDocument_PixelPositionsComeBackWholeAfterTheTripThroughCanvasUnits() {
        var d = PadDocument()
        let side: Float = 561
        d.begin(x: 286 / side, y: 17 / side, time: nil)
        d.extend(x: 123.5 / side, y: 560 / side, time: nil)
        let points = d.drawing(side: side).strokes[0]
        XCTAssertEqual(points.map(\.x), [286, 123.5])
        XCTAssertEqual(points.map(\.y), [17, 560])
    }

    func testDocument_PointsOffTheCanvasStayOnItsEdgeAndNaNBecomesZero() {
        var d = PadDocument()
        d.begin(x: -3, y: 7, time: nil)
        d.extend(x: .nan, y: 0.5, time: .infinity)
        XCTAssertEqual(d.strokes[0][0].x, 0)
        XCTAssertEqual(d.strokes[0][0].y, 1)
        XCTAssertEqual(d.strokes[0][1].x, 0)
        XCTAssertNil(d.strokes[0][1].t)
    }

    func testDocument_RepeatedPointsAddNothing() {
        var d = PadDocument()
        d.begin(x: 0.5, y: 0.5, time: nil)
        XCTAssertFalse(d.extend(x: 0.5, y: 0.5, time: nil))
        XCTAssertTrue(d.extend(x: 0.6, y: 0.5, time: nil))
        XCTAssertEqual(d.pointCount, 2)
    }

    func testDocument_ExtendWithoutAStrokeDoesNothing() {
        var d = PadDocument()
        XCTAssertFalse(d.extend(x: 0.1, y: 0.1, time: nil))
        XCTAssertTrue(d.isEmpty)
        XCTAssertFalse(d.end())
    }

    func testDocument_UndoRemovesTheLastStrokeAndClearRemovesAllAndTheLabel() {
        var d = PadDocument()
        d.label = "4"
        d.begin(x: 0.1, y: 0.1, time: nil); d.extend(x: 0.2, y: 0.2, time: nil); d.end()
        d.begin(x: 0.5, y: 0.1, time: nil); d.extend(x: 0.5, y: 0.9, time: nil); d.end()
        let before = d.revision
        XCTAssertTrue(d.undo())
        XCTAssertEqual(d.strokes.count, 1)
        XCTAssertEqual(d.pointCount, 2)
        XCTAssertGreaterThan(d.revision, before)
        d.clear()
        XCTAssertTrue(d.isEmpty)
        XCTAssertNil(d.label)
        XCTAssertFalse(d.undo())
    }

    func testDocument_UndoDuringAStrokeRemovesThatStroke() {
        var d = PadDocument()
        d.begin(x: 0.1, y: 0.1, time: nil); d.end()
        d.begin(x: 0.5, y: 0.5, time: nil)
        XCTAssertTrue(d.undo())
        XCTAssertFalse(d.isStroking)
        XCTAssertEqual(d.strokes.count, 1)
    }

    func testDocument_EveryChangeRaisesTheRevision() {
        var d = PadDocument()
        var seen = [d.revision]
        d.begin(x: 0.1, y: 0.1, time: nil); seen.append(d.revision)
        d.extend(x: 0.2, y: 0.1, time: nil); seen.append(d.revision)
        d.undo(); seen.append(d.revision)
        d.clear(); seen.append(d.revision)
        XCTAssertEqual(seen, seen.sorted())
        XCTAssertEqual(Set(seen).count, seen.count)
        d.advanceRevision(past: 100)
        XCTAssertEqual(d.revision, 101)
    }

    func testDocument_ADrawingWithACanvasKeepsItsPlaceOnIt() {
        let drawing = Drawing(strokes: [[StrokePoint(x: 70, y: 140), StrokePoint(x: 210, y: 140)]], label: "1",
                              canvasWidth: 280, canvasHeight: 280)
        let d = PadDocument(drawing: drawing, in: CanvasMapping(fitting: drawing))
        XCTAssertEqual(d.strokes[0].map(\.x), [0.25, 0.75])
        XCTAssertEqual(d.strokes[0].map(\.y), [0.5, 0.5])
        XCTAssertEqual(d.label, "1")
    }

    func testDocument_ADrawingWithoutACanvasIsFittedIntoTheMiddleEightyPercent() {
        let drawing = Drawing(strokes: [[StrokePoint(x: -1000, y: 5), StrokePoint(x: 1000, y: 5)], []])
        let m = CanvasMapping(fitting: drawing)
        let a = m.toCanvas(-1000, 5), b = m.toCanvas(1000, 5)
        XCTAssertEqual(a.0, 0.1, accuracy: 1e-6)
        XCTAssertEqual(b.0, 0.9, accuracy: 1e-6)
        XCTAssertEqual(a.1, 0.5, accuracy: 1e-6, "centred vertically")
        let d = PadDocument(drawing: drawing, in: m)
        XCTAssertEqual(d.strokes.count, 1, "empty strokes are dropped")
    }

    func testDocument_AFullDrawingRefusesNewStrokes() {
        var d = PadDocument()
        for i in 0..<PadDocument.maxStrokes {
            XCTAssertTrue(d.begin(x: Float(i % 100) / 100, y: 0.5, time: nil))
        }
        XCTAssertFalse(d.begin(x: 0.5, y: 0.5, time: nil))
        XCTAssertEqual(d.strokes.count, PadDocument.maxStrokes)
    }
}
