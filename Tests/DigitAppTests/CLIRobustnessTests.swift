@testable import DigitApp
import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Issue 6 through the real `digits` binary: each class of bad input gives its documented exit
/// code and one line on stderr naming the file and the place; kills never leave half a file;
/// `digits train` resumes after Ctrl-C or a kill to the same weights.
final class CLIRobustnessTests: DigitsCommandTestCase {
    private var scratch: URL { folder }
    private var weights: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        weights = try RobustnessFixtures.writeTinyModel(in: scratch)
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    // MARK: - Stroke files

    func testCLI_EachClassOfBadStrokeFileExits1WithOneLineNamingFileAndPlace() throws {
        let cases: [(name: String, content: String, error: String)] = [
            ("truncated.json", #"{"strokes":[[[1,2]]"#, "line 1, column 20 (byte 19): unexpected end of input inside an array"),
            ("nan.json", #"{"strokes":[[[1,NaN]]]}"#, "line 1, column 17 (byte 16): NaN is not a number JSON allows"),
            ("inf.json", #"{"strokes":[[[1,-Infinity]]]}"#, "line 1, column 17 (byte 16): -Infinity is not a number JSON allows"),
            ("overflow.json", #"{"strokes":[[[1e400,1]]]}"#, "line 1, column 15 (byte 14): number 1e400 is too large"),
            ("far.json", #"{"strokes":[[[1,3e7]]]}"#, "strokes[0][0][1]: coordinate 30000000 is outside the limit of ±10000000"),
            ("pressure.json", #"{"strokes":[[{"x":1,"y":1,"p":-0.5}]]}"#, "strokes[0][0].p: pressure -0.5 is outside 0…1"),
            ("deep.json", String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000),
             "line 1, column 65 (byte 64): nesting deeper than 64 arrays/objects"),
            ("missing.json", #"{"label":"4"}"#, "top level: missing the required key \"strokes\""),
            ("label.json", #"{"label":"","strokes":[]}"#, "label: expected a label of 1…64 characters"),
            ("binary.json", "\u{0}\u{1}\u{2}garbage", "line 1, column 1 (byte 0): expected a JSON value, found byte 0x00"),
        ]
        for c in cases {
            let path = try write(c.name, c.content)
            let r = try digits(["recognize", path, "--weights", weights])
            assertOneLineError(r, status: 1, ["digits recognize: \(path): \(c.error)"])
            XCTAssertEqual(r.stdout, "", c.name)
        }
    }

    func testCLI_JSONLinesWithBadLinesAnswersTheGoodOnesNamesEachBadLineAndExits1() throws {
        let path = try write("mixed.jsonl", """
        {"label":"1","strokes":[[[140,40],[140,240]]]}
        {"label":"7","strokes":[[[40,40],[200,40],[100]]]}

        {"strokes":[[[1,NaN]]]}
        {"label":"4","strokes":[[[150,40],[60,170],[220,170]],[[170,110],[170,250]]]}
        {"strokes":[[[0,0]]
        """)
        let r = try digits(["recognize", path, "--weights", weights, "--json"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderrLines, [
            "digits recognize: \(path): line 2: strokes[0][2]: expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found an array of 1 element",
            "digits recognize: \(path): line 4, column 17 (byte 115): NaN is not a number JSON allows (no NaN or infinities); write a finite number",
            "digits recognize: \(path): line 6, column 20 (byte 220): unexpected end of input inside an array",
        ])
        let answers = r.stdout.split(separator: "\n").map { try? JSONParser.parse(Array($0.utf8)) }
        XCTAssertEqual(answers.count, 2)
        XCTAssertEqual(answers.map { $0?["index"] }, [JSONValue.number(0), .number(3)])
        XCTAssertEqual(answers.map { $0?["label"] }, [JSONValue.string("1"), .string("4")])
    }

    func testCLI_EmptyDrawingIsAnAnswerAndOddDrawingsAreAnswered() throws {
        let path = try write("odd.jsonl", """
        {"strokes":[]}
        {"strokes":[[],[]]}
        {"strokes":[[[5,5]]]}
        {"strokes":[[[5,5],[5,5],[5,5]]]}
        {"strokes":[[[-1e7,-1e7],[1e7,1e7]]]}
        {"strokes":[[[-500,-300],[-400,-100]]]}
        """)
        let text = try digits(["recognize", path, "--weights", weights])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stderr, "")
        let lines = text.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        XCTAssertEqual(lines[0], "\(path)#0: ? empty drawing")
        XCTAssertEqual(lines[1], "\(path)#1: ? empty drawing")
        XCTAssertTrue(lines[2...].allSatisfy { !$0.contains("empty") && $0.contains("%") }, text.stdout)
        let json = try digits(["recognize", path, "--weights", weights, "--json"])
        XCTAssertEqual(json.status, 0)
        let values = json.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
        XCTAssertEqual(values.count, 6)
        XCTAssertEqual(values.map { $0["empty"] }, [JSONValue.bool(true), .bool(true), nil, nil, nil, nil])
    }

    func testCLI_StandardInputIsNamedDashInErrors() throws {
        let r = try digits(["recognize", "-", "--weights", weights], stdin: #"{"strokes":[[[1,2],[3]]]}"#)
        assertOneLineError(r, status: 1, ["digits recognize: -: strokes[0][1]: expected a point"])
    }

    func testCLI_FileOverTheSizeLimitExits1WithoutReadingIt() throws {
        let path = scratch.appendingPathComponent("huge.json").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)  // sparse: no disk used
        try handle.close()
        let r = try digits(["recognize", path, "--weights", weights])
        assertOneLineError(r, status: 1, ["huge.json: file is 67108865 bytes, more than the limit of 67108864"])
    }

    func testCLI_MissingOrUnreadableInputExits3() throws {
        let missing = try digits(["recognize", scratch.appendingPathComponent("nope.json").path, "--weights", weights])
        assertOneLineError(missing, status: 3, ["nope.json: no such file"])
        let noWeights = try digits(["recognize", "x.json", "--weights", scratch.appendingPathComponent("none.safetensors").path])
        assertOneLineError(noWeights, status: 3, ["none.safetensors: no such file"])
        let folder = try digits(["eval", "--images", scratch.path, "--labels", scratch.path, "--weights", weights])
        assertOneLineError(folder, status: 3, ["is a directory, expected a file"])
    }

    func testCLI_BadUNIPENDigitIsNamedByLineAndTheOthersAreConverted() throws {
        let input = try write("p.tra", ".SEGMENT DIGIT 0 ? \"7\"\n.PEN_DOWN\n 1 2\n 3 x\n.PEN_UP\n.SEGMENT DIGIT 1 ? \"1\"\n.PEN_DOWN\n 5 5\n 5 9\n.PEN_UP\n")
        let out = scratch.appendingPathComponent("p.jsonl").path
        let r = try digits(["import-unipen", input, "--out", out])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderrLines.first, "digits import-unipen: \(input): line 4: expected a coordinate line 'x y' of two numbers, found '3 x'")
        // No declared size and no tablet box: y direction from the ink (here downward: not flipped), no canvas.
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), #"{"label":"1","strokes":[[[5,5],[5,9]]]}"# + "\n")
        let none = try digits(["import-unipen", try write("n.tra", ".COMMENT nothing here\n"), "--out", out])
        assertOneLineError(none, status: 1, ["n.tra: no .SEGMENT with a digit label found: not a UNIPEN digit file"])
    }

    // MARK: - UNIPEN as distributed: ink in .INCLUDEd files

    /// The search path a developer may have set is no part of these tests.
    private let noSearchPath: [String: String?] = ["UNIPEN_INCLUDE_PATH": nil]

    func testCLI_RecognizeAndEvalReadAUNIPENDistributionFileThroughItsIncludes() throws {
        let main = try RobustnessFixtures.unipenDistribution(in: scratch)
        let r = try digits(["recognize", main, "--weights", weights], environment: noSearchPath)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        XCTAssertEqual(r.stdoutLines.count, 3, r.stdout)
        for (i, (line, label)) in zip(r.stdoutLines, ["7", "1", "4"]).enumerated() {
            XCTAssertTrue(line.hasPrefix("\(main)#\(i): ") && line.hasSuffix("  (label \(label))"), line)
        }
        // The answers are those for the drawings import-unipen writes from the same file.
        let out = scratch.appendingPathComponent("wr01.jsonl").path
        let imported = try digits(["import-unipen", main, "--out", out], environment: noSearchPath)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let answers = try digits(["recognize", out, "--weights", weights])
        XCTAssertEqual(r.stdoutLines, answers.stdoutLines.map { $0.replacingOccurrences(of: out, with: main) })
        // Standard input: its includes are looked for from the current folder.
        let piped = try digits(["recognize", "-", "--weights", weights], stdin: try String(contentsOfFile: main, encoding: .utf8),
                               in: URL(fileURLWithPath: main).deletingLastPathComponent(), environment: noSearchPath)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stdoutLines, r.stdoutLines.map { $0.replacingOccurrences(of: main, with: "-") })
        let eval = try digits(["eval", main, "--weights", weights], environment: noSearchPath)
        XCTAssertEqual(eval.status, 0, eval.stderr)
        XCTAssertFalse(eval.stderr.contains("delineation"), eval.stderr)
    }

    func testCLI_RecognizeAUNIPENFileWhoseInkIncludeIsMissingExits3WithOneLineNamingItAndWhereItWasLooked() throws {
        let main = try RobustnessFixtures.unipenDistribution(in: scratch)
        let ink = scratch.appendingPathComponent("include/lab/ink/alice.dat")
        let elsewhere = scratch.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere.appendingPathComponent("lab/ink"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: ink, to: elsewhere.appendingPathComponent("lab/ink/alice.dat"))
        let r = try digits(["recognize", main, "--weights", weights], environment: noSearchPath)
        assertOneLineError(r, status: 3, [
            "digits recognize: \(main): line 3: cannot find the included file 'lab/ink/alice.dat' (looked in \(scratch.path)/data/lab/lab/ink, ",
            "set UNIPEN_INCLUDE_PATH to the distribution's include folder)",
        ])
        XCTAssertEqual(r.stdout, "")
        // Where the search path says it is, it is found.
        let found = try digits(["recognize", main, "--weights", weights], environment: ["UNIPEN_INCLUDE_PATH": elsewhere.path])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(found.stdoutLines.count, 3)
    }

    func testCLI_BadIDXAndBadWeightFilesExit1NamingTheByte() throws {
        let images = try write("imgs", "")
        try Data([0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 28, 0, 0, 0, 28, 1, 2, 3]).write(to: URL(fileURLWithPath: images))
        let labels = try write("labels", "")
        try Data([0, 0, 8, 1, 0, 0, 0, 2, 3, 4]).write(to: URL(fileURLWithPath: labels))
        let idx = try digits(["eval", "--images", images, "--labels", labels, "--weights", weights])
        assertOneLineError(idx, status: 1, ["\(images): byte 19: truncated: the header promises 2 images of 28 × 28 pixels, 1584 bytes in all, but the file has 19"])

        let good = Array(try Data(contentsOf: URL(fileURLWithPath: weights)))
        let cut = try write("cut.safetensors", "")
        try Data(good[..<(good.count - 10)]).write(to: URL(fileURLWithPath: cut))
        let truncated = try digits(["recognize", "x.json", "--weights", cut])
        assertOneLineError(truncated, status: 1, ["cut.safetensors: header: tensor 'fc.weight': data_offsets end 31400 is past the end"])
        var absurd = good
        absurd.replaceSubrange(0..<8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        let header = try write("absurd.safetensors", "")
        try Data(absurd).write(to: URL(fileURLWithPath: header))
        let r = try digits(["recognize", "x.json", "--weights", header])
        assertOneLineError(r, status: 1, ["absurd.safetensors: byte 0: header length 9223372036854775807 is more than the format's limit"])
    }

    /// The paper reader's line model given as the digit network's weights is one line and exit 1
    /// (it crashed the reader before: the network's 13 columns of classes read as one digit's).
    func testCLI_ALineModelAsTheDigitNetworkExits1WithOneLine() throws {
        let line = TestPaths.fixtures.appendingPathComponent("fuzz/model/model-line-stretched.safetensors").path
        let drawing = TestPaths.fixtures.appendingPathComponent("strokes/digit-0-a.json").path
        for command in [["recognize", drawing], ["rasterize", drawing, "--ascii"], ["adapt", drawing, "--out", try write("p.safetensors", "")]] {
            let r = try digits(command + ["--weights", line])
            assertOneLineError(r, status: 1, ["model-line-stretched.safetensors: a line model", "cannot read one digit"])
        }
    }

    // MARK: - Command line

    func testCLI_BadArgumentsExit2WithOneLine() throws {
        let drawing = try write("one.json", #"{"strokes":[[[1,1],[5,9]]]}"#)
        let cases: [([String], String)] = [
            (["recognize", drawing, "--weights", weights, "--threshold", "nan"], "--threshold must be a number in 0.0...1.0, got 'nan'"),
            (["recognize", drawing, "--weights", weights, "--threshold", "-inf"], "--threshold must be a number in 0.0...1.0, got '-inf'"),
            (["recognize", drawing, "--weights", weights, "--threshold", "2"], "--threshold must be a number in 0.0...1.0, got '2'"),
            (["recognize", drawing, "--weights", weights, "--threshold"], "option --threshold needs a value"),
            (["recognize", drawing, "--weights", weights, "--threshold", "--json"], "option --threshold needs a value"),
            (["eval", "--threshold", "--json", drawing], "option --threshold needs a value, found the option '--json'"),
            (["recognize", drawing, "--weights", weights, "--bogus"], "unknown option '--bogus' (see --help)"),
            (["recognize", "--weights", weights], "no input: give stroke files, a directory, or - for stdin"),
            (["rasterize", drawing, "--index", "-1", "--ascii"], "--index must be a whole number of at least 0, got '-1'"),
            (["rasterize", drawing, "--index", "18446744073709551616", "--ascii"], "--index must be a whole number of at least 0, got '18446744073709551616'"),
            (["rasterize", drawing, "--index", "3", "--ascii"], "--index 3 is out of range: \(drawing) holds 1 item"),
            (["rasterize", drawing, "--scale", "1e9", "--out", "x.png"], "--scale must be an integer in 1...64, got '1e9'"),
            (["rasterize", drawing, "--pen-width", "nan", "--ascii"], "--pen-width must be a number in 0.0...20.0, got 'nan'"),
            (["rasterize", drawing, "--out", "--ascii"], "option --out needs a value, found the option '--ascii'"),
            (["rasterize", drawing, "--out", "x.bmp"], "--out must end in .png or .pgm, got 'x.bmp'"),
            (["eval", "--threshold", "0.5", "--split", "validation", "--weights", weights], "--split must be train or test, got 'validation'"),
            (["eval", "--writers", "-5", "--weights", weights, drawing], "--writers takes numbers and ranges like 1,4,10-12, got '-5'"),
            (["train", "--epochs", "0"], "--epochs must be an integer in 1...1000, got '0'"),
            (["train", "--limit", "99999999999999999999999"], "--limit must be an integer in 2...60000, got '99999999999999999999999'"),
            (["train", "extra"], "unexpected argument 'extra'"),
            (["mnist", "extra"], "unexpected argument 'extra'"),
            (["version", "--verbose"], "unknown option '--verbose' (see --help)"),
            (["import-unipen", drawing], "missing --out PATH (see --help)"),
            // The command line is checked before the weight file is looked for or read.
            (["eval", "--bogus", "--weights", "missing.safetensors"], "unknown option '--bogus' (see --help)"),
            (["eval", "--temperature", "0", "--weights", "missing.safetensors"], "--temperature must be a number in 0.01...100.0, got '0'"),
            (["recognize", drawing, "--pen-width", "wide", "--weights", "missing.safetensors"], "--pen-width must be a number in 0.0...20.0, got 'wide'"),
            (["recognize", "--weights", "missing.safetensors"], "no input: give stroke files, a directory, or - for stdin"),
            (["rasterize", drawing, "--weights", "missing.safetensors"], "nothing to do: give --out IMAGE.png|IMAGE.pgm or --ascii"),
        ]
        for (args, message) in cases {
            let r = try digits(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderrLines, ["digits \(args[0]): \(message)"], "\(args)")
        }
        let unknown = try digits(["recognise", drawing])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.stderrLines, ["digits: unknown command 'recognise' (see digits --help)"])
    }

    func testCLI_HelpDocumentsTheExitCodes() throws {
        for args in [["--help"], ["recognize", "--help"], ["train", "--help"], ["import-unipen", "--help"]] {
            let r = try digits(args)
            XCTAssertEqual(r.status, 0, "\(args)")
            for code in ["0 success", "1 bad input", "2 bad command line", "3 a file could not be read or written", "130 interrupted"] {
                XCTAssertTrue(r.stdout.contains(code), "\(args) help lacks '\(code)'")
            }
        }
    }

    // MARK: - Atomic writes

    func testImportUNIPEN_KilledAtRandomMomentsLeavesTheOldFileOrTheCompleteNewOne() throws {
        let input = try write("big.tra", RobustnessFixtures.unipen(digits: 8_000, points: 24))
        let out = scratch.appendingPathComponent("out.jsonl").path
        let start = Date()
        let clean = try digits(["import-unipen", input, "--out", out])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        let complete = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertEqual(complete.split(separator: UInt8(ascii: "\n")).count, 8_000)
        let old = Data("an older file\n".utf8)

        // Kill moments spread over the run, more of them near the end where the write happens.
        var rng = SplitMix64(seed: 6)
        var outcomes: [String: Int] = [:]
        for attempt in 0..<8 {
            if attempt % 2 == 0 { try old.write(to: URL(fileURLWithPath: out)) } else { try? FileManager.default.removeItem(atPath: out) }
            let started = try XCTUnwrap(Executable.digits).start(["import-unipen", input, "--out", out], in: scratch)
            let moment = seconds * (attempt < 3 ? Double(rng.nextFloat()) : 0.7 + 0.4 * Double(rng.nextFloat()))
            usleep(UInt32(moment * 1e6))
            kill(started.process.processIdentifier, SIGKILL)
            _ = Executable.finish(started)
            let now = try? Data(contentsOf: URL(fileURLWithPath: out))
            switch now {
            case nil:
                XCTAssertEqual(attempt % 2, 1, "the old file vanished after a kill at \(moment) s")
                outcomes["absent", default: 0] += 1
            case old?:
                XCTAssertEqual(attempt % 2, 0, "an old file appeared")
                outcomes["old", default: 0] += 1
            case complete?:
                outcomes["complete", default: 0] += 1
            case let partial?:
                XCTFail("a kill at \(moment) s left \(partial.count) of \(complete.count) bytes")
            }
        }
        // The next clean write replaces whatever is there and removes temporaries of killed writers.
        let again = try digits(["import-unipen", input, "--out", out])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), complete)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".tmp") }, [])
        print("import-unipen (\(String(format: "%.2f", seconds)) s) killed 8 times: \(outcomes)")
    }

    // MARK: - Training: interrupt and resume

    /// The arguments of a small deterministic training run on a synthetic MNIST folder in `folder`
    /// (made on first use). Tiny on purpose: the debug build's kernels are slow (about 1 image/s),
    /// yet it still has augmentation, momentum, batch norm statistics and several batches an epoch.
    private static func trainingArgs(_ folder: URL, out: String, checkpoint: String) throws -> [String] {
        let data = folder.appendingPathComponent("mnist")
        if !FileManager.default.fileExists(atPath: data.path) {
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            try RobustnessFixtures.writeSyntheticMNIST(in: data, split: "train", count: 20, seed: 1)
            try RobustnessFixtures.writeSyntheticMNIST(in: data, split: "t10k", count: 10, seed: 2)
        }
        return ["train", "--recipe", "plain", "--data", data.path, "--arch", "tiny", "--limit", "7", "--validation", "1", "--batch-size", "2",
                "--epochs", "3", "--seed", "11", "--threads", "2", "--out", out, "--checkpoint", checkpoint]
    }

    /// The tensors of an uninterrupted run, computed once for both resume tests.
    private static var reference: [String: [UInt32]]?
    private static let referenceFolder = FileManager.default.temporaryDirectory.appendingPathComponent("digits-robust-reference-\(getpid())")

    override class func tearDown() {
        try? FileManager.default.removeItem(at: referenceFolder)
        super.tearDown()
    }

    private func referenceTensors() throws -> [String: [UInt32]] {
        if let reference = Self.reference { return reference }
        let folder = Self.referenceFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let out = folder.appendingPathComponent("reference.safetensors").path
        let clean = try XCTUnwrap(Executable.digits).run(try Self.trainingArgs(folder, out: out, checkpoint: out + ".checkpoint"), in: folder, timeout: 300)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".checkpoint"), "the checkpoint outlived a finished run")
        let tensors = try self.tensors(out)
        Self.reference = tensors
        return tensors
    }

    /// Waits until `path` exists (the first checkpoint), up to `timeout` seconds.
    private func waitForFile(_ path: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            usleep(10_000)
        }
        return false
    }

    private func tensors(_ path: String) throws -> [String: [UInt32]] {
        try SafetensorsFile.read(path: path).tensors.mapValues { $0.values.map(\.bitPattern) }
    }

    private func assertResumesToTheSameWeights(signal: Int32, expectedStatus: Int32) throws {
        let reference = try referenceTensors()
        let out = scratch.appendingPathComponent("resumed.safetensors").path, checkpoint = out + ".checkpoint"
        let args = try Self.trainingArgs(scratch, out: out, checkpoint: checkpoint)
        let started = try XCTUnwrap(Executable.digits).start(args, in: scratch)
        XCTAssertTrue(waitForFile(checkpoint, timeout: 300), "no checkpoint was written")
        kill(started.process.processIdentifier, signal)
        let stopped = Executable.finish(started, timeout: 300)
        XCTAssertEqual(stopped.status, expectedStatus, stopped.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "an interrupted run wrote weights")
        // Stopped during epoch 2 (or, on a slow machine, 3): the checkpoint holds the epochs before.
        let done = try XCTUnwrap(Int(try SafetensorsFile.read(path: checkpoint).metadata["epochs_done"] ?? ""))
        XCTAssertTrue((1...2).contains(done), "epochs_done \(done)")
        if signal == SIGINT {
            XCTAssertEqual(stopped.stderrLines.last, "digits train: interrupted; \(checkpoint) holds \(done) finished epoch\(done == 1 ? "" : "s"). "
                           + "Run the same command again to resume.")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".tmp") }, [],
                       "an interrupted write left a temporary file")

        let resumed = try XCTUnwrap(Executable.digits).run(args, in: scratch, timeout: 300)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("resuming from \(checkpoint) after epoch \(done)"), resumed.stderr)
        XCTAssertEqual(try tensors(out), reference, "resumed weights differ from an uninterrupted run")
        XCTAssertFalse(FileManager.default.fileExists(atPath: checkpoint), "the checkpoint outlived the finished run")
    }

    func testTrain_CtrlCStopsCleanlyAfterACheckpointAndRerunEndsWithIdenticalWeights() throws {
        try assertResumesToTheSameWeights(signal: SIGINT, expectedStatus: 130)
    }

    func testTrain_KillAfterTheFirstCheckpointThenRerunEndsWithIdenticalWeights() throws {
        try assertResumesToTheSameWeights(signal: SIGKILL, expectedStatus: 128 + SIGKILL)
    }

    /// The paper recipe's calibration reads the validation images with the digit network as well:
    /// without one the command stops before it trains, not after.
    func testTrain_PaperRecipeWithoutTheDigitNetworkStopsBeforeTraining() throws {
        let missing = scratch.appendingPathComponent("no-such-weights.safetensors").path
        let images = TestPaths.fixtures.appendingPathComponent("paper").path
        let r = try digits(["train", "--recipe", "paper", "--real", images, "--validation-dir", images, "--synthetic", "0",
                            "--touching", "0", "--epochs", "1", "--out", scratch.appendingPathComponent("p.safetensors").path,
                            "--cache", scratch.appendingPathComponent("cache").path], environment: ["DIGITS_WEIGHTS": missing])
        XCTAssertEqual(r.status, 3, r.stderr)   // a file that cannot be read
        XCTAssertTrue(r.stderr.contains(missing), r.stderr)
        XCTAssertFalse(r.stderr.contains("epoch"), "it stopped before training: \(r.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("cache").path), "nothing was cut")
    }

    /// The paper recipe keeps a checkpoint too: Ctrl-C once the first epoch is saved, then the same
    /// command resumes and writes the weights (calibration included) of an uninterrupted run.
    func testTrain_PaperRecipeInterruptedResumesToTheWeightsOfAnUninterruptedRun() throws {
        let images = TestPaths.fixtures.appendingPathComponent("paper").path
        func args(_ out: String) -> [String] {
            ["train", "--recipe", "paper", "--real", images, "--validation-dir", images, "--synthetic", "0", "--touching", "0",
             "--soft-scans", "0", "--epochs", "8", "--batch-size", "2", "--threads", "2", "--out", out,
             "--cache", scratch.appendingPathComponent("cache").path]
        }
        let reference = scratch.appendingPathComponent("reference.safetensors").path
        let clean = try XCTUnwrap(Executable.digits).run(args(reference), in: scratch, timeout: 300)
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: reference + ".checkpoint"), "the checkpoint outlived a finished run")

        let out = scratch.appendingPathComponent("resumed.safetensors").path, checkpoint = out + ".checkpoint"
        let started = try XCTUnwrap(Executable.digits).start(args(out), in: scratch)
        XCTAssertTrue(waitForFile(checkpoint, timeout: 300), "no checkpoint was written")
        kill(started.process.processIdentifier, SIGINT)
        let stopped = Executable.finish(started, timeout: 300)
        XCTAssertEqual(stopped.status, 130, stopped.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "an interrupted run wrote weights")
        let done = try XCTUnwrap(Int(try SafetensorsFile.read(path: checkpoint).metadata["epochs_done"] ?? ""))
        let held = done == 8 ? "all 8 epochs; the weight file was not written" : "\(done) finished epoch\(done == 1 ? "" : "s")"
        XCTAssertEqual(stopped.stderrLines.last, "digits train: interrupted; \(checkpoint) holds \(held). Run the same command again to resume.")

        let resumed = try XCTUnwrap(Executable.digits).run(args(out), in: scratch, timeout: 300)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("resuming from \(checkpoint) after epoch \(done)"), resumed.stderr)
        XCTAssertEqual(try tensors(out), try tensors(reference), "resumed weights differ from an uninterrupted run")
        XCTAssertEqual(try ModelFile.load(path: out).temperature, try ModelFile.load(path: reference).temperature)
        XCTAssertFalse(FileManager.default.fileExists(atPath: checkpoint), "the checkpoint outlived the finished run")
    }

    func testTrain_ValidationLeavingLessThanABatchIsAUsageError() throws {
        var args = try Self.trainingArgs(scratch, out: "w.safetensors", checkpoint: "w.ckpt")
        args[try XCTUnwrap(args.firstIndex(of: "--validation")) + 1] = "6"  // of --limit 7, batches of 2
        let r = try digits(args)
        assertOneLineError(r, status: 2, ["digits train: --validation 6 leaves 1 of the 7 training images used, fewer than one batch of 2"])
    }
}
