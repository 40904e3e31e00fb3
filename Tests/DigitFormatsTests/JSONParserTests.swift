@testable import DigitFormats
import Foundation
import DigitKit
import DigitTestSupport
import XCTest

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    /// Parses `text`, expecting failure; returns the error for inspection.
    private func failure(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> DigitError? {
        do {
            let value = try JSONParser.parse(bytes)
            XCTFail("expected an error, parsed \(value)", file: file, line: line)
        } catch let error as DigitError {
            return error
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
        }
        return nil
    }

    private func failure(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> DigitError? {
        failure(Array(text.utf8), file: file, line: line)
    }

    /// Asserts that each input fails to parse with its message; a failure names the input.
    private func assertFailures(_ cases: KeyValuePairs<String, String>, file: StaticString = #filePath, line: UInt = #line) {
        for (input, message) in cases {
            XCTAssertEqual(failure(input, file: file, line: line)?.message, message, "input: \(input)", file: file, line: line)
        }
    }

    func testParse_ScalarsAndContainers() throws {
        XCTAssertEqual(try parse("null"), .null)
        XCTAssertEqual(try parse(" true "), .bool(true))
        XCTAssertEqual(try parse("false"), .bool(false))
        XCTAssertEqual(try parse("\"hi\""), .string("hi"))
        XCTAssertEqual(try parse("[]"), .array([]))
        XCTAssertEqual(try parse("{}"), .object([]))
        XCTAssertEqual(try parse("[1, [2, []], {\"a\": null}]"),
                       .array([.number(1), .array([.number(2), .array([])]), .object([JSONMember("a", .null)])]))
    }

    func testParse_ObjectKeepsKeyOrder() throws {
        let value = try parse(#"{"z": 1, "a": 2, "m": {"y": true, "b": false}}"#)
        guard case .object(let members) = value else { return XCTFail("not an object") }
        XCTAssertEqual(members.map(\.key), ["z", "a", "m"])
        XCTAssertEqual(value["m"], .object([JSONMember("y", .bool(true)), JSONMember("b", .bool(false))]))
        XCTAssertNil(value["missing"])
    }

    func testParse_NumbersAreRoundedCorrectly() throws {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", -0.0), ("1", 1), ("-12.5", -12.5), ("0.1", 0.1), ("1e3", 1000), ("1E-2", 0.01),
            ("2.5e+2", 250), ("123456789012345678901234567890", 123456789012345678901234567890.0),
            ("0.30000000000000004", 0.30000000000000004), ("1.7976931348623157e308", 1.7976931348623157e308),
            ("4.9e-324", Double.leastNonzeroMagnitude), ("1e-400", 0), ("0.000000000000000000000000001234", 1.234e-27),
            ("9007199254740993", 9007199254740992), ("3.141592653589793238462643383279", Double.pi),
        ]
        for (text, expected) in cases {
            guard case .number(let v) = try parse(text) else { XCTFail(text); continue }
            XCTAssertEqual(v, expected, text)
            XCTAssertEqual(v.sign, expected.sign, text)
        }
    }

    func testParse_NumbersMatchSwiftConversionOnRandomInputs() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let mantissa = rng.next() % 1_000_000_000_000
            let fraction = rng.next() % 100_000
            let exponent = Int(rng.next() % 60) - 30
            let text = "\(mantissa).\(fraction)e\(exponent)"
            guard case .number(let v) = try parse(text) else { XCTFail(text); continue }
            XCTAssertEqual(v, Double(text), text)
        }
    }

    /// The stroke fast path's number reader gives the full parser's bits for every number it
    /// accepts, accepts the plain forms, and leaves the rest (nil) to the full parser.
    func testScannerNumber_IsTheFullParsersValueOrNil() throws {
        func scanned(_ text: String) -> Double? {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { buffer -> Double? in
                var scanner = JSONScanner(buffer, range: 0..<buffer.count)
                guard let v = scanner.number(), scanner.atEnd() else { return nil }
                return v
            }
        }
        let plain = ["0", "-0", "7", "157.4", "-94.25", "0.008", "0.74", "1e3", "-1E+3", "2.5e-7", "0.000123",
                     "123456789012345", "1.23456789012345", "9e22", "1e-22", "0e999", "-0.0e-5", "12E0"]
        let other = ["1234567890123456", "1e23", "1e-23", "1e1000", "01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "1.5.2"]
        for text in plain {
            let value = try XCTUnwrap(scanned(text), text)
            guard case .number(let expected) = try parse(text) else { XCTFail(text); continue }
            XCTAssertEqual(value.bitPattern, expected.bitPattern, text)
        }
        for text in other { XCTAssertNil(scanned(text), text) }
        var rng = SplitMix64(seed: 11)
        for _ in 0..<5000 {
            let digits = Int(rng.next() % 15) + 1, point = Int(rng.next() % UInt64(digits + 1))
            var text = String((0..<digits).map { i in Character(String(i == 0 && digits > 1 ? rng.next() % 9 + 1 : rng.next() % 10)) })
            if point > 0 && point < digits { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if rng.next() % 3 == 0 { text += "e\(Int(rng.next() % 41) - 20)" }
            if rng.next() % 2 == 0 { text = "-" + text }
            guard let value = scanned(text), case .number(let expected) = try parse(text) else { continue }
            XCTAssertEqual(value.bitPattern, expected.bitPattern, text)
        }
    }

    func testParse_OverflowingNumberIsRejectedByName() {
        for text in ["1e999", "-1e400", "[0, 2e308]", "123456789e999999999999999999"] {
            let error = failure(text)
            XCTAssertEqual(error?.kind, .format)
            XCTAssertTrue(error?.message.contains("overflows to infinity") ?? false, "\(text): \(String(describing: error))")
        }
    }

    func testParse_MalformedNumbersAreRejected() {
        for text in ["01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1.e5", "--1"] {
            XCTAssertEqual(failure(text)?.kind, .format, text)
        }
        XCTAssertEqual(failure("01")?.message, "a number must not have leading zeros")
    }

    func testParse_StringEscapesAndUnicode() throws {
        XCTAssertEqual(try parse(#""a\"b\\c\/d\b\f\n\r\t""#), .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        XCTAssertEqual(try parse(#""\u00e9\u4E2D\ud83d\ude00""#), .string("é中😀"))
        XCTAssertEqual(try parse("\"é中😀\""), .string("é中😀"))
        XCTAssertEqual(try parse(#""plain then \n escape""#), .string("plain then \n escape"))
    }

    func testParse_LoneSurrogatesAreRejected() {
        XCTAssertTrue(failure(#""\ud83d""#)?.message.contains("lone high surrogate") ?? false)
        XCTAssertTrue(failure(#""\ud83d\u0041""#)?.message.contains("not followed by a low surrogate") ?? false)
        XCTAssertTrue(failure(#""\ude00""#)?.message.contains("lone low surrogate") ?? false)
    }

    func testParse_InvalidUTF8IsRejected() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22],                    // never valid
            [0x22, 0xC0, 0xAF, 0x22],              // overlong '/'
            [0x22, 0xE0, 0x80, 0xAF, 0x22],        // overlong
            [0x22, 0xED, 0xA0, 0x80, 0x22],        // encoded surrogate U+D800
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xC3, 0x22],                    // truncated sequence
            [0x22, 0x80, 0x22],                    // stray continuation byte
        ]
        for bytes in cases {
            let error = failure(bytes)
            XCTAssertEqual(error?.kind, .format, "\(bytes)")
            XCTAssertTrue(error?.message.contains("UTF-8") ?? false, "\(bytes): \(String(describing: error))")
        }
    }

    func testParse_ControlCharacterInStringIsRejected() {
        XCTAssertEqual(failure("\"a\nb\"")?.message, "control character 0x0A in a string must be escaped")
        XCTAssertEqual(failure(#""\x""#)?.message, "invalid escape '\\x' in a string")
    }

    func testParse_DepthLimitIsEnforcedWithoutRecursion() {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try parse(ok))
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertEqual(failure(tooDeep)?.kind, .limit)
        let million = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        let error = failure(million)
        XCTAssertEqual(error?.kind, .limit)
        XCTAssertEqual(error?.message, "nesting deeper than 64 arrays/objects")
        XCTAssertEqual(error?.location, "line 1, column 65 (byte 64)")
        let objects = String(repeating: "{\"a\":", count: 100_000)
        XCTAssertEqual(failure(objects)?.kind, .limit)
    }

    func testParse_ErrorsGiveLineColumnAndByte() {
        let error = failure("{\n  \"a\": [1, 2,\n  ]\n}")
        XCTAssertEqual(error?.location, "line 3, column 3 (byte 18)")
        XCTAssertEqual(error?.message, "expected a JSON value, found ']'")
        // Columns count characters, not bytes.
        XCTAssertEqual(failure("[\"é\" 1]")?.location, "line 1, column 6 (byte 6)")
        XCTAssertEqual(failure("[\"é\" 1]")?.message, "expected ',' or ']' after an array element, found '1'")
    }

    func testParse_TruncatedInputsAreRejected() {
        assertFailures([
            "": "expected a JSON value, found end of input",
            "[1, 2": "unexpected end of input inside an array",
            "{\"a\": 1": "unexpected end of input inside an object",
            "\"abc": "unterminated string (opened at byte 0)",
            "tru": "expected 'true', found end of input",
            "{\"a\" 1}": "expected ':' after the object key \"a\", found '1'",
            "{1: 2}": "expected a string key in the object, found '1'",
        ])
    }

    func testParse_TrailingCommaAndTrailingContentAreRejected() {
        assertFailures([
            "[1, 2,]": "expected a JSON value, found ']'",
            "{\"a\": 1,}": "expected a string key in the object, found '}'",
            "{} {}": "unexpected '{' after the JSON value",
            "1 2": "unexpected '2' after the JSON value",
        ])
    }

    func testParse_DuplicateKeysAreRejected() {
        XCTAssertEqual(failure(#"{"x": 1, "x": 2}"#)?.message, "duplicate key \"x\" in the object ending here")
        let many = "{" + (0..<20).map { "\"k\($0)\": 0" }.joined(separator: ",") + ", \"k3\": 1}"
        XCTAssertEqual(failure(many)?.message, "duplicate key \"k3\" in the object ending here")
    }

    func testParse_ByteOrderMarkIsSkipped() throws {
        XCTAssertEqual(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)), .array([.number(1)]))
    }

    func testSerialize_RoundTripsThroughTheParser() throws {
        let value = JSONValue.object([
            JSONMember("s", .string("quote \" backslash \\ newline \n tab \t bell \u{7} é")),
            JSONMember("n", .array([.number(0), .number(-3), .number(0.1), .number(1e300), .number(-2.5e-8)])),
            JSONMember("b", .array([.bool(true), .bool(false), .null])),
        ])
        let text = value.serialized()
        XCTAssertFalse(text.contains("\n"))
        XCTAssertTrue(text.contains("\\u0007"))
        XCTAssertEqual(try parse(text), value)
        XCTAssertEqual(JSONValue.array([.number(12), .number(12.5)]).serialized(), "[12,12.5]")
    }

    func testParse_RandomlyDamagedDrawingsThrowOrDecodeButNeverCrash() throws {
        let original = Array(#"{"label": "7", "canvas": {"width": 280}, "strokes": [[[12.5, 30], [14, -3e2]], [{"x": 1, "y": 2, "t": 0.5, "p": 0.25}]], "note": "é\u00e9"}"#.utf8)
        let alphabet = Array(#"{}[],:"\-+.eE0123456789 tfnulx"#.utf8) + [0x0A, 0xC3, 0xA9, 0xFF, 0xED, 0xA0]
        var rng = SplitMix64(seed: 42)
        var parsed = 0
        for _ in 0..<3000 {
            let bytes = rng.damaged(original) { alphabet[Int($0.next() % UInt64(alphabet.count))] }
            if let value = try? JSONParser.parse(bytes) {
                parsed += 1
                _ = try? StrokeJSON.decode(value)
                XCTAssertEqual(try JSONParser.parse(value.serialized()), value, "serialized form re-parses")
            }
        }
        XCTAssertGreaterThan(parsed, 100, "some mutations stay valid JSON")
    }
}
