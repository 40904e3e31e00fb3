import DigitKit
import DigitPadKit
import Foundation
import DigitTestSupport
import XCTest

/// End-to-end tests of the `digitpad` binary, headless: replays and scripts go through SDL's
/// event queue into the same handler as real input; answers come back as printed JSON lines and
/// the picture as PNG screenshots.
final class WindowTests: XCTestCase {
    let seven = PadProcess.fixture("window/seven.json")
    let four = PadProcess.fixture("window/four-two-strokes.json")
    /// A smaller window where the default size is not the point: less to draw and encode in a debug build.
    let small = "640x400"

    func testWindow_HelpPrintsUsageAndExitsZero() throws {
        let run = try PadProcess.run(["--help"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.hasPrefix("digitpad — draw a digit"))
        XCTAssertTrue(run.stdout.contains("--replay FILE"))
    }

    func testWindow_BadArgumentsPrintOneLineAndExitWithTwo() throws {
        let cases: [([String], String)] = [
            (["--threshold", "2"], "digitpad: --threshold must be a number in 0.0...1.0, got '2'\n"),
            (["--bogus"], "digitpad: unknown option '--bogus' (see --help)\n"),
            (["--script", "undo; jump"], "digitpad: --script step 2: unknown step 'jump' (draw, touch, key, undo, clear, save, open, label, click, rightclick, resize, wait, print, snapshot, storm)\n"),
        ]
        for (arguments, message) in cases {
            let run = try PadProcess.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments)")
            XCTAssertEqual(run.stderr, message)
            XCTAssertEqual(run.stdout, "")
        }
    }

    func testWindow_UnreadableReplayFilesStopBeforeTheWindowOpens() throws {
        let dir = try PadProcess.temporaryFolder()
        let broken = dir.appendingPathComponent("broken.json").path
        try FileIO.writeAtomically("{\"strokes\": [[[1, 2], [3]]]}", to: broken)
        let missing = try PadProcess.run(["--replay", dir.appendingPathComponent("nope.json").path, "--exit"])
        XCTAssertEqual(missing.status, 3)
        XCTAssertTrue(missing.stderr.hasSuffix("nope.json: no such file\n"), missing.stderr)
        let bad = try PadProcess.run(["--replay", broken, "--exit"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasPrefix("digitpad: \(broken): "), bad.stderr)
        XCTAssertEqual(bad.stderr.filter { $0 == "\n" }.count, 1, "one line")
        let open = try PadProcess.run(["--open", dir.appendingPathComponent("gone.json").path, "--exit"])
        XCTAssertEqual(open.status, 3, "--open of a missing file")
        XCTAssertTrue(open.stderr.hasSuffix("gone.json: no such file\n"), open.stderr)
        let index = try PadProcess.run(["--script", "draw \(seven) 3", "--exit"])
        XCTAssertEqual(index.status, 1)
        XCTAssertTrue(index.stderr.contains("there is no drawing 3"), index.stderr)
    }

    func testWindow_ReplayPrintsOneRecognitionPerStrokeInTheRecognizeSchema() throws {
        let run = try PadProcess.run(["--replay", four, "--replay-rate", "0", "--print", "--exit"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.lines.count, 2, "one line per stroke: \(run.stdout)")
        for (i, line) in run.lines.enumerated() {
            let answer = try PrintedAnswer(line)
            XCTAssertEqual(answer.source, "window")
            XCTAssertEqual(answer.index, i)
            XCTAssertEqual(answer.label, "4", "the file's label is typed before the replay")
            XCTAssertEqual(answer.top.count, 3)
            XCTAssertEqual(answer.top[0].probability, answer.confidence, accuracy: 1e-6)
            XCTAssertTrue(answer.top[0].probability >= answer.top[1].probability && answer.top[1].probability >= answer.top[2].probability)
            if let digit = answer.digit {
                XCTAssertEqual(digit, answer.top[0].digit)
                XCTAssertGreaterThanOrEqual(answer.confidence, 0.9)
            } else {
                XCTAssertLessThan(answer.confidence, 0.9)
            }
        }
        XCTAssertEqual(try PrintedAnswer(run.lines[1]).digit, 4)
        XCTAssertTrue(run.stdout.hasPrefix("{\"source\":\"window\",\"index\":0,\"digit\":"), run.stdout)
    }

    func testWindow_ClearDigitsAreRecognizedThroughTheMousePath() throws {
        // A thin 1 (aspect kept), a two-stroke 4 and a self-crossing 8: the window's path from mouse
        // events to the recognizer; the recognizer's accuracy on every fixture is DigitKit's test.
        // (A debug build needs about half a second per recognition, hence not all ten.)
        var script: [String] = []
        var expected: [Int] = []
        for digit in [1, 4, 8] {
            let path = PadProcess.fixture("strokes/digit-\(digit)-a.json")
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "missing fixture \(path)")
            script += ["draw \(path)", "print", "clear"]
            expected.append(digit)
        }
        script += ["draw \(seven)", "print", "clear", "draw \(four)", "print"]
        expected += [7, 4]
        let run = try PadProcess.run(["--script", script.joined(separator: "; "), "--replay-rate", "0", "--exit",
                                      "--size", small])
        XCTAssertEqual(run.status, 0, run.stderr)
        let answers = try run.lines.map { try PrintedAnswer($0) }
        XCTAssertEqual(answers.map(\.digit), expected.map { Optional($0) })
        XCTAssertEqual(answers.map(\.label), expected.map { Optional(String($0)) })
        XCTAssertEqual(answers.map(\.index), Array(0..<expected.count))
    }

    func testWindow_TouchInputDrawsWhatTheMouseDraws() throws {
        let dir = try PadProcess.temporaryFolder()
        let touch = dir.appendingPathComponent("touch.png").path, mouse = dir.appendingPathComponent("mouse.png").path
        let run = try PadProcess.run(["--script", "touch \(four); print; snapshot \(touch); clear; draw \(four); print; snapshot \(mouse)",
                                      "--replay-rate", "0", "--exit", "--size", small])
        XCTAssertEqual(run.status, 0, run.stderr)
        let answers = try run.lines.map { try PrintedAnswer($0) }
        XCTAssertEqual(answers.count, 2)
        XCTAssertEqual(answers.first?.digit, answers.last?.digit)
        let a = try Screenshot(touch), b = try Screenshot(mouse)
        let inkA = a.ink(in: a.layout.canvas), inkB = b.ink(in: b.layout.canvas)
        XCTAssertGreaterThan(inkA, 1000)
        // Mouse positions are whole window pixels, touch positions are not: a hair of difference.
        XCTAssertEqual(Double(inkA), Double(inkB), accuracy: Double(inkB) * 0.02)
    }

    func testWindow_UndoAndClearChangeWhatIsShown() throws {
        let dir = try PadProcess.temporaryFolder()
        func shot(_ name: String) -> String { dir.appendingPathComponent(name + ".png").path }
        let script = [
            "draw \(four)", "snapshot \(shot("both"))",
            "undo", "snapshot \(shot("undo"))",
            "key backspace", "snapshot \(shot("backspace"))",
            "draw \(four)", "click undo", "snapshot \(shot("button-undo"))",
            "rightclick", "snapshot \(shot("rightclick"))",
            "draw \(four)", "click clear", "snapshot \(shot("button-clear"))",
            "draw \(four)", "key c", "snapshot \(shot("key-c"))",
        ].joined(separator: "; ")
        let run = try PadProcess.run(["--script", script, "--replay-rate", "0", "--exit", "--size", small])
        XCTAssertEqual(run.status, 0, run.stderr)
        let both = try Screenshot(shot("both")), undo = try Screenshot(shot("undo"))
        let inkBoth = both.ink(in: both.layout.canvas), inkUndo = undo.ink(in: undo.layout.canvas)
        XCTAssertGreaterThan(inkUndo, 1000, "the first stroke stays")
        XCTAssertGreaterThan(inkBoth, inkUndo + 1000, "the second stroke is gone")
        XCTAssertNotEqual(both.region(both.layout.previewImage), undo.region(undo.layout.previewImage),
                          "the network input shown follows the drawing")
        XCTAssertEqual(try Screenshot(shot("backspace")).ink(in: both.layout.canvas), 0, "Backspace undoes too")
        let buttonUndo = try Screenshot(shot("button-undo"))
        XCTAssertEqual(buttonUndo.ink(in: buttonUndo.layout.canvas), inkUndo, "the Undo button does what Ctrl+Z does")
        for name in ["rightclick", "button-clear", "key-c"] {
            let s = try Screenshot(shot(name))
            XCTAssertEqual(s.ink(in: s.layout.canvas), 0, "\(name) clears the canvas")
            XCTAssertEqual(s.ink(in: s.layout.previewImage), 0, "\(name) clears the preview")
        }
    }

    func testWindow_KeysWithModifiersAreNotMistakenForCommands() throws {
        // Ctrl+C is copy elsewhere and must not clear; Delete clears like C.
        let run = try PadProcess.run(["--script", "draw \(seven); key ctrl+c; print; key delete; print",
                                      "--replay-rate", "0", "--exit", "--size", small])
        XCTAssertEqual(run.status, 0, run.stderr)
        let answers = try run.lines.map { try PrintedAnswer($0) }
        XCTAssertEqual(answers.map(\.digit), [7, nil])
        XCTAssertTrue(run.lines.last?.contains("\"empty\":true") == true, run.stdout)
    }

    func testWindow_SavedDrawingLoadsBackWithDrawingLoader() throws {
        let dir = try PadProcess.temporaryFolder()
        let run = try PadProcess.run(["--save-dir", dir.path, "--script", "draw \(four); label 9; save; print",
                                      "--replay-rate", "0", "--exit", "--size", small])
        XCTAssertEqual(run.status, 0, run.stderr)
        let saved = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(saved.count, 1, "\(saved)")
        let name = try XCTUnwrap(saved.first)
        XCTAssertNotNil(name.range(of: #"^drawing-\d{8}-\d{6}\.json$"#, options: .regularExpression), name)
        let records = try DrawingLoader.load(dir.appendingPathComponent(name).path)
        XCTAssertEqual(records.count, 1)
        let drawing = try records[0].result.get()
        XCTAssertEqual(drawing.label, "9", "the digit key pressed last sets the label")
        let side = try XCTUnwrap(drawing.canvasWidth)
        XCTAssertEqual(drawing.canvasHeight, side)
        XCTAssertEqual(side, Float(PadLayout(width: 640, height: 400).canvas.width))
        let original = try DrawingLoader.load(four)[0].result.get()
        XCTAssertEqual(drawing.strokes.count, original.strokes.count)
        for (s, o) in zip(drawing.strokes, original.strokes) {
            XCTAssertEqual(s.count, o.count, "every motion event is kept")
            for (p, q) in zip(s, o) {
                // Same place on the canvas, to the window pixel the mouse reports.
                XCTAssertEqual(p.x / side, q.x / 280, accuracy: 1.5 / side)
                XCTAssertEqual(p.y / side, q.y / 280, accuracy: 1.5 / side)
                XCTAssertNotNil(p.t, "times are recorded")
            }
        }
        // Opening the saved file shows the same drawing and gets the same answer.
        let reopened = try PadProcess.run(["--open", dir.appendingPathComponent(name).path, "--script", "print", "--exit"])
        XCTAssertEqual(reopened.status, 0, reopened.stderr)
        let a = try PrintedAnswer(try XCTUnwrap(run.lines.last)), b = try PrintedAnswer(try XCTUnwrap(reopened.lines.last))
        XCTAssertEqual(a.digit, b.digit)
        XCTAssertEqual(b.label, "9")
        XCTAssertEqual(a.confidence, b.confidence, accuracy: 0.02)
    }

    func testWindow_OpenStepsThroughTheSaveFolder() throws {
        let dir = try PadProcess.temporaryFolder()
        try FileManager.default.copyItem(atPath: seven, toPath: dir.appendingPathComponent("a.json").path)
        try FileManager.default.copyItem(atPath: four, toPath: dir.appendingPathComponent("b.json").path)
        let run = try PadProcess.run(["--save-dir", dir.path, "--script", "open; print; open; print; open; print", "--exit"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try run.lines.map { try PrintedAnswer($0).label }, ["7", "4", "7"])
    }

    func testWindow_ScreenshotShowsTheDrawingAndThePanel() throws {
        let dir = try PadProcess.temporaryFolder()
        let path = dir.appendingPathComponent("shot.png").path
        let run = try PadProcess.run(["--replay", seven, "--replay-rate", "0", "--screenshot", path, "--exit"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let s = try Screenshot(path)
        XCTAssertEqual(s.image.width, 1040)
        XCTAssertEqual(s.image.height, 620)
        XCTAssertGreaterThan(s.variance, 500, "not blank")
        XCTAssertGreaterThan(s.ink(in: s.layout.canvas), 5000)
        XCTAssertGreaterThan(s.ink(in: s.layout.previewImage), 20)
        XCTAssertEqual(RGB(s.pixel(2, 2)), PadTheme.background)
        let textPixels = s.region(s.layout.answer).filter { $0 == PadTheme.text.argb || $0 == PadTheme.warning.argb }.count
        XCTAssertGreaterThan(textPixels, 300, "the big answer is drawn")
    }

    func testWindow_ResizingRelaysOutAndKeepsTheDrawing() throws {
        let dir = try PadProcess.temporaryFolder()
        let path = dir.appendingPathComponent("tall.png").path
        let run = try PadProcess.run(["--script", "draw \(seven); resize 600 900; snapshot \(path)", "--replay-rate", "0", "--exit"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let s = try Screenshot(path)
        XCTAssertEqual(s.image.width, 600)
        XCTAssertEqual(s.image.height, 900)
        XCTAssertTrue(s.layout.isPortrait)
        XCTAssertGreaterThan(s.ink(in: s.layout.canvas), 3000)
    }

    func testWindow_AStormOfRandomEventsLeavesItRunningAndResponsive() throws {
        let dir = try PadProcess.temporaryFolder()
        let run = try PadProcess.run(["--save-dir", dir.path, "--script", "storm 4000 11; clear; draw \(seven); print",
                                      "--replay-rate", "0", "--exit", "--size", small], timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
        let answer = try PrintedAnswer(try XCTUnwrap(run.lines.last, "no answer after the storm"))
        XCTAssertEqual(answer.digit, 7)
        XCTAssertLessThan(run.seconds, 60)
    }

    func testWindow_AnIdleWindowSleepsInsteadOfSpinning() throws {
        let process = Process()
        process.executableURL = PadProcess.binary
        process.arguments = ["--weights", PadProcess.weights, "--size", small]
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_VIDEODRIVER"] = "offscreen"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // CPU ticks (utime + stime, 1/100 s) from /proc: what the process used, however busy the machine is.
        func ticks() throws -> Int {
            let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            XCTAssertGreaterThan(fields.count, 13, stat)
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        }
        // Wait for the start (first frame, first recognition) to be over: a quiet half second.
        var last = try ticks()
        for _ in 0..<20 {
            Thread.sleep(forTimeInterval: 0.5)
            let now = try ticks()
            defer { last = now }
            if now - last <= 2 { break }
        }
        XCTAssertTrue(process.isRunning)
        let before = try ticks()
        Thread.sleep(forTimeInterval: 2)
        let used = try ticks() - before
        // SDL's offscreen driver cannot block and checks for events every millisecond (under
        // 1 % of a core); a spinning loop would use all 200 ticks.
        XCTAssertLessThan(used, 20, "\(used) ticks of CPU in 2 s of idling")
    }

    func testWindow_FrameTimesAreReported() throws {
        let run = try PadProcess.run(["--replay", seven, "--replay-rate", "60", "--frame-stats", "--exit"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let line = try XCTUnwrap(run.stderr.split(separator: "\n").last.map(String.init))
        XCTAssertNotNil(line.range(of: #"^digitpad: frames \d+ · p50 \d+\.\d\d ms · p99 \d+\.\d\d ms · max \d+\.\d\d ms \(frame loop CPU: p50 \d+\.\d\d ms · p99 \d+\.\d\d ms; renderer software\)$"#,
                                   options: .regularExpression), line)
        // Events that arrive while a frame is drawn are handled together in the next one, so a
        // slow (debug, busy) machine draws fewer, larger batches: at least one frame, at most one per event.
        let numbers = line.split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(numbers.count, 6, line)
        let frames = Int(numbers.first ?? 0)
        XCTAssertTrue((1...14).contains(frames), "13 points and a release: \(frames) frames")
        XCTAssertLessThanOrEqual(numbers[1], numbers[2], "p50 ≤ p99")
        XCTAssertLessThanOrEqual(numbers[4], numbers[1] + 0.01, "CPU time within wall time")
    }
}
