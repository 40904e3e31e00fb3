import DigitApp
import DigitKit
import DigitPadKit
import DigitTestSupport
import Foundation
import XCTest

/// Photos and scans in the window, on a virtual display: shown fitted in the canvas, read as
/// `digits recognize` reads them, boxes over the digits; bad images refused.
final class WindowImageTests: XCTestCase {
    /// A synthetic photo of the number 5351 (Fixtures/paper).
    static let photo = PadFixtures.path("paper/paper-0004.jpg")

    /// Pixels of the canvas that are light gray, as paper is (ink is white, the canvas black).
    private func paper(_ s: Screenshot) -> Int {
        s.region(s.layout.canvas).filter { p in
            let c = RGB(p)
            return c.r == c.g && c.g == c.b && c.r > 0x90 && c.r < 0xFF
        }.count
    }

    func testImages_OpenShowsThePhotoFittedWithBoxesAndReadsItAsRecognizeDoes() throws {
        guard let display = try VirtualDisplay.start(for: self), let digitpad = Executable.named("digitpad"),
              let digits = Executable.digits else { return }
        let folder = try temporaryFolder(self)
        let png = folder.appendingPathComponent("photo.png").path
        let run = try digitpad.run(["--weights", PadFixtures.weights, "--open", WindowImageTests.photo, "--print",
                                    "--screenshot", png, "--exit", "--size", "640x400"],
                                   in: folder, environment: PadWindow.environment(display), timeout: PadWindow.timeout)
        XCTAssertEqual(run.status, 0, run.stderr)
        let recognized = try digits.run(["recognize", "--json", "--weights", PadFixtures.weights, WindowImageTests.photo], in: folder)
        XCTAssertEqual(recognized.status, 0, recognized.stderr)
        XCTAssertEqual(run.stdoutLines.count, 1, run.stdout)
        let window = try PrintedAnswer(try XCTUnwrap(run.stdoutLines.first)), cli = try PrintedAnswer(try XCTUnwrap(recognized.stdoutLines.first))
        XCTAssertEqual(window.text, cli.text)
        XCTAssertEqual(window.text, "5351")
        XCTAssertEqual(window.digits.map(\.box), cli.digits.map(\.box), "boxes in the photo's pixels")
        XCTAssertEqual(window.confidence, cli.confidence, accuracy: 1e-5)

        let shot = try Screenshot(png: png)
        XCTAssertGreaterThan(paper(shot), shot.layout.canvas.width * shot.layout.canvas.width / 3, "the photo, fitted (480×360)")
        XCTAssertEqual(shot.pixel(shot.layout.canvas.x + 3, shot.layout.canvas.y + 3), PadTheme.canvas, "above the 4:3 photo")
        // Each box, from the photo's pixels to the window's: its outline in accent.
        let canvas = shot.layout.canvas
        let scale = Double(canvas.width) / 480, top = Double(canvas.y) + (Double(canvas.width) - 360 * scale) / 2
        for digit in window.digits {
            let x = Double(canvas.x) + (digit.box[0] + digit.box[2]) / 2 * scale
            let y0 = top + digit.box[1] * scale
            let column = PixelRect(x: Int(x) - 2, y: Int(y0) - 40, width: 5, height: 40)
            XCTAssertGreaterThan(shot.count(PadTheme.accent, in: column), 3, "the box's top edge and the answer above \(digit.box)")
        }
        XCTAssertGreaterThan(shot.count(PadTheme.text, in: shot.layout.answer), 300, "the number in the panel")
    }

    func testImages_ABadImageStopsOpenAndIsOnlyAnErrorWhenOpenedLater() throws {
        let folder = try temporaryFolder(self)
        let bad = folder.appendingPathComponent("a-bad.png").path
        try FileIO.writeAtomically([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("not a picture".utf8), to: bad)
        guard let digitpad = Executable.named("digitpad") else { return }
        // No display: reaching the window would end with code 4.
        let refused = try digitpad.run(["--weights", PadFixtures.weights, "--open", bad, "--exit"], in: folder,
                                       environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil], timeout: 60)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(refused.stderrLines.count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("digitpad: \(bad): "), refused.stderr)

        // Opened from the save folder (as a dropped file is): an error in the status line, then
        // the next file, a good photo, is shown and read.
        try FileManager.default.copyItem(atPath: PadFixtures.path("paper/paper-0005.jpg"),
                                         toPath: folder.appendingPathComponent("b-photo.jpg").path)
        guard let window = try PadWindow.start(self, ["--save-dir", folder.path, "--print"]) else { return }
        try window.key("o")
        try window.waitForPicture("the error in the status line") { $0.count(PadTheme.error, in: $0.layout.status) > 20 }
        XCTAssertEqual(window.lines, [], "nothing read")
        try window.key("o")
        let line = try PrintedAnswer(try window.waitForLines(1)[0])
        XCTAssertEqual(line.text, "4025")
        try window.waitForPicture("the photo") { self.paper($0) > 10_000 && $0.count(PadTheme.accent, in: $0.layout.canvas) > 100 }
        // Drawing on a photo does nothing; C clears it.
        try window.draw(try PadFixtures.drawing(PadFixtures.seven), label: "")
        try window.key("c")
        try window.waitForPicture("an empty canvas") { self.paper($0) == 0 && $0.ink(in: $0.layout.canvas) == 0 }
        let lines = try window.waitForLines(2).map { try PrintedAnswer($0) }
        XCTAssertEqual(lines.count, 2, "no stroke was read on the photo")
        XCTAssertTrue(lines[1].isEmpty)
        let end = try window.quit()
        XCTAssertEqual(end.status, 0, end.stderr)
    }
}
