import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// The window under random input, idle, and its frame times, on a virtual display.
final class WindowRobustnessTests: XCTestCase {
    func testRobustness_RandomInputLeavesTheWindowRunningAndAnswering() throws {
        let saves = try temporaryFolder(self)
        guard let window = try PadWindow.start(self, ["--print", "--save-dir", saves.path]) else { return }
        var input = RandomInput(seed: 11, window: window.id)
        for _ in 0..<40 {
            let g = try window.geometry()
            var words: [String] = []
            for _ in 0..<50 { words += input.next(width: g.width, height: g.height) }
            try window.display.xdotool(words)
            try window.requireRunning()
        }
        try window.display.xdotool(input.releaseAll() + ["windowmap", "--sync", window.id, "windowmove", window.id, "100", "100",
                                                         "windowsize", window.id, "640", "400", "windowfocus", window.id])
        try window.settle()
        // A seven, marked with a label the random keys never type, is still answered 7.
        try window.key("c")
        try window.draw(try PadFixtures.drawing(PadFixtures.seven), label: "5")
        let deadline = Date().addingTimeInterval(PadWindow.timeout)
        var marked: [PrintedAnswer] = []
        while marked.isEmpty && Date() < deadline {
            try window.requireRunning()
            marked = try window.lines.map { try PrintedAnswer($0) }.filter { $0.label == "5" }
            if marked.isEmpty { usleep(20_000) }
        }
        XCTAssertEqual(marked.map(\.digit), [7], "the answer after the random input")
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
    }

    func testRobustness_AnIdleWindowSleepsInsteadOfSpinning() throws {
        guard let window = try PadWindow.start(self) else { return }
        let pid = window.process.process.processIdentifier
        // CPU ticks (utime + stime, 1/100 s) from /proc: what the process used, however busy the machine is.
        func ticks() throws -> Int {
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            XCTAssertGreaterThan(fields.count, 13, stat)
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        // Wait for the start (first frames, first recognition) to be over: a quiet half second.
        var last = try ticks()
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.5)
            let now = try ticks()
            defer { last = now }
            if now - last <= 2 { break }
        }
        try window.requireRunning()
        let before = try ticks()
        Thread.sleep(forTimeInterval: 2)
        let used = try ticks() - before
        // Under X11 SDL_WaitEvent blocks (0 ticks); a polling loop would use up to 200.
        XCTAssertLessThan(used, 20, "\(used) ticks of CPU in 2 s of idling")
    }

    func testRobustness_FrameTimesAreReported() throws {
        guard let window = try PadWindow.start(self, ["--frame-stats"]) else { return }
        try window.draw(try PadFixtures.drawing(PadFixtures.seven), pointsPerSecond: 60)
        try window.settle()
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
        let line = try XCTUnwrap(end.stderrLines.last)
        XCTAssertNotNil(line.range(of: #"^digitpad: frames \d+ · p50 \d+\.\d\d ms · p99 \d+\.\d\d ms · max \d+\.\d\d ms \(frame loop CPU: p50 \d+\.\d\d ms · p99 \d+\.\d\d ms; renderer software\)$"#,
                                   options: .regularExpression), line)
        // Events that arrive while a frame is drawn are handled together in the next one, so a
        // slow (debug, busy) machine draws fewer, larger batches: at least one frame, at most one per point.
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(numbers.count, 6, line)
        let frames = Int(numbers.first ?? 0)
        XCTAssertTrue((1...13).contains(frames), "13 points: \(frames) frames")
        XCTAssertLessThanOrEqual(numbers[1], numbers[2], "p50 ≤ p99")
        XCTAssertLessThanOrEqual(numbers[4], numbers[1] + 0.01, "CPU time within wall time")
    }
}
