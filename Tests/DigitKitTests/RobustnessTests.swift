@testable import DigitKit
import Foundation
import DigitTestSupport
import XCTest

/// Issue 6 through the library: every class of bad input is refused with a `DigitError` of the
/// right kind that names the place, legal but odd input gets an answer, writes are atomic.
final class RobustnessTests: XCTestCase {
    private func decode(_ text: String, limits: StrokeLimits = .init(), format: DrawingLoader.Format = .detect) throws -> [DrawingRecord] {
        try DrawingLoader.decode(Array(text.utf8), source: "in.json", format: format, limits: limits)
    }

    /// The error of a single-drawing input, thrown or recorded.
    private func failure(_ text: String, limits: StrokeLimits = .init()) -> DigitError? {
        do {
            let records = try decode(text, limits: limits)
            guard records.count == 1, case let .failure(error) = records[0].result else { return nil }
            return error
        } catch {
            return error as? DigitError
        }
    }

    // MARK: - Error messages

    func testErrorDescription_IsOneLineWithoutControlCharacters() {
        let error = DigitError(.format, file: "a\nb.json", at: "line 2\r", "found \"\u{1B}[31mred\u{7}\"\tand\u{2028}more\nlines")
        let text = error.description
        XCTAssertEqual(text, "a b.json: line 2 : found \"\\u{1b}[31mred\\u{7}\" and more lines")
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 })
    }

    func testErrorDescription_LongMessageIsCut() {
        let error = DigitError(.format, file: "f", String(repeating: "x", count: 100_000))
        XCTAssertEqual(error.description.count, "f: ".count + DigitError.maxMessageCharacters + 1)
        XCTAssertTrue(error.description.hasSuffix("x…"))
    }

    /// Found by the `strokes` fuzzer (Fixtures/fuzz/strokes/regression-escaped-key-length.json):
    /// a key of DEL characters, each written as `\u{7f}`, made a 2,106-character line. The limits
    /// count what is written.
    func testErrorDescription_EscapesCountTowardTheLimit() {
        let controls = String(repeating: "\u{7F}", count: 10_000)
        let error = DigitError(.format, file: controls, at: controls, controls)
        let text = error.description
        XCTAssertLessThanOrEqual(text.count, 1000 + 200 + DigitError.maxMessageCharacters + 3 + 2 * ": ".count)
        XCTAssertEqual(text.split(separator: ":", omittingEmptySubsequences: false).last?.count, 1 + 498 + 1, "83 escapes of 6, then …")
        XCTAssertTrue(text.hasSuffix("\\u{7f}…"))
    }

    func testJSONError_QuotingAHugeKeyStaysShort() {
        let key = String(repeating: "k", count: 50_000)
        let error = failure("{\"\(key)\" 1}")
        XCTAssertEqual(error?.kind, .format)
        XCTAssertLessThan(error?.description.count ?? .max, 700)
    }

    // MARK: - Stroke JSON: each class of bad input

    func testStrokes_EachClassOfBadInputIsRefusedByNameAndPlace() {
        let cases: [(input: String, kind: DigitError.Kind, location: String, message: String)] = [
            (#"{"strokes":[[[1,NaN]]]}"#, .format, "line 1, column 17 (byte 16)", "NaN is not a number JSON allows"),
            (#"{"strokes":[[[Infinity,1]]]}"#, .format, "line 1, column 15 (byte 14)", "Infinity is not a number JSON allows"),
            (#"{"strokes":[[[-Infinity,1]]]}"#, .format, "line 1, column 15 (byte 14)", "-Infinity is not a number JSON allows"),
            (#"{"strokes":[[[1e999,1]]]}"#, .format, "line 1, column 15 (byte 14)", "number 1e999 is too large: it overflows to infinity"),
            (#"{"strokes":[[[2e7,1]]]}"#, .limit, "strokes[0][0][0]", "coordinate 20000000 is outside the limit of ±10000000"),
            (#"{"strokes":[[[1,-1e8]]]}"#, .limit, "strokes[0][0][1]", "outside the limit"),
            (#"{"strokes":[[{"x":1,"y":2,"p":1.5}]]}"#, .format, "strokes[0][0].p", "pressure 1.5 is outside 0…1"),
            (#"{"strokes":[[[1,2,1e39]]]}"#, .format, "strokes[0][0][2]", "is not finite as a 32-bit float"),
            (#"{"canvas":{"width":0},"strokes":[]}"#, .format, "canvas.width", "canvas size must be in (0, 1e9]"),
            (#"{"label":true,"strokes":[]}"#, .format, "label", "expected a label string"),
            (#"{"strokes":[[[1,"2"]]]}"#, .format, "strokes[0][0][1]", "expected a coordinate number, found a string"),
            (#"{"strokes":[[[1]]]}"#, .format, "strokes[0][0]", "found an array of 1 element"),
            (#"{"strokes":{}}"#, .format, "strokes", "expected an array of strokes"),
            (#"{"label":"1"}"#, .format, "top level", "missing the required key \"strokes\""),
            (#"{"strokes":[],"strokes":[]}"#, .format, "line 1, column 27 (byte 26)", "duplicate key \"strokes\""),
            (#"{"strokes":[[[1,2]]"#, .format, "line 1, column 20 (byte 19)", "unexpected end of input"),
            (String(repeating: "[", count: 100_000), .limit, "line 1, column 65 (byte 64)", "nesting deeper than 64"),
        ]
        for c in cases {
            let error = failure(c.input)
            XCTAssertEqual(error?.kind, c.kind, c.input.prefix(60) + "")
            XCTAssertEqual(error?.file, "in.json", c.input.prefix(60) + "")
            XCTAssertEqual(error?.location, c.location, c.input.prefix(60) + "")
            XCTAssertTrue(error?.message.contains(c.message) ?? false, "\(c.input.prefix(60)): \(String(describing: error))")
        }
    }

    func testStrokes_InvalidUTF8IsRefusedWithItsByteOffset() {
        var bytes = Array(#"{"strokes":[],"x":"ab"}"#.utf8)
        bytes[20] = 0xFF
        XCTAssertThrowsError(try DrawingLoader.decode(bytes, source: "in.json", format: .json)) { error in
            XCTAssertEqual((error as? DigitError)?.location, "line 1, column 21 (byte 20)")
            XCTAssertTrue((error as? DigitError)?.message.contains("invalid UTF-8") ?? false)
        }
    }

    func testStrokes_LimitsOnFileSizeStrokesAndPointsNameTheLimit() {
        let limits = StrokeLimits(maxFileBytes: 100, maxPointsPerDrawing: 3, maxStrokesPerDrawing: 2, maxCoordinate: 1e7)
        XCTAssertThrowsError(try decode(String(repeating: " ", count: 101) + "{}", limits: limits)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
            XCTAssertTrue(String(describing: error).contains("more than the limit of 100"))
        }
        let strokes = failure(#"{"strokes":[[],[],[]]}"#, limits: limits)
        XCTAssertEqual(strokes?.kind, .limit)
        XCTAssertEqual(strokes?.location, "strokes")
        XCTAssertTrue(strokes?.message.contains("3 strokes, more than the limit of 2 per drawing") ?? false)
        let points = failure(#"{"strokes":[[[1,1],[2,2]],[[3,3],[4,4]]]}"#, limits: limits)
        XCTAssertEqual(points?.kind, .limit)
        XCTAssertEqual(points?.location, "strokes[1]")
        XCTAssertTrue(points?.message.contains("more than the limit of 3 points per drawing") ?? false)
    }

    func testStrokes_DefaultLimitsAreTheDocumentedOnes() {
        let limits = StrokeLimits()
        XCTAssertEqual(limits.maxFileBytes, 64 << 20)
        XCTAssertEqual(limits.maxPointsPerDrawing, 1_000_000)
        XCTAssertEqual(limits.maxStrokesPerDrawing, 10_000)
        XCTAssertEqual(limits.maxCoordinate, 1e7)
        XCTAssertEqual(JSONParser.defaultMaxDepth, 64)
    }

    func testJSONLines_EachBadLineIsNamedAndTheGoodOnesAreKept() throws {
        let text = """
        {"label":"1","strokes":[[[0,0],[0,10]]]}
        {"strokes":[[[0,NaN]]]}

        not json
        {"strokes":[[[0,0]]],"label":""}
        {"label":"7","strokes":[[[0,0],[10,0],[5,10]]]}
        """
        let records = try decode(text, format: .jsonLines)
        XCTAssertEqual(records.map(\.line), [1, 2, 4, 5, 6])
        XCTAssertEqual(records.map(\.index), [0, 1, 2, 3, 4])
        XCTAssertEqual(records.compactMap { try? $0.result.get().label }, ["1", "7"])
        let errors = records.compactMap { record -> DigitError? in
            if case let .failure(e) = record.result { return e }
            return nil
        }
        XCTAssertEqual(errors.map(\.location), ["line 2, column 17 (byte 57)", "line 4, column 2 (byte 67)", "line 5: label"])
        XCTAssertTrue(errors.allSatisfy { $0.file == "in.json" })
    }

    // MARK: - Legal but odd drawings

    func testOddDrawings_DecodeAndGetAValidAnswer() throws {
        let recognizer = try DigitRecognizer(model: RobustnessFixtures.tinyModel())
        let inputs = [
            #"{"strokes":[[[5,5]]]}"#,                                  // one point
            #"{"strokes":[[[5,5],[5,5],[5,5]],[[5,5]]]}"#,              // identical points
            #"{"strokes":[[[-1e7,-1e7],[1e7,1e7]]]}"#,                  // huge coordinates at the limit
            #"{"strokes":[[[-500,-300],[-400,-100],[-450,-200]]]}"#,    // negative coordinates
            #"{"strokes":[[[0,0],[1e-30,1e-30]]]}"#,                    // a speck
            #"{"strokes":[[],[[1,1],[1e7,1]]]}"#,                       // an empty stroke and a long line
        ]
        for input in inputs {
            let drawing = try XCTUnwrap(try decode(input).first).result.get()
            let r = recognizer.recognize(drawing)
            XCTAssertFalse(r.isEmpty, input)
            XCTAssertEqual(r.probabilities.count, 10, input)
            XCTAssertTrue(r.probabilities.allSatisfy { $0.isFinite && $0 >= 0 }, input)
            XCTAssertEqual(r.probabilities.reduce(0, +), 1, accuracy: 1e-4, input)
            XCTAssertTrue(r.raster.contains { $0 > 0 }, "\(input) left the image blank")
        }
    }

    func testEmptyDrawing_IsAnEmptyResultNotAnError() throws {
        let recognizer = try DigitRecognizer(model: RobustnessFixtures.tinyModel())
        for input in [#"{"strokes":[]}"#, #"{"strokes":[[],[]]}"#, #"{"label":"3","strokes":[[]]}"#] {
            let drawing = try XCTUnwrap(try decode(input).first).result.get()
            XCTAssertTrue(drawing.isEmpty)
            let r = recognizer.recognize(drawing)
            XCTAssertTrue(r.isEmpty, input)
            XCTAssertNil(r.digit)
            XCTAssertEqual(r.confidence, 0)
            XCTAssertTrue(r.jsonLine(source: "s", index: 0, label: nil).contains(#""digit":null,"confidence":0,"top":[],"empty":true"#))
        }
    }

    // MARK: - UNIPEN

    func testUNIPEN_CoordinateBeyondTheLimitFailsItsDigitOnly() throws {
        let text = ".SEGMENT DIGIT 0 \"1\"\n.PEN_DOWN\n 0 20000000\n.PEN_UP\n.SEGMENT DIGIT 1 \"2\"\n.PEN_DOWN\n 0 500\n 10 400\n.PEN_UP\n"
        let records = try UNIPEN.parse(Array(text.utf8), source: "t.tra")
        XCTAssertEqual(records.count, 2)
        guard case let .failure(error) = records[0].result else { return XCTFail("the first digit should fail") }
        XCTAssertEqual(error.kind, .limit)
        let ok = try records[1].result.get()
        XCTAssertEqual(ok.pointCount, 2)
        // …and what import-unipen writes for it reads back.
        let line = StrokeJSON.encode(ok)
        XCTAssertEqual(try StrokeJSON.decode(try JSONParser.parse(Array(line.utf8))), ok)
    }

    func testUNIPEN_SegmentsNamingTheSameInkCannotMultiplyTheOutput() throws {
        // 1,000 points once, then 20,000 segments naming them: without a budget, 20 million points.
        var text = ".PEN_DOWN\n" + String(repeating: " 1 2\n", count: 1000) + ".PEN_UP\n"
        text += String(repeating: ".SEGMENT DIGIT 0 ? \"1\"\n", count: 20_000)
        let started = Date()
        let records = try UNIPEN.parse(Array(text.utf8), source: "amp.tra")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the work is bounded by the input")
        XCTAssertFalse(records.isEmpty)
        let total = records.reduce(0) { $0 + ((try? $1.result.get().pointCount) ?? 0) }
        XCTAssertLessThanOrEqual(total, 1000, "never more points out than in")
    }

    func testUNIPEN_HostileLinesFailTheirDigitOnly() throws {
        let text = """
        .SEGMENT DIGIT 0 ? "7"
        .PEN_DOWN
         1 2
         3 4 5
        .PEN_UP
        .SEGMENT DIGIT 1 ? "1\u{1B}[2J"
        .PEN_DOWN
         1 1
        .PEN_UP
        .SEGMENT DIGIT 99999999999999999999 ? "4"
        .SEGMENT DIGIT 2 ? "5"
        .PEN_DOWN
         9999999999999 1
        .PEN_UP
        .SEGMENT DIGIT 3 ? "8"
        .PEN_DOWN
         10 10
         20 20
        .PEN_UP
        """
        let records = try UNIPEN.parse(Array(text.utf8), source: "h.tra")
        XCTAssertEqual(records.count, 5)
        let failures = records.map { record -> String? in
            if case let .failure(e) = record.result { return e.description }
            return nil
        }
        XCTAssertEqual(failures[0], "h.tra: line 4: expected a coordinate line 'x y' of two numbers, found '3 4 5'")
        XCTAssertEqual(failures[1], "h.tra: line 6: the digit label must be one of \"0\"…\"9\", found \"1\\u{1b}[2J\"")
        XCTAssertEqual(failures[2], "h.tra: line 10: unsupported delineation '99999999999999999999': expected component numbers and ranges such as 12, 6-7, 399:3-399:42 or 1,3-4")
        XCTAssertEqual(failures[3], "h.tra: line 13: expected a coordinate line 'x y' of two numbers, found '9999999999999 1'")
        XCTAssertNil(failures[4])
        XCTAssertEqual(try records[4].result.get().pointCount, 2)
    }

    // MARK: - IDX and gzip

    func testIDX_GzipBombStopsAtTheLimitWithoutAllocatingIt() throws {
        // 10 MB of zeros in about 60 KB; a 1 MB limit must stop the inflater.
        let scratch = try temporaryFolder(self)
        let header: [UInt8] = [0, 0, 8, 3] + RobustnessFixtures.bigEndian(12_755) + RobustnessFixtures.bigEndian(28) + RobustnessFixtures.bigEndian(28)
        let raw = header + [UInt8](repeating: 0, count: 12_755 * 784)
        let gz = gzipZeroRun(raw)
        XCTAssertLessThan(gz.count, 70_000)
        let path = scratch.appendingPathComponent("bomb-idx3-ubyte.gz").path
        try Data(gz).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try IDX.readImages(path: path, limit: 1 << 20)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
            XCTAssertEqual((error as? DigitError)?.file, path)
            XCTAssertTrue(String(describing: error).contains("decompressed data is larger than the limit of 1048576 bytes"))
        }
        XCTAssertEqual(try IDX.readImages(path: path).count, 12_755)
    }

    func testIDX_HeaderPromisingFourBillionImagesFailsOnLengthNotAllocation() {
        let bytes: [UInt8] = [0, 0, 8, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x10, 0, 0, 0, 0x10, 0] + [UInt8](repeating: 0, count: 64)
        XCTAssertThrowsError(try IDX.parseImages(bytes, file: "x")) { error in
            XCTAssertEqual((error as? DigitError)?.location, "byte 80")
            XCTAssertTrue(String(describing: error).contains("truncated"))
        }
    }

    /// A gzip member for `bytes`, which must end in a long run of zeros: the bytes before the run
    /// as fixed-Huffman literals, then the run as matches of 258 bytes at distance 1 (13 bits
    /// each, about 1:160).
    private func gzipZeroRun(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var buffer = 0, count = 0
        func bits(_ value: Int, _ n: Int) {  // least significant bit first
            buffer |= value << count
            count += n
            while count >= 8 { out.append(UInt8(buffer & 0xFF)); buffer >>= 8; count -= 8 }
        }
        func code(_ value: Int, _ n: Int) { for i in stride(from: n - 1, through: 0, by: -1) { bits(value >> i & 1, 1) } }
        func literal(_ byte: UInt8) { byte < 144 ? code(0x30 + Int(byte), 8) : code(0x190 + Int(byte) - 144, 9) }
        let prefix = (bytes.lastIndex { $0 != 0 } ?? -1) + 2   // up to and including the run's first zero
        bits(1, 1); bits(1, 2)                                   // final block, fixed Huffman
        for byte in bytes[..<min(prefix, bytes.count)] { literal(byte) }
        var left = bytes.count - prefix
        while left >= 258 { code(0xC5, 8); code(0, 5); left -= 258 }  // length 258 (symbol 285), distance 1
        for _ in 0..<max(left, 0) { literal(0) }
        code(0, 7)                                                // end of block
        if count > 0 { out.append(UInt8(buffer & 0xFF)) }
        let crc = Gzip.crc32(bytes), size = UInt32(truncatingIfNeeded: bytes.count)
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(crc >> UInt32(shift) & 0xFF)) }
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(size >> UInt32(shift) & 0xFF)) }
        return out
    }

    // MARK: - Weight files

    func testModelFile_NonFiniteWeightIsRefusedByTensorName() throws {
        var model = RobustnessFixtures.tinyModel()
        model.tensors["fc.weight"]?.values[17] = .nan
        let bytes = try SafetensorsFile(tensors: model.tensors, metadata: model.metadata).serialized()
        XCTAssertThrowsError(try ModelFile.parse(bytes, file: "w.safetensors")) { error in
            XCTAssertEqual((error as? DigitError)?.description,
                           "w.safetensors: layers[1]: tensor 'fc.weight' value 17 is nan: weights must be finite")
        }
    }

    func testModelFile_LayersNeedingHugeScratchMemoryAreALimitError() throws {
        // 40 padded 1×1 convolutions grow a 28×28 input by 32 pixels a side each: cheap weights, but
        // gigabytes of activations if nothing checked them.
        var layers: [any Layer] = []
        var tensors: [String: TensorData] = [:]
        for i in 0..<40 {
            var c = conv("c\(i)", 1, kernel: 1, padding: 16, bias: false)
            c.weight = "c\(i)"
            layers.append(c)
            tensors["c\(i)"] = TensorData(shape: [1, 1, 1, 1], values: [1])
        }
        var fc = linear("fc", 10, bias: false)
        fc.weight = "fc"
        layers += [GlobalAvgPool(), fc] as [any Layer]
        tensors["fc"] = TensorData(shape: [10, 1], values: [Float](repeating: 1, count: 10))
        let model = ModelFile(layers: layers, tensors: tensors, inputMean: 0, inputStd: 1)
        XCTAssertThrowsError(try model.makeNetwork(file: "big.safetensors")) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
            XCTAssertEqual((error as? DigitError)?.location, "layers")
            XCTAssertTrue(String(describing: error).contains("scratch memory"), String(describing: error))
        }
    }

    func testModelFile_EveryTruncationOfAWeightFileIsAFormatError() throws {
        let bytes = try SafetensorsFile(tensors: RobustnessFixtures.tinyModel().tensors,
                                        metadata: RobustnessFixtures.tinyModel().metadata).serialized()
        XCTAssertNoThrow(try ModelFile.parse(bytes, file: "w"))
        for length in stride(from: 0, to: bytes.count, by: 97) {
            XCTAssertThrowsError(try ModelFile.parse(Array(bytes[..<length]), file: "w")) { error in
                XCTAssertEqual((error as? DigitError)?.kind, .format, "length \(length)")
                XCTAssertEqual((error as? DigitError)?.file, "w")
            }
        }
    }

    func testModelFile_LayerWithoutItsWeightNamesTheKey() throws {
        var model = RobustnessFixtures.tinyModel()
        model.layers = [Flatten()]
        var metadata = model.metadata
        metadata["layers"] = #"[{"type":"flatten"},{"type":"linear","bias":"fc.bias"}]"#
        let bytes = try SafetensorsFile(tensors: model.tensors, metadata: metadata).serialized()
        XCTAssertThrowsError(try ModelFile.parse(bytes, file: "w")) { error in
            XCTAssertEqual((error as? DigitError)?.description, "w: layers[1].weight: missing")
        }
    }

    func testRecognitionJSON_NonFiniteConfidenceIsNull() throws {
        let r = Recognition(digit: nil, confidence: .nan, probabilities: [Float](repeating: .nan, count: 10),
                            top: [(0, .nan)], raster: [], isEmpty: false, threshold: 0.9)
        let line = r.jsonLine(source: "s", index: 0, label: nil)
        XCTAssertEqual(line, #"{"source":"s","index":0,"digit":null,"confidence":null,"top":[[0,null]]}"#)
        XCTAssertNoThrow(try JSONParser.parse(Array(line.utf8)))
    }

    // MARK: - Atomic writes

    func testWriteAtomically_ReplacesTheFileAndLeavesNoTemporary() throws {
        let scratch = try temporaryFolder(self)
        let target = scratch.appendingPathComponent("out.txt").path
        try FileIO.writeAtomically("old\n", to: target)
        try FileIO.writeAtomically(String(repeating: "new\n", count: 10_000), to: target)
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8).count, 40_000)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), ["out.txt"])
    }

    func testWriteAtomically_RemovesTemporariesOfDeadWritersOnly() throws {
        let scratch = try temporaryFolder(self)
        var dead: Int32 = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let stale = ".out.txt.\(dead).12345.tmp"
        let live = ".out.txt.\(getppid()).777.tmp"    // the parent of this test process is alive
        let other = ".other.txt.\(dead).1.tmp"          // another target's leftover is not ours to judge
        for name in [stale, live, other] { _ = FileManager.default.createFile(atPath: scratch.appendingPathComponent(name).path, contents: Data("x".utf8)) }
        try FileIO.writeAtomically("done", to: scratch.appendingPathComponent("out.txt").path)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path)), ["out.txt", live, other])
    }

    func testWriteAtomically_UnwritablePlaceIsAnIOErrorAndKeepsTheOldFile() throws {
        let scratch = try temporaryFolder(self)
        let folder = scratch.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        XCTAssertThrowsError(try FileIO.writeAtomically("x", to: folder.path)) { error in   // a folder is in the way
            XCTAssertEqual((error as? DigitError)?.kind, .io)
        }
        let file = scratch.appendingPathComponent("plain").path
        try FileIO.writeAtomically("old", to: file)
        XCTAssertThrowsError(try FileIO.writeAtomically("x", to: file + "/child")) { error in  // a file is in the way
            XCTAssertEqual((error as? DigitError)?.kind, .io)
        }
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "old")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path)), ["sub", "plain"])
    }
}
