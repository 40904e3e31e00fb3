import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class ReplayPlanTests: XCTestCase {
    private let twoStrokes = Drawing(strokes: [[StrokePoint(x: 28, y: 28), StrokePoint(x: 140, y: 28), StrokePoint(x: 140, y: 252)],
                                               [StrokePoint(x: 70, y: 140)]],
                                     canvasWidth: 280, canvasHeight: 280)

    func testReplay_EachStrokeIsAPressMovesAndARelease() {
        let events = ReplayPlan.events(for: twoStrokes, rate: 0)
        XCTAssertEqual(events.map(\.phase), [.down, .move, .move, .up, .down, .up])
        XCTAssertEqual(events[0].x, 0.1, accuracy: 1e-6)
        XCTAssertEqual(events[2].y, 0.9, accuracy: 1e-6)
        XCTAssertEqual(events[3].x, events[2].x, "released where the pen was")
        XCTAssertTrue(events.allSatisfy { $0.time == 0 }, "rate 0: all at once")
    }

    func testReplay_RatePacesThePointsWithAPauseBetweenStrokes() {
        let events = ReplayPlan.events(for: twoStrokes, rate: 100)
        XCTAssertEqual(events.map(\.time), [0, 0.01, 0.02, 0.03, 0.03 + ReplayPlan.strokeGap, 0.04 + ReplayPlan.strokeGap],
                       accuracy: 1e-9)
    }

    func testReplay_RecordedTimesAreUsedWithLongPausesShortened() {
        let d = Drawing(strokes: [[StrokePoint(x: 0, y: 0, t: 1.0), StrokePoint(x: 5, y: 5, t: 1.02)],
                                  [StrokePoint(x: 9, y: 0, t: 7.0), StrokePoint(x: 9, y: 9, t: 7.05)]])
        let events = ReplayPlan.events(for: d, rate: 1000)
        XCTAssertEqual(events.map(\.time), [0, 0.02, 0.02, 0.02 + ReplayPlan.maxGap, 0.07 + ReplayPlan.maxGap,
                                            0.07 + ReplayPlan.maxGap], accuracy: 1e-6)
    }

    func testReplay_TimesThatGoBackwardsAreIgnored() {
        let d = Drawing(strokes: [[StrokePoint(x: 0, y: 0, t: 1.0), StrokePoint(x: 5, y: 5, t: 0.5)]])
        XCTAssertEqual(ReplayPlan.events(for: d, rate: 10).map(\.time), [0, 0.1, 0.2], accuracy: 1e-9)
    }

    func testReplay_PointsOffTheirCanvasAreReplayedOnTheCanvasEdge() {
        let d = Drawing(strokes: [[StrokePoint(x: -50, y: 400), StrokePoint(x: 300, y: 140)]], canvasWidth: 280, canvasHeight: 280)
        let events = ReplayPlan.events(for: d, rate: 0)
        XCTAssertEqual(events[0].x, 0)
        XCTAssertLessThan(events[0].y, 1, "inside the canvas, whose far edge belongs to the panel")
        XCTAssertLessThan(events[1].x, 1)
    }

    func testReplay_AnEmptyDrawingHasNoEvents() {
        XCTAssertTrue(ReplayPlan.events(for: Drawing(strokes: [[], []]), rate: 60).isEmpty)
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}
