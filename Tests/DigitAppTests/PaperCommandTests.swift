import DigitKit
import DigitTestSupport
import Foundation
import XCTest

/// `digits make-paper` end to end through the real executable.
final class PaperCommandTests: DigitsCommandTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try RobustnessFixtures.unipen(digits: 40, points: 12).write(to: folder.appendingPathComponent("digits.dat"),
                                                                     atomically: true, encoding: .utf8)
    }

    func testMakePaper_WritesDecodableImagesAndLabelsTheSameForTheSameSeed() throws {
        let args = ["make-paper", "--strokes", "digits.dat", "--count", "3", "--lengths", "1-3", "--size", "160x120",
                    "--digit-height", "30-50", "--seed", "9"]
        let first = try digits(args + ["--out", "a"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("wrote 3 160×120 jpeg images"), first.stderr)
        let second = try digits(args + ["--out", "b"])
        XCTAssertEqual(second.status, 0, second.stderr)

        let a = folder.appendingPathComponent("a"), b = folder.appendingPathComponent("b")
        let labels = try String(contentsOf: a.appendingPathComponent("labels.tsv"), encoding: .utf8)
        XCTAssertEqual(labels, try String(contentsOf: b.appendingPathComponent("labels.tsv"), encoding: .utf8))
        let entries = try PaperLabels.parse(labels, file: "labels.tsv")
        XCTAssertEqual(entries.map(\.file), ["paper-0001.jpg", "paper-0002.jpg", "paper-0003.jpg"])
        for entry in entries {
            XCTAssertTrue((1...3).contains(entry.label.count) && entry.label.allSatisfy(\.isNumber), entry.label)
            XCTAssertEqual(entry.boxes.count, entry.label.count)
            let bytes = try Data(contentsOf: a.appendingPathComponent(entry.file))
            XCTAssertEqual(bytes, try Data(contentsOf: b.appendingPathComponent(entry.file)))
            let image = try ImageDecoder.decode([UInt8](bytes), file: entry.file)
            XCTAssertEqual([image.width, image.height], [160, 120])
            for box in entry.boxes {
                XCTAssertTrue(box.x >= 0 && box.y >= 0 && box.maxX <= 160 && box.maxY <= 120 && !box.isEmpty, "\(box)")
            }
        }
    }

    func testMakePaper_NotesOfSeveralLinesAreLabelledLineByLineTopToBottom() throws {
        let run = try digits(["make-paper", "--strokes", "digits.dat", "--out", "notes", "--count", "4", "--lengths", "1-4",
                              "--lines", "2-3", "--size", "320x320", "--digit-height", "30-40", "--seed", "3"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("in 2-3 lines"), run.stderr)
        let entries = try PaperLabels.parse(try String(contentsOf: folder.appendingPathComponent("notes/labels.tsv"), encoding: .utf8),
                                            file: "labels.tsv")
        XCTAssertEqual(entries.count, 4)
        for entry in entries {
            let lines = entry.label.split(separator: " ").map(String.init)
            XCTAssertTrue((2...3).contains(lines.count), entry.label)
            XCTAssertTrue(lines.allSatisfy { (1...4).contains($0.count) && $0.allSatisfy(\.isNumber) }, entry.label)
            XCTAssertEqual(entry.boxes.count, lines.joined().count)
            // Each line's digits lie below every digit of the line above.
            var start = 0
            var bottom = -1
            for line in lines {
                let boxes = entry.boxes[start..<(start + line.count)]
                XCTAssertGreaterThan(boxes.map(\.y).min()!, bottom, entry.label)
                bottom = boxes.map(\.maxY).max()!
                start += line.count
            }
        }
        let bad = try digits(["make-paper", "--strokes", "digits.dat", "--out", "x", "--lines", "0-2"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--lines takes A-B"), bad.stderr)
    }

    func testMakePaper_GrayPGMAndSingleDigits() throws {
        let run = try digits(["make-paper", "--strokes", "digits.dat", "--out", "p", "--count", "2", "--lengths", "1-1",
                              "--format", "pgm", "--size", "96x64", "--inverted-share", "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let p = folder.appendingPathComponent("p")
        let entries = try PaperLabels.parse(try String(contentsOf: p.appendingPathComponent("labels.tsv"), encoding: .utf8),
                                            file: "labels.tsv")
        XCTAssertEqual(entries.map { $0.label.count }, [1, 1])
        let image = try ImageDecoder.read(path: p.appendingPathComponent(entries[0].file).path)
        XCTAssertEqual(image.format, .pnm)
        // A dark board: most pixels dark.
        XCTAssertLessThan(image.gray.map(Int.init).sorted()[image.gray.count / 2], 100)
    }

    func testMakePaper_AppendNumbersOnAndKeepsTheEarlierLabels() throws {
        let base = ["make-paper", "--strokes", "digits.dat", "--out", "set", "--size", "96x64", "--quality", "80"]
        XCTAssertEqual(try digits(base + ["--count", "2", "--lengths", "1-1"]).status, 0)
        let labels = folder.appendingPathComponent("set/labels.tsv")
        let before = try String(contentsOf: labels, encoding: .utf8)
        let run = try digits(base + ["--count", "1", "--lengths", "3-3", "--append", "--seed", "2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let after = try String(contentsOf: labels, encoding: .utf8)
        XCTAssertTrue(after.hasPrefix(before))
        let entries = try PaperLabels.parse(after, file: "labels.tsv")
        XCTAssertEqual(entries.map(\.file), ["paper-0001.jpg", "paper-0002.jpg", "paper-0003.jpg"])
        XCTAssertEqual(entries.map(\.label.count), [1, 1, 3])
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("set/paper-0003.jpg").path))
    }

    func testMakePaper_TheCommandsInTheFixtureREADMERemakeFixturesPaper() throws {
        guard let pendigits = TestPaths.requirePendigits(), let digits = Executable.digits else { return }
        let paper = TestPaths.fixtures.appendingPathComponent("paper")
        let readme = try String(contentsOf: paper.appendingPathComponent("README.md"), encoding: .utf8)
        // The sh block: `common="…"` over two lines, then three `digits make-paper $common …` lines.
        let block = try XCTUnwrap(readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        let common = try XCTUnwrap(block.components(separatedBy: "\"").dropFirst().first).split(whereSeparator: \.isWhitespace).map(String.init)
        let commands = block.split(separator: "\n").filter { $0.hasPrefix("digits make-paper $common ") }
        XCTAssertEqual(commands.count, 3)
        let out = folder.appendingPathComponent("paper").path
        for command in commands {
            var args = ["make-paper"] + common + command.split(separator: " ").dropFirst(3).map(String.init)
            args = args.map { $0 == "Fixtures/paper" ? out : $0 == "Fixtures/pendigits/pendigits-orig.tra" ? pendigits.path : $0 }
            let run = try digits.run(args, in: folder)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let labels = try String(contentsOfFile: out + "/labels.tsv", encoding: .utf8)
        XCTAssertEqual(labels, try String(contentsOf: paper.appendingPathComponent("labels.tsv"), encoding: .utf8))
        // The pixels alike; the bytes may differ with another libjpeg.
        for entry in try PaperLabels.parse(labels, file: "labels.tsv") {
            let made = try ImageDecoder.read(path: out + "/" + entry.file)
            let committed = try ImageDecoder.read(path: paper.appendingPathComponent(entry.file).path)
            XCTAssertEqual([made.width, made.height], [committed.width, committed.height])
            let difference = zip(made.gray, committed.gray).map { abs(Int($0) - Int($1)) }.reduce(0, +)
            XCTAssertLessThanOrEqual(Double(difference) / Double(made.gray.count), 1, entry.file)
        }
    }

    func testMakePaper_FrameCutFramesTheSamePhotosThroughAnEndDigit() throws {
        let args = ["make-paper", "--strokes", "digits.dat", "--count", "4", "--lengths", "2-3", "--size", "200x120",
                    "--digit-height", "30-50", "--seed", "4"]
        XCTAssertEqual(try digits(args + ["--out", "whole"]).status, 0)
        let run = try digits(args + ["--out", "cut", "--frame-cut", "1"])
        XCTAssertEqual(run.status, 0, run.stderr)
        func entries(_ dir: String) throws -> [PaperLabels.Entry] {
            try PaperLabels.parse(try String(contentsOf: folder.appendingPathComponent(dir + "/labels.tsv"), encoding: .utf8), file: dir)
        }
        let (whole, cut) = (try entries("whole"), try entries("cut"))
        XCTAssertEqual(cut.map(\.label), whole.map(\.label), "the label stays the whole number")
        var framed = 0
        for entry in cut {
            let image = try ImageDecoder.read(path: folder.appendingPathComponent("cut/" + entry.file).path)
            XCTAssertEqual(image.height, 120)
            guard image.width < 200 else { continue }
            framed += 1
            XCTAssertTrue(entry.boxes.first!.x == 0 || entry.boxes.last!.maxX == image.width, "\(entry.boxes) in \(image.width)")
        }
        XCTAssertGreaterThan(framed, 0)
    }

    func testMakePaper_BadOptionsAreOneLineUsageErrors() throws {
        for (extra, phrase) in [(["--size", "10x10000"], "--size"), (["--format", "gif"], "--format"),
                                (["--inverted-share", "2"], "--inverted-share"), (["--writers", "999"], "no labelled single digits"),
                                (["--digit-height", "50-20"], "--digit-height"),
                                (["--quality", "0-80"], "--quality"), (["--frame-cut", "2"], "--frame-cut")] {
            let run = try digits(["make-paper", "--strokes", "digits.dat", "--out", "x"] + extra)
            XCTAssertNotEqual(run.status, 0)
            XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("digits make-paper: ") && run.stderr.contains(phrase), run.stderr)
        }
        let missing = try digits(["make-paper", "--out", "x"])
        XCTAssertEqual(missing.status, 2)
    }
}
