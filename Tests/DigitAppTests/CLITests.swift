@testable import DigitApp
@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// End to end through the real `digits` executable. The test target lists `digits` as a
/// dependency (Package.swift), so `swift test` builds it first, into the folder that holds the
/// test bundle; the tests run it as a child process and check exit codes, stdout and stderr.
final class CLITests: DigitsCommandTestCase {
    typealias Run = Executable.Result

    /// Writes the small test model (see `SmallModel`) and returns its path.
    private func smallWeights() throws -> String {
        let path = folder.appendingPathComponent("small.safetensors").path
        try SmallModel.model.write(to: path)
        return path
    }

    /// An IDX image file and label file of `count` random 28×28 images, written in the scratch folder.
    private func idxPair(count: Int) throws -> (images: String, labels: String) {
        var rng = SplitMix64(seed: 61)
        func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        // Dark background with a bright random blob, roughly like a digit.
        var pixels = [UInt8]()
        for _ in 0..<count {
            let cx = 8 + Int(rng.next() % 12), cy = 8 + Int(rng.next() % 12)
            for y in 0..<28 { for x in 0..<28 {
                let d = (x - cx) * (x - cx) + (y - cy) * (y - cy)
                pixels.append(d < 20 ? UInt8(155 + rng.next() % 100) : 0)
            } }
        }
        let labels = (0..<count).map { _ in UInt8(rng.next() % 10) }
        let images = folder.appendingPathComponent("images-idx3-ubyte").path
        let labelsPath = folder.appendingPathComponent("labels-idx1-ubyte").path
        try FileIO.writeAtomically([0, 0, 8, 3] + be32(count) + be32(28) + be32(28) + pixels, to: images)
        try FileIO.writeAtomically([0, 0, 8, 1] + be32(count) + labels, to: labelsPath)
        return (images, labelsPath)
    }

    private func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        if object == nil { XCTFail("not a JSON object: \(text)", file: file, line: line) }
        return object
    }

    // MARK: - Help and usage

    func testHelp_ListsTheCommandsAndEveryCommandHelpExitsZero() throws {
        let help = try digits(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertEqual(help.stderr, "")
        let lines = help.stdout.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex(of: "Commands:"), help.stdout)
        let names = lines[(start + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        for expected in ["train", "eval", "recognize", "version"] {
            XCTAssertTrue(names.contains(expected), "digits --help does not list \(expected): \(names)")
        }
        for name in names {
            let run = try digits([name, "--help"])
            XCTAssertEqual(run.status, 0, "digits \(name) --help")
            XCTAssertTrue(run.stdout.hasPrefix("Usage: digits \(name)"), "digits \(name) --help: \(run.stdout.prefix(80))")
            XCTAssertEqual(run.stderr, "", "digits \(name) --help")
            // `digits help NAME` prints the same text.
            XCTAssertEqual(try digits(["help", name]).stdout, run.stdout, "digits help \(name)")
        }
        let bare = try digits([])
        XCTAssertEqual(bare.status, 2, "no command is a usage error")
        XCTAssertTrue(bare.stdout.contains("Commands:"))
    }

    func testUnknownOptionOrCommand_ExitsTwoWithOneLineOnStderr() throws {
        let weights = try smallWeights()
        let cases: [[String]] = [
            ["version", "--bogus"],
            ["train", "--bogus"],
            ["eval", "--weights", weights, "--bogus"],
            ["recognize", "--weights", weights, "--bogus", "x.json"],
            ["recognize", "--weights", weights, "--threshold", "2", "x.json"],
            ["frobnicate"],
        ]
        for args in cases {
            let run = try digits(args)
            XCTAssertEqual(run.status, 2, "digits \(args.joined(separator: " ")): \(run.stderr)")
            XCTAssertEqual(run.stderrLines.count, 1, "one line on stderr: \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("digits"), run.stderr)
            XCTAssertEqual(run.stdout, "", "nothing on stdout for \(args)")
        }
        XCTAssertTrue(try digits(["version", "--bogus"]).stderr.contains("'--bogus'"))
        XCTAssertTrue(try digits(["frobnicate"]).stderr.contains("unknown command 'frobnicate'"))
    }

    // MARK: - eval

    func testEval_JSONIsOneObjectEqualToTheLibrarysReport() throws {
        let weights = try smallWeights()
        let (images, labels) = try idxPair(count: 25)
        let run = try digits(["eval", "--weights", weights, "--images", images, "--labels", labels, "--json", "--threads", "2"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutLines.count, 1, "one JSON object: \(run.stdout)")
        let object = try XCTUnwrap(json(run.stdoutLines.first ?? ""))
        for key in ["accuracy", "coverage", "selective_accuracy", "threshold", "count"] {
            XCTAssertNotNil(object[key], "key \(key) in \(run.stdout)")
        }
        XCTAssertEqual(object["count"] as? Int, 25)

        // The same evaluation through the library, byte for byte.
        let model = try ModelFile.load(path: weights)
        let set = try MNISTSet.load(images: images, labels: labels)
        let report = EvaluationReport(probabilities: BatchInference.probabilities(try model.makeNetwork(), pixels: BatchInference.pixels(set),
                                                                                  temperature: model.temperature, threads: 1),
                                      labels: set.labels.map(Int.init), threshold: 0.9, temperature: model.temperature)
        XCTAssertEqual(run.stdoutLines.first, report.json)
    }

    func testBench_QuickJSONHasTheLatencyAndNoiseFigures() throws {
        let weights = try smallWeights()
        let drawings = folder.appendingPathComponent("drawings")
        try FileManager.default.createDirectory(at: drawings, withIntermediateDirectories: true)
        for name in ["digit-1-a.json", "digit-8-b.json"] {
            try FileManager.default.copyItem(at: TestPaths.repoRoot.appendingPathComponent("Fixtures/strokes/\(name)"),
                                             to: drawings.appendingPathComponent(name))
        }
        let run = try digits(["bench", "--quick", "--only", "noise,e2e,raster", "--json", "--weights", weights,
                              "--drawings", drawings.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("noise: interruptions of this thread"), run.stderr)
        let object = try XCTUnwrap(json(run.stdoutLines.first ?? ""), run.stdout)
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        let p50 = try XCTUnwrap(number("e2e_us_p50")), p99 = try XCTUnwrap(number("e2e_us_p99"))
        XCTAssertGreaterThan(p50, 0)
        XCTAssertGreaterThanOrEqual(p99, p50)
        // Two drawings: the slowest one's median is at least the overall median.
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(number("e2e_us_slowest_drawing_p50")), p50)
        XCTAssertGreaterThan(try XCTUnwrap(number("raster_us_per_digit")), 0)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(number("noise_interruptions_per_s")), 0)
        XCTAssertNotNil(number("noise_e2e_hit_pct"), run.stdout)
        XCTAssertNil(object["cnn_img_per_s_b1_t1"], "only the parts asked for")
    }

    func testBench_NumbersAndImagesGiveReadingAndPhotoFigures() throws {
        let photo = TestPaths.fixtures.appendingPathComponent("paper/paper-0004.jpg").path
        let run = try digits(["bench", "--quick", "--only", "numbers,images", "--json", "--photo", photo,
                              "--drawings", TestPaths.fixtures.appendingPathComponent("strokes").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(json(run.stdoutLines.first ?? ""), run.stdout)
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        for name in ["read_4_digits", "read_10_digits", "png28_read"] {
            let p50 = try XCTUnwrap(number("\(name)_us_p50"), run.stdout), p99 = try XCTUnwrap(number("\(name)_us_p99"))
            XCTAssertGreaterThan(p50, 0, name)
            XCTAssertGreaterThanOrEqual(p99, p50, name)
        }
        XCTAssertGreaterThan(try XCTUnwrap(number("read_10_digits_cpu_us_p50")), try XCTUnwrap(number("read_4_digits_cpu_us_p50")),
                             "ten digits take longer than four")
        XCTAssertGreaterThan(try XCTUnwrap(number("photo_12mp_ms"), run.stdout), 0)
        XCTAssertGreaterThan(try XCTUnwrap(number("photo_12mp_peak_rss_mb")), 1)
        XCTAssertNil(object["e2e_us_p50"], "only the parts asked for")
    }

    /// DIGITS_KERNELS picks the compiled kernel copy; a name this build and CPU cannot run is
    /// reported on stderr and the best available copy runs instead.
    func testBench_DigitsKernelsChoosesTheKernelCopy() throws {
        for variant in KernelVariant.available {
            let run = try digits(["bench", "--only", "peak", "--runs", "1", "--json"], environment: ["DIGITS_KERNELS": variant.rawValue])
            XCTAssertEqual(run.status, 0, run.stderr)
            let object = try XCTUnwrap(json(run.stdoutLines.first ?? ""), run.stdout)
            XCTAssertEqual(object["kernels"] as? String, variant.description)
            XCTAssertEqual(object["fast_path"] as? Bool, variant.fusedMultiplyAdd)
        }
        let portable = KernelVariant.portable.description
        let version = try digits(["version"], environment: ["DIGITS_KERNELS": portable])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdoutLines, ["digits \(DigitKitVersion.string)",
                                             "kernels: \(portable) (this CPU runs: \(KernelVariant.available.map(\.description).joined(separator: ", ")))"])
        let run = try digits(["bench", "--only", "peak", "--runs", "1", "--json"], environment: ["DIGITS_KERNELS": "sse9"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderrLines.first, "digits: DIGITS_KERNELS=sse9 is not a kernel copy this build and CPU can run; "
                                              + "using \(KernelVariant.available.last!)")
        XCTAssertEqual(try XCTUnwrap(json(run.stdoutLines.first ?? ""))["kernels"] as? String, KernelVariant.available.last?.description)
    }

    func testEval_PredictionsTSVHasAHeaderAndOneRowPerImage() throws {
        let weights = try smallWeights()
        let (images, labels) = try idxPair(count: 25)
        let tsv = folder.appendingPathComponent("out/predictions.tsv").path
        let run = try digits(["eval", "--weights", weights, "--images", images, "--labels", labels, "--predictions", tsv])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("accuracy (top-1)"), "the table still goes to stdout")
        let rows = try String(contentsOfFile: tsv, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.first, "index\tlabel\tpredicted\tconfidence")
        XCTAssertEqual(rows.count, 1 + 25)

        let model = try ModelFile.load(path: weights)
        let set = try MNISTSet.load(images: images, labels: labels)
        let p = BatchInference.probabilities(try model.makeNetwork(), pixels: BatchInference.pixels(set),
                                             temperature: model.temperature, threads: 1)
        for (i, row) in rows.dropFirst().enumerated() {
            let f = row.split(separator: "\t").map(String.init)
            XCTAssertEqual(f.count, 4, row)
            guard f.count == 4 else { continue }
            let best = (0..<10).max { p[i * 10 + $0] < p[i * 10 + $1] } ?? -1
            XCTAssertEqual(f[0], String(i))
            XCTAssertEqual(f[1], String(set.labels[i]))
            XCTAssertEqual(f[2], String(best), "row \(i)")
            XCTAssertEqual(Double(f[3]) ?? .nan, Double(p[i * 10 + best]), accuracy: 1e-6, "row \(i)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path)
        XCTAssertEqual(leftovers, ["predictions.tsv"], "no temporary file left beside the output")
    }

    func testEval_AModelWithANotADigitOutputIsScoredImageByImageAsTheRecognizerDoes() throws {
        let weights = folder.appendingPathComponent("refusing.safetensors").path
        try SmallModel.refusingModel.write(to: weights)
        let (images, labels) = try idxPair(count: 40)
        let out = folder.appendingPathComponent("p.tsv").path
        let run = try digits(["eval", "--weights", weights, "--images", images, "--labels", labels, "--predictions", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst()
        let recognizer = try DigitRecognizer(model: SmallModel.refusingModel)
        let set = try MNISTSet.load(images: images, labels: labels)
        XCTAssertEqual(rows.count, 40)
        for (i, row) in rows.enumerated() {
            let f = row.split(separator: "\t").map(String.init)
            let r = recognizer.recognize(pixels: BatchInference.pixels(set, range: i..<(i + 1)))
            XCTAssertEqual(f.count > 3 ? f[2] : nil, r.bestGuess.map(String.init), "row \(i)")
            XCTAssertEqual(Double(f.count > 3 ? f[3] : "") ?? .nan, Double(r.confidence), accuracy: 1e-5, "row \(i)")
        }
    }

    /// `--not-a-digit-cost off` scores every candidate by its best digit: the X's two strokes are
    /// then two confident 1s, which the default cost refuses as one piece that is no digit.
    func testEval_NotADigitCostChangesWhatTheReaderMayRefuse() throws {
        let x = TestPaths.fixtures.appendingPathComponent("nondigits/010-X.json").path
        let refused = try digits(["eval", x])
        XCTAssertEqual(refused.status, 0, refused.stderr)
        XCTAssertTrue(refused.stdout.contains("(1 of 1:"), refused.stdout)
        let forced = try digits(["eval", "--not-a-digit-cost", "off", x])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(forced.stdout.contains("(0 of 1"), forced.stdout)
        let bad = try digits(["eval", "--not-a-digit-cost", "-1", x])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--not-a-digit-cost"), bad.stderr)
    }

    /// `--seams-only` reads photos without following strokes: a 7 whose bar runs into the 0 beside
    /// it is then one piece of ink that no seam parts.
    func testEval_SeamsOnlyTurnsStrokeFollowingOff() throws {
        func fixture(_ name: String) throws -> Drawing {
            try XCTUnwrap(try DrawingLoader.load(TestPaths.fixtures.appendingPathComponent("strokes/\(name).json").path).first).result.get()
        }
        var composer = NumberComposer()
        composer.gap = -0.25...(-0.25)
        composer.size = 1...1
        composer.baseline = 0
        var rng = SplitMix64(seed: 5)
        let number = composer.compose([try fixture("digit-7-a"), try fixture("digit-0-a")], rng: &rng)
        var renderer = PaperRenderer.clean
        renderer.width = 360
        renderer.height = 240
        renderer.digitHeight = 90...90
        renderer.penWidth = 0.07...0.07
        rng = SplitMix64(seed: 2)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Data(try renderer.render(number, rng: &rng).encoded(.png)).write(to: photos.appendingPathComponent("70.png"))
        try "70.png\t70\n".write(to: photos.appendingPathComponent("labels.tsv"), atomically: true, encoding: .utf8)
        let followed = try digits(["eval", photos.path])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertTrue(followed.stdout.contains("(1 of 1, best reading)"), followed.stdout)
        let tsv = folder.appendingPathComponent("seams.tsv").path
        let seams = try digits(["eval", "--seams-only", "--predictions", tsv, photos.path])
        XCTAssertEqual(seams.status, 0, seams.stderr)
        XCTAssertTrue(seams.stdout.contains("(0 of 1, best reading)"), seams.stdout)
        // Why: some seam cuts the ink into a 7 and a 0, but the network likes another reading better.
        XCTAssertTrue(seams.stdout.contains("wrong readings       1: right digits among the candidates, scored lower 1; scored higher, not reached 0; not among them 0"), seams.stdout)
        let rows = try String(contentsOfFile: tsv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        XCTAssertEqual(rows.first, ["source", "label", "best", "text", "confidence"])
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows.last?[1], "70")
        XCTAssertNotEqual(rows.last?[2], "70", "the best reading, wrong without the strokes")
    }

    func testEval_PredictionsOfNumbersAreOneRowPerDrawing() throws {
        let tsv = folder.appendingPathComponent("numbers.tsv").path
        let run = try digits(["eval", "--predictions", tsv, TestPaths.fixtures.appendingPathComponent("numbers").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let rows = try String(contentsOfFile: tsv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        XCTAssertEqual(rows.first, ["source", "label", "best", "text", "confidence"])
        let files = try FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures.appendingPathComponent("numbers").path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(rows.count, files.count + 1)
        for row in rows.dropFirst() {
            XCTAssertTrue(row[0].hasSuffix(".json#0"), "\(row)")
            XCTAssertEqual(row[1], row[2], "the window's numbers are all read exactly: \(row)")
        }
    }

    func testEval_MissingWeightsExitsThreeWithAMessage() throws {
        let (images, labels) = try idxPair(count: 3)
        let missing = folder.appendingPathComponent("nope.safetensors").path
        let run = try digits(["eval", "--weights", missing, "--images", images, "--labels", labels])
        XCTAssertEqual(run.status, 3)
        XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains(missing) && run.stderr.contains("no such file"), run.stderr)
    }

    // MARK: - recognize

    func testRecognize_JSONGivesOneObjectPerDrawingWithTheDocumentedKeys() throws {
        let weights = try smallWeights()
        let strokes = TestPaths.fixtures.appendingPathComponent("strokes")
        let files = try FileManager.default.contentsOfDirectory(atPath: strokes.path)
            .filter { $0.hasPrefix("digit-") && $0.hasSuffix(".json") }.sorted()
            .map { strokes.appendingPathComponent($0).path }
        XCTAssertEqual(files.count, 50)
        for threshold in ["0.9", "0"] {
            let run = try digits(["recognize", "--single", "--weights", weights, "--json", "--threshold", threshold] + files)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stderr, "")
            XCTAssertEqual(run.stdoutLines.count, files.count, "one object per drawing")
            for (line, path) in zip(run.stdoutLines, files) {
                guard let o = json(line) else { continue }
                XCTAssertEqual(Set(o.keys), ["source", "index", "digit", "confidence", "top", "label"], line)
                XCTAssertEqual(o["source"] as? String, path)
                XCTAssertEqual(o["index"] as? Int, 0)
                // digit-3-a.json is labelled "3".
                let name = (path as NSString).lastPathComponent
                XCTAssertEqual(o["label"] as? String, String(name.dropFirst(6).prefix(1)), line)
                let top = (o["top"] as? [[NSNumber]]) ?? []
                XCTAssertEqual(top.count, 3, "three candidates: \(line)")
                XCTAssertTrue(top.allSatisfy { $0.count == 2 && (0...9).contains($0[0].intValue) }, line)
                let probabilities = top.map { $0.count == 2 ? $0[1].doubleValue : .nan }
                XCTAssertEqual(probabilities, probabilities.sorted(by: >), "best first: \(line)")
                let confidence = (o["confidence"] as? NSNumber)?.doubleValue ?? .nan
                XCTAssertEqual(confidence, probabilities.first ?? .nan, accuracy: 1e-9, line)
                if confidence >= Double(threshold) ?? 1 {
                    XCTAssertEqual((o["digit"] as? NSNumber)?.intValue, top.first?[0].intValue, line)
                } else {
                    XCTAssertTrue(o["digit"] is NSNull, "below the threshold digit is null: \(line)")
                }
            }
        }
    }

    func testRecognize_ANumberGivesItsTextAndOneEntryPerDigitLeftToRight() throws {
        // Three fixture digits side by side with a clear gap, as one drawing.
        let strokes = TestPaths.fixtures.appendingPathComponent("strokes")
        var ink: [[StrokePoint]] = []
        var cursor: Float = 0
        for name in ["digit-1-a", "digit-4-a", "digit-7-a"] {
            let drawing = try DrawingLoader.load(strokes.appendingPathComponent(name + ".json").path)[0].result.get()
            let points = drawing.strokes.joined()
            let left = points.map(\.x).min() ?? 0, right = points.map(\.x).max() ?? 0
            let height = (points.map(\.y).max() ?? 0) - (points.map(\.y).min() ?? 0)
            ink += drawing.strokes.map { $0.map { StrokePoint(x: $0.x - left + cursor, y: $0.y, t: $0.t, p: $0.p) } }
            cursor += right - left + height * 0.4
        }
        let path = folder.appendingPathComponent("number.json").path
        try FileIO.writeAtomically(StrokeJSON.encode(Drawing(strokes: ink, label: "147")) + "\n", to: path)
        let run = try digits(["recognize", "--json", path])   // the shipped model
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdoutLines.count, 1)
        guard let o = json(run.stdoutLines.first ?? "") else { return }
        XCTAssertEqual(Set(o.keys), ["source", "index", "text", "digit", "confidence", "top", "digits", "label"])
        XCTAssertEqual(o["label"] as? String, "147")
        let entries = (o["digits"] as? [[String: Any]]) ?? []
        XCTAssertEqual(entries.count, 3, run.stdout)
        XCTAssertEqual(o["text"] as? String, "147", run.stdout)
        XCTAssertTrue(o["digit"] is NSNull, "a number of several digits has no single digit: \(run.stdout)")
        let lefts = entries.compactMap { ($0["box"] as? [NSNumber])?.first?.doubleValue }
        XCTAssertEqual(lefts, lefts.sorted(), "digits left to right")
        XCTAssertEqual(entries.map { Set($0.keys).isSuperset(of: ["digit", "confidence", "top", "box", "strokes"]) }, [true, true, true])
    }

    func testRecognize_ABadJSONLLineIsReportedAndTheOthersAreStillAnswered() throws {
        let weights = try smallWeights()
        let path = folder.appendingPathComponent("mixed.jsonl").path
        try FileIO.writeAtomically("""
            {"label":"1","strokes":[[[140,40],[140,240]]]}
            {"label":"7","strokes":"not strokes"}
            {"label":"4","strokes":[[[150,40],[60,170],[220,170]],[[170,110],[170,250]]]}

            """, to: path)
        let run = try digits(["recognize", "--weights", weights, "--json", path])
        XCTAssertEqual(run.status, 1, "a drawing could not be read")
        XCTAssertEqual(run.stdoutLines.count, 2, run.stdout)
        let objects = run.stdoutLines.compactMap { json($0) }
        XCTAssertEqual(objects.compactMap { $0["index"] as? Int }, [0, 2])
        XCTAssertEqual(objects.compactMap { $0["label"] as? String }, ["1", "4"])
        XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains(path) && run.stderr.contains("line 2"), "names the file and line: \(run.stderr)")
    }

    func testRecognize_MissingWeightsExitsThreeWithAMessage() throws {
        let drawing = TestPaths.fixtures.appendingPathComponent("strokes/digit-1-a.json").path
        let missing = folder.appendingPathComponent("missing.safetensors").path
        for (args, env) in [(["recognize", "--weights", missing, drawing], [String: String?]()),
                            (["recognize", drawing], ["DIGITS_WEIGHTS": missing])] {
            let run = try digits(args, environment: env)
            XCTAssertEqual(run.status, 3, "\(args) \(env): \(run.stderr)")
            XCTAssertEqual(run.stdout, "")
            XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains(missing), "the message names the file: \(run.stderr)")
        }
    }

    func testRecognize_BrokenWeightFileExitsOneAndNamesTheProblem() throws {
        let path = folder.appendingPathComponent("broken.safetensors").path
        var metadata = SmallModel.metadata
        metadata["temperature"] = "-1"
        try SmallModel.write(to: path, metadata: metadata)
        let run = try digits(["recognize", "--weights", path, TestPaths.fixtures.appendingPathComponent("strokes/digit-1-a.json").path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains(path) && run.stderr.contains("temperature"), run.stderr)
    }
}
