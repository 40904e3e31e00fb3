import DigitKit
import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class ReplayAndStormTests: XCTestCase {
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

    func testStorm_IsDeterministicForASeedAndNeverQuits() {
        var a = Storm(seed: 9), b = Storm(seed: 9), c = Storm(seed: 10)
        var kinds = Set<String>()
        var differs = false
        for _ in 0..<5000 {
            let e = a.next(width: 800, height: 600)
            // Compared as text: NaN coordinates are never equal to themselves.
            let text = String(describing: e)
            if text != String(describing: b.next(width: 800, height: 600)) { XCTFail("same seed, different events"); break }
            if text != String(describing: c.next(width: 800, height: 600)) { differs = true }
            switch e {
            case let .key(key): XCTAssertNotEqual(key.name, "escape")
            case let .bogusWindowEvent(kind, _, _): XCTAssertNotEqual(kind, 14, "SDL_WINDOWEVENT_CLOSE")
            default: break
            }
            kinds.insert(String(describing: e).prefix { $0 != "(" }.description)
        }
        XCTAssertTrue(differs)
        for kind in ["mouseMotion", "mouseButton", "wheel", "finger", "key", "resize", "bogusWindowEvent", "focusLost",
                     "dropMissingFile", "unknownUserEvent"] {
            XCTAssertTrue(kinds.contains(kind), "the storm never makes a \(kind) event")
        }
    }

    func testStorm_IncludesNonFiniteTouchCoordinates() {
        var s = Storm(seed: 1)
        var sawNaN = false
        for _ in 0..<20000 {
            if case let .finger(_, x, y, _, _) = s.next(width: 100, height: 100), x.isNaN || y.isNaN { sawNaN = true }
        }
        XCTAssertTrue(sawNaN)
    }

    func testFrameStats_NearestRankPercentiles() {
        var stats = FrameStats()
        XCTAssertEqual(stats.summary, "frames 0")
        for v in 1...100 { stats.add(milliseconds: Double(v)) }
        stats.add(milliseconds: .nan)
        XCTAssertEqual(stats.percentile(50), 50)
        XCTAssertEqual(stats.percentile(99), 99)
        XCTAssertEqual(stats.percentile(100), 100)
        XCTAssertEqual(stats.summary, "frames 100 · p50 50.00 ms · p99 99.00 ms · max 100.00 ms")
    }

    func testOpenCycle_StepsThroughTheOpenFileThenTheSaveFolder() {
        let list = OpenCycle.candidates(openFile: "digits.jsonl", directory: "saved",
                                        entries: ["b.json", ".hidden.json", "a.jsonl", "notes.txt", "c.json.tmp"])
        XCTAssertEqual(list, ["digits.jsonl", "saved/a.jsonl", "saved/b.json"])
        var cycle = OpenCycle(openFile: "digits.jsonl")
        XCTAssertEqual(cycle.next(candidates: list)?.file, "digits.jsonl")
        cycle.showing(file: "digits.jsonl", index: 0, count: 2)
        XCTAssertEqual(cycle.next(candidates: list)?.index, 1, "the next drawing of the same file")
        cycle.showing(file: "digits.jsonl", index: 1, count: 2)
        XCTAssertEqual(cycle.next(candidates: list)?.file, "saved/a.jsonl")
        cycle.showing(file: "saved/b.json", index: 0, count: 0)   // unreadable: move on
        XCTAssertEqual(cycle.next(candidates: list)?.file, "digits.jsonl", "round again")
        XCTAssertNil(OpenCycle(openFile: nil).next(candidates: []))
        XCTAssertEqual(OpenCycle.candidates(openFile: nil, directory: "", entries: ["x.json"]), ["x.json"])
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}
