@testable import DigitFormats
import Foundation
import DigitKit
import DigitTestSupport
import XCTest

final class StrokeJSONTests: XCTestCase {
    private func decode(_ text: String, limits: StrokeLimits = .init()) throws -> Drawing {
        try StrokeJSON.decode(try JSONParser.parse(text), limits: limits)
    }

    /// The error of decoding `text`, which must fail.
    private func failure(_ text: String, limits: StrokeLimits = .init(),
                         file: StaticString = #filePath, line: UInt = #line) -> DigitError? {
        do {
            let drawing = try decode(text, limits: limits)
            XCTFail("expected an error, decoded \(drawing)", file: file, line: line)
        } catch let error as DigitError {
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
        return nil
    }

    private func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try FileIO.writeAtomically(text, to: path)
        return path
    }

    func testDecode_IssueExample() throws {
        let drawing = try decode("""
        {
          "label": "7",
          "canvas": {"width": 280, "height": 280},
          "strokes": [
            [[12.0, 30.5], [14.2, 31.0], [17.9, 33.4]],
            [{"x": 40, "y": 10, "t": 0.016, "p": 0.8}, {"x": 41, "y": 60, "t": 0.033}]
          ]
        }
        """)
        XCTAssertEqual(drawing.label, "7")
        XCTAssertEqual(drawing.canvasWidth, 280)
        XCTAssertEqual(drawing.canvasHeight, 280)
        XCTAssertEqual(drawing.strokes.count, 2)
        XCTAssertEqual(drawing.strokes[0], [StrokePoint(x: 12, y: 30.5), StrokePoint(x: 14.2, y: 31), StrokePoint(x: 17.9, y: 33.4)])
        XCTAssertEqual(drawing.strokes[1], [StrokePoint(x: 40, y: 10, t: 0.016, p: 0.8), StrokePoint(x: 41, y: 60, t: 0.033)])
    }

    func testDecode_PointWithTimeAsThirdElement() throws {
        XCTAssertEqual(try decode(#"{"strokes": [[[1, 2, 0.5]]]}"#).strokes, [[StrokePoint(x: 1, y: 2, t: 0.5)]])
    }

    func testDecode_LabelAsIntegerIsStoredAsString() throws {
        XCTAssertEqual(try decode(#"{"label": 3, "strokes": []}"#).label, "3")
        XCTAssertEqual(try decode(#"{"label": 0.0, "strokes": []}"#).label, "0")
        XCTAssertNil(try decode(#"{"label": null, "strokes": []}"#).label)
        XCTAssertNil(try decode(#"{"strokes": []}"#).label)
    }

    func testDecode_EmptyStrokesMakeAValidEmptyDrawing() throws {
        let empty = try decode(#"{"strokes": []}"#)
        XCTAssertTrue(empty.isEmpty)
        let emptyInside = try decode(#"{"strokes": [[], [[1, 1]], []]}"#)
        XCTAssertEqual(emptyInside.strokes.count, 3)
        XCTAssertEqual(emptyInside.pointCount, 1)
    }

    func testDecode_UnknownTopLevelKeysAreIgnored() throws {
        let drawing = try decode(#"{"writer": 12, "note": {"any": [1, 2]}, "strokes": [[[1, 2]]]}"#)
        XCTAssertEqual(drawing.pointCount, 1)
        XCTAssertEqual(StrokeJSON.writer(of: try JSONParser.parse(#"{"writer": 12, "strokes": []}"#)), 12)
        XCTAssertNil(StrokeJSON.writer(of: try JSONParser.parse(#"{"writer": "alice", "strokes": []}"#)))
    }

    func testDecode_ErrorsNameTheJSONPath() {
        let cases: [(String, String, String)] = [
            (#"[1]"#, "top level", "expected a drawing object with \"strokes\", found an array"),
            (#"{"label": "7"}"#, "top level", "missing the required key \"strokes\""),
            (#"{"strokes": {}}"#, "strokes", "expected an array of strokes, found an object"),
            (#"{"strokes": [[], 5]}"#, "strokes[1]", "expected a stroke (an array of points), found a number"),
            (#"{"strokes": [[[1, 2], [3]]]}"#, "strokes[0][1]",
             "expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found an array of 1 element"),
            (#"{"strokes": [[[1, 2, 3, 4]]]}"#, "strokes[0][0]",
             "expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found an array of 4 elements"),
            (#"{"strokes": [[[1, 2]], [[1, 2], [3, 4], [5, "6"]]]}"#, "strokes[1][2][1]", "expected a coordinate number, found a string"),
            (#"{"strokes": [[{"x": 1}]]}"#, "strokes[0][0]", "a point object needs both \"x\" and \"y\""),
            (#"{"strokes": [[{"x": 1, "y": null}]]}"#, "strokes[0][0].y", "expected a coordinate number, found null"),
            (#"{"strokes": [[{"x": true, "y": 1}]]}"#, "strokes[0][0].x", "expected a coordinate number, found a boolean"),
            (#"{"strokes": [[{"x": 1, "y": 1, "p": 1.5}]]}"#, "strokes[0][0].p", "pressure 1.5 is outside 0…1"),
            (#"{"strokes": [[{"x": 1, "y": 1, "p": -0.1}]]}"#, "strokes[0][0].p", "pressure -0.1 is outside 0…1"),
            (#"{"strokes": [[{"x": 1, "y": 1, "t": 1e300}]]}"#, "strokes[0][0].t", "time 1e+300 is not finite as a 32-bit float"),
            (#"{"strokes": [[{"x": 1, "y": 1, "t": "now"}]]}"#, "strokes[0][0].t", "expected a time in seconds, found a string"),
            (#"{"strokes": [[[1, 2, "t"]]]}"#, "strokes[0][0][2]", "expected a time in seconds, found a string"),
            (#"{"strokes": [["1, 2"]]}"#, "strokes[0][0]",
             "expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found a string"),
            (#"{"label": "", "strokes": []}"#, "label",
             "expected a label of 1…64 characters (digits such as \"7\" or \"2026\", or a name for what is not a number), found 0 characters"),
            (#"{"label": "a\u0007", "strokes": []}"#, "label", "the label holds a control character"),
            (#"{"label": -1, "strokes": []}"#, "label", "expected a whole number 0…999999999999999, found the number -1"),
            (#"{"label": 2.5, "strokes": []}"#, "label", "expected a whole number 0…999999999999999, found the number 2.5"),
            (#"{"label": [7], "strokes": []}"#, "label",
             "expected a label string such as \"7\" or \"2026\", or a whole number, found an array"),
            (#"{"canvas": [280, 280], "strokes": []}"#, "canvas", "expected an object with \"width\" and \"height\", found an array"),
            (#"{"canvas": {"width": -1}, "strokes": []}"#, "canvas.width", "canvas size must be in (0, 1e9], found -1"),
        ]
        for (text, location, message) in cases {
            let error = failure(text)
            XCTAssertEqual(error?.kind, .format, text)
            XCTAssertEqual(error?.location, location, text)
            XCTAssertEqual(error?.message, message, text)
        }
    }

    func testDecode_LimitsAreEnforcedByName() {
        let limits = StrokeLimits(maxPointsPerDrawing: 3, maxStrokesPerDrawing: 2, maxCoordinate: 100)
        let tooManyStrokes = failure(#"{"strokes": [[], [], []]}"#, limits: limits)
        XCTAssertEqual(tooManyStrokes?.kind, .limit)
        XCTAssertEqual(tooManyStrokes?.message, "3 strokes, more than the limit of 2 per drawing")
        let tooManyPoints = failure(#"{"strokes": [[[1, 1], [2, 2]], [[3, 3], [4, 4]]]}"#, limits: limits)
        XCTAssertEqual(tooManyPoints?.kind, .limit)
        XCTAssertEqual(tooManyPoints?.location, "strokes[1]")
        XCTAssertEqual(tooManyPoints?.message, "more than the limit of 3 points per drawing")
        let far = failure(#"{"strokes": [[[1, -100.5]]]}"#, limits: limits)
        XCTAssertEqual(far?.kind, .limit)
        XCTAssertEqual(far?.location, "strokes[0][0][1]")
        XCTAssertEqual(far?.message, "coordinate -100.5 is outside the limit of ±100")
        XCTAssertEqual(failure(#"{"strokes": [[[2e7, 0]]]}"#)?.message, "coordinate 20000000 is outside the limit of ±10000000")
        XCTAssertNoThrow(try decode(#"{"strokes": [[[1e7, -1e7]]]}"#))
    }

    func testDefaults_MatchTheDocumentedLimits() {
        let limits = StrokeLimits()
        XCTAssertEqual(limits.maxFileBytes, 64 * 1024 * 1024)
        XCTAssertEqual(limits.maxPointsPerDrawing, 1_000_000)
        XCTAssertEqual(limits.maxStrokesPerDrawing, 10_000)
        XCTAssertEqual(limits.maxCoordinate, 1e7)
    }

    func testEncode_IsCompactAndRoundTrips() throws {
        let drawing = Drawing(
            strokes: [[StrokePoint(x: 12, y: 30.5), StrokePoint(x: 14.2, y: -0.1)],
                      [StrokePoint(x: 40, y: 10, t: 0.016, p: 0.8), StrokePoint(x: 1e7, y: 3e-5, t: 0.033)], []],
            label: "7", canvasWidth: 280, canvasHeight: 280)
        let text = StrokeJSON.encode(drawing, extra: [("note", "a \"quoted\" word"), ("label", "ignored")])
        XCTAssertEqual(text, #"{"label":"7","note":"a \"quoted\" word","canvas":{"width":280,"height":280},"strokes":[[[12,30.5],[14.2,-0.1]],[{"x":40,"y":10,"t":0.016,"p":0.8},{"x":10000000,"y":3e-05,"t":0.033}],[]]}"#)
        XCTAssertEqual(try decode(text), drawing)
        let withWriter = StrokeJSON.encode(Drawing(strokes: []), fields: [JSONMember("writer", .number(12))])
        XCTAssertEqual(withWriter, #"{"writer":12,"strokes":[]}"#)
    }

    func testEncode_FloatsRoundTripExactly() throws {
        var rng = SplitMix64(seed: 3)
        var stroke: [StrokePoint] = []
        for _ in 0..<500 {
            stroke.append(StrokePoint(x: rng.uniform(-1e6, 1e6), y: rng.uniform(-1, 1) * pow(10, rng.uniform(-8, 6))))
        }
        let drawing = Drawing(strokes: [stroke])
        XCTAssertEqual(try decode(StrokeJSON.encode(drawing)), drawing)
    }

    func testLoad_JSONLinesSkipsBlankLinesAndKeepsGoodLinesAroundABadOne() throws {
        let dir = try temporaryFolder(self)
        let path = try write("""
        {"label": "1", "strokes": [[[0, 0], [0, 10]]]}

        {"label": "2", "strokes": [[[0, 0], "oops"]]}
        {"label": "3", "strokes": [[[0, 0]]]
          \t
        {"label": "4", "writer": 7, "strokes": [[[1, 1]]]}
        """, "mixed.jsonl", in: dir)
        let records = try DrawingLoader.load(path)
        XCTAssertEqual(records.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(records.map(\.line), [1, 3, 4, 6])
        XCTAssertEqual(records.map(\.source), Array(repeating: path, count: 4))
        XCTAssertEqual(try records[0].result.get().label, "1")
        XCTAssertEqual(try records[3].result.get().label, "4")
        XCTAssertEqual(records[3].writer, 7)
        guard case .failure(let bad) = records[1].result, case .failure(let truncated) = records[2].result else {
            return XCTFail("lines 3 and 4 should fail")
        }
        XCTAssertEqual(bad.description, "\(path): line 3: strokes[0][1]: expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found a string")
        XCTAssertEqual(truncated.file, path)
        XCTAssertEqual(truncated.location, "line 4, column 37 (byte 130)")
        XCTAssertEqual(truncated.message, "unexpected end of input inside an object")
    }

    func testLoad_JSONFileThatIsNotJSONThrows() throws {
        let dir = try temporaryFolder(self)
        let path = try write("{\"strokes\": [[[1, 2]]", "broken.json", in: dir)
        XCTAssertThrowsError(try DrawingLoader.load(path)) { error in
            XCTAssertEqual((error as? DigitError)?.description,
                           "\(path): line 1, column 22 (byte 21): unexpected end of input inside an array")
        }
    }

    func testLoad_JSONFileWithABadDrawingGivesAFailureRecord() throws {
        let dir = try temporaryFolder(self)
        let path = try write(#"{"strokes": [[[1, 2]]], "label": true}"#, "bad-label.json", in: dir)
        let records = try DrawingLoader.load(path)
        XCTAssertEqual(records.count, 1)
        XCTAssertNil(records[0].line)
        guard case .failure(let error) = records[0].result else { return XCTFail("should fail") }
        XCTAssertEqual(error.description,
                       "\(path): label: expected a label string such as \"7\" or \"2026\", or a whole number, found a boolean")
    }

    func testLoad_MissingFileThrowsAnIOError() {
        XCTAssertThrowsError(try DrawingLoader.load("/nonexistent/strokes.json")) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .io)
        }
    }

    func testLoad_FileOverTheSizeLimitThrows() throws {
        let dir = try temporaryFolder(self)
        let path = try write(#"{"strokes": [[[1, 2], [3, 4]]]}"#, "big.json", in: dir)
        XCTAssertThrowsError(try DrawingLoader.load(path, limits: StrokeLimits(maxFileBytes: 10))) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .limit)
        }
    }

    func testLoad_DirectoryReadsJSONAndJSONLSortedByName() throws {
        let dir = try temporaryFolder(self)
        _ = try write(#"{"label": "2", "strokes": []}"#, "b.json", in: dir)
        _ = try write("{\"label\": \"0\", \"strokes\": []}\n{\"label\": \"1\", \"strokes\": []}\n", "a.jsonl", in: dir)
        _ = try write("not json", "c.json", in: dir)
        _ = try write("ignored", "notes.txt", in: dir)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub.json"), withIntermediateDirectories: true)
        let records = try DrawingLoader.load(dir.path)
        XCTAssertEqual(records.map { URL(fileURLWithPath: $0.source).lastPathComponent }, ["a.jsonl", "a.jsonl", "b.json", "c.json"])
        XCTAssertEqual(records.prefix(3).map { try? $0.result.get().label }, ["0", "1", "2"])
        XCTAssertEqual(records.map(\.index), [0, 1, 0, 0])
        guard case .failure(let error) = records[3].result else { return XCTFail("c.json is not JSON") }
        XCTAssertEqual(error.file, dir.path + "/c.json")
    }

    func testDecodeDetect_SingleDocumentOrJSONLinesByContent() throws {
        let pretty = Array("{\n  \"label\": \"5\",\n  \"strokes\": [[[1, 2]]]\n}\n".utf8)
        let single = try DrawingLoader.decode(pretty, source: "-", format: .detect)
        XCTAssertEqual(single.count, 1)
        XCTAssertNil(single[0].line)
        XCTAssertEqual(try single[0].result.get().label, "5")

        let lines = Array("{\"label\": \"1\", \"strokes\": []}\n\n{\"label\": \"2\", \"strokes\": []}\n".utf8)
        let multi = try DrawingLoader.decode(lines, source: "-", format: .detect)
        XCTAssertEqual(multi.map(\.line), [1, 3])
        XCTAssertEqual(multi.map { try? $0.result.get().label }, ["1", "2"])

        let brokenPretty = Array("{\n  \"strokes\": [[[1, 2]]\n".utf8)
        XCTAssertThrowsError(try DrawingLoader.decode(brokenPretty, source: "-", format: .detect)) { error in
            XCTAssertEqual((error as? DigitError)?.file, "-")
            XCTAssertEqual((error as? DigitError)?.message, "unexpected end of input inside an array")
        }
        XCTAssertEqual(try DrawingLoader.decode(Array(" \n".utf8), source: "-", format: .detect).count, 0)

        let unipen = Array(".SEGMENT DIGIT 0 ? \"4\"\n.PEN_DOWN\n1 2\n.PEN_UP\n".utf8)
        let fromUNIPEN = try DrawingLoader.decode(unipen, source: "-", format: .detect)
        XCTAssertEqual(try fromUNIPEN.first?.result.get().label, "4")
    }

    func testFormatForName_ByExtension() {
        XCTAssertEqual(DrawingLoader.format(forName: "a.json"), .json)
        XCTAssertEqual(DrawingLoader.format(forName: "a.JSONL"), .jsonLines)
        XCTAssertEqual(DrawingLoader.format(forName: "x/pendigits-orig.tra"), .unipen)
        XCTAssertEqual(DrawingLoader.format(forName: "b.tes"), .unipen)
        XCTAssertEqual(DrawingLoader.format(forName: "-"), .detect)
        XCTAssertEqual(DrawingLoader.format(forName: "notes.txt"), .detect)
    }

    // MARK: Fixtures

    private static let strokes = TestPaths.fixtures.appendingPathComponent("strokes")

    func testFixtures_EveryDigitFileCarriesTheLabelInItsName() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.strokes.path).filter { $0.hasPrefix("digit-") }.sorted()
        XCTAssertEqual(names.count, 50, "five drawings per digit")
        for name in names {
            let records = try DrawingLoader.load(Self.strokes.appendingPathComponent(name).path)
            let drawing = try XCTUnwrap(records.first).result.get()
            XCTAssertEqual(drawing.label, String(name.dropFirst(6).prefix(1)), name)
            XCTAssertFalse(drawing.isEmpty, name)
            XCTAssertEqual(drawing.canvasWidth, 280, name)
        }
    }

    // MARK: - The fast path (StrokeJSON.decodePlain)

    private func plain(_ text: String, limits: StrokeLimits = .init()) -> (Drawing, writer: Int?)? {
        Array(text.utf8).withUnsafeBufferPointer { StrokeJSON.decodePlain($0, range: 0..<$0.count, limits: limits) }
    }

    func testDecodePlain_TakesEveryFixtureDrawingAndAgreesWithTheFullDecoder() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.strokes.path).filter { $0.hasSuffix(".json") }.sorted()
        var fast = 0
        for name in names {
            let bytes = try FileIO.read(Self.strokes.appendingPathComponent(name).path, limit: 1 << 26)
            let full = try StrokeJSON.decode(try JSONParser.parse(bytes))
            if let (drawing, _) = bytes.withUnsafeBufferPointer({ StrokeJSON.decodePlain($0, range: 0..<$0.count, limits: .init()) }) {
                XCTAssertEqual(drawing, full, name)
                fast += 1
            } else {
                XCTAssertFalse(name.hasPrefix("digit-"), "\(name) should take the fast path")
            }
        }
        XCTAssertGreaterThanOrEqual(fast, 60, "the plain files all take the fast path")
        // Every corpus input of the strokes fuzz target, good or bad: the fast path never accepts
        // what the full decoder refuses, nor decodes differently.
        let corpus = TestPaths.fixtures.appendingPathComponent("fuzz/strokes")
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus.path) {
            let bytes = try FileIO.read(corpus.appendingPathComponent(name).path, limit: 1 << 26)
            XCTAssertEqual(FuzzChecks.checkPlainDecoder(bytes, limits: .init()), [], name)
            XCTAssertEqual(FuzzChecks.checkPlainDecoder(bytes, limits: FuzzChecks.tightLimits), [], name)
        }
    }

    func testDecodePlain_AcceptsThePlainFormsWithTheSameValues() throws {
        let cases = [
            #"{"label":"7","canvas":{"width":280,"height":200},"strokes":[[[12.5,30],[14.25,31,0.5]],[]]}"#,
            #" { "strokes" : [ [ { "x" : -1e3 , "y" : 0.000123 , "t" : 1.5 , "p" : 1 } ] ] , "label" : 4 , "writer" : 12 } "#,
            #"{"strokes":[],"label":null,"canvas":{}}"#,
            #"{"writer":3.5,"strokes":[[{"p":0,"y":2,"x":1}]]}"#,
        ]
        for text in cases {
            let (drawing, writer) = try XCTUnwrap(plain(text), text)
            let value = try JSONParser.parse(text)
            XCTAssertEqual(drawing, try StrokeJSON.decode(value), text)
            XCTAssertEqual(writer, StrokeJSON.writer(of: value), text)
        }
        XCTAssertEqual(plain(cases[1])?.0.label, "4")
        XCTAssertEqual(plain(cases[1])?.writer, 12)
    }

    func testDecodePlain_LeavesEverythingElseToTheFullParser() {
        let cases = [
            #"{"strokes":[[[1,2]]],"extra":1}"#,                 // a key it does not know (the full decoder ignores it)
            #"{"strokes":[[[1,2]]],"strokes":[]}"#,              // a duplicate key (the full parser refuses it)
            #"{"strokes":[[{"x":1,"y":2,"x":3}]]}"#,             // a duplicate key in a point
            #"{"strokes":[[[1,2]]],"label":"\u0037"}"#,          // an escape
            #"{"label":"","strokes":[]}"#,                       // a bad label
            #"{"strokes":[[[1,2,3,4]]]}"#,                        // a bad point
            #"{"strokes":[[[1,NaN]]]}"#, #"{"strokes":[[[1,1e999]]]}"#, #"{"strokes":[[[01,2]]]}"#,
            #"{"strokes":[[[1,2]]]"#, #"{"strokes":[[[1,2]]]} x"#, #"{"strokes":[[[1,2],]]}"#,
            "\u{FEFF}{\"strokes\":[]}",                         // a byte-order mark
            #"{"strokes":[[[1,2e7]]]}"#,                          // over the coordinate limit
            #"{"strokes":[[{"x":1,"y":2,"p":1.5}]]}"#, #"{"strokes":[[[1,2,1e39]]]}"#,
            #"{"canvas":{"width":0},"strokes":[]}"#, #"{"writer":"7","strokes":[]}"#, #"{"label":"7"}"#, "[]", "",
        ]
        for text in cases { XCTAssertNil(plain(text), text) }
        let tight = StrokeLimits(maxPointsPerDrawing: 2, maxStrokesPerDrawing: 1)
        XCTAssertNotNil(plain(#"{"strokes":[[[1,2],[3,4]]]}"#, limits: tight))
        XCTAssertNil(plain(#"{"strokes":[[[1,2],[3,4],[5,6]]]}"#, limits: tight))
        XCTAssertNil(plain(#"{"strokes":[[[1,2]],[]]}"#, limits: tight))
    }

    func testFixtures_EdgeCasesAndNonDigitsLoad() throws {
        let expected: [String: Int] = [
            "edge-single-point": 1, "edge-identical-points": 12, "edge-empty-strokes": 0, "edge-dense": 20_000,
            "edge-huge-coordinates": -1, "edge-negative-coordinates": -1, "edge-horizontal-line": -1, "edge-vertical-line": -1,
            "nondigit-scribble": -1, "nondigit-box": -1, "nondigit-dot": 6, "nondigit-spiral": 40, "nondigit-star": -1,
        ]
        for (name, points) in expected {
            let drawing = try XCTUnwrap(try DrawingLoader.load(Self.strokes.appendingPathComponent(name + ".json").path).first).result.get()
            if points >= 0 { XCTAssertEqual(drawing.pointCount, points, name) } else { XCTAssertGreaterThan(drawing.pointCount, 1, name) }
            if name.hasPrefix("nondigit") { XCTAssertNil(drawing.label, name) }
        }
        let huge = try XCTUnwrap(try DrawingLoader.load(Self.strokes.appendingPathComponent("edge-huge-coordinates.json").path).first).result.get()
        XCTAssertGreaterThan(huge.strokes.joined().map { max(abs($0.x), abs($0.y)) }.max() ?? 0, 5e6)
        let negative = try XCTUnwrap(try DrawingLoader.load(Self.strokes.appendingPathComponent("edge-negative-coordinates.json").path).first).result.get()
        XCTAssertTrue(negative.strokes.joined().allSatisfy { $0.x < 0 && $0.y < 0 })
    }

    func testBadFixtures_UnreadableJSONThrowsWithItsPosition() {
        let cases: [(String, String)] = [
            ("truncated.json", "line 1, column 52 (byte 51): unexpected end of input inside an array"),
            ("huge-number.json", "line 1, column 46 (byte 45): number 1e999 is too large: it overflows to infinity"),
            ("nan.json", "line 1, column 21 (byte 20): NaN is not a number JSON allows (no NaN or infinities); write a finite number"),
        ]
        for (name, expected) in cases {
            let path = Self.strokes.appendingPathComponent("bad/" + name).path
            XCTAssertThrowsError(try DrawingLoader.load(path), name) { error in
                XCTAssertEqual((error as? DigitError)?.description, path + ": " + expected)
                XCTAssertEqual((error as? DigitError)?.kind, .format)
            }
        }
    }

    func testBadFixtures_WrongDrawingsFailWithTheirJSONPath() throws {
        let cases: [(String, String)] = [
            ("one-coordinate.json", "strokes[0][2]: expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found an array of 1 element"),
            ("string-coordinate.json", "strokes[0][1][1]: expected a coordinate number, found a string"),
            ("strokes-not-array.json", "strokes: expected an array of strokes, found a string"),
            ("bad-label.json", "label: the label holds a control character"),
            ("pressure-out-of-range.json", "strokes[0][0].p: pressure 1.5 is outside 0…1"),
            ("missing-strokes.json", "top level: missing the required key \"strokes\""),
        ]
        for (name, expected) in cases {
            let path = Self.strokes.appendingPathComponent("bad/" + name).path
            let records = try DrawingLoader.load(path)
            XCTAssertEqual(records.count, 1, name)
            guard case .failure(let error)? = records.first?.result else { XCTFail("\(name) should fail"); continue }
            XCTAssertEqual(error.description, path + ": " + expected)
        }
    }

    func testBadFixtures_JSONLinesWithOneBadLineKeepsTheOthers() throws {
        let path = Self.strokes.appendingPathComponent("bad/mixed.jsonl").path
        let records = try DrawingLoader.load(path)
        XCTAssertEqual(records.map(\.line), [1, 2, 4])
        XCTAssertEqual(try records[0].result.get().label, "1")
        XCTAssertEqual(try records[2].result.get().label, "4")
        guard case .failure(let error) = records[1].result else { return XCTFail("line 2 is bad") }
        XCTAssertEqual(error.description, path + ": line 2: strokes[0][2]: expected a point [x, y], [x, y, t] or {\"x\": …, \"y\": …}, found an array of 1 element")
    }
}
