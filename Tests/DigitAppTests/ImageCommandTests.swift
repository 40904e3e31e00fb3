@testable import DigitApp
import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `digits recognize` and `digits eval` on images, through the real executable.
final class ImageCommandTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try temporaryFolder(self)
    }

    private func digits(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Executable.Result {
        guard let digits = Executable.named("digits", file: file, line: line) else { throw Executable.Missing() }
        return try digits.run(args, in: folder, file: file, line: line)
    }

    private var paper: URL { TestPaths.fixtures.appendingPathComponent("paper") }

    func testRecognize_APhotoGivesTheTextAndOneBoxPerDigitInsideTheImage() throws {
        let photo = paper.appendingPathComponent("paper-0004.jpg").path
        let run = try digits(["recognize", "--json", photo])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        let text = try XCTUnwrap(object["text"] as? String)
        let entries = try XCTUnwrap(object["digits"] as? [[String: Any]])
        XCTAssertEqual(entries.count, text.count, run.stdout)
        XCTAssertGreaterThanOrEqual(entries.count, 2, "paper-0004 holds a number: \(run.stdout)")
        for entry in entries {
            let box = try XCTUnwrap(entry["box"] as? [Double], run.stdout)
            XCTAssertTrue(box[0] >= 0 && box[1] >= 0 && box[2] <= 480 && box[3] <= 360 && box[0] < box[2] && box[1] < box[3], "\(box)")
        }
    }

    func testRecognize_OverlayWritesThePhotoWithAGreenBoxPerAnsweredDigit() throws {
        let photo = paper.appendingPathComponent("paper-0004.jpg").path
        let out = folder.appendingPathComponent("seen.png").path
        let run = try digits(["recognize", photo, "--overlay", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        let picture = try ImageDecoder.read(path: out)
        XCTAssertEqual([picture.width, picture.height], [480, 360])
        let rgb = try XCTUnwrap(try PNG.decodeRGB(try FileIO.read(out, limit: 1 << 24), file: out).rgb)
        let green = stride(from: 0, to: rgb.count, by: 3).filter {
            (rgb[$0], rgb[$0 + 1], rgb[$0 + 2]) == (Overlay.sure.r, Overlay.sure.g, Overlay.sure.b)
        }.count
        if run.stdout.contains("?") {
            XCTAssertGreaterThan(green, 0, run.stdout)
        } else {
            XCTAssertGreaterThan(green, 200, "boxes and text in the answer colour: \(run.stdout)")
        }

        let several = folder.appendingPathComponent("overlays").path
        let both = try digits(["recognize", photo, paper.appendingPathComponent("paper-0001.jpg").path, "--overlay", several])
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: several).sorted(), ["paper-0001.png", "paper-0004.png"])
    }

    func testRecognize_OverlayWithoutAnImageAndAFolderWithNothingToReadAreOneLineErrors() throws {
        let drawing = TestPaths.fixtures.appendingPathComponent("strokes/digit-3-a.json").path
        let overlay = try digits(["recognize", drawing, "--overlay", "x.png"])
        XCTAssertEqual(overlay.status, 2)
        XCTAssertEqual(overlay.stderrLines, ["digits recognize: --overlay x.png: the inputs hold no image to draw on"])
        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: empty.appendingPathComponent("notes.txt"))
        for command in ["recognize", "eval"] {
            let run = try digits([command, empty.path])
            XCTAssertNotEqual(run.status, 0, command)
            XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains(empty.path) && run.stderr.contains("no stroke files"), run.stderr)
        }
    }

    /// The image path loses nothing on clean images: MNIST test images written as PNG give the
    /// report of the same images read from IDX, byte for byte.
    func testEval_MNISTImagesAsPNGGiveExactlyTheIDXReport() throws {
        guard let dir = TestPaths.requireMNIST() else { return }
        let count = 300
        let set = try MNISTSet.load(directory: dir.path, split: .test)
        func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        let images = folder.appendingPathComponent("images-idx3-ubyte").path
        let labels = folder.appendingPathComponent("labels-idx1-ubyte").path
        try FileIO.writeAtomically([0, 0, 8, 3] + be32(count) + be32(28) + be32(28) + Array(set.images.pixels[0..<(count * 784)]), to: images)
        try FileIO.writeAtomically([0, 0, 8, 1] + be32(count) + Array(set.labels[0..<count]), to: labels)
        let png = folder.appendingPathComponent("png").path
        let write = try digits(["mnist", "--dir", dir.path, "--png", png, "--count", String(count)])
        XCTAssertEqual(write.status, 0, write.stderr)
        let fromIDX = try digits(["eval", "--images", images, "--labels", labels, "--json"])
        let fromPNG = try digits(["eval", png, "--json"])
        XCTAssertEqual(fromIDX.status, 0, fromIDX.stderr)
        XCTAssertEqual(fromPNG.status, 0, fromPNG.stderr)
        XCTAssertTrue(fromIDX.stdout.contains("\"count\":\(count)"), fromIDX.stdout)
        XCTAssertEqual(fromPNG.stdout, fromIDX.stdout)
    }
}
