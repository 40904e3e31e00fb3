import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// The window and files: Save, Open, `--open`, `--replay` and `--screenshot`, on a virtual display.
final class WindowFileTests: XCTestCase {
    /// Runs digitpad to the end on `display` (`--exit` belongs in `arguments`).
    private func runToTheEnd(_ arguments: [String], on display: VirtualDisplay, in folder: URL) throws -> Executable.Result? {
        guard let digitpad = Executable.named("digitpad") else { return nil }
        return try digitpad.run(["--weights", PadFixtures.weights] + arguments, in: folder,
                                environment: PadWindow.environment(display), timeout: PadWindow.timeout)
    }

    /// What a 640×400 window shows after opening `path`, from its own `--screenshot`.
    private func pictureOfOpening(_ path: String, on display: VirtualDisplay) throws -> Screenshot? {
        let folder = try temporaryFolder(self)
        let png = folder.appendingPathComponent("opened.png").path
        guard let run = try runToTheEnd(["--open", path, "--screenshot", png, "--exit", "--size", "640x400"],
                                        on: display, in: folder) else { return nil }
        XCTAssertEqual(run.status, 0, run.stderr)
        return try Screenshot(png: png)
    }

    func testFiles_SaveWritesWhatWasDrawnAndDigitsRecognizeGivesTheSameAnswer() throws {
        let saves = try temporaryFolder(self)
        guard let window = try PadWindow.start(self, ["--print", "--save-dir", saves.path]) else { return }
        let sent = try window.draw(try PadFixtures.drawing(PadFixtures.four))
        let answer = try PrintedAnswer(try XCTUnwrap(try window.waitForLines(2).last))
        // The fixture's label 4 was typed before drawing; L clears it, and digits make a new one.
        try window.key("l", "2", "0", "s")
        var saved: [String] = []
        let deadline = Date().addingTimeInterval(PadWindow.timeout)
        while saved.isEmpty && Date() < deadline {
            saved = try FileManager.default.contentsOfDirectory(atPath: saves.path).filter { $0.hasSuffix(".json") }
            if saved.isEmpty { usleep(20_000) }
        }
        XCTAssertEqual(saved.count, 1, "\(saved)")
        let name = try XCTUnwrap(saved.first, "S saved nothing in \(PadWindow.timeout) s")
        XCTAssertNotNil(name.range(of: #"^drawing-\d{8}-\d{6}\.json$"#, options: .regularExpression), name)
        let path = saves.appendingPathComponent(name).path

        // Every point where the mouse was, in canvas pixels, with its time.
        let drawing = try DrawingLoader.load(path)[0].result.get()
        let canvas = try window.layout().canvas
        XCTAssertEqual(drawing.label, "20", "the digits typed after L")
        XCTAssertEqual(drawing.canvasWidth, Float(canvas.width))
        XCTAssertEqual(drawing.canvasHeight, Float(canvas.width))
        XCTAssertEqual(drawing.strokes.count, sent.count)
        for (stroke, mouse) in zip(drawing.strokes, sent) {
            XCTAssertEqual(stroke.map(\.x), mouse.map { Float($0.x - canvas.x) })
            XCTAssertEqual(stroke.map(\.y), mouse.map { Float($0.y - canvas.y) })
            let times = stroke.compactMap(\.t)
            XCTAssertEqual(times.count, stroke.count, "times are recorded")
            XCTAssertEqual(times, times.sorted())
        }

        // `digits recognize` reads the file and answers what the window answered.
        guard let digits = Executable.digits else { return }
        let recognized = try digits.run(["recognize", "--json", "--weights", PadFixtures.weights, path], in: saves)
        XCTAssertEqual(recognized.status, 0, recognized.stderr)
        let again = try PrintedAnswer(try XCTUnwrap(recognized.stdoutLines.first))
        XCTAssertEqual(again.digit, answer.digit)
        XCTAssertEqual(again.digit, 4)
        XCTAssertEqual(again.confidence, answer.confidence, accuracy: 1e-4)
        XCTAssertEqual(again.label, "20")

        // Opened in a window, the file looks as it did when it was drawn.
        try window.settle()
        let drawn = try window.screenshot()
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
        guard let opened = try pictureOfOpening(path, on: window.display) else { return }
        XCTAssertEqual(opened.region(opened.layout.canvas), drawn.region(drawn.layout.canvas), "the same ink")
        XCTAssertEqual(opened.region(opened.layout.previewImage), drawn.region(drawn.layout.previewImage), "the same network input")
    }

    func testFiles_OpenStepsThroughTheSaveFolder() throws {
        guard let display = try VirtualDisplay.start(for: self) else { return }
        let saves = try temporaryFolder(self)
        let a = saves.appendingPathComponent("a.json").path, b = saves.appendingPathComponent("b.json").path
        try FileManager.default.copyItem(atPath: PadFixtures.seven, toPath: a)
        try FileManager.default.copyItem(atPath: PadFixtures.four, toPath: b)
        // What each file looks like opened (before the window under test, which keeps the focus).
        guard let seven = try pictureOfOpening(a, on: display), let four = try pictureOfOpening(b, on: display),
              let window = try PadWindow.start(self, ["--save-dir", saves.path], on: display) else { return }
        func canvas(_ s: Screenshot) -> [UInt32] { s.region(s.layout.canvas) }
        func answer(_ s: Screenshot) -> [UInt32] { s.region(s.layout.answer) }
        XCTAssertNotEqual(canvas(seven), canvas(four))
        for (expected, name) in [(seven, "a.json"), (four, "b.json"), (seven, "a.json again")] {
            try window.key("o")
            try window.waitForPicture("\(name), its answer and its label") {
                canvas($0) == canvas(expected) && answer($0) == answer(expected)
            }
        }
    }

    func testFiles_ReplayPrintsOneRecognitionPerStrokeInTheRecognizeSchema() throws {
        guard let display = try VirtualDisplay.start(for: self),
              let run = try runToTheEnd(["--replay", PadFixtures.four, "--replay-rate", "0", "--print", "--exit"],
                                        on: display, in: try temporaryFolder(self)) else { return }
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutLines.count, 2, "one line per stroke: \(run.stdout)")
        for (i, line) in run.stdoutLines.enumerated() {
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
        XCTAssertEqual(try PrintedAnswer(run.stdoutLines[1]).digit, 4)
        XCTAssertTrue(run.stdout.hasPrefix("{\"source\":\"window\",\"index\":0,\"text\":"), run.stdout)
    }

    func testFiles_ScreenshotSavesWhatTheWindowShows() throws {
        let folder = try temporaryFolder(self)
        let png = folder.appendingPathComponent("shot.png").path
        guard let window = try PadWindow.start(self, ["--replay", PadFixtures.seven, "--replay-rate", "0", "--screenshot", png],
                                               size: nil, in: folder) else { return }
        let deadline = Date().addingTimeInterval(PadWindow.timeout)
        while !FileManager.default.fileExists(atPath: png) && Date() < deadline { usleep(20_000) }
        let saved = try Screenshot(png: png)
        XCTAssertEqual(saved.width, 1040, "the default size")
        XCTAssertEqual(saved.height, 620)
        XCTAssertGreaterThan(saved.variance, 500, "not blank")
        XCTAssertGreaterThan(saved.ink(in: saved.layout.canvas), 5000)
        XCTAssertGreaterThan(saved.ink(in: saved.layout.previewImage), 20)
        XCTAssertEqual(saved.pixel(2, 2), PadTheme.background)
        XCTAssertGreaterThan(saved.count(PadTheme.text, in: saved.layout.answer), 300, "the big answer is drawn")
        // The file holds what is on the screen. (The buttons may differ: the test's pointer
        // passed over them while the window started.)
        try window.settle()
        let screen = try window.screenshot()
        for part in [\PadLayout.canvas, \.answer, \.preview, \.chart] {
            XCTAssertEqual(screen.region(screen.layout[keyPath: part]), saved.region(saved.layout[keyPath: part]), "\(part)")
        }
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
    }
}
