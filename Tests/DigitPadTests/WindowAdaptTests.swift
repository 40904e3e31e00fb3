import DigitApp
import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// Personal profiles in the window, on a virtual display: `--profile`, and A learning one from the
/// save folder while the window goes on.
final class WindowAdaptTests: XCTestCase {
    /// The answer card's caption row of a window `width × height`, as the window draws it for an
    /// empty drawing read with a profile (`personal`) or without, and no label.
    private func captionRow(width: Int, height: Int, personal: Bool) -> (rect: PixelRect, pixels: [UInt32]) {
        let c = PadController(width: width, height: height)
        var view = AnswerView.blank(threshold: 0.9)
        view.profile = personal ? PadAdaptation.profileName : nil
        c.show(view)
        var surface = Surface(width: 1, height: 1)
        c.render(into: &surface)
        let r = c.layout.answer, g = c.layout.gap
        let row = PixelRect(x: r.x + g, y: r.y + g, width: r.width - 2 * g, height: 7 * c.layout.textScale)
        return (row, (row.y..<row.maxY).flatMap { y in (row.x..<row.maxX).map { surface.pixel($0, y) } })
    }

    /// Waits until the answer card says "personal" (or, with `false`, that it does not).
    @discardableResult
    private func waitForCaption(_ window: PadWindow, personal: Bool, timeout: Double = PadWindow.timeout) throws -> Screenshot {
        let g = try window.geometry()
        let expected = captionRow(width: g.width, height: g.height, personal: personal)
        let other = captionRow(width: g.width, height: g.height, personal: !personal)
        XCTAssertNotEqual(expected.pixels, other.pixels, "the two captions must look different")
        return try window.waitForPicture(personal ? "the answer card saying personal" : "the answer card without personal",
                                         timeout: timeout) { $0.region(expected.rect) == expected.pixels }
    }

    /// Labelled drawings of pendigits writer 3, saved in `folder` as the window's Save writes them.
    private func saveWriterThree(_ count: Int, in folder: URL) throws {
        guard let file = TestPaths.requirePendigits() else { throw WindowFailure("no pendigits") }
        let drawings = try DrawingLoader.load(file.path).filter { $0.writer == 3 }.prefix(count).map { try $0.result.get() }
        for (i, d) in drawings.enumerated() {
            try FileIO.writeAtomically(StrokeJSON.encode(d) + "\n",
                                       to: folder.appendingPathComponent(String(format: "drawing-20260101-0000%02d.json", i)).path)
        }
    }

    func testProfile_AWindowStartedWithAProfileSaysPersonal() throws {
        let dir = try temporaryFolder(self)
        let profile = try RobustnessFixtures.writeQuickProfile(for: PadFixtures.weights, in: dir)
        guard let window = try PadWindow.start(self, ["--profile", profile], in: dir) else { return }
        try waitForCaption(window, personal: true)
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)

        guard let plain = try PadWindow.start(self, [], in: dir, on: window.display) else { return }
        try waitForCaption(plain, personal: false)
        XCTAssertEqual(try plain.quit().status, 0)
    }

    func testAdapt_ALearnsFromTheSaveFolderWritesTheProfileAndTheWindowReadsWithIt() throws {
        let saves = try temporaryFolder(self)
        try saveWriterThree(6, in: saves)
        guard let window = try PadWindow.start(self, ["--save-dir", saves.path, "--print"]) else { return }
        try waitForCaption(window, personal: false)

        // A drawing labelled and saved in the window joins the six in the folder.
        try window.draw(try PadFixtures.drawing(PadFixtures.seven), label: "7")
        try window.waitForLines(1)
        try window.key("s")
        try window.key("a")
        // Learning takes seconds on its own thread: the window answers the pointer meanwhile.
        try window.settle()
        let profile = saves.appendingPathComponent(PadAdaptation.profileName).path
        let deadline = Date().addingTimeInterval(180)
        while !FileManager.default.fileExists(atPath: profile) {
            try window.requireRunning()
            guard Date() < deadline else { throw WindowFailure("A wrote no profile in 180 s: \(window.process.stderrSoFar)") }
            usleep(50_000)
        }
        // The drawing is read again with the profile: the card says so, and nothing more is printed.
        let shot = try waitForCaption(window, personal: true)
        let status = shot.layout.status
        XCTAssertEqual(shot.count(PadTheme.error, in: status), 0, "the status line reports no error")
        XCTAssertGreaterThan(shot.count(PadTheme.text, in: status), 0, "the status line says what was learned")
        let learned = try WriterProfile.load(path: profile)
        XCTAssertEqual(learned.drawingCount, 7, "six from the folder and the one saved in the window")
        XCTAssertEqual(learned.baseWeights, try ModelFile.load(path: PadFixtures.weights).weightsID)

        XCTAssertEqual(window.lines.count, 1, "reading again with the profile is not a change of the drawing")

        // Drawing goes on, read with the profile: the clear, then each of the four's two strokes.
        try window.key("c")
        try window.draw(try PadFixtures.drawing(PadFixtures.four))
        let lines = try window.waitForLines(4)
        XCTAssertEqual(lines.count, 4, "\(lines)")
        XCTAssertEqual(try PrintedAnswer(lines[3]).digit, 4)
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
        XCTAssertEqual(end.stderr, "")
    }

    func testAdapt_WithNothingLabelledTheStatusLineSaysSoAndNoProfileIsWritten() throws {
        let saves = try temporaryFolder(self)
        guard let window = try PadWindow.start(self, ["--save-dir", saves.path]) else { return }
        let status = try window.layout().status
        try window.key("a")
        try window.waitForPicture("an error in the status line") { $0.count(PadTheme.error, in: status) > 0 }
        try waitForCaption(window, personal: false)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: saves.path), [])
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
        XCTAssertEqual(end.stderr, "", "nothing labelled is for the status line, not stderr")
    }
}
