import DigitTestSupport
import XCTest
@testable import DigitPadKit

final class OpenCycleAndFrameStatsTests: XCTestCase {
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
                                        entries: ["b.json", ".hidden.json", "a.jsonl", "notes.txt", "c.json.tmp", "d.PNG", "e.jpg", "f.gif"])
        XCTAssertEqual(list, ["digits.jsonl", "saved/a.jsonl", "saved/b.json", "saved/d.PNG", "saved/e.jpg"])
        var cycle = OpenCycle(openFile: "digits.jsonl")
        XCTAssertEqual(cycle.next(candidates: list)?.file, "digits.jsonl")
        cycle.showing(file: "digits.jsonl", index: 0, count: 2)
        XCTAssertEqual(cycle.next(candidates: list)?.index, 1, "the next drawing of the same file")
        cycle.showing(file: "digits.jsonl", index: 1, count: 2)
        XCTAssertEqual(cycle.next(candidates: list)?.file, "saved/a.jsonl")
        cycle.showing(file: "saved/b.json", index: 0, count: 0)   // unreadable: move on
        XCTAssertEqual(cycle.next(candidates: list)?.file, "saved/d.PNG", "images too")
        cycle.showing(file: "saved/e.jpg", index: 0, count: 1)
        XCTAssertEqual(cycle.next(candidates: list)?.file, "digits.jsonl", "round again")
        XCTAssertNil(OpenCycle(openFile: nil).next(candidates: []))
        XCTAssertEqual(OpenCycle.candidates(openFile: nil, directory: "", entries: ["x.json"]), ["x.json"])
    }
}
