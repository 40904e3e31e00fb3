@testable import DigitApp
import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `digits recognize` and `digits eval` on images, through the real executable.
final class ImageCommandTests: DigitsCommandTestCase {
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
        XCTAssertEqual(picture.width, 480, "480 pixels wide: not scaled")
        XCTAssertGreaterThan(picture.height, 360, "the photo under a band")
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

    /// Where the image sits in an overlay: below the band, scaled by `scale`. Checks that every
    /// pixel of that area is the image's or a box's outline, and that the band above holds some text.
    private func checkOverlay(_ path: String, of image: DecodedImage, scale: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let overlay = try PNG.decodeRGB(try FileIO.read(path, limit: 1 << 24), file: path)
        let rgb = try XCTUnwrap(overlay.rgb)
        XCTAssertEqual(overlay.width, image.width * scale, "scaled by \(scale)", file: file, line: line)
        let top = overlay.height - image.height * scale
        XCTAssertGreaterThan(top, 0, "a band above the image", file: file, line: line)
        let outlines: Set<[UInt8]> = [[Overlay.sure.r, Overlay.sure.g, Overlay.sure.b], [Overlay.unsure.r, Overlay.unsure.g, Overlay.unsure.b],
                                      [Overlay.notADigit.r, Overlay.notADigit.g, Overlay.notADigit.b]]
        var covered = 0
        for y in top..<overlay.height {
            for x in 0..<overlay.width {
                let i = 3 * (y * overlay.width + x), v = image.gray[(y - top) / scale * image.width + x / scale]
                let p = Array(rgb[i..<(i + 3)])
                if p == [v, v, v] { continue }
                XCTAssertTrue(outlines.contains(p), "(\(x), \(y)) is \(p), neither the image's \(v) nor an outline", file: file, line: line)
                covered += 1
            }
        }
        XCTAssertLessThan(covered, overlay.width * (overlay.height - top) / 4, "outlines only", file: file, line: line)
        let band = (0..<(top * overlay.width)).map { Array(rgb[(3 * $0)..<(3 * $0 + 3)]) }
        XCTAssertTrue(band.contains { outlines.contains($0) }, "the answer is written in the band", file: file, line: line)
    }

    func testRasterize_APhotoShowsTheLineThePaperModelReadsAndWithCutsItsDigits() throws {
        let photo = TestPaths.fixtures.appendingPathComponent("paper/paper-0004.jpg").path
        let lines = folder.appendingPathComponent("lines.png").path, cut = folder.appendingPathComponent("cut.png").path
        let run = try digits(["rasterize", photo, "--out", lines, "--scale", "2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let image = try PNG.decode(try FileIO.read(lines, limit: 1 << 24), file: lines)
        XCTAssertEqual(image.height, 2 * LineImage.height, "one line, 32 pixels tall, twice")
        XCTAssertGreaterThan(image.width, 3 * LineImage.height, "5351 is wider than one and a half times its line's height")
        let cutting = try digits(["rasterize", photo, "--cuts", "--out", cut])
        XCTAssertEqual(cutting.status, 0, cutting.stderr)
        let digitsImage = try PNG.decode(try FileIO.read(cut, limit: 1 << 24), file: cut)
        XCTAssertEqual([digitsImage.width, digitsImage.height], [4 * 29 - 1, 28], "four 28×28 digits side by side")
    }

    func testRecognize_OverlayOfASmallCropIsScaledUpWithItsAnswerAboveIt() throws {
        // A crop 40 pixels tall, cut from a photo of a 3 and halved: the banner used to cover it all.
        let photo = try ImageDecoder.read(path: paper.appendingPathComponent("paper-0002.jpg").path)
        let (x0, y0, width, height) = (300, 75, 50, 40)
        let gray = (0..<(width * height)).map { i in photo.gray[(y0 + 2 * (i / width)) * photo.width + x0 + 2 * (i % width)] }
        let crop = folder.appendingPathComponent("crop.png").path
        try FileIO.writeAtomically(try PNG.encode(gray: gray, width: width, height: height), to: crop)
        let out = folder.appendingPathComponent("crop-seen.png").path
        let run = try digits(["recognize", crop, "--overlay", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        try checkOverlay(out, of: try ImageDecoder.read(path: crop), scale: 6)

        // The photo itself: not scaled, every pixel kept under the band.
        let seen = folder.appendingPathComponent("photo-seen.png").path
        XCTAssertEqual(try digits(["recognize", paper.appendingPathComponent("paper-0004.jpg").path, "--overlay", seen]).status, 0)
        try checkOverlay(seen, of: try ImageDecoder.read(path: paper.appendingPathComponent("paper-0004.jpg").path, maxSide: 1600), scale: 1)
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

    /// A folder as real data sets come: upper-case extensions, labels.csv with a byte order mark,
    /// a header, CRLF and quoted fields, a label that is not a number and an image without a label.
    private func labelledFolder() throws -> URL {
        let set = folder.appendingPathComponent("set")
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        for (fixture, name) in [("0001", "one, nine.Jpg"), ("0002", "three.JPG"), ("0003", "two.jpeg"), ("0004", "n5351.JPG"),
                                ("0005", "n4025.Jpg"), ("0006", "n3261.jpg"), ("0002", "mislabelled.jpg"), ("0001", "sn.PNG.jpg"),
                                ("0003", "unlabelled.jpg")] {
            try FileManager.default.copyItem(at: paper.appendingPathComponent("paper-\(fixture).jpg"), to: set.appendingPathComponent(name))
        }
        let csv = "filename,label\r\n\"one, nine.Jpg\",9\r\nthree.JPG,\"3\"\r\ntwo.jpeg,2\r\nn5351.JPG,5351\r\nn4025.Jpg,4025\r\n"
            + "n3261.jpg, 3261 \r\nmislabelled.jpg,8\r\nsn.PNG.jpg,Sn\r\n"
        try FileIO.writeAtomically([0xEF, 0xBB, 0xBF] + Array(csv.utf8), to: set.appendingPathComponent("labels.csv").path)
        return set
    }

    func testEval_AFolderWithLabelsCSVGivesTheNumberReportByLengthAndTheWorstReadings() throws {
        let set = try labelledFolder()
        // The report's parts, with the reader whose readings of these photos the counts below are (--cuts).
        let run = try digits(["eval", set.path, "--json", "--cuts"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderrLines, ["digits eval: 1 image without a label was left out"])
        let report = try JSONParser.parse(run.stdout)
        XCTAssertEqual([report["numbers"], report["non_numbers"]], [.number(7), .number(1)], run.stdout)
        guard case let .array(lengths)? = report["by_length"], case let .array(worst)? = report["worst"] else { return XCTFail(run.stdout) }
        XCTAssertEqual(lengths.map { [$0["digits"], $0["count"]] }, [[.number(1), .number(4)], [.number(4), .number(3)]], run.stdout)
        // The photo of a 3 labelled 8 is answered 3, the 9 labelled "Sn" answered 9: both wrong,
        // named by their files, the surest first.
        let sources = worst.compactMap { entry -> String? in if case let .string(s)? = entry["source"] { return s }; return nil }
        XCTAssertEqual(sources.sorted(), [set.appendingPathComponent("mislabelled.jpg").path, set.appendingPathComponent("sn.PNG.jpg").path],
                       run.stdout)
        XCTAssertEqual(worst.map { $0["answered"] }, [.bool(true), .bool(true)])
        let confidences = worst.compactMap { entry -> Double? in if case let .number(c)? = entry["confidence"] { return c }; return nil }
        XCTAssertEqual(confidences, confidences.sorted(by: >), "the surest first")
        XCTAssertEqual(worst.compactMap { entry -> Bool? in if case let .bool(b)? = entry["number"] { return b }; return nil }.sorted { !$0 && $1 },
                       [false, true])
        XCTAssertEqual(report["answered_right"], .number(6), "every other photo is read right: \(run.stdout)")

        let text = try digits(["eval", set.path, "--cuts"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("\nby length       count     exact  answered  right among answered\n"
                                           + "    1 digit         4    75.00%   100.00%    75.00%   (1 wrong)\n"
                                           + "    4 digits        3   100.00%   100.00%   100.00%   (0 wrong)\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("answered but wrong, most confident first (2 of 2)\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  9        Sn     \(set.appendingPathComponent("sn.PNG.jpg").path)  (not a number)\n"), text.stdout)
    }

    func testEval_ABadLabelsCSVIsOneLineNamingTheFileAndLine() throws {
        let set = try labelledFolder()
        try FileIO.writeAtomically(Array("filename,label\nthree.JPG,3\ntwo.jpeg,\"2\n".utf8), to: set.appendingPathComponent("labels.csv").path)
        let run = try digits(["eval", set.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderrLines, ["digits eval: \(set.path)/labels.csv: line 3: the quoted field that starts here is not closed: the file ends inside it"])
        XCTAssertEqual(run.stdout, "")
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
