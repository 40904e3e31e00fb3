import DigitFormats
import Foundation
import DigitKit
import DigitTestSupport
import XCTest

final class SafetensorsTests: XCTestCase {
    // MARK: - Helpers

    /// A file made of an 8-byte little-endian length, `header` as UTF-8 bytes, then `data`.
    private func file(_ header: String, data: [UInt8] = []) -> [UInt8] {
        file(Array(header.utf8), data: data)
    }

    private func file(_ header: [UInt8], data: [UInt8] = []) -> [UInt8] {
        let n = UInt64(header.count)
        return (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * UInt64($0))) } + header + data
    }

    private func floatBytes(_ values: [Float]) -> [UInt8] {
        values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt32($0))) } }
    }

    /// Asserts that parsing fails with a `.format` error whose description contains every fragment.
    private func assertRejects(_ bytes: [UInt8], _ fragments: String..., kind: DigitError.Kind = .format,
                               file: StaticString = #filePath, line: UInt = #line) {
        assertRejects(bytes, fragments, kind: kind, case: nil, file: file, line: line)
    }

    /// The same for one case of a table: `name` begins every failure's message.
    private func assertRejects(_ bytes: [UInt8], _ fragments: [String], kind: DigitError.Kind = .format, case name: String?,
                               file: StaticString = #filePath, line: UInt = #line) {
        let prefix = name.map { "\($0): " } ?? ""
        do {
            let parsed = try SafetensorsFile.parse(bytes, file: "bad.safetensors")
            XCTFail("\(prefix)expected an error, parsed \(parsed.tensors.keys.sorted())", file: file, line: line)
        } catch let error as DigitError {
            XCTAssertEqual(error.kind, kind, "\(prefix)\(error)", file: file, line: line)
            XCTAssertEqual(error.file, "bad.safetensors", prefix, file: file, line: line)
            for fragment in fragments {
                XCTAssertTrue(error.description.contains(fragment), "\(prefix)'\(error)' does not mention '\(fragment)'", file: file, line: line)
            }
        } catch {
            XCTFail("\(prefix)unexpected error type: \(error)", file: file, line: line)
        }
    }

    private func bits(_ values: [Float]) -> [UInt32] { values.map(\.bitPattern) }

    /// A valid entry for tensor `name` of `count` floats at `begin`.
    private func entry(_ name: String, shape: String, _ begin: Int, _ end: Int) -> String {
        "\"\(name)\":{\"dtype\":\"F32\",\"shape\":[\(shape)],\"data_offsets\":[\(begin),\(end)]}"
    }

    private var sample: SafetensorsFile {
        SafetensorsFile(
            tensors: [
                "conv.weight": .init(shape: [2, 1, 2, 2], values: (0..<8).map { Float($0) * 0.5 - 1 }),
                "conv.bias": .init(shape: [2], values: [0.25, -0.125]),
                "scale": .init(shape: [], values: [3]),
                "empty": .init(shape: [0], values: []),
                "empty2d": .init(shape: [3, 0, 2], values: []),
            ],
            metadata: ["layers": #"[{"type":"conv","out":2}]"#, "command": "digits train --seed 1"])
    }

    // MARK: - Round trip and writer

    func testSafetensors_RoundTripKeepsShapesValuesAndTrickyMetadata() throws {
        var original = sample
        let controls = String(String.UnicodeScalarView((0..<0x20 as Range<UInt32>).compactMap { Unicode.Scalar($0) }))
        original.metadata["controls"] = controls + "\u{7F}"
        original.metadata["quotes"] = #"say "hi" \ and \\ and \" and \u0041 / end"#
        original.metadata["unicode"] = "été ✓ 数字 🙂 \u{2028}\u{2029} e\u{301}"
        original.metadata["layers"] = #"[{"type":"conv","in":1,"out":8,"kernel":5,"name":"c\"1"},{"type":"dense","out":10}]"#
        original.metadata["command"] = #"digits train --out 'runs/a b.safetensors' --note "x\ty" $HOME `id` ; echo 'it''s'"#
        original.metadata[""] = ""
        original.tensors["name with \"quote\", \\ and ünïcode\n"] = .init(shape: [1, 1], values: [-0.0])
        original.tensors["specials"] = .init(shape: [6], values: [.nan, -.infinity, .infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, Float(bitPattern: 0x7FC1_2345)])

        let bytes = try original.serialized()
        let parsed = try SafetensorsFile.parse(bytes, file: "round.safetensors")
        XCTAssertEqual(parsed.metadata, original.metadata)
        XCTAssertEqual(Set(parsed.tensors.keys), Set(original.tensors.keys))
        for (name, tensor) in original.tensors {
            XCTAssertEqual(parsed.tensors[name]?.shape, tensor.shape, name)
            XCTAssertEqual(parsed.tensors[name].map { bits($0.values) }, bits(tensor.values), name)
        }
        XCTAssertEqual(parsed.metadata["controls"]?.unicodeScalars.count, 33)
        XCTAssertEqual(parsed.tensors["scale"], .init(shape: [], values: [3]))
        XCTAssertEqual(parsed.tensors["empty2d"], .init(shape: [3, 0, 2], values: []))
        XCTAssertEqual(try parsed.serialized(), bytes, "re-serializing a parsed file gives the same bytes")
    }

    func testSafetensors_WriteIsDeterministicSortedAndAligned() throws {
        var a = SafetensorsFile()
        var b = SafetensorsFile()
        let names = ["zeta", "alpha", "Beta", "mid.1", "mid.10", "mid.2", "é"]
        for (i, name) in names.enumerated() { a.tensors[name] = .init(shape: [i], values: (0..<i).map(Float.init)) }
        for (i, name) in names.enumerated().reversed() { b.tensors[name] = .init(shape: [i], values: (0..<i).map(Float.init)) }
        for key in ["b", "a", "c"] { a.metadata[key] = key }
        for key in ["c", "a", "b"] { b.metadata[key] = key }
        let bytesA = try a.serialized()
        XCTAssertEqual(bytesA, try b.serialized())

        let n = bytesA.prefix(8).reversed().reduce(0) { $0 << 8 | Int($1) }
        XCTAssertEqual(n % 8, 0, "header padded to a multiple of 8")
        let header = String(decoding: bytesA[8..<(8 + n)], as: UTF8.self)
        XCTAssertTrue(header.hasPrefix(#"{"__metadata__":{"a":"a","b":"b","c":"c"},"Beta":"#), header)
        let order = ["Beta", "alpha", "mid.1", "mid.10", "mid.2", "zeta", "é"].compactMap { header.range(of: "\"\($0)\":")?.lowerBound }
        XCTAssertEqual(order, order.sorted(), "tensors appear in UTF-8 byte order of their names")
        XCTAssertEqual(order.count, 7)
        XCTAssertFalse(header.trimmingCharacters(in: .whitespaces).contains(" "), "no spaces except padding")
    }

    func testSafetensors_TinyFileHasExactlyTheExpectedBytes() throws {
        // The same bytes as Python's safetensors.numpy.save_file({"w": np.array([1, -2], np.float32)},
        // metadata={"k": "v\n"}) (checked by hand with safetensors 0.8.0, see Fixtures/safetensors/README.md).
        let tiny = SafetensorsFile(tensors: ["w": .init(shape: [2], values: [1, -2])], metadata: ["k": "v\n"])
        let header = #"{"__metadata__":{"k":"v\n"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#
        XCTAssertEqual(header.utf8.count, 81)
        let expected: [UInt8] = [88, 0, 0, 0, 0, 0, 0, 0] + Array(header.utf8) + Array(repeating: 0x20, count: 7)
            + [0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0]
        XCTAssertEqual(try tiny.serialized(), expected)

        XCTAssertEqual(try SafetensorsFile().serialized(), [8, 0, 0, 0, 0, 0, 0, 0] + Array("{}      ".utf8))
    }

    func testSafetensors_WriteRejectsValuesNotMatchingShape() {
        let cases: [(SafetensorsFile.Tensor, String)] = [
            (.init(shape: [2, 3], values: [1, 2, 3, 4, 5]), "does not match the 5 values"),
            (.init(shape: [], values: []), "does not match the 0 values"),
            (.init(shape: [-1], values: []), "shape[0] is -1"),
        ]
        for (tensor, fragment) in cases {
            XCTAssertThrowsError(try SafetensorsFile(tensors: ["t": tensor]).serialized()) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(error)")
                XCTAssertTrue("\(error)".contains("tensor 't'"), "\(error)")
            }
        }
        XCTAssertThrowsError(try SafetensorsFile(tensors: ["__metadata__": .init(shape: [], values: [1])]).serialized()) { error in
            XCTAssertTrue("\(error)".contains("reserves"), "\(error)")
        }
    }

    func testSafetensors_WriteToPathThenReadBack() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("safetensors-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sub/model.safetensors").path
        try sample.write(to: path)
        try sample.write(to: path)  // replacing an existing file
        let back = try SafetensorsFile.read(path: path)
        XCTAssertEqual(back.tensors, sample.tensors)
        XCTAssertEqual(back.metadata, sample.metadata)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("sub").path)
        XCTAssertEqual(leftovers, ["model.safetensors"], "no temporary files left behind")

        XCTAssertThrowsError(try SafetensorsFile.read(path: dir.appendingPathComponent("missing").path)) { error in
            XCTAssertEqual((error as? DigitError)?.kind, .io)
        }
        XCTAssertThrowsError(try SafetensorsFile(tensors: ["t": .init(shape: [2], values: [1])]).write(to: path)) { error in
            XCTAssertEqual((error as? DigitError)?.file, path, "a writer error names the file")
        }
        XCTAssertEqual(try SafetensorsFile.read(path: path).tensors, sample.tensors, "a failed write leaves the old file")
    }

    // MARK: - Interoperability with the reference implementation

    func testSafetensors_ReadsAFileWrittenByPythonExactly() throws {
        let path = TestPaths.fixtures.appendingPathComponent("safetensors/python-written.safetensors").path
        let loaded = try SafetensorsFile.read(path: path)
        XCTAssertEqual(loaded.metadata, [
            "format": "np",
            "layers": #"[{"type":"conv","out":2,"kernel":3},{"type":"dense","out":3,"note":"a \"quote\" and a \\"}]"#,
            "command": "digits train --out 'runs/a b.safetensors' --note \"été ✓\"\tend\n",
        ])
        XCTAssertEqual(Set(loaded.tensors.keys), ["conv1.weight", "conv1.bias", "fc.weight", "step", "empty"])
        XCTAssertEqual(loaded.tensors["conv1.weight"], .init(shape: [2, 1, 3, 3], values: (0..<18).map { (Float($0) - 8) * 0.25 }))
        XCTAssertEqual(loaded.tensors["conv1.bias"], .init(shape: [2], values: [0.1, -2.5]))
        XCTAssertEqual(loaded.tensors["step"], .init(shape: [], values: [7]))
        XCTAssertEqual(loaded.tensors["empty"], .init(shape: [0, 4], values: []))
        let fc = try XCTUnwrap(loaded.tensors["fc.weight"])
        XCTAssertEqual(fc.shape, [3, 3])
        XCTAssertEqual(bits(fc.values), bits([1, -0.0, .infinity, -.infinity, Float(bitPattern: 0x7FC0_0000),
                                              Float(bitPattern: 1), .greatestFiniteMagnitude,
                                              -Float(bitPattern: 0x0080_0000), 65504]))

        // Our writer produces the reference writer's bytes for the same content.
        let fixtureBytes = try FileIO.read(path, limit: 1 << 20)
        XCTAssertEqual(try loaded.serialized(), fixtureBytes)
    }

    // MARK: - Rejected files

    func testSafetensors_EveryTruncatedPrefixThrows() throws {
        let bytes = try sample.serialized()
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try SafetensorsFile.parse(Array(bytes.prefix(length)), file: "cut")) { error in
                XCTAssertEqual((error as? DigitError)?.kind, .format, "prefix \(length): \(error)")
            }
        }
        assertRejects(Array(bytes.prefix(5)), "byte 0", "too short")
        assertRejects(Array(bytes.prefix(40)), "byte 0", "runs past the end of the file")
        assertRejects(Array(bytes.dropLast(3)), "past the end of the", "data buffer", "truncated")
        XCTAssertNoThrow(try SafetensorsFile.parse(bytes, file: "whole"))
    }

    func testSafetensors_HeaderLengthLargerThanFileOrAbsurdThrows() {
        var huge = file("{}")
        for i in 0..<8 { huge[i] = 0xFF }
        assertRejects(huge, "byte 0", "18446744073709551615", "limit of 100000000")
        let justOver = UInt64(100_000_001)
        assertRejects((0..<8).map { UInt8(truncatingIfNeeded: justOver >> (8 * UInt64($0))) } + Array("{}".utf8), "limit")
        var long = file("{}")
        long[0] = 3
        assertRejects(long, "byte 0", "header length 3 runs past the end of the file (2 bytes follow")
        assertRejects(file(""), "byte 8", "must begin with '{'")
    }

    func testSafetensors_HeaderThatIsNotUTF8JSONOrAnObjectThrows() {
        assertRejects(file([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]), "byte 10", "invalid UTF-8")
        assertRejects(file([0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D]), "byte 10", "invalid UTF-8")  // encoded surrogate
        assertRejects(file([0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x7D]), "invalid UTF-8")  // overlong '/'
        assertRejects(file("[]"), "byte 8", "must begin with '{'")
        assertRejects(file(" {}"), "byte 8", "must begin with '{'")
        assertRejects(file("{"), "header: line 1, column 2 (byte 9)", "found end of input")
        assertRejects(file("{\"a\":1,}"), "expected a string key")
        assertRejects(file("{} x"), "byte 11", "after the JSON value")
        assertRejects(file("{\"a\":tru}"), "expected 'true'")
        assertRejects(file("{\"a\":\"x\ty\"}"), "control character")
        assertRejects(file("{\"a\":\"\\x\"}"), "invalid escape")
        assertRejects(file("{\"a\":\"\\ud800\"}"), "lone high surrogate")
        assertRejects(file("{\"a\":01}"), "leading zero")
        assertRejects(file("{\"a\":\"abc"), "unterminated string")
        // Trailing JSON whitespace is padding and allowed, as in the reference implementation.
        XCTAssertNoThrow(try SafetensorsFile.parse(file("{}\r \t\n"), file: "pad"))
    }

    func testSafetensors_DeeplyNestedHeaderThrowsInsteadOfOverflowingTheStack() {
        let deepArray = "{\"x\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        assertRejects(file(deepArray), "nesting deeper than 64", kind: .limit)
        let deepObject = String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        assertRejects(file(deepObject), "nesting deeper than 64", kind: .limit)
        assertRejects(file("{\"x\":" + String(repeating: "[", count: 100_000)), "nesting deeper", kind: .limit)
        // Depth that a JSON value may legitimately have is accepted by the JSON layer and rejected by the schema.
        assertRejects(file("{\"t\":{\"dtype\":\"F32\",\"shape\":[[[1]]],\"data_offsets\":[0,4]}}", data: [0, 0, 0, 0]), "shape[0] is an array")
    }

    func testSafetensors_MissingOrExtraKeysThrow() {
        let data = floatBytes([1])
        assertRejects(file(#"{"t":{"shape":[1],"data_offsets":[0,4]}}"#, data: data), "header: tensor 't'", "missing key 'dtype'")
        assertRejects(file(#"{"t":{"dtype":"F32","data_offsets":[0,4]}}"#, data: data), "missing key 'shape'")
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[1]}}"#, data: data), "missing key 'data_offsets'")
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"offsets":[0,4]}}"#, data: data), "unexpected key 'offsets'")
        assertRejects(file(#"{"t":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#, data: data), "duplicate key 'dtype'")
        assertRejects(file(#"{"t":[1]}"#, data: data), "header: tensor 't'", "found an array")
    }

    func testSafetensors_DtypeOtherThanF32Throws() {
        assertRejects(file(#"{"t":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}"#, data: [0, 0, 0, 0]),
                      "header: tensor 't'", "dtype 'F16' is not supported: only F32 is supported")
        assertRejects(file(#"{"t":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}"#, data: Array(repeating: 0, count: 8)), "dtype 'F64'")
        assertRejects(file(#"{"t":{"dtype":32,"shape":[1],"data_offsets":[0,4]}}"#, data: [0, 0, 0, 0]), "dtype is the number 32")
    }

    func testSafetensors_BadShapesThrow() {
        let data = floatBytes([1])
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#, data: data), "shape[0] is the number -1, expected a non-negative integer")
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}"#, data: data), "shape[0] is the number 1.5")
        // A whole number is a whole number however it is written (the JSON reader keeps values, not spellings).
        XCTAssertNoThrow(try SafetensorsFile.parse(file(#"{"t":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4e0]}}"#, data: data), file: "ok"))
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[1,"2"],"data_offsets":[0,4]}}"#, data: data), "shape[1] is a string")
        assertRejects(file(#"{"t":{"dtype":"F32","shape":1,"data_offsets":[0,4]}}"#, data: data), "shape is the number 1, expected an array")
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,4]}}"#, data: data), "shape[0]")
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}"#), "overflows")
        // The product of the non-zero dimensions must fit even when a zero makes the count 0.
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[4294967296,4294967296,0],"data_offsets":[0,0]}}"#), "overflows")
        // 2^62 elements fit in Int but their byte count does not.
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[4503599627370496,1024],"data_offsets":[0,4]}}"#, data: data), "more than Int.max")
        // Dimensions above 2^53, where a JSON number stops being exact, are refused.
        assertRejects(file(#"{"t":{"dtype":"F32","shape":[18014398509481984],"data_offsets":[0,4]}}"#, data: data), "at most 2^53")
    }

    func testSafetensors_BadDataOffsetsThrow() {
        let data = floatBytes([1, 2])
        // A tensor's data_offsets and shape, and what the error must mention.
        let cases: [(offsets: String, shape: String, fragments: [String])] = [
            ("[0]", "2", ["data_offsets is an array, expected an array of two integers"]),
            ("[0,4,8]", "2", ["expected an array of two integers"]),
            ("\"0-8\"", "2", ["data_offsets is a string"]),
            ("[0,8.5]", "2", ["two non-negative integers", "the number 8.5"]),
            ("[-4,4]", "2", ["two non-negative integers"]),
            ("[8,0]", "2", ["end 0 is before begin 8"]),
            ("[0,4]", "2", ["hold 4 bytes, but shape [2] of F32 needs 8"]),
            ("[4,12]", "2", ["data_offsets end 12 is past the end of the 8-byte data buffer"]),
            ("[9007199254740992,9007199254740992]", "0", ["past the end"]),
            ("[9223372036854775807,9223372036854775807]", "0", ["two non-negative integers"]),
        ]
        for c in cases {
            let header = "{\"t\":{\"dtype\":\"F32\",\"shape\":[\(c.shape)],\"data_offsets\":\(c.offsets)}}"
            assertRejects(file(header, data: data), c.fragments, case: "data_offsets \(c.offsets), shape [\(c.shape)]")
        }
    }


    func testSafetensors_OverlapsHolesAndTrailingBytesThrow() {
        let data8 = floatBytes([1, 2])
        assertRejects(file("{" + entry("a", shape: "2", 0, 8) + "," + entry("b", shape: "1", 4, 8) + "}", data: data8),
                      "header: tensor 'b'", "overlap the data of tensor 'a'")
        assertRejects(file("{" + entry("a", shape: "1", 0, 4) + "," + entry("b", shape: "0", 2, 2) + "}", data: floatBytes([1])),
                      "header: tensor 'b'", "overlap")
        assertRejects(file("{" + entry("a", shape: "1", 4, 8) + "}", data: data8),
                      "header: tensor 'a'", "4 bytes of the buffer belong to no tensor")
        assertRejects(file("{" + entry("a", shape: "1", 0, 4) + "," + entry("b", shape: "1", 8, 12) + "}", data: floatBytes([1, 2, 3])),
                      "header: tensor 'b'", "data before it ends at 4")
        let trailing = file("{" + entry("a", shape: "1", 0, 4) + "}", data: data8)
        assertRejects(trailing, "byte \(trailing.count - 4)", "4 trailing bytes after the last tensor")
        assertRejects(file("{}", data: [0]), "1 trailing bytes")
        // Tensors may be stored in any order, and empty tensors may sit anywhere, as in the reference reader.
        let shuffled = file("{" + entry("b", shape: "1", 4, 8) + "," + entry("e", shape: "0", 4, 4) + "," + entry("a", shape: "1", 0, 4) + "}", data: data8)
        XCTAssertEqual(try SafetensorsFile.parse(shuffled, file: "ok").tensors, ["a": .init(shape: [1], values: [1]), "b": .init(shape: [1], values: [2]), "e": .init(shape: [0], values: [])])
    }

    func testSafetensors_BadMetadataThrows() {
        assertRejects(file(#"{"__metadata__":{"epochs":3}}"#), "header: __metadata__ key 'epochs'", "value is the number 3, expected a string")
        assertRejects(file(#"{"__metadata__":{"a":null}}"#), "value is null")
        assertRejects(file(#"{"__metadata__":{"a":{"b":"c"}}}"#), "value is an object")
        assertRejects(file(#"{"__metadata__":["a"]}"#), "header: __metadata__", "expected an object of string values, found an array")
        assertRejects(file(#"{"__metadata__":null}"#), "found null")
        assertRejects(file(#"{"__metadata__":{"a":"1","a":"2"}}"#), "key 'a'", "duplicate metadata key")
        assertRejects(file(#"{"__metadata__":{},"__metadata__":{}}"#), "header: __metadata__", "appears twice")
        XCTAssertEqual(try SafetensorsFile.parse(file(#"{"__metadata__":{"a":"\u00e9\ud83d\ude42\/"}}"#), file: "ok").metadata, ["a": "é🙂/"])
    }

    func testSafetensors_DuplicateTensorNamesThrow() {
        let data = floatBytes([1])
        assertRejects(file("{" + entry("w", shape: "1", 0, 4) + "," + entry("w", shape: "0", 4, 4) + "}", data: data),
                      "header: tensor 'w'", "duplicate tensor name")
        // Different bytes, same Swift String: they would collide in the dictionary.
        assertRejects(file("{" + entry("\u{e9}", shape: "1", 0, 4) + "," + entry("e\u{301}", shape: "0", 4, 4) + "}", data: data),
                      "canonically equivalent")
        assertRejects(file("{" + entry(#"\u0077"#, shape: "1", 0, 4) + "," + entry("w", shape: "0", 4, 4) + "}", data: data),
                      "duplicate tensor name")
    }

    func testSafetensors_ErrorsQuoteHostileNamesOnOneShortLine() {
        let name = "evil\\n" + String(repeating: "x", count: 500)
        assertRejects(file("{\"\(name)\":{\"dtype\":\"I8\",\"shape\":[],\"data_offsets\":[0,1]}}", data: [0]), "tensor 'evil\\nxxx", "…'")
        do {
            _ = try SafetensorsFile.parse(file("{\"\(name)\":1}"), file: "f")
            XCTFail("expected an error")
        } catch {
            XCTAssertFalse("\(error)".contains("\n"))
            XCTAssertLessThan("\(error)".count, 250)
        }
    }

    func testSafetensors_NaNAndInfinityAreData() throws {
        let values: [Float] = [.nan, .infinity, -.infinity, Float(bitPattern: 0xFFC0_0001)]
        let parsed = try SafetensorsFile.parse(file("{" + entry("t", shape: "4", 0, 16) + "}", data: floatBytes(values)), file: "ok")
        XCTAssertEqual(parsed.tensors["t"].map { bits($0.values) }, bits(values))
    }

    func testSafetensors_RandomCorruptionsNeverCrash() throws {
        let original = try sample.serialized()
        var rng = SplitMix64(seed: 42)
        var accepted = 0
        for _ in 0..<3000 {
            let bytes = rng.damaged(original) { UInt8(truncatingIfNeeded: $0.next()) }
            do {
                let parsed = try SafetensorsFile.parse(bytes, file: "fuzz")
                // A mutation that still parses (a changed value byte) must describe a writable file.
                _ = try parsed.serialized()
                accepted += 1
            } catch let error as DigitError {
                XCTAssertEqual(error.kind, .format)
            }
        }
        XCTAssertGreaterThan(accepted, 0, "some mutations only touch tensor data and must parse")
    }
}
